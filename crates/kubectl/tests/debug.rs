//! `kubectl debug` in the console against the engine with its kubelets: an ephemeral container
//! added with kubectl's messages, started by the kubelet and read with `kubectl logs -c`; the
//! node-debugger pod on its node with the node's `/` mounted; a `--copy-to` copy; kubectl's
//! refusals and the server's, printed as kubectl prints them; names drawn the same on a replay.

use watchlab_engine::api::Kind;
use watchlab_engine::controllers::{Harness, Profile};
use watchlab_kubectl::Kubectl;

const LEGACY_WARNING: &str = "--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".\n";

/// A cluster with a running pod `web` (container `web`), and the console's kubectl.
fn cluster_with_web(seed: u64) -> (Harness, Kubectl) {
    let mut h = Harness::new(seed, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let out = k.exec("kubectl run web --image=nginx:1.27", &mut h.api);
    assert_eq!(out.stderr, "");
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| phase(h, "web") == "Running"));
    (h, k)
}

fn phase(h: &Harness, pod: &str) -> String {
    h.api
        .get(Kind::Pod, Some("default"), pod)
        .ok()
        .and_then(|o| o.as_pod().map(|p| p.status.phase.to_string()))
        .unwrap_or_default()
}

fn jsonpath(k: &mut Kubectl, h: &mut Harness, pod: &str, path: &str) -> String {
    k.exec(
        &format!("kubectl get pod {pod} -o jsonpath='{path}'"),
        &mut h.api,
    )
    .stdout
}

/// The name in `Defaulting debug container name to NAME.`
fn defaulted(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("Defaulting debug container name to "))
        .and_then(|n| n.strip_suffix('.'))
        .unwrap_or_else(|| panic!("{stdout:?}"))
        .to_string()
}

#[test]
fn debug_adds_an_ephemeral_container_the_kubelet_runs() {
    let (mut h, mut k) = cluster_with_web(3);
    let out = k.exec("kubectl debug web --image=busybox", &mut h.api);
    assert_eq!(out.stderr, LEGACY_WARNING);
    let name = defaulted(&out.stdout);
    assert_eq!(
        out.stdout,
        format!("Defaulting debug container name to {name}.\n")
    );
    assert!(name.starts_with("debugger-") && name.len() == 14, "{name}");
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "web",
            "{.spec.ephemeralContainers[0].image}"
        ),
        "busybox"
    );
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| {
        h.api
            .get(Kind::Pod, Some("default"), "web")
            .ok()
            .and_then(|o| o.as_pod().cloned())
            .is_some_and(|p| {
                p.status
                    .ephemeral_container_statuses
                    .first()
                    .is_some_and(|s| s.state.running.is_some())
            })
    }));
    let logs = k.exec(&format!("kubectl logs web -c {name}"), &mut h.api);
    assert_eq!(logs.stdout, "busybox: starting\n");
    // `-c` names it, `--target` points it at the app's namespaces; no warning for `general`.
    let out = k.exec(
        "kubectl debug web --image=busybox:1.36 -c probe --target=web --profile=general",
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.stdout, "Targeting container \"web\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\n");
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "web",
            "{.spec.ephemeralContainers[*].name}/{.spec.ephemeralContainers[1].targetContainerName}"
        ),
        format!("{name} probe/web")
    );
    // `-it`: the same container, and a note instead of an attach.
    let out = k.exec("kubectl debug web -it --image=busybox -c shell", &mut h.api);
    assert_eq!(
        out.stderr,
        format!("{LEGACY_WARNING}note: this console cannot attach to a container; read its output with: kubectl logs web -c shell\n")
    );
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "web",
            "{.spec.ephemeralContainers[2].stdin} {.spec.ephemeralContainers[2].tty}"
        ),
        "true true"
    );
}

#[test]
fn refusals_are_kubectls_and_the_servers() {
    let (mut h, mut k) = cluster_with_web(4);
    let err = |k: &mut Kubectl, h: &mut Harness, line: &str| {
        let out = k.exec(line, &mut h.api);
        assert_eq!(out.exit_code, 1, "{line}: {}", out.stdout);
        out.stderr
    };
    assert_eq!(
        err(&mut k, &mut h, "kubectl debug web"),
        "error: you must specify --image when not using --copy-to.\n"
    );
    assert_eq!(
        err(&mut k, &mut h, "kubectl debug --image=busybox"),
        "error: NAME or filename is required for debug\n"
    );
    assert_eq!(
        err(&mut k, &mut h, "kubectl debug web --image=busybox -t"),
        "error: -i/--stdin is required for containers with -t/--tty=true\n"
    );
    assert_eq!(
        err(
            &mut k,
            &mut h,
            "kubectl debug web --image=busybox --profile=wide"
        ),
        "error: unknown profile: wide\n"
    );
    assert_eq!(
        err(
            &mut k,
            &mut h,
            "kubectl debug web --image=busybox --image-pull-policy=Sometimes"
        ),
        "error: invalid image pull policy: Sometimes\n"
    );
    assert_eq!(
        err(&mut k, &mut h, "kubectl debug web --image=busybox -c web"),
        format!("{LEGACY_WARNING}The Pod \"web\" is invalid: spec.ephemeralContainers[0].name: Duplicate value: \"web\"\n")
    );
    assert_eq!(
        err(&mut k, &mut h, "kubectl debug web --image=busybox --target=nope"),
        format!("{LEGACY_WARNING}The Pod \"web\" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"\n")
    );
    assert_eq!(
        err(
            &mut k,
            &mut h,
            "kubectl debug nobody --image=busybox --profile=general"
        ),
        "Error from server (NotFound): pods \"nobody\" not found\n"
    );
    assert_eq!(
        err(
            &mut k,
            &mut h,
            "kubectl debug node/nowhere --image=busybox --profile=general"
        ),
        "Error from server (NotFound): nodes \"nowhere\" not found\n"
    );
    k.exec("kubectl create deployment d --image=nginx", &mut h.api);
    assert_eq!(
        err(
            &mut k,
            &mut h,
            "kubectl debug deployment/d --image=busybox --profile=general"
        ),
        "error: \"apps/v1, Kind=Deployment\" not supported by debug\n"
    );
    assert_eq!(
        jsonpath(&mut k, &mut h, "web", "{.spec.ephemeralContainers}"),
        "",
        "nothing was added"
    );
}

#[test]
fn debug_node_creates_the_node_debugger_pod_on_that_node() {
    let (mut h, mut k) = cluster_with_web(5);
    let out = k.exec("kubectl debug node/node-b --image=busybox", &mut h.api);
    assert_eq!(out.stderr, LEGACY_WARNING);
    let pod = out
        .stdout
        .strip_prefix("Creating debugging pod ")
        .and_then(|r| r.strip_suffix(" with container debugger on node node-b.\n"))
        .unwrap_or_else(|| panic!("{:?}", out.stdout))
        .to_string();
    assert!(
        pod.starts_with("node-debugger-node-b-") && pod.len() == 26,
        "{pod}"
    );
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            &pod,
            "{.spec.nodeName} {.spec.restartPolicy} {.spec.hostPID} {.spec.hostIPC} {.spec.hostNetwork} {.spec.tolerations[*].operator} {.spec.volumes[0].hostPath.path} {.spec.containers[0].volumeMounts[0].mountPath}"
        ),
        "node-b Never true true true Exists / /host"
    );
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| phase(h, &pod) == "Running"));
    // The baseline profile keeps the pod out of the host's namespaces and files.
    let out = k.exec(
        "kubectl debug node/node-a --image=busybox --profile=baseline -c shell",
        &mut h.api,
    );
    let pod = out
        .stdout
        .strip_prefix("Creating debugging pod ")
        .and_then(|r| r.split_once(' '))
        .map(|(p, _)| p.to_string())
        .unwrap_or_default();
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            &pod,
            "{.spec.hostPID}{.spec.volumes}|{.spec.containers[0].name}"
        ),
        "|shell"
    );
}

#[test]
fn debug_copy_to_creates_a_copy_with_the_debug_container() {
    let (mut h, mut k) = cluster_with_web(6);
    let out = k.exec(
        "kubectl debug web --image=busybox --copy-to=web-copy",
        &mut h.api,
    );
    assert_eq!(out.stderr, LEGACY_WARNING);
    let name = defaulted(&out.stdout);
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "web-copy",
            "{.spec.containers[*].name}|{.metadata.labels}"
        ),
        format!("web {name}|")
    );
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| phase(h, "web-copy") == "Running"));
    let node = jsonpath(&mut k, &mut h, "web", "{.spec.nodeName}");
    let out = k.exec(
        "kubectl debug web --copy-to=web-2 --set-image=*=nginx:1.28 --same-node --replace --profile=general",
        &mut h.api,
    );
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "web-2",
            "{.spec.nodeName} {.spec.containers[0].image} {.spec.shareProcessNamespace}"
        ),
        format!("{node} nginx:1.28 true")
    );
    h.run_for(5_000);
    assert_eq!(phase(&h, "web"), "", "the original was deleted");
}

#[test]
fn names_are_drawn_the_same_on_a_replay() {
    let names = |seed: u64| {
        let (mut h, mut k) = cluster_with_web(seed);
        let a = k
            .exec("kubectl debug web --image=busybox", &mut h.api)
            .stdout;
        let b = k
            .exec("kubectl debug web --image=busybox", &mut h.api)
            .stdout;
        let c = k
            .exec("kubectl debug node/node-a --image=busybox", &mut h.api)
            .stdout;
        assert_ne!(a, b, "a second debugger gets another name");
        (a, b, c)
    };
    assert_eq!(names(9), names(9));
}
