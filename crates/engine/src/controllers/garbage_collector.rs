//! The garbage collector (user agent `generic-garbage-collector`, as in kube-controller-manager):
//! deletes dependents whose controller owner no longer exists, so deleting a Deployment removes
//! its ReplicaSets and deleting a ReplicaSet removes its pods (background propagation, the API
//! server's default for these kinds). Which kinds own which is the registry's
//! (`ResourceInfo::controller_owners`), not a list of its own. An owner is gone when no object of the owner reference's
//! kind and name exists in the dependent's namespace, or one exists with another uid. It only
//! judges once its owner informers have synced (never on a cold cache), and confirms a missing
//! owner with a live GET before deleting, like the real collector's `isDangling`.

use std::sync::Arc;

use super::adapter::{controller_uid_index, ApiInformer, CONTROLLER_UID_INDEX};
use super::profile::Profile;
use super::{earliest, Controller};
use crate::api::meta::OwnerReference;
use crate::api::{Kind, Object, Registry};
use crate::apiserver::{ApiServer, DeleteOptions, Preconditions};
use crate::client::InformerConfig;
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::rng::SimRng;

pub const USER_AGENT: &str = "generic-garbage-collector";
/// `metav1.DeletePropagationBackground`.
pub const PROPAGATION_BACKGROUND: &str = "Background";

/// The garbage collector over the registry's owner graph (Deployments → ReplicaSets → Pods).
pub struct GarbageCollector {
    /// One informer per kind of the owner graph, owners before their dependents, then one per
    /// custom resource the API server serves (any of which may own anything).
    informers: Vec<(Kind, ApiInformer)>,
    seed: u64,
    config: InformerConfig,
    /// Dependents to check (`attemptToDelete`), by kind and key.
    queue: WorkQueue<(Kind, ObjectKey)>,
}

/// The kinds of `registry` that own or are owned, owners before their dependents (then in
/// registry order).
fn owner_graph(registry: &Registry) -> Vec<Kind> {
    let kinds = registry.kinds();
    let owns = |k: Kind| {
        kinds
            .iter()
            .any(|d| d.resource().controller_owners.contains(&k))
    };
    let depth = |k: Kind| {
        let mut depth = 0;
        let mut level = vec![k];
        while depth < kinds.len() {
            level = level
                .iter()
                .flat_map(|k| k.resource().controller_owners.iter().copied())
                .collect();
            if level.is_empty() {
                break;
            }
            depth += 1;
        }
        depth
    };
    let mut graph: Vec<Kind> = kinds
        .iter()
        .copied()
        .filter(|k| owns(*k) || !k.resource().controller_owners.is_empty())
        .collect();
    graph.sort_by_key(|k| depth(*k));
    graph
}

impl GarbageCollector {
    pub fn new(seed: u64, profile: &Profile) -> Self {
        let informers = owner_graph(&Registry::default())
            .into_iter()
            .map(|kind| {
                let r = kind.resource();
                // Every kind may have a custom resource as its controller owner.
                let informer = ApiInformer::new(
                    kind,
                    None,
                    profile.informer_config(),
                    vec![controller_uid_index()],
                    SimRng::child(seed, &format!("{USER_AGENT}/{}", r.plural)),
                );
                (kind, informer)
            })
            .collect();
        GarbageCollector {
            informers,
            seed,
            config: profile.informer_config(),
            queue: WorkQueue::default(),
        }
    }

    /// Follows the custom resources the API server serves: an informer for each new one, none
    /// for one whose definition is gone.
    fn follow_custom_kinds(&mut self, api: &ApiServer) {
        let served = api.registry().kinds();
        self.informers
            .retain(|(k, _)| !k.is_custom() || served.contains(k));
        for kind in served.iter().filter(|k| k.is_custom()) {
            if self.informers.iter().any(|(k, _)| k == kind) {
                continue;
            }
            let r = kind.resource();
            let name = format!("{USER_AGENT}/{}.{}", r.plural, r.group);
            let informer = ApiInformer::new(
                *kind,
                None,
                self.config.clone(),
                vec![controller_uid_index()],
                SimRng::child(self.seed, &name),
            );
            self.informers.push((*kind, informer));
        }
    }

    /// The kind a controller reference names: one the dependent's registry entry declares, or
    /// any custom resource (which may own anything).
    fn owner_kind(api: &ApiServer, dependent: Kind, owner: &OwnerReference) -> Option<Kind> {
        let declared = dependent
            .resource()
            .controller_owners
            .iter()
            .copied()
            .find(|k| k.resource().kind_name == owner.kind);
        declared.or_else(|| {
            api.registry()
                .by_kind(&owner.api_version, &owner.kind)
                .map(|r| r.kind())
                .filter(|k| k.is_custom())
        })
    }

    fn informer_of(&self, kind: Kind) -> Option<&ApiInformer> {
        self.informers
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, i)| i)
    }

    /// Queues a changed dependent, and on an owner's deletion every dependent it controlled.
    fn on_note(&mut self, kind: Kind, note: &Notification<Arc<Object>>) {
        let controlled = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => {
                o.meta().controller_ref().is_some()
            }
            Notification::Delete(_) => false,
        };
        if controlled || !kind.resource().controller_owners.is_empty() {
            self.queue.add((kind, note.key()));
        }
        let Notification::Delete(d) = note else {
            return;
        };
        let uid = d.object().meta().uid.clone();
        let keys: Vec<(Kind, ObjectKey)> = self
            .informers
            .iter()
            .filter(|(k, _)| kind.is_custom() || k.resource().controller_owners.contains(&kind))
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
        let Some(kind) = Self::owner_kind(api, dependent.kind(), owner) else {
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
        self.informers.iter().map(|(_, i)| i).collect()
    }

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        self.follow_custom_kinds(api);
        for i in 0..self.informers.len() {
            let Some((kind, informer)) = self.informers.get_mut(i) else {
                break;
            };
            let kind = *kind;
            let notes = informer.step(now, api, USER_AGENT);
            for note in &notes {
                self.on_note(kind, note);
            }
        }
        if self.informers.iter().all(|(_, i)| i.has_synced()) {
            while let Some(item) = self.queue.get(now) {
                let (kind, key) = &item;
                match self.sync(api, *kind, key) {
                    Ok(()) => self.queue.forget(&item),
                    Err(()) => self.queue.add_rate_limited(item.clone(), now),
                }
                self.queue.done(&item);
            }
        }
        earliest(
            self.informers
                .iter()
                .map(|(_, i)| i.next_wakeup())
                .chain([self.queue.next_ready_at()]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_graph_comes_from_the_registry_owners_first() {
        assert_eq!(
            owner_graph(&Registry::default()),
            [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
        );
    }
}
