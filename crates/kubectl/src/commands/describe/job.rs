//! `kubectl describe job`: kubectl's `JobDescriber` (`describeJob` in kubectl v1.32's
//! `describe.go`) — the selector the API server generated, the spec's bounds that are set, the
//! times the Job controller recorded (`Start Time`, `Completed At`, `Duration`), the `Pods
//! Statuses` counts from the Job's status, the indexes an Indexed Job completed, and the pod
//! template. The caller adds the Events.

use super::{annotations_block, controlled_by, map_block, pod_template, time_at};
use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::duration::human_duration;
use watchlab_apimachinery::labels::selector_string;
use watchlab_apimachinery::rfc3339::parse_unix_millis;
use watchlab_apimachinery::unstructured::{at, int, name, namespace, str_at, string_map};

/// `capIndexesListOrNone`'s soft limit: the completed indexes are cut at the first comma after
/// this many bytes.
const INDEXES_SOFT_LIMIT: usize = 50;

/// The describer's text, without Events.
pub fn describe_job(job: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(job));
    let _ = writeln!(o, "Namespace:\t{}", namespace(job));
    let _ = writeln!(o, "Selector:\t{}", selector(at(job, &["spec", "selector"])));
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(job, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(job, &["metadata", "annotations"]));
    if let Some(c) = controlled_by(job) {
        let _ = writeln!(o, "Controlled By:\t{c}");
    }
    spec_lines(&mut o, job);
    time_lines(&mut o, job);
    if let Some(deadline) = number(job, &["spec", "activeDeadlineSeconds"]) {
        let _ = writeln!(o, "Active Deadline Seconds:\t{deadline}s");
    }
    let count = |field: &str| int(job, &["status", field]);
    let active = count("active");
    let (succeeded, failed) = (count("succeeded"), count("failed"));
    match number(job, &["status", "ready"]) {
        Some(ready) => {
            let _ = writeln!(o, "Pods Statuses:\t{active} Active ({ready} Ready) / {succeeded} Succeeded / {failed} Failed");
        }
        None => {
            let _ = writeln!(
                o,
                "Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed"
            );
        }
    }
    if str_at(job, &["spec", "completionMode"]) == Some("Indexed") {
        let indexes = str_at(job, &["status", "completedIndexes"]).unwrap_or_default();
        let _ = writeln!(o, "Completed Indexes:\t{}", cap_indexes(indexes));
    }
    pod_template(&mut o, at(job, &["spec", "template"]));
    o
}

/// `LabelSelectorAsSelector(...).String()`: empty for a selector that selects everything.
pub(super) fn selector(sel: Option<&Value>) -> String {
    match sel.filter(|s| !s.is_null()) {
        None => String::new(),
        Some(s) => match selector_string(Some(s)) {
            none if none == "<none>" => String::new(),
            text => text,
        },
    }
}

/// A number field that is set (the describer prints pointer fields only when they are).
pub(super) fn number(obj: &Value, path: &[&str]) -> Option<i64> {
    at(obj, path).and_then(Value::as_i64)
}

/// Parallelism, completions, completion mode, suspend, backoff limit and TTL, as set.
fn spec_lines(o: &mut String, job: &Value) {
    if let Some(p) = number(job, &["spec", "parallelism"]) {
        let _ = writeln!(o, "Parallelism:\t{p}");
    }
    match number(job, &["spec", "completions"]) {
        Some(c) => {
            let _ = writeln!(o, "Completions:\t{c}");
        }
        None => {
            let _ = writeln!(o, "Completions:\t<unset>");
        }
    }
    if let Some(mode) = str_at(job, &["spec", "completionMode"]) {
        let _ = writeln!(o, "Completion Mode:\t{mode}");
    }
    if let Some(suspend) = at(job, &["spec", "suspend"]).and_then(Value::as_bool) {
        let _ = writeln!(o, "Suspend:\t{suspend}");
    }
    if let Some(limit) = number(job, &["spec", "backoffLimit"]) {
        let _ = writeln!(o, "Backoff Limit:\t{limit}");
    }
    if let Some(ttl) = number(job, &["spec", "ttlSecondsAfterFinished"]) {
        let _ = writeln!(o, "TTL Seconds After Finished:\t{ttl}");
    }
}

/// `Start Time`, `Completed At` and, with both, `Duration` (`duration.HumanDuration`).
fn time_lines(o: &mut String, job: &Value) {
    if let Some(t) = time_at(job, &["status", "startTime"]) {
        let _ = writeln!(o, "Start Time:\t{t}");
    }
    if let Some(t) = time_at(job, &["status", "completionTime"]) {
        let _ = writeln!(o, "Completed At:\t{t}");
    }
    let ms = |field: &str| str_at(job, &["status", field]).and_then(parse_unix_millis);
    if let (Some(start), Some(end)) = (ms("startTime"), ms("completionTime")) {
        let _ = writeln!(o, "Duration:\t{}", human_duration(end - start));
    }
}

/// `capIndexesListOrNone`: `<none>`, the list, or the list cut after the first comma past the
/// soft limit with `...`.
fn cap_indexes(indexes: &str) -> String {
    if indexes.is_empty() {
        return "<none>".into();
    }
    match indexes
        .get(INDEXES_SOFT_LIMIT..)
        .and_then(|rest| rest.find(','))
    {
        Some(i) => format!("{}...", &indexes[..INDEXES_SOFT_LIMIT + i + 1]),
        None => indexes.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_completed_job_with_its_times_and_counts() {
        let job = json!({"metadata": {"name": "pi", "namespace": "default",
                "ownerReferences": [{"kind": "CronJob", "name": "hourly", "controller": true}]},
            "spec": {"parallelism": 1, "completions": 1, "completionMode": "NonIndexed",
                "suspend": false, "backoffLimit": 6,
                "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}}},
            "status": {"startTime": "2026-01-01T00:00:00Z",
                "completionTime": "2026-01-01T00:00:09Z", "succeeded": 1, "ready": 0}});
        let text = describe_job(&job);
        assert!(
            text.starts_with("Name:\tpi\nNamespace:\tdefault\nSelector:\tbatch.kubernetes.io/controller-uid=u1\nLabels:\t<none>\nAnnotations:\t<none>\nControlled By:\tCronJob/hourly\n"),
            "{text}"
        );
        assert!(
            text.contains("Parallelism:\t1\nCompletions:\t1\nCompletion Mode:\tNonIndexed\nSuspend:\tfalse\nBackoff Limit:\t6\nStart Time:\tThu, 01 Jan 2026 00:00:00 +0000\nCompleted At:\tThu, 01 Jan 2026 00:00:09 +0000\nDuration:\t9s\nPods Statuses:\t0 Active (0 Ready) / 1 Succeeded / 0 Failed\nPod Template:\n"),
            "{text}"
        );
    }

    #[test]
    fn unset_bounds_and_an_indexed_job() {
        let job = json!({"metadata": {"name": "x"},
            "spec": {"completionMode": "Indexed", "activeDeadlineSeconds": 30},
            "status": {"active": 2}});
        let text = describe_job(&job);
        assert!(text.contains("Selector:\t\n"), "{text}");
        assert!(text.contains("Completions:\t<unset>\n"), "{text}");
        assert!(
            text.contains("Active Deadline Seconds:\t30s\nPods Statuses:\t2 Active / 0 Succeeded / 0 Failed\nCompleted Indexes:\t<none>\n"),
            "{text}"
        );
        let long: Vec<String> = (0..40).map(|i| (i * 2).to_string()).collect();
        let long = long.join(",");
        let cut = cap_indexes(&long);
        assert!(cut.ends_with(",...") && cut.len() < long.len(), "{cut}");
        assert_eq!(cap_indexes("1-3,7"), "1-3,7");
    }
}
