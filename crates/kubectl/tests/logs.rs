//! `kubectl logs` in the console against the engine with its kubelets: a crashing pod's
//! current run, `--previous` with its crash, `-c`/`--tail`/`--timestamps`/`--since`, the
//! default container note, and the server's refusals printed as kubectl prints them.

use watchlab_engine::controllers::{Harness, Profile};
use watchlab_kubectl::Kubectl;

fn restarted_once(h: &Harness) -> bool {
    h.api
        .get(watchlab_engine::api::Kind::Pod, Some("default"), "crash")
        .ok()
        .and_then(|o| o.as_pod().cloned())
        .and_then(|p| p.status.container_statuses.first().cloned())
        .is_some_and(|c| c.restart_count >= 1 && c.state.running.is_some())
}

#[test]
fn logs_reads_the_current_and_the_previous_run() {
    let mut h = Harness::new(3, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl run crash --image=busybox:1.36 --annotations=watchlab.dev/behaviour=crash-after=20s,exit-code=4",
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    // Not on a node yet: the server answers an empty log.
    let out = k.exec("kubectl logs crash", &mut h.api);
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
    let until = h.now().plus_secs(120);
    assert!(h.run_until_true(until, restarted_once));
    assert_eq!(
        k.exec("kubectl logs crash", &mut h.api).stdout,
        "busybox: starting\n"
    );
    assert_eq!(
        k.exec("kubectl logs pod/crash -p", &mut h.api).stdout,
        "busybox: starting\nbusybox: fatal error, exiting with code 4\n"
    );
    assert_eq!(
        k.exec(
            "kubectl logs crash --previous --tail=1 -c crash",
            &mut h.api
        )
        .stdout,
        "busybox: fatal error, exiting with code 4\n"
    );
    let stamped = k.exec("kubectl logs crash --timestamps", &mut h.api).stdout;
    assert!(
        stamped.starts_with("2026-01-01T00:00:") && stamped.ends_with("Z busybox: starting\n"),
        "{stamped}"
    );
    assert_eq!(
        k.exec("kubectl logs crash --since=1h", &mut h.api).stdout,
        "busybox: starting\n"
    );
    let out = k.exec("kubectl logs crash -c other", &mut h.api);
    assert_eq!(
        out.stderr,
        "Error from server (BadRequest): container other is not valid for pod crash\n"
    );
    let out = k.exec("kubectl logs nobody", &mut h.api);
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): pods \"nobody\" not found\n"
    );
}

#[test]
fn logs_defaults_to_the_first_container_and_says_so() {
    let mut h = Harness::new(3, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let manifest = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"two"},"spec":{"containers":[{"name":"web","image":"nginx:1.27"},{"name":"side","image":"busybox:1.36"}]}}"#;
    let r = h.api.handle(
        "kubectl",
        "POST",
        "/api/v1/namespaces/default/pods",
        Some("application/json"),
        Some(manifest),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    h.run_for(30_000);
    let out = k.exec("kubectl logs two", &mut h.api);
    assert_eq!(
        out.stderr,
        "Defaulted container \"web\" out of: web, side\n"
    );
    assert!(
        out.stdout.starts_with("/docker-entrypoint.sh: "),
        "{}",
        out.stdout
    );
    assert_eq!(
        k.exec("kubectl logs two side", &mut h.api).stdout,
        "busybox: starting\n"
    );
    let out = k.exec(
        "kubectl logs two --since=5s --since-time=2026-01-01T00:00:00Z",
        &mut h.api,
    );
    assert_eq!(
        out.stderr,
        "error: at most one of `sinceTime` or `sinceSeconds` may be specified\n"
    );
}

/// `kubectl logs -f` prints the run so far and is followed as the cluster advances: the crash
/// message the container writes later is printed when it is written, and the follow ends with
/// the run (the container stopped), as kubectl's stream ends.
#[test]
fn logs_follow_prints_new_lines_until_the_container_stops() {
    let mut h = Harness::new(4, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl run crash --image=busybox:1.36 --annotations=watchlab.dev/behaviour=crash-after=20s",
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    let until = h.now().plus_secs(30);
    let running = |h: &Harness| {
        h.api
            .get(watchlab_engine::api::Kind::Pod, Some("default"), "crash")
            .ok()
            .and_then(|o| o.as_pod().cloned())
            .is_some_and(|p| p.status.phase == "Running")
    };
    assert!(h.run_until_true(until, running));
    let out = k.exec("kubectl logs -f crash", &mut h.api);
    assert_eq!(out.stdout, "busybox: starting\n");
    let mut follow = out.follow.expect("followed while the container runs");
    let mut later = String::new();
    let mut ended = false;
    for _ in 0..60 {
        h.run_for(1_000);
        let polled = follow.poll(&mut h.api);
        later.push_str(&polled.stdout);
        if polled.ended {
            ended = true;
            break;
        }
    }
    assert!(ended, "the follow ends when the container stops: {later:?}");
    assert_eq!(later, "busybox: fatal error, exiting with code 1\n");
    // Of a stopped container (`-f` on a finished run), the log is printed and the follow
    // ends at its first poll.
    let out = k.exec("kubectl logs -f crash --previous", &mut h.api);
    assert!(out.follow.is_none());
}
