//! The ReplicaSet controller (user agent `replicaset-controller`): keeps `spec.replicas` active
//! pods matching the selector. It adopts matching orphans (ownerReference controller=true,
//! blockOwnerDeletion=true), creates missing pods as `<rs>-<5 chars>` in slow-start batches
//! (1, 2, 4, ...), deletes surplus pods preferring unscheduled, pending, not-ready and newest
//! ones, and writes status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
//! observedGeneration). Like client-go's `ControllerExpectations`, after issuing creates or
//! deletes it waits until the watch has shown them all before deciding again, so a lagging
//! cache never makes it create twice. Pods being deleted do not count. A sync reads its pods
//! through the pod cache's controller-uid index (its own pods plus its namespace's orphans), and
//! the work queue coalesces a burst of pod updates into one sync. Its status counts come from a
//! [`PodTally`] per ReplicaSet kept current from the pod notifications, so a sync costs what
//! changed, not a visit to every pod it owns.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::adapter::{orphan_pod_index_key, POD_CONTROLLER_UID_INDEX};
use super::events::{EventRecorder, EventType};
use super::pod_tally::{Counts, PodTally, Shape};
use super::podutil::{self, is_pod_ready};
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::apps::ReplicaSet;
use crate::api::meta::{OwnerReference, OwnerReferences};
use crate::api::pod::Pod;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::store::NAMESPACE_INDEX;
use crate::client::{Notification, ObjectKey, Store, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::sort;

pub const USER_AGENT: &str = "replicaset-controller";
/// client-go `ExpectationsTimeout`: expectations older than this are considered satisfied.
pub const EXPECTATIONS_TIMEOUT_MS: u64 = 5 * 60_000;
/// `BurstReplicas`: at most this many creates/deletes per sync.
pub const BURST_REPLICAS: i32 = 500;
/// `SlowStartInitialBatchSize`.
pub const SLOW_START_INITIAL_BATCH_SIZE: i32 = 1;

/// Creates and deletes still to be observed for one owner (`ControlleeExpectations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expectations {
    pub add: i64,
    pub del: i64,
    pub set_at: Timestamp,
}

impl Expectations {
    pub fn fulfilled(&self) -> bool {
        self.add <= 0 && self.del <= 0
    }
}

/// The ReplicaSet controller.
pub struct ReplicaSetController {
    replicasets: SharedInformer,
    /// kube-controller-manager's shared pod informer.
    pods: SharedInformer,
    expectations: BTreeMap<ObjectKey, Expectations>,
    /// The pods under each ReplicaSet uid that has synced, counted (see [`PodTally`]).
    tallies: BTreeMap<String, PodTally>,
    recorder: EventRecorder,
    /// The sync whose creates a step stopped between ([`Burst`]).
    burst: Option<Burst>,
}

/// A sync between its decision and its status write, with the pods it still has to create in
/// slow-start batches (1, 2, 4, ..., `slowStartBatch`). A step can stop between two creates —
/// 500 of them are a long task in a tab at 150,000 pods — and go on from here, making the
/// same writes as an uncut step.
struct Burst {
    key: ObjectKey,
    replica_set: Arc<Object>,
    counts: Counts,
    /// A patch or delete of this sync failed, or a create did: it is requeued with backoff.
    failed: bool,
    /// What every pod of the burst shares.
    stamp: Stamp,
    /// Creates not made yet, the current batch's included.
    remaining: i32,
    /// The current batch: its size, and the creates made and failed in it so far.
    batch: i32,
    made: i32,
    errors: i32,
}

/// The metadata every pod of a burst holds one of: the owner reference and `generateName`.
struct Stamp {
    owners: OwnerReferences,
    generate_name: Arc<str>,
}

fn selector_of(rs: &ReplicaSet) -> Option<LabelSelector> {
    rs.spec.selector.as_ref()?.to_selector().ok()
}

/// `metav1.NewControllerRef` for an owner of `kind` in `apps/v1`.
pub fn controller_ref(kind: &str, meta: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: kind.into(),
        name: meta.name.clone(),
        uid: meta.uid.clone(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

impl ReplicaSetController {
    pub fn new(informers: &SharedInformers) -> Self {
        ReplicaSetController {
            replicasets: informers.reader(Kind::ReplicaSet),
            pods: informers.reader(Kind::Pod),
            expectations: BTreeMap::new(),
            tallies: BTreeMap::new(),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
            burst: None,
        }
    }

    /// The expectations recorded for a ReplicaSet (for the UI and tests).
    pub fn expectations(&self, namespace: &str, name: &str) -> Option<Expectations> {
        self.expectations
            .get(&ObjectKey::new(Some(namespace), name))
            .copied()
    }

    /// The ReplicaSet owning `pod`, or every one whose selector matches an orphan.
    fn owners_of(&self, pod: &Pod) -> Vec<ObjectKey> {
        let ns = pod.metadata.namespace.as_str();
        if let Some(r) = pod.metadata.controller_ref() {
            if r.kind != "ReplicaSet" {
                return Vec::new();
            }
            return vec![ObjectKey::new(Some(ns), &r.name)];
        }
        self.replicasets
            .store()
            .by_index(NAMESPACE_INDEX, ns)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_replica_set())
            .filter(|rs| selector_of(rs).is_some_and(|s| s.matches(&pod.metadata.labels)))
            .map(|rs| ObjectKey::new(Some(ns), &rs.metadata.name))
            .collect()
    }

    fn observe(&mut self, key: &ObjectKey, add: i64, del: i64) {
        if let Some(e) = self.expectations.get_mut(key) {
            e.add -= add;
            e.del -= del;
        }
    }

    /// Keeps the tallies equal to the controller-uid index: the pod leaves the tally of the
    /// owner it was filed under and enters that of the owner it is filed under now.
    fn tally(&mut self, note: &Notification<Arc<Object>>) {
        let controller_uid = |o: &Arc<Object>| o.meta().controller_ref().map(|r| r.uid.clone());
        let (old, new) = match note {
            Notification::Add(o) => (None, Some(o)),
            Notification::Update { old, new } => (Some(old), Some(new)),
            Notification::Delete(d) => (Some(d.object()), None),
        };
        let new_uid = new.and_then(controller_uid);
        if let Some(old) = old {
            let old_uid = controller_uid(old);
            if old_uid != new_uid || new.is_none() {
                if let Some(t) = old_uid.and_then(|u| self.tallies.get_mut(&u)) {
                    t.remove(&ObjectKey::of(old));
                }
            }
        }
        if let (Some(new), Some(uid)) = (new, new_uid) {
            if let Some(t) = self.tallies.get_mut(&uid) {
                t.set(new);
            }
        }
    }

    /// A pod's change counts it, observes the expectations, and queues its owners
    /// (`addPod`, `updatePod`, `deletePod`).
    fn on_pod(&mut self, note: Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        self.tally(&note);
        let (pod, created, deleted) = match &note {
            Notification::Add(o) => (o.as_pod(), true, false),
            Notification::Update { new, old } => {
                // A pod entering deletion counts as an observed delete.
                let entering = old.meta().deletion_timestamp.is_none()
                    && new.meta().deletion_timestamp.is_some();
                (new.as_pod(), false, entering)
            }
            Notification::Delete(d) => {
                let p = d.object().as_pod();
                let already = p.is_some_and(|p| p.metadata.deletion_timestamp.is_some());
                (p, false, !already)
            }
        };
        let Some(pod) = pod else { return };
        for owner in self.owners_of(pod) {
            if pod.metadata.controller_ref().is_some() {
                if created {
                    self.observe(&owner, 1, 0);
                }
                if deleted {
                    self.observe(&owner, 0, 1);
                }
            }
            queue.add(owner);
        }
    }

    /// One `syncReplicaSet` up to its creates: claim the pods, count them, delete the surplus
    /// or decide the creates once the expectations are met. The rest ([`Self::go_on`]) creates
    /// and writes the status. `None`: nothing to sync (the ReplicaSet is gone, or selects
    /// nothing), and nothing to look at again.
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Option<Burst> {
        let Some(obj) = self.replicasets.store().get(key) else {
            self.expectations.remove(key);
            return None;
        };
        let rs = obj.as_replica_set()?;
        let selector = selector_of(rs)?;
        let uid = rs.metadata.uid.clone();
        // The pods this ReplicaSet controls, counted from the notifications (built from the
        // controller-uid index on first use, or again when its selector or template labels
        // changed); the namespace's orphans are read from the index (`getRSPods`).
        let store = self.pods.store();
        let index = |value: &str| {
            store
                .by_index(POD_CONTROLLER_UID_INDEX, value)
                .unwrap_or_default()
        };
        let shape = Shape::of(rs, selector.clone());
        if self.tallies.get(&uid).is_none_or(|t| t.shape() != &shape) {
            let tally = PodTally::build(shape.clone(), &index(&uid));
            self.tallies.insert(uid.clone(), tally);
        }
        let (adopted, mut failed) = self.claim_pods(api, rs, &selector, &store);
        // The adopted pods reach the tally with their notification; until then they count here.
        let extra: Vec<_> = adopted
            .iter()
            .filter_map(|o| o.as_pod())
            .map(|p| shape.facts(p))
            .collect();
        let min_ready = rs.spec.min_ready_seconds.unwrap_or(0);
        let counts = self
            .tallies
            .get(&uid)
            .map(|t| t.counts(min_ready, now, &extra))
            .unwrap_or_default();
        let satisfied = self
            .expectations
            .get(key)
            .is_none_or(|e| e.fulfilled() || now.millis_since(e.set_at) > EXPECTATIONS_TIMEOUT_MS);
        let mut creates = 0;
        if satisfied && rs.metadata.deletion_timestamp.is_none() {
            let desired = rs.spec.replicas.unwrap_or(1);
            let diff = counts.active - desired;
            if diff < 0 {
                creates = (-diff).min(BURST_REPLICAS);
                self.expectations.insert(
                    key.clone(),
                    Expectations {
                        add: i64::from(creates),
                        del: 0,
                        set_at: now,
                    },
                );
            } else if diff > 0 {
                // Only a scale-down reads the pods themselves, to rank them.
                let owned: Vec<Arc<Object>> = index(&uid).into_iter().chain(adopted).collect();
                let active: Vec<&Pod> = owned
                    .iter()
                    .filter_map(|o| o.as_pod())
                    .filter(|p| selector.matches(&p.metadata.labels) && podutil::is_active(p))
                    .collect();
                failed |= self.delete_pods(now, api, key, &obj, &active, diff.min(BURST_REPLICAS));
            }
        }
        let stamp = match creates {
            0 => Stamp {
                owners: OwnerReferences::default(),
                generate_name: Arc::from(""),
            },
            _ => Stamp {
                owners: OwnerReferences::from(vec![controller_ref("ReplicaSet", &rs.metadata)]),
                generate_name: Arc::from(format!("{}-", rs.metadata.name)),
            },
        };
        Some(Burst {
            key: key.clone(),
            replica_set: obj.clone(),
            counts,
            failed,
            stamp,
            remaining: creates,
            batch: SLOW_START_INITIAL_BATCH_SIZE.min(creates),
            made: 0,
            errors: 0,
        })
    }

    /// The rest of a sync: makes the burst's creates batch by batch, asking `stop` after each,
    /// then writes the status. The burst back if it stopped; else the sync's result, when to
    /// look again (minReadySeconds) or to requeue.
    fn go_on(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        mut b: Burst,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Reconciled, Burst> {
        let obj = b.replica_set.clone();
        let Some(rs) = obj.as_replica_set() else {
            return Ok(Ok(Action::Done));
        };
        while b.batch > 0 {
            while b.made < b.batch {
                if !self.create_pod(now, api, &obj, rs, &b.stamp) {
                    b.errors += 1;
                }
                b.made += 1;
                if stop() {
                    return Err(b);
                }
            }
            b.remaining -= b.batch;
            if b.errors > 0 {
                // The failed and the skipped creates will never be observed.
                self.observe(&b.key, i64::from(b.errors + b.remaining), 0);
                b.failed = true;
                break;
            }
            b.batch = (2 * b.batch).min(b.remaining);
            b.made = 0;
        }
        if b.failed | self.update_status(api, rs, &b.counts).is_err() {
            return Ok(Err(Requeue));
        }
        // Ready pods become available after minReadySeconds: look again then.
        let min_ready = rs.spec.min_ready_seconds.unwrap_or(0);
        let waiting = min_ready > 0 && b.counts.waiting;
        Ok(Ok(match waiting {
            true => Action::RequeueAfter(min_ready as u64 * 1000),
            false => Action::Done,
        }))
    }

    /// Releases the pods relabelled out of the selector and adopts the namespace's matching
    /// orphans (`ControllerRefManager.ClaimPods`); returns the adopted pods as written, and true
    /// if a patch failed.
    fn claim_pods(
        &self,
        api: &mut ApiServer,
        rs: &ReplicaSet,
        selector: &LabelSelector,
        store: &Store<Arc<Object>>,
    ) -> (Vec<Arc<Object>>, bool) {
        let ns = rs.metadata.namespace.as_str();
        let uid = rs.metadata.uid.as_str();
        let released: Vec<ObjectKey> = self
            .tallies
            .get(uid)
            .map(|t| t.released().cloned().collect())
            .unwrap_or_default();
        let mut failed = false;
        for key in &released {
            let Some(o) = store.get(key) else { continue };
            // Relabelled out of the selector: release it (ControllerRefManager).
            let refs: Vec<_> = o
                .meta()
                .owner_references
                .iter()
                .filter(|r| r.uid != uid)
                .cloned()
                .collect();
            let patch = serde_json::json!({"metadata": {"ownerReferences": refs}});
            let name = o.name();
            if api
                .merge_patch(USER_AGENT, Kind::Pod, Some(ns), name, &patch, false)
                .is_err()
            {
                failed = true;
            }
        }
        let mut adopted: Vec<Arc<Object>> = Vec::new();
        for o in store
            .by_index(POD_CONTROLLER_UID_INDEX, &orphan_pod_index_key(ns))
            .unwrap_or_default()
        {
            let Some(p) = o.as_pod() else { continue };
            if !(selector.matches(&p.metadata.labels)
                && rs.metadata.deletion_timestamp.is_none()
                && podutil::is_active(p))
            {
                continue;
            }
            // Adopt the orphan.
            let mut refs = p.metadata.owner_references.clone();
            refs.push(controller_ref("ReplicaSet", &rs.metadata));
            let patch = serde_json::json!({"metadata": {"ownerReferences": refs}});
            match api.merge_patch(
                USER_AGENT,
                Kind::Pod,
                Some(ns),
                &p.metadata.name,
                &patch,
                false,
            ) {
                Ok(adopted_pod) => adopted.push(adopted_pod),
                Err(_) => failed = true,
            }
        }
        (adopted, failed)
    }

    /// Creates one pod from the template and records the event; false if the create failed.
    fn create_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        rs: &ReplicaSet,
        stamp: &Stamp,
    ) -> bool {
        let pod = self.pod_from_template(rs, stamp);
        let (kind, reason, msg) = match api.create(USER_AGENT, Object::Pod(pod)) {
            Ok(created) => (
                EventType::Normal,
                "SuccessfulCreate",
                format!("Created pod: {}", created.name()),
            ),
            Err(s) => (
                EventType::Warning,
                "FailedCreate",
                format!("Error creating: {}", s.message()),
            ),
        };
        self.recorder.record(api, now, obj, kind, reason, &msg);
        kind == EventType::Normal
    }

    fn pod_from_template(&self, rs: &ReplicaSet, stamp: &Stamp) -> Pod {
        let t = &rs.spec.template;
        let spec = t.spec.clone();
        Pod {
            metadata: ObjectMeta {
                generate_name: stamp.generate_name.clone(),
                namespace: rs.metadata.namespace.clone(),
                labels: t.metadata.labels.clone(),
                annotations: t.metadata.annotations.clone(),
                owner_references: stamp.owners.clone(),
                ..Default::default()
            },
            spec: Arc::new(spec),
            status: Default::default(),
        }
    }

    /// Deletes the `count` pods that matter least; true if a delete failed.
    fn delete_pods(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        active: &[&Pod],
        count: i32,
    ) -> bool {
        let mut ranked: Vec<&Pod> = active.to_vec();
        sort::sort_by_key(&mut ranked, |p| deletion_rank(p));
        let victims: Vec<&Pod> = ranked.into_iter().take(count.max(0) as usize).collect();
        self.expectations.insert(
            key.clone(),
            Expectations {
                add: 0,
                del: victims.len() as i64,
                set_at: now,
            },
        );
        let mut failed = false;
        for p in victims {
            let ns = p.metadata.namespace.as_str();
            match api.delete(
                USER_AGENT,
                Kind::Pod,
                Some(ns),
                &p.metadata.name,
                &DeleteOptions::default(),
            ) {
                Ok(_) => {
                    let msg = format!("Deleted pod: {}", p.metadata.name);
                    self.recorder.record(
                        api,
                        now,
                        obj,
                        EventType::Normal,
                        "SuccessfulDelete",
                        &msg,
                    );
                }
                Err(s) => {
                    self.observe(key, 0, 1);
                    if s.code() != 404 {
                        failed = true;
                        let msg = format!("Error deleting: {}", s.message());
                        self.recorder.record(
                            api,
                            now,
                            obj,
                            EventType::Warning,
                            "FailedDelete",
                            &msg,
                        );
                    }
                }
            }
        }
        failed
    }

    fn update_status(
        &mut self,
        api: &mut ApiServer,
        rs: &ReplicaSet,
        counts: &Counts,
    ) -> Result<(), Requeue> {
        let mut status = rs.status.clone();
        status.replicas = counts.active;
        status.fully_labeled_replicas = counts.fully_labeled;
        status.ready_replicas = counts.ready;
        status.available_replicas = counts.available;
        status.observed_generation = rs.metadata.generation.unwrap_or(0);
        if status == rs.status {
            return Ok(());
        }
        let mut updated = rs.clone();
        updated.status = status;
        api.update_status(USER_AGENT, Object::ReplicaSet(Box::new(updated)))
            .map(|_| ())
            .map_err(|_| Requeue)
    }
}

/// `controller.ActivePods` order for deletion (lowest first): unscheduled before scheduled,
/// Pending before Unknown before Running, not ready before ready, ready for less time before
/// longer, newer before older.
fn deletion_rank(
    p: &Pod,
) -> (
    u8,
    u8,
    u8,
    std::cmp::Reverse<u64>,
    std::cmp::Reverse<u64>,
    String,
) {
    let scheduled = u8::from(!p.spec.node_name.is_empty());
    let phase = match &*p.status.phase {
        "Pending" => 0,
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    };
    let ready = u8::from(is_pod_ready(p));
    let ready_since = p
        .condition("Ready")
        .filter(|c| c.status == "True")
        .and_then(|c| c.last_transition_time)
        .map_or(0, |t| t.as_millis());
    let created = p.metadata.creation_timestamp.map_or(0, |t| t.as_millis());
    (
        scheduled,
        phase,
        ready,
        std::cmp::Reverse(ready_since),
        std::cmp::Reverse(created),
        p.metadata.name.clone(),
    )
}

impl Reconciler for ReplicaSetController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.replicasets).into(), (&self.pods).into()]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.replicasets.step(now, api) {
            if let Notification::Delete(d) = &note {
                self.tallies.remove(&d.object().meta().uid);
            }
            queue.add(note.key());
        }
        for note in self.pods.step(now, api) {
            self.on_pod(note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.replicasets.has_synced() && self.pods.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        // Never asked to stop, the burst is made whole; were it kept, the key's next reconcile
        // would go on with it.
        self.reconcile_until(now, api, key, &mut || false)
            .unwrap_or(Err(Requeue))
    }

    /// Stops between two creates of a burst; given the key again, it makes the next create, as
    /// the uncut sync would.
    fn reconcile_until(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<Reconciled> {
        let burst = match self.burst.take() {
            Some(b) => b,
            None => match self.sync(now, api, key) {
                Some(b) => b,
                None => return Some(Ok(Action::Done)),
            },
        };
        match self.go_on(now, api, burst, stop) {
            Ok(result) => Some(result),
            Err(b) => {
                self.burst = Some(b);
                None
            }
        }
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.replicasets.next_wakeup(),
            self.pods.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
