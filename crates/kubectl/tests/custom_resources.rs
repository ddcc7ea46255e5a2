//! The console's kubectl with a CustomResourceDefinition, against watchlab's API server: the new
//! resource is known to the next command (discovery), is applied, listed, described and
//! deleted, and is unknown again once its definition is deleted.

use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::Kubectl;

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: websites.example.com
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
        properties:
          spec:
            type: object
            properties:
              host: {type: string}
"#;

const BLOG: &str = r#"apiVersion: example.com/v1
kind: Website
metadata: {name: blog}
spec: {host: blog.example.com}
"#;

#[test]
fn a_crd_teaches_the_console_a_new_resource() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    let unknown = k.exec("kubectl get websites", &mut api);
    assert_eq!(
        unknown.stderr,
        "error: the server doesn't have a resource type \"websites\"\n"
    );
    k.set_file("crd.yaml", CRD);
    k.set_file("blog.yaml", BLOG);
    let out = k.exec("kubectl apply -f crd.yaml", &mut api);
    assert_eq!(
        out.stdout, "customresourcedefinition.apiextensions.k8s.io/websites.example.com created\n",
        "{}",
        out.stderr
    );
    let resources = k.exec("kubectl api-resources --api-group=example.com", &mut api);
    assert!(
        resources
            .stdout
            .contains("websites   ws           example.com/v1"),
        "{}",
        resources.stdout
    );
    let out = k.exec("kubectl apply -f blog.yaml", &mut api);
    assert_eq!(
        out.stdout, "website.example.com/blog created\n",
        "{}",
        out.stderr
    );
    let listed = k.exec("kubectl get ws", &mut api);
    assert_eq!(listed.stdout, "NAME   AGE\nblog   0s\n");
    let host = k.exec(
        "kubectl get website blog -o jsonpath={.spec.host}",
        &mut api,
    );
    assert_eq!(host.stdout, "blog.example.com");
    let described = k.exec("kubectl describe ws blog", &mut api);
    assert!(
        described.stdout.contains("blog.example.com"),
        "{}",
        described.stdout
    );
    let out = k.exec("kubectl delete crd websites.example.com", &mut api);
    assert_eq!(
        out.stdout,
        "customresourcedefinition.apiextensions.k8s.io \"websites.example.com\" deleted\n"
    );
    let gone = k.exec("kubectl get websites", &mut api);
    assert_eq!(
        gone.stderr,
        "error: the server doesn't have a resource type \"websites\"\n"
    );
}

#[test]
fn get_prints_the_definitions_printer_columns() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    let crd = CRD.replace(
        "    schema:\n",
        "    additionalPrinterColumns:
    - {name: Host, type: string, jsonPath: .spec.host}
    - {name: Ready, type: boolean, jsonPath: .status.ready}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:\n",
    );
    k.set_file("crd.yaml", &crd);
    k.set_file("blog.yaml", BLOG);
    for f in ["crd.yaml", "blog.yaml"] {
        let out = k.exec(&format!("kubectl apply -f {f}"), &mut api);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
    let listed = k.exec("kubectl get ws", &mut api);
    assert_eq!(
        listed.stdout,
        "NAME   HOST               READY    AGE\nblog   blog.example.com   <none>   0s\n"
    );
    let wide = k.exec("kubectl get websites -o wide", &mut api);
    assert_eq!(
        wide.stdout,
        "NAME   HOST               READY    REPLICAS   AGE\nblog   blog.example.com   <none>   <none>     0s\n"
    );
    // Other formats are untouched.
    let host = k.exec("kubectl get ws blog -o jsonpath={.spec.host}", &mut api);
    assert_eq!(host.stdout, "blog.example.com");
}

#[test]
fn a_field_the_schema_does_not_declare_is_refused_by_default_and_pruned_without_validation() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    k.set_file("crd.yaml", CRD);
    k.set_file(
        "typo.yaml",
        &BLOG.replace("spec: {host", "spec: {hots: x, host"),
    );
    let out = k.exec("kubectl apply -f crd.yaml", &mut api);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let refused = k.exec("kubectl apply -f typo.yaml", &mut api);
    assert_eq!(
        (refused.stderr.as_str(), refused.exit_code),
        (
            "Error from server (BadRequest): error when creating \"typo.yaml\": Website in version \"v1\" cannot be handled as a Website: strict decoding error: unknown field \"spec.hots\"\n",
            1
        )
    );
    let out = k.exec("kubectl apply -f typo.yaml --validate=false", &mut api);
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("website.example.com/blog created\n", "")
    );
    let spec = k.exec("kubectl get ws blog -o jsonpath={.spec}", &mut api);
    assert_eq!(spec.stdout, r#"{"host":"blog.example.com"}"#);
}
