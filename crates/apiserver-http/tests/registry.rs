//! Walks the resource registry: every kind the API server serves is in discovery, answers
//! get/list/watch/create/update/patch/delete, is printed by kubectl's `get` and `describe`, and
//! comes back as a server-side Table — a custom resource (a CRD's) included. A kind added to the
//! registry without a sample here fails the test (so it cannot be forgotten). The second walk
//! does it with the real kubectl over HTTP (its `get` prints the server's Table) and checks that
//! the console's kubectl prints every kind's table, `-o wide` too, byte for byte as it does.

mod common;

use common::{kubectl_available, TestServer};
use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::table::TABLE_ACCEPT;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::Kubectl;

/// A valid object of each served kind, named `sample` (in `default` when namespaced).
fn sample(kind: Kind) -> Value {
    let r = kind.resource();
    let meta = json!({"name": "sample", "labels": {"app": "sample"}});
    let mut obj = json!({"apiVersion": r.api_version, "kind": r.kind_name, "metadata": meta});
    let template = json!({"metadata": {"labels": {"app": "sample"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}});
    let workload = json!({"replicas": 1, "selector": {"matchLabels": {"app": "sample"}}, "template": template});
    if kind.is_custom() {
        return obj;
    }
    match r.kind_name {
        "Namespace" | "Node" | "Lease" => {}
        "Pod" => obj["spec"] = template["spec"].clone(),
        "ReplicaSet" | "Deployment" => obj["spec"] = workload,
        "Event" => {
            obj["involvedObject"] = json!({"kind": "Pod", "name": "x", "namespace": "default"});
            obj["reason"] = json!("Sampled");
        }
        "CustomResourceDefinition" => {
            obj["metadata"]["name"] = json!("samples.example.com");
            obj["spec"] = json!({"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "samples", "kind": "Sample"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object"}}}]});
        }
        "Service" => {
            obj["spec"] = json!({"selector": {"app": "sample"},
                "ports": [{"port": 80, "targetPort": 8080}]});
        }
        "Endpoints" => {
            obj["subsets"] = json!([{"addresses": [{"ip": "10.244.0.9"}],
                "ports": [{"port": 8080}]}]);
        }
        "EndpointSlice" => {
            obj["addressType"] = json!("IPv4");
            obj["endpoints"] = json!([{"addresses": ["10.244.0.9"],
                "conditions": {"ready": true}}]);
            obj["ports"] = json!([{"port": 8080}]);
        }
        "ConfigMap" => obj["data"] = json!({"a": "1"}),
        "Secret" => obj["stringData"] = json!({"password": "hunter2"}),
        "PodDisruptionBudget" => {
            obj["spec"] =
                json!({"minAvailable": 1, "selector": {"matchLabels": {"app": "sample"}}});
        }
        "Job" => {
            let mut job_template = template.clone();
            job_template["spec"]["restartPolicy"] = json!("Never");
            obj["spec"] = json!({"template": job_template});
        }
        "CronJob" => {
            let mut job_template = template.clone();
            job_template["spec"]["restartPolicy"] = json!("OnFailure");
            obj["spec"] = json!({"schedule": "*/5 * * * *",
                "jobTemplate": {"spec": {"template": job_template}}});
        }
        "DaemonSet" => {
            obj["spec"] = json!({"selector": {"matchLabels": {"app": "sample"}},
                "template": template});
        }
        "ControllerRevision" => {
            obj["data"] = json!({"spec": {"template": template}});
            obj["revision"] = json!(1);
        }
        // Added with the storage kinds (StatefulSets and their volumes).
        "StatefulSet" => {
            obj["spec"] = workload;
            obj["spec"]["serviceName"] = json!("sample");
        }
        "PersistentVolumeClaim" => {
            obj["spec"] = json!({"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}});
        }
        "PersistentVolume" => {
            obj["spec"] = json!({"capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data/sample"}});
        }
        "StorageClass" => obj["provisioner"] = json!("example.com/sample"),
        other => panic!("no sample for {other}: add one to tests/registry.rs"),
    }
    obj
}

fn name_of(v: &Value) -> String {
    v["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn every_registered_kind_is_served_printed_and_tabled() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    // A custom resource is walked like the built-in kinds.
    let widgets = widgets_crd();
    let crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    assert_eq!(
        api.request("POST", crd, None, Some(&widgets.to_string()))
            .code,
        201
    );
    let kinds: Vec<Kind> = api.registry().kinds().to_vec();
    assert_eq!(kinds.iter().filter(|k| k.is_custom()).count(), 1);
    assert!(kinds.len() >= 9);
    let resources = k.exec("kubectl api-resources -o name", &mut api).stdout;
    for kind in kinds {
        let r = kind.resource();
        let qualified = if r.group.is_empty() {
            r.plural.to_string()
        } else {
            format!("{}.{}", r.plural, r.group)
        };
        assert!(
            resources.lines().any(|l| l == qualified),
            "{qualified} not discovered"
        );
        let obj = sample(kind);
        let name = name_of(&obj);
        let ns = r.namespaced.then_some("default");
        let collection = r.path(ns, None);
        let one = r.path(ns, Some(&name));

        // watch, create (by kubectl apply), get, list.
        let watch = ApiClient::watch(&mut api, &format!("{collection}?watch=true")).expect("watch");
        let printed_watch =
            ApiClient::watch_accepting(&mut api, &format!("{collection}?watch=true"), TABLE_ACCEPT)
                .expect("watch");
        k.set_file("sample.yaml", &obj.to_string());
        let applied = k.exec("kubectl apply -f sample.yaml", &mut api);
        assert_eq!(applied.exit_code, 0, "{qualified}: {}", applied.stderr);
        let lines = api.poll_watch(watch).unwrap_or_default();
        assert!(
            lines.iter().any(|l| l.contains("\"ADDED\"")),
            "{qualified}: {lines:?}"
        );
        let got = api.request("GET", &one, None, None);
        assert_eq!(got.code, 200, "{qualified}: {}", got.body);
        let listed = api.request("GET", &collection, None, None);
        assert!(
            listed.body.contains(&format!("\"{}\"", r.list_kind)),
            "{qualified}"
        );

        // kubectl get and describe.
        let printed = k.exec(&format!("kubectl get {qualified} {name}"), &mut api);
        assert_eq!(printed.exit_code, 0, "{qualified}: {}", printed.stderr);
        // A header and one row (events have no NAME column, as in kubectl).
        assert_eq!(
            printed.stdout.lines().count(),
            2,
            "{qualified}: {}",
            printed.stdout
        );
        let described = k.exec(&format!("kubectl describe {qualified} {name}"), &mut api);
        assert_eq!(described.exit_code, 0, "{qualified}: {}", described.stderr);
        assert!(
            described.stdout.contains(&name),
            "{qualified}: {}",
            described.stdout
        );

        // The server-side Table: of the object, of the list, and on the watch.
        let columns = r.rules.columns();
        let tables = [
            api.get_accepting(&one, TABLE_ACCEPT),
            api.get_accepting(
                &format!("{collection}?fieldSelector=metadata.name%3D{name}"),
                TABLE_ACCEPT,
            ),
        ];
        let events = api.poll_watch(printed_watch).unwrap_or_default();
        let added = events
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|e| {
                e["type"] == "ADDED" && e["object"]["rows"][0]["object"]["metadata"]["name"] == name
            })
            .map(|e| e["object"].clone());
        let tables = tables
            .iter()
            .map(|t| serde_json::from_str::<Value>(&t.body).unwrap_or_default())
            .chain(added);
        let mut answered = 0;
        for t in tables {
            answered += 1;
            assert_eq!(t["kind"], "Table", "{qualified}: {t}");
            assert_eq!(
                t["columnDefinitions"].as_array().map(Vec::len),
                Some(columns.len()),
                "{qualified}"
            );
            assert_eq!(
                t["rows"].as_array().map(Vec::len),
                Some(1),
                "{qualified}: {t}"
            );
            assert_eq!(
                t["rows"][0]["cells"].as_array().map(Vec::len),
                Some(columns.len()),
                "{qualified}"
            );
            assert_eq!(
                t["rows"][0]["object"]["metadata"]["name"],
                json!(name),
                "{qualified}"
            );
        }
        assert_eq!(answered, 3, "{qualified}: a Table for get, list and watch");
        api.stop_watch(printed_watch);

        // update (PUT of what was read), patch (kubectl label), delete.
        let put = api.request("PUT", &one, None, Some(&got.body));
        assert_eq!(put.code, 200, "{qualified}: {}", put.body);
        let labelled = k.exec(
            &format!("kubectl label {qualified} {name} tier=x"),
            &mut api,
        );
        assert_eq!(labelled.exit_code, 0, "{qualified}: {}", labelled.stderr);
        let deleted = api.request("DELETE", &format!("{one}?gracePeriodSeconds=0"), None, None);
        assert_eq!(deleted.code, 200, "{qualified}: {}", deleted.body);
        let after = api.request("GET", &one, None, None);
        if kind == Kind::Namespace {
            // A namespace waits for the namespace controller (none runs here): Terminating.
            assert!(after.body.contains("\"Terminating\""), "{}", after.body);
        } else if after.code == 200 {
            // An object the API server gave a finalizer (a claim's or a volume's protection)
            // waits for its controller, none of which runs here: marked for deletion.
            let obj: Value = serde_json::from_str(&after.body).unwrap_or_default();
            assert!(
                obj["metadata"]["deletionTimestamp"].is_string()
                    && obj["metadata"]["finalizers"]
                        .as_array()
                        .is_some_and(|f| !f.is_empty()),
                "{qualified}: {}",
                after.body
            );
        } else {
            assert_eq!(after.code, 404, "{qualified}");
        }
    }
}

/// The CRD the walks add, so that a custom kind is walked like the built-in ones.
fn widgets_crd() -> Value {
    let mut widgets = sample(Kind::CustomResourceDefinition);
    widgets["metadata"]["name"] = json!("widgets.example.com");
    widgets["spec"]["names"] = json!({"plural": "widgets", "kind": "Widget"});
    widgets
}

#[test]
fn the_real_kubectl_walks_the_registry_and_prints_what_the_console_prints() {
    if !kubectl_available("the_real_kubectl_walks_the_registry_and_prints_what_the_console_prints")
    {
        return;
    }
    // The virtual clock stands still: nothing changes between the two kubectls' reads (no
    // controller reacts, every AGE is the same).
    let s = TestServer::at_speed(0.0);
    let crd = s.write("widgets.json", &widgets_crd().to_string());
    s.ok(&[
        "apply",
        "--validate=false",
        "-f",
        crd.to_str().unwrap_or_default(),
    ]);
    let kinds: Vec<Kind> = s.with_cluster(|c| c.api().registry().kinds().to_vec());
    assert!(kinds.iter().any(|k| k.is_custom()));
    for line in ["api-resources", "api-resources -o wide", "api-versions"] {
        let args: Vec<&str> = line.split(' ').collect();
        assert_eq!(s.console(&format!("kubectl {line}")), s.ok(&args), "{line}");
    }
    let resources = s.ok(&["api-resources", "-o", "name"]);
    for kind in kinds {
        let r = kind.resource();
        let qualified = if r.group.is_empty() {
            r.plural.to_string()
        } else {
            format!("{}.{}", r.plural, r.group)
        };
        assert!(
            resources.lines().any(|l| l == qualified),
            "{qualified} not discovered by the real kubectl"
        );
        let obj = sample(kind);
        let name = name_of(&obj);
        let file = s.write(&format!("{}.json", r.plural), &obj.to_string());
        let file = file.to_str().unwrap_or_default();
        s.ok(&["apply", "--validate=false", "-f", file]);
        for output in [None, Some("wide"), Some("yaml"), Some("name")] {
            let mut args = vec!["get", qualified.as_str(), name.as_str()];
            if let Some(o) = output {
                args.extend(["-o", o]);
            }
            let real = s.ok(&args);
            let console = s.console(&format!("kubectl {}", args.join(" ")));
            assert_eq!(console, real, "kubectl {}", args.join(" "));
        }
        // Every object of the kind, in every namespace, with labels: the seeded cluster's too.
        let every = ["get", qualified.as_str(), "-A", "--show-labels"];
        assert_eq!(
            s.console(&format!("kubectl {}", every.join(" "))),
            s.ok(&every),
            "kubectl {}",
            every.join(" ")
        );
        let described = s.ok(&["describe", qualified.as_str(), name.as_str()]);
        assert!(described.contains(&name), "{qualified}: {described}");
        // Both leave out the annotation `apply` wrote (the describers differ beyond it, and
        // so may the width of the first column).
        let annotations = |text: &str| {
            text.lines()
                .find(|l| l.starts_with("Annotations:"))
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        };
        let console = s.console(&format!("kubectl describe {qualified} {name}"));
        assert_eq!(
            annotations(&console),
            annotations(&described),
            "{qualified}: {console}"
        );
        // These kinds' describers print what the real ones print, byte for byte (the others
        // still differ: the console's node describer leaves out sections the real one prints,
        // and the real one leaves out a Deployment's ReplicaSet lines when it has none).
        if [
            Kind::Namespace,
            Kind::Pod,
            Kind::ReplicaSet,
            Kind::Service,
            Kind::ConfigMap,
            Kind::Secret,
            Kind::Event,
            Kind::Lease,
            Kind::CustomResourceDefinition,
            Kind::Endpoints,
            Kind::EndpointSlice,
            Kind::Job,
            Kind::CronJob,
            Kind::DaemonSet,
            Kind::ControllerRevision,
            Kind::StatefulSet,
            Kind::PersistentVolumeClaim,
            Kind::PersistentVolume,
            Kind::StorageClass,
        ]
        .contains(&kind)
            || kind.is_custom()
        {
            assert_eq!(console, described, "kubectl describe {qualified} {name}");
        }
        let deleted = s.ok(&["delete", qualified.as_str(), name.as_str(), "--wait=false"]);
        assert!(deleted.contains("deleted"), "{qualified}: {deleted}");
    }
}
