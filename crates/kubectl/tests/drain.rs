//! `kubectl drain` in the console against the engine with its kubelets and disruption
//! controller: the node cordoned, its pods evicted through `pods/eviction`, a budget's 429
//! retried every 5 s of virtual time (the command followed as the cluster advances) until the
//! replacement is ready, `node/X drained`; kubectl's filters and their exact errors; the
//! `--timeout`, `--dry-run=client` and `--disable-eviction` paths; kubectl's flag refusals.

mod fake;

use fake::FakeApi;
use serde_json::{json, Value};
use watchlab_engine::api::Kind;
use watchlab_engine::controllers::{Harness, Profile};
use watchlab_kubectl::{Follow, Kubectl};

const WEB_PDB: &str = "apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: MIN
  selector:
    matchLabels:
      app: web
";

const REFUSED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

fn jsonpath(k: &mut Kubectl, h: &mut Harness, what: &str, path: &str) -> String {
    k.exec(
        &format!("kubectl get {what} -o jsonpath='{path}'"),
        &mut h.api,
    )
    .stdout
}

/// Two nodes, Deployment `web` (3 replicas, ready) and a budget `web` of `minAvailable: min`
/// whose status the disruption controller has written.
fn cluster_with_budget(min: u32) -> (Harness, Kubectl) {
    let mut h = Harness::new(5, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl create deployment web --image=nginx:1.27 --replicas=3",
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    k.set_file("pdb.yaml", &WEB_PDB.replace("MIN", &min.to_string()));
    let out = k.exec("kubectl apply -f pdb.yaml", &mut h.api);
    assert_eq!(out.stderr, "");
    let until = h.now().plus_secs(60);
    let allowed = 3u32.saturating_sub(min);
    assert!(h.run_until_true(until, |h| budget_status(h) == Some((3, i64::from(allowed)))));
    (h, k)
}

/// The budget's `currentHealthy` and `disruptionsAllowed`.
fn budget_status(h: &Harness) -> Option<(i64, i64)> {
    let o = h
        .api
        .get(Kind::PodDisruptionBudget, Some("default"), "web")
        .ok()?;
    let v = serde_json::to_value(&*o).ok()?;
    Some((
        v["status"]["currentHealthy"].as_i64()?,
        v["status"]["disruptionsAllowed"].as_i64()?,
    ))
}

/// The node holding the most `web` pods, and their names.
fn busiest_node(k: &mut Kubectl, h: &mut Harness) -> (String, Vec<String>) {
    let text = jsonpath(
        k,
        h,
        "pods -l app=web",
        "{range .items[*]}{.spec.nodeName} {.metadata.name}{\"\\n\"}{end}",
    );
    let mut best: (String, Vec<String>) = Default::default();
    for node in ["node-a", "node-b"] {
        let pods: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("{node} ")))
            .map(String::from)
            .collect();
        if pods.len() > best.1.len() {
            best = (node.to_string(), pods);
        }
    }
    best
}

/// Advances the cluster half a second at a time, polling the drain, until it ends (at most
/// `secs` of virtual time); what it printed meanwhile.
fn follow_to_end(h: &mut Harness, mut follow: Follow, secs: u64) -> (String, String, bool) {
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let until = h.now().plus_secs(secs);
    while h.now() < until {
        h.run_for(500);
        let out = follow.poll(&mut h.api);
        stdout.push_str(&out.stdout);
        stderr.push_str(&out.stderr);
        if out.ended {
            return (stdout, stderr, true);
        }
    }
    (stdout, stderr, false)
}

#[test]
fn drain_retries_the_budget_s_429_every_5s_until_the_replacement_is_ready() {
    let (mut h, mut k) = cluster_with_budget(2);
    let (node, pods) = busiest_node(&mut k, &mut h);
    assert_eq!(pods.len(), 2, "three replicas on two nodes");
    let out = k.exec(
        &format!("kubectl drain {node} --ignore-daemonsets"),
        &mut h.api,
    );
    assert_eq!(out.exit_code, 0);
    assert_eq!(
        out.stdout,
        format!(
            "node/{node} cordoned\nevicting pod default/{}\nevicting pod default/{}\n",
            pods[0], pods[1]
        )
    );
    // The first eviction spent the budget's one disruption; the second is refused.
    assert_eq!(
        out.stderr,
        format!(
            "error when evicting pods/\"{}\" -n \"default\" (will retry after 5s): {REFUSED}\n",
            pods[1]
        )
    );
    let follow = out.follow.expect("the drain goes on over virtual time");
    assert_eq!(follow.watch_id(), None);
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            &format!("node {node}"),
            "{.spec.unschedulable}"
        ),
        "true"
    );

    let (stdout, stderr, ended) = follow_to_end(&mut h, follow, 180);
    assert!(ended, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("pod/{} evicted\n", pods[0])),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("pod/{} evicted\n", pods[1])),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(&format!("node/{node} drained\n")),
        "{stdout}"
    );
    // Each retry prints the eviction again, and every refusal is kubectl's line.
    let retries = stdout
        .matches(&format!("evicting pod default/{}\n", pods[1]))
        .count();
    assert!(retries >= 1, "{stdout}");
    for line in stderr.lines() {
        assert_eq!(
            line,
            format!(
                "error when evicting pods/\"{}\" -n \"default\" (will retry after 5s): {REFUSED}",
                pods[1]
            )
        );
    }
    assert_eq!(stderr.lines().count(), retries - 1);
    let left = jsonpath(
        &mut k,
        &mut h,
        &format!("pods --field-selector spec.nodeName={node}"),
        "{.items[*].metadata.name}",
    );
    assert_eq!(left, "");
}

#[test]
fn a_budget_that_never_allows_ends_at_the_timeout_with_kubectl_s_report() {
    let (mut h, mut k) = cluster_with_budget(3);
    let (node, pods) = busiest_node(&mut k, &mut h);
    let out = k.exec(&format!("kubectl drain {node} --timeout=12s"), &mut h.api);
    let follow = out.follow.expect("retrying");
    let (stdout, stderr, ended) = follow_to_end(&mut h, follow, 60);
    assert!(ended);
    // Tries at 0, 5 and 10 s; the one at 15 s finds the 12 s gone.
    let first = &pods[0];
    assert_eq!(
        stdout
            .matches(&format!("evicting pod default/{first}\n"))
            .count(),
        3,
        "{stdout}"
    );
    let timeout = |p: &str| {
        format!("error when evicting pods/\"{p}\" -n \"default\": global timeout reached: 12s")
    };
    let mut expected = format!(
        "There are pending pods in node \"{node}\" when an error occurred: [{}, {}]\n",
        timeout(&pods[0]),
        timeout(&pods[1])
    );
    expected += &format!("pod/{}\npod/{}\n", pods[0], pods[1]);
    expected += &format!(
        "error: unable to drain node \"{node}\" due to error: [{}, {}], continuing command...\n",
        timeout(&pods[0]),
        timeout(&pods[1])
    );
    expected += &format!("There are pending nodes to be drained:\n {node}\n");
    expected += &format!("{}\n{}\n", timeout(&pods[0]), timeout(&pods[1]));
    assert!(stderr.ends_with(&expected), "{stderr}");
    assert_eq!(
        stdout.lines().last(),
        Some(&*format!("evicting pod default/{}", pods[1]))
    );
}

/// A bare pod bound to `node` (no scheduler, no controller).
fn bare_pod(k: &mut Kubectl, h: &mut Harness, name: &str, node: &str) {
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  nodeName: {node}\n  containers:\n  - name: c\n    image: nginx:1.27\n"
    );
    k.set_file("pod.yaml", &yaml);
    let out = k.exec("kubectl apply -f pod.yaml", &mut h.api);
    assert_eq!(out.stderr, "");
}

#[test]
fn a_pod_without_a_controller_needs_force() {
    let mut h = Harness::new(3, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    bare_pod(&mut k, &mut h, "bare", "node-a");
    h.run_for(10_000);

    let out = k.exec("kubectl drain node-a", &mut h.api);
    assert_eq!(out.exit_code, 1);
    assert!(out.follow.is_none());
    assert_eq!(out.stdout, "node/node-a cordoned\n");
    let unmanaged = "cannot delete cannot delete Pods that declare no controller (use --force to override): default/bare";
    assert_eq!(
        out.stderr,
        format!(
            "error: unable to drain node \"node-a\" due to error: {unmanaged}, continuing command...\n\
             There are pending nodes to be drained:\n node-a\n{unmanaged}\n"
        )
    );

    let out = k.exec("kubectl drain node-a --force --grace-period=0", &mut h.api);
    assert_eq!(
        out.stderr,
        "Warning: deleting Pods that declare no controller: default/bare\n"
    );
    let mut stdout = out.stdout;
    if let Some(f) = out.follow {
        stdout += &follow_to_end(&mut h, f, 60).0;
    }
    assert_eq!(
        stdout,
        "node/node-a already cordoned\nevicting pod default/bare\npod/bare evicted\nnode/node-a drained\n"
    );
}

fn fake_pod(ns: &str, name: &str, owner: Option<&str>, extra: Value) -> Value {
    let mut pod = json!({"metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}")},
        "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Running"}});
    if let Some(kind) = owner {
        pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": "o", "controller": true}]);
    }
    if let Some(v) = extra.get("volumes") {
        pod["spec"]["volumes"] = v.clone();
    }
    if let Some(a) = extra.get("annotations") {
        pod["metadata"]["annotations"] = a.clone();
    }
    pod
}

/// A node-a holding a bare pod, a ReplicaSet's pod with an emptyDir, a DaemonSet's pod and a
/// mirror pod, as a server answers kubectl's reads of them.
fn fake_node_with_every_kind_of_pod() -> FakeApi {
    let mut api = FakeApi::new();
    let node =
        json!({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-a"}, "spec": {}});
    api.on("GET", "/api/v1/nodes/node-a", 200, node.clone());
    api.on("PATCH", "/api/v1/nodes/node-a", 200, node);
    let pods = json!({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": [
        fake_pod("default", "bare", None, json!({})),
        fake_pod("default", "cache", Some("ReplicaSet"), json!({"volumes": [{"name": "v", "emptyDir": {}}]})),
        fake_pod("kube-system", "fluentd", Some("DaemonSet"), json!({})),
        fake_pod("kube-system", "static", None, json!({"annotations": {"kubernetes.io/config.mirror": "x"}})),
    ]});
    api.on(
        "GET",
        "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=500",
        200,
        pods,
    );
    api.on(
        "GET",
        "/apis/apps/v1/namespaces/kube-system/daemonsets/fluentd",
        200,
        json!({}),
    );
    for name in ["bare", "cache"] {
        let path = format!("/api/v1/namespaces/default/pods/{name}/eviction");
        api.on(
            "POST",
            &path,
            201,
            json!({"kind": "Status", "status": "Success"}),
        );
    }
    api
}

#[test]
fn every_filter_refuses_with_kubectl_s_message_until_its_flag_is_given() {
    let mut k = Kubectl::new();
    let mut api = fake_node_with_every_kind_of_pod();
    let out = k.exec("kubectl drain node-a", &mut api);
    let errors = [
        "cannot delete cannot delete Pods that declare no controller (use --force to override): default/bare",
        "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache",
        "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/fluentd",
    ];
    assert_eq!(out.stdout, "node/node-a cordoned\n");
    assert_eq!(
        out.stderr,
        format!(
            "error: unable to drain node \"node-a\" due to error: [{}], continuing command...\n\
             There are pending nodes to be drained:\n node-a\n{}\n",
            errors.join(", "),
            errors.join("\n")
        )
    );
    let patch = api
        .sent
        .iter()
        .find(|s| s.method == "PATCH")
        .expect("cordoned");
    assert_eq!(
        (patch.content_type.as_deref(), patch.body.as_deref()),
        (
            Some("application/strategic-merge-patch+json"),
            Some(r#"{"spec":{"unschedulable":true}}"#)
        )
    );

    let all = "--force --ignore-daemonsets --delete-emptydir-data";
    let out = k.exec(
        &format!("kubectl drain node-a {all} --dry-run=client"),
        &mut api,
    );
    assert_eq!(
        out.stdout,
        "node/node-a cordoned (dry run)\nevicting pod default/bare (dry run)\n\
         evicting pod default/cache (dry run)\nnode/node-a drained (dry run)\n"
    );
    assert_eq!(
        out.stderr,
        "Warning: deleting Pods that declare no controller: default/bare; ignoring DaemonSet-managed Pods: kube-system/fluentd\n"
    );

    let mut api = fake_node_with_every_kind_of_pod();
    let out = k.exec(
        &format!("kubectl drain node-a {all} --grace-period=10"),
        &mut api,
    );
    assert_eq!(
        out.stdout,
        "node/node-a cordoned\nevicting pod default/bare\nevicting pod default/cache\n\
         pod/bare evicted\npod/cache evicted\nnode/node-a drained\n"
    );
    assert!(out.follow.is_none());
    let eviction = api
        .sent
        .iter()
        .find(|s| s.method == "POST")
        .and_then(|s| s.body.clone())
        .expect("evicted");
    let eviction: Value = serde_json::from_str(&eviction).expect("JSON");
    assert_eq!(
        eviction,
        json!({"kind": "Eviction", "apiVersion": "policy/v1",
            "metadata": {"name": "bare", "namespace": "default"},
            "deleteOptions": {"gracePeriodSeconds": 10}})
    );
}

#[test]
fn disable_eviction_deletes_past_the_budget_and_dry_run_changes_nothing() {
    let (mut h, mut k) = cluster_with_budget(3);
    let (node, pods) = busiest_node(&mut k, &mut h);
    let out = k.exec(
        &format!("kubectl drain {node} --dry-run=client"),
        &mut h.api,
    );
    assert_eq!(
        out.stdout,
        format!(
            "node/{node} cordoned (dry run)\nevicting pod default/{} (dry run)\n\
             evicting pod default/{} (dry run)\nnode/{node} drained (dry run)\n",
            pods[0], pods[1]
        )
    );
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            &format!("node {node}"),
            "{.spec.unschedulable}"
        ),
        ""
    );

    let out = k.exec(
        &format!("kubectl drain {node} --disable-eviction"),
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.stdout, format!("node/{node} cordoned\n"));
    let (stdout, stderr, ended) = follow_to_end(&mut h, out.follow.expect("waiting"), 120);
    assert!(ended);
    assert_eq!(stderr, "");
    assert_eq!(
        stdout,
        format!(
            "pod/{} deleted\npod/{} deleted\nnode/{node} drained\n",
            pods[0], pods[1]
        )
    );
}

#[test]
fn refusals_are_kubectl_s() {
    let mut h = Harness::new(3, &Profile::training(), &["node-a"]);
    h.run_for(2_000);
    let mut k = Kubectl::new();
    let cases = [
        (
            "kubectl drain",
            "error: USAGE: drain NODE [flags]\nSee 'kubectl drain -h' for help and examples\n",
        ),
        (
            "kubectl drain node-a -l x=y",
            "error: cannot specify both a node name and a --selector option\nSee 'kubectl drain -h' for help and examples\n",
        ),
        (
            "kubectl drain node-a --timeout=5d",
            "Error: invalid argument \"5d\" for \"--timeout\" flag: time: unknown unit \"d\" in duration \"5d\"\nSee 'kubectl drain --help' for usage.\n",
        ),
        (
            "kubectl drain node-a --timeout=5",
            "Error: invalid argument \"5\" for \"--timeout\" flag: time: missing unit in duration \"5\"\nSee 'kubectl drain --help' for usage.\n",
        ),
        (
            "kubectl drain node-a --pod-selector='a in'",
            "error: --pod-selector=<pod_selector> must be a valid label selector\n",
        ),
        (
            "kubectl drain node-a --dry-run=maybe",
            "error: Invalid dry-run value (maybe). Must be \"none\", \"server\", or \"client\".\n",
        ),
        (
            "kubectl drain node-z",
            "Error from server (NotFound): nodes \"node-z\" not found\n",
        ),
    ];
    for (line, stderr) in cases {
        let out = k.exec(line, &mut h.api);
        assert_eq!((out.stderr.as_str(), out.exit_code), (stderr, 1), "{line}");
    }
    assert_eq!(
        jsonpath(&mut k, &mut h, "node node-a", "{.spec.unschedulable}"),
        "",
        "nothing was cordoned"
    );
    let help = k.exec("kubectl drain --help", &mut h.api).stdout;
    assert!(help.starts_with("Drain node in preparation for maintenance."));
    // A node with nothing to evict is drained at once, with no stream to follow.
    let out = k.exec("kubectl drain node-a", &mut h.api);
    assert_eq!(out.stdout, "node/node-a cordoned\nnode/node-a drained\n");
    assert!(out.follow.is_none());
}
