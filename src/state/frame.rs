//! What the views show, derived from the engine once per state change: the reducer takes this
//! snapshot after every action that changed something, and components render from it instead
//! of borrowing the engine while rendering (so a render never runs engine code, and two
//! components in one frame never see two different clusters).
//!
//! A frame reads only what the page shows ([`Shown`]): the nodes, pods and informers are
//! listed only while a view drawing them is open, and a cluster of more than
//! [`NODE_MAP_THRESHOLD`] nodes is read as counts per node (the node map) plus the pods of the
//! one node opened, never a row per pod — at 5,000 nodes and 150,000 pods a frame listing
//! everything on every clock tick would cost more than the frame budget itself.
//!
//! The ledger, the watch streams, the timeline and the events view render windows over
//! histories that can hold many thousands of entries; they read the engine in their own
//! windowed callbacks and memos rather than copying whole histories into every frame.

use std::collections::BTreeMap;

use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{InformerView, NodeView, PodCensus, PodView};
use watchlab_engine::etcd_cluster::EtcdCluster;

use super::engine::Engine;
use super::navigation::Tool;
use crate::clock::Speed;
use crate::console::{visible, Line};
use crate::scenario::View;

/// Above this many nodes the cluster view is a node map (one cell per node) instead of one
/// column of pod cards per node, and the Actions tool names the node to kill instead of
/// listing a row per node.
pub const NODE_MAP_THRESHOLD: usize = 60;

/// Whether a cluster of `nodes` nodes is drawn as a node map.
pub fn shows_node_map(nodes: usize) -> bool {
    nodes > NODE_MAP_THRESHOLD
}

/// What the page shows, which decides what a frame reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown<'a> {
    pub view: View,
    pub tool: Tool,
    /// The node opened in the node map.
    pub open_node: Option<&'a str>,
}

/// One frame's view of the engine.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The ledger's revision.
    pub revision: u64,
    /// The virtual time.
    pub now: Timestamp,
    /// The earliest timer, if any.
    pub next_timer: Option<Timestamp>,
    pub paused: bool,
    pub speed: Speed,
    /// The last browser frame ran out of its budget (virtual time is behind).
    pub behind: bool,
    /// The cluster's size in nodes (as configured), so views choose their form without a list.
    pub node_count: usize,
    /// Every node, while the cluster view (or, for a small cluster, the Actions tool) shows;
    /// else empty.
    pub nodes: Vec<NodeView>,
    /// While the cluster view shows: every pod, or in a node map only the open node's; else
    /// empty.
    pub pods: Vec<PodView>,
    /// While the cluster view shows: the pods' counts by node and STATUS; else empty.
    pub census: PodCensus,
    /// Every informer, while the informers view shows; else empty.
    pub informers: Vec<InformerView>,
    pub etcd: EtcdCluster,
    /// The console's newest lines ([`crate::console::VISIBLE_LINES`]).
    pub console: Vec<Line>,
    /// The console is following a watch stream.
    pub following: bool,
}

impl Frame {
    /// Reads what the page shows from the engine, once.
    pub fn of(e: &Engine, shown: Shown<'_>) -> Frame {
        let node_count = e.cluster.config().nodes.len();
        let map = shows_node_map(node_count);
        let cluster_view = shown.view == View::Cluster;
        let node_rows = cluster_view || (shown.tool == Tool::Actions && !map);
        let pods = match (cluster_view, map, shown.open_node) {
            (false, _, _) | (true, true, None) => Vec::new(),
            (true, false, _) => e.cluster.pods(),
            (true, true, Some(node)) => e.cluster.pods_on(node),
        };
        Frame {
            revision: e.cluster.api().revision(),
            now: e.cluster.now(),
            next_timer: e.cluster.next_timer(),
            paused: e.clock.paused(),
            speed: e.clock.speed(),
            behind: e.behind,
            node_count,
            nodes: if node_rows {
                e.cluster.nodes()
            } else {
                Vec::new()
            },
            pods,
            census: if cluster_view {
                e.cluster.pod_census()
            } else {
                PodCensus::default()
            },
            informers: if shown.view == View::Informers {
                e.cluster.informers()
            } else {
                Vec::new()
            },
            etcd: e.cluster.etcd().clone(),
            console: visible(e.console.lines()),
            following: e.console.following(),
        }
    }

    /// Whether the cluster view draws a node map.
    pub fn node_map(&self) -> bool {
        shows_node_map(self.node_count)
    }

    /// The pods' STATUS totals in the order the summary lists them.
    pub fn status_counts(&self) -> Vec<(String, usize)> {
        status_counts(&self.census.by_status)
    }
}

/// The order STATUS counts are listed in (others follow alphabetically).
const STATUS_ORDER: [&str; 5] = [
    "Running",
    "ContainerCreating",
    "Pending",
    "Terminating",
    "Completed",
];

/// STATUS totals in [`STATUS_ORDER`] then alphabetical order.
pub fn status_counts(by_status: &BTreeMap<String, usize>) -> Vec<(String, usize)> {
    let rank = |s: &str| {
        STATUS_ORDER
            .iter()
            .position(|o| *o == s)
            .unwrap_or(STATUS_ORDER.len())
    };
    let mut out: Vec<(String, usize)> = by_status.iter().map(|(s, n)| (s.clone(), *n)).collect();
    // Stable: ties (unranked statuses) keep the map's alphabetical order.
    out.sort_by_key(|(s, _)| rank(s));
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn status_counts_are_totals_in_a_stable_order() {
        let by_status: BTreeMap<String, usize> = [
            ("Pending", 2),
            ("Running", 3),
            ("ErrImagePull", 1),
            ("CrashLoopBackOff", 1),
        ]
        .into_iter()
        .map(|(s, n)| (s.to_string(), n))
        .collect();
        assert_eq!(
            status_counts(&by_status),
            vec![
                ("Running".to_string(), 3),
                ("Pending".to_string(), 2),
                ("CrashLoopBackOff".to_string(), 1),
                ("ErrImagePull".to_string(), 1)
            ]
        );
    }

    #[test]
    fn the_node_map_starts_above_the_threshold() {
        assert!(!shows_node_map(3));
        assert!(!shows_node_map(NODE_MAP_THRESHOLD));
        assert!(shows_node_map(NODE_MAP_THRESHOLD + 1));
        assert!(shows_node_map(100));
        assert!(shows_node_map(5_000));
    }
}
