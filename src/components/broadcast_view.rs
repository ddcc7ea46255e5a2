//! The broadcast: the fan-out diagram of one revision (from etcd through its resource's watch
//! cache to every stream), the API server's watch caches, the cost of the watches and the
//! reconnect comparison (§7 of the second text); every open watch stream (newest first) with its
//! filter, last delivered revision and counters, and its part in the revision's fan-out (who
//! received it, whose filter refused it, whom the index never offered it); and one stream's raw
//! HTTP body, line by line, exactly as a chunked watch response carries it.
//!
//! Past [`GROUP_STREAMS_ABOVE`] streams (a kubelet's per node: 5,000 at 5,000 nodes) the table
//! lists one row per component and resource with its counts, and a row expands into its own
//! windowed table of that group's streams.
//!
//! With several API server instances the streams are drawn in one lane per instance (its name,
//! health and streams, `data-apiserver`): a client's watches are served by the instance the load
//! balancer gave it, from that instance's caches. Each lane windows its part of the frame's rows
//! (or groups); with one instance there are no lanes.
//!
//! Everything drawn comes from the frame ([`crate::state::Broadcast`]), never the engine.

use std::ops::Range;

use super::apiservers::health_label;
use super::cacher_panel::CacherPanel;
use super::fanout_diagram::FanOutDiagram;
use super::reconnect_panel::ReconnectPanel;
use super::watch_cost::WatchCost;
use super::window::{VirtualTable, Window};
use super::{fill, tr, use_ctx, Ctx};
use crate::fanout::{Reach, StreamGroup, GROUP_STREAMS_ABOVE};
use crate::i18n::T;
use crate::state::{Action, ApiserverLane, StreamRow};
use watchlab_engine::apiserver::watch::{EndReason, StreamState};
use watchlab_engine::cluster::Action as ClusterAction;
use yew::prelude::*;

/// A stream row's height in CSS pixels (`table.streams tr` in style.css).
pub const ROW_PX: u32 = 44;

fn stream_row(ctx: &Ctx, s: &StreamRow) -> Html {
    let id = s.id;
    let state = match s.state {
        StreamState::Open => tr(ctx, T::StreamOpen),
        StreamState::Ended(EndReason::Timeout) => tr(ctx, T::StreamTimeout),
        StreamState::Ended(EndReason::Overflow) => tr(ctx, T::StreamOverflow),
        StreamState::Ended(EndReason::Expired) => tr(ctx, T::StreamExpired),
        StreamState::Ended(EndReason::Terminated) => tr(ctx, T::StreamTerminated),
    };
    let (reach_class, reach_text) = match s.reach {
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
    let filter = &s.filter;
    html! {
        <tr key={id} data-stream={id.to_string()} data-user={s.user.clone()}>
            <td class="num">{ id }</td>
            <td class="stream">
                <div class="who" title={format!("{} · {filter}", s.user)}><span class="writer">{ s.user.clone() }</span>{ " " }<span class="filter">{ filter }</span></div>
                <div class="recent" title={s.recent.join("\n")}>{ s.recent.join(" · ") }</div>
            </td>
            <td class="num last-rv">{ s.last_revision }</td>
            <td class="num delivered">{ s.delivered }</td>
            <td class="num filtered">{ s.filtered }</td>
            <td class="num">{ s.pending }</td>
            <td class="state">{ state }</td>
            <td class={classes!("reach", reach_class)}>{ reach_text }</td>
            <td class="buttons">
                <button class="small raw" onclick={raw}>{ tr(ctx, T::Raw) }</button>
                <button class="small drop" title={tr(ctx, T::DropHint)} onclick={drop}>{ tr(ctx, T::Drop) }</button>
            </td>
        </tr>
    }
}

/// Draws the window `w` of the rows `of` (newest first): every row, or one lane's.
fn rows_render(ctx: &Ctx, of: Range<usize>) -> Callback<Window, Html> {
    let ctx = ctx.clone();
    Callback::from(move |w: Window| {
        let b = ctx.frame.broadcast.clone();
        let end = (of.start + w.end).min(of.end).min(b.rows.len());
        let rows: Vec<Html> = b
            .rows
            .get(of.start + w.first..end)
            .unwrap_or_default()
            .iter()
            .map(|s| stream_row(&ctx, s))
            .collect();
        html! { <>{ for rows }</> }
    })
}

#[component]
pub fn BroadcastView() -> Html {
    let ctx = use_ctx();
    let b = ctx.frame.broadcast.clone();
    let (total, fan_rev) = (b.total, b.shown);
    let fan_title = match &b.entry {
        Some(en) => format!(
            "{} — {} {}/{}",
            fill(&ctx, T::FanOut, &[&fan_rev.to_string()]),
            en.verb,
            en.resource,
            en.name()
        ),
        None => tr(&ctx, T::FanOutPick).to_string(),
    };
    let counts_text = b
        .counts
        .map(|c| {
            fill(
                &ctx,
                T::FanOutCounts,
                &[
                    &c.received.to_string(),
                    &c.filtered.to_string(),
                    &c.skipped.to_string(),
                    &c.other.to_string(),
                    &c.later.to_string(),
                ],
            )
        })
        .unwrap_or_default();
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
            <h3>{ tr(&ctx, T::Streams) }<span class="muted" id="stream-count" data-count={total.to_string()}>{ fill(&ctx, T::StreamsOffered, &[&total.to_string(), &b.offers.to_string()]) }</span></h3>
            <FanOutDiagram />
            <CacherPanel />
            <div class="broadcast-side">
                <WatchCost />
                <ReconnectPanel />
            </div>
            // One line (cut with an ellipsis), the whole in its tooltip.
            <p class="hint" id="fanout-title" title={format!("{fan_title} {counts_text}")}>{ fan_title }
                if let Some(c) = b.counts {
                    <span class="fanout-counts" id="fanout-counts" data-received={c.received.to_string()} data-filtered={c.filtered.to_string()} data-skipped={c.skipped.to_string()} data-other={c.other.to_string()}>
                        { counts_text }
                    </span>
                }
            </p>
            if total > GROUP_STREAMS_ABOVE {
                <p class="hint">{ fill(&ctx, T::GroupedHint, &[&GROUP_STREAMS_ABOVE.to_string()]) }</p>
            }
            if !b.apiservers.is_empty() {
                <ApiserverLanes {head} />
            } else if total == 0 { <p class="muted">{ tr(&ctx, T::NoStreams) }</p> } else if total > GROUP_STREAMS_ABOVE {
                <GroupedStreams head={head.clone()} groups={0..b.groups.len()} />
            } else {
                <VirtualTable class="streams" total={b.rows.len()} row_px={ROW_PX} head_px={40} {head} columns={9} render={rows_render(&ctx, 0..b.rows.len())} label={tr(&ctx, T::Streams)} />
            }
            <RawPane />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct LanesProps {
    /// The stream table's header row.
    head: Html,
}

/// One lane per API server instance: its name, health and stream count, then its streams as
/// the single-instance view draws them (a windowed table, or its groups).
#[component]
fn ApiserverLanes(props: &LanesProps) -> Html {
    let ctx = use_ctx();
    let b = ctx.frame.broadcast.clone();
    let grouped = b.total > GROUP_STREAMS_ABOVE;
    let lane = |l: &ApiserverLane| {
        let (state, label) = health_label(&ctx, l.health);
        let streams = if l.streams == 0 {
            html! { <p class="muted">{ tr(&ctx, T::NoStreams) }</p> }
        } else if grouped {
            html! { <GroupedStreams head={props.head.clone()} groups={l.groups.clone()} lane={l.name.clone()} /> }
        } else {
            html! { <VirtualTable class="streams" total={l.rows.len()} row_px={ROW_PX} head_px={40} head={props.head.clone()} columns={9}
            render={rows_render(&ctx, l.rows.clone())} label={l.name.clone()} /> }
        };
        html! {
            <section key={l.name.clone()} class="apiserver-lane" data-apiserver={l.name.clone()} data-state={state} data-streams={l.streams.to_string()}>
                <h4><span class="name">{ &l.name }</span>{ " · " }<span class={classes!("badge", state)}>{ label }</span>
                    <span class="muted">{ fill(&ctx, T::LaneStreams, &[&l.streams.to_string()]) }</span></h4>
                { streams }
            </section>
        }
    };
    html! { <>{ for b.apiservers.iter().map(lane) }</> }
}

#[derive(Properties, PartialEq)]
struct GroupedProps {
    /// The stream table's header row (for an expanded group).
    head: Html,
    /// The groups drawn: all, or one API server lane's.
    groups: Range<usize>,
    /// That lane's instance (names the table's id).
    #[prop_or_default]
    lane: Option<AttrValue>,
}

/// The streams as one row per component and resource; a row expands into its streams.
#[component]
fn GroupedStreams(props: &GroupedProps) -> Html {
    let ctx = use_ctx();
    let b = ctx.frame.broadcast.clone();
    let groups = b.groups.get(props.groups.clone()).unwrap_or_default();
    let open = ctx.open_group.clone();
    let is_open = |g: &StreamGroup| open.as_ref().is_some_and(|k| g.is(k));
    let open_group = groups.iter().find(|g| is_open(g)).cloned();
    let toggle = |g: &StreamGroup| {
        let ctx = ctx.clone();
        let key = (!is_open(g)).then(|| g.key());
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::OpenGroup(key.clone())))
    };
    let rows: Vec<Html> = groups.iter().map(|g| {
        let key = format!("{}/{}", g.component, g.resource);
        let open = is_open(g);
        let c = &g.reach;
        html! {
            <tr key={key.clone()} data-group={key.clone()} data-streams={g.streams.to_string()} class={classes!(open.then_some("expanded"))}>
                <td class="writer">{ &g.component }</td>
                <td>{ g.resource }</td>
                <td class="num streams-n">{ g.streams }</td>
                <td class="num">{ g.open }</td>
                <td class="num">{ g.delivered }</td>
                <td class="num">{ g.filtered }</td>
                <td class="num">{ g.pending }</td>
                <td class="reach">{ fill(&ctx, T::GroupReach, &[&c.received.to_string(), &c.filtered.to_string(), &c.skipped.to_string()]) }</td>
                <td><button class="small expand" aria-expanded={open.to_string()} onclick={toggle(g)}>
                    { if open { tr(&ctx, T::Collapse) } else { tr(&ctx, T::Expand) } }</button></td>
            </tr>
        }
    }).collect();
    let expanded_table = open_group.map(|g| {
        let label = format!("{} · {}", g.component, g.resource);
        html! {
            <section class="group-streams" id="group-streams" data-group={format!("{}/{}", g.component, g.resource)}>
                <h4>{ fill(&ctx, T::GroupStreams, &[&label, &g.streams.to_string()]) }</h4>
                <VirtualTable class="streams" total={b.rows.len()} row_px={ROW_PX} head_px={40} head={props.head.clone()} columns={9} render={rows_render(&ctx, 0..b.rows.len())} label={label} />
            </section>
        }
    });
    let table_id = match &props.lane {
        None => "stream-groups".to_string(),
        Some(lane) => format!("stream-groups-{lane}"),
    };
    html! {
        <>
            <div class="scroll groups">
                <table class="stream-groups" id={table_id}>
                    <thead><tr>
                        <th>{ tr(&ctx, T::ColComponent) }</th><th>{ tr(&ctx, T::ColResource) }</th>
                        <th>{ tr(&ctx, T::ColStreams) }</th><th>{ tr(&ctx, T::StreamOpen) }</th>
                        <th>{ tr(&ctx, T::ColDelivered) }</th><th>{ tr(&ctx, T::ColFiltered) }</th><th>{ tr(&ctx, T::ColPending) }</th>
                        <th>{ tr(&ctx, T::ColFanOut) }</th><th></th>
                    </tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
            { for expanded_table }
        </>
    }
}

/// One stream's recent events as the HTTP body lines.
#[component]
fn RawPane() -> Html {
    let ctx = use_ctx();
    let Some(id) = ctx.raw_stream else {
        return html! {};
    };
    let lines = ctx.frame.broadcast.raw.clone();
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
