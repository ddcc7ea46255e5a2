//! The garbage collector (user agent `generic-garbage-collector`, as in kube-controller-manager):
//! deletes dependents whose controller owner no longer exists, so deleting a Deployment removes
//! its ReplicaSets and deleting a ReplicaSet removes its pods (background propagation, the API
//! server's default for these kinds). An owner is gone when no object of the owner reference's
//! kind and name exists in the dependent's namespace, or one exists with another uid. It only
//! judges once its owner informers have synced (never on a cold cache), and confirms a missing
//! owner with a live GET before deleting, like the real collector's `isDangling`.

use std::sync::Arc;

use super::adapter::{controller_uid_index, ApiInformer, CONTROLLER_UID_INDEX};
use super::profile::Profile;
use super::{earliest, Controller};
use crate::api::{Kind, Object};
use crate::apiserver::{ApiServer, DeleteOptions, Preconditions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::rng::SimRng;

pub const USER_AGENT: &str = "generic-garbage-collector";
/// `metav1.DeletePropagationBackground`.
pub const PROPAGATION_BACKGROUND: &str = "Background";

/// The garbage collector over Deployments → ReplicaSets → Pods.
pub struct GarbageCollector {
    deployments: ApiInformer,
    replicasets: ApiInformer,
    pods: ApiInformer,
    /// Dependents to check (`attemptToDelete`), by kind and key.
    queue: WorkQueue<(Kind, ObjectKey)>,
}

/// The owner kinds it knows, by the `kind` an owner reference names.
fn owner_kind(kind: &str) -> Option<Kind> {
    match kind {
        "Deployment" => Some(Kind::Deployment),
        "ReplicaSet" => Some(Kind::ReplicaSet),
        _ => None,
    }
}

impl GarbageCollector {
    pub fn new(seed: u64, profile: &Profile) -> Self {
        let informer = |kind, name: &str, indexers| {
            ApiInformer::new(
                kind,
                None,
                profile.informer_config(),
                indexers,
                SimRng::child(seed, &format!("{USER_AGENT}/{name}")),
            )
        };
        GarbageCollector {
            deployments: informer(Kind::Deployment, "deployments", Vec::new()),
            replicasets: informer(
                Kind::ReplicaSet,
                "replicasets",
                vec![controller_uid_index()],
            ),
            pods: informer(Kind::Pod, "pods", vec![controller_uid_index()]),
            queue: WorkQueue::default(),
        }
    }

    fn informer_of(&self, kind: Kind) -> Option<&ApiInformer> {
        match kind {
            Kind::Deployment => Some(&self.deployments),
            Kind::ReplicaSet => Some(&self.replicasets),
            Kind::Pod => Some(&self.pods),
            _ => None,
        }
    }

    /// Queues a changed dependent, and on an owner's deletion every dependent it controlled.
    fn on_note(&mut self, kind: Kind, note: &Notification<Arc<Object>>) {
        if kind != Kind::Deployment {
            self.queue.add((kind, note.key()));
        }
        let Notification::Delete(d) = note else {
            return;
        };
        let uid = d.object().meta().uid.clone();
        let dependents = match kind {
            Kind::Deployment => [(Kind::ReplicaSet, &self.replicasets)],
            Kind::ReplicaSet => [(Kind::Pod, &self.pods)],
            _ => return,
        };
        let keys: Vec<(Kind, ObjectKey)> = dependents
            .iter()
            .flat_map(|(k, inf)| {
                inf.store()
                    .by_index(CONTROLLER_UID_INDEX, &uid)
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |o| (*k, ObjectKey::of(&o)))
            })
            .collect();
        for k in keys {
            self.queue.add(k);
        }
    }

    /// Whether the controller owner of `dependent` is gone: from the cache, confirmed live.
    fn owner_gone(&self, api: &ApiServer, dependent: &Object) -> bool {
        let meta = dependent.meta();
        let Some(owner) = meta.controller_ref() else {
            return false;
        };
        let Some(kind) = owner_kind(&owner.kind) else {
            return false;
        };
        let ns = Some(meta.namespace.as_str());
        let cached = self
            .informer_of(kind)
            .and_then(|i| i.store().get_by_name(ns, &owner.name));
        if cached.is_some_and(|o| o.meta().uid == owner.uid) {
            return false;
        }
        match api.get(kind, ns, &owner.name) {
            Ok(live) => live.meta().uid != owner.uid,
            Err(s) => s.code() == 404,
        }
    }

    /// Deletes one dependent if its owner is gone; `Err` asks for a rate-limited retry.
    fn sync(&mut self, api: &mut ApiServer, kind: Kind, key: &ObjectKey) -> Result<(), ()> {
        let Some(obj) = self.informer_of(kind).and_then(|i| i.store().get(key)) else {
            return Ok(());
        };
        if obj.meta().deletion_timestamp.is_some() || !self.owner_gone(api, &obj) {
            return Ok(());
        }
        let opts = DeleteOptions {
            preconditions: Some(Preconditions {
                uid: Some(obj.meta().uid.clone()),
                resource_version: None,
            }),
            propagation_policy: Some(PROPAGATION_BACKGROUND.into()),
            ..Default::default()
        };
        let (ns, name) = key.split();
        match api.delete(USER_AGENT, kind, ns, name, &opts) {
            Ok(_) => Ok(()),
            // Already gone, or replaced by a new object of the same name: nothing to collect.
            Err(s) if s.code() == 404 || s.code() == 409 => Ok(()),
            Err(_) => Err(()),
        }
    }
}

impl Controller for GarbageCollector {
    fn informers(&self) -> Vec<&ApiInformer> {
        vec![&self.deployments, &self.replicasets, &self.pods]
    }

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        for kind in [Kind::Deployment, Kind::ReplicaSet, Kind::Pod] {
            let notes = match kind {
                Kind::Deployment => self.deployments.step(now, api, USER_AGENT),
                Kind::ReplicaSet => self.replicasets.step(now, api, USER_AGENT),
                _ => self.pods.step(now, api, USER_AGENT),
            };
            for note in &notes {
                self.on_note(kind, note);
            }
        }
        let synced = self.deployments.has_synced()
            && self.replicasets.has_synced()
            && self.pods.has_synced();
        if synced {
            while let Some(item) = self.queue.get(now) {
                let (kind, key) = &item;
                match self.sync(api, *kind, key) {
                    Ok(()) => self.queue.forget(&item),
                    Err(()) => self.queue.add_rate_limited(item.clone(), now),
                }
                self.queue.done(&item);
            }
        }
        earliest([
            self.deployments.next_wakeup(),
            self.replicasets.next_wakeup(),
            self.pods.next_wakeup(),
            self.queue.next_ready_at(),
        ])
    }
}
