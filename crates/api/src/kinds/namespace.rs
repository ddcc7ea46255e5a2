//! `namespaces` (core/v1, cluster-scoped): the only kind whose names are DNS labels. Its strategy
//! puts the `kubernetes` finalizer on every new namespace, and only the `finalize` subresource
//! changes `spec.finalizers` afterwards (`pkg/registry/core/namespace/strategy.go`).

use super::conditions_merge_key;
use crate::namespace::{FINALIZER_KUBERNETES, PHASE_ACTIVE};
use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::{Namespace, Object};
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::string;
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 0,
    kind_name: "Namespace",
    list_kind: "NamespaceList",
    go_type: "v1.Namespace",
    plural: "namespaces",
    singular: "namespace",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: false,
    short_names: &["ns"],
    categories: &[],
    subresources: &["status", "finalize"],
    registry: "namespaces",
    field_labels: &["metadata.name", "metadata.namespace", "status.phase"],
    dns_label_names: true,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: true,
    delete_collection: false,
    controller_owners: &[],
    schema_root: "V1Namespace",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &NamespaceRules,
};

struct NamespaceRules;

fn namespace(obj: &Object) -> Option<&Namespace> {
    match obj {
        Object::Namespace(n) => Some(n),
        _ => None,
    }
}

impl Rules for NamespaceRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Namespace)
    }

    fn empty(&self) -> Object {
        Object::Namespace(Namespace::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let n = namespace(obj)?;
        match field {
            "status.phase" => Some(n.status.phase.clone()),
            _ => None,
        }
    }

    fn default(&self, obj: &mut Object) {
        if let Object::Namespace(ns) = obj {
            // Since v1.21 every namespace carries its own name as a label.
            let name = ns.metadata.name.clone();
            if !name.is_empty() {
                ns.metadata
                    .labels
                    .insert("kubernetes.io/metadata.name".into(), name);
            }
        }
    }

    fn validate(&self, _obj: &Object) -> Vec<FieldError> {
        Vec::new()
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::Namespace(ns) = obj {
            ns.status.phase = PHASE_ACTIVE.into();
            ns.status.conditions.clear();
            // "on create, we require the kubernetes value" (namespaceStrategy.PrepareForCreate).
            if !ns.spec.finalizers.iter().any(|f| f == FINALIZER_KUBERNETES) {
                ns.spec.finalizers.push(FINALIZER_KUBERNETES.into());
            }
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Namespace(n), Object::Namespace(o)) = (new, old) {
            n.status.clone_from(&o.status);
            // PrepareForUpdate: spec.finalizers changes only through `/finalize`.
            n.spec.finalizers.clone_from(&o.spec.finalizers);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Namespace(o), Object::Namespace(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::Namespace(n), Object::Namespace(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        conditions_merge_key(path)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printNamespace`'s columns.
const COLUMNS: [Column; 3] = [NAME, column("Status", "string", 0), AGE];

/// `printNamespace`'s cells.
fn row(ns: &Value, now_unix_ms: i64) -> Vec<Value> {
    vec![
        printer::name(ns),
        text(string(ns, &["status", "phase"])),
        printer::age(ns, now_unix_ms),
    ]
}
