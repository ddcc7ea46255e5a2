//! `kubectl patch` against the engine's API server: the three `--type`s, what it prints, and
//! kubectl's own errors for bad input (which send nothing and change nothing).

use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::Kubectl;

fn cluster() -> (ApiServer, Kubectl) {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl create deployment web --image=nginx:1.25 --replicas=2",
        &mut api,
    );
    assert_eq!(out.stderr, "");
    (api, k)
}

fn get(k: &mut Kubectl, api: &mut ApiServer, jsonpath: &str) -> String {
    let out = k.exec(
        &format!("kubectl get deployment web -o jsonpath='{jsonpath}'"),
        api,
    );
    assert_eq!(out.stderr, "");
    out.stdout
}

#[test]
fn strategic_patch_by_default_merges_the_container_by_name() {
    let (mut api, mut k) = cluster();
    let out = k.exec(
        r#"kubectl patch deployment web -p '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}'"#,
        &mut api,
    );
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("deployment.apps/web patched\n", "")
    );
    assert_eq!(
        get(
            &mut k,
            &mut api,
            "{.spec.template.spec.containers[*].image}"
        ),
        "nginx:1.27"
    );
    assert_eq!(
        get(
            &mut k,
            &mut api,
            "{.spec.template.spec.containers[0].imagePullPolicy}"
        ),
        "IfNotPresent"
    );
}

#[test]
fn merge_and_json_types_and_no_change() {
    let (mut api, mut k) = cluster();
    let out = k.exec(
        r#"kubectl patch deploy web --type=merge -p '{"spec":{"replicas":4}}'"#,
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/web patched\n");
    assert_eq!(get(&mut k, &mut api, "{.spec.replicas}"), "4");
    let rv = api.revision();
    let out = k.exec(
        r#"kubectl patch deploy web --type=merge -p '{"spec":{"replicas":4}}'"#,
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/web patched (no change)\n");
    assert_eq!(api.revision(), rv, "a no-op patch writes nothing");
    let out = k.exec(
        r#"kubectl patch deployment web --type json -p '[{"op":"replace","path":"/spec/replicas","value":1}]'"#,
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/web patched\n");
    assert_eq!(get(&mut k, &mut api, "{.spec.replicas}"), "1");
    // YAML is read as well, as kubectl does.
    let out = k.exec(
        "kubectl patch deployment web --type merge -p 'spec: {replicas: 3}'",
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/web patched\n");
    assert_eq!(get(&mut k, &mut api, "{.spec.replicas}"), "3");
    // A file from the editor, as `apply -f` reads them.
    k.set_file("replicas.yaml", "spec:\n  replicas: 5\n");
    let out = k.exec(
        "kubectl patch deployment web --patch-file replicas.yaml",
        &mut api,
    );
    assert_eq!(out.stdout, "deployment.apps/web patched\n");
    assert_eq!(get(&mut k, &mut api, "{.spec.replicas}"), "5");
    let out = k.exec(r#"kubectl patch deployment web --type merge -p '{"spec":{"replicas":2}}' -o jsonpath={.spec.replicas}"#, &mut api);
    assert_eq!(out.stdout, "2");
}

#[test]
fn bad_input_gets_kubectls_errors_and_changes_nothing() {
    let (mut api, mut k) = cluster();
    let rv = api.revision();
    let cases = [
        (
            "kubectl patch deployment web",
            "error: must specify --patch or --patch-file containing the contents of the patch\n",
        ),
        (
            r#"kubectl patch deployment web --type=xml -p '{}'"#,
            "error: --type must be one of [json merge strategic], not \"xml\"\n",
        ),
        (
            r#"kubectl patch deployment nope -p '{"spec":{}}'"#,
            "Error from server (NotFound): deployments.apps \"nope\" not found\n",
        ),
        (
            r#"kubectl patch deployment web --type json -p '[{"op":"test","path":"/spec/replicas","value":9}]'"#,
            "",
        ),
        (
            r#"kubectl patch deployment web --type merge -p '{"spec":{"replicas":-1}}'"#,
            "",
        ),
    ];
    for (line, want) in cases {
        let out = k.exec(line, &mut api);
        assert_eq!(out.stdout, "", "{line}");
        assert!(!out.stderr.is_empty(), "{line}");
        if !want.is_empty() {
            assert_eq!(out.stderr, want, "{line}");
        }
    }
    let out = k.exec(
        "kubectl patch deployment web --patch-file=missing.yaml",
        &mut api,
    );
    assert_eq!(
        out.stderr,
        "error: unable to read patch file: open missing.yaml: no such file or directory\n"
    );
    let out = k.exec(
        "kubectl patch deployment web -p '{}' --patch-file=p.yaml",
        &mut api,
    );
    assert_eq!(
        out.stderr,
        "error: cannot specify --patch and --patch-file together\n"
    );
    let out = k.exec("kubectl patch deployment web -p '{spec: ['", &mut api);
    assert!(
        out.stderr
            .starts_with("error: unable to parse \"{spec: [\": "),
        "{}",
        out.stderr
    );
    assert_eq!(api.revision(), rv);
}
