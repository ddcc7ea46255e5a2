//! The kubelet of one node (user agent `kubelet/<node>`): registers its Node, renews its Lease
//! in `kube-node-lease`, posts node status, and runs the pods bound to it (informer with
//! `spec.nodeName=<node>`). A new pod goes through separate status writes — each its own
//! revision, as `kubectl get pods -w` shows them — Pending/ContainerCreating, then Running after
//! a virtual image pull and start, with `Pulling`/`Pulled`/`Created`/`Started` events; from
//! then on its containers live as their simulated behaviour says — probes, exits, restarts
//! with the crash-loop back-off ([`super::container_lifecycle`]) — and every change is one
//! status write (phase, container states, Ready/ContainersReady). A pod
//! being deleted has its containers stopped (`Killing`) and is then deleted for good with
//! `gracePeriodSeconds=0`. A stopped kubelet (the node is down) does nothing at all; restarted, it
//! re-lists and syncs: pods it still runs are reported Running again.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::adapter::ApiInformer;
use super::container_lifecycle::{ContainerRun, Happening};
use super::events::{EventRecorder, EventType};
use super::node_addresses::{self, PodIps};
use super::profile::Profile;
use super::shared_informer::InformerRef;
use super::{earliest, Controller, Requeue};
use crate::api::behaviour::Behaviour;
use crate::api::lease::{Lease, LeaseSpec};
use crate::api::meta::OwnerReference;
use crate::api::node::{Node, NodeAddress, NodeCondition, NodeSpec, NodeStatus, NodeSystemInfo};
use crate::api::pod::{
    Container, ContainerState, ContainerStateWaiting, ContainerStatus, Pod, PodStatus,
};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions, Preconditions};
use crate::client::{InformerConfig, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::hash::fnv1a64;
use crate::rng::SimRng;
use watchlab_apimachinery::quantity::Quantity;
use watchlab_apimachinery::status::StatusReason;

/// The namespace of node heartbeats.
pub const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";
/// What every simulated node offers (a modest VM; documented choice): 4 cpu, 16 GiB, 110 pods
/// (the kubelet's `maxPods` default).
pub const NODE_CPU: &str = "4";
pub const NODE_MEMORY: &str = "16Gi";
pub const NODE_PODS: &str = "110";
/// The kubelet's default hard eviction threshold `memory.available<100Mi`, withheld from
/// allocatable.
pub const EVICTION_HARD_MEMORY: &str = "100Mi";
pub const KUBELET_VERSION: &str = "v1.32.0";

/// What the kubelet's runtime is doing with one pod.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PodState {
    /// Pulling (for `pull_ms`, if the image was missing) and starting; Running at
    /// `ready_at`. `announced`: Pulled/Created/Started sent.
    Creating {
        ready_at: Timestamp,
        pull_ms: Option<u64>,
        announced: bool,
    },
    /// The sandbox is up; each container lives its own life.
    Running { containers: Vec<ContainerRun> },
    /// Containers stopping; the final delete at `done_at`.
    Stopping { done_at: Timestamp },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct PodRuntime {
    uid: String,
    ip: String,
    state: PodState,
}

/// One node's kubelet.
pub struct Kubelet {
    node: String,
    user: String,
    ordinal: u32,
    running: bool,
    seed: u64,
    starts: u32,
    /// The informer start whose first list the runtimes were last checked against. Pods
    /// deleted while no informer ran (a dead node) show only as absent from a new informer's
    /// first list; afterwards every deletion arrives as a Delete notification (a relist's
    /// included, as a tombstone), so one scan per informer start suffices.
    runtimes_checked_at_start: u32,
    pods: Option<ApiInformer>,
    queue: WorkQueue<ObjectKey>,
    runtime: BTreeMap<ObjectKey, PodRuntime>,
    images: BTreeSet<String>,
    pod_ips: PodIps,
    /// The node's InternalIP, shared by its pods' `status.hostIP`.
    host_ip: Arc<str>,
    registered: bool,
    lease: Option<Arc<Object>>,
    next_lease: Timestamp,
    next_status: Timestamp,
    last_report: Option<Timestamp>,
    recorder: EventRecorder,
    rng: SimRng,
    profile: Profile,
}

impl Kubelet {
    /// The kubelet of `node`, the `ordinal`-th node (its addresses derive from it).
    pub fn new(node: &str, ordinal: u32, seed: u64, profile: &Profile) -> Self {
        let user = format!("kubelet/{node}");
        Kubelet {
            node: node.to_string(),
            recorder: EventRecorder::new(&user, "kubelet", node),
            user,
            ordinal,
            running: true,
            seed,
            starts: 0,
            runtimes_checked_at_start: 0,
            pods: None,
            queue: WorkQueue::default(),
            runtime: BTreeMap::new(),
            images: BTreeSet::new(),
            pod_ips: PodIps::new(ordinal),
            host_ip: Arc::from(node_addresses::internal_ip(ordinal).to_string()),
            registered: false,
            lease: None,
            next_lease: Timestamp::ZERO,
            next_status: Timestamp::ZERO,
            last_report: None,
            rng: SimRng::child(seed, &format!("kubelet/{node}")),
            profile: profile.clone(),
        }
    }

    pub fn node_name(&self) -> &str {
        &self.node
    }

    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Kills (`false`) or restores (`true`) the node. A killed kubelet's streams are closed on
    /// its next step; a restored one re-lists and posts its status at once.
    pub fn set_running(&mut self, running: bool) {
        if running && !self.running {
            self.next_lease = Timestamp::ZERO;
            self.next_status = Timestamp::ZERO;
            self.lease = None;
        }
        self.running = running;
    }

    /// Pods the runtime currently holds.
    pub fn running_pods(&self) -> usize {
        self.runtime.len()
    }

    /// The pod informer, created on first use and after a restart (a fresh list).
    fn informer(&mut self) -> &mut ApiInformer {
        let (seed, user, node, profile) = (self.seed, &self.user, &self.node, &self.profile);
        let starts = &mut self.starts;
        self.pods.get_or_insert_with(|| {
            *starts += 1;
            let config = InformerConfig {
                field_selector: Some(format!("spec.nodeName={node}")),
                ..profile.informer_config()
            };
            let rng = SimRng::child(seed, &format!("{user}/pods/{starts}"));
            ApiInformer::new(Kind::Pod, None, config, Vec::new(), rng)
        })
    }

    fn conditions(&self, now: Timestamp, old: Option<&Node>) -> Vec<NodeCondition> {
        let specs = [
            (
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            (
                "DiskPressure",
                "False",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
            ),
            (
                "PIDPressure",
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
            ),
            (
                "Ready",
                "True",
                "KubeletReady",
                "kubelet is posting ready status",
            ),
        ];
        specs
            .iter()
            .map(|(t, status, reason, message)| {
                let previous = old.and_then(|n| n.condition(t));
                let transition = match previous {
                    Some(p) if p.status == *status => p.last_transition_time,
                    _ => Some(now),
                };
                NodeCondition {
                    type_: t.to_string(),
                    status: status.to_string(),
                    last_heartbeat_time: Some(now),
                    last_transition_time: transition,
                    reason: reason.to_string(),
                    message: message.to_string(),
                }
            })
            .collect()
    }

    fn node_object(&self, now: Timestamp) -> Node {
        let q = |s: &str| Quantity::parse(s).unwrap_or_else(|_| Quantity::from_value(0));
        let capacity: BTreeMap<String, Quantity> = [
            ("cpu", NODE_CPU),
            ("memory", NODE_MEMORY),
            ("pods", NODE_PODS),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), q(v)))
        .collect();
        let mut allocatable = capacity.clone();
        allocatable.insert(
            "memory".into(),
            q(NODE_MEMORY).sub(&q(EVICTION_HARD_MEMORY)),
        );
        let mut meta = ObjectMeta::named("", &self.node);
        for (k, v) in [
            ("beta.kubernetes.io/arch", "amd64"),
            ("beta.kubernetes.io/os", "linux"),
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/hostname", self.node.as_str()),
            ("kubernetes.io/os", "linux"),
        ] {
            meta.labels.insert(k.to_string(), v.to_string());
        }
        Node {
            metadata: meta,
            spec: NodeSpec {
                pod_cidr: node_addresses::pod_cidr(self.ordinal),
                ..Default::default()
            },
            status: NodeStatus {
                capacity,
                allocatable,
                conditions: self.conditions(now, None),
                addresses: vec![
                    NodeAddress {
                        type_: "InternalIP".into(),
                        address: self.host_ip.to_string(),
                    },
                    NodeAddress {
                        type_: "Hostname".into(),
                        address: self.node.clone(),
                    },
                ],
                node_info: Arc::new(self.system_info()),
            },
        }
    }

    /// `status.nodeInfo` as the kubelet reads it from the machine (cAdvisor's MachineInfo and
    /// the runtime): the identities are derived from the node's ordinal, so a run replays.
    fn system_info(&self) -> NodeSystemInfo {
        let id = u64::from(self.ordinal) + 1;
        NodeSystemInfo {
            machine_id: format!("{id:032x}"),
            system_uuid: format!("00000000-0000-4000-8000-{id:012x}"),
            boot_id: format!("00000000-0000-4000-9000-{id:012x}"),
            kernel_version: "6.8.0-49-generic".into(),
            os_image: "Ubuntu 24.04.1 LTS".into(),
            container_runtime_version: "containerd://1.7.24".into(),
            kubelet_version: KUBELET_VERSION.into(),
            kube_proxy_version: KUBELET_VERSION.into(),
            operating_system: "linux".into(),
            architecture: "amd64".into(),
        }
    }

    /// Registers the Node (`registerWithAPIServer`); an existing one is taken over.
    fn register(&mut self, now: Timestamp, api: &mut ApiServer) {
        match api.create(&self.user, Object::Node(self.node_object(now))) {
            Ok(_) => {
                self.registered = true;
                self.last_report = Some(now);
                self.next_status = now.plus_millis(self.profile.node_status_update_frequency_ms);
            }
            Err(s) if s.reason() == StatusReason::AlreadyExists => {
                self.registered = true;
                self.next_status = now;
            }
            Err(_) => {}
        }
    }

    /// Renews (or creates) the node Lease.
    fn renew_lease(&mut self, now: Timestamp, api: &mut ApiServer) -> bool {
        if self.lease.is_none() {
            match api.get(Kind::Lease, Some(NODE_LEASE_NAMESPACE), &self.node) {
                Ok(l) => self.lease = Some(l),
                Err(s) if s.reason() == StatusReason::NotFound => {}
                Err(_) => return false,
            }
        }
        let node_uid = api
            .get(Kind::Node, None, &self.node)
            .map(|n| n.meta().uid.clone())
            .unwrap_or_default();
        let mut lease = match self.lease.as_deref() {
            Some(Object::Lease(l)) => l.clone(),
            _ => Lease {
                metadata: ObjectMeta {
                    owner_references: vec![OwnerReference {
                        api_version: "v1".into(),
                        kind: "Node".into(),
                        name: self.node.clone(),
                        uid: node_uid,
                        ..Default::default()
                    }]
                    .into(),
                    ..ObjectMeta::named(NODE_LEASE_NAMESPACE, &self.node)
                },
                spec: LeaseSpec::default(),
            },
        };
        lease.spec.holder_identity = Some(self.node.clone());
        lease.spec.lease_duration_seconds = Some(self.profile.lease_duration_seconds);
        lease.spec.renew_time = Some(now);
        let result = if self.lease.is_some() {
            api.update(&self.user, Object::Lease(lease))
        } else {
            api.create(&self.user, Object::Lease(lease))
        };
        match result {
            Ok(l) => {
                self.lease = Some(l);
                true
            }
            Err(_) => {
                // Conflict or gone: re-read next time.
                self.lease = None;
                false
            }
        }
    }

    /// `syncNodeStatus`: posts status when it changed or the report interval has passed.
    fn sync_node_status(&mut self, now: Timestamp, api: &mut ApiServer) -> bool {
        let Ok(current) = api.get(Kind::Node, None, &self.node) else {
            self.registered = false;
            return false;
        };
        let Some(node) = current.as_node() else {
            return false;
        };
        let ready = node.condition("Ready").is_some_and(|c| c.status == "True");
        let due = self
            .last_report
            .is_none_or(|t| now.millis_since(t) >= self.profile.node_status_report_frequency_ms);
        if ready && !due {
            return true;
        }
        let mut updated = node.clone();
        updated.status.conditions = self.conditions(now, Some(node));
        match api.update_status(&self.user, Object::Node(updated)) {
            Ok(_) => {
                self.last_report = Some(now);
                true
            }
            Err(_) => false,
        }
    }

    fn container_names(pod: &Pod) -> Vec<String> {
        pod.spec.containers.iter().map(|c| c.name.clone()).collect()
    }

    /// Status write 2: Pending, containers waiting in ContainerCreating.
    fn creating_status(&self, pod: &Pod, now: Timestamp) -> Pod {
        let mut p = pod.clone();
        let names = Self::container_names(pod);
        let unready = format!("containers with unready status: [{}]", names.join(" "));
        p.status.phase = "Pending".into();
        p.set_condition("PodReadyToStartContainers", "False", now);
        p.set_condition("Initialized", "True", now);
        p.set_condition("Ready", "False", now);
        p.set_condition("ContainersReady", "False", now);
        p.set_condition("PodScheduled", "True", now);
        for c in &mut p.status.conditions {
            if c.type_ == "Ready" || c.type_ == "ContainersReady" {
                c.reason = "ContainersNotReady".into();
                c.message = unready.clone();
            }
        }
        p.status.host_ip = self.host_ip.clone();
        p.status.start_time.get_or_insert(now);
        p.status.container_statuses = pod
            .spec
            .containers
            .iter()
            .map(|c| ContainerStatus {
                name: c.name.clone(),
                image: c.image.clone(),
                ready: false,
                started: Some(false),
                state: ContainerState {
                    waiting: Some(ContainerStateWaiting {
                        reason: "ContainerCreating".into(),
                        message: String::new(),
                    }),
                    ..Default::default()
                },
                ..Default::default()
            })
            .collect();
        p
    }

    /// The pod's status as the kubelet's status manager writes it (`generateAPIPodStatus`):
    /// each container's state, `ready`, `started`, restarts and last state; the phase from the
    /// containers and the restartPolicy (`getPhase`); ContainersReady and Ready from the
    /// containers' readiness, with the kubelet's reasons.
    /// Built on a copy of the status alone (a sync that finds nothing changed copies no
    /// metadata).
    fn pod_status(&self, pod: &Pod, runs: &[ContainerRun], ip: &str, now: Timestamp) -> PodStatus {
        let mut p = Pod {
            metadata: ObjectMeta::default(),
            spec: pod.spec.clone(),
            status: pod.status.clone(),
        };
        p.status.container_statuses = pod
            .spec
            .containers
            .iter()
            .enumerate()
            .map(|(i, c)| match runs.iter().find(|r| r.name() == c.name) {
                Some(r) => r.status(c, &pod.metadata, container_id(pod, i, r.restart_count())),
                None => ContainerStatus {
                    name: c.name.clone(),
                    image: c.image.clone(),
                    ..Default::default()
                },
            })
            .collect();
        let phase = pod_phase(pod, runs);
        let terminal = matches!(phase, "Succeeded" | "Failed");
        p.status.phase = phase.into();
        let unready: Vec<&str> = pod
            .spec
            .containers
            .iter()
            .filter(|c| !runs.iter().any(|r| r.name() == c.name && r.is_ready()))
            .map(|c| c.name.as_str())
            .collect();
        let ready = if unready.is_empty() { "True" } else { "False" };
        for (t, status) in [
            (
                "PodReadyToStartContainers",
                if terminal { "False" } else { "True" },
            ),
            ("Initialized", "True"),
            ("Ready", ready),
            ("ContainersReady", ready),
            ("PodScheduled", "True"),
        ] {
            p.set_condition(t, status, now);
        }
        for c in &mut p.status.conditions {
            c.reason = "".into();
            c.message.clear();
            if (c.type_ == "Ready" || c.type_ == "ContainersReady") && !unready.is_empty() {
                if phase == "Succeeded" {
                    c.reason = "PodCompleted".into();
                } else {
                    c.reason = "ContainersNotReady".into();
                    c.message = format!("containers with unready status: [{}]", unready.join(" "));
                }
            }
        }
        p.status.host_ip = self.host_ip.clone();
        p.status.pod_ip = ip.to_string();
        p.status.start_time.get_or_insert(now);
        p.status
    }

    fn event(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        obj: &Object,
        t: EventType,
        reason: &'static str,
        msg: &str,
    ) {
        self.recorder.record(api, now, obj, t, reason, msg);
    }

    /// Runtime pods the informer's fresh first list no longer shows were deleted meanwhile.
    fn forget_runtimes_not_listed(&mut self) {
        if let Some(informer) = &self.pods {
            let listed = informer.store();
            self.runtime.retain(|key, _| listed.get(key).is_some());
        }
    }

    /// Brings one pod's runtime and status in line with its spec; `Err` = retry rate-limited.
    fn sync_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
    ) -> Result<(), Requeue> {
        let Some(obj) = self.pods.as_ref().and_then(|i| i.store().get(key)) else {
            self.runtime.remove(key);
            return Ok(());
        };
        let Some(pod) = obj.as_pod() else {
            return Ok(());
        };
        if self
            .runtime
            .get(key)
            .is_some_and(|r| r.uid != pod.metadata.uid)
        {
            self.runtime.remove(key);
        }
        if pod.metadata.deletion_timestamp.is_some() {
            return self.sync_terminating(now, api, key, &obj, pod);
        }
        if super::podutil::is_terminal(pod) {
            return Ok(());
        }
        // The state read in place (a sync of a running pod copies none of its runtime).
        let (ready_at, pull_ms, announced) = match self.runtime.get(key).map(|r| &r.state) {
            None => return self.start_pod(now, api, key, &obj, pod),
            Some(PodState::Creating {
                ready_at,
                pull_ms,
                announced,
            }) => (*ready_at, *pull_ms, *announced),
            Some(PodState::Running { .. }) => return self.sync_running(now, api, key, &obj, pod),
            Some(PodState::Stopping { .. }) => return Ok(()),
        };
        if now < ready_at {
            self.queue
                .add_after(key.clone(), ready_at.millis_since(now), now);
            return Ok(());
        }
        if !announced {
            for c in &pod.spec.containers {
                if let Some(ms) = pull_ms {
                    let d = format_duration(ms);
                    let msg = format!(
                        "Successfully pulled image {:?} in {d} ({d} including waiting)",
                        c.image
                    );
                    self.event(api, now, &obj, EventType::Normal, "Pulled", &msg);
                }
                self.event(
                    api,
                    now,
                    &obj,
                    EventType::Normal,
                    "Created",
                    &format!("Created container: {}", c.name),
                );
                self.event(
                    api,
                    now,
                    &obj,
                    EventType::Normal,
                    "Started",
                    &format!("Started container {}", c.name),
                );
            }
            if let Some(r) = self.runtime.get_mut(key) {
                r.state = PodState::Creating {
                    ready_at,
                    pull_ms,
                    announced: true,
                };
            }
        }
        let behaviour = Behaviour::of(pod);
        let containers = pod
            .spec
            .containers
            .iter()
            .map(|c| ContainerRun::start(c, behaviour, now))
            .collect();
        if let Some(r) = self.runtime.get_mut(key) {
            r.state = PodState::Running { containers };
        }
        self.sync_running(now, api, key, &obj, pod)
    }

    /// A running pod: its containers play their lives up to `now` (probes, exits, restarts),
    /// the kubelet records what happened as Events, writes the status if it changed (or if
    /// someone else changed it — the node lifecycle controller marking it not ready), and
    /// comes back when the next thing is due.
    fn sync_running(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        pod: &Pod,
    ) -> Result<(), Requeue> {
        let Some(rt) = self.runtime.get_mut(key) else {
            return Ok(());
        };
        let PodState::Running { containers } = &mut rt.state else {
            return Ok(());
        };
        let behaviour = Behaviour::of(pod);
        let policy = pod.spec.restart_policy.as_deref().unwrap_or("Always");
        let mut happened: Vec<(usize, Happening)> = Vec::new();
        for run in containers.iter_mut() {
            let Some((i, spec)) = pod
                .spec
                .containers
                .iter()
                .enumerate()
                .find(|(_, c)| c.name == run.name())
            else {
                continue;
            };
            let mut out = Vec::new();
            run.advance(now, spec, behaviour, policy, &rt.ip, &mut out);
            happened.extend(out.into_iter().map(|h| (i, h)));
        }
        let due = containers.iter().filter_map(ContainerRun::next_due).min();
        // The status the runs make now (recording the Events below changes none of it), built
        // from the runtime in place.
        let status = match self.runtime.get(key) {
            Some(PodRuntime {
                ip,
                state: PodState::Running { containers },
                ..
            }) => self.pod_status(pod, containers, ip, now),
            _ => return Ok(()),
        };
        for (i, h) in happened {
            if let Some(c) = pod.spec.containers.get(i) {
                self.record(api, now, obj, pod, c, &h);
            }
        }
        if let Some(due) = due.filter(|d| *d > now) {
            self.queue
                .add_after(key.clone(), due.millis_since(now), now);
        }
        if status != pod.status {
            let updated = Pod {
                metadata: pod.metadata.clone(),
                spec: pod.spec.clone(),
                status,
            };
            api.update_status(&self.user, Object::Pod(updated))
                .map_err(|_| Requeue)?;
        }
        Ok(())
    }

    /// The Event for something that happened to container `c`, with the kubelet's texts.
    fn record(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        obj: &Object,
        pod: &Pod,
        c: &Container,
        h: &Happening,
    ) {
        match h {
            Happening::ProbeFailed { kind, output } => {
                let msg = format!("{} probe failed: {output}", kind.title());
                self.event(api, now, obj, EventType::Warning, "Unhealthy", &msg);
            }
            Happening::Killed { kind } => {
                let msg = format!(
                    "Container {} failed {} probe, will be restarted",
                    c.name,
                    kind.lower()
                );
                self.event(api, now, obj, EventType::Normal, "Killing", &msg);
            }
            Happening::BackOff => {
                let msg = format!(
                    "Back-off restarting failed container {} in pod {}_{}({})",
                    c.name, pod.metadata.name, pod.metadata.namespace, pod.metadata.uid
                );
                self.event(api, now, obj, EventType::Warning, "BackOff", &msg);
            }
            Happening::Restarted => {
                if c.image_pull_policy.as_deref() == Some("Always") {
                    let d = format_duration(self.profile.container_start_delay_ms);
                    let pulling = format!("Pulling image {:?}", c.image);
                    self.event(api, now, obj, EventType::Normal, "Pulling", &pulling);
                    let msg = format!(
                        "Successfully pulled image {:?} in {d} ({d} including waiting)",
                        c.image
                    );
                    self.event(api, now, obj, EventType::Normal, "Pulled", &msg);
                } else {
                    let msg = format!("Container image {:?} already present on machine", c.image);
                    self.event(api, now, obj, EventType::Normal, "Pulled", &msg);
                }
                let created = format!("Created container: {}", c.name);
                self.event(api, now, obj, EventType::Normal, "Created", &created);
                let started = format!("Started container {}", c.name);
                self.event(api, now, obj, EventType::Normal, "Started", &started);
            }
        }
    }

    // Long on purpose: a pod's start in the kubelet's order (a pod already running kept, the
    // sandbox and its IP or FailedCreatePodSandBox, ContainerCreating, the image pulls), top down.
    fn start_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        pod: &Pod,
    ) -> Result<(), Requeue> {
        // A pod already running (this kubelet restarted, its containers kept running).
        if pod.status.phase == "Running" && !pod.status.pod_ip.is_empty() {
            let behaviour = Behaviour::of(pod);
            let containers = pod
                .spec
                .containers
                .iter()
                .map(|c| {
                    let status = pod
                        .status
                        .container_statuses
                        .iter()
                        .find(|s| s.name == c.name);
                    let since = status
                        .and_then(|s| s.state.running.as_ref())
                        .and_then(|r| r.started_at)
                        .unwrap_or(now);
                    ContainerRun::adopt(c, behaviour, status, since, now)
                })
                .collect();
            self.runtime.insert(
                key.clone(),
                PodRuntime {
                    uid: pod.metadata.uid.clone(),
                    ip: pod.status.pod_ip.clone(),
                    state: PodState::Running { containers },
                },
            );
            return self.sync_pod(now, api, key);
        }
        let runtime = &self.runtime;
        let Some(ip) = self
            .pod_ips
            .allocate(|ip| runtime.values().any(|r| r.ip == ip))
        else {
            // Every address of the node's /24 is held by a pod still on it: the CNI plugin's
            // answer, retried with back-off as the kubelet retries the sandbox.
            let msg = format!(
                "Failed to create pod sandbox: failed to allocate for range 0: no IP addresses available in range set: {}",
                self.pod_ips.range()
            );
            self.event(
                api,
                now,
                obj,
                EventType::Warning,
                "FailedCreatePodSandBox",
                &msg,
            );
            return Err(Requeue);
        };
        let status = self.creating_status(pod, now);
        api.update_status(&self.user, Object::Pod(status))
            .map_err(|_| Requeue)?;
        let missing: Vec<&str> = pod
            .spec
            .containers
            .iter()
            .filter(|c| {
                c.image_pull_policy.as_deref() == Some("Always") || !self.images.contains(&c.image)
            })
            .map(|c| c.image.as_str())
            .collect();
        let pulled = !missing.is_empty();
        for c in &pod.spec.containers {
            if missing.contains(&c.image.as_str()) {
                self.event(
                    api,
                    now,
                    obj,
                    EventType::Normal,
                    "Pulling",
                    &format!("Pulling image {:?}", c.image),
                );
            } else {
                let msg = format!("Container image {:?} already present on machine", c.image);
                self.event(api, now, obj, EventType::Normal, "Pulled", &msg);
            }
            self.images.insert(c.image.clone());
        }
        let delay = if pulled {
            let (lo, hi) = (
                self.profile.pod_start_delay_min_ms,
                self.profile.pod_start_delay_max_ms,
            );
            lo + self.rng.below(hi.saturating_sub(lo) + 1)
        } else {
            self.profile.container_start_delay_ms
        };
        self.runtime.insert(
            key.clone(),
            PodRuntime {
                uid: pod.metadata.uid.clone(),
                ip,
                state: PodState::Creating {
                    ready_at: now.plus_millis(delay),
                    pull_ms: pulled.then_some(delay),
                    announced: false,
                },
            },
        );
        self.queue.add_after(key.clone(), delay, now);
        Ok(())
    }

    fn sync_terminating(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        pod: &Pod,
    ) -> Result<(), Requeue> {
        let state = self.runtime.get(key).map(|r| r.state.clone());
        match state {
            Some(PodState::Stopping { done_at }) if now >= done_at => {
                let opts = DeleteOptions {
                    grace_period_seconds: Some(0),
                    preconditions: Some(Preconditions {
                        uid: Some(pod.metadata.uid.clone()),
                        resource_version: None,
                    }),
                    ..Default::default()
                };
                match api.delete(
                    &self.user,
                    Kind::Pod,
                    Some(&pod.metadata.namespace),
                    &pod.metadata.name,
                    &opts,
                ) {
                    Ok(_) => {
                        self.runtime.remove(key);
                        Ok(())
                    }
                    Err(s)
                        if matches!(
                            s.reason(),
                            StatusReason::NotFound | StatusReason::Conflict
                        ) =>
                    {
                        self.runtime.remove(key);
                        Ok(())
                    }
                    Err(_) => Err(Requeue),
                }
            }
            Some(PodState::Stopping { done_at }) => {
                self.queue
                    .add_after(key.clone(), done_at.millis_since(now), now);
                Ok(())
            }
            _ => {
                for c in &pod.spec.containers {
                    self.event(
                        api,
                        now,
                        obj,
                        EventType::Normal,
                        "Killing",
                        &format!("Stopping container {}", c.name),
                    );
                }
                let grace_ms = pod
                    .metadata
                    .deletion_grace_period_seconds
                    .unwrap_or(30)
                    .max(0) as u64
                    * 1000;
                let wait = grace_ms.min(self.profile.container_stop_delay_ms);
                let ip = self
                    .runtime
                    .get(key)
                    .map(|r| r.ip.clone())
                    .unwrap_or_default();
                self.runtime.insert(
                    key.clone(),
                    PodRuntime {
                        uid: pod.metadata.uid.clone(),
                        ip,
                        state: PodState::Stopping {
                            done_at: now.plus_millis(wait),
                        },
                    },
                );
                self.queue.add_after(key.clone(), wait, now);
                Ok(())
            }
        }
    }
}

/// The runtime's ID of container `i` of `pod` in its `restarts`-th run.
fn container_id(pod: &Pod, i: usize, restarts: i32) -> String {
    let hash = if restarts == 0 {
        fnv1a64(pod.metadata.uid.as_bytes())
    } else {
        fnv1a64(format!("{}#{restarts}", pod.metadata.uid).as_bytes())
    };
    format!("containerd://{hash:016x}{i:02}")
}

/// `getPhase` for a pod whose containers have all been started: Running while any runs (or
/// will be restarted); once none will run again, Succeeded if every container exited 0 (or,
/// with `OnFailure`, as soon as all have), Failed otherwise.
fn pod_phase(pod: &Pod, runs: &[ContainerRun]) -> &'static str {
    let running = runs.iter().filter(|r| r.is_running()).count();
    if running > 0 || runs.is_empty() {
        return "Running";
    }
    let done: Vec<_> = runs.iter().filter_map(ContainerRun::done).collect();
    let failed = done.iter().filter(|t| t.exit_code != 0).count();
    match pod.spec.restart_policy.as_deref().unwrap_or("Always") {
        "Never" if done.len() == runs.len() => {
            if failed > 0 {
                "Failed"
            } else {
                "Succeeded"
            }
        }
        "OnFailure" if done.len() == runs.len() && failed == 0 => "Succeeded",
        _ => "Running",
    }
}

/// A Go `time.Duration` string for whole milliseconds (`2.345s`, `800ms`).
fn format_duration(ms: u64) -> String {
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}s")
}

impl Kubelet {
    /// The earliest instant it needs a step on its own (what a step returns).
    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            Some(self.next_lease),
            Some(self.next_status),
            self.pods.as_ref().and_then(|i| i.next_wakeup()),
            self.queue.next_ready_at(),
            self.recorder.next_retry(),
        ])
    }
}

impl Controller for Kubelet {
    fn informers(&self) -> Vec<InformerRef<'_>> {
        self.pods.iter().map(Into::into).collect()
    }

    fn name(&self) -> &str {
        &self.user
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        if !self.running {
            if let Some(mut informer) = self.pods.take() {
                informer.stop(api, &self.user);
            }
            return None;
        }
        self.recorder.flush(api, now);
        if !self.registered {
            self.register(now, api);
            if !self.registered {
                return Some(now.plus_secs(1));
            }
        }
        if now >= self.next_lease {
            let ok = self.renew_lease(now, api);
            self.next_lease = if ok {
                now.plus_millis(self.profile.lease_renew_interval_ms)
            } else {
                now.plus_secs(1)
            };
        }
        if now >= self.next_status {
            let ok = self.sync_node_status(now, api);
            self.next_status = if ok {
                now.plus_millis(self.profile.node_status_update_frequency_ms)
            } else {
                now.plus_secs(1)
            };
        }
        self.informer();
        let notes = match self.pods.as_mut() {
            Some(informer) => informer.step(now, api, &self.user),
            None => Vec::new(),
        };
        for note in notes {
            self.queue.add(note.key());
        }
        if self.pods.as_ref().is_some_and(|i| i.has_synced()) {
            if self.runtimes_checked_at_start != self.starts {
                self.runtimes_checked_at_start = self.starts;
                self.forget_runtimes_not_listed();
            }
            while let Some(key) = self.queue.get(now) {
                match self.sync_pod(now, api, &key) {
                    Ok(()) => self.queue.forget(&key),
                    Err(Requeue) => self.queue.add_rate_limited(key.clone(), now),
                }
                self.queue.done(&key);
            }
        }
        self.next_wakeup()
    }

    fn idle(&self, now: Timestamp, api: &ApiServer) -> Option<Option<Timestamp>> {
        let informer = self.pods.as_ref()?;
        let quiet = self.running
            && self.registered
            && self.runtimes_checked_at_start == self.starts
            && self.queue.is_empty()
            && (self.recorder.pending() == 0
                || self.recorder.next_retry().is_some_and(|t| t > now))
            && informer.is_quiet(now, api);
        let wake = self.next_wakeup();
        (quiet && wake.is_none_or(|t| t > now)).then_some(wake)
    }
}
