//! The informer against the real ApiServer, through a test-local adapter of the typed
//! interface (`K = Arc<Object>` behind a newtype): checks that the ListerWatcher contract fits
//! the server's watch semantics — DELETED at the deletion's RV, 410 after compaction, resume.

use std::sync::Arc;

use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::Status;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::{ApiServer, WatchEvent as ServerEvent, WatchEventType};
use watchlab_engine::client::{
    ClientError, Informer, InformerConfig, ListParams, ListerWatcher, Notification, ObjectList,
    ReflectorPhase, Resource, StreamId, WatchEvent, WatchParams,
};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::rng::SimRng;

#[derive(Debug, Clone, PartialEq)]
struct Obj(Arc<Object>);

impl Resource for Obj {
    fn namespace(&self) -> Option<&str> {
        Some(self.0.meta().namespace.as_str()).filter(|ns| !ns.is_empty())
    }
    fn name(&self) -> &str {
        &self.0.meta().name
    }
    fn resource_version(&self) -> u64 {
        self.0.meta().resource_version.parse().unwrap_or(0)
    }
    fn uid(&self) -> &str {
        &self.0.meta().uid
    }
}

struct Adapter<'a> {
    server: &'a mut ApiServer,
    kind: Kind,
}

fn client_error(s: &Status) -> ClientError {
    ClientError::new(s.code, s.reason.as_str(), s.message.clone())
}

fn convert(e: &ServerEvent) -> WatchEvent<Obj> {
    use watchlab_engine::apiserver::watch::WatchObject;
    match (&e.event_type, &e.object) {
        (WatchEventType::Error, WatchObject::Status(s)) => WatchEvent::Error(client_error(s)),
        (WatchEventType::Bookmark, _) => WatchEvent::Bookmark {
            resource_version: e.resource_version,
        },
        (WatchEventType::Added, WatchObject::Object(o)) => WatchEvent::Added(Obj(o.clone())),
        (WatchEventType::Modified, WatchObject::Object(o)) => WatchEvent::Modified(Obj(o.clone())),
        (WatchEventType::Deleted, WatchObject::Object(o)) => WatchEvent::Deleted(Obj(o.clone())),
        _ => WatchEvent::Error(ClientError::internal("unexpected watch event")),
    }
}

impl ListerWatcher<Obj> for Adapter<'_> {
    fn list(&mut self, params: &ListParams) -> Result<ObjectList<Obj>, ClientError> {
        let opts = ListOptions {
            resource_version: params.resource_version.as_query(),
            ..ListOptions::default()
        };
        let list = self
            .server
            .list(self.kind, None, &opts)
            .map_err(|s| client_error(&s))?;
        Ok(ObjectList {
            items: list.items.into_iter().map(Obj).collect(),
            resource_version: list.resource_version,
        })
    }

    fn watch(&mut self, params: &WatchParams) -> Result<StreamId, ClientError> {
        let opts = ListOptions {
            resource_version: Some(params.resource_version.to_string()),
            allow_watch_bookmarks: params.allow_watch_bookmarks,
            timeout_seconds: params.timeout_seconds,
            ..ListOptions::default()
        };
        self.server
            .watch("test-informer", self.kind, None, &opts)
            .map_err(|s| client_error(&s))
    }

    fn poll(&mut self, id: StreamId) -> Option<Vec<WatchEvent<Obj>>> {
        self.server
            .poll(id)
            .map(|events| events.iter().map(|e| convert(e)).collect())
    }

    fn stop(&mut self, id: StreamId) {
        self.server.stop_watch(id);
    }
}

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";

fn create_lease(server: &mut ApiServer, name: &str) {
    let body = format!(
        r#"{{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{{"name":"{name}"}},"spec":{{"holderIdentity":"{name}"}}}}"#
    );
    let r =
        server
            .as_user("kubelet")
            .request("POST", LEASES, Some("application/json"), Some(&body));
    assert_eq!(r.code, 201, "{}", r.body);
}

fn renew_lease(server: &mut ApiServer, name: &str, holder: &str) {
    let body = format!(r#"{{"spec":{{"holderIdentity":"{holder}"}}}}"#);
    let path = format!("{LEASES}/{name}");
    let r = server.as_user("kubelet").request(
        "PATCH",
        &path,
        Some("application/merge-patch+json"),
        Some(&body),
    );
    assert_eq!(r.code, 200, "{}", r.body);
}

fn delete_lease(server: &mut ApiServer, name: &str) {
    let r = server
        .as_user("kubectl")
        .request("DELETE", &format!("{LEASES}/{name}"), None, None);
    assert_eq!(r.code, 200, "{}", r.body);
}

fn server_leases(server: &ApiServer) -> Vec<Obj> {
    let list = server
        .list(Kind::Lease, None, &ListOptions::default())
        .expect("list leases");
    list.items.into_iter().map(Obj).collect()
}

fn step(inf: &mut Informer<Obj>, server: &mut ApiServer, now: Timestamp) -> Vec<Notification<Obj>> {
    server.advance_to(now);
    inf.step(
        now,
        &mut Adapter {
            server,
            kind: Kind::Lease,
        },
    )
}

fn config() -> InformerConfig {
    InformerConfig {
        delivery_delay_min_ms: 0,
        delivery_delay_max_ms: 0,
        ..InformerConfig::default()
    }
}

#[test]
fn the_cache_follows_the_real_server_through_deletes_and_compaction() {
    let mut server = ApiServer::new(7);
    create_lease(&mut server, "node-a");
    create_lease(&mut server, "node-b");
    let mut inf = Informer::new(config(), Vec::new(), SimRng::seed_from_u64(7));
    let store = inf.store();
    let t0 = Timestamp::from_secs(1);
    let notes = step(&mut inf, &mut server, t0);
    assert_eq!(notes.len(), 2);
    assert_eq!(store.list(), server_leases(&server));

    renew_lease(&mut server, "node-b", "node-b2");
    delete_lease(&mut server, "node-a");
    create_lease(&mut server, "node-c");
    let notes = step(&mut inf, &mut server, t0.plus_millis(10));
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert_eq!(store.list(), server_leases(&server));
    assert_eq!(inf.latest_resource_version(), server.revision());

    // The server closes the stream; writes happen before the client is back, and a busy minute
    // later the watch cache's window has moved past its resourceVersion (etcd still has it).
    let ReflectorPhase::Watching { stream, .. } = inf.reflector().phase() else {
        panic!("not watching: {:?}", inf.reflector().phase());
    };
    server.stop_watch(stream);
    delete_lease(&mut server, "node-b");
    create_lease(&mut server, "node-d");
    server.advance_to(Timestamp::from_secs(80));
    for i in 0..100 {
        renew_lease(&mut server, "node-d", &format!("node-d{i}"));
    }
    let t1 = Timestamp::from_secs(81);
    step(&mut inf, &mut server, t1);
    assert_eq!(
        inf.reflector_stats().expired,
        1,
        "{:?}",
        inf.reflector_stats()
    );
    let notes = step(&mut inf, &mut server, t1.plus_secs(2));
    assert_eq!(inf.reflector_stats().relists, 1);
    assert_eq!(store.list(), server_leases(&server));
    let tombstones = notes
        .iter()
        .filter(|n| {
            matches!(
                n,
                Notification::Delete(watchlab_engine::client::Deleted::FinalStateUnknown(_))
            )
        })
        .count();
    assert_eq!(tombstones, 1, "node-b's delete was missed: {notes:?}");
}
