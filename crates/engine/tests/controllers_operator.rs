//! The example Website operator on virtual time, as a user of kubectl would notice it: nothing
//! before its CustomResourceDefinition exists; then a Website becomes a Deployment it owns and
//! that Deployment's pods, an edit of the Website is followed by the Deployment, its status
//! reports the available replicas, deleting it lets the garbage collector remove what it owned,
//! and a write refused with 409 Conflict (a stale cache) is retried after a re-read.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::watch::StreamState;
use watchlab_engine::apiserver::ApiServer;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::website::{self, CRD_YAML, USER_AGENT, WEBSITE_YAML};
use watchlab_engine::controllers::{Harness, Profile, Reconciler, WebsiteOperator};

/// The example operator the control plane runs.
fn operator(h: &Harness) -> &WebsiteOperator {
    h.plane
        .reconciler::<WebsiteOperator>()
        .expect("the control plane runs the operator")
}

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const SITES: &str = "/apis/examples.watchlab.dev/v1/namespaces/default/websites";
const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn yaml(text: &str) -> Value {
    serde_yaml_ng::from_str(text).expect("manifest")
}

fn call(api: &mut ApiServer, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let ct = (method == "PATCH").then_some("application/merge-patch+json");
    let r = api.request(method, path, ct, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn cluster(seed: u64) -> Harness {
    let mut h = Harness::new(seed, &Profile::training(), &["node-a", "node-b", "node-c"]);
    h.run_for(5_000);
    h
}

fn apply_crd(h: &mut Harness) {
    let (code, body) = call(&mut h.api, "POST", CRDS, Some(yaml(CRD_YAML)));
    assert_eq!(code, 201, "{body}");
}

fn apply_site(h: &mut Harness) {
    let (code, body) = call(&mut h.api, "POST", SITES, Some(yaml(WEBSITE_YAML)));
    assert_eq!(code, 201, "{body}");
}

fn get(h: &mut Harness, path: &str) -> Option<Value> {
    match call(&mut h.api, "GET", path, None) {
        (200, v) => Some(v),
        _ => None,
    }
}

fn deployment(h: &mut Harness) -> Option<Value> {
    get(h, &format!("{DEPLOYMENTS}/blog"))
}

/// The running pods of the Website `blog` and their images.
fn running_pods(api: &ApiServer) -> Vec<String> {
    api.list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.metadata.labels.get("website").map(String::as_str) == Some("blog"))
                .filter(|p| p.status.phase == "Running" && p.metadata.deletion_timestamp.is_none())
                .filter_map(|p| p.spec.containers.first().map(|c| c.image.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn available(h: &mut Harness) -> Option<i64> {
    get(h, &format!("{SITES}/blog"))?["status"]["availableReplicas"].as_i64()
}

fn deadline(h: &Harness, secs: u64) -> Timestamp {
    h.now().plus_millis(secs * 1000)
}

/// The cluster with the definition, the Website `blog` (nginx:1.27 × 2) and its pods running.
fn running_site(seed: u64) -> Harness {
    let mut h = cluster(seed);
    apply_crd(&mut h);
    apply_site(&mut h);
    let until = deadline(&h, 60);
    let up = h.run_until_true(until, |h| {
        running_pods(&h.api).len() == 2
            && h.api
                .get(Kind::Deployment, Some("default"), "blog")
                .ok()
                .and_then(|d| d.as_deployment().map(|d| d.status.available_replicas))
                == Some(2)
    });
    assert!(up, "blog never ran 2 pods: {:?}", running_pods(&h.api));
    h.run_for(2_000);
    h
}

#[test]
fn before_its_definition_the_operator_watches_nothing_and_writes_nothing() {
    let mut h = cluster(1);
    h.run_for(30_000);
    assert!(!operator(&h).is_watching());
    assert!(operator(&h).informers().is_empty());
    assert!(!h.api.streams().any(|s| s.user() == USER_AGENT));
    assert!(!h.api.ledger().iter().any(|l| &*l.user == USER_AGENT));

    apply_crd(&mut h);
    h.run_for(1_000);
    assert!(operator(&h).is_watching());
    let watched: Vec<&str> = h
        .api
        .streams()
        .filter(|s| s.user() == USER_AGENT)
        .map(|s| s.filter().kind.resource().plural)
        .collect();
    assert_eq!(watched, ["websites", "deployments"]);
    // Its caches show in the informers view like every controller's.
    let resources: Vec<&str> = operator(&h)
        .informers()
        .iter()
        .map(|i| i.kind().resource().plural)
        .collect();
    assert_eq!(resources, ["websites", "deployments"]);

    // The definition deleted: its watches close and it goes quiet again.
    let (code, body) = call(
        &mut h.api,
        "DELETE",
        &format!("{CRDS}/websites.examples.watchlab.dev"),
        None,
    );
    assert_eq!(code, 200, "{body}");
    h.run_for(5_000);
    assert!(!operator(&h).is_watching());
    assert!(!h
        .api
        .streams()
        .any(|s| s.user() == USER_AGENT && s.state() == StreamState::Open));
}

#[test]
fn a_website_becomes_a_deployment_it_owns_and_pods() {
    let mut h = running_site(2);
    let d = deployment(&mut h).expect("deployment blog");
    let site = get(&mut h, &format!("{SITES}/blog")).expect("website");
    assert_eq!(d["spec"]["replicas"], 2);
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.27"
    );
    assert_eq!(
        d["metadata"]["ownerReferences"],
        json!([{"apiVersion": "examples.watchlab.dev/v1", "kind": "Website", "name": "blog",
            "uid": site["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true}])
    );
    assert_eq!(running_pods(&h.api), ["nginx:1.27", "nginx:1.27"]);
    assert_eq!(site["status"], json!({"availableReplicas": 2}));
    // The operator's writes are in the ledger under its name.
    let writes: Vec<(&str, &str)> = h
        .api
        .ledger()
        .iter()
        .filter(|l| &*l.user == USER_AGENT && &*l.resource != "events")
        .map(|l| (l.verb, &*l.resource))
        .collect();
    assert!(writes.contains(&("create", "deployments")), "{writes:?}");
    assert!(
        writes.contains(&("update", "websites/status")),
        "{writes:?}"
    );
    // And its Synced event, as sample-controller records it.
    let events = h
        .api
        .list(Kind::Event, Some("default"), &Default::default())
        .map(|l| l.items)
        .unwrap_or_default();
    assert!(events.iter().any(|e| {
        let v = e.to_json_value();
        v["reason"] == website::SUCCESS_SYNCED
            && v["involvedObject"]["kind"] == "Website"
            && v["message"] == website::MESSAGE_RESOURCE_SYNCED
    }));
}

#[test]
fn editing_the_website_is_followed_by_its_deployment() {
    let mut h = running_site(3);
    let (code, body) = call(
        &mut h.api,
        "PATCH",
        &format!("{SITES}/blog"),
        Some(json!({"spec": {"replicas": 3}})),
    );
    assert_eq!(code, 200, "{body}");
    let until = deadline(&h, 60);
    assert!(h.run_until_true(until, |h| running_pods(&h.api).len() == 3));
    h.run_for(2_000);
    assert_eq!(
        deployment(&mut h).expect("deployment")["spec"]["replicas"],
        3
    );
    assert_eq!(available(&mut h), Some(3));

    // A new image rolls the Deployment over to it.
    let (code, _) = call(
        &mut h.api,
        "PATCH",
        &format!("{SITES}/blog"),
        Some(json!({"spec": {"image": "nginx:1.28", "replicas": 1}})),
    );
    assert_eq!(code, 200);
    let until = deadline(&h, 120);
    assert!(h.run_until_true(until, |h| running_pods(&h.api) == ["nginx:1.28"]));
    h.run_for(2_000);
    assert_eq!(available(&mut h), Some(1));
}

#[test]
fn deleting_the_website_lets_the_garbage_collector_remove_what_it_owned() {
    let mut h = running_site(4);
    let (code, body) = call(&mut h.api, "DELETE", &format!("{SITES}/blog"), None);
    assert_eq!(code, 200, "{body}");
    let until = deadline(&h, 60);
    let gone = h.run_until_true(until, |h| {
        let left = |k: Kind| {
            h.api
                .list(k, Some("default"), &Default::default())
                .map(|l| l.items.len())
                .unwrap_or(0)
        };
        left(Kind::Deployment) == 0 && left(Kind::ReplicaSet) == 0 && left(Kind::Pod) == 0
    });
    assert!(gone, "the Deployment, ReplicaSet or pods stayed");
    // Collected by the garbage collector, not by the operator.
    let deleter = h
        .api
        .ledger()
        .iter()
        .find(|l| l.verb == "delete" && &*l.resource == "deployments")
        .map(|l| l.user.to_string());
    assert_eq!(deleter.as_deref(), Some("generic-garbage-collector"));
}

#[test]
fn a_write_refused_with_409_is_retried_after_a_reread() {
    let mut h = running_site(5);
    assert_eq!(operator(&h).conflicts(), 0);
    // The learner edits the Website; before the operator hears of it, someone else writes the
    // Deployment: when the edit is delivered, the operator's Deployment cache is stale.
    let (code, _) = call(
        &mut h.api,
        "PATCH",
        &format!("{SITES}/blog"),
        Some(json!({"spec": {"replicas": 3}})),
    );
    assert_eq!(code, 200);
    let now = h.now();
    h.run_until(now);
    let delivery = operator(&h).informers()[0]
        .next_wakeup()
        .expect("the edit on its way to the cache");
    h.run_until(Timestamp::from_millis(delivery.as_millis() - 1));
    let (code, _) = call(
        &mut h.api,
        "PATCH",
        &format!("{DEPLOYMENTS}/blog"),
        Some(json!({"metadata": {"annotations": {"team": "web"}}})),
    );
    assert_eq!(code, 200);
    h.run_until(delivery);
    assert!(operator(&h).conflicts() >= 1, "no 409 at {delivery:?}");

    // Requeued with back-off, it reads the cache again and converges, keeping the other write.
    let until = deadline(&h, 60);
    assert!(h.run_until_true(until, |h| running_pods(&h.api).len() == 3));
    h.run_for(2_000);
    let d = deployment(&mut h).expect("deployment");
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["metadata"]["annotations"]["team"], "web");
    assert_eq!(available(&mut h), Some(3));
}

#[test]
fn a_deployment_it_does_not_own_is_left_alone() {
    let mut h = cluster(6);
    apply_crd(&mut h);
    let other = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "blog", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "other"}},
            "template": {"metadata": {"labels": {"app": "other"}},
                "spec": {"containers": [{"name": "other", "image": "httpd:2.4"}]}}}});
    let (code, body) = call(&mut h.api, "POST", DEPLOYMENTS, Some(other));
    assert_eq!(code, 201, "{body}");
    apply_site(&mut h);
    h.run_for(20_000);
    let d = deployment(&mut h).expect("deployment");
    assert_eq!(d["spec"]["replicas"], 1);
    assert_eq!(d["metadata"]["ownerReferences"], Value::Null);
    let events = h
        .api
        .list(Kind::Event, Some("default"), &Default::default())
        .map(|l| l.items)
        .unwrap_or_default();
    let warned = events.iter().map(|e| e.to_json_value()).any(|v| {
        v["reason"] == website::ERR_RESOURCE_EXISTS
            && v["message"] == "Resource \"blog\" already exists and is not managed by Website"
    });
    assert!(warned);
}
