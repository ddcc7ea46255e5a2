//! Persistent volumes as a learner meets them, end to end on virtual time: a claim of the
//! default class `standard` (kind's: local-path, WaitForFirstConsumer) waits for its first pod,
//! the scheduler picks the pod's node and writes it on the claim, the PV controller hands the
//! claim to the local-path provisioner, which makes `pvc-<uid>` on that node, the two are
//! bound both ways and the pod runs; a second pod of the claim goes to the same node; an
//! `Immediate` class binds a hand-made volume with no pod at all; the scheduler's messages for
//! a missing claim, an unbound immediate claim and a volume no node can reach; a claim deleted
//! while a pod uses it stays `Terminating` until the pod goes, then it and its volume go
//! (`Delete`), or the volume stays `Released` (`Retain`); DefaultStorageClass admission; and
//! `kubectl get pvc,pv` through the Table.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::controllers::volume::provisioner;
use watchlab_engine::controllers::{Harness, Profile};

const PVCS: &str = "/api/v1/namespaces/default/persistentvolumeclaims";
const PVS: &str = "/api/v1/persistentvolumes";
const PODS: &str = "/api/v1/namespaces/default/pods";
const CLASSES: &str = "/apis/storage.k8s.io/v1/storageclasses";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

fn call(h: &mut Harness, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let r = h.api.request(method, path, None, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn ok(h: &mut Harness, method: &str, path: &str, body: Option<Value>) -> Value {
    let (code, v) = call(h, method, path, body);
    assert!((200..300).contains(&code), "{method} {path}: {code} {v}");
    v
}

fn cluster() -> Harness {
    let mut h = Harness::new(11, &Profile::training(), &["node-a", "node-b", "node-c"]);
    h.run_for(2_000);
    h
}

fn claim(name: &str, class: Option<&str>, size: &str) -> Value {
    let mut c = json!({"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": size}}}});
    if let Some(class) = class {
        c["spec"]["storageClassName"] = json!(class);
    }
    c
}

fn pod(name: &str, claim: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {
        "containers": [{"name": "db", "image": "postgres:16",
            "volumeMounts": [{"name": "data", "mountPath": "/var/lib/postgresql/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]}})
}

fn get(h: &mut Harness, path: &str) -> Value {
    ok(h, "GET", path, None)
}

fn exists(h: &Harness, kind: Kind, ns: Option<&str>, name: &str) -> bool {
    h.api.peek(kind, ns, name).is_some()
}

fn phase_of(h: &Harness, name: &str) -> String {
    h.api
        .peek(Kind::Pod, Some("default"), name)
        .and_then(|o| o.as_pod().map(|p| p.status.phase.to_string()))
        .unwrap_or_default()
}

/// Runs until the pod is Running (at most a minute).
fn until_running(h: &mut Harness, name: &str) {
    let deadline = h.now().plus_secs(60);
    let running = h.run_until_true(deadline, |h| phase_of(h, name) == "Running");
    assert!(running, "{name} never ran: {}", phase_of(h, name));
}

/// `(reason, source component, message)` of the Events about `name`, oldest first.
fn events_about(h: &Harness, name: &str) -> Vec<(String, String, String)> {
    let mut events: Vec<_> = h
        .api
        .peek_all(Kind::Event)
        .iter()
        .filter_map(|o| match &**o {
            Object::Event(e) if e.involved_object.name == name => Some((
                e.first_timestamp,
                e.reason.to_string(),
                e.source.component.to_string(),
                e.message.to_string(),
            )),
            _ => None,
        })
        .collect();
    events.sort_by_key(|e| e.0);
    events.into_iter().map(|(_, r, s, m)| (r, s, m)).collect()
}

fn reasons(h: &Harness, name: &str) -> Vec<String> {
    events_about(h, name)
        .into_iter()
        .map(|(r, _, _)| r)
        .collect()
}

fn scheduled_message(h: &mut Harness, pod: &str) -> String {
    let p = get(h, &format!("{PODS}/{pod}"));
    p["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "PodScheduled")
        .map(|c| c["message"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// A claim `data` of the default class and a pod `db` using it, run until the pod is Running.
fn running_db() -> Harness {
    let mut h = cluster();
    ok(&mut h, "POST", PVCS, Some(claim("data", None, "1Gi")));
    h.run_for(3_000);
    ok(&mut h, "POST", PODS, Some(pod("db", "data")));
    until_running(&mut h, "db");
    h
}

#[test]
fn a_pod_with_a_default_class_claim_gets_a_local_volume_on_its_node_and_runs() {
    let mut h = cluster();
    let created = ok(&mut h, "POST", PVCS, Some(claim("data", None, "1Gi")));
    assert_eq!(created["spec"]["storageClassName"], "standard", "{created}");
    assert_eq!(
        created["metadata"]["finalizers"],
        json!(["kubernetes.io/pvc-protection"])
    );
    // No pod yet: the claim waits for its first consumer, and nothing is provisioned.
    h.run_for(3_000);
    let c = get(&mut h, &format!("{PVCS}/data"));
    assert_eq!(c["status"]["phase"], "Pending");
    assert_eq!(
        events_about(&h, "data").first().cloned(),
        Some((
            "WaitForFirstConsumer".into(),
            "persistentvolume-controller".into(),
            "waiting for first consumer to be created before binding".into()
        ))
    );
    assert!(h.api.peek_all(Kind::PersistentVolume).is_empty());

    ok(&mut h, "POST", PODS, Some(pod("db", "data")));
    until_running(&mut h, "db");
    let p = get(&mut h, &format!("{PODS}/db"));
    let node = p["spec"]["nodeName"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(node.starts_with("node-"), "{p}");

    let c = get(&mut h, &format!("{PVCS}/data"));
    let uid = c["metadata"]["uid"].as_str().unwrap_or_default();
    let volume = format!("pvc-{uid}");
    let a = &c["metadata"]["annotations"];
    assert_eq!(
        a["volume.kubernetes.io/selected-node"],
        node.as_str(),
        "{c}"
    );
    assert_eq!(
        a["volume.kubernetes.io/storage-provisioner"],
        "rancher.io/local-path"
    );
    assert_eq!(
        a["volume.beta.kubernetes.io/storage-provisioner"],
        "rancher.io/local-path"
    );
    assert_eq!(a["pv.kubernetes.io/bind-completed"], "yes");
    assert_eq!(a["pv.kubernetes.io/bound-by-controller"], "yes");
    assert_eq!(c["spec"]["volumeName"], volume.as_str());
    assert_eq!(
        c["status"],
        json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}})
    );

    let pv = get(&mut h, &format!("{PVS}/{volume}"));
    assert_eq!(pv["status"]["phase"], "Bound", "{pv}");
    assert_eq!(
        pv["metadata"]["finalizers"],
        json!(["kubernetes.io/pv-protection"])
    );
    assert_eq!(
        pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"],
        "rancher.io/local-path"
    );
    let spec = &pv["spec"];
    assert_eq!(
        (
            &spec["claimRef"]["name"],
            &spec["claimRef"]["namespace"],
            &spec["claimRef"]["uid"]
        ),
        (&json!("data"), &json!("default"), &json!(uid))
    );
    assert_eq!(spec["capacity"]["storage"], "1Gi");
    assert_eq!(spec["persistentVolumeReclaimPolicy"], "Delete");
    assert_eq!(spec["storageClassName"], "standard");
    assert_eq!(
        spec["hostPath"]["path"],
        format!("/var/local-path-provisioner/{volume}_default_data")
    );
    assert_eq!(
        spec["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0],
        json!({"key": "kubernetes.io/hostname", "operator": "In", "values": [node]})
    );

    // The claim's story, by who told it.
    let story: Vec<(String, String)> = events_about(&h, "data")
        .into_iter()
        .map(|(r, s, _)| (r, s))
        .collect();
    let controller = "persistentvolume-controller".to_string();
    let local_path = provisioner::IDENTITY.to_string();
    for step in [
        ("WaitForFirstConsumer".to_string(), controller.clone()),
        ("ExternalProvisioning".to_string(), controller),
        ("Provisioning".to_string(), local_path.clone()),
        ("ProvisioningSucceeded".to_string(), local_path),
    ] {
        assert!(story.contains(&step), "{step:?} missing from {story:?}");
    }
    let succeeded = events_about(&h, "data")
        .into_iter()
        .find(|(r, _, _)| r == "ProvisioningSucceeded")
        .map(|(_, _, m)| m);
    assert_eq!(
        succeeded,
        Some(format!("Successfully provisioned volume {volume}"))
    );

    // A second pod of the same claim can only go where the volume is.
    ok(&mut h, "POST", PODS, Some(pod("db-2", "data")));
    until_running(&mut h, "db-2");
    let p2 = get(&mut h, &format!("{PODS}/db-2"));
    assert_eq!(p2["spec"]["nodeName"], node.as_str());
    assert_eq!(h.api.peek_all(Kind::PersistentVolume).len(), 1);
}

#[test]
fn an_immediate_class_binds_the_smallest_fitting_volume_without_a_pod_and_retain_keeps_it() {
    let mut h = cluster();
    ok(
        &mut h,
        "POST",
        CLASSES,
        Some(
            json!({"metadata": {"name": "manual"}, "provisioner": "kubernetes.io/no-provisioner",
            "reclaimPolicy": "Retain", "volumeBindingMode": "Immediate"}),
        ),
    );
    for (name, size) in [("big", "10Gi"), ("small", "1Gi"), ("right", "2Gi")] {
        let pv = json!({"metadata": {"name": name}, "spec": {"capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce"], "storageClassName": "manual",
            "persistentVolumeReclaimPolicy": "Retain", "hostPath": {"path": format!("/data/{name}")}}});
        let created = ok(&mut h, "POST", PVS, Some(pv));
        assert_eq!(created["status"]["phase"], "Pending");
    }
    h.run_for(2_000);
    for name in ["big", "small", "right"] {
        let pv = get(&mut h, &format!("{PVS}/{name}"));
        assert_eq!(pv["status"]["phase"], "Available", "{pv}");
    }
    ok(
        &mut h,
        "POST",
        PVCS,
        Some(claim("logs", Some("manual"), "2Gi")),
    );
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| {
        h.api
            .peek(Kind::PersistentVolumeClaim, Some("default"), "logs")
            .and_then(|o| {
                o.as_persistent_volume_claim()
                    .map(|c| c.status.phase == "Bound")
            })
            .unwrap_or(false)
    }));
    let c = get(&mut h, &format!("{PVCS}/logs"));
    assert_eq!(c["spec"]["volumeName"], "right", "{c}");
    assert_eq!(c["status"]["capacity"]["storage"], "2Gi");
    let right = get(&mut h, &format!("{PVS}/right"));
    assert_eq!(right["status"]["phase"], "Bound");
    assert_eq!(
        right["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    assert_eq!(
        get(&mut h, &format!("{PVS}/big"))["status"]["phase"],
        "Available"
    );

    // Nothing uses the claim: deleting it frees the volume, which Retain keeps, Released.
    ok(&mut h, "DELETE", &format!("{PVCS}/logs"), None);
    h.run_for(30_000);
    assert!(!exists(
        &h,
        Kind::PersistentVolumeClaim,
        Some("default"),
        "logs"
    ));
    let right = get(&mut h, &format!("{PVS}/right"));
    assert_eq!(right["status"]["phase"], "Released", "{right}");
    assert_eq!(right["spec"]["claimRef"]["name"], "logs");
    assert!(right["metadata"].get("deletionTimestamp").is_none());
}

#[test]
fn a_hand_made_local_volume_is_bound_when_its_first_pod_is_scheduled_to_its_node() {
    let mut h = cluster();
    ok(
        &mut h,
        "POST",
        CLASSES,
        Some(json!({"metadata": {"name": "local-storage"},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer"})),
    );
    let pv = json!({"metadata": {"name": "local-b"}, "spec": {"capacity": {"storage": "5Gi"},
        "accessModes": ["ReadWriteOnce"], "storageClassName": "local-storage",
        "hostPath": {"path": "/mnt/disks/ssd1"},
        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-b"]}]}]}}}});
    ok(&mut h, "POST", PVS, Some(pv));
    ok(
        &mut h,
        "POST",
        PVCS,
        Some(claim("cache", Some("local-storage"), "1Gi")),
    );
    h.run_for(3_000);
    assert_eq!(
        get(&mut h, &format!("{PVCS}/cache"))["status"]["phase"],
        "Pending"
    );
    assert_eq!(
        get(&mut h, &format!("{PVS}/local-b"))["status"]["phase"],
        "Available"
    );
    // The scheduler finds the volume on node-b only, and binds it there before the pod.
    ok(&mut h, "POST", PODS, Some(pod("app", "cache")));
    until_running(&mut h, "app");
    assert_eq!(
        get(&mut h, &format!("{PODS}/app"))["spec"]["nodeName"],
        "node-b"
    );
    let c = get(&mut h, &format!("{PVCS}/cache"));
    assert_eq!(c["spec"]["volumeName"], "local-b", "{c}");
    assert_eq!(c["status"]["capacity"]["storage"], "5Gi");
    assert!(c["metadata"]["annotations"]
        .get("volume.kubernetes.io/selected-node")
        .is_none());
    let pv = get(&mut h, &format!("{PVS}/local-b"));
    assert_eq!(pv["status"]["phase"], "Bound");
    assert_eq!(pv["spec"]["claimRef"]["name"], "cache");
    assert_eq!(
        pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    assert!(
        h.api.peek_all(Kind::PersistentVolume).len() == 1,
        "nothing provisioned"
    );
}

#[test]
fn a_missing_claim_keeps_its_pod_pending_until_the_claim_is_created() {
    let mut h = cluster();
    ok(&mut h, "POST", PODS, Some(pod("db", "data")));
    h.run_for(5_000);
    assert_eq!(phase_of(&h, "db"), "Pending");
    assert_eq!(
        scheduled_message(&mut h, "db"),
        "0/3 nodes are available: persistentvolumeclaim \"data\" not found. preemption: 0/3 \
         nodes are available: 3 Preemption is not helpful for scheduling."
    );
    assert!(reasons(&h, "db").contains(&"FailedScheduling".to_string()));
    // The claim arrives: the pod is tried again at once, and runs.
    ok(&mut h, "POST", PVCS, Some(claim("data", None, "1Gi")));
    until_running(&mut h, "db");
}

#[test]
fn an_unbound_immediate_claim_and_an_unreachable_volume_keep_pods_pending() {
    let mut h = cluster();
    ok(
        &mut h,
        "POST",
        CLASSES,
        Some(json!({"metadata": {"name": "remote"}, "provisioner": "example.com/remote"})),
    );
    ok(
        &mut h,
        "POST",
        PVCS,
        Some(claim("shared", Some("remote"), "1Gi")),
    );
    ok(&mut h, "POST", PODS, Some(pod("web", "shared")));
    h.run_for(5_000);
    assert_eq!(
        scheduled_message(&mut h, "web"),
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. \
         preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
    // Nobody provisions `example.com/remote`: the PV controller says so, again and again.
    let c = get(&mut h, &format!("{PVCS}/shared"));
    assert_eq!(
        c["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"],
        "example.com/remote"
    );
    assert!(events_about(&h, "shared").iter().any(|(r, _, m)| r == "ExternalProvisioning"
        && m.starts_with("Waiting for a volume to be created either by the external provisioner 'example.com/remote'")));

    // A volume bound to a claim but reachable from no node.
    let pv = json!({"metadata": {"name": "ssd"}, "spec": {"capacity": {"storage": "1Gi"},
        "accessModes": ["ReadWriteOnce"], "storageClassName": "",
        "claimRef": {"namespace": "default", "name": "fast"},
        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "example.com/disk", "operator": "In", "values": ["ssd"]}]}]}}}});
    ok(&mut h, "POST", PVS, Some(pv));
    ok(&mut h, "POST", PVCS, Some(claim("fast", Some(""), "1Gi")));
    // Within the PV controller's 15 s resync at the latest.
    let deadline = h.now().plus_secs(20);
    assert!(h.run_until_true(deadline, |h| {
        h.api
            .peek(Kind::PersistentVolumeClaim, Some("default"), "fast")
            .and_then(|o| {
                o.as_persistent_volume_claim()
                    .map(|c| c.spec.volume_name == "ssd")
            })
            .unwrap_or(false)
    }));
    ok(&mut h, "POST", PODS, Some(pod("cache", "fast")));
    h.run_for(5_000);
    assert_eq!(
        scheduled_message(&mut h, "cache"),
        "0/3 nodes are available: 3 node(s) had volume node affinity conflict. preemption: 0/3 \
         nodes are available: 3 Preemption is not helpful for scheduling."
    );
}

#[test]
fn a_claim_deleted_while_used_stays_terminating_until_its_pod_goes_then_it_and_its_volume_go() {
    let mut h = running_db();
    let c = get(&mut h, &format!("{PVCS}/data"));
    let volume = c["spec"]["volumeName"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let deleted = ok(&mut h, "DELETE", &format!("{PVCS}/data"), None);
    assert!(
        deleted["metadata"]["deletionTimestamp"].is_string(),
        "{deleted}"
    );
    h.run_for(30_000);
    let c = get(&mut h, &format!("{PVCS}/data"));
    assert_eq!(
        c["metadata"]["finalizers"],
        json!(["kubernetes.io/pvc-protection"])
    );
    let r = h.api.get_accepting(PVCS, TABLE);
    let table: Value = serde_json::from_str(&r.body).unwrap_or_default();
    assert_eq!(table["rows"][0]["cells"][1], "Terminating", "{table}");
    assert_eq!(
        phase_of(&h, "db"),
        "Running",
        "a running pod keeps its volume"
    );

    ok(&mut h, "DELETE", &format!("{PODS}/db"), None);
    let deadline = h.now().plus_secs(120);
    let gone = h.run_until_true(deadline, |h| {
        !exists(h, Kind::Pod, Some("default"), "db")
            && !exists(h, Kind::PersistentVolumeClaim, Some("default"), "data")
            && !exists(h, Kind::PersistentVolume, None, &volume)
    });
    assert!(
        gone,
        "the pod, the claim and (reclaim Delete) the volume all go"
    );
}

#[test]
fn default_storage_class_admission_fills_in_the_newest_default_only_when_none_is_named() {
    let mut h = cluster();
    let none = ok(&mut h, "POST", PVCS, Some(claim("a", Some(""), "1Gi")));
    assert_eq!(
        none["spec"]["storageClassName"], "",
        "an explicit no-class is kept"
    );
    h.run_for(1_000);
    ok(
        &mut h,
        "POST",
        CLASSES,
        Some(json!({"metadata": {"name": "fast", "annotations":
            {"storageclass.kubernetes.io/is-default-class": "true"}},
            "provisioner": "example.com/fast"})),
    );
    let newest = ok(&mut h, "POST", PVCS, Some(claim("b", None, "1Gi")));
    assert_eq!(newest["spec"]["storageClassName"], "fast");
    let own = ok(
        &mut h,
        "POST",
        PVCS,
        Some(claim("c", Some("standard"), "1Gi")),
    );
    assert_eq!(own["spec"]["storageClassName"], "standard");
    let classes = get(&mut h, CLASSES);
    let standard = classes["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["metadata"]["name"] == "standard")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (
            &standard["provisioner"],
            &standard["reclaimPolicy"],
            &standard["volumeBindingMode"],
            &standard["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"]
        ),
        (
            &json!("rancher.io/local-path"),
            &json!("Delete"),
            &json!("WaitForFirstConsumer"),
            &json!("true")
        )
    );
}

/// `kubectl get pvc,pv` asks each for a Table; the cells a learner reads.
#[test]
fn kubectl_get_pvc_pv_shows_the_bound_pair() {
    let mut h = running_db();
    let cells = |h: &mut Harness, path: &str| -> Vec<Value> {
        let r = h.api.get_accepting(path, TABLE);
        assert_eq!(r.code, 200, "{}", r.body);
        let t: Value = serde_json::from_str(&r.body).unwrap_or_default();
        t["rows"][0]["cells"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let volume = get(&mut h, &format!("{PVCS}/data"))["spec"]["volumeName"].clone();
    // NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE
    let pvc = cells(&mut h, PVCS);
    assert_eq!(
        pvc.get(..7),
        Some(
            &[
                json!("data"),
                json!("Bound"),
                volume.clone(),
                json!("1Gi"),
                json!("RWO"),
                json!("standard"),
                json!("<unset>")
            ][..]
        ),
        "{pvc:?}"
    );
    // NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS ...
    let pv = cells(&mut h, PVS);
    assert_eq!(
        pv.get(..7),
        Some(
            &[
                volume,
                json!("1Gi"),
                json!("RWO"),
                json!("Delete"),
                json!("Bound"),
                json!("default/data"),
                json!("standard")
            ][..]
        ),
        "{pv:?}"
    );
    let sc = cells(&mut h, CLASSES);
    assert_eq!(
        sc.get(..4),
        Some(
            &[
                json!("standard (default)"),
                json!("rancher.io/local-path"),
                json!("Delete"),
                json!("WaitForFirstConsumer")
            ][..]
        )
    );
}
