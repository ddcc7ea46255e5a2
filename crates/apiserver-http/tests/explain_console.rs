//! The page console's `kubectl explain` against the real kubectl v1.32's, on one server: both
//! read the same OpenAPI v3 documents, so for every served resource, for fields of built-in
//! kinds (`pods.spec.containers`, `deployments.spec.strategy`), for `--recursive` subtrees, for
//! a custom resource's schema (descriptions, required fields, enums, lists and maps) and for the
//! errors (an unknown resource or field, a group-version the server does not serve), the two
//! print the same stdout and stderr byte for byte. Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::TestServer;

/// A CRD whose schema has what the plaintext template prints differently: a described
/// object, a required field, an enum of more than four values, a list of objects, a map, and a
/// field that preserves unknown fields.
const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: websites.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: websites, singular: website, kind: Website, shortNames: [ws]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A website the operator serves from a Deployment of the same name.
        properties:
          spec:
            type: object
            description: >-
              What the site serves and how many copies of it run; a long description
              wraps at 76 columns as the real kubectl wraps it, word by word, never inside
              a word.
            required: [image]
            properties:
              image: {type: string, description: The container image that serves the site.}
              replicas: {type: integer, minimum: 0}
              tier: {type: string, enum: [free, basic, pro, business, enterprise]}
              routes:
                type: array
                description: Paths the site answers on.
                items:
                  type: object
                  required: [path]
                  properties:
                    path: {type: string}
                    weight: {type: integer}
              labels:
                type: object
                additionalProperties: {type: string}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              availableReplicas: {type: integer}
";

/// Runs `kubectl <line>` with the real binary and in the console; asserts the same output.
fn same(s: &TestServer, line: &str) -> String {
    let args: Vec<&str> = line.split_whitespace().collect();
    let real = s.kubectl(&args);
    let (stdout, stderr) = s.console_run(&format!("kubectl {line}"));
    assert_eq!(stdout, real.stdout, "stdout of kubectl {line}");
    assert_eq!(stderr, real.stderr, "stderr of kubectl {line}");
    real.stdout
}

#[test]
fn the_console_explains_built_in_kinds_as_the_real_kubectl() {
    need_kubectl!("the_console_explains_built_in_kinds_as_the_real_kubectl");
    let s = TestServer::start();
    let pods = same(&s, "explain pods");
    assert!(pods.starts_with("KIND:       Pod\nVERSION:    v1\n\nDESCRIPTION:\n"));
    let containers = same(&s, "explain pods.spec.containers");
    assert!(
        containers.contains("FIELD: containers <[]Container>"),
        "{containers}"
    );
    assert!(containers.contains("  name\t<string>"), "{containers}");
    let strategy = same(&s, "explain deployments.spec.strategy");
    assert!(strategy.starts_with("GROUP:      apps\n"), "{strategy}");
    let recursive = same(&s, "explain deployments.spec.strategy --recursive");
    assert!(
        recursive.contains("  rollingUpdate\t<RollingUpdateDeployment>\n    maxSurge\t<"),
        "{recursive}"
    );
    for line in [
        "explain pods.spec.containers.ports --recursive",
        "explain po.metadata.labels",
        "explain deploy.spec.template.spec.containers.name",
        "explain deployments.apps.spec.replicas",
        "explain Deployment.spec.selector",
        "explain deploy --api-version=apps/v1",
        "explain nodes.status.conditions --recursive",
        "explain svc.spec.ports.targetPort",
        "explain crd.spec.versions.schema",
        "explain pods.spec.",
        "explain pods.spec.containers.resources.limits",
        "explain deployments.spec.strategy.rollingUpdate.maxSurge",
        "explain pods.spec.volumes.configMap --recursive",
        "explain events.involvedObject",
    ] {
        same(&s, line);
    }
}

#[test]
fn every_served_resource_explains_alike() {
    need_kubectl!("every_served_resource_explains_alike");
    let s = TestServer::start();
    let names = s.ok(&["api-resources", "-o", "name"]);
    assert!(names.lines().count() > 10, "{names}");
    for name in names.lines() {
        let out = same(&s, &format!("explain {name}"));
        // (`events.events.k8s.io` stops at `error: field "io" does not exist` in both: the
        // core group's `events` prefixes it, and kubectl takes the first such type.)
        assert!(out.contains("KIND:       "), "{name}: {out}");
    }
    same(&s, "explain pods --recursive");
    same(&s, "explain customresourcedefinitions --recursive");
}

#[test]
fn a_custom_resource_explains_alike() {
    need_kubectl!("a_custom_resource_explains_alike");
    let s = TestServer::start();
    let crd = s.write("crd.yaml", CRD);
    s.ok(&["apply", "-f", crd.to_str().unwrap_or_default()]);
    let spec = same(&s, "explain websites.spec");
    assert!(spec.contains("  image\t<string> -required-\n"), "{spec}");
    assert!(
        spec.contains("  enum: free, basic, pro, business, ....\n"),
        "{spec}"
    );
    assert!(spec.contains("  labels\t<map[string]string>\n"), "{spec}");
    for line in [
        "explain websites",
        "explain ws",
        "explain ws.spec --recursive",
        "explain website.spec.routes",
        "explain websites.example.com.spec.tier",
        "explain ws.spec.extra",
        "explain ws.status --api-version=example.com/v1",
    ] {
        same(&s, line);
    }
}

#[test]
fn errors_are_the_real_kubectls() {
    need_kubectl!("errors_are_the_real_kubectls");
    let s = TestServer::start();
    for line in [
        "explain foo",
        "explain Foo.spec",
        "explain pods.spec.foo",
        "explain pods.spec.containers.name.foo",
        "explain deployments.v1.apps",
        "explain deploy --api-version=apps/v2",
        "explain deploy --api-version=v1",
        "explain deploy --api-version=a/b/c",
        "explain pods.spec[0]",
        "explain pods -o yaml",
        "explain",
        "explain pods nodes",
    ] {
        let args: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(s.kubectl(&args).code, 1, "kubectl {line}");
        same(&s, line);
    }
    let (_, stderr) = s.console_run("kubectl explain pods.spec.nope");
    assert_eq!(stderr, "error: field \"nope\" does not exist\n");
}
