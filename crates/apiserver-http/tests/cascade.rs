//! Deletion through the real kubectl: a namespace with contents goes Terminating, refuses new
//! content with the NamespaceLifecycle text, and is gone once the namespace controller has
//! emptied it and removed its `kubernetes` finalizer.

mod common;

use common::TestServer;
use std::time::{Duration, Instant};
use watchlab_apiserver_http::Args;

fn wait_until<T>(what: &str, max: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + max;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A server whose virtual clock runs `speed` times faster than the wall clock.
fn server(speed: f64) -> TestServer {
    TestServer::start_with(Args {
        port: 0,
        speed,
        ..Args::default()
    })
}

fn running_pods(s: &TestServer, ns: &str) -> usize {
    s.ok(&["get", "pods", "-n", ns, "--no-headers"])
        .lines()
        .filter(|l| l.contains("Running"))
        .count()
}

#[test]
fn deleting_a_namespace_terminates_it_refuses_new_content_then_removes_it() {
    if !common::kubectl_available("deleting_a_namespace_terminates_it") {
        return;
    }
    // 5 virtual seconds a real second: the pods' 30 s grace period takes 6 s.
    let s = server(5.0);
    assert_eq!(
        s.ok(&["create", "namespace", "team"]),
        "namespace/team created\n"
    );
    s.ok(&[
        "create",
        "deployment",
        "web",
        "--image=nginx:1.27",
        "--replicas=2",
        "-n",
        "team",
    ]);
    wait_until("2 running pods", Duration::from_secs(20), || {
        (running_pods(&s, "team") == 2).then_some(())
    });

    assert_eq!(
        s.ok(&["delete", "namespace", "team", "--wait=false"]),
        "namespace \"team\" deleted\n"
    );
    assert_eq!(
        s.ok(&[
            "get",
            "ns",
            "team",
            "-o",
            "jsonpath={.status.phase} {.spec.finalizers}"
        ]),
        "Terminating [\"kubernetes\"]"
    );
    let refused = s.kubectl(&["run", "x", "--image=nginx", "-n", "team"]);
    assert_eq!(refused.code, 1);
    assert_eq!(
        refused.stderr,
        "Error from server (Forbidden): pods \"x\" is forbidden: unable to create new content in namespace team because it is being terminated\n"
    );
    let conditions = wait_until("the content conditions", Duration::from_secs(10), || {
        let out = s.ok(&[
            "get",
            "ns",
            "team",
            "-o",
            "jsonpath={range .status.conditions[*]}{.type}={.status}{\"\\n\"}{end}",
        ]);
        (!out.is_empty()).then_some(out)
    });
    assert!(
        conditions.contains("NamespaceContentRemaining=True"),
        "{conditions}"
    );

    // kubectl's own wait for the deletion returns once the namespace is gone.
    let waited = s.kubectl(&["wait", "--for=delete", "namespace/team", "--timeout=60s"]);
    assert_eq!(waited.code, 0, "{}{}", waited.stdout, waited.stderr);
    let gone = s.kubectl(&["get", "ns", "team"]);
    assert_eq!(
        gone.stderr,
        "Error from server (NotFound): namespaces \"team\" not found\n"
    );
    let protected = s.kubectl(&["delete", "ns", "default"]);
    assert_eq!(
        protected.stderr,
        "Error from server (Forbidden): namespaces \"default\" is forbidden: this namespace may not be deleted\n"
    );
}
