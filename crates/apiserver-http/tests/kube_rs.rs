//! kube-rs, a real Rust client, against watchlab-apiserver: a `watcher` + `reflector` over the
//! pods of `default` keeps its cache through forced watch timeouts (`timeoutSeconds=1`) and a
//! server-closed stream whose resourceVersion the pods watch cache has meanwhile dropped from
//! its window of events (the resumed watch gets 410 Expired, with etcd uncompacted, and the
//! watcher relists), and ends equal to the ledger.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{move_pods_window_on, TestServer};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, PostParams};
use kube::runtime::{reflector, watcher};
use kube::{Client, Config};
use serde_json::json;

fn pod(name: &str) -> Pod {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "kube-rs"}},
        "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
    }))
    .expect("pod")
}

/// (namespace/name → resourceVersion) of every pod in `default`, as the ledger has them now.
fn ledger_pods(s: &TestServer) -> BTreeMap<String, String> {
    let r = s.with_cluster(|c| {
        c.session("test").server().handle(
            "test",
            "GET",
            "/api/v1/namespaces/default/pods",
            None,
            None,
        )
    });
    let list: serde_json::Value = serde_json::from_str(&r.body).expect("list");
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let m = &p["metadata"];
            (
                format!(
                    "{}/{}",
                    m["namespace"].as_str().unwrap_or(""),
                    m["name"].as_str().unwrap_or("")
                ),
                m["resourceVersion"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn cache_pods(reader: &reflector::Store<Pod>) -> BTreeMap<String, String> {
    reader
        .state()
        .iter()
        .map(|p| {
            let m = &p.metadata;
            (
                format!(
                    "{}/{}",
                    m.namespace.as_deref().unwrap_or(""),
                    m.name.as_deref().unwrap_or("")
                ),
                m.resource_version.clone().unwrap_or_default(),
            )
        })
        .collect()
}

async fn eventually(
    log: &Arc<Mutex<Vec<String>>>,
    what: &str,
    max: Duration,
    mut done: impl FnMut() -> bool,
) {
    let deadline = tokio::time::Instant::now() + max;
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}; watcher events: {:?}",
            log.lock().expect("log")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn reflector_survives_watch_timeouts_and_the_watch_cache_moving_on() {
    let s = TestServer::start();
    let url: http::Uri = format!("http://{}", s.addr).parse().expect("url");
    let client = Client::try_from(Config::new(url)).expect("client");
    // Only `default`: the writes that move the watch cache on are to a pod in `production`,
    // which would otherwise move the watcher's resourceVersion along and hide the 410.
    let pods: Api<Pod> = Api::namespaced(client, "default");

    let (reader, writer) = reflector::store::<Pod>();
    // Every watch the watcher opens ends after one second: the resume path is exercised.
    let stream = reflector(
        writer,
        watcher(pods.clone(), watcher::Config::default().timeout(1)),
    );
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = log.clone();
    let consumer = tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        while let Some(item) = stream.next().await {
            let entry = match item {
                Ok(watcher::Event::Init) => "init".to_string(),
                Ok(watcher::Event::InitDone) => "init-done".to_string(),
                Ok(watcher::Event::InitApply(_)) => "init-apply".to_string(),
                Ok(watcher::Event::Apply(p)) => {
                    format!("apply {}", p.metadata.name.unwrap_or_default())
                }
                Ok(watcher::Event::Delete(p)) => {
                    format!("delete {}", p.metadata.name.unwrap_or_default())
                }
                Err(e) => format!("error {e:?}"),
            };
            seen.lock().expect("log").push(entry);
        }
    });
    let inits = |log: &Arc<Mutex<Vec<String>>>| {
        log.lock()
            .expect("log")
            .iter()
            .filter(|e| *e == "init-done")
            .count()
    };

    tokio::time::timeout(Duration::from_secs(20), reader.wait_until_ready())
        .await
        .expect("initial list")
        .expect("store");

    for name in ["a", "b"] {
        pods.create(&PostParams::default(), &pod(name))
            .await
            .expect("create");
    }
    eventually(
        &log,
        "the two pods in the cache",
        Duration::from_secs(10),
        || cache_pods(&reader).len() == 2,
    )
    .await;

    // Let at least one watch time out, then change things: the resumed watch must carry them.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    pods.create(&PostParams::default(), &pod("c"))
        .await
        .expect("create c");
    pods.delete("a", &DeleteParams::default())
        .await
        .expect("delete a");
    eventually(
        &log,
        "c added and a deleted",
        Duration::from_secs(10),
        || {
            let c = cache_pods(&reader);
            c.contains_key("default/c") && !c.contains_key("default/a")
        },
    )
    .await;

    // Move the pods watch cache's window of events past the watcher's position with writes it
    // does not watch: the next resume from its last pod resourceVersion is too old for the
    // cache (410 Expired, though etcd has compacted nothing), then the watcher relists.
    let before = inits(&log);
    s.with_cluster(|cluster| {
        // End the watcher's open stream, as an API server restart would: it resumes from its
        // last pod resourceVersion, at most the revision of now.
        let mut session = cluster.session("test");
        let server = session.server();
        let ours: Vec<_> = server
            .streams()
            .filter(|st| st.filter().namespace.as_deref() == Some("default"))
            .map(|st| st.id())
            .collect();
        assert!(!ours.is_empty(), "the watcher has an open watch");
        for id in ours {
            server.stop_watch(id);
        }
        let writes = move_pods_window_on(cluster);
        assert!(writes > 0, "{writes}");
        let compacted = cluster.api().store().compact_revision();
        assert_eq!(compacted, 0, "nothing compacted: the 410 is the cache's");
    });
    eventually(
        &log,
        "a relist after the watch cache moved on",
        Duration::from_secs(15),
        || inits(&log) > before,
    )
    .await;
    pods.create(&PostParams::default(), &pod("d"))
        .await
        .expect("create d");
    eventually(
        &log,
        "the cache to equal the ledger",
        Duration::from_secs(10),
        || cache_pods(&reader) == ledger_pods(&s),
    )
    .await;

    let events = log.lock().expect("log").clone();
    assert!(
        events
            .iter()
            .any(|e| e.starts_with("error") && e.contains("410")),
        "{events:?}"
    );
    assert_eq!(
        cache_pods(&reader).keys().cloned().collect::<Vec<_>>(),
        ["default/b", "default/c", "default/d"]
    );
    consumer.abort();
}
