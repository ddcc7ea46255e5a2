//! `kubectl logs` (the real one) against the server: a pod told by `watchlab.dev/behaviour` to
//! crash shows its current run, `--previous` the run that crashed with its exit; `-c`, `--tail`,
//! `--timestamps` and `--since` shape the output as the kubelet does; refusals come back in the
//! real words (`Error from server (BadRequest): ...`); `-f` streams the lines the virtual clock
//! writes and returns when the container exits. The server runs 30× faster than the wall clock.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;
use watchlab_apiserver_http::Args;

const TWO: &str = r#"apiVersion: v1
kind: Pod
metadata:
  name: two
spec:
  containers:
  - name: web
    image: nginx:1.27
  - name: side
    image: busybox:1.36
"#;

fn restarts(s: &TestServer, pod: &str) -> u32 {
    s.ok(&[
        "get",
        "pod",
        pod,
        "-o",
        "jsonpath={.status.containerStatuses[0].restartCount}",
    ])
    .trim()
    .parse()
    .unwrap_or(0)
}

fn running(s: &TestServer, pod: &str) -> bool {
    s.ok(&[
        "get",
        "pod",
        pod,
        "-o",
        "jsonpath={.status.containerStatuses[*].state.running.startedAt}",
    ])
    .split_whitespace()
    .count()
        > 0
}

#[test]
fn kubectl_logs_shows_runs_previous_and_the_options() {
    if !common::kubectl_available("kubectl_logs_shows_runs_previous_and_the_options") {
        return;
    }
    let s = TestServer::start_with(Args {
        port: 0,
        speed: 30.0,
        ..Args::default()
    });
    s.ok(&[
        "run",
        "crash",
        "--image=busybox:1.36",
        "--annotations=watchlab.dev/behaviour=crash-after=20s,exit-code=2",
    ]);
    wait_until("crash running", Duration::from_secs(20), || {
        running(&s, "crash").then_some(())
    });
    assert_eq!(s.ok(&["logs", "crash"]), "busybox: starting\n");
    let r = s.kubectl(&["logs", "crash", "--previous"]);
    assert_ne!(r.code, 0);
    assert_eq!(
        r.stderr.trim(),
        "Error from server (BadRequest): previous terminated container \"crash\" in pod \"crash\" not found"
    );

    wait_until("a restart", Duration::from_secs(30), || {
        (restarts(&s, "crash") >= 1).then_some(())
    });
    assert_eq!(
        s.ok(&["logs", "crash", "--previous"]),
        "busybox: starting\nbusybox: fatal error, exiting with code 2\n"
    );
    assert_eq!(
        s.ok(&["logs", "crash", "-p", "--tail=1", "-c", "crash"]),
        "busybox: fatal error, exiting with code 2\n"
    );
    // The container keeps crashing (every 20 s of virtual time, 30 times faster than real
    // time): read the last crash's time before and after the log, and use a log read that no
    // new crash fell between.
    let finished_at = || {
        s.ok(&[
            "get",
            "pod",
            "crash",
            "-o",
            "jsonpath={.status.containerStatuses[0].lastState.terminated.finishedAt}",
        ])
    };
    let (stamped, finished) = wait_until(
        "a log read between two crashes",
        Duration::from_secs(30),
        || {
            let before = finished_at();
            let stamped = s.ok(&["logs", "crash", "--previous", "--timestamps"]);
            (finished_at() == before).then_some((stamped, before))
        },
    );
    let last = stamped.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(finished.trim_end_matches('Z')) && last.contains("000000Z "),
        "{last} vs {finished}"
    );
    assert!(last.ends_with(" busybox: fatal error, exiting with code 2"));
    // An hour back covers the whole run (`--since` is `sinceSeconds`).
    assert_eq!(
        s.ok(&["logs", "crash", "--previous", "--since=1h"]),
        "busybox: starting\nbusybox: fatal error, exiting with code 2\n"
    );

    let manifest = s.write("two.yaml", TWO);
    s.ok(&[
        "apply",
        "--validate=false",
        "-f",
        manifest.to_str().unwrap_or_default(),
    ]);
    wait_until("two running", Duration::from_secs(20), || {
        running(&s, "two").then_some(())
    });
    // kubectl picks the first container itself and says so.
    let r = s.kubectl(&["logs", "two"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stderr
        .contains("Defaulted container \"web\" out of: web, side"));
    assert!(
        r.stdout.starts_with("/docker-entrypoint.sh: "),
        "{}",
        r.stdout
    );
    assert_eq!(s.ok(&["logs", "two", "-c", "side"]), "busybox: starting\n");
    let r = s.kubectl(&["logs", "two", "-c", "nope"]);
    assert!(
        r.stderr.contains("container nope is not valid for pod two"),
        "{}",
        r.stderr
    );
    // The raw request without a container: the API server's own refusal.
    let r = s.kubectl(&["get", "--raw", "/api/v1/namespaces/default/pods/two/log"]);
    assert!(
        r.stderr
            .contains("a container name must be specified for pod two, choose one of: [web side]"),
        "{}",
        r.stderr
    );
}

#[test]
fn kubectl_logs_follow_streams_until_the_container_exits() {
    if !common::kubectl_available("kubectl_logs_follow_streams_until_the_container_exits") {
        return;
    }
    let s = TestServer::start_with(Args {
        port: 0,
        speed: 30.0,
        ..Args::default()
    });
    s.ok(&[
        "run",
        "job",
        "--image=worker:1",
        "--restart=Never",
        "--annotations=watchlab.dev/behaviour=ready-after=30s,complete-after=60s",
    ]);
    wait_until("job running", Duration::from_secs(20), || {
        running(&s, "job").then_some(())
    });
    let mut f = s.spawn(&["logs", "-f", "job"]);
    let out = f.wait_for(Duration::from_secs(20), |t| t.contains("done, exiting"));
    assert_eq!(
        out,
        "worker: starting\nworker: warm-up done, accepting connections\nworker: done, exiting\n"
    );
    let r = s.kubectl(&["logs", "job"]);
    assert_eq!(r.stdout, out, "the finished run reads the same");
    f.stop();
}
