//! The external provisioner of the `standard` class, simulated: rancher's local-path-provisioner
//! (user agent `local-path-provisioner`) on sigs.k8s.io/sig-storage-lib-external-provisioner's
//! controller (`controller.go`: `shouldProvision`, `provisionClaimOperation`, `shouldDelete`,
//! `deleteVolumeOperation`), a process of its own with its own informers.
//!
//! A claim it serves — annotated by the PV controller with `rancher.io/local-path` as its
//! storage provisioner, of a class it provisions, naming no volume, and (for a
//! `WaitForFirstConsumer` class) given a node by the scheduler — gets a `Provisioning` event,
//! and [`PROVISION_DELAY_MS`] later (the helper pod that makes the directory) a volume
//! `pvc-<claim uid>`: the claim's request as capacity, its access modes, a `hostPath`
//! directory `/var/local-path-provisioner/pvc-<uid>_<namespace>_<claim>` on that node, node
//! affinity `kubernetes.io/hostname In [node]`, the class's reclaim policy, `claimRef` to the
//! claim and `pv.kubernetes.io/provisioned-by`; then `ProvisioningSucceeded`. The PV controller
//! binds the two. local-path needs a node: a claim of an `Immediate` class fails
//! (`ProvisioningFailed`, retried with the library's back-off, 15 s doubling to 1,000 s).
//! A `Released` volume it made, with reclaim policy `Delete`, is deleted [`DELETE_DELAY_MS`]
//! later (the helper pod that removes the directory). The directories are not modelled: the
//! volume is its name, its size and its node.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::matching;
use crate::api::pod::{
    HostPathVolumeSource, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
};
use crate::api::storage::{
    PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeNodeAffinity,
    BETA_STORAGE_PROVISIONER, LOCAL_PATH_PROVISIONER, PROVISIONED_BY, STORAGE_PROVISIONER,
};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::controllers::adapter::ApiInformer;
use crate::controllers::earliest;
use crate::controllers::events::{reference_of, EventRecorder, EventType};
use crate::controllers::profile::Profile;
use crate::controllers::runtime::{Action, Reconciled, Reconciler};
use crate::controllers::shared_informer::InformerRef;
use crate::rng::SimRng;
use watchlab_apimachinery::status::StatusReason;

pub const USER_AGENT: &str = "local-path-provisioner";
/// The source of its events: the library's identity, `<provisioner>_<pod>_<uuid>`, as
/// `kubectl describe pvc` shows it in kind.
pub const IDENTITY: &str =
    "rancher.io/local-path_local-path-provisioner-7577fdbbfb-8hwjz_5f3a9c1e-2b7d-4e6f-8a0c-9d1e2f3a4b5c";
/// local-path's `--config` default directory on each node.
pub const BASE_PATH: &str = "/var/local-path-provisioner";
/// The node annotation local-path puts on its volumes.
pub const SELECTED_NODE_ANNOTATION: &str = "local.path.provisioner/selected-node";
/// How long making a volume takes (local-path's helper pod running `mkdir`): 2 s.
pub const PROVISION_DELAY_MS: u64 = 2_000;
/// How long removing one takes (the helper pod running `rm -rf`): 1 s.
pub const DELETE_DELAY_MS: u64 = 1_000;
/// The library's failure back-off: 15 s, doubling, at most 1,000 s.
const FAILURE_BACKOFF_MS: u64 = 15_000;
const MAX_FAILURE_BACKOFF_MS: u64 = 1_000_000;

/// What its work queue holds: a claim to provision for, a volume to delete.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProvisionKey {
    Claim(ObjectKey),
    Volume(ObjectKey),
}

/// The simulated local-path provisioner.
pub struct LocalPathProvisioner {
    claims: ApiInformer,
    volumes: ApiInformer,
    classes: ApiInformer,
    /// Operations under way (a volume being made for a claim, a volume being removed) and
    /// when they finish.
    operations: BTreeMap<ProvisionKey, Timestamp>,
    /// Failed attempts per claim, for the back-off.
    failures: BTreeMap<ProvisionKey, u32>,
    recorder: EventRecorder,
}

/// The volume local-path makes for `claim` on `node` (its `Provision`, with the library's
/// `claimRef`, class and `provisioned-by`).
pub fn volume_for(
    claim_obj: &Object,
    class: &StorageClass,
    node: &str,
) -> Option<PersistentVolume> {
    let claim = claim_obj.as_persistent_volume_claim()?;
    let name = format!("pvc-{}", claim.metadata.uid);
    let mut metadata = ObjectMeta::named("", &name);
    metadata
        .annotations
        .insert(PROVISIONED_BY.into(), LOCAL_PATH_PROVISIONER.into());
    metadata
        .annotations
        .insert(SELECTED_NODE_ANNOTATION.into(), node.into());
    let mut pv = PersistentVolume {
        metadata,
        ..Default::default()
    };
    let spec = &mut pv.spec;
    spec.capacity
        .insert("storage".into(), matching::requested(claim));
    spec.access_modes.clone_from(&claim.spec.access_modes);
    spec.claim_ref = Some(reference_of(claim_obj));
    spec.persistent_volume_reclaim_policy = class
        .reclaim_policy
        .clone()
        .unwrap_or_else(|| "Delete".into());
    spec.storage_class_name.clone_from(&class.metadata.name);
    spec.volume_mode = Some("Filesystem".into());
    let path = format!(
        "{BASE_PATH}/{name}_{}_{}",
        claim.metadata.namespace, claim.metadata.name
    );
    spec.host_path = Some(HostPathVolumeSource {
        path,
        type_: Some("DirectoryOrCreate".into()),
    });
    let on_node = NodeSelectorRequirement {
        key: matching::LABEL_HOSTNAME.into(),
        operator: "In".into(),
        values: vec![node.to_string()],
    };
    spec.node_affinity = Some(VolumeNodeAffinity {
        required: Some(NodeSelector {
            node_selector_terms: vec![NodeSelectorTerm {
                match_expressions: vec![on_node],
                match_fields: Vec::new(),
            }],
        }),
    });
    Some(pv)
}

/// Why a claim cannot be provisioned now (a `ProvisioningFailed` message).
type Failure = String;

impl LocalPathProvisioner {
    pub fn new(seed: u64, profile: &Profile) -> Self {
        let informer = |kind: Kind| {
            let name = format!("{USER_AGENT}/{}", kind.resource().plural);
            let rng = SimRng::child(seed, &name);
            ApiInformer::new(kind, None, profile.informer_config(), Vec::new(), rng)
        };
        LocalPathProvisioner {
            claims: informer(Kind::PersistentVolumeClaim),
            volumes: informer(Kind::PersistentVolume),
            classes: informer(Kind::StorageClass),
            operations: BTreeMap::new(),
            failures: BTreeMap::new(),
            recorder: EventRecorder::new(USER_AGENT, IDENTITY, ""),
        }
    }

    /// The class a claim names, if local-path provisions it.
    fn class_of(&self, claim: &PersistentVolumeClaim) -> Option<Arc<Object>> {
        let name = matching::claim_class(claim);
        let class = self.classes.store().get(&ObjectKey::new(None, name))?;
        let ours = class
            .as_storage_class()
            .is_some_and(|c| c.provisioner == LOCAL_PATH_PROVISIONER);
        ours.then_some(class)
    }

    /// `shouldProvision`: no volume yet, the PV controller handed the claim to local-path, a
    /// class local-path provisions, and a node for a `WaitForFirstConsumer` class.
    fn should_provision(&self, claim: &PersistentVolumeClaim) -> Option<Arc<Object>> {
        let annotations = &claim.metadata.annotations;
        let handed = [STORAGE_PROVISIONER, BETA_STORAGE_PROVISIONER]
            .iter()
            .any(|a| annotations.get(*a).map(String::as_str) == Some(LOCAL_PATH_PROVISIONER));
        if !handed
            || !claim.spec.volume_name.is_empty()
            || claim.metadata.deletion_timestamp.is_some()
        {
            return None;
        }
        let class = self.class_of(claim)?;
        let waits = class
            .as_storage_class()
            .is_some_and(matching::waits_for_first_consumer);
        (!waits || matching::selected_node(claim).is_some_and(|n| !n.is_empty())).then_some(class)
    }

    /// `shouldDelete`: a `Released` volume local-path made, reclaimed by deletion.
    fn should_delete(pv: &PersistentVolume) -> bool {
        pv.status.phase == "Released"
            && pv.spec.persistent_volume_reclaim_policy == "Delete"
            && pv
                .metadata
                .annotations
                .get(PROVISIONED_BY)
                .map(String::as_str)
                == Some(LOCAL_PATH_PROVISIONER)
            && pv.metadata.deletion_timestamp.is_none()
    }

    /// A claim's provisioning: started (`Provisioning`), finished once its delay has passed,
    /// or failed with the back-off.
    fn sync_claim(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ProvisionKey,
        claim_obj: &Arc<Object>,
    ) -> Reconciled {
        let Some(claim) = claim_obj.as_persistent_volume_claim() else {
            return Ok(Action::Done);
        };
        let Some(class) = self.should_provision(claim) else {
            self.operations.remove(key);
            return Ok(Action::Done);
        };
        let Some(class) = class.as_storage_class() else {
            return Ok(Action::Done);
        };
        match self.operations.get(key).copied() {
            None => self.start(now, api, key, claim_obj, claim, class),
            Some(due) if now < due => Ok(Action::RequeueAfter(due.millis_since(now))),
            Some(_) => self.finish(now, api, key, claim_obj, class),
        }
    }

    /// `provisionClaimOperation`'s start: the `Provisioning` event, then the node check.
    fn start(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ProvisionKey,
        claim_obj: &Arc<Object>,
        claim: &PersistentVolumeClaim,
        class: &StorageClass,
    ) -> Reconciled {
        let msg = format!(
            "External provisioner is provisioning volume for claim \"{}/{}\"",
            claim.metadata.namespace, claim.metadata.name
        );
        self.recorder
            .record(api, now, claim_obj, EventType::Normal, "Provisioning", &msg);
        if let Err(why) = self.target_node(api, claim, class) {
            return Ok(self.fail(now, api, key, claim_obj, &why));
        }
        self.operations
            .insert(key.clone(), now.plus_millis(PROVISION_DELAY_MS));
        Ok(Action::RequeueAfter(PROVISION_DELAY_MS))
    }

    /// The node the volume goes to: the scheduler's choice, which must exist.
    fn target_node(
        &self,
        api: &ApiServer,
        claim: &PersistentVolumeClaim,
        class: &StorageClass,
    ) -> Result<String, Failure> {
        let Some(node) = matching::selected_node(claim) else {
            return Err(format!(
                "failed to provision volume with StorageClass {:?}: configuration error, no node was specified",
                class.metadata.name
            ));
        };
        match api.get(Kind::Node, None, node) {
            Ok(_) => Ok(node.to_string()),
            Err(s) => Err(format!("failed to get target node: {}", s.message())),
        }
    }

    /// The volume made: created (one already there counts), `ProvisioningSucceeded`.
    fn finish(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ProvisionKey,
        claim_obj: &Arc<Object>,
        class: &StorageClass,
    ) -> Reconciled {
        self.operations.remove(key);
        let node = claim_obj
            .as_persistent_volume_claim()
            .ok_or(crate::controllers::Requeue)
            .and_then(|c| {
                self.target_node(api, c, class)
                    .map_err(|_| crate::controllers::Requeue)
            });
        let pv = node.ok().and_then(|n| volume_for(claim_obj, class, &n));
        let Some(pv) = pv else {
            let why = "failed to get target node".to_string();
            return Ok(self.fail(now, api, key, claim_obj, &why));
        };
        let name = pv.metadata.name.clone();
        match api.create(USER_AGENT, Object::PersistentVolume(Box::new(pv))) {
            Ok(_) => {}
            Err(s) if matches!(s.reason(), StatusReason::AlreadyExists) => {}
            Err(s) => {
                let why = format!("failed to create volume {name}: {}", s.message());
                return Ok(self.fail(now, api, key, claim_obj, &why));
            }
        }
        self.failures.remove(key);
        let msg = format!("Successfully provisioned volume {name}");
        self.recorder.record(
            api,
            now,
            claim_obj,
            EventType::Normal,
            "ProvisioningSucceeded",
            &msg,
        );
        Ok(Action::Done)
    }

    /// A failed attempt: `ProvisioningFailed`, and the claim looked at again after the
    /// back-off.
    fn fail(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ProvisionKey,
        claim_obj: &Arc<Object>,
        why: &str,
    ) -> Action {
        self.recorder.record(
            api,
            now,
            claim_obj,
            EventType::Warning,
            "ProvisioningFailed",
            why,
        );
        self.operations.remove(key);
        let n = self.failures.entry(key.clone()).or_insert(0);
        let delay = (FAILURE_BACKOFF_MS << (*n).min(10)).min(MAX_FAILURE_BACKOFF_MS);
        *n += 1;
        Action::RequeueAfter(delay)
    }

    /// A released volume's deletion: started, then, after its delay, the volume deleted.
    fn sync_volume(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ProvisionKey,
        pv_obj: &Arc<Object>,
    ) -> Reconciled {
        if !pv_obj
            .as_persistent_volume()
            .is_some_and(Self::should_delete)
        {
            self.operations.remove(key);
            return Ok(Action::Done);
        }
        let due = *self
            .operations
            .entry(key.clone())
            .or_insert_with(|| now.plus_millis(DELETE_DELAY_MS));
        if now < due {
            return Ok(Action::RequeueAfter(due.millis_since(now)));
        }
        self.operations.remove(key);
        match api.delete(
            USER_AGENT,
            Kind::PersistentVolume,
            None,
            pv_obj.name(),
            &DeleteOptions::default(),
        ) {
            Ok(_) => Ok(Action::Done),
            Err(s) if matches!(s.reason(), StatusReason::NotFound) => Ok(Action::Done),
            Err(_) => Err(crate::controllers::Requeue),
        }
    }

    fn on_note(
        &mut self,
        note: Notification<Arc<Object>>,
        queue: &mut WorkQueue<ProvisionKey>,
        key: fn(ObjectKey) -> ProvisionKey,
    ) {
        let k = key(note.key());
        if let Notification::Delete(_) = note {
            self.operations.remove(&k);
            self.failures.remove(&k);
            return;
        }
        queue.add(k);
    }
}

impl Reconciler for LocalPathProvisioner {
    type Key = ProvisionKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![
            (&self.claims).into(),
            (&self.volumes).into(),
            (&self.classes).into(),
        ]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ProvisionKey>) {
        self.recorder.flush(api, now);
        self.classes.step(now, api, USER_AGENT);
        for note in self.volumes.step(now, api, USER_AGENT) {
            self.on_note(note, queue, ProvisionKey::Volume);
        }
        for note in self.claims.step(now, api, USER_AGENT) {
            self.on_note(note, queue, ProvisionKey::Claim);
        }
    }

    fn has_synced(&self) -> bool {
        self.claims.has_synced() && self.volumes.has_synced() && self.classes.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ProvisionKey) -> Reconciled {
        let cached = match key {
            ProvisionKey::Claim(k) => self.claims.store().get(k),
            ProvisionKey::Volume(k) => self.volumes.store().get(k),
        };
        let Some(obj) = cached else {
            self.operations.remove(key);
            self.failures.remove(key);
            return Ok(Action::Done);
        };
        match key {
            ProvisionKey::Claim(_) => self.sync_claim(now, api, key, &obj),
            ProvisionKey::Volume(_) => self.sync_volume(now, api, key, &obj),
        }
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.claims.next_wakeup(),
            self.volumes.next_wakeup(),
            self.classes.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
