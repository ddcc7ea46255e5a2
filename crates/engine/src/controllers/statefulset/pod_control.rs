//! The StatefulSet controller's writes to pods and claims (stateful_pod_control.go
//! `StatefulPodControl`): a pod's claims are created before the pod (`CreateStatefulPod`), a
//! pod that lost its identity or its volumes is updated back (`UpdateStatefulPod`), deletes
//! are plain, and the claims' owner references follow the retention policy
//! (`UpdatePodClaimForRetentionPolicy`). Every write is an event on the set, in upstream's
//! words: `create Pod web-0 in StatefulSet web successful`, `create Claim www-web-0 Pod web-0
//! in StatefulSet web success`, `delete Pod web-2 in StatefulSet web successful`, or
//! `... failed error: <why>` as a warning.
//!
//! Claims are read from the claim cache, as upstream reads its lister.

use std::sync::Arc;

use crate::api::apps::StatefulSet;
use crate::api::pod::Pod;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::client::Store;
use crate::clock::Timestamp;
use crate::controllers::events::{EventRecorder, EventType};
use crate::controllers::Requeue;
use watchlab_apimachinery::status::{Status, StatusReason};

use super::identity::{
    claim_name, claims_for, identity_matches, ordinal_of, storage_matches, update_identity,
    update_storage,
};
use super::retention::{
    has_stale_pod_ref, has_unexpected_controller, is_claim_owner_up_to_date, policy,
    updated_owner_refs,
};
use super::USER_AGENT;

/// A write's verb, as the events spell it.
#[derive(Clone, Copy)]
enum Verb {
    Create,
    Update,
    Delete,
}

impl Verb {
    fn word(self) -> &'static str {
        match self {
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Delete => "delete",
        }
    }

    /// `Successful<Verb>` / `Failed<Verb>`.
    fn reason(self, ok: bool) -> &'static str {
        match (self, ok) {
            (Verb::Create, true) => "SuccessfulCreate",
            (Verb::Create, false) => "FailedCreate",
            (Verb::Update, true) => "SuccessfulUpdate",
            (Verb::Update, false) => "FailedUpdate",
            (Verb::Delete, true) => "SuccessfulDelete",
            (Verb::Delete, false) => "FailedDelete",
        }
    }
}

/// `utilerrors.NewAggregate(errs).Error()`: one error as itself, several in brackets.
fn aggregate(errs: &[String]) -> String {
    match errs {
        [one] => one.clone(),
        _ => format!("[{}]", errs.join(", ")),
    }
}

/// One sync's pod and claim writes for one set.
pub struct PodControl<'a> {
    pub api: &'a mut ApiServer,
    pub recorder: &'a mut EventRecorder,
    pub claims: &'a Store<Arc<Object>>,
    pub now: Timestamp,
    /// The set, as the events' involved object.
    pub set_obj: &'a Object,
    pub set: &'a StatefulSet,
}

impl PodControl<'_> {
    fn event(&mut self, verb: Verb, what: String, err: Option<&str>) {
        let (kind, msg) = match err {
            None => (EventType::Normal, what),
            Some(e) => (EventType::Warning, format!("{what} failed error: {e}")),
        };
        let reason = verb.reason(err.is_none());
        self.recorder
            .record(self.api, self.now, self.set_obj, kind, reason, &msg);
    }

    /// `recordPodEvent`.
    fn pod_event(&mut self, verb: Verb, pod: &str, err: Option<&str>) {
        let set = &self.set.metadata.name;
        let what = format!("{} Pod {pod} in StatefulSet {set}", verb.word());
        match err {
            None => self.event(verb, format!("{what} successful"), None),
            Some(_) => self.event(verb, what, err),
        }
    }

    /// `recordClaimEvent`.
    fn claim_event(&mut self, verb: Verb, claim: &str, pod: &str, err: Option<&str>) {
        let (w, set) = (verb.word(), &self.set.metadata.name);
        match err {
            None => {
                let msg = format!("{w} Claim {claim} Pod {pod} in StatefulSet {set} success");
                self.event(verb, msg, None);
            }
            Some(_) => {
                let what = format!("{w} Claim {claim} for Pod {pod} in StatefulSet {set}");
                self.event(verb, what, err);
            }
        }
    }

    fn claim(&self, name: &str) -> Option<Arc<Object>> {
        self.claims
            .get_by_name(Some(&self.set.metadata.namespace), name)
            .filter(|o| o.as_persistent_volume_claim().is_some())
    }

    /// `createPersistentVolumeClaims`: creates the pod's missing claims; the errors, joined.
    fn create_claims(&mut self, pod: &str) -> Result<(), String> {
        let Some(ordinal) = ordinal_of(pod) else {
            return Ok(());
        };
        let mut errs = Vec::new();
        for (_, claim) in claims_for(self.set, ordinal) {
            let name = claim.metadata.name.clone();
            match self.claim(&name) {
                None => match self.api.create(USER_AGENT, Object::from(claim)) {
                    Ok(_) => self.claim_event(Verb::Create, &name, pod, None),
                    Err(s) => {
                        let e = format!("failed to create PVC {name}: {}", s.message());
                        if s.reason() != StatusReason::AlreadyExists {
                            self.claim_event(Verb::Create, &name, pod, Some(s.message()));
                        }
                        errs.push(e);
                    }
                },
                Some(c) if c.meta().deletion_timestamp.is_some() => {
                    errs.push(format!("pvc {name} is being deleted"));
                }
                Some(_) => {}
            }
        }
        match errs.is_empty() {
            true => Ok(()),
            false => Err(aggregate(&errs)),
        }
    }

    /// `CreateStatefulPod`: the claims, then the pod, then the claims' owners.
    pub fn create_pod(&mut self, pod: Pod) -> Result<(), Requeue> {
        let name = pod.metadata.name.clone();
        if let Err(e) = self.create_claims(&name) {
            self.pod_event(Verb::Create, &name, Some(&e));
            return Err(Requeue);
        }
        let meta = pod.metadata.clone();
        let created = self.api.create(USER_AGENT, Object::Pod(pod));
        if let Err(s) = &created {
            if s.reason() == StatusReason::AlreadyExists {
                return Err(Requeue);
            }
        }
        if let Err(e) = self.update_claims_for_retention(&meta) {
            self.pod_event(Verb::Update, &name, Some(&e));
            return Err(Requeue);
        }
        let err = created.as_ref().err().map(Status::message);
        self.pod_event(Verb::Create, &name, err);
        created.map(|_| ()).map_err(|_| Requeue)
    }

    /// `createMissingPersistentVolumeClaims`, for a pending pod.
    pub fn create_missing_claims(&mut self, pod: &ObjectMeta) -> Result<(), Requeue> {
        self.create_claims(&pod.name).map_err(|_| Requeue)?;
        if let Err(e) = self.update_claims_for_retention(pod) {
            self.pod_event(Verb::Update, &pod.name, Some(&e));
            return Err(Requeue);
        }
        Ok(())
    }

    /// `UpdateStatefulPod`: puts back the pod's identity and volumes (creating missing
    /// claims) and its claims' owners; the pod is written when any was off.
    pub fn update_pod(&mut self, current: &Pod) -> Result<(), Requeue> {
        let mut pod = current.clone();
        let mut consistent = true;
        if !identity_matches(self.set, &pod) {
            update_identity(self.set, &mut pod);
            consistent = false;
        }
        if !storage_matches(self.set, &pod) {
            let ordinal = ordinal_of(&pod.metadata.name).unwrap_or_default();
            update_storage(self.set, Arc::make_mut(&mut pod.spec), ordinal);
            consistent = false;
            if let Err(e) = self.create_claims(&pod.metadata.name) {
                self.pod_event(Verb::Update, &pod.metadata.name, Some(&e));
                return Err(Requeue);
            }
        }
        if !self.claims_match_retention(&pod.metadata) {
            if let Err(e) = self.update_claims_for_retention(&pod.metadata) {
                self.pod_event(Verb::Update, &pod.metadata.name, Some(&e));
                return Err(Requeue);
            }
            consistent = false;
        }
        if consistent {
            return Ok(());
        }
        let name = pod.metadata.name.clone();
        let result = self.api.update(USER_AGENT, Object::Pod(pod));
        self.pod_event(
            Verb::Update,
            &name,
            result.as_ref().err().map(Status::message),
        );
        result.map(|_| ()).map_err(|_| Requeue)
    }

    /// `DeleteStatefulPod`.
    pub fn delete_pod(&mut self, pod: &Pod) -> Result<(), Status> {
        let m = &pod.metadata;
        let result = self.api.delete(
            USER_AGENT,
            Kind::Pod,
            Some(&m.namespace),
            &m.name,
            &Default::default(),
        );
        let name = m.name.clone();
        self.pod_event(
            Verb::Delete,
            &name,
            result.as_ref().err().map(Status::message),
        );
        result.map(|_| ())
    }

    /// `ClaimsMatchRetentionPolicy`: every existing claim of the pod has the owners the policy
    /// wants.
    pub fn claims_match_retention(&self, pod: &ObjectMeta) -> bool {
        let Some(ordinal) = ordinal_of(&pod.name) else {
            return true;
        };
        self.set.spec.volume_claim_templates.iter().all(|t| {
            let name = claim_name(self.set, &t.metadata.name, ordinal);
            self.claim(&name)
                .is_none_or(|c| is_claim_owner_up_to_date(c.meta(), self.set, pod))
        })
    }

    /// `UpdatePodClaimForRetentionPolicy`: rewrites the owners of the pod's claims that are off.
    pub fn update_claims_for_retention(&mut self, pod: &ObjectMeta) -> Result<(), String> {
        let Some(ordinal) = ordinal_of(&pod.name) else {
            return Ok(());
        };
        for t in &self.set.spec.volume_claim_templates {
            let name = claim_name(self.set, &t.metadata.name, ordinal);
            let Some(obj) = self.claim(&name) else {
                continue;
            };
            let Some(claim) = obj.as_persistent_volume_claim() else {
                continue;
            };
            if has_unexpected_controller(&claim.metadata, self.set, pod) {
                // Upstream's spelling ("manging").
                let msg = format!(
                    "PersistentVolumeClaim {name} has a conflicting OwnerReference that acts as \
                     a manging controller, the retention policy is ignored for this claim"
                );
                let (api, now, set) = (&mut *self.api, self.now, self.set_obj);
                let reason = "ConflictingController";
                self.recorder
                    .record(api, now, set, EventType::Warning, reason, &msg);
            }
            if is_claim_owner_up_to_date(&claim.metadata, self.set, pod) {
                continue;
            }
            let mut updated = claim.clone();
            updated.metadata.owner_references =
                updated_owner_refs(&claim.metadata, self.set, pod).into();
            if let Err(s) = self.api.update(USER_AGENT, Object::from(updated)) {
                let msg = s.message();
                return Err(format!(
                    "could not update claim {name} for delete policy ownerRefs: {msg}"
                ));
            }
        }
        Ok(())
    }

    /// `PodClaimIsStale`: under `whenScaled: Delete`, a claim still owned by an earlier pod of
    /// the name blocks the new pod until the garbage collector has deleted it.
    pub fn claim_is_stale(&self, pod: &ObjectMeta) -> bool {
        if !policy(self.set).delete_when_scaled {
            return false;
        }
        let Some(ordinal) = ordinal_of(&pod.name) else {
            return false;
        };
        claims_for(self.set, ordinal).iter().any(|(_, c)| {
            self.claim(&c.metadata.name)
                .is_some_and(|o| has_stale_pod_ref(o.meta(), pod))
        })
    }
}
