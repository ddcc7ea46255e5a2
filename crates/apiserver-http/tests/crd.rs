//! CustomResourceDefinitions with the real kubectl v1.32 against watchlab-apiserver: `apply -f`
//! of a CRD, the new resource in `api-resources` and `get` (its additionalPrinterColumns, as the
//! server's Table), `get -w`, `-o yaml`, a schema error, and `delete crd` taking the resource
//! away; a custom object with a field its schema does not declare refused by kubectl's default
//! `--validate=strict` (the server's strict decoding error), warned about with
//! `--validate=warn`, stored pruned with `--validate=false`. Skipped (with a note) without
//! kubectl.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{kubectl_available, TestServer};
use std::time::Duration;

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: websites.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: websites
    singular: website
    kind: Website
    shortNames: [ws]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Host
      type: string
      jsonPath: .spec.host
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [host]
            properties:
              host: {type: string}
              replicas: {type: integer, minimum: 1}
"#;

const BLOG: &str = r#"apiVersion: example.com/v1
kind: Website
metadata:
  name: blog
spec:
  host: blog.example.com
  replicas: 2
  colour: blue
"#;

#[test]
fn kubectl_applies_a_crd_and_serves_its_resource() {
    if !kubectl_available("kubectl_applies_a_crd_and_serves_its_resource") {
        return;
    }
    let s = TestServer::start();
    let crd = s.write("crd.yaml", CRD);
    let crd = crd.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["apply", "--validate=false", "-f", crd]).trim(),
        "customresourcedefinition.apiextensions.k8s.io/websites.example.com created"
    );
    let established = s.ok(&[
        "get",
        "crd",
        "websites.example.com",
        "-o",
        "jsonpath={.status.conditions[?(@.type==\"Established\")].status}",
    ]);
    assert_eq!(established, "True");
    let resources = s.ok(&["api-resources", "--api-group=example.com"]);
    assert!(
        resources
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["websites", "ws", "example.com/v1", "true", "Website"]),
        "{resources}"
    );

    let mut watch = s.spawn(&["get", "websites", "-w"]);
    watch.wait_for(Duration::from_secs(10), |t| {
        t.contains("No resources") || t.contains("NAME")
    });
    let blog = s.write("blog.yaml", BLOG);
    let blog = blog.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["apply", "--validate=false", "-f", blog]).trim(),
        "website.example.com/blog created"
    );
    // The watch prints the new row with its printer columns (a whole line: the stream may be
    // read mid-line).
    let row = |t: &str| {
        t.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["blog", "blog.example.com", "2"])
    };
    let seen = watch.wait_for(Duration::from_secs(10), row);
    assert!(row(&seen), "{seen}");
    watch.stop();

    let table = s.ok(&["get", "ws"]);
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["NAME", "HOST", "REPLICAS"],
            vec!["blog", "blog.example.com", "2"]
        ],
        "{table:?}"
    );
    let yaml = s.ok(&["get", "website", "blog", "-o", "yaml"]);
    assert!(yaml.contains("host: blog.example.com"), "{yaml}");
    assert!(yaml.contains("kind: Website"), "{yaml}");
    let spec = s.ok(&["get", "website", "blog", "-o", "jsonpath={.spec}"]);
    assert_eq!(
        spec, r#"{"host":"blog.example.com","replicas":2}"#,
        "unknown fields are pruned"
    );

    let bad = s.write(
        "bad.yaml",
        &BLOG
            .replace("name: blog", "name: shop")
            .replace("replicas: 2", "replicas: 0"),
    );
    let refused = s.kubectl(&[
        "apply",
        "--validate=false",
        "-f",
        bad.to_str().unwrap_or_default(),
    ]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains(
            "The Website \"shop\" is invalid: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"
        ),
        "{}",
        refused.stderr
    );

    assert_eq!(
        s.ok(&["delete", "crd", "websites.example.com"]).trim(),
        "customresourcedefinition.apiextensions.k8s.io \"websites.example.com\" deleted"
    );
    let gone = s.kubectl(&["get", "websites"]);
    assert_ne!(gone.code, 0);
    // kubectl's discovery cache may still list the resource; the server no longer serves it.
    assert!(
        gone.stderr.contains("the server doesn't have a resource type \"websites\"")
            || gone.stderr.contains(
                "Unable to list \"example.com/v1, Resource=websites\": the server could not find the requested resource"
            ),
        "{}",
        gone.stderr
    );
    let left = s.with_cluster(|c| {
        c.api()
            .store()
            .get("/registry/example.com/websites/default/blog")
            .is_some()
    });
    assert!(!left, "the definition's objects are deleted with it");
}

#[test]
fn kubectl_validation_refuses_warns_or_prunes_an_undeclared_field() {
    if !kubectl_available("kubectl_validation_refuses_warns_or_prunes_an_undeclared_field") {
        return;
    }
    let s = TestServer::start();
    let crd = s.write("crd.yaml", CRD);
    s.ok(&["apply", "-f", crd.to_str().unwrap_or_default()]);
    // BLOG says `colour`, which the schema does not declare: kubectl's default
    // `--validate=strict` sends `fieldValidation=Strict`, and the server refuses.
    let blog = s.write("blog.yaml", BLOG);
    let blog = blog.to_str().unwrap_or_default();
    for verb in ["apply", "create"] {
        let r = s.kubectl(&[verb, "-f", blog]);
        assert_eq!(r.code, 1, "{verb}: {}{}", r.stdout, r.stderr);
        assert_eq!(
            r.stderr.trim(),
            format!(
                "Error from server (BadRequest): error when creating \"{blog}\": Website in \
                 version \"v1\" cannot be handled as a Website: strict decoding error: unknown \
                 field \"spec.colour\""
            ),
            "{verb}"
        );
    }
    assert_eq!(s.kubectl(&["get", "website", "blog"]).code, 1);
    let ssa = s.kubectl(&["apply", "--server-side", "-f", blog]);
    assert_eq!(ssa.code, 1, "{}{}", ssa.stdout, ssa.stderr);
    assert!(
        ssa.stderr.contains(
            "failed to create typed patch object (example.com/v1, Kind=Website): .spec.colour: field not declared in schema"
        ),
        "{}",
        ssa.stderr
    );

    // `--validate=warn`: created, with the server's warning.
    let warned = s.write("warned.yaml", &BLOG.replace("name: blog", "name: warned"));
    let r = s.kubectl(&[
        "apply",
        "--validate=warn",
        "-f",
        warned.to_str().unwrap_or_default(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "website.example.com/warned created");
    assert_eq!(r.stderr.trim(), "Warning: unknown field \"spec.colour\"");

    // `--validate=false`: created without a word, and stored pruned.
    let r = s.kubectl(&["apply", "--validate=false", "-f", blog]);
    assert_eq!(
        (r.code, r.stdout.trim(), r.stderr.as_str()),
        (0, "website.example.com/blog created", "")
    );
    for name in ["blog", "warned"] {
        assert_eq!(
            s.ok(&["get", "website", name, "-o", "jsonpath={.spec}"]),
            r#"{"host":"blog.example.com","replicas":2}"#,
            "{name}"
        );
    }
}
