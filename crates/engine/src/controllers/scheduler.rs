//! kube-scheduler ("default-scheduler"): watches pods that are not finished and nodes, takes
//! unscheduled pods one at a time from its queue, filters the nodes (NodeUnschedulable,
//! TaintToleration, NodeAffinity's nodeSelector, NodeResourcesFit, VolumeBinding), scores the
//! feasible ones with LeastAllocated, and binds the pod through `pods/binding`. A pod whose
//! volumes name claims goes through the VolumeBinding plugin
//! ([`super::volume::volume_binding`]): its PreFilter may reject it or narrow the nodes, its
//! Filter checks each node, and its PreBind writes the chosen node on the claims to provision
//! and holds the pod (assumed on its node, the others scheduled meanwhile) until they are bound. At bind time it *assumes* the pod on
//! its node, so the next decision counts it before the watch confirms the binding. What each
//! node carries comes from the cache kept by the informers (`scheduler_cache`), and in a large
//! cluster the filters stop after the adaptive percentage of nodes to score, starting where the
//! previous decision stopped, as kube-scheduler does. A pod that
//! fits nowhere gets a `FailedScheduling` Warning event with the real message shape, a
//! `PodScheduled=False` condition, and is retried with exponential backoff (1 s doubling to
//! 10 s).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::adapter::ApiInformer;
use super::earliest;
use super::events::{EventRecorder, EventType};
use super::podutil::{self, Allocatable, Resources, NO_EXECUTE, NO_SCHEDULE, TAINT_UNSCHEDULABLE};
use super::profile::Profile;
use super::runtime::{Action, Reconciled, Reconciler};
use super::scheduler_cache::{
    num_feasible_nodes_to_find, NodeInfo, NodeSnapshot, NodeUsageCache, Usage,
};
use super::shared_informer::InformerRef;
use super::volume::volume_binding::{self, Check, PodVolumes, PreFilter, VolumeBinding};
use crate::api::binding::Binding;
use crate::api::node::Taint;
use crate::api::pod::Pod;
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::{InformerConfig, Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::rng::SimRng;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::status::StatusReason;

/// The scheduler's name, matched against `spec.schedulerName`, and its event source.
pub const SCHEDULER_NAME: &str = "default-scheduler";
/// Its user agent.
pub const USER_AGENT: &str = "kube-scheduler";
/// The real scheduler's pod informer: every pod that is not finished.
pub const POD_FIELD_SELECTOR: &str = "status.phase!=Succeeded,status.phase!=Failed";

/// NodeAffinity's `ErrReasonPod`.
const ERR_REASON_NODE_AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
/// NodeAffinity's PreFilter `errReasonConflict`: the terms name nodes that cannot all hold.
const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

const PREEMPTION_NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
const NO_VICTIMS: &str = "No preemption victims found for incoming pod";

/// Why a node was filtered out.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NodeFailure {
    reasons: Vec<String>,
    /// Preemption could not help (taints, selector, unschedulable) vs resources.
    unresolvable: bool,
}

/// The scheduler.
pub struct Scheduler {
    pods: ApiInformer,
    nodes: ApiInformer,
    /// Failed attempts per pod (for the backoff).
    attempts: BTreeMap<ObjectKey, u32>,
    /// Pods that fit nowhere at their last attempt (retried when the cluster changes).
    unschedulable: BTreeSet<ObjectKey>,
    /// Requested resources per node, assumed pods included.
    cache: NodeUsageCache,
    /// The nodes as the filters read them.
    snapshot: NodeSnapshot,
    /// Where the next decision starts filtering (kube-scheduler `nextStartNodeIndex`).
    next_start_node_index: usize,
    recorder: EventRecorder,
    rng: SimRng,
    profile: Profile,
    scores: ScoreMemo,
    /// The feasible nodes with the best score in the decision being made, at its front (kept
    /// between decisions so that each does not grow a new list; see [`FilterPass`]).
    ties: Vec<usize>,
    /// The VolumeBinding plugin and its claim, volume and class informers.
    volume_binding: VolumeBinding,
}

/// LeastAllocated scores already computed, by the node's usage slot. A score is a function of
/// the node's capacity and what it would have requested with the pod; between two decisions
/// only the chosen node's requests change, so a filter pass over hundreds of nodes divides for
/// few of them (two 64-bit divisions per node were a fifth of the scheduler's time at 5,000
/// nodes).
#[derive(Debug, Default)]
struct ScoreMemo(Vec<Option<(Resources, Resources, i64)>>);

impl ScoreMemo {
    fn score(&mut self, slot: usize, capacity: Resources, requested: Resources) -> i64 {
        if let Some(Some((c, r, score))) = self.0.get(slot) {
            if *c == capacity && *r == requested {
                return *score;
            }
        }
        let score = least_allocated(capacity, requested);
        if self.0.len() <= slot {
            self.0.resize(slot + 1, None);
        }
        if let Some(memo) = self.0.get_mut(slot) {
            *memo = Some((capacity, requested, score));
        }
        score
    }
}

/// One decision's filter pass (`findNodesThatPassFilters` with the scores): from `start`
/// round the snapshot until enough nodes fit, so successive pods look at different nodes.
/// A loop of its own, over hundreds of nodes per pod at 5,000 nodes, kept small so that it
/// runs in registers; the best-score ties are written branch-free (most feasible nodes tie).
struct FilterPass {
    /// The best score, if any node fits.
    best: Option<i64>,
    /// How many positions at the front of the ties buffer hold nodes with the best score.
    ties: usize,
    /// Nodes looked at (feasible and not).
    processed: usize,
    failures: Vec<NodeFailure>,
}

impl FilterPass {
    #[inline(never)]
    fn run(
        nodes: &[NodeInfo],
        cache: &NodeUsageCache,
        scores: &mut ScoreMemo,
        ties: &mut Vec<usize>,
        (pod, volumes): (&Pod, Option<&PodVolumes>),
        start: usize,
    ) -> FilterPass {
        let wanted = num_feasible_nodes_to_find(nodes.len());
        // Room for every node; what a previous decision left there is overwritten.
        if ties.len() < nodes.len() {
            ties.resize(nodes.len(), 0);
        }
        let req = podutil::requests(&pod.spec);
        let nz = podutil::non_zero_requests(&pod.spec);
        let mut best = i64::MIN;
        let (mut tied, mut found) = (0, 0);
        let mut failures = Vec::new();
        let (front, back) = nodes.split_at(start.min(nodes.len()));
        let ring = (start..nodes.len()).chain(0..start);
        // Without a node selector, on a schedulable node with no taint to tolerate, only the
        // resources can fail; the whole filter runs when they do (for the reasons) or when
        // anything else has a say.
        let selectorless = pod.spec.node_selector.is_empty()
            && pod.spec.required_node_affinity().is_none()
            && volumes.is_none();
        for (i, info) in ring.zip(back.iter().chain(front)) {
            let usage = cache.usage_at(info.slot);
            let plain = selectorless
                && info.open
                && shortfalls(info.allocatable, &usage, req) == [false; 3];
            if !plain {
                if let Err(f) = filter((pod, volumes), info, &usage, req) {
                    failures.push(f);
                    continue;
                }
            }
            let capacity = info.allocatable.resources;
            let score = scores.score(info.slot, capacity, usage.non_zero + nz);
            if score > best {
                best = score;
                tied = 0;
            }
            if let Some(t) = ties.get_mut(tied) {
                *t = i;
            }
            tied += usize::from(score == best);
            found += 1;
            if found >= wanted {
                break;
            }
        }
        FilterPass {
            best: (found > 0).then_some(best),
            ties: tied,
            processed: found + failures.len(),
            failures,
        }
    }
}

impl Scheduler {
    pub fn new(seed: u64, profile: &Profile) -> Self {
        let pod_config = InformerConfig {
            field_selector: Some(POD_FIELD_SELECTOR.to_string()),
            ..profile.informer_config()
        };
        Scheduler {
            pods: ApiInformer::new(
                Kind::Pod,
                None,
                pod_config,
                Vec::new(),
                SimRng::child(seed, "kube-scheduler/pods"),
            ),
            nodes: ApiInformer::new(
                Kind::Node,
                None,
                profile.informer_config(),
                Vec::new(),
                SimRng::child(seed, "kube-scheduler/nodes"),
            ),
            attempts: BTreeMap::new(),
            unschedulable: BTreeSet::new(),
            cache: NodeUsageCache::default(),
            snapshot: NodeSnapshot::default(),
            next_start_node_index: 0,
            recorder: EventRecorder::new(USER_AGENT, SCHEDULER_NAME, ""),
            rng: SimRng::child(seed, "kube-scheduler"),
            profile: profile.clone(),
            scores: ScoreMemo::default(),
            ties: Vec::new(),
            volume_binding: VolumeBinding::new(seed, profile, USER_AGENT),
        }
    }

    /// Pods assumed on a node and not yet seen bound.
    pub fn assumed(&self) -> usize {
        self.cache.assumed()
    }

    fn ours(pod: &Pod) -> bool {
        pod.spec.node_name.is_empty()
            && pod.metadata.deletion_timestamp.is_none()
            && pod.spec.scheduler_name.as_deref().unwrap_or(SCHEDULER_NAME) == SCHEDULER_NAME
    }

    /// `addPodToSchedulingQueue` / `updatePodInSchedulingQueue` / `deletePodFromCache`.
    fn on_pod(&mut self, note: Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let key = note.key();
        match &note {
            Notification::Add(o) => {
                if let Some(p) = o.as_pod() {
                    self.confirm(&key, p);
                    if Self::ours(p) {
                        queue.add(key);
                    }
                }
            }
            Notification::Update { old, new } => {
                let (Some(old), Some(new)) = (old.as_pod(), new.as_pod()) else {
                    return;
                };
                self.confirm(&key, new);
                // Status-only changes (ours included) do not make a pod schedulable again.
                let relevant = old.spec != new.spec || old.metadata.labels != new.metadata.labels;
                if Self::ours(new) && relevant {
                    queue.add(key);
                }
            }
            Notification::Delete(d) => {
                self.cache.forget(&key);
                self.attempts.remove(&key);
                self.unschedulable.remove(&key);
                self.volume_binding.forget(&key);
                // A bound pod leaving frees room on its node.
                if d.object()
                    .as_pod()
                    .is_some_and(|p| !p.spec.node_name.is_empty())
                {
                    self.retry_unschedulable(queue);
                }
            }
        }
    }

    /// The informer's view of the pod: counted on its node once bound (which confirms an
    /// assumption).
    fn confirm(&mut self, key: &ObjectKey, pod: &Pod) {
        self.cache.observe(key, pod);
        if !pod.spec.node_name.is_empty() {
            self.unschedulable.remove(key);
            if !pod.spec.volumes.is_empty() {
                self.volume_binding.forget(key);
            }
        }
    }

    fn on_node(&mut self, note: Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        match &note {
            Notification::Add(n) | Notification::Update { new: n, .. } => {
                let slot = self.cache.slot(n.name());
                self.snapshot.upsert(n, slot);
            }
            Notification::Delete(d) => self.snapshot.remove(d.object().name()),
        }
        let changed = match &note {
            Notification::Add(_) => true,
            Notification::Update { old, new } => match (old.as_node(), new.as_node()) {
                (Some(o), Some(n)) => {
                    o.spec != n.spec
                        || o.status.allocatable != n.status.allocatable
                        || o.condition("Ready").map(|c| &c.status)
                            != n.condition("Ready").map(|c| &c.status)
                        || o.metadata.labels != n.metadata.labels
                }
                _ => false,
            },
            Notification::Delete(_) => false,
        };
        if changed {
            self.retry_unschedulable(queue);
        }
    }

    /// A cluster event may have made room: move unschedulable pods back to the queue.
    fn retry_unschedulable(&mut self, queue: &mut WorkQueue<ObjectKey>) {
        for key in std::mem::take(&mut self.unschedulable) {
            queue.add(key);
        }
    }

    /// `scheduleOne` (`pkg/scheduler/schedule_one.go`): filter, score, pick a node among the
    /// best at random, assume and bind; a pod that fits nowhere is retried after its back-off.
    /// A pod waiting for its volumes (PreBind) is looked at again instead.
    fn schedule_one(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Action {
        let Some(obj) = self.pods.store().get(key) else {
            return Action::Done;
        };
        let Some(pod) = obj.as_pod() else {
            return Action::Done;
        };
        if self.volume_binding.is_waiting(key) {
            return self.wait_for_volumes(now, api, key, &obj);
        }
        if !Self::ours(pod) || self.cache.is_assumed(key) {
            return Action::Done;
        }
        // NodeAffinity's PreFilter first: terms naming nodes that cannot all hold.
        let named = pod
            .spec
            .required_node_affinity()
            .and_then(|s| s.node_names());
        if named.as_ref().is_some_and(|n| n.is_empty()) {
            return self.pre_filter_failed(now, api, key, &obj, ERR_REASON_CONFLICT);
        }
        let volumes = match self.volume_binding.pre_filter(pod) {
            PreFilter::Skip => None,
            PreFilter::Reject(why) => {
                self.volume_binding.reject(key);
                return self.pre_filter_failed(now, api, key, &obj, &why);
            }
            PreFilter::Claims(v) => Some(v),
        };
        let eligible = volumes.as_ref().and_then(|v| v.eligible.as_ref());
        let narrowed = match narrow(named, eligible) {
            Ok(n) => n,
            Err(why) => {
                if volumes.is_some() {
                    self.volume_binding.reject(key);
                }
                return self.pre_filter_failed(now, api, key, &obj, &why);
            }
        };
        match self.pick_node(pod, volumes.as_ref(), narrowed) {
            Ok(Some(node)) => match volumes.as_ref().filter(|v| v.needs_binding()) {
                Some(v) => self.bind_volumes(now, api, key, &obj, v, &node),
                None => self.bind(now, api, key, &obj, &node),
            },
            Ok(None) => Action::Done,
            Err(message) => {
                self.unschedulable.insert(key.clone());
                if volumes.is_some() {
                    self.volume_binding.reject(key);
                }
                self.fail(now, api, key, &obj, &message)
            }
        }
    }

    /// The filter pass over the nodes the PreFilters left (`findNodesThatFitPod`) and the
    /// choice among the best (`selectHost`): the node, or the fit error.
    fn pick_node(
        &mut self,
        pod: &Pod,
        volumes: Option<&PodVolumes>,
        narrowed: Option<Narrowed>,
    ) -> Result<Option<String>, String> {
        let total = self.snapshot.nodes().len();
        let subset: Option<Vec<NodeInfo>> = narrowed.as_ref().map(|n| {
            n.names
                .iter()
                .filter_map(|name| self.snapshot.get(name).cloned())
                .collect()
        });
        let nodes = subset.as_deref().unwrap_or(self.snapshot.nodes());
        let start = self.next_start_node_index % nodes.len().max(1);
        let mut pass = FilterPass::run(
            nodes,
            &self.cache,
            &mut self.scores,
            &mut self.ties,
            (pod, volumes),
            start,
        );
        self.next_start_node_index = (start + pass.processed) % nodes.len().max(1);
        if pass.best.is_none() {
            if let Some(n) = &narrowed {
                // `SetAbsentNodesStatus`: the nodes a PreFilter left out (counted only for
                // the message: a DaemonSet pod that fits must not pay per node of the cluster).
                let absent = NodeFailure {
                    reasons: vec![format!(
                        "node(s) didn't satisfy plugin(s) [{}]",
                        n.plugins.join(" ")
                    )],
                    unresolvable: true,
                };
                let left_out = total.saturating_sub(nodes.len());
                pass.failures.extend(std::iter::repeat_n(absent, left_out));
            }
            return Err(fit_error(total, &pass.failures));
        }
        // Ties broken uniformly at random (the real selectHost samples among the best).
        let ties = self.ties.get(..pass.ties).unwrap_or_default();
        let pick = self.rng.below(ties.len() as u64) as usize;
        Ok(ties
            .get(pick)
            .and_then(|i| nodes.get(*i))
            .map(|info| info.name().to_string()))
    }

    /// A PreFilter's rejection (`FitError` with its `PreFilterMsg`): no node is looked at and
    /// preemption cannot help.
    fn pre_filter_failed(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Arc<Object>,
        why: &str,
    ) -> Action {
        let total = self.snapshot.nodes().len();
        let message = format!(
            "0/{total} nodes are available: {why}. preemption: 0/{total} nodes are available: \
             {total} {PREEMPTION_NOT_HELPFUL}."
        );
        self.unschedulable.insert(key.clone());
        self.fail(now, api, key, obj, &message)
    }

    /// VolumeBinding's Reserve and PreBind on the chosen node: the pod is assumed there and
    /// waits for its claims ([`Scheduler::wait_for_volumes`]), or is bound at once when none
    /// needs binding.
    fn bind_volumes(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Arc<Object>,
        volumes: &PodVolumes,
        node: &str,
    ) -> Action {
        let (Some(pod), Some(info)) = (obj.as_pod(), self.snapshot.get(node)) else {
            return Action::Done;
        };
        let node_obj = info.node.clone();
        match self
            .volume_binding
            .pre_bind(now, api, USER_AGENT, key, volumes, &node_obj)
        {
            Ok(true) => {
                self.cache.assume(key, pod, node);
                Action::RequeueAfter(volume_binding::BINDING_POLL_MS)
            }
            Ok(false) => self.bind(now, api, key, obj, node),
            Err(e) => {
                let msg = format!("running PreBind plugin \"VolumeBinding\": {e}");
                self.fail(now, api, key, obj, &msg)
            }
        }
    }

    /// PreBind's wait (`checkBindings`, polled each second): the pod is bound once its claims
    /// are; a failed or timed-out binding forgets the assumed pod and tries again later.
    fn wait_for_volumes(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Arc<Object>,
    ) -> Action {
        if !obj.as_pod().is_some_and(Self::ours) {
            self.volume_binding.forget(key);
            return Action::Done;
        }
        match self.volume_binding.check(now, key) {
            Check::Wait => Action::RequeueAfter(volume_binding::BINDING_POLL_MS),
            Check::Bound(node) => self.bind(now, api, key, obj, &node),
            Check::Failed(e) => {
                self.cache.forget(key);
                let msg = format!("running PreBind plugin \"VolumeBinding\": {e}");
                self.fail(now, api, key, obj, &msg)
            }
        }
    }

    /// The Bind step (`pods/binding`): the pod assumed on `node`, `Scheduled`.
    fn bind(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Arc<Object>,
        node: &str,
    ) -> Action {
        let Some(pod) = obj.as_pod() else {
            return Action::Done;
        };
        let binding = Binding::new(&pod.metadata.namespace, &pod.metadata.name, node);
        match api.bind(USER_AGENT, &binding) {
            Ok(_) => {
                self.cache.assume(key, pod, node);
                self.attempts.remove(key);
                self.unschedulable.remove(key);
                let msg = format!(
                    "Successfully assigned {}/{} to {node}",
                    pod.metadata.namespace, pod.metadata.name
                );
                self.recorder
                    .record(api, now, obj, EventType::Normal, "Scheduled", &msg);
                Action::Done
            }
            // Already bound, being deleted or gone: the watch will tell; nothing to retry.
            Err(s) if matches!(s.reason(), StatusReason::Conflict | StatusReason::NotFound) => {
                Action::Done
            }
            Err(s) => {
                let msg = format!("Binding rejected: {}", s.message());
                self.fail(now, api, key, obj, &msg)
            }
        }
    }

    /// Records the failure (event + PodScheduled=False) and asks to try again after the pod's
    /// back-off (`podInitialBackoffDuration` doubling to `podMaxBackoffDuration`).
    fn fail(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Arc<Object>,
        message: &str,
    ) -> Action {
        self.recorder.record(
            api,
            now,
            obj,
            EventType::Warning,
            "FailedScheduling",
            message,
        );
        if let Some(pod) = obj.as_pod() {
            let current = pod.condition("PodScheduled");
            let same = current.is_some_and(|c| {
                c.status == "False" && c.reason == "Unschedulable" && c.message == message
            });
            if !same {
                let mut p = pod.clone();
                p.set_condition("PodScheduled", "False", now);
                if let Some(c) = p
                    .status
                    .conditions
                    .iter_mut()
                    .find(|c| c.type_ == "PodScheduled")
                {
                    c.reason = "Unschedulable".into();
                    c.message = message.to_string();
                }
                // A conflict or outage here is harmless: the next attempt writes it again.
                let _ = api.update_status(USER_AGENT, Object::Pod(p));
            }
        }
        let n = self.attempts.entry(key.clone()).or_insert(0);
        *n += 1;
        let shift = (*n - 1).min(20);
        let delay =
            (self.profile.pod_initial_backoff_ms << shift).min(self.profile.pod_max_backoff_ms);
        Action::RequeueAfter(delay)
    }
}

/// The nodes the PreFilters left (`PreFilterResult.NodeNames`, merged) and the plugins that
/// narrowed them, in name order.
struct Narrowed {
    names: BTreeSet<String>,
    plugins: Vec<&'static str>,
}

/// `RunPreFilterPlugins`' merge of NodeAffinity's named nodes and VolumeBinding's eligible
/// nodes: `None` when neither narrows; `Err` with the framework's message when nothing is left.
fn narrow(
    named: Option<BTreeSet<&str>>,
    eligible: Option<&BTreeSet<String>>,
) -> Result<Option<Narrowed>, String> {
    let mut out: Option<Narrowed> = None;
    let sets = [
        (
            "NodeAffinity",
            named.map(|n| n.into_iter().map(str::to_string).collect()),
        ),
        (volume_binding::PLUGIN_NAME, eligible.cloned()),
    ];
    for (plugin, set) in sets {
        let Some(set) = set else { continue };
        out = Some(match out {
            None => Narrowed {
                names: set,
                plugins: vec![plugin],
            },
            Some(mut n) => {
                n.names = n.names.intersection(&set).cloned().collect();
                n.plugins.push(plugin);
                n
            }
        });
        if let Some(n) = out.as_ref().filter(|n| n.names.is_empty()) {
            return Err(match n.plugins.as_slice() {
                [one] => format!("node(s) didn't satisfy plugin {one}"),
                many => format!(
                    "node(s) didn't satisfy plugin(s) [{}] simultaneously",
                    many.join(" ")
                ),
            });
        }
    }
    Ok(out)
}

/// The filter plugins in the real order; the first failing plugin decides the node's reasons.
/// [`FilterPass`] passes over it for an open node ([`NodeInfo::open`]) and a pod without a
/// node selector whose resources fit: a plugin added here must be reflected there.
fn filter(
    (pod, volumes): (&Pod, Option<&PodVolumes>),
    info: &NodeInfo,
    usage: &Usage,
    req: Resources,
) -> Result<(), NodeFailure> {
    let unresolvable = |reason: String| NodeFailure {
        reasons: vec![reason],
        unresolvable: true,
    };
    if info.unschedulable {
        let probe = Taint {
            key: TAINT_UNSCHEDULABLE.into(),
            effect: NO_SCHEDULE.into(),
            ..Default::default()
        };
        if !pod
            .spec
            .tolerations
            .iter()
            .any(|t| podutil::tolerates(t, &probe))
        {
            return Err(unresolvable("node(s) were unschedulable".into()));
        }
    }
    if let Some(t) = podutil::untolerated_taint(
        &info.taints,
        &pod.spec.tolerations,
        &[NO_SCHEDULE, NO_EXECUTE],
    ) {
        return Err(unresolvable(format!(
            "node(s) had untolerated taint {{{}: {}}}",
            t.key, t.value
        )));
    }
    // NodeAffinity: the node object itself is read only for a pod with a node selector or a
    // required node affinity.
    if !pod.spec.node_selector.is_empty() || pod.spec.required_node_affinity().is_some() {
        let fits = info
            .node
            .as_node()
            .is_some_and(|n| pod.spec.matches_node(&n.metadata.labels, &n.metadata.name));
        if !fits {
            return Err(unresolvable(ERR_REASON_NODE_AFFINITY.into()));
        }
    }
    let [pods, cpu, memory] = shortfalls(info.allocatable, usage, req);
    let reasons: Vec<String> = [
        (pods, "Too many pods"),
        (cpu, "Insufficient cpu"),
        (memory, "Insufficient memory"),
    ]
    .into_iter()
    .filter(|(short, _)| *short)
    .map(|(_, reason)| reason.to_string())
    .collect();
    if !reasons.is_empty() {
        return Err(NodeFailure {
            reasons,
            unresolvable: false,
        });
    }
    // VolumeBinding: only for a pod whose volumes name claims.
    let node = volumes.zip(info.node.as_node());
    match node.map(|(v, n)| v.filter(n)) {
        Some(Err(reasons)) => Err(NodeFailure {
            reasons,
            unresolvable: true,
        }),
        _ => Ok(()),
    }
}

/// NodeResourcesFit's filter: whether the node is out of pod slots, cpu, or memory for a pod
/// requesting `req` (a resource the pod does not request never fails).
fn shortfalls(allocatable: Allocatable, usage: &Usage, req: Resources) -> [bool; 3] {
    let Allocatable {
        resources: capacity,
        pods: max_pods,
    } = allocatable;
    [
        usage.pods + 1 > max_pods,
        req.milli_cpu > 0 && req.milli_cpu > capacity.milli_cpu - usage.requests.milli_cpu,
        req.memory > 0 && req.memory > capacity.memory - usage.requests.memory,
    ]
}

/// NodeResourcesFit's default LeastAllocated score (0–100): the free share of cpu and memory
/// of `capacity` after placing the pod (`requested`, non-zero requests with the pod's), averaged
/// with equal weights.
fn least_allocated(capacity: Resources, requested: Resources) -> i64 {
    let least = |requested: i64, capacity: i64| {
        if capacity <= 0 || requested > capacity {
            0
        } else {
            (capacity - requested) * 100 / capacity
        }
    };
    let c = least(requested.milli_cpu, capacity.milli_cpu);
    let m = least(requested.memory, capacity.memory);
    (c + m) / 2
}

/// `FitError.Error()`: `0/3 nodes are available: <sorted reason histogram>. preemption: ...`.
fn fit_error(total: usize, failures: &[NodeFailure]) -> String {
    if total == 0 {
        return "no nodes available to schedule pods".to_string();
    }
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    let mut preemption: BTreeMap<&str, usize> = BTreeMap::new();
    for f in failures {
        for r in &f.reasons {
            *reasons.entry(r.as_str()).or_default() += 1;
        }
        let p = if f.unresolvable {
            PREEMPTION_NOT_HELPFUL
        } else {
            NO_VICTIMS
        };
        *preemption.entry(p).or_default() += 1;
    }
    let histogram = |m: &BTreeMap<&str, usize>| {
        let mut items: Vec<String> = m.iter().map(|(r, n)| format!("{n} {r}")).collect();
        sort::sort(&mut items);
        items.join(", ")
    };
    format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        histogram(&reasons),
        histogram(&preemption)
    )
}

impl Reconciler for Scheduler {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        let mut all = vec![(&self.pods).into(), (&self.nodes).into()];
        all.extend(self.volume_binding.informers());
        all
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.nodes.step(now, api, USER_AGENT) {
            self.on_node(note, queue);
        }
        for note in self.pods.step(now, api, USER_AGENT) {
            self.on_pod(note, queue);
        }
        // A claim, volume or class changed: the pods that name claims may fit now.
        for key in self.volume_binding.step(now, api, USER_AGENT) {
            if self.unschedulable.remove(&key) {
                queue.add(key);
            }
        }
    }

    fn has_synced(&self) -> bool {
        self.pods.has_synced() && self.nodes.has_synced() && self.volume_binding.has_synced()
    }

    /// One pod (the runner may stop between two: a burst of 500 pods to bind is a long step at
    /// 5,000 nodes).
    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        Ok(self.schedule_one(now, api, key))
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.pods.next_wakeup(),
            self.nodes.next_wakeup(),
            self.volume_binding.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(reason: &str, unresolvable: bool) -> NodeFailure {
        NodeFailure {
            reasons: vec![reason.to_string()],
            unresolvable,
        }
    }

    #[test]
    fn a_remembered_score_is_recomputed_when_its_node_or_request_changes() {
        let r = |milli_cpu, memory| Resources { milli_cpu, memory };
        let mut memo = ScoreMemo::default();
        let (cap, half) = (r(4000, 8 << 30), r(2000, 4 << 30));
        assert_eq!(memo.score(3, cap, half), 50);
        assert_eq!(memo.score(3, cap, half), least_allocated(cap, half));
        // The node took a pod (more requested), or shrank: a fresh division.
        assert_eq!(memo.score(3, cap, r(3000, 6 << 30)), 25);
        assert_eq!(memo.score(3, r(8000, 16 << 30), r(3000, 6 << 30)), 62);
        assert_eq!(memo.score(0, cap, r(0, 0)), 100);
        assert_eq!(memo.score(1, r(0, 0), half), 0);
    }

    #[test]
    fn the_pre_filters_narrow_the_nodes_together_and_say_when_none_is_left() {
        let named: BTreeSet<&str> = ["node-a", "node-b"].into();
        let local: BTreeSet<String> = ["node-b".to_string()].into();
        let both = narrow(Some(named.clone()), Some(&local));
        let Ok(Some(n)) = both else {
            panic!("narrowed to node-b");
        };
        assert_eq!(n.names, local);
        assert_eq!(n.plugins, ["NodeAffinity", "VolumeBinding"]);
        assert!(matches!(narrow(None, None), Ok(None)));
        let elsewhere: BTreeSet<String> = ["node-c".to_string()].into();
        assert_eq!(
            narrow(Some(named), Some(&elsewhere)).err().as_deref(),
            Some("node(s) didn't satisfy plugin(s) [NodeAffinity VolumeBinding] simultaneously")
        );
        assert_eq!(
            narrow(None, Some(&BTreeSet::new())).err().as_deref(),
            Some("node(s) didn't satisfy plugin VolumeBinding")
        );
    }

    #[test]
    fn fit_error_has_the_real_shape() {
        let msg = fit_error(
            3,
            &[
                failure("Insufficient cpu", false),
                failure(
                    "node(s) had untolerated taint {node.kubernetes.io/unreachable: }",
                    true,
                ),
                failure("Insufficient cpu", false),
            ],
        );
        assert_eq!(
            msg,
            "0/3 nodes are available: 1 node(s) had untolerated taint \
             {node.kubernetes.io/unreachable: }, 2 Insufficient cpu. preemption: 0/3 nodes are \
             available: 1 Preemption is not helpful for scheduling, 2 No preemption victims \
             found for incoming pod."
        );
        assert_eq!(fit_error(0, &[]), "no nodes available to schedule pods");
    }
}
