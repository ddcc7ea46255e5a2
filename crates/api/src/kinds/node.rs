//! `nodes` (core/v1, cluster-scoped, stored under the historical `/registry/minions/`): the
//! machines the kubelets register.

use super::{bool_text, conditions_merge_key};
use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::validation::TAINT_EFFECTS;
use crate::{Node, Object};
use serde_json::Value;
pub use watchlab_apimachinery::labels::node_roles;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, at, str_at, string};
use watchlab_apimachinery::validation::{is_qualified_name, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 1,
    kind_name: "Node",
    list_kind: "NodeList",
    go_type: "v1.Node",
    plural: "nodes",
    singular: "node",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: false,
    short_names: &["no"],
    categories: &[],
    subresources: &["status"],
    registry: "minions",
    field_labels: &["metadata.name", "metadata.namespace", "spec.unschedulable"],
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1Node",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &NodeRules,
};

struct NodeRules;

impl Rules for NodeRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Node)
    }

    fn empty(&self) -> Object {
        Object::Node(Node::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let n = obj.as_node()?;
        match field {
            "spec.unschedulable" => Some(bool_text(n.spec.unschedulable)),
            _ => None,
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let Some(n) = obj.as_node() else {
            return errs;
        };
        for (i, t) in n.spec.taints.iter().enumerate() {
            let f = format!("spec.taints[{i}]");
            errs.extend(
                is_qualified_name(&t.key)
                    .iter()
                    .map(|m| FieldError::invalid(&format!("{f}.key"), &t.key, m)),
            );
            if !TAINT_EFFECTS.contains(&t.effect.as_str()) {
                errs.push(FieldError::not_supported(
                    &format!("{f}.effect"),
                    &t.effect,
                    TAINT_EFFECTS,
                ));
            }
        }
        errs
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Node(n), Object::Node(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Node(o), Object::Node(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::Node(n), Object::Node(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        match path {
            ["spec", "taints"] => Some("key"),
            ["status", "addresses"] => Some("type"),
            _ => conditions_merge_key(path),
        }
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printNode`'s columns (pkg/printers/internalversion `nodeColumnDefinitions`).
const COLUMNS: [Column; 10] = [
    NAME,
    column("Status", "string", 0),
    column("Roles", "string", 0),
    AGE,
    column("Version", "string", 0),
    column("Internal-IP", "string", 1),
    column("External-IP", "string", 1),
    column("OS-Image", "string", 1),
    column("Kernel-Version", "string", 1),
    column("Container-Runtime", "string", 1),
];

/// A node's STATUS: `Ready`/`NotReady`/`Unknown` from the Ready condition, plus
/// `SchedulingDisabled` when cordoned.
pub fn node_status(node: &Value) -> String {
    let ready = array(node, &["status", "conditions"])
        .iter()
        .find(|c| str_at(c, &["type"]) == Some("Ready"));
    let mut status = match ready {
        Some(c) if str_at(c, &["status"]) == Some("True") => vec!["Ready"],
        Some(_) => vec!["NotReady"],
        None => vec!["Unknown"],
    };
    if at(node, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    status.join(",")
}

/// `printNode`'s cells.
fn row(node: &Value, now_unix_ms: i64) -> Vec<Value> {
    let address = |kind: &str| {
        array(node, &["status", "addresses"])
            .iter()
            .find(|a| str_at(a, &["type"]) == Some(kind))
            .map(|a| string(a, &["address"]))
            .unwrap_or_else(|| "<none>".into())
    };
    let info = |field: &str| {
        let v = string(node, &["status", "nodeInfo", field]);
        text(if v.is_empty() { "<unknown>".into() } else { v })
    };
    vec![
        printer::name(node),
        text(node_status(node)),
        text(node_roles(node)),
        printer::age(node, now_unix_ms),
        text(string(node, &["status", "nodeInfo", "kubeletVersion"])),
        text(address("InternalIP")),
        text(address("ExternalIP")),
        info("osImage"),
        info("kernelVersion"),
        info("containerRuntimeVersion"),
    ]
}
