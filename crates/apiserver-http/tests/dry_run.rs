//! The real kubectl v1.32's `--dry-run=server` (and `kubectl diff`, which is made of server dry
//! runs) against watchlab-apiserver: what kubectl prints, and that the cluster holds nothing
//! of it afterwards (the object as it was, no ledger line for its key). Skipped (with a note)
//! without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::TestServer;

const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
";

/// How many ledger lines name `key` (`/registry/deployments/default/web`).
fn ledger_lines(s: &TestServer, key: &'static str) -> usize {
    s.with_cluster(move |c| c.api().ledger().iter().filter(|e| e.key() == key).count())
}

const WEB_KEY: &str = "/registry/deployments/default/web";

#[test]
fn apply_with_server_dry_run_creates_and_configures_nothing() {
    need_kubectl!("apply_with_server_dry_run_creates_and_configures_nothing");
    let s = TestServer::start();
    let file = s.write("web.yaml", WEB);
    let file = file.to_str().unwrap_or_default();
    let dry = ["apply", "--validate=false", "--dry-run=server", "-f", file];
    assert_eq!(
        s.ok(&dry).trim(),
        "deployment.apps/web created (server dry run)"
    );
    let missing = s.kubectl(&["get", "deployment", "web"]);
    assert_eq!(missing.code, 1);
    assert_eq!(
        missing.stderr.trim(),
        "Error from server (NotFound): deployments.apps \"web\" not found"
    );
    assert_eq!(ledger_lines(&s, WEB_KEY), 0);

    assert_eq!(
        s.ok(&["apply", "--validate=false", "-f", file]).trim(),
        "deployment.apps/web created"
    );
    let lines = ledger_lines(&s, WEB_KEY);
    let rv = s.ok(&[
        "get",
        "deployment",
        "web",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
    ]);
    let four = s.write("web4.yaml", &WEB.replace("replicas: 2", "replicas: 4"));
    let four = four.to_str().unwrap_or_default();
    let dry = ["apply", "--validate=false", "--dry-run=server", "-f", four];
    assert_eq!(
        s.ok(&dry).trim(),
        "deployment.apps/web configured (server dry run)"
    );
    // What the dry run answered: `-o jsonpath` prints the object as it would be stored.
    let mut shown = dry.to_vec();
    shown.extend([
        "-o",
        "jsonpath={.spec.replicas} {.metadata.resourceVersion}",
    ]);
    // The stored resourceVersion (the deployment controller may have written the status
    // since `rv` was read), not a new one.
    let shown = s.ok(&shown);
    let rv_now = s.ok(&[
        "get",
        "deployment",
        "web",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
    ]);
    let number = |v: &str| v.trim().parse::<u64>().unwrap_or_else(|_| panic!("{v:?}"));
    let (replicas, shown_rv) = shown.split_once(' ').unwrap_or_default();
    assert_eq!(replicas, "4", "{shown}");
    assert!(
        (number(&rv)..=number(&rv_now)).contains(&number(shown_rv)),
        "{shown} {rv} {rv_now}"
    );
    let replicas = s.ok(&[
        "get",
        "deployment",
        "web",
        "-o",
        "jsonpath={.spec.replicas}",
    ]);
    assert_eq!(replicas, "2");
    // The deployment controller's status writes may follow the real apply; the dry runs add
    // none of their own: the object still has the resourceVersion it had, or a later status.
    let after = ledger_lines(&s, WEB_KEY);
    assert!(after >= lines);
    let spec_writes = s.with_cluster(|c| {
        c.api()
            .ledger()
            .iter()
            .filter(|e| e.key() == WEB_KEY && e.user.as_ref() == "kubectl")
            .count()
    });
    assert_eq!(spec_writes, 1, "only the real apply wrote as kubectl");
}

#[test]
fn server_side_apply_with_server_dry_run_writes_nothing() {
    need_kubectl!("server_side_apply_with_server_dry_run_writes_nothing");
    let s = TestServer::start();
    let file = s.write("web.yaml", WEB);
    let file = file.to_str().unwrap_or_default();
    let out = s.ok(&[
        "apply",
        "--server-side",
        "--validate=false",
        "--dry-run=server",
        "-f",
        file,
    ]);
    assert_eq!(
        out.trim(),
        "deployment.apps/web serverside-applied (server dry run)"
    );
    assert_eq!(s.kubectl(&["get", "deployment", "web"]).code, 1);
    assert_eq!(ledger_lines(&s, WEB_KEY), 0);
}

#[test]
fn create_deployment_with_server_dry_run_prints_the_object_it_would_store() {
    need_kubectl!("create_deployment_with_server_dry_run_prints_the_object_it_would_store");
    let s = TestServer::start();
    let create = |output: &str| {
        s.ok(&[
            "create",
            "deployment",
            "x",
            "--image=nginx",
            "--dry-run=server",
            "-o",
            output,
        ])
    };
    let yaml = create("yaml");
    assert!(yaml.contains("\n  name: x\n"), "{yaml}");
    assert!(yaml.contains("\n  uid: "), "{yaml}");
    assert!(!yaml.contains("resourceVersion:"), "{yaml}");
    let yaml = s.ok(&[
        "create",
        "deployment",
        "x",
        "--image=nginx",
        "--dry-run=server",
        "--show-managed-fields",
        "-o",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&yaml).expect("json");
    assert_eq!(doc["kind"], "Deployment", "{yaml}");
    assert_eq!(doc["metadata"]["name"], "x");
    assert_eq!(doc["metadata"]["namespace"], "default");
    assert!(doc["metadata"]["uid"].is_string(), "{yaml}");
    assert!(doc["metadata"].get("resourceVersion").is_none(), "{yaml}");
    assert_eq!(
        doc["metadata"]["managedFields"][0]["manager"],
        "kubectl-create"
    );
    // Server defaults were applied.
    assert_eq!(doc["spec"]["strategy"]["type"], "RollingUpdate", "{yaml}");
    assert_eq!(s.kubectl(&["get", "deployment", "x"]).code, 1);
    assert_eq!(ledger_lines(&s, "/registry/deployments/default/x"), 0);
}

#[test]
fn delete_and_label_with_server_dry_run_leave_the_pod_as_it_was() {
    need_kubectl!("delete_and_label_with_server_dry_run_leave_the_pod_as_it_was");
    let s = TestServer::start();
    s.ok(&["run", "x", "--image=nginx"]);
    let key = "/registry/pods/default/x";
    let uid = s.ok(&["get", "pod", "x", "-o", "jsonpath={.metadata.uid}"]);
    let lines = ledger_lines(&s, key);
    let labelled = s.ok(&["label", "pod", "x", "tier=front", "--dry-run=server"]);
    assert_eq!(labelled.trim(), "pod/x labeled (server dry run)");
    let labels = s.ok(&["get", "pod", "x", "-o", "jsonpath={.metadata.labels}"]);
    assert!(!labels.contains("tier"), "{labels}");
    let deleted = s.ok(&["delete", "pod", "x", "--dry-run=server"]);
    assert_eq!(deleted.trim(), "pod \"x\" deleted (server dry run)");
    let still = s.ok(&[
        "get",
        "pod",
        "x",
        "-o",
        "jsonpath={.metadata.uid} {.metadata.deletionTimestamp}",
    ]);
    assert_eq!(still.trim(), uid, "the pod is neither gone nor terminating");
    // The scheduler and kubelet may have written the pod meanwhile, never as a label or delete.
    let verbs: Vec<String> = s.with_cluster(move |c| {
        c.api()
            .ledger()
            .iter()
            .filter(|e| e.key() == key)
            .skip(lines)
            .map(|e| format!("{} {}", e.verb, e.user))
            .collect()
    });
    assert!(
        verbs
            .iter()
            .all(|v| !v.starts_with("delete") && !v.ends_with(" kubectl")),
        "{verbs:?}"
    );
}

#[test]
fn diff_exits_one_with_a_unified_diff_and_zero_when_nothing_differs() {
    need_kubectl!("diff_exits_one_with_a_unified_diff_and_zero_when_nothing_differs");
    let s = TestServer::start();
    let file = s.write("web.yaml", WEB);
    let file = file.to_str().unwrap_or_default();
    // Not there yet: the whole object is new.
    let new = s.kubectl(&["diff", "-f", file]);
    assert_eq!(new.code, 1, "{}{}", new.stdout, new.stderr);
    assert!(new.stdout.contains("+  name: web"), "{}", new.stdout);
    assert_eq!(s.kubectl(&["get", "deployment", "web"]).code, 1);

    s.ok(&["apply", "--validate=false", "-f", file]);
    let same = s.kubectl(&["diff", "-f", file]);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert_eq!(same.stdout, "");

    let four = s.write("web4.yaml", &WEB.replace("replicas: 2", "replicas: 4"));
    let changed = s.kubectl(&["diff", "-f", four.to_str().unwrap_or_default()]);
    assert_eq!(changed.code, 1, "{}{}", changed.stdout, changed.stderr);
    assert!(
        changed.stdout.contains("-  replicas: 2"),
        "{}",
        changed.stdout
    );
    assert!(
        changed.stdout.contains("+  replicas: 4"),
        "{}",
        changed.stdout
    );
    let replicas = s.ok(&[
        "get",
        "deployment",
        "web",
        "-o",
        "jsonpath={.spec.replicas}",
    ]);
    assert_eq!(replicas, "2");
}

#[test]
fn a_dry_run_value_other_than_all_is_refused_by_the_server() {
    need_kubectl!("a_dry_run_value_other_than_all_is_refused_by_the_server");
    let s = TestServer::start();
    let pod = s.write(
        "pod.json",
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}"#,
    );
    let r = s.kubectl(&[
        "create",
        "--raw",
        "/api/v1/namespaces/default/pods?dryRun=true",
        "-f",
        pod.to_str().unwrap_or_default(),
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stderr.trim(),
        r#"The CreateOptions "" is invalid: dryRun: Unsupported value: []string{"true"}: supported values: "All""#
    );
    assert_eq!(s.kubectl(&["get", "pod", "p"]).code, 1);
}
