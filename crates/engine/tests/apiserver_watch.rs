//! Watch through both faces: JSON lines over the ApiClient edge and typed shared events. Start
//! semantics, selector-driven ADDED/DELETED, resume, 410 after compaction, bookmarks, timeouts,
//! the nodeName index, slow-watcher termination and Event TTL expiry.

use serde_json::{json, Value};
use std::sync::Arc;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::binding::Binding;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::{ApiServer, WatchEventType};
use watchlab_engine::clock::Timestamp;

const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str, app: &str) -> String {
    json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":name,"labels":{"app":app}},
           "spec":{"containers":[{"name":"web","image":"nginx"}]}})
    .to_string()
}

fn post(s: &mut ApiServer, name: &str, app: &str) -> Value {
    let r = s.request("POST", PODS, None, Some(&pod(name, app)));
    assert_eq!(r.code, 201, "{}", r.body);
    serde_json::from_str(&r.body).unwrap_or(Value::Null)
}

fn relabel(s: &mut ApiServer, name: &str, app: &str) {
    let body = json!({"metadata":{"labels":{"app":app}}}).to_string();
    let r = s.request(
        "PATCH",
        &format!("{PODS}/{name}"),
        Some("application/merge-patch+json"),
        Some(&body),
    );
    assert_eq!(r.code, 200, "{}", r.body);
}

/// (type, name, resourceVersion) of each line.
fn lines(s: &mut ApiServer, id: u64) -> Option<Vec<(String, String, String)>> {
    let ls = s.poll_watch(id)?;
    Some(
        ls.iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or(Value::Null);
                let t = v["type"].as_str().unwrap_or("").to_string();
                let n = v["object"]["metadata"]["name"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                let rv = v["object"]["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                (t, n, rv)
            })
            .collect(),
    )
}

fn types(ev: &[(String, String, String)]) -> Vec<(&str, &str)> {
    ev.iter()
        .map(|(t, n, _)| (t.as_str(), n.as_str()))
        .collect()
}

#[test]
fn initial_state_then_changes_with_selector_transitions() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a", "nginx");
    post(&mut s, "b", "db");
    let id = ApiClient::watch(
        &mut s,
        &format!("{PODS}?watch=true&labelSelector=app%3Dnginx"),
    )
    .unwrap_or(0);
    assert_eq!(
        types(&lines(&mut s, id).unwrap_or_default()),
        vec![("ADDED", "a")]
    );
    relabel(&mut s, "b", "nginx"); // starts matching
    relabel(&mut s, "a", "other"); // stops matching
    let c = post(&mut s, "c", "db"); // never matches
    let c_rv: u64 = c["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or_default();
    let r = s.request("DELETE", &format!("{PODS}/b"), None, None);
    assert_eq!(r.code, 200);
    let ev = lines(&mut s, id).unwrap_or_default();
    assert_eq!(
        types(&ev),
        vec![("ADDED", "b"), ("DELETED", "a"), ("DELETED", "b")]
    );
    // DELETED carries the deletion's revision.
    assert_eq!(ev[2].2, s.revision().to_string());
    // The raw line has the real shape.
    relabel(&mut s, "a", "nginx");
    let raw = s.poll_watch(id).unwrap_or_default();
    assert!(raw[0].starts_with("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\""), "{}", raw[0]);
    let stream = s
        .stream(id)
        .map(|st| (st.delivered(), st.filtered_out(), st.user().to_string()));
    assert_eq!(stream, Some((5, 1, "kubectl".to_string())));
    // The one refusal is remembered by its revision (the page's fan-out reads it).
    let refused = s
        .stream(id)
        .map(|st| st.recent_filtered().collect::<Vec<_>>());
    assert_eq!(refused, Some(vec![c_rv]));
}

#[test]
fn resume_from_a_revision_and_410_once_the_cache_window_has_moved_on() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a", "x");
    let after_a = s.revision();
    post(&mut s, "b", "x");
    relabel(&mut s, "a", "y");
    let id =
        ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion={after_a}")).unwrap_or(0);
    let ev = lines(&mut s, id).unwrap_or_default();
    assert_eq!(types(&ev), vec![("ADDED", "b"), ("MODIFIED", "a")]);
    let last = ev[1].2.parse::<u64>().unwrap_or(0);
    assert_eq!(last, s.revision());

    // etcd's compaction does not touch the watch cache's window: still served.
    post(&mut s, "c", "x");
    s.compact_now().ok();
    let id =
        ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion={after_a}")).unwrap_or(0);
    let ev = lines(&mut s, id).unwrap_or_default();
    assert_eq!(
        types(&ev),
        vec![("ADDED", "b"), ("MODIFIED", "a"), ("ADDED", "c")]
    );

    // 80 s later the ring's oldest events are stale: once it is full (100 events) it drops
    // them instead of growing, and a watch from before them gets 410 from the cache.
    s.advance_to(Timestamp::from_secs(80));
    let before = s.revision();
    for i in 0..98 {
        post(&mut s, &format!("p{i}"), "x");
    }
    let oldest = s
        .cacher(Kind::Pod)
        .map_or(0, |c| c.window().oldest_servable());
    assert!(oldest > after_a && oldest <= before + 1, "{oldest}");
    let id =
        ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion={after_a}")).unwrap_or(0);
    let raw = s.poll_watch(id).unwrap_or_default();
    let v: Value = serde_json::from_str(&raw[0]).unwrap_or(Value::Null);
    assert_eq!(v["type"], "ERROR");
    assert_eq!(v["object"]["code"], 410);
    assert_eq!(v["object"]["reason"], "Expired");
    assert_eq!(
        v["object"]["message"],
        format!("too old resource version: {after_a} ({oldest})")
    );
    assert_eq!(s.poll_watch(id), None, "the stream ends after the error");

    // A watch from a resourceVersion the cache has not reached is accepted; it hears only
    // what comes after it.
    let future = s.revision() + 2;
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion={future}"))
        .expect("a watch ahead of the cache waits");
    assert_eq!(lines(&mut s, id).map(|e| e.len()), Some(0));
    for name in ["f1", "f2", "f3"] {
        post(&mut s, name, "x");
    }
    let ev = lines(&mut s, id).unwrap_or_default();
    assert_eq!(types(&ev), vec![("ADDED", "f3")]);
}

#[test]
fn bookmarks_timeouts_and_initial_events_end() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a", "x");
    let rev = s.revision();
    let id = ApiClient::watch(
        &mut s,
        &format!(
            "{PODS}?watch=1&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion={rev}"
        ),
    )
    .unwrap_or(0);
    assert_eq!(lines(&mut s, id), Some(vec![]));
    s.advance_to(Timestamp::from_secs(60));
    let ev = lines(&mut s, id).unwrap_or_default();
    assert_eq!(types(&ev), vec![("BOOKMARK", "")]);
    assert_eq!(ev[0].2, s.revision().to_string());
    s.advance_to(Timestamp::from_secs(150));
    assert_eq!(lines(&mut s, id), None, "timeoutSeconds ends the stream");

    let id = ApiClient::watch(
            &mut s,
            &format!(
            "{PODS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
        ))
        .unwrap_or(0);
    let raw = s.poll_watch(id).unwrap_or_default();
    assert_eq!(raw.len(), 2);
    let end: Value = serde_json::from_str(&raw[1]).unwrap_or(Value::Null);
    assert_eq!(end["type"], "BOOKMARK");
    assert_eq!(
        end["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    let bad = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&sendInitialEvents=true"));
    assert_eq!(bad.err().map(|r| r.code), Some(422));

    // Without timeoutSeconds the server picks [1800s, 3600s).
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1")).unwrap_or(0);
    let d = s
        .stream(id)
        .map(|st| st.deadline().millis_since(st.opened_at()))
        .unwrap_or(0);
    assert!((1_800_000..3_600_000).contains(&d), "{d}");
}

fn opts(field: &str) -> ListOptions {
    ListOptions {
        field_selector: FieldSelector::parse(field).unwrap_or_default(),
        ..Default::default()
    }
}

#[test]
fn node_name_index_delivers_to_old_and_new_node_and_shares_events() {
    let mut s = ApiServer::new(1);
    let on_a = s
        .watch(
            "kubelet/node-a",
            Kind::Pod,
            None,
            &opts("spec.nodeName=node-a"),
        )
        .unwrap_or(0);
    let on_b = s
        .watch(
            "kubelet/node-b",
            Kind::Pod,
            None,
            &opts("spec.nodeName=node-b"),
        )
        .unwrap_or(0);
    let unscheduled = s
        .watch("kube-scheduler", Kind::Pod, None, &opts("spec.nodeName="))
        .unwrap_or(0);
    let all = s
        .watch(
            "kube-controller-manager",
            Kind::Pod,
            None,
            &ListOptions::default(),
        )
        .unwrap_or(0);
    post(&mut s, "web", "x");
    s.bind("kube-scheduler", &Binding::new("default", "web", "node-a"))
        .ok();
    let a = s.poll(on_a).unwrap_or_default();
    assert_eq!(
        a.iter().map(|e| e.event_type).collect::<Vec<_>>(),
        vec![WatchEventType::Added]
    );
    let everything = s.poll(all).unwrap_or_default();
    assert_eq!(everything.len(), 2);
    // One event object shared by both streams, never copied per watcher.
    assert!(Arc::ptr_eq(
        a[0].object().unwrap_or(&Arc::new(Object::empty(Kind::Pod))),
        everything[1]
            .object()
            .unwrap_or(&Arc::new(Object::empty(Kind::Pod)))
    ));
    assert!(s.poll(on_b).unwrap_or_default().is_empty());
    // The scheduler's "unscheduled pods" watch sees the pod leave its selector at binding:
    // a DELETED (offered through the old nodeName's bucket) carrying, as the cacher does, the
    // last state that matched (still unbound) at the binding's revision.
    let sched = s.poll(unscheduled).unwrap_or_default();
    let kinds: Vec<_> = sched.iter().map(|e| e.event_type).collect();
    assert_eq!(kinds, vec![WatchEventType::Added, WatchEventType::Deleted]);
    let left = sched[1].object().and_then(|o| o.as_pod()).map(|p| {
        (
            p.spec.node_name.clone(),
            p.metadata.resource_version.clone(),
        )
    });
    let bound_at = s
        .get(Kind::Pod, Some("default"), "web")
        .map(|o| o.meta().resource_version.clone())
        .unwrap_or_default();
    assert_eq!(left, Some((String::new(), bound_at)));

    assert_eq!(
        s.stream(on_b).map(|st| st.filtered_out()),
        Some(0),
        "node-b's kubelet was never offered node-a's pod"
    );

    // Graceful deletion is a MODIFIED (deletionTimestamp), the kubelet's grace-0 delete a DELETED.
    s.delete(
        "kubectl",
        Kind::Pod,
        Some("default"),
        "web",
        &Default::default(),
    )
    .ok();
    let a = s.poll(on_a).unwrap_or_default();
    let kinds: Vec<_> = a.iter().map(|e| e.event_type).collect();
    assert_eq!(kinds, vec![WatchEventType::Modified]);
    let zero = watchlab_engine::apiserver::DeleteOptions {
        grace_period_seconds: Some(0),
        ..Default::default()
    };
    s.delete("kubelet/node-a", Kind::Pod, Some("default"), "web", &zero)
        .ok();
    let a = s.poll(on_a).unwrap_or_default();
    assert_eq!(
        a.iter().map(|e| e.event_type).collect::<Vec<_>>(),
        vec![WatchEventType::Deleted]
    );
}

#[test]
fn a_watcher_that_does_not_drain_is_terminated_and_can_resume() {
    let mut s = ApiServer::new(1);
    s.set_watch_buffer_limit(3);
    let rev = s.revision();
    let id =
        ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion={rev}")).unwrap_or(0);
    for i in 0..5 {
        post(&mut s, &format!("p{i}"), "x");
    }
    let got = lines(&mut s, id).unwrap_or_default();
    assert_eq!(got.len(), 3);
    assert_eq!(lines(&mut s, id), None);
    let last = got[2].2.clone();
    let id =
        ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion={last}")).unwrap_or(0);
    let rest = lines(&mut s, id).unwrap_or_default();
    assert_eq!(types(&rest), vec![("ADDED", "p3"), ("ADDED", "p4")]);
}

#[test]
fn events_expire_after_their_ttl() {
    let mut s = ApiServer::new(1);
    let ev = json!({"apiVersion":"v1","kind":"Event","metadata":{"name":"web.1"},
                    "involvedObject":{"kind":"Pod","namespace":"default","name":"web"},
                    "reason":"Scheduled","message":"Successfully assigned default/web to node-a","type":"Normal"})
    .to_string();
    let r = s.request("POST", "/api/v1/namespaces/default/events", None, Some(&ev));
    assert_eq!(r.code, 201, "{}", r.body);
    let id = ApiClient::watch(
        &mut s,
        "/api/v1/namespaces/default/events?watch=1&timeoutSeconds=7200&fieldSelector=reason%3DScheduled",
    )
    .unwrap_or(0);
    assert_eq!(lines(&mut s, id).map(|l| l.len()), Some(1));
    // Its lease is granted for the hour plus the apiserver's 60 s reuse window, which a second
    // Event written within that minute shares.
    s.advance_to(Timestamp::from_secs(59));
    let again = ev.replace("web.1", "web.2");
    let r = s.request(
        "POST",
        "/api/v1/namespaces/default/events",
        None,
        Some(&again),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(lines(&mut s, id).map(|l| l.len()), Some(1));
    s.advance_to(Timestamp::from_secs(3659));
    assert_eq!(lines(&mut s, id).map(|l| l.len()), Some(0));
    s.advance_to(Timestamp::from_secs(3660));
    let gone = lines(&mut s, id).unwrap_or_default();
    assert_eq!(
        types(&gone),
        vec![("DELETED", "web.1"), ("DELETED", "web.2")]
    );
    assert_eq!(
        s.ledger().iter().last().map(|e| (e.verb, &*e.user)),
        Some(("expire", "kube-apiserver"))
    );
}

#[test]
fn periodic_compaction_keeps_one_interval_of_history() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a", "x");
    let r1 = s.revision();
    s.advance_to(Timestamp::from_secs(300)); // first tick records r1
    post(&mut s, "b", "x");
    assert_eq!(s.store().compact_revision(), 0);
    s.advance_to(Timestamp::from_secs(600)); // compacts to r1
    assert_eq!(s.store().compact_revision(), r1);
}

#[test]
fn one_event_is_shared_by_every_stream_and_rendered_once() {
    let mut s = ApiServer::new(1);
    let ids: Vec<u64> = (0..3)
        .map(|i| {
            s.watch(
                &format!("w{i}"),
                Kind::Pod,
                Some("default"),
                &ListOptions::default(),
            )
            .unwrap_or(0)
        })
        .collect();
    post(&mut s, "a", "x");
    let got: Vec<_> = ids
        .iter()
        .map(|id| s.poll(*id).unwrap_or_default())
        .collect();
    assert!(got.iter().all(|g| g.len() == 1));
    assert!(Arc::ptr_eq(&got[0][0], &got[1][0]) && Arc::ptr_eq(&got[1][0], &got[2][0]));
    assert!(!got[0][0].json_rendered());
    let line = got[0][0].json();
    assert!(got[2][0].json_rendered());
    assert!(Arc::ptr_eq(&line, &got[1][0].json()));
}

/// Found by the simulation's watch auditor: an object relabelled out of a label selector left
/// the stream as a DELETED carrying its new labels. The cacher's `convertToWatchEvent` sends the
/// previous (last matching) state with the event's resourceVersion, live and on resume alike.
#[test]
fn leaving_a_label_selector_is_a_deleted_of_the_last_matching_state() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a", "nginx");
    let created = s.revision();
    let mut opts = ListOptions {
        label_selector: watchlab_apimachinery::labels::LabelSelector::parse("app=nginx")
            .unwrap_or_else(|e| panic!("{e}")),
        ..Default::default()
    };
    opts.resource_version = Some(created.to_string());
    let live = s
        .watch("kubectl", Kind::Pod, Some("default"), &opts)
        .unwrap_or_else(|e| panic!("{e:?}"));
    relabel(&mut s, "a", "other");
    let left_at = s.revision();
    let resumed = s
        .watch("kubectl", Kind::Pod, Some("default"), &opts)
        .unwrap_or_else(|e| panic!("{e:?}"));
    for id in [live, resumed] {
        let ev = s.poll(id).unwrap_or_default();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].event_type, WatchEventType::Deleted);
        assert_eq!(ev[0].resource_version, left_at);
        let obj = ev[0].object().map(|o| (**o).clone());
        let labels = obj.as_ref().map(|o| o.meta().labels.clone());
        assert_eq!(
            labels.and_then(|l| l.get("app").cloned()).as_deref(),
            Some("nginx")
        );
        assert_eq!(obj.map(|o| o.resource_version()), Some(left_at));
    }
}
