//! Property test of the broadcast against an independent model: random creates, relabels,
//! bindings, deletions, compactions, time jumps and watch drops with resumes, under random label
//! and field selectors. Per stream: revisions strictly increase, events are exactly the ledger
//! history filtered by the selector (ADDED/DELETED when an object enters/leaves it), resuming
//! from the last revision loses and duplicates nothing, list + watch reconstructs the store, and
//! bookmarks never go backwards.

use proptest::prelude::*;
use std::collections::BTreeMap;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::binding::Binding;
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Kind, Object, ObjectMeta};
use watchlab_engine::apiserver::{ApiServer, DeleteOptions, WatchEventType};
use watchlab_engine::clock::Timestamp;

const NS: &str = "default";
const APPS: [&str; 2] = ["a", "b"];
const NODES: [&str; 2] = ["n1", "n2"];

#[derive(Debug, Clone)]
enum Step {
    Create { pod: u8, app: u8, node: Option<u8> },
    Relabel { pod: u8, app: u8 },
    Bind { pod: u8, node: u8 },
    Delete { pod: u8, graceful: bool },
    Compact,
    Advance { secs: u16 },
    Resume { watcher: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..6u8, 0..2u8, proptest::option::of(0..2u8)).prop_map(|(pod, app, node)| Step::Create { pod, app, node }),
        4 => (0..6u8, 0..2u8).prop_map(|(pod, app)| Step::Relabel { pod, app }),
        3 => (0..6u8, 0..2u8).prop_map(|(pod, node)| Step::Bind { pod, node }),
        3 => (0..6u8, any::<bool>()).prop_map(|(pod, graceful)| Step::Delete { pod, graceful }),
        1 => Just(Step::Compact),
        1 => (1..90u16).prop_map(|secs| Step::Advance { secs }),
        2 => (0..4u8).prop_map(|watcher| Step::Resume { watcher }),
    ]
}

/// A watcher's selector in model form: (app label, nodeName).
#[derive(Debug, Clone, Copy)]
struct Sel {
    app: Option<u8>,
    node: Option<u8>,
}

fn sel() -> impl Strategy<Value = Sel> {
    (proptest::option::of(0..2u8), proptest::option::of(0..3u8))
        .prop_map(|(app, node)| Sel { app, node })
}

/// Node index 2 means "unscheduled" (`spec.nodeName=`).
fn node_value(n: u8) -> &'static str {
    NODES.get(n as usize).copied().unwrap_or("")
}

impl Sel {
    fn options(&self, rv: u64) -> ListOptions {
        let labels = self
            .app
            .map(|a| format!("app={}", APPS[a as usize]))
            .unwrap_or_default();
        let fields = self
            .node
            .map(|n| format!("spec.nodeName={}", node_value(n)))
            .unwrap_or_default();
        ListOptions {
            label_selector: LabelSelector::parse(&labels).unwrap_or_default(),
            field_selector: FieldSelector::parse(&fields).unwrap_or_default(),
            resource_version: Some(rv.to_string()),
            allow_watch_bookmarks: true,
            timeout_seconds: Some(1_000_000),
            ..Default::default()
        }
    }

    /// The model's own matching rule (independent of the server's filter code).
    fn matches(&self, p: &Pod) -> bool {
        let app_ok = self.app.is_none_or(|a| {
            p.metadata.labels.get("app").map(String::as_str) == Some(APPS[a as usize])
        });
        let node_ok = self.node.is_none_or(|n| p.spec.node_name == node_value(n));
        app_ok && node_ok
    }
}

type Snapshot = BTreeMap<String, Pod>;

fn snapshot(s: &ApiServer) -> Snapshot {
    let list = s
        .list(Kind::Pod, Some(NS), &ListOptions::default())
        .map(|l| l.items)
        .unwrap_or_default();
    list.iter()
        .filter_map(|o| o.as_pod().map(|p| (p.metadata.name.clone(), p.clone())))
        .collect()
}

/// The events a watcher of `sel` must see going from `before` to `after` at revision `rev`.
fn expected(
    sel: &Sel,
    before: &Snapshot,
    after: &Snapshot,
    rev: u64,
    out: &mut Vec<(WatchEventType, String, u64)>,
) {
    let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
    names.sort();
    names.dedup();
    for n in names {
        let was = before.get(n).is_some_and(|p| sel.matches(p));
        let t = match after.get(n) {
            Some(p) if p == before.get(n).unwrap_or(&Pod::default()) => None,
            Some(p) => match (was, sel.matches(p)) {
                (false, true) => Some(WatchEventType::Added),
                (true, true) => Some(WatchEventType::Modified),
                (true, false) => Some(WatchEventType::Deleted),
                (false, false) => None,
            },
            None => was.then_some(WatchEventType::Deleted),
        };
        if let Some(t) = t {
            out.push((t, n.clone(), rev));
        }
    }
}

struct Watcher {
    sel: Sel,
    id: u64,
    /// Model cache reconstructed from list + events.
    cache: BTreeMap<String, Pod>,
    got: Vec<(WatchEventType, String, u64)>,
    want: Vec<(WatchEventType, String, u64)>,
    last_rv: u64,
    last_bookmark: u64,
}

fn new_pod(name: &str, app: u8, node: Option<u8>) -> Object {
    let mut meta = ObjectMeta::named(NS, name);
    meta.labels.insert("app".into(), APPS[app as usize].into());
    Object::Pod(Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![Container {
                name: "c".into(),
                image: "nginx".into(),
                ..Default::default()
            }]
            .into(),
            node_name: node
                .map(|n| NODES[n as usize].to_string())
                .unwrap_or_default(),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    })
}

fn drain(s: &mut ApiServer, w: &mut Watcher) -> Result<bool, TestCaseError> {
    let Some(events) = s.poll(w.id) else {
        return Ok(false);
    };
    for e in events {
        match e.event_type {
            WatchEventType::Bookmark => {
                prop_assert!(
                    e.resource_version >= w.last_bookmark && e.resource_version >= w.last_rv
                );
                w.last_bookmark = e.resource_version;
            }
            WatchEventType::Error => return Ok(false),
            t => {
                prop_assert!(
                    e.resource_version > w.last_rv,
                    "rv {} after {}",
                    e.resource_version,
                    w.last_rv
                );
                w.last_rv = e.resource_version;
                let p = e
                    .object()
                    .and_then(|o| o.as_pod())
                    .cloned()
                    .unwrap_or_default();
                prop_assert_eq!(
                    p.metadata.resource_version.parse::<u64>().ok(),
                    Some(e.resource_version)
                );
                if t == WatchEventType::Deleted {
                    w.cache.remove(&p.metadata.name);
                } else {
                    w.cache.insert(p.metadata.name.clone(), p.clone());
                }
                w.got.push((t, p.metadata.name.clone(), e.resource_version));
            }
        }
    }
    Ok(true)
}

/// Starts (or restarts after a 410) a watcher with a list at the current revision.
fn relist(s: &mut ApiServer, w: &mut Watcher) {
    let rv = s.revision();
    let list = s
        .list(Kind::Pod, Some(NS), &w.sel.options(rv))
        .map(|l| l.items)
        .unwrap_or_default();
    w.cache = list
        .iter()
        .filter_map(|o| o.as_pod().map(|p| (p.metadata.name.clone(), p.clone())))
        .collect();
    w.last_rv = rv;
    w.id = s
        .watch("prop", Kind::Pod, Some(NS), &w.sel.options(rv))
        .unwrap_or(0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn streams_match_the_filtered_ledger(sels in proptest::collection::vec(sel(), 4), steps in proptest::collection::vec(step(), 1..60)) {
        let mut s = ApiServer::new(7);
        let mut now = 0u64;
        let mut watchers: Vec<Watcher> = sels.iter().map(|sel| Watcher {
            sel: *sel, id: 0, cache: BTreeMap::new(), got: vec![], want: vec![], last_rv: 0, last_bookmark: 0,
        }).collect();
        for w in watchers.iter_mut() {
            relist(&mut s, w);
        }
        let mut before = snapshot(&s);
        for st in steps {
            let rev_before = s.revision();
            match st {
                Step::Create { pod, app, node } => { let _ = s.create("prop", new_pod(&format!("p{pod}"), app, node)); }
                Step::Relabel { pod, app } => {
                    if let Ok(cur) = s.get(Kind::Pod, Some(NS), &format!("p{pod}")) {
                        let mut o = (*cur).clone();
                        o.meta_mut().labels.insert("app".into(), APPS[app as usize].into());
                        let _ = s.update("prop", o);
                    }
                }
                Step::Bind { pod, node } => { let _ = s.bind("prop", &Binding::new(NS, &format!("p{pod}"), NODES[node as usize])); }
                Step::Delete { pod, graceful } => {
                    let opts = DeleteOptions { grace_period_seconds: (!graceful).then_some(0), ..Default::default() };
                    let _ = s.delete("prop", Kind::Pod, Some(NS), &format!("p{pod}"), &opts);
                }
                Step::Compact => { let _ = s.compact_now(); }
                Step::Advance { secs } => { now += u64::from(secs) * 1000; s.advance_to(Timestamp::from_millis(now)); }
                Step::Resume { watcher } => {
                    let w = &mut watchers[watcher as usize];
                    let alive = drain(&mut s, w)?;
                    s.stop_watch(w.id);
                    prop_assert!(alive);
                    w.id = s.watch("prop", Kind::Pod, Some(NS), &w.sel.options(w.last_rv)).unwrap_or(0);
                    if !drain(&mut s, w)? {
                        // Compacted: the stream said 410; relist and compare from there on.
                        prop_assert!(w.last_rv < s.store().compact_revision());
                        relist(&mut s, w);
                        w.got.clear();
                        w.want.clear();
                    }
                }
            }
            // At most one revision per step here; each revision's expected events come from the
            // model's before/after snapshots.
            prop_assert!(s.revision() <= rev_before + 1);
            let after = snapshot(&s);
            if s.revision() > rev_before {
                for w in watchers.iter_mut() {
                    expected(&w.sel, &before, &after, s.revision(), &mut w.want);
                }
            }
            before = after;
        }
        for w in watchers.iter_mut() {
            prop_assert!(drain(&mut s, w)?);
            prop_assert_eq!(&w.got, &w.want, "selector {:?}", w.sel);
            let truth: BTreeMap<String, Pod> = before.iter().filter(|(_, p)| w.sel.matches(p)).map(|(k, v)| (k.clone(), v.clone())).collect();
            prop_assert_eq!(&w.cache, &truth, "list + watch must reconstruct the store");
        }
    }
}
