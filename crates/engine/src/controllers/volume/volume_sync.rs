//! The PV controller's volume sync (`syncVolume` and `reclaimVolume` in pv_controller.go): a
//! free volume is `Available`; one pre-bound to a claim that is not yet bound hands over to the
//! claim's sync at once (how a provisioned volume gets bound); one whose claim is gone is
//! `Released` and reclaimed as its policy says.

use std::sync::Arc;

use super::{PersistentVolumeController, VolumeKey};
use crate::api::storage::{PersistentVolume, BOUND_BY_CONTROLLER, PROVISIONED_BY};
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::controllers::runtime::{Action, Reconciled};
use crate::controllers::Requeue;

impl PersistentVolumeController {
    /// `syncVolume`.
    pub(super) fn sync_volume(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
    ) -> Reconciled {
        let Some(pv) = obj.as_persistent_volume() else {
            return Ok(Action::Done);
        };
        let Some(claim_ref) = pv.spec.claim_ref.as_ref().filter(|r| !r.uid.is_empty()) else {
            // Free, or pre-bound by its creator to a claim that will come: Available.
            self.update_volume_phase(now, api, obj, "Available", "")?;
            return Ok(Action::Done);
        };
        let claim = self.claim_of(api, pv, &claim_ref.namespace, &claim_ref.name);
        let claim = claim.filter(|c| c.meta().uid == claim_ref.uid);
        let Some(claim_obj) = claim else {
            return self.release(now, api, obj, pv);
        };
        let Some(claim) = claim_obj.as_persistent_volume_claim() else {
            return Ok(Action::Done);
        };
        if claim.spec.volume_name.is_empty() {
            // The claim's sync binds it (a provisioner saves only the volume).
            return self.sync_claim(now, api, &claim_obj).map(|_| Action::Done);
        }
        if claim.spec.volume_name == pv.metadata.name {
            self.update_volume_phase(now, api, obj, "Bound", "")?;
            return Ok(Action::Done);
        }
        // The claim went to another volume.
        let dynamic = pv.metadata.annotations.contains_key(PROVISIONED_BY)
            && pv.spec.persistent_volume_reclaim_policy == "Delete";
        if dynamic {
            return self.release(now, api, obj, pv);
        }
        if pv.metadata.annotations.contains_key(BOUND_BY_CONTROLLER) {
            self.unbind_volume(now, api, obj)?;
        }
        Ok(Action::Done)
    }

    /// The claim a volume names: the fresh copy, else, for a volume not yet released, a
    /// live read (the informer may not show a claim a provisioner has just seen).
    fn claim_of(
        &self,
        api: &ApiServer,
        pv: &PersistentVolume,
        namespace: &str,
        name: &str,
    ) -> Option<Arc<Object>> {
        let key = VolumeKey::Claim(ObjectKey::new(Some(namespace), name));
        if let Some(claim) = self.fresh(&key) {
            return Some(claim);
        }
        let settled = matches!(pv.status.phase.as_str(), "Released" | "Failed");
        if settled {
            return None;
        }
        api.get(Kind::PersistentVolumeClaim, Some(namespace), name)
            .ok()
    }

    /// A volume whose claim is gone: `Released` (unless it already failed), then reclaimed.
    fn release(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
        pv: &PersistentVolume,
    ) -> Reconciled {
        let obj = match pv.status.phase.as_str() {
            "Released" | "Failed" => obj.clone(),
            _ => self.update_volume_phase(now, api, obj, "Released", "")?,
        };
        self.reclaim(now, api, &obj).map(|()| Action::Done)
    }

    /// `reclaimVolume`: `Retain` keeps the volume `Released`; `Delete` of a volume an external
    /// provisioner made is that provisioner's (its deleter); any other deletion, and `Recycle`,
    /// find no in-tree plugin here and fail the volume with the real warning.
    fn reclaim(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Arc<Object>,
    ) -> Result<(), Requeue> {
        let Some(pv) = obj.as_persistent_volume() else {
            return Ok(());
        };
        let (reason, msg) = match pv.spec.persistent_volume_reclaim_policy.as_str() {
            "Delete" => {
                let external = pv
                    .metadata
                    .annotations
                    .get(PROVISIONED_BY)
                    .is_some_and(|p| !p.starts_with("kubernetes.io/"));
                if external {
                    return Ok(());
                }
                let msg = format!(
                    "error getting deleter volume plugin for volume {:?}: no deletable volume \
                     plugin matched",
                    pv.metadata.name
                );
                ("VolumeFailedDelete", msg)
            }
            "Recycle" => (
                "VolumeFailedRecycle",
                "No recycler plugin found for the volume!".to_string(),
            ),
            _ => return Ok(()),
        };
        if pv.status.phase != "Failed" {
            self.recorder
                .record(api, now, obj, EventType::Warning, reason, &msg);
        }
        self.update_volume_phase(now, api, obj, "Failed", &msg)
            .map(|_| ())
    }
}
