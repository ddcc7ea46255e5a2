//! `apiextensions.k8s.io/v1` CustomResourceDefinition: the object that teaches the API server a
//! new resource. Only the fields watchlab serves from (group, names, scope, the versions with
//! their schema, status subresource and printer columns) and the status the establishing
//! controllers write (accepted names, `NamesAccepted` and `Established`), with their real JSON
//! names.

use super::meta::ObjectMeta;
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinition {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CrdSpec,
    #[serde(default)]
    pub status: CrdStatus,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdSpec {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub names: CrdNames,
    /// `Namespaced` or `Cluster`.
    #[serde(default)]
    pub scope: String,
    #[serde(default)]
    pub versions: Vec<CrdVersion>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdNames {
    /// `plural` and `kind` are written even when empty (not `omitempty` in the Go type; the
    /// official clients refuse `acceptedNames` without them).
    #[serde(default)]
    pub plural: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub singular: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub list_kind: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdVersion {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub served: bool,
    #[serde(default)]
    pub storage: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<CrdValidation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subresources: Option<CrdSubresources>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_printer_columns: Vec<PrinterColumn>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CrdValidation {
    #[serde(rename = "openAPIV3Schema", default)]
    pub open_api_v3_schema: Value,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CrdSubresources {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Value>,
}

/// `additionalPrinterColumns[]`: a Table column read at a JSONPath.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrinterColumn {
    #[serde(default)]
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub format: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub priority: i32,
    #[serde(default)]
    pub json_path: String,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<CrdCondition>,
    #[serde(default)]
    pub accepted_names: CrdNames,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stored_versions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdCondition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: String,
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

impl CustomResourceDefinition {
    /// The version objects are served and stored at (the one marked `storage`).
    pub fn storage_version(&self) -> Option<&CrdVersion> {
        self.spec.versions.iter().find(|v| v.storage && v.served)
    }

    /// Whether the `Established` condition is True.
    pub fn is_established(&self) -> bool {
        self.status
            .conditions
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True")
    }
}
