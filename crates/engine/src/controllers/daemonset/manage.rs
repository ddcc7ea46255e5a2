//! The DaemonSet controller's core loop for one node (`podsShouldBeOnNode` in
//! pkg/controller/daemon/daemon_controller.go, with `getUnscheduledPodsWithoutNode`): create
//! the daemon pod a node should run and has not; delete the pods of a node that should not
//! keep them; delete failed daemon pods (`FailedDaemonPod`, with a per-node back-off so the
//! controller does not fight a kubelet that keeps rejecting the pod) and succeeded ones; keep
//! one pod per node (two while surging: the oldest new one until it is available, then the
//! old one goes).

use std::collections::BTreeMap;

use super::class::Shape;
use super::state::{sort_pods, NodeFacts};
use crate::api::pod::Pod;
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::controllers::podutil::{is_pod_available, is_pod_ready};

/// `FailedDaemonPodReason`, `SucceededDaemonPodReason`.
pub const FAILED_DAEMON_POD: &str = "FailedDaemonPod";
pub const SUCCEEDED_DAEMON_POD: &str = "SucceededDaemonPod";

/// The failed-pods back-off (`flowcontrol.NewBackOff(1s, 15min)`): 1 s, doubling to 15 min; an
/// entry untouched for twice the maximum starts over.
pub const BACKOFF_INITIAL_MS: u64 = 1_000;
pub const BACKOFF_MAX_MS: u64 = 15 * 60_000;

/// `failedPodsBackoff`, keyed by `failedPodsBackoffKey` (`<ds uid>/<generation>/<node>`; here
/// the uid and the node).
#[derive(Debug, Default)]
pub struct FailedPodsBackoff {
    entries: BTreeMap<(String, String), (u64, Timestamp)>,
}

impl FailedPodsBackoff {
    fn live(&self, key: &(String, String), now: Timestamp) -> Option<(u64, Timestamp)> {
        let (delay, last) = *self.entries.get(key)?;
        (now.millis_since(last) <= 2 * BACKOFF_MAX_MS).then_some((delay, last))
    }

    /// `IsInBackOffSinceUpdate`: the delay still to wait, if any.
    fn remaining(&self, key: &(String, String), now: Timestamp) -> Option<u64> {
        let (delay, last) = self.live(key, now)?;
        let waited = now.millis_since(last);
        (waited < delay).then(|| delay - waited)
    }

    /// `Next`: the first delay, or the last one doubled.
    fn next(&mut self, key: (String, String), now: Timestamp) {
        let delay = match self.live(&key, now) {
            Some((d, _)) => (2 * d).min(BACKOFF_MAX_MS),
            None => BACKOFF_INITIAL_MS,
        };
        self.entries.insert(key, (delay, now));
    }

    /// The DaemonSet is gone: its entries go too.
    pub fn forget(&mut self, uid: &str) {
        self.entries.retain(|(u, _), _| u != uid);
    }
}

/// What the core loop wants on one node.
#[derive(Debug, Default)]
pub struct NodePlan {
    pub create: bool,
    pub delete: Vec<String>,
    pub events: Vec<(EventType, &'static str, String)>,
    /// A failed pod waits out its back-off: look again after this long.
    pub retry_after_ms: Option<u64>,
}

/// Who the plan is for.
pub struct Target<'a> {
    pub uid: &'a str,
    pub namespace: &'a str,
    pub node: &'a str,
}

/// `podsShouldBeOnNode` (or, for a node that no longer exists, its unbound pods to delete).
pub fn plan_node(
    t: &Target,
    facts: &NodeFacts,
    pods: &[&Pod],
    shape: &Shape,
    now: Timestamp,
    backoff: &mut FailedPodsBackoff,
) -> NodePlan {
    let mut plan = NodePlan::default();
    let live = || {
        pods.iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
    };
    if !facts.exists {
        let unbound = live().filter(|p| p.spec.node_name.is_empty());
        plan.delete = unbound.map(|p| p.metadata.name.clone()).collect();
        return plan;
    }
    if facts.should_run && pods.is_empty() {
        plan.create = true;
    } else if facts.should_continue {
        let running = finished_pods(t, pods, now, backoff, &mut plan);
        prune(facts, running, shape, now, &mut plan);
    } else {
        plan.delete = live().map(|p| p.metadata.name.clone()).collect();
    }
    plan
}

/// Failed pods are deleted (outside their back-off) with a `FailedDaemonPod` warning,
/// succeeded ones with a `SucceededDaemonPod` event; the running ones are returned.
fn finished_pods<'a>(
    t: &Target,
    pods: &[&'a Pod],
    now: Timestamp,
    backoff: &mut FailedPodsBackoff,
    plan: &mut NodePlan,
) -> Vec<&'a Pod> {
    let mut running = Vec::new();
    for p in pods
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
    {
        let name = &p.metadata.name;
        let (ns, node) = (t.namespace, t.node);
        match &*p.status.phase {
            "Failed" => {
                let key = (t.uid.to_string(), node.to_string());
                if let Some(wait) = backoff.remaining(&key, now) {
                    plan.retry_after_ms = Some(plan.retry_after_ms.map_or(wait, |r| r.min(wait)));
                    continue;
                }
                backoff.next(key, now);
                let msg = format!(
                    "Found failed daemon pod {ns}/{name} on node {node}, will try to kill it"
                );
                plan.events
                    .push((EventType::Warning, FAILED_DAEMON_POD, msg));
                plan.delete.push(name.clone());
            }
            "Succeeded" => {
                let msg = format!(
                    "Found succeeded daemon pod {ns}/{name} on node {node}, will try to delete it"
                );
                plan.events
                    .push((EventType::Normal, SUCCEEDED_DAEMON_POD, msg));
                plan.delete.push(name.clone());
            }
            _ => running.push(*p),
        }
    }
    running
}

/// One running pod per node: without surge all but the oldest go; with surge the oldest new
/// pod stays, and beside it the oldest old one until the new one is available (or while the
/// old one is ready and the new one is not).
fn prune(
    facts: &NodeFacts,
    mut running: Vec<&Pod>,
    shape: &Shape,
    now: Timestamp,
    plan: &mut NodePlan,
) {
    sort_pods(&mut running);
    if !shape.surge {
        let surplus = running.iter().skip(1);
        plan.delete.extend(surplus.map(|p| p.metadata.name.clone()));
        return;
    }
    if running.len() <= 1 {
        plan.create |= running.is_empty() && facts.should_run;
        return;
    }
    let (mut oldest_new, mut oldest_old) = (None, None);
    for p in running {
        let slot = match shape.is_updated(p) {
            true => &mut oldest_new,
            false => &mut oldest_old,
        };
        match slot {
            None => *slot = Some(p),
            Some(_) => plan.delete.push(p.metadata.name.clone()),
        }
    }
    if let (Some(new), Some(old)) = (oldest_new, oldest_old) {
        if !is_pod_ready(old) || is_pod_available(new, shape.min_ready_seconds, now) {
            plan.delete.push(old.metadata.name.clone());
        }
    }
}
