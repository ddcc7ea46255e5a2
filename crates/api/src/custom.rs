//! Custom objects and the resources they belong to: a [`CustomObject`] is typed metadata plus
//! the rest of its JSON, and [`define`] turns an established CustomResourceDefinition into a
//! [`ResourceInfo`] whose [`Rules`] validate and prune by the CRD's `openAPIV3Schema`, keep the
//! status apart when the status subresource is declared, and bump `generation` on other
//! changes — so the generic API server machinery serves it like a built-in kind.
//!
//! A description is allocated once per distinct CRD definition for the life of the process
//! (the API server reuses it when the same definition is established again), so that a
//! [`Kind`] stays a `Copy` handle on a `'static` description.

use super::apiextensions::{CustomResourceDefinition, PrinterColumn};
use super::resource::{meta_fields, ResourceInfo, Rules, CUSTOM_RANK};
use super::{custom_table, schema, Kind, Object, ObjectMeta};
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::OnceLock;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::validation::FieldError;

/// An object of a custom resource: its metadata typed (so keys, selectors, owners, finalizers
/// and resourceVersions work as for every kind), everything else (`spec`, `status`...) as JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomObject {
    #[serde(skip)]
    pub kind: Kind,
    pub metadata: ObjectMeta,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl CustomObject {
    /// A top-level field (`spec`, `status`).
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.rest.get(name)
    }
}

/// The rules of one custom resource, from its CRD's storage version.
struct CustomRules {
    kind: OnceLock<Kind>,
    schema: Value,
    status_subresource: bool,
    /// The version's `additionalPrinterColumns` (its Table, apiextensions' table convertor).
    printer_columns: Vec<PrinterColumn>,
}

fn custom(obj: &Object) -> Option<&CustomObject> {
    match obj {
        Object::Custom(c) => Some(c),
        _ => None,
    }
}

impl CustomRules {
    fn kind(&self) -> Result<Kind, serde_json::Error> {
        self.kind
            .get()
            .copied()
            .ok_or_else(|| serde::de::Error::custom("custom resource not established"))
    }

    /// Everything but metadata and (with the status subresource) status.
    fn spec_part(&self, c: &CustomObject) -> Map<String, Value> {
        let mut rest = c.rest.clone();
        if self.status_subresource {
            rest.remove("status");
        }
        rest
    }
}

impl Rules for CustomRules {
    fn openapi_schema(&self) -> Option<&Value> {
        Some(&self.schema)
    }

    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        let kind = self.kind()?;
        let Value::Object(mut map) = value else {
            return Err(serde::de::Error::custom("expected an object"));
        };
        let metadata = match map.remove("metadata") {
            Some(m) => serde_json::from_value(m)?,
            None => ObjectMeta::default(),
        };
        let mut rest = Value::Object(map);
        schema::prune(&self.schema, &mut rest);
        let rest = match rest {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        Ok(Object::Custom(Box::new(CustomObject {
            kind,
            metadata,
            rest,
        })))
    }

    fn empty(&self) -> Object {
        match self.kind() {
            Ok(kind) => Object::Custom(Box::new(CustomObject {
                kind,
                metadata: ObjectMeta::default(),
                rest: Map::new(),
            })),
            // Unreachable: a description is only served once its handle is set.
            Err(_) => Object::Namespace(Default::default()),
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        custom(obj)
            .map(|c| schema::validate(&self.schema, &Value::Object(c.rest.clone()), ""))
            .unwrap_or_default()
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let (Object::Custom(c), true) = (obj, self.status_subresource) {
            c.rest.remove("status");
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if !self.status_subresource {
            return;
        }
        if let (Object::Custom(n), Some(o)) = (new, custom(old)) {
            match o.rest.get("status") {
                Some(s) => n.rest.insert("status".into(), s.clone()),
                None => n.rest.remove("status"),
            };
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Custom(o), Some(n)) = (&mut out, custom(new)) {
            match n.rest.get("status") {
                Some(s) => o.rest.insert("status".into(), s.clone()),
                None => o.rest.remove("status"),
            };
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        match (custom(new), custom(old)) {
            (Some(n), Some(o)) => self.spec_part(n) != self.spec_part(o),
            _ => false,
        }
    }

    /// No strategic-merge keys: a custom resource refuses strategic merge patches (415).
    fn merge_key(&self, _path: &[&str]) -> Option<&'static str> {
        None
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        custom_table::columns(&self.printer_columns)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        custom_table::row(&self.printer_columns, obj, now_unix_ms)
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_all(v: &[String]) -> &'static [&'static str] {
    Box::leak(
        v.iter()
            .map(|s| leak(s))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

/// The served description of a CRD's storage version (`None` without one).
pub fn define(crd: &CustomResourceDefinition) -> Option<Kind> {
    let version = crd.storage_version()?;
    let spec = &crd.spec;
    let names = &spec.names;
    let status_subresource = version
        .subresources
        .as_ref()
        .is_some_and(|s| s.status.is_some());
    let rules: &'static CustomRules = Box::leak(Box::new(CustomRules {
        kind: OnceLock::new(),
        schema: version
            .schema
            .as_ref()
            .map(|s| s.open_api_v3_schema.clone())
            .unwrap_or_else(schema::preserve_all),
        status_subresource,
        printer_columns: version.additional_printer_columns.clone(),
    }));
    let group = leak(&spec.group);
    let version_name = leak(&version.name);
    let list_kind = if names.list_kind.is_empty() {
        format!("{}List", names.kind)
    } else {
        names.list_kind.clone()
    };
    let singular = if names.singular.is_empty() {
        names.kind.to_ascii_lowercase()
    } else {
        names.singular.clone()
    };
    let info: &'static ResourceInfo = Box::leak(Box::new(ResourceInfo {
        rank: CUSTOM_RANK,
        kind_name: leak(&names.kind),
        list_kind: leak(&list_kind),
        go_type: "unstructured.Unstructured",
        plural: leak(&names.plural),
        singular: leak(&singular),
        group,
        version: version_name,
        api_version: leak(&format!("{}/{}", spec.group, version.name)),
        namespaced: spec.scope == "Namespaced",
        short_names: leak_all(&names.short_names),
        categories: leak_all(&names.categories),
        subresources: if status_subresource { &["status"] } else { &[] },
        registry: leak(&format!("{}/{}", spec.group, names.plural)),
        field_labels: meta_fields(),
        dns_label_names: false,
        has_generation: true,
        create_on_update: false,
        returns_deleted_object: false,
        delete_collection: true,
        controller_owners: &[],
        schema_root: "",
        atomic_maps: &[],
        event_ttl: false,
        trigger_field: None,
        rules,
    }));
    let kind = Kind::of(info);
    // A fresh OnceLock: the set cannot fail.
    let _ = rules.kind.set(kind);
    Some(kind)
}
