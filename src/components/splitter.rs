//! The handle between the views and the tools (console): drag it, or focus it and press ←/→
//! (Home/End for the extremes), to give the console more or less of the page; the width is
//! remembered in localStorage. A WAI-ARIA window splitter. The width reaches the layout as a
//! CSS custom property set through the CSSOM (the page's CSP refuses inline style attributes).

use crate::i18n::T;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

/// The localStorage key the console's width is remembered under.
pub const STORAGE_KEY: &str = "watchlab.toolsWidth";
/// The narrowest console, in CSS pixels.
pub const MIN_TOOLS_PX: f64 = 300.0;
/// The views keep at least this much.
pub const MIN_VIEWS_PX: f64 = 420.0;
/// One arrow key press.
pub const STEP_PX: f64 = 40.0;

/// The console width for a wish of `want` pixels in a main area `main` pixels wide: within
/// [`MIN_TOOLS_PX`] and what leaves the views [`MIN_VIEWS_PX`] (the views win on a narrow page).
pub fn clamp_tools_width(want: f64, main: f64) -> f64 {
    let max = (main - MIN_VIEWS_PX).max(MIN_TOOLS_PX);
    if want.is_finite() {
        want.clamp(MIN_TOOLS_PX, max).round()
    } else {
        MIN_TOOLS_PX
    }
}

fn main_element() -> Option<HtmlElement> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("main").ok().flatten())
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
}

/// The console's width as laid out now.
fn tools_width() -> f64 {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("section.tools").ok().flatten())
        .map_or(420.0, |t| t.get_bounding_client_rect().width())
}

fn main_width() -> f64 {
    main_element().map_or(1280.0, |m| m.get_bounding_client_rect().width())
}

/// Applies `px` to the layout (`--tools-width` on `<main>`).
fn apply(px: f64) {
    if let Some(m) = main_element() {
        let _ = m.style().set_property("--tools-width", &format!("{px}px"));
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub lang: crate::i18n::Lang,
}

#[component]
pub fn Splitter(props: &Props) -> Html {
    // `None` until the learner moves it: the stylesheet's default applies.
    let width = use_state(|| {
        crate::local_storage()
            .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
            .and_then(|v| v.parse::<f64>().ok())
    });
    // The width last asked for, ahead of the render that applies it: key presses quicker than
    // a render (a held key repeats) each step from the one before, not from the stale layout.
    let asked = use_mut_ref(|| None::<f64>);
    let dragging = use_state(|| false);
    // Where a drag started: the pointer's x and the console's width then (the handle moves by
    // what the pointer moved, without a jump where it was grabbed).
    let origin = use_mut_ref(|| (0.0f64, 0.0f64));
    use_effect_with(*width, |w| {
        if let Some(px) = *w {
            let px = clamp_tools_width(px, main_width());
            apply(px);
            if let Some(s) = crate::local_storage() {
                let _ = s.set_item(STORAGE_KEY, &px.to_string());
            }
        }
    });
    // What assistive technology is told: the console's width as laid out and its bounds,
    // measured after every render (the stylesheet's default width before any move).
    let bounds = use_state_eq(|| (MIN_TOOLS_PX, MIN_TOOLS_PX));
    {
        let bounds = bounds.clone();
        use_effect(move || {
            let max = (main_width() - MIN_VIEWS_PX).max(MIN_TOOLS_PX).round();
            bounds.set((tools_width().round(), max));
        });
    }
    let onkeydown = {
        let width = width.clone();
        let asked = asked.clone();
        Callback::from(move |e: KeyboardEvent| {
            let now = asked.borrow().unwrap_or_else(tools_width);
            let next = match e.key().as_str() {
                "ArrowLeft" => now + STEP_PX,
                "ArrowRight" => now - STEP_PX,
                "Home" => f64::MAX,
                "End" => MIN_TOOLS_PX,
                _ => return,
            };
            e.prevent_default();
            let px = clamp_tools_width(next, main_width());
            *asked.borrow_mut() = Some(px);
            width.set(Some(px));
        })
    };
    let onpointerdown = {
        let dragging = dragging.clone();
        let origin = origin.clone();
        let asked = asked.clone();
        Callback::from(move |e: PointerEvent| {
            let from = asked.borrow().unwrap_or_else(tools_width);
            *origin.borrow_mut() = (e.client_x() as f64, from);
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
            e.prevent_default();
            dragging.set(true);
        })
    };
    let onpointermove = {
        let dragging = dragging.clone();
        let width = width.clone();
        Callback::from(move |e: PointerEvent| {
            if !*dragging {
                return;
            }
            let (x0, w0) = *origin.borrow();
            let want = w0 + (x0 - e.client_x() as f64);
            let px = clamp_tools_width(want, main_width());
            *asked.borrow_mut() = Some(px);
            width.set(Some(px));
        })
    };
    let onpointerup = {
        let dragging = dragging.clone();
        Callback::from(move |_: PointerEvent| dragging.set(false))
    };
    let (now, max) = *bounds;
    html! {
        <div class={classes!("splitter", (*dragging).then_some("dragging"))} id="splitter" role="separator" tabindex="0"
            aria-orientation="vertical" aria-controls="tools-pane" aria-label={T::ResizeConsole.tr(props.lang)}
            aria-valuemin={MIN_TOOLS_PX.to_string()} aria-valuemax={max.to_string()} aria-valuenow={now.to_string()}
            aria-valuetext={format!("{now} px")}
            title={T::ResizeConsoleHint.tr(props.lang)}
            {onkeydown} {onpointerdown} {onpointermove} {onpointerup}>
            <span class="grip" aria-hidden="true"></span>
        </div>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_console_keeps_its_minimum_and_the_views_theirs() {
        assert_eq!(clamp_tools_width(100.0, 1280.0), MIN_TOOLS_PX);
        assert_eq!(clamp_tools_width(500.4, 1280.0), 500.0);
        assert_eq!(clamp_tools_width(2000.0, 1280.0), 1280.0 - MIN_VIEWS_PX);
        // A page too narrow for both: the console keeps its minimum.
        assert_eq!(clamp_tools_width(500.0, 600.0), MIN_TOOLS_PX);
        assert_eq!(clamp_tools_width(f64::NAN, 1280.0), MIN_TOOLS_PX);
    }
}
