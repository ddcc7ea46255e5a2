//! A Deployment's rollout, as kubectl's `DeploymentStatusViewer`, `DeploymentHistoryViewer`
//! and `DeploymentRollbacker` do it: the status line from the Deployment's status
//! (`Waiting for deployment "web" rollout to finish: 1 of 3 updated replicas are available...`),
//! the history from the `deployment.kubernetes.io/revision` and `kubernetes.io/change-cause`
//! annotations of the ReplicaSets it controls, and undo as one JSON patch that copies a
//! revision's pod template (and annotations) back onto the Deployment.

use super::{history_table, patch_restoring, Ask, Ctx};
use crate::errors::{json_body, CmdError};
use crate::resources::ResourceType;
use serde_json::{json, Map, Value};
use watchlab_apimachinery::request::resource_path;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::unstructured::{array, int, str_at, string};

const REVISION: &str = "deployment.kubernetes.io/revision";
const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";
const HASH_LABEL: &str = "pod-template-hash";
/// Annotations undo keeps from the Deployment rather than copying from the ReplicaSet.
const ANNOTATIONS_TO_SKIP: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

/// The viewer's or rollbacker's answer for one Deployment.
pub(super) fn answer(
    ctx: &mut Ctx,
    ask: &Ask,
    rt: &ResourceType,
    deploy: &Value,
) -> Result<String, CmdError> {
    if ask.sub == "status" {
        return Ok(status_line(deploy));
    }
    let rses = owned_replica_sets(ctx, deploy)?;
    match ask.sub {
        "history" => view_history(&rses, ask.revision),
        _ => rollback(ctx, ask, rt, deploy, &rses),
    }
}

/// `DeploymentStatusViewer.Status`: the one line `kubectl rollout status` prints for the
/// Deployment's current status.
pub fn status_line(d: &Value) -> String {
    let name = string(d, &["metadata", "name"]);
    let generation = int(d, &["metadata", "generation"]);
    let observed = int(d, &["status", "observedGeneration"]);
    if generation > observed {
        return "Waiting for deployment spec update to be observed...\n".to_string();
    }
    let desired = d["spec"]["replicas"].as_i64().unwrap_or(1);
    let updated = int(d, &["status", "updatedReplicas"]);
    let replicas = int(d, &["status", "replicas"]);
    let available = int(d, &["status", "availableReplicas"]);
    if updated < desired {
        return format!("Waiting for deployment {name:?} rollout to finish: {updated} out of {desired} new replicas have been updated...\n");
    }
    if replicas > updated {
        return format!(
            "Waiting for deployment {name:?} rollout to finish: {} old replicas are pending termination...\n",
            replicas - updated
        );
    }
    if available < updated {
        return format!("Waiting for deployment {name:?} rollout to finish: {available} of {updated} updated replicas are available...\n");
    }
    format!("deployment {name:?} successfully rolled out\n")
}

/// The ReplicaSets the Deployment controls (by controller reference uid).
fn owned_replica_sets(ctx: &mut Ctx, deploy: &Value) -> Result<Vec<Value>, CmdError> {
    let uid = string(deploy, &["metadata", "uid"]);
    let ns = string(deploy, &["metadata", "namespace"]);
    let path = resource_path("apps/v1", Some(&ns), "replicasets", None);
    let list = json_body(&ctx.client.request("GET", &path, None, None))?;
    Ok(array(&list, &["items"])
        .iter()
        .filter(|rs| {
            array(rs, &["metadata", "ownerReferences"])
                .iter()
                .any(|r| r["controller"] == json!(true) && str_at(r, &["uid"]) == Some(&uid))
        })
        .cloned()
        .collect())
}

fn revision_of(rs: &Value) -> i64 {
    str_at(rs, &["metadata", "annotations", REVISION])
        .and_then(|r| r.parse().ok())
        .unwrap_or(-1)
}

/// `DeploymentHistoryViewer.ViewHistory`: the `REVISION  CHANGE-CAUSE` table, or one
/// revision's pod template.
fn view_history(rses: &[Value], revision: i64) -> Result<String, CmdError> {
    let rows: Vec<(i64, String)> = rses
        .iter()
        .filter(|rs| revision_of(rs) >= 0)
        .map(|rs| {
            (
                revision_of(rs),
                string(rs, &["metadata", "annotations", CHANGE_CAUSE]),
            )
        })
        .collect();
    if rows.is_empty() {
        return Ok("No rollout history found.".into());
    }
    if revision > 0 {
        return revision_template(rses, revision);
    }
    Ok(history_table(rows))
}

/// One revision: that ReplicaSet's pod template with its change cause as an annotation, as
/// `DescribePodTemplate` writes it (tabs, not aligned: kubectl prints it without a tabwriter).
fn revision_template(rses: &[Value], revision: i64) -> Result<String, CmdError> {
    let rs = rses
        .iter()
        .find(|rs| revision_of(rs) == revision)
        .ok_or_else(|| CmdError::msg("unable to find the specified revision"))?;
    let mut template = rs["spec"]["template"].clone();
    let cause = str_at(rs, &["metadata", "annotations", CHANGE_CAUSE]).filter(|c| !c.is_empty());
    if let (Some(cause), Some(t)) = (cause, template.as_object_mut()) {
        let meta = t.entry("metadata").or_insert_with(|| json!({}));
        if let Some(m) = meta.as_object_mut() {
            let annotations = m.entry("annotations").or_insert_with(|| json!({}));
            if let Some(a) = annotations.as_object_mut() {
                a.insert(CHANGE_CAUSE.into(), json!(cause));
            }
        }
    }
    Ok(printed_template(&template))
}

/// `printTemplate`: `DescribePodTemplate` through a plain prefix writer.
pub(super) fn printed_template(template: &Value) -> String {
    let mut text = String::new();
    super::super::describe::pod_template(&mut text, Some(template));
    text
}

/// `DeploymentRollbacker.Rollback`.
fn rollback(
    ctx: &mut Ctx,
    ask: &Ask,
    rt: &ResourceType,
    deploy: &Value,
    rses: &[Value],
) -> Result<String, CmdError> {
    let name = string(deploy, &["metadata", "name"]);
    if ask.to_revision < 0 {
        return Err(not_found(ask.to_revision));
    }
    let rs = revision_to_restore(rses, ask.to_revision, &name)?;
    if ask.dry == super::DryRun::Client {
        return Ok(format!(
            "will roll back to {}",
            printed_template(&rs["spec"]["template"])
        ));
    }
    if deploy["spec"]["paused"] == json!(true) {
        return Err(CmdError::msg(format!("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume deployment/{name}' and try again")));
    }
    if same_template(&rs["spec"]["template"], &deploy["spec"]["template"]) {
        return Ok(format!(
            "skipped rollback (current template already matches revision {})",
            ask.to_revision
        ));
    }
    let path = rt.object_path(&string(deploy, &["metadata", "namespace"]), &name);
    let patch = undo_patch(rs, deploy);
    patch_restoring(ctx, &path, "application/json-patch+json", &patch, ask)?;
    Ok("rolled back".into())
}

/// `revisionNotFoundErr`.
pub(super) fn not_found(revision: i64) -> CmdError {
    CmdError::msg(format!(
        "unable to find specified revision {revision} in history"
    ))
}

/// `deploymentRevision`: the ReplicaSet of `to_revision`, or (0) the one before the latest.
fn revision_to_restore<'a>(
    rses: &'a [Value],
    to_revision: i64,
    name: &str,
) -> Result<&'a Value, CmdError> {
    if to_revision > 0 {
        return rses
            .iter()
            .find(|rs| revision_of(rs) == to_revision)
            .ok_or_else(|| not_found(to_revision));
    }
    let mut by_revision: Vec<&Value> = rses.iter().filter(|rs| revision_of(rs) >= 0).collect();
    sort::sort_by_key(&mut by_revision, |rs| std::cmp::Reverse(revision_of(rs)));
    by_revision
        .get(1)
        .copied()
        .ok_or_else(|| CmdError::msg(format!("no rollout history found for deployment {name:?}")))
}

/// A pod template without the `pod-template-hash` label.
fn without_hash(template: &Value) -> Value {
    let mut t = template.clone();
    if let Some(labels) = t["metadata"]["labels"].as_object_mut() {
        labels.remove(HASH_LABEL);
    }
    t
}

/// `equalIgnoreHash`.
fn same_template(a: &Value, b: &Value) -> bool {
    without_hash(a) == without_hash(b)
}

/// The JSON patch undo sends: the revision's template, and the ReplicaSet's annotations over
/// the Deployment's own bookkeeping ones.
fn undo_patch(rs: &Value, deploy: &Value) -> Value {
    let mut annotations = Map::new();
    for (k, v) in deploy["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if ANNOTATIONS_TO_SKIP.contains(&k.as_str()) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in rs["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if !ANNOTATIONS_TO_SKIP.contains(&k.as_str()) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    json!([
        {"op": "replace", "path": "/spec/template", "value": without_hash(&rs["spec"]["template"])},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_follow_the_deployment_status_viewer() {
        let d = |gen: i64, status: Value| {
            json!({"metadata": {"name": "web", "generation": gen}, "spec": {"replicas": 3},
                "status": status})
        };
        assert_eq!(
            status_line(&d(2, json!({"observedGeneration": 1}))),
            "Waiting for deployment spec update to be observed...\n"
        );
        assert_eq!(
            status_line(&d(1, json!({"observedGeneration": 1, "updatedReplicas": 1, "replicas": 3}))),
            "Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been updated...\n"
        );
        assert_eq!(
            status_line(&d(1, json!({"observedGeneration": 1, "updatedReplicas": 3, "replicas": 4}))),
            "Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination...\n"
        );
        assert_eq!(
            status_line(&d(1, json!({"observedGeneration": 1, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 1}))),
            "Waiting for deployment \"web\" rollout to finish: 1 of 3 updated replicas are available...\n"
        );
        assert_eq!(
            status_line(&d(
                1,
                json!({"observedGeneration": 1, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 3})
            )),
            "deployment \"web\" successfully rolled out\n"
        );
    }

    #[test]
    fn history_rows_and_the_revision_undo_picks() {
        let rs = |rev: &str, cause: Option<&str>| {
            let mut a = json!({REVISION: rev});
            if let Some(c) = cause {
                a[CHANGE_CAUSE] = json!(c);
            }
            json!({"metadata": {"annotations": a}, "spec": {"template": {"metadata": {"labels": {"app": "web", HASH_LABEL: rev}}}}})
        };
        let rses = [
            rs("2", Some("kubectl set image")),
            rs("1", None),
            rs("10", None),
        ];
        assert_eq!(
            view_history(&rses, 0).ok().as_deref(),
            Some("REVISION  CHANGE-CAUSE\n1         <none>\n2         kubectl set image\n10        <none>\n")
        );
        assert_eq!(
            view_history(&[], 0).ok().as_deref(),
            Some("No rollout history found.")
        );
        let prev = revision_to_restore(&rses, 0, "web").ok();
        assert_eq!(prev.map(revision_of), Some(2));
        let err = revision_to_restore(&rses, 7, "web").err().map(|e| e.stderr);
        assert_eq!(
            err.as_deref(),
            Some("error: unable to find specified revision 7 in history\n")
        );
        let only = [rs("1", None)];
        let err = revision_to_restore(&only, 0, "web").err().map(|e| e.stderr);
        assert_eq!(
            err.as_deref(),
            Some("error: no rollout history found for deployment \"web\"\n")
        );
        assert!(same_template(
            &rses[0]["spec"]["template"],
            &rses[1]["spec"]["template"]
        ));
    }
}
