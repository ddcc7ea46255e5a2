//! The StatefulSet controller (user agent and event source `statefulset-controller`;
//! kube-controller-manager's pkg/controller/statefulset): pods with a stable identity —
//! `<set>-<ordinal>`, a DNS name under the set's headless Service, a claim per volume claim
//! template that outlives them ([`identity`]) — created, updated and deleted in ordinal order
//! ([`control`]), rolled to a new template highest ordinal first down to a partition
//! ([`update`]), with their history in ControllerRevisions ([`revisions`]) and their claims
//! kept or handed to the garbage collector as the retention policy says ([`retention`]).
//!
//! A sync (`sync` in stateful_set.go): the set from the cache, its orphaned revisions adopted,
//! its pods claimed (those it controls plus matching orphans of its namespace named like its
//! members, `ClaimPods` with `isMemberOf`), then one pass (`UpdateStatefulSet`): the current
//! and update revisions, the control loop, the status, the history trimmed. A set with
//! `minReadySeconds` whose pods are not all available is looked at again after that long.
//!
//! The controller waits for nothing but the caches: no expectations. A pod deleted on a node
//! whose kubelet is gone stays Terminating (nobody confirms the containers stopped), and its
//! ordinal stays taken until someone force-deletes it — the at-most-one-pod-per-identity
//! guarantee, and why a StatefulSet does not heal by itself from a lost node.
//!
//! Cost: pod notifications are filtered by their controller reference's kind; with no
//! StatefulSet in the cluster an orphan pod costs one emptiness check, and nothing is synced.

pub mod control;
pub mod identity;
pub mod pod_control;
pub mod retention;
pub mod revisions;
pub mod status;
pub mod update;

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::json;

use self::control::{update_stateful_set, Versions};
use self::identity::is_member_of;
use self::pod_control::PodControl;
use self::revisions::{get_revisions, template_of, truncate_history};
use super::adapter::{orphan_pod_index_key, POD_CONTROLLER_UID_INDEX};
use super::events::EventRecorder;
use super::history;
use super::podutil::is_pod_ready;
use super::replicaset::controller_ref;
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::apps::StatefulSet;
use crate::api::meta::OwnerReference;
use crate::api::pod::Pod;
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::store::NAMESPACE_INDEX;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::sort;

pub const USER_AGENT: &str = "statefulset-controller";

/// The StatefulSet controller.
pub struct StatefulSetController {
    sets: SharedInformer,
    pods: SharedInformer,
    /// Read only (upstream watches no claims: "TODO: Watch volumes").
    claims: SharedInformer,
    /// Read only, as upstream's revision lister.
    revisions: SharedInformer,
    recorder: EventRecorder,
    /// Syncs run so far (a cost meter for tests).
    syncs: u64,
}

impl StatefulSetController {
    pub fn new(informers: &SharedInformers) -> Self {
        StatefulSetController {
            sets: informers.reader(Kind::StatefulSet),
            pods: informers.reader(Kind::Pod),
            claims: informers.cache_reader(Kind::PersistentVolumeClaim),
            revisions: informers.cache_reader(Kind::ControllerRevision),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
            syncs: 0,
        }
    }

    /// How many syncs it has run (none while the cluster has no StatefulSet).
    pub fn syncs(&self) -> u64 {
        self.syncs
    }

    /// `resolveControllerRef`: the set a controller reference names, if it is the one cached.
    fn resolve(&self, namespace: &str, r: &OwnerReference) -> Option<Arc<Object>> {
        if r.kind != "StatefulSet" {
            return None;
        }
        let set = self.sets.store().get_by_name(Some(namespace), &r.name)?;
        (set.meta().uid == r.uid).then_some(set)
    }

    /// `getStatefulSetsForPod`: the sets of the pod's namespace whose selector matches it.
    fn sets_for_orphan(&self, pod: &Pod) -> Vec<ObjectKey> {
        let store = self.sets.store();
        if store.is_empty() {
            return Vec::new();
        }
        let ns = pod.metadata.namespace.as_str();
        store
            .by_index(NAMESPACE_INDEX, ns)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_stateful_set())
            .filter(|s| selector_of(s).is_some_and(|sel| sel.matches(&pod.metadata.labels)))
            .map(|s| ObjectKey::new(Some(ns), &s.metadata.name))
            .collect()
    }

    /// `addPod` / `updatePod` / `deletePod`.
    fn on_pod(
        &self,
        note: &Notification<Arc<Object>>,
        now: Timestamp,
        q: &mut WorkQueue<ObjectKey>,
    ) {
        match note {
            Notification::Add(o) => self.on_pod_add(o, q),
            Notification::Update { old, new } => self.on_pod_update(old, new, now, q),
            Notification::Delete(d) => self.on_pod_delete(d.object(), q),
        }
    }

    /// `deletePod`: the pod's controller, if it is a set.
    fn on_pod_delete(&self, o: &Arc<Object>, q: &mut WorkQueue<ObjectKey>) {
        let set = o
            .meta()
            .controller_ref()
            .and_then(|r| self.resolve(o.namespace(), r));
        if let Some(set) = set {
            q.add(ObjectKey::new(Some(set.namespace()), set.name()));
        }
    }

    /// `addPod`: its controller, or for an orphan the sets that might adopt it.
    fn on_pod_add(&self, o: &Arc<Object>, q: &mut WorkQueue<ObjectKey>) {
        let Some(pod) = o.as_pod() else { return };
        if pod.metadata.deletion_timestamp.is_some() || pod.metadata.controller_ref().is_some() {
            return self.on_pod_delete(o, q);
        }
        self.sets_for_orphan(pod).into_iter().for_each(|k| q.add(k));
    }

    /// `updatePod`: the old and the new controller; a pod turning Ready looks at its set again
    /// after `minReadySeconds` (+1 s); an orphan whose labels changed, at the matching sets.
    fn on_pod_update(
        &self,
        old: &Arc<Object>,
        new: &Arc<Object>,
        now: Timestamp,
        q: &mut WorkQueue<ObjectKey>,
    ) {
        let (Some(o), Some(n)) = (old.as_pod(), new.as_pod()) else {
            return;
        };
        if o.metadata.resource_version == n.metadata.resource_version {
            return;
        }
        let key = |s: &Arc<Object>| ObjectKey::new(Some(s.namespace()), s.name());
        let (old_ref, new_ref) = (o.metadata.controller_ref(), n.metadata.controller_ref());
        let ref_changed = old_ref != new_ref;
        if let Some(set) = old_ref
            .filter(|_| ref_changed)
            .and_then(|r| self.resolve(old.namespace(), r))
        {
            q.add(key(&set));
        }
        if let Some(r) = new_ref {
            let Some(set) = self.resolve(new.namespace(), r) else {
                return;
            };
            q.add(key(&set));
            let min_ready = set.as_stateful_set().and_then(|s| s.spec.min_ready_seconds);
            if let Some(secs) = min_ready.filter(|s| *s > 0) {
                if !is_pod_ready(o) && is_pod_ready(n) {
                    q.add_after(key(&set), (secs as u64 + 1) * 1000, now);
                }
            }
            return;
        }
        if ref_changed || o.metadata.labels != n.metadata.labels {
            self.sets_for_orphan(n).into_iter().for_each(|k| q.add(k));
        }
    }

    /// `canAdoptFunc` (`RecheckDeletionTimestamp`): a fresh read says the set is still this
    /// one and not being deleted.
    fn can_adopt(api: &ApiServer, set: &StatefulSet) -> bool {
        let ns = Some(set.metadata.namespace.as_str());
        api.get(Kind::StatefulSet, ns, &set.metadata.name)
            .ok()
            .is_some_and(|f| {
                f.meta().uid == set.metadata.uid && f.meta().deletion_timestamp.is_none()
            })
    }

    /// `adoptOrphanRevisions`.
    fn adopt_orphan_revisions(
        &self,
        api: &mut ApiServer,
        set: &StatefulSet,
        selector: &LabelSelector,
    ) -> Result<(), Requeue> {
        let orphans: Vec<Arc<Object>> =
            history::list_revisions(&self.revisions.store(), &set.metadata, selector)
                .into_iter()
                .filter(|o| o.meta().controller_ref().is_none())
                .collect();
        if orphans.is_empty() {
            return Ok(());
        }
        if !Self::can_adopt(api, set) {
            return Err(Requeue);
        }
        for o in &orphans {
            let Some(rev) = o.as_controller_revision() else {
                continue;
            };
            let owner = controller_ref("StatefulSet", &set.metadata);
            history::adopt_revision(api, USER_AGENT, owner, rev).map_err(|_| Requeue)?;
        }
        Ok(())
    }

    /// `getPodsForStatefulSet` (`ClaimPods` with `isMemberOf`): keeps the pods it controls that
    /// still match, releases the others, adopts matching orphans named like its members.
    fn claim_pods(
        &self,
        api: &mut ApiServer,
        set: &StatefulSet,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<Object>>, Requeue> {
        let store = self.pods.store();
        let ns = set.metadata.namespace.as_str();
        let index = |v: &str| {
            store
                .by_index(POD_CONTROLLER_UID_INDEX, v)
                .unwrap_or_default()
        };
        let (owned, orphans) = (index(&set.metadata.uid), index(&orphan_pod_index_key(ns)));
        let deleting = set.metadata.deletion_timestamp.is_some();
        let matches =
            |p: &Pod| selector.matches(&p.metadata.labels) && is_member_of(set, &p.metadata.name);
        let mut claimed = Vec::with_capacity(owned.len());
        for o in owned {
            let Some(p) = o.as_pod() else { continue };
            if matches(p) {
                claimed.push(o);
            } else if !deleting {
                release(api, set, p)?;
            }
        }
        let mut checked = None;
        for o in orphans {
            let Some(p) = o.as_pod() else { continue };
            if deleting || !matches(p) || p.metadata.deletion_timestamp.is_some() {
                continue;
            }
            if !*checked.get_or_insert_with(|| Self::can_adopt(api, set)) {
                return Err(Requeue);
            }
            let mut refs = p.metadata.owner_references.to_vec();
            refs.push(controller_ref("StatefulSet", &set.metadata));
            let patch = json!({"metadata": {"ownerReferences": refs, "uid": p.metadata.uid}});
            let name = &p.metadata.name;
            match api.merge_patch(USER_AGENT, Kind::Pod, Some(ns), name, &patch, false) {
                Ok(adopted) => claimed.push(adopted),
                Err(s) if s.code() == 404 => {}
                Err(_) => return Err(Requeue),
            }
        }
        Ok(claimed)
    }

    /// `sync`.
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.syncs += 1;
        let Some(obj) = self.sets.store().get(key) else {
            return Ok(Action::Done);
        };
        let Some(set) = obj.as_stateful_set() else {
            return Ok(Action::Done);
        };
        // A selector that does not parse is not retried (upstream: a non-transient error).
        let Some(selector) = selector_of(set) else {
            return Ok(Action::Done);
        };
        self.adopt_orphan_revisions(api, set, &selector)?;
        let pods = self.claim_pods(api, set, &selector)?;
        let status = self.update_stateful_set(now, api, &obj, set, &selector, &pods)?;
        let min_ready = set.spec.min_ready_seconds.unwrap_or(0);
        let replicas = set.spec.replicas.unwrap_or(1);
        Ok(
            match min_ready > 0 && status.available_replicas != replicas {
                true => Action::RequeueAfter(min_ready as u64 * 1000),
                false => Action::Done,
            },
        )
    }

    /// `UpdateStatefulSet` / `performUpdate`: the revisions, the pass, the status (written
    /// even after a failed pass), the history trimmed.
    fn update_stateful_set(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        set: &StatefulSet,
        selector: &LabelSelector,
        pods: &[Arc<Object>],
    ) -> Result<crate::api::apps::StatefulSetStatus, Requeue> {
        let listed = history::list_revisions(&self.revisions.store(), &set.metadata, selector);
        let mut sorted: Vec<&Arc<Object>> = listed.iter().collect();
        sort::sort_by(&mut sorted, |a, b| {
            let key = |o: &Object| {
                let r = o.as_controller_revision().map_or(0, |r| r.revision);
                (r, o.meta().creation_timestamp, o.name().to_string())
            };
            key(a).cmp(&key(b))
        });
        let revs = get_revisions(api, set, &sorted)?;
        let (Some(current), Some(update)) = (revs.current(), revs.update()) else {
            return Err(Requeue);
        };
        let current_template = match current.metadata.name == update.metadata.name {
            true => Cow::Borrowed(&set.spec.template),
            false => Cow::Owned(template_of(current).ok_or(Requeue)?),
        };
        let v = Versions {
            current: &current.metadata.name,
            update: &update.metadata.name,
            current_template: &current_template,
            update_template: &set.spec.template,
            collision_count: revs.collision_count,
        };
        let claims = self.claims.store();
        let pc = PodControl {
            api: &mut *api,
            recorder: &mut self.recorder,
            claims: &claims,
            now,
            set_obj: obj,
            set,
        };
        let (status, pass) = update_stateful_set(pc, &v, pods);
        let written = status::write(api, set, status);
        let pod_list: Vec<&Pod> = pods.iter().filter_map(|o| o.as_pod()).collect();
        let live = [Some(v.current), Some(v.update)];
        let trimmed = truncate_history(api, set, &pod_list, &sorted, live);
        pass?;
        trimmed?;
        written
    }
}

/// The set's selector, parsed (`None`: none, or one that does not parse).
fn selector_of(set: &StatefulSet) -> Option<LabelSelector> {
    set.spec.selector.as_ref()?.to_selector().ok()
}

/// `ReleasePod`: the set's reference removed from a pod it no longer selects.
fn release(api: &mut ApiServer, set: &StatefulSet, pod: &Pod) -> Result<(), Requeue> {
    let refs: Vec<&OwnerReference> = pod
        .metadata
        .owner_references
        .iter()
        .filter(|r| r.uid != set.metadata.uid)
        .collect();
    let patch = json!({"metadata": {"ownerReferences": refs, "uid": pod.metadata.uid}});
    let (ns, name) = (Some(pod.metadata.namespace.as_str()), &pod.metadata.name);
    match api.merge_patch(USER_AGENT, Kind::Pod, ns, name, &patch, false) {
        Err(s) if s.code() != 404 => Err(Requeue),
        _ => Ok(()),
    }
}

impl Reconciler for StatefulSetController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![
            (&self.sets).into(),
            (&self.pods).into(),
            (&self.claims).into(),
            (&self.revisions).into(),
        ]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.sets.step(now, api) {
            queue.add(note.key());
        }
        let _ = self.claims.step(now, api);
        let _ = self.revisions.step(now, api);
        for note in self.pods.step(now, api) {
            self.on_pod(&note, now, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.sets.has_synced()
            && self.pods.has_synced()
            && self.claims.has_synced()
            && self.revisions.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.sets.next_wakeup(),
            self.pods.next_wakeup(),
            self.claims.next_wakeup(),
            self.revisions.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
