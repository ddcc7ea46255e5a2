//! `customresourcedefinitions` (apiextensions.k8s.io/v1, cluster-scoped): the definitions that
//! make the API server serve new resources. Its rules are the apiextensions validation of the
//! spec (the name must be `<plural>.<group>`, one storage version, a structural schema); the
//! API server establishes an accepted definition (`watchlab_engine::apiserver::crd`).

use super::conditions_merge_key;
use crate::apiextensions::CustomResourceDefinition;
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::{schema, Object};
use watchlab_apimachinery::validation::{is_dns1123_subdomain, BadValue, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 7,
    kind_name: "CustomResourceDefinition",
    list_kind: "CustomResourceDefinitionList",
    go_type: "v1.CustomResourceDefinition",
    plural: "customresourcedefinitions",
    singular: "customresourcedefinition",
    group: "apiextensions.k8s.io",
    version: "v1",
    api_version: "apiextensions.k8s.io/v1",
    namespaced: false,
    short_names: &["crd", "crds"],
    categories: &["api-extensions"],
    subresources: &["status"],
    registry: "apiextensions.k8s.io/customresourcedefinitions",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: true,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1CustomResourceDefinition",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &CrdRules,
};

/// The real message when the name is not `<plural>.<group>`.
pub const NAME_MISMATCH: &str = "must be spec.names.plural+\".\"+spec.group";
const SCOPES: &[&str] = &["Cluster", "Namespaced"];

struct CrdRules;

fn crd(obj: &Object) -> Option<&CustomResourceDefinition> {
    match obj {
        Object::CustomResourceDefinition(c) => Some(c),
        _ => None,
    }
}

/// `ValidateCustomResourceDefinitionSpec`'s common checks.
fn validate_crd(c: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (spec, names) = (&c.spec, &c.spec.names);
    if c.metadata.name != format!("{}.{}", names.plural, spec.group) {
        errs.push(FieldError::invalid(
            "metadata.name",
            &c.metadata.name,
            NAME_MISMATCH,
        ));
    }
    if spec.group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else if !spec.group.contains('.') {
        errs.push(FieldError::invalid(
            "spec.group",
            &spec.group,
            "should be a domain with at least one dot",
        ));
    } else {
        errs.extend(
            is_dns1123_subdomain(&spec.group)
                .iter()
                .map(|m| FieldError::invalid("spec.group", &spec.group, m)),
        );
    }
    if !SCOPES.contains(&spec.scope.as_str()) {
        errs.push(FieldError::not_supported("spec.scope", &spec.scope, SCOPES));
    }
    for (field, value) in [("plural", &names.plural), ("kind", &names.kind)] {
        if value.is_empty() {
            errs.push(FieldError::required(&format!("spec.names.{field}"), ""));
        }
    }
    if spec.versions.iter().filter(|v| v.storage).count() != 1 {
        let value = if spec.versions.is_empty() {
            BadValue::Verbatim("[]apiextensions.CustomResourceDefinitionVersion(nil)".into())
        } else {
            BadValue::Verbatim("[]apiextensions.CustomResourceDefinitionVersion{...}".into())
        };
        errs.push(FieldError::invalid(
            "spec.versions",
            value,
            "must have exactly one version marked as storage version",
        ));
    }
    for (i, v) in spec.versions.iter().enumerate() {
        let path = format!("spec.versions[{i}].schema.openAPIV3Schema");
        match &v.schema {
            Some(s) if s.open_api_v3_schema.is_object() => {
                errs.extend(schema::structural_errors(&s.open_api_v3_schema, &path));
            }
            _ => errs.push(FieldError::required(&path, "schemas are required")),
        }
    }
    errs
}

impl Rules for CrdRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(|c| Object::CustomResourceDefinition(Box::new(c)))
    }

    fn empty(&self) -> Object {
        Object::CustomResourceDefinition(Box::default())
    }

    /// `singular` defaults to the lowercased kind, `listKind` to `<kind>List`.
    fn default(&self, obj: &mut Object) {
        if let Object::CustomResourceDefinition(c) = obj {
            let names = &mut c.spec.names;
            if names.singular.is_empty() {
                names.singular = names.kind.to_ascii_lowercase();
            }
            if names.list_kind.is_empty() && !names.kind.is_empty() {
                names.list_kind = format!("{}List", names.kind);
            }
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        crd(obj).map(validate_crd).unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (crd(new), crd(old)) {
            (Some(n), Some(o)) if n.spec.group != o.spec.group => {
                vec![FieldError::invalid(
                    "spec.group",
                    &n.spec.group,
                    "field is immutable",
                )]
            }
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::CustomResourceDefinition(c) = obj {
            c.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::CustomResourceDefinition(n), Some(o)) = (new, crd(old)) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::CustomResourceDefinition(o), Some(n)) = (&mut out, crd(new)) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        match (crd(new), crd(old)) {
            (Some(n), Some(o)) => n.spec != o.spec,
            _ => false,
        }
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        conditions_merge_key(path)
    }
}
