//! The `batch/v1` and DaemonSet workloads from the console, against the engine with its
//! kubelets and controllers: `kubectl create job` / `create cronjob` / `create job
//! --from=cronjob/NAME` as kubectl's generators build them, with their refusals;
//! `describe job|cronjob|daemonset` as kubectl's describers print them; a DaemonSet's
//! `rollout status|history|undo|restart` through its ControllerRevisions; and `get` of each
//! kind through the server's Table. The texts are kubectl v1.32's (compared byte for byte with
//! the real kubectl in `crates/apiserver-http/tests/workloads_console.rs`).

use serde_json::{json, Value};
use watchlab_engine::controllers::Harness;
use watchlab_kubectl::Kubectl;

mod live;

use live::{cluster, jsonpath, ok, run};

const AGENT: &str = "apiVersion: apps/v1
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
        image: agent:1
";

/// A Job whose pod finishes 5 s after it starts.
const PI: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    metadata:
      annotations:
        watchlab.dev/behaviour: complete-after=5s
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl:5.34
";

/// `2026-01-01T00:00:13Z` as describe prints it (the harness's clock starts on that Thursday
/// and these tests stay within its first hour).
fn described_time(rfc3339: &str) -> String {
    assert!(rfc3339.starts_with("2026-01-01T00:"), "{rfc3339}");
    let clock = rfc3339.get(11..19).unwrap_or_default();
    format!("Thu, 01 Jan 2026 {clock} +0000")
}

/// Seconds from the start of the hour of a `2026-01-01T00:MM:SSZ` time.
fn seconds(rfc3339: &str) -> u64 {
    let part = |r: std::ops::Range<usize>| {
        rfc3339
            .get(r)
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0)
    };
    part(14..16) * 60 + part(17..19)
}

#[test]
fn create_job_and_cronjob_build_the_objects_kubectl_builds() {
    let (mut h, mut k) = cluster();
    assert_eq!(
        ok(&mut k, &mut h, "kubectl create job pi --image=perl:5.34 --dry-run=client -o yaml -- perl -e 'print 1'"),
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  creationTimestamp: null\n  name: pi\nspec:\n  template:\n    metadata:\n      creationTimestamp: null\n    spec:\n      containers:\n      - command:\n        - perl\n        - -e\n        - print 1\n        image: perl:5.34\n        name: pi\n        resources: {}\n      restartPolicy: Never\nstatus: {}\n"
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl create cronjob hello --image=busybox --schedule='*/1 * * * *' -n kube-system --dry-run=client -o yaml -- date"),
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  creationTimestamp: null\n  name: hello\n  namespace: kube-system\nspec:\n  jobTemplate:\n    metadata:\n      creationTimestamp: null\n      name: hello\n    spec:\n      template:\n        metadata:\n          creationTimestamp: null\n        spec:\n          containers:\n          - command:\n            - date\n            image: busybox\n            name: hello\n            resources: {}\n          restartPolicy: OnFailure\n  schedule: '*/1 * * * *'\nstatus: {}\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl create cj yearly --image=busybox --schedule='0 0 1 1 *' --restart=Never"
        ),
        "cronjob.batch/yearly created\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl create job pi --image=busybox -- date"
        ),
        "job.batch/pi created\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl create job x --image=busybox --dry-run=server"
        ),
        "job.batch/x created (server dry run)\n"
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl get job x").1,
        "Error from server (NotFound): jobs.batch \"x\" not found\n"
    );
    let pi: Value =
        serde_json::from_str(&ok(&mut k, &mut h, "kubectl get job pi -o json")).unwrap_or_default();
    let pod = &pi["spec"]["template"]["spec"];
    assert_eq!(
        (&pod["containers"][0]["name"], &pod["restartPolicy"]),
        (&json!("pi"), &json!("Never"))
    );
    // kubectl sets no labels: the API server gives the Job those of its generated selector.
    assert_eq!(
        pi["metadata"]["labels"]["batch.kubernetes.io/job-name"],
        json!("pi")
    );

    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl create job manual --from=cronjob/yearly"
        ),
        "job.batch/manual created\n"
    );
    let manual: Value = serde_json::from_str(&ok(&mut k, &mut h, "kubectl get job manual -o json"))
        .unwrap_or_default();
    let yearly_uid = jsonpath(&mut k, &mut h, "cronjob yearly", "{.metadata.uid}");
    assert_eq!(
        manual["metadata"]["annotations"],
        json!({"cronjob.kubernetes.io/instantiate": "manual"})
    );
    assert_eq!(
        manual["metadata"]["ownerReferences"],
        json!([{"apiVersion": "batch/v1", "kind": "CronJob", "name": "yearly",
            "uid": yearly_uid, "controller": true}])
    );
    let pod = &manual["spec"]["template"]["spec"];
    assert_eq!(
        (&pod["containers"][0]["name"], &pod["restartPolicy"]),
        (&json!("yearly"), &json!("Never"))
    );
}

#[test]
fn create_job_and_cronjob_refuse_what_kubectl_refuses() {
    let (mut h, mut k) = cluster();
    ok(
        &mut k,
        &mut h,
        "kubectl create deployment web --image=nginx:1.27",
    );
    ok(
        &mut k,
        &mut h,
        "kubectl create cronjob yearly --image=busybox --schedule='0 0 1 1 *'",
    );
    ok(&mut k, &mut h, "kubectl create job pi --image=busybox");
    for (line, text) in [
        ("kubectl create job", "error: exactly one NAME is required, got 0\nSee 'kubectl create job -h' for help and examples\n"),
        ("kubectl create job x y --image=busybox", "error: exactly one NAME is required, got 2\nSee 'kubectl create job -h' for help and examples\n"),
        ("kubectl create job x", "error: either --image or --from must be specified\n"),
        ("kubectl create job x --image=busybox --from=cronjob/yearly", "error: either --image or --from must be specified\n"),
        ("kubectl create job x --from=cronjob/yearly -- date", "error: cannot specify --from and command\n"),
        ("kubectl create job x --from=cronjob/missing", "Error from server (NotFound): cronjobs.batch \"missing\" not found\n"),
        ("kubectl create job x --from=cronjob", "error: resource(s) were provided, but no name was specified\n"),
        ("kubectl create job x --from=foo/bar", "error: the server doesn't have a resource type \"foo\"\n"),
        ("kubectl create job x --from=deployment/web", "error: unknown object type *v1.Deployment\n"),
        ("kubectl create job x --from=job/pi", "error: unknown object type *v1.Job\n"),
        ("kubectl create job pi --image=busybox", "error: failed to create job: jobs.batch \"pi\" already exists\n"),
        ("kubectl create cronjob x", "error: required flag(s) \"image\", \"schedule\" not set\n"),
        ("kubectl create cronjob x --image=busybox", "error: required flag(s) \"schedule\" not set\n"),
        ("kubectl create cronjob x --image=busybox --schedule=bad", "error: failed to create cronjob: CronJob.batch \"x\" is invalid: spec.schedule: Invalid value: \"bad\": expected exactly 5 fields, found 1: [bad]\n"),
        ("kubectl create cronjob x --image=busybox --schedule='* * * * *' --restart=Always", "error: failed to create cronjob: CronJob.batch \"x\" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"\n"),
    ] {
        assert_eq!(run(&mut k, &mut h, line), (String::new(), text.to_string()), "{line}");
    }
    let listed = ok(&mut k, &mut h, "kubectl get jobs -o name");
    assert_eq!(listed, "job.batch/pi\n");
}

#[test]
fn get_prints_jobs_cronjobs_daemonsets_and_their_revisions_through_the_servers_table() {
    let (mut h, mut k) = cluster();
    k.set_file("ds.yaml", AGENT);
    ok(&mut k, &mut h, "kubectl apply -f ds.yaml");
    ok(
        &mut k,
        &mut h,
        "kubectl create cronjob yearly --image=busybox --schedule='0 0 1 1 *'",
    );
    ok(&mut k, &mut h, "kubectl create job pi --image=busybox");
    h.run_for(30_000);
    let printed = ok(
        &mut k,
        &mut h,
        "kubectl get jobs,cronjobs,ds,controllerrevisions",
    );
    let blocks: Vec<Vec<Vec<&str>>> = printed
        .split("\n\n")
        .map(|b| b.lines().map(|l| l.split_whitespace().collect()).collect())
        .collect();
    let heads: Vec<String> = blocks
        .iter()
        .map(|b| b.first().map(|l| l.join(" ")).unwrap_or_default())
        .collect();
    assert_eq!(
        heads,
        [
            "NAME STATUS COMPLETIONS DURATION AGE",
            "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE",
            "NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE",
            "NAME CONTROLLER REVISION AGE",
        ],
        "{printed}"
    );
    let row = |b: usize| {
        blocks
            .get(b)
            .and_then(|b| b.get(1))
            .cloned()
            .unwrap_or_default()
    };
    // A Job's pod without a behaviour annotation runs 5 s and exits 0.
    assert_eq!(
        row(0)[..3],
        ["job.batch/pi", "Complete", "1/1"],
        "{printed}"
    );
    assert_eq!(
        row(1)[..9],
        [
            "cronjob.batch/yearly",
            "0",
            "0",
            "1",
            "1",
            "*",
            "<none>",
            "False",
            "0"
        ],
        "{printed}"
    );
    assert_eq!(
        row(2)[..7],
        ["daemonset.apps/agent", "2", "2", "2", "2", "2", "<none>"],
        "{printed}"
    );
    assert!(
        row(3)[0].starts_with("controllerrevision.apps/agent-"),
        "{printed}"
    );
    assert_eq!(row(3)[1..3], ["daemonset.apps/agent", "1"], "{printed}");
}

/// Needs the Job controller (`controllers/job`): the Job's status, times and events.
#[test]
fn describe_job_once_it_completed() {
    let (mut h, mut k) = cluster();
    k.set_file("pi.yaml", PI);
    ok(&mut k, &mut h, "kubectl apply -f pi.yaml");
    for _ in 0..60 {
        h.run_for(1_000);
        if jsonpath(&mut k, &mut h, "job pi", "{.status.succeeded}") == "1" {
            break;
        }
    }

    let uid = jsonpath(&mut k, &mut h, "job pi", "{.metadata.uid}");
    let start = jsonpath(&mut k, &mut h, "job pi", "{.status.startTime}");
    let end = jsonpath(&mut k, &mut h, "job pi", "{.status.completionTime}");
    let expected = format!(
        "Name:             pi
Namespace:        default
Selector:         batch.kubernetes.io/controller-uid={uid}
Labels:           batch.kubernetes.io/controller-uid={uid}
                  batch.kubernetes.io/job-name=pi
                  controller-uid={uid}
                  job-name=pi
Annotations:      <none>
Parallelism:      1
Completions:      1
Completion Mode:  NonIndexed
Suspend:          false
Backoff Limit:    6
Start Time:       {}
Completed At:     {}
Duration:         {}s
Pods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed
Pod Template:
  Labels:       batch.kubernetes.io/controller-uid={uid}
                batch.kubernetes.io/job-name=pi
                controller-uid={uid}
                job-name=pi
  Annotations:  watchlab.dev/behaviour: complete-after=5s
  Containers:
   pi:
    Image:         perl:5.34
    Port:          <none>
    Host Port:     <none>
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
",
        described_time(&start),
        described_time(&end),
        seconds(&end) - seconds(&start)
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl describe job pi --show-events=false"
        ),
        expected
    );
    let described = ok(&mut k, &mut h, "kubectl describe job pi");
    let events: Vec<Vec<&str>> = described
        .split("Events:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(events.len(), 4, "{described}");
    assert_eq!(
        events[2][..2],
        ["Normal", "SuccessfulCreate"],
        "{described}"
    );
    assert_eq!(
        events[2][3..6],
        ["job-controller", "Created", "pod:"],
        "{described}"
    );
    assert!(events[2][6].starts_with("pi-"), "{described}");
    assert_eq!(events[3][..2], ["Normal", "Completed"], "{described}");
    assert_eq!(
        events[3][3..],
        ["job-controller", "Job", "completed"],
        "{described}"
    );
}

/// Needs the CronJob controller (`controllers/cronjob.rs`): the Job it created at 00:01 is
/// its active one until its pod has run, then none is.
#[test]
fn describe_cronjob_names_its_schedule_and_active_job() {
    let (mut h, mut k) = cluster();
    ok(
        &mut k,
        &mut h,
        "kubectl create cronjob hello --image=busybox --schedule='*/1 * * * *'",
    );
    let described = ok(
        &mut k,
        &mut h,
        "kubectl describe cronjob hello --show-events=false",
    );
    let head = "Name:                          hello
Namespace:                     default
Labels:                        <none>
Annotations:                   <none>
Schedule:                      */1 * * * *
Concurrency Policy:            Allow
Suspend:                       False
Successful Job History Limit:  3
Failed Job History Limit:      1
Starting Deadline Seconds:     <unset>
Selector:                      <unset>
Parallelism:                   <unset>
Completions:                   <unset>
Pod Template:
  Labels:  <none>
  Containers:
   hello:
    Image:           busybox
    Port:            <none>
    Host Port:       <none>
    Environment:     <none>
    Mounts:          <none>
  Volumes:           <none>
  Node-Selectors:    <none>
  Tolerations:       <none>
";
    assert_eq!(
        described,
        format!("{head}Last Schedule Time:  <unset>\nActive Jobs:         <none>\n")
    );
    // 00:01:00 is minute 29453761 since the epoch: the Job's name. It is active until its
    // pod has run its 5 s, then the CronJob lists no active Job.
    let scheduled = format!("{head}Last Schedule Time:  Thu, 01 Jan 2026 00:01:00 +0000\n");
    let mut seen = Vec::new();
    while h.now() < watchlab_engine::clock::Timestamp::from_secs(120) {
        h.run_for(500);
        let described = ok(
            &mut k,
            &mut h,
            "kubectl describe cronjob hello --show-events=false",
        );
        if seen.last() != Some(&described) {
            seen.push(described);
        }
    }
    assert_eq!(
        seen,
        [
            format!("{head}Last Schedule Time:  <unset>\nActive Jobs:         <none>\n"),
            format!("{scheduled}Active Jobs:         hello-29453761\n"),
            format!("{scheduled}Active Jobs:         <none>\n"),
        ]
    );
}

/// The distinct `rollout status` lines while the cluster runs `ms` more, polled every 250 ms,
/// until the rollout is done.
fn status_lines(k: &mut Kubectl, h: &mut Harness, ms: u64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for _ in 0..ms / 250 {
        let line = ok(k, h, "kubectl rollout status ds/agent");
        if lines.last() != Some(&line) {
            lines.push(line.clone());
        }
        if line.ends_with("successfully rolled out\n") {
            break;
        }
        h.run_for(250);
    }
    lines
}

/// Needs the DaemonSet controller (`controllers/daemonset`) and the ControllerRevisions it keeps.
#[test]
fn daemon_set_rollout_status_history_undo_and_restart() {
    let (mut h, mut k) = cluster();
    k.set_file("ds.yaml", AGENT);
    ok(&mut k, &mut h, "kubectl apply -f ds.yaml");
    let first = status_lines(&mut k, &mut h, 30_000);
    assert_eq!(
        first.first().map(String::as_str),
        Some("Waiting for daemon set spec update to be observed...\n")
    );
    assert_eq!(
        first.last().map(String::as_str),
        Some("daemon set \"agent\" successfully rolled out\n")
    );
    ok(
        &mut k,
        &mut h,
        r#"kubectl patch ds agent -p '{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:2"}]}}}}'"#,
    );
    assert_eq!(
        status_lines(&mut k, &mut h, 60_000),
        [
            "Waiting for daemon set spec update to be observed...\n",
            "Waiting for daemon set \"agent\" rollout to finish: 0 out of 2 new pods have been updated...\n",
            "Waiting for daemon set \"agent\" rollout to finish: 1 out of 2 new pods have been updated...\n",
            "Waiting for daemon set \"agent\" rollout to finish: 1 of 2 updated pods are available...\n",
            "daemon set \"agent\" successfully rolled out\n",
        ]
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout history ds/agent"),
        "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout history daemonset/agent --revision=1"),
        "daemonset.apps/agent with revision #1\nPod Template:\n  Labels:\tapp=agent\n  Containers:\n   agent:\n    Image:\tagent:1\n    Port:\t<none>\n    Host Port:\t<none>\n    Environment:\t<none>\n    Mounts:\t<none>\n  Volumes:\t<none>\n  Node-Selectors:\t<none>\n  Tolerations:\t<none>\n\n"
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl rollout history ds/agent --revision=7"
        )
        .1,
        "error: unable to find the specified revision\n"
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout undo ds/agent"),
        "daemonset.apps/agent rolled back\n"
    );
    let image = "{.spec.template.spec.containers[0].image}";
    assert_eq!(jsonpath(&mut k, &mut h, "ds agent", image), "agent:1");
    let back = status_lines(&mut k, &mut h, 60_000);
    assert_eq!(
        back.last().map(String::as_str),
        Some("daemon set \"agent\" successfully rolled out\n")
    );
    // Revision 1's template is current again, as revision 3.
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout history ds/agent"),
        "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl rollout undo ds/agent --to-revision=3"
        ),
        "daemonset.apps/agent skipped rollback (current template already matches revision 3)\n"
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl rollout undo ds/agent --to-revision=9"
        )
        .1,
        "error: unable to find specified revision 9 in history\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl rollout undo ds/agent --to-revision=2 --dry-run=server"
        ),
        "daemonset.apps/agent rolled back (server dry run)\n"
    );
    assert_eq!(jsonpath(&mut k, &mut h, "ds agent", image), "agent:1");

    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout restart ds/agent"),
        "daemonset.apps/agent restarted\n"
    );
    let stamp = jsonpath(
        &mut k,
        &mut h,
        "ds agent",
        "{.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}",
    );
    assert_eq!(stamp, h.now().to_rfc3339());
    let restarted = status_lines(&mut k, &mut h, 60_000);
    assert_eq!(
        restarted.last().map(String::as_str),
        Some("daemon set \"agent\" successfully rolled out\n")
    );
    assert!(ok(&mut k, &mut h, "kubectl rollout history ds/agent")
        .ends_with("3         <none>\n4         <none>\n\n"));

    ok(
        &mut k,
        &mut h,
        r#"kubectl patch ds agent --type=merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'"#,
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl rollout status ds/agent").1,
        "error: rollout status is only available for RollingUpdate strategy type\n"
    );
}

/// Needs the DaemonSet controller: its status counts and its pods.
#[test]
fn describe_daemon_set_counts_its_nodes_and_pods() {
    let (mut h, mut k) = cluster();
    k.set_file("ds.yaml", AGENT);
    ok(&mut k, &mut h, "kubectl apply -f ds.yaml");
    h.run_for(30_000);
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl describe ds agent --show-events=false"
        ),
        "Name:           agent
Selector:       app=agent
Node-Selector:  <none>
Labels:         <none>
Annotations:    deprecated.daemonset.template.generation: 1
Desired Number of Nodes Scheduled: 2
Current Number of Nodes Scheduled: 2
Number of Nodes Scheduled with Up-to-date Pods: 2
Number of Nodes Scheduled with Available Pods: 2
Number of Nodes Misscheduled: 0
Pods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:  app=agent
  Containers:
   agent:
    Image:         agent:1
    Port:          <none>
    Host Port:     <none>
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
"
    );
}

#[test]
fn help_lists_the_new_commands() {
    let (mut h, mut k) = cluster();
    let create = ok(&mut k, &mut h, "kubectl create --help");
    for line in [
        "  cronjob               Create a cron job with the specified name\n",
        "  job                   Create a job with the specified name\n",
        "  kubectl create job NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...] [options]\n",
    ] {
        assert!(create.contains(line), "{create}");
    }
    assert_eq!(ok(&mut k, &mut h, "kubectl create job --help"), create);
    let rollout = ok(&mut k, &mut h, "kubectl help rollout");
    assert!(rollout.contains("  *  daemonsets\n"), "{rollout}");
    assert!(
        rollout.contains("  restart       Restart a resource\n"),
        "{rollout}"
    );
}
