//! The node lifecycle controller (user agent `node-controller`) with taint-based eviction (the
//! `taint-eviction-controller` of kube-controller-manager). Every node-monitor-period it checks
//! each node's heartbeat — its Lease renewTime, or the Ready condition's lastHeartbeatTime — and
//! when none came for node-monitor-grace-period it sets the node's conditions to Unknown
//! ("Kubelet stopped posting node status."), records `NodeNotReady`, marks the node's pods not
//! ready and taints the node `node.kubernetes.io/unreachable` (NoSchedule and NoExecute). Pods on
//! a NoExecute-tainted node are deleted (`TaintManagerEviction`) when their toleration runs out
//! (at once without one). When the kubelet posts Ready again, the taints are removed. Like
//! `taintNodeByCondition`, a cordoned node (`spec.unschedulable`) carries
//! `node.kubernetes.io/unschedulable:NoSchedule`, removed on uncordon.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::adapter::NODE_NAME_INDEX;
use super::events::{EventRecorder, EventType};
use super::kubelet::NODE_LEASE_NAMESPACE;
use super::podutil::{
    self, NO_EXECUTE, NO_SCHEDULE, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE,
};
use super::profile::Profile;
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Controller};
use crate::api::node::{Node, Taint};
use crate::api::pod::Pod;
use crate::api::{Kind, Object};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::{Notification, ObjectKey};
use crate::clock::Timestamp;

pub const USER_AGENT: &str = "node-controller";
/// The event source of evictions (the taint eviction controller since v1.29).
pub const EVICTION_COMPONENT: &str = "taint-eviction-controller";

pub const NODE_STATUS_UNKNOWN_MESSAGE: &str = "Kubelet stopped posting node status.";

/// The node lifecycle controller.
pub struct NodeLifecycleController {
    nodes: SharedInformer,
    leases: SharedInformer,
    /// kube-controller-manager's shared pod informer, for its cache.
    pods: SharedInformer,
    next_monitor: Timestamp,
    /// Pods already evicted (key → uid), so a stale cache does not delete twice.
    evicted: BTreeMap<ObjectKey, String>,
    /// Nodes this controller saw not ready (to report `NodeReady` when they come back).
    not_ready: BTreeSet<String>,
    /// The cached nodes with a NoExecute taint, kept from the node informer's notifications:
    /// the only ones whose pods an eviction pass looks at (the taint manager's node events).
    tainted: BTreeSet<String>,
    recorder: EventRecorder,
    eviction_recorder: EventRecorder,
    profile: Profile,
}

impl NodeLifecycleController {
    pub fn new(profile: &Profile, informers: &SharedInformers) -> Self {
        NodeLifecycleController {
            nodes: informers.reader(Kind::Node),
            leases: informers.cache_reader(Kind::Lease),
            pods: informers.cache_reader(Kind::Pod),
            next_monitor: Timestamp::ZERO,
            evicted: BTreeMap::new(),
            not_ready: BTreeSet::new(),
            tainted: BTreeSet::new(),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
            eviction_recorder: EventRecorder::new(USER_AGENT, EVICTION_COMPONENT, ""),
            profile: profile.clone(),
        }
    }

    fn pods_on(&self, node: &str) -> Vec<Arc<Object>> {
        self.pods
            .store()
            .by_index(NODE_NAME_INDEX, node)
            .unwrap_or_default()
    }

    /// The last sign of life: lease renewal or status heartbeat.
    fn probe_time(&self, node: &Node) -> Option<Timestamp> {
        let lease = self
            .leases
            .store()
            .get_by_name(Some(NODE_LEASE_NAMESPACE), &node.metadata.name)
            .and_then(|l| match &*l {
                Object::Lease(l) => l.spec.renew_time,
                _ => None,
            });
        let heartbeat = node.condition("Ready").and_then(|c| c.last_heartbeat_time);
        [lease, heartbeat, node.metadata.creation_timestamp]
            .into_iter()
            .flatten()
            .max()
    }

    fn monitor(&mut self, now: Timestamp, api: &mut ApiServer) {
        for obj in self.nodes.store().list() {
            let Some(current) = obj.as_node() else {
                continue;
            };
            let stale = self
                .probe_time(current)
                .is_none_or(|t| now.millis_since(t) > self.profile.node_monitor_grace_period_ms);
            let ready = current.condition("Ready").map(|c| c.status.as_str());
            // The cached node, or the version this pass just wrote (cloned only to write).
            let marked;
            let node = if stale && ready != Some("Unknown") {
                match self.mark_unknown(now, api, current) {
                    Some(updated) => {
                        marked = updated;
                        &marked
                    }
                    None => continue,
                }
            } else {
                if !stale && ready == Some("True") && self.not_ready.remove(&current.metadata.name)
                {
                    let msg = format!("Node {} status is now: NodeReady", current.metadata.name);
                    self.recorder
                        .record(api, now, &obj, EventType::Normal, "NodeReady", &msg);
                }
                current
            };
            self.reconcile_taints(now, api, node);
        }
    }

    /// Conditions → Unknown, `NodeNotReady`, pods marked not ready.
    fn mark_unknown(&mut self, now: Timestamp, api: &mut ApiServer, node: &Node) -> Option<Node> {
        let mut n = node.clone();
        for c in &mut n.status.conditions {
            if c.status != "Unknown" {
                c.last_transition_time = Some(now);
            }
            c.status = "Unknown".into();
            c.reason = "NodeStatusUnknown".into();
            c.message = NODE_STATUS_UNKNOWN_MESSAGE.into();
        }
        let updated = api.update_status(USER_AGENT, Object::Node(n)).ok()?;
        let name = node.metadata.name.clone();
        self.not_ready.insert(name.clone());
        let msg = format!("Node {name} status is now: NodeNotReady");
        self.recorder
            .record(api, now, &updated, EventType::Normal, "NodeNotReady", &msg);
        for pod_obj in self.pods_on(&name) {
            let Some(pod) = pod_obj.as_pod().filter(|p| podutil::is_pod_ready(p)) else {
                continue;
            };
            let mut p: Pod = pod.clone();
            p.set_condition("Ready", "False", now);
            if api.update_status(USER_AGENT, Object::Pod(p)).is_ok() {
                self.recorder.record(
                    api,
                    now,
                    &pod_obj,
                    EventType::Warning,
                    "NodeNotReady",
                    "Node is not ready",
                );
            }
        }
        updated.as_node().cloned()
    }

    /// The not-ready/unreachable taints the Ready condition calls for, and the unschedulable
    /// taint `spec.unschedulable` calls for.
    fn reconcile_taints(&mut self, now: Timestamp, api: &mut ApiServer, node: &Node) {
        let wanted_key = match node.condition("Ready").map(|c| c.status.as_str()) {
            Some("True") => None,
            Some("False") => Some(TAINT_NOT_READY),
            _ => Some(TAINT_UNREACHABLE),
        };
        let managed = |t: &Taint| {
            t.key == TAINT_NOT_READY
                || t.key == TAINT_UNREACHABLE
                || (t.key == TAINT_UNSCHEDULABLE && t.effect == NO_SCHEDULE)
        };
        let mut taints: Vec<Taint> = node
            .spec
            .taints
            .iter()
            .filter(|t| !managed(t))
            .cloned()
            .collect();
        if let Some(key) = wanted_key {
            for effect in [NO_SCHEDULE, NO_EXECUTE] {
                let existing = node
                    .spec
                    .taints
                    .iter()
                    .find(|t| t.key == key && t.effect == effect);
                taints.push(existing.cloned().unwrap_or_else(|| Taint {
                    key: key.into(),
                    value: String::new(),
                    effect: effect.into(),
                    time_added: (effect == NO_EXECUTE).then_some(now),
                }));
            }
        }
        if node.spec.unschedulable {
            let existing = node
                .spec
                .taints
                .iter()
                .find(|t| t.key == TAINT_UNSCHEDULABLE && t.effect == NO_SCHEDULE);
            taints.push(existing.cloned().unwrap_or_else(|| Taint {
                key: TAINT_UNSCHEDULABLE.into(),
                value: String::new(),
                effect: NO_SCHEDULE.into(),
                time_added: None,
            }));
        }
        if taints == node.spec.taints {
            return;
        }
        let mut n = node.clone();
        n.spec.taints = taints;
        // A conflict (stale cache) is retried at the next monitor pass.
        let _ = api.update(USER_AGENT, Object::Node(n));
    }

    /// Keeps [`Self::tainted`] equal to the cached nodes that carry a NoExecute taint.
    fn note_taints(&mut self, note: &Notification<Arc<Object>>) {
        match note {
            Notification::Add(obj) | Notification::Update { new: obj, .. } => {
                let tainted = obj
                    .as_node()
                    .is_some_and(|n| n.spec.taints.iter().any(|t| t.effect == NO_EXECUTE));
                if tainted {
                    self.tainted.insert(obj.name().to_string());
                } else {
                    self.tainted.remove(obj.name());
                }
            }
            Notification::Delete(gone) => {
                self.tainted.remove(gone.object().name());
            }
        }
    }

    /// Deletes pods whose NoExecute toleration ran out; returns the next eviction time.
    fn evict(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        let mut next: Option<Timestamp> = None;
        let store = self.nodes.store();
        let tainted: Vec<Arc<Object>> = self
            .tainted
            .iter()
            .filter_map(|name| store.get_by_name(None, name))
            .collect();
        for node_obj in tainted {
            let Some(node) = node_obj.as_node() else {
                continue;
            };
            let taints: Vec<&Taint> = node
                .spec
                .taints
                .iter()
                .filter(|t| t.effect == NO_EXECUTE)
                .collect();
            if taints.is_empty() {
                continue;
            }
            for pod_obj in self.pods_on(&node.metadata.name) {
                // Finished pods too: the real taint eviction controller looks at no phase
                // (kubernetes/kubernetes#96363, "a completed pod should no longer be evicted",
                // closed unchanged), so a Succeeded Job pod on a dead node is marked for deletion.
                let Some(pod) = pod_obj.as_pod() else {
                    continue;
                };
                let key = ObjectKey::new(Some(&pod.metadata.namespace), &pod.metadata.name);
                if self.evicted.get(&key) == Some(&pod.metadata.uid) {
                    continue;
                }
                let at = eviction_time(pod, &taints, now);
                let Some(at) = at else { continue };
                if at > now {
                    next = earliest([next, Some(at)]);
                    continue;
                }
                let ns = pod.metadata.namespace.clone();
                if api
                    .delete(
                        USER_AGENT,
                        Kind::Pod,
                        Some(&ns),
                        &pod.metadata.name,
                        &DeleteOptions::default(),
                    )
                    .is_ok()
                {
                    self.evicted.insert(key, pod.metadata.uid.clone());
                    let msg = format!("Marking for deletion Pod {ns}/{}", pod.metadata.name);
                    self.eviction_recorder.record(
                        api,
                        now,
                        &pod_obj,
                        EventType::Normal,
                        "TaintManagerEviction",
                        &msg,
                    );
                } else {
                    next = earliest([next, Some(now.plus_secs(1))]);
                }
            }
        }
        // Forget evictions of pods that are gone.
        let store = self.pods.store();
        self.evicted.retain(|k, _| store.get(k).is_some());
        next
    }
}

/// When a pod must leave a node with these NoExecute taints: now if one is not tolerated, else
/// when the shortest toleration expires (`None`: tolerated forever).
fn eviction_time(pod: &Pod, taints: &[&Taint], now: Timestamp) -> Option<Timestamp> {
    let mut at: Option<Timestamp> = None;
    for taint in taints {
        let matching: Vec<_> = pod
            .spec
            .tolerations
            .iter()
            .filter(|t| podutil::tolerates(t, taint))
            .collect();
        if matching.is_empty() {
            return Some(now);
        }
        let secs = matching.iter().filter_map(|t| t.toleration_seconds).min();
        if let Some(s) = secs {
            let since = taint.time_added.unwrap_or(now);
            at = earliest([at, Some(since.plus_secs(s.max(0) as u64))]);
        }
    }
    at
}

impl Controller for NodeLifecycleController {
    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![
            (&self.nodes).into(),
            (&self.leases).into(),
            (&self.pods).into(),
        ]
    }

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        self.recorder.flush(api, now);
        self.eviction_recorder.flush(api, now);
        for note in self.nodes.step(now, api) {
            self.note_taints(&note);
        }
        let _ = self.leases.step(now, api);
        let _ = self.pods.step(now, api);
        let synced = self.nodes.has_synced() && self.leases.has_synced() && self.pods.has_synced();
        let mut eviction = None;
        if synced {
            if now >= self.next_monitor {
                self.monitor(now, api);
                self.next_monitor = now.plus_millis(self.profile.node_monitor_period_ms);
            }
            eviction = self.evict(now, api);
        }
        earliest([
            Some(self.next_monitor),
            eviction,
            self.nodes.next_wakeup(),
            self.leases.next_wakeup(),
            self.pods.next_wakeup(),
            self.recorder.next_retry(),
            self.eviction_recorder.next_retry(),
        ])
    }
}
