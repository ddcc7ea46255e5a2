//! The Job controller (user agent and event source `job-controller`,
//! pkg/controller/job/job_controller.go, v1.32): runs a Job's pods until enough of them
//! succeed, or gives up, and keeps the Job's status — the counts, the conditions, the
//! completed indexes — as the real controller writes it.
//!
//! Its event handlers (`addPod`, `updatePod`, `deletePod`, `addJob`, `updateJob`, `deleteJob`)
//! map notifications to keys: a Job's own change syncs it at once, a pod's change syncs the pod's
//! Job after the one-second batch period (`syncJobBatchPeriod`), and a pod still holding the
//! `batch.kubernetes.io/job-tracking` finalizer with no Job left to count it goes to the orphan
//! work (`syncOrphanPod`), which removes the finalizer. A pod notification is looked at only if
//! the pod is controlled by a Job, carries the finalizer, or is an orphan while Jobs exist, so
//! with no Job in the cluster the controller costs a check per pod notification.
//!
//! The sync (`syncJob`, [`sync`]) claims the pods ([`claim`]), decides the finish
//! ([`sync`]), manages the pods ([`manage`]: creations in slow-start batches with
//! expectations, deletions, the failure back-off of [`backoff`]) and writes the status with the
//! finalizer protocol of [`tracking`] (`trackJobStatusAndRemoveFinalizers`).

mod backoff;
mod claim;
pub mod indexes;
mod manage;
mod pod_failure_policy;
mod sync;
mod tracking;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::events::EventRecorder;
use super::replicaset::{Expectations, EXPECTATIONS_TIMEOUT_MS};
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::batch::{Job, JOB_TRACKING_FINALIZER};
use crate::api::meta::OwnerReference;
use crate::api::pod::Pod;
use crate::api::{Kind, Object};
use crate::apiserver::patch::{PatchTarget, PatchType};
use crate::apiserver::ApiServer;
use crate::client::store::NAMESPACE_INDEX;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::status::Status;

pub use backoff::{
    BackoffRecord, DEFAULT_JOB_POD_FAILURE_BACKOFF_MS, MAX_JOB_POD_FAILURE_BACKOFF_MS,
};

pub const USER_AGENT: &str = "job-controller";
/// `syncJobBatchPeriod`: a pod's change syncs its Job this much later, so a burst of pod
/// updates makes one sync.
pub const SYNC_JOB_BATCH_PERIOD_MS: u64 = 1_000;
/// `MaxUncountedPods`: at most this many pods in `status.uncountedTerminatedPods` per sync.
pub const MAX_UNCOUNTED_PODS: usize = 500;
/// `MaxPodCreateDeletePerSync`.
pub const MAX_POD_CREATE_DELETE_PER_SYNC: usize = 500;
/// `batch.JobControllerName`: the `spec.managedBy` that names this controller.
pub const JOB_CONTROLLER_NAME: &str = "kubernetes.io/job-controller";

/// What the controller's work queue holds: a Job to sync, or a pod whose tracking finalizer
/// may have to go (upstream's second queue, `orphanQueue`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum JobQueueKey {
    Job(ObjectKey),
    OrphanPod(ObjectKey),
}

/// The Job controller.
pub struct JobController {
    jobs: SharedInformer,
    /// kube-controller-manager's shared pod informer (its controller-uid index).
    pods: SharedInformer,
    /// Creates and deletes still to be observed, per Job (`ControllerExpectations`).
    expectations: BTreeMap<ObjectKey, Expectations>,
    /// The pods whose finalizer removal is still to be observed, per Job
    /// (`uidTrackingExpectations`).
    finalizer_expectations: BTreeMap<ObjectKey, BTreeSet<String>>,
    /// Failures since the last success, per Job (`backoffStore`).
    backoff: BTreeMap<ObjectKey, BackoffRecord>,
    recorder: EventRecorder,
}

/// Whether the pod still carries `batch.kubernetes.io/job-tracking` (`hasJobTrackingFinalizer`).
pub fn has_tracking_finalizer(pod: &Pod) -> bool {
    pod.metadata
        .finalizers
        .iter()
        .any(|f| f == JOB_TRACKING_FINALIZER)
}

/// `managedByExternalController`: a `spec.managedBy` other than this controller's.
fn managed_by_external(job: &Job) -> bool {
    job.spec
        .managed_by
        .as_deref()
        .is_some_and(|m| m != JOB_CONTROLLER_NAME)
}

/// `removeTrackingFinalizerPatch` applied: a strategic merge patch deleting the finalizer.
fn remove_tracking_finalizer(api: &mut ApiServer, pod: &Pod) -> Result<(), Status> {
    let patch = serde_json::json!({"metadata": {
        "$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER]}});
    let target = PatchTarget {
        kind: Kind::Pod,
        namespace: Some(&pod.metadata.namespace),
        name: &pod.metadata.name,
        status: false,
    };
    api.patch(USER_AGENT, target, &patch, PatchType::StrategicMerge)
        .map(|_| ())
}

impl JobController {
    pub fn new(informers: &SharedInformers) -> Self {
        JobController {
            jobs: informers.reader(Kind::Job),
            pods: informers.reader(Kind::Pod),
            expectations: BTreeMap::new(),
            finalizer_expectations: BTreeMap::new(),
            backoff: BTreeMap::new(),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
        }
    }

    /// The creates and deletes a Job still expects to observe (for the UI and tests).
    pub fn expectations(&self, namespace: &str, name: &str) -> Option<Expectations> {
        self.expectations
            .get(&ObjectKey::new(Some(namespace), name))
            .copied()
    }

    /// `resolveControllerRef`: the Job a controller reference names, if it is a Job here with
    /// that uid.
    fn resolve(&self, namespace: &str, r: &OwnerReference) -> Option<Arc<Object>> {
        if r.kind != "Job" {
            return None;
        }
        let job = self
            .jobs
            .store()
            .get(&ObjectKey::new(Some(namespace), &r.name))?;
        (job.meta().uid == r.uid).then_some(job)
    }

    /// `getPodJobs`: the Jobs of the pod's namespace whose (non-empty) selector matches it.
    fn pod_jobs(&self, pod: &Pod) -> Vec<ObjectKey> {
        let store = self.jobs.store();
        if store.is_empty() {
            return Vec::new();
        }
        let ns = pod.metadata.namespace.as_str();
        store
            .by_index(NAMESPACE_INDEX, ns)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_job())
            .filter(|j| {
                let sel = j.spec.selector.as_ref();
                let empty =
                    sel.is_none_or(|s| s.match_labels.is_empty() && s.match_expressions.is_empty());
                !empty
                    && sel
                        .and_then(|s| s.to_selector().ok())
                        .is_some_and(|s| s.matches(&pod.metadata.labels))
            })
            .map(|j| ObjectKey::new(Some(ns), &j.metadata.name))
            .collect()
    }

    /// `addJob`, `updateJob`, `deleteJob`.
    fn on_job(
        &self,
        now: Timestamp,
        note: &Notification<Arc<Object>>,
        q: &mut WorkQueue<JobQueueKey>,
    ) {
        let key = JobQueueKey::Job(note.key());
        match note {
            Notification::Add(_) => q.add(key),
            Notification::Update { old, new } => {
                let (Some(old), Some(new)) = (old.as_job(), new.as_job()) else {
                    return;
                };
                // A status write (no new generation) is batched like a pod's change.
                if new.metadata.generation == old.metadata.generation {
                    q.add_after(key.clone(), SYNC_JOB_BATCH_PERIOD_MS, now);
                } else {
                    q.add(key.clone());
                }
                if new.is_finished() {
                    self.cleanup_pod_finalizers(new, q);
                }
                // A changed activeDeadlineSeconds: look again when it is reached.
                if let (Some(start), Some(ads)) =
                    (new.status.start_time, new.spec.active_deadline_seconds)
                {
                    if old.spec.active_deadline_seconds != Some(ads) {
                        let total_ms = (ads.max(0) as u64).saturating_mul(1000);
                        q.add_after(key, total_ms.saturating_sub(now.millis_since(start)), now);
                    }
                }
            }
            Notification::Delete(d) => {
                q.add(key);
                if let Some(job) = d.object().as_job() {
                    self.cleanup_pod_finalizers(job, q);
                }
            }
        }
    }

    /// `cleanupPodFinalizers`: the Job's pods still holding the finalizer go to the orphan work.
    fn cleanup_pod_finalizers(&self, job: &Job, q: &mut WorkQueue<JobQueueKey>) {
        let pods = self
            .pods
            .store()
            .by_index(super::adapter::POD_CONTROLLER_UID_INDEX, &job.metadata.uid)
            .unwrap_or_default();
        for o in pods {
            if o.as_pod().is_some_and(has_tracking_finalizer) {
                q.add(JobQueueKey::OrphanPod(ObjectKey::of(&o)));
            }
        }
    }

    /// A pod notification, passed by at once unless a Job may care.
    fn on_pod(
        &mut self,
        now: Timestamp,
        note: &Notification<Arc<Object>>,
        q: &mut WorkQueue<JobQueueKey>,
    ) {
        match note {
            Notification::Add(o) => {
                if let Some(p) = o.as_pod().filter(|p| self.may_care(p)) {
                    self.add_pod(now, p, q);
                }
            }
            Notification::Update { old, new } => {
                let (Some(old), Some(new)) = (old.as_pod(), new.as_pod()) else {
                    return;
                };
                if self.may_care(old) || self.may_care(new) {
                    self.update_pod(now, old, new, q);
                }
            }
            Notification::Delete(d) => {
                if let Some(p) = d.object().as_pod().filter(|p| self.may_care(p)) {
                    self.delete_pod(now, p, true, q);
                }
            }
        }
    }

    /// Whether a Job may care about the pod: a Job controls it, it carries the tracking
    /// finalizer, or it is an orphan while Jobs exist (one may adopt it).
    fn may_care(&self, pod: &Pod) -> bool {
        match pod.metadata.controller_ref() {
            Some(r) => r.kind == "Job" || has_tracking_finalizer(pod),
            None => has_tracking_finalizer(pod) || !self.jobs.store().is_empty(),
        }
    }

    /// `addPod`.
    fn add_pod(&mut self, now: Timestamp, pod: &Pod, q: &mut WorkQueue<JobQueueKey>) {
        if pod.metadata.deletion_timestamp.is_some() {
            // A pod already being deleted is not a creation observed.
            self.delete_pod(now, pod, false, q);
            return;
        }
        let ns = pod.metadata.namespace.as_str();
        if let Some(r) = pod.metadata.controller_ref() {
            if let Some(job) = self.resolve(ns, r) {
                let key = ObjectKey::of(&job);
                self.observe(&key, 1, 0);
                q.add_after(JobQueueKey::Job(key), SYNC_JOB_BATCH_PERIOD_MS, now);
            }
            return;
        }
        if has_tracking_finalizer(pod) {
            q.add(JobQueueKey::OrphanPod(ObjectKey::new(
                Some(ns),
                &pod.metadata.name,
            )));
        }
        for key in self.pod_jobs(pod) {
            q.add_after(JobQueueKey::Job(key), SYNC_JOB_BATCH_PERIOD_MS, now);
        }
    }

    /// `updatePod`.
    fn update_pod(&mut self, now: Timestamp, old: &Pod, new: &Pod, q: &mut WorkQueue<JobQueueKey>) {
        if new.metadata.resource_version == old.metadata.resource_version {
            return;
        }
        if new.metadata.deletion_timestamp.is_some() {
            self.delete_pod(now, new, false, q);
            return;
        }
        let ns = new.metadata.namespace.as_str();
        let removed = !has_tracking_finalizer(new);
        let (cur_ref, old_ref) = (new.metadata.controller_ref(), old.metadata.controller_ref());
        let changed = cur_ref != old_ref;
        let refs = [old_ref.filter(|_| changed), cur_ref];
        for r in refs.into_iter().flatten() {
            let Some(job) = self.resolve(ns, r) else {
                continue;
            };
            let key = ObjectKey::of(&job);
            if removed {
                self.finalizer_removal_observed(&key, &new.metadata.uid);
            }
            q.add_after(JobQueueKey::Job(key), SYNC_JOB_BATCH_PERIOD_MS, now);
        }
        if cur_ref.is_some() {
            return;
        }
        if has_tracking_finalizer(new) {
            q.add(JobQueueKey::OrphanPod(ObjectKey::new(
                Some(ns),
                &new.metadata.name,
            )));
        }
        if changed || new.metadata.labels != old.metadata.labels {
            for key in self.pod_jobs(new) {
                q.add_after(JobQueueKey::Job(key), SYNC_JOB_BATCH_PERIOD_MS, now);
            }
        }
    }

    /// `deletePod`: `last` for the pod's removal from the store, else its deletion begun.
    fn delete_pod(
        &mut self,
        now: Timestamp,
        pod: &Pod,
        last: bool,
        q: &mut WorkQueue<JobQueueKey>,
    ) {
        let ns = pod.metadata.namespace.as_str();
        let orphan_key = || JobQueueKey::OrphanPod(ObjectKey::new(Some(ns), &pod.metadata.name));
        let has_finalizer = has_tracking_finalizer(pod);
        let job = pod
            .metadata
            .controller_ref()
            .and_then(|r| self.resolve(ns, r));
        let Some(job) = job.filter(|j| j.as_job().is_some_and(|j| !j.is_finished())) else {
            // No Job will sync this pod's finalizer away.
            if has_finalizer {
                q.add(orphan_key());
            }
            return;
        };
        let key = ObjectKey::of(&job);
        self.observe(&key, 0, 1);
        if last || !has_finalizer {
            self.finalizer_removal_observed(&key, &pod.metadata.uid);
        }
        q.add_after(JobQueueKey::Job(key), SYNC_JOB_BATCH_PERIOD_MS, now);
    }

    /// `CreationObserved` / `DeletionObserved`.
    fn observe(&mut self, key: &ObjectKey, add: i64, del: i64) {
        if let Some(e) = self.expectations.get_mut(key) {
            e.add -= add;
            e.del -= del;
        }
    }

    /// `ExpectCreations` / `ExpectDeletions`: replaces what was expected.
    fn expect(&mut self, key: &ObjectKey, add: i64, del: i64, now: Timestamp) {
        let e = Expectations {
            add,
            del,
            set_at: now,
        };
        self.expectations.insert(key.clone(), e);
    }

    /// `SatisfiedExpectations`: nothing expected, all observed, or expired.
    fn satisfied(&self, key: &ObjectKey, now: Timestamp) -> bool {
        self.expectations
            .get(key)
            .is_none_or(|e| e.fulfilled() || now.millis_since(e.set_at) > EXPECTATIONS_TIMEOUT_MS)
    }

    /// `finalizerRemovalObserved`.
    fn finalizer_removal_observed(&mut self, key: &ObjectKey, uid: &str) {
        if let Some(uids) = self.finalizer_expectations.get_mut(key) {
            uids.remove(uid);
            if uids.is_empty() {
                self.finalizer_expectations.remove(key);
            }
        }
    }

    /// `syncOrphanPod`: removes the tracking finalizer from a pod no unfinished Job of this
    /// controller controls.
    fn sync_orphan_pod(&mut self, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(obj) = self.pods.store().get(key) else {
            return Ok(Action::Done);
        };
        let Some(pod) = obj.as_pod() else {
            return Ok(Action::Done);
        };
        if let Some(r) = pod.metadata.controller_ref() {
            if r.kind != "Job" || r.api_version != "batch/v1" {
                return Ok(Action::Done);
            }
            let job = self.resolve(&pod.metadata.namespace, r);
            if let Some(job) = job.as_ref().and_then(|j| j.as_job()) {
                if managed_by_external(job) || !job.is_finished() {
                    return Ok(Action::Done);
                }
            }
        }
        if !has_tracking_finalizer(pod) {
            return Ok(Action::Done);
        }
        match remove_tracking_finalizer(api, pod) {
            Err(s) if s.code() != 404 => Err(Requeue),
            _ => Ok(Action::Done),
        }
    }
}

impl Reconciler for JobController {
    type Key = JobQueueKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.jobs).into(), (&self.pods).into()]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<JobQueueKey>) {
        self.recorder.flush(api, now);
        for note in self.jobs.step(now, api) {
            self.on_job(now, &note, queue);
        }
        for note in self.pods.step(now, api) {
            self.on_pod(now, &note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.jobs.has_synced() && self.pods.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &JobQueueKey) -> Reconciled {
        match key {
            JobQueueKey::Job(key) => self.sync_job(now, api, key),
            JobQueueKey::OrphanPod(key) => self.sync_orphan_pod(api, key),
        }
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.jobs.next_wakeup(),
            self.pods.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
