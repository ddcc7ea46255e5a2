//! A cluster can start its virtual clock later than the virtual epoch (`ClusterConfig::start_ms`,
//! what `watchlab-apiserver` passes from its wall clock): everything it writes is stamped from
//! that instant on, the controllers run as from zero, and a saved session restores.

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};
use watchlab_engine::journal::MAX_START_MS;

/// 2026-12-02T12:00:00Z, 335.5 days after the virtual epoch.
const START_MS: u64 = (335 * 86_400 + 12 * 3600) * 1000;

fn started_late() -> Cluster {
    Cluster::new(ClusterConfig {
        start_ms: START_MS,
        ..ClusterConfig::default()
    })
}

fn get(c: &mut Cluster, path: &str) -> serde_json::Value {
    let r = c.session("kubectl").request("GET", path, None, None);
    assert!(r.is_success(), "{path}: {}", r.body);
    serde_json::from_str(&r.body).unwrap_or_default()
}

#[test]
fn objects_are_stamped_from_the_start_and_controllers_run() {
    let mut c = started_late();
    assert_eq!(c.now(), Timestamp::from_millis(START_MS));
    let ns = get(&mut c, "/api/v1/namespaces/default");
    assert_eq!(ns["metadata"]["creationTimestamp"], "2026-12-02T12:00:00Z");
    c.apply(Action::CreatePod {
        namespace: "default".into(),
        name: "web".into(),
        image: "nginx".into(),
        labels: vec![],
    })
    .expect("create");
    let t = c.now().plus_secs(30);
    c.advance_to(t);
    let pod = get(&mut c, "/api/v1/namespaces/default/pods/web");
    assert_eq!(pod["status"]["phase"], "Running", "{pod}");
    assert_eq!(pod["metadata"]["creationTimestamp"], "2026-12-02T12:00:00Z");
    assert!(c.nodes().iter().all(|n| n.status == "Ready"));
    // The seed Deployment's pods too.
    let running = c.pods().iter().filter(|p| p.status == "Running").count();
    assert_eq!(running, 4, "{:?}", c.pods());
}

#[test]
fn a_late_start_saves_and_restores() {
    let mut c = started_late();
    c.apply(Action::KillNode("node-c".into())).expect("kill");
    let t = c.now().plus_secs(90);
    c.advance_to(t);
    let text = c.export().expect("export");
    assert!(text.contains(&format!("\"start_ms\":{START_MS}")));
    let back = Cluster::import(&text).expect("import");
    assert_eq!(back.now(), c.now());
    assert_eq!(back.api().revision(), c.api().revision());
    assert!(back.journal().refusal().is_none());
}

#[test]
fn a_default_config_is_saved_without_a_start_and_a_far_start_is_refused() {
    let c = Cluster::new(ClusterConfig::default());
    let text = c.export().expect("export");
    assert!(!text.contains("start_ms"), "{text}");
    let far = text.replacen(
        "\"seed\":",
        &format!("\"start_ms\":{},\"seed\":", MAX_START_MS + 1),
        1,
    );
    let err = Cluster::import(&far).map(|_| ()).expect_err("refused");
    assert!(err.to_string().contains("start_ms"), "{err}");
}
