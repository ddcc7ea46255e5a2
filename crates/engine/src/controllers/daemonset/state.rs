//! What the DaemonSet controller knows of one DaemonSet between syncs, kept current from the
//! notifications so that a sync costs what changed, not a pass over every node: its pods
//! filed by the node they are for (`getNodesToDaemonPods`), and per node the facts a sync
//! needs — whether the node should run the pod, its share of the status counts
//! (`updateDaemonSetStatus`) and its rolling-update class (`rollingUpdate`) — recomputed only
//! for the nodes whose node object or pods changed (*dirty*), whose pod became available
//! after `minReadySeconds` (*ripening*), or all of them when the DaemonSet's template, hash
//! or strategy moved. The sums and the members of each class are kept with the facts.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::class::{classify, Class, Shape};
use super::history::CONTROLLER_REVISION_HASH_LABEL;
use super::predicates::{target_node_name, Predicates};
use crate::api::node::Node;
use crate::api::pod::Pod;
use crate::api::Object;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::podutil::{is_pod_available, is_pod_ready, is_terminal};
use watchlab_apimachinery::sort;

/// One node's share of the status (each 0 or 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub desired: i32,
    pub current: i32,
    pub misscheduled: i32,
    pub ready: i32,
    pub available: i32,
    pub updated: i32,
    /// The node has an available pod (the old one while there is one): surge's `numAvailable`.
    pub surge_available: i32,
}

impl Counts {
    fn add(&mut self, o: &Counts, sign: i32) {
        self.desired += sign * o.desired;
        self.current += sign * o.current;
        self.misscheduled += sign * o.misscheduled;
        self.ready += sign * o.ready;
        self.available += sign * o.available;
        self.updated += sign * o.updated;
        self.surge_available += sign * o.surge_available;
    }
}

/// The facts of one node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeFacts {
    pub exists: bool,
    pub should_run: bool,
    pub should_continue: bool,
    counts: Counts,
    class: Class,
    /// When a pod here that is ready becomes available.
    ripe_at: Option<Timestamp>,
}

/// One DaemonSet's pods by node and the facts derived from them.
#[derive(Debug, Default)]
pub struct DaemonState {
    pods: BTreeMap<String, BTreeMap<ObjectKey, Arc<Object>>>,
    node_of: BTreeMap<ObjectKey, String>,
    /// How many pods carry each `controller-revision-hash` (cleanupHistory's live hashes).
    hashes: BTreeMap<String, usize>,
    facts: BTreeMap<String, NodeFacts>,
    totals: Counts,
    classes: BTreeMap<Class, BTreeSet<String>>,
    dirty: BTreeSet<String>,
    /// Nodes a sync must look at for creates and deletes (`manage`), until it found nothing
    /// to do there.
    pending: BTreeSet<String>,
    ripening: BTreeSet<(Timestamp, String)>,
    shape: Option<Shape>,
}

/// `podByCreationTimestampAndPhase`: bound pods first, then oldest, then by name.
pub fn sort_pods(pods: &mut [&Pod]) {
    sort::sort_by(pods, |a, b| {
        let unbound = |p: &Pod| p.spec.node_name.is_empty();
        unbound(a)
            .cmp(&unbound(b))
            .then(
                a.metadata
                    .creation_timestamp
                    .cmp(&b.metadata.creation_timestamp),
            )
            .then(a.metadata.name.cmp(&b.metadata.name))
    });
}

impl DaemonState {
    /// The state of a DaemonSet whose pods are `pods` (from the controller-uid index).
    pub fn build(pods: &[Arc<Object>]) -> Self {
        let mut s = DaemonState::default();
        for p in pods {
            s.apply(None, Some(p));
        }
        s
    }

    /// A pod notification: the pod leaves the node it was filed under and is filed under the
    /// node it is for now; both nodes are dirty.
    pub fn apply(&mut self, old: Option<&Arc<Object>>, new: Option<&Arc<Object>>) {
        let key = match (old, new) {
            (_, Some(o)) | (Some(o), None) => ObjectKey::of(o),
            (None, None) => return,
        };
        if let Some(node) = self.node_of.remove(&key) {
            let removed = self.pods.get_mut(&node).and_then(|m| m.remove(&key));
            if self.pods.get(&node).is_some_and(BTreeMap::is_empty) {
                self.pods.remove(&node);
            }
            if let Some(o) = removed {
                self.count_hash(&o, -1);
            }
            self.dirty.insert(node);
        }
        let Some(obj) = new else { return };
        let Some(node) = obj.as_pod().and_then(target_node_name) else {
            return;
        };
        let node = node.to_string();
        self.count_hash(obj, 1);
        self.pods
            .entry(node.clone())
            .or_default()
            .insert(key.clone(), Arc::clone(obj));
        self.node_of.insert(key, node.clone());
        self.dirty.insert(node);
    }

    fn count_hash(&mut self, obj: &Object, delta: isize) {
        let Some(h) = obj.meta().labels.get(CONTROLLER_REVISION_HASH_LABEL) else {
            return;
        };
        let n = self.hashes.entry(h.clone()).or_default();
        *n = n.saturating_add_signed(delta);
        if *n == 0 {
            self.hashes.remove(h);
        }
    }

    /// The fit rules the facts were last computed with (`None` before the first sync).
    pub fn predicates(&self) -> Option<&Predicates> {
        self.shape.as_ref().map(|s| &s.predicates)
    }

    pub fn mark_dirty(&mut self, node: &str) {
        self.dirty.insert(node.to_string());
    }

    /// The pods of every revision hash, counted.
    pub fn live_hashes(&self) -> &BTreeMap<String, usize> {
        &self.hashes
    }

    /// Every pod of the DaemonSet.
    pub fn all_pods(&self) -> Vec<Arc<Object>> {
        self.pods
            .values()
            .flat_map(|m| m.values().cloned())
            .collect()
    }

    /// The daemon pods for `node` (not those finished and being deleted), in
    /// `podByCreationTimestampAndPhase` order.
    pub fn pods_on(&self, node: &str) -> Vec<&Pod> {
        let mut pods: Vec<&Pod> = self
            .pods
            .get(node)
            .into_iter()
            .flat_map(|m| m.values())
            .filter_map(|o| o.as_pod())
            .filter(|p| !(is_terminal(p) && p.metadata.deletion_timestamp.is_some()))
            .collect();
        sort_pods(&mut pods);
        pods
    }

    pub fn facts(&self, node: &str) -> Option<&NodeFacts> {
        self.facts.get(node)
    }

    pub fn totals(&self) -> Counts {
        self.totals
    }

    pub fn members(&self, class: Class) -> impl Iterator<Item = &String> {
        self.classes.get(&class).into_iter().flatten()
    }

    pub fn count(&self, class: Class) -> usize {
        self.classes.get(&class).map_or(0, BTreeSet::len)
    }

    /// The nodes `manage` must look at, in name order.
    pub fn pending(&self) -> Vec<String> {
        self.pending.iter().cloned().collect()
    }

    /// `manage` found nothing (more) to do on the node.
    pub fn settled(&mut self, node: &str) {
        self.pending.remove(node);
    }

    /// When the next ready pod becomes available.
    pub fn next_ripe(&self) -> Option<Timestamp> {
        self.ripening.first().map(|(t, _)| *t)
    }

    /// Brings the facts up to date at `now`: every node if `shape` differs from the last one
    /// (the `nodes` of the cluster, by name), else the dirty and the ripe nodes.
    pub fn refresh(
        &mut self,
        shape: Shape,
        nodes: &dyn Fn(&str) -> Option<Arc<Object>>,
        all_nodes: &dyn Fn() -> Vec<String>,
        now: Timestamp,
    ) {
        if self.shape.as_ref() != Some(&shape) {
            let known = self.facts.keys().chain(self.pods.keys()).cloned();
            let every: Vec<String> = known.chain(all_nodes()).collect();
            self.dirty.extend(every);
            self.shape = Some(shape);
        }
        while let Some((t, _)) = self.ripening.first() {
            if *t > now {
                break;
            }
            if let Some((_, node)) = self.ripening.pop_first() {
                self.dirty.insert(node);
            }
        }
        for node in std::mem::take(&mut self.dirty) {
            let obj = nodes(&node);
            let facts = self.compute(obj.as_ref().and_then(|o| o.as_node()), &node, now);
            self.store(node, facts);
        }
    }

    fn compute(&self, node: Option<&Node>, name: &str, now: Timestamp) -> NodeFacts {
        let Some(shape) = &self.shape else {
            return NodeFacts::default();
        };
        let (should_run, should_continue) =
            node.map_or((false, false), |n| shape.predicates.should_run(n));
        let pods = self.pods_on(name);
        let min_ready = shape.min_ready_seconds;
        let mut f = NodeFacts {
            exists: node.is_some(),
            should_run,
            should_continue,
            ..Default::default()
        };
        if node.is_some() {
            match (should_run, pods.first()) {
                (true, oldest) => {
                    f.counts.desired = 1;
                    if let Some(p) = oldest {
                        f.counts.current = 1;
                        f.counts.ready = i32::from(is_pod_ready(p));
                        f.counts.available =
                            i32::from(f.counts.ready == 1 && is_pod_available(p, min_ready, now));
                        f.counts.updated = i32::from(shape.is_updated(p));
                    }
                }
                (false, Some(_)) => f.counts.misscheduled = 1,
                (false, None) => {}
            }
        }
        if !pods.is_empty() || should_run {
            let (class, available) = classify(shape, &pods, should_run, now);
            f.class = class;
            f.counts.surge_available = i32::from(available);
        }
        f.ripe_at = pods
            .iter()
            .filter(|p| is_pod_ready(p) && !is_pod_available(p, min_ready, now))
            .filter_map(|p| p.condition("Ready")?.last_transition_time)
            .map(|t| t.plus_secs(min_ready.max(0) as u64))
            .min();
        f
    }

    /// Replaces a node's facts, keeping the sums, the classes and the ripening times.
    fn store(&mut self, node: String, facts: NodeFacts) {
        if let Some(old) = self.facts.remove(&node) {
            self.totals.add(&old.counts, -1);
            if let Some(m) = self.classes.get_mut(&old.class) {
                m.remove(&node);
            }
            if let Some(t) = old.ripe_at {
                self.ripening.remove(&(t, node.clone()));
            }
        }
        self.pending.insert(node.clone());
        let gone = !facts.exists && !self.pods.contains_key(&node);
        if gone {
            return;
        }
        self.totals.add(&facts.counts, 1);
        self.classes
            .entry(facts.class)
            .or_default()
            .insert(node.clone());
        if let Some(t) = facts.ripe_at {
            self.ripening.insert((t, node.clone()));
        }
        self.facts.insert(node, facts);
    }
}
