//! `configmaps` (core/v1, short name `cm`): configuration as plain strings (`data`) or base64
//! (`binaryData`). Validation follows `ValidateConfigMap` (keys, the `immutable` rule).

use crate::config::ConfigMap;
use crate::printer::{self, column, entries, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::Object;
use serde_json::Value;
use std::collections::BTreeMap;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::validation::{is_config_map_key, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 11,
    kind_name: "ConfigMap",
    list_kind: "ConfigMapList",
    go_type: "v1.ConfigMap",
    plural: "configmaps",
    singular: "configmap",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["cm"],
    categories: &[],
    subresources: &[],
    registry: "configmaps",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1ConfigMap",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &ConfigMapRules,
};

/// The text of the `immutable` rule (ConfigMaps and Secrets).
const IMMUTABLE_WHEN_SET: &str = "field is immutable when `immutable` is set";

struct ConfigMapRules;

fn config_map(obj: &Object) -> Option<&ConfigMap> {
    match obj {
        Object::ConfigMap(c) => Some(c),
        _ => None,
    }
}

/// `data[key]: Invalid value` for every key that is not a config key.
pub fn validate_keys<V>(map: &BTreeMap<String, V>, field: &str) -> Vec<FieldError> {
    map.keys()
        .flat_map(|k| {
            is_config_map_key(k)
                .into_iter()
                .map(move |msg| FieldError::invalid(&format!("{field}[{k}]"), k, &msg))
        })
        .collect()
}

/// The `immutable` rule of ConfigMaps and Secrets (`ValidateConfigMapUpdate`,
/// `ValidateSecretUpdate`): once the stored object says `immutable: true`, an update may neither
/// unset it nor change any of `contents` (each a field name and whether the update changes it).
pub fn validate_immutable(
    new_immutable: Option<bool>,
    old_immutable: Option<bool>,
    contents: &[(&str, bool)],
) -> Vec<FieldError> {
    if old_immutable != Some(true) {
        return Vec::new();
    }
    let unset = (new_immutable != Some(true)).then_some("immutable");
    let changed = contents.iter().filter(|(_, c)| *c).map(|(f, _)| *f);
    unset
        .into_iter()
        .chain(changed)
        .map(|field| FieldError::forbidden(field, IMMUTABLE_WHEN_SET))
        .collect()
}

impl Rules for ConfigMapRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::ConfigMap)
    }

    fn empty(&self) -> Object {
        Object::ConfigMap(ConfigMap::default())
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(c) = config_map(obj) else {
            return Vec::new();
        };
        let mut errs = validate_keys(&c.data, "data");
        errs.extend(validate_keys(&c.binary_data, "binaryData"));
        for k in c.data.keys().filter(|k| c.binary_data.contains_key(*k)) {
            errs.push(FieldError::invalid(
                &format!("data[{k}]"),
                k,
                "duplicate of key present in binaryData",
            ));
        }
        errs
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let (Some(n), Some(o)) = (config_map(new), config_map(old)) else {
            return Vec::new();
        };
        validate_immutable(
            n.immutable,
            o.immutable,
            &[
                ("data", n.data != o.data),
                ("binaryData", n.binary_data != o.binary_data),
            ],
        )
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((config_map(new), config_map(old)), (Some(n), Some(o)) if n.data != o.data || n.binary_data != o.binary_data)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printConfigMap`'s columns.
const COLUMNS: [Column; 3] = [NAME, column("Data", "string", 0), AGE];

/// `printConfigMap`'s cells: DATA counts `data` and `binaryData` entries.
fn row(cm: &Value, now_unix_ms: i64) -> Vec<Value> {
    let data = entries(cm, "data") + entries(cm, "binaryData");
    vec![
        printer::name(cm),
        text(data.to_string()),
        printer::age(cm, now_unix_ms),
    ]
}
