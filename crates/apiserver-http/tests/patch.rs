//! `kubectl patch` from the real kubectl, in its three types, against the engine over HTTP: the
//! engine applies each media type itself (strategic merge by merge key, JSON merge, JSON Patch),
//! and a patch that cannot apply comes back as the real kubectl prints a server error.

mod common;

use common::TestServer;

const DEPLOY: [&str; 4] = ["deployment", "orders-api", "-n", "production"];

fn get(s: &TestServer, jsonpath: &str) -> String {
    let mut args = vec!["get"];
    args.extend(DEPLOY);
    let path = format!("jsonpath={jsonpath}");
    args.extend(["-o", &path]);
    s.ok(&args)
}

fn patch(s: &TestServer, extra: &[&str]) -> common::Run {
    let mut args = vec!["patch"];
    args.extend(DEPLOY);
    args.extend(extra);
    s.kubectl(&args)
}

#[test]
fn the_three_patch_types_from_the_real_kubectl() {
    if !common::kubectl_available("the_three_patch_types_from_the_real_kubectl") {
        return;
    }
    let s = TestServer::start();
    // Strategic (kubectl's default): the container merges by name, keeping its other fields.
    let image = get(&s, "{.spec.template.spec.containers[0].image}");
    let name = get(&s, "{.spec.template.spec.containers[0].name}");
    let body = format!(
        r#"{{"spec":{{"template":{{"spec":{{"containers":[{{"name":"{name}","image":"{image}-next"}}]}}}}}}}}"#
    );
    let r = patch(&s, &["-p", &body]);
    assert_eq!(
        (r.code, r.stdout.trim()),
        (0, "deployment.apps/orders-api patched"),
        "{}",
        r.stderr
    );
    assert_eq!(
        get(&s, "{.spec.template.spec.containers[*].image}"),
        format!("{image}-next")
    );
    assert_eq!(
        get(&s, "{.spec.template.spec.containers[0].imagePullPolicy}"),
        "IfNotPresent"
    );
    // JSON merge patch.
    let r = patch(
        &s,
        &[
            "--type=merge",
            "-p",
            r#"{"metadata":{"labels":{"team":"orders"}}}"#,
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(get(&s, "{.metadata.labels.team}"), "orders");
    // JSON Patch: a failed test refuses the whole patch; then one that applies.
    let r = patch(
        &s,
        &[
            "--type=json",
            "-p",
            r#"[{"op":"test","path":"/spec/replicas","value":99}]"#,
        ],
    );
    assert_ne!(r.code, 0);
    // A 422 Invalid without causes, as kubectl words it.
    assert!(
        r.stderr.starts_with("The request is invalid: ") && r.stderr.contains("/spec/replicas"),
        "{}",
        r.stderr
    );
    let r = patch(
        &s,
        &[
            "--type=json",
            "-p",
            r#"[{"op":"replace","path":"/spec/replicas","value":4}]"#,
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(get(&s, "{.spec.replicas}"), "4");
}
