//! The parts every object shares (`metav1.ObjectMeta`, owner references, label selectors,
//! object references), with the JSON names and omit-empty rules of `k8s.io/apimachinery`.

use super::managed_fields::ManagedFields;
use super::shared::{sharable_vec, Shared, StringMap};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use watchlab_apimachinery::labels::{LabelSelector as Selector, Labels};

fn is_false(b: &bool) -> bool {
    !*b
}

/// An object's owners, shared between its versions (a pod's owner reference is written once,
/// when its ReplicaSet creates it).
pub type OwnerReferences = Shared<Vec<OwnerReference>>;

sharable_vec!(OwnerReference);

/// `metav1.ObjectMeta`, reduced to the fields the control plane uses.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Shared between the versions of an object (and a ReplicaSet's pods share its own).
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub generate_name: Arc<str>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub creation_timestamp: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub deletion_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "StringMap::is_empty")]
    pub labels: StringMap,
    #[serde(default, skip_serializing_if = "StringMap::is_empty")]
    pub annotations: StringMap,
    #[serde(default, skip_serializing_if = "OwnerReferences::is_empty")]
    pub owner_references: OwnerReferences,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// Who set which fields ([`ManagedFields`]), kept by the API server on every write.
    #[serde(default, skip_serializing_if = "ManagedFields::is_empty")]
    pub managed_fields: ManagedFields,
}

impl ObjectMeta {
    /// Metadata with just a namespace and a name (the usual start of a new object).
    pub fn named(namespace: &str, name: &str) -> Self {
        ObjectMeta {
            namespace: namespace.to_string(),
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// The controller owner reference, if any (`metav1.GetControllerOf`).
    pub fn controller_ref(&self) -> Option<&OwnerReference> {
        self.owner_references
            .iter()
            .find(|r| r.controller == Some(true))
    }
}

/// Whether `a` and `b` hold the same metadata as far as the field manager tracks it (all but
/// the fields it strips, [`super::managed_fields::stripped`]). Every field is named, so a field
/// added to `ObjectMeta` must be placed here.
pub fn same_tracked_meta(a: &ObjectMeta, b: &ObjectMeta) -> bool {
    let ObjectMeta {
        name: _,
        generate_name,
        namespace: _,
        uid: _,
        resource_version: _,
        generation: _,
        creation_timestamp: _,
        deletion_timestamp,
        deletion_grace_period_seconds,
        labels,
        annotations,
        owner_references,
        finalizers,
        managed_fields: _,
    } = a;
    *generate_name == b.generate_name
        && *deletion_timestamp == b.deletion_timestamp
        && *deletion_grace_period_seconds == b.deletion_grace_period_seconds
        && *labels == b.labels
        && *annotations == b.annotations
        && *owner_references == b.owner_references
        && *finalizers == b.finalizers
}

/// `metav1.OwnerReference`: who owns this object (garbage collection, controller adoption).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// `metav1.LabelSelector` as it appears in specs (`matchLabels` + `matchExpressions`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: Labels,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry (`operator`: In, NotIn, Exists, DoesNotExist).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

impl LabelSelector {
    /// `metav1.LabelSelectorAsSelector`: the selector this spec field describes.
    pub fn to_selector(&self) -> Result<Selector, String> {
        let exprs: Vec<(String, String, Vec<String>)> = self
            .match_expressions
            .iter()
            .map(|e| (e.key.clone(), e.operator.clone(), e.values.clone()))
            .collect();
        Selector::from_label_selector(&self.match_labels, &exprs)
    }

    /// True when neither labels nor expressions are given (matches nothing in a workload spec).
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// Go's `%#v` rendering, which the real validation messages print.
    pub fn go_syntax(&self) -> String {
        let labels = if self.match_labels.is_empty() {
            "map[string]string(nil)".to_string()
        } else {
            go_string_map(&self.match_labels)
        };
        let exprs = if self.match_expressions.is_empty() {
            "[]v1.LabelSelectorRequirement(nil)".to_string()
        } else {
            let items: Vec<String> = self
                .match_expressions
                .iter()
                .map(|e| {
                    let vals: Vec<String> = e.values.iter().map(|v| format!("{v:?}")).collect();
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{:?}, Operator:{:?}, Values:[]string{{{}}}}}",
                        e.key,
                        e.operator,
                        vals.join(", ")
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
        };
        format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{exprs}}}")
    }
}

/// Go's `%#v` of a `map[string]string` (keys sorted, as fmt prints maps).
pub fn go_string_map(m: &BTreeMap<String, String>) -> String {
    let items: Vec<String> = m.iter().map(|(k, v)| format!("{k:?}:{v:?}")).collect();
    format!("map[string]string{{{}}}", items.join(", "))
}

/// `v1.ObjectReference` (Event.involvedObject, Binding.target).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    /// Terms: an object's kind and apiVersion are the registry's literals, borrowed in every
    /// Event's reference rather than allocated.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub kind: Term,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub api_version: Term,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field_path: String,
}

/// A string that is nearly always one of a few literals (a pod condition's type and status,
/// written into every version of every pod): a literal is borrowed, not allocated each time;
/// anything else, such as a value read from JSON, is owned.
pub type Term = std::borrow::Cow<'static, str>;

/// `ConditionStatus`: "True", "False" or "Unknown".
pub type ConditionStatus = String;

pub(crate) fn skip_false(b: &bool) -> bool {
    is_false(b)
}
