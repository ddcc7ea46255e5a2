//! `kubectl top` (v1.32) against watchlab-apiserver's `metrics.k8s.io/v1beta1`: the real kubectl
//! finds the group in discovery, reads NodeMetrics and PodMetrics and the Nodes' allocatable, and
//! prints metrics-server's figures in its columns; the console's kubectl prints the same lines.
//! Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::TestServer;

/// A server whose seed pods have run for a minute of virtual time (metrics need a window).
fn started() -> TestServer {
    let s = TestServer::start();
    s.with_cluster(|c| {
        let t = c.now().plus_secs(60);
        c.advance_to(t);
    });
    s
}

fn header(out: &str) -> Vec<&str> {
    out.lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect()
}

fn rows(out: &str) -> Vec<Vec<&str>> {
    out.lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect()
}

#[test]
fn top_nodes_prints_usage_and_its_share_of_allocatable() {
    need_kubectl!("top_nodes_prints_usage_and_its_share_of_allocatable");
    let s = started();
    let out = s.ok(&["top", "nodes"]);
    assert_eq!(
        header(&out),
        ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    );
    let rows = rows(&out);
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(names, ["node-a", "node-b", "node-c"]);
    for r in &rows {
        assert!(r[1].ends_with('m') && r[2].ends_with('%'), "{r:?}");
        assert!(r[3].ends_with("Mi") && r[4].ends_with('%'), "{r:?}");
    }
    // The percentages are kubectl's: usage over the Node's allocatable, truncated.
    let alloc = s.ok(&[
        "get",
        "node",
        "node-a",
        "-o",
        "jsonpath={.status.allocatable.cpu}",
    ]);
    let cores: i64 = alloc.trim().parse().unwrap_or(0) * 1000;
    let used: i64 = rows[0][1].trim_end_matches('m').parse().unwrap_or(-1);
    assert_eq!(rows[0][2], format!("{}%", used * 100 / cores.max(1)));
    // The console's kubectl prints the same lines.
    assert_eq!(s.console("kubectl top nodes"), out);
}

#[test]
fn top_pods_lists_running_pods_and_their_containers() {
    need_kubectl!("top_pods_lists_running_pods_and_their_containers");
    let s = started();
    let all = s.ok(&["top", "pods", "-A"]);
    assert_eq!(
        header(&all),
        ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    );
    let rows = rows(&all);
    assert!(!rows.is_empty(), "{all}");
    assert!(rows.iter().all(|r| r.len() == 4 && r[2].ends_with('m')));
    assert_eq!(s.console("kubectl top pods -A"), all);

    let (ns, pod) = (rows[0][0].to_string(), rows[0][1].to_string());
    let containers = s.ok(&["top", "pod", &pod, "-n", &ns, "--containers"]);
    assert_eq!(
        header(&containers),
        ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    );
    assert!(containers
        .lines()
        .nth(1)
        .unwrap_or_default()
        .starts_with(&pod));
    assert_eq!(
        s.console(&format!("kubectl top pod {pod} -n {ns} --containers")),
        containers
    );

    // Errors: kubectl's own for an empty namespace, metrics-server's 404 for a missing pod.
    let empty = s.kubectl(&["top", "pods"]);
    assert_eq!(empty.code, 0);
    assert_eq!(
        empty.stderr.trim(),
        "No resources found in default namespace."
    );
    let missing = s.kubectl(&["top", "pod", "nope"]);
    assert_eq!(missing.code, 1);
    assert_eq!(
        missing.stderr.trim(),
        "Error from server (NotFound): pods \"nope\" not found"
    );
    let (out, err) = s.console_run("kubectl top pod nope");
    assert_eq!((out.as_str(), err.trim()), ("", missing.stderr.trim()));
}

#[test]
fn a_killed_node_is_unknown_and_its_pods_have_no_figures() {
    need_kubectl!("a_killed_node_is_unknown_and_its_pods_have_no_figures");
    let s = started();
    s.with_cluster(|c| {
        let _ = c.apply(watchlab_engine::cluster::Action::KillNode("node-c".into()));
    });
    let out = s.ok(&["top", "nodes"]);
    let last = rows(&out).pop().unwrap_or_default();
    assert_eq!(
        last,
        ["node-c", "<unknown>", "<unknown>", "<unknown>", "<unknown>"]
    );
    assert_eq!(s.console("kubectl top nodes"), out);
    let gone = s.kubectl(&["top", "node", "node-c"]);
    assert_eq!(
        gone.stderr.trim(),
        "Error from server (NotFound): nodemetrics.metrics.k8s.io \"node-c\" not found"
    );
    let none = s.kubectl(&["top", "pods", "-n", "production", "-l", "app=nope"]);
    assert_eq!(
        none.stderr.trim(),
        "No resources found in production namespace."
    );
    assert_eq!(
        s.console_run("kubectl top pods -n production -l app=nope")
            .1,
        none.stderr
    );
}
