//! `kubectl rollout status|history|undo` for Deployments, as kubectl's deployment status
//! viewer, history viewer and rollbacker do it: the status line from the Deployment's status
//! (`Waiting for deployment "web" rollout to finish: 1 of 3 updated replicas are available...`),
//! the history from the `deployment.kubernetes.io/revision` and `kubernetes.io/change-cause`
//! annotations of the ReplicaSets it controls, and undo as one JSON patch that copies a
//! revision's pod template (and annotations) back onto the Deployment.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::targets::parse_targets;
use serde_json::{json, Map, Value};
use watchlab_apimachinery::request::resource_path;
use watchlab_apimachinery::unstructured::{int, str_at, string};

const FLAGS: &[FlagSpec] = &[
    value("to-revision", None),
    value("revision", None),
    value("watch", Some('w')),
    value("timeout", None),
    value("filename", Some('f')),
    value("output", Some('o')),
    boolean("dry-run", None),
];

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

const USAGE: &str = "error: Required resource not specified.\nUse \"kubectl rollout --help\" for more information about this command.\n";

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(CmdError::raw(
            "error: Usage: kubectl rollout SUBCOMMAND (status|history|undo) TYPE NAME\n",
        ));
    };
    let sub = sub.as_str();
    if !matches!(sub, "status" | "history" | "undo") {
        return Err(CmdError::msg(format!(
            "unknown command \"{sub}\" for \"kubectl rollout\""
        )));
    }
    let p = parse_flags(&format!("rollout {sub}"), rest, FLAGS)?;
    if p.args.is_empty() {
        return Err(CmdError::raw(USAGE));
    }
    let targets = parse_targets(&ctx.discovery()?, &p.args, &format!("rollout {sub}"))?;
    let ns = ctx.namespace(&p);
    let flag_err = |e| CmdError::flag("rollout", &e);
    let to_revision = p.int("to-revision", None).map_err(flag_err)?.unwrap_or(0);
    let revision = p.int("revision", None).map_err(flag_err)?.unwrap_or(0);
    if sub == "history" && revision < 0 {
        return Err(CmdError::msg(format!(
            "revision must be a positive integer: {revision}"
        )));
    }
    let mut done = Done::default();
    for t in &targets {
        if t.rt.kind != "Deployment" {
            let what = match sub {
                "status" => "status viewer",
                "history" => "history viewer",
                _ => "rollbacker",
            };
            return Err(CmdError::msg(format!(
                "no {what} has been implemented for {:?}",
                t.rt.kind
            )));
        }
        if t.names.is_empty() {
            return Err(CmdError::raw(USAGE));
        }
        for name in &t.names {
            let path = t.rt.object_path(&ns, name);
            let deploy = json_body(&ctx.client.request("GET", &path, None, None))?;
            let prefix = format!("{}/{name}", t.rt.kind_prefix());
            match sub {
                "status" => done.stdout.push_str(&status_line(&deploy)),
                "history" if revision > 0 => {
                    let rses = owned_replica_sets(ctx, &ns, &deploy)?;
                    let template = revision_template(&rses, revision)?;
                    done.stdout
                        .push_str(&format!("{prefix} with revision #{revision}\n{template}\n"));
                }
                "history" => {
                    let rses = owned_replica_sets(ctx, &ns, &deploy)?;
                    done.stdout
                        .push_str(&format!("{prefix} \n{}\n", history(&rses)));
                }
                _ => {
                    let rses = owned_replica_sets(ctx, &ns, &deploy)?;
                    let rs = revision_to_restore(&rses, to_revision, name)?;
                    let rev = revision_of(rs);
                    if same_template(&rs["spec"]["template"], &deploy["spec"]["template"]) {
                        done.stdout.push_str(&format!(
                            "{prefix} skipped rollback (current template already matches revision {rev})\n"
                        ));
                        continue;
                    }
                    let patch = undo_patch(rs, &deploy).to_string();
                    json_body(&ctx.client.request(
                        "PATCH",
                        &path,
                        Some("application/json-patch+json"),
                        Some(&patch),
                    ))?;
                    done.stdout.push_str(&format!("{prefix} rolled back\n"));
                }
            }
        }
    }
    Ok(done)
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
fn owned_replica_sets(ctx: &mut Ctx, ns: &str, deploy: &Value) -> Result<Vec<Value>, CmdError> {
    let uid = string(deploy, &["metadata", "uid"]);
    let path = resource_path("apps/v1", Some(ns), "replicasets", None);
    let list = json_body(&ctx.client.request("GET", &path, None, None))?;
    Ok(
        watchlab_apimachinery::unstructured::array(&list, &["items"])
            .iter()
            .filter(|rs| {
                watchlab_apimachinery::unstructured::array(rs, &["metadata", "ownerReferences"])
                    .iter()
                    .any(|r| r["controller"] == json!(true) && str_at(r, &["uid"]) == Some(&uid))
            })
            .cloned()
            .collect(),
    )
}

fn revision_of(rs: &Value) -> i64 {
    str_at(rs, &["metadata", "annotations", REVISION])
        .and_then(|r| r.parse().ok())
        .unwrap_or(-1)
}

/// `REVISION  CHANGE-CAUSE` rows, by revision.
fn history(rses: &[Value]) -> String {
    let mut rows: Vec<(i64, String)> = rses
        .iter()
        .filter(|rs| revision_of(rs) >= 0)
        .map(|rs| {
            let cause = str_at(rs, &["metadata", "annotations", CHANGE_CAUSE])
                .filter(|c| !c.is_empty())
                .unwrap_or("<none>")
                .to_string();
            (revision_of(rs), cause)
        })
        .collect();
    rows.sort();
    let mut table = vec![vec!["REVISION".to_string(), "CHANGE-CAUSE".to_string()]];
    table.extend(rows.into_iter().map(|(r, c)| vec![r.to_string(), c]));
    let text: Vec<String> = table.iter().map(|r| r.join("\t")).collect();
    crate::tabwriter::align(&format!("{}\n", text.join("\n")), 0, 2)
}

/// `DeploymentHistoryViewer.ViewHistory` for one revision: that ReplicaSet's pod template with
/// its change cause as an annotation, as `DescribePodTemplate` writes it (tabs, not aligned:
/// kubectl prints it without a tabwriter).
fn revision_template(rses: &[Value], revision: i64) -> Result<String, CmdError> {
    let rs = rses
        .iter()
        .find(|rs| revision_of(rs) == revision)
        .ok_or_else(|| CmdError::msg("unable to find the specified revision"))?;
    let mut template = watchlab_apimachinery::unstructured::at(rs, &["spec", "template"])
        .cloned()
        .unwrap_or(Value::Null);
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
    let mut text = String::new();
    super::describe::pod_template(&mut text, Some(&template));
    Ok(text)
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
            .ok_or_else(|| {
                CmdError::msg(format!(
                    "unable to find specified revision {to_revision} in history"
                ))
            });
    }
    let mut by_revision: Vec<&Value> = rses.iter().filter(|rs| revision_of(rs) >= 0).collect();
    by_revision.sort_by_key(|rs| std::cmp::Reverse(revision_of(rs)));
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
            history(&rses),
            "REVISION  CHANGE-CAUSE\n1         <none>\n2         kubectl set image\n10        <none>\n"
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
