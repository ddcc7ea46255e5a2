//! The cluster at a glance: one column per node with its pods, a column for pods not yet
//! scheduled, the true totals by STATUS, and the etcd members. Each column scrolls in a
//! window (only the cards in view are drawn), so thousands of pods stay smooth.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::etcd_panel::EtcdPanel;
use super::node_column::{pods_text, status_class, NodeColumn};
use super::{tr, use_ctx};
use crate::i18n::T;
use watchlab_engine::cluster::PodView;
use yew::prelude::*;

/// The order STATUS counts are listed in (others follow alphabetically).
const STATUS_ORDER: [&str; 5] = [
    "Running",
    "ContainerCreating",
    "Pending",
    "Terminating",
    "Completed",
];

/// How many pods have each STATUS, in [`STATUS_ORDER`] then alphabetical order.
pub fn status_counts(pods: &[PodView]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in pods {
        *counts.entry(p.status.as_str()).or_default() += 1;
    }
    let rank = |s: &str| {
        STATUS_ORDER
            .iter()
            .position(|o| *o == s)
            .unwrap_or(STATUS_ORDER.len())
    };
    let mut out: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(s, n)| (s.to_string(), n))
        .collect();
    out.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then_with(|| a.0.cmp(&b.0)));
    out
}

#[component]
pub fn ClusterView() -> Html {
    let ctx = use_ctx();
    let (nodes, pods) = (ctx.frame.nodes.clone(), ctx.frame.pods.clone());
    let counts = status_counts(&pods);
    let total = pods.len();
    // One pass: each pod into its node's column (or the unscheduled one).
    let mut by_node: BTreeMap<Option<String>, Vec<PodView>> = BTreeMap::new();
    for p in pods {
        by_node.entry(p.node.clone()).or_default().push(p);
    }
    let unscheduled = by_node.remove(&None).unwrap_or_default();
    let lang = ctx.lang;
    html! {
        <div class="cluster-view">
            <p class="summary">
                <span id="pod-count" data-count={total.to_string()}>{ pods_text(lang, total) }</span>
                { for counts.iter().map(|(status, n)| html! {
                    <span class={classes!("chip", status_class(status))} data-status={status.clone()} data-count={n.to_string()}>{ format!("{status} {n}") }</span>
                }) }
            </p>
            <section class="nodes" aria-label={tr(&ctx, T::Nodes)}>
                { for nodes.iter().map(|n| {
                    let on = Rc::new(by_node.remove(&Some(n.name.clone())).unwrap_or_default());
                    html! { <NodeColumn key={n.name.clone()} node={Some(n.clone())} pods={on} {lang} /> }
                }) }
                if !unscheduled.is_empty() { <NodeColumn key="-" node={None} pods={Rc::new(unscheduled)} {lang} /> }
            </section>
            <EtcdPanel />
        </div>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn pod(status: &str) -> PodView {
        PodView {
            namespace: "default".into(),
            name: "p".into(),
            node: None,
            status: status.into(),
            ready: "0/1".into(),
            resource_version: 1,
            deleting: false,
        }
    }

    #[test]
    fn status_counts_are_totals_in_a_stable_order() {
        let pods: Vec<_> = [
            "Pending",
            "Running",
            "Pending",
            "ErrImagePull",
            "Running",
            "Running",
        ]
        .into_iter()
        .map(pod)
        .collect();
        assert_eq!(
            status_counts(&pods),
            vec![
                ("Running".to_string(), 3),
                ("Pending".to_string(), 2),
                ("ErrImagePull".to_string(), 1)
            ]
        );
    }
}
