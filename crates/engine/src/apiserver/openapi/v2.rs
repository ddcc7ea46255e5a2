//! OpenAPI v2 (`/openapi/v2`): the one Swagger 2.0 document kube-apiserver still serves beside
//! v3, for every group-version at once. kubectl v1.32 reads it for `kubectl explain
//! --output=plaintext-openapiv2` (and falls back to it when v3 fails), and client-go's
//! `OpenAPISchema()` asks for it in protobuf (the HTTP server encodes it).
//!
//! Nothing here knows a kind: the document is translated from the v3 group-version documents
//! ([`super::group_version_document`]), so both always say the same thing. The translation is
//! the one kube-openapi's two builders differ by: a `requestBody` becomes a `body` parameter, a
//! parameter's `schema` is folded into it, a response's `content` becomes its `schema`,
//! `consumes`/`produces` name the media types the real handlers take and answer, components
//! become `definitions` (same names: `io.k8s.api.core.v1.Pod`) and every `$ref` follows them.
//! A field holding another type is `{$ref, description}` as in the real v2 document instead of
//! v3's `allOf: [{$ref}]`, and what Swagger 2.0 cannot say (`oneOf`, `anyOf`, `not`,
//! `nullable`) is left out; `IntOrString` is a `string` of format `int-or-string`, as there.

use super::{group_version_document, group_versions};
use crate::api::Registry;
use serde_json::{json, Map, Value};

/// The document's path.
pub const PATH: &str = "/openapi/v2";

const V3_PREFIX: &str = "#/components/schemas/";
const V2_PREFIX: &str = "#/definitions/";

/// What every operation answers in besides JSON (kube-apiserver's serializers).
const PRODUCES: &[&str] = &[
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];
/// A list operation's, which also streams (`?watch=true`).
const PRODUCES_LIST: &[&str] = &[
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf;stream=watch",
];
/// `pods/log`'s.
const PRODUCES_LOG: &[&str] = &[
    "text/plain",
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];
/// A PATCH's bodies, in the order the real document lists them.
const PATCH_TYPES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

/// Whether `path` (without its query) is the v2 document's.
pub fn is_path(path: &str) -> bool {
    path.split(['?', '#'])
        .next()
        .is_some_and(|p| p.trim_end_matches('/') == PATH)
}

/// The Swagger 2.0 document of everything `registry` serves: every group-version's paths, and
/// every schema they reach as `definitions` (a kind named by several group-versions carries
/// each one's `x-kubernetes-group-version-kind`).
pub fn document(registry: &Registry) -> Value {
    let mut paths = Map::new();
    let mut definitions = Map::new();
    for gv_path in group_versions(registry) {
        let Some(doc) = group_version_document(registry, &gv_path) else {
            continue;
        };
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            paths.entry(path.clone()).or_insert_with(|| path_item(item));
        }
        let schemas = doc["components"]["schemas"].as_object();
        for (name, schema) in schemas.into_iter().flatten() {
            add_definition(&mut definitions, name, convert_schema(schema));
        }
    }
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "definitions": definitions,
    })
}

/// Adds `schema` as `name`, or merges its group-version-kinds into the one already there.
fn add_definition(definitions: &mut Map<String, Value>, name: &str, schema: Value) {
    const GVK: &str = "x-kubernetes-group-version-kind";
    let Some(existing) = definitions.get_mut(name) else {
        definitions.insert(name.to_string(), schema);
        return;
    };
    let Some(Value::Array(more)) = schema.get(GVK) else {
        return;
    };
    if let Value::Object(e) = existing {
        if let Value::Array(list) = e.entry(GVK).or_insert_with(|| json!([])) {
            for gvk in more {
                if !list.contains(gvk) {
                    list.push(gvk.clone());
                }
            }
        }
    }
}

/// A v3 path item: its parameters folded, each operation translated.
fn path_item(item: &Value) -> Value {
    let mut out = Map::new();
    for (key, value) in item.as_object().into_iter().flatten() {
        let converted = match key.as_str() {
            "parameters" => parameters(value),
            "get" | "put" | "post" | "delete" | "options" | "head" | "patch" => operation(value),
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    Value::Object(out)
}

fn parameters(list: &Value) -> Value {
    Value::Array(
        list.as_array()
            .into_iter()
            .flatten()
            .map(parameter)
            .collect(),
    )
}

/// A v3 query or path parameter: its `schema`'s keywords (`type`, `uniqueItems`) move up.
fn parameter(p: &Value) -> Value {
    let Some(fields) = p.as_object() else {
        return p.clone();
    };
    let mut out = Map::new();
    for (key, value) in fields {
        match (key.as_str(), value) {
            ("schema", Value::Object(schema)) => {
                for (k, v) in schema {
                    out.insert(k.clone(), v.clone());
                }
            }
            ("$ref", Value::String(r)) => {
                out.insert(key.clone(), json!(rewrite_ref(r)));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// A v3 operation: `requestBody` → a first `body` parameter, responses' `content` → `schema`,
/// with `consumes` and `produces`.
fn operation(op: &Value) -> Value {
    let Some(fields) = op.as_object() else {
        return op.clone();
    };
    let mut out = fields.clone();
    let body = out.remove("requestBody");
    let mut params = match out.get("parameters") {
        Some(list) => parameters(list).as_array().cloned().unwrap_or_default(),
        None => Vec::new(),
    };
    let mut consumes = vec!["*/*"];
    if let Some(body) = &body {
        let content = body["content"].as_object();
        if content.is_some_and(|c| PATCH_TYPES.iter().any(|t| c.contains_key(*t))) {
            consumes = PATCH_TYPES.to_vec();
        }
        let mut param = json!({"name": "body", "in": "body"});
        if let Some(schema) = content.and_then(|c| c.values().next()) {
            param["schema"] = convert_schema(&schema["schema"]);
        }
        if body["required"] == json!(true) {
            param["required"] = json!(true);
        }
        params.insert(0, param);
    }
    let responses = fields.get("responses").map(responses).unwrap_or(json!({}));
    let text = responses_have(fields.get("responses"), "text/plain");
    let produces = match fields.get("x-kubernetes-action").and_then(Value::as_str) {
        _ if text => PRODUCES_LOG,
        Some("list") => PRODUCES_LIST,
        _ => PRODUCES,
    };
    out.insert("parameters".into(), Value::Array(params));
    out.insert("responses".into(), responses);
    out.insert("consumes".into(), json!(consumes));
    out.insert("produces".into(), json!(produces));
    Value::Object(out)
}

/// Whether any response of `responses` has content of `media`.
fn responses_have(responses: Option<&Value>, media: &str) -> bool {
    responses
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .any(|(_, r)| r["content"].get(media).is_some())
}

/// Each response with the schema of its (first) content, as v2 has one schema per response.
fn responses(responses: &Value) -> Value {
    let mut out = Map::new();
    for (code, r) in responses.as_object().into_iter().flatten() {
        let mut answer = json!({"description": r["description"].as_str().unwrap_or_default()});
        let first = r["content"].as_object().and_then(|c| c.values().next());
        if let Some(schema) = first.and_then(|m| m.get("schema")) {
            answer["schema"] = convert_schema(schema);
        }
        out.insert(code.clone(), answer);
    }
    Value::Object(out)
}

/// `#/components/schemas/X` → `#/definitions/X`; other references unchanged.
fn rewrite_ref(r: &str) -> String {
    match r.strip_prefix(V3_PREFIX) {
        Some(name) => format!("{V2_PREFIX}{name}"),
        None => r.to_string(),
    }
}

/// The types a v2 schema may have (kube-openapi's v2 reader refuses any other, and one bad
/// definition fails the whole document for kubectl).
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array"];

/// A v3 schema as v2 says it (recursively, through the keywords that hold schemas only: a
/// `default` or an `enum` is data).
pub fn convert_schema(schema: &Value) -> Value {
    let Some(fields) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in fields {
        let converted = match key.as_str() {
            "oneOf" | "anyOf" | "not" | "nullable" => continue,
            "$ref" => json!(rewrite_ref(value.as_str().unwrap_or_default())),
            "properties" => {
                let props = value.as_object().into_iter().flatten();
                Value::Object(props.map(|(k, v)| (k.clone(), convert_schema(v))).collect())
            }
            "items" | "additionalProperties" if value.is_object() => convert_schema(value),
            "items" | "allOf" if value.is_array() => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(convert_schema)
                    .collect(),
            ),
            "type" if !value.as_str().is_some_and(|t| TYPES.contains(&t)) => continue,
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    hoist_single_ref(&mut out);
    if !out.contains_key("type") && out.get("format") == Some(&json!("int-or-string")) {
        out.insert("type".into(), json!("string"));
    }
    if out.get("type") == Some(&json!("array")) && !out.contains_key("items") {
        // kube-openapi's v2 reader wants exactly one item schema: any value.
        out.insert("items".into(), json!({}));
    }
    Value::Object(out)
}

/// `allOf: [{$ref: X}]` (v3's way of giving a reference siblings) → `$ref: X` beside them.
fn hoist_single_ref(schema: &mut Map<String, Value>) {
    let single = match schema.get("allOf") {
        Some(Value::Array(list)) if list.len() == 1 => list[0].get("$ref").cloned(),
        _ => None,
    };
    if let Some(r) = single {
        schema.remove("allOf");
        schema.insert("$ref".into(), r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        document(&Registry::default())
    }

    #[test]
    fn one_swagger_document_for_every_group_version() {
        let d = doc();
        assert_eq!(d["swagger"], "2.0");
        assert_eq!(
            d["info"],
            json!({"title": "Kubernetes", "version": "v1.32.0"})
        );
        for path in [
            "/api/v1/namespaces/{namespace}/pods",
            "/api/v1/namespaces/{namespace}/pods/{name}",
            "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
            "/api/v1/nodes",
        ] {
            assert!(d["paths"].get(path).is_some(), "{path}");
        }
        let defs = d["definitions"].as_object().cloned().unwrap_or_default();
        for name in [
            "io.k8s.api.core.v1.Pod",
            "io.k8s.api.apps.v1.Deployment",
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
            "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        ] {
            assert!(defs.contains_key(name), "{name}");
        }
        assert_eq!(
            defs["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"],
            json!([{"group": "apps", "version": "v1", "kind": "Deployment"}])
        );
        assert!(is_path("/openapi/v2") && is_path("/openapi/v2/?x=1") && !is_path("/openapi/v3"));
    }

    /// Every `$ref` anywhere names a definition of the document (kubectl refuses the whole
    /// document otherwise), and no v3 leftovers remain.
    #[test]
    fn every_reference_names_a_definition() {
        let d = doc();
        let defs = d["definitions"].as_object().cloned().unwrap_or_default();
        let mut refs = Vec::new();
        collect_refs(&d, &mut refs);
        assert!(refs.len() > 100, "{}", refs.len());
        for r in refs {
            let name = r.strip_prefix(V2_PREFIX);
            assert!(name.is_some_and(|n| defs.contains_key(n)), "{r}");
        }
        let mut keys = Vec::new();
        collect_keys(&d, &mut keys);
        for v3 in [
            "allOf",
            "oneOf",
            "anyOf",
            "nullable",
            "requestBody",
            "content",
            "components",
        ] {
            assert!(!keys.contains(&v3.to_string()), "{v3}");
        }
    }

    /// Every keyword of `v` (not the names of properties, which are data: JSONSchemaProps has
    /// a field `allOf`).
    fn collect_keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    out.push(k.clone());
                    match (k.as_str(), v) {
                        ("properties" | "definitions" | "paths", Value::Object(p)) => {
                            p.values().for_each(|v| collect_keys(v, out))
                        }
                        _ => collect_keys(v, out),
                    }
                }
            }
            Value::Array(l) => l.iter().for_each(|v| collect_keys(v, out)),
            _ => {}
        }
    }

    fn collect_refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => out.push(r.clone()),
                        _ => collect_refs(v, out),
                    }
                }
            }
            Value::Array(l) => l.iter().for_each(|v| collect_refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn fields_keep_their_descriptions_and_patch_strategies() {
        let d = doc();
        let defs = &d["definitions"];
        let containers = &defs["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
        assert_eq!(containers["type"], "array");
        assert_eq!(
            containers["items"]["$ref"],
            "#/definitions/io.k8s.api.core.v1.Container"
        );
        assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
        assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
        let strategy = &defs["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"];
        assert_eq!(
            strategy["$ref"],
            "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy"
        );
        assert_eq!(
            strategy["description"],
            "How a new template replaces the old pods."
        );
        assert_eq!(strategy["x-kubernetes-patch-strategy"], "retainKeys");
        assert!(strategy.get("type").is_none() && strategy.get("allOf").is_none());
        let ios = &defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"];
        assert_eq!(
            (&ios["type"], &ios["format"]),
            (&json!("string"), &json!("int-or-string"))
        );
    }

    #[test]
    fn operations_take_a_body_parameter_and_name_their_media_types() {
        let d = doc();
        let item = &d["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
        let patch = &item["patch"];
        assert_eq!(patch["consumes"], json!(PATCH_TYPES));
        assert_eq!(patch["produces"], json!(PRODUCES));
        assert_eq!(patch["parameters"][0]["in"], "body");
        assert_eq!(patch["parameters"][0]["required"], true);
        let field_validation = patch["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == "fieldValidation")
            .cloned()
            .unwrap_or_default();
        assert_eq!(field_validation["in"], "query");
        assert_eq!(field_validation["type"], "string");
        assert_eq!(
            patch["x-kubernetes-group-version-kind"],
            json!({"group": "apps", "version": "v1", "kind": "Deployment"})
        );
        let put = &item["put"];
        assert_eq!(put["consumes"], json!(["*/*"]));
        assert_eq!(
            put["parameters"][0]["schema"]["$ref"],
            "#/definitions/io.k8s.api.apps.v1.Deployment"
        );
        assert_eq!(
            put["responses"]["200"]["schema"]["$ref"],
            "#/definitions/io.k8s.api.apps.v1.Deployment"
        );
        let name = &item["parameters"][0];
        assert_eq!(
            (&name["name"], &name["in"], &name["type"]),
            (&json!("name"), &json!("path"), &json!("string"))
        );
        let list = &d["paths"]["/apis/apps/v1/deployments"]["get"];
        assert_eq!(list["produces"], json!(PRODUCES_LIST));
        let log = &d["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/log"]["get"];
        assert_eq!(log["produces"], json!(PRODUCES_LOG));
        assert_eq!(log["responses"]["200"]["schema"]["type"], "string");
    }

    #[test]
    fn v3_only_keywords_are_translated_or_dropped() {
        let v3 = json!({
            "type": "object",
            "properties": {
                "a": {"allOf": [{"$ref": "#/components/schemas/X"}], "default": {}, "description": "d"},
                "b": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true},
                "c": {"type": "array"},
                "d": {"type": "null", "nullable": true},
                "e": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Y"}},
            },
        });
        let v2 = convert_schema(&v3);
        let p = &v2["properties"];
        assert_eq!(
            p["a"],
            json!({"$ref": "#/definitions/X", "default": {}, "description": "d"})
        );
        assert_eq!(p["b"], json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(p["c"], json!({"type": "array", "items": {}}));
        assert_eq!(p["d"], json!({}));
        assert_eq!(p["e"]["additionalProperties"]["$ref"], "#/definitions/Y");
    }

    #[test]
    fn a_kind_named_by_two_group_versions_carries_both() {
        let mut defs = Map::new();
        let gvk = |g: &str| json!({"x-kubernetes-group-version-kind": [{"group": g, "version": "v1", "kind": "K"}]});
        add_definition(&mut defs, "K", gvk("a"));
        add_definition(&mut defs, "K", gvk("b"));
        add_definition(&mut defs, "K", gvk("a"));
        assert_eq!(
            defs["K"]["x-kubernetes-group-version-kind"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }
}
