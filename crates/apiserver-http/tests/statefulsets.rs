//! `apps/v1` StatefulSets and their storage through the real kubectl v1.32, and the console's
//! kubectl against it on the same cluster: a headless Service and a StatefulSet with a volume
//! claim template applied from a manifest; `rollout status` waiting for the pods the
//! controller creates one at a time, each with its claim bound to a volume the local-path
//! provisioner made on the pod's node; `get sts,pvc,pv`'s columns; `describe
//! sts|pvc|pv|storageclass` and `rollout status|history|undo` printed byte for byte by both
//! kubectls; `set image` and `rollout undo` through the ControllerRevisions; `scale` down
//! keeping the claims; a claim deleted while its pod runs, Terminating until the pod is gone;
//! and the API server's refusal of a change to a field a StatefulSet cannot change. The
//! server runs 20× faster than the wall clock. About 10 s. Skipped (with a note) without
//! kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::{wait_until, TestServer};
use std::time::Duration;

const WEB: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
";

/// A table's rows, each a list of its whitespace-separated words (the header first).
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// One field of an object by JSONPath.
fn field(s: &TestServer, what: &str, path: &str) -> String {
    s.ok(&["get", what, "-o", &format!("jsonpath={path}")])
}

/// The names of the objects of `kind`, as listed.
fn names(s: &TestServer, kind: &str) -> Vec<String> {
    field(s, kind, "{.items[*].metadata.name}")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// A console line for `args`, quoted the way a learner would type it.
fn console_line(args: &[&str]) -> String {
    let words: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains([' ', '{', '"']) {
                format!("'{a}'")
            } else {
                a.to_string()
            }
        })
        .collect();
    format!("kubectl {}", words.join(" "))
}

/// The same line prints the same stdout and stderr with the real kubectl and in the console.
fn same(s: &TestServer, args: &[&str]) {
    let real = s.kubectl(args);
    let console = s.console_run(&console_line(args));
    assert_eq!(
        console,
        (real.stdout, real.stderr),
        "{}",
        console_line(args)
    );
}

/// `kubectl rollout status sts/web` until it is done; its last line.
fn rolled_out(s: &TestServer) -> String {
    let out = s.ok(&["rollout", "status", "sts/web", "--timeout=60s"]);
    out.lines().last().unwrap_or_default().to_string()
}

/// Applies `web` and waits for its three pods; the real kubectl's status line at the end.
fn applied(s: &TestServer) -> String {
    let manifest = s.write("web.yaml", WEB);
    assert_eq!(
        s.ok(&["apply", "-f", manifest.to_str().unwrap_or_default()]),
        "service/web created\nstatefulset.apps/web created\n"
    );
    rolled_out(s)
}

/// Needs the StatefulSet controller, the PV controller and the local-path provisioner.
#[test]
fn a_stateful_set_gets_pods_in_order_with_claims_bound_to_provisioned_volumes() {
    need_kubectl!("a_stateful_set_gets_pods_in_order_with_claims_bound_to_provisioned_volumes");
    let s = TestServer::at_speed(20.0);
    assert_eq!(
        applied(&s),
        "partitioned roll out complete: 3 new pods have been updated..."
    );
    assert_eq!(names(&s, "pods"), ["web-0", "web-1", "web-2"]);
    let table = rows(&s.ok(&["get", "sts,pvc,pv"]));
    let blocks: Vec<&[Vec<String>]> = table.split(|r| r.is_empty()).collect();
    let head = |b: usize| blocks.get(b).and_then(|b| b.first()).map(|r| r.join(" "));
    assert_eq!(head(0).as_deref(), Some("NAME READY AGE"));
    assert_eq!(blocks[0][1][..2], ["statefulset.apps/web", "3/3"]);
    assert_eq!(
        head(1).as_deref(),
        Some("NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE")
    );
    assert_eq!(
        head(2).as_deref(),
        Some(
            "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS \
             VOLUMEATTRIBUTESCLASS REASON AGE"
        )
    );
    for i in 0..3 {
        let claim = &blocks[1][i + 1];
        let volume = field(&s, &format!("pvc/www-web-{i}"), "{.spec.volumeName}");
        assert_eq!(
            claim[..7],
            [
                format!("persistentvolumeclaim/www-web-{i}"),
                "Bound".into(),
                volume.clone(),
                "1Gi".into(),
                "RWO".into(),
                "standard".into(),
                "<unset>".into()
            ],
            "{table:?}"
        );
        // The volume is on the node its pod runs on.
        let node = field(&s, &format!("pod/web-{i}"), "{.spec.nodeName}");
        assert_eq!(
            field(
                &s,
                &format!("pv/{volume}"),
                "{.spec.claimRef.name} {.status.phase} \
                 {.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}"
            ),
            format!("www-web-{i} Bound {node}")
        );
    }
    let volume = field(&s, "pvc/www-web-0", "{.spec.volumeName}");
    for args in [
        &["describe", "sts", "web", "--show-events=false"][..],
        &["describe", "pvc", "www-web-0", "--show-events=false"],
        &["describe", "pv", &volume, "--show-events=false"],
        &["describe", "storageclass", "standard"],
        &["rollout", "status", "sts/web", "--watch=false"],
        &["rollout", "history", "sts/web"],
        &["rollout", "history", "sts/web", "--revision=1"],
        &["rollout", "undo", "sts/web"],
        &["rollout", "undo", "sts/web", "--to-revision=1"],
        &["scale", "sts", "missing", "--replicas=2"],
        &["scale", "sts", "web", "missing", "--replicas=3"],
    ] {
        same(&s, args);
    }
    // The pod's claim and its mount, as both describe them (the rest of the pod describer is
    // compared in tests/registry.rs).
    let pod = ["describe", "pod", "web-1", "--show-events=false"];
    let real = s.ok(&pod);
    let console = s.console(&console_line(&pod));
    for block in [
        "    Mounts:\n      /usr/share/nginx/html from www (rw)\n",
        "Volumes:\n  www:\n    Type:        PersistentVolumeClaim (a reference to a \
         PersistentVolumeClaim in the same namespace)\n    ClaimName:   www-web-1\n    \
         ReadOnly:    false\n",
    ] {
        assert!(real.contains(block), "{real}");
        assert!(console.contains(block), "{console}");
    }
}

/// Needs the StatefulSet controller: `set image` rolls the pods to revision 2, `rollout undo`
/// brings revision 1's template back as revision 3; `scale` to one pod keeps every claim; a
/// claim deleted while its pod runs stays Terminating until `scale` to zero removes the pod.
#[test]
fn a_stateful_set_rolls_back_scales_down_and_keeps_its_claims() {
    need_kubectl!("a_stateful_set_rolls_back_scales_down_and_keeps_its_claims");
    let s = TestServer::at_speed(20.0);
    applied(&s);
    s.ok(&["set", "image", "sts/web", "nginx=nginx:1.28"]);
    rolled_out(&s);
    let images = "{.items[*].spec.containers[0].image}";
    assert_eq!(
        field(&s, "pods", images),
        "nginx:1.28 nginx:1.28 nginx:1.28"
    );
    for args in [
        &["rollout", "history", "sts/web"][..],
        &["rollout", "history", "sts/web", "--revision=2"],
        &["rollout", "undo", "sts/web", "--dry-run=client"],
        &["rollout", "undo", "sts/web", "--to-revision=2"],
        &["rollout", "undo", "sts/web", "--to-revision=9"],
    ] {
        same(&s, args);
    }
    assert_eq!(
        s.ok(&["rollout", "undo", "sts/web"]),
        "statefulset.apps/web rolled back\n"
    );
    rolled_out(&s);
    assert_eq!(
        field(&s, "pods", images),
        "nginx:1.27 nginx:1.27 nginx:1.27"
    );
    let history = wait_until("revision 3", Duration::from_secs(10), || {
        let h = s.ok(&["rollout", "history", "sts/web"]);
        h.contains("\n3 ").then_some(h)
    });
    assert_eq!(
        history,
        "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
    );

    assert_eq!(
        s.ok(&["scale", "sts", "web", "--replicas=1"]),
        "statefulset.apps/web scaled\n"
    );
    wait_until("one pod", Duration::from_secs(20), || {
        (names(&s, "pods") == ["web-0"]).then_some(())
    });
    assert_eq!(names(&s, "pvc"), ["www-web-0", "www-web-1", "www-web-2"]);
    assert_eq!(
        field(&s, "pvc", "{.items[*].status.phase}"),
        "Bound Bound Bound"
    );
    same(&s, &["describe", "pvc", "www-web-2", "--show-events=false"]);

    let volume = field(&s, "pvc/www-web-0", "{.spec.volumeName}");
    assert_eq!(
        s.ok(&["delete", "pvc", "www-web-0", "--wait=false"]),
        "persistentvolumeclaim \"www-web-0\" deleted\n"
    );
    // Two seconds here are forty on the server's clock: the claim is still held by web-0.
    std::thread::sleep(Duration::from_secs(2));
    let table = rows(&s.ok(&["get", "pvc", "www-web-0"]));
    assert_eq!(
        table[1][..3],
        ["www-web-0", "Terminating", &volume],
        "{table:?}"
    );
    let described = s.ok(&["describe", "pvc", "www-web-0"]);
    assert!(
        described.contains("\nUsed By:       web-0\n"),
        "{described}"
    );
    assert!(
        described.contains("\nStatus:        Terminating (lasts "),
        "{described}"
    );
    s.ok(&["scale", "sts", "web", "--replicas=0"]);
    wait_until("the claim to go", Duration::from_secs(20), || {
        (names(&s, "pvc") == ["www-web-1", "www-web-2"]).then_some(())
    });
    wait_until("its volume to go", Duration::from_secs(20), || {
        (!names(&s, "pv").contains(&volume)).then_some(())
    });
    assert!(names(&s, "pods").is_empty());
}

/// The API server refuses a change to a field other than the updatable ones, by `patch` and
/// by `apply`, with the real texts as both kubectls print them. The clock stands still.
#[test]
fn a_stateful_set_refuses_changes_beyond_its_updatable_fields() {
    need_kubectl!("a_stateful_set_refuses_changes_beyond_its_updatable_fields");
    let s = TestServer::at_speed(0.0);
    let manifest = s.write("web.yaml", WEB);
    s.ok(&["apply", "-f", manifest.to_str().unwrap_or_default()]);
    let patched = s.kubectl(&[
        "patch",
        "sts",
        "web",
        "-p",
        r#"{"spec":{"serviceName":"other"}}"#,
    ]);
    assert_eq!(patched.code, 1);
    assert_eq!(
        patched.stderr,
        "The StatefulSet \"web\" is invalid: spec: Forbidden: updates to statefulset spec for \
         fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', \
         'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' \
         are forbidden\n"
    );
    same(
        &s,
        &[
            "patch",
            "sts",
            "web",
            "-p",
            r#"{"spec":{"serviceName":"other"}}"#,
        ],
    );
    let bigger = s.write("bigger.yaml", &WEB.replace("storage: 1Gi", "storage: 2Gi"));
    let applied = s.kubectl(&["apply", "-f", bigger.to_str().unwrap_or_default()]);
    assert_eq!(applied.code, 1);
    assert_eq!(
        (applied.stdout.as_str(), applied.stderr.as_str()),
        ("service/web unchanged\n", patched.stderr.as_str())
    );
}
