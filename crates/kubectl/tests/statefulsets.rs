//! StatefulSets and their storage from the console, against the engine with its kubelets and
//! controllers (the StatefulSet controller, the PV controller, the claim and volume protection
//! controllers and the simulated local-path provisioner of the default `standard` class):
//! `describe sts|pvc|pv|storageclass` as kubectl's describers print them once a StatefulSet
//! with a volume claim template has rolled out; `rollout status|history|undo|restart` through
//! its ControllerRevisions, with the status viewer's lines in the order the controller's
//! one-pod-at-a-time update produces them, and a partitioned update; `scale` keeping the
//! claims; a claim deleted while its pod runs, Terminating until the pod is gone; and the API
//! server's refusal of a change to a field a StatefulSet cannot change. The texts are kubectl
//! v1.32's (the describers are compared byte for byte with the real kubectl in
//! `crates/apiserver-http/tests/statefulsets.rs`).

use watchlab_engine::controllers::Harness;
use watchlab_kubectl::Kubectl;

mod live;

use live::{cluster, jsonpath, ok, run};

/// A headless Service and a StatefulSet of three nginx pods, each with a 1Gi claim `www`.
const WEB: &str = "apiVersion: v1
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

/// The distinct `rollout status sts/web` lines (stdout, or stderr when it fails) while the
/// cluster runs at most `ms` more, polled every 250 ms, until the status viewer says done.
fn status_lines(k: &mut Kubectl, h: &mut Harness, ms: u64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for _ in 0..ms / 250 {
        let (out, err) = run(k, h, "kubectl rollout status sts/web");
        let line = out + &err;
        if lines.last() != Some(&line) {
            lines.push(line.clone());
        }
        if line.starts_with("partitioned roll out complete") || line.starts_with("error") {
            break;
        }
        h.run_for(250);
    }
    lines
}

/// The cluster with `web` applied and rolled out.
fn web() -> (Harness, Kubectl) {
    let (mut h, mut k) = cluster();
    k.set_file("web.yaml", WEB);
    assert_eq!(
        ok(&mut k, &mut h, "kubectl apply -f web.yaml"),
        "service/web created\nstatefulset.apps/web created\n"
    );
    let lines = status_lines(&mut k, &mut h, 60_000);
    assert_eq!(
        lines,
        [
            "Waiting for statefulset spec update to be observed...\n",
            "Waiting for 3 pods to be ready...\n",
            "Waiting for 2 pods to be ready...\n",
            "Waiting for 1 pods to be ready...\n",
            "partitioned roll out complete: 3 new pods have been updated...\n",
        ]
    );
    (h, k)
}

/// The pod template `describe sts` and `rollout history --revision` print for `image`.
fn template(image: &str) -> String {
    format!(
        "Pod Template:
  Labels:  app=web
  Containers:
   nginx:
    Image:        {image}
    Port:         <none>
    Host Port:    <none>
    Environment:  <none>
    Mounts:
      /usr/share/nginx/html from www (rw)
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
"
    )
}

/// `printTemplate`'s text for `image` (`rollout history --revision`, `undo --dry-run`): the
/// describer's lines through a plain prefix writer, so tabs where `describe` aligns.
fn printed_template(image: &str) -> String {
    format!(
        "Pod Template:\n  Labels:\tapp=web\n  Containers:\n   nginx:\n    Image:\t{image}\n    \
         Port:\t<none>\n    Host Port:\t<none>\n    Environment:\t<none>\n    Mounts:\n      \
         /usr/share/nginx/html from www (rw)\n  Volumes:\t<none>\n  Node-Selectors:\t<none>\n  \
         Tolerations:\t<none>\n"
    )
}

/// Needs the StatefulSet controller: its status counts, its pods and its events.
#[test]
fn describe_stateful_set_lists_its_pods_and_claim_templates() {
    let (mut h, mut k) = web();
    let expected = format!(
        "Name:               web
Namespace:          default
CreationTimestamp:  Thu, 01 Jan 2026 00:00:05 +0000
Selector:           app=web
Labels:             <none>
Annotations:        <none>
Replicas:           3 desired | 3 total
Update Strategy:    RollingUpdate
  Partition:        0
Pods Status:        3 Running / 0 Waiting / 0 Succeeded / 0 Failed
{}Volume Claims:
  Name:          www
  StorageClass:  
  Labels:        <none>
  Annotations:   <none>
  Capacity:      1Gi
  Access Modes:  [ReadWriteOnce]
",
        template("nginx:1.27")
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl describe sts web --show-events=false"
        ),
        expected
    );
    // The controller's events, a claim before its pod, in ordinal order.
    let described = ok(&mut k, &mut h, "kubectl describe statefulset web");
    let events: Vec<String> = described
        .split("Events:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .skip(2)
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let mut kept = words.get(..2).unwrap_or_default().to_vec();
            kept.extend(words.get(3..).unwrap_or_default());
            kept.join(" ")
        })
        .collect();
    let mut expected = Vec::new();
    for i in 0..3 {
        expected.push(format!("Normal SuccessfulCreate statefulset-controller create Claim www-web-{i} Pod web-{i} in StatefulSet web success"));
        expected.push(format!("Normal SuccessfulCreate statefulset-controller create Pod web-{i} in StatefulSet web successful"));
    }
    assert_eq!(events, expected, "{described}");
}

/// Needs the PV controller and the local-path provisioner: the claim bound to the volume made
/// for it on its pod's node, the volume's node affinity and `hostPath`, the default class.
#[test]
fn describe_claim_volume_and_storage_class_once_bound() {
    let (mut h, mut k) = web();
    let volume = jsonpath(&mut k, &mut h, "pvc www-web-0", "{.spec.volumeName}");
    assert!(volume.starts_with("pvc-"), "{volume}");
    let node = jsonpath(&mut k, &mut h, "pod web-0", "{.spec.nodeName}");
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl describe pvc www-web-0 --show-events=false"
        ),
        format!(
            "Name:          www-web-0
Namespace:     default
StorageClass:  standard
Status:        Bound
Volume:        {volume}
Labels:        app=web
Annotations:   pv.kubernetes.io/bind-completed: yes
               pv.kubernetes.io/bound-by-controller: yes
               volume.beta.kubernetes.io/storage-provisioner: rancher.io/local-path
               volume.kubernetes.io/selected-node: {node}
               volume.kubernetes.io/storage-provisioner: rancher.io/local-path
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:      1Gi
Access Modes:  RWO
VolumeMode:    Filesystem
Used By:       web-0
"
        )
    );
    assert_eq!(
        ok(&mut k, &mut h, &format!("kubectl describe pv {volume}")),
        format!(
            "Name:              {volume}
Labels:            <none>
Annotations:       local.path.provisioner/selected-node: {node}
                   pv.kubernetes.io/provisioned-by: rancher.io/local-path
Finalizers:        [kubernetes.io/pv-protection]
StorageClass:      standard
Status:            Bound
Claim:             default/www-web-0
Reclaim Policy:    Delete
Access Modes:      RWO
VolumeMode:        Filesystem
Capacity:          1Gi
Node Affinity:     
  Required Terms:  
    Term 0:        kubernetes.io/hostname in [{node}]
Message:           
Source:
    Type:          HostPath (bare host directory volume)
    Path:          /var/local-path-provisioner/{volume}_default_www-web-0
    HostPathType:  DirectoryOrCreate
Events:            <none>
"
        )
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl describe storageclass standard"),
        "Name:                  standard
IsDefaultClass:        Yes
Annotations:           storageclass.kubernetes.io/is-default-class=true
Provisioner:           rancher.io/local-path
Parameters:            <none>
AllowVolumeExpansion:  <unset>
MountOptions:          <none>
ReclaimPolicy:         Delete
VolumeBindingMode:     WaitForFirstConsumer
Events:                <none>
"
    );
    // The claim's story, as its events tell it.
    let described = ok(&mut k, &mut h, "kubectl describe pvc www-web-0");
    let reasons: Vec<&str> = described
        .split("Events:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(
        reasons,
        [
            "WaitForPodScheduled",
            "ExternalProvisioning",
            "Provisioning",
            "ProvisioningSucceeded"
        ],
        "{described}"
    );
    // The pod's volume names its claim; its container mounts it.
    let pod = ok(&mut k, &mut h, "kubectl describe pod web-0");
    for block in [
        "    Mounts:\n      /usr/share/nginx/html from www (rw)\n",
        "Volumes:\n  www:\n    Type:        PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:   www-web-0\n    ReadOnly:    false\n",
    ] {
        assert!(pod.contains(block), "{pod}");
    }
}

/// The rolling update after `set image`, as the status viewer follows it: the controller
/// replaces one pod at a time from the highest ordinal, waiting for each to be Ready.
const ROLLING: [&str; 8] = [
    "Waiting for statefulset spec update to be observed...\n",
    "Waiting for partitioned roll out to finish: 0 out of 3 new pods have been updated...\n",
    "Waiting for 1 pods to be ready...\n",
    "Waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated...\n",
    "Waiting for 1 pods to be ready...\n",
    "Waiting for partitioned roll out to finish: 2 out of 3 new pods have been updated...\n",
    "Waiting for 1 pods to be ready...\n",
    "partitioned roll out complete: 3 new pods have been updated...\n",
];

/// Needs the StatefulSet controller and the ControllerRevisions it keeps.
#[test]
fn stateful_set_rollout_status_history_undo_and_restart() {
    let (mut h, mut k) = web();
    assert_eq!(
        ok(&mut k, &mut h, "kubectl set image sts/web nginx=nginx:1.28"),
        "statefulset.apps/web image updated\n"
    );
    assert_eq!(status_lines(&mut k, &mut h, 60_000), ROLLING);
    let images = "{.items[*].spec.containers[0].image}";
    assert_eq!(
        jsonpath(&mut k, &mut h, "pods", images),
        "nginx:1.28 nginx:1.28 nginx:1.28"
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout history sts/web"),
        "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"
    );
    let first = ok(
        &mut k,
        &mut h,
        "kubectl rollout history statefulset/web --revision=1",
    );
    assert_eq!(
        first,
        format!(
            "statefulset.apps/web with revision #1\n{}\n",
            printed_template("nginx:1.27")
        )
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl rollout history sts/web --revision=7"
        )
        .1,
        "error: unable to find the specified revision\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl rollout undo sts/web --dry-run=client"
        ),
        format!(
            "statefulset.apps/web will roll back to {} (dry run)\n",
            printed_template("nginx:1.27")
        )
    );
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout undo sts/web"),
        "statefulset.apps/web rolled back\n"
    );
    assert_eq!(status_lines(&mut k, &mut h, 60_000), ROLLING);
    assert_eq!(
        jsonpath(&mut k, &mut h, "pods", images),
        "nginx:1.27 nginx:1.27 nginx:1.27"
    );
    // Revision 1's template is current again, as revision 3.
    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout history sts/web"),
        "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl rollout undo sts/web --to-revision=3"
        ),
        "statefulset.apps/web skipped rollback (current template already matches revision 3)\n"
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl rollout undo sts/web --to-revision=9"
        )
        .1,
        "error: unable to find specified revision 9 in history\n"
    );

    assert_eq!(
        ok(&mut k, &mut h, "kubectl rollout restart sts/web"),
        "statefulset.apps/web restarted\n"
    );
    let stamp = jsonpath(
        &mut k,
        &mut h,
        "sts web",
        "{.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}",
    );
    assert_eq!(stamp, h.now().to_rfc3339());
    assert_eq!(status_lines(&mut k, &mut h, 60_000), ROLLING);
    assert!(ok(&mut k, &mut h, "kubectl rollout history sts/web")
        .ends_with("3         <none>\n4         <none>\n\n"));
}

/// A partition keeps the pods below it on the old template: only web-2 is updated.
#[test]
fn a_partitioned_update_stops_at_the_partition() {
    let (mut h, mut k) = web();
    ok(
        &mut k,
        &mut h,
        r#"kubectl patch sts web -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}'"#,
    );
    assert_eq!(
        ok(
            &mut k,
            &mut h,
            "kubectl describe sts web --show-events=false"
        )
        .lines()
        .find(|l| l.contains("Partition:")),
        Some("  Partition:        2")
    );
    ok(&mut k, &mut h, "kubectl set image sts/web nginx=nginx:1.28");
    assert_eq!(
        status_lines(&mut k, &mut h, 60_000),
        [
            "Waiting for statefulset spec update to be observed...\n",
            "Waiting for partitioned roll out to finish: 0 out of 1 new pods have been updated...\n",
            "Waiting for 1 pods to be ready...\n",
            "partitioned roll out complete: 1 new pods have been updated...\n",
        ]
    );
    assert_eq!(
        jsonpath(
            &mut k,
            &mut h,
            "pods",
            "{.items[*].spec.containers[0].image}"
        ),
        "nginx:1.27 nginx:1.27 nginx:1.28"
    );
    ok(
        &mut k,
        &mut h,
        r#"kubectl patch sts web --type=merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'"#,
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl rollout status sts/web").1,
        "error: rollout status is only available for RollingUpdate strategy type\n"
    );
}

/// The names of `kind` (`pods`, `pvc`, `pv`), sorted.
fn names(k: &mut Kubectl, h: &mut Harness, kind: &str) -> Vec<String> {
    let mut names: Vec<String> = jsonpath(k, h, kind, "{.items[*].metadata.name}")
        .split_whitespace()
        .map(String::from)
        .collect();
    names.sort();
    names
}

/// Scaling adds pods with claims of their own and removes the highest ordinals; the claims
/// stay (the default retention policy keeps them). A claim deleted while its pod runs stays
/// Terminating until the pod is gone, then goes, and its volume with it.
#[test]
fn scaling_keeps_the_claims_and_a_claim_in_use_waits_for_its_pod() {
    let (mut h, mut k) = web();
    assert_eq!(
        ok(&mut k, &mut h, "kubectl scale statefulset web --replicas=5"),
        "statefulset.apps/web scaled\n"
    );
    h.run_for(30_000);
    let claims: Vec<String> = (0..5).map(|i| format!("www-web-{i}")).collect();
    assert_eq!(
        names(&mut k, &mut h, "pods"),
        (0..5).map(|i| format!("web-{i}")).collect::<Vec<_>>()
    );
    assert_eq!(names(&mut k, &mut h, "pvc"), claims);
    assert_eq!(
        ok(&mut k, &mut h, "kubectl scale sts web --replicas=1"),
        "statefulset.apps/web scaled\n"
    );
    h.run_for(30_000);
    assert_eq!(names(&mut k, &mut h, "pods"), ["web-0"]);
    assert_eq!(names(&mut k, &mut h, "pvc"), claims);
    assert_eq!(
        jsonpath(&mut k, &mut h, "pvc", "{.items[*].status.phase}"),
        "Bound Bound Bound Bound Bound"
    );
    let unused = ok(&mut k, &mut h, "kubectl describe pvc www-web-4");
    assert!(unused.contains("\nUsed By:       <none>\n"), "{unused}");

    let volume = jsonpath(&mut k, &mut h, "pvc www-web-0", "{.spec.volumeName}");
    assert_eq!(
        ok(&mut k, &mut h, "kubectl delete pvc www-web-0 --wait=false"),
        "persistentvolumeclaim \"www-web-0\" deleted\n"
    );
    h.run_for(10_000);
    let status = "{.status.phase} {.metadata.finalizers}";
    assert_eq!(
        jsonpath(&mut k, &mut h, "pvc www-web-0", status),
        "Bound [\"kubernetes.io/pvc-protection\"]"
    );
    let held = ok(&mut k, &mut h, "kubectl describe pvc www-web-0");
    assert!(
        held.contains("\nStatus:        Terminating (lasts 10s)\n"),
        "{held}"
    );
    assert!(held.contains("\nUsed By:       web-0\n"), "{held}");
    let table = ok(&mut k, &mut h, "kubectl get pvc www-web-0");
    assert_eq!(
        table
            .lines()
            .nth(1)
            .and_then(|l| l.split_whitespace().nth(1)),
        Some("Terminating"),
        "{table}"
    );
    // Without its pod, the claim goes, and the volume local-path made for it (reclaim Delete).
    ok(&mut k, &mut h, "kubectl scale sts web --replicas=0");
    h.run_for(60_000);
    assert_eq!(names(&mut k, &mut h, "pods"), Vec::<String>::new());
    assert_eq!(names(&mut k, &mut h, "pvc"), claims[1..]);
    assert!(!names(&mut k, &mut h, "pv").contains(&volume), "{volume}");
}

/// `ValidateStatefulSetUpdate`'s refusal, as kubectl prints an Invalid error; and the errors
/// for a StatefulSet that is not there.
#[test]
fn a_stateful_set_refuses_changes_beyond_its_updatable_fields() {
    let (mut h, mut k) = web();
    let forbidden = "The StatefulSet \"web\" is invalid: spec: Forbidden: updates to statefulset \
spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', \
'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are \
forbidden\n";
    assert_eq!(
        run(
            &mut k,
            &mut h,
            r#"kubectl patch sts web -p '{"spec":{"serviceName":"other"}}'"#
        ),
        (String::new(), forbidden.to_string())
    );
    // A claim template cannot change either.
    let bigger = r#"{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"www"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}}}]}}"#;
    assert_eq!(
        run(
            &mut k,
            &mut h,
            &format!("kubectl patch sts web --type=merge -p '{bigger}'")
        ),
        (String::new(), forbidden.to_string())
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl rollout status sts/missing").1,
        "Error from server (NotFound): statefulsets.apps \"missing\" not found\n"
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl scale sts missing --replicas=1").1,
        "error: no objects passed to scale statefulsets.apps \"missing\" not found\n"
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl scale sts web missing --replicas=2"),
        (
            "statefulset.apps/web scaled\n".to_string(),
            "Error from server (NotFound): statefulsets.apps \"missing\" not found\n".to_string()
        )
    );
}

#[test]
fn help_lists_statefulsets_set_and_taint() {
    let (mut h, mut k) = cluster();
    let rollout = ok(&mut k, &mut h, "kubectl help rollout");
    assert!(
        rollout.contains("  *  daemonsets\n  *  statefulsets\n"),
        "{rollout}"
    );
    let root = ok(&mut k, &mut h, "kubectl help");
    for line in [
        "  set             Set specific features on objects\n",
        "  taint           Update the taints on one or more nodes\n",
    ] {
        assert!(root.contains(line), "{root}");
    }
    assert!(ok(&mut k, &mut h, "kubectl taint --help")
        .starts_with("Update the taints on one or more nodes.\n"));
    assert!(ok(&mut k, &mut h, "kubectl set image --help")
        .contains("image            Update the image of a pod template"));
}
