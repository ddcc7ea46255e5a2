//! What one write changed in an object: the field-by-field difference between two versions of
//! it, as the ledger shows it (`metadata.labels.team: + orders`, `status.phase: Pending →
//! Running`, `spec.nodeName: + node-b`). The first text's lesson is that any change, even one
//! label, is a new revision; this makes the change itself readable at a glance.
//!
//! Pure: both versions are turned into their JSON (the shape `kubectl get -o json` shows) and
//! compared. `metadata.resourceVersion` is left out (every write moves it; the ledger's revision
//! column already says where to), and so is `metadata.managedFields` (server bookkeeping). List
//! items that all carry a `type` or `name` (conditions, containers, container statuses) are
//! matched by it, as a strategic merge patch would, so a condition flipping reads
//! `status.conditions[Ready].status: False → True` and not as a whole list replaced.

use serde_json::{Map, Value};
use std::fmt;

use super::Object;
use watchlab_apimachinery::sort;

/// Fields a diff never reports.
const IGNORED: [&str; 2] = ["metadata.resourceVersion", "metadata.managedFields"];

/// A value in a diff: scalars as kubectl prints them, objects and lists as compact JSON cut at
/// this many characters (the full text is one click away in the object viewer).
pub const VALUE_CHARS: usize = 60;

/// One field's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldChange {
    /// The field did not exist before.
    Added { path: String, value: String },
    /// The field no longer exists.
    Removed { path: String, value: String },
    /// The field exists in both versions with different values.
    Changed {
        path: String,
        before: String,
        after: String,
    },
}

impl FieldChange {
    /// The dotted path (`metadata.labels.team`).
    pub fn path(&self) -> &str {
        match self {
            FieldChange::Added { path, .. }
            | FieldChange::Removed { path, .. }
            | FieldChange::Changed { path, .. } => path,
        }
    }
}

impl fmt::Display for FieldChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldChange::Added { path, value } => write!(f, "{path}: + {value}"),
            FieldChange::Removed { path, value } => write!(f, "{path}: - {value}"),
            FieldChange::Changed {
                path,
                before,
                after,
            } => write!(f, "{path}: {before} → {after}"),
        }
    }
}

/// What changed from `before` to `after`, in field order. A creation or a deletion (one side
/// missing) has no field diff: the ledger's verb says it all.
pub fn field_changes(before: Option<&Object>, after: Option<&Object>) -> Vec<FieldChange> {
    match (before, after) {
        (Some(b), Some(a)) => value_changes(&b.to_json_value(), &a.to_json_value()),
        _ => Vec::new(),
    }
}

/// What changed between two JSON documents (the same rules as [`field_changes`]). Heartbeat
/// stamps (a condition's `lastTransitionTime`, a node's `lastHeartbeatTime`...) come last: they
/// move with every status write and would hide the change that matters.
pub fn value_changes(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk("", before, after, &mut out);
    sort::sort_by_key(&mut out, |c| is_stamp(c.path()));
    out
}

/// Condition stamps: `lastTransitionTime`, `lastHeartbeatTime`, `lastProbeTime`, `lastUpdateTime`.
fn is_stamp(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.starts_with("last") && last.ends_with("Time")
}

fn walk(path: &str, before: &Value, after: &Value, out: &mut Vec<FieldChange>) {
    if IGNORED.contains(&path) || before == after {
        return;
    }
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => walk_maps(path, b, a, out),
        (Value::Array(b), Value::Array(a)) => match (keyed(b), keyed(a)) {
            (Some(kb), Some(ka)) => walk_keyed(path, &kb, &ka, out),
            _ if b.len() == a.len() => {
                for (i, (vb, va)) in b.iter().zip(a).enumerate() {
                    walk(&format!("{path}[{i}]"), vb, va, out);
                }
            }
            _ => out.push(changed(path, before, after)),
        },
        _ => out.push(changed(path, before, after)),
    }
}

fn walk_maps(
    path: &str,
    b: &Map<String, Value>,
    a: &Map<String, Value>,
    out: &mut Vec<FieldChange>,
) {
    for (k, vb) in b {
        let p = join(path, k);
        match a.get(k) {
            Some(va) => walk(&p, vb, va, out),
            None if !IGNORED.contains(&p.as_str()) => out.push(FieldChange::Removed {
                value: show(vb),
                path: p,
            }),
            None => {}
        }
    }
    for (k, va) in a {
        let p = join(path, k);
        if !b.contains_key(k) && !IGNORED.contains(&p.as_str()) {
            out.push(FieldChange::Added {
                value: show(va),
                path: p,
            });
        }
    }
}

fn walk_keyed(
    path: &str,
    b: &[(String, &Value)],
    a: &[(String, &Value)],
    out: &mut Vec<FieldChange>,
) {
    for (k, vb) in b {
        let p = format!("{path}[{k}]");
        match a.iter().find(|(ka, _)| ka == k) {
            Some((_, va)) => walk(&p, vb, va, out),
            None => out.push(FieldChange::Removed {
                value: show(vb),
                path: p,
            }),
        }
    }
    for (k, va) in a {
        if !b.iter().any(|(kb, _)| kb == k) {
            out.push(FieldChange::Added {
                value: show(va),
                path: format!("{path}[{k}]"),
            });
        }
    }
}

/// The list's items by their `type` (conditions) or `name` (containers), if every item has one
/// and no two share it.
fn keyed(items: &[Value]) -> Option<Vec<(String, &Value)>> {
    if items.is_empty() {
        return None;
    }
    ["type", "name"].iter().find_map(|field| {
        let keys: Vec<(String, &Value)> = items
            .iter()
            .map(|v| {
                v.get(field)
                    .and_then(Value::as_str)
                    .map(|k| (k.to_string(), v))
            })
            .collect::<Option<_>>()?;
        let unique = keys
            .iter()
            .enumerate()
            .all(|(i, (k, _))| keys.iter().skip(i + 1).all(|(o, _)| o != k));
        unique.then_some(keys)
    })
}

fn changed(path: &str, before: &Value, after: &Value) -> FieldChange {
    FieldChange::Changed {
        path: path.to_string(),
        before: show(before),
        after: show(after),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A value as the diff prints it: strings bare, the rest as compact JSON, cut at
/// [`VALUE_CHARS`] characters.
fn show(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > VALUE_CHARS {
        let cut: String = text.chars().take(VALUE_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(b: Value, a: Value) -> Vec<String> {
        value_changes(&b, &a)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_new_label_a_phase_and_a_node_read_as_the_ledger_shows_them() {
        let before = json!({
            "metadata": {"name": "web", "resourceVersion": "41", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            "status": {"phase": "Pending"}
        });
        let after = json!({
            "metadata": {"name": "web", "resourceVersion": "42", "labels": {"app": "web", "team": "orders"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], "nodeName": "node-b"},
            "status": {"phase": "Running"}
        });
        assert_eq!(
            shown(before, after),
            vec![
                "metadata.labels.team: + orders",
                "spec.nodeName: + node-b",
                "status.phase: Pending → Running",
            ]
        );
    }

    #[test]
    fn condition_stamps_come_after_the_change_they_stamp() {
        let b = json!({"status": {"conditions": [
            {"type": "Ready", "status": "False", "lastTransitionTime": "t0"}]}});
        let a = json!({"status": {"conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "t1"}]}});
        assert_eq!(
            shown(b, a),
            vec![
                "status.conditions[Ready].status: False → True",
                "status.conditions[Ready].lastTransitionTime: t0 → t1",
            ]
        );
    }

    #[test]
    fn the_resource_version_alone_is_no_change() {
        let b = json!({"metadata": {"name": "x", "resourceVersion": "1"}});
        let a = json!({"metadata": {"name": "x", "resourceVersion": "2"}});
        assert!(value_changes(&b, &a).is_empty());
    }

    #[test]
    fn conditions_are_matched_by_type_and_containers_by_name() {
        let b = json!({"status": {"conditions": [
            {"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True"}]}});
        let a = json!({"status": {"conditions": [
            {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]}});
        assert_eq!(
            shown(b, a),
            vec!["status.conditions[Ready].status: False → True"]
        );
        let b = json!({"spec": {"containers": [{"name": "app", "image": "orders-api:1.0"}]}});
        let a = json!({"spec": {"containers": [{"name": "app", "image": "orders-api:1.1"}]}});
        assert_eq!(
            shown(b, a),
            vec!["spec.containers[app].image: orders-api:1.0 → orders-api:1.1"]
        );
    }

    #[test]
    fn removed_fields_and_long_values() {
        let long = "x".repeat(100);
        let b = json!({"metadata": {"labels": {"team": "orders"}}, "data": long});
        let a = json!({"metadata": {"labels": {}}, "data": "short"});
        let out = shown(b, a);
        assert!(
            out.contains(&"metadata.labels.team: - orders".to_string()),
            "{out:?}"
        );
        let data = out.iter().find(|l| l.starts_with("data: ")).cloned();
        let data = data.unwrap_or_default();
        assert!(data.contains("x… → short"), "{data}");
        assert!(data.chars().count() < 80, "{data}");
    }

    #[test]
    fn creations_and_deletions_have_no_field_diff() {
        let pod = Object::empty(crate::Kind::Pod);
        assert!(field_changes(None, Some(&pod)).is_empty());
        assert!(field_changes(Some(&pod), None).is_empty());
    }
}
