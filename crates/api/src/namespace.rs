//! `v1.Namespace`: the scope namespaced objects live in; creating into a missing one is refused.
//! Every namespace carries the `kubernetes` finalizer in `spec.finalizers` (set on create), so a
//! delete only marks it Terminating; the namespace controller empties it, records how that went
//! in `status.conditions`, and removes the finalizer through `/finalize`.

use super::meta::{ConditionStatus, ObjectMeta};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};

/// `v1.FinalizerKubernetes`: the namespace controller's finalizer in `spec.finalizers`.
pub const FINALIZER_KUBERNETES: &str = "kubernetes";
/// `v1.NamespaceActive` / `v1.NamespaceTerminating`.
pub const PHASE_ACTIVE: &str = "Active";
pub const PHASE_TERMINATING: &str = "Terminating";

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Namespace {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: NamespaceSpec,
    #[serde(default)]
    pub status: NamespaceStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

/// `phase`: Active or Terminating; `conditions` while it terminates.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceStatus {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<NamespaceCondition>,
}

/// `v1.NamespaceCondition`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: ConditionStatus,
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

impl Namespace {
    /// Whether it is being deleted.
    pub fn is_terminating(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }
}
