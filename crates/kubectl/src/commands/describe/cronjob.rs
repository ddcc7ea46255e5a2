//! `kubectl describe cronjob`: kubectl's `CronJobDescriber` (`describeCronJob` and
//! `describeJobTemplate` in kubectl v1.32's `describe.go`) — the schedule and its policies,
//! the time zone when set, each other optional field as set or `<unset>`, the job template's selector and bounds with its pod
//! template, the last schedule time and the Jobs running now (`Active Jobs`). The caller adds
//! the Events.

use super::job::{number, selector};
use super::{metadata_lines, pod_template, time_at};
use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::unstructured::{array, at, str_at, string};

/// The describer's text, without Events.
pub fn describe_cron_job(cj: &Value) -> String {
    let mut o = String::new();
    metadata_lines(&mut o, cj);
    let _ = writeln!(o, "Schedule:\t{}", string(cj, &["spec", "schedule"]));
    let _ = writeln!(
        o,
        "Concurrency Policy:\t{}",
        string(cj, &["spec", "concurrencyPolicy"])
    );
    let suspend = match at(cj, &["spec", "suspend"]).and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    let _ = writeln!(o, "Suspend:\t{suspend}");
    if let Some(zone) = str_at(cj, &["spec", "timeZone"]) {
        let _ = writeln!(o, "Time Zone:\t{zone}");
    }
    let or_unset = |path: &[&str], unit: &str| {
        number(cj, path).map_or_else(|| "<unset>".to_string(), |n| format!("{n}{unit}"))
    };
    let _ = writeln!(
        o,
        "Successful Job History Limit:\t{}",
        or_unset(&["spec", "successfulJobsHistoryLimit"], "")
    );
    let _ = writeln!(
        o,
        "Failed Job History Limit:\t{}",
        or_unset(&["spec", "failedJobsHistoryLimit"], "")
    );
    let _ = writeln!(
        o,
        "Starting Deadline Seconds:\t{}",
        or_unset(&["spec", "startingDeadlineSeconds"], "s")
    );
    job_template(
        &mut o,
        at(cj, &["spec", "jobTemplate"]).unwrap_or(&Value::Null),
    );
    let last = time_at(cj, &["status", "lastScheduleTime"]).unwrap_or_else(|| "<unset>".into());
    let _ = writeln!(o, "Last Schedule Time:\t{last}");
    let active: Vec<String> = array(cj, &["status", "active"])
        .iter()
        .map(|r| string(r, &["name"]))
        .collect();
    let active = if active.is_empty() {
        "<none>".to_string()
    } else {
        active.join(", ")
    };
    let _ = writeln!(o, "Active Jobs:\t{active}");
    o
}

/// `describeJobTemplate`: the template's selector, parallelism and completions (each
/// `<unset>` when unset), its deadline when set, and its pod template.
fn job_template(o: &mut String, template: &Value) {
    let spec = at(template, &["spec"]).unwrap_or(&Value::Null);
    let sel = at(spec, &["selector"]).filter(|s| !s.is_null());
    let sel = sel.map_or_else(|| "<unset>".to_string(), |s| selector(Some(s)));
    let _ = writeln!(o, "Selector:\t{sel}");
    for (label, field) in [
        ("Parallelism", "parallelism"),
        ("Completions", "completions"),
    ] {
        let value = number(spec, &[field]).map_or_else(|| "<unset>".to_string(), |n| n.to_string());
        let _ = writeln!(o, "{label}:\t{value}");
    }
    if let Some(deadline) = number(spec, &["activeDeadlineSeconds"]) {
        let _ = writeln!(o, "Active Deadline Seconds:\t{deadline}s");
    }
    pod_template(o, at(spec, &["template"]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_schedule_its_policies_and_the_active_jobs() {
        let cj = json!({"metadata": {"name": "hourly", "namespace": "default"},
            "spec": {"schedule": "0 * * * *", "concurrencyPolicy": "Allow", "suspend": false,
                "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
                "jobTemplate": {"spec": {"template": {"spec": {"containers": [
                    {"name": "hourly", "image": "busybox"}]}}}}},
            "status": {"lastScheduleTime": "2026-01-01T01:00:00Z",
                "active": [{"name": "hourly-29000060"}, {"name": "hourly-29000120"}]}});
        let text = describe_cron_job(&cj);
        assert!(
            text.contains("Schedule:\t0 * * * *\nConcurrency Policy:\tAllow\nSuspend:\tFalse\nSuccessful Job History Limit:\t3\nFailed Job History Limit:\t1\nStarting Deadline Seconds:\t<unset>\nSelector:\t<unset>\nParallelism:\t<unset>\nCompletions:\t<unset>\nPod Template:\n"),
            "{text}"
        );
        assert!(
            text.ends_with("Last Schedule Time:\tThu, 01 Jan 2026 01:00:00 +0000\nActive Jobs:\thourly-29000060, hourly-29000120\n"),
            "{text}"
        );
        let bare = describe_cron_job(&json!({"metadata": {"name": "x"}}));
        assert!(
            bare.ends_with("Last Schedule Time:\t<unset>\nActive Jobs:\t<none>\n"),
            "{bare}"
        );
    }
}
