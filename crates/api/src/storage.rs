//! Storage: PersistentVolumeClaim (a pod's request for a volume, core/v1, namespaced),
//! PersistentVolume (a volume of the cluster, core/v1, cluster-scoped) and StorageClass (how
//! volumes are provisioned and when they bind, storage.k8s.io/v1). watchlab stores no data:
//! a volume is a name, a capacity and the node it lives on, which is what the scheduler, the
//! StatefulSet controller and a learner's `kubectl get pvc,pv` need.

use super::meta::{ObjectMeta, ObjectReference};
use super::pod::{NodeSelector, ResourceList};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The annotation that makes a StorageClass the default (`storageutil.IsDefaultAnnotation`).
pub const IS_DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";
/// The node a WaitForFirstConsumer claim is to be provisioned on, set by the scheduler
/// (`volume.kubernetes.io/selected-node`).
pub const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The provisioner a claim waits for (`volume.kubernetes.io/storage-provisioner`, and its
/// beta form), set by the PV controller.
pub const STORAGE_PROVISIONER: &str = "volume.kubernetes.io/storage-provisioner";
pub const BETA_STORAGE_PROVISIONER: &str = "volume.beta.kubernetes.io/storage-provisioner";
/// The PV controller's annotations on a bound pair (`pv.kubernetes.io/bind-completed`,
/// `pv.kubernetes.io/bound-by-controller`, `pv.kubernetes.io/provisioned-by`).
pub const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
pub const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
pub const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
/// The protection finalizers (`kubernetes.io/pvc-protection`, `kubernetes.io/pv-protection`).
pub const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";
pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// The class every cluster starts with (kind's), and the provisioner that serves it.
pub const STANDARD_STORAGE_CLASS: &str = "standard";
pub const LOCAL_PATH_PROVISIONER: &str = "rancher.io/local-path";

/// `volumeBindingMode` values.
pub const IMMEDIATE: &str = "Immediate";
pub const WAIT_FOR_FIRST_CONSUMER: &str = "WaitForFirstConsumer";

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolumeClaim {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PersistentVolumeClaimSpec,
    #[serde(default)]
    pub status: PersistentVolumeClaimStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolumeClaimSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<super::meta::LabelSelector>,
    #[serde(default)]
    pub resources: VolumeResourceRequirements,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub volume_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
}

/// `v1.VolumeResourceRequirements` (`requests.storage`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeResourceRequirements {
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

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolumeClaimStatus {
    /// Pending, Bound or Lost.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "super::resource_list"
    )]
    pub capacity: ResourceList,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolume {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PersistentVolumeSpec,
    #[serde(default)]
    pub status: PersistentVolumeStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolumeSpec {
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "super::resource_list"
    )]
    pub capacity: ResourceList,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_ref: Option<ObjectReference>,
    /// Retain (the default), Delete or Recycle.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub persistent_volume_reclaim_policy: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub storage_class_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
    /// The nodes the volume can be reached from (a local volume: its one node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<VolumeNodeAffinity>,
    /// The one modelled source: a directory of a node (what a local-path provisioner makes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_path: Option<super::pod::HostPathVolumeSource>,
}

/// `v1.VolumeNodeAffinity`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeNodeAffinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<NodeSelector>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentVolumeStatus {
    /// Pending, Available, Bound, Released or Failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_phase_transition_time: Option<Timestamp>,
}

/// `storage.k8s.io/v1` StorageClass: no spec/status split, its fields at the top level.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageClass {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub provisioner: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaim_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mount_options: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_volume_expansion: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_binding_mode: Option<String>,
}

impl StorageClass {
    /// Whether the class carries the default-class annotation set to `true`.
    pub fn is_default(&self) -> bool {
        self.metadata
            .annotations
            .get(IS_DEFAULT_CLASS)
            .is_some_and(|v| v == "true")
    }
}
