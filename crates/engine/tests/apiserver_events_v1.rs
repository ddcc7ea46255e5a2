//! `events.k8s.io/v1` Events as a client sees them: the same stored Events as core `v1`, in a
//! second version converted both ways (`regarding` is `involvedObject`, `note` `message`,
//! `reportingController` `reportingComponent`, the `deprecated*` fields the core timestamps,
//! count and source), so a write through either version is read, listed, field-selected and
//! watched through the other; a write through `events.k8s.io/v1` is validated as the real
//! server validates it (an `eventTime`, a reporting controller and instance, an action, no
//! deprecated field; nothing but the series changes on update), and a refused one changes
//! nothing.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const V1: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
const CORE: &str = "/api/v1/namespaces/default/events";
const KUBECTL_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn call(
    s: &mut ApiServer,
    method: &str,
    path: &str,
    ct: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let r = s.request(method, path, ct, body.as_deref());
    (r.code, parse(&r.body))
}

fn ok(s: &mut ApiServer, method: &str, path: &str, body: Option<Value>) -> Value {
    let (code, out) = call(s, method, path, None, body);
    assert!(code == 200 || code == 201, "{method} {path}: {code} {out}");
    out
}

/// A new-style Event, as client-go's `events.k8s.io/v1` recorder writes it.
fn new_style(name: &str) -> Value {
    json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2026-01-01T00:00:05.250000Z",
        "reportingController": "example.com/scheduler", "reportingInstance": "scheduler-1",
        "action": "Binding", "reason": "Scheduled", "type": "Normal",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "web", "apiVersion": "v1"},
        "related": {"kind": "Node", "name": "node-a", "apiVersion": "v1"},
        "note": "Successfully assigned default/web to node-a"
    })
}

/// An old-style Event, as the core recorders write it.
fn old_style(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "db"},
        "reason": "Pulled", "message": "Container image pulled", "type": "Normal",
        "source": {"component": "kubelet", "host": "node-b"},
        "firstTimestamp": "2026-01-01T00:00:03Z", "lastTimestamp": "2026-01-01T00:00:04Z",
        "count": 2
    })
}

fn revision(s: &mut ApiServer) -> u64 {
    s.revision()
}

#[test]
fn a_write_through_one_version_reads_through_the_other() {
    let mut s = ApiServer::new(7);
    let created = ok(&mut s, "POST", V1, Some(new_style("web.1")));
    assert_eq!(created["apiVersion"], "events.k8s.io/v1");
    assert_eq!(
        created["note"],
        "Successfully assigned default/web to node-a"
    );
    assert_eq!(created["deprecatedSource"], json!({}));
    assert_eq!(created["deprecatedFirstTimestamp"], Value::Null);

    let core = ok(&mut s, "GET", &format!("{CORE}/web.1"), None);
    assert_eq!(core["apiVersion"], "v1");
    assert_eq!(core["involvedObject"]["name"], "web");
    assert_eq!(
        core["message"],
        "Successfully assigned default/web to node-a"
    );
    assert_eq!(core["reportingComponent"], "example.com/scheduler");
    assert_eq!(core["reportingInstance"], "scheduler-1");
    assert_eq!(core["action"], "Binding");
    assert_eq!(core["related"]["name"], "node-a");
    assert_eq!(core["eventTime"], "2026-01-01T00:00:05.250000Z");
    assert_eq!(core["metadata"]["uid"], created["metadata"]["uid"]);
    assert!(core.get("note").is_none() && core.get("regarding").is_none());

    ok(&mut s, "POST", CORE, Some(old_style("db.1")));
    let v1 = ok(&mut s, "GET", &format!("{V1}/db.1"), None);
    assert_eq!(v1["regarding"]["name"], "db");
    assert_eq!(v1["note"], "Container image pulled");
    assert_eq!(
        v1["deprecatedSource"],
        json!({"component": "kubelet", "host": "node-b"})
    );
    assert_eq!(v1["deprecatedFirstTimestamp"], "2026-01-01T00:00:03Z");
    assert_eq!(v1["deprecatedLastTimestamp"], "2026-01-01T00:00:04Z");
    assert_eq!(v1["deprecatedCount"], 2);
    assert!(v1.get("message").is_none() && v1.get("involvedObject").is_none());

    let list = ok(&mut s, "GET", V1, None);
    assert_eq!(list["kind"], "EventList");
    assert_eq!(list["apiVersion"], "events.k8s.io/v1");
    let names: Vec<&str> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["db.1", "web.1"]);
    assert!(list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|i| i["apiVersion"] == "events.k8s.io/v1"));

    // The raw text keeps Go's field order: kind and apiVersion first, then the metadata.
    let raw = s.request("GET", &format!("{V1}/db.1"), None, None).body;
    assert!(
        raw.starts_with(r#"{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":"#),
        "{raw}"
    );
}

#[test]
fn field_selectors_are_this_versions_labels() {
    let mut s = ApiServer::new(7);
    ok(&mut s, "POST", V1, Some(new_style("web.1")));
    ok(&mut s, "POST", CORE, Some(old_style("db.1")));
    let names = |s: &mut ApiServer, path: &str| -> Vec<String> {
        ok(s, "GET", path, None)["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(
        names(&mut s, &format!("{V1}?fieldSelector=regarding.name%3Dweb")),
        ["web.1"]
    );
    assert_eq!(
        names(
            &mut s,
            &format!("{V1}?fieldSelector=reportingController%3Dexample.com%2Fscheduler")
        ),
        ["web.1"]
    );
    assert_eq!(
        names(
            &mut s,
            &format!("{V1}?fieldSelector=regarding.kind%3DPod%2Creason%3DPulled")
        ),
        ["db.1"]
    );
    // `source` is the source's component, else the reporting controller (ToSelectableFields).
    assert_eq!(
        names(
            &mut s,
            &format!("{V1}?fieldSelector=source%3Dexample.com%2Fscheduler")
        ),
        ["web.1"]
    );
    assert_eq!(
        names(&mut s, &format!("{CORE}?fieldSelector=source%3Dkubelet")),
        ["db.1"]
    );
    let (code, status) = call(
        &mut s,
        "GET",
        &format!("{V1}?fieldSelector=involvedObject.name%3Dweb"),
        None,
        None,
    );
    assert_eq!(
        (code, status["message"].as_str()),
        (400, Some("field label not supported: involvedObject.name"))
    );
    let (code, _) = call(
        &mut s,
        "GET",
        &format!("{CORE}?fieldSelector=regarding.name%3Dweb"),
        None,
        None,
    );
    assert_eq!(code, 400, "the core version keeps its own labels");
}

/// Lines of a stream, as (type, apiVersion, name) of each event's object.
fn seen(s: &mut ApiServer, id: u64) -> Vec<(String, String, String)> {
    s.poll_watch(id)
        .unwrap_or_default()
        .iter()
        .map(|l| {
            let v = parse(l);
            let o = &v["object"];
            let text = |x: &Value| x.as_str().unwrap_or_default().to_string();
            (
                text(&v["type"]),
                text(&o["apiVersion"]),
                text(&o["metadata"]["name"]),
            )
        })
        .collect()
}

#[test]
fn a_watch_in_either_version_sees_writes_through_the_other() {
    let mut s = ApiServer::new(7);
    let rv = revision(&mut s);
    let v1_watch = ApiClient::watch(&mut s, &format!("{V1}?watch=true&resourceVersion={rv}"))
        .expect("v1 watch");
    let core_watch = ApiClient::watch(&mut s, &format!("{CORE}?watch=true&resourceVersion={rv}"))
        .expect("core watch");
    ok(&mut s, "POST", V1, Some(new_style("web.1")));
    ok(&mut s, "POST", CORE, Some(old_style("db.1")));
    let v1 = |n: &str| {
        (
            "ADDED".to_string(),
            "events.k8s.io/v1".to_string(),
            n.to_string(),
        )
    };
    let core = |n: &str| ("ADDED".to_string(), "v1".to_string(), n.to_string());
    assert_eq!(seen(&mut s, v1_watch), [v1("web.1"), v1("db.1")]);
    assert_eq!(seen(&mut s, core_watch), [core("web.1"), core("db.1")]);

    // A selected watch in the served version, and its events' fields in that version.
    let picky = ApiClient::watch(
        &mut s,
        &format!("{V1}?watch=1&fieldSelector=regarding.name%3Ddb&resourceVersion={rv}"),
    )
    .expect("watch");
    let lines = s.poll_watch(picky).unwrap_or_default();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(
        parse(&lines[0])["object"]["deprecatedSource"]["host"],
        "node-b"
    );

    // A Table watch (kubectl get -w) prints the core printer's row, the object converted.
    let table = s
        .watch_accepting(
            &format!("{V1}?watch=1&resourceVersion={rv}&includeObject=Object"),
            KUBECTL_ACCEPT,
        )
        .expect("watch");
    let lines = s.poll_watch(table).unwrap_or_default();
    let first = parse(&lines[0]);
    assert_eq!(first["object"]["kind"], "Table");
    assert_eq!(first["object"]["rows"][0]["cells"][3], "pod/web");
    assert_eq!(
        first["object"]["rows"][0]["object"]["note"],
        "Successfully assigned default/web to node-a"
    );

    ok(&mut s, "DELETE", &format!("{V1}/db.1"), None);
    assert_eq!(
        seen(&mut s, core_watch),
        [("DELETED".to_string(), "v1".to_string(), "db.1".to_string())]
    );
    assert_eq!(
        seen(&mut s, v1_watch),
        [(
            "DELETED".to_string(),
            "events.k8s.io/v1".to_string(),
            "db.1".to_string()
        )]
    );
}

#[test]
fn tables_print_the_core_columns() {
    let mut s = ApiServer::new(7);
    ok(&mut s, "POST", V1, Some(new_style("web.1")));
    let core = parse(&s.get_accepting(CORE, KUBECTL_ACCEPT).body);
    let v1 = parse(
        &s.get_accepting(&format!("{V1}?includeObject=Object"), KUBECTL_ACCEPT)
            .body,
    );
    assert_eq!(v1["kind"], "Table");
    assert_eq!(v1["columnDefinitions"], core["columnDefinitions"]);
    assert_eq!(v1["rows"][0]["cells"], core["rows"][0]["cells"]);
    assert_eq!(v1["rows"][0]["object"]["apiVersion"], "events.k8s.io/v1");
    assert_eq!(v1["rows"][0]["cells"][5], "example.com/scheduler");
}

#[test]
fn updates_and_patches_through_v1_may_change_only_the_series() {
    let mut s = ApiServer::new(7);
    ok(&mut s, "POST", V1, Some(new_style("web.1")));
    let path = format!("{V1}/web.1");
    let series = json!({"series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:09.000000Z"}});
    let (code, patched) = call(
        &mut s,
        "PATCH",
        &path,
        Some("application/merge-patch+json"),
        Some(series),
    );
    assert_eq!(code, 200, "{patched}");
    assert_eq!(patched["series"]["count"], 2);
    assert_eq!(
        ok(&mut s, "GET", &format!("{CORE}/web.1"), None)["series"]["count"],
        2
    );

    let before = revision(&mut s);
    let (code, status) = call(
        &mut s,
        "PATCH",
        &path,
        Some("application/merge-patch+json"),
        Some(json!({"note": "rewritten"})),
    );
    assert_eq!(code, 422, "{status}");
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(
        status["message"],
        "Event \"web.1\" is invalid: message: Invalid value: \"rewritten\": field is immutable"
    );
    let (code, status) = call(
        &mut s,
        "PATCH",
        &path,
        Some("application/json-patch+json"),
        Some(json!([{"op": "replace", "path": "/regarding/name", "value": "other"}])),
    );
    assert_eq!(code, 422, "{status}");
    assert_eq!(status["details"]["causes"][0]["field"], "involvedObject");
    let mut put = ok(&mut s, "GET", &path, None);
    put["action"] = json!("Rebinding");
    let (code, status) = call(&mut s, "PUT", &path, None, Some(put));
    assert_eq!(code, 422, "{status}");
    assert_eq!(revision(&mut s), before, "nothing refused was written");

    // A strategic merge patch of the series, and a PUT keeping everything else, pass.
    let (code, out) = call(
        &mut s,
        "PATCH",
        &path,
        Some("application/strategic-merge-patch+json"),
        Some(json!({"series": {"count": 3, "lastObservedTime": "2026-01-01T00:00:10.000000Z"}})),
    );
    assert_eq!((code, out["series"]["count"].clone()), (200, json!(3)));
    let mut put = ok(&mut s, "GET", &path, None);
    put["series"]["count"] = json!(4);
    assert_eq!(call(&mut s, "PUT", &path, None, Some(put)).0, 200);
    // The core version is not held to the new rules (ValidateEventUpdate for v1 requests only).
    let (code, _) = call(
        &mut s,
        "PATCH",
        &format!("{CORE}/web.1"),
        Some("application/merge-patch+json"),
        Some(json!({"message": "edited"})),
    );
    assert_eq!(code, 200);
    assert_eq!(ok(&mut s, "GET", &path, None)["note"], "edited");
}

#[test]
fn bad_input_gets_the_api_servers_status_and_changes_nothing() {
    let mut s = ApiServer::new(7);
    let before = revision(&mut s);
    let refuse = |s: &mut ApiServer, body: Value, code: u16| -> Value {
        let (got, status) = call(s, "POST", V1, None, Some(body));
        assert_eq!(got, code, "{status}");
        assert_eq!(status["kind"], "Status");
        status
    };
    // The old style through the new version: the deprecated fields are refused, and an Event
    // needs an eventTime, a reporting controller and instance, and an action.
    let mut old = new_style("x");
    let map = old.as_object_mut().expect("object");
    for f in [
        "eventTime",
        "reportingController",
        "reportingInstance",
        "action",
    ] {
        map.remove(f);
    }
    map.insert("deprecatedSource".into(), json!({"component": "kubelet"}));
    map.insert("deprecatedCount".into(), json!(3));
    let status = refuse(&mut s, old, 422);
    assert_eq!(status["message"], "Event \"x\" is invalid: [eventTime: Required value, count: Invalid value: \"\": needs to be unset, source: Invalid value: \"\": needs to be unset]");
    let mut no_action = new_style("x");
    no_action["action"] = json!("");
    no_action["type"] = json!("Fine");
    no_action["reportingController"] = json!("not a qualified name!");
    let status = refuse(&mut s, no_action, 422);
    let fields: Vec<&str> = status["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["field"].as_str())
        .collect();
    assert_eq!(fields, ["reportingController", "action", "type"]);
    // The core version's body is another version: refused, not read as this one.
    let status = refuse(&mut s, old_style("x"), 400);
    assert_eq!(status["message"], "the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)");
    // Unknown fields follow fieldValidation, against this version's schema: `message` is a
    // core field, unknown here.
    let mut unknown = new_style("x");
    unknown["message"] = json!("core name");
    let (code, status) = call(
        &mut s,
        "POST",
        &format!("{V1}?fieldValidation=Strict"),
        None,
        Some(unknown.clone()),
    );
    assert_eq!(code, 400);
    assert_eq!(status["message"], "Event in version \"v1\" cannot be handled as a Event: strict decoding error: unknown field \"message\"");
    let mut other_ns = new_style("x");
    other_ns["metadata"]["namespace"] = json!("kube-system");
    refuse(&mut s, other_ns, 400);
    let (code, _) = call(&mut s, "GET", &format!("{V1}/nope"), None, None);
    assert_eq!(code, 404);
    let (code, _) = call(
        &mut s,
        "PATCH",
        &format!("{V1}/nope"),
        Some("application/merge-patch+json"),
        Some(json!({})),
    );
    assert_eq!(code, 404);
    assert_eq!(revision(&mut s), before, "nothing was written");

    // With `Warn` (the default) the unknown field is dropped with a warning, not stored.
    let created = ok(&mut s, "POST", V1, Some(unknown));
    assert_eq!(s.take_warnings(), ["unknown field \"message\""]);
    assert_eq!(
        created["note"],
        "Successfully assigned default/web to node-a"
    );
}

#[test]
fn server_side_apply_through_v1_writes_the_shared_event() {
    let mut s = ApiServer::new(7);
    let config = new_style("web.1");
    let (code, out) = call(
        &mut s,
        "PATCH",
        &format!("{V1}/web.1?fieldManager=tester"),
        Some("application/apply-patch+yaml"),
        Some(config),
    );
    assert_eq!(code, 201, "{out}");
    assert_eq!(out["apiVersion"], "events.k8s.io/v1");
    assert_eq!(out["regarding"]["name"], "web");
    assert_eq!(
        ok(&mut s, "GET", &format!("{CORE}/web.1"), None)["message"],
        "Successfully assigned default/web to node-a"
    );
}

#[test]
fn discovery_lists_the_group_and_kubectl_names_resolve() {
    let mut s = ApiServer::new(7);
    let groups = ok(&mut s, "GET", "/apis", None);
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert_eq!(
        &names[..3],
        ["apps", "events.k8s.io", "authorization.k8s.io"]
    );
    let list = ok(&mut s, "GET", "/apis/events.k8s.io/v1", None);
    assert_eq!(list["groupVersion"], "events.k8s.io/v1");
    assert_eq!(
        list["resources"],
        json!([{
            "name": "events", "singularName": "event", "namespaced": true, "kind": "Event",
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            "shortNames": ["ev"]
        }])
    );
    let reg = s.registry();
    assert_eq!(reg.resolve("ev").map(|r| r.api_version), Some("v1"));
    assert_eq!(
        reg.resolve("events.events.k8s.io").map(|r| r.api_version),
        Some("events.k8s.io/v1")
    );
}
