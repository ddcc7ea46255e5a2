//! `batch/v1` Jobs and CronJobs and `apps/v1` DaemonSets through the real kubectl v1.32:
//! `kubectl create job`, `create cronjob` and `create job --from=cronjob/…` (sent as protobuf by
//! their typed client) with the server's defaults in `get -o yaml` and `describe`; a Job that
//! completes (`kubectl wait --for=condition=complete`) and one that fails past its back-off
//! limit, as `kubectl get jobs` and `describe job` print them; a CronJob creating Jobs on the
//! virtual clock; a DaemonSet applied from a manifest with one pod on every node, through
//! `rollout status`, `set image`, `rollout history` and `rollout undo`; and invalid objects
//! refused with the real API server's texts. The servers run 20× or 30× faster than the wall
//! clock (a minute's schedule passes in two seconds), or stand still where no controller
//! matters. About 10 s in all. Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::{wait_until, TestServer};
use std::time::Duration;

/// Lines with runs of whitespace squeezed to one space and the indentation dropped (kubectl
/// aligns its columns and describe sections).
fn squeezed(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Whether `text`, squeezed, has the line `line`.
fn has_line(text: &str, line: &str) -> bool {
    squeezed(text).iter().any(|l| l == line)
}

/// Asserts that every one of `lines` is a line of `text`, squeezed.
fn assert_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(has_line(text, line), "{line:?} in\n{text}");
    }
}

/// A table's rows, each a list of its whitespace-separated words (the header first).
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// One field of an object by JSONPath.
fn field(s: &TestServer, what: &str, path: &str) -> String {
    s.ok(&["get", what, "-o", &format!("jsonpath={path}")])
}

/// A Job whose pod exits after `behaviour` (`complete-after=2s`, `crash-after=1s`), with
/// `backoff` retries.
fn job_manifest(name: &str, behaviour: &str, backoff: u32) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\nspec:\n  backoffLimit: \
         {backoff}\n  template:\n    metadata:\n      annotations:\n        \
         watchlab.dev/behaviour: {behaviour}\n    spec:\n      restartPolicy: Never\n      \
         containers:\n      - name: work\n        image: busybox:1.36\n"
    )
}

/// `kubectl create job`, `create cronjob` and `create job --from=cronjob/…`: each object's
/// defaults as `-o yaml` prints them (backoffLimit 6, NonIndexed, the generated selector and
/// the labels it matches; concurrencyPolicy Allow, history limits 3 and 1), and describe's
/// lines for them. The clock stands still: what is checked needs no controller.
#[test]
fn kubectl_creates_jobs_and_cronjobs_with_their_defaults() {
    need_kubectl!("kubectl_creates_jobs_and_cronjobs_with_their_defaults");
    let s = TestServer::at_speed(0.0);
    let out = s.ok(&["create", "job", "once", "--image=busybox:1.36"]);
    assert_eq!(out, "job.batch/once created\n");
    let uid = field(&s, "job/once", "{.metadata.uid}");
    assert!(!uid.is_empty());
    let yaml = s.ok(&["get", "job", "once", "-o", "yaml"]);
    let labels = [
        format!("batch.kubernetes.io/controller-uid: {uid}"),
        "batch.kubernetes.io/job-name: once".to_string(),
        format!("controller-uid: {uid}"),
        "job-name: once".to_string(),
    ];
    for line in [
        "backoffLimit: 6",
        "completionMode: NonIndexed",
        "completions: 1",
        "parallelism: 1",
        "suspend: false",
        "podReplacementPolicy: TerminatingOrFailed",
        "restartPolicy: Never",
        "selector:",
        "matchLabels:",
    ]
    .iter()
    .copied()
    .chain(labels.iter().map(String::as_str))
    {
        assert!(has_line(&yaml, line), "{line:?} in\n{yaml}");
    }
    // The selector matches the uid alone; the template (and so the Job) carries all four.
    assert_eq!(
        field(&s, "job/once", "{.spec.selector.matchLabels}"),
        format!("{{\"batch.kubernetes.io/controller-uid\":\"{uid}\"}}")
    );
    let template_labels = field(&s, "job/once", "{.spec.template.metadata.labels}");
    assert_eq!(field(&s, "job/once", "{.metadata.labels}"), template_labels);
    for key in ["batch.kubernetes.io/job-name", "job-name", "controller-uid"] {
        assert!(
            template_labels.contains(&format!("\"{key}\"")),
            "{template_labels}"
        );
    }
    let described = s.ok(&["describe", "job", "once"]);
    assert_lines(
        &described,
        &[
            "Name: once",
            "Namespace: default",
            &format!("Selector: batch.kubernetes.io/controller-uid={uid}"),
            "Parallelism: 1",
            "Completions: 1",
            "Completion Mode: NonIndexed",
            "Suspend: false",
            "Backoff Limit: 6",
            "Pod Template:",
            "batch.kubernetes.io/job-name=once",
            "Image: busybox:1.36",
        ],
    );

    let out = s.ok(&[
        "create",
        "cronjob",
        "nightly",
        "--image=busybox:1.36",
        "--schedule=30 3 * * *",
    ]);
    assert_eq!(out, "cronjob.batch/nightly created\n");
    let yaml = s.ok(&["get", "cronjob", "nightly", "-o", "yaml"]);
    assert_lines(
        &yaml,
        &[
            "concurrencyPolicy: Allow",
            "successfulJobsHistoryLimit: 3",
            "failedJobsHistoryLimit: 1",
            "suspend: false",
            "schedule: 30 3 * * *",
            "restartPolicy: OnFailure",
        ],
    );
    let described = s.ok(&["describe", "cronjob", "nightly"]);
    assert_lines(
        &described,
        &[
            "Name: nightly",
            "Schedule: 30 3 * * *",
            "Concurrency Policy: Allow",
            "Suspend: False",
            "Successful Job History Limit: 3",
            "Failed Job History Limit: 1",
            "Starting Deadline Seconds: <unset>",
            "Last Schedule Time: <unset>",
            "Active Jobs: <none>",
        ],
    );

    // A Job from a CronJob's template (one applied from a manifest, with its job template's
    // labels, limits and pod resources), owned by it and marked as instantiated by hand:
    // kubectl copies the template into the protobuf it sends.
    let report = s.write("report.yaml", REPORT_CRONJOB);
    s.ok(&["apply", "-f", report.to_str().unwrap_or_default()]);
    let out = s.ok(&["create", "job", "by-hand", "--from=cronjob/report"]);
    assert_eq!(out, "job.batch/by-hand created\n");
    let cronjob_uid = field(&s, "cronjob/report", "{.metadata.uid}");
    assert_eq!(
        field(
            &s,
            "job/by-hand",
            "{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} \
             {.metadata.ownerReferences[0].uid} {.metadata.ownerReferences[0].controller} \
             {.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate} \
             {.metadata.labels.team} {.spec.backoffLimit} {.spec.activeDeadlineSeconds} \
             {.spec.ttlSecondsAfterFinished} {.spec.template.spec.restartPolicy} \
             {.spec.template.spec.containers[0].resources.requests.cpu}"
        ),
        format!("CronJob/report {cronjob_uid} true manual data 2 600 100 Never 100m")
    );
    let missing = s.kubectl(&["create", "job", "x", "--from=cronjob/missing"]);
    assert_eq!(
        missing.stderr,
        "Error from server (NotFound): cronjobs.batch \"missing\" not found\n"
    );
    let table = rows(&s.ok(&["get", "cronjobs"]));
    assert_eq!(
        table[0].join(" "),
        "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE"
    );
    assert_eq!(
        table[1][..10].join(" "),
        "nightly 30 3 * * * <none> False 0 <none>"
    );
    assert_eq!(
        table[2][..10].join(" "),
        "report 0 6 * * 1 Europe/Paris False 0 <none>"
    );
    let table = rows(&s.ok(&["get", "jobs"]));
    assert_eq!(table[0].join(" "), "NAME STATUS COMPLETIONS DURATION AGE");
    let names: Vec<&str> = table[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["by-hand", "once"]);
}

/// A CronJob with a time zone, a concurrency policy and a job template carrying labels,
/// limits and pod resources.
const REPORT_CRONJOB: &str = "\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: \"0 6 * * 1\"
  timeZone: Europe/Paris
  concurrencyPolicy: Forbid
  jobTemplate:
    metadata:
      labels:
        team: data
    spec:
      backoffLimit: 2
      activeDeadlineSeconds: 600
      ttlSecondsAfterFinished: 100
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: report
            image: busybox:1.36
            resources:
              requests:
                cpu: 100m
";

/// A Job whose pod completes: `kubectl wait --for=condition=complete` returns, `get jobs`
/// prints it Complete 1/1, `describe` counts one Succeeded pod and the controller's events.
/// A Job whose pods crash, with `backoffLimit: 1`: two pods fail, then the Job is Failed
/// (BackoffLimitExceeded). Needs the Job controller.
#[test]
fn jobs_complete_or_fail_and_kubectl_waits_for_them() {
    need_kubectl!("jobs_complete_or_fail_and_kubectl_waits_for_them");
    let s = TestServer::at_speed(20.0);
    let done = s.write("done.yaml", &job_manifest("done", "complete-after=2s", 6));
    let broken = s.write("broken.yaml", &job_manifest("broken", "crash-after=1s", 1));
    for file in [&done, &broken] {
        s.ok(&["apply", "-f", file.to_str().unwrap_or_default()]);
    }
    let waited = s.ok(&[
        "wait",
        "--for=condition=complete",
        "job/done",
        "--timeout=30s",
    ]);
    assert_eq!(waited, "job.batch/done condition met\n");
    let waited = s.ok(&[
        "wait",
        "--for=condition=failed",
        "job/broken",
        "--timeout=30s",
    ]);
    assert_eq!(waited, "job.batch/broken condition met\n");

    let table = rows(&s.ok(&["get", "jobs"]));
    assert_eq!(table[0].join(" "), "NAME STATUS COMPLETIONS DURATION AGE");
    assert_eq!(table[1][..3].join(" "), "broken Failed 0/1", "{table:?}");
    assert_eq!(table[2][..3].join(" "), "done Complete 1/1", "{table:?}");

    let described = s.ok(&["describe", "job", "done"]);
    assert_lines(
        &described,
        &["Pods Statuses: 0 Active (0 Ready) / 1 Succeeded / 0 Failed"],
    );
    let pod = field(
        &s,
        "pods",
        "{.items[?(@.metadata.labels.job-name==\"done\")].metadata.name}",
    );
    assert!(pod.starts_with("done-"), "{pod}");
    assert!(
        squeezed(&described)
            .iter()
            .any(|l| l.starts_with("Normal SuccessfulCreate ")
                && l.ends_with(&format!("job-controller Created pod: {pod}"))),
        "{described}"
    );
    assert!(
        squeezed(&described)
            .iter()
            .any(|l| l.starts_with("Normal Completed ")
                && l.ends_with("job-controller Job completed")),
        "{described}"
    );
    assert_eq!(
        field(
            &s,
            "job/done",
            "{.status.succeeded} {.status.conditions[?(@.type==\"Complete\")].status}"
        ),
        "1 True"
    );
    assert_eq!(
        field(
            &s,
            "job/broken",
            "{.status.failed} {.status.conditions[?(@.type==\"Failed\")].reason}"
        ),
        "2 BackoffLimitExceeded"
    );
    let described = s.ok(&["describe", "job", "broken"]);
    assert_lines(
        &described,
        &["Pods Statuses: 0 Active (0 Ready) / 0 Succeeded / 2 Failed"],
    );
    assert!(
        squeezed(&described)
            .iter()
            .any(|l| l.starts_with("Warning BackoffLimitExceeded ")
                && l.ends_with("job-controller Job has reached the specified backoff limit")),
        "{described}"
    );
}

/// `kubectl create cronjob` every minute, on a clock 30× the wall clock: the CronJob controller
/// creates a Job named after the scheduled minute, owned by the CronJob, and `get cronjobs`,
/// `describe cronjob` and `get jobs` show it. Needs the CronJob controller.
#[test]
fn a_cronjob_creates_jobs_on_the_virtual_clock() {
    need_kubectl!("a_cronjob_creates_jobs_on_the_virtual_clock");
    let s = TestServer::at_speed(30.0);
    // The generator's manifest, its pods made to run for ever (a Job's pod without a behaviour
    // runs a 5 s command), so every Job stays active.
    let manifest = s.ok(&[
        "create",
        "cronjob",
        "tick",
        "--image=busybox:1.36",
        "--schedule=*/1 * * * *",
        "--dry-run=client",
        "-o",
        "yaml",
    ]);
    let manifest = manifest.replacen(
        "    spec:\n      template:\n        metadata:\n",
        "    spec:\n      template:\n        metadata:\n          annotations:\n            watchlab.dev/behaviour: ready-after=1s\n",
        1,
    );
    assert!(manifest.contains("watchlab.dev/behaviour"), "{manifest}");
    let path = s.write("tick.yaml", &manifest);
    s.ok(&["apply", "-f", path.to_str().unwrap_or_default()]);
    let owned = "{range .items[*]}{.metadata.ownerReferences[0].name} {.metadata.name} \
                 {.metadata.annotations.batch\\.kubernetes\\.io/cronjob-scheduled-timestamp}\
                 {\"\\n\"}{end}";
    let jobs = wait_until("two Jobs of tick", Duration::from_secs(20), || {
        let jobs: Vec<Vec<String>> = rows(&field(&s, "jobs", owned));
        (jobs.len() >= 2).then_some(jobs)
    });
    for job in &jobs {
        assert_eq!(job[0], "tick", "{jobs:?}");
        // tick-<minutes since 1970>, scheduled on a whole minute.
        let minutes: u64 = job[1]
            .strip_prefix("tick-")
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("{jobs:?}"));
        assert!(minutes > 29_000_000, "{jobs:?}");
        assert!(job[2].ends_with(":00Z"), "{jobs:?}");
    }
    // The CronJob's ACTIVE column counts the Jobs listed at the same moment (pods that never
    // exit keep them running; one more may come due between the two reads, so ask again).
    wait_until("ACTIVE to count the Jobs", Duration::from_secs(10), || {
        let jobs = rows(&field(&s, "jobs", owned)).len();
        let table = rows(&s.ok(&["get", "cronjobs"]));
        assert_eq!(
            table[0].join(" "),
            "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE"
        );
        // The schedule is five words; LAST SCHEDULE is the tenth.
        (table[1][..9].join(" ") == format!("tick */1 * * * * <none> False {jobs}")
            && table[1][9] != "<none>")
            .then_some(())
    });
    let described = s.ok(&["describe", "cronjob", "tick"]);
    let lines = squeezed(&described);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Last Schedule Time: ") && !l.ends_with("<unset>")),
        "{described}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Active Jobs: tick-")),
        "{described}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Normal SuccessfulCreate ")
                && l.contains("cronjob-controller Created job tick-")),
        "{described}"
    );
}

const DAEMON_SET: &str = "\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: busybox:1.36
";

/// A DaemonSet applied from a manifest runs one pod on every node; `get ds` prints the
/// counts, `rollout status` waits for them, `set image` makes revision 2, `rollout history`
/// lists both ControllerRevisions and `rollout undo` brings the first template back as
/// revision 3. Needs the DaemonSet controller.
#[test]
fn a_daemon_set_runs_on_every_node_and_rolls_back() {
    need_kubectl!("a_daemon_set_runs_on_every_node_and_rolls_back");
    let s = TestServer::at_speed(20.0);
    let manifest = s.write("agent.yaml", DAEMON_SET);
    let out = s.ok(&["apply", "-f", manifest.to_str().unwrap_or_default()]);
    assert_eq!(out, "daemonset.apps/agent created\n");
    let status = s.ok(&["rollout", "status", "ds/agent", "--timeout=30s"]);
    assert!(
        status.ends_with("daemon set \"agent\" successfully rolled out\n"),
        "{status}"
    );
    let mut nodes: Vec<String> = field(&s, "nodes", "{.items[*].metadata.name}")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    nodes.sort();
    let on_nodes = |s: &TestServer| {
        let mut on: Vec<String> = s
            .ok(&[
                "get",
                "pods",
                "-l",
                "app=agent",
                "--field-selector=status.phase=Running",
                "-o",
                "jsonpath={.items[*].spec.nodeName}",
            ])
            .split_whitespace()
            .map(str::to_string)
            .collect();
        on.sort();
        on
    };
    assert_eq!(on_nodes(&s), nodes, "one pod per node");
    let n = nodes.len().to_string();
    let table = rows(&s.ok(&["get", "ds"]));
    assert_eq!(
        table[0].join(" "),
        "NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE"
    );
    assert_eq!(
        table[1][..7],
        ["agent", &n, &n, &n, &n, &n, "<none>"].map(str::to_string),
        "{table:?}"
    );
    let described = s.ok(&["describe", "ds", "agent"]);
    assert_lines(
        &described,
        &[
            "Name: agent",
            "Selector: app=agent",
            "Node-Selector: <none>",
            &format!("Desired Number of Nodes Scheduled: {n}"),
            &format!("Current Number of Nodes Scheduled: {n}"),
            &format!("Number of Nodes Scheduled with Up-to-date Pods: {n}"),
            &format!("Number of Nodes Scheduled with Available Pods: {n}"),
            "Number of Nodes Misscheduled: 0",
            &format!("Pods Status: {n} Running / 0 Waiting / 0 Succeeded / 0 Failed"),
        ],
    );

    s.ok(&["set", "image", "ds/agent", "agent=busybox:1.37"]);
    s.ok(&["rollout", "status", "ds/agent", "--timeout=30s"]);
    let history = s.ok(&["rollout", "history", "ds/agent"]);
    assert_eq!(
        history,
        "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    );
    let second = s.ok(&["rollout", "history", "ds/agent", "--revision=2"]);
    assert!(
        second.starts_with("daemonset.apps/agent with revision #2\nPod Template:\n"),
        "{second}"
    );
    assert!(second.contains("    Image:\tbusybox:1.37\n"), "{second}");

    assert_eq!(
        s.ok(&["rollout", "undo", "ds/agent"]),
        "daemonset.apps/agent rolled back\n"
    );
    assert_eq!(
        field(&s, "ds/agent", "{.spec.template.spec.containers[0].image}"),
        "busybox:1.36"
    );
    s.ok(&["rollout", "status", "ds/agent", "--timeout=30s"]);
    let history = wait_until("revision 3", Duration::from_secs(10), || {
        let h = s.ok(&["rollout", "history", "ds/agent"]);
        h.contains("\n3 ").then_some(h)
    });
    assert_eq!(
        history,
        "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
    );
    let images = s.ok(&[
        "get",
        "pods",
        "-l",
        "app=agent",
        "-o",
        "jsonpath={.items[*].spec.containers[0].image}",
    ]);
    assert!(
        images.split_whitespace().all(|i| i == "busybox:1.36"),
        "{images}"
    );
    assert_eq!(on_nodes(&s), nodes, "one pod per node after the undo");
}

/// Invalid Jobs, CronJobs and DaemonSets are refused with the real API server's texts, as
/// kubectl prints them.
#[test]
fn invalid_workloads_are_refused_with_the_real_texts() {
    need_kubectl!("invalid_workloads_are_refused_with_the_real_texts");
    let s = TestServer::at_speed(0.0);
    let refused = |name: &str, manifest: &str| {
        let file = s.write(name, manifest);
        let r = s.kubectl(&["create", "-f", file.to_str().unwrap_or_default()]);
        assert_eq!(r.code, 1, "{name}: {}{}", r.stdout, r.stderr);
        r.stderr
    };
    let pod = "      containers:\n      - name: c\n        image: busybox:1.36\n";
    assert_eq!(
        refused(
            "job.yaml",
            &format!(
                "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: x\nspec:\n  template:\n    \
                 spec:\n{pod}"
            )
        ),
        "The Job \"x\" is invalid: spec.template.spec.restartPolicy: Required value: valid \
         values: \"OnFailure\", \"Never\"\n"
    );
    assert_eq!(
        refused(
            "cronjob.yaml",
            &format!(
                "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: x\nspec:\n  schedule: \
                 \"every day\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          \
                 restartPolicy: Never\n{}",
                pod.replace("      ", "          ")
            )
        ),
        "The CronJob \"x\" is invalid: spec.schedule: Invalid value: \"every day\": expected \
         exactly 5 fields, found 2: [every day]\n"
    );
    assert_eq!(
        refused(
            "ds.yaml",
            &format!(
                "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: x\nspec:\n  selector:\n    \
                 matchLabels:\n      app: x\n  template:\n    metadata:\n      labels:\n        \
                 app: other\n    spec:\n{pod}"
            )
        ),
        "The DaemonSet \"x\" is invalid: spec.template.metadata.labels: Invalid value: \
         map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`\n"
    );
    // `kubectl create job` sends its protobuf; the server's refusal comes back the same way,
    // with both errors of a name kubectl also gives the container.
    let r = s.kubectl(&["create", "job", "Bad_Name", "--image=busybox:1.36"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "error: failed to create job: Job.batch \"Bad_Name\" is invalid: [metadata.name: \
         Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case \
         alphanumeric characters, '-' or '.', and must start and end with an alphanumeric \
         character (e.g. 'example.com', regex used for validation is \
         '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), \
         spec.template.spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC \
         1123 label must consist of lower case alphanumeric characters or '-', and must start \
         and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for \
         validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]\n"
    );
    assert!(s.ok(&["get", "jobs,cronjobs,ds", "-o", "name"]).is_empty());
}
