//! `authorization.k8s.io/v1`'s self reviews as a kube-apiserver with
//! `--authorization-mode=AlwaysAllow` answers them: the access review allowed without a reason,
//! the rules review AlwaysAllow's `RulesFor`, both create-only, bad bodies refused with the
//! server's Status, and discovery listing the group with `create` only.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::authorization::{answer, Answer};
use watchlab_engine::apiserver::ApiServer;

const SSAR: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
const SSRR: &str = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

fn post(path: &str, body: &Value) -> Answer {
    answer("POST", path, Some(&body.to_string())).expect("a path of the group")
}

fn json_of(a: &Answer) -> Value {
    serde_json::from_str(&a.response.body).expect("JSON")
}

#[test]
fn an_access_review_is_allowed_without_a_reason() {
    let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "metadata": {"creationTimestamp": null},
        "spec": {"resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}}});
    let a = post(SSAR, &review);
    assert_eq!(a.response.code, 201, "{}", a.response.body);
    assert_eq!(
        json_of(&a),
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "metadata": {"creationTimestamp": null},
            "spec": {"resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}},
            "status": {"allowed": true}})
    );
    assert!(a.warnings.is_empty());
    // `kubectl auth can-i '*' '*'` and a non-resource URL.
    for spec in [
        json!({"resourceAttributes": {"verb": "*", "group": "*", "resource": "*"}}),
        json!({"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}),
    ] {
        let a = post(SSAR, &json!({"spec": spec}));
        assert_eq!(a.response.code, 201);
        assert_eq!(json_of(&a)["status"], json!({"allowed": true}));
        assert_eq!(json_of(&a)["spec"], spec);
    }
}

#[test]
fn a_rules_review_gives_always_allows_rules() {
    let a = post(
        SSRR,
        &json!({"kind": "SelfSubjectRulesReview", "spec": {"namespace": "default"}}),
    );
    assert_eq!(a.response.code, 201, "{}", a.response.body);
    assert_eq!(
        json_of(&a),
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
            "metadata": {"creationTimestamp": null}, "spec": {},
            "status": {
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                "incomplete": false}})
    );
    let no_ns = post(SSRR, &json!({"spec": {}}));
    assert_eq!(no_ns.response.code, 400);
    assert_eq!(json_of(&no_ns)["message"], "no namespace on request");
}

#[test]
fn reviews_are_create_only() {
    for method in ["GET", "PUT", "PATCH", "DELETE"] {
        for path in [SSAR, SSRR, &format!("{SSAR}?watch=true")] {
            let a = answer(method, path, None).expect("a path of the group");
            let status = json_of(&a);
            assert_eq!(a.response.code, 405, "{method} {path}");
            assert_eq!(status["reason"], "MethodNotAllowed");
            assert_eq!(
                status["message"],
                "the server does not allow this method on the requested resource"
            );
        }
    }
    for path in [
        format!("{SSAR}/mine"),
        "/apis/authorization.k8s.io/v1/namespaces/default/selfsubjectaccessreviews".to_string(),
        "/apis/authorization.k8s.io/v1/subjectaccessreviews".to_string(),
        "/apis/authorization.k8s.io/v1beta1/selfsubjectaccessreviews".to_string(),
    ] {
        let a = answer("POST", &path, Some("{}")).expect("a path of the group");
        assert_eq!(a.response.code, 404, "{path}");
    }
    assert!(answer("POST", "/api/v1/namespaces/default/pods", Some("{}")).is_none());
}

#[test]
fn bad_bodies_get_the_servers_status() {
    let cases = [
        (
            json!({"apiVersion": "v1", "kind": "Pod"}),
            "",
            400,
            "the API version in the data (v1) does not match the expected API version (authorization.k8s.io/v1)",
        ),
        (
            json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview"}),
            "",
            400,
            "SelfSubjectRulesReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: the object provided is unrecognized (must be of type SelfSubjectAccessReview)",
        ),
        (
            json!({"spec": {"resourceAttributes": {"verb": "get"}, "extra": 1}}),
            "?fieldValidation=Strict",
            400,
            "SelfSubjectAccessReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: strict decoding error: unknown field \"spec.extra\"",
        ),
        (
            json!({"spec": {"resourceAttributes": {"verb": 5}}}),
            "",
            400,
            "SelfSubjectAccessReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: invalid type: integer `5`, expected a string",
        ),
        (
            json!({"spec": {}}),
            "",
            422,
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ),
        (
            json!({"metadata": {"name": "mine"}, "spec": {"nonResourceAttributes": {"path": "/", "verb": "get"}}}),
            "",
            422,
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: metadata: Invalid value: {\"name\":\"mine\"}: must be empty",
        ),
    ];
    for (body, query, code, message) in cases {
        let a = post(&format!("{SSAR}{query}"), &body);
        let status = json_of(&a);
        assert_eq!(a.response.code, code, "{body}: {}", a.response.body);
        assert_eq!(status["kind"], "Status");
        assert_eq!(status["message"], message, "{body}");
    }
    let both = post(
        SSAR,
        &json!({"spec": {"resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"path": "/"}}}),
    );
    assert_eq!(
        json_of(&both)["details"]["causes"][0]["field"],
        "spec.nonResourceAttributes"
    );
    let empty = answer("POST", SSAR, Some(" ")).expect("answered");
    assert_eq!(empty.response.code, 400);
    // The default (`Warn`) answers and names the dropped field; `Ignore` says nothing.
    let body = json!({"spec": {"resourceAttributes": {"verb": "get", "colour": "red"}}});
    let warned = post(SSAR, &body);
    assert_eq!(warned.response.code, 201);
    assert_eq!(
        warned.warnings,
        ["unknown field \"spec.resourceAttributes.colour\""]
    );
    assert_eq!(
        json_of(&warned)["spec"],
        json!({"resourceAttributes": {"verb": "get"}})
    );
    let ignored = post(&format!("{SSAR}?fieldValidation=Ignore"), &body);
    assert!(ignored.warnings.is_empty());
}

#[test]
fn discovery_lists_the_group_with_create_only() {
    let mut api = ApiServer::new(1);
    let groups: Value =
        serde_json::from_str(&api.request("GET", "/apis", None, None).body).expect("JSON");
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["name"].as_str())
        .collect();
    // kube-apiserver's order: apps, events.k8s.io, then authorization.k8s.io.
    let at = |g: &str| names.iter().position(|n| *n == g);
    assert!(at("apps") < at("authorization.k8s.io"), "{names:?}");
    assert_eq!(
        at("events.k8s.io").map(|i| i + 1),
        at("authorization.k8s.io"),
        "{names:?}"
    );
    let list = api.request("GET", "/apis/authorization.k8s.io/v1", None, None);
    assert_eq!(list.code, 200);
    let list: Value = serde_json::from_str(&list.body).expect("JSON");
    assert_eq!(
        list["resources"],
        json!([
            {"name": "selfsubjectaccessreviews", "singularName": "selfsubjectaccessreview",
             "namespaced": false, "kind": "SelfSubjectAccessReview", "verbs": ["create"]},
            {"name": "selfsubjectrulesreviews", "singularName": "selfsubjectrulesreview",
             "namespaced": false, "kind": "SelfSubjectRulesReview", "verbs": ["create"]}
        ])
    );
}
