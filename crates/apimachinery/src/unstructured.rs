//! Reading fields out of API objects handled as unstructured JSON (apimachinery's
//! `unstructured.Unstructured` and its `NestedString` & co.): kubectl reads every object this
//! way, and the API server's Table printers read the objects they print. The helpers walk a path
//! and tolerate anything missing or of the wrong type, because data must never cause a panic.

use serde_json::Value;

/// The value at `path` (object keys), if every step exists.
pub fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, key| cur.get(*key))
}

/// A string field.
pub fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(v, path)?.as_str()
}

/// A string field, or "" when missing.
pub fn string(v: &Value, path: &[&str]) -> String {
    str_at(v, path).unwrap_or_default().to_string()
}

/// An integer field, or 0 when missing (Go's zero value).
pub fn int(v: &Value, path: &[&str]) -> i64 {
    at(v, path).and_then(Value::as_i64).unwrap_or(0)
}

/// An array field, or empty.
pub fn array<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    at(v, path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// `metadata.name`.
pub fn name(v: &Value) -> String {
    string(v, &["metadata", "name"])
}

/// `metadata.namespace`.
pub fn namespace(v: &Value) -> String {
    string(v, &["metadata", "namespace"])
}

/// A string-to-string map field (labels, annotations, selectors), sorted by key.
pub fn string_map(v: &Value, path: &[&str]) -> Vec<(String, String)> {
    at(v, path)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(String::from)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `k=v,k2=v2` as kubectl prints labels and selectors; `<none>` when empty.
pub fn joined_map(pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return "<none>".into();
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerant_accessors() {
        let v = json!({"metadata": {"name": "x", "labels": {"b": "2", "a": "1"}}, "spec": {"replicas": 3}});
        assert_eq!(name(&v), "x");
        assert_eq!(namespace(&v), "");
        assert_eq!(int(&v, &["spec", "replicas"]), 3);
        assert_eq!(int(&v, &["metadata", "name"]), 0);
        assert!(array(&v, &["spec"]).is_empty());
        assert_eq!(
            joined_map(&string_map(&v, &["metadata", "labels"])),
            "a=1,b=2"
        );
        assert_eq!(joined_map(&[]), "<none>");
    }
}
