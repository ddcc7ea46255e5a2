//! A container's command and environment from the console, against the engine with its
//! kubelets and controllers: what `kubectl create job -- CMD` and a manifest's `env` send is
//! kept and validated as v1.32 does, and a container whose environment names a ConfigMap that
//! does not exist waits in `CreateContainerConfigError` until it is created.

mod live;

use live::{cluster, jsonpath, ok, run};

/// What `kubectl create job -- CMD` sends is kept, in the Job and in the pod the Job controller
/// makes from it; an environment is kept with its `fieldRef` defaulted, and a bad one refused
/// with the API server's 422, changing nothing.
#[test]
fn a_containers_command_and_environment_are_kept_and_checked() {
    let (mut h, mut k) = cluster();
    ok(
        &mut k,
        &mut h,
        "kubectl create job hello --image=busybox:1.36 -- echo hi there",
    );
    h.run_for(3_000);
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "job hello",
            "{.spec.template.spec.containers[0].command}"
        ),
        r#"["echo","hi","there"]"#
    );
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "pods -l job-name=hello",
            "{.items[0].spec.containers[0].command}"
        ),
        r#"["echo","hi","there"]"#
    );
    k.set_file(
        "env.yaml",
        "apiVersion: v1
kind: Pod
metadata:
  name: env-demo
spec:
  containers:
  - name: app
    image: busybox:1.36
    args: [sh, -c, 'echo $MODE']
    workingDir: /srv
    env:
    - name: MODE
      value: prod
    - name: POD_NAME
      valueFrom:
        fieldRef:
          fieldPath: metadata.name
",
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl apply -f env.yaml"),
        "pod/env-demo created\n"
    );
    assert_eq!(
        jsonpath(&mut k, &mut h, "pod env-demo", "{.spec.containers[0].env[1].valueFrom.fieldRef.apiVersion} {.spec.containers[0].workingDir} {.spec.containers[0].args[2]}"),
        "v1 /srv echo $MODE"
    );
    k.set_file(
        "bad-env.yaml",
        "apiVersion: v1
kind: Pod
metadata:
  name: bad-env
spec:
  containers:
  - name: app
    image: busybox:1.36
    env:
    - name: KEY=1
      value: x
    - name: FROM
      value: x
      valueFrom:
        configMapKeyRef: {name: cfg, key: mode}
",
    );
    let (out, err) = run(&mut k, &mut h, "kubectl apply -f bad-env.yaml");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "The Pod \"bad-env\" is invalid: \n* spec.containers[0].env[0].name: Invalid value: \"KEY=1\": a valid environment variable name must consist only of printable ASCII characters other than '='\n* spec.containers[0].env[1].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty\n"
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl get pod bad-env").1,
        "Error from server (NotFound): pods \"bad-env\" not found\n"
    );
}

/// The page's story: a pod reads its mode from a ConfigMap nobody created yet. It stays
/// `CreateContainerConfigError` (the kubelet's Failed Event says why) until the ConfigMap
/// exists without the key (another error), then with it: the next try starts it.
#[test]
fn a_missing_config_map_holds_the_container_until_it_is_created() {
    let (mut h, mut k) = cluster();
    k.set_file(
        "web.yaml",
        "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx:1.27
    env:
    - name: MODE
      valueFrom:
        configMapKeyRef: {name: web-config, key: mode}
    - name: LEVEL
      valueFrom:
        configMapKeyRef: {name: tuning, key: level, optional: true}
",
    );
    ok(&mut k, &mut h, "kubectl apply -f web.yaml");
    h.run_for(8_000);
    let status = "{.status.containerStatuses[0].state.waiting.reason}: {.status.containerStatuses[0].state.waiting.message}";
    assert_eq!(
        jsonpath(&mut k, &mut h, "pod web", status),
        "CreateContainerConfigError: configmap \"web-config\" not found"
    );
    let table = ok(&mut k, &mut h, "kubectl get pod web");
    assert!(table.contains("CreateContainerConfigError"), "{table}");
    let events = ok(
        &mut k,
        &mut h,
        "kubectl get events --field-selector involvedObject.name=web",
    );
    assert!(
        events.contains("Warning   Failed")
            && events.contains("Error: configmap \"web-config\" not found"),
        "{events}"
    );
    let config = |data: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  {data}\n")
    };
    k.set_file("config.yaml", &config("other: '1'"));
    ok(&mut k, &mut h, "kubectl apply -f config.yaml");
    h.run_for(12_000);
    assert_eq!(
        jsonpath(&mut k, &mut h, "pod web", status),
        "CreateContainerConfigError: couldn't find key mode in ConfigMap default/web-config"
    );
    k.set_file("config.yaml", &config("mode: prod"));
    ok(&mut k, &mut h, "kubectl apply -f config.yaml");
    h.run_for(12_000);
    assert_eq!(
        jsonpath(&mut k, &mut h, "pod web", "{.status.phase}"),
        "Running"
    );
}
