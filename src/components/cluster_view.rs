//! The cluster at a glance: one column per node with its pods, a column for pods not yet
//! scheduled, and the etcd members.

use super::etcd_panel::EtcdPanel;
use super::node_column::NodeColumn;
use super::{fill, tr, use_ctx};
use crate::i18n::T;
use yew::prelude::*;

#[component]
pub fn ClusterView() -> Html {
    let ctx = use_ctx();
    let (nodes, pods) = {
        let e = ctx.engine.borrow();
        (e.cluster.nodes(), e.cluster.pods())
    };
    let unscheduled: Vec<_> = pods.iter().filter(|p| p.node.is_none()).cloned().collect();
    let lang = ctx.lang;
    html! {
        <div class="cluster-view">
            <p class="summary"><span id="pod-count">{ fill(&ctx, T::PodsCount, &[&pods.len().to_string()]) }</span></p>
            <section class="nodes" aria-label={tr(&ctx, T::Nodes)}>
                { for nodes.iter().map(|n| {
                    let on: Vec<_> = pods.iter().filter(|p| p.node.as_deref() == Some(n.name.as_str())).cloned().collect();
                    html! { <NodeColumn key={n.name.clone()} node={Some(n.clone())} pods={on} {lang} /> }
                }) }
                if !unscheduled.is_empty() { <NodeColumn key="-" node={None} pods={unscheduled} {lang} /> }
            </section>
            <EtcdPanel />
        </div>
    }
}
