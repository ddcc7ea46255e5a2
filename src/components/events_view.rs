//! The Kubernetes Events table, as `kubectl get events -A --sort-by=.lastTimestamp` prints it:
//! LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, oldest first (newest at the bottom).

use super::{tr, use_ctx};
use crate::i18n::T;
use watchlab_engine::api::{Kind, Object};
use watchlab_kubectl::age::human_duration;
use yew::prelude::*;

/// Rows drawn (the newest).
pub const MAX_ROWS: usize = 100;

#[component]
pub fn EventsView() -> Html {
    let ctx = use_ctx();
    let e = ctx.engine.borrow();
    let now = e.cluster.now();
    let list = e.cluster.api().list(Kind::Event, None, &Default::default());
    let mut events: Vec<_> = list
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| match o.as_ref() {
                    Object::Event(ev) => Some(ev.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    // --sort-by=.lastTimestamp: events without one sort first, as kubectl's sorter does.
    events.sort_by_key(|ev| ev.last_timestamp.or(ev.event_time));
    let skip = events.len().saturating_sub(MAX_ROWS);
    html! {
        <div class="events-view">
            <h3>{ tr(&ctx, T::EventsTitle) }<span class="muted">{ tr(&ctx, T::AllNamespaces) }</span></h3>
            if events.is_empty() { <p class="muted">{ tr(&ctx, T::NoEvents) }</p> } else {
            <div class="scroll">
            <table class="events">
                <thead><tr><th>{"NAMESPACE"}</th><th>{"LAST SEEN"}</th><th>{"TYPE"}</th><th>{"REASON"}</th><th>{"OBJECT"}</th><th>{"MESSAGE"}</th></tr></thead>
                <tbody>
                { for events.iter().skip(skip).map(|ev| {
                    let seen = ev.last_timestamp.or(ev.event_time)
                        .map(|t| human_duration(now.millis_since(t) as i64))
                        .unwrap_or_else(|| "<unknown>".into());
                    let obj = format!("{}/{}", ev.involved_object.kind.to_lowercase(), ev.involved_object.name);
                    html! {
                        <tr class={classes!("event", (ev.type_ == "Warning").then_some("warning"))} data-reason={ev.reason.clone()}>
                            <td>{ &ev.metadata.namespace }</td><td class="num">{ seen }</td><td>{ &ev.type_ }</td>
                            <td>{ &ev.reason }</td><td>{ obj }</td><td class="message">{ &ev.message }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            </div>
            }
        </div>
    }
}
