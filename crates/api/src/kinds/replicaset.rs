//! `replicasets` (apps/v1): a pod template and a count, owned by a Deployment.

use super::workload_merge_key;
use crate::printer::{
    self, column, containers_and_images, selector_string, text, Column, AGE, NAME,
};
use crate::resource::{ResourceInfo, Rules};
use crate::{defaults, validation, Kind, Object};
use serde_json::{json, Value};
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{at, int};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 3,
    kind_name: "ReplicaSet",
    list_kind: "ReplicaSetList",
    go_type: "v1.ReplicaSet",
    plural: "replicasets",
    singular: "replicaset",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["rs"],
    categories: &["all"],
    subresources: &["status", "scale"],
    registry: "replicasets",
    field_labels: &["metadata.name", "metadata.namespace", "status.replicas"],
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[Kind::Deployment],
    schema_root: "V1ReplicaSet",
    atomic_maps: &[&["spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &ReplicaSetRules,
};

struct ReplicaSetRules;

impl Rules for ReplicaSetRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::ReplicaSet)
    }

    fn empty(&self) -> Object {
        Object::ReplicaSet(Box::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let rs = obj.as_replica_set()?;
        match field {
            "status.replicas" => Some(rs.status.replicas.to_string()),
            _ => None,
        }
    }

    fn default(&self, obj: &mut Object) {
        if let Object::ReplicaSet(rs) = obj {
            rs.spec.replicas.get_or_insert(1);
            defaults::pod_spec(&mut rs.spec.template.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(rs) = obj.as_replica_set() else {
            return Vec::new();
        };
        let mut errs = validation::replicas(rs.spec.replicas);
        errs.extend(validation::selector_and_template(
            rs.spec.selector.as_ref(),
            &rs.spec.template,
        ));
        errs
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_replica_set(), old.as_replica_set()) {
            (Some(n), Some(o)) => {
                validation::immutable_selector(n.spec.selector.as_ref(), o.spec.selector.as_ref())
            }
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::ReplicaSet(rs) = obj {
            rs.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::ReplicaSet(n), Object::ReplicaSet(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::ReplicaSet(o), Object::ReplicaSet(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::ReplicaSet(n), Object::ReplicaSet(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        workload_merge_key(path)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printReplicaSet`'s columns (pkg/printers/internalversion `replicaSetColumnDefinitions`).
const COLUMNS: [Column; 8] = [
    NAME,
    column("Desired", "integer", 0),
    column("Current", "integer", 0),
    column("Ready", "integer", 0),
    AGE,
    column("Containers", "string", 1),
    column("Images", "string", 1),
    column("Selector", "string", 1),
];

/// `printReplicaSet`'s cells.
fn row(rs: &Value, now_unix_ms: i64) -> Vec<Value> {
    let (containers, images) = containers_and_images(rs);
    vec![
        printer::name(rs),
        json!(int(rs, &["spec", "replicas"])),
        json!(int(rs, &["status", "replicas"])),
        json!(int(rs, &["status", "readyReplicas"])),
        printer::age(rs, now_unix_ms),
        containers,
        images,
        text(selector_string(at(rs, &["spec", "selector"]))),
    ]
}
