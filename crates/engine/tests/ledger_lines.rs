//! The ledger's lines read as the first text tells it: each revision names the etcd key it
//! wrote, its writer, and what it changed against the object's previous version — one label
//! moved by `kubectl label --overwrite` is one line with exactly that label.

use watchlab_engine::api::field_diff::FieldChange;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::LedgerEntry;
use watchlab_engine::cluster::{Action, Cluster};

fn last_line(c: &Cluster) -> LedgerEntry {
    c.api()
        .ledger()
        .iter()
        .last()
        .cloned()
        .unwrap_or_else(|| panic!("the ledger is empty"))
}

fn label(c: &mut Cluster, name: &str, value: &str) -> LedgerEntry {
    c.apply(Action::Label {
        kind: Kind::Pod.into(),
        namespace: "default".into(),
        name: name.into(),
        key: "team".into(),
        value: value.into(),
        overwrite: true,
    })
    .unwrap_or_else(|s| panic!("{}", s.message()));
    last_line(c)
}

#[test]
fn a_label_overwrite_is_one_line_that_changes_exactly_that_label() {
    let mut c = Cluster::with_seed(7);
    c.apply(Action::CreatePod {
        namespace: "default".into(),
        name: "web".into(),
        image: "nginx".into(),
        labels: vec![("team".into(), "payments".into())],
    })
    .unwrap_or_else(|s| panic!("{}", s.message()));
    let created = last_line(&c);
    assert_eq!(created.key(), "/registry/pods/default/web");
    assert_eq!(created.verb, "create");
    assert!(created.changes().is_empty(), "a creation has no field diff");

    let line = label(&mut c, "web", "orders");
    assert_eq!(line.key(), "/registry/pods/default/web");
    assert_eq!(line.verb, "patch");
    assert_eq!(
        line.changes(),
        vec![FieldChange::Changed {
            path: "metadata.labels.team".into(),
            before: "payments".into(),
            after: "orders".into(),
        }]
    );
    assert_eq!(
        line.changes()[0].to_string(),
        "metadata.labels.team: payments → orders"
    );
    // The same value again changes nothing, so nothing is written (no new revision).
    let before = c.api().revision();
    let again = label(&mut c, "web", "orders");
    assert_eq!(
        c.api().revision(),
        before,
        "an unchanged label writes nothing"
    );
    assert_eq!(again.revision, line.revision);
}

#[test]
fn scheduling_and_starting_a_pod_read_as_the_node_and_the_phase() {
    let mut c = Cluster::with_seed(7);
    c.apply(Action::CreatePod {
        namespace: "default".into(),
        name: "web".into(),
        image: "nginx".into(),
        labels: vec![],
    })
    .unwrap_or_else(|s| panic!("{}", s.message()));
    let t = c.now().plus_secs(30);
    c.advance_to(t);
    let lines: Vec<String> = c
        .api()
        .ledger()
        .iter()
        .filter(|l| l.key() == "/registry/pods/default/web")
        .flat_map(|l| l.changes())
        .map(|ch| ch.to_string())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("spec.nodeName: + node-")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l == "status.phase: Pending → Running"),
        "{lines:#?}"
    );
    let binder = c
        .api()
        .ledger()
        .iter()
        .find(|l| l.key() == "/registry/pods/default/web" && &*l.resource == "pods/binding")
        .map(|l| l.user.to_string());
    assert_eq!(binder.as_deref(), Some("kube-scheduler"));
}
