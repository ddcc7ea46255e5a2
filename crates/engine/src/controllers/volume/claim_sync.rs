//! The PV controller's claim sync (`syncClaim`, `syncUnboundClaim`, `syncBoundClaim`,
//! `provisionClaim` in pkg/controller/volume/persistentvolume/pv_controller.go): what a claim
//! needs next — a default class, a volume to bind, a provisioner, a wait for its first
//! consumer, or, once bound, a check that its volume still points back at it.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::matching::{self, find_matching_volume, Wanted};
use super::{PersistentVolumeController, VolumeKey, RESYNC_PERIOD_MS, USER_AGENT};
use crate::api::storage::{
    PersistentVolumeClaim, StorageClass, BETA_STORAGE_PROVISIONER, BIND_COMPLETED,
    BOUND_BY_CONTROLLER, STORAGE_PROVISIONER,
};
use crate::api::Object;
use crate::apiserver::{admission, ApiServer};
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::controllers::runtime::{Action, Reconciled};
use crate::controllers::Requeue;

/// `volume.NotSupportedProvisioner`: a class whose volumes are all made by hand.
pub const NOT_SUPPORTED_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// What an unbound claim waits for, looked at again after the resync period.
const RESYNC: Reconciled = Ok(Action::RequeueAfter(RESYNC_PERIOD_MS));

impl PersistentVolumeController {
    /// The class a claim names, if it exists.
    pub(super) fn class_named(&self, name: &str) -> Option<Arc<Object>> {
        if name.is_empty() {
            return None;
        }
        self.classes.store().get(&ObjectKey::new(None, name))
    }

    /// `syncClaim`: a claim whose binding completed is checked, any other is bound.
    pub(super) fn sync_claim(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
    ) -> Reconciled {
        let Some(claim) = obj.as_persistent_volume_claim() else {
            return Ok(Action::Done);
        };
        if claim.metadata.annotations.contains_key(BIND_COMPLETED) {
            self.sync_bound_claim(now, api, obj, claim)
        } else if claim.spec.volume_name.is_empty() {
            self.sync_unbound_claim(now, api, obj, claim)
        } else {
            self.sync_claim_asking_for(now, api, obj, claim)
        }
    }

    /// `syncUnboundClaim` for a claim that names no volume.
    fn sync_unbound_claim(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        claim: &PersistentVolumeClaim,
    ) -> Reconciled {
        let class = self.class_named(matching::claim_class(claim));
        let delay = class
            .as_ref()
            .and_then(|c| c.as_storage_class())
            .is_some_and(matching::waits_for_first_consumer);
        let excluded = BTreeSet::new();
        let wanted = Wanted {
            claim,
            node: None,
            excluded: &excluded,
            delay_binding: delay,
        };
        let volumes = self.volumes.store().list();
        if let Some(pv) = find_matching_volume(&wanted, &volumes) {
            let pv = self.fresh(&VolumeKey::Volume(crate::client::ObjectKey::of(&pv)));
            return match pv {
                Some(pv) => self.bind(now, api, &pv, obj).map(|()| Action::Done),
                None => RESYNC,
            };
        }
        if self.assign_default_class(api, claim)? {
            return Ok(Action::Done);
        }
        let key = ObjectKey::new(Some(&claim.metadata.namespace), &claim.metadata.name);
        if delay && matching::selected_node(claim).is_none() {
            self.wait_for_first_consumer(now, api, obj, &key);
        } else if !matching::claim_class(claim).is_empty() {
            self.provision_claim(now, api, obj, claim)?;
            return RESYNC;
        } else {
            let msg = "no persistent volumes available for this claim and no storage class is set";
            self.recorder
                .record(api, now, obj, EventType::Normal, "FailedBinding", msg);
        }
        self.update_claim_status(api, obj, "Pending", None)?;
        RESYNC
    }

    /// `emitEventForUnboundDelayBindingClaim`: the claim waits for a pod using it to be
    /// scheduled.
    fn wait_for_first_consumer(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        key: &ObjectKey,
    ) {
        let pods = self.unscheduled_pods_of(key);
        let (reason, msg) = match pods.as_slice() {
            [] => (
                "WaitForFirstConsumer",
                "waiting for first consumer to be created before binding".to_string(),
            ),
            [one] => (
                "WaitForPodScheduled",
                format!("waiting for pod {one} to be scheduled"),
            ),
            many => (
                "WaitForPodScheduled",
                format!("waiting for pods {} to be scheduled", many.join(",")),
            ),
        };
        self.recorder
            .record(api, now, obj, EventType::Normal, reason, &msg);
    }

    /// `assignDefaultStorageClass` (RetroactiveDefaultStorageClass): a claim created with no
    /// class at all while the cluster had no default is given the default class once there is
    /// one. `Ok(true)` when the claim was written (its next sync goes on).
    fn assign_default_class(
        &mut self,
        api: &mut ApiServer,
        claim: &PersistentVolumeClaim,
    ) -> Result<bool, Requeue> {
        let named = claim.spec.storage_class_name.is_some()
            || claim
                .metadata
                .annotations
                .contains_key(admission::BETA_STORAGE_CLASS);
        if named {
            return Ok(false);
        }
        let classes = self.classes.store().list();
        let Some(default) =
            admission::default_class(classes.iter().filter_map(|c| c.as_storage_class()))
        else {
            return Ok(false);
        };
        let mut c = claim.clone();
        c.spec.storage_class_name = Some(default.metadata.name.clone());
        self.write_claim(api, c).map(|_| true)
    }

    /// `provisionClaim` → `provisionClaimOperation(External)`: a claim of a class whose
    /// provisioner is external gets the provisioner's name in its annotations and an
    /// `ExternalProvisioning` event (each sync while it waits); a missing class, or an in-tree
    /// provisioner name (none is built in here), is a `ProvisioningFailed` warning.
    fn provision_claim(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        claim: &PersistentVolumeClaim,
    ) -> Result<(), Requeue> {
        let class_name = matching::claim_class(claim);
        let class = self.class_named(class_name);
        let Some(class) = class.as_ref().and_then(|c| c.as_storage_class()) else {
            let msg = format!("storageclass.storage.k8s.io {class_name:?} not found");
            self.recorder.record(
                api,
                now,
                obj,
                EventType::Warning,
                "ProvisioningFailed",
                &msg,
            );
            return Ok(());
        };
        let provisioner = class.provisioner.as_str();
        if provisioner.starts_with("kubernetes.io/") {
            let msg = format!("no volume plugin matched name: {provisioner}");
            self.recorder.record(
                api,
                now,
                obj,
                EventType::Warning,
                "ProvisioningFailed",
                &msg,
            );
            return Ok(());
        }
        let written = self.set_claim_provisioner(api, claim, class)?;
        let msg = format!(
            "Waiting for a volume to be created either by the external provisioner '{provisioner}' \
             or manually by the system administrator. If volume creation is delayed, please \
             verify that the provisioner is running and correctly registered."
        );
        let about = written.as_ref().unwrap_or(obj);
        self.recorder.record(
            api,
            now,
            about,
            EventType::Normal,
            "ExternalProvisioning",
            &msg,
        );
        Ok(())
    }

    /// `setClaimProvisioner`: both `storage-provisioner` annotations name the class's
    /// provisioner (written only when they do not yet).
    fn set_claim_provisioner(
        &mut self,
        api: &mut ApiServer,
        claim: &PersistentVolumeClaim,
        class: &StorageClass,
    ) -> Result<Option<Arc<Object>>, Requeue> {
        let provisioner = &class.provisioner;
        let annotations = &claim.metadata.annotations;
        let set = [STORAGE_PROVISIONER, BETA_STORAGE_PROVISIONER]
            .iter()
            .all(|a| annotations.get(*a) == Some(provisioner));
        if set {
            return Ok(None);
        }
        let mut c = claim.clone();
        for a in [STORAGE_PROVISIONER, BETA_STORAGE_PROVISIONER] {
            c.metadata
                .annotations
                .insert(a.to_string(), provisioner.clone());
        }
        self.write_claim(api, c).map(Some)
    }

    /// `syncUnboundClaim` for a claim that asks for a volume by name: bound to it if it is free
    /// or already points at the claim; else the claim waits.
    fn sync_claim_asking_for(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        claim: &PersistentVolumeClaim,
    ) -> Reconciled {
        let key = VolumeKey::Volume(ObjectKey::new(None, &claim.spec.volume_name));
        let Some(pv_obj) = self.fresh(&key) else {
            self.update_claim_status(api, obj, "Pending", None)?;
            return RESYNC;
        };
        let Some(pv) = pv_obj.as_persistent_volume() else {
            return Ok(Action::Done);
        };
        if pv.spec.claim_ref.is_none() || matching::is_volume_bound_to_claim(pv, claim) {
            return self.bind(now, api, &pv_obj, obj).map(|()| Action::Done);
        }
        if claim.metadata.annotations.contains_key(BOUND_BY_CONTROLLER) {
            // Bound by this controller to a volume another claim holds: never expected.
            return Err(Requeue);
        }
        self.update_claim_status(api, obj, "Pending", None)?;
        RESYNC
    }

    /// `syncBoundClaim`: a claim whose volume is gone, or no longer names it, is `Lost`; one
    /// whose volume lost its `claimRef` is bound again; otherwise the binding is completed (a
    /// status not yet written).
    fn sync_bound_claim(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        claim: &PersistentVolumeClaim,
    ) -> Reconciled {
        if claim.spec.volume_name.is_empty() {
            let msg =
                "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!";
            return self.claim_lost(now, api, obj, "ClaimLost", msg);
        }
        let key = VolumeKey::Volume(ObjectKey::new(None, &claim.spec.volume_name));
        let Some(pv_obj) = self.fresh(&key) else {
            let msg = "Bound claim has lost its PersistentVolume. Data on the volume is lost!";
            return self.claim_lost(now, api, obj, "ClaimLost", msg);
        };
        let Some(pv) = pv_obj.as_persistent_volume() else {
            return Ok(Action::Done);
        };
        let ours = pv
            .spec
            .claim_ref
            .as_ref()
            .is_none_or(|r| r.uid == claim.metadata.uid);
        if !ours {
            let msg = "Two claims are bound to the same volume, this one is bound incorrectly";
            return self.claim_lost(now, api, obj, "ClaimMisbound", msg);
        }
        self.bind(now, api, &pv_obj, obj).map(|()| Action::Done)
    }

    /// `updateClaimStatusWithEvent(Lost)`: the warning only when the phase changes.
    fn claim_lost(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        reason: &'static str,
        msg: &str,
    ) -> Reconciled {
        let was_lost = obj
            .as_persistent_volume_claim()
            .is_some_and(|c| c.status.phase == "Lost");
        if !was_lost {
            self.recorder
                .record(api, now, obj, EventType::Warning, reason, msg);
        }
        self.update_claim_status(api, obj, "Lost", None)?;
        Ok(Action::Done)
    }

    /// Writes a claim's spec and metadata (PUT) as the binder, remembering the result.
    pub(super) fn write_claim(
        &mut self,
        api: &mut ApiServer,
        claim: PersistentVolumeClaim,
    ) -> Result<Arc<Object>, Requeue> {
        let key = VolumeKey::Claim(ObjectKey::new(
            Some(&claim.metadata.namespace),
            &claim.metadata.name,
        ));
        let written = api
            .update(USER_AGENT, Object::PersistentVolumeClaim(Box::new(claim)))
            .map_err(|_| Requeue)?;
        self.remember(key, written.clone());
        Ok(written)
    }
}
