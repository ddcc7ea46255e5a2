//! The broadcast: the fan-out diagram of one revision beside the cost of the watches and the
//! reconnect comparison (§7 of the second text); every open watch stream (newest first) with its
//! filter, last delivered revision and counters, and its part in the revision's fan-out (who
//! received it, whose filter refused it, whom the index never offered it); and one stream's raw
//! HTTP body, line by line, exactly as a chunked watch response carries it.
//!
//! Past [`GROUP_STREAMS_ABOVE`] streams (a kubelet's per node: 5,000 at 5,000 nodes) the table
//! lists one row per component and resource with its counts, and a row expands into its own
//! windowed table of that group's streams.

use super::fanout_diagram::FanOutDiagram;
use super::reconnect_panel::ReconnectPanel;
use super::watch_cost::WatchCost;
use super::window::{VirtualTable, Window};
use super::{fill, tr, use_ctx, Ctx};
use crate::fanout::{component_of, describe_filter, fan_out_counts, reach, FanOutCounts, Reach};
use crate::i18n::T;
use crate::state::Action;
use std::rc::Rc;
use watchlab_engine::apiserver::watch::{EndReason, StreamState};
use watchlab_engine::apiserver::{LedgerEntry, WatchStream};
use watchlab_engine::cluster::Action as ClusterAction;
use yew::prelude::*;

/// A stream row's height in CSS pixels (`table.streams tr` in style.css).
pub const ROW_PX: u32 = 44;
/// Recent events shown per stream row.
const RECENT_SHOWN: usize = 2;
/// Above this many streams the table groups them by component and resource.
pub const GROUP_STREAMS_ABOVE: usize = 100;

/// One row of the grouped table: every stream of one component on one resource.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamGroup {
    /// `kubelet` for `kubelet/node-a` ([`component_of`]).
    pub component: String,
    /// The resource watched (`pods`).
    pub resource: &'static str,
    pub streams: usize,
    pub open: usize,
    pub delivered: u64,
    pub filtered: u64,
    pub pending: usize,
    /// What the group's streams made of the fan-out revision.
    pub reach: FanOutCounts,
}

impl StreamGroup {
    fn holds(&self, s: &WatchStream) -> bool {
        component_of(s.user()) == self.component
            && s.filter().kind.resource().plural == self.resource
    }
}

/// The streams grouped by component and resource (in that order), each stream in exactly one
/// group, with their counters summed.
pub fn stream_groups<'a>(
    streams: impl Iterator<Item = &'a WatchStream>,
    entry: Option<&LedgerEntry>,
) -> Vec<StreamGroup> {
    let mut groups: std::collections::BTreeMap<(&str, &'static str), StreamGroup> =
        std::collections::BTreeMap::new();
    for s in streams {
        let resource = s.filter().kind.resource().plural;
        let component = component_of(s.user());
        let g = groups
            .entry((component, resource))
            .or_insert_with(|| StreamGroup {
                component: component.to_string(),
                resource,
                ..StreamGroup::default()
            });
        g.streams += 1;
        g.open += usize::from(s.state() == StreamState::Open);
        g.delivered += s.delivered();
        g.filtered += s.filtered_out();
        g.pending += s.pending();
        if let Some(en) = entry {
            g.reach.add(reach(s, en));
        }
    }
    groups.into_values().collect()
}

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
            if total == 0 { <p class="muted">{ tr(&ctx, T::NoStreams) }</p> } else if total > GROUP_STREAMS_ABOVE {
                <GroupedStreams entry={entry.clone().map(Rc::new)} head={head.clone()} />
            } else {
                <VirtualTable class="streams" {total} row_px={ROW_PX} head_px={40} {head} columns={9} {render} label={tr(&ctx, T::Streams)} />
            }
            <RawPane />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct GroupedProps {
    /// The fan-out revision's ledger line.
    entry: Option<Rc<LedgerEntry>>,
    /// The stream table's header row (for an expanded group).
    head: Html,
}

/// The streams as one row per component and resource; a row expands into its streams.
#[component]
fn GroupedStreams(props: &GroupedProps) -> Html {
    let ctx = use_ctx();
    let expanded = use_state_eq(|| None::<(String, &'static str)>);
    let entry = props.entry.as_deref();
    let groups = stream_groups(ctx.engine.borrow().cluster.api().streams(), entry);
    let open_group = expanded
        .as_ref()
        .and_then(|(c, r)| {
            groups
                .iter()
                .find(|g| &g.component == c && g.resource == *r)
        })
        .cloned();
    let toggle = |g: &StreamGroup| {
        let expanded = expanded.clone();
        let key = (g.component.clone(), g.resource);
        let open = expanded.as_ref() == Some(&key);
        Callback::from(move |_: MouseEvent| expanded.set((!open).then(|| key.clone())))
    };
    let rows: Vec<Html> = groups.iter().map(|g| {
        let key = format!("{}/{}", g.component, g.resource);
        let open = open_group.as_ref().is_some_and(|o| o.component == g.component && o.resource == g.resource);
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
        let render = {
            let ctx = ctx.clone();
            let entry = props.entry.clone();
            let g = g.clone();
            Callback::from(move |w: Window| {
                let e = ctx.engine.borrow();
                // Newest first, as the ungrouped table.
                let streams: Vec<&WatchStream> =
                    e.cluster.api().streams().filter(|s| g.holds(s)).collect();
                let rows: Vec<Html> = streams
                    .iter()
                    .rev()
                    .skip(w.first)
                    .take(w.len())
                    .map(|s| stream_row(&ctx, s, entry.as_deref()))
                    .collect();
                html! { <>{ for rows }</> }
            })
        };
        let label = format!("{} · {}", g.component, g.resource);
        html! {
            <section class="group-streams" id="group-streams" data-group={format!("{}/{}", g.component, g.resource)}>
                <h4>{ fill(&ctx, T::GroupStreams, &[&label, &g.streams.to_string()]) }</h4>
                <VirtualTable class="streams" total={g.streams} row_px={ROW_PX} head_px={40} head={props.head.clone()} columns={9} {render} label={label} />
            </section>
        }
    });
    html! {
        <>
            <p class="hint">{ fill(&ctx, T::GroupedHint, &[&GROUP_STREAMS_ABOVE.to_string()]) }</p>
            <div class="scroll groups">
                <table class="stream-groups" id="stream-groups">
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_apimachinery::client::ApiClient;
    use watchlab_engine::apiserver::ApiServer;

    #[test]
    fn streams_group_by_component_and_resource_and_the_counts_add_up() {
        let mut server = ApiServer::new(7);
        for i in 0..150 {
            let path = format!("/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dnode-{i}");
            let _ = server.watch_path(&format!("kubelet/node-{i}"), &path);
        }
        let _ = server.watch_path("kube-scheduler", "/api/v1/pods?watch=true");
        let _ = server.watch_path("kube-scheduler", "/api/v1/nodes?watch=true");
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db"},"spec":{"nodeName":"node-3","containers":[{"name":"c","image":"pg"}]}}"#;
        let r = server.as_user("kubectl").request(
            "POST",
            "/api/v1/namespaces/default/pods",
            None,
            Some(body),
        );
        assert!(r.is_success(), "{}", r.body);
        let entry = server.ledger().iter().last().cloned();
        let groups = stream_groups(server.streams(), entry.as_ref());
        let summary: Vec<(&str, &str, usize)> = groups
            .iter()
            .map(|g| (g.component.as_str(), g.resource, g.streams))
            .collect();
        assert_eq!(
            summary,
            [
                ("kube-scheduler", "nodes", 1),
                ("kube-scheduler", "pods", 1),
                ("kubelet", "pods", 150)
            ]
        );
        let kubelets = &groups[2];
        assert_eq!(kubelets.open, 150);
        // node-3's kubelet and the scheduler received the pod; the other kubelets' filters
        // were never offered it or refused it.
        assert_eq!(kubelets.reach.received, 1);
        assert_eq!(kubelets.reach.total(), 150);
        assert_eq!(groups[1].reach.received, 1);
        let delivered: u64 = server.streams().map(|s| s.delivered()).sum();
        assert_eq!(groups.iter().map(|g| g.delivered).sum::<u64>(), delivered);
        assert!(server
            .streams()
            .all(|s| groups.iter().filter(|g| g.holds(s)).count() == 1));
    }
}
