//! The storage-object-in-use protection controllers of kube-controller-manager: pvc-protection
//! (`pkg/controller/volume/pvcprotection/pvc_protection_controller.go`) and pv-protection
//! (`pkg/controller/volume/pvprotection/pv_protection_controller.go`). Admission gives every new
//! claim the `kubernetes.io/pvc-protection` finalizer and every new volume
//! `kubernetes.io/pv-protection` (these controllers add them to objects that lack them); a
//! deleted object keeps its finalizer, and so stays `Terminating`, while it is used:
//! - a claim, while a pod that names it is on a node and not shut down (`podUsesPVC`: a
//!   finished pod that still exists counts; one deleted with no grace left does not) — looked
//!   up in the pods-by-claim index, and, when that finds none, in a live list of the
//!   namespace's pods (`askAPIServer`), so a pod the informer has not shown yet still counts;
//! - a volume, while it is `Bound`.
//!
//! Then the finalizer is removed and the API server finishes the deletion. A claim being
//! deleted is looked at again whenever a pod naming it changes or goes.

use std::sync::Arc;

use super::pod_claims::{claims_of, PodClaims};
use crate::api::pod::Pod;
use crate::api::storage::{PVC_PROTECTION, PV_PROTECTION};
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::controllers::earliest;
use crate::controllers::runtime::{Action, Reconciled, Reconciler};
use crate::controllers::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use crate::controllers::Requeue;
use watchlab_apimachinery::request::ListOptions;

pub const PVC_USER_AGENT: &str = "pvc-protection-controller";
pub const PV_USER_AGENT: &str = "pv-protection-controller";

/// `protectionutil.IsDeletionCandidate`: being deleted and still holding `finalizer`.
fn is_deletion_candidate(obj: &Object, finalizer: &str) -> bool {
    let m = obj.meta();
    m.deletion_timestamp.is_some() && m.finalizers.iter().any(|f| f == finalizer)
}

/// `protectionutil.NeedToAddFinalizer`: not being deleted and without `finalizer`.
fn needs_finalizer(obj: &Object, finalizer: &str) -> bool {
    let m = obj.meta();
    m.deletion_timestamp.is_none() && !m.finalizers.iter().any(|f| f == finalizer)
}

/// `addFinalizer` / `removeFinalizer`: the object written (PUT) with or without `finalizer`.
fn set_finalizer(
    api: &mut ApiServer,
    user: &str,
    obj: &Object,
    finalizer: &str,
    present: bool,
) -> Result<(), Requeue> {
    let mut o = obj.clone();
    let finalizers = &mut o.meta_mut().finalizers;
    finalizers.retain(|f| f != finalizer);
    if present {
        finalizers.push(finalizer.to_string());
    }
    api.update(user, o).map(|_| ()).map_err(|_| Requeue)
}

/// `podIsShutDown`: the kubelet is done with the pod (deleted with no grace period left), or
/// it was force-deleted.
fn is_shut_down(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
        && pod.metadata.deletion_grace_period_seconds == Some(0)
}

/// `podUsesPVC`: the pod names the claim, is on a node (a kubelet never starts a pod whose
/// claim is being deleted) and is not shut down.
fn uses(pod: &Pod, claim: &str) -> bool {
    !pod.spec.node_name.is_empty()
        && !is_shut_down(pod)
        && pod.spec.claim_volumes().any(|(_, c)| c == claim)
}

/// The pvc-protection controller.
pub struct PvcProtectionController {
    claims: SharedInformer,
    pods: SharedInformer,
    pod_claims: PodClaims,
}

impl PvcProtectionController {
    pub fn new(informers: &SharedInformers) -> Self {
        PvcProtectionController {
            claims: informers.reader(Kind::PersistentVolumeClaim),
            pods: informers.reader(Kind::Pod),
            pod_claims: PodClaims::default(),
        }
    }

    /// `pvcAddedUpdated`: a claim to protect, or to release.
    fn on_claim(note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let obj = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => o,
            Notification::Delete(_) => return,
        };
        if needs_finalizer(obj, PVC_PROTECTION) || is_deletion_candidate(obj, PVC_PROTECTION) {
            queue.add(note.key());
        }
    }

    /// `podAddedDeletedUpdated`: the index kept, and the claims being deleted that the pod
    /// names looked at again (the pod may have stopped using them).
    fn on_pod(&mut self, note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let claims = match note {
            Notification::Add(o) => match o.as_pod().filter(|p| !p.spec.volumes.is_empty()) {
                Some(p) => self.pod_claims.add(p),
                None => return,
            },
            Notification::Update { new, .. } => match new.as_pod() {
                Some(p) => claims_of(p),
                None => return,
            },
            Notification::Delete(d) => match d.object().as_pod() {
                Some(p) => self.pod_claims.remove(p),
                None => return,
            },
        };
        if claims.is_empty() {
            return;
        }
        let store = self.claims.store();
        for claim in claims {
            let deleting = store
                .get(&claim)
                .is_some_and(|c| is_deletion_candidate(&c, PVC_PROTECTION));
            if deleting {
                queue.add(claim);
            }
        }
    }

    /// `isBeingUsed`: a pod using the claim in the informer's cache, else in a live list.
    fn is_being_used(&self, api: &ApiServer, key: &ObjectKey, name: &str) -> bool {
        let store = self.pods.store();
        let cached = self
            .pod_claims
            .pods_of(key)
            .iter()
            .filter_map(|k| store.get(k))
            .any(|o| o.as_pod().is_some_and(|p| uses(p, name)));
        if cached {
            return true;
        }
        let (ns, _) = key.split();
        match api.list(Kind::Pod, ns, &ListOptions::default()) {
            Ok(list) => list
                .items
                .iter()
                .any(|o| o.as_pod().is_some_and(|p| uses(p, name))),
            // Unsure: keep the claim.
            Err(_) => true,
        }
    }
}

impl Reconciler for PvcProtectionController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        PVC_USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.claims).into(), (&self.pods).into()]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        for note in self.claims.step(now, api) {
            Self::on_claim(&note, queue);
        }
        for note in self.pods.step(now, api) {
            self.on_pod(&note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.claims.has_synced() && self.pods.has_synced()
    }

    /// `processPVC`.
    fn reconcile(&mut self, _now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(claim) = self.claims.store().get(key) else {
            return Ok(Action::Done);
        };
        if is_deletion_candidate(&claim, PVC_PROTECTION) {
            if !self.is_being_used(api, key, claim.name()) {
                set_finalizer(api, PVC_USER_AGENT, &claim, PVC_PROTECTION, false)?;
            }
        } else if needs_finalizer(&claim, PVC_PROTECTION) {
            set_finalizer(api, PVC_USER_AGENT, &claim, PVC_PROTECTION, true)?;
        }
        Ok(Action::Done)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([self.claims.next_wakeup(), self.pods.next_wakeup()])
    }
}

/// The pv-protection controller.
pub struct PvProtectionController {
    volumes: SharedInformer,
}

impl PvProtectionController {
    pub fn new(informers: &SharedInformers) -> Self {
        PvProtectionController {
            volumes: informers.reader(Kind::PersistentVolume),
        }
    }
}

impl Reconciler for PvProtectionController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        PV_USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.volumes).into()]
    }

    /// `pvAddedUpdated`.
    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        for note in self.volumes.step(now, api) {
            if let Notification::Add(o) | Notification::Update { new: o, .. } = &note {
                if needs_finalizer(o, PV_PROTECTION) || is_deletion_candidate(o, PV_PROTECTION) {
                    queue.add(note.key());
                }
            }
        }
    }

    fn has_synced(&self) -> bool {
        self.volumes.has_synced()
    }

    /// `processPV`: a volume being deleted keeps its finalizer while `Bound` (`isBeingUsed`).
    fn reconcile(&mut self, _now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(pv) = self.volumes.store().get(key) else {
            return Ok(Action::Done);
        };
        if is_deletion_candidate(&pv, PV_PROTECTION) {
            let bound = pv
                .as_persistent_volume()
                .is_some_and(|v| v.status.phase == "Bound");
            if !bound {
                set_finalizer(api, PV_USER_AGENT, &pv, PV_PROTECTION, false)?;
            }
        } else if needs_finalizer(&pv, PV_PROTECTION) {
            set_finalizer(api, PV_USER_AGENT, &pv, PV_PROTECTION, true)?;
        }
        Ok(Action::Done)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        self.volumes.next_wakeup()
    }
}
