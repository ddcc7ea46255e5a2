//! `policy/v1` PodDisruptionBudgets through the real kubectl v1.32: `kubectl create pdb` (sent as
//! protobuf by its typed client) with either bound, the disruption controller's counts in
//! `kubectl get pdb`, `describe pdb` and `-o yaml`, a budget with both bounds refused with the
//! real 422, the 429 an eviction gets while a budget allows no disruption (raw, and as kubectl
//! prints it), and `kubectl drain` against a budget: retried every 5 s until the evicted pods'
//! replacements are Ready elsewhere, or failing at its `--timeout` when the budget can never be
//! met. The servers run 10× or 20× faster than the wall clock so that pods start and stop in
//! well under a second. Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::{wait_until, TestServer};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const REFUSED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

/// The `(name, node)` of each Running, Ready pod of `web` not being deleted.
fn ready_web_pods(s: &TestServer) -> Vec<(String, String)> {
    let template = "jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} \
        {.status.phase} {.status.conditions[?(@.type==\"Ready\")].status} \
        {.metadata.deletionTimestamp}{\"\\n\"}{end}";
    s.ok(&["get", "pods", "-l", "app=web", "-o", template])
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [name, node, "Running", "True"] => Some((name.to_string(), node.to_string())),
            _ => None,
        })
        .collect()
}

/// `kubectl create deployment web` with `replicas` pods, all Running and Ready on node-b: the
/// other nodes are cordoned while they are scheduled, then uncordoned. Their names.
fn web_on_node_b(s: &TestServer, replicas: usize) -> Vec<String> {
    s.ok(&["cordon", "node-a", "node-c"]);
    s.create_deployment("web", "nginx:1.27", replicas as u32, &[]);
    let pods = wait_until(
        "web's pods Ready on node-b",
        Duration::from_secs(30),
        || {
            let pods = ready_web_pods(s);
            (pods.len() == replicas && pods.iter().all(|(_, node)| node == "node-b"))
                .then_some(pods)
        },
    );
    s.ok(&["uncordon", "node-a", "node-c"]);
    pods.into_iter().map(|(name, _)| name).collect()
}

/// Waits until the disruption controller has counted budget `name`: its allowed disruptions.
fn counted(s: &TestServer, name: &str, allowed: u32) {
    let template = "jsonpath={.status.observedGeneration} {.status.disruptionsAllowed}";
    let want = format!("1 {allowed}");
    wait_until(
        &format!("{name} to allow {allowed}"),
        Duration::from_secs(20),
        || (s.ok(&["get", "pdb", name, "-o", template]) == want).then_some(()),
    );
}

/// One HTTP/1.1 POST of JSON with `Connection: close`: the status code and the body.
fn post(s: &TestServer, path: &str, body: &str) -> (u16, serde_json::Value) {
    let mut conn = TcpStream::connect(s.addr).expect("connect");
    write!(
        conn,
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        s.addr,
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    conn.read_to_string(&mut answer).expect("read");
    let code = answer
        .get(9..12)
        .and_then(|c| c.parse().ok())
        .unwrap_or_default();
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (code, serde_json::from_str(body).unwrap_or_default())
}

/// Lines with their indentation dropped and runs of spaces squeezed to one (kubectl aligns its
/// columns).
fn squeezed(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn kubectl_creates_gets_and_describes_budgets() {
    need_kubectl!("kubectl_creates_gets_and_describes_budgets");
    let s = TestServer::at_speed(10.0);
    s.create_deployment("web", "nginx:1.27", 3, &[]);
    wait_until("3 Ready pods", Duration::from_secs(30), || {
        (ready_web_pods(&s).len() == 3).then_some(())
    });
    let out = s.ok(&[
        "create",
        "poddisruptionbudget",
        "web",
        "--selector=app=web",
        "--min-available=2",
    ]);
    assert_eq!(out, "poddisruptionbudget.policy/web created\n");
    let out = s.ok(&[
        "create",
        "pdb",
        "other",
        "--selector=app=other",
        "--max-unavailable=50%",
    ]);
    assert_eq!(out, "poddisruptionbudget.policy/other created\n");
    counted(&s, "web", 1);
    counted(&s, "other", 0);
    let table = s.ok(&["get", "pdb"]);
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows.first().map(|r| r.join(" ")).unwrap_or_default(),
        "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE",
        "{table}"
    );
    let cells: Vec<&[&str]> = rows.iter().skip(1).map(|r| &r[..4.min(r.len())]).collect();
    assert_eq!(
        cells,
        [["other", "N/A", "50%", "0"], ["web", "2", "N/A", "1"]],
        "{table}"
    );
    let text = s.ok(&["describe", "pdb", "web"]);
    assert!(
        text.contains("\nStatus:\n    Allowed disruptions:  1\n"),
        "{text}"
    );
    let described = squeezed(&text);
    let head: Vec<&str> = described.iter().take(9).map(String::as_str).collect();
    assert_eq!(
        head,
        [
            "Name: web",
            "Namespace: default",
            "Min available: 2",
            "Selector: app=web",
            "Status:",
            "Allowed disruptions: 1",
            "Current: 3",
            "Desired: 2",
            "Total: 3",
        ],
        "{described:#?}"
    );
    let other = squeezed(&s.ok(&["describe", "pdb", "other"]));
    assert!(
        other.contains(&"Max unavailable: 50%".to_string()),
        "{other:#?}"
    );
    let yaml = s.ok(&["get", "pdb", "web", "-o", "yaml"]);
    for line in [
        "  minAvailable: 2\n",
        "  currentHealthy: 3\n",
        "  desiredHealthy: 2\n",
        "  disruptionsAllowed: 1\n",
        "  expectedPods: 3\n",
        "  observedGeneration: 1\n",
        "    reason: SufficientPods\n",
        "    status: \"True\"\n",
        "    type: DisruptionAllowed\n",
    ] {
        assert!(yaml.contains(line), "{line:?} in\n{yaml}");
    }
}

#[test]
fn a_budget_with_both_bounds_is_refused_with_422() {
    need_kubectl!("a_budget_with_both_bounds_is_refused_with_422");
    let s = TestServer::start();
    let both = s.write(
        "both.yaml",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: both\nspec:\n  \
         minAvailable: 1\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: web\n",
    );
    let r = s.kubectl(&["create", "-f", both.to_str().unwrap_or_default()]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .starts_with("The PodDisruptionBudget \"both\" is invalid: spec: Invalid value: "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .ends_with(": minAvailable and maxUnavailable cannot be both set\n"),
        "{}",
        r.stderr
    );
    let body = r#"{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"both"},"spec":{"minAvailable":1,"maxUnavailable":"10%"}}"#;
    let (code, status) = post(
        &s,
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
        body,
    );
    assert_eq!(
        (code, &status["reason"]),
        (422, &"Invalid".into()),
        "{status}"
    );
    // kubectl's own flags refuse the pair before asking the server.
    let r = s.kubectl(&[
        "create",
        "pdb",
        "both",
        "--selector=app=web",
        "--min-available=1",
        "--max-unavailable=1",
    ]);
    assert_eq!(
        r.stderr,
        "error: min-available and max-unavailable cannot be both specified\n"
    );
    assert!(s.ok(&["get", "pdb", "-o", "name"]).is_empty());
}

/// Three pods of `web` on node-b and a budget keeping two: kubectl evicts one, is refused (429)
/// for the others and retries them every 5 s until the first one's replacement is Ready on
/// another node, and so on until node-b is drained.
#[test]
fn drain_waits_for_the_budget_then_completes() {
    need_kubectl!("drain_waits_for_the_budget_then_completes");
    let s = TestServer::at_speed(20.0);
    let pods = web_on_node_b(&s, 3);
    s.ok(&[
        "create",
        "pdb",
        "web",
        "--selector=app=web",
        "--min-available=2",
    ]);
    counted(&s, "web", 1);
    let drained = s.kubectl(&["drain", "node-b", "--ignore-daemonsets", "--timeout=25s"]);
    assert_eq!(drained.code, 0, "{}\n{}", drained.stdout, drained.stderr);
    assert!(
        drained.stdout.starts_with("node/node-b cordoned\n"),
        "{}",
        drained.stdout
    );
    assert!(
        drained.stdout.ends_with("node/node-b drained\n"),
        "{}",
        drained.stdout
    );
    for pod in &pods {
        assert!(
            drained.stdout.contains(&format!("pod/{pod} evicted\n")),
            "{pod}: {}",
            drained.stdout
        );
    }
    // Every refusal names one of web's pods, in kubectl's words; at least two (a budget that
    // allows one disruption at a time refuses the second and the third pod at first).
    let refusals: Vec<&str> = drained.stderr.lines().collect();
    assert!(refusals.len() >= 2, "{}", drained.stderr);
    for line in &refusals {
        assert!(
            pods.iter().any(|pod| *line
                == format!(
                    "error when evicting pods/\"{pod}\" -n \"default\" (will retry after 5s): {REFUSED}"
                )),
            "{line}"
        );
    }
    let now = wait_until("web's 3 pods Ready again", Duration::from_secs(20), || {
        let now = ready_web_pods(&s);
        (now.len() == 3).then_some(now)
    });
    assert!(now.iter().all(|(_, node)| node != "node-b"), "{now:?}");
    counted(&s, "web", 1);
}

/// A budget that keeps every pod of `web` (minAvailable = replicas): an eviction is refused
/// with the 429 Status and its `DisruptionBudget` cause, `kubectl create --raw` prints the
/// refusal, and `kubectl drain` retries until its `--timeout`, then fails with kubectl's
/// message and leaves the pods where they are.
#[test]
fn a_budget_that_is_never_met_refuses_evictions_and_drain_times_out() {
    need_kubectl!("a_budget_that_is_never_met_refuses_evictions_and_drain_times_out");
    let s = TestServer::at_speed(20.0);
    let pods = web_on_node_b(&s, 2);
    s.ok(&[
        "create",
        "pdb",
        "web",
        "--selector=app=web",
        "--min-available=2",
    ]);
    counted(&s, "web", 0);
    let path = format!("/api/v1/namespaces/default/pods/{}/eviction", pods[0]);
    let eviction = format!(
        r#"{{"apiVersion":"policy/v1","kind":"Eviction","metadata":{{"name":"{}","namespace":"default"}}}}"#,
        pods[0]
    );
    let (code, status) = post(&s, &path, &eviction);
    assert_eq!(code, 429, "{status}");
    assert_eq!(
        status,
        serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": REFUSED, "reason": "TooManyRequests",
            "details": {"causes": [{"reason": "DisruptionBudget",
                "message": "The disruption budget web needs 2 healthy pods and has 2 currently"}]},
            "code": 429})
    );
    let file = s.write("eviction.json", &eviction);
    let r = s.kubectl(&[
        "create",
        "--raw",
        &path,
        "-f",
        file.to_str().unwrap_or_default(),
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!("Error from server (TooManyRequests): {REFUSED}\n")
    );

    let drained = s.kubectl(&["drain", "node-b", "--ignore-daemonsets", "--timeout=8s"]);
    assert_eq!(drained.code, 1, "{}\n{}", drained.stdout, drained.stderr);
    assert!(
        drained.stdout.starts_with("node/node-b cordoned\n"),
        "{}",
        drained.stdout
    );
    assert!(!drained.stdout.contains("drained"), "{}", drained.stdout);
    let errors = &drained.stderr;
    for pod in &pods {
        let retry = format!(
            "error when evicting pods/\"{pod}\" -n \"default\" (will retry after 5s): {REFUSED}\n"
        );
        assert!(errors.contains(&retry), "{retry}in\n{errors}");
        let timeout = format!(
            "error when evicting pods/\"{pod}\" -n \"default\": global timeout reached: 8s"
        );
        assert!(errors.contains(&timeout), "{timeout} in\n{errors}");
    }
    assert!(
        errors.contains("error: unable to drain node \"node-b\" due to error: ["),
        "{errors}"
    );
    assert!(
        errors.contains("There are pending nodes to be drained:\n node-b\n"),
        "{errors}"
    );
    let still: Vec<String> = ready_web_pods(&s).into_iter().map(|(p, _)| p).collect();
    let mut want = pods.clone();
    want.sort();
    let mut still_sorted = still.clone();
    still_sorted.sort();
    assert_eq!(still_sorted, want, "the pods stay where they were");
}
