//! `nodes` (core/v1, cluster-scoped, stored under the historical `/registry/minions/`): the
//! machines the kubelets register.

use super::{bool_text, conditions_merge_key};
use crate::api::resource::{ResourceInfo, Rules};
use crate::api::validation::TAINT_EFFECTS;
use crate::api::{Node, Object};
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
    printer_columns: &[],
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
}
