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
//! The ledger's lines (up to the engine's 10,000) are shared, not copied: each line is read from
//! the engine once into an `Rc` and handed from one frame to the next, so a frame costs one
//! pointer per line plus the lines written since the last one. The ledger view draws its window
//! of rows from them, the timeline its newest marks. The events view sorts the frame's Event
//! list, which is handed on unchanged while no Event changed; the broadcast is read whole
//! ([`Broadcast`]) while it shows.

use std::collections::BTreeMap;
use std::rc::Rc;

use std::sync::Arc;

use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::{ApiServer, LedgerEntry};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{
    ApiserverView, InformerView, NodeView, PodCensus, PodView, ReplicaView,
};
use watchlab_engine::controllers::replica::StaleWrite;
use watchlab_engine::controllers::ProxyRule;
use watchlab_engine::etcd::picture::EtcdPicture;

use super::broadcast::{Broadcast, BroadcastAsk};
use super::engine::Engine;
use super::navigation::Tool;
use crate::clock::Speed;
use crate::console::{visible, Line};
use crate::view::View;
use watchlab_apimachinery::sort;

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
    /// What the broadcast view is asked to show.
    pub broadcast: BroadcastAsk<'a>,
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
    /// The ledger's lines, oldest first, while the ledger or the timeline shows; else empty.
    pub ledger: Rc<Vec<Rc<LedgerEntry>>>,
    /// The store's compaction revision (lines below it are drawn as compacted).
    pub compacted: u64,
    /// Every Event and the namespaces, while the events view shows; else empty.
    pub events: Rc<EventList>,
    /// What the broadcast view draws, while it shows; else empty.
    pub broadcast: Rc<Broadcast>,
    /// Each node's kube-proxy rules while the rules view shows (in a node map, the open
    /// node's only); else empty.
    pub proxy_rules: Vec<NodeRules>,
    pub etcd: EtcdPicture,
    /// The replicas of kube-scheduler and kube-controller-manager, while the Actions tool
    /// shows; else empty.
    pub replicas: Vec<ReplicaView>,
    /// The kube-apiserver instances, while the Actions tool shows; else empty.
    pub apiservers: Vec<ApiserverView>,
    /// The newest writes of replicas that led only in their own belief
    /// ([`STALE_WRITES_SHOWN`]), while the Actions tool shows; else empty.
    pub stale_writes: Vec<StaleWrite>,
    /// The served kinds, in discovery order: the built-in ones, then the custom kinds whose
    /// CustomResourceDefinition is established (what the Actions kind picker offers).
    pub kinds: Vec<Kind>,
    /// The console's newest lines ([`crate::console::VISIBLE_LINES`]).
    pub console: Vec<Line>,
    /// The console is following a watch stream.
    pub following: bool,
}

/// The stale leader's writes the Actions tool lists (the newest).
pub const STALE_WRITES_SHOWN: usize = 12;

impl Frame {
    /// Reads what the page shows from the engine, once.
    pub fn of(e: &Engine, shown: Shown<'_>) -> Frame {
        Frame::after(e, shown, None)
    }

    /// Reads what the page shows from the engine, reusing what `previous` already read.
    pub fn after(e: &Engine, shown: Shown<'_>, previous: Option<&Frame>) -> Frame {
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
            ledger: if matches!(shown.view, View::Ledger | View::Timeline) {
                ledger_lines(e, previous.map(|f| &f.ledger))
            } else {
                Rc::default()
            },
            compacted: e.cluster.api().store().compact_revision(),
            broadcast: if shown.view == View::Broadcast {
                Rc::new(Broadcast::of(e, shown.broadcast))
            } else {
                Rc::default()
            },
            proxy_rules: if shown.view == View::Rules {
                node_rules(e, shown.open_node, map)
            } else {
                Vec::new()
            },
            events: if shown.view == View::Events {
                EventList::after(e.cluster.api(), previous.map(|f| &f.events))
            } else {
                Rc::default()
            },
            etcd: e.cluster.etcd().picture(),
            replicas: if shown.tool == Tool::Actions {
                e.cluster.replicas()
            } else {
                Vec::new()
            },
            apiservers: if shown.tool == Tool::Actions {
                e.cluster.apiservers()
            } else {
                Vec::new()
            },
            stale_writes: if shown.tool == Tool::Actions {
                let all = e.cluster.control_plane().stale_writes();
                all.iter()
                    .skip(all.len().saturating_sub(STALE_WRITES_SHOWN))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            },
            kinds: e.cluster.api().registry().kinds().to_vec(),
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

/// The engine's ledger lines as shared `Rc`s: the lines `previous` holds are reused (the
/// whole list itself when nothing was written since), only newer ones are read.
fn ledger_lines(
    e: &Engine,
    previous: Option<&Rc<Vec<Rc<LedgerEntry>>>>,
) -> Rc<Vec<Rc<LedgerEntry>>> {
    let ledger = e.cluster.api().ledger();
    let ends = |l: Option<&LedgerEntry>| l.map(|l| l.revision);
    if let Some(prev) = previous {
        let same = prev.len() == ledger.len()
            && ends(prev.first().map(|l| &**l)) == ends(ledger.iter().next())
            && ends(prev.last().map(|l| &**l)) == ends(ledger.iter().next_back());
        if same {
            return Rc::clone(prev);
        }
    }
    let kept: &[Rc<LedgerEntry>] = previous.map_or(&[], |p| p.as_slice());
    let mut reuse = kept.iter().peekable();
    let mut lines = Vec::with_capacity(ledger.len());
    for l in ledger.iter() {
        // Both are in revision order: skip what dropped off the engine's ledger.
        while reuse.next_if(|k| k.revision < l.revision).is_some() {}
        match reuse.next_if(|k| k.revision == l.revision) {
            Some(k) => lines.push(Rc::clone(k)),
            None => lines.push(Rc::new(l.clone())),
        }
    }
    Rc::new(lines)
}

/// One node's kube-proxy rules.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRules {
    pub node: String,
    pub rules: Vec<RuleRow>,
}

/// A rule and its lag.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleRow {
    pub rule: ProxyRule,
    /// Virtual milliseconds from the write it was built from (its source revision, if still in
    /// the ledger) to the node applying it.
    pub lag_ms: Option<u64>,
}

/// The rules of every node (of the open node only, in a node map).
fn node_rules(e: &Engine, open_node: Option<&str>, map: bool) -> Vec<NodeRules> {
    let nodes: Vec<String> = match (map, open_node) {
        (true, Some(n)) => vec![n.to_string()],
        (true, None) => Vec::new(),
        (false, _) => e.cluster.config().nodes.clone(),
    };
    let per_node: Vec<(String, Vec<ProxyRule>)> = nodes
        .into_iter()
        .map(|n| {
            let rules = e.cluster.proxy_rules(&n);
            (n, rules)
        })
        .collect();
    // When each source revision was written: one pass over the ledger, newest first.
    let mut wanted: BTreeMap<u64, Option<Timestamp>> = per_node
        .iter()
        .flat_map(|(_, rs)| rs.iter().map(|r| (r.source_revision, None)))
        .collect();
    let oldest = wanted.keys().next().copied().unwrap_or(u64::MAX);
    for l in e.cluster.api().ledger().iter().rev() {
        if l.revision < oldest {
            break;
        }
        if let Some(t) = wanted.get_mut(&l.revision) {
            *t = Some(l.time);
        }
    }
    per_node
        .into_iter()
        .map(|(node, rules)| NodeRules {
            node,
            rules: rules
                .into_iter()
                .map(|rule| RuleRow {
                    lag_ms: wanted
                        .get(&rule.source_revision)
                        .copied()
                        .flatten()
                        .map(|t| rule.applied_at.millis_since(t)),
                    rule,
                })
                .collect(),
        })
        .collect()
}

/// Every Event, in the API's list order, and the namespaces the events view offers.
#[derive(Debug, Default, PartialEq)]
pub struct EventList {
    pub items: Vec<Arc<Object>>,
    pub namespaces: Vec<String>,
    /// The events' count and newest resourceVersion: every create, count bump or delete of an
    /// Event moves one of the two (what a sort depends on).
    pub fingerprint: (usize, u64),
}

impl EventList {
    /// The Events and namespaces now.
    pub fn of(api: &ApiServer) -> EventList {
        let items = api.peek_all(Kind::Event);
        let newest = items
            .iter()
            .map(|o| o.resource_version())
            .max()
            .unwrap_or(0);
        EventList {
            fingerprint: (items.len(), newest),
            items,
            namespaces: api
                .peek_all(Kind::Namespace)
                .iter()
                .map(|o| o.name().to_string())
                .collect(),
        }
    }

    /// The list now, or `previous` itself if nothing changed (so what is sorted from it is not
    /// sorted again).
    fn after(api: &ApiServer, previous: Option<&Rc<EventList>>) -> Rc<EventList> {
        let now = EventList::of(api);
        match previous {
            Some(p) if p.fingerprint == now.fingerprint && p.namespaces == now.namespaces => {
                Rc::clone(p)
            }
            _ => Rc::new(now),
        }
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
    sort::sort_by_key(&mut out, |(s, _)| rank(s));
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
