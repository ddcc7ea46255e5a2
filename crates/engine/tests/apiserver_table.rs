//! Server-side printing as a client notices it: a get, list or watch whose Accept header asks
//! for a `meta.k8s.io/v1` Table (as every `kubectl get` does) gets the kind's columns and
//! cells from its registry module, every served kind included (a custom kind's
//! `additionalPrinterColumns`, the default convertor's `Name`/`Created At` for a kind without
//! a printer); rows embed the object as `includeObject` says; a list keeps its paging metadata;
//! watch events carry one-row Tables; any other Accept gets the plain JSON.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::table::TABLE_ACCEPT;
use watchlab_engine::api::kinds::BUILT_IN;
use watchlab_engine::cluster::Cluster;

/// What kubectl v1.32 sends.
const KUBECTL_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::String(body.to_string()))
}

fn table(c: &mut Cluster, path: &str) -> Value {
    let r = c.session("kubectl").get_accepting(path, KUBECTL_ACCEPT);
    assert_eq!(r.code, 200, "{path}: {}", r.body);
    parse(&r.body)
}

fn post(c: &mut Cluster, path: &str, body: Value) {
    let r = c
        .session("kubectl")
        .request("POST", path, None, Some(&body.to_string()));
    assert_eq!(r.code, 201, "{path}: {}", r.body);
}

fn column_names(t: &Value) -> Vec<String> {
    t["columnDefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn rows(t: &Value) -> Vec<Value> {
    t["rows"].as_array().cloned().unwrap_or_default()
}

/// A started cluster (nodes, pods, workloads, events, leases) plus a ConfigMap, a Secret, a
/// PodDisruptionBudget, the batch and DaemonSet workloads ([`post_workloads`]), a StatefulSet
/// and the storage kinds ([`post_storage`]) and a CustomResourceDefinition, so every built-in
/// kind has objects.
fn busy() -> Cluster {
    let mut c = Cluster::with_seed(3);
    let t = c.now().plus_secs(30);
    c.advance_to(t);
    post(
        &mut c,
        "/api/v1/namespaces/default/configmaps",
        json!({"metadata": {"name": "settings"}, "data": {"a": "1", "b": "2"}}),
    );
    post(
        &mut c,
        "/api/v1/namespaces/default/secrets",
        json!({"metadata": {"name": "token"}, "data": {"t": "eA=="}}),
    );
    post(
        &mut c,
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
        json!({"metadata": {"name": "web"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
    );
    post_workloads(&mut c);
    post_storage(&mut c);
    post(
        &mut c,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        crd(
            json!([{"name": "Host", "type": "string", "jsonPath": ".spec.host"},
                   {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1}]),
        ),
    );
    let t = c.now().plus_secs(5);
    c.advance_to(t);
    c
}

/// A Job, a CronJob (every fifth minute: it comes due after the tests' reads), a DaemonSet
/// and a ControllerRevision of it, in `default`.
fn post_workloads(c: &mut Cluster) {
    let pod = |restart: &str| {
        json!({"metadata": {"labels": {"app": "batch"}},
            "spec": {"restartPolicy": restart,
                "containers": [{"name": "main", "image": "busybox:1.36"}]}})
    };
    post(
        c,
        "/apis/batch/v1/namespaces/default/jobs",
        json!({"metadata": {"name": "once"}, "spec": {"template": pod("Never")}}),
    );
    post(
        c,
        "/apis/batch/v1/namespaces/default/cronjobs",
        json!({"metadata": {"name": "every-five"}, "spec": {"schedule": "*/5 * * * *",
            "jobTemplate": {"spec": {"template": pod("OnFailure")}}}}),
    );
    let mut agent = pod("Always");
    agent["metadata"]["labels"] = json!({"app": "agent"});
    post(
        c,
        "/apis/apps/v1/namespaces/default/daemonsets",
        json!({"metadata": {"name": "agent"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": agent}}),
    );
    post(
        c,
        "/apis/apps/v1/namespaces/default/controllerrevisions",
        json!({"metadata": {"name": "agent-0"}, "revision": 1,
            "data": {"spec": {"template": agent}}}),
    );
}

/// A StatefulSet, a PersistentVolumeClaim, a PersistentVolume and a StorageClass.
fn post_storage(c: &mut Cluster) {
    let template = json!({"metadata": {"labels": {"app": "db"}},
        "spec": {"containers": [{"name": "db", "image": "postgres:16"}]}});
    post(
        c,
        "/apis/apps/v1/namespaces/default/statefulsets",
        json!({"metadata": {"name": "db"}, "spec": {"serviceName": "db", "replicas": 1,
            "selector": {"matchLabels": {"app": "db"}}, "template": template}}),
    );
    post(
        c,
        "/api/v1/namespaces/default/persistentvolumeclaims",
        json!({"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}}}}),
    );
    post(
        c,
        "/api/v1/persistentvolumes",
        json!({"metadata": {"name": "disk-1"}, "spec": {"capacity": {"storage": "5Gi"},
            "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data/disk-1"}}}),
    );
    post(
        c,
        "/apis/storage.k8s.io/v1/storageclasses",
        json!({"metadata": {"name": "slow"}, "provisioner": "example.com/slow"}),
    );
}

fn crd(columns: Value) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "websites.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced",
        "names": {"plural": "websites", "singular": "website", "kind": "Website"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "additionalPrinterColumns": columns,
          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})
}

#[test]
fn every_built_in_kind_is_answered_as_its_printers_table() {
    let mut c = busy();
    for kind in BUILT_IN {
        let r = kind.resource();
        let path = r.path(None, None);
        let t = table(&mut c, &path);
        assert_eq!(
            (t["kind"].as_str(), t["apiVersion"].as_str()),
            (Some("Table"), Some("meta.k8s.io/v1")),
            "{path}"
        );
        let want: Vec<String> = r.rules.columns().iter().map(|d| d.name.clone()).collect();
        assert_eq!(column_names(&t), want, "{path}");
        let rows = rows(&t);
        assert!(!rows.is_empty(), "{path}: no rows");
        for row in &rows {
            assert_eq!(
                row["cells"].as_array().map(Vec::len),
                Some(want.len()),
                "{path}: {row}"
            );
            assert_eq!(row["object"]["kind"], "PartialObjectMetadata", "{path}");
        }
        // The same object by name: a one-row Table with the same cells.
        let first = &rows[0]["object"]["metadata"];
        let ns = first["namespace"].as_str().filter(|_| r.namespaced);
        let one = table(&mut c, &r.path(ns, first["name"].as_str()));
        assert_eq!(one["rows"].as_array().map(Vec::len), Some(1), "{path}");
        assert_eq!(one["rows"][0]["cells"], rows[0]["cells"], "{path}");
    }
}

#[test]
fn cells_are_the_real_printers() {
    let mut c = busy();
    let pods = table(&mut c, "/api/v1/namespaces/production/pods");
    assert_eq!(
        column_names(&pods),
        [
            "Name",
            "Ready",
            "Status",
            "Restarts",
            "Age",
            "IP",
            "Node",
            "Nominated Node",
            "Readiness Gates"
        ]
    );
    let running = rows(&pods)
        .into_iter()
        .find(|r| r["cells"][2] == "Running")
        .unwrap_or_else(|| panic!("no running pod: {pods}"));
    assert_eq!(running["cells"][1], "1/1");
    assert_eq!(running["cells"][3], "0");
    assert!(running["cells"][5]
        .as_str()
        .is_some_and(|ip| ip.starts_with("10.2")));

    let nodes = table(&mut c, "/api/v1/nodes");
    assert_eq!(rows(&nodes)[0]["cells"][1], "Ready");
    assert_eq!(pods["columnDefinitions"][0]["format"], "name");

    // Integer columns carry numbers.
    let deploys = table(&mut c, "/apis/apps/v1/namespaces/production/deployments");
    assert_eq!(
        column_names(&deploys)[..4],
        ["Name", "Ready", "Up-to-date", "Available"]
    );
    assert!(rows(&deploys)[0]["cells"][2].is_i64(), "{deploys}");
    assert_eq!(deploys["columnDefinitions"][2]["type"], "integer");
    assert_eq!(deploys["columnDefinitions"][5]["priority"], 1);

    let cms = table(
        &mut c,
        "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dsettings",
    );
    assert_eq!(rows(&cms)[0]["cells"][0], "settings");
    assert_eq!(rows(&cms)[0]["cells"][1], "2");

    // A kind without a printer: the default convertor's Name and Created At.
    let crds = table(
        &mut c,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    );
    assert_eq!(column_names(&crds), ["Name", "Created At"]);
    assert_eq!(crds["columnDefinitions"][1]["type"], "date");
    let created = rows(&crds)[0]["cells"][1].clone();
    assert!(
        created
            .as_str()
            .is_some_and(|t| t.starts_with("2026-01-01T00:00:")),
        "{created}"
    );
}

/// The batch and DaemonSet printers' columns, as `kubectl get jobs|cronjobs|ds` heads them,
/// and the cells that do not wait for a controller: a CronJob not yet scheduled, and the
/// node selector, containers, images and selector of a DaemonSet and a Job.
#[test]
fn workload_cells_are_the_real_printers() {
    let mut c = busy();
    let jobs = table(&mut c, "/apis/batch/v1/namespaces/default/jobs");
    assert_eq!(
        column_names(&jobs),
        [
            "Name",
            "Status",
            "Completions",
            "Duration",
            "Age",
            "Containers",
            "Images",
            "Selector"
        ]
    );
    let job = &rows(&jobs)[0]["cells"];
    assert_eq!(
        (&job[0], &job[5], &job[6]),
        (&json!("once"), &json!("main"), &json!("busybox:1.36"))
    );
    assert!(
        job[7]
            .as_str()
            .is_some_and(|s| s.starts_with("batch.kubernetes.io/controller-uid=")),
        "{job}"
    );
    let cronjobs = table(&mut c, "/apis/batch/v1/namespaces/default/cronjobs");
    assert_eq!(
        column_names(&cronjobs),
        [
            "Name",
            "Schedule",
            "Timezone",
            "Suspend",
            "Active",
            "Last Schedule",
            "Age",
            "Containers",
            "Images",
            "Selector"
        ]
    );
    assert_eq!(
        rows(&cronjobs)[0]["cells"],
        json!([
            "every-five",
            "*/5 * * * *",
            "<none>",
            "False",
            0,
            "<none>",
            "5s",
            "main",
            "busybox:1.36",
            "<none>"
        ])
    );
    let daemon_sets = table(&mut c, "/apis/apps/v1/namespaces/default/daemonsets");
    assert_eq!(
        column_names(&daemon_sets)[..8],
        [
            "Name",
            "Desired",
            "Current",
            "Ready",
            "Up-to-date",
            "Available",
            "Node Selector",
            "Age"
        ]
    );
    let ds = &rows(&daemon_sets)[0]["cells"];
    assert_eq!(
        (&ds[0], &ds[6], &ds[10]),
        (&json!("agent"), &json!("<none>"), &json!("app=agent")),
        "{ds}"
    );
    let revisions = table(
        &mut c,
        "/apis/apps/v1/namespaces/default/controllerrevisions?fieldSelector=metadata.name%3Dagent-0",
    );
    assert_eq!(
        column_names(&revisions),
        ["Name", "Controller", "Revision", "Age"]
    );
    assert_eq!(
        rows(&revisions)[0]["cells"],
        json!(["agent-0", "<none>", 1, "5s"])
    );
}

#[test]
fn a_custom_kind_prints_its_additional_printer_columns() {
    let mut c = busy();
    post(
        &mut c,
        "/apis/example.com/v1/namespaces/default/websites",
        json!({"apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "blog"},
               "spec": {"host": "blog.example.com", "replicas": 2}}),
    );
    post(
        &mut c,
        "/apis/example.com/v1/namespaces/default/websites",
        json!({"apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "bare"}, "spec": {}}),
    );
    let t = table(&mut c, "/apis/example.com/v1/namespaces/default/websites");
    assert_eq!(column_names(&t), ["Name", "Host", "Replicas"]);
    assert_eq!(t["columnDefinitions"][2]["priority"], 1);
    let cells: Vec<Value> = rows(&t).iter().map(|r| r["cells"].clone()).collect();
    assert_eq!(
        cells,
        [
            json!(["bare", "<none>", "<none>"]),
            json!(["blog", "blog.example.com", 2])
        ]
    );
}

#[test]
fn a_custom_kind_without_columns_prints_its_age() {
    let mut c = Cluster::with_seed(3);
    post(
        &mut c,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        crd(json!([])),
    );
    post(
        &mut c,
        "/apis/example.com/v1/namespaces/default/websites",
        json!({"apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "blog"}}),
    );
    let t = c.now().plus_secs(90);
    c.advance_to(t);
    let t = table(
        &mut c,
        "/apis/example.com/v1/namespaces/default/websites/blog",
    );
    assert_eq!(column_names(&t), ["Name", "Age"]);
    assert_eq!(t["rows"][0]["cells"], json!(["blog", "90s"]));
}

#[test]
fn rows_embed_the_object_as_include_object_says() {
    let mut c = busy();
    let path = "/api/v1/namespaces/default/configmaps/settings";
    let t = table(&mut c, path);
    assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(t["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(t["rows"][0]["object"]["metadata"]["name"], "settings");
    assert!(t["rows"][0]["object"].get("data").is_none());
    let t = table(&mut c, &format!("{path}?includeObject=Object"));
    assert_eq!(t["rows"][0]["object"]["kind"], "ConfigMap");
    assert_eq!(t["rows"][0]["object"]["apiVersion"], "v1");
    assert_eq!(t["rows"][0]["object"]["data"]["a"], "1");
    let t = table(&mut c, &format!("{path}?includeObject=None"));
    assert!(t["rows"][0].get("object").is_none(), "{t}");
    // The resourceVersion of the object, or of the list.
    assert!(t["metadata"]["resourceVersion"]
        .as_str()
        .is_some_and(|rv| !rv.is_empty()));
}

#[test]
fn a_paged_list_keeps_its_metadata() {
    let mut c = busy();
    let t = table(&mut c, "/api/v1/pods?limit=2");
    assert_eq!(rows(&t).len(), 2);
    assert!(
        t["metadata"]["continue"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{t}"
    );
    assert!(
        t["metadata"]["remainingItemCount"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{t}"
    );
    assert!(t["metadata"]["resourceVersion"].is_string());
}

#[test]
fn other_accepts_and_refusals_get_the_plain_answers() {
    let mut c = busy();
    let path = "/api/v1/namespaces/default/configmaps";
    for accept in [
        "application/json",
        "application/json;as=Table;v=v2;g=meta.k8s.io",
        "application/json;as=Table",
        "",
        "garbage;;;,",
    ] {
        let r = c.session("kubectl").get_accepting(path, accept);
        assert_eq!(parse(&r.body)["kind"], "ConfigMapList", "{accept:?}");
    }
    // Errors are the same Status whatever the Accept.
    for bad in [
        "/api/v1/namespaces/default/configmaps/missing",
        "/api/v1/namespaces/default/nothings",
        "/api/v1/pods?labelSelector=a%3D%3D%3D",
        "/api/v1/pods?fieldSelector=spec.bogus%3Dx",
    ] {
        let table = c.session("kubectl").get_accepting(bad, TABLE_ACCEPT);
        let plain = c.session("kubectl").request("GET", bad, None, None);
        assert_eq!((table.code, table.body), (plain.code, plain.body), "{bad}");
    }
    // Discovery and subresources are not printed.
    let r = c.session("kubectl").get_accepting("/api/v1", TABLE_ACCEPT);
    assert_eq!(parse(&r.body)["kind"], "APIResourceList");
}

#[test]
fn watch_events_carry_one_row_tables() {
    let mut c = busy();
    let path = "/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true";
    let (printed, plain) = {
        let mut s = c.session("kubectl");
        (
            s.watch_accepting(path, TABLE_ACCEPT).unwrap(),
            s.watch(path).unwrap(),
        )
    };
    post(
        &mut c,
        "/api/v1/namespaces/default/configmaps",
        json!({"metadata": {"name": "later"}, "data": {"x": "1"}}),
    );
    let r = c.session("kubectl").request(
        "DELETE",
        "/api/v1/namespaces/default/configmaps/later",
        None,
        None,
    );
    assert_eq!(r.code, 200);
    let mut s = c.session("kubectl");
    let events: Vec<Value> = s
        .poll_watch(printed)
        .unwrap_or_default()
        .iter()
        .map(|l| parse(l))
        .collect();
    let types: Vec<&str> = events
        .iter()
        .filter_map(|e| e["type"].as_str())
        .filter(|t| *t != "BOOKMARK")
        .collect();
    assert!(types.ends_with(&["ADDED", "ADDED", "DELETED"]), "{types:?}");
    for e in &events {
        let object = &e["object"];
        match e["type"].as_str() {
            Some("ADDED" | "MODIFIED" | "DELETED") => {
                assert_eq!(object["kind"], "Table", "{e}");
                assert_eq!(column_names(object), ["Name", "Data", "Age"]);
                assert_eq!(object["rows"].as_array().map(Vec::len), Some(1));
            }
            _ => assert_ne!(object["kind"], "Table", "{e}"),
        }
    }
    let deleted = events
        .iter()
        .rfind(|e| e["type"] == "DELETED")
        .cloned()
        .unwrap_or_default();
    assert_eq!(deleted["object"]["rows"][0]["cells"][0], "later");
    assert_eq!(
        deleted["object"]["rows"][0]["object"]["kind"],
        "PartialObjectMetadata"
    );
    // The stream opened without the Accept streams the objects.
    let plain_events = s.poll_watch(plain).unwrap_or_default();
    assert_eq!(plain_events.len(), events.len());
    assert!(plain_events
        .iter()
        .all(|l| parse(l)["object"]["kind"] == "ConfigMap"));
    s.stop_watch(printed);
    assert_eq!(s.poll_watch(printed), None);
}
