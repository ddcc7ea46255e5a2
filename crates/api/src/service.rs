//! `v1.Service`: a stable virtual IP (and optionally a port on every node) in front of the pods
//! its selector picks. The API server allocates `clusterIP` and `nodePort`s
//! (`watchlab_engine::apiserver`'s service allocation); the EndpointSlice controller follows the
//! selected pods and kube-proxy maps the ClusterIP to their addresses.

use super::apps::IntOrString;
use super::meta::ObjectMeta;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ServiceSpec,
    #[serde(default)]
    pub status: ServiceStatus,
}

/// `clusterIP: None`: a headless Service (no virtual IP; DNS answers the pods themselves).
pub const CLUSTER_IP_NONE: &str = "None";

/// The Service types (`v1.ServiceType`), sorted as validation lists them.
pub const SERVICE_TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
pub const TYPE_CLUSTER_IP: &str = "ClusterIP";
pub const TYPE_NODE_PORT: &str = "NodePort";
pub const TYPE_LOAD_BALANCER: &str = "LoadBalancer";
pub const TYPE_EXTERNAL_NAME: &str = "ExternalName";

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ServicePort>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub selector: BTreeMap<String, String>,
    #[serde(
        default,
        rename = "clusterIP",
        skip_serializing_if = "String::is_empty"
    )]
    pub cluster_ip: String,
    #[serde(default, rename = "clusterIPs", skip_serializing_if = "Vec::is_empty")]
    pub cluster_ips: Vec<String>,
    #[serde(default, rename = "type", skip_serializing_if = "String::is_empty")]
    pub type_: String,
    #[serde(default, rename = "externalIPs", skip_serializing_if = "Vec::is_empty")]
    pub external_ips: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session_affinity: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub external_name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub external_traffic_policy: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_not_ready_addresses: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ip_families: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_family_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_traffic_policy: Option<String>,
}

impl ServiceSpec {
    /// Whether the Service has no virtual IP (`clusterIP: None`).
    pub fn is_headless(&self) -> bool {
        self.cluster_ip == CLUSTER_IP_NONE
    }

    /// Whether the Service wants a port on every node (`NodePort` and `LoadBalancer`).
    pub fn needs_node_ports(&self) -> bool {
        self.type_ == TYPE_NODE_PORT || self.type_ == TYPE_LOAD_BALANCER
    }
}

/// `v1.ServicePort`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePort {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_protocol: Option<String>,
    #[serde(default)]
    pub port: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub node_port: i32,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// `v1.ServiceStatus`: always present (`{"loadBalancer": {}}`), as the real server writes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceStatus {
    #[serde(default)]
    pub load_balancer: LoadBalancerStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ingress: Vec<LoadBalancerIngress>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerIngress {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ip: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hostname: String,
}
