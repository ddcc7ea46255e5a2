//! The Deployment controller (user agent `deployment-controller`): owns one ReplicaSet per pod
//! template, named `<deployment>-<pod-template-hash>`, and moves replicas between them. A
//! template change creates a new ReplicaSet and rolls over with maxSurge/maxUnavailable (25% by
//! default; surge rounds up, unavailable down): the new one grows while the total stays within
//! replicas + maxSurge, old ones shrink while availability stays at least replicas −
//! maxUnavailable. With strategy Recreate it scales every old ReplicaSet to 0 and waits for
//! their pods to be gone before creating the new one at full size. It records
//! `ScalingReplicaSet` events, the revision annotation, and status with the Available and
//! Progressing conditions.

use std::sync::Arc;

use super::adapter::CONTROLLER_UID_INDEX;
use super::events::{EventRecorder, EventType};
use super::replicaset::controller_ref;
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::apps::{
    Deployment, IntOrString, PodTemplateSpec, ReplicaSet, ReplicaSetSpec, WorkloadCondition,
};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::hash::fnv1a32;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::status::StatusReason;

pub const USER_AGENT: &str = "deployment-controller";
pub const POD_TEMPLATE_HASH_LABEL: &str = "pod-template-hash";
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";
pub const DESIRED_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/desired-replicas";
pub const MAX_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/max-replicas";

/// `spec.strategy.type` of a Deployment that stops every old pod before starting new ones.
pub const RECREATE: &str = "Recreate";
/// How often a Recreate rollout looks again while old pods are still terminating.
const RECREATE_RECHECK_MS: u64 = 1_000;

/// `oldPodsRunning`: an old ReplicaSet still counts replicas, or one of its pods (terminating
/// ones included) has not finished.
fn old_pods_running(api: &ApiServer, d: &Deployment, old: &[ReplicaSet]) -> bool {
    if old.iter().any(|rs| rs.status.replicas > 0) {
        return true;
    }
    let uids: Vec<&str> = old.iter().map(|rs| rs.metadata.uid.as_str()).collect();
    let ns = Some(d.metadata.namespace.as_str());
    api.list(Kind::Pod, ns, &Default::default())
        .map(|l| {
            l.items.iter().filter_map(|o| o.as_pod()).any(|p| {
                p.metadata
                    .controller_ref()
                    .is_some_and(|r| uids.contains(&r.uid.as_str()))
                    && !matches!(&*p.status.phase, "Succeeded" | "Failed")
            })
        })
        .unwrap_or(true)
}

/// `rand.SafeEncodeString`'s alphabet (no vowels, no look-alikes).
const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The pod-template-hash: FNV-32a over the template's canonical JSON (the real controller
/// hashes the Go struct with `DeepHashObject` + collisionCount), its decimal digits rendered
/// with `SafeEncodeString` — so it looks like the real `6d9f7c8b5`.
pub fn pod_template_hash(template: &PodTemplateSpec) -> String {
    let json = serde_json::to_string(template).unwrap_or_default();
    fnv1a32(json.as_bytes())
        .to_string()
        .bytes()
        .map(|c| SAFE_ALPHABET[usize::from(c) % SAFE_ALPHABET.len()] as char)
        .collect()
}

/// The Deployment controller.
pub struct DeploymentController {
    deployments: SharedInformer,
    replicasets: SharedInformer,
    recorder: EventRecorder,
}

fn replicas(rs: &ReplicaSet) -> i32 {
    rs.spec.replicas.unwrap_or(0)
}

fn revision(rs: &ReplicaSet) -> i64 {
    rs.metadata
        .annotations
        .get(REVISION_ANNOTATION)
        .and_then(|r| r.parse().ok())
        .unwrap_or(0)
}

/// maxSurge and maxUnavailable as numbers (`ResolveFenceposts`): both zero → unavailable 1.
pub fn fenceposts(d: &Deployment) -> (i32, i32) {
    let desired = d.spec.replicas.unwrap_or(1);
    let ru = d
        .spec
        .strategy
        .as_ref()
        .and_then(|s| s.rolling_update.as_ref());
    let pct = |v: Option<&IntOrString>, up: bool| {
        v.cloned()
            .unwrap_or(IntOrString::String("25%".into()))
            .scaled_value(desired, up)
            .unwrap_or(0)
    };
    let surge = pct(ru.and_then(|r| r.max_surge.as_ref()), true);
    let unavailable = pct(ru.and_then(|r| r.max_unavailable.as_ref()), false);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

impl DeploymentController {
    pub fn new(informers: &SharedInformers) -> Self {
        DeploymentController {
            deployments: informers.reader(Kind::Deployment),
            replicasets: informers.reader(Kind::ReplicaSet),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
        }
    }

    /// A ReplicaSet's change requeues the Deployment that controls it (`addReplicaSet`,
    /// `updateReplicaSet`, `deleteReplicaSet`).
    fn on_replica_set(note: Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let obj = match &note {
            Notification::Add(o) | Notification::Update { new: o, .. } => o.clone(),
            Notification::Delete(d) => d.object().clone(),
        };
        if let Some(r) = obj
            .meta()
            .controller_ref()
            .filter(|r| r.kind == "Deployment")
        {
            queue.add(ObjectKey::new(Some(obj.namespace()), &r.name));
        }
    }

    /// Scales `rs` to `to` (with the desired/max annotations) and records the event.
    fn scale(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        d_obj: &Object,
        d: &Deployment,
        rs: &ReplicaSet,
        to: i32,
    ) -> Result<(), Requeue> {
        let from = replicas(rs);
        let desired = d.spec.replicas.unwrap_or(1);
        let (surge, _) = fenceposts(d);
        let mut updated = rs.clone();
        updated.spec.replicas = Some(to);
        let a = &mut updated.metadata.annotations;
        a.insert(DESIRED_REPLICAS_ANNOTATION.into(), desired.to_string());
        a.insert(
            MAX_REPLICAS_ANNOTATION.into(),
            (desired + surge).to_string(),
        );
        if updated == *rs {
            return Ok(());
        }
        api.update(USER_AGENT, Object::ReplicaSet(Box::new(updated)))
            .map_err(|_| Requeue)?;
        if from != to {
            let dir = if to > from { "up" } else { "down" };
            let msg = format!(
                "Scaled {dir} replica set {} from {from} to {to}",
                rs.metadata.name
            );
            self.recorder.record(
                api,
                now,
                d_obj,
                EventType::Normal,
                "ScalingReplicaSet",
                &msg,
            );
        }
        Ok(())
    }

    // Long on purpose: `syncDeployment`'s one pass (find the ReplicaSets, create or adopt the
    // new one, then the strategy's scaling), in the real controller's order.
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(d_obj) = self.deployments.store().get(key) else {
            return Ok(Action::Done);
        };
        let Some(d) = d_obj.as_deployment() else {
            return Ok(Action::Done);
        };
        if d.metadata.deletion_timestamp.is_some() {
            return Ok(Action::Done);
        }
        let owned: Vec<ReplicaSet> = self
            .replicasets
            .store()
            .by_index(CONTROLLER_UID_INDEX, &d.metadata.uid)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_replica_set().cloned())
            .collect();
        let hash = pod_template_hash(&d.spec.template);
        let (new_rs, mut old): (Vec<ReplicaSet>, Vec<ReplicaSet>) = owned
            .into_iter()
            .partition(|rs| rs.metadata.labels.get(POD_TEMPLATE_HASH_LABEL) == Some(&hash));
        sort::sort_by_key(&mut old, |rs| {
            (rs.metadata.creation_timestamp, rs.metadata.name.clone())
        });
        let desired = d.spec.replicas.unwrap_or(1);
        let (surge, max_unavailable) = fenceposts(d);
        let max_old_revision = old.iter().map(revision).max().unwrap_or(0);
        let new_rs = new_rs.into_iter().next();
        if d.spec
            .strategy
            .as_ref()
            .is_some_and(|s| s.type_ == RECREATE)
        {
            return self.rollout_recreate(now, api, &d_obj, d, new_rs, &old, &hash);
        }
        let mut created = false;
        let new_rs = match new_rs {
            Some(rs) => rs,
            None => {
                let current: i32 = old.iter().map(replicas).sum();
                let start = if current == 0 {
                    desired
                } else {
                    (desired + surge - current).min(desired).max(0)
                };
                let rs = self.new_replica_set(d, &hash, start, max_old_revision + 1, surge);
                match api.create(USER_AGENT, Object::ReplicaSet(Box::new(rs))) {
                    Ok(o) => {
                        created = true;
                        if start > 0 {
                            let msg =
                                format!("Scaled up replica set {} from 0 to {start}", o.name());
                            self.recorder.record(
                                api,
                                now,
                                &d_obj,
                                EventType::Normal,
                                "ScalingReplicaSet",
                                &msg,
                            );
                        }
                        match o.as_replica_set() {
                            Some(rs) => rs.clone(),
                            None => return Ok(Action::Done),
                        }
                    }
                    // The cache has not shown it yet: wait for the watch.
                    Err(s) if s.reason() == StatusReason::AlreadyExists => return Err(Requeue),
                    Err(_) => return Err(Requeue),
                }
            }
        };
        if !created {
            // Keep the new ReplicaSet's revision the newest.
            if revision(&new_rs) <= max_old_revision {
                let mut r = new_rs.clone();
                r.metadata.annotations.insert(
                    REVISION_ANNOTATION.into(),
                    (max_old_revision + 1).to_string(),
                );
                api.update(USER_AGENT, Object::ReplicaSet(Box::new(r)))
                    .map_err(|_| Requeue)?;
                return Ok(Action::Done);
            }
            // reconcileNewReplicaSet
            let current: i32 = old.iter().map(replicas).sum::<i32>() + replicas(&new_rs);
            let target = if replicas(&new_rs) > desired {
                desired
            } else {
                let room = desired + surge - current;
                replicas(&new_rs) + room.max(0).min(desired - replicas(&new_rs))
            };
            if target != replicas(&new_rs) {
                self.scale(now, api, &d_obj, d, &new_rs, target)?;
                return Ok(Action::Done);
            }
            // reconcileOldReplicaSets
            self.scale_down_old(now, api, &d_obj, d, &new_rs, &old, desired, max_unavailable)?;
            self.cleanup_old(api, d, &old)?;
        }
        if self.sync_revision(api, d, &new_rs, max_old_revision)? {
            return Ok(Action::Done);
        }
        self.update_status(now, api, d, &new_rs, &old, created, max_unavailable)
            .map(|()| Action::Done)
    }

    /// Puts the new ReplicaSet's revision on the Deployment; true if it wrote.
    fn sync_revision(
        &self,
        api: &mut ApiServer,
        d: &Deployment,
        new_rs: &ReplicaSet,
        max_old_revision: i64,
    ) -> Result<bool, Requeue> {
        let rev = revision(new_rs).max(max_old_revision + 1).to_string();
        if d.metadata.annotations.get(REVISION_ANNOTATION) == Some(&rev) {
            return Ok(false);
        }
        let mut u = d.clone();
        u.metadata
            .annotations
            .insert(REVISION_ANNOTATION.into(), rev);
        api.update(USER_AGENT, Object::Deployment(Box::new(u)))
            .map_err(|_| Requeue)?;
        Ok(true)
    }

    /// `rolloutRecreate`: every old ReplicaSet is scaled to 0 and its pods gone before the new
    /// one is created (or scaled) at full size; no surge, no availability floor.
    #[allow(clippy::too_many_arguments)]
    fn rollout_recreate(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        d_obj: &Object,
        d: &Deployment,
        new_rs: Option<ReplicaSet>,
        old: &[ReplicaSet],
        hash: &str,
    ) -> Reconciled {
        let desired = d.spec.replicas.unwrap_or(1);
        let max_old_revision = old.iter().map(revision).max().unwrap_or(0);
        let mut scaled_down = false;
        for rs in old.iter().filter(|rs| replicas(rs) > 0) {
            self.scale(now, api, d_obj, d, rs, 0)?;
            scaled_down = true;
        }
        if scaled_down {
            return Ok(Action::Done);
        }
        if old_pods_running(api, d, old) {
            // The real controller hears of each pod's deletion; this one looks again.
            return Ok(Action::RequeueAfter(RECREATE_RECHECK_MS));
        }
        let Some(new_rs) = new_rs else {
            let rs = self.new_replica_set(d, hash, desired, max_old_revision + 1, 0);
            let created = api
                .create(USER_AGENT, Object::ReplicaSet(Box::new(rs)))
                .map_err(|_| Requeue)?;
            if desired > 0 {
                let msg = format!(
                    "Scaled up replica set {} from 0 to {desired}",
                    created.name()
                );
                self.recorder.record(
                    api,
                    now,
                    d_obj,
                    EventType::Normal,
                    "ScalingReplicaSet",
                    &msg,
                );
            }
            return Ok(Action::Done);
        };
        if revision(&new_rs) <= max_old_revision {
            let mut r = new_rs.clone();
            r.metadata.annotations.insert(
                REVISION_ANNOTATION.into(),
                (max_old_revision + 1).to_string(),
            );
            api.update(USER_AGENT, Object::ReplicaSet(Box::new(r)))
                .map_err(|_| Requeue)?;
            return Ok(Action::Done);
        }
        if replicas(&new_rs) != desired {
            return self
                .scale(now, api, d_obj, d, &new_rs, desired)
                .map(|()| Action::Done);
        }
        self.cleanup_old(api, d, old)?;
        if self.sync_revision(api, d, &new_rs, max_old_revision)? {
            return Ok(Action::Done);
        }
        // maxUnavailable is 0 for Recreate: Available means every replica available.
        self.update_status(now, api, d, &new_rs, old, false, 0)
            .map(|()| Action::Done)
    }

    #[allow(clippy::too_many_arguments)]
    fn scale_down_old(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        d_obj: &Object,
        d: &Deployment,
        new_rs: &ReplicaSet,
        old: &[ReplicaSet],
        desired: i32,
        max_unavailable: i32,
    ) -> Result<(), Requeue> {
        let old_count: i32 = old.iter().map(replicas).sum();
        if old_count == 0 {
            return Ok(());
        }
        let all: i32 = old_count + replicas(new_rs);
        let min_available = desired - max_unavailable;
        let new_unavailable = replicas(new_rs) - new_rs.status.available_replicas;
        let mut budget = all - min_available - new_unavailable;
        if budget <= 0 {
            return Ok(());
        }
        // Unhealthy old replicas first (cleanupUnhealthyReplicas).
        let mut plan: Vec<(usize, i32)> = old
            .iter()
            .map(|rs| (0, replicas(rs)))
            .enumerate()
            .map(|(i, (_, r))| (i, r))
            .collect();
        for (i, rs) in old.iter().enumerate() {
            let unhealthy = (replicas(rs) - rs.status.available_replicas).max(0);
            let cut = unhealthy.min(budget);
            if let Some(p) = plan.get_mut(i) {
                p.1 -= cut;
            }
            budget -= cut;
        }
        // Then available old replicas while availability stays above the floor.
        let available: i32 = old
            .iter()
            .map(|rs| rs.status.available_replicas)
            .sum::<i32>()
            + new_rs.status.available_replicas;
        let mut more = (available - min_available).min(budget).max(0);
        for p in &mut plan {
            if more == 0 {
                break;
            }
            let cut = p.1.min(more);
            p.1 -= cut;
            more -= cut;
        }
        for (i, to) in plan {
            if let Some(rs) = old.get(i) {
                if to != replicas(rs) {
                    self.scale(now, api, d_obj, d, rs, to)?;
                }
            }
        }
        Ok(())
    }

    /// `cleanupDeployment`: deletes the oldest empty ReplicaSets beyond revisionHistoryLimit.
    fn cleanup_old(
        &mut self,
        api: &mut ApiServer,
        d: &Deployment,
        old: &[ReplicaSet],
    ) -> Result<(), Requeue> {
        let limit = d.spec.revision_history_limit.unwrap_or(10).max(0) as usize;
        let mut empty: Vec<&ReplicaSet> = old
            .iter()
            .filter(|rs| {
                replicas(rs) == 0
                    && rs.status.replicas == 0
                    && rs.metadata.deletion_timestamp.is_none()
            })
            .collect();
        if empty.len() <= limit {
            return Ok(());
        }
        sort::sort_by_key(&mut empty, |rs| (revision(rs), rs.metadata.name.clone()));
        let surplus = empty.len() - limit;
        for rs in empty.into_iter().take(surplus) {
            let ns = Some(rs.metadata.namespace.as_str());
            match api.delete(
                USER_AGENT,
                Kind::ReplicaSet,
                ns,
                &rs.metadata.name,
                &Default::default(),
            ) {
                Ok(_) => {}
                Err(s) if s.reason() == StatusReason::NotFound => {}
                Err(_) => return Err(Requeue),
            }
        }
        Ok(())
    }

    fn new_replica_set(
        &self,
        d: &Deployment,
        hash: &str,
        replicas: i32,
        revision: i64,
        surge: i32,
    ) -> ReplicaSet {
        let mut template = d.spec.template.clone();
        template
            .metadata
            .labels
            .insert(POD_TEMPLATE_HASH_LABEL.into(), hash.into());
        let mut selector = d.spec.selector.clone().unwrap_or_default();
        selector
            .match_labels
            .insert(POD_TEMPLATE_HASH_LABEL.into(), hash.into());
        let desired = d.spec.replicas.unwrap_or(1);
        let mut meta = ObjectMeta::named(
            &d.metadata.namespace,
            &format!("{}-{hash}", d.metadata.name),
        );
        meta.labels = template.metadata.labels.clone();
        meta.owner_references = vec![controller_ref("Deployment", &d.metadata)].into();
        for (k, v) in [
            (DESIRED_REPLICAS_ANNOTATION, desired.to_string()),
            (MAX_REPLICAS_ANNOTATION, (desired + surge).to_string()),
            (REVISION_ANNOTATION, revision.to_string()),
        ] {
            meta.annotations.insert(k.into(), v);
        }
        ReplicaSet {
            metadata: meta,
            spec: ReplicaSetSpec {
                replicas: Some(replicas),
                min_ready_seconds: d.spec.min_ready_seconds,
                selector: Some(selector),
                template,
            },
            status: Default::default(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn update_status(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        d: &Deployment,
        new_rs: &ReplicaSet,
        old: &[ReplicaSet],
        created: bool,
        max_unavailable: i32,
    ) -> Result<(), Requeue> {
        let all: Vec<&ReplicaSet> = old.iter().chain(std::iter::once(new_rs)).collect();
        let desired = d.spec.replicas.unwrap_or(1);
        let mut s = d.status.clone();
        s.observed_generation = d.metadata.generation.unwrap_or(0);
        s.replicas = all.iter().map(|r| r.status.replicas).sum();
        s.updated_replicas = new_rs.status.replicas;
        s.ready_replicas = all.iter().map(|r| r.status.ready_replicas).sum();
        s.available_replicas = all.iter().map(|r| r.status.available_replicas).sum();
        s.unavailable_replicas = (desired - s.available_replicas).max(0);
        let (status, reason, message) = if s.available_replicas >= desired - max_unavailable {
            (
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".to_string(),
            )
        } else {
            (
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".to_string(),
            )
        };
        set_condition(
            &mut s.conditions,
            "Available",
            status,
            reason,
            &message,
            now,
        );
        let name = &new_rs.metadata.name;
        let complete = s.updated_replicas == desired
            && s.available_replicas == desired
            && s.replicas == desired;
        let (reason, message) = if created {
            (
                "NewReplicaSetCreated",
                format!("Created new replica set {name:?}"),
            )
        } else if complete {
            (
                "NewReplicaSetAvailable",
                format!("ReplicaSet {name:?} has successfully progressed."),
            )
        } else {
            (
                "ReplicaSetUpdated",
                format!("ReplicaSet {name:?} is progressing."),
            )
        };
        set_condition(
            &mut s.conditions,
            "Progressing",
            "True",
            reason,
            &message,
            now,
        );
        if s == d.status {
            return Ok(());
        }
        let mut u = d.clone();
        u.status = s;
        api.update_status(USER_AGENT, Object::Deployment(Box::new(u)))
            .map(|_| ())
            .map_err(|_| Requeue)
    }
}

/// Sets a workload condition; lastTransitionTime moves only when the status changes,
/// lastUpdateTime whenever anything changes.
fn set_condition(
    conditions: &mut Vec<WorkloadCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: Timestamp,
) {
    match conditions.iter_mut().find(|c| c.type_ == type_) {
        Some(c) => {
            if c.status != status {
                c.last_transition_time = Some(now);
            }
            if c.status != status || c.reason != reason || c.message != message {
                c.last_update_time = Some(now);
            }
            c.status = status.into();
            c.reason = reason.into();
            c.message = message.into();
        }
        None => conditions.push(WorkloadCondition {
            type_: type_.into(),
            status: status.into(),
            last_update_time: Some(now),
            last_transition_time: Some(now),
            reason: reason.into(),
            message: message.into(),
        }),
    }
}

impl Reconciler for DeploymentController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.deployments).into(), (&self.replicasets).into()]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.deployments.step(now, api) {
            queue.add(note.key());
        }
        for note in self.replicasets.step(now, api) {
            Self::on_replica_set(note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.deployments.has_synced() && self.replicasets.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.deployments.next_wakeup(),
            self.replicasets.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_hash_is_stable_and_uses_the_safe_alphabet() {
        let t = PodTemplateSpec::default();
        let h = pod_template_hash(&t);
        assert_eq!(h, pod_template_hash(&t.clone()));
        assert!(h.bytes().all(|c| b"456789bcdf".contains(&c)), "{h}");
        let mut other = t;
        other.metadata.labels.insert("app".into(), "x".into());
        assert_ne!(pod_template_hash(&other), h);
    }

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        let mut d = Deployment::default();
        d.spec.replicas = Some(3);
        assert_eq!(fenceposts(&d), (1, 0));
        d.spec.replicas = Some(10);
        assert_eq!(fenceposts(&d), (3, 2));
        d.spec.replicas = Some(1);
        assert_eq!(fenceposts(&d), (1, 0));
    }
}
