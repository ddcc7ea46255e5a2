//! `metrics.k8s.io/v1beta1` as metrics-server serves it, on the seed cluster: the figures are a
//! pure function of the seed, the pod and the window (the same cluster at the same time gives
//! the same answer; the wobble stays within its bounds), only Running pods on reachable nodes
//! have them, a node's usage is its pods' plus the system's, and the errors are metrics-server's.

use serde_json::Value;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::quantity::Quantity;
use watchlab_engine::apiserver::metrics::{self, container_usage, system_usage};
use watchlab_engine::cluster::{Action, Cluster};

fn get(c: &mut Cluster, path: &str) -> (u16, Value) {
    let r = c.session("kubectl").request("GET", path, None, None);
    (r.code, serde_json::from_str(&r.body).unwrap_or(Value::Null))
}

/// The seed cluster a minute in: its pods have run for more than a window.
fn cluster(seed: u64) -> Cluster {
    let mut c = Cluster::with_seed(seed);
    let t = c.now().plus_secs(60);
    c.advance_to(t);
    c
}

fn items(v: &Value) -> Vec<Value> {
    v["items"].as_array().cloned().unwrap_or_default()
}

fn quantity(v: &Value) -> Quantity {
    Quantity::parse(v.as_str().unwrap_or_default()).unwrap_or_default()
}

#[test]
fn the_same_seed_and_time_give_the_same_figures() {
    let (mut a, mut b) = (cluster(7), cluster(7));
    assert_eq!(a.now(), b.now());
    let pods_a = get(&mut a, "/apis/metrics.k8s.io/v1beta1/pods");
    let pods_b = get(&mut b, "/apis/metrics.k8s.io/v1beta1/pods");
    assert_eq!(pods_a.0, 200);
    assert!(!items(&pods_a.1).is_empty(), "{}", pods_a.1);
    assert_eq!(pods_a, pods_b);
    let nodes = get(&mut a, "/apis/metrics.k8s.io/v1beta1/nodes");
    assert_eq!(nodes, get(&mut b, "/apis/metrics.k8s.io/v1beta1/nodes"));
    // Within one window the figures stand; the next window has others.
    let first = get(&mut a, "/apis/metrics.k8s.io/v1beta1/pods").1;
    let next = a.now().plus_millis(metrics::WINDOW_MS);
    a.advance_to(next);
    let later = get(&mut a, "/apis/metrics.k8s.io/v1beta1/pods").1;
    assert_ne!(
        first["items"][0]["containers"],
        later["items"][0]["containers"]
    );
}

#[test]
fn the_wobble_stays_within_ten_to_seventy_percent_of_the_requests() {
    for bucket in 0..500 {
        let u = container_usage(42, "uid-1", "app", 250, 128 << 20, bucket);
        let cpu_milli = u.cpu_nanocores / 1_000_000;
        assert!((25..=175).contains(&cpu_milli), "{bucket}: {u:?}");
        let mem = u.memory_bytes;
        assert!(
            ((128 << 20) / 10..=(128 << 20) * 7 / 10).contains(&mem),
            "{u:?}"
        );
        assert_eq!(mem % 4096, 0, "working sets are whole pages");
        assert_eq!(
            u,
            container_usage(42, "uid-1", "app", 250, 128 << 20, bucket)
        );
    }
    assert_ne!(
        container_usage(1, "uid-1", "app", 250, 128 << 20, 3),
        container_usage(2, "uid-1", "app", 250, 128 << 20, 3),
        "another seed, other figures"
    );
}

#[test]
fn objects_are_shaped_as_metrics_servers() {
    let mut c = cluster(3);
    let (code, list) = get(&mut c, "/apis/metrics.k8s.io/v1beta1/pods");
    assert_eq!(code, 200);
    assert_eq!(list["kind"], "PodMetricsList");
    assert_eq!(list["apiVersion"], "metrics.k8s.io/v1beta1");
    let pod = &items(&list)[0];
    assert_eq!(pod["kind"], "PodMetrics");
    assert!(pod["metadata"]["namespace"].is_string());
    assert!(pod["metadata"]["creationTimestamp"].is_string());
    let window = pod["window"].as_str().unwrap_or_default();
    assert!(window.ends_with('s') && window.starts_with("1"), "{window}");
    let cpu = pod["containers"][0]["usage"]["cpu"]
        .as_str()
        .unwrap_or_default();
    assert!(cpu.ends_with('n') || cpu.ends_with('u'), "{cpu}");
    let memory = pod["containers"][0]["usage"]["memory"]
        .as_str()
        .unwrap_or_default();
    assert!(memory.ends_with("Ki") || memory.ends_with("Mi"), "{memory}");
    // One pod by name; a missing one is the pod lister's 404.
    let (ns, name) = (
        pod["metadata"]["namespace"].as_str().unwrap_or_default(),
        pod["metadata"]["name"].as_str().unwrap_or_default(),
    );
    let (code, one) = get(
        &mut c,
        &format!("/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods/{name}"),
    );
    assert_eq!((code, &one), (200, pod));
    let (code, missing) = get(
        &mut c,
        "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope",
    );
    assert_eq!(code, 404);
    assert_eq!(missing["message"], "pods \"nope\" not found");
    // Read-only: no watch, no writes.
    let r = c.session("kubectl").request(
        "DELETE",
        "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/x",
        None,
        None,
    );
    assert_eq!(r.code, 405, "{}", r.body);
}

#[test]
fn a_node_uses_what_its_pods_use_plus_the_system() {
    let mut c = cluster(11);
    let seed_pods = items(&get(&mut c, "/apis/metrics.k8s.io/v1beta1/pods").1);
    let nodes = items(&get(&mut c, "/apis/metrics.k8s.io/v1beta1/nodes").1);
    assert!(!nodes.is_empty());
    for node in &nodes {
        let name = node["metadata"]["name"].as_str().unwrap_or_default();
        let on_node: Vec<&Value> = seed_pods
            .iter()
            .filter(|p| {
                let pod = c
                    .api()
                    .peek(
                        watchlab_engine::api::Kind::Pod,
                        p["metadata"]["namespace"].as_str(),
                        p["metadata"]["name"].as_str().unwrap_or_default(),
                    )
                    .map(|o| o.to_json())
                    .unwrap_or_default();
                pod.contains(&format!("\"nodeName\":\"{name}\""))
            })
            .collect();
        let mut cpu = 0;
        let mut mem = 0;
        for p in &on_node {
            for ctr in p["containers"].as_array().into_iter().flatten() {
                cpu += nanos(&ctr["usage"]["cpu"]);
                mem += quantity(&ctr["usage"]["memory"]).value() as u64;
            }
        }
        let system = system_usage_of(&c, name);
        assert_eq!(
            nanos(&node["usage"]["cpu"]),
            cpu + system.cpu_nanocores,
            "{name}"
        );
        assert_eq!(
            quantity(&node["usage"]["memory"]).value() as u64,
            mem + system.memory_bytes
        );
    }
}

/// Nanocores of a `"2445937n"` (or `"12u"`, `"3m"`) quantity.
fn nanos(v: &Value) -> u64 {
    let s = v.as_str().unwrap_or_default();
    let (n, scale) = match s.chars().last() {
        Some('n') => (&s[..s.len() - 1], 1),
        Some('u') => (&s[..s.len() - 1], 1_000),
        Some('m') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1_000_000_000),
    };
    n.parse::<u64>().unwrap_or(0) * scale
}

fn system_usage_of(c: &Cluster, node: &str) -> metrics::Usage {
    system_usage(c.api().metrics_scrape().seed, node)
}

#[test]
fn only_running_pods_on_reachable_nodes_have_metrics() {
    let mut c = cluster(5);
    // A pod just created has no figures until it has run a whole window.
    c.apply(Action::CreatePod {
        namespace: "default".into(),
        name: "fresh".into(),
        image: "nginx:1.27".into(),
        labels: vec![("app".into(), "fresh".into())],
    })
    .expect("create");
    let (code, none) = get(
        &mut c,
        "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/fresh",
    );
    assert_eq!(code, 404);
    assert_eq!(
        none["message"],
        "podmetrics.metrics.k8s.io \"default/fresh\" not found"
    );
    let t = c.now().plus_secs(45);
    c.advance_to(t);
    let (code, one) = get(
        &mut c,
        "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/fresh",
    );
    assert_eq!(code, 200, "{one}");
    // Label selectors choose among them.
    let (_, selected) = get(
        &mut c,
        "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%3Dfresh",
    );
    let names: Vec<&str> = selected["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["fresh"]);
    assert_eq!(selected["items"][0]["metadata"]["labels"]["app"], "fresh");

    // Kill the node it runs on: neither the node nor its pods have figures any more.
    let pod_json = c
        .api()
        .peek(watchlab_engine::api::Kind::Pod, Some("default"), "fresh")
        .map(|o| o.to_json())
        .unwrap_or_default();
    let v: Value = serde_json::from_str(&pod_json).unwrap_or_default();
    let node = v["spec"]["nodeName"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    c.apply(Action::KillNode(node.clone())).expect("kill");
    let (code, gone) = get(
        &mut c,
        "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/fresh",
    );
    assert_eq!(code, 404, "{gone}");
    let (code, gone) = get(
        &mut c,
        &format!("/apis/metrics.k8s.io/v1beta1/nodes/{node}"),
    );
    assert_eq!(code, 404);
    assert_eq!(
        gone["message"],
        format!("nodemetrics.metrics.k8s.io \"{node}\" not found")
    );
    let nodes = get(&mut c, "/apis/metrics.k8s.io/v1beta1/nodes").1;
    assert!(items(&nodes)
        .iter()
        .all(|n| n["metadata"]["name"] != node.as_str()));
}

#[test]
fn discovery_lists_the_aggregated_group() {
    let mut c = cluster(1);
    let (_, groups) = get(&mut c, "/apis");
    assert!(groups["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|g| g["name"] == "metrics.k8s.io"
            && g["preferredVersion"]["groupVersion"] == "metrics.k8s.io/v1beta1"));
    let (code, list) = get(&mut c, "/apis/metrics.k8s.io/v1beta1");
    assert_eq!(code, 200);
    let resources = list["resources"].as_array().cloned().unwrap_or_default();
    assert_eq!(resources.len(), 2);
    assert_eq!(resources[0]["kind"], "NodeMetrics");
    assert_eq!(resources[1]["kind"], "PodMetrics");
    assert_eq!(resources[1]["verbs"], serde_json::json!(["get", "list"]));
}
