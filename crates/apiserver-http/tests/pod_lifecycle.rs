//! The pod lifecycle through the real kubectl: pods told by their `watchlab.dev/behaviour`
//! annotation to crash, complete or fail readiness show, in `kubectl get pods`,
//! `CrashLoopBackOff` with RESTARTS climbing (`2 (5s ago)`), `Completed`, and `0/1`; `kubectl
//! describe` (the real one, reading the JSON) shows the last state, the probe line and the
//! kubelet's events. The server runs its virtual clock 30× faster than the wall clock.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;
use watchlab_apiserver_http::Args;

/// `kubectl get pods --no-headers` as (name, ready, status, restarts).
fn pods(s: &TestServer) -> Vec<(String, String, String, String)> {
    s.ok(&["get", "pods", "--no-headers"])
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // RESTARTS is `3` or `3 (12s ago)`: everything between STATUS and AGE.
            let restarts = f.get(3..f.len().saturating_sub(1)).unwrap_or_default();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].to_string(),
                restarts.join(" "),
            )
        })
        .collect()
}

const UNREADY: &str = r#"apiVersion: v1
kind: Pod
metadata:
  name: unready
  annotations:
    watchlab.dev/behaviour: fail-readiness
spec:
  containers:
  - name: web
    image: nginx:1.27
    readinessProbe:
      httpGet: {path: /ready, port: 80}
"#;

#[test]
fn kubectl_sees_crash_loops_completions_and_failed_readiness() {
    if !common::kubectl_available("kubectl_sees_crash_loops_completions_and_failed_readiness") {
        return;
    }
    let s = TestServer::start_with(Args {
        port: 0,
        speed: 30.0,
        ..Args::default()
    });
    let behaviour = |b: &str| format!("--annotations=watchlab.dev/behaviour={b}");
    s.ok(&[
        "run",
        "crash",
        "--image=busybox:1.36",
        &behaviour("crash-after=5s,exit-code=2"),
    ]);
    s.ok(&[
        "run",
        "job",
        "--image=busybox:1.36",
        "--restart=Never",
        &behaviour("complete-after=3s"),
    ]);
    let manifest = s.write("unready.yaml", UNREADY);
    s.ok(&[
        "apply",
        "--validate=false",
        "-f",
        manifest.to_str().expect("path"),
    ]);

    let find = |rows: &[(String, String, String, String)], name: &str| {
        rows.iter().find(|r| r.0 == name).cloned()
    };
    let crash = wait_until(
        "crash in CrashLoopBackOff with 2 restarts",
        Duration::from_secs(60),
        || {
            let rows = pods(&s);
            find(&rows, "crash").filter(|r| {
                r.2 == "CrashLoopBackOff"
                    && r.3.split(' ').next().and_then(|n| n.parse::<u32>().ok()) >= Some(2)
            })
        },
    );
    assert_eq!(crash.1, "0/1");
    assert!(crash.3.contains(" ago)"), "RESTARTS shows when: {crash:?}");
    let rows = wait_until("job Completed", Duration::from_secs(30), || {
        let rows = pods(&s);
        find(&rows, "job")
            .filter(|r| r.2 == "Completed")
            .map(|_| rows)
    });
    assert_eq!(
        find(&rows, "job").map(|r| (r.1, r.3)),
        Some(("0/1".into(), "0".into()))
    );
    let unready = find(&rows, "unready").expect("unready listed");
    assert_eq!((unready.1.as_str(), unready.2.as_str()), ("0/1", "Running"));
    // The restarts climb.
    let later = wait_until("more restarts", Duration::from_secs(60), || {
        let rows = pods(&s);
        find(&rows, "crash")
            .filter(|r| r.3.split(' ').next().and_then(|n| n.parse::<u32>().ok()) >= Some(3))
    });
    assert!(
        later.3.starts_with('3') || later.3.starts_with('4'),
        "{later:?}"
    );

    let phase = s.ok(&["get", "pod", "job", "-o", "jsonpath={.status.phase}"]);
    assert_eq!(phase, "Succeeded");

    // The container runs 5 s between back-offs, so describe it while it waits.
    let d = wait_until(
        "crash described while in back-off",
        Duration::from_secs(60),
        || {
            let d = s.ok(&["describe", "pod", "crash"]);
            d.contains("Reason:       CrashLoopBackOff").then_some(d)
        },
    );
    for line in [
        "Last State:     Terminated",
        "Reason:       Error",
        "Exit Code:    2",
        "Ready:          False",
    ] {
        assert!(d.contains(line), "{line:?} missing in\n{d}");
    }
    assert!(
        d.contains("Back-off restarting failed container crash in pod crash_default("),
        "{d}"
    );
    let d = s.ok(&["describe", "pod", "unready"]);
    assert!(
        d.contains("Readiness:      http-get http://:80/ready delay=0s timeout=1s period=10s #success=1 #failure=3"),
        "{d}"
    );
    assert!(
        d.contains("Readiness probe failed: HTTP probe failed with statuscode: 503"),
        "{d}"
    );

    // A typo is refused, with the reason, and nothing is created.
    let bad = s.kubectl(&[
        "run",
        "typo",
        "--image=busybox:1.36",
        &behaviour("crash-afterr=5s"),
    ]);
    assert_ne!(bad.code, 0);
    assert!(
        bad.stderr.contains("metadata.annotations[watchlab.dev/behaviour]: Invalid value: \"crash-afterr=5s\": unknown clause \"crash-afterr\""),
        "{}",
        bad.stderr
    );
    assert!(find(&pods(&s), "typo").is_none());
}
