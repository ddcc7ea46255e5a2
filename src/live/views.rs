//! The live page's views, drawn with the playground's markup and classes: nodes as columns of
//! pod cards, the events table, the page's own watch streams with one stream's raw body, the
//! kubectl console, and a notice where a view needs what a real API server does not expose.

use std::rc::Rc;
use watchlab_engine::cluster::{NodeView, PodView};
use yew::prelude::*;

use super::model::Phase;
use super::state::{use_live, LiveAction};
use super::texts::L;
use crate::components::node_column::NodeColumn;
use crate::components::terminal::{History, Terminal};
use crate::i18n::T;

/// Event rows drawn (the newest).
pub const MAX_EVENTS: usize = 200;

#[derive(Properties, PartialEq)]
pub struct UnavailableProps {
    /// The view or tool it stands for (`data-unavailable`).
    pub id: &'static str,
    pub text: L,
}

/// Says a view is not available in live mode, and why.
#[component]
pub fn Unavailable(props: &UnavailableProps) -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    // The same page without `?live`: the in-tab engine.
    let in_tab = Callback::from(|_: MouseEvent| {
        if let Some(w) = web_sys::window() {
            let _ = w.location().set_href("./");
        }
    });
    html! {
        <section class="scenario-panel unavailable" data-unavailable={props.id}>
            <h3>{ L::NotAvailable.tr(lang) }</h3>
            <p class="narration">{ props.text.tr(lang) }</p>
            <p class="hint"><button class="link in-tab" onclick={in_tab}>{ L::InTabLink.tr(lang) }</button></p>
        </section>
    }
}

/// Nodes as columns with their pods, from the nodes and pods informers.
#[component]
pub fn ClusterView() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let (nodes, pods) = { (ctx.frame.nodes.clone(), ctx.frame.pods.clone()) };
    let unscheduled: Vec<_> = pods.iter().filter(|p| p.node.is_none()).cloned().collect();
    // Pods bound to a node the page has not listed (yet) are still shown, under their node.
    let mut orphans: Vec<&str> = pods
        .iter()
        .filter_map(|p| p.node.as_deref())
        .filter(|n| nodes.iter().all(|node| node.name != *n))
        .collect();
    orphans.sort_unstable();
    orphans.dedup();
    let on = |name: &str| -> Rc<Vec<PodView>> {
        Rc::new(
            pods.iter()
                .filter(|p| p.node.as_deref() == Some(name))
                .cloned()
                .collect(),
        )
    };
    html! {
        <div class="cluster-view live">
            <p class="summary"><span id="pod-count">{ L::PodsCount.fill(lang, &[&pods.len().to_string()]) }</span></p>
            if nodes.is_empty() { <p class="muted">{ L::NoNodes.tr(lang) }</p> }
            <section class="nodes" aria-label={L::NodesTitle.tr(lang)}>
                { for nodes.iter().map(|n| html! {
                    <NodeColumn key={n.name.clone()} node={Some(n.clone())} pods={on(&n.name)} {lang} />
                }) }
                { for orphans.iter().map(|n| html! {
                    <NodeColumn key={format!("?{n}")} node={Some(NodeView {
                        name: n.to_string(), status: "Unknown".into(), killed: false, schedulable: true, resource_version: 0,
                    })} pods={on(n)} {lang} />
                }) }
                // Always there (see the playground's cluster view): no layout jump as pods bind.
                <NodeColumn key="-" node={None} pods={Rc::new(unscheduled)} {lang} />
            </section>
            <section class="etcd" data-unavailable="etcd">
                <h3>{ T::EtcdMembers.tr(lang) }<span class="muted">{ L::NotAvailable.tr(lang) }</span></h3>
                <p class="hint">{ L::NoEtcd.tr(lang) }</p>
            </section>
        </div>
    }
}

/// The Events table from the events informer, as `kubectl get events -A
/// --sort-by=.lastTimestamp` prints it.
#[component]
pub fn EventsView() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let events = &ctx.frame.events;
    let skip = events.len().saturating_sub(MAX_EVENTS);
    html! {
        <div class="events-view">
            <h3>{ T::EventsTitle.tr(lang) }<span class="muted">{ T::AllNamespaces.tr(lang) }</span></h3>
            if events.is_empty() { <p class="muted">{ L::NoEvents.tr(lang) }</p> } else {
            <div class="scroll">
            <table class="events">
                <thead><tr><th>{"NAMESPACE"}</th><th>{"LAST SEEN"}</th><th>{"TYPE"}</th><th>{"REASON"}</th><th>{"OBJECT"}</th><th>{"MESSAGE"}</th></tr></thead>
                <tbody>
                { for events.iter().skip(skip).map(|ev| html! {
                    <tr class={classes!("event", (ev.type_ == "Warning").then_some("warning"))} data-reason={ev.reason.clone()}>
                        <td>{ &ev.namespace }</td><td class="num">{ &ev.last_seen }</td><td>{ &ev.type_ }</td>
                        <td>{ &ev.reason }</td><td>{ &ev.object }</td><td class="message">{ &ev.message }</td>
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
            }
        </div>
    }
}

/// The page's own list + watch streams and one stream's raw body.
#[component]
pub fn StreamsView() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let streams = &ctx.frame.streams;
    let rows = streams.iter().map(|s| {
        let state = match &s.phase {
            Phase::Listing => L::StateListing.tr(lang).to_string(),
            Phase::WaitingToWatch => L::StateWaiting.tr(lang).to_string(),
            Phase::Watching => L::StateWatching.tr(lang).to_string(),
            Phase::BackingOff(m) => L::StateBackoff.fill(lang, &[m]),
        };
        let raw = {
            let ctx = ctx.clone();
            let r = s.resource;
            Callback::from(move |_: MouseEvent| ctx.dispatch(LiveAction::ShowRaw(Some(r))))
        };
        html! {
            <tr key={s.resource} data-stream={s.resource}>
                <td>{ s.resource }</td>
                <td class="filter">{ format!("GET {}?watch=true", s.collection) }</td>
                <td>{ state }</td>
                <td class="num last-rv">{ s.last_rv }</td>
                <td class="num">{ s.cached }</td>
                <td class="num delivered">{ s.events }</td>
                <td class="num">{ s.rewatches }</td>
                <td class="num">{ s.relists }</td>
                <td class="num">{ s.expired }</td>
                <td class="buttons"><button class="small raw" onclick={raw}>{ L::Raw.tr(lang) }</button></td>
            </tr>
        }
    });
    html! {
        <div class="broadcast-view live">
            <h3>{ L::PageStreams.tr(lang) }</h3>
            <div class="scroll">
            <table class="streams">
                <thead><tr>
                    <th>{ L::ColResource.tr(lang) }</th><th>{ L::ColRequest.tr(lang) }</th><th>{ L::ColState.tr(lang) }</th>
                    <th>{ L::ColLastRv.tr(lang) }</th><th>{ L::ColCached.tr(lang) }</th><th>{ L::ColEvents.tr(lang) }</th>
                    <th>{ L::ColRewatches.tr(lang) }</th><th>{ L::ColRelists.tr(lang) }</th><th>{ L::Col410.tr(lang) }</th><th></th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            </div>
            <p class="hint" data-unavailable="fan-out">{ L::NotAvailable.tr(lang) }{ ": " }{ L::NoFanOut.tr(lang) }</p>
            <RawPane />
        </div>
    }
}

#[component]
fn RawPane() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let Some(resource) = ctx.raw else {
        return html! {};
    };
    let lines = &ctx.frame.raw;
    let close = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(LiveAction::ShowRaw(None)))
    };
    html! {
        <section class="raw" id="raw-stream" data-stream={resource}>
            <h3>{ L::RawTitle.fill(lang, &[resource]) }
                <button class="small" onclick={close}>{ L::Close.tr(lang) }</button></h3>
            if lines.is_empty() { <p class="hint">{ L::RawEmpty.tr(lang) }</p> }
            <pre class="json">{ for lines.iter().map(|l| html!{ <>{ l }{ "\n" }</> }) }</pre>
        </section>
    }
}

/// The kubectl console over the real API server: the shared terminal, wired to live mode.
#[component]
pub fn ConsolePanel() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let (lines, following) = (ctx.frame.console.clone(), ctx.frame.following);
    let on_command = {
        let ctx = ctx.clone();
        Callback::from(move |line: String| ctx.dispatch(LiveAction::Command(line)))
    };
    let on_interrupt = {
        let ctx = ctx.clone();
        Callback::from(move |()| ctx.dispatch(LiveAction::Interrupt))
    };
    let on_clear = {
        let ctx = ctx.clone();
        Callback::from(move |()| ctx.dispatch(LiveAction::ClearConsole))
    };
    let on_history = Callback::from(move |step: History| {
        let mut e = ctx.engine.borrow_mut();
        match step {
            History::Previous => e.model.console.history_prev(),
            History::Next => Some(e.model.console.history_next()),
        }
    });
    html! {
        <Terminal {lang} {lines} {following} {on_command} {on_interrupt} {on_clear} {on_history} />
    }
}
