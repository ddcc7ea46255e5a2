//! `configmaps` (core/v1, short name `cm`): configuration as plain strings (`data`) or base64
//! (`binaryData`). Validation follows `ValidateConfigMap` (keys, the `immutable` rule).

use super::meta_merge_key;
use crate::api::config::ConfigMap;
use crate::api::resource::{meta_fields, ResourceInfo, Rules};
use crate::api::Object;
use std::collections::BTreeMap;
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
    controller_owners: &[],
    printer_columns: &[],
    rules: &ConfigMapRules,
};

/// The text of the `immutable` rule (ConfigMaps and Secrets).
pub const IMMUTABLE_WHEN_SET: &str = "field is immutable when `immutable` is set";

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

impl Rules for ConfigMapRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::ConfigMap)
    }

    fn empty(&self) -> Object {
        Object::ConfigMap(ConfigMap::default())
    }

    fn field_value(&self, _obj: &Object, _field: &str) -> Option<String> {
        None
    }

    fn default(&self, _obj: &mut Object) {}

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
        let mut errs = Vec::new();
        if o.immutable == Some(true) {
            if n.immutable != Some(true) {
                errs.push(FieldError::forbidden("immutable", IMMUTABLE_WHEN_SET));
            }
            if n.data != o.data {
                errs.push(FieldError::forbidden("data", IMMUTABLE_WHEN_SET));
            }
            if n.binary_data != o.binary_data {
                errs.push(FieldError::forbidden("binaryData", IMMUTABLE_WHEN_SET));
            }
        }
        errs
    }

    fn prepare_for_create(&self, _obj: &mut Object) {}

    fn keep_status(&self, _new: &mut Object, _old: &Object) {}

    fn status_update(&self, _new: &Object, old: &Object) -> Object {
        old.clone()
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((config_map(new), config_map(old)), (Some(n), Some(o)) if n.data != o.data || n.binary_data != o.binary_data)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        meta_merge_key(path)
    }
}
