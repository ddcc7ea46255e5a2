//! Deployment rollouts through the real kubectl: `rollout status` until done, `rollout history`
//! from the ReplicaSets' revision annotations, `rollout undo` back to the previous template,
//! one revision's pod template (`history --revision`), and the Recreate strategy (refused with
//! a rollingUpdate left in); the console's kubectl prints the same history and status.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;

fn image(s: &TestServer) -> String {
    s.ok(&[
        "get",
        "deploy",
        "web",
        "-o",
        "jsonpath={.spec.template.spec.containers[0].image}",
    ])
}

#[test]
fn rollout_status_history_and_undo() {
    if !common::kubectl_available("rollout_status_history_and_undo") {
        return;
    }
    let s = TestServer::at_speed(10.0);
    s.create_deployment("web", "nginx:1.26", 2, &[]);
    let status = s.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
    assert!(
        status.ends_with("deployment \"web\" successfully rolled out\n"),
        "{status}"
    );
    assert_eq!(
        s.console("kubectl rollout status deployment/web"),
        "deployment \"web\" successfully rolled out\n"
    );
    s.ok(&["set", "image", "deployment/web", "nginx=nginx:1.27"]);
    s.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
    let history = s.ok(&["rollout", "history", "deployment/web"]);
    assert_eq!(
        history,
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    );
    assert_eq!(s.console("kubectl rollout history deployment/web"), history);
    // One revision's pod template, as kubectl's history viewer prints it (tabs, not aligned).
    let second = s.ok(&["rollout", "history", "deployment/web", "--revision=2"]);
    assert!(
        second.starts_with("deployment.apps/web with revision #2\nPod Template:\n  Labels:\tapp=web\n\tpod-template-hash="),
        "{second}"
    );
    assert!(second.contains("    Image:\tnginx:1.27\n"), "{second}");
    assert_eq!(
        s.console("kubectl rollout history deployment/web --revision=2"),
        second
    );
    let first = s.ok(&["rollout", "history", "deployment/web", "--revision=1"]);
    assert!(first.contains("    Image:\tnginx:1.26\n"), "{first}");
    let missing = s.kubectl(&["rollout", "history", "deployment/web", "--revision=9"]);
    assert_eq!(
        missing.stderr,
        "error: unable to find the specified revision\n"
    );
    assert_eq!(
        s.console_run("kubectl rollout history deployment/web --revision=9")
            .1,
        missing.stderr
    );

    assert_eq!(
        s.ok(&["rollout", "undo", "deployment/web"]),
        "deployment.apps/web rolled back\n"
    );
    assert_eq!(image(&s), "nginx:1.26");
    s.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
    // Revision 1 came back as revision 3.
    let history = wait_until("revision 3", Duration::from_secs(10), || {
        let h = s.ok(&["rollout", "history", "deployment/web"]);
        h.contains("\n3 ").then_some(h)
    });
    assert_eq!(
        history,
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
    );
    // The console's undo, to an explicit revision.
    assert_eq!(
        s.console("kubectl rollout undo deployment/web --to-revision=2"),
        "deployment.apps/web rolled back\n"
    );
    assert_eq!(image(&s), "nginx:1.27");
    let missing = s.kubectl(&["rollout", "undo", "deployment/web", "--to-revision=9"]);
    assert_eq!(
        missing.stderr,
        "error: unable to find specified revision 9 in history\n"
    );
}

#[test]
fn recreate_rollout_through_kubectl() {
    if !common::kubectl_available("recreate_rollout_through_kubectl") {
        return;
    }
    let s = TestServer::at_speed(10.0);
    s.create_deployment("web", "nginx:1.26", 2, &[]);
    // Recreate with the defaulted rollingUpdate left in place: the API server's 422.
    let refused = s.kubectl(&[
        "patch",
        "deployment",
        "web",
        "--type=merge",
        "-p",
        r#"{"spec":{"strategy":{"type":"Recreate"}}}"#,
    ]);
    assert_eq!(
        refused.stderr,
        "The Deployment \"web\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'\n"
    );
    s.ok(&[
        "patch",
        "deployment",
        "web",
        "--type=merge",
        "-p",
        r#"{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}"#,
    ]);
    s.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
    s.ok(&["set", "image", "deployment/web", "nginx=nginx:1.27"]);
    s.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
    let events = s.ok(&[
        "get",
        "events",
        "--field-selector=reason=ScalingReplicaSet",
        "--sort-by=.lastTimestamp",
        "-o",
        "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}",
    ]);
    let lines: Vec<&str> = events.lines().collect();
    assert_eq!(lines.len(), 3, "{events}");
    assert!(
        lines[1].starts_with("Scaled down replica set web-") && lines[1].ends_with(" from 2 to 0"),
        "{events}"
    );
    assert!(
        lines[2].starts_with("Scaled up replica set web-") && lines[2].ends_with(" from 0 to 2"),
        "{events}"
    );
}
