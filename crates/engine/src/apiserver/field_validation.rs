//! `fieldValidation` on create, update and patch: the body is checked for fields the Kubernetes schema
//! does not have (`spec.containers[0].imagePullPolicyy`) and for fields given twice, against the
//! real schema ([`crate::api::field_schema`], not the engine's smaller model, so a real field the
//! engine does not keep is still accepted); a custom resource's against its definition's
//! structural schema (the fields pruning drops, `x-kubernetes-preserve-unknown-fields`
//! honoured) and its `metadata` against `ObjectMeta`, as apiextensions-apiserver's decoder
//! reports them. `Strict` refuses with the real 400 text
//! (`Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field
//! "spec.foo"`), `Warn` (the default) returns one warning per field for the `Warning` header,
//! `Ignore` checks nothing.

use crate::api::field_schema::TYPES;
use crate::api::resource::ResourceInfo;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use watchlab_apimachinery::request::FieldValidation;
use watchlab_apimachinery::status::Status;

/// The body's problems as warnings (`unknown field "spec.foo"`), or the 400 that `Strict` answers.
/// A body that is not JSON passes: decoding reports it afterwards with its own error.
pub fn check(
    r: &'static ResourceInfo,
    body: &str,
    mode: FieldValidation,
) -> Result<Vec<String>, Status> {
    if mode == FieldValidation::Ignore {
        return Ok(Vec::new());
    }
    let problems = problems(r, body);
    if mode == FieldValidation::Strict && !problems.is_empty() {
        return Err(Status::bad_request(&format!(
            "{kind} in version {version:?} cannot be handled as a {kind}: strict decoding error: {}",
            problems.join(", "),
            kind = r.kind_name,
            version = r.version,
        )));
    }
    Ok(problems)
}

/// [`check`] of a patched object (`doc`, a PATCH's result): `Strict` refuses with the real 422
/// (`"" is invalid: patch: Invalid value: "{…}": strict decoding error: unknown field
/// "spec.foo"`, the patched object quoted), `Warn` warns.
pub fn check_patched(
    r: &'static ResourceInfo,
    doc: &Value,
    mode: FieldValidation,
) -> Result<Vec<String>, Status> {
    if mode == FieldValidation::Ignore {
        return Ok(Vec::new());
    }
    let body = doc.to_string();
    let problems = problems(r, &body);
    if mode == FieldValidation::Strict && !problems.is_empty() {
        let err = watchlab_apimachinery::validation::FieldError::invalid(
            "patch",
            watchlab_apimachinery::validation::BadValue::Str(body),
            &format!("strict decoding error: {}", problems.join(", ")),
        );
        return Err(Status::invalid("", "", "", &[err]));
    }
    Ok(problems)
}

/// Every unknown or duplicate field of `body` (`unknown field "spec.foo"`), in document order;
/// none for a body that is not JSON (decoding reports it afterwards with its own error). A
/// custom resource's come as apiextensions-apiserver lists them: the duplicates, then the
/// unknown fields of `metadata` (by name), then those its schema prunes (sorted).
pub fn problems(r: &'static ResourceInfo, body: &str) -> Vec<String> {
    let mut problems = Vec::new();
    // The kind's root type; none for a custom resource, checked by its own schema below.
    let root = r.schema_root;
    let mut de = serde_json::Deserializer::from_str(body);
    let scan = Scan {
        path: String::new(),
        ty: root,
        problems: &mut problems,
    };
    let Ok(value) = scan.deserialize(&mut de) else {
        return Vec::new();
    };
    if root.is_empty() {
        if let Some(schema) = r.rules.openapi_schema() {
            problems.extend(custom_unknown_fields(schema, value));
        }
    }
    problems
}

/// A custom object's unknown fields: `metadata`'s against `ObjectMeta` (its keys in order, as
/// the apiextensions decoder reads metadata back from a Go map), then the paths its
/// structural schema prunes.
fn custom_unknown_fields(schema: &Value, mut value: Value) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(meta) = value.get("metadata").filter(|m| m.is_object()) {
        let mut found = Vec::new();
        let scan = Scan {
            path: "metadata".to_string(),
            ty: "V1ObjectMeta",
            problems: &mut found,
        };
        // A `Value` is its own deserializer; its maps are sorted by key.
        if scan.deserialize(meta.clone()).is_ok() {
            problems.extend(found.into_iter().filter(|p| p.starts_with("unknown field")));
        }
    }
    let pruned = crate::api::schema::prune_unknown(schema, &mut value);
    problems.extend(pruned.iter().map(|p| format!("unknown field \"{p}\"")));
    problems
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The fields of schema type `ty`, sorted by name.
fn fields_of(ty: &str) -> Option<&'static [(&'static str, &'static str)]> {
    TYPES
        .binary_search_by(|(name, _)| name.cmp(&ty))
        .ok()
        .and_then(|i| TYPES.get(i))
        .map(|(_, fields)| *fields)
}

/// Parses JSON into a [`Value`] like serde_json does, noting in document order
/// `unknown field "path"` for every key schema type `ty` lacks and `duplicate field "path"` for
/// every key an object repeats (serde_json would silently keep the last, as `Warn` does).
/// `ty` is `X` for an object, `[]X` for a list of them, `` for anything unchecked.
struct Scan<'a> {
    path: String,
    ty: &'static str,
    problems: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let item_ty = self.ty.strip_prefix("[]").unwrap_or_default();
        while let Some(item) = seq.next_element_seed(Scan {
            path: format!("{}[{}]", self.path, items.len()),
            ty: item_ty,
            problems: &mut *self.problems,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        // A list type where an object stands, or an unchecked one: nothing to check here.
        let fields = if self.ty.starts_with("[]") {
            None
        } else {
            fields_of(self.ty)
        };
        while let Some(key) = map.next_key::<String>()? {
            let at = join(&self.path, &key);
            let mut ty = "";
            if let Some(fields) = fields {
                match fields.binary_search_by(|(name, _)| name.cmp(&key.as_str())) {
                    Ok(i) => ty = fields.get(i).map(|(_, t)| *t).unwrap_or_default(),
                    Err(_) => self.problems.push(format!("unknown field {at:?}")),
                }
            }
            let value = map.next_value_seed(Scan {
                path: at.clone(),
                ty,
                problems: &mut *self.problems,
            })?;
            if out.insert(key, value).is_some() {
                self.problems.push(format!("duplicate field {at:?}"));
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Kind;

    fn pod() -> &'static ResourceInfo {
        Kind::Pod.resource()
    }

    #[test]
    fn unknown_fields_are_found_against_the_real_schema() {
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labelz":{}},
            "spec":{"volumes":[],"containers":[{"name":"a","image":"i","imagePullPolicyy":"x",
            "volumeMounts":[{"name":"v","mountPath":"/m","bogus":1}]}]}}"#;
        let warnings = check(pod(), body, FieldValidation::Warn).unwrap();
        assert_eq!(
            warnings,
            [
                r#"unknown field "metadata.labelz""#,
                r#"unknown field "spec.containers[0].imagePullPolicyy""#,
                r#"unknown field "spec.containers[0].volumeMounts[0].bogus""#,
            ]
        );
        let err = check(pod(), body, FieldValidation::Strict).unwrap_err();
        assert_eq!(err.code(), 400);
        assert!(err.message.starts_with(
            r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "metadata.labelz", "#
        ), "{}", err.message);
        assert_eq!(
            check(pod(), body, FieldValidation::Ignore).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn duplicates_are_found_and_clean_bodies_pass() {
        let body = r#"{"kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"containers":[]}}"#;
        assert_eq!(
            check(pod(), body, FieldValidation::Warn).unwrap(),
            [r#"duplicate field "metadata.name""#]
        );
        let clean = r#"{"kind":"Pod","metadata":{"name":"a","labels":{"anything":"x"}},
            "spec":{"containers":[{"name":"a","image":"i","resources":{"limits":{"cpu":"1"}}}]}}"#;
        assert!(check(pod(), clean, FieldValidation::Strict)
            .unwrap()
            .is_empty());
        assert!(check(pod(), "not json", FieldValidation::Strict)
            .unwrap()
            .is_empty());
    }
}
