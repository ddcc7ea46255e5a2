//! `v1.Node`: a machine the scheduler places pods on and whose kubelet heartbeats its Ready
//! condition (the node-c failure story of the seeds turns on that condition going Unknown).

use super::meta::{skip_false, ConditionStatus, ObjectMeta};
use super::pod::ResourceList;
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: NodeSpec,
    #[serde(default)]
    pub status: NodeStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSpec {
    #[serde(default, rename = "podCIDR", skip_serializing_if = "String::is_empty")]
    pub pod_cidr: String,
    #[serde(default, skip_serializing_if = "skip_false")]
    pub unschedulable: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
}

/// `node.kubernetes.io/not-ready`: the node's Ready condition is False (`v1.TaintNodeNotReady`).
pub const TAINT_NOT_READY: &str = "node.kubernetes.io/not-ready";
/// `node.kubernetes.io/unreachable`: the node's Ready condition is Unknown
/// (`v1.TaintNodeUnreachable`).
pub const TAINT_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `node.kubernetes.io/unschedulable`, tolerated by the NodeUnschedulable filter.
pub const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
/// The taint effects (`v1.TaintEffect`).
pub const NO_SCHEDULE: &str = "NoSchedule";
pub const NO_EXECUTE: &str = "NoExecute";

/// `v1.Taint` (`effect` NoSchedule|PreferNoSchedule|NoExecute).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    pub key: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub effect: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub time_added: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    #[serde(
        default,
        skip_serializing_if = "ResourceList::is_empty",
        with = "super::resource_list"
    )]
    pub capacity: ResourceList,
    #[serde(
        default,
        skip_serializing_if = "ResourceList::is_empty",
        with = "super::resource_list"
    )]
    pub allocatable: ResourceList,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<NodeCondition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<NodeAddress>,
    /// Shared between a node's versions (it changes only when the machine does), which also
    /// keeps a `Node` no larger than a `Pod` in the [`super::Object`] enum.
    #[serde(default)]
    pub node_info: Arc<NodeSystemInfo>,
}

/// `v1.NodeCondition` (Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: ConditionStatus,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_heartbeat_time: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_transition_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// `v1.NodeAddress` (`type` InternalIP, Hostname...).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAddress {
    #[serde(rename = "type")]
    pub type_: String,
    pub address: String,
}

/// `v1.NodeSystemInfo`: all ten fields are required and written even when empty (none is
/// `omitempty` in the Go type), so the official clients' models, which refuse a Node whose
/// `nodeInfo` lacks one, can read every Node.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSystemInfo {
    #[serde(rename = "machineID")]
    pub machine_id: String,
    #[serde(rename = "systemUUID")]
    pub system_uuid: String,
    #[serde(rename = "bootID")]
    pub boot_id: String,
    pub kernel_version: String,
    pub os_image: String,
    pub container_runtime_version: String,
    pub kubelet_version: String,
    /// Deprecated (KEP-4004); the v1.32 kubelet still writes its own version here, since the
    /// `DisableNodeKubeProxyVersion` gate defaults to false from v1.31.1 on.
    pub kube_proxy_version: String,
    pub operating_system: String,
    pub architecture: String,
}

impl Node {
    pub fn condition(&self, type_: &str) -> Option<&NodeCondition> {
        self.status.conditions.iter().find(|c| c.type_ == type_)
    }
}
