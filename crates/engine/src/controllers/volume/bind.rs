//! The PV controller's writes of a binding (`bind`, `bindVolumeToClaim`, `updateVolumePhase`,
//! `bindClaimToVolume`, `updateClaimStatus`, `unbindVolume` in pv_controller.go), each written
//! only when it changes something, in the real order: the volume's `claimRef`, its phase, the
//! claim's `volumeName`, its status. A failed write stops the binding; the claim's next sync
//! goes on from what was written.

use std::sync::Arc;

use super::matching;
use super::{PersistentVolumeController, VolumeKey, USER_AGENT};
use crate::api::storage::{PersistentVolume, BIND_COMPLETED, BOUND_BY_CONTROLLER};
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::events::reference_of;
use crate::controllers::Requeue;

/// The value the controller gives its annotations.
const YES: &str = "yes";

impl PersistentVolumeController {
    /// `bind`: volume and claim made to point at each other, both `Bound`.
    pub(super) fn bind(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        pv_obj: &Arc<Object>,
        claim_obj: &Arc<Object>,
    ) -> Result<(), Requeue> {
        let pv_obj = self.bind_volume_to_claim(api, pv_obj, claim_obj)?;
        let pv_obj = self.update_volume_phase(now, api, &pv_obj, "Bound", "")?;
        let claim_obj = self.bind_claim_to_volume(api, &pv_obj, claim_obj)?;
        let pv = pv_obj.as_persistent_volume();
        self.update_claim_status(api, &claim_obj, "Bound", pv)
    }

    /// `bindVolumeToClaim`: the volume's `claimRef` names the claim (with its uid); set by the
    /// controller, the volume is annotated `bound-by-controller`.
    fn bind_volume_to_claim(
        &mut self,
        api: &mut ApiServer,
        pv_obj: &Arc<Object>,
        claim_obj: &Arc<Object>,
    ) -> Result<Arc<Object>, Requeue> {
        let (Some(pv), Some(claim)) = (
            pv_obj.as_persistent_volume(),
            claim_obj.as_persistent_volume_claim(),
        ) else {
            return Err(Requeue);
        };
        let by_controller = !matching::is_volume_bound_to_claim(pv, claim);
        let exact = pv.spec.claim_ref.as_ref().is_some_and(|r| {
            r.name == claim.metadata.name
                && r.namespace == claim.metadata.namespace
                && r.uid == claim.metadata.uid
        });
        let annotate = by_controller && !pv.metadata.annotations.contains_key(BOUND_BY_CONTROLLER);
        if exact && !annotate {
            return Ok(pv_obj.clone());
        }
        let mut v = pv.clone();
        if !exact {
            v.spec.claim_ref = Some(reference_of(claim_obj));
        }
        if annotate {
            v.metadata
                .annotations
                .insert(BOUND_BY_CONTROLLER.into(), YES.into());
        }
        self.write_volume(api, v, false)
    }

    /// `updateVolumePhase`: the volume's phase (and message), with the time of the change.
    pub(super) fn update_volume_phase(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        pv_obj: &Arc<Object>,
        phase: &str,
        message: &str,
    ) -> Result<Arc<Object>, Requeue> {
        let Some(pv) = pv_obj.as_persistent_volume() else {
            return Err(Requeue);
        };
        if pv.status.phase == phase && pv.status.message == message {
            return Ok(pv_obj.clone());
        }
        let mut v = pv.clone();
        if v.status.phase != phase {
            v.status.last_phase_transition_time = Some(now);
        }
        v.status.phase = phase.to_string();
        v.status.message = message.to_string();
        self.write_volume(api, v, true)
    }

    /// `bindClaimToVolume`: the claim names the volume (`bound-by-controller` when the
    /// controller chose it) and its binding is completed (`bind-completed`).
    fn bind_claim_to_volume(
        &mut self,
        api: &mut ApiServer,
        pv_obj: &Arc<Object>,
        claim_obj: &Arc<Object>,
    ) -> Result<Arc<Object>, Requeue> {
        let (Some(pv), Some(claim)) = (
            pv_obj.as_persistent_volume(),
            claim_obj.as_persistent_volume_claim(),
        ) else {
            return Err(Requeue);
        };
        let name = &pv.metadata.name;
        let choose = claim.spec.volume_name != *name;
        let complete = !claim.metadata.annotations.contains_key(BIND_COMPLETED);
        if !choose && !complete {
            return Ok(claim_obj.clone());
        }
        let mut c = claim.clone();
        if choose {
            c.spec.volume_name.clone_from(name);
            c.metadata
                .annotations
                .entry(BOUND_BY_CONTROLLER.into())
                .or_insert_with(|| YES.into());
        }
        c.metadata
            .annotations
            .entry(BIND_COMPLETED.into())
            .or_insert_with(|| YES.into());
        self.write_claim(api, c)
    }

    /// `updateClaimStatus`: the claim's phase and, from its volume, its capacity and access
    /// modes; written only when one of them changes.
    pub(super) fn update_claim_status(
        &mut self,
        api: &mut ApiServer,
        claim_obj: &Arc<Object>,
        phase: &str,
        volume: Option<&PersistentVolume>,
    ) -> Result<(), Requeue> {
        let Some(claim) = claim_obj.as_persistent_volume_claim() else {
            return Err(Requeue);
        };
        let mut c = claim.clone();
        c.status.phase = phase.to_string();
        match volume {
            Some(pv) => {
                c.status.access_modes.clone_from(&pv.spec.access_modes);
                if let Some(q) = pv.spec.capacity.get("storage") {
                    c.status.capacity.insert("storage".into(), *q);
                }
            }
            None if phase != "Bound" => {
                c.status.access_modes.clear();
                c.status.capacity.clear();
            }
            None => {}
        }
        if c.status == claim.status {
            return Ok(());
        }
        let key = VolumeKey::Claim(ObjectKey::of(claim_obj));
        let written = api
            .update_status(USER_AGENT, Object::PersistentVolumeClaim(Box::new(c)))
            .map_err(|_| Requeue)?;
        self.remember(key, written);
        Ok(())
    }

    /// `unbindVolume`: a volume the controller had bound to a claim that went elsewhere is
    /// free again (`claimRef` and `bound-by-controller` removed, `Available`).
    pub(super) fn unbind_volume(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        pv_obj: &Arc<Object>,
    ) -> Result<(), Requeue> {
        let Some(pv) = pv_obj.as_persistent_volume() else {
            return Err(Requeue);
        };
        let mut v = pv.clone();
        v.spec.claim_ref = None;
        v.metadata.annotations.remove(BOUND_BY_CONTROLLER);
        let written = self.write_volume(api, v, false)?;
        self.update_volume_phase(now, api, &written, "Available", "")
            .map(|_| ())
    }

    /// Writes a volume (its spec and metadata, or its status) as the binder, remembering the
    /// result.
    pub(super) fn write_volume(
        &mut self,
        api: &mut ApiServer,
        pv: PersistentVolume,
        status: bool,
    ) -> Result<Arc<Object>, Requeue> {
        let key = VolumeKey::Volume(ObjectKey::new(None, &pv.metadata.name));
        let obj = Object::PersistentVolume(Box::new(pv));
        let written = if status {
            api.update_status(USER_AGENT, obj)
        } else {
            api.update(USER_AGENT, obj)
        }
        .map_err(|_| Requeue)?;
        self.remember(key, written.clone());
        Ok(written)
    }
}
