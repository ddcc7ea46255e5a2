//! What the cluster view shows, derived from the API server's objects like `kubectl get`
//! derives its columns: nodes, pods, and each informer's cache against the ledger.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use watchlab_apimachinery::client::WatchId;

use crate::api::node::Node;
use crate::api::pod::Pod;
use crate::api::Kind;
use crate::apiserver::instance::Health;
use crate::apiserver::time_travel::TimeTravel;
use crate::client::ReflectorPhase;
use crate::clock::Timestamp;
use crate::controllers::replica::holds_lease;

use super::Cluster;

/// A node as the cluster view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeView {
    pub name: String,
    /// The Ready condition as `kubectl get nodes` prints it: `Ready`, `NotReady` (False or
    /// Unknown), or `Unknown` before the kubelet has posted one.
    pub status: String,
    pub killed: bool,
    pub schedulable: bool,
    pub resource_version: u64,
}

/// A pod as the cluster view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodView {
    pub namespace: String,
    pub name: String,
    pub node: Option<String>,
    /// kubectl's STATUS column: `Pending`, `ContainerCreating`, `Running`, `CrashLoopBackOff`,
    /// `Error`, `Completed`, `NotReady`, `Terminating`...
    pub status: String,
    /// kubectl's READY column (`1/1`): containers ready and running, of all.
    pub ready: String,
    /// kubectl's RESTARTS column: the containers' restarts, and when the last one exited
    /// (kubectl prints `3 (42s ago)`).
    pub restarts: i32,
    pub last_restart: Option<Timestamp>,
    pub resource_version: u64,
    pub deleting: bool,
    /// The workload that runs it, when it is one a card names (`DaemonSet/log-agent`,
    /// `StatefulSet/web`, `Job/pi`): a ReplicaSet's pods are the view's usual ones and
    /// carry none.
    pub workload: Option<String>,
    /// The PersistentVolumeClaims its volumes name, in spec order (a StatefulSet pod's
    /// `data-web-0`): the card shows that the pod keeps state of its own.
    pub claims: Vec<String>,
}

/// One informer's cache against the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InformerView {
    pub component: String,
    pub resource: String,
    pub cache_revision: u64,
    pub latest_revision: u64,
    pub relists: u64,
    pub expired: u64,
    /// Its open watch stream, if it is watching (the broadcast's lane to it).
    pub stream: Option<WatchId>,
    /// Its last list that went back in time: below a resourceVersion its component's informers
    /// of this resource had reached ([`crate::apiserver::time_travel`]).
    pub went_back: Option<TimeTravel>,
}

/// A replica of kube-scheduler or kube-controller-manager, as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaView {
    /// `kube-controller-manager-0`.
    pub name: String,
    /// `kube-controller-manager`: its Lease's name.
    pub component: &'static str,
    /// Its process's `holderIdentity` (`kube-controller-manager-0_<uuid>`).
    pub identity: String,
    pub role: ReplicaRole,
    /// The Lease names it.
    pub holds_lease: bool,
    pub paused: bool,
    /// Processes it started after the first (each after it stopped leading).
    pub restarts: usize,
}

/// A kube-apiserver instance, as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiserverView {
    /// `kube-apiserver-0`.
    pub name: String,
    pub health: Health,
    /// How many clients (processes) the load balancer has connected to it.
    pub clients: usize,
}

/// What a replica does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaRole {
    /// It leads and its controllers run.
    Leading,
    /// It waits to acquire the Lease.
    Candidate,
}

impl Cluster {
    /// The kube-apiserver instances, in order.
    pub fn apiservers(&self) -> Vec<ApiserverView> {
        self.api
            .instances()
            .iter()
            .enumerate()
            .map(|(i, s)| ApiserverView {
                name: s.name.clone(),
                health: s.health,
                clients: self.api.clients_of(i).len(),
            })
            .collect()
    }

    /// Each replica of the leader-elected components, in step order.
    pub fn replicas(&self) -> Vec<ReplicaView> {
        self.control_plane
            .electors()
            .into_iter()
            .map(|e| ReplicaView {
                name: e.replica_name(),
                component: e.component().name(),
                holds_lease: holds_lease(e, &self.api),
                identity: e.elector().identity().to_string(),
                role: match e.elector().leading() {
                    true => ReplicaRole::Leading,
                    false => ReplicaRole::Candidate,
                },
                paused: e.paused(),
                restarts: e.restarts().len(),
            })
            .collect()
    }

    pub fn nodes(&self) -> Vec<NodeView> {
        self.api
            .peek_all(Kind::Node)
            .iter()
            .filter_map(|o| o.as_node())
            .map(|n| node_view(n, self.killed_nodes.contains(&n.metadata.name)))
            .collect()
    }

    pub fn pods(&self) -> Vec<PodView> {
        self.api
            .peek_all(Kind::Pod)
            .iter()
            .filter_map(|o| o.as_pod())
            .map(pod_view)
            .collect()
    }

    /// The rules `node`'s kube-proxy has applied: for each Service ClusterIP and port, the
    /// ready endpoints, when the row was last written and the revision it was built from
    /// (empty for an unknown node).
    pub fn proxy_rules(&self, node: &str) -> Vec<crate::controllers::ProxyRule> {
        self.control_plane
            .kube_proxy(node)
            .map(|p| p.rules())
            .unwrap_or_default()
    }

    /// Every controller's informers: each cache's revision against the ledger's.
    pub fn informers(&self) -> Vec<InformerView> {
        let latest = self.api.revision();
        self.control_plane
            .running()
            .into_iter()
            .flat_map(|c| {
                c.informers().into_iter().map(move |i| {
                    let stats = i.informer().reflector_stats();
                    InformerView {
                        component: c.name().to_string(),
                        resource: i.kind().resource().plural.to_string(),
                        cache_revision: i.informer().cache_resource_version(),
                        latest_revision: latest,
                        relists: stats.relists,
                        expired: stats.expired,
                        stream: match i.informer().reflector().phase() {
                            ReflectorPhase::Watching { stream, .. } => Some(stream),
                            _ => None,
                        },
                        went_back: i.went_back().cloned(),
                    }
                })
            })
            .collect()
    }
}

/// A node's row. The one computation of a node's status: the playground's cluster view and
/// live mode's (which decodes what a real API server sends) both call it. `killed` is whether
/// the machine is down, which only the in-tab engine knows.
pub fn node_view(n: &Node, killed: bool) -> NodeView {
    let ready = n.status.conditions.iter().find(|c| c.type_ == "Ready");
    let status = match ready.map(|c| c.status.to_string()) {
        Some(s) if s == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    };
    NodeView {
        name: n.metadata.name.clone(),
        status: status.to_string(),
        killed,
        schedulable: !n.spec.unschedulable,
        resource_version: n.metadata.resource_version.parse().unwrap_or(0),
    }
}

/// A pod's row. The one computation of a pod's STATUS, READY and RESTARTS for the views: the
/// playground's and live mode's both call it. It follows kubectl's `printPod` for regular
/// containers (the console's `kubectl get` prints with watchlab-kubectl's port of it over JSON,
/// which also covers init containers; a test there checks that the two agree).
pub fn pod_view(p: &Pod) -> PodView {
    let c = columns(p);
    PodView {
        namespace: p.metadata.namespace.clone(),
        name: p.metadata.name.clone(),
        node: Some(p.spec.node_name.clone()).filter(|n| !n.is_empty()),
        status: c.status.into_owned(),
        ready: format!("{}/{}", c.ready, p.spec.containers.len()),
        restarts: c.restarts,
        last_restart: c.last_restart.filter(|_| c.restarts > 0),
        resource_version: p.metadata.resource_version.parse().unwrap_or(0),
        deleting: p.metadata.deletion_timestamp.is_some(),
        workload: p
            .metadata
            .controller_ref()
            .filter(|r| matches!(r.kind.as_str(), "DaemonSet" | "StatefulSet" | "Job"))
            .map(|r| format!("{}/{}", r.kind, r.name)),
        claims: p
            .spec
            .claim_volumes()
            .map(|(_, claim)| claim.to_string())
            .collect(),
    }
}

/// A pod's STATUS column, without copying it in the common cases: [`pod_view`] and
/// [`PodCensus`] use it.
pub fn pod_status(p: &Pod) -> Cow<'_, str> {
    columns(p).status
}

/// printPod's STATUS, ready containers and restarts.
struct Columns<'a> {
    status: Cow<'a, str>,
    ready: usize,
    restarts: i32,
    last_restart: Option<Timestamp>,
}

/// printPod for regular containers: the phase (`Pending` before there is one), or the pod's
/// reason, overridden by the last container (in spec order) that is waiting
/// (`CrashLoopBackOff`, `ContainerCreating`) or terminated (`Completed`, `Error`); `Completed`
/// with a container still running shows `Running` (or `NotReady`); deletion shows
/// `Terminating` (`Unknown` for a pod of a lost node).
fn columns(p: &Pod) -> Columns<'_> {
    let mut status: Cow<'_, str> = if !p.status.reason.is_empty() {
        Cow::Borrowed(&p.status.reason)
    } else if p.status.phase.is_empty() {
        Cow::Borrowed("Pending")
    } else {
        Cow::Borrowed(&p.status.phase)
    };
    let mut ready = 0;
    let mut restarts = 0;
    let mut last_restart: Option<Timestamp> = None;
    let mut has_running = false;
    for c in p.status.container_statuses.iter().rev() {
        restarts += c.restart_count;
        if let Some(t) = c.last_state.terminated.as_ref().and_then(|t| t.finished_at) {
            last_restart = last_restart.max(Some(t));
        }
        let waiting = c.state.waiting.as_ref().filter(|w| !w.reason.is_empty());
        if let Some(w) = waiting {
            status = Cow::Borrowed(&w.reason);
        } else if let Some(t) = &c.state.terminated {
            status = if t.reason.is_empty() {
                Cow::Owned(format!("ExitCode:{}", t.exit_code))
            } else {
                Cow::Borrowed(&t.reason)
            };
        } else if c.ready && c.state.running.is_some() {
            has_running = true;
            ready += 1;
        }
    }
    if status == "Completed" && has_running {
        let pod_ready = p.condition("Ready").is_some_and(|c| c.status == "True");
        status = Cow::Borrowed(if pod_ready { "Running" } else { "NotReady" });
    }
    if p.metadata.deletion_timestamp.is_some() {
        status = Cow::Borrowed(if p.status.reason == "NodeLost" {
            "Unknown"
        } else {
            "Terminating"
        });
    }
    Columns {
        status,
        ready,
        restarts,
        last_restart,
    }
}

/// What a map of many nodes draws, counted in one pass over the pods without a row per pod:
/// how many pods each node holds and how many pods have each STATUS.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodCensus {
    pub total: usize,
    /// Pods bound to each node, by node name (a node without pods is absent).
    pub by_node: HashMap<String, usize>,
    /// Pods by STATUS ([`pod_status`]).
    pub by_status: BTreeMap<String, usize>,
}
