//! `persistentvolumes` (core/v1, cluster-scoped): a volume of the cluster, made by hand or by
//! a provisioner for a claim. Defaults follow `SetDefaults_PersistentVolume`, validation
//! pkg/apis/core/validation `ValidatePersistentVolume(Update)`; a new volume is `Pending`
//! until the PV controller makes it `Available` (the strategy's `PrepareForCreate`).

use super::persistentvolumeclaim::{access_modes_text, phase, ACCESS_MODES};
use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::Object;
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, str_at};
use watchlab_apimachinery::validation::{BadValue, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 20,
    kind_name: "PersistentVolume",
    list_kind: "PersistentVolumeList",
    go_type: "v1.PersistentVolume",
    plural: "persistentvolumes",
    singular: "persistentvolume",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: false,
    short_names: &["pv"],
    categories: &[],
    subresources: &["status"],
    registry: "persistentvolumes",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1PersistentVolume",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &VolumeRules,
};

/// `persistentVolumeReclaimPolicy` values.
const RECLAIM_POLICIES: [&str; 3] = ["Delete", "Recycle", "Retain"];

struct VolumeRules;

impl Rules for VolumeRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(|v| Object::PersistentVolume(Box::new(v)))
    }

    fn empty(&self) -> Object {
        Object::PersistentVolume(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::PersistentVolume(pv) = obj {
            if pv.spec.persistent_volume_reclaim_policy.is_empty() {
                pv.spec.persistent_volume_reclaim_policy = "Retain".into();
            }
            pv.spec
                .volume_mode
                .get_or_insert_with(|| "Filesystem".to_string());
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(pv) = obj.as_persistent_volume() else {
            return Vec::new();
        };
        let spec = &pv.spec;
        let mut errs = Vec::new();
        if spec.access_modes.is_empty() {
            errs.push(FieldError::required(
                "spec.accessModes",
                "must specify at least 1 access mode",
            ));
        }
        for mode in &spec.access_modes {
            if !ACCESS_MODES.contains(&mode.as_str()) {
                errs.push(FieldError::not_supported(
                    "spec.accessModes",
                    mode.as_str(),
                    &ACCESS_MODES,
                ));
            }
        }
        match spec.capacity.get("storage") {
            None => errs.push(FieldError::required("spec.capacity", "")),
            Some(q) if q.is_zero() || q.milli_value() < 0 => errs.push(FieldError::invalid(
                "spec.capacity[storage]",
                BadValue::Str(q.to_string()),
                "must be greater than zero",
            )),
            Some(_) => {}
        }
        let policy = spec.persistent_volume_reclaim_policy.as_str();
        if !policy.is_empty() && !RECLAIM_POLICIES.contains(&policy) {
            errs.push(FieldError::not_supported(
                "spec.persistentVolumeReclaimPolicy",
                policy,
                &RECLAIM_POLICIES,
            ));
        }
        errs
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_persistent_volume(), old.as_persistent_volume()) {
            (Some(n), Some(o))
                if o.spec.node_affinity.is_some()
                    && n.spec.node_affinity != o.spec.node_affinity =>
            {
                vec![FieldError::invalid(
                    "spec.nodeAffinity",
                    BadValue::Verbatim("core.VolumeNodeAffinity{...}".into()),
                    "field is immutable",
                )]
            }
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::PersistentVolume(pv) = obj {
            pv.status = Default::default();
            pv.status.phase = "Pending".into();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::PersistentVolume(n), Object::PersistentVolume(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::PersistentVolume(o), Object::PersistentVolume(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::PersistentVolume(n), Object::PersistentVolume(o))
            if n.spec != o.spec)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printPersistentVolume`'s columns.
const COLUMNS: [Column; 11] = [
    NAME,
    column("Capacity", "string", 0),
    column("Access Modes", "string", 0),
    column("Reclaim Policy", "string", 0),
    column("Status", "string", 0),
    column("Claim", "string", 0),
    column("StorageClass", "string", 0),
    column("VolumeAttributesClass", "string", 0),
    column("Reason", "string", 0),
    AGE,
    column("VolumeMode", "string", 1),
];

/// `printPersistentVolume`'s cells; CLAIM is `namespace/name` of the claim bound to it.
fn row(pv: &Value, now_unix_ms: i64) -> Vec<Value> {
    let s = |path: &[&str]| str_at(pv, path).unwrap_or("").to_string();
    let claim = match str_at(pv, &["spec", "claimRef", "name"]) {
        Some(name) => format!("{}/{name}", s(&["spec", "claimRef", "namespace"])),
        None => String::new(),
    };
    vec![
        printer::name(pv),
        text(s(&["spec", "capacity", "storage"])),
        text(access_modes_text(array(pv, &["spec", "accessModes"]))),
        text(s(&["spec", "persistentVolumeReclaimPolicy"])),
        text(phase(pv)),
        text(claim),
        text(s(&["spec", "storageClassName"])),
        text("<unset>"),
        text(s(&["status", "reason"])),
        printer::age(pv, now_unix_ms),
        text(str_at(pv, &["spec", "volumeMode"]).unwrap_or("<unset>")),
    ]
}
