//! Strategic merge patch (`application/strategic-merge-patch+json`), which `kubectl apply`,
//! `set image`... send. It differs from a JSON merge patch where it matters to
//! `kubectl apply`: lists of containers, ports, env, conditions... merge by
//! their key (`name`, `containerPort`, `type`) instead of being replaced, and the patch carries
//! directives (`$setElementOrder/<list>`, `$patch: delete|replace`, `$retainKeys`,
//! `$deleteFromPrimitiveList/<list>`). The merge keys are those of the real API types
//! (`patchMergeKey` tags in k8s.io/api), looked up by the list's path in the kind's registry
//! module.
//!
//! The API server applies it to the stored object's JSON in [`super::patch`], for every client
//! alike: the real kubectl over HTTP and the page's own.

use serde_json::{Map, Value};

/// The merge key of the list at a path (field names from the object's root), from the
/// kind's registry module ([`crate::api::resource::Rules::merge_key`]).
pub type MergeKeys<'a> = &'a dyn Fn(&[&str]) -> Option<&'static str>;

/// Primitive lists whose strategy is `merge` (a set union), not replace.
fn is_primitive_set(path: &[&str]) -> bool {
    path == ["metadata", "finalizers"]
}

const ORDER: &str = "$setElementOrder/";
const DELETE_FROM: &str = "$deleteFromPrimitiveList/";

/// Applies `patch` to `target` (an object of the kind whose merge keys `keys` gives) in place.
pub fn apply(target: &mut Value, patch: &Value, keys: MergeKeys) {
    apply_at(target, patch, &mut Vec::new(), keys);
}

fn apply_at<'p>(target: &mut Value, patch: &'p Value, path: &mut Vec<&'p str>, keys: MergeKeys) {
    match (target.as_object_mut(), patch.as_object()) {
        (Some(t), Some(p)) => merge_map(t, p, path, keys),
        _ => *target = strip(patch),
    }
}

fn merge_map<'p>(
    target: &mut Map<String, Value>,
    patch: &'p Map<String, Value>,
    path: &mut Vec<&'p str>,
    keys: MergeKeys,
) {
    if patch.get("$patch").and_then(Value::as_str) == Some("replace") {
        *target = strip_map(patch);
        return;
    }
    for (key, value) in patch {
        if key.starts_with('$') {
            continue;
        }
        if value.is_null() {
            target.remove(key);
            continue;
        }
        path.push(key);
        let merge_key = keys(path);
        match (target.get_mut(key), value) {
            (Some(Value::Object(t)), Value::Object(p)) => {
                if p.get("$patch").and_then(Value::as_str) == Some("delete") {
                    target.remove(key);
                } else {
                    merge_map(t, p, path, keys);
                }
            }
            (Some(Value::Array(t)), Value::Array(p)) => {
                if let Some(mk) = merge_key {
                    merge_keyed_list(t, p, mk, path, keys);
                } else if is_primitive_set(path) {
                    for v in p {
                        if !t.contains(v) {
                            t.push(v.clone());
                        }
                    }
                } else {
                    *t = p.iter().map(strip).collect();
                }
            }
            _ => {
                let keyed_deletes_only = value.as_array().is_some_and(|items| {
                    merge_key.is_some() && items.iter().all(is_delete_directive)
                });
                if !keyed_deletes_only {
                    target.insert(key.clone(), strip(value));
                }
            }
        }
        path.pop();
    }
    // Directives naming sibling lists.
    for (key, value) in patch {
        if let Some(field) = key.strip_prefix(DELETE_FROM) {
            if let (Some(Value::Array(t)), Some(gone)) = (target.get_mut(field), value.as_array()) {
                t.retain(|v| !gone.contains(v));
            }
        }
        if let Some(field) = key.strip_prefix(ORDER) {
            if let (Some(Value::Array(t)), Some(order)) = (target.get_mut(field), value.as_array())
            {
                path.push(field);
                reorder(t, order, keys(path));
                path.pop();
            }
        }
    }
    if let Some(Value::Array(keep)) = patch.get("$retainKeys") {
        target.retain(|k, _| keep.iter().any(|v| v.as_str() == Some(k)));
    }
}

fn is_delete_directive(v: &Value) -> bool {
    v.get("$patch").and_then(Value::as_str) == Some("delete")
}

fn merge_keyed_list<'p>(
    target: &mut Vec<Value>,
    patch: &'p [Value],
    key: &str,
    path: &mut Vec<&'p str>,
    keys: MergeKeys,
) {
    for item in patch {
        let id = item.get(key);
        let pos = id.and_then(|id| target.iter().position(|t| t.get(key) == Some(id)));
        match (pos, is_delete_directive(item)) {
            (Some(i), true) => {
                target.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => {
                if let Some(slot) = target.get_mut(i) {
                    apply_at(slot, item, path, keys);
                }
            }
            (None, false) => target.push(strip(item)),
        }
    }
}

/// `$setElementOrder`: the listed elements first, in that order, then the others as they were.
fn reorder(list: &mut Vec<Value>, order: &[Value], key: Option<&str>) {
    let id = |v: &Value| match key {
        Some(k) => v.get(k).cloned(),
        None => Some(v.clone()),
    };
    let mut rest = std::mem::take(list);
    for wanted in order {
        let wanted = id(wanted);
        if let Some(i) = rest.iter().position(|v| id(v) == wanted) {
            list.push(rest.remove(i));
        }
    }
    list.append(&mut rest);
}

/// A patch value with its directives removed, as stored.
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(strip_map(m)),
        Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
        other => other.clone(),
    }
}

fn strip_map(m: &Map<String, Value>) -> Map<String, Value> {
    m.iter()
        .filter(|(k, v)| !k.starts_with('$') && !v.is_null())
        .map(|(k, v)| (k.clone(), strip(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn patched(mut target: Value, patch: Value) -> Value {
        apply(&mut target, &patch, &|p| {
            crate::api::Kind::Pod.resource().rules.merge_key(p)
        });
        target
    }

    #[test]
    fn keys_follow_the_path_not_the_bare_field_name() {
        // `ports` is keyed by containerPort inside a container only.
        let live = json!({"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 80}]}],
            "ports": [{"containerPort": 1}]}});
        let patch = json!({"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 81}]}],
            "ports": [{"containerPort": 2}]}});
        assert_eq!(
            patched(live, patch),
            json!({"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 80}, {"containerPort": 81}]}],
                "ports": [{"containerPort": 2}]}})
        );
    }

    #[test]
    fn containers_merge_by_name_keeping_unpatched_fields() {
        let live = json!({"spec": {"containers": [
            {"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]},
            {"name": "side", "image": "busybox"}]}});
        // What `kubectl apply` sends after the image changed in the file.
        let patch = json!({"spec": {"$setElementOrder/containers": [{"name": "web"}, {"name": "side"}],
            "containers": [{"name": "web", "image": "nginx:1.28"}]}});
        assert_eq!(
            patched(live, patch),
            json!({"spec": {"containers": [
                {"name": "web", "image": "nginx:1.28", "ports": [{"containerPort": 80}]},
                {"name": "side", "image": "busybox"}]}})
        );
    }

    #[test]
    fn conditions_merge_by_type_and_deletes_and_order_apply() {
        let live = json!({"status": {"conditions": [
            {"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True", "reason": "A"}]}});
        let patch = json!({"status": {
            "$setElementOrder/conditions": [{"type": "Progressing"}, {"type": "Available"}],
            "conditions": [{"type": "Progressing", "reason": "B"}]}});
        assert_eq!(
            patched(live.clone(), patch),
            json!({"status": {"conditions": [
                {"type": "Progressing", "status": "True", "reason": "B"}, {"type": "Available", "status": "True"}]}})
        );
        let delete = json!({"status": {"conditions": [{"type": "Available", "$patch": "delete"}]}});
        assert_eq!(
            patched(live, delete),
            json!({"status": {"conditions": [{"type": "Progressing", "status": "True", "reason": "A"}]}})
        );
    }

    #[test]
    fn maps_nulls_replace_retain_keys_and_primitive_lists() {
        let live = json!({"metadata": {"labels": {"a": "1", "b": "2"}, "finalizers": ["x"]},
            "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                     "args": ["old"], "selector": {"matchLabels": {"a": "1"}}}});
        let patch = json!({"metadata": {"labels": {"b": null, "c": "3"}, "finalizers": ["y"]},
            "spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"},
                     "args": ["new"], "selector": {"$patch": "replace", "matchLabels": {"z": "9"}}}});
        assert_eq!(
            patched(live, patch),
            json!({"metadata": {"labels": {"a": "1", "c": "3"}, "finalizers": ["x", "y"]},
                "spec": {"strategy": {"type": "Recreate"}, "args": ["new"], "selector": {"matchLabels": {"z": "9"}}}})
        );
        let live = json!({"metadata": {"finalizers": ["x", "y"]}});
        let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}});
        assert_eq!(
            patched(live, patch),
            json!({"metadata": {"finalizers": ["y"]}})
        );
    }

    fn json_leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            "[a-z]{0,3}".prop_map(Value::from)
        ]
    }

    fn json_value() -> impl Strategy<Value = Value> {
        json_leaf().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("name".to_string()),
                        Just("containers".to_string()),
                        Just("$patch".to_string()),
                        "[a-z]{1,3}"
                    ],
                    inner,
                    0..4
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Never panics, and a directive-free map patch without nulls or lists is a JSON merge.
        #[test]
        fn total_and_agrees_with_merge_patch_on_plain_maps(target in json_value(), patch in json_value()) {
                let t = patched(target.clone(), patch.clone());
            let plain = |v: &Value| !v.to_string().contains('$') && !v.to_string().contains("null") && !v.to_string().contains('[');
            if plain(&patch) && plain(&target) {
                let mut expected = target.clone();
                crate::apiserver::patch::merge(&mut expected, &patch);
                prop_assert_eq!(t, expected);
            }
        }
    }
}
