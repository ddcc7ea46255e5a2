//! `deployments` (apps/v1): the rollout of a pod template through ReplicaSets it owns.

use super::workload_merge_key;
use crate::printer::{
    self, column, containers_and_images, selector_string, text, Column, AGE, NAME,
};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::{defaults, validation, Object};
use serde_json::{json, Value};
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{at, int};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 4,
    kind_name: "Deployment",
    list_kind: "DeploymentList",
    go_type: "v1.Deployment",
    plural: "deployments",
    singular: "deployment",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["deploy"],
    categories: &["all"],
    subresources: &["status", "scale"],
    registry: "deployments",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1Deployment",
    atomic_maps: &[&["spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &DeploymentRules,
};

struct DeploymentRules;

impl Rules for DeploymentRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Deployment)
    }

    fn empty(&self) -> Object {
        Object::Deployment(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::Deployment(d) = obj {
            defaults::deployment_spec(&mut d.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_deployment()
            .map(|d| validation::deployment_spec(&d.spec))
            .unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_deployment(), old.as_deployment()) {
            (Some(n), Some(o)) => {
                validation::immutable_selector(n.spec.selector.as_ref(), o.spec.selector.as_ref())
            }
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::Deployment(d) = obj {
            d.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Deployment(n), Object::Deployment(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Deployment(o), Object::Deployment(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::Deployment(n), Object::Deployment(o)) if n.spec != o.spec)
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

/// `printDeployment`'s columns (pkg/printers/internalversion `deploymentColumnDefinitions`).
const COLUMNS: [Column; 8] = [
    NAME,
    column("Ready", "string", 0),
    column("Up-to-date", "integer", 0),
    column("Available", "integer", 0),
    AGE,
    column("Containers", "string", 1),
    column("Images", "string", 1),
    column("Selector", "string", 1),
];

/// `printDeployment`'s cells.
fn row(d: &Value, now_unix_ms: i64) -> Vec<Value> {
    let (containers, images) = containers_and_images(d);
    vec![
        printer::name(d),
        text(format!(
            "{}/{}",
            int(d, &["status", "readyReplicas"]),
            int(d, &["spec", "replicas"])
        )),
        json!(int(d, &["status", "updatedReplicas"])),
        json!(int(d, &["status", "availableReplicas"])),
        printer::age(d, now_unix_ms),
        containers,
        images,
        text(selector_string(at(d, &["spec", "selector"]))),
    ]
}
