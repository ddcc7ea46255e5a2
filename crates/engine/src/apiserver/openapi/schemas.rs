//! A document's `components.schemas`: each kind's object schema and every type it reaches, as
//! kube-openapi names and shapes them (`io.k8s.api.core.v1.PodSpec`; a field holding another
//! type is `allOf: [{$ref}]`, a list `items`, a map `additionalProperties`), with the patch
//! strategies and merge keys of the Go types' tags on the list fields (kubectl's client-side
//! `apply` computes its strategic merge patch from them), descriptions from [`descriptions`],
//! and `x-kubernetes-group-version-kind` on the kinds (a list, as schemas carry it).
//!
//! A built-in kind's schema comes from the generated [`types`] table, from its
//! `ResourceInfo::schema_root`; a custom resource's is its CRD's `openAPIV3Schema` with
//! `apiVersion`, `kind` and `metadata` added, named by the reversed group
//! (`com.example.v1.Website`) as apiextensions-apiserver names it.

use super::descriptions;
use super::types::TYPES;
use crate::api::Registry;
use serde_json::{json, Map, Value};

const PREFIX: &str = "#/components/schemas/";
/// `metav1.Status`, what deletes answer.
pub const STATUS_REF: &str = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status";
/// `metav1.DeleteOptions`, a delete's body.
pub const DELETE_OPTIONS_REF: &str =
    "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/// The `patchStrategy`/`patchMergeKey` tags of the Go types the served kinds reach (k8s.io/api
/// v0.32 `core/v1`, `apps/v1`; apimachinery's `ObjectMeta`): (type, field, strategy, merge key).
/// A list not here is replaced whole by a strategic merge patch, as the Go types say.
const PATCH: &[(&str, &str, &str, &str)] = &[
    ("ObjectMeta", "finalizers", "merge", ""),
    ("ObjectMeta", "ownerReferences", "merge", "uid"),
    ("Container", "env", "merge", "name"),
    ("Container", "ports", "merge", "containerPort"),
    ("Container", "volumeDevices", "merge", "devicePath"),
    ("Container", "volumeMounts", "merge", "mountPath"),
    ("EphemeralContainer", "env", "merge", "name"),
    ("EphemeralContainer", "ports", "merge", "containerPort"),
    ("EphemeralContainer", "volumeDevices", "merge", "devicePath"),
    ("EphemeralContainer", "volumeMounts", "merge", "mountPath"),
    (
        "ContainerStatus",
        "allocatedResourcesStatus",
        "merge",
        "name",
    ),
    ("ContainerStatus", "volumeMounts", "merge", "mountPath"),
    ("PodSpec", "containers", "merge", "name"),
    ("PodSpec", "ephemeralContainers", "merge", "name"),
    ("PodSpec", "hostAliases", "merge", "ip"),
    ("PodSpec", "imagePullSecrets", "merge", "name"),
    ("PodSpec", "initContainers", "merge", "name"),
    ("PodSpec", "resourceClaims", "merge,retainKeys", "name"),
    ("PodSpec", "schedulingGates", "merge", "name"),
    (
        "PodSpec",
        "topologySpreadConstraints",
        "merge",
        "topologyKey",
    ),
    ("PodSpec", "volumes", "merge,retainKeys", "name"),
    ("PodStatus", "conditions", "merge", "type"),
    ("PodStatus", "hostIPs", "merge", "ip"),
    ("PodStatus", "podIPs", "merge", "ip"),
    (
        "PodStatus",
        "resourceClaimStatuses",
        "merge,retainKeys",
        "name",
    ),
    ("ServiceSpec", "ports", "merge", "port"),
    ("ServiceStatus", "conditions", "merge", "type"),
    ("NodeSpec", "podCIDRs", "merge", ""),
    ("NodeStatus", "addresses", "merge", "type"),
    ("NodeStatus", "conditions", "merge", "type"),
    ("NamespaceStatus", "conditions", "merge", "type"),
    ("DeploymentSpec", "strategy", "retainKeys", ""),
    ("DeploymentStatus", "conditions", "merge", "type"),
    ("ReplicaSetStatus", "conditions", "merge", "type"),
];

/// The schemas of one document, filled as its paths name kinds.
pub struct Components<'r> {
    registry: &'r Registry,
    schemas: Map<String, Value>,
}

impl<'r> Components<'r> {
    pub fn new(registry: &'r Registry) -> Components<'r> {
        Components {
            registry,
            schemas: Map::new(),
        }
    }

    /// The kind of the main resource `plural` of `group`/`version`, if the registry serves it.
    pub fn main_kind(&self, group: &str, version: &str, plural: &str) -> Option<&'static str> {
        self.registry
            .lookup(group, version, plural)
            .map(|r| r.kind_name)
    }

    /// The reference to the schema of the kind `gvk` (`{group, version, kind}`), added with
    /// what it reaches; `None` for a kind without one.
    pub fn kind_ref(&mut self, gvk: &Value) -> Option<String> {
        let (group, version, kind) = (
            gvk["group"].as_str().unwrap_or_default(),
            gvk["version"].as_str().unwrap_or_default(),
            gvk["kind"].as_str().unwrap_or_default(),
        );
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        let name = match self.registry.by_kind(&api_version, kind) {
            Some(r) => match r.rules.openapi_schema() {
                Some(schema) => self.add_custom(group, version, kind, schema),
                None => self.add_model(r.schema_root)?,
            },
            None => match (group, version, kind) {
                ("autoscaling", "v1", "Scale") => self.add_model("V1Scale")?,
                ("", "v1", "Binding") => self.add_model("V1Binding")?,
                ("authorization.k8s.io", "v1", _) => self.add_model(&format!("V1{kind}"))?,
                ("metrics.k8s.io", "v1beta1", _) => self.add_metrics(kind)?,
                _ => return None,
            },
        };
        if let Some(Value::Object(schema)) = self.schemas.get_mut(&name) {
            let list = schema
                .entry("x-kubernetes-group-version-kind")
                .or_insert_with(|| json!([]));
            if let Value::Array(l) = list {
                let gvk = json!({"group": group, "version": version, "kind": kind});
                if !l.contains(&gvk) {
                    l.push(gvk);
                }
            }
        }
        Some(format!("{PREFIX}{name}"))
    }

    /// The reference to the list kind of `gvk` (`PodList`), added.
    pub fn list_ref(&mut self, gvk: &Value) -> Option<String> {
        let item = self.kind_ref(gvk)?;
        let name = format!("{}List", item.trim_start_matches(PREFIX));
        let kind = gvk["kind"].as_str().unwrap_or_default();
        let list_meta = self.add_model("V1ListMeta")?;
        self.schemas.insert(
            name.clone(),
            json!({
                "type": "object",
                "description": format!("A list of {kind} objects, as a list request answers it."),
                "required": ["items"],
                "properties": {
                    "apiVersion": {"type": "string", "description": descriptions::API_VERSION},
                    "items": {"type": "array", "description": format!("The {kind} objects."),
                              "items": {"allOf": [{"$ref": item}], "default": {}}},
                    "kind": {"type": "string", "description": descriptions::KIND},
                    "metadata": {"allOf": [{"$ref": format!("{PREFIX}{list_meta}")}], "default": {},
                                 "description": "The list's resourceVersion, and the continue token of the next page."},
                },
                "x-kubernetes-group-version-kind": [{"group": gvk["group"], "version": gvk["version"], "kind": format!("{kind}List")}],
            }),
        );
        Some(format!("{PREFIX}{name}"))
    }

    /// Every schema, with the `Status` and `DeleteOptions` that deletes name.
    pub fn into_schemas(mut self) -> Map<String, Value> {
        self.add_model("V1Status");
        self.add_model("V1DeleteOptions");
        self.schemas
    }

    /// A generated type and everything it reaches; its component name, `None` when the table
    /// has no such model.
    fn add_model(&mut self, model: &str) -> Option<String> {
        let i = TYPES.binary_search_by(|(m, _, _)| (*m).cmp(model)).ok()?;
        let (_, name, fields) = TYPES[i];
        if self.schemas.contains_key(name) {
            return Some(name.to_string());
        }
        // Placed first, so a type that reaches itself (JSONSchemaProps) ends the walk.
        self.schemas.insert(name.to_string(), json!({}));
        let short = name.rsplit('.').next().unwrap_or(name);
        let mut properties = Map::new();
        for (field, ty) in fields {
            let mut schema = self.field(ty);
            if let Some(d) = descriptions::field(short, field) {
                schema["description"] = json!(d);
            }
            if let Some((_, _, strategy, key)) =
                PATCH.iter().find(|(t, f, _, _)| *t == short && f == field)
            {
                schema["x-kubernetes-patch-strategy"] = json!(strategy);
                if !key.is_empty() {
                    schema["x-kubernetes-patch-merge-key"] = json!(key);
                }
            }
            properties.insert(field.to_string(), schema);
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if let Some(d) = descriptions::of_type(short) {
            schema["description"] = json!(d);
        }
        self.schemas.insert(name.to_string(), schema);
        Some(name.to_string())
    }

    /// The schema of a field of type `ty` (the [`TYPES`] notation).
    fn field(&mut self, ty: &str) -> Value {
        if let Some(item) = ty.strip_prefix("[]") {
            return json!({"type": "array", "items": self.field(item)});
        }
        if let Some(value) = ty.strip_prefix("{}") {
            return json!({"type": "object", "additionalProperties": self.field(value)});
        }
        match ty {
            "string" | "integer" | "boolean" => json!({ "type": ty }),
            "number" => json!({"type": "number", "format": "double"}),
            "byte" => json!({"type": "string", "format": "byte"}),
            "time" => json!({"type": "string", "format": "date-time"}),
            "object" => json!({"type": "object"}),
            "int-or-string" => {
                self.schemas.entry(INT_OR_STRING).or_insert_with(|| {
                    json!({"oneOf": [{"type": "integer"}, {"type": "string"}], "format": "int-or-string",
                           "description": "A number or a string: a port number or a port's name, a count or a percentage (`25%`)."})
                });
                json!({"allOf": [{"$ref": format!("{PREFIX}{INT_OR_STRING}")}]})
            }
            model => match self.add_model(model) {
                Some(name) => {
                    json!({"allOf": [{"$ref": format!("{PREFIX}{name}")}], "default": {}})
                }
                None => json!({"type": "object"}),
            },
        }
    }

    /// A custom resource's schema: its `openAPIV3Schema` with the fields every object has.
    fn add_custom(&mut self, group: &str, version: &str, kind: &str, schema: &Value) -> String {
        let reversed: Vec<&str> = group.split('.').rev().collect();
        let name = format!("{}.{version}.{kind}", reversed.join("."));
        let meta = self.add_model("V1ObjectMeta").unwrap_or_default();
        let mut schema = schema.clone();
        if !schema.is_object() {
            schema = json!({});
        }
        schema["type"] = json!("object");
        let properties = schema
            .as_object_mut()
            .map(|s| s.entry("properties").or_insert_with(|| json!({})));
        if let Some(Value::Object(p)) = properties {
            p.insert(
                "apiVersion".into(),
                json!({"type": "string", "description": descriptions::API_VERSION}),
            );
            p.insert(
                "kind".into(),
                json!({"type": "string", "description": descriptions::KIND}),
            );
            p.insert(
                "metadata".into(),
                json!({"allOf": [{"$ref": format!("{PREFIX}{meta}")}], "description": descriptions::METADATA}),
            );
        }
        self.schemas.insert(name.clone(), schema);
        name
    }

    /// metrics-server's NodeMetrics and PodMetrics (not in the generated table).
    fn add_metrics(&mut self, kind: &str) -> Option<String> {
        let meta = self.add_model("V1ObjectMeta")?;
        let usage = json!({"type": "object", "additionalProperties": {"type": "string"},
                           "description": "CPU (cores) and memory (bytes) in use, as quantities."});
        let mut properties = json!({
            "apiVersion": {"type": "string", "description": descriptions::API_VERSION},
            "kind": {"type": "string", "description": descriptions::KIND},
            "metadata": {"allOf": [{"$ref": format!("{PREFIX}{meta}")}], "description": descriptions::METADATA},
            "timestamp": {"type": "string", "format": "date-time", "description": "When the figures were measured (the end of the window)."},
            "window": {"type": "string", "description": "How long the figures were measured over."},
        });
        let description = match kind {
            "NodeMetrics" => {
                properties["usage"] = usage;
                "A node's resource use, as metrics-server reports it (`kubectl top nodes`)."
            }
            "PodMetrics" => {
                properties["containers"] = json!({"type": "array", "description": "Each container's use.",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "usage": usage}}});
                "A pod's resource use per container, as metrics-server reports it (`kubectl top pods`)."
            }
            _ => return None,
        };
        let name = format!("io.k8s.metrics.pkg.apis.metrics.v1beta1.{kind}");
        self.schemas.insert(
            name.clone(),
            json!({"type": "object", "description": description, "properties": properties}),
        );
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_table_is_sorted_and_every_patch_tag_names_a_list_or_struct_field() {
        assert!(TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        for (ty, field, _, _) in PATCH {
            let found = TYPES.iter().any(|(_, name, fields)| {
                name.rsplit('.').next() == Some(ty) && fields.iter().any(|(f, _)| f == field)
            });
            assert!(found, "{ty}.{field}");
        }
    }

    #[test]
    fn a_pod_spec_carries_its_containers_merge_key() {
        let reg = Registry::default();
        let mut c = Components::new(&reg);
        let r = c.kind_ref(&json!({"group": "", "version": "v1", "kind": "Pod"}));
        assert_eq!(
            r.as_deref(),
            Some("#/components/schemas/io.k8s.api.core.v1.Pod")
        );
        let schemas = c.into_schemas();
        let containers = &schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
        assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
        assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
        assert_eq!(
            containers["items"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.Container"
        );
        assert!(schemas.contains_key("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
        assert_eq!(
            schemas["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"],
            json!([{"group": "", "version": "v1", "kind": "Pod"}])
        );
    }
}
