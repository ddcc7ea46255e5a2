//! What the live mode knows about a real API server, as plain Rust (no browser): one informer
//! per watched resource (nodes, pods, events) — the engine's reflector and cache over
//! [`JsonListerWatcher`] — plus the kubectl console, all driven through one [`ApiClient`]. The
//! views read from here. Node and pod rows go through the engine's own `node_view` /
//! `pod_view` (the playground's cluster view calls the same two), the events' ages through
//! kubectl's, so the live mode adds no semantics of its own.

use serde_json::Value;
use watchlab_apimachinery::client::virtual_now_unix_ms;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::rfc3339::parse_unix_millis;
use watchlab_engine::api::node::Node;
use watchlab_engine::api::pod::Pod;
use watchlab_engine::client::{Informer, InformerConfig, ReflectorPhase, Resource};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{node_view, pod_view, NodeView, PodView};
use watchlab_engine::rng::SimRng;

use super::lister::{JsonListerWatcher, LiveObject, RawLog};
use crate::console::Console;
use watchlab_apimachinery::sort;

/// The resources the views watch, by plural name, with their collection path.
pub const WATCHED: [(&str, &str); 3] = [
    ("nodes", "/api/v1/nodes"),
    ("pods", "/api/v1/pods"),
    ("events", "/api/v1/events"),
];

/// One watched resource: its informer (no artificial delivery delay: the network is the lag)
/// and the raw lines its watch streams delivered.
struct Watched {
    resource: &'static str,
    collection: &'static str,
    informer: Informer<LiveObject>,
    raw: RawLog,
}

/// A row of the events table, as `kubectl get events --sort-by=.lastTimestamp` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    pub namespace: String,
    pub last_seen: String,
    pub type_: String,
    pub reason: String,
    pub object: String,
    pub message: String,
}

/// What one of the page's own streams is doing, for the streams table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamView {
    pub resource: &'static str,
    pub collection: &'static str,
    pub phase: Phase,
    pub last_rv: u64,
    pub cached: usize,
    pub events: u64,
    pub rewatches: u64,
    pub relists: u64,
    pub expired: u64,
}

/// A reflector's state in words the page translates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    Listing,
    WaitingToWatch,
    Watching,
    /// Waiting after an error (its message).
    BackingOff(String),
}

/// The live model.
pub struct LiveModel {
    watched: Vec<Watched>,
    pub console: Console,
}

impl std::fmt::Debug for LiveModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveModel")
            .field("streams", &self.streams())
            .finish_non_exhaustive()
    }
}

impl Default for LiveModel {
    fn default() -> Self {
        LiveModel::new()
    }
}

impl LiveModel {
    pub fn new() -> Self {
        let mut rng = SimRng::child(0, "watchlab-live");
        let watched = WATCHED
            .iter()
            .map(|(resource, collection)| Watched {
                resource,
                collection,
                informer: Informer::new(
                    InformerConfig {
                        delivery_delay_min_ms: 0,
                        delivery_delay_max_ms: 0,
                        ..InformerConfig::default()
                    },
                    Vec::new(),
                    SimRng::seed_from_u64(rng.next_u64()),
                ),
                raw: RawLog::default(),
            })
            .collect();
        LiveModel {
            watched,
            console: Console::new(),
        }
    }

    /// Lists, watches and drains the streams at `now` (any monotonic clock: it times the
    /// reflectors' backoff) and lets the console's followed stream print. Returns whether
    /// anything the page shows changed.
    pub fn step(&mut self, now: Timestamp, client: &mut dyn ApiClient) -> bool {
        let mut changed = false;
        for w in &mut self.watched {
            let before = (w.raw.received, w.informer.reflector_stats().clone());
            let mut lw = JsonListerWatcher {
                client,
                collection: w.collection,
                raw: &mut w.raw,
            };
            changed |= !w.informer.step(now, &mut lw).is_empty();
            changed |= before != (w.raw.received, w.informer.reflector_stats().clone());
        }
        let last = self.console.lines().back().map(|l| l.id);
        self.console.poll(client);
        changed || last != self.console.lines().back().map(|l| l.id)
    }

    /// Runs a console line.
    pub fn run_command(&mut self, line: &str, client: &mut dyn ApiClient) {
        self.console.run(line, client);
    }

    /// Closes every stream (the page is going away).
    pub fn stop(&mut self, client: &mut dyn ApiClient) {
        for w in &mut self.watched {
            let mut lw = JsonListerWatcher {
                client,
                collection: w.collection,
                raw: &mut w.raw,
            };
            w.informer.stop(&mut lw);
        }
        self.console.interrupt(client);
    }

    fn find(&self, resource: &str) -> Option<&Watched> {
        self.watched.iter().find(|w| w.resource == resource)
    }

    fn objects(&self, resource: &str) -> Vec<LiveObject> {
        let mut all = self
            .find(resource)
            .map(|w| w.informer.store().list())
            .unwrap_or_default();
        sort::sort_by(&mut all, |a, b| {
            (a.namespace(), a.name()).cmp(&(b.namespace(), b.name()))
        });
        all
    }

    /// Whether every resource has been listed once.
    pub fn synced(&self) -> bool {
        self.watched.iter().all(|w| w.informer.has_synced())
    }

    /// The highest resourceVersion any list, event or bookmark carried.
    pub fn latest_resource_version(&self) -> u64 {
        self.watched
            .iter()
            .map(|w| w.informer.latest_resource_version())
            .max()
            .unwrap_or(0)
    }

    /// The last error of a stream that is not watching now (the server is unreachable, ...).
    pub fn problem(&self) -> Option<String> {
        self.streams().into_iter().find_map(|s| match s.phase {
            Phase::BackingOff(m) => Some(m),
            _ => None,
        })
    }

    /// The nodes, each through the engine's own [`node_view`] (the one the playground's view
    /// uses). Whether a machine is down is known to the in-tab engine only.
    pub fn nodes(&self) -> Vec<NodeView> {
        self.objects("nodes")
            .iter()
            .map(
                |n| match serde_json::from_value::<Node>((*n.value).clone()) {
                    Ok(node) => node_view(&node, false),
                    Err(_) => undecodable_node(n),
                },
            )
            .collect()
    }

    /// The pods, each through the engine's own [`pod_view`] (the one the playground's view
    /// uses), so both pages show the same STATUS and READY.
    pub fn pods(&self) -> Vec<PodView> {
        self.objects("pods")
            .iter()
            .map(
                |p| match serde_json::from_value::<Pod>((*p.value).clone()) {
                    Ok(pod) => pod_view(&pod),
                    Err(_) => undecodable_pod(p),
                },
            )
            .collect()
    }

    /// The events, oldest first (`--sort-by=.lastTimestamp`; events without one first).
    pub fn events(&self, now_ms: u64) -> Vec<EventRow> {
        let now = virtual_now_unix_ms(now_ms);
        let mut rows: Vec<(Option<i64>, EventRow)> = self
            .objects("events")
            .iter()
            .map(|e| {
                let v = &e.value;
                let text = |path: &str| {
                    v.pointer(path)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let seen = Some(text("/lastTimestamp"))
                    .filter(|t| !t.is_empty())
                    .or_else(|| Some(text("/eventTime")).filter(|t| !t.is_empty()));
                let row = EventRow {
                    namespace: e.namespace().unwrap_or_default().to_string(),
                    last_seen: since(seen.as_deref(), now),
                    type_: text("/type"),
                    reason: text("/reason"),
                    object: format!(
                        "{}/{}",
                        text("/involvedObject/kind").to_lowercase(),
                        text("/involvedObject/name")
                    ),
                    message: text("/message"),
                };
                (seen.as_deref().and_then(parse_unix_millis), row)
            })
            .collect();
        sort::sort_by_key(&mut rows, |(t, _)| *t);
        rows.into_iter().map(|(_, r)| r).collect()
    }

    /// The page's own streams.
    pub fn streams(&self) -> Vec<StreamView> {
        self.watched
            .iter()
            .map(|w| {
                let stats = w.informer.reflector_stats();
                let error = || {
                    stats
                        .last_error
                        .as_ref()
                        .map(|e| e.message.clone())
                        .unwrap_or_default()
                };
                let phase = match w.informer.reflector().phase() {
                    ReflectorPhase::Watching { .. } => Phase::Watching,
                    _ if stats.last_error.is_some() && stats.backoffs > 0 => {
                        Phase::BackingOff(error())
                    }
                    ReflectorPhase::WaitingToWatch { .. } => Phase::WaitingToWatch,
                    ReflectorPhase::WaitingToList { .. } | ReflectorPhase::Stopped => {
                        Phase::Listing
                    }
                };
                StreamView {
                    resource: w.resource,
                    collection: w.collection,
                    phase,
                    last_rv: w.informer.latest_resource_version(),
                    cached: w.informer.store().len(),
                    events: stats.events,
                    rewatches: stats.watch_restarts,
                    relists: stats.relists,
                    expired: stats.expired,
                }
            })
            .collect()
    }

    /// The raw lines the `resource` watch delivered (the newest).
    pub fn raw(&self, resource: &str) -> Vec<String> {
        self.find(resource)
            .map(|w| w.raw.lines().iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A node whose JSON the engine's types cannot read (a field of an unexpected shape from a
/// server this page does not know): listed by name, its status `Unknown`, rather than hidden.
fn undecodable_node(n: &LiveObject) -> NodeView {
    NodeView {
        name: n.name().to_string(),
        status: "Unknown".to_string(),
        killed: false,
        schedulable: true,
        resource_version: n.resource_version(),
    }
}

/// A pod the engine's types cannot read: listed, its status `Unknown`.
fn undecodable_pod(p: &LiveObject) -> PodView {
    PodView {
        namespace: p.namespace().unwrap_or_default().to_string(),
        name: p.name().to_string(),
        node: None,
        status: "Unknown".to_string(),
        ready: "0/0".to_string(),
        restarts: 0,
        last_restart: None,
        resource_version: p.resource_version(),
        deleting: false,
        workload: None,
        claims: Vec::new(),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_engine::cluster::{Cluster, ClusterConfig};

    /// Steps the model against the cluster's API server, as the page's tick does.
    fn step(model: &mut LiveModel, cluster: &mut Cluster, at: u64) -> bool {
        model.step(
            Timestamp::from_millis(at),
            &mut cluster.session("watchlab-live"),
        )
    }

    #[test]
    fn lists_watches_and_shows_what_kubectl_would() {
        let mut cluster = Cluster::new(ClusterConfig::default());
        let t = cluster.now().plus_secs(5);
        cluster.advance_to(t);
        let mut model = LiveModel::new();
        assert!(step(&mut model, &mut cluster, 1));
        assert!(model.synced());
        let nodes: Vec<_> = model.nodes().into_iter().map(|n| n.name).collect();
        assert_eq!(nodes, ["node-a", "node-b", "node-c"]);
        assert_eq!(model.pods().len(), 3, "the seed Deployment's pods");
        assert!(model.streams().iter().all(|s| s.phase == Phase::Watching));

        model.run_command(
            "kubectl run web --image=nginx",
            &mut cluster.session("kubectl"),
        );
        assert!(model
            .console
            .lines()
            .iter()
            .any(|l| l.text == "pod/web created"));
        let mut seen = Vec::new();
        for i in 0..200 {
            let t = cluster.now().plus_millis(100);
            cluster.advance_to(t);
            step(&mut model, &mut cluster, 2 + i);
            if let Some(p) = model.pods().into_iter().find(|p| p.name == "web") {
                if seen.last() != Some(&p.status) {
                    seen.push(p.status.clone());
                }
            }
        }
        assert_eq!(
            seen.first().map(String::as_str),
            Some("Pending"),
            "{seen:?}"
        );
        assert_eq!(seen.last().map(String::as_str), Some("Running"), "{seen:?}");
        assert!(seen.iter().any(|s| s == "ContainerCreating"), "{seen:?}");
        let raw = model.raw("pods");
        assert!(
            raw.iter()
                .any(|l| l.starts_with(r#"{"type":"ADDED","object":{"#) && l.contains("\"web\"")),
            "{raw:?}"
        );
        let pods = model.pods();
        let web = pods.iter().find(|p| p.name == "web").expect("web");
        assert!(web.node.is_some());
        assert_eq!(web.ready, "1/1");
        let reasons: Vec<_> = model
            .events(cluster.now().as_millis())
            .into_iter()
            .filter(|e| e.object == "pod/web")
            .map(|e| e.reason)
            .collect();
        assert!(reasons.contains(&"Scheduled".to_string()), "{reasons:?}");
        assert!(model.latest_resource_version() >= web.resource_version);
    }

    #[test]
    fn a_compacted_stream_relists_and_catches_up() {
        let mut cluster = Cluster::new(ClusterConfig::default());
        let mut model = LiveModel::new();
        step(&mut model, &mut cluster, 1);
        // Drop the page's streams and compact past them: the re-watch gets 410, the
        // reflector relists, and the cache still ends equal to the server's state.
        let ids: Vec<u64> = cluster
            .api()
            .streams()
            .filter(|s| s.user() == "watchlab-live")
            .map(|s| s.id())
            .collect();
        model.run_command(
            "kubectl run web --image=nginx",
            &mut cluster.session("kubectl"),
        );
        for id in ids {
            cluster
                .apply(watchlab_engine::cluster::Action::DropWatch(id))
                .ok();
        }
        cluster
            .apply(watchlab_engine::cluster::Action::CompactNow)
            .ok();
        for i in 0..100 {
            let t = cluster.now().plus_millis(100);
            cluster.advance_to(t);
            step(&mut model, &mut cluster, 10_000 * (i + 1));
        }
        let pods = model.pods();
        assert_eq!(pods.len(), cluster.pods().len());
        assert!(pods.iter().any(|p| p.name == "web"));
        let streams = model.streams();
        let pods_stream = streams.iter().find(|s| s.resource == "pods").expect("pods");
        assert!(
            pods_stream.rewatches + pods_stream.relists > 0,
            "{streams:?}"
        );
    }

    #[test]
    fn an_unreachable_server_is_a_problem_not_a_panic() {
        struct Down;
        impl ApiClient for Down {
            fn request(
                &mut self,
                _: &str,
                _: &str,
                _: Option<&str>,
                _: Option<&str>,
            ) -> watchlab_apimachinery::client::ApiResponse {
                watchlab_apimachinery::client::ApiResponse {
                    code: 502,
                    body: "Error trying to reach service: connection refused".into(),
                }
            }
            fn watch(
                &mut self,
                _: &str,
            ) -> Result<u64, watchlab_apimachinery::client::ApiResponse> {
                Err(self.request("GET", "", None, None))
            }
            fn poll_watch(&mut self, _: u64) -> Option<Vec<String>> {
                None
            }
            fn stop_watch(&mut self, _: u64) {}
            fn now_ms(&self) -> u64 {
                0
            }
        }
        let mut model = LiveModel::new();
        model.step(Timestamp::from_millis(1), &mut Down);
        assert!(!model.synced());
        assert_eq!(
            model.problem().as_deref(),
            Some("Error trying to reach service: connection refused")
        );
        model.run_command("kubectl get pods", &mut Down);
        assert!(model
            .console
            .lines()
            .iter()
            .any(|l| l.text.contains("connection refused")));
    }
}
