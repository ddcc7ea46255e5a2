//! `kubectl debug` through the real kubectl v1.32: without `-i` it attaches to nothing, so each
//! form ends once its write is done. `kubectl debug POD --image=busybox` strategic-merge-patches
//! `pods/POD/ephemeralcontainers` and the kubelet pulls and starts the container, whose log
//! `kubectl logs -c` reads; `kubectl debug node/NAME` creates the node-debugger pod (sent as
//! protobuf: hostPath volume, host namespaces, `Exists` toleration) on that node;
//! `--copy-to` creates a copy of the pod with the debug container added (protobuf too). The
//! server runs 30× faster than the wall clock.

#[macro_use]
mod common;

use common::{wait_until, TestServer};
use std::time::Duration;

/// The warning kubectl v1.32 prints for its default `--profile=legacy`.
const LEGACY_WARNING: &str = "--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".";

fn jsonpath(s: &TestServer, pod: &str, path: &str) -> String {
    s.ok(&["get", "pod", pod, "-o", &format!("jsonpath={path}")])
}

/// A server with a running pod `web` (one container, `web`).
fn server_with_web() -> TestServer {
    let s = TestServer::at_speed(30.0);
    s.ok(&["run", "web", "--image=nginx:1.27"]);
    wait_until("web running", Duration::from_secs(20), || {
        (jsonpath(&s, "web", "{.status.phase}") == "Running").then_some(())
    });
    s
}

/// The name after `Defaulting debug container name to ` in kubectl's output.
fn defaulted_name(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("Defaulting debug container name to "))
        .and_then(|rest| rest.strip_suffix('.'))
        .unwrap_or_else(|| panic!("no defaulted name in {stdout:?}"))
        .to_string()
}

#[test]
fn kubectl_debug_adds_an_ephemeral_container_that_runs_and_logs() {
    need_kubectl!("kubectl_debug_adds_an_ephemeral_container");
    let s = server_with_web();
    let r = s.kubectl(&["debug", "web", "--image=busybox"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stderr.trim(), LEGACY_WARNING);
    let name = defaulted_name(&r.stdout);
    assert!(
        name.starts_with("debugger-") && name.len() == "debugger-".len() + 5,
        "{name}"
    );
    assert_eq!(
        jsonpath(
            &s,
            "web",
            "{.spec.ephemeralContainers[0].name} {.spec.ephemeralContainers[0].image}"
        ),
        format!("{name} busybox")
    );
    wait_until(
        "the debug container running",
        Duration::from_secs(20),
        || {
            let started = jsonpath(
                &s,
                "web",
                "{.status.ephemeralContainerStatuses[0].state.running.startedAt}",
            );
            (!started.is_empty()).then_some(())
        },
    );
    assert_eq!(
        jsonpath(&s, "web", "{.status.ephemeralContainerStatuses[0].name}"),
        name
    );
    assert_eq!(s.ok(&["logs", "web", "-c", &name]), "busybox: starting\n");
    // `-c` names it, `--target` shares the app container's namespaces.
    let r = s.kubectl(&[
        "debug",
        "web",
        "--image=busybox:1.36",
        "-c",
        "probe",
        "--target=web",
        "--attach=false",
        "--profile=general",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.starts_with("Targeting container \"web\"."),
        "{}",
        r.stdout
    );
    assert_eq!(
        jsonpath(
            &s,
            "web",
            "{.spec.ephemeralContainers[1].name}/{.spec.ephemeralContainers[1].targetContainerName}"
        ),
        "probe/web"
    );
    // A name taken by the pod's container is refused, as the real server refuses it.
    let r = s.kubectl(&["debug", "web", "--image=busybox", "-c", "web"]);
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains(
            "The Pod \"web\" is invalid: spec.ephemeralContainers[2].name: Duplicate value: \"web\""
        ),
        "{}",
        r.stderr
    );
    let r = s.kubectl(&["debug", "nobody", "--image=busybox"]);
    assert!(
        r.stderr
            .contains("Error from server (NotFound): pods \"nobody\" not found"),
        "{}",
        r.stderr
    );
}

#[test]
fn kubectl_debug_node_creates_the_node_debugger_pod_on_that_node() {
    need_kubectl!("kubectl_debug_node_creates_the_node_debugger_pod");
    let s = TestServer::at_speed(30.0);
    let r = s.kubectl(&["debug", "node/node-a", "--image=busybox", "--attach=false"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let pod = r
        .stdout
        .strip_prefix("Creating debugging pod ")
        .and_then(|rest| rest.strip_suffix(" with container debugger on node node-a.\n"))
        .unwrap_or_else(|| panic!("{:?}", r.stdout))
        .to_string();
    assert!(pod.starts_with("node-debugger-node-a-"), "{pod}");
    assert_eq!(
        jsonpath(
            &s,
            &pod,
            "{.spec.nodeName} {.spec.restartPolicy} {.spec.hostPID} {.spec.hostIPC} {.spec.hostNetwork} {.spec.tolerations[0].operator}"
        ),
        "node-a Never true true true Exists"
    );
    assert_eq!(
        jsonpath(
            &s,
            &pod,
            "{.spec.volumes[0].name}={.spec.volumes[0].hostPath.path} {.spec.containers[0].volumeMounts[0].name}@{.spec.containers[0].volumeMounts[0].mountPath} {.spec.containers[0].terminationMessagePolicy}"
        ),
        "host-root=/ host-root@/host File"
    );
    wait_until("the node debugger running", Duration::from_secs(20), || {
        (jsonpath(&s, &pod, "{.status.phase}") == "Running").then_some(())
    });
    // In the node's network namespace: the pod's IP is the node's.
    assert_eq!(
        jsonpath(&s, &pod, "{.status.podIP}"),
        jsonpath(&s, &pod, "{.status.hostIP}")
    );
    let r = s.kubectl(&["debug", "node/nowhere", "--image=busybox"]);
    assert!(
        r.stderr
            .contains("Error from server (NotFound): nodes \"nowhere\" not found"),
        "{}",
        r.stderr
    );
}

#[test]
fn kubectl_debug_copy_to_creates_a_copy_with_the_debug_container() {
    need_kubectl!("kubectl_debug_copy_to_creates_a_copy");
    let s = server_with_web();
    let r = s.kubectl(&["debug", "web", "--image=busybox", "--copy-to=web-debug"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let name = defaulted_name(&r.stdout);
    assert_eq!(
        jsonpath(&s, "web-debug", "{.spec.containers[*].name}"),
        format!("web {name}")
    );
    // The legacy profile drops the copy's labels (`run=web` would make it a second `web`).
    assert_eq!(jsonpath(&s, "web-debug", "{.metadata.labels}"), "");
    wait_until("the copy running", Duration::from_secs(20), || {
        let ready = jsonpath(&s, "web-debug", "{.status.containerStatuses[*].ready}");
        (ready == "true true").then_some(())
    });
    // `--same-node` keeps the node; `--replace` deletes the original.
    let node = jsonpath(&s, "web", "{.spec.nodeName}");
    let r = s.kubectl(&[
        "debug",
        "web",
        "--copy-to=web-2",
        "--set-image=*=nginx:1.28",
        "--same-node",
        "--replace",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        jsonpath(&s, "web-2", "{.spec.nodeName} {.spec.containers[0].image}"),
        format!("{node} nginx:1.28")
    );
    wait_until("the original gone", Duration::from_secs(20), || {
        let r = s.kubectl(&["get", "pod", "web"]);
        (r.code != 0).then_some(())
    });
}
