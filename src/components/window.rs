//! Scrolling windows over long lists: only the rows in view (plus a few either side) are in the
//! DOM, whatever the list's length, so thousands of pods, ledger lines or events cost what a
//! screenful costs. Rows have a fixed height; what is above and below the window is an empty
//! SVG of the right height (an attribute, not a style: the page's CSP refuses inline styles),
//! so the scrollbar shows the whole list and moves through it. A renderer keys its rows by
//! their position in the list (`first + i`), not by what they show: a row inserted above the
//! window (the ledger's newest line, an Event sorted in, a pod added) then rewrites the rows in
//! view in place instead of moving each one down — a layout shift on every write.
//!
//! [`window`] is the pure arithmetic (tested natively); [`use_window`] follows the scroll
//! container; [`VirtualList`] (a column of cards) and [`VirtualTable`] (table rows) draw.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

/// Rows drawn beyond each edge of the viewport, so a small scroll shows no gap.
pub const OVERSCAN: usize = 4;
/// The viewport height assumed before the container was measured.
pub const UNMEASURED_VIEWPORT_PX: u32 = 900;
/// The tallest viewport a window is sized for (a measured one larger than this is capped, so
/// the rows drawn stay bounded on any screen).
pub const MAX_VIEWPORT_PX: u32 = 4000;

/// The rows `[first, end)` of a list that are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    pub first: usize,
    pub end: usize,
}

impl Window {
    pub fn len(&self) -> usize {
        self.end - self.first
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.first
    }
}

/// The most rows a window over a viewport of `viewport_px` can hold, for any list length.
pub fn max_rows(row_px: u32, viewport_px: u32) -> usize {
    let viewport_px = viewport_px.min(MAX_VIEWPORT_PX);
    (viewport_px as usize).div_ceil(row_px.max(1) as usize) + 1 + 2 * OVERSCAN
}

/// The rows to draw of a list of `total` rows of `row_px` each, scrolled to `top_row` (the
/// first row at least partly in view), in a viewport of `viewport_px`.
pub fn window(total: usize, row_px: u32, top_row: usize, viewport_px: u32) -> Window {
    let viewport_px = viewport_px.min(MAX_VIEWPORT_PX);
    let in_view = (viewport_px as usize).div_ceil(row_px.max(1) as usize) + 1;
    let top_row = top_row.min(total);
    let first = top_row.saturating_sub(OVERSCAN);
    let end = top_row.saturating_add(in_view + OVERSCAN).min(total);
    Window { first, end }
}

/// Where a scroll container is: its first visible row and its height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scroll {
    top_row: usize,
    viewport_px: u32,
}

fn measure(el: &Element, row_px: u32, head_px: u32) -> Scroll {
    let top = (el.scroll_top().max(0) as u32).saturating_sub(head_px);
    Scroll {
        top_row: (top / row_px.max(1)) as usize,
        viewport_px: el.client_height().max(0) as u32,
    }
}

/// Calls `f` on each resize of the browser window (also a zoom), until the returned cleanup
/// runs: for an effect that must re-measure its container although nothing re-rendered (the
/// clock paused, say).
pub fn on_window_resize(f: impl Fn() + 'static) -> impl FnOnce() {
    let on_resize = Closure::<dyn Fn()>::new(f);
    let window = web_sys::window();
    if let Some(w) = &window {
        let _ = w.add_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
    }
    move || {
        if let Some(w) = &window {
            let _ =
                w.remove_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
        }
        drop(on_resize);
    }
}

/// Follows the scroll container `node` (scroll, resize): returns the window over `total` rows
/// and the `onscroll` callback to put on the container. Only a change of the first row in
/// view or of the height re-renders (not every scrolled pixel).
#[hook]
pub fn use_window(
    node: NodeRef,
    total: usize,
    row_px: u32,
    head_px: u32,
) -> (Window, Callback<Event>) {
    let scroll = use_state_eq(|| Scroll {
        top_row: 0,
        viewport_px: UNMEASURED_VIEWPORT_PX,
    });
    {
        // After each render: the container may have been resized or clamped its scroll.
        let (node, scroll) = (node.clone(), scroll.clone());
        use_effect(move || {
            if let Some(el) = node.cast::<Element>() {
                scroll.set(measure(&el, row_px, head_px));
            }
        });
    }
    {
        let (node, scroll) = (node.clone(), scroll.clone());
        use_effect_with((), move |_| {
            on_window_resize(move || {
                if let Some(el) = node.cast::<Element>() {
                    scroll.set(measure(&el, row_px, head_px));
                }
            })
        });
    }
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |_: Event| {
            if let Some(el) = node.cast::<Element>() {
                scroll.set(measure(&el, row_px, head_px));
            }
        })
    };
    (
        window(total, row_px, scroll.top_row, scroll.viewport_px),
        onscroll,
    )
}

/// An empty block `px` high standing for rows that are not drawn.
fn spacer(px: usize) -> Html {
    html! { <svg class="spacer" width="1" height={px.to_string()} aria-hidden="true" focusable="false"></svg> }
}

#[derive(Properties, PartialEq)]
pub struct ListProps {
    pub total: usize,
    /// Each row's height, in CSS pixels (the CSS must give the rows exactly this height).
    pub row_px: u32,
    /// Draws the rows `[first, end)` (each keyed).
    pub render: Callback<Window, Html>,
    #[prop_or_default]
    pub class: Classes,
    /// The scroll region's accessible name.
    pub label: AttrValue,
}

/// A scrolling column of fixed-height rows (the pod cards of a node).
#[component]
pub fn VirtualList(props: &ListProps) -> Html {
    let node = use_node_ref();
    let (w, onscroll) = use_window(node.clone(), props.total, props.row_px, 0);
    let row = props.row_px as usize;
    html! {
        <div ref={node} class={classes!("vlist", props.class.clone())} {onscroll} tabindex="0"
            role="region" aria-label={props.label.clone()}
            data-total={props.total.to_string()} data-first={w.first.to_string()} data-end={w.end.to_string()}>
            { spacer(w.first * row) }
            { props.render.emit(w) }
            { spacer((props.total - w.end) * row) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct TableProps {
    pub total: usize,
    /// Each body row's height, in CSS pixels (the CSS must give the rows exactly this height).
    pub row_px: u32,
    /// The header row's height (it scrolls with the body, sticky at the top).
    #[prop_or(26)]
    pub head_px: u32,
    /// The `<tr>` of the header.
    pub head: Html,
    /// How many columns (the spacer rows span them).
    pub columns: usize,
    /// Draws the rows `[first, end)` (each a keyed `<tr>`).
    pub render: Callback<Window, Html>,
    #[prop_or_default]
    pub class: Classes,
    #[prop_or_default]
    pub id: Option<AttrValue>,
    pub label: AttrValue,
}

/// A scrolling table whose body draws only the rows in view.
#[component]
pub fn VirtualTable(props: &TableProps) -> Html {
    let node = use_node_ref();
    let (w, onscroll) = use_window(node.clone(), props.total, props.row_px, props.head_px);
    let row = props.row_px as usize;
    let colspan = props.columns.max(1).to_string();
    html! {
        <div ref={node} class="scroll vtable" {onscroll} tabindex="0" role="region" aria-label={props.label.clone()}>
            <table id={props.id.clone()} class={props.class.clone()}
                data-total={props.total.to_string()} data-first={w.first.to_string()} data-end={w.end.to_string()}>
                <thead>{ props.head.clone() }</thead>
                <tbody>
                    <tr key="spacer-above" class="spacer" aria-hidden="true"><td colspan={colspan.clone()}>{ spacer(w.first * row) }</td></tr>
                    { props.render.emit(w) }
                    <tr key="spacer-below" class="spacer" aria-hidden="true"><td colspan={colspan}>{ spacer((props.total - w.end) * row) }</td></tr>
                </tbody>
            </table>
        </div>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_bounded_whatever_the_list_length() {
        for total in [0, 1, 10, 3_000, 150_000] {
            for top in [0, 1, 500, 2_999, 149_999, usize::MAX] {
                let w = window(total, 44, top, 600);
                assert!(w.first <= w.end && w.end <= total, "{total} {top} {w:?}");
                assert!(w.len() <= max_rows(44, 600), "{total} {top} {w:?}");
            }
        }
        // A huge measured viewport is capped too.
        assert!(window(150_000, 20, 0, u32::MAX).len() <= max_rows(20, MAX_VIEWPORT_PX));
    }

    #[test]
    fn the_window_covers_the_viewport_with_overscan() {
        // 600 px of 44 px rows: 14 rows in view (the first one partly), 4 more either side.
        let w = window(3_000, 44, 100, 600);
        assert_eq!(
            w,
            Window {
                first: 96,
                end: 100 + 15 + 4
            }
        );
        assert_eq!(window(3_000, 44, 0, 600).first, 0);
        // Scrolled to the end: the last rows, nothing beyond.
        let w = window(3_000, 44, 2_990, 600);
        assert_eq!(w.end, 3_000);
        assert!(w.first <= 2_990 - OVERSCAN);
        // Short lists are drawn whole.
        assert_eq!(window(5, 44, 0, 600), Window { first: 0, end: 5 });
        assert!(window(0, 44, 0, 600).is_empty());
    }
}
