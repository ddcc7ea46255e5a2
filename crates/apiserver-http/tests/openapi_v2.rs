//! The real kubectl v1.32 with the server's OpenAPI v2 document: `kubectl explain
//! --output=plaintext-openapiv2` fetches `/openapi/v2` in protobuf (gnostic's
//! `openapi.v2.Document`) and prints the kinds, their fields, types and descriptions from it,
//! `--recursive` too, and a custom resource's once its CRD is established (gone again when the
//! CRD is deleted); `kubectl get --raw /openapi/v2` reads the same document in JSON. Skipped
//! (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use std::process::Command;
use std::time::Duration;

use common::{wait_until, TestServer};
use serde_json::{json, Value};

const V2: &str = "--output=plaintext-openapiv2";

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: websites.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: websites, singular: website, kind: Website}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A web site the cluster serves.
        properties:
          spec:
            type: object
            description: What the site serves.
            properties:
              host: {type: string, description: The site's host name.}
              replicas: {type: integer, minimum: 1}
              paths: {type: array, items: {type: string}, x-kubernetes-list-type: set}
";

#[test]
fn explain_v2_prints_a_kind_from_the_protobuf_document() {
    need_kubectl!("explain_v2_prints_a_kind_from_the_protobuf_document");
    let s = TestServer::start();
    let r = s.kubectl(&["explain", "pods", V2, "-v=8"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // kubectl asked for protobuf, and got it.
    assert!(
        r.stderr
            .contains("Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
            && r.stderr.contains(
                "Content-Type: application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
            ),
        "{}",
        r.stderr
    );
    let out = r.stdout;
    let head: Vec<&str> = out.lines().take(5).collect();
    assert_eq!(
        head,
        [
            "KIND:     Pod",
            "VERSION:  v1",
            "",
            "DESCRIPTION:",
            "     One or more containers scheduled together onto one node, sharing its"
        ]
    );
    assert!(
        out.contains("FIELDS:\n   apiVersion\t<string>\n     The group and version"),
        "{out}"
    );
    for field in [
        "   kind\t<string>\n",
        "   metadata\t<Object>\n     What every object has",
        "   spec\t<Object>\n",
        "   status\t<Object>\n",
    ] {
        assert!(out.contains(field), "{field}: {out}");
    }
    let r = s.kubectl(&["explain", "pods.spec.nope", V2]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr.trim(), "error: field \"nope\" does not exist");
}

#[test]
fn explain_v2_follows_a_field_and_recurses() {
    need_kubectl!("explain_v2_follows_a_field_and_recurses");
    let s = TestServer::start();
    let out = s.ok(&["explain", "deployments.spec.strategy", V2]);
    let head: Vec<&str> = out.lines().take(7).collect();
    assert_eq!(
        head,
        [
            "KIND:     Deployment",
            "VERSION:  apps/v1",
            "",
            "RESOURCE: strategy <Object>",
            "",
            "DESCRIPTION:",
            "     How a new template replaces the old pods."
        ]
    );
    // The field's description, then its type's.
    assert!(
        out.contains("     How a changed template replaces the old pods: RollingUpdate"),
        "{out}"
    );
    assert!(
        out.contains("FIELDS:\n   rollingUpdate\t<Object>\n"),
        "{out}"
    );
    assert!(out.contains("   type\t<string>\n"), "{out}");
    let replicas = s.ok(&["explain", "deployments.spec.replicas", V2]);
    assert!(
        replicas.contains("FIELD:    replicas <integer>\n\nDESCRIPTION:\n     How many pods"),
        "{replicas}"
    );
    let recursive = s.ok(&["explain", "deployments.spec.strategy", V2, "--recursive"]);
    assert!(
        recursive.ends_with(
            "FIELDS:\n   rollingUpdate\t<Object>\n      maxSurge\t<string>\n      maxUnavailable\t<string>\n   type\t<string>\n"
        ),
        "{recursive:?}"
    );
    let spec = s.ok(&["explain", "pods.spec", V2, "--recursive"]);
    for line in [
        "   containers\t<[]Object>\n",
        "      containerPort\t<integer>\n",
        "      env\t<[]Object>\n",
        "   nodeSelector\t<map[string]string>\n",
    ] {
        assert!(spec.contains(line), "{line}: {spec}");
    }
}

#[test]
fn explain_v2_reads_a_custom_resource_once_its_crd_is_established() {
    need_kubectl!("explain_v2_reads_a_custom_resource_once_its_crd_is_established");
    let s = TestServer::start();
    assert!(!raw(&s)["definitions"]
        .as_object()
        .is_some_and(|d| d.contains_key("com.example.v1.Website")));
    let crd = s.write("crd.yaml", CRD);
    let crd = crd.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["apply", "-f", crd]).trim(),
        "customresourcedefinition.apiextensions.k8s.io/websites.example.com created"
    );
    let out = s.ok(&["explain", "websites", V2]);
    let head: Vec<&str> = out.lines().take(5).collect();
    assert_eq!(
        head,
        [
            "KIND:     Website",
            "VERSION:  example.com/v1",
            "",
            "DESCRIPTION:",
            "     A web site the cluster serves."
        ]
    );
    assert!(
        out.contains("   spec\t<Object>\n     What the site serves."),
        "{out}"
    );
    let spec = s.ok(&["explain", "websites.spec", V2, "--recursive"]);
    assert!(
        spec.contains("   host\t<string>\n   paths\t<[]string>\n   replicas\t<integer>\n"),
        "{spec}"
    );
    let host = s.ok(&["explain", "websites.spec.host", V2]);
    assert!(
        host.contains("FIELD:    host <string>\n\nDESCRIPTION:\n     The site's host name."),
        "{host}"
    );
    let doc = raw(&s);
    let site = &doc["definitions"]["com.example.v1.Website"];
    assert_eq!(
        site["x-kubernetes-group-version-kind"],
        json!([{"group": "example.com", "version": "v1", "kind": "Website"}])
    );
    assert_eq!(
        site["properties"]["spec"]["properties"]["paths"]["x-kubernetes-list-type"],
        "set"
    );
    assert!(doc["paths"]
        .get("/apis/example.com/v1/namespaces/{namespace}/websites/{name}")
        .is_some());
    s.ok(&["delete", "-f", crd]);
    wait_until(
        "the CRD's definition to go",
        Duration::from_secs(10),
        || {
            let doc = raw(&s);
            let defs = doc["definitions"].as_object()?;
            (!defs.contains_key("com.example.v1.Website")).then_some(())
        },
    );
}

/// `kubectl get --raw /openapi/v2`, parsed. Run here with `output()`, which reads stdout
/// while kubectl writes it: the document (hundreds of kilobytes) outgrows a pipe's buffer, so
/// `TestServer::kubectl`, which reads once kubectl is done, would never see it end.
fn raw(s: &TestServer) -> Value {
    let config = s.kubeconfig();
    let out = Command::new("kubectl")
        .args(["get", "--raw", "/openapi/v2"])
        .env("KUBECONFIG", &config)
        .env("HOME", config.parent().unwrap_or(&config))
        .env_remove("KUBECTL_KUBERC")
        .output()
        .expect("run kubectl");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:.200}"))
}

#[test]
fn get_raw_reads_the_swagger_document_in_json() {
    need_kubectl!("get_raw_reads_the_swagger_document_in_json");
    let s = TestServer::start();
    let doc = raw(&s);
    assert_eq!(doc["swagger"], "2.0");
    assert_eq!(
        doc["info"],
        json!({"title": "Kubernetes", "version": "v1.32.0"})
    );
    let pod = &doc["definitions"]["io.k8s.api.core.v1.Pod"];
    assert_eq!(
        pod["x-kubernetes-group-version-kind"],
        json!([{"group": "", "version": "v1", "kind": "Pod"}])
    );
    assert_eq!(
        pod["properties"]["spec"]["$ref"],
        "#/definitions/io.k8s.api.core.v1.PodSpec"
    );
    let containers = &doc["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    assert_eq!(
        (
            &containers["x-kubernetes-patch-strategy"],
            &containers["x-kubernetes-patch-merge-key"]
        ),
        (&json!("merge"), &json!("name"))
    );
    let patch = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
    assert_eq!(
        patch["consumes"],
        json!([
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml"
        ])
    );
    assert_eq!(
        patch["parameters"][0],
        json!({"name": "body", "in": "body", "required": true, "schema": {"type": "object"}})
    );
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        json!({"group": "apps", "version": "v1", "kind": "Deployment"})
    );
    let list = &doc["paths"]["/api/v1/pods"]["get"];
    assert_eq!(list["operationId"], "listCoreV1PodForAllNamespaces");
    assert_eq!(
        list["responses"]["200"]["schema"]["$ref"],
        "#/definitions/io.k8s.api.core.v1.PodList"
    );
    assert!(list["produces"]
        .as_array()
        .is_some_and(|p| p.contains(&json!("application/json;stream=watch"))));
    assert!(!doc.to_string().contains("#/components/schemas/"));
}
