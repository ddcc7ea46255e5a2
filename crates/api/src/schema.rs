//! A CustomResourceDefinition's `openAPIV3Schema`, for the common subset the apiextensions
//! apiserver enforces on custom objects: `type`, `properties`, `required`, `enum`,
//! `minimum`/`maximum`, `minLength`/`maxLength`, `pattern`, `items`, `additionalProperties` and
//! `x-kubernetes-preserve-unknown-fields`, with kube-openapi's 422 texts (`spec.replicas in body
//! must be of type integer: "x"`). It also prunes unknown fields as a structural schema does
//! (listing their paths for `fieldValidation`), and
//! checks that a schema is structural (every specified field has a type) and that its patterns
//! compile before a CRD is accepted. Patterns are RE2 syntax (Go's `regexp`), matched with the
//! `regex-lite` crate, which implements the same syntax in linear time (ASCII `\w`/`\d`/`\s` as
//! Go's; no Unicode classes such as `\p{Greek}`: see the README's differences).

use regex_lite::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::validation::{BadValue, FieldError};

const PRESERVE: &str = "x-kubernetes-preserve-unknown-fields";
const INT_OR_STRING: &str = "x-kubernetes-int-or-string";
const EMBEDDED: &str = "x-kubernetes-embedded-resource";
/// The deepest schema walked (a bound against hostile nesting).
const MAX_DEPTH: usize = 64;

fn bad_value(v: &Value) -> BadValue {
    match v {
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Number(n) => BadValue::Verbatim(n.to_string()),
        other => BadValue::Verbatim(other.to_string()),
    }
}

/// The JSON type name kube-openapi reports for a value.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        other => type_name(v) == other,
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// Everything wrong with `value` at `path` under `schema`.
pub fn validate(schema: &Value, value: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut patterns = HashMap::new();
    validate_at(schema, value, path, 0, &mut patterns, &mut errs);
    errs
}

/// The schema's patterns compiled once per validation (a list of many items shares one);
/// `None` for one that does not compile (a stored CRD's were checked when it was written).
type Patterns<'s> = HashMap<&'s str, Option<Regex>>;

// Long on purpose: one openAPIV3Schema keyword after another (type, enum, bounds, lengths,
// pattern, required, properties, items), each a few lines, in the order the errors are listed.
fn validate_at<'s>(
    schema: &'s Value,
    value: &Value,
    path: &str,
    depth: usize,
    patterns: &mut Patterns<'s>,
    errs: &mut Vec<FieldError>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let int_or_string = schema[INT_OR_STRING].as_bool() == Some(true);
    if let Some(ty) = schema["type"].as_str() {
        if !has_type(value, ty) && !(int_or_string && (value.is_string() || value.is_i64())) {
            errs.push(FieldError::invalid(
                path,
                bad_value(value),
                &format!(
                    "{path} in body must be of type {ty}: \"{}\"",
                    type_name(value)
                ),
            ));
            return;
        }
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(value) {
            let texts: Vec<String> = allowed
                .iter()
                .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            errs.push(FieldError::not_supported(path, bad_value(value), &refs));
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema["minimum"].as_f64().filter(|m| n < *m) {
            errs.push(FieldError::invalid(
                path,
                bad_value(value),
                &format!(
                    "{path} in body should be greater than or equal to {}",
                    number(min)
                ),
            ));
        }
        if let Some(max) = schema["maximum"].as_f64().filter(|m| n > *m) {
            errs.push(FieldError::invalid(
                path,
                bad_value(value),
                &format!(
                    "{path} in body should be less than or equal to {}",
                    number(max)
                ),
            ));
        }
    }
    if let Some(s) = value.as_str() {
        let len = s.chars().count() as u64;
        if let Some(min) = schema["minLength"].as_u64().filter(|m| len < *m) {
            errs.push(FieldError::invalid(
                path,
                bad_value(value),
                &format!("{path} in body should be at least {min} chars long"),
            ));
        }
        if let Some(max) = schema["maxLength"].as_u64().filter(|m| len > *m) {
            errs.push(FieldError::invalid(
                path,
                bad_value(value),
                &format!("{path} in body should be at most {max} chars long"),
            ));
        }
        if let Some(pattern) = schema["pattern"].as_str() {
            let re = patterns
                .entry(pattern)
                .or_insert_with(|| Regex::new(pattern).ok());
            if re.as_ref().is_some_and(|re| !re.is_match(s)) {
                errs.push(FieldError::invalid(
                    path,
                    bad_value(value),
                    &format!("{path} in body should match '{pattern}'"),
                ));
            }
        }
    }
    if let Some(obj) = value.as_object() {
        for req in schema["required"].as_array().into_iter().flatten() {
            if let Some(name) = req.as_str().filter(|n| !obj.contains_key(*n)) {
                errs.push(FieldError::required(&join(path, name), ""));
            }
        }
        let additional = schema.get("additionalProperties").filter(|a| a.is_object());
        for (k, v) in obj {
            if let Some(s) = schema["properties"].get(k).or(additional) {
                validate_at(s, v, &join(path, k), depth + 1, patterns, errs);
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, v) in list.iter().enumerate() {
            validate_at(items, v, &format!("{path}[{i}]"), depth + 1, patterns, errs);
        }
    }
}

/// A bound as Go prints it (`1`, not `1.0`).
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// Drops the fields `schema` does not declare (unless it preserves unknown fields), as the
/// apiserver prunes a structural schema's objects before storing them.
pub fn prune(schema: &Value, value: &mut Value) {
    let mut pruner = Pruner::default();
    pruner.prune(Some(schema), value, true, 0);
}

/// [`prune`], returning the paths of the fields it dropped (`spec.foo`, `spec.routes[0].x`),
/// sorted, as apiextensions-apiserver's pruning lists them for `fieldValidation`
/// (`unknown field "spec.foo"`). `value` is a whole object: at its root `apiVersion`, `kind`
/// and `metadata` are not the schema's to prune.
pub fn prune_unknown(schema: &Value, value: &mut Value) -> Vec<String> {
    let mut pruner = Pruner {
        track: true,
        ..Pruner::default()
    };
    pruner.prune(Some(schema), value, true, 0);
    sort::sort(&mut pruner.unknown);
    pruner.unknown
}

/// The fields every object has outside its schema (skipped at the root and in an
/// `x-kubernetes-embedded-resource`).
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// The structural pruning algorithm (k8s.io/apiextensions-apiserver `schema/pruning`): a field
/// goes unless `properties` or `additionalProperties` describe it, or a schema on the way has
/// `x-kubernetes-preserve-unknown-fields` (whose declared fields are still pruned inside).
#[derive(Default)]
struct Pruner {
    track: bool,
    /// Where the walk is (`spec.routes[0]`), kept only when tracking.
    path: String,
    unknown: Vec<String>,
}

impl Pruner {
    /// Runs `f` with `key` (or `[i]`) appended to the path.
    fn at(&mut self, key: Result<&str, usize>, f: impl FnOnce(&mut Self)) {
        let len = self.path.len();
        if self.track {
            match key {
                Ok(k) if self.path.is_empty() => self.path.push_str(k),
                Ok(k) => {
                    self.path.push('.');
                    self.path.push_str(k);
                }
                Err(i) => self.path.push_str(&format!("[{i}]")),
            }
        }
        f(self);
        self.path.truncate(len);
    }

    fn record(&mut self, key: &str) {
        if self.track {
            self.at(Ok(key), |p| p.unknown.push(p.path.clone()));
        }
    }

    /// The schema a map's value `key` is pruned by: its property, else `additionalProperties`
    /// (`true`/`false` prune as a missing schema does); `None` when neither describes it.
    fn schema_of<'s>(schema: &'s Value, key: &str) -> Option<Option<&'s Value>> {
        if let Some(p) = schema["properties"].get(key) {
            return Some(Some(p));
        }
        match schema.get("additionalProperties") {
            Some(a) if a.is_object() => Some(Some(a)),
            Some(a) if a.is_boolean() => Some(None),
            _ => None,
        }
    }

    fn prune(&mut self, schema: Option<&Value>, value: &mut Value, root: bool, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        if let Some(s) = schema.filter(|s| s[PRESERVE].as_bool() == Some(true)) {
            self.skip_prune(s, value, root, depth);
            return;
        }
        match value {
            Value::Object(obj) => {
                let Some(s) = schema else {
                    for k in obj.keys() {
                        self.record(k);
                    }
                    obj.clear();
                    return;
                };
                let embedded = root || s[EMBEDDED].as_bool() == Some(true);
                let mut dropped = Vec::new();
                for (k, v) in obj.iter_mut() {
                    if embedded && META_FIELDS.contains(&k.as_str()) {
                        continue;
                    }
                    match Self::schema_of(s, k) {
                        Some(child) => self.at(Ok(k), |p| p.prune(child, v, false, depth + 1)),
                        None => {
                            self.record(k);
                            dropped.push(k.clone());
                        }
                    }
                }
                for k in dropped {
                    obj.remove(&k);
                }
            }
            Value::Array(list) => match schema {
                None => self.prune_items(None, list, depth),
                Some(s) => {
                    // A list without `items` (not structural: the real server refuses such a
                    // schema) is left as it is.
                    if let Some(items) = s.get("items") {
                        self.prune_items(Some(items), list, depth);
                    }
                }
            },
            _ => {}
        }
    }

    fn prune_items(&mut self, items: Option<&Value>, list: &mut [Value], depth: usize) {
        for (i, v) in list.iter_mut().enumerate() {
            self.at(Err(i), |p| p.prune(items, v, false, depth + 1));
        }
    }

    /// Under `x-kubernetes-preserve-unknown-fields`: unknown fields stay, declared ones are
    /// pruned by their own schemas (a list's items by this same rule).
    fn skip_prune(&mut self, schema: &Value, value: &mut Value, root: bool, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let embedded = root || schema[EMBEDDED].as_bool() == Some(true);
        match value {
            Value::Object(obj) => {
                for (k, v) in obj.iter_mut() {
                    if embedded && META_FIELDS.contains(&k.as_str()) {
                        continue;
                    }
                    if let Some(child) = Self::schema_of(schema, k) {
                        self.at(Ok(k), |p| p.prune(child, v, false, depth + 1));
                    }
                }
            }
            Value::Array(list) => {
                if let Some(items) = schema.get("items") {
                    for (i, v) in list.iter_mut().enumerate() {
                        self.at(Err(i), |p| p.skip_prune(items, v, false, depth + 1));
                    }
                }
            }
            _ => {}
        }
    }
}

/// What makes a schema non-structural (`spec.versions[0].schema.openAPIV3Schema` at `path`):
/// a specified field without a type, or a root that is not an object — or invalid: a pattern
/// that does not compile — with the real texts.
pub fn structural_errors(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match schema["type"].as_str() {
        Some("object") => {}
        Some(other) => errs.push(FieldError::not_supported(
            &format!("{path}.type"),
            other,
            &["object"],
        )),
        None => errs.push(FieldError::required(
            &format!("{path}.type"),
            "must not be empty at the root",
        )),
    }
    walk_structural(schema, path, 0, &mut errs);
    errs
}

fn walk_structural(schema: &Value, path: &str, depth: usize, errs: &mut Vec<FieldError>) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(pattern) = schema["pattern"].as_str() {
        if let Err(e) = Regex::new(pattern) {
            errs.push(FieldError::invalid(
                &format!("{path}.pattern"),
                pattern,
                &format!(
                    "must be a valid regular expression, but isn't: error parsing regexp: {}",
                    regex_error(&e)
                ),
            ));
        }
    }
    let typed = |s: &Value| {
        s["type"].as_str().is_some_and(|t| !t.is_empty())
            || s[PRESERVE].as_bool() == Some(true)
            || s[INT_OR_STRING].as_bool() == Some(true)
    };
    if let Some(props) = schema["properties"].as_object() {
        for (k, s) in props {
            let p = format!("{path}.properties[{k}]");
            if !typed(s) {
                errs.push(FieldError::required(
                    &format!("{p}.type"),
                    "must not be empty for specified object fields",
                ));
            }
            walk_structural(s, &p, depth + 1, errs);
        }
    }
    if let Some(items) = schema.get("items") {
        let p = format!("{path}.items");
        if !typed(items) {
            errs.push(FieldError::required(
                &format!("{p}.type"),
                "must not be empty for specified array items",
            ));
        }
        walk_structural(items, &p, depth + 1, errs);
    }
}

/// The last line of the `regex-lite` crate's (multi-line) error, without its `error: ` prefix: what
/// went wrong, where Go's `regexp` says it in its own words.
fn regex_error(e: &regex_lite::Error) -> String {
    let text = e.to_string();
    let last = text.lines().last().unwrap_or_default().trim();
    last.strip_prefix("error: ").unwrap_or(last).to_string()
}

/// The schema of `metadata`-less objects: everything preserved (a CRD without a schema).
pub fn preserve_all() -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::String("object".into()));
    m.insert(PRESERVE.into(), Value::Bool(true));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn website() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["host"],
            "properties": {
                "host": {"type": "string", "minLength": 1, "maxLength": 20,
                    "pattern": "^[a-z0-9.-]+$"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
                "tier": {"type": "string", "enum": ["free", "pro"]},
                "paths": {"type": "array", "items": {"type": "string"}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}})
    }

    fn texts(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn errors_read_as_kube_openapi_writes_them() {
        let bad = json!({"spec": {"replicas": "three", "tier": "gold", "paths": ["/", 4]}});
        assert_eq!(
            texts(&validate(&website(), &bad, "")),
            [
                "spec.host: Required value",
                "spec.paths[1]: Invalid value: 4: spec.paths[1] in body must be of type string: \"integer\"",
                "spec.replicas: Invalid value: \"three\": spec.replicas in body must be of type integer: \"string\"",
                "spec.tier: Unsupported value: \"gold\": supported values: \"free\", \"pro\"",
            ]
        );
        let bounds = json!({"spec": {"host": "", "replicas": 11}});
        assert_eq!(
            texts(&validate(&website(), &bounds, "")),
            [
                "spec.host: Invalid value: \"\": spec.host in body should be at least 1 chars long",
                "spec.host: Invalid value: \"\": spec.host in body should match '^[a-z0-9.-]+$'",
                "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
            ]
        );
        assert!(validate(
            &website(),
            &json!({"spec": {"host": "a", "replicas": 1}}),
            ""
        )
        .is_empty());
        let pattern = json!({"spec": {"host": "Blog_Site", "paths": ["/a"]}});
        assert_eq!(
            texts(&validate(&website(), &pattern, "")),
            ["spec.host: Invalid value: \"Blog_Site\": spec.host in body should match '^[a-z0-9.-]+$'"]
        );
    }

    #[test]
    fn a_pattern_that_does_not_compile_is_refused() {
        let schema =
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "+"}}});
        let errs = texts(&structural_errors(&schema, "s"));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("s.properties[a].pattern: Invalid value: \"+\": must be a valid regular expression, but isn't: error parsing regexp: "),
            "{errs:?}"
        );
        assert!(!errs[0].contains('\n'), "{errs:?}");
        // Validation with such a stored schema checks nothing of the pattern, and never panics.
        assert!(validate(&schema, &json!({"a": "x"}), "").is_empty());
    }

    #[test]
    fn unknown_fields_are_pruned_unless_preserved() {
        let mut v =
            json!({"spec": {"host": "a", "typo": 1, "extra": {"anything": [1]}}, "junk": true});
        prune(&website(), &mut v);
        assert_eq!(
            v,
            json!({"spec": {"host": "a", "extra": {"anything": [1]}}})
        );
    }

    #[test]
    fn pruning_lists_what_it_drops_sorted_and_follows_maps_and_lists() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "routes": {"type": "array", "items": {"type": "object",
                    "properties": {"path": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "ports": {"type": "object", "additionalProperties": {"type": "object",
                    "properties": {"port": {"type": "integer"}}}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"inner": {"type": "object", "properties": {}}}}}}}});
        let mut v = json!({
            "apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "a"},
            "zeta": 1,
            "spec": {"routes": [{"path": "/", "weight": 2}, {"path": "/b"}],
                "labels": {"a": "b"},
                "ports": {"http": {"port": 80, "proto": "TCP"}},
                "extra": {"kept": true, "inner": {"gone": 1}},
                "bogus": {"deep": 1}}});
        assert_eq!(
            prune_unknown(&schema, &mut v),
            [
                "spec.bogus",
                "spec.extra.inner.gone",
                "spec.ports.http.proto",
                "spec.routes[0].weight",
                "zeta"
            ]
        );
        assert_eq!(
            v,
            json!({
                "apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "a"},
                "spec": {"routes": [{"path": "/"}, {"path": "/b"}],
                    "labels": {"a": "b"},
                    "ports": {"http": {"port": 80}},
                    "extra": {"kept": true, "inner": {}}}})
        );
        let bad_label = json!({"spec": {"labels": {"a": 1}}});
        assert_eq!(
            texts(&validate(&schema, &bad_label, "")),
            ["spec.labels.a: Invalid value: 1: spec.labels.a in body must be of type string: \"integer\""]
        );
    }

    #[test]
    fn a_field_without_a_type_is_not_structural() {
        let schema = json!({"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}});
        assert_eq!(
            texts(&structural_errors(&schema, "spec.validation.openAPIV3Schema")),
            ["spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"]
        );
        assert!(structural_errors(&website(), "s").is_empty());
    }
}
