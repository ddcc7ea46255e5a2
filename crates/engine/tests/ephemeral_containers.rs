//! `pods/ephemeralcontainers` on the engine with its kubelets, end to end: a debug container
//! added through the subresource is pulled, started and reported in
//! `status.ephemeralContainerStatuses` (never restarted, never ready, the pod's phase and
//! readiness untouched), its log read with `container=`; existing ones can be neither changed
//! nor removed, names clash across every container list, the fields an ephemeral container may
//! not set are refused, and neither a create nor an ordinary update can set them — each refusal
//! in the real server's words, with nothing written.

use serde_json::{json, Value};
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::behaviour::ANNOTATION;
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Kind, Object, ObjectMeta};
use watchlab_engine::controllers::{Harness, Profile};

const PODS: &str = "/api/v1/namespaces/default/pods";
const SMP: &str = "application/strategic-merge-patch+json";

/// A cluster with one node and a running pod `web` (one container `app`, `behaviour`).
fn cluster_with_web(behaviour: &str) -> Harness {
    let mut h = Harness::new(11, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    let mut meta = ObjectMeta::named("default", "web");
    if !behaviour.is_empty() {
        meta.annotations
            .insert(ANNOTATION.to_string(), behaviour.to_string());
    }
    let pod = Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![Container {
                name: "app".into(),
                image: "nginx:1.27".into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    };
    h.api
        .create("kubectl", Object::Pod(pod))
        .expect("create pod");
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| pod_of(h).status.phase == "Running"));
    h
}

fn pod_of(h: &Harness) -> Pod {
    h.api
        .get(Kind::Pod, Some("default"), "web")
        .ok()
        .and_then(|o| o.as_pod().cloned())
        .expect("pod web")
}

fn rv(h: &Harness) -> String {
    pod_of(h).metadata.resource_version
}

/// One request as `kubectl`: (code, body as JSON).
fn call(h: &mut Harness, method: &str, path: &str, ct: Option<&str>, body: &Value) -> (u16, Value) {
    let text = body.to_string();
    let r = h.api.handle("kubectl", method, path, ct, Some(&text));
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body));
    (r.code, v)
}

/// What `kubectl debug web --image=IMAGE -c NAME` sends: a strategic merge patch of the
/// subresource adding one ephemeral container.
fn add(h: &mut Harness, container: Value) -> (u16, Value) {
    let patch = json!({"spec": {"ephemeralContainers": [container]}});
    let path = format!("{PODS}/web/ephemeralcontainers");
    call(h, "PATCH", &path, Some(SMP), &patch)
}

fn debugger(name: &str) -> Value {
    json!({"name": name, "image": "busybox", "resources": {}, "terminationMessagePolicy": "File"})
}

fn message(v: &Value) -> &str {
    v["message"].as_str().unwrap_or_default()
}

fn event_messages(h: &Harness) -> Vec<String> {
    let mut evs: Vec<(u64, String)> = h
        .api
        .list(Kind::Event, Some("default"), &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| match &**o {
                    Object::Event(e) if e.involved_object.name == "web" => Some((
                        e.metadata.resource_version.parse().unwrap_or(0),
                        format!("{} {}", e.reason, e.message),
                    )),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    evs.sort();
    evs.into_iter().map(|(_, m)| m).collect()
}

#[test]
fn an_added_ephemeral_container_is_pulled_started_reported_and_logged() {
    let mut h = cluster_with_web("");
    let (code, pod) = add(&mut h, debugger("debugger"));
    assert_eq!(code, 200, "{pod}");
    // The answer is the whole pod, the container defaulted as any container is.
    assert_eq!(pod["kind"], "Pod");
    let ec = &pod["spec"]["ephemeralContainers"][0];
    assert_eq!(ec["name"], "debugger");
    assert_eq!(ec["imagePullPolicy"], "Always");
    assert_eq!(ec["terminationMessagePolicy"], "File");
    let managers = pod["metadata"]["managedFields"].as_array().cloned();
    assert!(
        managers
            .unwrap_or_default()
            .iter()
            .any(|m| m["subresource"] == "ephemeralcontainers" && m["manager"] == "kubectl"),
        "{}",
        pod["metadata"]
    );
    // The kubelet pulls the image (not on the node), then creates and starts it.
    h.run_for(200);
    let waiting = pod_of(&h).status.ephemeral_container_statuses.to_vec();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        waiting[0].state.waiting.as_ref().map(|w| w.reason.as_str()),
        Some("ContainerCreating")
    );
    let until = h.now().plus_secs(30);
    let started = |h: &Harness| {
        pod_of(h)
            .status
            .ephemeral_container_statuses
            .first()
            .is_some_and(|s| s.state.running.is_some())
    };
    assert!(h.run_until_true(until, started));
    let p = pod_of(&h);
    let s = &p.status.ephemeral_container_statuses[0];
    assert_eq!((s.name.as_str(), s.image.as_str()), ("debugger", "busybox"));
    assert!(!s.ready && s.restart_count == 0 && s.started.is_none());
    assert!(s.container_id.starts_with("containerd://"));
    // The pod is as it was: Running, ready, one container status.
    assert_eq!(p.status.phase, "Running");
    assert_eq!(p.condition("Ready").map(|c| &*c.status), Some("True"));
    assert_eq!(p.status.container_statuses.len(), 1);
    let events = event_messages(&h);
    let tail: Vec<&str> = events
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(tail[0], "Pulling Pulling image \"busybox\"");
    assert!(tail[1].starts_with("Pulled Successfully pulled image \"busybox\" in "));
    assert_eq!(
        tail[2..],
        [
            "Created Created container: debugger",
            "Started Started container debugger"
        ]
    );
    // Its log, by name; the regular container stays the default.
    let log = |h: &mut Harness, q: &str| {
        let r = h
            .api
            .handle("kubectl", "GET", &format!("{PODS}/web/log{q}"), None, None);
        (r.code, r.body)
    };
    assert_eq!(
        log(&mut h, "?container=debugger"),
        (200, "busybox: starting\n".into())
    );
    assert!(log(&mut h, "").1.contains("nginx"));
    let (code, body) = log(&mut h, "?container=nope");
    assert_eq!(code, 400);
    assert!(
        body.contains("container nope is not valid for pod web"),
        "{body}"
    );
    // GET on the subresource answers the pod.
    let (code, got) = call(
        &mut h,
        "GET",
        &format!("{PODS}/web/ephemeralcontainers"),
        None,
        &Value::Null,
    );
    assert_eq!((code, got["kind"].as_str()), (200, Some("Pod")));
}

#[test]
fn an_ephemeral_container_is_never_restarted_and_stops_with_the_pod() {
    let mut h = cluster_with_web("crash-after=5s");
    assert_eq!(add(&mut h, debugger("debugger")).0, 200);
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| {
        pod_of(h)
            .status
            .ephemeral_container_statuses
            .first()
            .is_some_and(|s| s.state.running.is_some())
    }));
    let first = pod_of(&h).status.ephemeral_container_statuses[0].clone();
    h.run_for(60_000);
    let p = pod_of(&h);
    assert!(
        p.status.container_statuses[0].restart_count >= 1,
        "the app crash-loops"
    );
    assert_eq!(
        p.status.ephemeral_container_statuses[0], first,
        "the debugger runs on"
    );
    h.api
        .delete(
            "kubectl",
            Kind::Pod,
            Some("default"),
            "web",
            &Default::default(),
        )
        .expect("delete");
    h.run_for(1_000);
    assert!(event_messages(&h).contains(&"Killing Stopping container debugger".to_string()));
}

#[test]
fn existing_ephemeral_containers_can_be_neither_changed_nor_removed() {
    let mut h = cluster_with_web("");
    assert_eq!(add(&mut h, debugger("debugger")).0, 200);
    let before = rv(&h);
    let path = format!("{PODS}/web/ephemeralcontainers");
    let mut pod = serde_json::to_value(pod_of(&h)).expect("json");
    pod["spec"]["ephemeralContainers"][0]["image"] = json!("alpine");
    let (code, status) = call(&mut h, "PUT", &path, Some("application/json"), &pod);
    assert_eq!(code, 422);
    assert_eq!(
        message(&status),
        "Pod \"web\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be changed\n"
    );
    let remove = json!([{"op": "remove", "path": "/spec/ephemeralContainers/0"}]);
    let (code, status) = call(
        &mut h,
        "PATCH",
        &path,
        Some("application/json-patch+json"),
        &remove,
    );
    assert_eq!(code, 422);
    assert_eq!(
        message(&status),
        "Pod \"web\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be removed\n"
    );
    assert_eq!(rv(&h), before, "nothing written");
    // A merge patch replaces the list: the one there must be sent again.
    let merge = json!({"spec": {"ephemeralContainers": [debugger("second")]}});
    let (code, _) = call(
        &mut h,
        "PATCH",
        &path,
        Some("application/merge-patch+json"),
        &merge,
    );
    assert_eq!(code, 422);
    let both = json!({"spec": {"ephemeralContainers": [pod_of(&h).spec.ephemeral_containers[0], debugger("second")]}});
    let (code, out) = call(
        &mut h,
        "PATCH",
        &path,
        Some("application/merge-patch+json"),
        &both,
    );
    assert_eq!(code, 200, "{out}");
    assert_eq!(pod_of(&h).spec.ephemeral_containers.len(), 2);
}

#[test]
fn clashing_names_forbidden_fields_and_unknown_targets_are_refused() {
    let mut h = cluster_with_web("");
    let before = rv(&h);
    let (code, status) = add(&mut h, debugger("app"));
    assert_eq!(code, 422);
    assert_eq!(
        message(&status),
        "Pod \"web\" is invalid: spec.ephemeralContainers[0].name: Duplicate value: \"app\""
    );
    let mut busy = debugger("busy");
    busy["ports"] = json!([{"containerPort": 80}]);
    busy["resources"] = json!({"limits": {"cpu": "1"}});
    busy["lifecycle"] = json!({"preStop": {"exec": {"command": ["true"]}}});
    busy["targetContainerName"] = json!("nope");
    let (code, status) = add(&mut h, busy);
    assert_eq!(code, 422);
    let f = "spec.ephemeralContainers[0]";
    assert_eq!(
        message(&status),
        format!(
            "Pod \"web\" is invalid: [{f}.targetContainerName: Not found: \"nope\", \
             {f}.ports: Forbidden: cannot be set for an Ephemeral Container, \
             {f}.resources: Forbidden: cannot be set for an Ephemeral Container, \
             {f}.lifecycle: Forbidden: cannot be set for an Ephemeral Container]"
        )
    );
    let mut probed = debugger("probed");
    probed["readinessProbe"] = json!({"tcpSocket": {"port": 80}});
    let (code, status) = add(&mut h, probed);
    assert_eq!(code, 422);
    assert!(message(&status).ends_with(
        "spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container"
    ));
    assert_eq!(rv(&h), before, "nothing written");
    // Targeting the pod's container is fine.
    let mut targeted = debugger("targeted");
    targeted["targetContainerName"] = json!("app");
    assert_eq!(add(&mut h, targeted).0, 200);
}

#[test]
fn only_the_subresource_writes_ephemeral_containers_and_only_them() {
    let mut h = cluster_with_web("");
    // Through the subresource, everything else the body changes is ignored.
    let patch = json!({
        "metadata": {"labels": {"sneaky": "yes"}},
        "spec": {"ephemeralContainers": [debugger("debugger")], "activeDeadlineSeconds": 5}
    });
    let path = format!("{PODS}/web/ephemeralcontainers");
    let (code, out) = call(&mut h, "PATCH", &path, Some(SMP), &patch);
    assert_eq!(code, 200, "{out}");
    let p = pod_of(&h);
    assert!(p.metadata.labels.get("sneaky").is_none());
    assert_eq!(p.spec.ephemeral_containers.len(), 1);
    // An ordinary update may not touch them: the pod update rule refuses it.
    let before = rv(&h);
    let mut pod = serde_json::to_value(&p).expect("json");
    pod["spec"]["ephemeralContainers"]
        .as_array_mut()
        .expect("list")
        .push(debugger("more"));
    let (code, status) = call(
        &mut h,
        "PUT",
        &format!("{PODS}/web"),
        Some("application/json"),
        &pod,
    );
    assert_eq!(code, 422);
    assert!(
        message(&status).starts_with(
            "Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than"
        ),
        "{status}"
    );
    let (code, _) = call(
        &mut h,
        "PATCH",
        &format!("{PODS}/web"),
        Some(SMP),
        &json!({"spec": {"ephemeralContainers": [debugger("more")]}}),
    );
    assert_eq!(code, 422);
    assert_eq!(rv(&h), before, "nothing written");
    // Nor may a create, nor a template.
    let new_pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "born"},
        "spec": {"containers": [{"name": "a", "image": "nginx"}], "ephemeralContainers": [debugger("d")]}});
    let (code, status) = call(&mut h, "POST", PODS, Some("application/json"), &new_pod);
    assert_eq!(code, 422);
    assert_eq!(
        message(&status),
        "Pod \"born\" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create"
    );
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
        "spec": {"containers": [{"name": "a", "image": "nginx"}], "ephemeralContainers": [debugger("d")]}}}});
    let (code, status) = call(
        &mut h,
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        Some("application/json"),
        &deploy,
    );
    assert_eq!(code, 422);
    assert!(
        message(&status).contains("spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"),
        "{status}"
    );
    // No server-side apply through it (watchlab: DIFFERENCES.md).
    let (code, _) = call(
        &mut h,
        "PATCH",
        &format!("{PODS}/web/ephemeralcontainers?fieldManager=x"),
        Some("application/apply-patch+yaml"),
        &json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}}),
    );
    assert_eq!(code, 405);
    // A PUT to the subresource of a pod that does not exist creates nothing.
    let (code, _) = call(
        &mut h,
        "PUT",
        &format!("{PODS}/ghost/ephemeralcontainers"),
        Some("application/json"),
        &json!({"metadata": {"name": "ghost"}, "spec": {"containers": [{"name": "a", "image": "b"}]}}),
    );
    assert_eq!(code, 404);
}

#[test]
fn discovery_lists_the_subresource() {
    let mut h = Harness::new(1, &Profile::training(), &["node-a"]);
    let r = h.api.handle("kubectl", "GET", "/api/v1", None, None);
    let doc: Value = serde_json::from_str(&r.body).expect("json");
    let entry = doc["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == "pods/ephemeralcontainers")
        .cloned()
        .expect("pods/ephemeralcontainers listed");
    assert_eq!(entry["kind"], "Pod");
    assert_eq!(entry["verbs"], json!(["get", "patch", "update"]));
}
