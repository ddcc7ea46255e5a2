//! A StatefulSet's rollout, as kubectl's `StatefulSetStatusViewer`, `StatefulSetHistoryViewer`
//! and `StatefulSetRollbacker` do it (kubectl v1.32 `polymorphichelpers`). The status line
//! comes from the StatefulSet's status: pods not Ready yet (`Waiting for 2 pods to be
//! ready...`), then — since the API server gives every `RollingUpdate` strategy a partition
//! (0 by default) — the partitioned roll out's progress (`partitioned roll out complete: 3 new
//! pods have been updated...`); the revision lines (`statefulset rolling update complete …`)
//! are for a strategy without `rollingUpdate`, which only a server that does not default one
//! serves. History and undo are the DaemonSet's: the ControllerRevisions the StatefulSet
//! controls (`controlledHistoryV1`), each revision's `data` the strategic merge patch
//! `{"spec":{"template":{...,"$patch":"replace"}}}` the controller stored, sent back as it is.

use super::{daemonset, Ask, Ctx};
use crate::errors::CmdError;
use crate::resources::ResourceType;
use serde_json::Value;
use watchlab_apimachinery::unstructured::{at, int, str_at, string};

/// The viewer's or rollbacker's answer for one StatefulSet.
pub(super) fn answer(
    ctx: &mut Ctx,
    ask: &Ask,
    rt: &ResourceType,
    sts: &Value,
) -> Result<String, CmdError> {
    if ask.sub == "status" {
        return status_line(sts);
    }
    // `statefulSetHistory`, `applyRevision` and `statefulsetMatch` do what the DaemonSet's
    // helpers do, on the same kind of revision.
    daemonset::answer(ctx, ask, rt, sts)
}

/// `StatefulSetStatusViewer.Status`.
fn status_line(sts: &Value) -> Result<String, CmdError> {
    if str_at(sts, &["spec", "updateStrategy", "type"]) != Some("RollingUpdate") {
        return Err(CmdError::msg(
            "rollout status is only available for RollingUpdate strategy type",
        ));
    }
    let observed = int(sts, &["status", "observedGeneration"]);
    if observed == 0 || int(sts, &["metadata", "generation"]) > observed {
        return Ok("Waiting for statefulset spec update to be observed...\n".into());
    }
    let replicas = at(sts, &["spec", "replicas"]).and_then(Value::as_i64);
    let ready = int(sts, &["status", "readyReplicas"]);
    if let Some(replicas) = replicas.filter(|r| ready < *r) {
        return Ok(format!(
            "Waiting for {} pods to be ready...\n",
            replicas - ready
        ));
    }
    let updated = int(sts, &["status", "updatedReplicas"]);
    if let Some(ru) =
        at(sts, &["spec", "updateStrategy", "rollingUpdate"]).filter(|r| r.is_object())
    {
        let partition = at(ru, &["partition"]).and_then(Value::as_i64);
        if let (Some(replicas), Some(partition)) = (replicas, partition) {
            if updated < replicas - partition {
                return Ok(format!(
                    "Waiting for partitioned roll out to finish: {updated} out of {} new pods have been updated...\n",
                    replicas - partition
                ));
            }
        }
        return Ok(format!(
            "partitioned roll out complete: {updated} new pods have been updated...\n"
        ));
    }
    let update_revision = string(sts, &["status", "updateRevision"]);
    if update_revision != string(sts, &["status", "currentRevision"]) {
        return Ok(format!(
            "waiting for statefulset rolling update to complete {updated} pods at revision {update_revision}...\n"
        ));
    }
    Ok(format!(
        "statefulset rolling update complete {} pods at revision {update_revision}...\n",
        int(sts, &["status", "currentReplicas"])
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sts(strategy: Value, status: Value) -> Value {
        json!({"metadata": {"name": "web", "generation": 2},
            "spec": {"replicas": 3, "updateStrategy": strategy}, "status": status})
    }

    fn line(strategy: Value, status: Value) -> String {
        status_line(&sts(strategy, status)).unwrap_or_else(|e| e.stderr)
    }

    #[test]
    fn status_lines_follow_the_stateful_set_status_viewer() {
        let partitioned = || json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 1}});
        assert_eq!(
            line(partitioned(), json!({"observedGeneration": 1})),
            "Waiting for statefulset spec update to be observed...\n"
        );
        assert_eq!(
            line(partitioned(), json!({})),
            "Waiting for statefulset spec update to be observed...\n"
        );
        assert_eq!(
            line(
                partitioned(),
                json!({"observedGeneration": 2, "readyReplicas": 1})
            ),
            "Waiting for 2 pods to be ready...\n"
        );
        assert_eq!(
            line(partitioned(), json!({"observedGeneration": 2, "readyReplicas": 3, "updatedReplicas": 1})),
            "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...\n"
        );
        assert_eq!(
            line(
                partitioned(),
                json!({"observedGeneration": 2, "readyReplicas": 3, "updatedReplicas": 2})
            ),
            "partitioned roll out complete: 2 new pods have been updated...\n"
        );
        let plain = || json!({"type": "RollingUpdate"});
        assert_eq!(
            line(
                plain(),
                json!({"observedGeneration": 2, "readyReplicas": 3, "updatedReplicas": 1,
                "currentRevision": "web-1", "updateRevision": "web-2"})
            ),
            "waiting for statefulset rolling update to complete 1 pods at revision web-2...\n"
        );
        assert_eq!(
            line(
                plain(),
                json!({"observedGeneration": 2, "readyReplicas": 3, "currentReplicas": 3,
                "currentRevision": "web-2", "updateRevision": "web-2"})
            ),
            "statefulset rolling update complete 3 pods at revision web-2...\n"
        );
        assert_eq!(
            line(
                json!({"type": "OnDelete"}),
                json!({"observedGeneration": 2})
            ),
            "error: rollout status is only available for RollingUpdate strategy type\n"
        );
    }
}
