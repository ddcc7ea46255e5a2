//! Persistent volumes: the controllers that make a claim become a volume, and keep both while
//! they are used. This module is the PV controller (kube-controller-manager's
//! `persistentvolume-binder`, `pkg/controller/volume/persistentvolume/pv_controller.go`, events
//! from `persistentvolume-controller`), the binder of claims and volumes:
//! - a new volume goes `Pending` → `Available` (`syncVolume` of a volume without `claimRef`);
//! - an unbound claim ([`claim_sync`], `syncUnboundClaim`) is given the default class if it
//!   names none (`assignDefaultStorageClass`), then bound to the smallest matching `Available`
//!   volume; a claim of a `WaitForFirstConsumer` class waits (event `WaitForFirstConsumer`, or
//!   `WaitForPodScheduled` while a pod using it is unscheduled) until the scheduler writes
//!   `volume.kubernetes.io/selected-node`; a claim left without a volume is handed to its
//!   class's external provisioner (the `storage-provisioner` annotations and an
//!   `ExternalProvisioning` event), and looked at again every 15 s (`--pvclaimbinder-sync-period`)
//!   while it stays unbound;
//! - binding ([`bind`]) writes both ways, in the real order: the volume's `claimRef` (and
//!   `bound-by-controller`), its phase `Bound`, the claim's `volumeName` (and `bind-completed`,
//!   `bound-by-controller`), its status `Bound` with the volume's capacity and access modes;
//! - a volume whose claim is gone ([`volume_sync`]) is `Released` and reclaimed: `Retain` keeps
//!   it, `Delete` leaves a dynamically provisioned one to its provisioner (it deletes it).
//!
//! Like the real controller it keeps the objects it wrote (`storeObjectUpdate`): its informers
//! show a write a moment later, and a sync in between reads the newer of the two, so the four
//! writes of one binding do not fight each other.
//!
//! The other concepts have their own modules: the simulated local-path provisioner
//! ([`provisioner`]), the pvc- and pv-protection controllers ([`protection`]), the scheduler's
//! VolumeBinding plugin ([`volume_binding`]), the matching rules they share ([`matching`]) and
//! the pods-by-claim index ([`pod_claims`]). With no claim and no volume in the cluster the
//! controller reads one emptiness check per pod notification and writes nothing.

mod bind;
mod claim_sync;
pub mod matching;
pub mod pod_claims;
pub mod protection;
pub mod provisioner;
pub mod volume_binding;
mod volume_sync;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::earliest;
use super::events::EventRecorder;
use super::runtime::{Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use pod_claims::PodClaims;

/// Its user agent (kube-controller-manager's client for the controller).
pub const USER_AGENT: &str = "persistent-volume-binder";
/// The source of its events.
pub const EVENT_COMPONENT: &str = "persistentvolume-controller";
/// `--pvclaimbinder-sync-period` (15 s): how often an unbound claim is looked at again.
pub const RESYNC_PERIOD_MS: u64 = 15_000;

/// What the controller's work queue holds (upstream has a claim queue and a volume queue).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum VolumeKey {
    Claim(ObjectKey),
    Volume(ObjectKey),
}

/// The PV controller.
pub struct PersistentVolumeController {
    claims: SharedInformer,
    volumes: SharedInformer,
    /// Read for the classes' binding mode, provisioner and default annotation.
    classes: SharedInformer,
    /// Read for the unscheduled pods a waiting claim names (`findNonScheduledPodsByPVC`).
    pods: SharedInformer,
    pod_claims: PodClaims,
    /// The objects it wrote, until its informers show them (or something newer).
    written: BTreeMap<VolumeKey, Arc<Object>>,
    recorder: EventRecorder,
}

impl PersistentVolumeController {
    pub fn new(informers: &SharedInformers) -> Self {
        PersistentVolumeController {
            claims: informers.reader(Kind::PersistentVolumeClaim),
            volumes: informers.reader(Kind::PersistentVolume),
            classes: informers.cache_reader(Kind::StorageClass),
            pods: informers.reader(Kind::Pod),
            pod_claims: PodClaims::default(),
            written: BTreeMap::new(),
            recorder: EventRecorder::new(USER_AGENT, EVENT_COMPONENT, ""),
        }
    }

    /// The newer of what the informer shows for `key` and what the controller last wrote.
    fn fresh(&self, key: &VolumeKey) -> Option<Arc<Object>> {
        let cached = match key {
            VolumeKey::Claim(k) => self.claims.store().get(k),
            VolumeKey::Volume(k) => self.volumes.store().get(k),
        };
        match (cached, self.written.get(key)) {
            (Some(c), Some(w)) if w.resource_version() > c.resource_version() => Some(w.clone()),
            (c, _) => c,
        }
    }

    /// `storeObjectUpdate`: remembers a write until the informer catches up.
    fn remember(&mut self, key: VolumeKey, written: Arc<Object>) {
        self.written.insert(key, written);
    }

    /// An informer notification: the key to sync, and the written copy dropped once the
    /// informer shows it (or the object is gone).
    fn observe(&mut self, key: &VolumeKey, note: &Notification<Arc<Object>>) {
        let seen = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => o.resource_version(),
            Notification::Delete(_) => u64::MAX,
        };
        if self
            .written
            .get(key)
            .is_some_and(|w| w.resource_version() <= seen)
        {
            self.written.remove(key);
        }
    }

    /// `addClaim` / `updateClaim` / `deleteClaim`: a deleted claim's volume is synced (it is
    /// released), as is any volume still pre-bound to it.
    fn on_claim(&mut self, note: Notification<Arc<Object>>, queue: &mut WorkQueue<VolumeKey>) {
        let key = VolumeKey::Claim(note.key());
        self.observe(&key, &note);
        match &note {
            Notification::Delete(d) => {
                let Some(claim) = d.object().as_persistent_volume_claim() else {
                    return;
                };
                for pv in self.volumes.store().list() {
                    let Some(v) = pv.as_persistent_volume() else {
                        continue;
                    };
                    let refers = v
                        .spec
                        .claim_ref
                        .as_ref()
                        .is_some_and(|r| r.uid == claim.metadata.uid);
                    if refers || v.metadata.name == claim.spec.volume_name {
                        queue.add(VolumeKey::Volume(ObjectKey::new(None, &v.metadata.name)));
                    }
                }
            }
            _ => queue.add(key),
        }
    }

    /// `addVolume` / `updateVolume` / `deleteVolume`: a deleted volume's claim is synced (it
    /// has lost its volume).
    fn on_volume(&mut self, note: Notification<Arc<Object>>, queue: &mut WorkQueue<VolumeKey>) {
        let key = VolumeKey::Volume(note.key());
        self.observe(&key, &note);
        match &note {
            Notification::Delete(d) => {
                let claim_ref = d
                    .object()
                    .as_persistent_volume()
                    .and_then(|v| v.spec.claim_ref.as_ref());
                if let Some(r) = claim_ref {
                    let claim = ObjectKey::new(Some(&r.namespace), &r.name);
                    queue.add(VolumeKey::Claim(claim));
                }
            }
            _ => queue.add(key),
        }
    }

    /// Keeps the pods-by-claim index: only pods naming a claim are filed.
    fn on_pod(&mut self, note: &Notification<Arc<Object>>) {
        match note {
            Notification::Add(o) => {
                if let Some(p) = o.as_pod().filter(|p| !p.spec.volumes.is_empty()) {
                    self.pod_claims.add(p);
                }
            }
            Notification::Delete(d) => {
                if let Some(p) = d.object().as_pod().filter(|p| !p.spec.volumes.is_empty()) {
                    self.pod_claims.remove(p);
                }
            }
            Notification::Update { .. } => {}
        }
    }

    /// `findNonScheduledPodsByPVC`: the pods naming the claim that are not yet on a node.
    fn unscheduled_pods_of(&self, claim: &ObjectKey) -> Vec<String> {
        let store = self.pods.store();
        self.pod_claims
            .pods_of(claim)
            .iter()
            .filter_map(|k| store.get(k))
            .filter_map(|o| o.as_pod().cloned())
            .filter(|p| p.spec.node_name.is_empty())
            .map(|p| p.metadata.name)
            .collect()
    }
}

impl Reconciler for PersistentVolumeController {
    type Key = VolumeKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![
            (&self.claims).into(),
            (&self.volumes).into(),
            (&self.classes).into(),
            (&self.pods).into(),
        ]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<VolumeKey>) {
        self.recorder.flush(api, now);
        // Pumped for the cache alone: a class change is seen at the claims' next resync.
        self.classes.step(now, api);
        for note in self.pods.step(now, api) {
            self.on_pod(&note);
        }
        for note in self.volumes.step(now, api) {
            self.on_volume(note, queue);
        }
        for note in self.claims.step(now, api) {
            self.on_claim(note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.claims.has_synced()
            && self.volumes.has_synced()
            && self.classes.has_synced()
            && self.pods.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &VolumeKey) -> Reconciled {
        let Some(obj) = self.fresh(key) else {
            return Ok(super::runtime::Action::Done);
        };
        match key {
            VolumeKey::Claim(_) => self.sync_claim(now, api, &obj),
            VolumeKey::Volume(_) => self.sync_volume(now, api, &obj),
        }
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.claims.next_wakeup(),
            self.volumes.next_wakeup(),
            self.classes.next_wakeup(),
            self.pods.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
