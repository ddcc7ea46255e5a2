//! The page's pod cards (the typed `pod_view`) and `kubectl get pods` (the API server's Table:
//! the Pod registry module's `printPod` over JSON) compute STATUS, READY and RESTARTS
//! separately; here they watch the same pods through their whole lives — starting, crash-looping, failing readiness, completing,
//! failing, being deleted — and must agree at every instant.

use watchlab_apimachinery::client::virtual_now_unix_ms;
use watchlab_engine::api::behaviour::ANNOTATION;
use watchlab_engine::api::kinds::pod::pod_summary;
use watchlab_engine::api::pod::{Container, HttpGetAction, IntOrString, Pod, PodSpec, Probe};
use watchlab_engine::api::{Kind, Object, ObjectMeta};
use watchlab_engine::apiserver::DeleteOptions;
use watchlab_engine::cluster::pod_view;
use watchlab_engine::controllers::{Harness, Profile};

fn create(h: &mut Harness, name: &str, behaviour: &str, policy: &str, readiness: bool) {
    let mut meta = ObjectMeta::named("default", name);
    meta.annotations
        .insert(ANNOTATION.to_string(), behaviour.to_string());
    let probe = Probe {
        http_get: Some(HttpGetAction {
            path: "/".into(),
            port: IntOrString::Int(80),
            ..Default::default()
        }),
        ..Default::default()
    };
    let container = |n: &str| Container {
        name: n.into(),
        image: "app:1.0".into(),
        readiness_probe: readiness.then(|| Box::new(probe.clone())),
        ..Default::default()
    };
    let pod = Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![container("app"), container("sidecar")].into(),
            restart_policy: Some(policy.into()),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    };
    h.api.create("kubectl", Object::Pod(pod)).expect("create");
}

#[test]
fn the_page_and_kubectl_print_the_same_status_ready_and_restarts() {
    let mut h = Harness::new(11, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    create(&mut h, "crash", "crash-after=20s", "Always", false);
    create(&mut h, "done", "complete-after=15s", "Never", false);
    create(&mut h, "fails", "crash-after=15s", "Never", false);
    create(&mut h, "again", "crash-after=15s", "OnFailure", false);
    create(&mut h, "exits-ok", "complete-after=15s", "Always", false);
    create(&mut h, "unready", "fail-readiness", "Always", true);
    create(&mut h, "flaky", "unhealthy-after=40s", "Always", true);
    let mut statuses = std::collections::BTreeSet::new();
    for second in 0..400 {
        if second == 300 {
            for name in ["crash", "unready"] {
                h.api
                    .delete(
                        "kubectl",
                        Kind::Pod,
                        Some("default"),
                        name,
                        &DeleteOptions::default(),
                    )
                    .expect("delete");
            }
        }
        h.run_for(1_000);
        let now = virtual_now_unix_ms(h.now().as_millis());
        let pods = h
            .api
            .list(Kind::Pod, Some("default"), &Default::default())
            .expect("list");
        for o in &pods.items {
            let p = o.as_pod().expect("pod");
            let view = pod_view(p);
            let printed = pod_summary(&o.to_json_value(), now);
            assert_eq!(
                view.status, printed.status,
                "{} at {second}s",
                p.metadata.name
            );
            assert_eq!(
                view.ready, printed.ready,
                "{} at {second}s",
                p.metadata.name
            );
            let count = printed.restarts.split(' ').next().unwrap_or_default();
            assert_eq!(view.restarts.to_string(), count);
            assert_eq!(
                view.last_restart.is_some(),
                printed.restarts.contains("ago")
            );
            statuses.insert(view.status);
        }
    }
    for s in [
        "ContainerCreating",
        "Running",
        "Error",
        "CrashLoopBackOff",
        "Completed",
        "Terminating",
    ] {
        assert!(statuses.contains(s), "{s} never seen: {statuses:?}");
    }
}
