//! The timeline: every ledger write as a dot over virtual time, one lane per writer component,
//! so the node-failure story reads left to right (kubelet silent, node controller, ReplicaSet,
//! scheduler). Events (the Kubernetes kind) are writes too and show on their writer's lane.

use super::{tr, use_ctx};
use crate::i18n::T;
use crate::state::{format_time, Action};
use std::collections::BTreeMap;
use watchlab_engine::clock::Timestamp;
use yew::prelude::*;

/// Most recent writes drawn.
pub const MAX_DOTS: usize = 600;
const WIDTH: f64 = 720.0;
const LANE: f64 = 26.0;
const LEFT: f64 = 150.0;

#[component]
pub fn TimelineView() -> Html {
    let ctx = use_ctx();
    let e = ctx.engine.borrow();
    let ledger = e.cluster.api().ledger();
    let skip = ledger.len().saturating_sub(MAX_DOTS);
    let entries: Vec<_> = ledger.iter().skip(skip).collect();
    if entries.is_empty() {
        return html! { <div class="timeline-view"><h3>{ tr(&ctx, T::TimelineTitle) }</h3><p class="muted">{ tr(&ctx, T::NoWrites) }</p></div> };
    }
    let mut lanes: BTreeMap<String, usize> = BTreeMap::new();
    for en in &entries {
        let n = lanes.len();
        lanes.entry(en.user.to_string()).or_insert(n);
    }
    let start = entries.first().map(|e| e.time).unwrap_or(Timestamp::ZERO);
    let end = e.cluster.now().max(start.plus_millis(1000));
    let span = end.millis_since(start).max(1) as f64;
    let x = |t: Timestamp| LEFT + (t.millis_since(start) as f64 / span) * (WIDTH - LEFT - 10.0);
    let height = LANE * lanes.len() as f64 + 30.0;
    let selected = ctx.inspection.as_ref().map(|i| i.revision);
    html! {
        <div class="timeline-view">
            <h3>{ tr(&ctx, T::TimelineTitle) }</h3>
            <svg id="timeline" viewBox={format!("0 0 {WIDTH} {height}")} width="100%" role="img" aria-label={tr(&ctx, T::TimelineTitle)}>
                { for lanes.iter().map(|(user, i)| {
                    let y = LANE * *i as f64 + 18.0;
                    html! { <g class="lane">
                        <text x="4" y={(y + 4.0).to_string()} class="lane-label">{ user }</text>
                        <line x1={LEFT.to_string()} x2={(WIDTH - 10.0).to_string()} y1={y.to_string()} y2={y.to_string()} class="lane-line" />
                    </g> }
                }) }
                { for entries.iter().map(|en| {
                    let lane = lanes.get(en.user.as_ref()).copied().unwrap_or(0);
                    let y = LANE * lane as f64 + 18.0;
                    let rev = en.revision;
                    let onclick = { let ctx = ctx.clone(); Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Inspect(rev))) };
                    let class = classes!("dot", en.verb, (en.resource == "events").then_some("event"), (selected == Some(rev)).then_some("selected"));
                    html! { <circle cx={format!("{:.1}", x(en.time))} cy={y.to_string()} r="5" {class} {onclick}>
                        <title>{ format!("{rev} {} {}/{} · {} · {}", en.verb, en.resource, en.name, en.user, format_time(en.time)) }</title>
                    </circle> }
                }) }
                <text x={LEFT.to_string()} y={(height - 4.0).to_string()} class="axis">{ format_time(start) }</text>
                <text x={(WIDTH - 60.0).to_string()} y={(height - 4.0).to_string()} class="axis">{ format_time(end) }</text>
            </svg>
        </div>
    }
}
