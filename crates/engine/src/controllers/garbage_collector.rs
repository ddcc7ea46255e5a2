//! The garbage collector (user agent `generic-garbage-collector`, as in kube-controller-manager's
//! `pkg/controller/garbagecollector`): one informer per served kind (custom resources included,
//! followed as their definitions come and go; Events are ignored, as the real `ignoredResources`)
//! feeds a graph of every object by uid with its ownerReferences and, from them, its dependents.
//! Each change is applied to the graph in proportion to what changed (the object's own edges),
//! and queues work:
//! - `attemptToDelete` — a dependent whose owner may be gone: an owner that no longer exists
//!   (confirmed with a live GET, like `isDangling`) is dangling; a dependent whose owners are all
//!   dangling or being deleted in the foreground is deleted (in the foreground itself if it has
//!   dependents and an owner waits for it); one with a remaining owner only loses the references
//!   to the others;
//! - an owner deleted with propagationPolicy Foreground carries the `foregroundDeletion`
//!   finalizer: its dependents are deleted, and the finalizer is removed once no dependent with
//!   `blockOwnerDeletion: true` is left;
//! - `attemptToOrphan` — an owner deleted with propagationPolicy Orphan carries the `orphan`
//!   finalizer: its dependents lose their reference to it, then the finalizer is removed.
//!
//! It only acts once every informer has synced (never on a cold cache).

use std::sync::Arc;

use super::runtime::{Action, Worker};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Controller, Requeue};
use crate::api::meta::{OwnerReference, OwnerReferences};
use crate::api::{Kind, Object, Registry};
use crate::apiserver::{
    ApiServer, DeleteOptions, Preconditions, FINALIZER_FOREGROUND, FINALIZER_ORPHAN,
};
use crate::client::Notification;
use crate::clock::Timestamp;
use crate::hash::{FixedHashMap, FixedHashSet};

pub const USER_AGENT: &str = "generic-garbage-collector";
/// `metav1.DeletePropagationBackground`.
pub const PROPAGATION_BACKGROUND: &str = "Background";
/// `metav1.DeletePropagationForeground`.
pub const PROPAGATION_FOREGROUND: &str = "Foreground";
/// `metav1.DeletePropagationOrphan`.
pub const PROPAGATION_ORPHAN: &str = "Orphan";

/// One object of the graph (`node` in the real graph builder).
#[derive(Debug, Clone, Default)]
struct Node {
    /// None for a virtual node whose reference names a kind the server does not serve.
    kind: Option<Kind>,
    namespace: String,
    name: String,
    owners: OwnerReferences,
    /// The uids of the objects that reference this one as an owner (150,000 for a large
    /// ReplicaSet: `observe` takes a node out of the graph and puts it back, never clones it).
    /// Found by hash, as each new pod adds itself; walked in uid order
    /// ([`Node::sorted_dependents`]) where the walk queues work.
    dependents: FixedHashSet<String>,
    /// Has a deletionTimestamp.
    being_deleted: bool,
    /// Being deleted with the `foregroundDeletion` finalizer.
    deleting_dependents: bool,
    /// Being deleted with the `orphan` finalizer.
    orphaning: bool,
    /// Known only from a reference: not (yet) observed by an informer.
    virtual_: bool,
}

impl Node {
    /// The dependents in uid order.
    fn sorted_dependents(&self) -> Vec<String> {
        let mut uids: Vec<String> = self.dependents.iter().cloned().collect();
        uids.sort_unstable();
        uids
    }
}

/// The garbage collector over every served kind's ownerReferences: the graph and its two
/// workers (`runAttemptToDeleteWorker`, `runAttemptToOrphanWorker`).
pub struct GarbageCollector {
    graph: GraphBuilder,
    attempt_to_delete: Worker<String>,
    attempt_to_orphan: Worker<String>,
}

/// The dependency graph and the informers feeding it (`GraphBuilder`), with the work its
/// changes and its workers' items ask for, handed to the workers' queues in order.
struct GraphBuilder {
    /// A reader of kube-controller-manager's shared informer of each served kind but Events,
    /// in registry order.
    informers: Vec<(Kind, SharedInformer)>,
    /// The factory they come from (a kind served later gets its reader there).
    factory: SharedInformers,
    /// Every object by uid. A hash map: every notification looks its object up (a status
    /// write included, to see that nothing the graph holds changed), and a search down a tree
    /// of 150,000 uids compared strings at each level.
    graph: FixedHashMap<String, Node>,
    /// Objects to check for deletion (dependents, and owners deleting in the foreground), for
    /// the `attemptToDelete` queue.
    to_delete: Vec<String>,
    /// Owners deleted with the `orphan` finalizer, for the `attemptToOrphan` queue.
    to_orphan: Vec<String>,
}

/// The kinds the collector watches: every served kind but Events.
fn watched(registry: &Registry) -> Vec<Kind> {
    registry
        .kinds()
        .iter()
        .copied()
        .filter(|k| *k != Kind::Event)
        .collect()
}

fn has_finalizer(obj: &Object, f: &str) -> bool {
    obj.meta().finalizers.iter().any(|x| x == f)
}

impl GarbageCollector {
    pub fn new(informers: &SharedInformers) -> Self {
        let mut graph = GraphBuilder {
            informers: Vec::new(),
            factory: informers.clone(),
            graph: FixedHashMap::default(),
            to_delete: Vec::new(),
            to_orphan: Vec::new(),
        };
        for kind in watched(&Registry::default()) {
            graph.watch(kind);
        }
        GarbageCollector {
            graph,
            attempt_to_delete: Worker::default(),
            attempt_to_orphan: Worker::default(),
        }
    }

    /// Hands the work the graph asked for to the workers' queues, in the order it was asked.
    fn queue_work(&mut self) {
        for uid in self.graph.to_delete.drain(..) {
            self.attempt_to_delete.queue_mut().add(uid);
        }
        for uid in self.graph.to_orphan.drain(..) {
            self.attempt_to_orphan.queue_mut().add(uid);
        }
    }
}

impl GraphBuilder {
    fn watch(&mut self, kind: Kind) {
        let informer = self.factory.reader(kind);
        self.informers.push((kind, informer));
    }

    /// Follows the kinds the API server serves: an informer for each new one; for one no longer
    /// served, its informer goes and its objects leave the graph as deleted.
    fn follow_served_kinds(&mut self, api: &ApiServer) {
        let served = watched(api.registry());
        let gone: Vec<Kind> = self
            .informers
            .iter()
            .map(|(k, _)| *k)
            .filter(|k| !served.contains(k))
            .collect();
        if !gone.is_empty() {
            self.informers.retain(|(k, _)| served.contains(k));
            let mut uids: Vec<String> = self
                .graph
                .iter()
                .filter(|(_, n)| !n.virtual_ && n.kind.is_some_and(|k| gone.contains(&k)))
                .map(|(uid, _)| uid.clone())
                .collect();
            // In uid order, whatever the map's.
            uids.sort_unstable();
            for uid in uids {
                self.remove_node(&uid);
            }
        }
        for kind in served {
            if !self.informers.iter().any(|(k, _)| *k == kind) {
                self.watch(kind);
            }
        }
    }

    /// The kind an owner reference names, if the server serves it.
    fn owner_kind(api: &ApiServer, owner: &OwnerReference) -> Option<Kind> {
        api.registry()
            .by_kind(&owner.api_version, &owner.kind)
            .map(|r| r.kind())
    }

    /// `processGraphChanges` for one notification.
    fn on_note(&mut self, api: &ApiServer, note: &Notification<Arc<Object>>) {
        match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => {
                if !self.unchanged(o) {
                    self.observe(api, o);
                }
            }
            Notification::Delete(d) => {
                let uid = d.object().meta().uid.clone();
                if self.graph.get(&uid).is_some_and(|n| !n.virtual_) {
                    self.remove_node(&uid);
                }
            }
        }
    }

    /// An object added or updated: its node and edges follow it.
    fn observe(&mut self, api: &ApiServer, obj: &Arc<Object>) {
        let meta = obj.meta();
        let uid = meta.uid.clone();
        let previous = self.graph.remove(&uid);
        let was_deleting_dependents = previous.as_ref().is_some_and(|n| n.deleting_dependents);
        let was_orphaning = previous.as_ref().is_some_and(|n| n.orphaning);
        let old_owners = previous
            .as_ref()
            .filter(|n| !n.virtual_)
            .map(|n| n.owners.clone())
            .unwrap_or_default();
        let being_deleted = meta.deletion_timestamp.is_some();
        let node = Node {
            kind: Some(obj.kind()),
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
            owners: meta.owner_references.clone(),
            dependents: previous.map(|n| n.dependents).unwrap_or_default(),
            being_deleted,
            deleting_dependents: being_deleted && has_finalizer(obj, FINALIZER_FOREGROUND),
            orphaning: being_deleted && has_finalizer(obj, FINALIZER_ORPHAN),
            virtual_: false,
        };
        let orphaning = node.orphaning;
        let deleting_dependents = node.deleting_dependents;
        self.graph.insert(uid.clone(), node);
        // Edges: references dropped or no longer blocking, then new ones.
        for old in &old_owners {
            let kept = meta.owner_references.iter().find(|r| r.uid == old.uid);
            let unblocked = old.block_owner_deletion == Some(true)
                && kept.is_none_or(|r| r.block_owner_deletion != Some(true));
            if kept.is_none() {
                if let Some(owner) = self.graph.get_mut(&old.uid) {
                    owner.dependents.remove(&uid);
                }
            }
            if unblocked
                && self
                    .graph
                    .get(&old.uid)
                    .is_some_and(|o| o.deleting_dependents)
            {
                self.to_delete.push(old.uid.clone());
            }
        }
        let mut waits_on_foreground_owner = false;
        for owner in &meta.owner_references {
            if old_owners.iter().any(|o| o.uid == owner.uid) {
                waits_on_foreground_owner |= self
                    .graph
                    .get(&owner.uid)
                    .is_some_and(|o| o.deleting_dependents);
                continue;
            }
            match self.graph.get_mut(&owner.uid) {
                Some(o) => {
                    o.dependents.insert(uid.clone());
                    waits_on_foreground_owner |= o.deleting_dependents;
                }
                None => {
                    // An owner not observed (yet): a virtual node, verified by a worker.
                    let kind = Self::owner_kind(api, owner);
                    let namespaced = kind.is_none_or(|k| k.resource().namespaced);
                    let virtual_node = Node {
                        kind,
                        namespace: if namespaced {
                            meta.namespace.clone()
                        } else {
                            String::new()
                        },
                        name: owner.name.clone(),
                        dependents: [uid.clone()].into_iter().collect(),
                        virtual_: true,
                        ..Default::default()
                    };
                    self.graph.insert(owner.uid.clone(), virtual_node);
                    self.to_delete.push(owner.uid.clone());
                }
            }
        }
        if waits_on_foreground_owner && !being_deleted {
            self.to_delete.push(uid.clone());
        }
        // Transitions: starting to orphan, starting to delete the dependents.
        if orphaning && !was_orphaning {
            self.to_orphan.push(uid.clone());
        }
        if deleting_dependents && !was_deleting_dependents {
            let deps: Vec<String> = self
                .graph
                .get(&uid)
                .map(Node::sorted_dependents)
                .unwrap_or_default();
            for d in deps {
                self.to_delete.push(d);
            }
            self.to_delete.push(uid);
        }
    }

    /// Whether `obj` is an update that changes nothing the graph holds: an observed node, not
    /// being deleted before or now, with the same owners, none of them deleting its
    /// dependents. Most updates are (status writes, lease renewals: thousands a second), and
    /// the real graph builder leaves such a node alone too (`processGraphChanges` acts on
    /// reference differences and deletion state).
    fn unchanged(&self, obj: &Object) -> bool {
        let meta = obj.meta();
        let Some(node) = self.graph.get(&meta.uid) else {
            return false;
        };
        !node.virtual_
            && !node.being_deleted
            && meta.deletion_timestamp.is_none()
            && node.kind == Some(obj.kind())
            && node.owners == meta.owner_references
            && node.owners.iter().all(|o| {
                self.graph
                    .get(&o.uid)
                    .is_none_or(|owner| !owner.deleting_dependents)
            })
    }

    /// An object gone: its edges go, its dependents are checked, and owners waiting for it
    /// (foreground) look again.
    fn remove_node(&mut self, uid: &str) {
        let Some(node) = self.graph.remove(uid) else {
            return;
        };
        for owner in &node.owners {
            if let Some(o) = self.graph.get_mut(&owner.uid) {
                o.dependents.remove(uid);
                if o.deleting_dependents {
                    self.to_delete.push(owner.uid.clone());
                }
            }
        }
        for d in node.sorted_dependents() {
            self.to_delete.push(d);
        }
    }

    /// The live object of a node, if it still exists with the same uid.
    fn live(api: &ApiServer, node: &Node, uid: &str) -> Option<Arc<Object>> {
        let kind = node.kind?;
        let ns = Some(node.namespace.as_str()).filter(|n| !n.is_empty());
        api.get(kind, ns, &node.name)
            .ok()
            .filter(|o| o.meta().uid == uid)
    }

    /// `attemptToDeleteItem`; `Err` asks for a rate-limited retry.
    fn attempt_to_delete(&mut self, api: &mut ApiServer, uid: &str) -> Result<(), Requeue> {
        let Some(node) = self.graph.get(uid).cloned() else {
            return Ok(());
        };
        if node.virtual_ {
            if node.kind.is_some() && Self::live(api, &node, uid).is_none() {
                // The owner never existed or is gone: a virtual delete event.
                self.remove_node(uid);
            }
            return Ok(());
        }
        if node.being_deleted && !node.deleting_dependents {
            return Ok(());
        }
        let Some(latest) = Self::live(api, &node, uid) else {
            self.remove_node(uid);
            return Ok(());
        };
        if node.deleting_dependents {
            return self.process_deleting_dependents(api, uid, &node, &latest);
        }
        let refs = &latest.meta().owner_references;
        if refs.is_empty() {
            return Ok(());
        }
        let mut solid = 0;
        let mut dangling = Vec::new();
        let mut waiting = Vec::new();
        for r in refs {
            match self.owner_state(api, &node, r) {
                OwnerState::Solid => solid += 1,
                OwnerState::Dangling => dangling.push(r.uid.clone()),
                OwnerState::WaitingForDependents => waiting.push(r.uid.clone()),
            }
        }
        if solid > 0 {
            if dangling.is_empty() && waiting.is_empty() {
                return Ok(());
            }
            // Some owner stays: only the references to the others go.
            let gone: Vec<String> = dangling.into_iter().chain(waiting).collect();
            return update_owner_refs(api, &latest, |refs| {
                refs.retain(|r| !gone.contains(&r.uid));
            });
        }
        let policy = if !waiting.is_empty() && !node.dependents.is_empty() {
            PROPAGATION_FOREGROUND
        } else if has_finalizer(&latest, FINALIZER_ORPHAN) {
            PROPAGATION_ORPHAN
        } else if has_finalizer(&latest, FINALIZER_FOREGROUND) {
            PROPAGATION_FOREGROUND
        } else {
            PROPAGATION_BACKGROUND
        };
        delete_object(api, &node, &latest, policy)
    }

    /// How an owner reference of `dependent` stands (`classifyReferences`).
    fn owner_state(&self, api: &ApiServer, dependent: &Node, r: &OwnerReference) -> OwnerState {
        if let Some(o) = self.graph.get(&r.uid).filter(|o| !o.virtual_) {
            return if o.deleting_dependents {
                OwnerState::WaitingForDependents
            } else {
                OwnerState::Solid
            };
        }
        // Not in the graph: confirm with a live GET (`isDangling`).
        let Some(kind) = Self::owner_kind(api, r) else {
            // A kind the server does not serve: left alone (the real collector retries).
            return OwnerState::Solid;
        };
        let ns = if kind.resource().namespaced {
            Some(dependent.namespace.as_str())
        } else {
            None
        };
        match api.get(kind, ns, &r.name) {
            Ok(o) if o.meta().uid == r.uid => {
                if o.meta().deletion_timestamp.is_some() && has_finalizer(&o, FINALIZER_FOREGROUND)
                {
                    OwnerState::WaitingForDependents
                } else {
                    OwnerState::Solid
                }
            }
            _ => OwnerState::Dangling,
        }
    }

    /// `processDeletingDependentsItem`: removes the `foregroundDeletion` finalizer once no
    /// dependent blocks, else makes sure each blocking one is being deleted.
    fn process_deleting_dependents(
        &mut self,
        api: &mut ApiServer,
        uid: &str,
        node: &Node,
        latest: &Arc<Object>,
    ) -> Result<(), Requeue> {
        let blocking: Vec<String> = node
            .sorted_dependents()
            .into_iter()
            .filter(|d| {
                self.graph.get(d).is_some_and(|dep| {
                    dep.owners
                        .iter()
                        .any(|r| r.uid == uid && r.block_owner_deletion == Some(true))
                })
            })
            .collect();
        if blocking.is_empty() {
            return remove_finalizer(api, latest, FINALIZER_FOREGROUND);
        }
        for d in blocking {
            if !self.graph.get(&d).is_some_and(|n| n.deleting_dependents) {
                self.to_delete.push(d);
            }
        }
        Ok(())
    }

    /// `attemptToOrphan`: every dependent loses its reference to the owner, then the owner
    /// loses its `orphan` finalizer.
    fn attempt_to_orphan(&mut self, api: &mut ApiServer, uid: &str) -> Result<(), Requeue> {
        let Some(node) = self.graph.get(uid).cloned() else {
            return Ok(());
        };
        for d in &node.sorted_dependents() {
            let Some(dep) = self.graph.get(d).cloned() else {
                continue;
            };
            let Some(live) = Self::live(api, &dep, d) else {
                continue;
            };
            update_owner_refs(api, &live, |refs| refs.retain(|r| r.uid != uid))?;
        }
        let Some(latest) = Self::live(api, &node, uid) else {
            return Ok(());
        };
        remove_finalizer(api, &latest, FINALIZER_ORPHAN)
    }
}

/// How a dependent's owner stands.
enum OwnerState {
    /// Exists and is not deleting its dependents in the foreground.
    Solid,
    /// Does not exist (or another object has its name).
    Dangling,
    /// Exists with deletionTimestamp and the `foregroundDeletion` finalizer.
    WaitingForDependents,
}

/// Rewrites `obj`'s ownerReferences with `change` (an update on its resourceVersion: a
/// conflict is retried); nothing is written when nothing changes.
fn update_owner_refs(
    api: &mut ApiServer,
    obj: &Arc<Object>,
    change: impl FnOnce(&mut Vec<OwnerReference>),
) -> Result<(), Requeue> {
    let mut updated = (**obj).clone();
    change(&mut updated.meta_mut().owner_references);
    if updated == **obj {
        return Ok(());
    }
    match api.update(USER_AGENT, updated) {
        Ok(_) => Ok(()),
        Err(s) if s.code() == 404 => Ok(()),
        Err(_) => Err(Requeue),
    }
}

/// Removes one finalizer from `obj` (which the API server then removes if it was the last).
fn remove_finalizer(
    api: &mut ApiServer,
    obj: &Arc<Object>,
    finalizer: &str,
) -> Result<(), Requeue> {
    let mut updated = (**obj).clone();
    updated.meta_mut().finalizers.retain(|f| f != finalizer);
    if updated == **obj {
        return Ok(());
    }
    match api.update(USER_AGENT, updated) {
        Ok(_) => Ok(()),
        Err(s) if s.code() == 404 => Ok(()),
        Err(_) => Err(Requeue),
    }
}

/// Deletes a collected object with a uid and resourceVersion precondition.
fn delete_object(
    api: &mut ApiServer,
    node: &Node,
    latest: &Arc<Object>,
    policy: &str,
) -> Result<(), Requeue> {
    let Some(kind) = node.kind else {
        return Ok(());
    };
    let meta = latest.meta();
    let opts = DeleteOptions {
        preconditions: Some(Preconditions {
            uid: Some(meta.uid.clone()),
            resource_version: Some(meta.resource_version.clone()),
        }),
        propagation_policy: Some(policy.into()),
        ..Default::default()
    };
    let ns = Some(node.namespace.as_str()).filter(|n| !n.is_empty());
    match api.delete(USER_AGENT, kind, ns, &node.name, &opts) {
        Ok(_) => Ok(()),
        Err(s) if s.code() == 404 => Ok(()),
        // Changed in between: look again.
        Err(_) => Err(Requeue),
    }
}

impl Controller for GarbageCollector {
    fn informers(&self) -> Vec<InformerRef<'_>> {
        self.graph.informers.iter().map(|(_, i)| i.into()).collect()
    }

    fn name(&self) -> &str {
        USER_AGENT
    }

    /// The graph follows every notification, then (once every informer has synced) the orphan
    /// worker drains its queue, then the delete worker its own; an item's work for the delete
    /// queue joins it as the item is processed, as the real workers add to it.
    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        let graph = &mut self.graph;
        graph.follow_served_kinds(api);
        for i in 0..graph.informers.len() {
            let Some((_, informer)) = graph.informers.get_mut(i) else {
                break;
            };
            let notes = informer.step(now, api);
            for note in &notes {
                graph.on_note(api, note);
            }
        }
        self.queue_work();
        if self.graph.informers.iter().all(|(_, i)| i.has_synced()) {
            let graph = &mut self.graph;
            self.attempt_to_orphan
                .drain(now, &mut || false, |uid, _, _| {
                    Some(graph.attempt_to_orphan(api, uid).map(|()| Action::Done))
                });
            self.queue_work();
            let graph = &mut self.graph;
            self.attempt_to_delete
                .drain(now, &mut || false, |uid, queue, _| {
                    let result = graph.attempt_to_delete(api, uid).map(|()| Action::Done);
                    for d in graph.to_delete.drain(..) {
                        queue.add(d);
                    }
                    Some(result)
                });
            self.queue_work();
        }
        earliest(
            self.graph
                .informers
                .iter()
                .map(|(_, i)| i.next_wakeup())
                .chain([
                    self.attempt_to_delete.queue().next_ready_at(),
                    self.attempt_to_orphan.queue().next_ready_at(),
                ]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_watches_every_served_kind_but_events() {
        let kinds = watched(&Registry::default());
        assert!(kinds.contains(&Kind::Pod) && kinds.contains(&Kind::Namespace));
        assert!(!kinds.contains(&Kind::Event));
    }
}
