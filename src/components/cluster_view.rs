//! The cluster at a glance: the true totals by STATUS, the nodes, and the etcd members. A
//! small cluster shows one column per node with its pods and a column for pods not yet
//! scheduled (always, so the node columns keep their width as pods wait and bind), each scrolling in a window (only the cards in view are drawn). A cluster of more
//! than [`crate::state::NODE_MAP_THRESHOLD`] nodes shows the [`NodeMap`] instead, and the pods
//! of the one node opened on it.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::etcd_panel::EtcdPanel;
use super::node_column::{pods_text, status_class, NodeColumn};
use super::node_map::NodeMap;
use super::{tr, use_ctx};
use crate::i18n::T;
use crate::state::Action;
use watchlab_engine::cluster::{Action as ClusterAction, PodView};
use yew::prelude::*;

#[component]
pub fn ClusterView() -> Html {
    let ctx = use_ctx();
    let frame = &ctx.frame;
    let lang = ctx.lang;
    let total = frame.census.total;
    let summary = html! {
        <p class="summary">
            <span id="pod-count" data-count={total.to_string()}>{ pods_text(lang, total) }</span>
            { for frame.status_counts().iter().map(|(status, n)| html! {
                <span class={classes!("chip", status_class(status))} data-status={status.clone()} data-count={n.to_string()}>{ format!("{status} {n}") }</span>
            }) }
        </p>
    };
    if frame.node_map() {
        return html! {
            <div class="cluster-view mapped">
                { summary }
                <NodeMap />
                <OpenNode />
                <EtcdPanel />
            </div>
        };
    }
    // One pass: each pod into its node's column (or the unscheduled one).
    let mut by_node: BTreeMap<Option<&str>, Vec<PodView>> = BTreeMap::new();
    for p in &frame.pods {
        by_node
            .entry(p.node.as_deref())
            .or_default()
            .push(p.clone());
    }
    let unscheduled = by_node.remove(&None).unwrap_or_default();
    html! {
        <div class="cluster-view">
            { summary }
            <section class="nodes" aria-label={tr(&ctx, T::Nodes)}>
                { for frame.nodes.iter().map(|n| {
                    let on = Rc::new(by_node.remove(&Some(n.name.as_str())).unwrap_or_default());
                    html! { <NodeColumn key={n.name.clone()} node={Some(n.clone())} pods={on} {lang} /> }
                }) }
                // Always there, empty or not: a column appearing while pods wait and going once
                // they are bound would narrow and widen every node column (a layout jump).
                <NodeColumn key="-" node={None} pods={Rc::new(unscheduled)} {lang} />
            </section>
            <EtcdPanel />
        </div>
    }
}

/// The node opened on the map: its column of pods, and its kill / restore buttons.
#[component]
fn OpenNode() -> Html {
    let ctx = use_ctx();
    let Some(node) = ctx
        .open_node
        .as_deref()
        .and_then(|name| ctx.frame.nodes.iter().find(|n| n.name == name))
        .cloned()
    else {
        return html! {};
    };
    let act = |a: Action| {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(a.clone()))
    };
    let kill = act(Action::Cluster(ClusterAction::KillNode(node.name.clone())));
    let restore = act(Action::Cluster(ClusterAction::RestoreNode(
        node.name.clone(),
    )));
    html! {
        <section class="open-node" id="open-node" data-node={node.name.clone()}>
            <div class="buttons">
                <button class="small" id="open-node-kill" disabled={node.killed} onclick={kill}>{ tr(&ctx, T::Kill) }</button>
                <button class="small" id="open-node-restore" disabled={!node.killed} onclick={restore}>{ tr(&ctx, T::Restore) }</button>
                <button class="small" id="open-node-close" onclick={act(Action::OpenNode(None))}>{ tr(&ctx, T::Close) }</button>
            </div>
            <NodeColumn key={node.name.clone()} node={Some(node.clone())} pods={Rc::new(ctx.frame.pods.clone())} lang={ctx.lang} />
        </section>
    }
}
