//! The timeline: every ledger write as a mark over virtual time, one lane per writer component,
//! so the node-failure story reads left to right (kubelet silent, node controller, ReplicaSet,
//! scheduler). Events (the Kubernetes kind) are writes too and show on their writer's lane.
//!
//! Keyboard: the marks are one tab stop (a roving tabindex); ←/→ move to the previous / next
//! write in time, ↑/↓ to the nearest write of the lane above / below, Home/End to the first /
//! last; Enter or Space shows the object as that write left it, Escape closes it. The focused
//! mark is described in words below the picture.

use super::ledger_view::InspectionPane;
use super::{fill, tr, use_ctx, Ctx};
use crate::i18n::T;
use crate::state::{format_time, Action};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use watchlab_engine::apiserver::ledger::LedgerEntry;
use watchlab_engine::clock::Timestamp;
use web_sys::Element;
use yew::prelude::*;

/// Most recent writes drawn.
pub const MAX_DOTS: usize = 600;
const WIDTH: f64 = 720.0;
const LANE: f64 = 26.0;
const LEFT: f64 = 172.0;

/// A mark's place: which lane, when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub revision: u64,
    pub lane: usize,
    pub time_ms: u64,
}

/// Where a key moves the focus from mark `at` (marks in ledger order, oldest first); None for
/// a key that does not move it.
pub fn navigate(marks: &[Mark], at: usize, key: &str) -> Option<usize> {
    let last = marks.len().checked_sub(1)?;
    let at = at.min(last);
    let here = marks.get(at)?;
    let nearest_in = |lane: usize| {
        marks
            .iter()
            .enumerate()
            .filter(|(_, m)| m.lane == lane)
            .min_by_key(|(i, m)| (m.time_ms.abs_diff(here.time_ms), i.abs_diff(at)))
            .map(|(i, _)| i)
    };
    let lanes = marks.iter().map(|m| m.lane).max().unwrap_or(0) + 1;
    match key {
        "ArrowRight" => Some((at + 1).min(last)),
        "ArrowLeft" => Some(at.saturating_sub(1)),
        "Home" => Some(0),
        "End" => Some(last),
        "ArrowUp" => (0..here.lane).rev().find_map(nearest_in).or(Some(at)),
        "ArrowDown" => (here.lane + 1..lanes).find_map(nearest_in).or(Some(at)),
        _ => None,
    }
}

/// Focuses an SVG element (`focus()` is on every element's prototype; web-sys types it on
/// HTMLElement only).
fn focus(el: &Element) {
    if let Ok(f) = js_sys::Reflect::get(el, &JsValue::from_str("focus")) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call0(el);
        }
    }
}

/// The revision of the mark an event happened on.
fn mark_of(e: &Event) -> Option<u64> {
    let el = e.target_dyn_into::<Element>()?;
    el.closest("[data-rev]")
        .ok()??
        .get_attribute("data-rev")?
        .parse()
        .ok()
}

/// The lanes (writers, in order of each one's first write) and one mark per entry.
fn lay_out<'a>(entries: &[&'a LedgerEntry]) -> (Vec<&'a str>, Vec<Mark>) {
    let mut lanes: HashMap<&str, usize> = HashMap::new();
    let mut lane_names: Vec<&str> = Vec::new();
    for en in entries {
        lanes.entry(en.user.as_ref()).or_insert_with(|| {
            lane_names.push(en.user.as_ref());
            lane_names.len() - 1
        });
    }
    let marks = entries
        .iter()
        .map(|en| Mark {
            revision: en.revision,
            lane: lanes.get(en.user.as_ref()).copied().unwrap_or(0),
            time_ms: en.time.as_millis(),
        })
        .collect();
    (lane_names, marks)
}

/// A write in words: revision, verb, object, writer and time.
fn mark_label(ctx: &Ctx, en: &LedgerEntry) -> String {
    let object = if en.namespace().is_empty() {
        format!("{}/{}", en.resource, en.name())
    } else {
        format!("{}/{}/{}", en.resource, en.namespace(), en.name())
    };
    fill(
        ctx,
        T::MarkLabel,
        &[
            &en.revision.to_string(),
            en.verb,
            &object,
            &en.user,
            &format_time(en.time),
        ],
    )
}

/// The keyboard: Enter/Space inspect the focused write, Escape closes it, the arrows, Home and
/// End move the focus ([`navigate`]).
fn on_key(
    ctx: &Ctx,
    focused: &UseStateHandle<Option<u64>>,
    want_focus: &Rc<RefCell<bool>>,
    marks: Vec<Mark>,
) -> Callback<KeyboardEvent> {
    let (ctx, focused, want_focus) = (ctx.clone(), focused.clone(), want_focus.clone());
    Callback::from(move |ev: KeyboardEvent| {
        let Some(rev) = mark_of(&ev) else { return };
        let Some(at) = marks.iter().position(|m| m.revision == rev) else {
            return;
        };
        match ev.key().as_str() {
            "Enter" | " " => {
                ev.prevent_default();
                focused.set(Some(rev));
                ctx.dispatch(Action::Inspect(rev));
            }
            "Escape" => {
                ev.prevent_default();
                ctx.dispatch(Action::CloseInspection);
            }
            key => {
                if let Some(to) = navigate(&marks, at, key).and_then(|i| marks.get(i)) {
                    ev.prevent_default();
                    *want_focus.borrow_mut() = true;
                    focused.set(Some(to.revision));
                }
            }
        }
    })
}

#[component]
pub fn TimelineView() -> Html {
    let ctx = use_ctx();
    let focused = use_state_eq(|| None::<u64>);
    let want_focus = use_mut_ref(|| false);
    let svg = use_node_ref();
    {
        // After a key moved the focus, put the browser's focus on the new mark.
        let (svg, want_focus) = (svg.clone(), want_focus.clone());
        use_effect_with(*focused, move |rev| {
            if std::mem::take(&mut *want_focus.borrow_mut()) {
                if let (Some(rev), Some(svg)) = (rev, svg.cast::<Element>()) {
                    if let Ok(Some(el)) = svg.query_selector(&format!("[data-rev=\"{rev}\"]")) {
                        focus(&el);
                    }
                }
            }
        });
    }
    // What the frame read from the engine: nothing here reads the engine.
    let frame = ctx.frame.clone();
    let ledger = &frame.ledger;
    let skip = ledger.len().saturating_sub(MAX_DOTS);
    let entries: Vec<&LedgerEntry> = ledger.iter().skip(skip).map(|l| &**l).collect();
    if entries.is_empty() {
        return html! { <div class="timeline-view"><h3>{ tr(&ctx, T::TimelineTitle) }</h3><p class="muted">{ tr(&ctx, T::NoWrites) }</p></div> };
    }
    let (lane_names, marks) = lay_out(&entries);
    let start = entries.first().map(|e| e.time).unwrap_or(Timestamp::ZERO);
    let end = frame.now.max(start.plus_millis(1000));
    let span = end.millis_since(start).max(1) as f64;
    let x = |t: Timestamp| LEFT + (t.millis_since(start) as f64 / span) * (WIDTH - LEFT - 10.0);
    let height = LANE * lane_names.len() as f64 + 30.0;
    let selected = ctx.inspection.as_ref().map(|i| i.revision);
    let index_of = |rev: Option<u64>| rev.and_then(|r| marks.iter().position(|m| m.revision == r));
    // The one mark in the tab order: the focused one, else the inspected one, else the newest.
    let current = index_of(*focused)
        .or_else(|| index_of(selected))
        .unwrap_or(marks.len() - 1);
    let describe = |i: usize| entries.get(i).map(|en| mark_label(&ctx, en));
    let onkeydown = on_key(&ctx, &focused, &want_focus, marks.clone());
    let onclick = {
        let (ctx, focused) = (ctx.clone(), focused.clone());
        Callback::from(move |ev: MouseEvent| {
            if let Some(rev) = mark_of(&ev) {
                focused.set(Some(rev));
                ctx.dispatch(Action::Inspect(rev));
            }
        })
    };
    let onfocusin = {
        let focused = focused.clone();
        Callback::from(move |ev: FocusEvent| {
            if let Some(rev) = mark_of(&ev) {
                focused.set(Some(rev));
            }
        })
    };
    let detail = describe(current).unwrap_or_default();
    html! {
        <div class="timeline-view">
            <h3>{ tr(&ctx, T::TimelineTitle) }</h3>
            <p class="hint" id="timeline-keys">{ tr(&ctx, T::TimelineKeys) }</p>
            <svg id="timeline" ref={svg} viewBox={format!("0 0 {WIDTH} {height}")} width="100%" role="group"
                aria-label={tr(&ctx, T::TimelineTitle)} aria-describedby="timeline-keys" {onkeydown} {onclick} {onfocusin}>
                { for lane_names.iter().enumerate().map(|(i, user)| {
                    let y = LANE * i as f64 + 18.0;
                    html! { <g class="lane" aria-hidden="true">
                        <text x="4" y={(y + 4.0).to_string()} class="lane-label">{ *user }</text>
                        <line x1={LEFT.to_string()} x2={(WIDTH - 10.0).to_string()} y1={y.to_string()} y2={y.to_string()} class="lane-line" />
                    </g> }
                }) }
                { for entries.iter().zip(&marks).enumerate().map(|(i, (en, m))| {
                    let y = LANE * m.lane as f64 + 18.0;
                    let rev = en.revision;
                    let class = classes!("dot", en.verb, (&*en.resource == "events").then_some("event"),
                        (selected == Some(rev)).then_some("selected"), (i == current).then_some("current"));
                    let label = describe(i).unwrap_or_default();
                    html! { <circle key={rev} cx={format!("{:.1}", x(en.time))} cy={y.to_string()} r="5" {class}
                        data-rev={rev.to_string()} role="button" tabindex={if i == current { "0" } else { "-1" }}
                        aria-label={label.clone()} aria-pressed={(selected == Some(rev)).to_string()}>
                        <title>{ label }</title>
                    </circle> }
                }) }
                <text x={LEFT.to_string()} y={(height - 4.0).to_string()} class="axis" aria-hidden="true">{ format_time(start) }</text>
                <text x={(WIDTH - 60.0).to_string()} y={(height - 4.0).to_string()} class="axis" aria-hidden="true">{ format_time(end) }</text>
            </svg>
            <p id="timeline-detail" class="detail" aria-live="polite" title={detail.clone()}>{ detail }</p>
            <InspectionPane />
        </div>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn marks() -> Vec<Mark> {
        // lane 0 at 0, 10, 20 ms; lane 1 at 12 ms; lane 2 at 30 ms.
        [(1, 0, 0), (2, 0, 10), (3, 1, 12), (4, 0, 20), (5, 2, 30)]
            .into_iter()
            .map(|(revision, lane, time_ms)| Mark {
                revision,
                lane,
                time_ms,
            })
            .collect()
    }

    #[test]
    fn arrows_move_through_time_and_across_lanes() {
        let m = marks();
        assert_eq!(navigate(&m, 0, "ArrowRight"), Some(1));
        assert_eq!(navigate(&m, 4, "ArrowRight"), Some(4), "stays at the last");
        assert_eq!(navigate(&m, 0, "ArrowLeft"), Some(0), "stays at the first");
        assert_eq!(navigate(&m, 3, "ArrowLeft"), Some(2));
        assert_eq!(navigate(&m, 2, "Home"), Some(0));
        assert_eq!(navigate(&m, 0, "End"), Some(4));
        // From lane 0 at 10 ms down to lane 1's nearest (12 ms), then down to lane 2.
        assert_eq!(navigate(&m, 1, "ArrowDown"), Some(2));
        assert_eq!(navigate(&m, 2, "ArrowDown"), Some(4));
        assert_eq!(navigate(&m, 4, "ArrowDown"), Some(4), "no lane below");
        // Up from lane 2 at 30 ms: lane 1's only mark; up again: lane 0's nearest to 12 ms.
        assert_eq!(navigate(&m, 4, "ArrowUp"), Some(2));
        assert_eq!(navigate(&m, 2, "ArrowUp"), Some(1));
        assert_eq!(navigate(&m, 0, "a"), None);
        assert_eq!(navigate(&[], 0, "ArrowRight"), None);
    }
}
