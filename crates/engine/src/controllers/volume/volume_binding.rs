//! kube-scheduler's VolumeBinding plugin (`pkg/scheduler/framework/plugins/volumebinding`:
//! `volume_binding.go` and the binder of `binder.go`), with the scheduler's claim, volume and
//! class informers. For a pod whose volumes name claims:
//! - PreFilter (`podHasPVCs`, `GetPodVolumeClaims`, `GetEligibleNodes`): a claim that does not
//!   exist, is being deleted or has lost its volume rejects the pod with its own message; an
//!   unbound claim of an `Immediate` class rejects it with `pod has unbound immediate
//!   PersistentVolumeClaims` (the PV controller binds those); the local volumes of bound claims
//!   narrow the nodes to theirs;
//! - Filter (`FindPodVolumes`): a bound claim's volume must be reachable from the node
//!   (`node(s) had volume node affinity conflict`); an unbound `WaitForFirstConsumer` claim
//!   needs a matching Available volume reachable from the node, or a class that provisions
//!   (`node(s) didn't find available persistent volumes to bind`);
//! - Reserve and PreBind (`AssumePodVolumes`, `BindPodVolumes`): on the chosen node, a matched
//!   volume gets the claim in its `claimRef`, a claim to provision gets
//!   `volume.kubernetes.io/selected-node`; then the pod waits — polled each second, at most
//!   `bindTimeoutSeconds` (600 s) — until every claim is bound (`checkBindings`), and only then
//!   is bound itself. The wait holds the pod alone: the scheduler goes on with the others.
//!
//! A pod with no claim is skipped before anything is read.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::claim_sync::NOT_SUPPORTED_PROVISIONER;
use super::matching::{self, find_matching_volume, Wanted};
use crate::api::node::Node;
use crate::api::pod::Pod;
use crate::api::storage::{PersistentVolumeClaim, BOUND_BY_CONTROLLER, SELECTED_NODE};
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::adapter::ApiInformer;
use crate::controllers::earliest;
use crate::controllers::events::reference_of;
use crate::controllers::profile::Profile;
use crate::controllers::shared_informer::InformerRef;
use crate::rng::SimRng;
use watchlab_apimachinery::sort;

/// The plugin's name, as the messages of a narrowed node list name it.
pub const PLUGIN_NAME: &str = "VolumeBinding";
/// `bindTimeoutSeconds` (600 s): how long PreBind waits for the claims to be bound.
pub const BIND_TIMEOUT_MS: u64 = 600_000;
/// How often PreBind looks at the claims while it waits (`checkBindings`' poll interval).
pub const BINDING_POLL_MS: u64 = 1_000;

/// `ErrReasonBindConflict`.
pub const ERR_REASON_BIND_CONFLICT: &str =
    "node(s) didn't find available persistent volumes to bind";
/// `ErrReasonNodeConflict`.
pub const ERR_REASON_NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";
/// `ErrReasonPVNotExist`.
pub const ERR_REASON_PV_NOT_EXIST: &str =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
/// PreFilter's reason for a claim the PV controller has still to bind.
pub const ERR_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

/// What PreFilter decided for a pod.
pub enum PreFilter {
    /// The pod names no claim (`framework.Skip`).
    Skip,
    /// The pod cannot be scheduled now, for this reason (UnschedulableAndUnresolvable).
    Reject(String),
    /// The pod's claims, for the filter and the binding.
    Claims(PodVolumes),
}

/// A pod's claims as PreFilter found them (the cycle state's `stateData`).
pub struct PodVolumes {
    /// Bound claims and their volume (`None`: the volume is not in the cache).
    bound: Vec<Option<Arc<Object>>>,
    /// Unbound claims of `WaitForFirstConsumer` classes.
    delayed: Vec<Arc<Object>>,
    /// The classes of the delayed claims, by name.
    classes: BTreeMap<String, Arc<Object>>,
    /// The volumes a delayed claim could be matched with (only read when there is one).
    volumes: Vec<Arc<Object>>,
    /// The nodes the bound claims' local volumes live on (`GetEligibleNodes`); `None`: any.
    pub eligible: Option<BTreeSet<String>>,
}

/// What the pod's delayed claims get on one node.
struct Plan {
    /// Volumes matched with claims (`StaticBindings`).
    bindings: Vec<(Arc<Object>, Arc<Object>)>,
    /// Claims to provision (`DynamicProvisions`).
    provisions: Vec<Arc<Object>>,
}

impl PodVolumes {
    /// The plugin's Filter on `node`: the reasons it is not fit, in the real order.
    pub fn filter(&self, node: &Node) -> Result<(), Vec<String>> {
        let found = self.bound.iter().all(Option::is_some);
        let reachable = self
            .bound
            .iter()
            .flatten()
            .filter_map(|o| o.as_persistent_volume())
            .all(|pv| matching::reachable_from(pv, node));
        let provisionable = self.delayed.is_empty() || self.plan(node).is_some();
        let reasons: Vec<String> = [
            (reachable, ERR_REASON_NODE_CONFLICT),
            (provisionable, ERR_REASON_BIND_CONFLICT),
            (found, ERR_REASON_PV_NOT_EXIST),
        ]
        .into_iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, reason)| reason.to_string())
        .collect();
        if reasons.is_empty() {
            Ok(())
        } else {
            Err(reasons)
        }
    }

    /// Whether a binding step is needed before the pod is bound (some claim is not bound).
    pub fn needs_binding(&self) -> bool {
        !self.delayed.is_empty()
    }

    /// `findMatchingVolumes` then `checkVolumeProvisions` on `node`: each delayed claim (the
    /// smallest request first) gets the best Available volume reachable from the node, else a
    /// provisioner; `None` when a claim gets neither.
    fn plan(&self, node: &Node) -> Option<Plan> {
        let mut claims: Vec<&Arc<Object>> = self.delayed.iter().collect();
        sort::sort_by_key(&mut claims, |c| {
            c.as_persistent_volume_claim().map(matching::requested)
        });
        let mut excluded = BTreeSet::new();
        let mut plan = Plan {
            bindings: Vec::new(),
            provisions: Vec::new(),
        };
        for obj in claims {
            let claim = obj.as_persistent_volume_claim()?;
            let wanted = Wanted {
                claim,
                node: Some(node),
                excluded: &excluded,
                delay_binding: true,
            };
            if let Some(pv) = find_matching_volume(&wanted, &self.volumes) {
                excluded.insert(pv.name().to_string());
                plan.bindings.push((pv, obj.clone()));
                continue;
            }
            let class = self.classes.get(matching::claim_class(claim))?;
            let provisioner = class.as_storage_class()?.provisioner.as_str();
            if provisioner.is_empty() || provisioner == NOT_SUPPORTED_PROVISIONER {
                return None;
            }
            plan.provisions.push(obj.clone());
        }
        Some(plan)
    }
}

/// A pod whose claims are being bound (PreBind's wait).
struct Waiting {
    node: Arc<Object>,
    /// Volumes matched with claims: (volume, claim).
    bindings: Vec<(String, String)>,
    /// Claims being provisioned, and the resourceVersion this plugin wrote (0: none).
    provisions: Vec<(String, u64)>,
    namespace: String,
    deadline: Timestamp,
}

/// What the wait found.
pub enum Check {
    /// Every claim is bound: bind the pod to this node.
    Bound(String),
    /// Not yet: look again after [`BINDING_POLL_MS`].
    Wait,
    /// The binding failed (`running PreBind plugin "VolumeBinding": ...`).
    Failed(String),
}

/// The plugin, with the scheduler's storage informers.
pub struct VolumeBinding {
    claims: ApiInformer,
    volumes: ApiInformer,
    classes: ApiInformer,
    waiting: BTreeMap<ObjectKey, Waiting>,
    /// Unschedulable pods that name claims: a storage change may make them fit
    /// (`EventsToRegister`).
    rejected: BTreeSet<ObjectKey>,
}

impl VolumeBinding {
    pub fn new(seed: u64, profile: &Profile, user: &str) -> Self {
        let informer = |kind: Kind| {
            let name = format!("{user}/{}", kind.resource().plural);
            let rng = SimRng::child(seed, &name);
            ApiInformer::new(kind, None, profile.informer_config(), Vec::new(), rng)
        };
        VolumeBinding {
            claims: informer(Kind::PersistentVolumeClaim),
            volumes: informer(Kind::PersistentVolume),
            classes: informer(Kind::StorageClass),
            waiting: BTreeMap::new(),
            rejected: BTreeSet::new(),
        }
    }

    pub fn informers(&self) -> [InformerRef<'_>; 3] {
        [
            (&self.claims).into(),
            (&self.volumes).into(),
            (&self.classes).into(),
        ]
    }

    /// Pumps the informers; returns the unschedulable pods naming claims when storage
    /// changed (to try again).
    pub fn step(&mut self, now: Timestamp, api: &mut ApiServer, user: &str) -> BTreeSet<ObjectKey> {
        let mut changed = false;
        for informer in [&mut self.claims, &mut self.volumes, &mut self.classes] {
            changed |= !informer.step(now, api, user).is_empty();
        }
        if changed {
            std::mem::take(&mut self.rejected)
        } else {
            BTreeSet::new()
        }
    }

    pub fn has_synced(&self) -> bool {
        self.claims.has_synced() && self.volumes.has_synced() && self.classes.has_synced()
    }

    pub fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.claims.next_wakeup(),
            self.volumes.next_wakeup(),
            self.classes.next_wakeup(),
        ])
    }

    /// An unschedulable pod naming claims.
    pub fn reject(&mut self, key: &ObjectKey) {
        self.rejected.insert(key.clone());
    }

    /// The pod is bound or gone: nothing kept for it.
    pub fn forget(&mut self, key: &ObjectKey) {
        self.rejected.remove(key);
        self.waiting.remove(key);
    }

    /// Whether the pod waits in PreBind.
    pub fn is_waiting(&self, key: &ObjectKey) -> bool {
        !self.waiting.is_empty() && self.waiting.contains_key(key)
    }

    fn claim(&self, namespace: &str, name: &str) -> Option<Arc<Object>> {
        self.claims
            .store()
            .get(&ObjectKey::new(Some(namespace), name))
    }

    fn volume(&self, name: &str) -> Option<Arc<Object>> {
        self.volumes.store().get(&ObjectKey::new(None, name))
    }

    /// PreFilter.
    pub fn pre_filter(&self, pod: &Pod) -> PreFilter {
        if pod.spec.volumes.is_empty() || pod.spec.claim_volumes().next().is_none() {
            return PreFilter::Skip;
        }
        let ns = pod.metadata.namespace.as_str();
        let mut v = PodVolumes {
            bound: Vec::new(),
            delayed: Vec::new(),
            classes: BTreeMap::new(),
            volumes: Vec::new(),
            eligible: None,
        };
        let mut immediate = false;
        for (_, name) in pod.spec.claim_volumes() {
            let Some(obj) = self.claim(ns, name) else {
                return PreFilter::Reject(format!("persistentvolumeclaim {name:?} not found"));
            };
            let Some(claim) = obj.as_persistent_volume_claim() else {
                continue;
            };
            if let Some(why) = unusable(claim) {
                return PreFilter::Reject(why);
            }
            if matching::is_fully_bound(claim) {
                v.bound.push(self.volume(&claim.spec.volume_name));
                continue;
            }
            let class_name = matching::claim_class(claim);
            let class = self.classes.store().get(&ObjectKey::new(None, class_name));
            let delay = class
                .as_ref()
                .and_then(|c| c.as_storage_class())
                .is_some_and(matching::waits_for_first_consumer);
            match class {
                Some(class) if delay && claim.spec.volume_name.is_empty() => {
                    v.classes.insert(class_name.to_string(), class);
                    v.delayed.push(obj);
                }
                _ => immediate = true,
            }
        }
        if immediate {
            return PreFilter::Reject(ERR_UNBOUND_IMMEDIATE.into());
        }
        if !v.delayed.is_empty() {
            v.volumes = self.volumes.store().list();
        }
        v.eligible = eligible_nodes(&v.bound);
        PreFilter::Claims(v)
    }

    /// Reserve and PreBind's writes on the chosen `node`: matched volumes get their claim,
    /// claims to provision the node. `Ok(false)`: nothing to wait for (every claim bound).
    pub fn pre_bind(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        user: &str,
        key: &ObjectKey,
        volumes: &PodVolumes,
        node: &Arc<Object>,
    ) -> Result<bool, String> {
        let Some(plan) = node.as_node().and_then(|n| volumes.plan(n)) else {
            return Ok(false);
        };
        if plan.bindings.is_empty() && plan.provisions.is_empty() {
            return Ok(false);
        }
        let (ns, _) = key.split();
        let mut waiting = Waiting {
            node: node.clone(),
            bindings: Vec::new(),
            provisions: Vec::new(),
            namespace: ns.unwrap_or_default().to_string(),
            deadline: now.plus_millis(BIND_TIMEOUT_MS),
        };
        for (pv, claim) in &plan.bindings {
            bind_volume(api, user, pv, claim)?;
            waiting
                .bindings
                .push((pv.name().to_string(), claim.name().to_string()));
        }
        for claim in &plan.provisions {
            let rv = select_node(api, user, claim, node.name())?;
            waiting.provisions.push((claim.name().to_string(), rv));
        }
        self.waiting.insert(key.clone(), waiting);
        Ok(true)
    }

    /// `checkBindings` for a waiting pod; a wait past the deadline fails.
    pub fn check(&mut self, now: Timestamp, key: &ObjectKey) -> Check {
        let Some(w) = self.waiting.get(key) else {
            return Check::Failed("binding volumes: no binding in progress".into());
        };
        let result = self.check_bindings(w);
        let result = match result {
            Ok(true) => Check::Bound(w.node.name().to_string()),
            Ok(false) if now >= w.deadline => {
                Check::Failed("binding volumes: context deadline exceeded".into())
            }
            Ok(false) => Check::Wait,
            Err(e) => Check::Failed(format!("binding volumes: {e}")),
        };
        if !matches!(result, Check::Wait) {
            self.waiting.remove(key);
        }
        result
    }

    /// Whether every claim the pod waits for is bound (`Err`: it never will be).
    fn check_bindings(&self, w: &Waiting) -> Result<bool, String> {
        let node = w.node.as_node().ok_or("the node is gone")?;
        let mut done = true;
        for (pv_name, claim_name) in &w.bindings {
            let pv_obj = self.volume(pv_name).ok_or_else(|| {
                format!("failed to check pv binding: persistentvolume {pv_name:?} not found")
            })?;
            let reset = pv_obj
                .as_persistent_volume()
                .and_then(|pv| pv.spec.claim_ref.as_ref())
                .is_none_or(|r| r.uid.is_empty());
            if reset {
                return Err(format!("ClaimRef got reset for pv {pv_name:?}"));
            }
            done &= self
                .claim(&w.namespace, claim_name)
                .as_ref()
                .and_then(|c| c.as_persistent_volume_claim())
                .is_some_and(matching::is_fully_bound);
        }
        for (name, written) in &w.provisions {
            done &= self.check_provision(node, &w.namespace, name, *written)?;
        }
        Ok(done)
    }

    /// One provisioned claim: still for this node, its volume reachable from it, bound.
    fn check_provision(
        &self,
        node: &Node,
        namespace: &str,
        name: &str,
        written: u64,
    ) -> Result<bool, String> {
        let obj = self.claim(namespace, name).ok_or_else(|| {
            format!("failed to check provisioning pvc: could not find v1.PersistentVolumeClaim \"{namespace}/{name}\"")
        })?;
        if obj.resource_version() < written {
            return Ok(false);
        }
        let Some(claim) = obj.as_persistent_volume_claim() else {
            return Ok(false);
        };
        if matching::selected_node(claim) != Some(node.metadata.name.as_str()) {
            return Err(format!("provisioning failed for PVC {name:?}"));
        }
        if !claim.spec.volume_name.is_empty() {
            let Some(pv_obj) = self.volume(&claim.spec.volume_name) else {
                return Ok(false);
            };
            let reachable = pv_obj
                .as_persistent_volume()
                .is_some_and(|pv| matching::reachable_from(pv, node));
            if !reachable {
                return Err(format!(
                    "pv {:?} node affinity doesn't match node {:?}: no matching NodeSelectorTerms",
                    claim.spec.volume_name, node.metadata.name
                ));
            }
        }
        Ok(matching::is_fully_bound(claim))
    }
}

/// `podHasPVCs`' refusals of a claim that exists.
fn unusable(claim: &PersistentVolumeClaim) -> Option<String> {
    let name = &claim.metadata.name;
    if claim.status.phase == "Lost" {
        let pv = &claim.spec.volume_name;
        return Some(format!(
            "persistentvolumeclaim {name:?} bound to non-existent persistentvolume {pv:?}"
        ));
    }
    if claim.metadata.deletion_timestamp.is_some() {
        return Some(format!("persistentvolumeclaim {name:?} is being deleted"));
    }
    None
}

/// `GetEligibleNodes`: the intersection of the bound claims' local volumes' nodes; `None` when
/// none is local, or a volume is missing.
fn eligible_nodes(bound: &[Option<Arc<Object>>]) -> Option<BTreeSet<String>> {
    let mut eligible: Option<BTreeSet<String>> = None;
    for pv in bound {
        let names = pv
            .as_ref()?
            .as_persistent_volume()
            .and_then(matching::local_node_names);
        if let Some(names) = names {
            eligible = Some(match eligible {
                None => names,
                Some(e) => e.intersection(&names).cloned().collect(),
            });
        }
    }
    eligible
}

/// `bindAPIUpdate` for a matched volume: its `claimRef` names the claim,
/// `bound-by-controller` set.
fn bind_volume(
    api: &mut ApiServer,
    user: &str,
    pv_obj: &Arc<Object>,
    claim_obj: &Arc<Object>,
) -> Result<(), String> {
    let Some(pv) = pv_obj.as_persistent_volume() else {
        return Ok(());
    };
    let mut v = pv.clone();
    v.spec.claim_ref = Some(reference_of(claim_obj));
    v.metadata
        .annotations
        .insert(BOUND_BY_CONTROLLER.into(), "yes".into());
    api.update(user, Object::PersistentVolume(Box::new(v)))
        .map(|_| ())
        .map_err(|s| s.message().to_string())
}

/// `bindAPIUpdate` for a claim to provision: `volume.kubernetes.io/selected-node` names the
/// node (written only when it does not yet). Returns the resourceVersion to wait for.
fn select_node(
    api: &mut ApiServer,
    user: &str,
    claim_obj: &Arc<Object>,
    node: &str,
) -> Result<u64, String> {
    let Some(claim) = claim_obj.as_persistent_volume_claim() else {
        return Ok(0);
    };
    if matching::selected_node(claim) == Some(node) {
        return Ok(claim_obj.resource_version());
    }
    let mut c = claim.clone();
    c.metadata
        .annotations
        .insert(SELECTED_NODE.into(), node.to_string());
    api.update(user, Object::PersistentVolumeClaim(Box::new(c)))
        .map(|o| o.resource_version())
        .map_err(|s| s.message().to_string())
}
