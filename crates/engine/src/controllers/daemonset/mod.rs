//! The DaemonSet controller (user agent `daemon-set-controller`, event source
//! `daemonset-controller`; kube-controller-manager's pkg/controller/daemon): one pod per node
//! that should run it. A sync (`syncDaemonSet`) finds or writes the current ControllerRevision
//! ([`history`]), then — once the creates and deletes it issued before have all been seen
//! (`ControllerExpectations`) — runs the core loop on the nodes that changed ([`manage`]),
//! the rolling update ([`update`]) unless the strategy is `OnDelete`, trims the history, and
//! writes the status counts (`updateDaemonSetStatus`).
//!
//! Each pod is created as `<ds>-<5 chars>` with the controller ownerReference, the labels
//! `controller-revision-hash` and `pod-template-generation`, the daemon tolerations, and a
//! required node affinity `metadata.name In [node]` that the default scheduler binds it by
//! ([`predicates`]). A failed pod is deleted with a `FailedDaemonPod` warning and replaced
//! after a back-off; creates and deletes record `SuccessfulCreate` / `SuccessfulDelete`.
//!
//! Cost: with no DaemonSet in the cluster, a pod notification costs a look at its controller
//! reference and a node notification nothing. With DaemonSets, each keeps its pods by node and
//! per-node facts ([`state`]) current from the notifications, so a sync visits the nodes that
//! changed, not every node (a DaemonSet on 5,000 nodes converges in work proportional to them).

pub mod class;
pub mod history;
pub mod manage;
pub mod predicates;
pub mod state;
pub mod update;

use std::collections::BTreeMap;
use std::sync::Arc;

use self::class::{Shape, POD_TEMPLATE_GENERATION_LABEL};
use self::manage::{plan_node, FailedPodsBackoff, Target};
use self::predicates::{replace_node_name_affinity, Predicates};
use self::state::{Counts, DaemonState};
use super::adapter::POD_CONTROLLER_UID_INDEX;
use super::events::{EventRecorder, EventType};
use super::replicaset::{controller_ref, Expectations, EXPECTATIONS_TIMEOUT_MS};
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::apps::{ControllerRevision, DaemonSet};
use crate::api::kinds::daemonset::template_generation;
use crate::api::meta::OwnerReferences;
use crate::api::pod::Pod;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::store::NAMESPACE_INDEX;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;

pub const USER_AGENT: &str = "daemon-set-controller";
/// The component its events carry (`v1.EventSource{Component: "daemonset-controller"}`).
pub const EVENT_SOURCE: &str = "daemonset-controller";
/// `BurstReplicas`: at most this many creates and this many deletes per sync.
pub const BURST_REPLICAS: usize = 250;

/// The DaemonSet controller.
pub struct DaemonSetController {
    daemonsets: SharedInformer,
    pods: SharedInformer,
    nodes: SharedInformer,
    revisions: SharedInformer,
    /// By DaemonSet uid: its key and what is known of its pods and nodes.
    states: BTreeMap<String, (ObjectKey, DaemonState)>,
    expectations: BTreeMap<ObjectKey, Expectations>,
    backoff: FailedPodsBackoff,
    recorder: EventRecorder,
}

/// One sync's creates and deletes (`syncNodes`' arguments).
#[derive(Default)]
struct Work {
    create: Vec<String>,
    delete: Vec<String>,
    retry_after_ms: Option<u64>,
    /// `FailedDaemonPod` / `SucceededDaemonPod` events to record.
    events: Vec<(EventType, &'static str, String)>,
}

impl DaemonSetController {
    pub fn new(informers: &SharedInformers) -> Self {
        DaemonSetController {
            daemonsets: informers.reader(Kind::DaemonSet),
            pods: informers.reader(Kind::Pod),
            nodes: informers.reader(Kind::Node),
            revisions: informers.reader(Kind::ControllerRevision),
            states: BTreeMap::new(),
            expectations: BTreeMap::new(),
            backoff: FailedPodsBackoff::default(),
            recorder: EventRecorder::new(USER_AGENT, EVENT_SOURCE, ""),
        }
    }

    /// How many DaemonSets it keeps state for (none while the cluster has none).
    pub fn tracked(&self) -> usize {
        self.states.len()
    }

    /// The expectations recorded for a DaemonSet (for the UI and tests).
    pub fn expectations(&self, namespace: &str, name: &str) -> Option<Expectations> {
        self.expectations
            .get(&ObjectKey::new(Some(namespace), name))
            .copied()
    }

    fn observe(&mut self, key: &ObjectKey, add: i64, del: i64) {
        if let Some(e) = self.expectations.get_mut(key) {
            e.add -= add;
            e.del -= del;
        }
    }

    /// `addPod` / `updatePod` / `deletePod` for pods a DaemonSet controls (orphans are not
    /// adopted): the expectations observe it, its DaemonSet's state files it, the DaemonSet is
    /// queued.
    fn on_pod(&mut self, note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let (old, new) = match note {
            Notification::Add(o) => (None, Some(o)),
            Notification::Update { old, new } => (Some(old), Some(new)),
            Notification::Delete(d) => (Some(d.object()), None),
        };
        let daemon = |o: &Arc<Object>| {
            let r = o
                .meta()
                .controller_ref()
                .filter(|r| r.kind == "DaemonSet")?;
            Some((ObjectKey::new(Some(o.namespace()), &r.name), r.uid.clone()))
        };
        let owners = [old.and_then(daemon), new.and_then(daemon)];
        let deleting =
            |o: Option<&Arc<Object>>| o.is_some_and(|o| o.meta().deletion_timestamp.is_some());
        for (i, (key, uid)) in owners
            .into_iter()
            .enumerate()
            .filter_map(|(i, o)| Some((i, o?)))
        {
            if i == 0 && owners_equal(old, new, daemon) {
                continue;
            }
            match note {
                Notification::Add(_) => self.observe(&key, 1, 0),
                Notification::Update { .. } if !deleting(old) && deleting(new) => {
                    self.observe(&key, 0, 1)
                }
                Notification::Delete(_) if !deleting(old) => self.observe(&key, 0, 1),
                _ => {}
            }
            // Released to another owner (or none), the new version is not this one's.
            let mine = new.filter(|n| daemon(n).is_some_and(|(_, u)| u == uid));
            if let Some((_, state)) = self.states.get_mut(&uid) {
                state.apply(old, mine);
            }
            queue.add(key);
        }
    }

    /// `addNode` / `updateNode` (and a deleted node, whose pods' status no longer counts):
    /// each DaemonSet for which the node's fit changed looks at it again.
    fn on_node(&mut self, note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let (old, new) = match note {
            Notification::Add(n) => (None, n.as_node()),
            Notification::Update { old, new } => (old.as_node(), new.as_node()),
            Notification::Delete(d) => (d.object().as_node(), None),
        };
        if let (Some(o), Some(n)) = (old, new) {
            // `shouldIgnoreNodeUpdate`: only labels and the spec (taints) decide a fit.
            if o.metadata.labels == n.metadata.labels && o.spec == n.spec {
                return;
            }
        }
        let name = match new.or(old) {
            Some(n) => n.metadata.name.clone(),
            None => return,
        };
        for (key, state) in self.states.values_mut() {
            let Some(f) = state.facts(&name).cloned() else {
                let fits =
                    new.is_some_and(|n| state.predicates().is_some_and(|p| p.should_run(n).0));
                if fits {
                    state.mark_dirty(&name);
                    queue.add(key.clone());
                }
                continue;
            };
            let now_fit = match (new, state.predicates()) {
                (Some(n), Some(p)) => p.should_run(n),
                _ => (false, false),
            };
            if new.is_none() || now_fit != (f.should_run, f.should_continue) {
                state.mark_dirty(&name);
                queue.add(key.clone());
            }
        }
    }

    /// A revision's change queues the DaemonSet that controls it (`addHistory`, ...).
    fn on_revision(note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let obj = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => o,
            Notification::Delete(d) => d.object(),
        };
        if let Some(r) = obj
            .meta()
            .controller_ref()
            .filter(|r| r.kind == "DaemonSet")
        {
            queue.add(ObjectKey::new(Some(obj.namespace()), &r.name));
        }
    }

    /// The revisions the DaemonSet controls (`controlledHistories`, without adoption).
    fn controlled_revisions(&self, ds: &DaemonSet) -> Vec<ControllerRevision> {
        self.revisions
            .store()
            .by_index(NAMESPACE_INDEX, &ds.metadata.namespace)
            .unwrap_or_default()
            .iter()
            .filter(|o| {
                o.meta()
                    .controller_ref()
                    .is_some_and(|r| r.uid == ds.metadata.uid)
            })
            .filter_map(|o| o.as_controller_revision().cloned())
            .collect()
    }

    /// `syncDaemonSet`.
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(obj) = self.daemonsets.store().get(key) else {
            self.expectations.remove(key);
            return Ok(Action::Done);
        };
        let Some(ds) = obj.as_daemon_set() else {
            return Ok(Action::Done);
        };
        if ds.metadata.deletion_timestamp.is_some() {
            return Ok(Action::Done);
        }
        let uid = ds.metadata.uid.clone();
        let controlled = self.controlled_revisions(ds);
        let states = &self.states;
        let pods_of = || {
            states
                .get(&uid)
                .map(|(_, s)| s.all_pods())
                .unwrap_or_default()
        };
        let revisions = history::construct(api, ds, controlled, &pods_of)?;
        let shape = Shape {
            predicates: Predicates::of(ds),
            hash: revisions.hash.clone(),
            template_generation: template_generation(&ds.metadata.annotations),
            min_ready_seconds: ds.spec.min_ready_seconds.unwrap_or(0),
            surge: update::allows_surge(ds),
        };
        self.refresh(key, ds, shape.clone(), now);
        let satisfied = self
            .expectations
            .get(key)
            .is_none_or(|e| e.fulfilled() || now.millis_since(e.set_at) > EXPECTATIONS_TIMEOUT_MS);
        let mut failed = false;
        let mut retry = None;
        if satisfied {
            let mut work = self.manage(&uid, ds, &shape, now);
            for (kind, reason, msg) in std::mem::take(&mut work.events) {
                self.recorder.record(api, now, &obj, kind, reason, &msg);
            }
            retry = work.retry_after_ms;
            let idle = work.create.is_empty() && work.delete.is_empty();
            failed |= self.sync_nodes(now, api, key, &obj, ds, &shape, work);
            if idle && ds.update_strategy() == "RollingUpdate" {
                failed |= self.rolling_update(now, api, key, &obj, ds, &shape);
            }
            let live = self.states.get(&uid).map(|(_, s)| s.live_hashes().clone());
            failed |= history::cleanup(api, ds, revisions.old, &live.unwrap_or_default()).is_err();
        }
        let totals = self
            .states
            .get(&uid)
            .map(|(_, s)| s.totals())
            .unwrap_or_default();
        failed |= update_status(api, ds, &totals, satisfied).is_err();
        if failed {
            return Err(Requeue);
        }
        let ripe = self.states.get(&uid).and_then(|(_, s)| s.next_ripe());
        let after = [ripe.map(|t| t.millis_since(now).max(1)), retry]
            .into_iter()
            .flatten()
            .min();
        Ok(after.map_or(Action::Done, Action::RequeueAfter))
    }

    /// Builds the DaemonSet's state on its first sync and brings its facts up to date.
    fn refresh(&mut self, key: &ObjectKey, ds: &DaemonSet, shape: Shape, now: Timestamp) {
        let pods = self.pods.store();
        let (_, state) = self
            .states
            .entry(ds.metadata.uid.clone())
            .or_insert_with(|| {
                let owned = pods
                    .by_index(POD_CONTROLLER_UID_INDEX, &ds.metadata.uid)
                    .unwrap_or_default();
                (key.clone(), DaemonState::build(&owned))
            });
        let nodes = self.nodes.store();
        let get = |name: &str| nodes.get_by_name(None, name);
        let all = || {
            nodes
                .keys()
                .iter()
                .map(|k| k.as_str().to_string())
                .collect()
        };
        state.refresh(shape, &get, &all, now);
    }

    /// `manage`: the core loop over the nodes that changed.
    fn manage(&mut self, uid: &str, ds: &DaemonSet, shape: &Shape, now: Timestamp) -> Work {
        let mut work = Work::default();
        let Some((_, state)) = self.states.get_mut(uid) else {
            return work;
        };
        let ns = ds.metadata.namespace.as_str();
        for node in state.pending() {
            if work.create.len() >= BURST_REPLICAS || work.delete.len() >= BURST_REPLICAS {
                break;
            }
            let Some(facts) = state.facts(&node).cloned() else {
                state.settled(&node);
                continue;
            };
            let t = Target {
                uid,
                namespace: ns,
                node: &node,
            };
            let pods = state.pods_on(&node);
            let plan = plan_node(&t, &facts, &pods, shape, now, &mut self.backoff);
            work.events.extend(plan.events);
            if plan.create {
                work.create.push(node.clone());
            }
            work.delete.extend(plan.delete);
            work.retry_after_ms = [work.retry_after_ms, plan.retry_after_ms]
                .into_iter()
                .flatten()
                .min();
            state.settled(&node);
        }
        work
    }
}

/// Whether the old and the new version name the same DaemonSet (then it is handled once).
fn owners_equal(
    old: Option<&Arc<Object>>,
    new: Option<&Arc<Object>>,
    daemon: impl Fn(&Arc<Object>) -> Option<(ObjectKey, String)>,
) -> bool {
    match (old.and_then(&daemon), new.and_then(&daemon)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

impl DaemonSetController {
    /// `rollingUpdate`'s deletes and creates, through `syncNodes`; true if a write failed.
    fn rolling_update(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        ds: &DaemonSet,
        shape: &Shape,
    ) -> bool {
        let Some((_, state)) = self.states.get(&ds.metadata.uid) else {
            return false;
        };
        let plan = update::rolling_update(state, ds, shape);
        if plan.create.is_empty() && plan.delete.is_empty() {
            return false;
        }
        let work = Work {
            create: plan.create,
            delete: plan.delete,
            ..Default::default()
        };
        self.sync_nodes(now, api, key, obj, ds, shape, work)
    }

    /// `syncNodes`: at most [`BURST_REPLICAS`] creates (in slow-start batches 1, 2, 4, ...;
    /// a failed batch skips the rest) and as many deletes, expected before the next decision;
    /// true if a write failed.
    #[allow(clippy::too_many_arguments)]
    fn sync_nodes(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        ds: &DaemonSet,
        shape: &Shape,
        mut work: Work,
    ) -> bool {
        work.create.truncate(BURST_REPLICAS);
        work.delete.truncate(BURST_REPLICAS);
        self.expectations.insert(
            key.clone(),
            Expectations {
                add: work.create.len() as i64,
                del: work.delete.len() as i64,
                set_at: now,
            },
        );
        let mut failed = false;
        let (mut pos, mut batch) = (0, work.create.len().min(1));
        while pos < work.create.len() {
            let nodes = work.create.get(pos..pos + batch).unwrap_or_default();
            let errors = nodes
                .iter()
                .filter(|node| !self.create_pod(now, api, obj, ds, shape, node))
                .count();
            pos += batch;
            if errors > 0 {
                // The failed creates, and the skipped ones, will never be observed.
                let skipped = work.create.len() - pos;
                self.observe(key, (errors + skipped) as i64, 0);
                failed = true;
                break;
            }
            batch = (2 * batch).min(work.create.len() - pos);
        }
        for name in &work.delete {
            failed |= self.delete_pod(now, api, key, obj, ds, name);
        }
        failed
    }

    /// Creates the daemon pod for `node` and records the event; false if the create failed.
    fn create_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        ds: &DaemonSet,
        shape: &Shape,
        node: &str,
    ) -> bool {
        let pod = new_pod(ds, shape, node);
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

    /// Deletes one pod and records the event; true if the delete failed (a pod already gone
    /// is no failure).
    fn delete_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        ds: &DaemonSet,
        name: &str,
    ) -> bool {
        let ns = Some(ds.metadata.namespace.as_str());
        match api.delete(USER_AGENT, Kind::Pod, ns, name, &DeleteOptions::default()) {
            Ok(_) => {
                let msg = format!("Deleted pod: {name}");
                let reason = "SuccessfulDelete";
                self.recorder
                    .record(api, now, obj, EventType::Normal, reason, &msg);
                false
            }
            Err(s) => {
                self.observe(key, 0, 1);
                if s.code() == 404 {
                    return false;
                }
                let msg = format!("Error deleting: {}", s.message());
                self.recorder
                    .record(api, now, obj, EventType::Warning, "FailedDelete", &msg);
                true
            }
        }
    }
}

/// The pod for `node` (`util.CreatePodTemplate`, `ReplaceDaemonSetPodNodeNameNodeAffinity`,
/// `controller.GetPodFromTemplate`): the template with the daemon tolerations, the
/// `pod-template-generation` and `controller-revision-hash` labels, the node-name affinity,
/// the controller reference, `generateName: <ds>-`.
fn new_pod(ds: &DaemonSet, shape: &Shape, node: &str) -> Pod {
    let t = &ds.spec.template;
    let mut spec = shape.predicates.pod_spec().clone();
    spec.affinity = Some(replace_node_name_affinity(spec.affinity.take(), node));
    let mut labels = t.metadata.labels.clone();
    if let Some(g) = shape.template_generation {
        labels.insert(POD_TEMPLATE_GENERATION_LABEL.into(), g.to_string());
    }
    if !shape.hash.is_empty() {
        labels.insert(
            history::CONTROLLER_REVISION_HASH_LABEL.into(),
            shape.hash.clone(),
        );
    }
    Pod {
        metadata: ObjectMeta {
            generate_name: Arc::from(format!("{}-", ds.metadata.name)),
            namespace: ds.metadata.namespace.clone(),
            labels,
            annotations: t.metadata.annotations.clone(),
            owner_references: OwnerReferences::from(vec![controller_ref(
                "DaemonSet",
                &ds.metadata,
            )]),
            ..Default::default()
        },
        spec: Arc::new(spec),
        status: Default::default(),
    }
}

/// `updateDaemonSetStatus` / `storeDaemonSetStatus`: the counts, and `observedGeneration` when
/// the sync acted on this generation; written only when something changed.
fn update_status(
    api: &mut ApiServer,
    ds: &DaemonSet,
    c: &Counts,
    observed: bool,
) -> Result<(), Requeue> {
    let generation = ds.metadata.generation.unwrap_or(0);
    let mut s = ds.status.clone();
    s.desired_number_scheduled = c.desired;
    s.current_number_scheduled = c.current;
    s.number_misscheduled = c.misscheduled;
    s.number_ready = c.ready;
    s.updated_number_scheduled = c.updated;
    s.number_available = c.available;
    s.number_unavailable = c.desired - c.available;
    if s == ds.status && s.observed_generation >= generation {
        return Ok(());
    }
    if observed {
        s.observed_generation = generation;
    }
    let mut updated = ds.clone();
    updated.status = s;
    api.update_status(USER_AGENT, Object::from(updated))
        .map(|_| ())
        .map_err(|_| Requeue)
}

impl Reconciler for DaemonSetController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![
            (&self.daemonsets).into(),
            (&self.pods).into(),
            (&self.nodes).into(),
            (&self.revisions).into(),
        ]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.daemonsets.step(now, api) {
            if let Notification::Delete(d) = &note {
                let uid = &d.object().meta().uid;
                self.states.remove(uid);
                self.backoff.forget(uid);
            }
            queue.add(note.key());
        }
        for note in self.revisions.step(now, api) {
            Self::on_revision(&note, queue);
        }
        for note in self.pods.step(now, api) {
            self.on_pod(&note, queue);
        }
        let nodes = self.nodes.step(now, api);
        if self.states.is_empty() {
            return;
        }
        for note in &nodes {
            self.on_node(note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.daemonsets.has_synced()
            && self.pods.has_synced()
            && self.nodes.has_synced()
            && self.revisions.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.daemonsets.next_wakeup(),
            self.pods.next_wakeup(),
            self.nodes.next_wakeup(),
            self.revisions.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
