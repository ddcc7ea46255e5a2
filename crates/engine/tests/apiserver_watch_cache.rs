//! The watch cache's read paths as a user meets them (kube-apiserver v1.32): which reads the
//! cache answers, which go to etcd, and what survives when etcd loses its majority or the
//! cache's etcd watch is stuck on a member cut off from the others.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::cacher::{CacherState, REINITIALIZING};
use watchlab_engine::apiserver::watch::{EndReason, StreamState};
use watchlab_engine::apiserver::{ApiServer, EtcdFault};
use watchlab_engine::clock::Timestamp;

const PODS: &str = "/api/v1/namespaces/default/pods";

fn post(s: &mut ApiServer, name: &str) {
    let body = json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":name},
                      "spec":{"containers":[{"name":"web","image":"nginx"}]}})
    .to_string();
    let r = s.request("POST", PODS, None, Some(&body));
    assert_eq!(r.code, 201, "{}", r.body);
}

fn get(s: &mut ApiServer, path: &str) -> (u16, Value) {
    let r = s.request("GET", path, None, None);
    (r.code, serde_json::from_str(&r.body).unwrap_or(Value::Null))
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn pods_state(s: &ApiServer) -> CacherState {
    s.cacher(Kind::Pod)
        .map(|c| c.state().clone())
        .unwrap_or_else(|| panic!("no pods cacher"))
}

fn at(s: &mut ApiServer, secs: u64) {
    s.advance_to(Timestamp::from_secs(secs));
}

#[test]
fn consistent_reads_are_at_etcds_revision_and_resource_version_zero_at_the_caches() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a");
    let pods_rv = s.revision();
    // A write of another resource: etcd moves on, the pods cache's resourceVersion does not.
    let ns = json!({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}});
    let r = s.request("POST", "/api/v1/namespaces", None, Some(&ns.to_string()));
    assert_eq!(r.code, 201, "{}", r.body);
    let etcd_rv = s.revision();
    assert!(etcd_rv > pods_rv);

    let (code, any) = get(&mut s, &format!("{PODS}?resourceVersion=0"));
    assert_eq!(code, 200);
    assert_eq!(any["metadata"]["resourceVersion"], pods_rv.to_string());
    // No resourceVersion: the cache after a progress notification brings it to etcd's.
    let (code, consistent) = get(&mut s, PODS);
    assert_eq!(code, 200);
    assert_eq!(
        consistent["metadata"]["resourceVersion"],
        etcd_rv.to_string()
    );
    assert_eq!(names(&consistent), ["a"]);

    // Ahead of etcd: the cache cannot reach it, 504 with the real cause.
    let ahead = etcd_rv + 5;
    let (code, status) = get(&mut s, &format!("{PODS}?resourceVersion={ahead}"));
    assert_eq!(code, 504);
    assert_eq!(status["reason"], "Timeout");
    assert_eq!(
        status["message"],
        format!("Timeout: Too large resource version: {ahead}, current: {etcd_rv}")
    );
    assert_eq!(
        status["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    let (code, _) = get(&mut s, &format!("{PODS}/a?resourceVersion={ahead}"));
    assert_eq!(code, 504);
}

#[test]
fn a_consistent_list_pages_from_the_cache_and_continues_from_etcd() {
    let mut s = ApiServer::new(1);
    for name in ["a", "b", "c"] {
        post(&mut s, name);
    }
    let (code, first) = get(&mut s, &format!("{PODS}?limit=2"));
    assert_eq!(code, 200);
    assert_eq!(names(&first), ["a", "b"]);
    assert_eq!(first["metadata"]["remainingItemCount"], 1);
    let token = first["metadata"]["continue"].as_str().unwrap_or_default();
    let (code, rest) = get(&mut s, &format!("{PODS}?limit=2&continue={token}"));
    assert_eq!(code, 200, "{rest}");
    assert_eq!(names(&rest), ["c"]);
    // resourceVersion=0 ignores the limit, as the cacher does.
    let (_, whole) = get(&mut s, &format!("{PODS}?resourceVersion=0&limit=1"));
    assert_eq!(names(&whole), ["a", "b", "c"]);
}

#[test]
fn without_a_majority_only_the_cache_answers_and_open_watches_stay() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a");
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion=0")).unwrap_or(0);
    assert_eq!(s.poll_watch(id).map(|l| l.len()), Some(1));
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion=0")).unwrap_or(0);
    s.poll_watch(id);
    for m in ["etcd-1", "etcd-2"] {
        s.etcd_fault(&EtcdFault::Kill(m.into())).expect("kill");
    }
    at(&mut s, 2);
    // Quorum reads time out; writes too.
    for path in [PODS.to_string(), format!("{PODS}/a")] {
        let (code, status) = get(&mut s, &path);
        assert_eq!(
            (code, status["message"].as_str()),
            (500, Some("etcdserver: request timed out"))
        );
    }
    let body = json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},
                      "spec":{"containers":[{"name":"web","image":"nginx"}]}});
    assert_eq!(
        s.request("POST", PODS, None, Some(&body.to_string())).code,
        500
    );
    // resourceVersion=0 is the cache's: answered.
    let (code, list) = get(&mut s, &format!("{PODS}?resourceVersion=0"));
    assert_eq!((code, names(&list)), (200, vec!["a".to_string()]));
    let (code, _) = get(&mut s, &format!("{PODS}/a?resourceVersion=0"));
    assert_eq!(code, 200);
    // After three election timeouts without a leader etcd ends the cache's own watch; the
    // cache keeps serving and its reflector keeps trying.
    at(&mut s, 6);
    assert!(
        matches!(pods_state(&s), CacherState::Rewatching { ref error, .. } if error == "etcdserver: no leader"),
        "{:?}",
        pods_state(&s)
    );
    assert_eq!(s.stream(id).map(|st| st.state()), Some(StreamState::Open));
    assert_eq!(get(&mut s, &format!("{PODS}?resourceVersion=0")).0, 200);
    // After 30 s of that the cacher gives up: every watch it served ends, reads get 429.
    at(&mut s, 40);
    assert!(
        matches!(pods_state(&s), CacherState::Reinitializing { .. }),
        "{:?}",
        pods_state(&s)
    );
    assert_eq!(
        s.stream(id).map(|st| st.state()),
        Some(StreamState::Ended(EndReason::Terminated))
    );
    let (code, status) = get(&mut s, &format!("{PODS}?resourceVersion=0"));
    assert_eq!(
        (code, status["message"].as_str()),
        (429, Some(REINITIALIZING))
    );
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    let refused = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion=0"));
    assert_eq!(refused.err().map(|e| e.code), Some(429));
    // The majority returns: the cache lists again and serves; an old resourceVersion is 410.
    for m in ["etcd-1", "etcd-2"] {
        s.etcd_fault(&EtcdFault::Restore(m.into()))
            .expect("restore");
    }
    at(&mut s, 50);
    assert_eq!(pods_state(&s), CacherState::Watching);
    assert_eq!(names(&get(&mut s, PODS).1), ["a"]);
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion=1")).unwrap_or(0);
    let lines = s.poll_watch(id).unwrap_or_default();
    assert!(lines[0].contains("\"code\":410"), "{lines:?}");
}

#[test]
fn a_short_outage_resumes_the_caches_etcd_watch_and_no_client_relists() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a");
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion=0")).unwrap_or(0);
    s.poll_watch(id);
    for m in ["etcd-1", "etcd-2"] {
        s.etcd_fault(&EtcdFault::Kill(m.into())).expect("kill");
    }
    at(&mut s, 8);
    assert!(matches!(pods_state(&s), CacherState::Rewatching { .. }));
    for m in ["etcd-1", "etcd-2"] {
        s.etcd_fault(&EtcdFault::Restore(m.into()))
            .expect("restore");
    }
    at(&mut s, 15);
    assert_eq!(pods_state(&s), CacherState::Watching);
    post(&mut s, "b");
    let lines = s.poll_watch(id).unwrap_or_default();
    assert_eq!(lines.len(), 1, "the same stream goes on: {lines:?}");
    assert!(lines[0].contains("\"name\":\"b\""), "{lines:?}");
    assert_eq!(s.cacher(Kind::Pod).map(|c| c.terminated()), Some(0));
}

#[test]
fn a_cache_whose_member_is_cut_off_is_stale_until_its_watch_moves_on() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a");
    let member = s.cacher(Kind::Pod).map(|c| c.member()).unwrap_or(9);
    let name = s.etcd().member_name(member).to_string();
    let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1&resourceVersion=0")).unwrap_or(0);
    s.poll_watch(id);
    s.etcd_fault(&EtcdFault::Isolate(name)).expect("isolate");
    // The others elect a leader; the client moves there; writes commit again.
    let mut t = 1;
    while !s.store_writable() || s.etcd().client_member() == Some(s.etcd().member_name(member)) {
        t += 1;
        assert!(t < 20, "no new leader");
        at(&mut s, t);
    }
    let body = json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},
                      "spec":{"containers":[{"name":"web","image":"nginx"}]}});
    let r = s.request("POST", PODS, None, Some(&body.to_string()));
    if r.code != 201 {
        // The client had not yet moved; the next instant it has.
        at(&mut s, t + 1);
        assert_eq!(
            s.request("POST", PODS, None, Some(&body.to_string())).code,
            201
        );
    }
    let written = s.revision();
    // Stale: the cache and its stream have not heard of b; a not-older-than list waits and
    // answers 504; a consistent list falls back to etcd and has b.
    assert!(s.cacher(Kind::Pod).map_or(0, |c| c.revision()) < written);
    assert_eq!(s.poll_watch(id).map(|l| l.len()), Some(0));
    let (code, _) = get(&mut s, &format!("{PODS}?resourceVersion={written}"));
    assert_eq!(code, 504);
    let (code, list) = get(&mut s, PODS);
    assert_eq!(
        (code, names(&list)),
        (200, vec!["a".to_string(), "b".to_string()])
    );
    // Three election timeouts later the cut-off member ends the watch; it reopens on a member
    // with a leader, from where it was, and the stream hears of b.
    at(&mut s, t + 6);
    assert_eq!(pods_state(&s), CacherState::Watching);
    assert_ne!(s.cacher(Kind::Pod).map(|c| c.member()), Some(member));
    let lines = s.poll_watch(id).unwrap_or_default();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(s.cacher(Kind::Pod).map(|c| c.revision()), Some(written));
    assert_eq!(
        get(&mut s, &format!("{PODS}?resourceVersion={written}")).0,
        200
    );
}

#[test]
fn a_watch_list_waits_for_a_fresh_cache_and_ends_its_initial_events_with_a_bookmark() {
    let mut s = ApiServer::new(1);
    post(&mut s, "a");
    let mut opts = ListOptions {
        send_initial_events: Some(true),
        resource_version_match: Some(
            watchlab_apimachinery::request::ResourceVersionMatch::NotOlderThan,
        ),
        allow_watch_bookmarks: true,
        ..Default::default()
    };
    let id = s
        .watch("test", Kind::Pod, Some("default"), &opts)
        .expect("watch-list");
    let events = s.poll(id).unwrap_or_default();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].resource_version, s.revision());
    // From a resourceVersion etcd has not reached: one ERROR 504 event.
    opts.resource_version = Some((s.revision() + 3).to_string());
    let id = s
        .watch("test", Kind::Pod, Some("default"), &opts)
        .expect("opens");
    let events = s.poll(id).unwrap_or_default();
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].event_type,
        watchlab_engine::apiserver::WatchEventType::Error
    );
}
