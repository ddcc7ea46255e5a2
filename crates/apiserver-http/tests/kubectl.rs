//! The real kubectl v1.32 against watchlab-apiserver: each test starts its own server and checks
//! what kubectl prints, exit codes and error texts included. Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::{move_pods_window_on, wait_until, TestServer};
use std::process::Command;
use std::time::Duration;
use watchlab_engine::cluster::Action;

fn rv(s: &TestServer, args: &[&str]) -> u64 {
    let mut all = args.to_vec();
    all.extend(["-o", "jsonpath={.metadata.resourceVersion}"]);
    let out = s.ok(&all);
    out.trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a resourceVersion: {out:?}"))
}

#[test]
fn get_nodes_prints_the_servers_table() {
    need_kubectl!("get_nodes_prints_the_servers_table");
    let s = TestServer::start();
    let out = s.ok(&["get", "nodes"]);
    let mut lines = out.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    let names: Vec<&str> = lines.filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names, ["node-a", "node-b", "node-c"]);
    let wide = s.ok(&["get", "nodes", "-o", "wide"]);
    assert!(
        wide.lines()
            .next()
            .unwrap_or_default()
            .contains("INTERNAL-IP"),
        "{wide}"
    );
    assert_eq!(s.ok(&["get", "--raw", "/readyz"]), "ok");
    let version = s.ok(&["version"]);
    assert!(
        version.contains("Server Version: v1.32.0-watchlab"),
        "{version}"
    );
}

#[test]
fn run_creates_the_pod_and_a_second_run_already_exists() {
    need_kubectl!("run_creates_the_pod_and_a_second_run_already_exists");
    let s = TestServer::start();
    let args = [
        "run",
        "debug-tools",
        "--image=debug-tools:1.0",
        "-n",
        "production",
    ];
    assert_eq!(s.ok(&args).trim(), "pod/debug-tools created");
    let image = s.ok(&[
        "get",
        "pod",
        "debug-tools",
        "-n",
        "production",
        "-o",
        "jsonpath={.spec.containers[0].image}",
    ]);
    assert_eq!(image, "debug-tools:1.0");
    let again = s.kubectl(&args);
    assert_eq!(again.code, 1);
    assert_eq!(
        again.stderr.trim(),
        "Error from server (AlreadyExists): pods \"debug-tools\" already exists"
    );
    let pods = s.ok(&["get", "pods", "-n", "production"]);
    let header: Vec<&str> = pods
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    assert!(
        pods.lines().any(|l| l.starts_with("debug-tools ")),
        "{pods}"
    );
}

#[test]
fn label_overwrite_moves_the_resource_version_forward() {
    need_kubectl!("label_overwrite_moves_the_resource_version_forward");
    let s = TestServer::start();
    let target = ["deployment", "orders-api", "-n", "production"];
    let mut get = vec!["get"];
    get.extend(target);
    let before = rv(&s, &get);
    let mut label = vec!["label"];
    label.extend(target);
    label.extend(["team=orders", "--overwrite"]);
    assert_eq!(s.ok(&label).trim(), "deployment.apps/orders-api labeled");
    let first = rv(&s, &get);
    label[5] = "team=payments";
    s.ok(&label);
    let second = rv(&s, &get);
    assert!(
        before < first && first < second,
        "{before} {first} {second}"
    );
    let team = s.ok(&[
        "get",
        "deployment",
        "orders-api",
        "-n",
        "production",
        "-o",
        "jsonpath={.metadata.labels.team}",
    ]);
    assert_eq!(team, "payments");
}

const WEB: &str = r#"{"apiVersion":"apps/v1","kind":"Deployment",
"metadata":{"name":"web","namespace":"production","labels":{"app":"web"}},
"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},
"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}"#;

#[test]
fn typed_protobuf_clients_create_deployments_and_namespaces() {
    need_kubectl!("typed_protobuf_clients_create_deployments_and_namespaces");
    let s = TestServer::start();
    // `create namespace` and `create deployment` use client-go's typed clientset, which sends
    // protobuf bodies (Content-Type: application/vnd.kubernetes.protobuf) since v1.31.
    assert_eq!(
        s.ok(&["create", "namespace", "shop"]).trim(),
        "namespace/shop created"
    );
    let out = s.ok(&[
        "create",
        "deployment",
        "web",
        "--image=nginx:1.27",
        "--replicas=2",
        "--port=80",
        "-n",
        "shop",
    ]);
    assert_eq!(out.trim(), "deployment.apps/web created");
    let spec = s.ok(&[
        "get",
        "deployment",
        "web",
        "-n",
        "shop",
        "-o",
        "jsonpath={.spec.replicas} {.spec.selector.matchLabels.app} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}",
    ]);
    assert_eq!(spec, "2 web nginx:1.27 80");
    // The controllers run it like any other Deployment.
    wait_until("2 ready replicas", Duration::from_secs(30), || {
        let ready = s.ok(&[
            "get",
            "deployment",
            "web",
            "-n",
            "shop",
            "-o",
            "jsonpath={.status.readyReplicas}",
        ]);
        (ready == "2").then_some(())
    });
    // What the engine does not serve is still refused with the server's wording.
    let r = s.kubectl(&["create", "quota", "q", "--hard=pods=1"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("the server could not find the requested resource"),
        "{}",
        r.stderr
    );
}

#[test]
fn apply_from_two_stale_copies_conflicts_the_second_time() {
    need_kubectl!("apply_from_two_stale_copies_conflicts_the_second_time");
    let s = TestServer::start();
    // A Deployment of its own with no pods, read once the controllers stopped writing its
    // status: both copies then carry the same, current resourceVersion.
    let web = s.write("web.json", WEB);
    s.ok(&["create", "--validate=false", "-f", &web.to_string_lossy()]);
    let get = ["get", "deployment", "web", "-n", "production"];
    let mut last = rv(&s, &get);
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(300));
        let now = rv(&s, &get);
        if now == last {
            break;
        }
        last = now;
    }
    let yaml = s.ok(&["get", "deployment", "web", "-n", "production", "-o", "yaml"]);
    assert!(yaml.contains("replicas: 0"), "{yaml}");
    // A manifest kept in a file has no status; with one, kubectl's strategic patch carries
    // `$setElementOrder/conditions`, which the engine's merge patch does not understand.
    let yaml = yaml
        .split("\nstatus:")
        .next()
        .unwrap_or_default()
        .to_string()
        + "\n";
    let yaml = yaml.replacen("replicas: 0", "replicas: 3", 1);
    let a = s.write("a.yaml", &yaml.replacen("replicas: 3", "replicas: 1", 1));
    let b = s.write("b.yaml", &yaml.replacen("replicas: 3", "replicas: 2", 1));
    let a = a.to_string_lossy().into_owned();
    let b = b.to_string_lossy().into_owned();
    // No OpenAPI is served: kubectl's client-side validation needs `--validate=false`.
    let first = s.kubectl(&["apply", "--validate=false", "-f", &a]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(first.stdout.trim(), "deployment.apps/web configured");
    let second = s.kubectl(&["apply", "--validate=false", "-f", &b]);
    assert_eq!(second.code, 1, "{}", second.stdout);
    assert!(
        second
            .stderr
            .contains("Error from server (Conflict): error when applying patch:"),
        "{}",
        second.stderr
    );
    assert!(
        second.stderr.trim_end().ends_with(&format!(
            "for: \"{b}\": error when patching \"{b}\": Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"
        )),
        "{}",
        second.stderr
    );
    let replicas = s.ok(&[
        "get",
        "deployment",
        "web",
        "-n",
        "production",
        "-o",
        "jsonpath={.spec.replicas}",
    ]);
    assert_eq!(replicas, "1");
}

const EVENT: &str = r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"NAME","namespace":"default"},
"involvedObject":{"kind":"Pod","name":"orders-api-x","namespace":"default"},
"reason":"REASON","message":"MSG","type":"Normal","count":1,
"firstTimestamp":"TS","lastTimestamp":"TS","source":{"component":"test"}}"#;

#[test]
fn events_sort_by_last_timestamp() {
    need_kubectl!("events_sort_by_last_timestamp");
    // ×100 so the events' times are in the (virtual) past when printed.
    let s = TestServer::start_with(watchlab_apiserver_http::Args {
        port: 0,
        speed: 100.0,
        ..Default::default()
    });
    std::thread::sleep(Duration::from_millis(100));
    // Created out of order: the sort, not the creation order, decides what is printed.
    for (name, reason, ts) in [
        // Just after the virtual epoch (times before it are not representable).
        ("late", "Pulled", "2026-01-01T00:00:03Z"),
        ("early", "Scheduled", "2026-01-01T00:00:01Z"),
        ("middle", "Pulling", "2026-01-01T00:00:02Z"),
    ] {
        let json = EVENT
            .replace("NAME", name)
            .replace("REASON", reason)
            .replace("TS", ts)
            .replace("MSG", name);
        let f = s.write(&format!("{name}.json"), &json);
        s.ok(&["create", "--validate=false", "-f", &f.to_string_lossy()]);
    }
    let out = s.ok(&["get", "events", "-n", "default", "--sort-by=.lastTimestamp"]);
    let reasons: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    assert_eq!(reasons, ["Scheduled", "Pulling", "Pulled"], "{out}");
    assert!(!out.contains("<invalid>"), "{out}");
    let header: Vec<&str> = out
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    );
}

#[test]
fn raw_watch_streams_matching_events_and_ends_at_its_timeout() {
    need_kubectl!("raw_watch_streams_matching_events_and_ends_at_its_timeout");
    let s = TestServer::start();
    s.ok(&["run", "nginx", "--image=nginx", "-l", "app=nginx"]);
    s.ok(&["run", "other", "--image=busybox", "-l", "app=other"]);
    let raw = s.ok(&[
        "get",
        "--raw",
        "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx&timeoutSeconds=1",
    ]);
    let events: Vec<serde_json::Value> = raw
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // ADDED first; controllers (scheduler, kubelet) may add MODIFIED lines within the second.
    assert_eq!(
        events.first().map(|e| e["type"].clone()),
        Some("ADDED".into()),
        "{raw}"
    );
    assert!(
        events
            .iter()
            .all(|e| e["object"]["metadata"]["name"] == "nginx"),
        "{raw}"
    );
    assert!(
        events.iter().skip(1).all(|e| e["type"] == "MODIFIED"),
        "{raw}"
    );
    // A bad selector is the real 400 text.
    let bad = s.kubectl(&[
        "get",
        "--raw",
        "/api/v1/pods?watch=true&labelSelector=a%3D%3D%3Db",
    ]);
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.starts_with("Error from server (BadRequest)"),
        "{}",
        bad.stderr
    );
}

#[test]
fn delete_removes_and_then_not_found() {
    need_kubectl!("delete_removes_and_then_not_found");
    let s = TestServer::start();
    s.ok(&[
        "run",
        "debug-tools",
        "--image=debug-tools:1.0",
        "-n",
        "production",
    ]);
    let out = s.ok(&["delete", "pod", "debug-tools", "-n", "production"]);
    assert_eq!(out.trim(), "pod \"debug-tools\" deleted");
    let gone = s.kubectl(&["get", "pod", "debug-tools", "-n", "production"]);
    assert_eq!(gone.code, 1);
    assert_eq!(
        gone.stderr.trim(),
        "Error from server (NotFound): pods \"debug-tools\" not found"
    );
    let again = s.kubectl(&["delete", "pod", "debug-tools", "-n", "production"]);
    assert_eq!(
        again.stderr.trim(),
        "Error from server (NotFound): pods \"debug-tools\" not found"
    );
}

#[test]
fn scale_goes_through_the_scale_subresource() {
    need_kubectl!("scale_goes_through_the_scale_subresource");
    let s = TestServer::start();
    let out = s.ok(&[
        "scale",
        "deployment",
        "orders-api",
        "-n",
        "production",
        "--replicas=5",
    ]);
    assert_eq!(out.trim(), "deployment.apps/orders-api scaled");
    let replicas = s.ok(&[
        "get",
        "deployment",
        "orders-api",
        "-n",
        "production",
        "-o",
        "jsonpath={.spec.replicas}",
    ]);
    assert_eq!(replicas, "5");
    let raw = s.ok(&[
        "get",
        "--raw",
        "/apis/apps/v1/namespaces/production/deployments/orders-api/scale",
    ]);
    let scale: serde_json::Value = serde_json::from_str(&raw).unwrap_or_default();
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["spec"]["replicas"], 5);
    assert_eq!(scale["status"]["selector"], "app=orders-api");
    // --current-replicas is a precondition checked client-side against the Scale.
    let stale = s.kubectl(&[
        "scale",
        "deployment",
        "orders-api",
        "-n",
        "production",
        "--current-replicas=3",
        "--replicas=1",
    ]);
    assert_eq!(stale.code, 1);
    assert!(
        stale.stderr.contains("Expected replicas to be 3, was 5"),
        "{}",
        stale.stderr
    );
    let missing = s.kubectl(&[
        "scale",
        "deployment",
        "nope",
        "-n",
        "production",
        "--replicas=1",
    ]);
    // kubectl 1.32 wraps the server's NotFound in its own message (scale.go: `no objects passed
    // to scale %w`), so the "Error from server" prefix is lost: that is the real client's text.
    assert_eq!(
        missing.stderr.trim(),
        "error: no objects passed to scale deployments.apps \"nope\" not found"
    );
}

#[test]
fn get_pods_watch_prints_table_rows_as_the_pod_progresses() {
    need_kubectl!("get_pods_watch_prints_table_rows_as_the_pod_progresses");
    // Virtual time ×20, so controllers (when plugged in) get the pod running quickly.
    let s = TestServer::start_with(watchlab_apiserver_http::Args {
        port: 0,
        speed: 20.0,
        ..Default::default()
    });
    let mut watch = s.spawn(&["get", "pods", "-w", "-n", "production"]);
    watch.wait_for(Duration::from_secs(10), |t| {
        t.contains("NAME") || t.contains("No resources")
    });
    s.ok(&[
        "run",
        "debug-tools",
        "--image=debug-tools:1.0",
        "-n",
        "production",
    ]);
    // Give controllers, if any, a moment to move it along; tolerate their absence.
    let running = |t: &str| {
        t.lines()
            .any(|l| l.starts_with("debug-tools ") && l.contains(" Running "))
    };
    watch.wait_for(Duration::from_secs(8), running);
    let streams = |s: &TestServer| {
        s.with_cluster(|c| {
            c.api()
                .streams()
                .filter(|st| st.user() == "kubectl")
                .count()
        })
    };
    assert_eq!(streams(&s), 1, "kubectl get -w holds one watch");
    let text = watch.stop();
    // The client went away: the server closes its stream (no leaked watch).
    let mut open = usize::MAX;
    for _ in 0..100 {
        open = s.with_cluster(|c| {
            c.api()
                .streams()
                .filter(|st| st.user() == "kubectl")
                .count()
        });
        if open == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        open, 0,
        "kubectl's watch stream is still open on the server"
    );
    let statuses: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("debug-tools "))
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    assert_eq!(statuses.first(), Some(&"Pending"), "{text}");
    let order = ["Pending", "ContainerCreating", "Running"];
    let ranks: Vec<usize> = statuses
        .iter()
        .map(|s| {
            order
                .iter()
                .position(|o| o == s)
                .unwrap_or_else(|| panic!("unexpected status {s}: {text}"))
        })
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{text}");
    if !statuses.contains(&"Running") {
        eprintln!("note: the pod never ran (controllers not plugged in?): {statuses:?}");
    } else {
        eprintln!("statuses seen: {statuses:?}");
    }
}

#[test]
fn apply_merges_containers_by_name_strategically() {
    need_kubectl!("apply_merges_containers_by_name_strategically");
    let s = TestServer::start();
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: IMAGE\n        ports:\n        - containerPort: 80\n";
    let file = s.write("web.yaml", &manifest.replace("IMAGE", "nginx:1.27"));
    let file = file.to_string_lossy().into_owned();
    let apply = ["apply", "--validate=false", "-f", &file];
    assert_eq!(s.ok(&apply).trim(), "deployment.apps/web created");
    s.write("web.yaml", &manifest.replace("IMAGE", "nginx:1.28"));
    assert_eq!(s.ok(&apply).trim(), "deployment.apps/web configured");
    // The ports survive: containers merged by name, not replaced by the patch's list.
    let containers = s.ok(&["get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}"]);
    assert_eq!(containers, "nginx:1.28 80");
    assert_eq!(s.ok(&apply).trim(), "deployment.apps/web unchanged");
}

/// Whether a kubectl age (`5s`, `2m3s`, `10m`) is under two minutes.
fn under_two_minutes(age: &str) -> bool {
    age.strip_suffix('s')
        .and_then(|n| n.parse::<u64>().ok())
        .is_some_and(|n| n < 120)
        || age.starts_with("1m")
}

#[test]
fn ages_agree_with_kubectls_own_clock() {
    need_kubectl!("ages_agree_with_kubectls_own_clock");
    // The virtual clock starts at the server's wall-clock start, so ages kubectl computes
    // itself (`describe`) read like the ones the server prints (`get`): seconds, not months.
    let s = TestServer::start();
    s.ok(&["run", "web", "--image=nginx"]);
    wait_until("the pod Running", Duration::from_secs(30), || {
        let phase = s.ok(&["get", "pod", "web", "-o", "jsonpath={.status.phase}"]);
        (phase == "Running").then_some(())
    });
    let get = s.ok(&["get", "pod", "web", "--no-headers"]);
    let age = get.split_whitespace().nth(4).unwrap_or_default();
    assert!(under_two_minutes(age), "{get}");
    let describe = s.ok(&["describe", "pod", "web"]);
    let events: Vec<&str> = describe
        .lines()
        .skip_while(|l| !l.starts_with("Events:"))
        .filter(|l| l.trim_start().starts_with("Normal"))
        .collect();
    assert!(events.len() >= 3, "{describe}");
    for row in events {
        let age = row.split_whitespace().nth(2).unwrap_or_default();
        assert!(under_two_minutes(age), "{row}\n{describe}");
    }
    let nodes = s.ok(&["get", "nodes", "--no-headers"]);
    for row in nodes.lines() {
        let age = row.split_whitespace().nth(3).unwrap_or_default();
        assert!(under_two_minutes(age), "{nodes}");
    }
}

// The read paths of the watch cache (kube-apiserver v1.32): what kubectl sees of each.

/// A pod only this test writes: its scheduler is one nobody runs, so no kubelet touches it.
fn quiet_pod(s: &TestServer, name: &str) {
    s.ok(&[
        "run",
        name,
        "--image=nginx",
        r#"--overrides={"spec":{"schedulerName":"nobody"}}"#,
    ]);
}

/// The resourceVersion of the last write, as etcd has it.
fn revision(s: &TestServer) -> u64 {
    s.with_cluster(|c| c.api().revision())
}

#[test]
fn a_list_ahead_of_the_watch_cache_is_504_too_large_resource_version() {
    need_kubectl!("a_list_ahead_of_the_watch_cache_is_504_too_large_resource_version");
    let s = TestServer::start();
    let future = revision(&s) + 1000;
    let r = s.kubectl(&[
        "get",
        "--raw",
        &format!("/api/v1/namespaces/default/pods?resourceVersion={future}"),
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "");
    // "current" is the cache's resourceVersion: etcd's, as far as its watch has delivered.
    // `NewTimeoutError`'s "Timeout: " is part of the message, so kubectl prints it twice.
    let prefix = format!(
        "Error from server (Timeout): Timeout: Too large resource version: {future}, current: "
    );
    let current: u64 = r
        .stderr
        .trim_end()
        .strip_prefix(&prefix)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{:?}", r.stderr));
    assert!(current < future, "{}", r.stderr);
    // A resourceVersion the cache has reached is answered from it.
    let list = s.ok(&[
        "get",
        "--raw",
        &format!("/api/v1/namespaces/default/pods?resourceVersion={current}"),
    ]);
    let list: serde_json::Value = serde_json::from_str(&list).expect("list");
    assert_eq!(list["kind"], "PodList", "{list}");
}

#[test]
fn a_watch_ahead_of_the_watch_cache_is_accepted_and_starts_there() {
    need_kubectl!("a_watch_ahead_of_the_watch_cache_is_accepted_and_starts_there");
    let s = TestServer::start();
    quiet_pod(&s, "ahead");
    // Far ahead: accepted (no 504, unlike a list), and nothing to deliver within its second.
    let far = revision(&s) + 1000;
    let quiet = s.kubectl(&[
        "get",
        "--raw",
        &format!("/api/v1/namespaces/default/pods?watch=1&resourceVersion={far}&timeoutSeconds=1"),
    ]);
    assert_eq!(
        (quiet.code, quiet.stdout.as_str(), quiet.stderr.as_str()),
        (0, "", "")
    );
    // A little ahead: the watch delivers the events after it, and none before.
    let from = revision(&s) + 5;
    let mut watch = s.spawn(&[
        "get",
        "--raw",
        &format!(
            "/api/v1/namespaces/default/pods?watch=1&resourceVersion={from}&timeoutSeconds=60"
        ),
    ]);
    let mut writes = Vec::new();
    for round in 0..10 {
        s.ok(&[
            "label",
            "pod",
            "ahead",
            &format!("round={round}"),
            "--overwrite",
        ]);
        // (`kubectl label -o` prints the object as it read it before its patch: read again.)
        writes.push((round, rv(&s, &["get", "pod", "ahead"])));
    }
    watch.wait_for(Duration::from_secs(10), |t| t.contains(r#""round":"9""#));
    let text = watch.stop();
    let seen: Vec<(String, u64)> = text
        .lines()
        .map(|l| {
            let e: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let meta = &e["object"]["metadata"];
            (
                meta["labels"]["round"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                meta["resourceVersion"]
                    .as_str()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_default(),
            )
        })
        .collect();
    let expected: Vec<(String, u64)> = writes
        .iter()
        .filter(|(_, at)| *at > from)
        .map(|(round, at)| (round.to_string(), *at))
        .collect();
    assert_eq!(seen, expected, "from {from}: {writes:?}\n{text}");
}

#[test]
fn a_watch_from_a_resource_version_the_watch_cache_dropped_is_410() {
    need_kubectl!("a_watch_from_a_resource_version_the_watch_cache_dropped_is_410");
    let s = TestServer::start_with(watchlab_apiserver_http::Args {
        port: 0,
        etcd_port: Some(0),
        ..Default::default()
    });
    quiet_pod(&s, "old");
    let old = revision(&s);
    let oldest = s.with_cluster(move_pods_window_on);
    assert!(oldest > old, "{oldest} {old}");
    // HTTP 200, then one ERROR event: kubectl prints it and exits 0.
    let r = s.kubectl(&[
        "get",
        "--raw",
        &format!("/api/v1/namespaces/default/pods?watch=1&resourceVersion={old}"),
    ]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{}", r.stdout);
    let event: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("one event");
    assert_eq!(
        event,
        serde_json::json!({
            "type": "ERROR",
            "object": {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": format!("too old resource version: {old} ({oldest})"),
                "reason": "Expired",
                "code": 410
            }
        })
    );
    // etcd still has that revision: an Exact list, read from etcd, shows it.
    let exact = s.ok(&[
        "get",
        "--raw",
        &format!(
            "/api/v1/namespaces/default/pods?resourceVersion={old}&resourceVersionMatch=Exact"
        ),
    ]);
    let exact: serde_json::Value = serde_json::from_str(&exact).expect("list");
    assert_eq!(exact["metadata"]["resourceVersion"], old.to_string());
    assert_eq!(exact["items"][0]["metadata"]["name"], "old", "{exact}");
    // And so does etcdctl, when it is installed.
    let etcdctl = Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .arg(format!("--endpoints={}", s.etcd[0]))
        .args(["get", "/registry/pods/default/old", "--keys-only"])
        .arg(format!("--rev={old}"))
        .output();
    match etcdctl {
        Ok(out) => {
            assert!(out.status.success(), "{out:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "/registry/pods/default/old\n\n"
            );
        }
        Err(e) => eprintln!("note: etcdctl not run ({e})"),
    }
}

#[test]
fn without_an_etcd_majority_quorum_reads_fail_and_the_watch_cache_answers() {
    need_kubectl!("without_an_etcd_majority_quorum_reads_fail_and_the_watch_cache_answers");
    let s = TestServer::start();
    quiet_pod(&s, "survivor");
    s.with_cluster(|c| {
        for member in ["etcd-1", "etcd-2"] {
            c.apply(Action::KillEtcdMember(member.into()))
                .expect("kill a member");
        }
    });
    // etcd-0 alone cannot confirm it still leads; the watch cache keeps what it has (for about
    // 33 s: three election timeouts, then 30 s of retries, before it reinitializes).
    std::thread::sleep(Duration::from_secs(2));
    // A list and a get without resourceVersion are quorum reads: etcd cannot answer them.
    let timed_out = "Error from server: etcdserver: request timed out\n";
    let list = s.kubectl(&["get", "pods"]);
    assert_eq!(
        (list.code, list.stderr.as_str()),
        (1, timed_out),
        "{}",
        list.stdout
    );
    let one = s.kubectl(&["get", "pod", "survivor"]);
    assert_eq!(
        (one.code, one.stderr.as_str()),
        (1, timed_out),
        "{}",
        one.stdout
    );
    // resourceVersion=0 (a list, and a get): the watch cache as it is, without asking etcd.
    let cached = s.ok(&[
        "get",
        "--raw",
        "/api/v1/namespaces/default/pods?resourceVersion=0",
    ]);
    let cached: serde_json::Value = serde_json::from_str(&cached).expect("list");
    let names: Vec<&str> = cached["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["survivor"], "{cached}");
    let pod = s.ok(&[
        "get",
        "--raw",
        "/api/v1/namespaces/default/pods/survivor?resourceVersion=0",
    ]);
    let pod: serde_json::Value = serde_json::from_str(&pod).expect("pod");
    assert_eq!(pod["metadata"]["name"], "survivor", "{pod}");
    s.with_cluster(|c| {
        for member in ["etcd-1", "etcd-2"] {
            c.apply(Action::RestoreEtcdMember(member.into()))
                .expect("restore a member");
        }
    });
    let table = wait_until("a quorum read again", Duration::from_secs(20), || {
        let r = s.kubectl(&["get", "pods"]);
        (r.code == 0).then_some(r.stdout)
    });
    assert!(table.lines().any(|l| l.starts_with("survivor ")), "{table}");
}
