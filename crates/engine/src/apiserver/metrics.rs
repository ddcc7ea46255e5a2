//! `metrics.k8s.io/v1beta1`, the resource metrics API that metrics-server serves as an aggregated
//! API and that `kubectl top` and the HorizontalPodAutoscaler read: `NodeMetrics` (`nodes`) and
//! `PodMetrics` (`pods`), get and list only (kubernetes-sigs/metrics-server `pkg/api/node.go`,
//! `pkg/api/pod.go`; the types in k8s.io/metrics `pkg/apis/metrics/v1beta1/types.go`). watchlab
//! runs no containers and has no kubelet summary to scrape, so the figures are made up, but made
//! up deterministically: a container uses a fraction of its requests (a base fraction fixed per
//! container, 20–60 %, and a wobble of ±10 points that changes once per window), each a pure
//! function of the server's seed, the pod's uid, the container's name and the virtual time
//! bucketed to the window. Nothing is stored per tick, so 150,000 pods cost nothing until asked.
//!
//! As metrics-server: only Running pods have metrics (`getPodMetrics` skips the others), and
//! only once they have run for a whole window (its CPU figure is a rate between two scrapes);
//! a node whose kubelet cannot be scraped (a killed machine) has none, nor have its pods; a
//! node's usage is its running pods' plus the system's own (the node's root cgroup). CPU is
//! written in nanocores (`"2445937n"`, `resource.NewScaledQuantity(n, -9)`), memory as a binary
//! quantity of the working set (`"14236Ki"`, `resource.NewQuantity(b, BinarySI)`). The window
//! is the upstream manifests' `--metric-resolution=15s` (metrics-server's `FAQ.md`; the flag's
//! own default is 60 s), its length wobbling a little as real scrapes do.

use super::ApiServer;
use crate::api::node::Node;
use crate::api::pod::Pod;
use crate::api::{Kind, Object};
use crate::clock::Timestamp;
use crate::hash::{fnv1a64_extend, FNV64_OFFSET};
use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiResponse;
use watchlab_apimachinery::labels::{LabelSelector, Labels};
use watchlab_apimachinery::quantity::{Quantity, QuantityFormat};
use watchlab_apimachinery::request::{parse_request, Verb};
use watchlab_apimachinery::status::{GroupResource, Status};

/// The group.
pub const GROUP: &str = "metrics.k8s.io";
/// Its one served version.
pub const VERSION: &str = "v1beta1";
/// `apiVersion` of its objects.
pub const API_VERSION: &str = "metrics.k8s.io/v1beta1";
/// The scrape interval: `--metric-resolution=15s` of metrics-server's manifests.
pub const WINDOW_MS: u64 = 15_000;

/// CPU a container without a CPU request is given as its "request" for the model (a
/// BestEffort process idles but is not free).
const DEFAULT_CPU_MILLI: u64 = 10;
/// Memory likewise, for a container without a memory request.
const DEFAULT_MEMORY_BYTES: u64 = 32 * 1024 * 1024;
/// The base fraction of the requests a container uses, in per mille: 200–600.
const BASE_PER_MILLE: (u64, u64) = (200, 600);
/// The wobble around it, per window, in per mille: ±100.
const WOBBLE_PER_MILLE: u64 = 100;
/// What the node itself uses beyond its pods (kubelet, runtime, the OS): 50–150 m of CPU and
/// 256–512 MiB of memory, fixed per node.
const SYSTEM_CPU_MILLI: (u64, u64) = (50, 150);
const SYSTEM_MEMORY_MIB: (u64, u64) = (256, 512);
/// Working sets are whole pages.
const PAGE_BYTES: u64 = 4096;

/// One figure of usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu_nanocores: u64,
    pub memory_bytes: u64,
}

impl Usage {
    fn plus(self, o: Usage) -> Usage {
        Usage {
            cpu_nanocores: self.cpu_nanocores.saturating_add(o.cpu_nanocores),
            memory_bytes: self.memory_bytes.saturating_add(o.memory_bytes),
        }
    }

    /// `{"cpu": "2445937n", "memory": "14236Ki"}` as metrics-server writes a `ResourceList`.
    pub fn to_json(self) -> Value {
        let cpu = i64::try_from(self.cpu_nanocores).unwrap_or(i64::MAX);
        let cpu = Quantity::parse(&format!("{cpu}n")).unwrap_or_default();
        let memory = i64::try_from(self.memory_bytes).unwrap_or(i64::MAX);
        let memory = Quantity::with_format(memory, QuantityFormat::BinarySI);
        json!({"cpu": cpu.to_string(), "memory": memory.to_string()})
    }
}

/// A value in `lo..=hi` drawn from the hash of `parts` (seeded by `seed`).
fn draw(seed: u64, parts: &[&[u8]], (lo, hi): (u64, u64)) -> u64 {
    let mut h = FNV64_OFFSET ^ seed;
    for p in parts {
        h = fnv1a64_extend(h, p);
        h = fnv1a64_extend(h, &[0xff]);
    }
    // A final mix so close inputs (bucket n, n+1) land far apart.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    lo + h % (hi - lo + 1)
}

/// The window `now` falls in (its index since the epoch of the virtual clock).
pub fn bucket(now: Timestamp) -> u64 {
    now.as_millis() / WINDOW_MS
}

/// What one container of the pod `uid` uses in window `bucket`, given its requests (CPU in
/// thousandths of a core, memory in bytes; 0 for none): between 10 % and 70 % of each.
pub fn container_usage(
    seed: u64,
    uid: &str,
    container: &str,
    cpu_request_milli: u64,
    memory_request_bytes: u64,
    bucket: u64,
) -> Usage {
    let cpu_milli = if cpu_request_milli == 0 {
        DEFAULT_CPU_MILLI
    } else {
        cpu_request_milli
    };
    let memory = if memory_request_bytes == 0 {
        DEFAULT_MEMORY_BYTES
    } else {
        memory_request_bytes
    };
    let (u, c, b) = (uid.as_bytes(), container.as_bytes(), bucket.to_le_bytes());
    let per_mille = |what: &[u8]| {
        let base = draw(seed, &[b"base", what, u, c], BASE_PER_MILLE);
        let wobble = draw(
            seed,
            &[b"wobble", what, u, c, &b],
            (0, 2 * WOBBLE_PER_MILLE),
        );
        base + wobble - WOBBLE_PER_MILLE
    };
    // nanocores = milli × 10⁶ × ‰ / 10³; a few nanocores of noise below the figure's precision.
    let noise = draw(seed, &[b"noise", u, c, &b], (1, 999));
    let cpu_nanocores = cpu_milli
        .saturating_mul(1_000)
        .saturating_mul(per_mille(b"cpu"))
        .saturating_add(noise);
    let memory_bytes = memory.saturating_mul(per_mille(b"memory")) / 1000 / PAGE_BYTES * PAGE_BYTES;
    Usage {
        cpu_nanocores,
        memory_bytes,
    }
}

/// The system's own usage on `node` (not its pods'), fixed per node.
pub fn system_usage(seed: u64, node: &str) -> Usage {
    let n = node.as_bytes();
    Usage {
        cpu_nanocores: draw(seed, &[b"system-cpu", n], SYSTEM_CPU_MILLI) * 1_000_000,
        memory_bytes: draw(seed, &[b"system-memory", n], SYSTEM_MEMORY_MIB) * 1024 * 1024,
    }
}

/// The scrape a figure of window `bucket` comes from: its time (the window's start) and the
/// window's length in milliseconds (15 s ± 0.5 s, as scrapes drift).
fn scrape(seed: u64, who: &str, bucket: u64) -> (Timestamp, u64) {
    let at = Timestamp::from_millis(bucket * WINDOW_MS);
    let len = draw(
        seed,
        &[b"window", who.as_bytes(), &bucket.to_le_bytes()],
        (14_500, 15_500),
    );
    (at, len)
}

/// A duration as Go's `time.Duration.String` writes one under a minute (`15s`, `15.06s`).
fn go_seconds(ms: u64) -> String {
    let (s, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        return format!("{s}s");
    }
    let digits = format!("{frac:03}");
    format!("{s}.{}s", digits.trim_end_matches('0'))
}

fn request_of(list: &crate::api::resource_list::ResourceList, name: &str, milli: bool) -> u64 {
    list.get(name)
        .map(|q| if milli { q.milli_value() } else { q.value() })
        .and_then(|v| u64::try_from(v).ok())
        .unwrap_or(0)
}

/// The usage of each container of `pod` in window `bucket`.
pub fn pod_usage(seed: u64, pod: &Pod, bucket: u64) -> Vec<(String, Usage)> {
    pod.spec
        .containers
        .iter()
        .map(|c| {
            let req = &c.resources.requests;
            let usage = container_usage(
                seed,
                &pod.metadata.uid,
                &c.name,
                request_of(req, "cpu", true),
                request_of(req, "memory", false),
                bucket,
            );
            (c.name.clone(), usage)
        })
        .collect()
}

/// The metrics-server's view of the cluster at one instant: which pods and nodes have figures.
pub struct Scrape<'a> {
    pub seed: u64,
    pub now: Timestamp,
    /// Nodes whose kubelet does not answer (killed machines).
    pub unreachable: &'a std::collections::BTreeSet<String>,
}

impl Scrape<'_> {
    fn bucket(&self) -> u64 {
        bucket(self.now)
    }

    /// Whether `pod` has figures: Running on a reachable node since before the last window.
    pub fn has_metrics(&self, pod: &Pod) -> bool {
        let (at, _) = scrape(self.seed, &pod.metadata.uid, self.bucket());
        &*pod.status.phase == "Running"
            && !pod.spec.node_name.is_empty()
            && !self.unreachable.contains(&pod.spec.node_name)
            && pod
                .status
                .start_time
                .is_some_and(|t| t.as_millis().saturating_add(WINDOW_MS) <= at.as_millis())
    }

    /// `PodMetrics` of `pod`, `None` when it has no figures.
    pub fn pod_metrics(&self, pod: &Pod) -> Option<Value> {
        if !self.has_metrics(pod) {
            return None;
        }
        let (at, window) = scrape(self.seed, &pod.metadata.uid, self.bucket());
        let containers: Vec<Value> = pod_usage(self.seed, pod, self.bucket())
            .into_iter()
            .map(|(name, u)| json!({"name": name, "usage": u.to_json()}))
            .collect();
        Some(json!({
            "kind": "PodMetrics",
            "apiVersion": API_VERSION,
            "metadata": self.metadata(&pod.metadata.name, Some(&pod.metadata.namespace), &pod.metadata.labels),
            "timestamp": at.to_rfc3339(),
            "window": go_seconds(window),
            "containers": containers,
        }))
    }

    /// The usage of the node `name` given every pod: its figured pods' plus the system's.
    pub fn node_usage<'p>(&self, name: &str, pods: impl IntoIterator<Item = &'p Pod>) -> Usage {
        pods.into_iter()
            .filter(|p| p.spec.node_name == name && self.has_metrics(p))
            .flat_map(|p| pod_usage(self.seed, p, self.bucket()))
            .fold(system_usage(self.seed, name), |sum, (_, u)| sum.plus(u))
    }

    /// `NodeMetrics` of `node`, `None` when its kubelet does not answer.
    pub fn node_metrics<'p>(
        &self,
        node: &Node,
        pods: impl IntoIterator<Item = &'p Pod>,
    ) -> Option<Value> {
        let name = &node.metadata.name;
        if self.unreachable.contains(name) {
            return None;
        }
        let (at, window) = scrape(self.seed, name, self.bucket());
        Some(json!({
            "kind": "NodeMetrics",
            "apiVersion": API_VERSION,
            "metadata": self.metadata(name, None, &node.metadata.labels),
            "timestamp": at.to_rfc3339(),
            "window": go_seconds(window),
            "usage": self.node_usage(name, pods).to_json(),
        }))
    }

    /// The objects' metadata: the node's or pod's name, namespace and labels, created now
    /// (`CreationTimestamp: metav1.NewTime(time.Now())`).
    fn metadata(&self, name: &str, namespace: Option<&str>, labels: &Labels) -> Value {
        let mut m = json!({"name": name, "creationTimestamp": self.now.to_rfc3339()});
        if let Some(ns) = namespace {
            m["namespace"] = json!(ns);
        }
        if !labels.is_empty() {
            m["labels"] = json!(labels);
        }
        m
    }
}

/// The discovery entries of `/apis/metrics.k8s.io/v1beta1`, as metrics-server lists them.
pub fn discovery_resources() -> Vec<Value> {
    vec![
        json!({"name": "nodes", "singularName": "", "namespaced": false, "kind": "NodeMetrics", "verbs": ["get", "list"]}),
        json!({"name": "pods", "singularName": "", "namespaced": true, "kind": "PodMetrics", "verbs": ["get", "list"]}),
    ]
}

fn respond(result: Result<Value, Status>) -> ApiResponse {
    match result {
        Ok(v) => ApiResponse {
            code: 200,
            body: v.to_string(),
        },
        Err(s) => ApiResponse {
            code: s.code(),
            body: s.to_json(),
        },
    }
}

fn list_of(kind: &str, items: Vec<Value>) -> Value {
    json!({"kind": kind, "apiVersion": API_VERSION, "metadata": {}, "items": items})
}

fn labels_of(labels: &Labels, selector: &LabelSelector) -> bool {
    selector.matches(labels)
}

impl ApiServer {
    /// Marks the kubelet of `node` as answering scrapes or not (a machine killed or restarted).
    pub fn set_node_scrapable(&mut self, node: &str, scrapable: bool) {
        if scrapable {
            self.unscrapable_nodes.remove(node);
        } else {
            self.unscrapable_nodes.insert(node.to_string());
        }
    }

    /// The metrics-server's view now.
    pub fn metrics_scrape(&self) -> Scrape<'_> {
        Scrape {
            seed: self.metrics_seed,
            now: self.now,
            unreachable: &self.unscrapable_nodes,
        }
    }

    /// The answer to a request under `/apis/metrics.k8s.io/`, `None` for any other path.
    /// Reads come from what the informers of metrics-server would hold (the store as it is,
    /// without a quorum read).
    pub fn metrics_answer(&self, method: &str, path_and_query: &str) -> Option<ApiResponse> {
        let path = path_and_query.split(['?', '#']).next().unwrap_or_default();
        let rest = path.strip_prefix("/apis/")?.strip_prefix(GROUP)?;
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        Some(respond(self.metrics_request(method, path_and_query)))
    }

    fn metrics_request(&self, method: &str, path_and_query: &str) -> Result<Value, Status> {
        let (info, query) = parse_request(method, path_and_query)?;
        let namespaced = info.namespace.is_some();
        let resource = info.resource.as_str();
        if info.version != VERSION
            || info.subresource.is_some()
            || !matches!((resource, namespaced), ("nodes", false) | ("pods", _))
        {
            return Err(Status::path_not_found());
        }
        let gr = if resource == "nodes" {
            GroupResource::new(GROUP, "nodemetrics")
        } else {
            GroupResource::new(GROUP, "podmetrics")
        };
        let scrape = self.metrics_scrape();
        let selector = &query.list.label_selector;
        let pods = || {
            self.peek_all(Kind::Pod)
                .into_iter()
                .filter_map(|o| match &*o {
                    Object::Pod(p) => Some(p.clone()),
                    _ => None,
                })
                .collect::<Vec<Pod>>()
        };
        match (info.verb, resource) {
            (Verb::Get, "nodes") => {
                let name = info.name.as_deref().unwrap_or_default();
                let Some(Object::Node(node)) =
                    self.peek(Kind::Node, None, name).as_deref().cloned()
                else {
                    // The node lister's own NotFound (`v1.Resource("node")`).
                    return Err(Status::not_found(&GroupResource::new("", "node"), name));
                };
                scrape
                    .node_metrics(&node, pods().iter())
                    .ok_or_else(|| Status::not_found(&gr, name))
            }
            (Verb::List, "nodes") => {
                let pods = pods();
                let items = self
                    .peek_all(Kind::Node)
                    .iter()
                    .filter_map(|o| match &**o {
                        Object::Node(n) if labels_of(&n.metadata.labels, selector) => {
                            scrape.node_metrics(n, pods.iter())
                        }
                        _ => None,
                    })
                    .collect();
                Ok(list_of("NodeMetricsList", items))
            }
            (Verb::Get, _) => {
                let name = info.name.as_deref().unwrap_or_default();
                let ns = info.namespace.as_deref().unwrap_or_default();
                let Some(Object::Pod(pod)) =
                    self.peek(Kind::Pod, Some(ns), name).as_deref().cloned()
                else {
                    // The pod metadata lister's NotFound (`pods "x" not found`).
                    return Err(Status::not_found(&GroupResource::new("", "pods"), name));
                };
                scrape
                    .pod_metrics(&pod)
                    .ok_or_else(|| Status::not_found(&gr, &format!("{ns}/{name}")))
            }
            (Verb::List, _) => {
                let items = pods()
                    .iter()
                    .filter(|p| {
                        info.namespace
                            .as_deref()
                            .is_none_or(|ns| p.metadata.namespace == ns)
                            && labels_of(&p.metadata.labels, selector)
                    })
                    .filter_map(|p| scrape.pod_metrics(p))
                    .collect();
                Ok(list_of("PodMetricsList", items))
            }
            // No watch, no writes: the REST storage implements Getter and Lister only.
            _ => Err(Status::method_not_supported(&gr, info.verb.as_str())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_go_does() {
        assert_eq!(go_seconds(15_000), "15s");
        assert_eq!(go_seconds(15_060), "15.06s");
        assert_eq!(go_seconds(14_507), "14.507s");
    }

    #[test]
    fn quantities_print_as_metrics_server_does() {
        let u = Usage {
            cpu_nanocores: 2_445_937,
            memory_bytes: 14_236 * 1024,
        };
        assert_eq!(u.to_json(), json!({"cpu": "2445937n", "memory": "14236Ki"}));
    }
}
