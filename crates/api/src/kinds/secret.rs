//! `secrets` (core/v1): base64 `data`; `stringData` is merged into `data` on every write (the
//! v1 conversion does it) and never stored; `type` defaults to Opaque and may not change.
//! Validation follows `ValidateSecret` (keys, the TLS type's two keys, `immutable`).

use super::configmap::{validate_immutable, validate_keys};
use crate::config::{Secret, SECRET_TYPE_OPAQUE};
use crate::printer::{self, column, entries, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::Object;
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::string;
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 12,
    kind_name: "Secret",
    list_kind: "SecretList",
    go_type: "v1.Secret",
    plural: "secrets",
    singular: "secret",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &[],
    categories: &[],
    subresources: &[],
    registry: "secrets",
    field_labels: &["metadata.name", "metadata.namespace", "type"],
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1Secret",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &SecretRules,
};

/// `kubernetes.io/tls`: needs `tls.crt` and `tls.key`.
const TYPE_TLS: &str = "kubernetes.io/tls";

struct SecretRules;

fn secret(obj: &Object) -> Option<&Secret> {
    match obj {
        Object::Secret(s) => Some(s),
        _ => None,
    }
}

impl Rules for SecretRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Secret)
    }

    fn empty(&self) -> Object {
        Object::Secret(Secret::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        match field {
            "type" => secret(obj).map(|s| s.type_.clone()),
            _ => None,
        }
    }

    /// `SetDefaults_Secret` (type Opaque) and the conversion's `stringData` merge.
    fn default(&self, obj: &mut Object) {
        if let Object::Secret(s) = obj {
            if s.type_.is_empty() {
                s.type_ = SECRET_TYPE_OPAQUE.into();
            }
            s.merge_string_data();
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(s) = secret(obj) else {
            return Vec::new();
        };
        let mut errs = validate_keys(&s.data, "data");
        if s.type_ == TYPE_TLS {
            for key in ["tls.crt", "tls.key"] {
                if !s.data.contains_key(key) {
                    errs.push(FieldError::required(&format!("data[{key}]"), ""));
                }
            }
        }
        errs
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let (Some(n), Some(o)) = (secret(new), secret(old)) else {
            return Vec::new();
        };
        let mut errs = Vec::new();
        if n.type_ != o.type_ {
            errs.push(FieldError::invalid("type", &n.type_, "field is immutable"));
        }
        errs.extend(validate_immutable(
            n.immutable,
            o.immutable,
            &[("data", n.data != o.data)],
        ));
        errs
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((secret(new), secret(old)), (Some(n), Some(o)) if n.data != o.data || n.type_ != o.type_)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printSecret`'s columns.
const COLUMNS: [Column; 4] = [
    NAME,
    column("Type", "string", 0),
    column("Data", "string", 0),
    AGE,
];

/// `printSecret`'s cells.
fn row(s: &Value, now_unix_ms: i64) -> Vec<Value> {
    vec![
        printer::name(s),
        text(string(s, &["type"])),
        text(entries(s, "data").to_string()),
        printer::age(s, now_unix_ms),
    ]
}
