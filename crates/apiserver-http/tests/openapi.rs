//! The real kubectl v1.32 with the server's OpenAPI v3 documents: `apply -f`, `create -f` and
//! `apply --server-side -f` work without `--validate=false` (kubectl finds `fieldValidation` on
//! the kind's PATCH operation and sends `fieldValidation=Strict`), an unknown field gets the
//! server's strict decoding error, a client-side apply's patch is computed from the served
//! schema (merge keys included), `kubectl edit` patches what the editor changed, and `kubectl
//! explain` prints the schemas, a custom resource's too. Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::TestServer;

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
";

#[test]
fn apply_and_create_need_no_validate_flag() {
    need_kubectl!("apply_and_create_need_no_validate_flag");
    let s = TestServer::start();
    let file = s.write("deploy.yaml", DEPLOYMENT);
    let file = file.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["apply", "-f", file]).trim(),
        "deployment.apps/web created"
    );
    // The second apply patches: kubectl computes the strategic merge patch from the served
    // schema, which merges the containers by name.
    let changed = DEPLOYMENT
        .replace("replicas: 2", "replicas: 3")
        .replace("nginx:1.27", "nginx:1.28");
    s.write("deploy.yaml", &changed);
    let r = s.kubectl(&["apply", "-f", file, "-v=8"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.trim(), "deployment.apps/web configured");
    assert!(
        r.stderr.contains("$setElementOrder/containers") && !r.stderr.contains("warning:"),
        "{}",
        r.stderr
    );
    assert_eq!(
        s.ok(&[
            "get",
            "deploy",
            "web",
            "-o",
            "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}"
        ]),
        "3 nginx:1.28"
    );
    let cm = s.write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n",
    );
    let cm = cm.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["create", "-f", cm]).trim(),
        "configmap/settings created"
    );
    assert_eq!(
        s.ok(&["apply", "--server-side", "-f", file]).trim(),
        "deployment.apps/web serverside-applied"
    );
}

#[test]
fn an_unknown_field_gets_the_servers_strict_decoding_error() {
    need_kubectl!("an_unknown_field_gets_the_servers_strict_decoding_error");
    let s = TestServer::start();
    let bad = DEPLOYMENT.replace("  replicas: 2\n", "  replicas: 2\n  foo: bar\n");
    let file = s.write("bad.yaml", &bad);
    let file = file.to_str().unwrap_or_default();
    for verb in ["create", "apply"] {
        let r = s.kubectl(&[verb, "-f", file]);
        assert_eq!(r.code, 1, "{verb}: {}{}", r.stdout, r.stderr);
        let expected = format!(
            "Error from server (BadRequest): error when creating \"{file}\": Deployment in \
             version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown \
             field \"spec.foo\""
        );
        assert_eq!(r.stderr.trim(), expected, "{verb}");
    }
    assert_eq!(s.kubectl(&["get", "deploy", "web"]).code, 1);
}

#[test]
fn explain_prints_the_served_schemas() {
    need_kubectl!("explain_prints_the_served_schemas");
    let s = TestServer::start();
    let pods = s.ok(&["explain", "pods"]);
    let lines: Vec<&str> = pods.lines().take(4).collect();
    assert_eq!(
        lines,
        ["KIND:       Pod", "VERSION:    v1", "", "DESCRIPTION:"]
    );
    assert!(pods.contains("FIELDS:\n  apiVersion\t<string>"), "{pods}");
    assert!(pods.contains("  spec\t<PodSpec>"), "{pods}");
    let replicas = s.ok(&["explain", "deployment.spec.replicas"]);
    let lines: Vec<&str> = replicas.lines().take(5).collect();
    assert_eq!(
        lines,
        [
            "GROUP:      apps",
            "KIND:       Deployment",
            "VERSION:    v1",
            "",
            "FIELD: replicas <integer>"
        ]
    );
    assert!(
        replicas.contains("DESCRIPTION:\n    How many pods"),
        "{replicas}"
    );
    let recursive = s.ok(&["explain", "pods.spec", "--recursive"]);
    assert!(
        recursive.contains("  containers\t<[]Container>\n"),
        "{recursive}"
    );
    assert!(
        recursive.contains("      containerPort\t<integer>"),
        "{recursive}"
    );
    let r = s.kubectl(&["explain", "pods.spec.nope"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr.trim(), "error: field \"nope\" does not exist");
}

#[test]
fn explain_reads_a_custom_resources_schema_once_established() {
    need_kubectl!("explain_reads_a_custom_resources_schema_once_established");
    let s = TestServer::start();
    let crd = s.write(
        "crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1
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
        properties:
          spec:
            type: object
            description: What the site serves.
            properties:
              host: {type: string, description: The site's host name.}
",
    );
    let crd = crd.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["apply", "-f", crd]).trim(),
        "customresourcedefinition.apiextensions.k8s.io/websites.example.com created"
    );
    let out = s.ok(&["explain", "websites.spec"]);
    let lines: Vec<&str> = out.lines().take(5).collect();
    assert_eq!(
        lines,
        [
            "GROUP:      example.com",
            "KIND:       Website",
            "VERSION:    v1",
            "",
            "FIELD: spec <Object>"
        ]
    );
    assert!(
        out.contains("  host\t<string>\n    The site's host name."),
        "{out}"
    );
    let site = s.write(
        "site.yaml",
        "apiVersion: example.com/v1\nkind: Website\nmetadata: {name: a}\nspec: {host: example.org}\n",
    );
    assert_eq!(
        s.ok(&["apply", "-f", site.to_str().unwrap_or_default()])
            .trim(),
        "website.example.com/a created"
    );
}

/// `kubectl edit` downloads the object, hands it to `$KUBE_EDITOR`, and sends back what the
/// editor changed as a strategic merge patch computed from the served schema, validated
/// without flags; an edit adding an unknown field is refused and the file kept for another go.
#[test]
fn edit_patches_what_the_editor_changed() {
    need_kubectl!("edit_patches_what_the_editor_changed");
    let s = TestServer::start();
    let file = s.write("deploy.yaml", DEPLOYMENT);
    s.ok(&["apply", "-f", file.to_str().unwrap_or_default()]);
    let editor = s.write(
        "editor.sh",
        "#!/bin/sh\nsed -i 's/replicas: 2/replicas: 4/; s/nginx:1.27/nginx:1.28/' \"$1\"\n",
    );
    let typo = s.write(
        "typo.sh",
        "#!/bin/sh\nsed -i 's/^  replicas: 4/  replicas: 4\\n  replica: 5/' \"$1\"\n",
    );
    for script in [&editor, &typo] {
        let mut perms = std::fs::metadata(script).map(|m| m.permissions()).ok();
        if let Some(p) = perms.as_mut() {
            std::os::unix::fs::PermissionsExt::set_mode(p, 0o755);
            let _ = std::fs::set_permissions(script, p.clone());
        }
    }
    let editor = editor.to_str().unwrap_or_default();
    let r = s.kubectl_with_env(&["edit", "deployment", "web"], &[("KUBE_EDITOR", editor)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.trim(), "deployment.apps/web edited");
    assert_eq!(
        s.ok(&[
            "get",
            "deploy",
            "web",
            "-o",
            "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}"
        ]),
        "4 nginx:1.28"
    );
    let typo = typo.to_str().unwrap_or_default();
    let r = s.kubectl_with_env(&["edit", "deployment", "web"], &[("KUBE_EDITOR", typo)]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .starts_with("error: deployments.apps \"web\" is invalid\n")
            && r.stderr
                .contains("error: Edit cancelled, no valid changes were saved."),
        "{}",
        r.stderr
    );
    // kubectl keeps the edit with the server's reason written above it.
    let copy = r
        .stderr
        .split('"')
        .find(|p| p.starts_with("/tmp/kubectl-edit-"))
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    assert!(
        copy.contains("strict decoding error: unknown field \"spec.replica\""),
        "{copy}"
    );
    assert_eq!(
        s.ok(&["get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"]),
        "4"
    );
}
