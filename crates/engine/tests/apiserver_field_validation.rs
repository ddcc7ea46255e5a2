//! `fieldValidation` on create and update through the JSON edge: unknown and duplicate fields
//! refused by `Strict` with the real 400 text, returned as warnings by `Warn` (the default when
//! the parameter is absent) and dropped by `Ignore`; a field Kubernetes has but the engine does
//! not model is not "unknown".

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const PODS: &str = "/api/v1/namespaces/default/pods";

fn body(name: &str, extra: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}"}},"spec":{{"volumes":[],
        "containers":[{{"name":"app","image":"nginx"{extra}}}]}}}}"#
    )
}

#[test]
fn strict_refuses_unknown_and_duplicate_fields_with_the_real_text() {
    let mut s = ApiServer::new(1);
    let r = s.request(
        "POST",
        &format!("{PODS}?fieldValidation=Strict"),
        None,
        Some(&body(
            "typo",
            r#","imagePullPolicyy":"Always","image":"nginx:2""#,
        )),
    );
    assert_eq!(r.code, 400, "{}", r.body);
    let status: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(status["reason"], "BadRequest");
    assert_eq!(
        status["message"],
        r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagePullPolicyy", duplicate field "spec.containers[0].image""#
    );
    assert_eq!(
        s.request("GET", &format!("{PODS}/typo"), None, None).code,
        404
    );
    // A real field the engine does not keep (`volumes`) is accepted.
    let ok = s.request(
        "POST",
        &format!("{PODS}?fieldValidation=Strict"),
        None,
        Some(&body("clean", "")),
    );
    assert_eq!(ok.code, 201, "{}", ok.body);
    assert!(s.take_warnings().is_empty());
}

#[test]
fn warn_is_the_default_and_ignore_drops_silently() {
    let mut s = ApiServer::new(1);
    let r = s.request("POST", PODS, None, Some(&body("warned", r#","bogus":1"#)));
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(
        s.take_warnings(),
        [r#"unknown field "spec.containers[0].bogus""#]
    );
    assert!(s.take_warnings().is_empty(), "handed over once");
    // Update too.
    let mut pod: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    pod["spec"]["extra"] = serde_json::json!(true);
    let r = s.request(
        "PUT",
        &format!("{PODS}/warned?fieldValidation=Warn"),
        None,
        Some(&pod.to_string()),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(s.take_warnings(), [r#"unknown field "spec.extra""#]);
    assert!(
        !r.body.contains("extra"),
        "unknown fields are dropped: {}",
        r.body
    );

    let r = s.request(
        "POST",
        &format!("{PODS}?fieldValidation=Ignore"),
        None,
        Some(&body("ignored", r#","bogus":1"#)),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    assert!(s.take_warnings().is_empty());

    let r = s.request(
        "POST",
        &format!("{PODS}?fieldValidation=Loud"),
        None,
        Some(&body("bad", "")),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(
        r.body.contains(r#"fieldValidation: Unsupported value: \"Loud\": supported values: \"Ignore\", \"Strict\", \"Warn\""#),
        "{}",
        r.body
    );
}
