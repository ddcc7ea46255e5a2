//! `discovery.k8s.io/v1` EndpointSlice: one slice of a Service's backends (at most 100 endpoints
//! each by default), written by the EndpointSlice controller and read by every kube-proxy.

use super::meta::{ObjectMeta, ObjectReference};
use serde::{Deserialize, Serialize};

/// `kubernetes.io/service-name`: the Service a slice belongs to (`discoveryv1.LabelServiceName`).
pub const LABEL_SERVICE_NAME: &str = "kubernetes.io/service-name";
/// `endpointslice.kubernetes.io/managed-by` (`discoveryv1.LabelManagedBy`).
pub const LABEL_MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
/// The EndpointSlice controller's value of [`LABEL_MANAGED_BY`].
pub const MANAGED_BY_CONTROLLER: &str = "endpointslice-controller.k8s.io";
/// The address types (`discoveryv1.AddressType`).
pub const ADDRESS_TYPES: &[&str] = &["FQDN", "IPv4", "IPv6"];

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointSlice {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub address_type: String,
    #[serde(default)]
    pub endpoints: Vec<Endpoint>,
    #[serde(default)]
    pub ports: Vec<EndpointPort>,
}

/// `discoveryv1.Endpoint`: one backend.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    #[serde(default)]
    pub addresses: Vec<String>,
    #[serde(default)]
    pub conditions: EndpointConditions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ref: Option<ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
}

/// `discoveryv1.EndpointConditions`: `ready` (serving and not terminating), `serving` (the
/// pod's Ready condition), `terminating` (deletionTimestamp set).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointConditions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serving: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminating: Option<bool>,
}

/// `discoveryv1.EndpointPort` (every field optional, unlike the core one).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointPort {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_protocol: Option<String>,
}
