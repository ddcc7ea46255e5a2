//! `kubectl rollout restart`: kubectl's `defaultObjectRestarter` stamps the pod template of a
//! Deployment or DaemonSet with `kubectl.kubernetes.io/restartedAt` (the time, RFC 3339), so
//! its controller rolls every pod; the change is sent as the strategic merge patch
//! kubectl computes (only that annotation) with `fieldManager=kubectl-rollout`. The errors are
//! collected and printed after the objects that were restarted, as kubectl aggregates them.

use super::{Ctx, Done};
use crate::errors::{decode_status, json_body, CmdError};
use crate::targets::Target;
use serde_json::{json, Value};
use watchlab_apimachinery::rfc3339::format_unix_secs;
use watchlab_apimachinery::unstructured::str_at;

const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

/// Restarts each named object; `Done` carries the errors after the `restarted` lines.
pub(super) fn run(ctx: &mut Ctx, targets: &[Target], ns: &str) -> Result<Done, CmdError> {
    let now = format_unix_secs(ctx.now().div_euclid(1000));
    let mut done = Done::default();
    let mut errors: Vec<String> = Vec::new();
    for t in targets {
        for name in &t.names {
            let path = t.rt.object_path(ns, name);
            let obj = json_body(&ctx.client.request("GET", &path, None, None))?;
            if let Err(e) = restartable(&t.rt.group, &t.rt.kind, &obj) {
                errors.push(format!("error: {} {name:?} {e}", t.rt.group_resource()));
                continue;
            }
            if str_at(
                &obj,
                &["spec", "template", "metadata", "annotations", RESTARTED_AT],
            ) == Some(now.as_str())
            {
                errors.push(format!("failed to create patch for {name}: empty patch"));
            }
            let patch =
                json!({"spec": {"template": {"metadata": {"annotations": {RESTARTED_AT: now}}}}});
            let resp = ctx.client.request(
                "PATCH",
                &format!("{path}?fieldManager=kubectl-rollout"),
                Some("application/strategic-merge-patch+json"),
                Some(&patch.to_string()),
            );
            if !resp.is_success() {
                let message = decode_status(&resp).map_or_else(
                    || crate::errors::server_error_text(&resp),
                    |s| s.message().to_string(),
                );
                errors.push(format!("failed to patch: {message}"));
                continue;
            }
            let prefix = t.rt.kind_prefix();
            done.stdout
                .push_str(&format!("{prefix}/{name} restarted\n"));
        }
    }
    if !errors.is_empty() {
        done.stderr = aggregate(&errors);
        done.exit_code = 1;
    }
    Ok(done)
}

/// The kinds `defaultObjectRestarter` restarts, and its refusal of a paused Deployment.
fn restartable(group: &str, kind: &str, obj: &Value) -> Result<(), &'static str> {
    match (group, kind) {
        ("apps", "Deployment") if obj["spec"]["paused"] == json!(true) => {
            Err("can't restart paused deployment (run rollout resume first)")
        }
        ("apps", "Deployment" | "DaemonSet" | "StatefulSet") => Ok(()),
        _ => Err("restarting is not supported"),
    }
}

/// `utilerrors.NewAggregate` printed by `CheckErr`: one error as itself, several as
/// `[a, b]`; `error: ` in front unless the text already starts with it.
fn aggregate(errors: &[String]) -> String {
    let text = match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    if text.starts_with("error: ") {
        format!("{text}\n")
    } else {
        format!("error: {text}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_their_aggregate() {
        assert_eq!(
            restartable("", "Pod", &json!({})),
            Err("restarting is not supported")
        );
        assert_eq!(
            restartable("apps", "Deployment", &json!({"spec": {"paused": true}})),
            Err("can't restart paused deployment (run rollout resume first)")
        );
        assert!(restartable("apps", "DaemonSet", &json!({})).is_ok());
        assert_eq!(
            aggregate(&["error: pods \"x\" restarting is not supported".into()]),
            "error: pods \"x\" restarting is not supported\n"
        );
        assert_eq!(aggregate(&["a".into(), "b".into()]), "error: [a, b]\n");
    }
}
