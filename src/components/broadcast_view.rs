//! The broadcast: every open watch stream with its filter, last delivered revision and
//! counters; the fan-out of one revision (who received it, who filtered it out); and one
//! stream's raw HTTP body, line by line, exactly as a chunked watch response carries it.

use super::{fill, tr, use_ctx};
use crate::fanout::{reach, Reach};
use crate::i18n::T;
use crate::state::Action;
use watchlab_engine::apiserver::watch::{EndReason, StreamState};
use watchlab_engine::apiserver::WatchStream;
use watchlab_engine::cluster::Action as ClusterAction;
use yew::prelude::*;

/// Streams drawn; the rest are counted.
pub const MAX_STREAMS: usize = 60;

/// A stream's filter as a query string would state it.
pub fn describe_filter(s: &WatchStream) -> String {
    let f = s.filter();
    let mut out = f.kind.resource().plural.to_string();
    if let Some(ns) = &f.namespace {
        out.push_str(&format!(" -n {ns}"));
    }
    let labels = f.labels.to_string();
    if !labels.is_empty() {
        out.push_str(&format!(" labelSelector={labels}"));
    }
    let fields = f.fields.to_string();
    if !fields.is_empty() {
        out.push_str(&format!(" fieldSelector={fields}"));
    }
    out
}

#[component]
pub fn BroadcastView() -> Html {
    let ctx = use_ctx();
    let e = ctx.engine.borrow();
    let api = e.cluster.api();
    let streams: Vec<&WatchStream> = api.streams().collect();
    let fan_rev = ctx
        .inspection
        .as_ref()
        .map(|i| i.revision)
        .unwrap_or_else(|| api.revision());
    let entry = api
        .ledger()
        .iter()
        .rev()
        .find(|l| l.revision == fan_rev)
        .cloned();
    let rows = streams.iter().take(MAX_STREAMS).map(|s| {
        let id = s.id();
        let state = match s.state() {
            StreamState::Open => tr(&ctx, T::StreamOpen),
            StreamState::Ended(EndReason::Timeout) => tr(&ctx, T::StreamTimeout),
            StreamState::Ended(EndReason::Overflow) => tr(&ctx, T::StreamOverflow),
            StreamState::Ended(EndReason::Expired) => tr(&ctx, T::StreamExpired),
        };
        let reach = entry.as_ref().map(|en| reach(s, en));
        let (reach_class, reach_text) = match reach {
            Some(Reach::Received(t)) => ("received", format!("{} {t}", tr(&ctx, T::Received))),
            Some(Reach::Filtered) => ("filtered", tr(&ctx, T::NotReceived).to_string()),
            Some(Reach::OpenedLater) => ("later", "—".to_string()),
            Some(Reach::Forgotten) | None => ("unknown", tr(&ctx, T::Outside).to_string()),
        };
        let drop = {
            let ctx = ctx.clone();
            Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Cluster(ClusterAction::DropWatch(id))))
        };
        let raw = {
            let ctx = ctx.clone();
            Callback::from(move |_: MouseEvent| ctx.dispatch(Action::ShowRaw(Some(id))))
        };
        let mut recent: Vec<String> = s
            .recent()
            .map(|ev| {
                let name = ev.object().map(|o| o.name().to_string()).unwrap_or_default();
                format!("{} {} @{}", ev.event_type.as_str(), name, ev.resource_version)
            })
            .collect();
        recent.reverse();
        recent.truncate(2);
        html! {
            <tr key={id} data-stream={id.to_string()} data-user={s.user().to_string()}>
                <td class="num">{ id }</td>
                <td class="stream"><div class="writer">{ s.user().to_string() }</div><div class="filter">{ describe_filter(s) }</div></td>
                <td class="num last-rv">{ s.last_revision() }</td>
                <td class="num delivered">{ s.delivered() }</td>
                <td class="num filtered">{ s.filtered_out() }</td>
                <td class="num">{ s.pending() }</td>
                <td>{ state }</td>
                <td class={classes!("reach", reach_class)}>{ reach_text }</td>
                <td class="recent">{ for recent.iter().map(|r| html!{ <div>{ r }</div> }) }</td>
                <td class="buttons">
                    <button class="small raw" onclick={raw}>{ tr(&ctx, T::Raw) }</button>
                    <button class="small drop" title={tr(&ctx, T::DropHint)} onclick={drop}>{ tr(&ctx, T::Drop) }</button>
                </td>
            </tr>
        }
    });
    let fan_title = match &entry {
        Some(en) => format!(
            "{} — {} {}/{}",
            fill(&ctx, T::FanOut, &[&fan_rev.to_string()]),
            en.verb,
            en.resource,
            en.name
        ),
        None => tr(&ctx, T::FanOutPick).to_string(),
    };
    html! {
        <div class="broadcast-view">
            <h3>{ tr(&ctx, T::Streams) }<span class="muted">{ format!("{} · {} {}", streams.len(), tr(&ctx, T::Offered), api.watch_offers()) }</span></h3>
            <p class="hint" id="fanout-title">{ fan_title }</p>
            if streams.is_empty() { <p class="muted">{ tr(&ctx, T::NoStreams) }</p> } else {
            <div class="scroll">
            <table class="streams">
                <thead><tr>
                    <th>{ "#" }</th><th>{ format!("{} / {}", tr(&ctx, T::ColStream), tr(&ctx, T::ColFilter)) }</th>
                    <th>{ tr(&ctx, T::ColLastRv) }</th><th>{ tr(&ctx, T::ColDelivered) }</th><th>{ tr(&ctx, T::ColFiltered) }</th>
                    <th>{ tr(&ctx, T::ColPending) }</th><th>{ tr(&ctx, T::ColState) }</th>
                    <th>{ fill(&ctx, T::FanOut, &[&fan_rev.to_string()]) }</th><th>{ tr(&ctx, T::Recent) }</th><th></th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            </div>
            }
            <RawPane />
        </div>
    }
}

/// One stream's recent events as the HTTP body lines.
#[component]
fn RawPane() -> Html {
    let ctx = use_ctx();
    let Some(id) = ctx.raw_stream else {
        return html! {};
    };
    let e = ctx.engine.borrow();
    let lines: Vec<String> = e
        .cluster
        .api()
        .stream(id)
        .map(|s| s.recent().map(|ev| ev.json().to_string()).collect())
        .unwrap_or_default();
    let close = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::ShowRaw(None)))
    };
    html! {
        <section class="raw" id="raw-stream">
            <h3>{ fill(&ctx, T::RawTitle, &[&id.to_string()]) }
                <button class="small" onclick={close}>{ tr(&ctx, T::Close) }</button></h3>
            <pre class="json">{ for lines.iter().map(|l| html!{ <>{ l }{ "\n" }</> }) }</pre>
        </section>
    }
}
