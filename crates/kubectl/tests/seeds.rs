//! The seed texts' commands, run against a scripted API server: the requests kubectl sends
//! (paths, query strings, bodies) and what it prints, byte for byte.

mod fake;

use fake::{deployment, list, pod, running, status, ts, FakeApi};
use serde_json::{json, Value};
use watchlab_kubectl::Kubectl;

fn body_json(s: &fake::Sent) -> Value {
    serde_json::from_str(s.body.as_deref().unwrap_or("null")).unwrap()
}

#[test]
fn get_pods_watch_prints_the_list_then_one_row_per_event() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods?limit=500",
        200,
        list(
            "PodList",
            "184500",
            vec![pod(
                "orders-api-6d9f7c8b5-2vxk7",
                "production",
                "Running",
                0,
                running(),
            )],
        ),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl get pods -n production -w", &mut api);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "NAME                         READY   STATUS    RESTARTS   AGE\n\
         orders-api-6d9f7c8b5-2vxk7   1/1     Running   0          3h\n"
    );
    assert_eq!(
        api.watch_paths,
        ["/api/v1/namespaces/production/pods?resourceVersion=184500&watch=true"]
    );
    // The list and the watch both ask for Tables, as kubectl v1.32 does.
    assert_eq!(api.last().accept.as_deref(), Some(TABLE_ACCEPT));
    assert_eq!(api.watch_accepts, [Some(TABLE_ACCEPT.to_string())]);
    let mut follow = out.follow.expect("a watch is open");
    let now = api.now_ms / 1000;
    let mut debug = pod("debug-tools", "production", "Pending", now, json!(null));
    debug["spec"]["containers"] = json!([{"name": "debug-tools", "image": "debug-tools:1.0"}]);
    api.push(1, "ADDED", debug.clone());
    assert_eq!(
        follow.poll(&mut api).stdout,
        "debug-tools                  0/1     Pending   0          0s\n"
    );
    api.now_ms += 2000;
    debug["status"]["containerStatuses"] = json!([{"name": "debug-tools", "ready": false, "restartCount": 0,
        "state": {"waiting": {"reason": "ContainerCreating"}}}]);
    api.push(1, "MODIFIED", debug.clone());
    api.now_ms += 3000;
    let mut running_pod = debug.clone();
    running_pod["status"]["phase"] = json!("Running");
    running_pod["status"]["containerStatuses"] = json!([{"name": "debug-tools", "ready": false, "restartCount": 0,
        "state": {"running": {"startedAt": ts(now + 5)}}}]);
    api.push(1, "MODIFIED", running_pod);
    let polled = follow.poll(&mut api);
    assert_eq!(
        polled.stdout,
        "debug-tools                  0/1     ContainerCreating   0          5s\n\
         debug-tools                  0/1     Running             0          5s\n"
    );
    assert!(!polled.ended);
    api.close(1);
    assert!(follow.poll(&mut api).ended);
}

/// kubectl's Accept header for its human-readable output.
const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

#[test]
fn a_server_without_tables_gets_name_and_age() {
    let mut api = FakeApi::new();
    api.plain_json_only = true;
    let rows = vec![
        pod("web-1", "production", "Running", 0, running()),
        pod("web-2", "production", "Pending", 7200, json!(null)),
    ];
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods?limit=500",
        200,
        list("PodList", "7", rows),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl get pods -n production", &mut api);
    assert_eq!(out.stderr, "");
    assert_eq!(out.stdout, "NAME    AGE\nweb-1   3h\nweb-2   60m\n");
    // -o json never asks for a Table.
    k.exec("kubectl get pods -n production -o json", &mut api);
    assert_eq!(api.last().accept, None);
}

#[test]
fn sort_by_asks_for_whole_objects_in_the_rows() {
    let mut api = FakeApi::new();
    let rows = vec![
        pod("b", "production", "Running", 100, running()),
        pod("a", "production", "Running", 50, running()),
        pod("c", "production", "Running", 10, running()),
    ];
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods?includeObject=Object&limit=500",
        200,
        list("PodList", "7", rows),
    );
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl get pods -n production --sort-by=.metadata.creationTimestamp --no-headers -o wide",
        &mut api,
    );
    assert_eq!(out.stderr, "");
    let names: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["c", "a", "b"]);
    assert!(out.stdout.contains("node-a"), "{}", out.stdout);
    let wrong = k.exec(
        "kubectl get pods -n production --sort-by=.spec.nope",
        &mut api,
    );
    assert!(
        wrong
            .stderr
            .contains("couldn't find any field with path \"{.spec.nope}\""),
        "{}",
        wrong.stderr
    );
}

#[test]
fn watch_only_prints_the_seed_line() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods?limit=500",
        200,
        list("PodList", "7", vec![]),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl get pods -n production --watch-only", &mut api);
    assert_eq!(out.stdout, "");
    let mut follow = out.follow.unwrap();
    let mut debug = pod(
        "debug-tools",
        "production",
        "Pending",
        api.now_ms / 1000,
        json!(null),
    );
    debug["status"] = json!({"phase": "Pending"});
    api.push(1, "ADDED", debug);
    assert_eq!(
        follow.poll(&mut api).stdout,
        "NAME          READY   STATUS    RESTARTS   AGE\ndebug-tools   0/1     Pending   0          0s\n"
    );
    follow.stop(&mut api);
}

#[test]
fn run_posts_the_pod_kubectl_builds() {
    let mut api = FakeApi::new();
    let created = pod("debug-tools", "production", "Pending", 10_800, json!(null));
    api.on(
        "POST",
        "/api/v1/namespaces/production/pods?fieldManager=kubectl-run",
        201,
        created,
    );
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl run debug-tools --image=debug-tools:1.0 -n production",
        &mut api,
    );
    assert_eq!(out.stdout, "pod/debug-tools created\n");
    assert_eq!(out.exit_code, 0);
    let sent = api.last();
    assert_eq!(sent.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        body_json(sent),
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "debug-tools", "creationTimestamp": null, "labels": {"run": "debug-tools"}},
               "spec": {"containers": [{"name": "debug-tools", "image": "debug-tools:1.0", "resources": {}}],
                        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst"},
               "status": {}})
    );
}

#[test]
fn run_dry_run_prints_yaml_without_sending() {
    let mut api = FakeApi::new();
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl run debug-tools --image=debug-tools:1.0 --restart=Never --dry-run=client -o yaml",
        &mut api,
    );
    assert!(api.sent.is_empty());
    assert_eq!(
        out.stdout,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: null\n  labels:\n    run: debug-tools\n  name: debug-tools\nspec:\n  containers:\n  - image: debug-tools:1.0\n    name: debug-tools\n    resources: {}\n  dnsPolicy: ClusterFirst\n  restartPolicy: Never\nstatus: {}\n"
    );
}

#[test]
fn resource_version_jsonpath_and_label_overwrite() {
    let mut api = FakeApi::new();
    let path = "/apis/apps/v1/namespaces/production/deployments/orders-api";
    api.on(
        "GET",
        path,
        200,
        deployment("184553", json!({"app": "orders-api"})),
    );
    api.on(
        "GET",
        path,
        200,
        deployment("184553", json!({"app": "orders-api"})),
    );
    api.on(
        "GET",
        path,
        200,
        deployment("184612", json!({"app": "orders-api", "team": "orders"})),
    );
    api.on(
        "PATCH",
        &format!("{path}?fieldManager=kubectl-label"),
        200,
        deployment("184612", json!({"app": "orders-api", "team": "orders"})),
    );
    let mut k = Kubectl::new();
    let rv =
        "kubectl get deployment orders-api -n production -o jsonpath='{.metadata.resourceVersion}'";
    assert_eq!(k.exec(rv, &mut api).stdout, "184553");
    let out = k.exec(
        "kubectl label deployment orders-api -n production team=orders --overwrite",
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/orders-api labeled\n");
    let patch = api.last();
    assert_eq!(patch.method, "PATCH");
    assert_eq!(
        patch.content_type.as_deref(),
        Some("application/merge-patch+json")
    );
    assert_eq!(
        body_json(patch),
        json!({"metadata": {"labels": {"team": "orders"}}})
    );
    assert_eq!(k.exec("# 184553", &mut api).stdout, "");
    assert_eq!(k.exec(rv, &mut api).stdout, "184612");
}

#[test]
fn label_without_overwrite_refuses_to_change_a_value() {
    let mut api = FakeApi::new();
    let path = "/apis/apps/v1/namespaces/production/deployments/orders-api";
    api.on(
        "GET",
        path,
        200,
        deployment("5", json!({"app": "orders-api", "team": "payments"})),
    );
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl label deploy orders-api -n production team=orders",
        &mut api,
    );
    assert_eq!(
        out.stderr,
        "error: 'team' already has a value (payments), and --overwrite is false\n"
    );
    assert_eq!(out.exit_code, 1);
    assert!(api.sent.iter().all(|s| s.method == "GET"));
    api.on(
        "PATCH",
        &format!("{path}?fieldManager=kubectl-label"),
        200,
        deployment("6", json!({"app": "orders-api"})),
    );
    let out = k.exec(
        "kubectl label deploy orders-api -n production team-",
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/orders-api unlabeled\n");
    assert_eq!(
        body_json(api.last()),
        json!({"metadata": {"labels": {"team": null}}})
    );
}

fn event(name: &str, secs: u64, reason: &str, kind: &str, obj: &str, message: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
           "metadata": {"name": name, "namespace": "production", "creationTimestamp": ts(secs)},
           "involvedObject": {"kind": kind, "name": obj, "namespace": "production"},
           "reason": reason, "message": message, "type": if reason == "NodeNotReady" { "Warning" } else { "Normal" },
           "firstTimestamp": ts(secs), "lastTimestamp": ts(secs), "count": 1,
           "source": {"component": "node-controller"}})
}

#[test]
fn events_sorted_by_last_timestamp_through_tail() {
    let mut api = FakeApi::new();
    let now = api.now_ms / 1000;
    let mut items: Vec<Value> = (0..9)
        .map(|i| {
            event(
                &format!("e{i}"),
                now - 300 + i * 10,
                "Pulled",
                "Pod",
                &format!("p{i}"),
                "pulled",
            )
        })
        .collect();
    items.push(event(
        "nr",
        now - 120,
        "NodeNotReady",
        "Node",
        "node-c",
        "Node node-c status is now: NodeNotReady",
    ));
    items.reverse();
    // `--sort-by` asks for each row's whole object, to read the field from.
    api.on(
        "GET",
        "/api/v1/namespaces/production/events?includeObject=Object&limit=500",
        200,
        list("EventList", "9", items),
    );
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl get events -n production --sort-by=.lastTimestamp | tail -3",
        &mut api,
    );
    assert_eq!(
        out.stdout,
        "3m50s       Normal    Pulled         pod/p7        pulled\n\
         3m40s       Normal    Pulled         pod/p8        pulled\n\
         2m          Warning   NodeNotReady   node/node-c   Node node-c status is now: NodeNotReady\n"
    );
    let full = k
        .exec(
            "kubectl get events -n production --sort-by=.lastTimestamp",
            &mut api,
        )
        .stdout;
    assert!(full.starts_with("LAST SEEN   TYPE      REASON         OBJECT        MESSAGE\n5m          Normal    Pulled         pod/p0        pulled\n"), "{full}");
    assert_eq!(full.lines().count(), 11);
}

#[test]
fn label_selector_goes_into_the_query() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/default/pods?labelSelector=app%3Dnginx&limit=500",
        200,
        list("PodList", "3", vec![]),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl get pods -l app=nginx", &mut api);
    assert_eq!(
        api.paths(),
        ["GET /api/v1/namespaces/default/pods?labelSelector=app%3Dnginx&limit=500"]
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "No resources found in default namespace.\n");
}

#[test]
fn raw_watch_streams_event_lines() {
    let mut api = FakeApi::new();
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl get --raw '/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx'",
        &mut api,
    );
    assert_eq!(
        api.watch_paths,
        ["/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx"]
    );
    let mut follow = out.follow.unwrap();
    api.push(
        1,
        "ADDED",
        json!({"kind": "Pod", "metadata": {"name": "nginx"}}),
    );
    assert_eq!(
        follow.poll(&mut api).stdout,
        "{\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"nginx\"}},\"type\":\"ADDED\"}\n"
    );
}

const MANIFEST: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders-api\n  namespace: production\nspec:\n  replicas: 5\n  selector:\n    matchLabels:\n      app: orders-api\n  template:\n    metadata:\n      labels:\n        app: orders-api\n    spec:\n      containers:\n      - name: api\n        image: orders-api:1.5\n";

fn manifest_json(extra_rv: Option<&str>) -> Value {
    let mut m: Value = serde_yaml_ng::from_str(MANIFEST).unwrap();
    if let Some(rv) = extra_rv {
        m["metadata"]["resourceVersion"] = json!(rv);
    }
    m
}

#[test]
fn apply_creates_with_the_last_applied_annotation() {
    let mut api = FakeApi::new();
    let path = "/apis/apps/v1/namespaces/production/deployments";
    api.on(
        "POST",
        &format!("{path}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict"),
        201,
        deployment("1", json!({})),
    );
    let mut k = Kubectl::new();
    k.set_file("orders-deploy.yaml", MANIFEST);
    let out = k.exec("kubectl apply -f orders-deploy.yaml", &mut api);
    assert_eq!(
        out.stdout, "deployment.apps/orders-api created\n",
        "{}",
        out.stderr
    );
    assert_eq!(api.sent[0].path, format!("{path}/orders-api"));
    let posted = body_json(api.last());
    let annotation = posted["metadata"]["annotations"]
        ["kubectl.kubernetes.io/last-applied-configuration"]
        .as_str()
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(annotation).unwrap(),
        manifest_json(None)
    );
    assert!(annotation.ends_with('\n'));
}

#[test]
fn apply_configures_then_reports_unchanged() {
    let mut api = FakeApi::new();
    let path = "/apis/apps/v1/namespaces/production/deployments/orders-api";
    let mut live = deployment("184553", json!({"app": "orders-api"}));
    let mut old = manifest_json(None);
    old["spec"]["replicas"] = json!(3);
    live["metadata"]["annotations"] =
        json!({"kubectl.kubernetes.io/last-applied-configuration": format!("{old}\n")});
    api.on("GET", path, 200, live.clone());
    api.on(
        "PATCH",
        &format!("{path}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict"),
        200,
        live,
    );
    let mut k = Kubectl::new();
    k.set_file("orders-deploy.yaml", MANIFEST);
    let out = k.exec("kubectl apply -f orders-deploy.yaml", &mut api);
    assert_eq!(
        out.stdout, "deployment.apps/orders-api configured\n",
        "{}",
        out.stderr
    );
    let patch = body_json(api.last());
    assert_eq!(
        api.last().content_type.as_deref(),
        Some("application/merge-patch+json")
    );
    assert_eq!(patch["spec"]["replicas"], 5);
    assert_eq!(
        patch["spec"]["template"]["spec"]["containers"][0]["image"],
        "orders-api:1.5"
    );
    assert!(patch["status"].is_null());

    // The live object now matches the manifest and carries it as last-applied.
    let mut api = FakeApi::new();
    let mut live = manifest_json(None);
    live["metadata"]["annotations"] = json!({"kubectl.kubernetes.io/last-applied-configuration": format!("{}\n", manifest_json(None))});
    live["metadata"]["resourceVersion"] = json!("9");
    live["status"] = json!({"replicas": 5});
    api.on("GET", path, 200, live);
    let out = k.exec("kubectl apply -f orders-deploy.yaml", &mut api);
    assert_eq!(out.stdout, "deployment.apps/orders-api unchanged\n");
    assert_eq!(api.sent.len(), 1);
}

#[test]
fn apply_with_a_stale_resource_version_gets_the_conflict_text() {
    let mut api = FakeApi::new();
    let path = "/apis/apps/v1/namespaces/production/deployments/orders-api";
    let mut live = deployment("184612", json!({"app": "orders-api"}));
    live["metadata"]["annotations"] = json!({"kubectl.kubernetes.io/last-applied-configuration": format!("{}\n", manifest_json(None))});
    api.on("GET", path, 200, live);
    let msg = "Operation cannot be fulfilled on deployments.apps \"orders-api\": the object has been modified; please apply your changes to the latest version and try again";
    api.on(
        "PATCH",
        &format!("{path}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict"),
        409,
        status(409, "Conflict", msg),
    );
    let stale = MANIFEST.replace(
        "  namespace: production\n",
        "  namespace: production\n  resourceVersion: \"184553\"\n",
    );
    let mut k = Kubectl::new();
    k.set_file("orders-deploy.yaml", &stale);
    let out = k.exec("kubectl apply -f orders-deploy.yaml", &mut api);
    assert_eq!(out.exit_code, 1);
    assert_eq!(out.stdout, "");
    let patches: Vec<_> = api.sent.iter().filter(|s| s.method == "PATCH").collect();
    assert_eq!(patches.len(), 6, "one try and kubectl's 5 retries");
    let patch = patches[0].body.clone().unwrap();
    assert_eq!(
        body_json(patches[0])["metadata"]["resourceVersion"],
        "184553"
    );
    assert_eq!(
        out.stderr,
        format!(
            "Error from server (Conflict): error when applying patch:\n{patch}\nto:\nResource: \"apps/v1, Resource=deployments\", GroupVersionKind: \"apps/v1, Kind=Deployment\"\nName: \"orders-api\", Namespace: \"production\"\nfor: \"orders-deploy.yaml\": error when patching \"orders-deploy.yaml\": {msg}\n"
        )
    );
}

#[test]
fn not_found_prints_the_server_error() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods/x",
        404,
        status(404, "NotFound", "pods \"x\" not found"),
    );
    let out = Kubectl::new().exec("kubectl get pod x -n production", &mut api);
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): pods \"x\" not found\n"
    );
    assert_eq!(out.exit_code, 1);
}

#[test]
fn client_side_errors_match_kubectl() {
    let no_type = "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples\n";
    for (line, want) in [
        ("kubectl get pods --foo", "Error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n"),
        ("kubectl get pods -x", "Error: unknown shorthand flag: 'x' in -x\nSee 'kubectl get --help' for usage.\n"),
        ("kubectl foo", "Error: unknown command \"foo\" for \"kubectl\"\n\nDid you mean this?\n\ttop\n\n"),
        ("kubectl get", no_type),
        ("kubectl get foos", "error: the server doesn't have a resource type \"foos\"\n"),
        ("kubectl run x", "error: required flag(s) \"image\" not set\n"),
        ("kubectl run --image=x", "error: NAME is required for run\nSee 'kubectl run -h' for help and examples\n"),
        ("kubectl run x --image=y --restart=Foo", "error: invalid restart policy: Foo\nSee 'kubectl run -h' for help and examples\n"),
        ("kubectl get pods -o jsonpath='{.foo'", "error: error parsing jsonpath {.foo, unclosed action\n"),
        ("kubectl get pods -o bogus", "error: unable to match a printer suitable for the output format \"bogus\", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml\n"),
        ("kubectl get --raw", "Error: flag needs an argument: --raw\nSee 'kubectl get --help' for usage.\n"),
        ("kubectl get pods x -l a=b", "error: name cannot be provided when a selector is specified\n"),
        ("kubectl apply", "error: must specify one of -f and -k\n"),
        ("kubectl apply -f nofile.yaml", "error: the path \"nofile.yaml\" does not exist\n"),
        ("kubectl label", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n"),
        ("kubectl label deploy x", "error: at least one label update is required\n"),
        ("kubectl scale deploy x", "error: required flag(s) \"replicas\" not set\n"),
        ("kubectl scale deploy x --replicas=-1", "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n"),
        ("kubectl create namespace", "error: exactly one NAME is required, got 0\nSee 'kubectl create namespace -h' for help and examples\n"),
        ("kubectl cordon", "error: USAGE: cordon NODE [flags]\nSee 'kubectl cordon -h' for help and examples\n"),
        ("kubectl delete pods --all -l a=b", "error: setting 'all' parameter but found a non empty selector. \n"),
        ("kubectl delete", "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n"),
        ("kubectl get pods 'x", "bash: unexpected EOF while looking for matching `''\n"),
    ] {
        let mut api = FakeApi::new();
        let out = Kubectl::new().exec(line, &mut api);
        assert_eq!(out.stderr, want, "{line}");
        assert_ne!(out.exit_code, 0, "{line}");
        assert!(api.sent.is_empty(), "{line} sent {:?}", api.sent);
    }
}

#[test]
fn bad_yaml_sends_nothing() {
    let mut api = FakeApi::new();
    let mut k = Kubectl::new();
    k.set_file(
        "orders-deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: name: x\n",
    );
    let out = k.exec("kubectl apply -f orders-deploy.yaml", &mut api);
    assert!(
        out.stderr.starts_with("error: error parsing orders-deploy.yaml: error converting YAML to JSON: yaml: line 3: "),
        "{}",
        out.stderr
    );
    assert!(api.sent.is_empty());
}

#[test]
fn jsonpath_execution_error_prints_the_object() {
    let mut api = FakeApi::new();
    api.on("GET", "/apis/apps/v1/namespaces/production/deployments/orders-api", 200, json!({"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "orders-api"}, "spec": {"replicas": 3}}));
    let out = Kubectl::new().exec(
        "kubectl get deploy orders-api -n production -o jsonpath='{.spec.replicas[0]}'",
        &mut api,
    );
    assert_eq!(
        out.stderr,
        "error: error executing jsonpath \"{.spec.replicas[0]}\": Error executing template: int64 is not array or slice. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.spec.replicas[0]}\n\tobject given to jsonpath engine was:\n\t\tmap[string]interface {}{\"apiVersion\":\"apps/v1\", \"kind\":\"Deployment\", \"metadata\":map[string]interface {}{\"name\":\"orders-api\"}, \"spec\":map[string]interface {}{\"replicas\":3}}\n\n\n"
    );
}

#[test]
fn history_and_namespace_context() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods?limit=500",
        200,
        list("PodList", "1", vec![]),
    );
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl config set-context --current --namespace=production",
        &mut api,
    );
    assert_eq!(out.stdout, "Context \"watchlab\" modified.\n");
    assert_eq!(k.namespace(), "production");
    assert_eq!(
        k.exec("k get po", &mut api).stderr,
        "No resources found in production namespace.\n"
    );
    k.exec("k get po", &mut api);
    assert_eq!(
        k.history(),
        [
            "kubectl config set-context --current --namespace=production",
            "k get po"
        ]
    );
}

#[test]
fn describe_pod_lays_out_fields_and_events() {
    let mut api = FakeApi::new();
    let mut p = pod("debug-tools", "production", "Running", 10_795, running());
    p["metadata"]["labels"] = json!({"run": "debug-tools"});
    p["status"]["startTime"] = json!(ts(10_795));
    api.on(
        "GET",
        "/api/v1/namespaces/production/pods/debug-tools",
        200,
        p,
    );
    let mut ev = event(
        "debug-tools.1",
        10_796,
        "Scheduled",
        "Pod",
        "debug-tools",
        "Successfully assigned production/debug-tools to node-a",
    );
    ev["source"] = json!({"component": "default-scheduler"});
    api.on(
        "GET",
        "/api/v1/namespaces/production/events?fieldSelector=involvedObject.kind%3DPod%2CinvolvedObject.name%3Ddebug-tools%2CinvolvedObject.namespace%3Dproduction%2CinvolvedObject.uid%3Duid-debug-tools&limit=500",
        200,
        list("EventList", "3", vec![ev]),
    );
    let out = Kubectl::new().exec("kubectl describe pod debug-tools -n production", &mut api);
    assert_eq!(out.stderr, "");
    let text = out.stdout;
    for line in [
        "Name:             debug-tools\n",
        "Namespace:        production\n",
        "Service Account:  default\n",
        "Node:             node-a/10.0.0.1\n",
        "Start Time:       Thu, 01 Jan 2026 02:59:55 +0000\n",
        "Labels:           run=debug-tools\n",
        "Status:           Running\n",
        "IPs:\n  IP:  10.244.1.5\n",
        "    State:          Running\n      Started:      Thu, 01 Jan 2026 00:00:05 +0000\n",
        "    Ready:          True\n",
        "QoS Class:          BestEffort\n",
        "Events:\n  Type    Reason     Age   From               Message\n  ----    ------     ----  ----               -------\n  Normal  Scheduled  4s    default-scheduler  Successfully assigned production/debug-tools to node-a\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    #[test]
    fn exec_never_panics(line in "(k |kubectl )?(get|describe|run|apply|delete|label|annotate|scale|create|cordon|config|api-resources|version|foo)( [-a-z=/.,'\"{}\\[\\]@*?()|0-9]{0,12}){0,5}") {
        let mut api = FakeApi::new();
        api.on("GET", "/api/v1/namespaces/default/pods?limit=500", 200, list("PodList", "1", vec![pod("p", "default", "Running", 0, running())]));
        let mut k = Kubectl::new();
        k.set_file("f", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n");
        let out = k.exec(&line, &mut api);
        if let Some(mut f) = out.follow {
            api.push(1, "ADDED", pod("q", "default", "Pending", 0, json!(null)));
            let _ = f.poll(&mut api);
        }
    }

    #[test]
    fn exec_never_panics_on_any_text(line in ".{0,80}") {
        let mut api = FakeApi::new();
        let _ = Kubectl::new().exec(&line, &mut api);
    }
}

#[test]
fn scale_cordon_delete_send_what_kubectl_sends() {
    let mut api = FakeApi::new();
    let deploy = "/apis/apps/v1/namespaces/production/deployments/orders-api";
    // kubectl reads each object before it scales it.
    api.on("GET", deploy, 200, deployment("9", json!({})));
    api.on(
        "PATCH",
        &format!("{deploy}/scale"),
        200,
        json!({"kind": "Scale", "apiVersion": "autoscaling/v1", "spec": {"replicas": 4}}),
    );
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl scale deployment orders-api -n production --replicas=4",
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/orders-api scaled\n");
    assert_eq!(body_json(api.last()), json!({"spec": {"replicas": 4}}));

    // Without a scale subresource, the replicas go on the object itself.
    let mut api = FakeApi::new();
    api.on("GET", deploy, 200, deployment("9", json!({})));
    api.on("PATCH", deploy, 200, deployment("9", json!({})));
    let out = k.exec(
        "kubectl scale deploy/orders-api -n production --replicas=2",
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/orders-api scaled\n");
    assert_eq!(
        api.paths(),
        [
            format!("GET {deploy}"),
            format!("PATCH {deploy}/scale"),
            format!("PATCH {deploy}")
        ]
    );

    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/nodes/node-c",
        200,
        json!({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-c"}, "spec": {}}),
    );
    api.on("PATCH", "/api/v1/nodes/node-c", 200, json!({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-c"}, "spec": {"unschedulable": true}}));
    assert_eq!(
        k.exec("kubectl cordon node-c", &mut api).stdout,
        "node/node-c cordoned\n"
    );
    assert_eq!(
        body_json(api.last()),
        json!({"spec": {"unschedulable": true}})
    );
    assert_eq!(
        k.exec("kubectl uncordon node-c", &mut api).stdout,
        "node/node-c already uncordoned\n"
    );

    let mut api = FakeApi::new();
    api.on(
        "DELETE",
        "/api/v1/namespaces/production/pods/debug-tools",
        200,
        pod("debug-tools", "production", "Running", 0, running()),
    );
    let out = k.exec(
        "kubectl delete pod debug-tools -n production --grace-period=0 --force",
        &mut api,
    );
    assert_eq!(out.stdout, "pod \"debug-tools\" force deleted\n");
    assert!(out
        .stderr
        .starts_with("Warning: Immediate deletion does not wait"));
    assert_eq!(
        body_json(api.last()),
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0, "propagationPolicy": "Background"})
    );
    let out = k.exec(
        "kubectl delete pod/debug-tools -n production --now",
        &mut api,
    );
    assert_eq!(out.stdout, "pod \"debug-tools\" deleted\n");
    assert_eq!(body_json(api.last())["gracePeriodSeconds"], 1);
}

#[test]
fn several_types_all_namespaces_labels_and_wide() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/pods?limit=500",
        200,
        list(
            "PodList",
            "5",
            vec![pod("p1", "production", "Running", 0, running())],
        ),
    );
    api.on(
        "GET",
        "/apis/apps/v1/deployments?limit=500",
        200,
        list(
            "DeploymentList",
            "5",
            vec![deployment("5", json!({"app": "orders-api"}))],
        ),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl get pods,deployments -A", &mut api);
    assert_eq!(
        out.stdout,
        "NAMESPACE    NAME     READY   STATUS    RESTARTS   AGE\n\
         production   pod/p1   1/1     Running   0          3h\n\
         \n\
         NAMESPACE    NAME                         READY   UP-TO-DATE   AVAILABLE   AGE\n\
         production   deployment.apps/orders-api   3/3     3            3           3h\n"
    );
    let out = k.exec("kubectl get po -A --show-labels -o wide", &mut api);
    assert_eq!(
        out.stdout,
        "NAMESPACE    NAME   READY   STATUS    RESTARTS   AGE   IP           NODE     NOMINATED NODE   READINESS GATES   LABELS\n\
         production   p1     1/1     Running   0          3h    10.244.1.5   node-a   <none>           <none>            app=orders-api\n"
    );
    let out = k.exec("kubectl get po -A -o name", &mut api);
    assert_eq!(out.stdout, "pod/p1\n");
    let out = k.exec(
        "kubectl get po -A -o jsonpath='{range .items[*]}{.metadata.name}{\"\\n\"}{end}' | grep p1",
        &mut api,
    );
    assert_eq!(out.stdout, "p1\n");
}

#[test]
fn chunked_lists_follow_continue_tokens() {
    let mut api = FakeApi::new();
    let mut first = list(
        "PodList",
        "8",
        vec![pod("a", "default", "Running", 0, running())],
    );
    first["metadata"]["continue"] = json!("tok");
    api.on("GET", "/api/v1/namespaces/default/pods?limit=1", 200, first);
    api.on(
        "GET",
        "/api/v1/namespaces/default/pods?continue=tok&limit=1",
        200,
        list(
            "PodList",
            "8",
            vec![pod("b", "default", "Running", 0, running())],
        ),
    );
    let out = Kubectl::new().exec("kubectl get pods --chunk-size=1 -o name", &mut api);
    assert_eq!(out.stdout, "pod/a\npod/b\n");
    assert_eq!(api.sent.len(), 2);
}

#[test]
fn partial_results_print_and_exit_one() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/default/pods/b",
        200,
        pod("b", "default", "Running", 0, running()),
    );
    api.on(
        "GET",
        "/api/v1/namespaces/default/pods/a",
        404,
        status(404, "NotFound", "pods \"a\" not found"),
    );
    let out = Kubectl::new().exec("kubectl get pods a b", &mut api);
    assert_eq!(
        out.stdout,
        "NAME   READY   STATUS    RESTARTS   AGE\nb      1/1     Running   0          3h\n"
    );
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): pods \"a\" not found\n"
    );
    assert_eq!(out.exit_code, 1);
}

#[test]
fn api_resources_lists_the_served_types() {
    let mut api = FakeApi::new();
    let out = Kubectl::new().exec("kubectl api-resources --namespaced=false", &mut api);
    assert_eq!(
        out.stdout,
        "NAME                        SHORTNAMES   APIVERSION                NAMESPACED   KIND\n\
         namespaces                  ns           v1                        false        Namespace\n\
         nodes                       no           v1                        false        Node\n\
         persistentvolumes           pv           v1                        false        PersistentVolume\n\
         customresourcedefinitions   crd,crds     apiextensions.k8s.io/v1   false        CustomResourceDefinition\n\
         selfsubjectaccessreviews                 authorization.k8s.io/v1   false        SelfSubjectAccessReview\n\
         selfsubjectrulesreviews                  authorization.k8s.io/v1   false        SelfSubjectRulesReview\n\
         nodes                                    metrics.k8s.io/v1beta1    false        NodeMetrics\n\
         storageclasses              sc           storage.k8s.io/v1         false        StorageClass\n"
    );
    assert!(api.sent.is_empty());
}

#[test]
fn invalid_label_values_are_refused_before_sending() {
    let mut api = FakeApi::new();
    let out = Kubectl::new().exec("kubectl label deploy orders-api 'team=a b'", &mut api);
    assert_eq!(
        out.stderr,
        "error: invalid label value: \"team=a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n"
    );
    assert!(api.sent.is_empty());
}

#[test]
fn filters_apply_to_the_watch_stream() {
    let mut api = FakeApi::new();
    api.on(
        "GET",
        "/api/v1/namespaces/default/pods?limit=500",
        200,
        list(
            "PodList",
            "4",
            vec![pod("a", "default", "Running", 0, running())],
        ),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl get pods -w | head -3", &mut api);
    assert_eq!(out.stdout.lines().count(), 2);
    let mut follow = out.follow.unwrap();
    api.push(1, "MODIFIED", pod("b", "default", "Running", 0, running()));
    api.push(1, "MODIFIED", pod("c", "default", "Running", 0, running()));
    let polled = follow.poll(&mut api);
    assert!(polled.stdout.starts_with("b "), "{}", polled.stdout);
    assert_eq!(polled.stdout.lines().count(), 1);
    assert!(polled.ended, "head is satisfied, so the watch closes");

    let out = k.exec("kubectl get pods -w | grep c", &mut api);
    assert_eq!(out.stdout, "");
    let mut follow = out.follow.unwrap();
    api.push(2, "ADDED", pod("b", "default", "Running", 0, running()));
    api.push(2, "ADDED", pod("c", "default", "Running", 0, running()));
    assert!(follow.poll(&mut api).stdout.starts_with("c "));
}

#[test]
fn resource_types_follow_discovery() {
    let mut api = FakeApi::new();
    // A server that also serves a custom resource (a CRD's) in group example.com.
    api.on(
        "GET",
        "/apis",
        200,
        json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "example.com", "versions": [{"groupVersion": "example.com/v1", "version": "v1"}],
         "preferredVersion": {"groupVersion": "example.com/v1", "version": "v1"}}]}),
    );
    api.on(
        "GET",
        "/apis/example.com/v1",
        200,
        json!({"kind": "APIResourceList", "apiVersion": "v1",
        "groupVersion": "example.com/v1", "resources": [
            {"name": "websites", "singularName": "website", "namespaced": true, "kind": "Website",
             "shortNames": ["ws"], "verbs": ["get", "list", "watch", "create"]},
            {"name": "websites/status", "singularName": "", "namespaced": true, "kind": "Website",
             "verbs": ["get", "patch", "update"]}]}),
    );
    let mut site = json!({"apiVersion": "example.com/v1", "kind": "Website",
        "metadata": {"name": "blog", "namespace": "default", "creationTimestamp": ts(0)}});
    site["spec"] = json!({"host": "blog.example.com"});
    api.on(
        "GET",
        "/apis/example.com/v1/namespaces/default/websites?limit=500",
        200,
        list("WebsiteList", "7", vec![site]),
    );
    let mut k = Kubectl::new();
    let out = k.exec("kubectl api-resources --api-group=example.com", &mut api);
    assert_eq!(
        out.stdout,
        "NAME       SHORTNAMES   APIVERSION       NAMESPACED   KIND\n\
         websites   ws           example.com/v1   true         Website\n"
    );
    let out = k.exec("kubectl get ws", &mut api);
    assert_eq!(out.stderr, "");
    assert_eq!(out.stdout, "NAME   AGE\nblog   3h\n");
    // A type discovery does not list is unknown, whatever kubectl knew before.
    let out = k.exec("kubectl get deployments", &mut api);
    assert_eq!(
        out.stderr,
        "error: the server doesn't have a resource type \"deployments\"\n"
    );
}
