//! `kubectl describe statefulset`: kubectl's `StatefulSetDescriber` (`describeStatefulSet` in
//! kubectl v1.32's `describe.go`) — the creation time and selector, `Replicas: N desired | N
//! total` (the spec's count against the controller's status), the update strategy with its
//! partition, the phases of the pods the StatefulSet controls, the pod template, and each
//! volume claim template (`describeVolumeClaimTemplates`: the claims every pod gets). The
//! caller adds the Events.

use super::job::selector;
use super::{annotations_block, map_block, pod_template, pods_status, time_at, Ctx};
use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::jsonpath::text_of;
use watchlab_apimachinery::unstructured::{array, at, int, name, namespace, string, string_map};

/// The describer's text, without Events.
pub fn describe_stateful_set(ctx: &mut Ctx, sts: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(sts));
    let _ = writeln!(o, "Namespace:\t{}", namespace(sts));
    let _ = writeln!(
        o,
        "CreationTimestamp:\t{}",
        time_at(sts, &["metadata", "creationTimestamp"]).unwrap_or_default()
    );
    let sel = selector(at(sts, &["spec", "selector"]));
    let _ = writeln!(o, "Selector:\t{sel}");
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(sts, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(sts, &["metadata", "annotations"]));
    let _ = writeln!(
        o,
        "Replicas:\t{} desired | {} total",
        int(sts, &["spec", "replicas"]),
        int(sts, &["status", "replicas"])
    );
    update_strategy(&mut o, sts);
    let _ = writeln!(o, "Pods Status:\t{}", pods_status(ctx, sts, &sel));
    pod_template(&mut o, at(sts, &["spec", "template"]));
    volume_claim_templates(&mut o, array(sts, &["spec", "volumeClaimTemplates"]));
    o
}

/// `Update Strategy`, and under it the rolling update's partition (and its `maxUnavailable`,
/// printed only with a partition, as kubectl does).
fn update_strategy(o: &mut String, sts: &Value) {
    let _ = writeln!(
        o,
        "Update Strategy:\t{}",
        string(sts, &["spec", "updateStrategy", "type"])
    );
    let Some(ru) = at(sts, &["spec", "updateStrategy", "rollingUpdate"]).filter(|r| r.is_object())
    else {
        return;
    };
    let Some(partition) = at(ru, &["partition"]).and_then(Value::as_i64) else {
        return;
    };
    let _ = writeln!(o, "  Partition:\t{partition}");
    if let Some(max) = at(ru, &["maxUnavailable"]).filter(|m| !m.is_null()) {
        let _ = writeln!(o, "  MaxUnavailable:\t{}", text_of(max));
    }
}

/// `describeVolumeClaimTemplates`: each template's name, class, labels, annotations, requested
/// size (`<default>` without one) and access modes as Go prints the list (`[ReadWriteOnce]`).
fn volume_claim_templates(o: &mut String, templates: &[Value]) {
    if templates.is_empty() {
        let _ = writeln!(o, "Volume Claims:\t<none>");
        return;
    }
    let _ = writeln!(o, "Volume Claims:");
    for pvc in templates {
        let _ = writeln!(o, "  Name:\t{}", name(pvc));
        let _ = writeln!(o, "  StorageClass:\t{}", super::claim::claim_class(pvc));
        indented_map(o, "Labels", &string_map(pvc, &["metadata", "labels"]));
        indented_map(
            o,
            "Annotations",
            &string_map(pvc, &["metadata", "annotations"]),
        );
        let capacity = at(pvc, &["spec", "resources", "requests", "storage"])
            .map(super::claim::quantity)
            .unwrap_or_else(|| "<default>".into());
        let _ = writeln!(o, "  Capacity:\t{capacity}");
        let modes: Vec<String> = array(pvc, &["spec", "accessModes"])
            .iter()
            .map(text_of)
            .collect();
        let _ = writeln!(o, "  Access Modes:\t[{}]", modes.join(" "));
    }
}

/// `printLabelsMultilineWithIndent(w, "  ", title, "\t", ...)`: `k=v` lines (annotations too,
/// unlike the object's own), the continuation lines indented as the title is.
fn indented_map(o: &mut String, title: &str, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        let _ = writeln!(o, "  {title}:\t<none>");
        return;
    }
    for (i, (k, v)) in pairs.iter().enumerate() {
        let head = if i == 0 {
            format!("{title}:")
        } else {
            String::new()
        };
        let _ = writeln!(o, "  {head}\t{k}={v}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strategy_lines_follow_the_describer() {
        let text = |strategy: Value| {
            let mut o = String::new();
            update_strategy(&mut o, &json!({"spec": {"updateStrategy": strategy}}));
            o
        };
        assert_eq!(
            text(json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})),
            "Update Strategy:\tRollingUpdate\n  Partition:\t2\n"
        );
        assert_eq!(
            text(json!({"type": "RollingUpdate",
                "rollingUpdate": {"partition": 0, "maxUnavailable": "50%"}})),
            "Update Strategy:\tRollingUpdate\n  Partition:\t0\n  MaxUnavailable:\t50%\n"
        );
        assert_eq!(
            text(json!({"type": "OnDelete"})),
            "Update Strategy:\tOnDelete\n"
        );
    }

    #[test]
    fn claim_templates_print_their_request_and_modes() {
        let mut o = String::new();
        volume_claim_templates(&mut o, &[]);
        assert_eq!(o, "Volume Claims:\t<none>\n");
        let mut o = String::new();
        volume_claim_templates(
            &mut o,
            &[
                json!({"metadata": {"name": "www", "labels": {"a": "1", "b": "2"}},
                "spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
                    "resources": {"requests": {"storage": "1024Mi"}}}}),
                json!({"metadata": {"name": "logs"}, "spec": {"storageClassName": "fast"}}),
            ],
        );
        assert_eq!(
            o,
            "Volume Claims:\n  Name:\twww\n  StorageClass:\t\n  Labels:\ta=1\n  \tb=2\n  \
             Annotations:\t<none>\n  Capacity:\t1Gi\n  Access Modes:\t[ReadWriteOnce \
             ReadOnlyMany]\n  Name:\tlogs\n  StorageClass:\tfast\n  Labels:\t<none>\n  \
             Annotations:\t<none>\n  Capacity:\t<default>\n  Access Modes:\t[]\n"
        );
    }
}
