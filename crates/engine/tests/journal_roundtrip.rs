//! Save and restore: a busy session exported and imported gives the same cluster — every
//! revision of the ledger, the clock, the open watches — and the restored cluster goes on
//! exactly as the original does. Also the journal's bounds.

use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::table::TABLE_ACCEPT;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::{EtcdCompare, EtcdCompareOp, EtcdCompareTarget, EtcdRequestOp};
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};
use watchlab_engine::journal::{history_digest, Input, JournalError, Refusal, MAX_INPUTS};

/// Drives the clock the way the UI does: many small frames.
fn frames(c: &mut Cluster, ms: u64, frame: u64) {
    let end = c.now().plus_millis(ms);
    while c.now() < end {
        let t = c.now().plus_millis(frame).min(end);
        c.advance_to(t);
    }
}

/// Equal histories, or the first line where they part.
fn assert_same_history(a: &Cluster, b: &Cluster) {
    let (a, b) = (history_digest(a), history_digest(b));
    if let Some(i) = (0..a.len().max(b.len())).find(|i| a.get(*i) != b.get(*i)) {
        panic!(
            "histories part at line {i}:\n  {:?}\n  {:?}",
            a.get(i),
            b.get(i)
        );
    }
}

fn pod(namespace: &str, name: &str) -> Action {
    Action::CreatePod {
        namespace: namespace.into(),
        name: name.into(),
        image: "nginx:1.27".into(),
        labels: vec![],
    }
}

/// Every kind of input, at many instants, several at one instant.
fn busy_session() -> (Cluster, u64, u64) {
    let mut c = Cluster::with_seed(7);
    frames(&mut c, 20_000, 250);
    c.apply(pod("default", "web")).unwrap();
    c.apply(Action::CreateDeployment {
        namespace: "default".into(),
        name: "shop".into(),
        image: "shop:2.1".into(),
        replicas: 2,
        labels: vec![],
    })
    .unwrap();
    frames(&mut c, 5_000, 16);
    c.apply(Action::Scale {
        namespace: "production".into(),
        name: "orders-api".into(),
        replicas: 5,
    })
    .unwrap();
    c.apply(Action::Label {
        kind: Kind::Deployment.into(),
        namespace: "production".into(),
        name: "orders-api".into(),
        key: "team".into(),
        value: "orders".into(),
        overwrite: false,
    })
    .unwrap();
    // A refused action is an input too.
    assert!(c.apply(pod("nowhere", "ghost")).is_err());

    // kubectl-style requests through the console's session.
    let (kept, stopped) = {
        let mut s = c.session("kubectl");
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"debug"},"spec":{"containers":[{"name":"debug","image":"busybox"}]}}"#;
        let r = s.request("POST", "/api/v1/namespaces/default/pods", None, Some(body));
        assert_eq!(r.code, 201, "{}", r.body);
        let r = s.request(
            "PATCH",
            "/api/v1/namespaces/default/pods/debug",
            Some("application/merge-patch+json"),
            Some(r#"{"metadata":{"labels":{"tier":"tools"}}}"#),
        );
        assert_eq!(r.code, 200, "{}", r.body);
        assert_eq!(
            s.request("GET", "/api/v1/pods?limit=2", None, None).code,
            200
        );
        let kept = s
            .watch("/api/v1/namespaces/default/pods?watch=true")
            .unwrap();
        let stopped = s
            .watch("/apis/apps/v1/deployments?watch=true&allowWatchBookmarks=true")
            .unwrap();
        assert!(s
            .watch("/api/v1/pods?watch=true&labelSelector=a%3D%3D%3D")
            .is_err());
        // kubectl get's Table, and a `get -w` stream of Table events (kept open).
        let r = s.get_accepting("/api/v1/namespaces/default/pods", TABLE_ACCEPT);
        assert!(r.body.contains(r#""kind":"Table""#), "{}", r.body);
        let printed = s
            .watch_accepting("/api/v1/namespaces/default/pods?watch=true", TABLE_ACCEPT)
            .unwrap();
        assert_eq!(printed, stopped + 1);
        (kept, stopped)
    };
    // Two inputs at one instant with the controllers settling between them, then two without.
    let now = c.now();
    c.advance_to(now);
    {
        let mut s = c.session("kubectl");
        assert!(!s.poll_watch(kept).unwrap().is_empty());
        let r = s.request("DELETE", "/api/v1/namespaces/default/pods/web", None, None);
        assert_eq!(r.code, 200, "{}", r.body);
        let r = s.request("DELETE", "/api/v1/namespaces/default/pods/web", None, None);
        assert_eq!(r.code, 200, "graceful delete still terminating: {}", r.body);
    }
    frames(&mut c, 1_000, 16);
    {
        let mut s = c.session("kubectl");
        assert!(s.poll_watch(stopped).is_some());
        s.stop_watch(stopped);
    }
    c.apply(Action::KillNode("node-c".into())).unwrap();
    frames(&mut c, 60_000, 100);
    c.apply(Action::KillEtcdMember("etcd-1".into())).unwrap();
    c.step();
    c.apply(Action::RestoreEtcdMember("etcd-1".into())).unwrap();
    while c.now().as_millis() < 140_000 {
        c.step();
    }
    c.apply(Action::ConflictingWrite {
        namespace: "production".into(),
        name: "orders-api".into(),
    })
    .unwrap();
    c.apply(Action::CompactNow).unwrap();
    let t = c.now().plus_secs(120);
    c.advance_to(t);
    c.apply(Action::RestoreNode("node-c".into())).unwrap();
    frames(&mut c, 30_000, 1_000);
    (c, kept, stopped)
}

#[test]
fn a_busy_session_restores_to_the_same_cluster() {
    let (original, kept, stopped) = busy_session();
    let text = original.export().unwrap();
    let mut restored = Cluster::import(&text).unwrap();

    assert_eq!(restored.now(), original.now());
    assert_eq!(restored.api().revision(), original.api().revision());
    assert!(
        original.api().store().compact_revision() > 0,
        "the session compacted"
    );
    assert_same_history(&restored, &original);
    assert_eq!(restored.membership_log(), original.membership_log());
    assert_eq!(restored.nodes(), original.nodes());
    assert_eq!(restored.pods(), original.pods());
    assert_eq!(restored.informers(), original.informers());
    assert_eq!(restored.journal(), original.journal());
    assert_eq!(
        restored.export().unwrap(),
        text,
        "byte-identical file again"
    );

    // The same watch ids, in the same states.
    let ids = |c: &Cluster| c.api().streams().map(|s| s.id()).collect::<Vec<_>>();
    assert_eq!(ids(&restored), ids(&original));
    assert!(restored.api().stream(kept).is_some());
    assert!(restored.api().stream(stopped).is_none());
    let watch_ids: Vec<_> = original
        .journal()
        .inputs
        .iter()
        .filter_map(|e| e.watch_id)
        .collect();
    assert_eq!(watch_ids, [kept, stopped, stopped + 1]);

    // The restored cluster is the original one: it goes on the same way.
    let mut original = original;
    for c in [&mut original, &mut restored] {
        c.apply(Action::KillNode("node-a".into())).unwrap();
        let t = c.now().plus_secs(90);
        c.advance_to(t);
        let opened = c.session("kubectl").watch("/api/v1/pods?watch=true");
        assert!(opened.is_ok());
    }
    assert_same_history(&restored, &original);
    assert_eq!(
        restored.export().unwrap(),
        original.export().unwrap(),
        "and journals the same"
    );
}

#[test]
fn the_journal_records_every_kind_of_input() {
    let (c, _, _) = busy_session();
    let inputs = &c.journal().inputs;
    let count = |f: fn(&Input) -> bool| inputs.iter().filter(|e| f(&e.input)).count();
    assert_eq!(count(|i| matches!(i, Input::Apply(_))), 11);
    assert_eq!(count(|i| matches!(i, Input::Request { .. })), 6);
    assert_eq!(count(|i| matches!(i, Input::Watch { .. })), 4);
    // The Accept of a Table get and of a Table watch is recorded, so a replay asks the same.
    assert_eq!(
        count(|i| matches!(i, Input::Request { accept: Some(a), .. } if a == TABLE_ACCEPT)),
        1
    );
    assert_eq!(
        count(|i| matches!(i, Input::Watch { accept: Some(a), .. } if a == TABLE_ACCEPT)),
        1
    );
    assert_eq!(count(|i| matches!(i, Input::Stop { .. })), 1);
    assert!(count(|i| matches!(i, Input::Poll { .. })) >= 2);
    // The same-instant settle is marked; inputs back to back are not.
    let same_instant: Vec<_> = inputs
        .windows(2)
        .filter(|w| w[0].at_ms == w[1].at_ms)
        .map(|w| w[1].settled)
        .collect();
    assert!(same_instant.contains(&true) && same_instant.contains(&false));
    assert!(inputs.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    assert_eq!(c.journal().now_ms, c.now().as_millis());
    assert_eq!(c.journal().revision, c.api().revision());
}

#[test]
fn the_scenario_marker_is_saved_and_bounded() {
    let mut c = Cluster::with_seed(3);
    c.set_scenario(Some("node-c-dies:2".into())).unwrap();
    let restored = Cluster::import(&c.export().unwrap()).unwrap();
    assert_eq!(
        restored.journal().scenario.as_deref(),
        Some("node-c-dies:2")
    );
    let err = c.set_scenario(Some("x".repeat(5000))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the scenario marker is too long: 5000 bytes (at most 4096)"
    );
    assert_eq!(c.journal().scenario.as_deref(), Some("node-c-dies:2"));
}

fn bare() -> Cluster {
    Cluster::new(ClusterConfig {
        nodes: vec![],
        seed_objects: false,
        ..ClusterConfig::default()
    })
}

#[test]
fn past_the_input_bound_the_session_says_it_is_too_long_to_save() {
    let mut c = bare();
    for _ in 0..MAX_INPUTS {
        c.apply(Action::DropWatch(999)).unwrap();
    }
    assert!(c.journal().refusal().is_none());
    assert!(c.export().is_ok());
    c.apply(Action::DropWatch(999)).unwrap();
    assert_eq!(c.journal().refusal(), Some(&Refusal::TooManyInputs));
    assert_eq!(
        c.journal().inputs.len(),
        MAX_INPUTS,
        "nothing recorded past it"
    );
    let err = c.export().unwrap_err();
    assert_eq!(err, JournalError::SessionTooLong(Refusal::TooManyInputs));
    assert_eq!(
        err.to_string(),
        "this session is too long to save: it has more than 100000 inputs"
    );
}

#[test]
fn past_the_size_bound_the_session_says_it_is_too_long_to_save() {
    let mut c = bare();
    let big = format!(
        r#"{{"metadata":{{"name":"x"}},"pad":"{}"}}"#,
        "a".repeat(1 << 20)
    );
    for _ in 0..16 {
        c.session("kubectl")
            .request("POST", "/api/v1/namespaces", None, Some(&big));
        if c.journal().refusal().is_some() {
            break;
        }
    }
    assert_eq!(c.journal().refusal(), Some(&Refusal::TooManyBytes));
    assert!(c.journal().size_bytes() <= watchlab_engine::journal::MAX_BYTES);
    assert_eq!(
        c.export().unwrap_err().to_string(),
        "this session is too long to save: its file would be larger than 16777216 bytes"
    );
}

#[test]
fn direct_server_access_stops_the_journal() {
    let mut c = bare();
    let _ = c.session("kubectl").server();
    assert_eq!(c.journal().refusal(), Some(&Refusal::Unrecorded));
    assert!(c.export().is_err());
}

/// One step of a random session.
#[derive(Debug, Clone)]
enum Op {
    /// Moves the clock `ms` forward in frames of `frame` ms (0: one jump; `ms` 0: the same
    /// instant again).
    Advance {
        ms: u64,
        frame: u64,
    },
    Step,
    Act(Action),
    Watch,
    PollLast,
    StopLast,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    let name = prop::sample::select(vec!["web", "api", "db"]);
    let node = prop::sample::select(vec!["node-a", "node-b", "node-z"]);
    let member = prop::sample::select(vec!["etcd-1", "etcd-2", "etcd-9"]);
    prop_oneof![
        4 => (0u64..8_000, prop::sample::select(vec![0u64, 1, 16, 250]))
            .prop_map(|(ms, frame)| Op::Advance { ms, frame }),
        1 => Just(Op::Step),
        2 => name.clone().prop_map(|n| Op::Act(pod("default", n))),
        1 => name.prop_map(|n| Op::Act(Action::Delete {
            kind: Kind::Pod.into(),
            namespace: "default".into(),
            name: n.into(),
        })),
        1 => (0u32..5).prop_map(|r| Op::Act(Action::Scale {
            namespace: "production".into(),
            name: "orders-api".into(),
            replicas: r,
        })),
        1 => node.clone().prop_map(|n| Op::Act(Action::KillNode(n.into()))),
        1 => node.clone().prop_map(|n| Op::Act(Action::RestoreNode(n.into()))),
        1 => node.prop_map(|n| Op::Act(Action::DrainNode(n.into()))),
        1 => member.clone().prop_map(|m| Op::Act(Action::KillEtcdMember(m.into()))),
        1 => member.clone().prop_map(|m| Op::Act(Action::RestoreEtcdMember(m.into()))),
        1 => Just(Op::Act(Action::CompactNow)),
        1 => (member.clone(), 0u64..40).prop_map(|(m, revision)| Op::Act(Action::CompactEtcd {
            member: m.into(),
            revision,
        })),
        1 => (member.clone(), prop::sample::select(vec!["a", "b"])).prop_map(|(m, n)| {
            Op::Act(Action::EtcdPut {
                member: m.into(),
                key: format!("/registry/configmaps/default/{n}"),
                value: format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{n}"}},"data":{{"k":"v"}}}}"#),
                lease: None,
            })
        }),
        1 => (member.clone(), 0i64..40).prop_map(|(m, ttl_secs)| Op::Act(Action::EtcdLeaseGrant {
            member: m.into(),
            ttl_secs,
        })),
        1 => (member.clone(), 1i64..4).prop_map(|(m, id)| Op::Act(Action::EtcdLeaseRevoke {
            member: m.into(),
            id,
        })),
        1 => member.clone().prop_map(|m| Op::Act(Action::EtcdAlarmDisarm { member: m.into() })),
        1 => (member.clone(), 0i64..40).prop_map(|(m, rev)| Op::Act(Action::EtcdTxn {
            member: m.into(),
            compares: vec![EtcdCompare {
                key: "/registry/configmaps/default/a".into(),
                op: EtcdCompareOp::Less,
                target: EtcdCompareTarget::Mod(rev),
            }],
            success: vec![
                EtcdRequestOp::Put {
                    key: "/registry/configmaps/default/t".into(),
                    value: r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"}}"#.into(),
                },
                EtcdRequestOp::Delete {
                    key: "/registry/configmaps/default/b".into(),
                    range_end: None,
                },
            ],
            failure: vec![EtcdRequestOp::Get {
                key: "/registry/configmaps/default/t".into(),
                range_end: None,
            }],
        })),
        1 => member.clone().prop_map(|m| Op::Act(Action::EtcdSnapshotSave {
            member: m.into(),
            path: "backup.db".into(),
        })),
        1 => Just(Op::Act(Action::EtcdSnapshotRestore {
            path: "backup.db".into(),
            bump_revision: 1_000,
            mark_compacted: true,
        })),
        1 => member.prop_map(|m| Op::Act(Action::EtcdDelete {
            member: m.into(),
            key: "/registry/configmaps/default/".into(),
            range_end: Some("/registry/configmaps/default0".into()),
        })),
        1 => Just(Op::Watch),
        2 => Just(Op::PollLast),
        1 => Just(Op::StopLast),
    ]
}

fn run(ops: &[Op]) -> Cluster {
    let mut c = Cluster::new(ClusterConfig {
        seed: 11,
        nodes: vec!["node-a".into(), "node-b".into()],
        ..ClusterConfig::default()
    });
    let mut last = None;
    for op in ops {
        match op {
            Op::Advance { ms, frame: 0 } => {
                let t = c.now().plus_millis(*ms);
                c.advance_to(t);
            }
            Op::Advance { ms, frame } => frames(&mut c, *ms, *frame),
            Op::Step => {
                c.step();
            }
            Op::Act(a) => {
                let _ = c.apply(a.clone());
            }
            Op::Watch => {
                last = c
                    .session("kubectl")
                    .watch("/api/v1/pods?watch=true&allowWatchBookmarks=true")
                    .ok();
            }
            Op::PollLast => {
                if let Some(id) = last {
                    let _ = c.session("kubectl").poll_watch(id);
                }
            }
            Op::StopLast => {
                if let Some(id) = last.take() {
                    c.session("kubectl").stop_watch(id);
                }
            }
        }
    }
    c
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

    /// Whatever a session did, and however its driver chunked time, the file restores it.
    #[test]
    fn any_session_restores_to_the_same_cluster(ops in proptest::collection::vec(op(), 1..24)) {
        let original = run(&ops);
        let text = original.export().unwrap();
        let restored = Cluster::import(&text);
        proptest::prop_assert!(restored.is_ok(), "{:?}", restored.err());
        let restored = restored.unwrap();
        proptest::prop_assert_eq!(history_digest(&restored), history_digest(&original));
        proptest::prop_assert_eq!(restored.export().unwrap(), text);
    }
}

#[test]
fn discovery_reads_are_not_journaled() {
    let mut c = Cluster::with_seed(7);
    let before = c.journal().inputs.len();
    let mut s = c.session("kubectl");
    for path in ["/api", "/api/v1", "/apis", "/apis/apps/v1?timeout=32s"] {
        assert_eq!(s.request("GET", path, None, None).code, 200, "{path}");
    }
    // An API read is still an input.
    assert_eq!(s.request("GET", "/api/v1/namespaces", None, None).code, 200);
    assert_eq!(c.journal().inputs.len(), before + 1);
}

/// Quorum lost and regained: the components' failed writes retry at their own instants (a
/// recorder's events every 10 s), not once per step of whoever drives the clock, so a driver
/// in 1 ms frames and a replay in one jump write the same ledger.
#[test]
fn quorum_lost_and_regained_restores_to_the_same_cluster() {
    let ops = [
        Op::Act(Action::KillEtcdMember("etcd-2".into())),
        Op::Advance {
            ms: 1413,
            frame: 250,
        },
        Op::Act(Action::KillEtcdMember("etcd-1".into())),
        Op::Advance { ms: 2871, frame: 0 },
        Op::Act(Action::RestoreEtcdMember("etcd-2".into())),
        Op::Advance { ms: 3039, frame: 1 },
    ];
    let original = run(&ops);
    let restored = Cluster::import(&original.export().unwrap());
    assert!(restored.is_ok(), "{:?}", restored.err());
    assert_same_history(&restored.unwrap(), &original);
}

/// A session on a custom kind: its CRD applied through a session, a Website created, then the
/// Actions panel's label and delete naming the custom kind. The journal names it
/// `websites.examples.watchlab.dev`, which resolves on replay once the CRD input has been
/// replayed, so the file restores to the same cluster (the operator's Deployment included).
#[test]
fn a_session_on_a_custom_kind_restores_to_the_same_cluster() {
    use watchlab_engine::controllers::website::{CRD_YAML, WEBSITE_YAML};
    let yaml = |text: &str| {
        serde_yaml_ng::from_str::<serde_json::Value>(text)
            .unwrap()
            .to_string()
    };
    let mut c = Cluster::with_seed(3);
    frames(&mut c, 5_000, 100);
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let sites = "/apis/examples.watchlab.dev/v1/namespaces/default/websites";
    let r = c
        .session("kubectl")
        .request("POST", crds, None, Some(&yaml(CRD_YAML)));
    assert_eq!(r.code, 201, "{}", r.body);
    frames(&mut c, 1_000, 100);
    let r = c
        .session("kubectl")
        .request("POST", sites, None, Some(&yaml(WEBSITE_YAML)));
    assert_eq!(r.code, 201, "{}", r.body);
    frames(&mut c, 5_000, 100);
    let website = c
        .api()
        .registry()
        .resolve("website")
        .expect("served once its CRD is established")
        .kind();
    c.apply(Action::Label {
        kind: website.into(),
        namespace: "default".into(),
        name: "blog".into(),
        key: "team".into(),
        value: "web".into(),
        overwrite: false,
    })
    .unwrap();
    frames(&mut c, 2_000, 100);
    assert!(c
        .api()
        .get(Kind::Deployment, Some("default"), "blog")
        .is_ok());
    c.apply(Action::Delete {
        kind: website.into(),
        namespace: "default".into(),
        name: "blog".into(),
    })
    .unwrap();
    frames(&mut c, 5_000, 100);
    let text = c.export().unwrap();
    assert!(
        text.contains(r#""kind":"websites.examples.watchlab.dev""#),
        "the custom kind is written by its qualified plural"
    );
    let restored = Cluster::import(&text).unwrap();
    assert_same_history(&restored, &c);
    assert_eq!(restored.export().unwrap(), text);
    assert!(c
        .api()
        .get(Kind::Deployment, Some("default"), "blog")
        .is_err());
}

/// Found by the property above: the majority lost mid-run, time advanced in frames.
#[test]
fn a_session_that_lost_the_etcd_majority_restores() {
    let ops = [
        Op::Act(Action::KillEtcdMember("etcd-1".into())),
        Op::Advance {
            ms: 1660,
            frame: 16,
        },
        Op::Advance {
            ms: 3382,
            frame: 16,
        },
        Op::Act(Action::KillEtcdMember("etcd-2".into())),
        Op::Advance {
            ms: 4769,
            frame: 16,
        },
    ];
    let original = run(&ops);
    let text = original.export().unwrap();
    let restored = Cluster::import(&text).unwrap();
    assert_eq!(history_digest(&restored), history_digest(&original));
}
