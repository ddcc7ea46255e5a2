//! `storageclasses` (storage.k8s.io/v1, cluster-scoped): how volumes of a class are
//! provisioned (`provisioner`, `parameters`), reclaimed and when a claim binds (`Immediate`,
//! or `WaitForFirstConsumer`: once a pod using it is scheduled). watchlab's clusters start
//! with one default class, `standard`, as kind's. Defaults follow `SetDefaults_StorageClass`,
//! validation pkg/apis/storage/validation `ValidateStorageClass(Update)`.

use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::storage::{IMMEDIATE, IS_DEFAULT_CLASS, WAIT_FOR_FIRST_CONSUMER};
use crate::Object;
use serde_json::{json, Value};
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{at, str_at, string};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 21,
    kind_name: "StorageClass",
    list_kind: "StorageClassList",
    go_type: "v1.StorageClass",
    plural: "storageclasses",
    singular: "storageclass",
    group: "storage.k8s.io",
    version: "v1",
    api_version: "storage.k8s.io/v1",
    namespaced: false,
    short_names: &["sc"],
    categories: &[],
    subresources: &[],
    registry: "storageclasses",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1StorageClass",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &ClassRules,
};

/// The beta form of the default-class annotation, still honoured.
const BETA_IS_DEFAULT_CLASS: &str = "storageclass.beta.kubernetes.io/is-default-class";

struct ClassRules;

impl Rules for ClassRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(|c| Object::StorageClass(Box::new(c)))
    }

    fn empty(&self) -> Object {
        Object::StorageClass(Box::default())
    }

    /// `SetDefaults_StorageClass`: reclaim `Delete`, bind `Immediate`.
    fn default(&self, obj: &mut Object) {
        if let Object::StorageClass(c) = obj {
            c.reclaim_policy.get_or_insert_with(|| "Delete".into());
            c.volume_binding_mode
                .get_or_insert_with(|| IMMEDIATE.into());
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(c) = obj.as_storage_class() else {
            return Vec::new();
        };
        let mut errs = Vec::new();
        if c.provisioner.is_empty() {
            errs.push(FieldError::required("provisioner", ""));
        }
        let policies = ["Delete", "Retain"];
        if let Some(p) = c
            .reclaim_policy
            .as_deref()
            .filter(|p| !policies.contains(p))
        {
            errs.push(FieldError::not_supported("reclaimPolicy", p, &policies));
        }
        let modes = [IMMEDIATE, WAIT_FOR_FIRST_CONSUMER];
        if let Some(m) = c
            .volume_binding_mode
            .as_deref()
            .filter(|m| !modes.contains(m))
        {
            errs.push(FieldError::not_supported("volumeBindingMode", m, &modes));
        }
        errs
    }

    /// `ValidateStorageClassUpdate`: parameters, provisioner, reclaim policy and binding mode
    /// are fixed at creation.
    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let (Some(n), Some(o)) = (new.as_storage_class(), old.as_storage_class()) else {
            return Vec::new();
        };
        let mut errs = Vec::new();
        if n.parameters != o.parameters {
            errs.push(FieldError::forbidden(
                "parameters",
                "updates to parameters are forbidden.",
            ));
        }
        if n.provisioner != o.provisioner {
            errs.push(FieldError::forbidden(
                "provisioner",
                "updates to provisioner are forbidden.",
            ));
        }
        if n.reclaim_policy != o.reclaim_policy {
            errs.push(FieldError::forbidden(
                "reclaimPolicy",
                "updates to reclaimPolicy are forbidden.",
            ));
        }
        if n.volume_binding_mode != o.volume_binding_mode {
            errs.push(FieldError::invalid(
                "volumeBindingMode",
                n.volume_binding_mode.clone().unwrap_or_default(),
                "field is immutable",
            ));
        }
        errs
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        new != old
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        let default = [IS_DEFAULT_CLASS, BETA_IS_DEFAULT_CLASS]
            .iter()
            .any(|a| str_at(obj, &["metadata", "annotations", a]) == Some("true"));
        let mut name = string(obj, &["metadata", "name"]);
        if default {
            name.push_str(" (default)");
        }
        vec![
            text(name),
            text(string(obj, &["provisioner"])),
            text(str_at(obj, &["reclaimPolicy"]).unwrap_or("Delete")),
            text(str_at(obj, &["volumeBindingMode"]).unwrap_or(IMMEDIATE)),
            json!(at(obj, &["allowVolumeExpansion"])
                .and_then(Value::as_bool)
                .unwrap_or(false)),
            printer::age(obj, now_unix_ms),
        ]
    }
}

/// `printStorageClass`'s columns.
const COLUMNS: [Column; 6] = [
    NAME,
    column("Provisioner", "string", 0),
    column("ReclaimPolicy", "string", 0),
    column("VolumeBindingMode", "string", 0),
    column("AllowVolumeExpansion", "string", 0),
    AGE,
];
