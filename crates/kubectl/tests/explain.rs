//! `kubectl explain` in the console against watchlab's API server: the header, the `FIELD:`
//! line, descriptions and field lists read from the served OpenAPI v3 documents, `--recursive`,
//! `--api-version`, a custom resource's schema once its definition is established, and
//! kubectl's errors (the byte-for-byte comparison with the real kubectl is
//! `crates/apiserver-http/tests/explain_console.rs`).

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
            description: What the site serves.
            required: [host]
            properties:
              host: {type: string, description: The site's host name.}
              paths: {type: array, items: {type: string}}
"#;

#[test]
fn a_field_path_prints_its_field_line_description_and_fields() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    let out = k.exec("kubectl explain deployments.spec.strategy", &mut api);
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with(
            "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: strategy <DeploymentStrategy>\n\n\nDESCRIPTION:\n    "
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("FIELDS:\n  rollingUpdate\t<RollingUpdateDeployment>\n    "),
        "{}",
        out.stdout
    );
    let pods = k.exec("kubectl explain po", &mut api);
    assert!(
        pods.stdout
            .starts_with("KIND:       Pod\nVERSION:    v1\n\nDESCRIPTION:\n"),
        "{}",
        pods.stdout
    );
    assert!(
        pods.stdout.contains("\n  spec\t<PodSpec>\n"),
        "{}",
        pods.stdout
    );
    assert!(pods.stdout.ends_with("\n\n\n"), "{:?}", pods.stdout);
    let recursive = k.exec("kubectl explain deploy.spec.strategy --recursive", &mut api);
    assert!(
        recursive.stdout.ends_with(
            "FIELDS:\n  rollingUpdate\t<RollingUpdateDeployment>\n    maxSurge\t<IntOrString>\n    maxUnavailable\t<IntOrString>\n  type\t<string>\n\n"
        ),
        "{}",
        recursive.stdout
    );
    let pinned = k.exec(
        "kubectl explain deploy.spec --api-version=apps/v1",
        &mut api,
    );
    assert!(
        pinned.stdout.contains("FIELD: spec <DeploymentSpec>\n"),
        "{}",
        pinned.stdout
    );
}

#[test]
fn a_custom_resource_is_explained_from_its_schema() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    let unknown = k.exec("kubectl explain websites", &mut api);
    assert_eq!(
        (
            unknown.stdout.as_str(),
            unknown.stderr.as_str(),
            unknown.exit_code
        ),
        (
            "",
            "the server doesn't have a resource type \"websites\"\n",
            1
        )
    );
    k.set_file("crd.yaml", CRD);
    let out = k.exec("kubectl apply -f crd.yaml", &mut api);
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    let out = k.exec("kubectl explain ws.spec", &mut api);
    assert_eq!(
        out.stdout,
        concat!(
            "GROUP:      example.com\nKIND:       Website\nVERSION:    v1\n\n",
            "FIELD: spec <Object>\n\n\n",
            "DESCRIPTION:\n    What the site serves.\n    \n",
            "FIELDS:\n",
            "  host\t<string> -required-\n    The site's host name.\n\n",
            "  paths\t<[]string>\n    <no description>\n\n\n",
        )
    );
}

#[test]
fn errors_read_as_kubectls() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    let missing = k.exec("kubectl explain pods.spec.nope", &mut api);
    assert_eq!(missing.stdout, "KIND:       Pod\nVERSION:    v1\n\n");
    assert_eq!(missing.stderr, "error: field \"nope\" does not exist\n");
    assert_eq!(missing.exit_code, 1);
    for (line, stderr) in [
        (
            "kubectl explain",
            "error: You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n",
        ),
        (
            "kubectl explain pods nodes",
            "error: We accept only this format: explain RESOURCE\n",
        ),
        (
            "kubectl explain deploy --api-version=apps/v2",
            "error: couldn't find resource for \"apps/v2, Resource=deployments\"\n",
        ),
        (
            "kubectl explain deploy --api-version=v1",
            "error: GVR (/v1, Resource=deployments) not found in OpenAPI schema\n",
        ),
        ("kubectl explain pods -o yaml", "error: unrecognized format: yaml\n"),
        (
            "kubectl explain pods --bogus",
            "Error: unknown flag: --bogus\nSee 'kubectl explain --help' for usage.\n",
        ),
    ] {
        let out = k.exec(line, &mut api);
        assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", stderr), "{line}");
    }
    let help = k.exec("kubectl explain --help", &mut api);
    assert!(
        help.stdout.contains("kubectl explain TYPE"),
        "{}",
        help.stdout
    );
}
