//! The real kubectl v1.32 against watchlab-apiserver: `kubectl auth can-i`, whose
//! SelfSubjectAccessReview and SelfSubjectRulesReview (sent as protobuf by kubectl's typed
//! client) are answered as under `--authorization-mode=AlwaysAllow`. Skipped (with a note)
//! without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::TestServer;

/// How many writes kubectl made (the ledger's lines by user agent `kubectl`): the cluster's
/// own components keep writing, so the revision alone says nothing.
fn kubectl_writes(s: &TestServer) -> usize {
    s.with_cluster(|c| {
        c.api()
            .ledger()
            .iter()
            .filter(|e| &*e.user == "kubectl")
            .count()
    })
}

#[test]
fn can_i_answers_yes_to_everything_as_always_allow() {
    need_kubectl!("can_i_answers_yes_to_everything_as_always_allow");
    let s = TestServer::start();
    let before = kubectl_writes(&s);
    for args in [
        &["auth", "can-i", "create", "pods"][..],
        &["auth", "can-i", "*", "*"],
        &["auth", "can-i", "delete", "nodes", "--all-namespaces"],
        &["auth", "can-i", "get", "/healthz"],
        &[
            "auth",
            "can-i",
            "update",
            "deployments.apps/scale",
            "-n",
            "kube-system",
        ],
    ] {
        let r = s.kubectl(args);
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (0, "yes\n"),
            "{args:?}: {}",
            r.stderr
        );
    }
    let list = s.ok(&["auth", "can-i", "--list"]);
    let rows: Vec<Vec<&str>> = list
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec![
                "Resources",
                "Non-Resource",
                "URLs",
                "Resource",
                "Names",
                "Verbs"
            ],
            vec!["*.*", "[]", "[]", "[*]"],
            vec!["[*]", "[]", "[*]"],
        ],
        "{list}"
    );
    assert!(
        list.lines().nth(2).is_some_and(|l| l.starts_with(' ')),
        "{list}"
    );
    assert_eq!(kubectl_writes(&s), before, "a review writes nothing");
}

#[test]
fn reviews_are_create_only_in_discovery_and_on_the_wire() {
    need_kubectl!("reviews_are_create_only_in_discovery_and_on_the_wire");
    let s = TestServer::start();
    let resources = s.ok(&[
        "api-resources",
        "--api-group=authorization.k8s.io",
        "-o",
        "wide",
    ]);
    let rows: Vec<Vec<&str>> = resources
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec![
                "selfsubjectaccessreviews",
                "authorization.k8s.io/v1",
                "false",
                "SelfSubjectAccessReview",
                "create"
            ],
            vec![
                "selfsubjectrulesreviews",
                "authorization.k8s.io/v1",
                "false",
                "SelfSubjectRulesReview",
                "create"
            ],
        ],
        "{resources}"
    );
    for args in [
        &["get", "selfsubjectaccessreviews"][..],
        &["get", "selfsubjectrulesreviews"],
    ] {
        let r = s.kubectl(args);
        assert_eq!(r.code, 1, "{args:?}");
        assert_eq!(
            r.stderr.trim(),
            "Error from server (MethodNotAllowed): the server does not allow this method on the requested resource",
            "{args:?}"
        );
    }
}

#[test]
fn bad_reviews_get_the_servers_status_and_change_nothing() {
    need_kubectl!("bad_reviews_get_the_servers_status_and_change_nothing");
    let s = TestServer::start();
    let before = kubectl_writes(&s);
    let path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let post = |name: &str, body: &str, query: &str| {
        let file = s.write(name, body);
        let file = file.to_string_lossy().to_string();
        s.kubectl(&["create", "--raw", &format!("{path}{query}"), "-f", &file])
    };
    let wrong_kind = post(
        "wrong-kind.json",
        r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "default"}}"#,
        "",
    );
    assert_eq!(wrong_kind.code, 1);
    assert!(
        wrong_kind.stderr.contains("Error from server (BadRequest): SelfSubjectRulesReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: the object provided is unrecognized (must be of type SelfSubjectAccessReview)"),
        "{}",
        wrong_kind.stderr
    );
    let unknown = r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": {"resourceAttributes": {"verb": "get", "resource": "pods", "colour": "red"}}}"#;
    let strict = post("strict.json", unknown, "?fieldValidation=Strict");
    assert_eq!(strict.code, 1);
    assert!(
        strict.stderr.contains("Error from server (BadRequest): SelfSubjectAccessReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: strict decoding error: unknown field \"spec.resourceAttributes.colour\""),
        "{}",
        strict.stderr
    );
    let warned = post("warn.json", unknown, "");
    assert_eq!(warned.code, 0, "{}", warned.stderr);
    assert!(
        warned
            .stderr
            .contains("unknown field \"spec.resourceAttributes.colour\""),
        "{}",
        warned.stderr
    );
    assert!(
        warned.stdout.contains(r#""status":{"allowed":true}"#),
        "{}",
        warned.stdout
    );
    let neither = post(
        "neither.json",
        r#"{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": {}}"#,
        "",
    );
    assert!(
        neither.stderr.contains("The SelfSubjectAccessReview \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified"),
        "{}",
        neither.stderr
    );
    assert_eq!(kubectl_writes(&s), before, "nothing was written");
}
