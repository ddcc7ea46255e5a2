//! The broadcast: the fan-out diagram of one revision beside the cost of the watches and the
//! reconnect comparison (§7 of the second text); every open watch stream (newest first) with its
//! filter, last delivered revision and counters, and its part in the revision's fan-out (who
//! received it, whose filter refused it, whom the index never offered it); and one stream's raw
//! HTTP body, line by line, exactly as a chunked watch response carries it.

use super::fanout_diagram::FanOutDiagram;
use super::reconnect_panel::ReconnectPanel;
use super::watch_cost::WatchCost;
use super::window::{VirtualTable, Window};
use super::{fill, tr, use_ctx, Ctx};
use crate::fanout::{describe_filter, fan_out_counts, reach, Reach};
use crate::i18n::T;
use crate::state::Action;
use watchlab_engine::apiserver::watch::{EndReason, StreamState};
use watchlab_engine::apiserver::{LedgerEntry, WatchStream};
use watchlab_engine::cluster::Action as ClusterAction;
use yew::prelude::*;

/// A stream row's height in CSS pixels (`table.streams tr` in style.css).
pub const ROW_PX: u32 = 44;
/// Recent events shown per stream row.
const RECENT_SHOWN: usize = 2;

fn stream_row(ctx: &Ctx, s: &WatchStream, entry: Option<&LedgerEntry>) -> Html {
    let id = s.id();
    let state = match s.state() {
        StreamState::Open => tr(ctx, T::StreamOpen),
        StreamState::Ended(EndReason::Timeout) => tr(ctx, T::StreamTimeout),
        StreamState::Ended(EndReason::Overflow) => tr(ctx, T::StreamOverflow),
        StreamState::Ended(EndReason::Expired) => tr(ctx, T::StreamExpired),
    };
    let (reach_class, reach_text) = match entry.map(|en| reach(s, en)) {
        Some(Reach::Received(t)) => ("received", format!("{} {t}", tr(ctx, T::Received))),
        Some(Reach::Filtered) => ("filtered", tr(ctx, T::NotReceived).to_string()),
        Some(Reach::Skipped) => ("skipped", tr(ctx, T::SkippedByIndex).to_string()),
        Some(Reach::OtherResource) => ("other", tr(ctx, T::OtherResource).to_string()),
        Some(Reach::OpenedLater) => ("later", tr(ctx, T::OpenedLater).to_string()),
        Some(Reach::Forgotten) | None => ("unknown", tr(ctx, T::Outside).to_string()),
    };
    let drop = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            ctx.dispatch(Action::Cluster(ClusterAction::DropWatch(id)))
        })
    };
    let raw = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::ShowRaw(Some(id))))
    };
    let kept: Vec<_> = s.recent().collect();
    let recent: Vec<String> = kept
        .iter()
        .rev()
        .take(RECENT_SHOWN)
        .map(|ev| {
            let name = ev
                .object()
                .map(|o| o.name().to_string())
                .unwrap_or_default();
            format!(
                "{} {} @{}",
                ev.event_type.as_str(),
                name,
                ev.resource_version
            )
        })
        .collect();
    let filter = describe_filter(s);
    html! {
        <tr key={id} data-stream={id.to_string()} data-user={s.user().to_string()}>
            <td class="num">{ id }</td>
            <td class="stream">
                <div class="who" title={format!("{} · {filter}", s.user())}><span class="writer">{ s.user().to_string() }</span>{ " " }<span class="filter">{ filter }</span></div>
                <div class="recent" title={recent.join("\n")}>{ recent.join(" · ") }</div>
            </td>
            <td class="num last-rv">{ s.last_revision() }</td>
            <td class="num delivered">{ s.delivered() }</td>
            <td class="num filtered">{ s.filtered_out() }</td>
            <td class="num">{ s.pending() }</td>
            <td class="state">{ state }</td>
            <td class={classes!("reach", reach_class)}>{ reach_text }</td>
            <td class="buttons">
                <button class="small raw" onclick={raw}>{ tr(ctx, T::Raw) }</button>
                <button class="small drop" title={tr(ctx, T::DropHint)} onclick={drop}>{ tr(ctx, T::Drop) }</button>
            </td>
        </tr>
    }
}

#[component]
pub fn BroadcastView() -> Html {
    let ctx = use_ctx();
    let (total, fan_rev, entry, counts, offers) = {
        let e = ctx.engine.borrow();
        let api = e.cluster.api();
        let fan_rev = ctx.fan_revision.unwrap_or_else(|| api.revision());
        let entry = api
            .ledger()
            .iter()
            .rev()
            .find(|l| l.revision == fan_rev)
            .cloned();
        let counts = entry.as_ref().map(|en| fan_out_counts(api.streams(), en));
        (
            api.streams().count(),
            fan_rev,
            entry,
            counts,
            api.watch_offers(),
        )
    };
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
    let render = {
        let ctx = ctx.clone();
        let entry = entry.clone();
        Callback::from(move |w: Window| {
            let e = ctx.engine.borrow();
            // Newest first: a watch just opened (the learner's own, a resumed one) is on top.
            let streams: Vec<&WatchStream> = e.cluster.api().streams().collect();
            let rows: Vec<Html> = streams
                .iter()
                .rev()
                .skip(w.first)
                .take(w.len())
                .map(|s| stream_row(&ctx, s, entry.as_ref()))
                .collect();
            html! { <>{ for rows }</> }
        })
    };
    let head = html! {
        <tr>
            <th class="c-id">{ "#" }</th><th class="c-stream">{ format!("{} · {} / {}", tr(&ctx, T::ColStream), tr(&ctx, T::ColFilter), tr(&ctx, T::Recent)) }</th>
            <th class="c-num">{ tr(&ctx, T::ColLastRv) }</th><th class="c-num">{ tr(&ctx, T::ColDelivered) }</th><th class="c-num">{ tr(&ctx, T::ColFiltered) }</th>
            <th class="c-num">{ tr(&ctx, T::ColPending) }</th><th class="c-state">{ tr(&ctx, T::ColState) }</th>
            <th class="c-reach">{ fill(&ctx, T::FanOut, &[&fan_rev.to_string()]) }</th><th class="c-buttons"></th>
        </tr>
    };
    html! {
        <div class="broadcast-view">
            <h3>{ tr(&ctx, T::Streams) }<span class="muted" id="stream-count" data-count={total.to_string()}>{ fill(&ctx, T::StreamsOffered, &[&total.to_string(), &offers.to_string()]) }</span></h3>
            <FanOutDiagram />
            <div class="broadcast-side">
                <WatchCost />
                <ReconnectPanel />
            </div>
            <p class="hint" id="fanout-title">{ fan_title }
                if let Some(c) = counts {
                    <span class="fanout-counts" id="fanout-counts" data-received={c.received.to_string()} data-filtered={c.filtered.to_string()} data-skipped={c.skipped.to_string()} data-other={c.other.to_string()}>
                        { fill(&ctx, T::FanOutCounts, &[&c.received.to_string(), &c.filtered.to_string(), &c.skipped.to_string(), &c.other.to_string(), &c.later.to_string()]) }
                    </span>
                }
            </p>
            if total == 0 { <p class="muted">{ tr(&ctx, T::NoStreams) }</p> } else {
                <VirtualTable class="streams" {total} row_px={ROW_PX} head_px={40} {head} columns={9} {render} label={tr(&ctx, T::Streams)} />
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
