//! `persistentvolumeclaims` (core/v1): a pod's request for storage, bound to a
//! PersistentVolume by the PV controller. Defaults follow `SetDefaults_PersistentVolumeClaim`,
//! validation pkg/apis/core/validation `ValidatePersistentVolumeClaim(Update)`; the
//! DefaultStorageClass admission plugin is the API server's (it needs the stored classes).

use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::storage::{PersistentVolumeClaim, PersistentVolumeClaimSpec};
use crate::Object;
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, at, str_at};
use watchlab_apimachinery::validation::{BadValue, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 19,
    kind_name: "PersistentVolumeClaim",
    list_kind: "PersistentVolumeClaimList",
    go_type: "v1.PersistentVolumeClaim",
    plural: "persistentvolumeclaims",
    singular: "persistentvolumeclaim",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["pvc"],
    categories: &[],
    subresources: &["status"],
    registry: "persistentvolumeclaims",
    field_labels: &["metadata.name", "metadata.namespace"],
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1PersistentVolumeClaim",
    atomic_maps: &[&["spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &ClaimRules,
};

/// The access modes, as the real `supportedAccessModes` lists them.
pub const ACCESS_MODES: [&str; 4] = [
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];

/// The PersistentVolumeClaimResize admission plugin's refusal: watchlab's classes never expand.
pub const RESIZE_FORBIDDEN: &str = "only dynamically provisioned pvc can be resized and the \
storageclass that provisions the pvc must support resize";

struct ClaimRules;

impl Rules for ClaimRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(|c| Object::PersistentVolumeClaim(Box::new(c)))
    }

    fn empty(&self) -> Object {
        Object::PersistentVolumeClaim(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::PersistentVolumeClaim(c) = obj {
            claim_defaults(&mut c.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_persistent_volume_claim()
            .map(|c| claim_spec(&c.spec, "spec"))
            .unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let (Some(n), Some(o)) = (
            new.as_persistent_volume_claim(),
            old.as_persistent_volume_claim(),
        ) else {
            return Vec::new();
        };
        claim_update(n, o)
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::PersistentVolumeClaim(c) = obj {
            c.status = Default::default();
            c.status.phase = "Pending".into();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::PersistentVolumeClaim(n), Object::PersistentVolumeClaim(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::PersistentVolumeClaim(o), Object::PersistentVolumeClaim(n)) =
            (&mut out, new)
        {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::PersistentVolumeClaim(n), Object::PersistentVolumeClaim(o))
            if n.spec != o.spec)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`: `volumeMode: Filesystem`.
pub fn claim_defaults(spec: &mut PersistentVolumeClaimSpec) {
    spec.volume_mode
        .get_or_insert_with(|| "Filesystem".to_string());
}

/// `ValidatePersistentVolumeClaimSpec` at `path`: at least one known access mode
/// (`ReadWriteOncePod` alone), a positive `resources.requests.storage`, a known volume mode.
pub(crate) fn claim_spec(spec: &PersistentVolumeClaimSpec, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if spec.access_modes.is_empty() {
        errs.push(FieldError::required(
            &format!("{path}.accessModes"),
            "at least 1 access mode is required",
        ));
    }
    for mode in &spec.access_modes {
        if !ACCESS_MODES.contains(&mode.as_str()) {
            errs.push(FieldError::not_supported(
                &format!("{path}.accessModes"),
                mode.as_str(),
                &ACCESS_MODES,
            ));
        }
    }
    if spec.access_modes.len() > 1 && spec.access_modes.iter().any(|m| m == "ReadWriteOncePod") {
        errs.push(FieldError::forbidden(
            &format!("{path}.accessModes"),
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    let storage = format!("{path}.resources[storage]");
    match spec.resources.requests.get("storage") {
        None => errs.push(FieldError::required(&storage, "")),
        Some(q) if q.is_zero() || q.milli_value() < 0 => errs.push(FieldError::invalid(
            &storage,
            BadValue::Str(q.to_string()),
            "must be greater than zero",
        )),
        Some(_) => {}
    }
    if let Some(mode) = spec
        .volume_mode
        .as_deref()
        .filter(|m| *m != "Block" && *m != "Filesystem")
    {
        errs.push(FieldError::not_supported(
            &format!("{path}.volumeMode"),
            mode,
            &["Block", "Filesystem"],
        ));
    }
    errs
}

/// `ValidatePersistentVolumeClaimUpdate`: the spec is immutable but for the storage request
/// (which only a class allowing expansion may grow: watchlab's never do) and a volume name
/// set for the first time (the binder's).
fn claim_update(new: &PersistentVolumeClaim, old: &PersistentVolumeClaim) -> Vec<FieldError> {
    let mut compared = new.spec.clone();
    compared.resources.clone_from(&old.spec.resources);
    if old.spec.volume_name.is_empty() {
        compared.volume_name.clone_from(&old.spec.volume_name);
    }
    if compared.storage_class_name.is_none() {
        compared
            .storage_class_name
            .clone_from(&old.spec.storage_class_name);
    }
    let mut errs = Vec::new();
    if compared != old.spec {
        errs.push(FieldError::forbidden(
            "spec",
            "spec is immutable after creation except resources.requests and \
             volumeAttributesClassName for bound claims",
        ));
    }
    if new.spec.resources.requests != old.spec.resources.requests {
        errs.push(FieldError::forbidden(
            "spec.resources.requests.storage",
            RESIZE_FORBIDDEN,
        ));
    }
    errs
}

/// `printPersistentVolumeClaim`'s columns.
const COLUMNS: [Column; 9] = [
    NAME,
    column("Status", "string", 0),
    column("Volume", "string", 0),
    column("Capacity", "string", 0),
    column("Access Modes", "string", 0),
    column("StorageClass", "string", 0),
    column("VolumeAttributesClass", "string", 0),
    AGE,
    column("VolumeMode", "string", 1),
];

/// `printPersistentVolumeClaim`'s cells: the capacity and access modes only once a volume is
/// named (from the status), `Terminating` while being deleted.
fn row(claim: &Value, now_unix_ms: i64) -> Vec<Value> {
    let volume = str_at(claim, &["spec", "volumeName"]).unwrap_or("");
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            str_at(claim, &["status", "capacity", "storage"])
                .unwrap_or("")
                .to_string(),
            access_modes_text(array(claim, &["status", "accessModes"])),
        )
    };
    vec![
        printer::name(claim),
        text(phase(claim)),
        text(volume),
        text(capacity),
        text(modes),
        text(claim_class(claim)),
        text("<unset>"),
        printer::age(claim, now_unix_ms),
        text(str_at(claim, &["spec", "volumeMode"]).unwrap_or("<unset>")),
    ]
}

/// The phase, or `Terminating` while the object is being deleted.
pub(crate) fn phase(obj: &Value) -> String {
    if at(obj, &["metadata", "deletionTimestamp"]).is_some() {
        return "Terminating".into();
    }
    str_at(obj, &["status", "phase"]).unwrap_or("").to_string()
}

/// `GetPersistentVolumeClaimClass`: the beta annotation, else `storageClassName`.
fn claim_class(claim: &Value) -> String {
    str_at(
        claim,
        &[
            "metadata",
            "annotations",
            "volume.beta.kubernetes.io/storage-class",
        ],
    )
    .or_else(|| str_at(claim, &["spec", "storageClassName"]))
    .unwrap_or("")
    .to_string()
}

/// `GetAccessModesAsString`: `RWO,ROX,RWX,RWOP` in that order, each once.
pub(crate) fn access_modes_text(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|v| v.as_str() == Some(m));
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| has(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}
