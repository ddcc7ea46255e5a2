//! `controllerrevisions` (apps/v1): a workload's saved template at a revision number, written
//! by the DaemonSet controller (and read by `kubectl rollout history|undo`). Validation follows
//! pkg/apis/apps/validation `ValidateControllerRevision(Update)`: the data is required and
//! immutable, the revision not negative.

use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::{Kind, Object};
use serde_json::{json, Value};
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, int, str_at};
use watchlab_apimachinery::validation::{BadValue, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 17,
    kind_name: "ControllerRevision",
    list_kind: "ControllerRevisionList",
    go_type: "v1.ControllerRevision",
    plural: "controllerrevisions",
    singular: "controllerrevision",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &[],
    categories: &[],
    subresources: &[],
    registry: "controllerrevisions",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[Kind::DaemonSet, Kind::StatefulSet],
    schema_root: "V1ControllerRevision",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &ControllerRevisionRules,
};

struct ControllerRevisionRules;

impl Rules for ControllerRevisionRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::ControllerRevision)
    }

    fn empty(&self) -> Object {
        Object::ControllerRevision(Box::default())
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(rev) = obj.as_controller_revision() else {
            return Vec::new();
        };
        let mut errs = Vec::new();
        if rev.data.is_none() {
            errs.push(FieldError::required("data", "data is mandatory"));
        }
        if rev.revision < 0 {
            errs.push(FieldError::invalid(
                "revision",
                rev.revision,
                "must be greater than or equal to 0",
            ));
        }
        errs
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_controller_revision(), old.as_controller_revision()) {
            (Some(n), Some(o)) if n.data != o.data => vec![FieldError::invalid(
                "data",
                BadValue::Verbatim("runtime.RawExtension{...}".into()),
                "field is immutable",
            )],
            _ => Vec::new(),
        }
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::ControllerRevision(n), Object::ControllerRevision(o))
            if n.data != o.data || n.revision != o.revision)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        vec![
            printer::name(obj),
            text(controller(obj)),
            json!(int(obj, &["revision"])),
            printer::age(obj, now_unix_ms),
        ]
    }
}

/// `printControllerRevision`'s columns.
const COLUMNS: [Column; 4] = [
    NAME,
    column("Controller", "string", 0),
    column("Revision", "integer", 0),
    AGE,
];

/// The CONTROLLER cell: the controller owner as `kind.group/name` (`daemonset.apps/fluentd`),
/// `<none>` without one.
fn controller(obj: &Value) -> String {
    let owners = array(obj, &["metadata", "ownerReferences"]);
    let Some(owner) = owners
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))
    else {
        return "<none>".into();
    };
    let kind = str_at(owner, &["kind"]).unwrap_or("").to_lowercase();
    let group = str_at(owner, &["apiVersion"])
        .and_then(|v| v.split_once('/'))
        .map_or("", |(g, _)| g);
    let name = str_at(owner, &["name"]).unwrap_or("");
    if group.is_empty() {
        format!("{kind}/{name}")
    } else {
        format!("{kind}.{group}/{name}")
    }
}
