//! PATCH through the JSON edge with the three media types kubectl uses: a JSON merge patch
//! replaces a list whole, a strategic merge patch merges the containers by name (what `kubectl
//! apply` and `kubectl set image` rely on), a JSON Patch applies its operations all or none; the
//! resourceVersion precondition holds for each, and other media types are refused.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments/web";
const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const JSON_PATCH: &str = "application/json-patch+json";

fn server_with_two_containers() -> ApiServer {
    let mut s = ApiServer::new(1);
    let d = json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
        "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
            {"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}]},
            {"name":"sidecar","image":"envoy:1.30"}]}}}});
    let r = s.request(
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        None,
        Some(&d.to_string()),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    s
}

fn patch(s: &mut ApiServer, content_type: &str, body: Value) -> (u16, Value) {
    let r = s.request("PATCH", DEPLOY, Some(content_type), Some(&body.to_string()));
    (r.code, serde_json::from_str(&r.body).unwrap())
}

fn containers(v: &Value) -> Vec<(String, String)> {
    v["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let field = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (field("name"), field("image"))
        })
        .collect()
}

fn image_patch() -> Value {
    json!({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}})
}

#[test]
fn strategic_merge_patch_merges_containers_by_name() {
    let mut s = server_with_two_containers();
    let (code, out) = patch(&mut s, STRATEGIC, image_patch());
    assert_eq!(code, 200, "{out}");
    let pairs = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        containers(&out),
        vec![pairs("web", "nginx:1.27"), pairs("sidecar", "envoy:1.30")]
    );
    // The patched container kept what the patch did not name.
    let web = &out["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(web["ports"][0]["containerPort"], 80);
    assert_eq!(out["metadata"]["generation"], 2);
}

#[test]
fn json_merge_patch_replaces_the_list_whole() {
    let mut s = server_with_two_containers();
    let (code, out) = patch(&mut s, MERGE, image_patch());
    assert_eq!(code, 200, "{out}");
    assert_eq!(
        containers(&out),
        vec![("web".to_string(), "nginx:1.27".to_string())]
    );
}

#[test]
fn strategic_directives_delete_an_element() {
    let mut s = server_with_two_containers();
    let body =
        json!({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}});
    let (code, out) = patch(&mut s, STRATEGIC, body);
    assert_eq!(code, 200, "{out}");
    assert_eq!(
        containers(&out),
        vec![("web".to_string(), "nginx:1.25".to_string())]
    );
}

#[test]
fn a_stale_resource_version_in_a_strategic_patch_is_a_409_and_changes_nothing() {
    let mut s = server_with_two_containers();
    let before = s.revision();
    let mut body = image_patch();
    body["metadata"] = json!({"resourceVersion": "1"});
    let (code, out) = patch(&mut s, STRATEGIC, body);
    assert_eq!(code, 409, "{out}");
    assert_eq!(
        out["message"],
        "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"
    );
    assert_eq!(s.revision(), before);
}

#[test]
fn json_patch_operations_apply_in_order() {
    let mut s = server_with_two_containers();
    let ops = json!([
        {"op":"test","path":"/spec/replicas","value":1},
        {"op":"replace","path":"/spec/replicas","value":3},
        {"op":"add","path":"/metadata/labels","value":{"team":"orders"}},
        {"op":"remove","path":"/spec/template/spec/containers/1"}
    ]);
    let (code, out) = patch(&mut s, JSON_PATCH, ops);
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["spec"]["replicas"], 3);
    assert_eq!(out["metadata"]["labels"]["team"], "orders");
    assert_eq!(
        containers(&out),
        vec![("web".to_string(), "nginx:1.25".to_string())]
    );
}

#[test]
fn a_json_patch_that_cannot_apply_is_refused_whole() {
    let mut s = server_with_two_containers();
    let before = s.revision();
    // The first operation would apply; the failed test refuses the whole patch (422).
    let ops = json!([
        {"op":"replace","path":"/spec/replicas","value":5},
        {"op":"test","path":"/spec/replicas","value":7}
    ]);
    let (code, out) = patch(&mut s, JSON_PATCH, ops);
    assert_eq!(code, 422, "{out}");
    assert_eq!(out["reason"], "Invalid");
    assert!(
        out["message"].as_str().unwrap().contains("/spec/replicas"),
        "{out}"
    );
    // Not a list of operations: 400, as the real server's decoder.
    let (code, out) = patch(&mut s, JSON_PATCH, json!({"spec":{"replicas":5}}));
    assert_eq!(code, 400, "{out}");
    assert_eq!(out["reason"], "BadRequest");
    assert_eq!(s.revision(), before);
}

#[test]
fn a_json_patch_setting_a_stale_resource_version_is_a_409() {
    let mut s = server_with_two_containers();
    let before = s.revision();
    let ops = json!([{"op":"replace","path":"/metadata/resourceVersion","value":"1"},
                     {"op":"replace","path":"/spec/replicas","value":2}]);
    let (code, out) = patch(&mut s, JSON_PATCH, ops);
    assert_eq!(code, 409, "{out}");
    assert_eq!(s.revision(), before);
}

#[test]
fn other_patch_media_types_are_refused_with_415() {
    let mut s = server_with_two_containers();
    let before = s.revision();
    let (code, out) = patch(&mut s, "application/yaml", json!({}));
    assert_eq!(code, 415, "{out}");
    assert_eq!(out["reason"], "UnsupportedMediaType");
    assert_eq!(
        out["message"],
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"
    );
    assert_eq!(s.revision(), before);
}

#[test]
fn a_server_dry_run_answers_the_patched_object_and_writes_nothing() {
    let mut s = server_with_two_containers();
    let before = s.revision();
    let r = s.request(
        "PATCH",
        &format!("{DEPLOY}?dryRun=All"),
        Some(MERGE),
        Some(r#"{"spec":{"replicas":5}}"#),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let out: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(out["spec"]["replicas"], 5);
    assert_eq!(s.revision(), before);
    let stored: Value = serde_json::from_str(&s.request("GET", DEPLOY, None, None).body).unwrap();
    assert_eq!(stored["spec"]["replicas"], 1);
}
