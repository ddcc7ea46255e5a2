//! The three-way JSON merge patch client-side `kubectl apply` sends (apimachinery's
//! `CreateThreeWayJSONMergePatch`): from the last applied configuration (original), the new
//! manifest (modified) and the live object (current). Fields the manifest changes or adds are
//! set; fields the last apply had and the manifest dropped are deleted (`null`); fields only the
//! cluster set (status, defaults, other managers' labels) are left alone. Also applies a merge
//! patch (RFC 7386), which tests use to check a patch reaches the intended object.

use serde_json::{Map, Value};

/// The patch turning `current` into `modified`, deleting what `original` had and `modified`
/// dropped. An empty object means "unchanged".
pub fn three_way(original: Option<&Value>, modified: &Value, current: &Value) -> Value {
    diff(original, modified, current).unwrap_or_else(|| Value::Object(Map::new()))
}

fn diff(original: Option<&Value>, modified: &Value, current: &Value) -> Option<Value> {
    let (Some(m), Some(c)) = (modified.as_object(), current.as_object()) else {
        return (modified != current).then(|| modified.clone());
    };
    let mut patch = Map::new();
    for (k, mv) in m {
        let orig = original.and_then(|o| o.get(k));
        match c.get(k) {
            Some(cv) if mv.is_object() && cv.is_object() => {
                if let Some(sub) = diff(orig, mv, cv) {
                    if sub.as_object().is_none_or(|o| !o.is_empty()) {
                        patch.insert(k.clone(), sub);
                    }
                }
            }
            Some(cv) if cv == mv || (mv.is_array() && covers(cv, mv)) => {}
            _ => {
                patch.insert(k.clone(), mv.clone());
            }
        }
    }
    if let Some(o) = original.and_then(Value::as_object) {
        for k in o.keys() {
            if !m.contains_key(k) && c.contains_key(k) {
                patch.insert(k.clone(), Value::Null);
            }
        }
    }
    Some(Value::Object(patch))
}

/// Whether `current` already holds everything `wanted` says: the same scalars, every key of an
/// object, lists of the same length element by element. The API server fills defaults into
/// list elements (`imagePullPolicy`, `resources`...), which a merge patch would otherwise see as
/// a changed list on every apply; kubectl's strategic merge patch merges such lists by key, so
/// an untouched list sends nothing there either.
fn covers(current: &Value, wanted: &Value) -> bool {
    match (current, wanted) {
        (Value::Object(c), Value::Object(w)) => w
            .iter()
            .all(|(k, wv)| c.get(k).is_some_and(|cv| covers(cv, wv))),
        (Value::Array(c), Value::Array(w)) => {
            c.len() == w.len() && c.iter().zip(w).all(|(cv, wv)| covers(cv, wv))
        }
        (c, w) => c == w,
    }
}

/// RFC 7386 JSON merge patch application.
pub fn apply(target: &Value, patch: &Value) -> Value {
    let Some(p) = patch.as_object() else {
        return patch.clone();
    };
    let mut out = target.as_object().cloned().unwrap_or_default();
    for (k, v) in p {
        if v.is_null() {
            out.remove(k);
        } else {
            let merged = apply(out.get(k).unwrap_or(&Value::Null), v);
            out.insert(k.clone(), merged);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn changes_adds_and_deletes_only_what_apply_owns() {
        let original =
            json!({"metadata": {"labels": {"app": "a", "old": "x"}}, "spec": {"replicas": 3}});
        let modified =
            json!({"metadata": {"labels": {"app": "a"}}, "spec": {"replicas": 5, "paused": false}});
        let current = json!({"metadata": {"labels": {"app": "a", "old": "x", "team": "orders"}, "resourceVersion": "9"},
                             "spec": {"replicas": 3}, "status": {"readyReplicas": 3}});
        let patch = three_way(Some(&original), &modified, &current);
        assert_eq!(
            patch,
            json!({"metadata": {"labels": {"old": null}}, "spec": {"replicas": 5, "paused": false}})
        );
        let result = apply(&current, &patch);
        assert_eq!(
            result["metadata"]["labels"],
            json!({"app": "a", "team": "orders"})
        );
        assert_eq!(result["status"]["readyReplicas"], 3);
        assert_eq!(three_way(Some(&modified), &modified, &result), json!({}));
    }

    #[test]
    fn defaulted_lists_are_not_resent() {
        let m = json!({"spec": {"containers": [{"name": "api", "image": "a:1"}]}});
        let live = json!({"spec": {"containers": [{"name": "api", "image": "a:1", "imagePullPolicy": "IfNotPresent"}]}});
        assert_eq!(three_way(Some(&m), &m, &live), json!({}));
        let changed = json!({"spec": {"containers": [{"name": "api", "image": "a:2"}]}});
        assert_eq!(three_way(Some(&m), &changed, &live), changed);
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0i64..5).prop_map(Value::from),
            "[ab]".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 3, |inner| {
            prop::collection::btree_map("[abc]", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect()))
        })
    }

    fn strip_nulls(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), strip_nulls(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    proptest! {
        /// Applying the two-way patch (original = current) to current yields modified.
        #[test]
        fn patch_reaches_modified(current in json_value(), modified in json_value()) {
            let (current, modified) = (strip_nulls(&current), strip_nulls(&modified));
            prop_assume!(current.is_object() && modified.is_object());
            let patch = three_way(Some(&current), &modified, &current);
            prop_assert_eq!(apply(&current, &patch), modified);
        }
    }
}
