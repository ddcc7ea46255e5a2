//! A DaemonSet's rollout, as kubectl's `DaemonSetStatusViewer`, `DaemonSetHistoryViewer` and
//! `DaemonSetRollbacker` do it (kubectl v1.32 `polymorphichelpers`): the status line from the
//! DaemonSet's status (`Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods
//! have been updated...`), the history from the ControllerRevisions it controls (each one's
//! `revision` and `kubernetes.io/change-cause` annotation), and undo as the revision's `data` —
//! the strategic merge patch `{"spec":{"template":{...,"$patch":"replace"}}}` the DaemonSet
//! controller stored — sent back to the DaemonSet.

use super::deployment::{not_found, printed_template};
use super::{history_table, patch_restoring, Ask, Ctx};
use crate::errors::CmdError;
use crate::resources::ResourceType;
use crate::targets::{self, ListQuery};
use serde_json::{json, Value};
use watchlab_apimachinery::labels::selector_string;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::unstructured::{array, at, int, str_at, string};

const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";

/// The viewer's or rollbacker's answer for one DaemonSet.
pub(super) fn answer(
    ctx: &mut Ctx,
    ask: &Ask,
    rt: &ResourceType,
    ds: &Value,
) -> Result<String, CmdError> {
    if ask.sub == "status" {
        return status_line(ds);
    }
    let history = controlled_history(ctx, ds)?;
    match ask.sub {
        "history" => view_history(ds, &history, ask.revision),
        _ => rollback(ctx, ask, rt, ds, &history),
    }
}

/// `DaemonSetStatusViewer.Status`.
fn status_line(ds: &Value) -> Result<String, CmdError> {
    let strategy = str_at(ds, &["spec", "updateStrategy", "type"]).unwrap_or_default();
    if strategy != "RollingUpdate" {
        return Err(CmdError::msg(
            "rollout status is only available for RollingUpdate strategy type",
        ));
    }
    let name = string(ds, &["metadata", "name"]);
    if int(ds, &["metadata", "generation"]) > int(ds, &["status", "observedGeneration"]) {
        return Ok("Waiting for daemon set spec update to be observed...\n".into());
    }
    let desired = int(ds, &["status", "desiredNumberScheduled"]);
    let updated = int(ds, &["status", "updatedNumberScheduled"]);
    let available = int(ds, &["status", "numberAvailable"]);
    if updated < desired {
        return Ok(format!("Waiting for daemon set {name:?} rollout to finish: {updated} out of {desired} new pods have been updated...\n"));
    }
    if available < desired {
        return Ok(format!("Waiting for daemon set {name:?} rollout to finish: {available} of {desired} updated pods are available...\n"));
    }
    Ok(format!("daemon set {name:?} successfully rolled out\n"))
}

/// `daemonSetHistory`: the ControllerRevisions the DaemonSet's selector finds and it controls.
fn controlled_history(ctx: &mut Ctx, ds: &Value) -> Result<Vec<Value>, CmdError> {
    let Some(rt) = ctx.resource_type("controllerrevisions.apps") else {
        return Ok(Vec::new());
    };
    let selector = selector_string(at(ds, &["spec", "selector"]));
    let q = ListQuery {
        label_selector: (selector != "<none>").then_some(selector),
        field_selector: None,
        chunk_size: 500,
    };
    let ns = string(ds, &["metadata", "namespace"]);
    let uid = string(ds, &["metadata", "uid"]);
    let listed = targets::list(ctx.client, &rt, Some(&ns), &q)?;
    Ok(listed
        .items
        .into_iter()
        .filter(|h| {
            array(h, &["metadata", "ownerReferences"])
                .iter()
                .find(|r| r["controller"] == json!(true))
                .is_some_and(|r| str_at(r, &["uid"]) == Some(uid.as_str()))
        })
        .collect())
}

fn revision_of(history: &Value) -> i64 {
    int(history, &["revision"])
}

/// `DaemonSetHistoryViewer.ViewHistory`: the `REVISION  CHANGE-CAUSE` table, or one
/// revision's pod template (the DaemonSet with that revision's data applied).
fn view_history(ds: &Value, history: &[Value], revision: i64) -> Result<String, CmdError> {
    if history.is_empty() {
        return Ok("No rollout history found.".into());
    }
    if revision > 0 {
        let h = history
            .iter()
            .find(|h| revision_of(h) == revision)
            .ok_or_else(|| CmdError::msg("unable to find the specified revision"))?;
        return Ok(printed_template(&applied_template(ds, h)));
    }
    let mut rows: Vec<(i64, String)> = Vec::new();
    for h in history {
        // One row per revision number (the viewer keeps them in a map).
        if !rows.iter().any(|(r, _)| *r == revision_of(h)) {
            rows.push((
                revision_of(h),
                string(h, &["metadata", "annotations", CHANGE_CAUSE]),
            ));
        }
    }
    Ok(history_table(rows))
}

/// The revision's `data.spec.template` with its `$patch` directive taken out.
fn stored_template(history: &Value) -> Option<Value> {
    let mut template = at(history, &["data", "spec", "template"])?.clone();
    if let Some(t) = template.as_object_mut() {
        t.remove("$patch");
    }
    Some(template)
}

/// `applyDaemonSetHistory`'s template: the stored one replaces the DaemonSet's (`$patch:
/// replace`, what the controller writes); data without the directive is merged over it.
fn applied_template(ds: &Value, history: &Value) -> Value {
    let current = at(ds, &["spec", "template"])
        .cloned()
        .unwrap_or(Value::Null);
    let replaces = str_at(history, &["data", "spec", "template", "$patch"]) == Some("replace");
    match stored_template(history) {
        Some(t) if replaces => t,
        Some(t) => crate::merge_patch::apply(&current, &t),
        None => current,
    }
}

/// `DaemonSetRollbacker.Rollback`.
fn rollback(
    ctx: &mut Ctx,
    ask: &Ask,
    rt: &ResourceType,
    ds: &Value,
    history: &[Value],
) -> Result<String, CmdError> {
    if ask.to_revision < 0 {
        return Err(not_found(ask.to_revision));
    }
    if ask.to_revision == 0 && history.len() <= 1 {
        return Err(CmdError::msg("no last revision to roll back to"));
    }
    let target =
        find_history(ask.to_revision, history).ok_or_else(|| not_found(ask.to_revision))?;
    if ask.dry == super::DryRun::Client {
        let template = printed_template(&applied_template(ds, target));
        return Ok(format!("will roll back to {template}"));
    }
    if matches(ds, target) {
        return Ok(format!(
            "skipped rollback (current template already matches revision {})",
            ask.to_revision
        ));
    }
    let name = string(ds, &["metadata", "name"]);
    let path = rt.object_path(&string(ds, &["metadata", "namespace"]), &name);
    let data = at(target, &["data"]).cloned().unwrap_or_else(|| json!({}));
    patch_restoring(
        ctx,
        &path,
        "application/strategic-merge-patch+json",
        &data,
        ask,
    )?;
    Ok("rolled back".into())
}

/// `findHistory`: the revision asked for, or (0) the one before the newest.
fn find_history(to_revision: i64, history: &[Value]) -> Option<&Value> {
    if to_revision > 0 {
        return history.iter().find(|h| revision_of(h) == to_revision);
    }
    let mut sorted: Vec<&Value> = history.iter().collect();
    sort::sort_by_key(&mut sorted, |h| revision_of(h));
    sorted
        .len()
        .checked_sub(2)
        .and_then(|i| sorted.get(i).copied())
}

/// `daemonSetMatch`: whether the DaemonSet's template, as the patch `getDaemonSetPatch` builds
/// from it, is the revision's data (kubectl compares the JSON bytes; both sides are written
/// from the same typed object, so nulls left out on one side are left out here).
fn matches(ds: &Value, history: &Value) -> bool {
    let mut template = at(ds, &["spec", "template"])
        .cloned()
        .unwrap_or_else(|| json!({}));
    if let Some(t) = template.as_object_mut() {
        t.insert("$patch".into(), json!("replace"));
    }
    let current = json!({"spec": {"template": template}});
    let stored = at(history, &["data"]).cloned().unwrap_or(Value::Null);
    without_nulls(&current) == without_nulls(&stored)
}

/// A JSON value without the object fields whose value is null.
fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds(status: Value) -> Value {
        json!({"metadata": {"name": "agent", "generation": 2},
            "spec": {"updateStrategy": {"type": "RollingUpdate"},
                "template": {"metadata": {"labels": {"app": "agent"}},
                    "spec": {"containers": [{"name": "a", "image": "agent:2"}]}}},
            "status": status})
    }

    fn revision(n: i64, image: &str) -> Value {
        json!({"revision": n, "data": {"spec": {"template": {"$patch": "replace",
            "metadata": {"creationTimestamp": null, "labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "a", "image": image}]}}}}})
    }

    #[test]
    fn status_lines_follow_the_daemon_set_status_viewer() {
        let line = |status: Value| status_line(&ds(status)).unwrap_or_else(|e| e.stderr);
        assert_eq!(
            line(json!({"observedGeneration": 1})),
            "Waiting for daemon set spec update to be observed...\n"
        );
        assert_eq!(
            line(json!({"observedGeneration": 2, "desiredNumberScheduled": 3, "updatedNumberScheduled": 1})),
            "Waiting for daemon set \"agent\" rollout to finish: 1 out of 3 new pods have been updated...\n"
        );
        assert_eq!(
            line(json!({"observedGeneration": 2, "desiredNumberScheduled": 3, "updatedNumberScheduled": 3, "numberAvailable": 2})),
            "Waiting for daemon set \"agent\" rollout to finish: 2 of 3 updated pods are available...\n"
        );
        assert_eq!(
            line(
                json!({"observedGeneration": 2, "desiredNumberScheduled": 3, "updatedNumberScheduled": 3, "numberAvailable": 3})
            ),
            "daemon set \"agent\" successfully rolled out\n"
        );
        let mut on_delete = ds(json!({}));
        on_delete["spec"]["updateStrategy"] = json!({"type": "OnDelete"});
        assert_eq!(
            status_line(&on_delete).err().map(|e| e.stderr).as_deref(),
            Some("error: rollout status is only available for RollingUpdate strategy type\n")
        );
    }

    #[test]
    fn undo_finds_the_revision_and_knows_the_current_one() {
        let history = [
            revision(3, "agent:2"),
            revision(1, "agent:1"),
            revision(2, "agent:1.5"),
        ];
        assert_eq!(find_history(0, &history).map(revision_of), Some(2));
        assert_eq!(find_history(1, &history).map(revision_of), Some(1));
        assert!(find_history(9, &history).is_none());
        assert!(find_history(0, &history[..1]).is_none());
        let current = ds(json!({}));
        assert!(matches(&current, &history[0]));
        assert!(!matches(&current, &history[1]));
        assert_eq!(
            applied_template(&current, &history[1])["spec"]["containers"][0]["image"],
            json!("agent:1")
        );
        assert_eq!(
            view_history(&current, &history, 0).ok().as_deref(),
            Some("REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n3         <none>\n")
        );
    }
}
