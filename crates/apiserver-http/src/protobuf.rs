//! Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`),
//! turned into the JSON the engine reads.
//!
//! Since v1.31 client-go's typed clientset (`kubernetes.NewForConfig`) sends built-in objects as
//! protobuf and accepts `application/vnd.kubernetes.protobuf,application/json`. kubectl v1.32
//! uses it for `create deployment`, `create namespace` and the like, and does not fall back to
//! JSON on 415 (client-go's fallback is for CBOR only). The answers stay JSON, which the client
//! accepts. So a Kubernetes-compatible server has to read protobuf bodies.
//!
//! The wire format is the one `go-to-protobuf` generates: the 4 bytes `k8s\0`, then a
//! `runtime.Unknown` message (`typeMeta` = 1 with `apiVersion` = 1 and `kind` = 2, `raw` = 2,
//! `contentEncoding` = 3, `contentType` = 4) whose `raw` is the object's message. The message
//! schemas below give the field numbers and JSON names of the kinds the engine serves (Pod,
//! Namespace, Deployment, ReplicaSet, ConfigMap, Secret, Service, PodDisruptionBudget, and
//! `batch/v1` Job and CronJob for `kubectl create job|cronjob`) from `k8s.io/api`'s
//! `generated.proto`, and of the two non-kind bodies `kubectl drain` sends: a
//! DELETE's `DeleteOptions` and a `policy/v1` Eviction. The Pod's covers what `kubectl debug` sends:
//! `kubectl debug node/NAME`'s hostPath volume, host namespaces, volume mounts, stdin/tty and
//! `Exists` toleration, `--copy-to`'s copy of a stored pod, a profile's `securityContext`, and
//! `ephemeralContainers`.
//!
//! Go's generated marshallers write every non-pointer field, zero or not; Go's JSON leaves
//! them out (`omitempty`), and the API server cannot tell the two apart. So a zero scalar of a
//! non-pointer field, and an empty non-pointer message, are dropped; pointer fields
//! (`replicas`, `terminationGracePeriodSeconds`...) keep whatever was sent. A field this schema
//! does not list is accepted only when it is empty: anything else is refused with 415 and what
//! to do instead, never silently dropped.

use serde_json::{Map, Value};
use watchlab_engine::api::{config, Kind};
use watchlab_engine::apiserver::authorization;
use watchlab_engine::clock::Timestamp;

/// The prefix of every Kubernetes protobuf document.
pub const MAGIC: &[u8; 4] = b"k8s\0";

/// The media type.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// Why a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Not valid protobuf (400, as the API server answers an undecodable body).
    Malformed(String),
    /// Valid, but something this server does not decode (415).
    Unsupported(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Malformed(m) | Error::Unsupported(m) => f.write_str(m),
        }
    }
}

/// What a field holds.
#[derive(Debug, Clone, Copy)]
enum Ty {
    Str,
    I32,
    I64,
    Bool,
    Msg(&'static Schema),
    /// `map<string, string>`.
    StrMap,
    /// `map<string, bytes>`: base64 text in JSON, as Go's `encoding/json` writes `[]byte`.
    BytesMap,
    /// `map<string, resource.Quantity>`.
    QuantityMap,
    /// `meta.v1.Time`: RFC 3339 with second precision.
    Time,
    /// `intstr.IntOrString`.
    IntOrString,
    /// A message Go embeds (`json:",inline"`): its fields land in the parent's JSON object
    /// (a Probe's `ProbeHandler`).
    Inline(&'static Schema),
    /// Read and dropped (a `status`: the server sets it, whatever the client sends).
    Ignore,
}

#[derive(Debug)]
struct Field {
    no: u32,
    name: &'static str,
    ty: Ty,
    repeated: bool,
    /// A Go pointer (or a field without omitempty): zero values are kept.
    keep_zero: bool,
}

#[derive(Debug)]
struct Schema {
    name: &'static str,
    fields: &'static [Field],
}

const fn f(no: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        no,
        name,
        ty,
        repeated: false,
        keep_zero: false,
    }
}

const fn list(no: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        no,
        name,
        ty,
        repeated: true,
        keep_zero: false,
    }
}

const fn ptr(no: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        no,
        name,
        ty,
        repeated: false,
        keep_zero: true,
    }
}

static OWNER_REFERENCE: Schema = Schema {
    name: "OwnerReference",
    fields: &[
        f(1, "kind", Ty::Str),
        f(3, "name", Ty::Str),
        f(4, "uid", Ty::Str),
        f(5, "apiVersion", Ty::Str),
        ptr(6, "controller", Ty::Bool),
        ptr(7, "blockOwnerDeletion", Ty::Bool),
    ],
};

static OBJECT_META: Schema = Schema {
    name: "ObjectMeta",
    fields: &[
        f(1, "name", Ty::Str),
        f(2, "generateName", Ty::Str),
        f(3, "namespace", Ty::Str),
        f(4, "selfLink", Ty::Str),
        f(5, "uid", Ty::Str),
        f(6, "resourceVersion", Ty::Str),
        f(7, "generation", Ty::I64),
        f(8, "creationTimestamp", Ty::Time),
        ptr(9, "deletionTimestamp", Ty::Time),
        ptr(10, "deletionGracePeriodSeconds", Ty::I64),
        f(11, "labels", Ty::StrMap),
        f(12, "annotations", Ty::StrMap),
        list(13, "ownerReferences", Ty::Msg(&OWNER_REFERENCE)),
        list(14, "finalizers", Ty::Str),
        // managedFields: set by the server; a client's are not decoded.
        f(17, "managedFields", Ty::Ignore),
    ],
};

static LABEL_SELECTOR_REQUIREMENT: Schema = Schema {
    name: "LabelSelectorRequirement",
    fields: &[
        f(1, "key", Ty::Str),
        f(2, "operator", Ty::Str),
        list(3, "values", Ty::Str),
    ],
};

static LABEL_SELECTOR: Schema = Schema {
    name: "LabelSelector",
    fields: &[
        f(1, "matchLabels", Ty::StrMap),
        list(2, "matchExpressions", Ty::Msg(&LABEL_SELECTOR_REQUIREMENT)),
    ],
};

static CONTAINER_PORT: Schema = Schema {
    name: "ContainerPort",
    fields: &[
        f(1, "name", Ty::Str),
        f(2, "hostPort", Ty::I32),
        f(3, "containerPort", Ty::I32),
        f(4, "protocol", Ty::Str),
        f(5, "hostIP", Ty::Str),
    ],
};

static ENV_VAR: Schema = Schema {
    name: "EnvVar",
    fields: &[f(1, "name", Ty::Str), f(2, "value", Ty::Str)],
};

static RESOURCE_REQUIREMENTS: Schema = Schema {
    name: "ResourceRequirements",
    fields: &[
        f(1, "limits", Ty::QuantityMap),
        f(2, "requests", Ty::QuantityMap),
    ],
};

static EXEC_ACTION: Schema = Schema {
    name: "ExecAction",
    fields: &[list(1, "command", Ty::Str)],
};

static HTTP_HEADER: Schema = Schema {
    name: "HTTPHeader",
    // Both without omitempty.
    fields: &[ptr(1, "name", Ty::Str), ptr(2, "value", Ty::Str)],
};

static HTTP_GET_ACTION: Schema = Schema {
    name: "HTTPGetAction",
    fields: &[
        f(1, "path", Ty::Str),
        ptr(2, "port", Ty::IntOrString),
        f(3, "host", Ty::Str),
        f(4, "scheme", Ty::Str),
        list(5, "httpHeaders", Ty::Msg(&HTTP_HEADER)),
    ],
};

static TCP_SOCKET_ACTION: Schema = Schema {
    name: "TCPSocketAction",
    fields: &[ptr(1, "port", Ty::IntOrString), f(2, "host", Ty::Str)],
};

static GRPC_ACTION: Schema = Schema {
    name: "GRPCAction",
    // `port` without omitempty, `service` a pointer.
    fields: &[ptr(1, "port", Ty::I32), ptr(2, "service", Ty::Str)],
};

static PROBE_HANDLER: Schema = Schema {
    name: "ProbeHandler",
    fields: &[
        ptr(1, "exec", Ty::Msg(&EXEC_ACTION)),
        ptr(2, "httpGet", Ty::Msg(&HTTP_GET_ACTION)),
        ptr(3, "tcpSocket", Ty::Msg(&TCP_SOCKET_ACTION)),
        ptr(4, "grpc", Ty::Msg(&GRPC_ACTION)),
    ],
};

static PROBE: Schema = Schema {
    name: "Probe",
    fields: &[
        f(1, "handler", Ty::Inline(&PROBE_HANDLER)),
        f(2, "initialDelaySeconds", Ty::I32),
        f(3, "timeoutSeconds", Ty::I32),
        f(4, "periodSeconds", Ty::I32),
        f(5, "successThreshold", Ty::I32),
        f(6, "failureThreshold", Ty::I32),
        ptr(7, "terminationGracePeriodSeconds", Ty::I64),
    ],
};

static VOLUME_MOUNT: Schema = Schema {
    name: "VolumeMount",
    // `name` and `mountPath` without omitempty; the propagation and recursive modes pointers.
    fields: &[
        ptr(1, "name", Ty::Str),
        f(2, "readOnly", Ty::Bool),
        ptr(3, "mountPath", Ty::Str),
        f(4, "subPath", Ty::Str),
        ptr(5, "mountPropagation", Ty::Str),
        f(6, "subPathExpr", Ty::Str),
        ptr(7, "recursiveReadOnly", Ty::Str),
    ],
};

static CAPABILITIES: Schema = Schema {
    name: "Capabilities",
    fields: &[list(1, "add", Ty::Str), list(2, "drop", Ty::Str)],
};

/// `SeccompProfile` and `AppArmorProfile` have the same two fields.
static SECURITY_PROFILE: Schema = Schema {
    name: "SeccompProfile",
    // `type` without omitempty, `localhostProfile` a pointer.
    fields: &[ptr(1, "type", Ty::Str), ptr(2, "localhostProfile", Ty::Str)],
};

/// A container's `securityContext` (what `kubectl debug --profile=…` sets): every field a Go
/// pointer. `seLinuxOptions` (3) and `windowsOptions` (10) are refused when set.
static SECURITY_CONTEXT: Schema = Schema {
    name: "SecurityContext",
    fields: &[
        ptr(1, "capabilities", Ty::Msg(&CAPABILITIES)),
        ptr(2, "privileged", Ty::Bool),
        ptr(4, "runAsUser", Ty::I64),
        ptr(5, "runAsNonRoot", Ty::Bool),
        ptr(6, "readOnlyRootFilesystem", Ty::Bool),
        ptr(7, "allowPrivilegeEscalation", Ty::Bool),
        ptr(8, "runAsGroup", Ty::I64),
        ptr(9, "procMount", Ty::Str),
        ptr(11, "seccompProfile", Ty::Msg(&SECURITY_PROFILE)),
        ptr(12, "appArmorProfile", Ty::Msg(&SECURITY_PROFILE)),
    ],
};

/// `Container`, and `EphemeralContainerCommon` (the same field numbers: an ephemeral
/// container's are inline in it, [`EPHEMERAL_CONTAINER`]).
static CONTAINER: Schema = Schema {
    name: "Container",
    fields: &[
        f(1, "name", Ty::Str),
        f(2, "image", Ty::Str),
        list(3, "command", Ty::Str),
        list(4, "args", Ty::Str),
        f(5, "workingDir", Ty::Str),
        list(6, "ports", Ty::Msg(&CONTAINER_PORT)),
        list(7, "env", Ty::Msg(&ENV_VAR)),
        f(8, "resources", Ty::Msg(&RESOURCE_REQUIREMENTS)),
        list(9, "volumeMounts", Ty::Msg(&VOLUME_MOUNT)),
        ptr(10, "livenessProbe", Ty::Msg(&PROBE)),
        ptr(11, "readinessProbe", Ty::Msg(&PROBE)),
        f(13, "terminationMessagePath", Ty::Str),
        f(14, "imagePullPolicy", Ty::Str),
        ptr(15, "securityContext", Ty::Msg(&SECURITY_CONTEXT)),
        f(16, "stdin", Ty::Bool),
        f(17, "stdinOnce", Ty::Bool),
        f(18, "tty", Ty::Bool),
        f(20, "terminationMessagePolicy", Ty::Str),
        ptr(22, "startupProbe", Ty::Msg(&PROBE)),
        ptr(24, "restartPolicy", Ty::Str),
    ],
};

static TOLERATION: Schema = Schema {
    name: "Toleration",
    fields: &[
        f(1, "key", Ty::Str),
        f(2, "operator", Ty::Str),
        f(3, "value", Ty::Str),
        f(4, "effect", Ty::Str),
        ptr(5, "tolerationSeconds", Ty::I64),
    ],
};

/// `EphemeralContainer`: `EphemeralContainerCommon` inline, and the targeted container.
static EPHEMERAL_CONTAINER: Schema = Schema {
    name: "EphemeralContainer",
    fields: &[
        f(1, "ephemeralContainerCommon", Ty::Inline(&CONTAINER)),
        f(2, "targetContainerName", Ty::Str),
    ],
};

static HOST_PATH_VOLUME_SOURCE: Schema = Schema {
    name: "HostPathVolumeSource",
    // `path` without omitempty, `type` a pointer.
    fields: &[ptr(1, "path", Ty::Str), ptr(2, "type", Ty::Str)],
};

/// The one volume source decoded, `hostPath` (`kubectl debug node/NAME` mounts the node's `/`);
/// any other source is refused with 415.
static VOLUME_SOURCE: Schema = Schema {
    name: "VolumeSource",
    fields: &[ptr(1, "hostPath", Ty::Msg(&HOST_PATH_VOLUME_SOURCE))],
};

static VOLUME: Schema = Schema {
    name: "Volume",
    fields: &[
        ptr(1, "name", Ty::Str),
        f(2, "volumeSource", Ty::Inline(&VOLUME_SOURCE)),
    ],
};

static POD_SPEC: Schema = Schema {
    name: "PodSpec",
    fields: &[
        list(1, "volumes", Ty::Msg(&VOLUME)),
        list(2, "containers", Ty::Msg(&CONTAINER)),
        f(3, "restartPolicy", Ty::Str),
        ptr(4, "terminationGracePeriodSeconds", Ty::I64),
        ptr(5, "activeDeadlineSeconds", Ty::I64),
        f(6, "dnsPolicy", Ty::Str),
        f(7, "nodeSelector", Ty::StrMap),
        f(8, "serviceAccountName", Ty::Str),
        f(9, "serviceAccount", Ty::Str),
        f(10, "nodeName", Ty::Str),
        f(11, "hostNetwork", Ty::Bool),
        f(12, "hostPID", Ty::Bool),
        f(13, "hostIPC", Ty::Bool),
        f(16, "hostname", Ty::Str),
        f(17, "subdomain", Ty::Str),
        f(19, "schedulerName", Ty::Str),
        list(20, "initContainers", Ty::Msg(&CONTAINER)),
        ptr(21, "automountServiceAccountToken", Ty::Bool),
        list(22, "tolerations", Ty::Msg(&TOLERATION)),
        f(24, "priorityClassName", Ty::Str),
        ptr(25, "priority", Ty::I32),
        ptr(27, "shareProcessNamespace", Ty::Bool),
        ptr(30, "enableServiceLinks", Ty::Bool),
        ptr(31, "preemptionPolicy", Ty::Str),
        list(34, "ephemeralContainers", Ty::Msg(&EPHEMERAL_CONTAINER)),
    ],
};

static POD_TEMPLATE_SPEC: Schema = Schema {
    name: "PodTemplateSpec",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&POD_SPEC)),
    ],
};

static POD: Schema = Schema {
    name: "Pod",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&POD_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static NAMESPACE_SPEC: Schema = Schema {
    name: "NamespaceSpec",
    fields: &[list(1, "finalizers", Ty::Str)],
};

static NAMESPACE: Schema = Schema {
    name: "Namespace",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&NAMESPACE_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static ROLLING_UPDATE_DEPLOYMENT: Schema = Schema {
    name: "RollingUpdateDeployment",
    fields: &[
        ptr(1, "maxUnavailable", Ty::IntOrString),
        ptr(2, "maxSurge", Ty::IntOrString),
    ],
};

static DEPLOYMENT_STRATEGY: Schema = Schema {
    name: "DeploymentStrategy",
    fields: &[
        f(1, "type", Ty::Str),
        ptr(2, "rollingUpdate", Ty::Msg(&ROLLING_UPDATE_DEPLOYMENT)),
    ],
};

static DEPLOYMENT_SPEC: Schema = Schema {
    name: "DeploymentSpec",
    fields: &[
        ptr(1, "replicas", Ty::I32),
        ptr(2, "selector", Ty::Msg(&LABEL_SELECTOR)),
        f(3, "template", Ty::Msg(&POD_TEMPLATE_SPEC)),
        f(4, "strategy", Ty::Msg(&DEPLOYMENT_STRATEGY)),
        f(5, "minReadySeconds", Ty::I32),
        ptr(6, "revisionHistoryLimit", Ty::I32),
        f(7, "paused", Ty::Bool),
        ptr(9, "progressDeadlineSeconds", Ty::I32),
    ],
};

static DEPLOYMENT: Schema = Schema {
    name: "Deployment",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&DEPLOYMENT_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static REPLICA_SET_SPEC: Schema = Schema {
    name: "ReplicaSetSpec",
    fields: &[
        ptr(1, "replicas", Ty::I32),
        ptr(2, "selector", Ty::Msg(&LABEL_SELECTOR)),
        f(3, "template", Ty::Msg(&POD_TEMPLATE_SPEC)),
        f(4, "minReadySeconds", Ty::I32),
    ],
};

static REPLICA_SET: Schema = Schema {
    name: "ReplicaSet",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&REPLICA_SET_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static CONFIG_MAP: Schema = Schema {
    name: "ConfigMap",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "data", Ty::StrMap),
        f(3, "binaryData", Ty::BytesMap),
        ptr(4, "immutable", Ty::Bool),
    ],
};

static SECRET: Schema = Schema {
    name: "Secret",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "data", Ty::BytesMap),
        f(3, "type", Ty::Str),
        f(4, "stringData", Ty::StrMap),
        ptr(5, "immutable", Ty::Bool),
    ],
};

static SERVICE_PORT: Schema = Schema {
    name: "ServicePort",
    fields: &[
        f(1, "name", Ty::Str),
        f(2, "protocol", Ty::Str),
        // `port` has no omitempty.
        ptr(3, "port", Ty::I32),
        f(4, "targetPort", Ty::IntOrString),
        f(5, "nodePort", Ty::I32),
        ptr(6, "appProtocol", Ty::Str),
    ],
};

static CLIENT_IP_CONFIG: Schema = Schema {
    name: "ClientIPConfig",
    fields: &[ptr(1, "timeoutSeconds", Ty::I32)],
};

static SESSION_AFFINITY_CONFIG: Schema = Schema {
    name: "SessionAffinityConfig",
    fields: &[ptr(1, "clientIP", Ty::Msg(&CLIENT_IP_CONFIG))],
};

static SERVICE_SPEC: Schema = Schema {
    name: "ServiceSpec",
    fields: &[
        list(1, "ports", Ty::Msg(&SERVICE_PORT)),
        f(2, "selector", Ty::StrMap),
        f(3, "clusterIP", Ty::Str),
        f(4, "type", Ty::Str),
        list(5, "externalIPs", Ty::Str),
        f(7, "sessionAffinity", Ty::Str),
        f(8, "loadBalancerIP", Ty::Str),
        list(9, "loadBalancerSourceRanges", Ty::Str),
        f(10, "externalName", Ty::Str),
        f(11, "externalTrafficPolicy", Ty::Str),
        f(12, "healthCheckNodePort", Ty::I32),
        f(13, "publishNotReadyAddresses", Ty::Bool),
        ptr(
            14,
            "sessionAffinityConfig",
            Ty::Msg(&SESSION_AFFINITY_CONFIG),
        ),
        ptr(17, "ipFamilyPolicy", Ty::Str),
        list(18, "clusterIPs", Ty::Str),
        list(19, "ipFamilies", Ty::Str),
        ptr(20, "allocateLoadBalancerNodePorts", Ty::Bool),
        ptr(21, "loadBalancerClass", Ty::Str),
        ptr(22, "internalTrafficPolicy", Ty::Str),
        ptr(23, "trafficDistribution", Ty::Str),
    ],
};

static SERVICE: Schema = Schema {
    name: "Service",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&SERVICE_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

/// `policy/v1` `PodDisruptionBudgetSpec`: every field a Go pointer, so an explicit zero
/// (`--min-available=0`) and an empty selector (`{}`, every pod of the namespace in policy/v1)
/// are kept.
static POD_DISRUPTION_BUDGET_SPEC: Schema = Schema {
    name: "PodDisruptionBudgetSpec",
    fields: &[
        ptr(1, "minAvailable", Ty::IntOrString),
        ptr(2, "selector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(3, "maxUnavailable", Ty::IntOrString),
        ptr(4, "unhealthyPodEvictionPolicy", Ty::Str),
    ],
};

/// `policy/v1` `PodDisruptionBudget` (`kubectl create poddisruptionbudget`).
static POD_DISRUPTION_BUDGET: Schema = Schema {
    name: "PodDisruptionBudget",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&POD_DISRUPTION_BUDGET_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static POD_FAILURE_POLICY_ON_EXIT_CODES: Schema = Schema {
    name: "PodFailurePolicyOnExitCodesRequirement",
    // `values` is a proto2 `repeated int32`: unpacked, one varint per value.
    fields: &[
        ptr(1, "containerName", Ty::Str),
        f(2, "operator", Ty::Str),
        list(3, "values", Ty::I32),
    ],
};

static POD_FAILURE_POLICY_ON_POD_CONDITION: Schema = Schema {
    name: "PodFailurePolicyOnPodConditionsPattern",
    fields: &[f(1, "type", Ty::Str), f(2, "status", Ty::Str)],
};

static POD_FAILURE_POLICY_RULE: Schema = Schema {
    name: "PodFailurePolicyRule",
    fields: &[
        f(1, "action", Ty::Str),
        ptr(2, "onExitCodes", Ty::Msg(&POD_FAILURE_POLICY_ON_EXIT_CODES)),
        list(
            3,
            "onPodConditions",
            Ty::Msg(&POD_FAILURE_POLICY_ON_POD_CONDITION),
        ),
    ],
};

static POD_FAILURE_POLICY: Schema = Schema {
    name: "PodFailurePolicy",
    fields: &[list(1, "rules", Ty::Msg(&POD_FAILURE_POLICY_RULE))],
};

static SUCCESS_POLICY_RULE: Schema = Schema {
    name: "SuccessPolicyRule",
    fields: &[
        ptr(1, "succeededIndexes", Ty::Str),
        ptr(2, "succeededCount", Ty::I32),
    ],
};

static SUCCESS_POLICY: Schema = Schema {
    name: "SuccessPolicy",
    fields: &[list(1, "rules", Ty::Msg(&SUCCESS_POLICY_RULE))],
};

/// `batch/v1` `JobSpec` (`k8s.io/api/batch/v1/generated.proto`): every field a Go pointer but
/// the template, so `suspend: false`, `backoffLimit: 0` or `parallelism: 0` are kept as sent.
static JOB_SPEC: Schema = Schema {
    name: "JobSpec",
    fields: &[
        ptr(1, "parallelism", Ty::I32),
        ptr(2, "completions", Ty::I32),
        ptr(3, "activeDeadlineSeconds", Ty::I64),
        ptr(4, "selector", Ty::Msg(&LABEL_SELECTOR)),
        ptr(5, "manualSelector", Ty::Bool),
        f(6, "template", Ty::Msg(&POD_TEMPLATE_SPEC)),
        ptr(7, "backoffLimit", Ty::I32),
        ptr(8, "ttlSecondsAfterFinished", Ty::I32),
        ptr(9, "completionMode", Ty::Str),
        ptr(10, "suspend", Ty::Bool),
        ptr(11, "podFailurePolicy", Ty::Msg(&POD_FAILURE_POLICY)),
        ptr(12, "backoffLimitPerIndex", Ty::I32),
        ptr(13, "maxFailedIndexes", Ty::I32),
        ptr(14, "podReplacementPolicy", Ty::Str),
        ptr(15, "managedBy", Ty::Str),
        ptr(16, "successPolicy", Ty::Msg(&SUCCESS_POLICY)),
    ],
};

/// `batch/v1` `Job` (`kubectl create job`, `kubectl create job --from=cronjob/NAME`).
static JOB: Schema = Schema {
    name: "Job",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&JOB_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static JOB_TEMPLATE_SPEC: Schema = Schema {
    name: "JobTemplateSpec",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&JOB_SPEC)),
    ],
};

/// `batch/v1` `CronJobSpec`: `schedule` without omitempty, `concurrencyPolicy` a plain string
/// (dropped when empty), the rest pointers.
static CRON_JOB_SPEC: Schema = Schema {
    name: "CronJobSpec",
    fields: &[
        ptr(1, "schedule", Ty::Str),
        ptr(2, "startingDeadlineSeconds", Ty::I64),
        f(3, "concurrencyPolicy", Ty::Str),
        ptr(4, "suspend", Ty::Bool),
        f(5, "jobTemplate", Ty::Msg(&JOB_TEMPLATE_SPEC)),
        ptr(6, "successfulJobsHistoryLimit", Ty::I32),
        ptr(7, "failedJobsHistoryLimit", Ty::I32),
        ptr(8, "timeZone", Ty::Str),
    ],
};

/// `batch/v1` `CronJob` (`kubectl create cronjob`).
static CRON_JOB: Schema = Schema {
    name: "CronJob",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&CRON_JOB_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

/// The message schema of each registry kind whose protobuf bodies are decoded (a document's
/// `apiVersion` and `kind` are matched against the kind's registry entry). The schemas stay
/// here rather than in the kinds' registry modules: they describe a wire codec (field numbers
/// of `generated.proto`, Go's zero-value rules), which only the HTTP edge speaks — the engine
/// reads JSON. Every other registry kind's protobuf body is refused with 415
/// (`tests::every_registry_kind_is_decoded_or_refused_with_415`).
static KINDS: [(Kind, &Schema); 10] = [
    (Kind::Pod, &POD),
    (Kind::Namespace, &NAMESPACE),
    (Kind::ConfigMap, &CONFIG_MAP),
    (Kind::Secret, &SECRET),
    (Kind::Service, &SERVICE),
    (Kind::Deployment, &DEPLOYMENT),
    (Kind::ReplicaSet, &REPLICA_SET),
    (Kind::PodDisruptionBudget, &POD_DISRUPTION_BUDGET),
    (Kind::Job, &JOB),
    (Kind::CronJob, &CRON_JOB),
];

static SELECTOR_ATTRIBUTES: Schema = Schema {
    name: "SelectorAttributes",
    // `requirements` (2) is not decoded: refused with 415 when set.
    fields: &[f(1, "rawSelector", Ty::Str)],
};

static RESOURCE_ATTRIBUTES: Schema = Schema {
    name: "ResourceAttributes",
    fields: &[
        f(1, "namespace", Ty::Str),
        f(2, "verb", Ty::Str),
        f(3, "group", Ty::Str),
        f(4, "version", Ty::Str),
        f(5, "resource", Ty::Str),
        f(6, "subresource", Ty::Str),
        f(7, "name", Ty::Str),
        ptr(8, "fieldSelector", Ty::Msg(&SELECTOR_ATTRIBUTES)),
        ptr(9, "labelSelector", Ty::Msg(&SELECTOR_ATTRIBUTES)),
    ],
};

static NON_RESOURCE_ATTRIBUTES: Schema = Schema {
    name: "NonResourceAttributes",
    fields: &[f(1, "path", Ty::Str), f(2, "verb", Ty::Str)],
};

static SELF_SUBJECT_ACCESS_REVIEW_SPEC: Schema = Schema {
    name: "SelfSubjectAccessReviewSpec",
    fields: &[
        ptr(1, "resourceAttributes", Ty::Msg(&RESOURCE_ATTRIBUTES)),
        ptr(
            2,
            "nonResourceAttributes",
            Ty::Msg(&NON_RESOURCE_ATTRIBUTES),
        ),
    ],
};

static SELF_SUBJECT_ACCESS_REVIEW: Schema = Schema {
    name: "SelfSubjectAccessReview",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

static SELF_SUBJECT_RULES_REVIEW_SPEC: Schema = Schema {
    name: "SelfSubjectRulesReviewSpec",
    fields: &[f(1, "namespace", Ty::Str)],
};

static SELF_SUBJECT_RULES_REVIEW: Schema = Schema {
    name: "SelfSubjectRulesReview",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&SELF_SUBJECT_RULES_REVIEW_SPEC)),
        f(3, "status", Ty::Ignore),
    ],
};

/// The message schemas of objects that are not registry kinds: `authorization.k8s.io/v1`'s
/// self reviews (`kubectl auth can-i` sends them through the typed clientset), by `apiVersion`
/// and `kind` (`k8s.io/api/authorization/v1/generated.proto`).
static REVIEWS: [(&str, &str, &Schema); 2] = [
    (
        authorization::API_VERSION,
        "SelfSubjectAccessReview",
        &SELF_SUBJECT_ACCESS_REVIEW,
    ),
    (
        authorization::API_VERSION,
        "SelfSubjectRulesReview",
        &SELF_SUBJECT_RULES_REVIEW,
    ),
];

static PRECONDITIONS: Schema = Schema {
    name: "Preconditions",
    fields: &[ptr(1, "uid", Ty::Str), ptr(2, "resourceVersion", Ty::Str)],
};

/// `meta/v1` `DeleteOptions` (`k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto`): every
/// field a Go pointer but `dryRun`. `ignoreStoreReadErrorWithClusterBreakingPotential` (6) is
/// not decoded: refused with 415 when set.
static DELETE_OPTIONS: Schema = Schema {
    name: "DeleteOptions",
    fields: &[
        ptr(1, "gracePeriodSeconds", Ty::I64),
        ptr(2, "preconditions", Ty::Msg(&PRECONDITIONS)),
        ptr(3, "orphanDependents", Ty::Bool),
        ptr(4, "propagationPolicy", Ty::Str),
        list(5, "dryRun", Ty::Str),
    ],
};

/// `policy/v1` `Eviction` (`k8s.io/api/policy/v1/generated.proto`), the body of a
/// `pods/eviction` create (`kubectl drain` sends it through the typed clientset).
static EVICTION: Schema = Schema {
    name: "Eviction",
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        ptr(2, "deleteOptions", Ty::Msg(&DELETE_OPTIONS)),
    ],
};

/// The `apiVersion` of an Eviction.
const POLICY_V1: &str = "policy/v1";

/// Whether a document is a `DeleteOptions`: the body of a DELETE, in whatever group version the
/// client's resource has (`metav1.AddToGroupVersion` registers the options in every one: `v1`
/// for pods, `apps/v1` for deployments…).
fn is_delete_options(api_version: &str, kind: &str) -> bool {
    kind == "DeleteOptions" && (api_version == "v1" || api_version.ends_with("/v1"))
}

static TYPE_META: Schema = Schema {
    name: "TypeMeta",
    fields: &[f(1, "apiVersion", Ty::Str), f(2, "kind", Ty::Str)],
};

/// Whether a Content-Type is the protobuf media type.
pub fn is_protobuf(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|c| c.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case(MEDIA_TYPE))
}

/// Decodes a protobuf document into the object's JSON (with `apiVersion` and `kind`).
pub fn to_json(body: &[u8]) -> Result<Value, Error> {
    let rest = body.strip_prefix(MAGIC.as_slice()).ok_or_else(|| {
        Error::Malformed("the protobuf body does not start with the k8s\\0 prefix".into())
    })?;
    let mut type_meta = None;
    let mut raw: Option<&[u8]> = None;
    let mut encoding = "";
    let mut r = Reader::new(rest);
    while let Some((no, wire)) = r.key()? {
        match (no, wire) {
            (1, Wire::Len(b)) => type_meta = Some(decode(b, &TYPE_META)?),
            (2, Wire::Len(b)) => raw = Some(b),
            (3, Wire::Len(b)) => {
                encoding = std::str::from_utf8(b)
                    .map_err(|_| Error::Malformed("contentEncoding is not UTF-8".into()))?
            }
            (4, Wire::Len(_)) => {}
            _ => {
                return Err(Error::Malformed(format!(
                    "unexpected field {no} in runtime.Unknown"
                )))
            }
        }
    }
    if !encoding.is_empty() {
        return Err(Error::Unsupported(format!(
            "the protobuf body's content encoding {encoding:?} is not supported"
        )));
    }
    let meta = type_meta.unwrap_or_default();
    let text = |k: &str| meta.get(k).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion").to_string(), text("kind").to_string());
    let review = REVIEWS
        .iter()
        .find(|(v, k, _)| *v == api_version && *k == kind)
        .map(|(_, _, schema)| *schema);
    let registry_kind = KINDS
        .iter()
        .find(|(k, _)| {
            let r = k.resource();
            r.api_version == api_version && r.kind_name == kind
        })
        .map(|(_, schema)| *schema);
    let options = if is_delete_options(&api_version, &kind) {
        Some(&DELETE_OPTIONS)
    } else if api_version == POLICY_V1 && kind == "Eviction" {
        Some(&EVICTION)
    } else {
        None
    };
    let Some(schema) = registry_kind.or(review).or(options) else {
        let names: Vec<&str> = KINDS
            .iter()
            .map(|(k, _)| k.resource().kind_name)
            .chain(REVIEWS.iter().map(|(_, k, _)| *k))
            .chain(["DeleteOptions", "Eviction"])
            .collect();
        let decoded = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        };
        return Err(Error::Unsupported(format!(
            "watchlab-apiserver decodes protobuf bodies of {decoded} only, not {kind:?} ({api_version}); send it as application/json (kubectl create -f, or --dry-run=client -o json | kubectl create -f -)"
        )));
    };
    let mut object = decode(raw.unwrap_or_default(), schema)?;
    let mut out = Map::new();
    out.insert("apiVersion".into(), Value::String(api_version));
    out.insert("kind".into(), Value::String(kind));
    out.append(&mut object);
    Ok(Value::Object(out))
}

/// A field's payload on the wire.
#[derive(Debug, Clone, Copy)]
enum Wire<'a> {
    Varint(u64),
    Fixed64,
    Len(&'a [u8]),
    Fixed32,
}

struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    fn varint(&mut self) -> Result<u64, Error> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let (&b, rest) = self
                .buf
                .split_first()
                .ok_or_else(|| Error::Malformed("truncated varint".into()))?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error::Malformed("varint longer than 10 bytes".into()))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.buf.len() {
            return Err(Error::Malformed("truncated field".into()));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// The next field number and payload, `None` at the end.
    fn key(&mut self) -> Result<Option<(u32, Wire<'a>)>, Error> {
        if self.buf.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let no = u32::try_from(key >> 3)
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| Error::Malformed(format!("invalid field key {key}")))?;
        let wire = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Wire::Fixed64
            }
            2 => {
                let n = usize::try_from(self.varint()?)
                    .map_err(|_| Error::Malformed("field length out of range".into()))?;
                Wire::Len(self.take(n)?)
            }
            5 => {
                self.take(4)?;
                Wire::Fixed32
            }
            t => return Err(Error::Malformed(format!("unsupported wire type {t}"))),
        };
        Ok(Some((no, wire)))
    }
}

fn utf8(b: &[u8], what: &str) -> Result<String, Error> {
    String::from_utf8(b.to_vec()).map_err(|_| Error::Malformed(format!("{what} is not UTF-8")))
}

fn mismatch(schema: &Schema, field: &Field) -> Error {
    Error::Malformed(format!(
        "field {} ({}) of {} has the wrong wire type",
        field.no, field.name, schema.name
    ))
}

/// Decodes one message into a JSON object.
fn decode(buf: &[u8], schema: &Schema) -> Result<Map<String, Value>, Error> {
    let mut out = Map::new();
    let mut r = Reader::new(buf);
    while let Some((no, wire)) = r.key()? {
        let Some(field) = schema.fields.iter().find(|f| f.no == no) else {
            let empty =
                matches!(wire, Wire::Varint(0)) || matches!(wire, Wire::Len(b) if b.is_empty());
            if empty {
                continue;
            }
            return Err(Error::Unsupported(format!(
                "watchlab-apiserver decodes a subset of the protobuf encoding, and field {no} of {} is set; send the object as application/json (kubectl create -f, or --dry-run=client -o json | kubectl create -f -)",
                schema.name
            )));
        };
        let value = match (field.ty, wire) {
            (Ty::Ignore, _) => continue,
            (Ty::Str, Wire::Len(b)) => Value::String(utf8(b, field.name)?),
            // int32 travels sign-extended to 64 bits.
            (Ty::I32, Wire::Varint(v)) => Value::from(v as i64 as i32),
            (Ty::I64, Wire::Varint(v)) => Value::from(v as i64),
            (Ty::Bool, Wire::Varint(v)) => Value::Bool(v != 0),
            (Ty::Msg(s), Wire::Len(b)) => Value::Object(decode(b, s)?),
            (Ty::Inline(s), Wire::Len(b)) => {
                out.append(&mut decode(b, s)?);
                continue;
            }
            (Ty::StrMap | Ty::BytesMap | Ty::QuantityMap, Wire::Len(b)) => {
                let (k, v) = map_entry(b, field)?;
                let entry = out
                    .entry(field.name)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = entry {
                    m.insert(k, Value::String(v));
                }
                continue;
            }
            (Ty::Time, Wire::Len(b)) => time(b)?,
            (Ty::IntOrString, Wire::Len(b)) => int_or_string(b)?,
            _ => return Err(mismatch(schema, field)),
        };
        if field.repeated {
            let entry = out
                .entry(field.name)
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(a) = entry {
                a.push(value);
            }
        } else if field.keep_zero || !is_zero(&value) {
            out.insert(field.name.to_string(), value);
        } else {
            // A later zero still overrides an earlier value, as protobuf's last-one-wins.
            out.remove(field.name);
        }
    }
    Ok(out)
}

/// Go's `omitempty`: "", 0, false, an empty object, null.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
    }
}

/// A `map<string, V>` entry (key = 1, value = 2) with its value as JSON text: bytes as
/// base64, a Quantity (`{string = 1}`) as its string.
fn map_entry(b: &[u8], field: &Field) -> Result<(String, String), Error> {
    let (mut key, mut value) = (String::new(), String::new());
    if matches!(field.ty, Ty::BytesMap) {
        // An entry without a value is the empty byte string.
        value = config::encode(&[]);
    }
    let mut r = Reader::new(b);
    while let Some((no, wire)) = r.key()? {
        match (no, wire) {
            (1, Wire::Len(k)) => key = utf8(k, field.name)?,
            (2, Wire::Len(v)) if matches!(field.ty, Ty::StrMap) => value = utf8(v, field.name)?,
            (2, Wire::Len(v)) if matches!(field.ty, Ty::BytesMap) => value = config::encode(v),
            (2, Wire::Len(q)) => {
                let mut qr = Reader::new(q);
                while let Some((qn, qw)) = qr.key()? {
                    if let (1, Wire::Len(s)) = (qn, qw) {
                        value = utf8(s, field.name)?;
                    }
                }
            }
            _ => {
                return Err(Error::Malformed(format!(
                    "a {} entry has an unexpected field {no}",
                    field.name
                )))
            }
        }
    }
    Ok((key, value))
}

/// `meta.v1.Time` (`seconds` = 1, `nanos` = 2) as RFC 3339; the zero time is null.
fn time(b: &[u8]) -> Result<Value, Error> {
    let (mut seconds, mut nanos) = (0i64, 0i64);
    let mut r = Reader::new(b);
    while let Some((no, wire)) = r.key()? {
        match (no, wire) {
            (1, Wire::Varint(v)) => seconds = v as i64,
            (2, Wire::Varint(v)) => nanos = i64::from(v as i64 as i32),
            _ => return Err(Error::Malformed("a Time has an unexpected field".into())),
        }
    }
    if seconds == 0 && nanos == 0 {
        return Ok(Value::Null);
    }
    let epoch = watchlab_engine::clock::EPOCH_UNIX_SECONDS as i64;
    if seconds < epoch {
        return Err(Error::Unsupported(format!(
            "the time {seconds} s after 1970 is before the engine's virtual epoch (2026-01-01)"
        )));
    }
    Ok(Value::String(
        Timestamp::from_secs((seconds - epoch) as u64).to_rfc3339(),
    ))
}

/// `intstr.IntOrString` (`type` = 1: 0 int, 1 string; `intVal` = 2; `strVal` = 3).
fn int_or_string(b: &[u8]) -> Result<Value, Error> {
    let (mut ty, mut int, mut text) = (0u64, 0i32, String::new());
    let mut r = Reader::new(b);
    while let Some((no, wire)) = r.key()? {
        match (no, wire) {
            (1, Wire::Varint(v)) => ty = v,
            (2, Wire::Varint(v)) => int = v as i64 as i32,
            (3, Wire::Len(s)) => text = utf8(s, "strVal")?,
            _ => {
                return Err(Error::Malformed(
                    "an IntOrString has an unexpected field".into(),
                ))
            }
        }
    }
    Ok(if ty == 1 {
        Value::String(text)
    } else {
        Value::from(int)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `kubectl create deployment x --image=nginx --replicas=2 --port=80` (v1.32.4) sent,
    /// byte for byte (`-v=9`).
    const CREATE_DEPLOYMENT: &str = "\
        6b 38 73 00 0a 15 0a 07 61 70 70 73 2f 76 31 12 0a 44 65 70 6c 6f 79 6d 65 6e 74 12 b0 01 0a 1b \
        0a 01 78 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 5a 08 0a 03 61 70 70 12 01 78 12 82 01 08 02 \
        12 0a 0a 08 0a 03 61 70 70 12 01 78 1a 6a 0a 1a 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 \
        5a 08 0a 03 61 70 70 12 01 78 12 4c 12 2e 0a 05 6e 67 69 6e 78 12 05 6e 67 69 6e 78 2a 00 32 0a \
        0a 00 10 00 18 50 22 00 2a 00 42 00 6a 00 72 00 80 01 00 88 01 00 90 01 00 a2 01 00 1a 00 32 00 \
        42 00 4a 00 52 00 58 00 60 00 68 00 82 01 00 8a 01 00 9a 01 00 c2 01 00 22 02 0a 00 28 00 38 00 \
        1a 0c 08 00 10 00 18 00 20 00 28 00 38 00 1a 00 22 00";

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    #[test]
    fn kubectl_create_deployment_decodes_to_what_its_json_would_be() {
        let got = to_json(&hex(CREATE_DEPLOYMENT)).unwrap();
        assert_eq!(
            got,
            json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "x", "labels": {"app": "x"}},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "x"}},
                    "template": {
                        "metadata": {"labels": {"app": "x"}},
                        "spec": {"containers": [{
                            "name": "nginx",
                            "image": "nginx",
                            "ports": [{"containerPort": 80}],
                        }]},
                    },
                },
            })
        );
    }

    /// Protobuf encoding helpers for the tests.
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }
    fn len(no: u32, body: &[u8], out: &mut Vec<u8>) {
        varint(u64::from(no) << 3 | 2, out);
        varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }
    fn num(no: u32, v: u64, out: &mut Vec<u8>) {
        varint(u64::from(no) << 3, out);
        varint(v, out);
    }
    fn document(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
        let mut tm = Vec::new();
        len(1, api_version.as_bytes(), &mut tm);
        len(2, kind.as_bytes(), &mut tm);
        let mut out = MAGIC.to_vec();
        len(1, &tm, &mut out);
        len(2, raw, &mut out);
        out
    }

    /// A `name`-only object of every kind the registry serves — a CRD's custom kind included —
    /// either decodes (the kinds with a schema) or is refused as unsupported, the 415 the
    /// server answers with, naming the JSON alternative: no registry kind falls through.
    #[test]
    fn every_registry_kind_is_decoded_or_refused_with_415() {
        use watchlab_apimachinery::client::ApiClient;
        let mut api = watchlab_engine::apiserver::ApiServer::new(1);
        let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
        let created = api.request(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            None,
            Some(&crd.to_string()),
        );
        assert_eq!(created.code, 201, "{}", created.body);
        let kinds = api.registry().kinds().to_vec();
        assert!(kinds.iter().any(|k| k.is_custom()));
        let mut meta = Vec::new();
        len(1, b"sample", &mut meta);
        let mut object = Vec::new();
        len(1, &meta, &mut object);
        for kind in kinds {
            let r = kind.resource();
            let decoded = to_json(&document(r.api_version, r.kind_name, &object));
            if KINDS.iter().any(|(k, _)| *k == kind) {
                let v = decoded.unwrap_or_else(|e| panic!("{kind:?}: {e}"));
                assert_eq!(v["kind"], r.kind_name);
                assert_eq!(v["metadata"]["name"], "sample", "{kind:?}");
            } else {
                match decoded {
                    Err(Error::Unsupported(m)) => {
                        assert!(m.contains("send it as application/json"), "{kind:?}: {m}");
                        let status =
                            watchlab_apimachinery::status::Status::unsupported_media_type(&m);
                        assert_eq!(status.code(), 415);
                    }
                    other => panic!("{kind:?}: {other:?}"),
                }
            }
        }
    }

    /// `kubectl auth can-i create pods` as its typed client encodes it: an empty metadata
    /// message, the resource attributes, an empty status.
    #[test]
    fn self_subject_access_reviews_decode_to_their_json() {
        let mut attrs = Vec::new();
        len(1, b"default", &mut attrs);
        len(2, b"create", &mut attrs);
        len(5, b"pods", &mut attrs);
        let mut spec = Vec::new();
        len(1, &attrs, &mut spec);
        let mut object = Vec::new();
        len(1, b"", &mut object);
        len(2, &spec, &mut object);
        len(3, b"", &mut object);
        let doc = document(
            "authorization.k8s.io/v1",
            "SelfSubjectAccessReview",
            &object,
        );
        let v = to_json(&doc).expect("decodes");
        assert_eq!(
            v,
            serde_json::json!({"apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": {"namespace": "default", "verb": "create",
                                                "resource": "pods"}}})
        );
        let mut rules = Vec::new();
        len(1, b"default", &mut rules);
        let mut object = Vec::new();
        len(2, &rules, &mut object);
        let doc = document("authorization.k8s.io/v1", "SelfSubjectRulesReview", &object);
        assert_eq!(
            to_json(&doc).expect("decodes")["spec"]["namespace"],
            "default"
        );
    }

    #[test]
    fn pointers_keep_zero_times_quantities_and_int_or_string() {
        let mut meta = Vec::new();
        len(1, b"web", &mut meta);
        let mut ts = Vec::new();
        num(1, 1_767_225_600 + 65, &mut ts);
        len(9, &ts, &mut meta);
        let mut q = Vec::new();
        len(1, b"250m", &mut q);
        let mut entry = Vec::new();
        len(1, b"cpu", &mut entry);
        len(2, &q, &mut entry);
        let mut res = Vec::new();
        len(2, &entry, &mut res);
        let mut c = Vec::new();
        len(1, b"c", &mut c);
        len(8, &res, &mut c);
        let mut tol = Vec::new();
        len(1, b"k", &mut tol);
        num(5, (-1i64) as u64, &mut tol);
        let mut spec = Vec::new();
        len(2, &c, &mut spec);
        num(4, 0, &mut spec); // terminationGracePeriodSeconds: 0 (a pointer: kept)
        num(11, 0, &mut spec); // hostNetwork: false (dropped)
        len(22, &tol, &mut spec);
        let mut pod = Vec::new();
        len(1, &meta, &mut pod);
        len(2, &spec, &mut pod);
        len(3, b"\x0a\x07Running", &mut pod); // status: ignored
        let got = to_json(&document("v1", "Pod", &pod)).unwrap();
        assert_eq!(
            got,
            json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "web", "deletionTimestamp": "2026-01-01T00:01:05Z"},
                "spec": {
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "250m"}}}],
                    "terminationGracePeriodSeconds": 0,
                    "tolerations": [{"key": "k", "tolerationSeconds": -1}],
                },
            })
        );
        let mut ru = Vec::new();
        let mut pct = Vec::new();
        num(1, 1, &mut pct);
        len(3, b"25%", &mut pct);
        len(1, &pct, &mut ru);
        let mut two = Vec::new();
        num(2, 2, &mut two);
        len(2, &two, &mut ru);
        let mut strategy = Vec::new();
        len(1, b"RollingUpdate", &mut strategy);
        len(2, &ru, &mut strategy);
        let mut dspec = Vec::new();
        num(1, 0, &mut dspec); // replicas: 0 (a pointer: kept)
        len(4, &strategy, &mut dspec);
        let mut d = Vec::new();
        len(2, &dspec, &mut d);
        let got = to_json(&document("apps/v1", "Deployment", &d)).unwrap();
        assert_eq!(
            got["spec"],
            json!({"replicas": 0, "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 2}}})
        );
    }

    /// A DELETE's `DeleteOptions`, in the group version of the resource deleted, with a zero
    /// grace period kept (a pointer) and the preconditions, and an Eviction carrying them.
    #[test]
    fn delete_options_and_evictions_decode_to_their_json() {
        let mut pre = Vec::new();
        len(1, b"u-1", &mut pre);
        len(2, b"42", &mut pre);
        let mut opts = Vec::new();
        num(1, 0, &mut opts);
        len(2, &pre, &mut opts);
        num(3, 0, &mut opts);
        len(4, b"Background", &mut opts);
        len(5, b"All", &mut opts);
        let expected = json!({"gracePeriodSeconds": 0,
            "preconditions": {"uid": "u-1", "resourceVersion": "42"},
            "orphanDependents": false, "propagationPolicy": "Background", "dryRun": ["All"]});
        for api_version in ["v1", "apps/v1", "meta.k8s.io/v1"] {
            let mut want = json!({"apiVersion": api_version, "kind": "DeleteOptions"});
            want.as_object_mut()
                .unwrap()
                .extend(expected.as_object().unwrap().clone());
            assert_eq!(
                to_json(&document(api_version, "DeleteOptions", &opts)).unwrap(),
                want
            );
        }
        // What a grace-period-less `kubectl drain --disable-eviction` sends: nothing set.
        assert_eq!(
            to_json(&document("v1", "DeleteOptions", &[])).unwrap(),
            json!({"apiVersion": "v1", "kind": "DeleteOptions"})
        );
        let mut meta = Vec::new();
        len(1, b"web-1", &mut meta);
        len(3, b"default", &mut meta);
        let mut eviction = Vec::new();
        len(1, &meta, &mut eviction);
        len(2, &opts, &mut eviction);
        assert_eq!(
            to_json(&document("policy/v1", "Eviction", &eviction)).unwrap(),
            json!({"apiVersion": "policy/v1", "kind": "Eviction",
                "metadata": {"name": "web-1", "namespace": "default"},
                "deleteOptions": expected})
        );
        // The options' field 6 (ignoreStoreReadErrorWithClusterBreakingPotential) is refused.
        let mut unsafe_delete = Vec::new();
        num(6, 1, &mut unsafe_delete);
        assert!(matches!(
            to_json(&document("v1", "DeleteOptions", &unsafe_delete)),
            Err(Error::Unsupported(m)) if m.contains("field 6 of DeleteOptions")
        ));
    }

    /// The pod `kubectl debug node/node-a --image=busybox` builds (legacy profile: the node's
    /// `/` at `/host`, the host's namespaces, every taint tolerated), and an ephemeral
    /// container with its target, as the typed client encodes them.
    #[test]
    fn node_debugger_pods_and_ephemeral_containers_decode_to_their_json() {
        let mut host_path = Vec::new();
        len(1, b"/", &mut host_path);
        let mut source = Vec::new();
        len(1, &host_path, &mut source);
        let mut volume = Vec::new();
        len(1, b"host-root", &mut volume);
        len(2, &source, &mut volume);
        let mut mount = Vec::new();
        len(1, b"host-root", &mut mount);
        num(2, 0, &mut mount);
        len(3, b"/host", &mut mount);
        let mut caps = Vec::new();
        len(1, b"SYS_PTRACE", &mut caps);
        let mut security = Vec::new();
        len(1, &caps, &mut security);
        let mut c = Vec::new();
        len(1, b"debugger", &mut c);
        len(2, b"busybox", &mut c);
        len(8, b"", &mut c);
        len(9, &mount, &mut c);
        len(15, &security, &mut c);
        num(16, 0, &mut c);
        num(18, 1, &mut c);
        len(20, b"File", &mut c);
        let mut tol = Vec::new();
        len(2, b"Exists", &mut tol);
        let mut spec = Vec::new();
        len(1, &volume, &mut spec);
        len(2, &c, &mut spec);
        len(3, b"Never", &mut spec);
        len(10, b"node-a", &mut spec);
        num(11, 1, &mut spec);
        num(12, 1, &mut spec);
        num(13, 1, &mut spec);
        len(22, &tol, &mut spec);
        let mut ec = Vec::new();
        len(1, &c, &mut ec);
        len(2, b"app", &mut ec);
        len(34, &ec, &mut spec);
        let mut meta = Vec::new();
        len(1, b"node-debugger-node-a-x7k2p", &mut meta);
        let mut pod = Vec::new();
        len(1, &meta, &mut pod);
        len(2, &spec, &mut pod);
        let container = json!({"name": "debugger", "image": "busybox",
            "volumeMounts": [{"name": "host-root", "mountPath": "/host"}],
            "securityContext": {"capabilities": {"add": ["SYS_PTRACE"]}},
            "tty": true, "terminationMessagePolicy": "File"});
        let mut ephemeral = container.clone();
        ephemeral["targetContainerName"] = json!("app");
        assert_eq!(
            to_json(&document("v1", "Pod", &pod)).unwrap(),
            json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "node-debugger-node-a-x7k2p"},
            "spec": {
                "volumes": [{"name": "host-root", "hostPath": {"path": "/"}}],
                "containers": [container],
                "restartPolicy": "Never", "nodeName": "node-a",
                "hostNetwork": true, "hostPID": true, "hostIPC": true,
                "tolerations": [{"operator": "Exists"}],
                "ephemeralContainers": [ephemeral],
            }})
        );
    }

    #[test]
    fn what_is_not_decoded_is_refused_not_dropped() {
        // An affinity (PodSpec field 18) is set.
        let mut spec = Vec::new();
        len(18, b"\x0a\x00", &mut spec);
        let mut pod = Vec::new();
        len(2, &spec, &mut pod);
        let err = to_json(&document("v1", "Pod", &pod)).unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported(m) if m.contains("field 18 of PodSpec")),
            "{err:?}"
        );
        // A volume whose source is not a hostPath (an emptyDir, VolumeSource field 2).
        let mut volume = Vec::new();
        len(1, b"scratch", &mut volume);
        len(2, b"\x12\x02\x0a\x00", &mut volume);
        let mut spec = Vec::new();
        len(1, &volume, &mut spec);
        let mut pod = Vec::new();
        len(2, &spec, &mut pod);
        let err = to_json(&document("v1", "Pod", &pod)).unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported(m) if m.contains("field 2 of VolumeSource")),
            "{err:?}"
        );
        // Empty unknown fields (as Go writes them) pass.
        let mut spec = Vec::new();
        len(15, b"", &mut spec);
        num(27, 0, &mut spec);
        let mut pod = Vec::new();
        len(2, &spec, &mut pod);
        assert!(to_json(&document("v1", "Pod", &pod)).is_ok());
        let err = to_json(&document("v1", "Endpoints", &[])).unwrap_err();
        assert!(matches!(&err, Error::Unsupported(m) if m.contains("\"Endpoints\"")));
        assert!(matches!(
            to_json(b"{\"kind\":\"Pod\"}"),
            Err(Error::Malformed(_))
        ));
    }

    /// What `kubectl create configmap cm1 --from-literal=k=v --from-literal=b=2` (v1.32.4) sent.
    const CREATE_CONFIGMAP: &str = "\
        6b 38 73 00 0a 0f 0a 02 76 31 12 09 43 6f 6e 66 69 67 4d 61 70 12 25 0a 13 0a 03 63 6d 31 \
        12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 06 0a 01 62 12 01 32 12 06 0a 01 6b 12 01 76 \
        1a 00 22 00";

    /// What `kubectl create secret generic s1 --from-literal=k=v` (v1.32.4) sent: the value
    /// travels as raw bytes, JSON has it as base64.
    const CREATE_SECRET: &str = "\
        6b 38 73 00 0a 0c 0a 02 76 31 12 06 53 65 63 72 65 74 12 1e 0a 12 0a 02 73 31 12 00 1a 00 \
        22 00 2a 00 32 00 38 00 42 00 12 06 0a 01 6b 12 01 76 1a 00 1a 00 22 00";

    #[test]
    fn kubectl_create_configmap_and_secret_decode_to_what_their_json_would_be() {
        assert_eq!(
            to_json(&hex(CREATE_CONFIGMAP)).unwrap(),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm1"},
                "data": {"b": "2", "k": "v"}})
        );
        assert_eq!(
            to_json(&hex(CREATE_SECRET)).unwrap(),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s1"},
                "data": {"k": "dg=="}})
        );
    }

    #[test]
    fn bytes_maps_are_base64_and_immutable_false_is_kept() {
        let entry = |k: &[u8], v: Option<&[u8]>| {
            let mut e = Vec::new();
            len(1, k, &mut e);
            if let Some(v) = v {
                len(2, v, &mut e);
            }
            e
        };
        let mut cm = Vec::new();
        len(2, &entry(b"plain", Some(b"text")), &mut cm);
        len(3, &entry(b"bin", Some(&[0xff, 0x00, 0xfe])), &mut cm);
        len(3, &entry(b"empty", None), &mut cm);
        num(4, 0, &mut cm); // immutable: false (a pointer: kept)
        assert_eq!(
            to_json(&document("v1", "ConfigMap", &cm)).unwrap(),
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                "data": {"plain": "text"}, "binaryData": {"bin": "/wD+", "empty": ""},
                "immutable": false})
        );
        let mut secret = Vec::new();
        len(
            2,
            &entry(b"tls.key", Some(b"\x00\x01\x02\x03")),
            &mut secret,
        );
        len(3, b"kubernetes.io/tls", &mut secret);
        len(4, &entry(b"tls.crt", Some(b"pem")), &mut secret);
        num(5, 1, &mut secret);
        assert_eq!(
            to_json(&document("v1", "Secret", &secret)).unwrap(),
            json!({"apiVersion": "v1", "kind": "Secret", "data": {"tls.key": "AAECAw=="},
                "type": "kubernetes.io/tls", "stringData": {"tls.crt": "pem"}, "immutable": true})
        );
        // A string map's value must be UTF-8; a bytes map's need not be.
        let mut bad = Vec::new();
        len(2, &entry(b"k", Some(&[0xff])), &mut bad);
        assert!(matches!(
            to_json(&document("v1", "ConfigMap", &bad)),
            Err(Error::Malformed(_))
        ));
    }

    /// What `kubectl create pdb web3 --selector=app=web --max-unavailable=1` (v1.32.4) sent
    /// (`-v=9`): an int `maxUnavailable`, and a status of zero counts.
    const CREATE_PDB_MAX_UNAVAILABLE: &str = "\
        6b 38 73 00 0a 20 0a 09 70 6f 6c 69 63 79 2f 76 31 12 13 50 6f 64 44 69 73 72 75 70 74 69 \
        6f 6e 42 75 64 67 65 74 12 3a 0a 14 0a 04 77 65 62 33 12 00 1a 00 22 00 2a 00 32 00 38 00 \
        42 00 12 16 12 0c 0a 0a 0a 03 61 70 70 12 03 77 65 62 1a 06 08 00 10 01 1a 00 1a 0a 08 00 \
        18 00 20 00 28 00 30 00 1a 00 22 00";

    /// What `kubectl create pdb web4 --selector=app=web --min-available=50%` (v1.32.4) sent.
    const CREATE_PDB_MIN_AVAILABLE: &str = "\
        6b 38 73 00 0a 20 0a 09 70 6f 6c 69 63 79 2f 76 31 12 13 50 6f 64 44 69 73 72 75 70 74 69 \
        6f 6e 42 75 64 67 65 74 12 3d 0a 14 0a 04 77 65 62 34 12 00 1a 00 22 00 2a 00 32 00 38 00 \
        42 00 12 19 0a 09 08 01 10 00 1a 03 35 30 25 12 0c 0a 0a 0a 03 61 70 70 12 03 77 65 62 1a \
        0a 08 00 18 00 20 00 28 00 30 00 1a 00 22 00";

    /// `kubectl create pdb` with either bound decodes to its `--dry-run=client -o json` without
    /// the status; a zero bound, an empty selector (every pod in policy/v1) and the unhealthy-pod
    /// policy are pointers, kept as sent.
    #[test]
    fn kubectl_create_pdb_decodes_to_what_its_json_would_be() {
        let selector = json!({"matchLabels": {"app": "web"}});
        assert_eq!(
            to_json(&hex(CREATE_PDB_MAX_UNAVAILABLE)).unwrap(),
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "web3"},
                "spec": {"selector": selector, "maxUnavailable": 1}})
        );
        assert_eq!(
            to_json(&hex(CREATE_PDB_MIN_AVAILABLE)).unwrap(),
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "web4"},
                "spec": {"minAvailable": "50%", "selector": selector}})
        );
        let mut zero = Vec::new();
        num(1, 0, &mut zero);
        num(2, 0, &mut zero);
        let mut spec = Vec::new();
        len(1, &zero, &mut spec);
        len(2, &[], &mut spec);
        len(4, b"AlwaysAllow", &mut spec);
        let mut pdb = Vec::new();
        len(2, &spec, &mut pdb);
        assert_eq!(
            to_json(&document("policy/v1", "PodDisruptionBudget", &pdb)).unwrap(),
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "spec": {"minAvailable": 0, "selector": {},
                    "unhealthyPodEvictionPolicy": "AlwaysAllow"}})
        );
        // A spec field this schema does not know is refused, never dropped.
        let mut unknown = Vec::new();
        len(9, b"x", &mut unknown);
        let mut pdb = Vec::new();
        len(2, &unknown, &mut pdb);
        assert!(matches!(
            to_json(&document("policy/v1", "PodDisruptionBudget", &pdb)),
            Err(Error::Unsupported(m)) if m.contains("field 9 of PodDisruptionBudgetSpec")
        ));
    }

    /// What `kubectl create job j1 --image=busybox` (v1.32.4) sent (`-v=9`): the template, an
    /// empty status.
    const CREATE_JOB: &str = "\
        6b 38 73 00 0a 0f 0a 08 62 61 74 63 68 2f 76 31 12 03 4a 6f 62 12 7a 0a 12 0a 02 6a 31 12 \
        00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 5a 32 58 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 \
        00 38 00 42 00 12 44 12 21 0a 02 6a 31 12 07 62 75 73 79 62 6f 78 2a 00 42 00 6a 00 72 00 \
        80 01 00 88 01 00 90 01 00 a2 01 00 1a 05 4e 65 76 65 72 32 00 42 00 4a 00 52 00 58 00 60 \
        00 68 00 82 01 00 8a 01 00 9a 01 00 c2 01 00 1a 08 20 00 28 00 30 00 3a 00 1a 00 22 00";

    /// What `kubectl create job j2 --image=busybox -- echo hi there` (v1.32.4) sent.
    const CREATE_JOB_COMMAND: &str = "\
        6b 38 73 00 0a 0f 0a 08 62 61 74 63 68 2f 76 31 12 03 4a 6f 62 12 8b 01 0a 12 0a 02 6a 32 \
        12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 6b 32 69 0a 10 0a 00 12 00 1a 00 22 00 2a 00 \
        32 00 38 00 42 00 12 55 12 32 0a 02 6a 32 12 07 62 75 73 79 62 6f 78 1a 04 65 63 68 6f 1a \
        02 68 69 1a 05 74 68 65 72 65 2a 00 42 00 6a 00 72 00 80 01 00 88 01 00 90 01 00 a2 01 00 \
        1a 05 4e 65 76 65 72 32 00 42 00 4a 00 52 00 58 00 60 00 68 00 82 01 00 8a 01 00 9a 01 00 \
        c2 01 00 1a 08 20 00 28 00 30 00 3a 00 1a 00 22 00";

    /// What `kubectl create cronjob c1 --image=busybox --schedule='*/1 * * * *'` (v1.32.4)
    /// sent: the job template named after the CronJob, an empty `concurrencyPolicy`.
    const CREATE_CRONJOB: &str = "\
        6b 38 73 00 0a 13 0a 08 62 61 74 63 68 2f 76 31 12 07 43 72 6f 6e 4a 6f 62 12 9e 01 0a 12 \
        0a 02 63 31 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 85 01 0a 0b 2a 2f 31 20 2a 20 2a \
        20 2a 20 2a 1a 00 2a 74 0a 12 0a 02 63 31 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 5e \
        32 5c 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 48 12 21 0a 02 63 31 12 07 \
        62 75 73 79 62 6f 78 2a 00 42 00 6a 00 72 00 80 01 00 88 01 00 90 01 00 a2 01 00 1a 09 4f \
        6e 46 61 69 6c 75 72 65 32 00 42 00 4a 00 52 00 58 00 60 00 68 00 82 01 00 8a 01 00 9a 01 \
        00 c2 01 00 1a 00 1a 00 22 00";

    /// What `kubectl create job manual --from=cronjob/tick` (v1.32.4) sent for a CronJob made by
    /// `kubectl create cronjob tick`: the CronJob as owner, the `instantiate` annotation, and
    /// its job template's spec as the server stored it (the pod spec defaulted, the JobSpec not).
    const CREATE_JOB_FROM_CRONJOB: &str = "\
        6b 38 73 00 0a 0f 0a 08 62 61 74 63 68 2f 76 31 12 03 4a 6f 62 12 9b 02 0a 86 01 0a 06 6d \
        61 6e 75 61 6c 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 62 2b 0a 21 63 72 6f 6e 6a 6f 62 \
        2e 6b 75 62 65 72 6e 65 74 65 73 2e 69 6f 2f 69 6e 73 74 61 6e 74 69 61 74 65 12 06 6d 61 \
        6e 75 61 6c 6a 41 0a 07 43 72 6f 6e 4a 6f 62 1a 04 74 69 63 6b 22 24 31 37 38 66 32 38 38 \
        65 2d 32 31 65 30 2d 34 66 63 37 2d 61 34 66 32 2d 37 35 66 63 65 38 39 65 36 39 61 32 2a \
        08 62 61 74 63 68 2f 76 31 30 01 12 85 01 32 82 01 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 \
        00 38 00 42 00 12 6e 12 34 0a 04 74 69 63 6b 12 0c 62 75 73 79 62 6f 78 3a 31 2e 33 36 2a \
        00 42 00 6a 00 72 0c 49 66 4e 6f 74 50 72 65 73 65 6e 74 80 01 00 88 01 00 90 01 00 a2 01 \
        00 1a 09 4f 6e 46 61 69 6c 75 72 65 20 1e 32 00 42 00 4a 00 52 00 58 00 60 00 68 00 82 01 \
        00 8a 01 00 9a 01 11 64 65 66 61 75 6c 74 2d 73 63 68 65 64 75 6c 65 72 c2 01 00 1a 08 20 \
        00 28 00 30 00 3a 00 1a 00 22 00";

    #[test]
    fn kubectl_create_job_from_a_cronjob_decodes_with_its_owner() {
        assert_eq!(
            to_json(&hex(CREATE_JOB_FROM_CRONJOB)).unwrap(),
            json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "manual",
                    "annotations": {"cronjob.kubernetes.io/instantiate": "manual"},
                    "ownerReferences": [{"kind": "CronJob", "name": "tick",
                        "uid": "178f288e-21e0-4fc7-a4f2-75fce89e69a2",
                        "apiVersion": "batch/v1", "controller": true}]},
                "spec": {"template": {"spec": {
                    "containers": [{"name": "tick", "image": "busybox:1.36",
                        "imagePullPolicy": "IfNotPresent"}],
                    "restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 30,
                    "schedulerName": "default-scheduler"}}}})
        );
    }

    /// `kubectl create job` and `create cronjob` decode to their `--dry-run=client -o json`
    /// without the status (and without the empty `metadata`/`resources` Go's JSON prints).
    #[test]
    fn kubectl_create_job_and_cronjob_decode_to_what_their_json_would_be() {
        let pod = |name: &str, restart: &str| {
            json!({"spec": {"containers": [{"name": name, "image": "busybox"}],
                "restartPolicy": restart}})
        };
        assert_eq!(
            to_json(&hex(CREATE_JOB)).unwrap(),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j1"},
                "spec": {"template": pod("j1", "Never")}})
        );
        let mut with_command = pod("j2", "Never");
        with_command["spec"]["containers"][0]["command"] = json!(["echo", "hi", "there"]);
        assert_eq!(
            to_json(&hex(CREATE_JOB_COMMAND)).unwrap(),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j2"},
                "spec": {"template": with_command}})
        );
        assert_eq!(
            to_json(&hex(CREATE_CRONJOB)).unwrap(),
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c1"},
                "spec": {"schedule": "*/1 * * * *", "jobTemplate": {
                    "metadata": {"name": "c1"},
                    "spec": {"template": pod("c1", "OnFailure")}}}})
        );
    }

    /// A Job spec's pointers keep their zeros (`suspend: false`, `backoffLimit: 0`), and its
    /// pod failure and success policies decode with their rules; a CronJob's zero history
    /// limits and its time zone are kept, an empty `concurrencyPolicy` is not.
    #[test]
    fn job_and_cronjob_pointers_and_policies_decode_as_sent() {
        let mut exit_codes = Vec::new();
        len(1, b"main", &mut exit_codes);
        len(2, b"In", &mut exit_codes);
        num(3, 42, &mut exit_codes);
        num(3, 43, &mut exit_codes);
        let mut fail_job = Vec::new();
        len(1, b"FailJob", &mut fail_job);
        len(2, &exit_codes, &mut fail_job);
        let mut pattern = Vec::new();
        len(1, b"DisruptionTarget", &mut pattern);
        len(2, b"", &mut pattern);
        let mut ignore = Vec::new();
        len(1, b"Ignore", &mut ignore);
        len(3, &pattern, &mut ignore);
        let mut failure = Vec::new();
        len(1, &fail_job, &mut failure);
        len(1, &ignore, &mut failure);
        let mut success_rule = Vec::new();
        len(1, b"0-2", &mut success_rule);
        num(2, 1, &mut success_rule);
        let mut success = Vec::new();
        len(1, &success_rule, &mut success);
        let mut spec = Vec::new();
        num(1, 2, &mut spec);
        num(2, 3, &mut spec);
        num(7, 0, &mut spec); // backoffLimit: 0, a pointer
        len(9, b"Indexed", &mut spec);
        num(10, 0, &mut spec); // suspend: false, a pointer
        len(11, &failure, &mut spec);
        len(16, &success, &mut spec);
        let mut job = Vec::new();
        len(2, &spec, &mut job);
        assert_eq!(
            to_json(&document("batch/v1", "Job", &job)).unwrap()["spec"],
            json!({"parallelism": 2, "completions": 3, "backoffLimit": 0,
                "completionMode": "Indexed", "suspend": false,
                "podFailurePolicy": {"rules": [
                    {"action": "FailJob", "onExitCodes":
                        {"containerName": "main", "operator": "In", "values": [42, 43]}},
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                ]},
                "successPolicy": {"rules": [{"succeededIndexes": "0-2", "succeededCount": 1}]}})
        );
        let mut template = Vec::new();
        len(2, &spec, &mut template);
        let mut cron = Vec::new();
        len(1, b"0 3 * * *", &mut cron);
        len(3, b"", &mut cron);
        len(5, &template, &mut cron);
        num(6, 0, &mut cron);
        num(7, 0, &mut cron);
        len(8, b"Europe/Paris", &mut cron);
        let mut cronjob = Vec::new();
        len(2, &cron, &mut cronjob);
        let got = to_json(&document("batch/v1", "CronJob", &cronjob)).unwrap();
        assert_eq!(got["spec"]["schedule"], "0 3 * * *");
        assert!(got["spec"].get("concurrencyPolicy").is_none(), "{got}");
        assert_eq!(got["spec"]["successfulJobsHistoryLimit"], 0);
        assert_eq!(got["spec"]["failedJobsHistoryLimit"], 0);
        assert_eq!(got["spec"]["timeZone"], "Europe/Paris");
        assert_eq!(got["spec"]["jobTemplate"]["spec"]["completions"], 3);
        // A JobSpec field this schema does not know (a future 17) is refused, never dropped.
        let mut unknown = Vec::new();
        len(17, b"x", &mut unknown);
        let mut job = Vec::new();
        len(2, &unknown, &mut job);
        assert!(matches!(
            to_json(&document("batch/v1", "Job", &job)),
            Err(Error::Unsupported(m)) if m.contains("field 17 of JobSpec")
        ));
    }

    /// What `kubectl create service clusterip svc1 --tcp=80:8080` (v1.32.4) sent.
    const CREATE_SERVICE: &str = "\
        6b 38 73 00 0a 0d 0a 02 76 31 12 07 53 65 72 76 69 63 65 12 6c 0a 21 0a 04 73 76 63 31 12 \
        00 1a 00 22 00 2a 00 32 00 38 00 42 00 5a 0b 0a 03 61 70 70 12 04 73 76 63 31 12 43 0a 1b \
        0a 07 38 30 2d 38 30 38 30 12 03 54 43 50 18 50 22 07 08 00 10 90 3f 1a 00 28 00 12 0b 0a \
        03 61 70 70 12 04 73 76 63 31 1a 00 22 09 43 6c 75 73 74 65 72 49 50 3a 00 42 00 52 00 5a \
        00 60 00 68 00 1a 02 0a 00 1a 00 22 00";

    #[test]
    fn kubectl_create_service_decodes_to_what_its_json_would_be() {
        // `--dry-run=client -o json` of the same command, without the status.
        assert_eq!(
            to_json(&hex(CREATE_SERVICE)).unwrap(),
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "svc1", "labels": {"app": "svc1"}},
            "spec": {
                "ports": [{"name": "80-8080", "protocol": "TCP", "port": 80,
                    "targetPort": 8080}],
                "selector": {"app": "svc1"},
                "type": "ClusterIP",
            }})
        );
        // A pointer or a field without omitempty keeps its zero: `port: 0` reaches validation.
        let mut port = Vec::new();
        num(3, 0, &mut port);
        let mut spec = Vec::new();
        len(1, &port, &mut spec);
        len(3, b"None", &mut spec);
        num(20, 0, &mut spec);
        let mut svc = Vec::new();
        len(2, &spec, &mut svc);
        assert_eq!(
            to_json(&document("v1", "Service", &svc)).unwrap()["spec"],
            json!({"ports": [{"port": 0}], "clusterIP": "None",
                "allocateLoadBalancerNodePorts": false})
        );
    }

    #[test]
    fn probes_decode_with_their_handler_inline() {
        // livenessProbe: httpGet /healthz on 8080 with a header, its numbers.
        let mut int_port = Vec::new();
        num(2, 8080, &mut int_port);
        let mut header = Vec::new();
        len(1, b"X-Probe", &mut header);
        len(2, b"", &mut header);
        let mut http_get = Vec::new();
        len(1, b"/healthz", &mut http_get);
        len(2, &int_port, &mut http_get);
        len(5, &header, &mut http_get);
        let mut handler = Vec::new();
        len(2, &http_get, &mut handler);
        let mut liveness = Vec::new();
        len(1, &handler, &mut liveness);
        num(2, 5, &mut liveness);
        num(3, 1, &mut liveness);
        num(4, 10, &mut liveness);
        num(5, 1, &mut liveness);
        num(6, 3, &mut liveness);
        // readinessProbe: tcpSocket on the named port "http"; initialDelaySeconds 0 dropped.
        let mut named = Vec::new();
        num(1, 1, &mut named);
        len(3, b"http", &mut named);
        let mut tcp = Vec::new();
        len(1, &named, &mut tcp);
        let mut handler = Vec::new();
        len(3, &tcp, &mut handler);
        let mut readiness = Vec::new();
        len(1, &handler, &mut readiness);
        num(2, 0, &mut readiness);
        // startupProbe: exec; grpc elsewhere would keep its `port: 0`.
        let mut exec = Vec::new();
        len(1, b"cat", &mut exec);
        len(1, b"/tmp/ready", &mut exec);
        let mut handler = Vec::new();
        len(1, &exec, &mut handler);
        let mut startup = Vec::new();
        len(1, &handler, &mut startup);
        num(6, 30, &mut startup);
        num(7, 0, &mut startup); // terminationGracePeriodSeconds: a pointer, kept
        let mut grpc_handler = Vec::new();
        len(4, &[0x08, 0x00], &mut grpc_handler);
        let mut grpc = Vec::new();
        len(1, &grpc_handler, &mut grpc);
        let mut c = Vec::new();
        len(1, b"web", &mut c);
        len(10, &liveness, &mut c);
        len(11, &readiness, &mut c);
        len(22, &startup, &mut c);
        let mut c2 = Vec::new();
        len(1, b"side", &mut c2);
        len(11, &grpc, &mut c2);
        let mut spec = Vec::new();
        len(2, &c, &mut spec);
        len(2, &c2, &mut spec);
        let mut pod = Vec::new();
        len(2, &spec, &mut pod);
        assert_eq!(
            to_json(&document("v1", "Pod", &pod)).unwrap()["spec"]["containers"],
            json!([{
                "name": "web",
                "livenessProbe": {
                    "httpGet": {"path": "/healthz", "port": 8080,
                        "httpHeaders": [{"name": "X-Probe", "value": ""}]},
                    "initialDelaySeconds": 5, "timeoutSeconds": 1, "periodSeconds": 10,
                    "successThreshold": 1, "failureThreshold": 3,
                },
                "readinessProbe": {"tcpSocket": {"port": "http"}},
                "startupProbe": {"exec": {"command": ["cat", "/tmp/ready"]},
                    "failureThreshold": 30, "terminationGracePeriodSeconds": 0},
            }, {
                "name": "side",
                "readinessProbe": {"grpc": {"port": 0}},
            }])
        );
    }

    #[test]
    fn truncated_or_garbage_input_is_an_error_never_a_panic() {
        for captured in [
            CREATE_DEPLOYMENT,
            CREATE_CONFIGMAP,
            CREATE_SECRET,
            CREATE_SERVICE,
            CREATE_JOB,
            CREATE_CRONJOB,
            CREATE_JOB_FROM_CRONJOB,
        ] {
            let full = hex(captured);
            for cut in 0..full.len() {
                let _ = to_json(&full[..cut]);
            }
        }
        let full = hex(CREATE_DEPLOYMENT);
        let mut x: u64 = 7;
        for _ in 0..2000 {
            let mut doc = MAGIC.to_vec();
            for _ in 0..64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                doc.push(x as u8);
            }
            let _ = to_json(&doc);
        }
        let mut flipped = full.clone();
        for i in 4..flipped.len() {
            flipped[i] ^= 0x5a;
            let _ = to_json(&flipped);
            flipped[i] ^= 0x5a;
        }
    }

    #[test]
    fn the_media_type_is_recognized() {
        assert!(is_protobuf(Some("application/vnd.kubernetes.protobuf")));
        assert!(is_protobuf(Some(
            "application/vnd.kubernetes.protobuf; charset=x"
        )));
        assert!(!is_protobuf(Some("application/json")));
        assert!(!is_protobuf(None));
    }
}
