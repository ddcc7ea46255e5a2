//! kube-scheduler's cache and snapshot (`pkg/scheduler/backend/cache`): what each node already
//! carries — requested cpu and memory, the non-zero requests scoring uses, and its pod count —
//! kept up to date from the pod informer's notifications and from the scheduler's own
//! assumptions, so a scheduling decision reads one entry per node instead of summing the node's
//! pods. A pod the scheduler has bound is *assumed* on its node until the informer shows it
//! bound (or gone). The node snapshot holds the nodes in name order with their parsed
//! allocatable and the taints the filter sees, updated in place from the node informer.
//!
//! Each node name gets a *slot*, a small number the cache hands out once: the usage is a vector
//! indexed by slot and every snapshot entry carries its node's slot, so a decision that reads
//! hundreds of nodes (500 at 5,000 nodes) indexes an array instead of comparing node names in
//! a tree, as kube-scheduler's snapshot holds each node's requested resources in its `NodeInfo`.

use std::sync::Arc;

use super::podutil::{
    self, Allocatable, Resources, NO_EXECUTE, NO_SCHEDULE, TAINT_NOT_READY, TAINT_UNREACHABLE,
};
use crate::api::node::{Node, Taint};
use crate::api::pod::Pod;
use crate::api::Object;
use crate::client::ObjectKey;
use crate::hash::FixedHashMap;

/// What a node already carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Summed requests.
    pub requests: Resources,
    /// The same with the scheduler's non-zero defaults per container (for scoring).
    pub non_zero: Resources,
    pub pods: i64,
}

impl Usage {
    fn add(&mut self, c: &Counted) {
        self.requests += c.requests;
        self.non_zero += c.non_zero;
        self.pods += 1;
    }

    fn remove(&mut self, c: &Counted) {
        self.requests -= c.requests;
        self.non_zero -= c.non_zero;
        self.pods -= 1;
    }
}

/// One pod counted on a node.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Counted {
    /// The node's slot ([`NodeUsageCache::slot`]).
    node: usize,
    requests: Resources,
    non_zero: Resources,
    /// Bound by us, not yet seen bound by the informer.
    assumed: bool,
}

/// Requested resources and pod count per node (kube-scheduler's `cacheImpl` of `NodeInfo`s).
#[derive(Debug, Default)]
pub struct NodeUsageCache {
    pods: FixedHashMap<ObjectKey, Counted>,
    /// Every node name seen (in the snapshot or on a pod) and its slot; never shrinks, so a
    /// slot always names the same node.
    slots: FixedHashMap<String, usize>,
    /// Usage by slot.
    usage: Vec<Usage>,
    assumed: usize,
}

impl NodeUsageCache {
    /// What `node` carries: its bound, unfinished pods plus the pods assumed on it.
    pub fn usage(&self, node: &str) -> Usage {
        self.slots
            .get(node)
            .map_or_else(Usage::default, |&slot| self.usage_at(slot))
    }

    /// What the node of `slot` carries (see [`NodeUsageCache::usage`]).
    pub fn usage_at(&self, slot: usize) -> Usage {
        self.usage.get(slot).copied().unwrap_or_default()
    }

    /// The slot of `node`, handed out on first sight.
    pub fn slot(&mut self, node: &str) -> usize {
        if let Some(&slot) = self.slots.get(node) {
            return slot;
        }
        let slot = self.usage.len();
        self.slots.insert(node.to_string(), slot);
        self.usage.push(Usage::default());
        slot
    }

    /// Pods assumed on a node and not yet seen bound.
    pub fn assumed(&self) -> usize {
        self.assumed
    }

    pub fn is_assumed(&self, key: &ObjectKey) -> bool {
        self.pods.get(key).is_some_and(|c| c.assumed)
    }

    /// `AssumePod`: the scheduler bound `pod` to `node`; count it there from now on.
    pub fn assume(&mut self, key: &ObjectKey, pod: &Pod, node: &str) {
        let counted = self.counted(pod, node, true);
        self.set(key, Some(counted));
    }

    /// The informer's view of a pod (an add or an update): a bound, unfinished pod counts on
    /// its node (confirming an assumption); an unbound one counts only while it is assumed.
    pub fn observe(&mut self, key: &ObjectKey, pod: &Pod) {
        if !pod.spec.node_name.is_empty() && !podutil::is_terminal(pod) {
            let counted = self.counted(pod, &pod.spec.node_name, false);
            self.set(key, Some(counted));
        } else if pod.spec.node_name.is_empty() && self.is_assumed(key) {
            // The informer has not caught up with our binding yet.
        } else {
            self.set(key, None);
        }
    }

    /// The pod left the informer (deleted, or finished and out of the field selector).
    pub fn forget(&mut self, key: &ObjectKey) {
        self.set(key, None);
    }

    /// `pod` as it counts on `node`.
    fn counted(&mut self, pod: &Pod, node: &str, assumed: bool) -> Counted {
        Counted {
            node: self.slot(node),
            requests: podutil::requests(&pod.spec),
            non_zero: podutil::non_zero_requests(&pod.spec),
            assumed,
        }
    }

    fn set(&mut self, key: &ObjectKey, counted: Option<Counted>) {
        let old = match &counted {
            Some(c) => self.pods.insert(key.clone(), c.clone()),
            None => self.pods.remove(key),
        };
        if let Some(old) = old {
            self.assumed -= usize::from(old.assumed);
            if let Some(u) = self.usage.get_mut(old.node) {
                u.remove(&old);
            }
        }
        if let Some(new) = counted {
            self.assumed += usize::from(new.assumed);
            if let Some(u) = self.usage.get_mut(new.node) {
                u.add(&new);
            }
        }
    }
}

/// One node as the filters and scores read it (kube-scheduler's `NodeInfo` in the snapshot).
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub node: Arc<Object>,
    /// The node's slot in the [`NodeUsageCache`].
    pub slot: usize,
    pub allocatable: Allocatable,
    /// The node's taints plus the NoSchedule taint the node lifecycle controller puts on a node
    /// that is not Ready (so a just-failed node is avoided even before the taint lands).
    pub taints: Vec<Taint>,
    /// `spec.unschedulable` (cordoned), read here so a decision that filters hundreds of nodes
    /// does not visit each node object.
    pub unschedulable: bool,
    /// Schedulable and without a NoSchedule or NoExecute taint: only resources can keep a pod
    /// without a node selector off it.
    pub open: bool,
}

impl NodeInfo {
    fn new(node: Arc<Object>, slot: usize) -> Option<Self> {
        let n = node.as_node()?;
        let taints = effective_taints(n);
        let open = !n.spec.unschedulable
            && !taints
                .iter()
                .any(|t| t.effect == NO_SCHEDULE || t.effect == NO_EXECUTE);
        Some(NodeInfo {
            slot,
            allocatable: podutil::allocatable(n),
            taints,
            unschedulable: n.spec.unschedulable,
            open,
            node,
        })
    }

    pub fn name(&self) -> &str {
        self.node.name()
    }
}

/// The taints the filter sees (see [`NodeInfo::taints`]).
fn effective_taints(node: &Node) -> Vec<Taint> {
    let mut taints = node.spec.taints.clone();
    let key = match node.condition("Ready").map(|c| c.status.as_str()) {
        Some("True") => None,
        Some("False") => Some(TAINT_NOT_READY),
        _ => Some(TAINT_UNREACHABLE),
    };
    if let Some(key) = key {
        if !taints.iter().any(|t| t.key == key) {
            taints.push(Taint {
                key: key.to_string(),
                effect: NO_SCHEDULE.to_string(),
                ..Default::default()
            });
        }
    }
    taints
}

/// Every node in name order, updated from the node informer's notifications.
#[derive(Debug, Default)]
pub struct NodeSnapshot {
    nodes: Vec<NodeInfo>,
}

impl NodeSnapshot {
    pub fn nodes(&self) -> &[NodeInfo] {
        &self.nodes
    }

    /// A node was added or changed; `slot` is its slot in the usage cache.
    pub fn upsert(&mut self, node: &Arc<Object>, slot: usize) {
        let Some(info) = NodeInfo::new(Arc::clone(node), slot) else {
            return;
        };
        match self.position(node.name()) {
            Ok(i) => {
                if let Some(slot) = self.nodes.get_mut(i) {
                    *slot = info;
                }
            }
            Err(i) => self.nodes.insert(i, info),
        }
    }

    /// The node called `name`, if the snapshot has it.
    pub fn get(&self, name: &str) -> Option<&NodeInfo> {
        self.position(name).ok().and_then(|i| self.nodes.get(i))
    }

    pub fn remove(&mut self, name: &str) {
        if let Ok(i) = self.position(name) {
            self.nodes.remove(i);
        }
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.nodes.binary_search_by(|n| n.name().cmp(name))
    }
}

/// kube-scheduler `minFeasibleNodesToFind`: below this many nodes every node is scored.
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// kube-scheduler `minFeasibleNodesPercentageToFind`.
pub const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: usize = 5;

/// kube-scheduler's `numFeasibleNodesToFind` with `percentageOfNodesToScore` left at its
/// default 0 (adaptive, `pkg/scheduler/schedule_one.go`): every node below 100 nodes,
/// otherwise `50 - nodes/125` percent of them (at least 5 %), and never fewer than 100. The
/// filters stop once this many feasible nodes are found.
pub fn num_feasible_nodes_to_find(all: usize) -> usize {
    if all < MIN_FEASIBLE_NODES_TO_FIND {
        return all;
    }
    let percentage = 50usize
        .saturating_sub(all / 125)
        .max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
    (all * percentage / 100).max(MIN_FEASIBLE_NODES_TO_FIND)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pod::{Container, PodSpec};
    use watchlab_apimachinery::quantity::Quantity;

    fn pod(node: &str, cpu: &str) -> Pod {
        let mut c = Container::default();
        if let Ok(q) = Quantity::parse(cpu) {
            c.resources.requests.insert("cpu".into(), q);
        }
        Pod {
            spec: PodSpec {
                node_name: node.into(),
                containers: vec![c].into(),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        }
    }

    #[test]
    fn adaptive_percentage_of_nodes_to_score() {
        assert_eq!(num_feasible_nodes_to_find(3), 3);
        assert_eq!(num_feasible_nodes_to_find(99), 99);
        // 100 nodes: 49 % would be 49, but never fewer than 100.
        assert_eq!(num_feasible_nodes_to_find(100), 100);
        // 1,000 nodes: 50 - 8 = 42 %.
        assert_eq!(num_feasible_nodes_to_find(1000), 420);
        // 5,000 nodes: 50 - 40 = 10 %.
        assert_eq!(num_feasible_nodes_to_find(5000), 500);
        // 6,000 nodes and more: the 5 % floor.
        assert_eq!(num_feasible_nodes_to_find(6000), 300);
        assert_eq!(num_feasible_nodes_to_find(20_000), 1000);
    }

    #[test]
    fn a_slot_reads_its_node_usage_before_and_after_the_node_is_seen() {
        let mut cache = NodeUsageCache::default();
        // node-f is known to the snapshot before any pod lands on it.
        let f = cache.slot("node-f");
        for (i, node) in ["node-b", "node-d", "node-d", "node-f"].iter().enumerate() {
            let key = ObjectKey::new(Some("default"), &format!("p{i}"));
            cache.observe(&key, &pod(node, "100m"));
        }
        for node in ["node-a", "node-b", "node-c", "node-d", "node-f"] {
            let slot = cache.slot(node);
            assert_eq!(cache.usage_at(slot), cache.usage(node), "{node}");
        }
        assert_eq!(cache.slot("node-f"), f, "a slot never moves");
        let d = cache.slot("node-d");
        assert_eq!(cache.usage_at(d).pods, 2);
        assert_eq!(cache.usage_at(f).pods, 1);
        assert_eq!(cache.usage("node-a"), Usage::default());
        // The last pod leaves node-d: it carries nothing again.
        for i in [1, 2] {
            cache.forget(&ObjectKey::new(Some("default"), &format!("p{i}")));
        }
        assert_eq!(cache.usage("node-d"), Usage::default());
    }

    #[test]
    fn an_assumed_pod_counts_until_the_informer_shows_it_bound_then_once() {
        let mut cache = NodeUsageCache::default();
        let key = ObjectKey::new(Some("default"), "p");
        let unbound = pod("", "250m");
        cache.assume(&key, &unbound, "node-a");
        assert_eq!(cache.usage("node-a").requests.milli_cpu, 250);
        assert_eq!(cache.assumed(), 1);
        // A stale update from before the binding keeps the assumption.
        cache.observe(&key, &unbound);
        assert_eq!(cache.usage("node-a").pods, 1);
        // The binding arrives: counted once, no longer assumed.
        cache.observe(&key, &pod("node-a", "250m"));
        assert_eq!(cache.usage("node-a").pods, 1);
        assert_eq!(cache.usage("node-a").requests.milli_cpu, 250);
        assert_eq!(cache.assumed(), 0);
        // Finished, then gone: nothing left.
        let mut done = pod("node-a", "250m");
        done.status.phase = "Succeeded".into();
        cache.observe(&key, &done);
        assert_eq!(cache.usage("node-a"), Usage::default());
        cache.forget(&key);
        assert_eq!(cache.usage("node-a"), Usage::default());
    }
}
