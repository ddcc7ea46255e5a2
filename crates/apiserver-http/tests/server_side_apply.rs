//! Server-side apply with the real kubectl and kube-rs through the HTTP server: `kubectl apply
//! --server-side` creates, a re-apply without a label removes it, `kubectl scale` takes
//! `spec.replicas` so a re-apply with another count is refused with the real conflict text
//! until `--force-conflicts`, `--show-managed-fields` shows the managers, and kube-rs's
//! `Patch::Apply` applies and conflicts the same way.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::TestServer;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use kube::{Client, Config};
use serde_json::{json, Value};

fn manifest(replicas: u32, labels: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {labels}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
"
    )
}

fn managers(s: &TestServer) -> Vec<(String, String, String)> {
    let out = s.ok(&[
        "get",
        "deployment",
        "web",
        "-o",
        "json",
        "--show-managed-fields",
    ]);
    let v: Value = serde_json::from_str(&out).expect("json");
    v["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields")
        .iter()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (text("manager"), text("operation"), text("subresource"))
        })
        .collect()
}

#[test]
fn kubectl_server_side_apply_conflicts_and_forces() {
    if !common::kubectl_available("kubectl_server_side_apply_conflicts_and_forces") {
        return;
    }
    let s = TestServer::start();
    let first = s.write("web.yaml", &manifest(2, "{app: web, tier: front}"));
    let first = first.to_str().expect("path");
    assert_eq!(
        s.ok(&["apply", "--validate=false", "--server-side", "-f", first]),
        "deployment.apps/web serverside-applied\n"
    );
    assert!(managers(&s).contains(&("kubectl".into(), "Apply".into(), String::new())));
    // Without --show-managed-fields kubectl leaves them out, as the real server's clients do.
    let yaml = s.ok(&["get", "deployment", "web", "-o", "yaml"]);
    assert!(!yaml.contains("managedFields"), "{yaml}");

    // The label the applier no longer sets goes.
    let second = s.write("web2.yaml", &manifest(2, "{app: web}"));
    let second = second.to_str().expect("path");
    s.ok(&["apply", "--validate=false", "--server-side", "-f", second]);
    let labels = s.ok(&[
        "get",
        "deployment",
        "web",
        "-o",
        "jsonpath={.metadata.labels}",
    ]);
    assert_eq!(labels, r#"{"app":"web"}"#);

    // kubectl scale takes spec.replicas (an Update on the scale subresource).
    s.ok(&["scale", "deployment", "web", "--replicas=4"]);
    let third = s.write("web3.yaml", &manifest(3, "{app: web}"));
    let third = third.to_str().expect("path");
    let refused = s.kubectl(&["apply", "--validate=false", "--server-side", "-f", third]);
    assert_eq!(refused.code, 1, "{}{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas\nPlease review the fields above--they currently have other managers."
        ),
        "{}",
        refused.stderr
    );
    assert_eq!(
        s.ok(&[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.replicas}"
        ]),
        "4"
    );
    // --force-conflicts wins and takes the field.
    s.ok(&[
        "apply",
        "--validate=false",
        "--server-side",
        "--force-conflicts",
        "-f",
        third,
    ]);
    assert_eq!(
        s.ok(&[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.replicas}"
        ]),
        "3"
    );
    // Another field manager is another owner.
    let out = s.ok(&[
        "apply",
        "--validate=false",
        "--server-side",
        "--field-manager=ci",
        "-f",
        third,
    ]);
    assert_eq!(out, "deployment.apps/web serverside-applied\n");
    let m = managers(&s);
    assert!(
        m.contains(&("ci".into(), "Apply".into(), String::new())),
        "{m:?}"
    );
    assert!(
        m.contains(&("kubectl".into(), "Apply".into(), String::new())),
        "{m:?}"
    );
}

#[tokio::test]
async fn kube_rs_patch_apply() {
    let s = TestServer::start();
    let url: http::Uri = format!("http://{}", s.addr).parse().expect("url");
    let client = Client::try_from(Config::new(url)).expect("client");
    let deployments: Api<Deployment> = Api::namespaced(client, "default");
    let config = |replicas: i32| {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "api"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "api"}},
                "template": {"metadata": {"labels": {"app": "api"}},
                    "spec": {"containers": [{"name": "api", "image": "busybox:1.36"}]}}}
        })
    };
    let pp = PatchParams::apply("my-operator");
    let d = deployments
        .patch("api", &pp, &Patch::Apply(config(2)))
        .await
        .expect("apply creates");
    assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(2));
    let entries = d.metadata.managed_fields.unwrap_or_default();
    assert!(entries
        .iter()
        .any(|e| e.manager.as_deref() == Some("my-operator")
            && e.operation.as_deref() == Some("Apply")));
    // Another manager changing the replicas conflicts; forced, it wins.
    let other = PatchParams::apply("someone-else");
    let err = deployments
        .patch("api", &other, &Patch::Apply(config(5)))
        .await
        .expect_err("conflict");
    match err {
        kube::Error::Api(e) => {
            assert_eq!(e.code, 409);
            assert_eq!(
                e.message,
                "Apply failed with 1 conflict: conflict with \"my-operator\": .spec.replicas"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let d = deployments
        .patch("api", &other.force(), &Patch::Apply(config(5)))
        .await
        .expect("forced");
    assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(5));
}
