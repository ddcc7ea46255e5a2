//! The disruption controller (user agent `disruption-controller`, kube-controller-manager's
//! `pkg/controller/disruption/disruption.go`): keeps every PodDisruptionBudget's status — how
//! many of the pods it selects are expected, how many must stay healthy, how many are, and so
//! how many voluntary disruptions the eviction subresource may allow now.
//!
//! A budget is synced when it changes and whenever a pod it selects does (`addPod`,
//! `updatePod`, `deletePod` queue the budgets of the pod's namespace whose selector matches
//! it). The sync (`trySync`):
//! - the pods: the budget's namespace, its selector (`nil` selects none, `{}` every pod);
//! - expected and desired (`getExpectedPodCount`): an integer `minAvailable` is the desired
//!   count and the expected one is the pods found; a percentage, or any `maxUnavailable`, is
//!   scaled on the sum of the replicas of the pods' controllers (a Deployment's through its
//!   ReplicaSet, else the ReplicaSet's own, a StatefulSet's own), pods without a controller
//!   left out with an `UnmanagedPods` warning; a pod whose controller cannot be found fails the
//!   sync (`failSafe`: no disruption allowed, condition reason `SyncFailed`);
//! - `disruptedPods`: the evictions approved in the last 2 minutes (`DeletionTimeout`) of pods
//!   not yet terminating; such pods do not count as healthy, and the budget is looked at again
//!   when the oldest entry expires;
//! - healthy pods: Ready and not terminating; `disruptionsAllowed = healthy - desired` (never
//!   below 0, and 0 while no pod is expected), with the `DisruptionAllowed` condition.
//!
//! With no budget in the cluster the controller only files pod notifications away: a
//! namespace lookup in its budget cache per notification, nothing written.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::events::{EventRecorder, EventType};
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::pod::{is_pod_ready, Pod};
use crate::api::policy::PodDisruptionBudget;
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::store::NAMESPACE_INDEX;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::labels::LabelSelector;

pub const USER_AGENT: &str = "disruption-controller";

/// `DeletionTimeout`: how long an approved eviction keeps its pod out of the healthy count
/// while the pod is not seen terminating (2 minutes).
pub const DELETION_TIMEOUT_MS: u64 = 2 * 60 * 1000;

/// `policy.SyncFailedReason`.
const SYNC_FAILED: &str = "SyncFailed";

/// The disruption controller.
pub struct DisruptionController {
    budgets: SharedInformer,
    pods: SharedInformer,
    /// Read only to find the pods' controllers' scale.
    replicasets: SharedInformer,
    deployments: SharedInformer,
    statefulsets: SharedInformer,
    recorder: EventRecorder,
}

/// What the sync counted.
struct Counts {
    expected: i32,
    desired: i32,
    unmanaged: Vec<String>,
}

/// A budget's selector as a label selector: `None` selects nothing.
fn selector_of(pdb: &PodDisruptionBudget) -> Option<LabelSelector> {
    pdb.spec.selector.as_ref()?.to_selector().ok()
}

impl DisruptionController {
    pub fn new(informers: &SharedInformers) -> Self {
        DisruptionController {
            budgets: informers.reader(Kind::PodDisruptionBudget),
            pods: informers.reader(Kind::Pod),
            replicasets: informers.cache_reader(Kind::ReplicaSet),
            deployments: informers.cache_reader(Kind::Deployment),
            statefulsets: informers.cache_reader(Kind::StatefulSet),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
        }
    }

    /// The budgets of `pod`'s namespace selecting it.
    fn budgets_of(&self, pod: &Pod) -> Vec<ObjectKey> {
        let ns = pod.metadata.namespace.as_str();
        self.budgets
            .store()
            .by_index(NAMESPACE_INDEX, ns)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_pod_disruption_budget())
            .filter(|b| selector_of(b).is_some_and(|s| s.matches(&pod.metadata.labels)))
            .map(|b| ObjectKey::new(Some(ns), &b.metadata.name))
            .collect()
    }

    /// `addPod` / `updatePod` / `deletePod`: the budgets of the pod before and after.
    fn on_pod(&self, note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let mut keys = BTreeSet::new();
        let (old, new) = match note {
            Notification::Add(o) => (None, Some(o)),
            Notification::Update { old, new } => (Some(old), Some(new)),
            Notification::Delete(d) => (Some(d.object()), None),
        };
        for pod in [old, new].into_iter().flatten().filter_map(|o| o.as_pod()) {
            keys.extend(self.budgets_of(pod));
        }
        for key in keys {
            queue.add(key);
        }
    }

    /// The pods `pdb` selects (`getPodsForPdb`).
    fn pods_of(&self, pdb: &PodDisruptionBudget) -> Vec<Arc<Object>> {
        let Some(sel) = selector_of(pdb) else {
            return Vec::new();
        };
        let mut pods = self
            .pods
            .store()
            .by_index(NAMESPACE_INDEX, &pdb.metadata.namespace)
            .unwrap_or_default();
        pods.retain(|o| sel.matches(&o.meta().labels));
        pods
    }

    /// The replicas of the pod's controller, keyed by its uid (`finders`: a Deployment
    /// through the pod's ReplicaSet, else the ReplicaSet itself, `getPodStatefulSet`: a
    /// StatefulSet's own); `None` when not found.
    fn controller_scale(&self, pod: &Pod) -> Option<(String, i32)> {
        let r = pod.metadata.controller_ref()?;
        let ns = Some(pod.metadata.namespace.as_str());
        if r.kind == "StatefulSet" {
            let obj = self.statefulsets.store().get_by_name(ns, &r.name)?;
            let sts = obj.as_stateful_set().filter(|s| s.metadata.uid == r.uid)?;
            return Some((r.uid.clone(), sts.spec.replicas.unwrap_or(1)));
        }
        if r.kind != "ReplicaSet" {
            return None;
        }
        let rs_obj = self.replicasets.store().get(&ObjectKey::new(ns, &r.name))?;
        let rs = rs_obj
            .as_replica_set()
            .filter(|rs| rs.metadata.uid == r.uid)?;
        if let Some(d) = rs
            .metadata
            .controller_ref()
            .filter(|d| d.kind == "Deployment")
        {
            let d_obj = self.deployments.store().get(&ObjectKey::new(ns, &d.name))?;
            let dep = d_obj
                .as_deployment()
                .filter(|dep| dep.metadata.uid == d.uid)?;
            return Some((d.uid.clone(), dep.spec.replicas.unwrap_or(1)));
        }
        Some((rs.metadata.uid.clone(), rs.spec.replicas.unwrap_or(1)))
    }

    /// `getExpectedScale`: the sum of the pods' controllers' replicas.
    fn expected_scale(&self, pods: &[Arc<Object>]) -> Result<(i32, Vec<String>), String> {
        let mut scales: BTreeMap<String, i32> = BTreeMap::new();
        let mut unmanaged = Vec::new();
        for pod in pods.iter().filter_map(|o| o.as_pod()) {
            let Some(r) = pod.metadata.controller_ref() else {
                unmanaged.push(pod.metadata.name.clone());
                continue;
            };
            if scales.contains_key(&r.uid) {
                continue;
            }
            let Some((uid, scale)) = self.controller_scale(pod) else {
                return Err(format!(
                    "found no controllers for pod \"{}\"",
                    pod.metadata.name
                ));
            };
            scales.insert(uid, scale);
        }
        Ok((scales.values().sum(), unmanaged))
    }

    /// `getExpectedPodCount`.
    fn counts(&self, pdb: &PodDisruptionBudget, pods: &[Arc<Object>]) -> Result<Counts, String> {
        let mut c = Counts {
            expected: 0,
            desired: 0,
            unmanaged: Vec::new(),
        };
        if let Some(max) = &pdb.spec.max_unavailable {
            (c.expected, c.unmanaged) = self.expected_scale(pods)?;
            let max = max.scaled_value(c.expected, true)?;
            c.desired = (c.expected - max).max(0);
        } else if let Some(min) = &pdb.spec.min_available {
            if let crate::api::intstr::IntOrString::Int(n) = min {
                c.desired = *n;
                c.expected = pods.len() as i32;
            } else {
                (c.expected, c.unmanaged) = self.expected_scale(pods)?;
                c.desired = min.scaled_value(c.expected, true)?;
            }
        }
        Ok(c)
    }

    /// `trySync` (Err: the sync failed, with the reason `failSafe` records), then
    /// `updatePdbStatus`. `Ok` holds when to look again, if an approved eviction is pending.
    fn sync(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        pdb: &PodDisruptionBudget,
    ) -> Result<Option<Timestamp>, Requeue> {
        let pods = self.pods_of(pdb);
        if pods.is_empty() {
            let msg = "No matching pods found";
            self.recorder
                .record(api, now, obj, EventType::Normal, "NoPods", msg);
        }
        let counts = match self.counts(pdb, &pods) {
            Ok(c) => c,
            Err(e) => {
                let msg = format!("Failed to calculate the number of expected pods: {e}");
                let reason = "CalculateExpectedPodCountFailed";
                self.recorder
                    .record(api, now, obj, EventType::Warning, reason, &msg);
                return self.fail_safe(now, api, pdb, &e).map(|()| None);
            }
        };
        if !counts.unmanaged.is_empty() {
            let selector = pdb
                .spec
                .selector
                .as_ref()
                .map_or_else(|| "nil".to_string(), |s| format!("&{}", s.go_syntax()));
            let msg = format!(
                "Pods selected by this PodDisruptionBudget (selector: {selector}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
            );
            self.recorder
                .record(api, now, obj, EventType::Warning, "UnmanagedPods", &msg);
        }
        let (disrupted, recheck) = self.disrupted_pods(api, now, pdb, &pods);
        let healthy = pods
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| !disrupted.contains_key(&p.metadata.name))
            .filter(|p| is_pod_ready(p))
            .count() as i32;
        self.update_status(now, api, pdb, healthy, &counts, disrupted)?;
        Ok(recheck)
    }

    /// `buildDisruptedPodMap`: the approved evictions still pending (their pod here, not
    /// terminating, approved less than 2 minutes ago), and when the oldest expires; an expired
    /// one gets a `NotDeleted` warning on its pod.
    fn disrupted_pods(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        pdb: &PodDisruptionBudget,
        pods: &[Arc<Object>],
    ) -> (BTreeMap<String, Timestamp>, Option<Timestamp>) {
        let mut kept = BTreeMap::new();
        let mut recheck: Option<Timestamp> = None;
        if pdb.status.disrupted_pods.is_empty() {
            return (kept, recheck);
        }
        for obj in pods {
            let Some(pod) = obj.as_pod() else { continue };
            if pod.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let Some(at) = pdb.status.disrupted_pods.get(&pod.metadata.name) else {
                continue;
            };
            let expected = at.plus_millis(DELETION_TIMEOUT_MS);
            if expected < now {
                // The real message names the budget's namespace twice (upstream's typo).
                let ns = &pdb.metadata.namespace;
                let msg = format!("Pod was expected by PDB {ns}/{ns} to be deleted but it wasn't");
                self.recorder
                    .record(api, now, obj, EventType::Warning, "NotDeleted", &msg);
            } else {
                recheck = Some(recheck.map_or(expected, |r| r.min(expected)));
                kept.insert(pod.metadata.name.clone(), *at);
            }
        }
        (kept, recheck)
    }

    /// `updatePdbStatus`: writes the status when anything in it changed.
    fn update_status(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        pdb: &PodDisruptionBudget,
        healthy: i32,
        counts: &Counts,
        disrupted: BTreeMap<String, Timestamp>,
    ) -> Result<(), Requeue> {
        let allowed = if counts.expected <= 0 {
            0
        } else {
            (healthy - counts.desired).max(0)
        };
        let generation = pdb.metadata.generation.unwrap_or(0);
        let s = &pdb.status;
        if s.current_healthy == healthy
            && s.desired_healthy == counts.desired
            && s.expected_pods == counts.expected
            && s.disruptions_allowed == allowed
            && s.disrupted_pods == disrupted
            && s.observed_generation == generation
            && pdb.conditions_are_up_to_date()
        {
            return Ok(());
        }
        let mut new = pdb.clone();
        new.status.current_healthy = healthy;
        new.status.desired_healthy = counts.desired;
        new.status.expected_pods = counts.expected;
        new.status.disruptions_allowed = allowed;
        new.status.disrupted_pods = disrupted;
        new.status.observed_generation = generation;
        new.update_disruption_allowed_condition(now);
        api.update_status(USER_AGENT, Object::from(new))
            .map(|_| ())
            .map_err(|_| Requeue)
    }

    /// `failSafe`: no disruption allowed, the condition saying why.
    fn fail_safe(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        pdb: &PodDisruptionBudget,
        err: &str,
    ) -> Result<(), Requeue> {
        let mut new = pdb.clone();
        new.status.disruptions_allowed = 0;
        new.set_disruption_allowed("False", SYNC_FAILED, err, now);
        api.update_status(USER_AGENT, Object::from(new))
            .map(|_| ())
            .map_err(|_| Requeue)
    }
}

impl Reconciler for DisruptionController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![
            (&self.budgets).into(),
            (&self.pods).into(),
            (&self.replicasets).into(),
            (&self.deployments).into(),
            (&self.statefulsets).into(),
        ]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.budgets.step(now, api) {
            queue.add(note.key());
        }
        let _ = self.replicasets.step(now, api);
        let _ = self.deployments.step(now, api);
        let _ = self.statefulsets.step(now, api);
        let notes = self.pods.step(now, api);
        if self.budgets.store().is_empty() {
            return;
        }
        for note in &notes {
            self.on_pod(note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.budgets.has_synced()
            && self.pods.has_synced()
            && self.replicasets.has_synced()
            && self.deployments.has_synced()
            && self.statefulsets.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(obj) = self.budgets.store().get(key) else {
            return Ok(Action::Done);
        };
        let Some(pdb) = obj.as_pod_disruption_budget().cloned() else {
            return Ok(Action::Done);
        };
        match self.sync(now, api, &obj, &pdb)? {
            Some(at) => Ok(Action::RequeueAfter(at.millis_since(now).max(1))),
            None => Ok(Action::Done),
        }
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.budgets.next_wakeup(),
            self.pods.next_wakeup(),
            self.replicasets.next_wakeup(),
            self.deployments.next_wakeup(),
            self.statefulsets.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
