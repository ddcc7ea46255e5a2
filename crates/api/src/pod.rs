//! `v1.Pod`: the unit the scheduler binds and the kubelet runs. Only the fields the controllers,
//! the kubelet model and the UI read, with their real JSON names.

pub use super::container_env::{EnvFromSource, EnvVar};
pub use super::intstr::IntOrString;
use super::meta::{skip_false, ObjectMeta, Term};
pub use super::resource_list::ResourceList;
use super::shared::{sharable_vec, Shared, StringMap};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use watchlab_apimachinery::validation::{
    is_dns1123_subdomain, is_qualified_name, is_valid_label_value, FieldError,
};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Shared between the versions of a pod: a status write (most of a pod's writes, the
    /// kubelet's) copies the status and the metadata, not the spec, and the store's history
    /// holds one spec for them all; a writer that changes the spec gets its own copy
    /// (`Arc::make_mut`, free while only one version holds it).
    #[serde(default)]
    pub spec: Arc<PodSpec>,
    #[serde(default)]
    pub status: PodStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// Only a name, a `hostPath` source (what `kubectl debug node/NAME` mounts) and a
    /// `persistentVolumeClaim` source are modelled; other sources are dropped on decode. Shared
    /// and empty for most pods, as the containers are.
    #[serde(default, skip_serializing_if = "Volumes::is_empty")]
    pub volumes: Volumes,
    /// Shared: every pod a ReplicaSet creates holds its template's containers, and every later
    /// version of a pod (bound, started, ready) the same ones, until someone changes them.
    #[serde(default)]
    pub containers: Containers,
    /// Added only through the `pods/ephemeralcontainers` subresource (`kubectl debug POD`),
    /// never removed; empty (no allocation) for every other pod.
    #[serde(default, skip_serializing_if = "EphemeralContainers::is_empty")]
    pub ephemeral_containers: EphemeralContainers,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    /// Shared like the labels: a template's pods hold one selector (and the spec stays the size
    /// it was before `volumes` and `ephemeralContainers` joined it).
    #[serde(default, skip_serializing_if = "StringMap::is_empty")]
    pub node_selector: StringMap,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service_account_name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub node_name: String,
    /// The pod's own host name and the subdomain under a headless Service of that name
    /// (`<hostname>.<subdomain>.<namespace>.svc`): the StatefulSet controller sets both, and
    /// the endpoints controllers publish the hostname. Empty (no allocation) for other pods.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hostname: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subdomain: String,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub host_network: bool,
    /// `hostPID`, `hostIPC`: Kubernetes spells the initialism in capitals. Bools sit in the
    /// spec's padding: no pod gets bigger for them.
    #[serde(default, rename = "hostPID", skip_serializing_if = "skip_false")]
    pub host_pid: bool,
    #[serde(default, rename = "hostIPC", skip_serializing_if = "skip_false")]
    pub host_ipc: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_process_namespace: Option<bool>,
    /// Boxed: most pods have none, and a DaemonSet's pods each hold their own (the node-name
    /// affinity the DaemonSet controller writes), so it costs a pointer in every other spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Box<Affinity>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// Shared like the containers: the two tolerations admission gives a pod that has none
    /// are one vector for every such pod, and every later version of a pod keeps its own.
    #[serde(default, skip_serializing_if = "Tolerations::is_empty")]
    pub tolerations: Tolerations,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
}

/// A pod's containers, shared copy-on-write between the pods and versions that hold the same.
pub type Containers = Shared<Vec<Container>>;

sharable_vec!(Container);

/// A pod's tolerations, shared copy-on-write like [`Containers`].
pub type Tolerations = Shared<Vec<Toleration>>;

sharable_vec!(Toleration);

/// A pod's ephemeral containers, shared copy-on-write like [`Containers`].
pub type EphemeralContainers = Shared<Vec<EphemeralContainer>>;

sharable_vec!(EphemeralContainer);

/// A pod's volumes, shared copy-on-write like [`Containers`].
pub type Volumes = Shared<Vec<Volume>>;

sharable_vec!(Volume);

/// A container's volume mounts, shared copy-on-write (empty, no allocation, for most).
pub type VolumeMounts = Shared<Vec<VolumeMount>>;

sharable_vec!(VolumeMount);

/// A pod's conditions, shared copy-on-write: the API server keeps one list of equal ones (the
/// kubelets write the same five conditions at the same instants for many pods).
pub type PodConditions = Shared<Vec<PodCondition>>;

sharable_vec!(PodCondition);

/// A pod's container statuses, shared copy-on-write like its [`PodConditions`].
pub type ContainerStatuses = Shared<Vec<ContainerStatus>>;

sharable_vec!(ContainerStatus);

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image: String,
    /// The entrypoint and its arguments, kept as sent (the kubelet's simulated behaviour, not
    /// the command, decides what the container does: see DIFFERENCES.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub working_dir: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ContainerPort>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_from: Vec<EnvFromSource>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    #[serde(default)]
    pub resources: ResourceRequirements,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_pull_policy: Option<String>,
    /// The probes are boxed: most containers have none, and inline they made a `Container`
    /// (copied into every pod, and once more when the pod is bound) four times its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness_probe: Option<Box<Probe>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness_probe: Option<Box<Probe>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_probe: Option<Box<Probe>>,
    #[serde(default, skip_serializing_if = "VolumeMounts::is_empty")]
    pub volume_mounts: VolumeMounts,
    /// `File` or `FallbackToLogsOnError`, kept as sent (not defaulted, see DIFFERENCES.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_message_policy: Option<String>,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub stdin: bool,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub stdin_once: bool,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub tty: bool,
}

/// `v1.EphemeralContainer`: a container added to a running pod (`kubectl debug POD`), with
/// the fields of a [`Container`] (`EphemeralContainerCommon`, inline in the JSON) and the
/// container whose namespaces it targets. Never restarted, never removed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EphemeralContainer {
    #[serde(flatten)]
    pub container: Container,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target_container_name: String,
    /// Fields of `EphemeralContainerCommon` that [`Container`] does not model, read only so
    /// that validation can refuse them as the real server does (`lifecycle`, `resizePolicy`,
    /// a container `restartPolicy`: "cannot be set for an Ephemeral Container"); a valid
    /// ephemeral container never holds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resize_policy: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

/// `v1.Volume` with its modelled sources, `hostPath` and `persistentVolumeClaim` (the source is
/// inline in the JSON). Held in the shared [`Volumes`] vector, so a source added here makes no
/// pod bigger.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volume {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_path: Option<HostPathVolumeSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<PersistentVolumeClaimVolumeSource>,
}

/// `v1.PersistentVolumeClaimVolumeSource`: a claim of the pod's namespace, by name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolumeClaimVolumeSource {
    #[serde(default)]
    pub claim_name: String,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub read_only: bool,
}

/// `v1.HostPathVolumeSource`: a file or directory of the node (`type` as sent, unchecked).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HostPathVolumeSource {
    #[serde(default)]
    pub path: String,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

/// `v1.VolumeMount` (`subPath`/`subPathExpr` kept: ephemeral containers may not set them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeMount {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub read_only: bool,
    #[serde(default)]
    pub mount_path: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sub_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_propagation: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sub_path_expr: String,
}

/// The three probes, named as the kubelet's prober names them in its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProbeKind {
    Startup,
    Liveness,
    Readiness,
}

impl ProbeKind {
    pub const ALL: [ProbeKind; 3] = [
        ProbeKind::Startup,
        ProbeKind::Liveness,
        ProbeKind::Readiness,
    ];

    /// `Startup`, `Liveness`, `Readiness` (the kubelet's `probeType` in event texts).
    pub fn title(self) -> &'static str {
        match self {
            ProbeKind::Startup => "Startup",
            ProbeKind::Liveness => "Liveness",
            ProbeKind::Readiness => "Readiness",
        }
    }

    /// `startup`, `liveness`, `readiness` (as in "failed liveness probe").
    pub fn lower(self) -> &'static str {
        match self {
            ProbeKind::Startup => "startup",
            ProbeKind::Liveness => "liveness",
            ProbeKind::Readiness => "readiness",
        }
    }
}

impl Container {
    /// The container's probe of `kind`, if it has one.
    pub fn probe(&self, kind: ProbeKind) -> Option<&Probe> {
        match kind {
            ProbeKind::Startup => self.startup_probe.as_deref(),
            ProbeKind::Liveness => self.liveness_probe.as_deref(),
            ProbeKind::Readiness => self.readiness_probe.as_deref(),
        }
    }
}

/// `v1.Probe`: one handler (exec, httpGet, tcpSocket or grpc) and its timing. The API server
/// defaults the numbers (`SetDefaults_Probe`): timeoutSeconds 1, periodSeconds 10,
/// successThreshold 1, failureThreshold 3; initialDelaySeconds stays unset (0).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_get: Option<HttpGetAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_socket: Option<TcpSocketAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grpc: Option<GrpcAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_delay_seconds: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_seconds: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_threshold: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_threshold: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
}

impl Probe {
    /// `initialDelaySeconds` in milliseconds (negative values are refused by validation).
    pub fn initial_delay_ms(&self) -> u64 {
        seconds_ms(self.initial_delay_seconds.unwrap_or(0))
    }

    /// `periodSeconds` in milliseconds (default 10 s; at least 1 s).
    pub fn period_ms(&self) -> u64 {
        seconds_ms(self.period_seconds.unwrap_or(10).max(1))
    }

    /// `successThreshold` (default 1, at least 1).
    pub fn success_threshold(&self) -> u32 {
        self.success_threshold.unwrap_or(1).max(1) as u32
    }

    /// `failureThreshold` (default 3, at least 1).
    pub fn failure_threshold(&self) -> u32 {
        self.failure_threshold.unwrap_or(3).max(1) as u32
    }
}

fn seconds_ms(s: i32) -> u64 {
    u64::try_from(s).unwrap_or(0) * 1000
}

/// `v1.ExecAction`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecAction {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
}

/// `v1.HTTPGetAction` (`path` defaults to `/`, `scheme` to `HTTP`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpGetAction {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(default)]
    pub port: IntOrString,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub host: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scheme: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http_headers: Vec<HttpHeader>,
}

/// `v1.HTTPHeader`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HttpHeader {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: String,
}

/// `v1.TCPSocketAction`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TcpSocketAction {
    #[serde(default)]
    pub port: IntOrString,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub host: String,
}

/// `v1.GRPCAction` (`service` unset: the server's overall health).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrpcAction {
    #[serde(default)]
    pub port: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerPort {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default)]
    pub container_port: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRequirements {
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "super::resource_list"
    )]
    pub limits: ResourceList,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "super::resource_list"
    )]
    pub requests: ResourceList,
}

/// `v1.Toleration` (`operator` Equal|Exists, `effect` NoSchedule|PreferNoSchedule|NoExecute).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    /// Terms: the two tolerations admission adds to every pod are literals, borrowed rather
    /// than allocated in each pod.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub key: Term,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub operator: Term,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub value: Term,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub effect: Term,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

/// `v1.Affinity`: only `nodeAffinity` is modelled; `podAffinity` and `podAntiAffinity` are
/// dropped on decode like the other fields the engine does not model (see DIFFERENCES.md).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Affinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<NodeAffinity>,
}

/// `v1.NodeAffinity`: the required terms the scheduler's NodeAffinity filter holds a pod to,
/// and the preferred ones (validated and kept, not scored).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAffinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_during_scheduling_ignored_during_execution: Option<NodeSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preferred_during_scheduling_ignored_during_execution: Vec<PreferredSchedulingTerm>,
}

/// `v1.NodeSelector`: the terms are ORed (`nodeSelectorTerms` is written even when empty, as
/// Go has no `omitempty` on it).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSelector {
    #[serde(default)]
    pub node_selector_terms: Vec<NodeSelectorTerm>,
}

/// `v1.NodeSelectorTerm`: its requirements are ANDed; a term with none matches no node.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSelectorTerm {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_fields: Vec<NodeSelectorRequirement>,
}

/// `v1.NodeSelectorRequirement` (operators In, NotIn, Exists, DoesNotExist, Gt, Lt).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeSelectorRequirement {
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub operator: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// `v1.PreferredSchedulingTerm`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PreferredSchedulingTerm {
    #[serde(default)]
    pub weight: i32,
    #[serde(default)]
    pub preference: NodeSelectorTerm,
}

/// `metav1.ObjectNameField`: the one field a node selector's `matchFields` may name.
pub const OBJECT_NAME_FIELD: &str = "metadata.name";

impl NodeSelectorRequirement {
    /// A label requirement against a node's labels (`labels.Requirement.Matches`); `None` when
    /// it does not parse (a wrong operator or number of values, a Gt/Lt value that is not an
    /// integer), which makes its term match nothing, as `nodeaffinity.LazyErrorNodeSelector`.
    fn matches_labels(&self, labels: &BTreeMap<String, String>) -> Option<bool> {
        let value = labels.get(&self.key);
        let n = self.values.len();
        Some(match self.operator.as_str() {
            "In" if n > 0 => value.is_some_and(|v| self.values.contains(v)),
            "NotIn" if n > 0 => value.is_none_or(|v| !self.values.contains(v)),
            "Exists" if n == 0 => value.is_some(),
            "DoesNotExist" if n == 0 => value.is_none(),
            op @ ("Gt" | "Lt") if n == 1 => {
                let bound: i64 = self.values.first()?.parse().ok()?;
                let label = value.and_then(|v| v.parse::<i64>().ok());
                label.is_some_and(|l| if op == "Gt" { l > bound } else { l < bound })
            }
            _ => return None,
        })
    }

    /// A field requirement against a node's name: `metadata.name` with In or NotIn and exactly
    /// one value; anything else does not parse.
    fn matches_name(&self, name: &str) -> Option<bool> {
        if self.key != OBJECT_NAME_FIELD || self.values.len() != 1 {
            return None;
        }
        let equal = self.values.first().is_some_and(|v| v == name);
        match self.operator.as_str() {
            "In" => Some(equal),
            "NotIn" => Some(!equal),
            _ => None,
        }
    }
}

impl NodeSelectorTerm {
    /// Whether the node (its labels and name) satisfies every requirement of the term; a term
    /// without requirements, or with one that does not parse, matches nothing.
    pub fn matches(&self, labels: &BTreeMap<String, String>, name: &str) -> bool {
        if self.match_expressions.is_empty() && self.match_fields.is_empty() {
            return false;
        }
        self.match_expressions
            .iter()
            .all(|r| r.matches_labels(labels) == Some(true))
            && self
                .match_fields
                .iter()
                .all(|r| r.matches_name(name) == Some(true))
    }
}

impl NodeSelector {
    /// `nodeaffinity.NodeSelector.Match`: some term matches.
    pub fn matches(&self, labels: &BTreeMap<String, String>, name: &str) -> bool {
        self.node_selector_terms
            .iter()
            .any(|t| t.matches(labels, name))
    }

    /// The NodeAffinity plugin's `PreFilter`: when every term names nodes with a
    /// `metadata.name In [...]` field requirement, only those nodes can match (the union over
    /// the terms of each term's intersection); `None` when some term may match any node. An
    /// empty set: the terms conflict, no node can match.
    pub fn node_names(&self) -> Option<std::collections::BTreeSet<&str>> {
        if self.node_selector_terms.is_empty() {
            return None;
        }
        let mut all = std::collections::BTreeSet::new();
        for term in &self.node_selector_terms {
            let mut names: Option<std::collections::BTreeSet<&str>> = None;
            let named = term
                .match_fields
                .iter()
                .filter(|r| r.key == OBJECT_NAME_FIELD && r.operator == "In");
            for r in named {
                let these = r.values.iter().map(String::as_str).collect();
                names = Some(match names {
                    None => these,
                    Some(n) => n.intersection(&these).copied().collect(),
                });
            }
            all.extend(names?);
        }
        Some(all)
    }
}

impl PodSpec {
    /// The claims the pod's volumes name, as `(volume name, claim name)`, in the spec's order:
    /// nothing to walk for the many pods without volumes.
    pub fn claim_volumes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.volumes.iter().filter_map(|v| {
            v.persistent_volume_claim
                .as_ref()
                .map(|c| (v.name.as_str(), c.claim_name.as_str()))
        })
    }

    /// The required node affinity, if any.
    pub fn required_node_affinity(&self) -> Option<&NodeSelector> {
        self.affinity
            .as_ref()?
            .node_affinity
            .as_ref()?
            .required_during_scheduling_ignored_during_execution
            .as_ref()
    }

    /// `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`: the node's labels hold every
    /// pair of the `nodeSelector`, and some term of the required node affinity matches.
    pub fn matches_node(&self, labels: &BTreeMap<String, String>, name: &str) -> bool {
        self.node_selector
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self
                .required_node_affinity()
                .is_none_or(|s| s.matches(labels, name))
    }
}

/// `ValidateAffinity`'s node part (`validateNodeAffinity`, pkg/apis/core/validation): the
/// required selector has at least one term; each label requirement has the values its
/// operator needs, a qualified-name key and label values; each field requirement names
/// `metadata.name` with In/NotIn and one node name; a preferred term weighs 1–100.
pub(crate) fn validate_affinity(spec: &PodSpec, path: &str) -> Vec<FieldError> {
    let Some(na) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
    else {
        return Vec::new();
    };
    let path = format!("{path}.affinity.nodeAffinity");
    let mut errs = Vec::new();
    if let Some(required) = &na.required_during_scheduling_ignored_during_execution {
        let terms =
            format!("{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
        if required.node_selector_terms.is_empty() {
            errs.push(FieldError::required(
                &terms,
                "must have at least one node selector term",
            ));
        }
        for (i, term) in required.node_selector_terms.iter().enumerate() {
            errs.extend(validate_node_selector_term(term, &format!("{terms}[{i}]")));
        }
    }
    let preferred = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, term) in na
        .preferred_during_scheduling_ignored_during_execution
        .iter()
        .enumerate()
    {
        if !(1..=100).contains(&term.weight) {
            errs.push(FieldError::invalid(
                &format!("{preferred}[{i}].weight"),
                i64::from(term.weight),
                "must be in the range 1-100",
            ));
        }
        let f = format!("{preferred}[{i}].preference");
        errs.extend(validate_node_selector_term(&term.preference, &f));
    }
    errs
}

/// `ValidateNodeSelectorTerm`.
fn validate_node_selector_term(term: &NodeSelectorTerm, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (j, r) in term.match_expressions.iter().enumerate() {
        errs.extend(validate_node_selector_requirement(
            r,
            &format!("{path}.matchExpressions[{j}]"),
        ));
    }
    for (j, r) in term.match_fields.iter().enumerate() {
        errs.extend(validate_node_field_selector_requirement(
            r,
            &format!("{path}.matchFields[{j}]"),
        ));
    }
    errs
}

/// `ValidateNodeSelectorRequirement`.
fn validate_node_selector_requirement(r: &NodeSelectorRequirement, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let values = format!("{path}.values");
    match r.operator.as_str() {
        "In" | "NotIn" if r.values.is_empty() => errs.push(FieldError::required(
            &values,
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !r.values.is_empty() => errs.push(FieldError::forbidden(
            &values,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "Gt" | "Lt" if r.values.len() != 1 => errs.push(FieldError::required(
            &values,
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        op => errs.push(FieldError::invalid(
            &format!("{path}.operator"),
            op,
            "not a valid selector operator",
        )),
    }
    let key = format!("{path}.key");
    errs.extend(
        is_qualified_name(&r.key)
            .iter()
            .map(|m| FieldError::invalid(&key, r.key.as_str(), m)),
    );
    for (i, v) in r.values.iter().enumerate() {
        let f = format!("{values}[{i}]");
        errs.extend(
            is_valid_label_value(v)
                .iter()
                .map(|m| FieldError::invalid(&f, v.as_str(), m)),
        );
    }
    errs
}

/// `ValidateNodeFieldSelectorRequirement`: only `metadata.name`, whose values are node names.
fn validate_node_field_selector_requirement(
    r: &NodeSelectorRequirement,
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let values = format!("{path}.values");
    match r.operator.as_str() {
        "In" | "NotIn" if r.values.len() != 1 => errs.push(FieldError::required(
            &values,
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )),
        "In" | "NotIn" => {}
        op => errs.push(FieldError::invalid(
            &format!("{path}.operator"),
            op,
            "not a valid selector operator",
        )),
    }
    if r.key != OBJECT_NAME_FIELD {
        errs.push(FieldError::invalid(
            &format!("{path}.key"),
            r.key.as_str(),
            "not a valid field selector key",
        ));
        return errs;
    }
    for (i, v) in r.values.iter().enumerate() {
        let f = format!("{values}[{i}]");
        errs.extend(
            is_dns1123_subdomain(v)
                .iter()
                .map(|m| FieldError::invalid(&f, v.as_str(), m)),
        );
    }
    errs
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// Terms, as `qosClass` is: the phases are literals, borrowed rather than allocated in
    /// each version of each pod.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub phase: Term,
    /// Shared: equal lists are kept once ([`crate::shared::Interner`]).
    #[serde(default, skip_serializing_if = "PodConditions::is_empty")]
    pub conditions: PodConditions,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Boxed text (the scheduler never nominates here): the room it gave up holds
    /// `ephemeralContainerStatuses`, so a pod is no bigger for them.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub nominated_node_name: Box<str>,
    /// `hostIP`, `podIP`: Kubernetes spells the initialism in capitals (not serde's `hostIp`).
    /// Shared: the kubelet gives all its pods its node's one.
    #[serde(default, rename = "hostIP", skip_serializing_if = "str::is_empty")]
    pub host_ip: Arc<str>,
    #[serde(default, rename = "podIP", skip_serializing_if = "String::is_empty")]
    pub pod_ip: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub start_time: Option<Timestamp>,
    /// Shared and kept once when equal, as the conditions are (before the containers start,
    /// a template's pods have equal statuses).
    #[serde(default, skip_serializing_if = "ContainerStatuses::is_empty")]
    pub container_statuses: ContainerStatuses,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub qos_class: Term,
    /// The kubelet's statuses of the ephemeral containers (empty for every other pod).
    #[serde(default, skip_serializing_if = "ContainerStatuses::is_empty")]
    pub ephemeral_container_statuses: ContainerStatuses,
}

/// `v1.PodCondition` (types PodScheduled, Initialized, ContainersReady, Ready).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCondition {
    #[serde(rename = "type")]
    pub type_: Term,
    pub status: Term,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_probe_time: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_transition_time: Option<Timestamp>,
    /// A term: the reasons the control plane writes (`ContainersNotReady`, `PodCompleted`)
    /// are literals, borrowed rather than allocated in each version of each pod.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub reason: Term,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    pub name: String,
    #[serde(default)]
    pub state: ContainerState,
    #[serde(default)]
    pub last_state: ContainerState,
    #[serde(default)]
    pub ready: bool,
    #[serde(default)]
    pub restart_count: i32,
    #[serde(default)]
    pub image: String,
    #[serde(default, rename = "imageID")]
    pub image_id: String,
    #[serde(
        default,
        rename = "containerID",
        skip_serializing_if = "String::is_empty"
    )]
    pub container_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<bool>,
}

/// `v1.ContainerState`: at most one of waiting / running / terminated.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<ContainerStateWaiting>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<ContainerStateRunning>,
    /// Boxed: the largest state and the rarest (a running pod's versions carry none), so
    /// every other state does not pay for its room (twice per container status: `state` and
    /// `lastState`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminated: Option<Box<ContainerStateTerminated>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStateWaiting {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStateRunning {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub started_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStateTerminated {
    #[serde(default)]
    pub exit_code: i32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub started_at: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub finished_at: Option<Timestamp>,
}

/// `podutil.IsPodReady`: the Ready condition is True (the API server's eviction asks too).
pub fn is_pod_ready(pod: &Pod) -> bool {
    pod.condition("Ready").is_some_and(|c| c.status == "True")
}

impl Pod {
    /// The spec to change: this version's own copy, cloned first if other versions share it.
    pub fn spec_mut(&mut self) -> &mut PodSpec {
        Arc::make_mut(&mut self.spec)
    }

    /// The condition of the given type, if present.
    pub fn condition(&self, type_: &str) -> Option<&PodCondition> {
        self.status.conditions.iter().find(|c| c.type_ == type_)
    }

    /// Sets (or adds) a condition, moving lastTransitionTime only when the status changes, as
    /// `podutil.UpdatePodCondition` does.
    pub fn set_condition(&mut self, type_: &'static str, status: &'static str, now: Timestamp) {
        match self.status.conditions.iter_mut().find(|c| c.type_ == type_) {
            Some(c) => {
                if c.status != status {
                    c.status = Term::Borrowed(status);
                    c.last_transition_time = Some(now);
                }
            }
            None => {
                // One more slot, not the doubling `push` would grow by: the kubelet adds four
                // conditions to the binding's one, and a doubled vector would keep three spare
                // slots in the version it writes (at 150,000 pods, 150,000 such versions).
                self.status.conditions.reserve_exact(1);
                self.status.conditions.push(PodCondition {
                    type_: Term::Borrowed(type_),
                    status: Term::Borrowed(status),
                    last_transition_time: Some(now),
                    ..Default::default()
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_fields_keep_kubernetes_spelling() {
        let status = PodStatus {
            host_ip: "10.0.0.3".into(),
            pod_ip: "10.244.2.7".into(),
            ..PodStatus::default()
        };
        let json = serde_json::to_value(&status).unwrap();
        assert_eq!(json["hostIP"], "10.0.0.3");
        assert_eq!(json["podIP"], "10.244.2.7");
        let back: PodStatus = serde_json::from_value(json).unwrap();
        assert_eq!(back, status);
    }
}
