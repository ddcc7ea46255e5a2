//! The simulated cluster as one value that a test, a benchmark and the UI drive the same way:
//! `cluster.apply(action)`, `cluster.advance_to(t)` / `cluster.step()`, and read-only views.
//!
//! It owns the API server (and through it the ledger), the etcd membership, and the
//! controllers, and it owns virtual time: advancing runs every timer that is due, in time order,
//! so idle time costs nothing. It adds no semantics: an action is API requests made by a named
//! client, exactly as a person at a terminal would make them.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use watchlab_apimachinery::client::{ApiClient, WatchId};
use watchlab_apimachinery::request::percent_encode_query_value;
use watchlab_apimachinery::status::Status;

use crate::api::Kind;
use crate::apiserver::{ApiServer, ServerConfig};
use crate::clock::Timestamp;
use crate::controllers::{ControlPlane, Profile};
use crate::etcd_cluster::{EtcdCluster, MembershipEvent};
use crate::journal::{Input, Journal};

pub use crate::journal::ClusterSession;

/// The user agent of the playground's buttons.
pub const PLAYGROUND_USER: &str = "watchlab-ui";

pub use crate::controllers::profile::ProfileName;

/// How a cluster starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    pub seed: u64,
    pub nodes: Vec<String>,
    /// 1, 3 or 5 etcd members.
    pub etcd_members: usize,
    #[serde(with = "crate::journal::profile_name")]
    pub profile: ProfileName,
    /// Create the seed texts' starting point: namespace `production` with the Deployment
    /// `orders-api` (3 replicas of `orders-api:1.0`).
    pub seed_objects: bool,
    /// The virtual time the cluster starts at, in milliseconds after the virtual epoch
    /// (2026-01-01T00:00:00Z). The playground starts at 0; `watchlab-apiserver` passes its
    /// wall-clock start, so real clients that compute ages on their own clock (`kubectl
    /// describe`) agree with it. The engine never reads a clock itself.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            seed: 7,
            nodes: ["node-a", "node-b", "node-c"].map(String::from).to_vec(),
            etcd_members: 3,
            profile: ProfileName::Training,
            seed_objects: true,
            start_ms: 0,
        }
    }
}

/// Something a learner does. Serialized into the [`Journal`] (a kind by its plural name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Action {
    CreatePod {
        namespace: String,
        name: String,
        image: String,
        labels: Vec<(String, String)>,
    },
    CreateDeployment {
        namespace: String,
        name: String,
        image: String,
        replicas: u32,
        labels: Vec<(String, String)>,
    },
    /// `kubectl scale deployment <name> --replicas=N`.
    Scale {
        namespace: String,
        name: String,
        replicas: u32,
    },
    /// `kubectl label <kind> <name> key=value [--overwrite]`.
    Label {
        #[serde(with = "crate::journal::kind_plural")]
        kind: Kind,
        namespace: String,
        name: String,
        key: String,
        value: String,
        overwrite: bool,
    },
    Delete {
        #[serde(with = "crate::journal::kind_plural")]
        kind: Kind,
        namespace: String,
        name: String,
    },
    /// The node's machine dies: its kubelet stops doing anything at all.
    KillNode(String),
    RestoreNode(String),
    KillEtcdMember(String),
    RestoreEtcdMember(String),
    /// Compact the ledger to the current revision.
    CompactNow,
    /// Ends a watch stream from the server side, as a timeout would.
    DropWatch(WatchId),
    /// Two editors read the same Deployment at the same revision and both write it back.
    ConflictingWrite {
        namespace: String,
        name: String,
    },
}

/// What an action did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The ledger's revision after the action.
    Done {
        revision: u64,
    },
    Conflict(ConflictReport),
}

/// The optimistic-concurrency story, step by step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    /// The resourceVersion both editors read.
    pub read_revision: u64,
    /// The revision of the write that won.
    pub winner_revision: u64,
    /// The loser's 409 message, verbatim from the API server.
    pub loser_message: String,
    /// The revision the loser's retry (re-read, re-apply, write) landed at.
    pub retry_revision: u64,
}

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
    /// kubectl's STATUS column: `Pending`, `ContainerCreating`, `Running`, `Terminating`...
    pub status: String,
    /// kubectl's READY column (`1/1`).
    pub ready: String,
    pub resource_version: u64,
    pub deleting: bool,
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
}

/// The whole simulated cluster.
#[derive(Debug)]
pub struct Cluster {
    config: ClusterConfig,
    api: ApiServer,
    etcd: EtcdCluster,
    control_plane: ControlPlane,
    killed_nodes: BTreeSet<String>,
    membership_log: Vec<(Timestamp, MembershipEvent)>,
    /// The earliest wake-up the controllers asked for when they last settled.
    controllers_wake: Option<Timestamp>,
    /// Every input since `new`, for save and restore.
    journal: Journal,
}

impl std::fmt::Debug for ControlPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlPlane")
            .field("kubelets", &self.kubelets.len())
            .finish_non_exhaustive()
    }
}

impl Cluster {
    pub fn new(config: ClusterConfig) -> Cluster {
        let etcd = EtcdCluster::new_or_three(config.etcd_members, config.seed);
        let nodes: Vec<&str> = config.nodes.iter().map(String::as_str).collect();
        let profile = Profile::named(config.profile);
        let control_plane = ControlPlane::new(config.seed, &profile, &nodes);
        let server_config = ServerConfig {
            start: Timestamp(config.start_ms),
            ..ServerConfig::default()
        }
        .with_default_toleration_seconds(profile.default_toleration_seconds);
        let mut cluster = Cluster {
            api: ApiServer::with_config(config.seed, server_config),
            etcd,
            control_plane,
            killed_nodes: BTreeSet::new(),
            membership_log: Vec::new(),
            controllers_wake: None,
            journal: Journal::new(config.clone()),
            config,
        };
        // The kubelets register their Nodes and the controllers sync their caches.
        cluster.settle();
        if cluster.config.seed_objects {
            cluster.create_seed_objects();
            cluster.settle();
        }
        cluster.journal.revision = cluster.api.revision();
        cluster
    }

    pub fn with_seed(seed: u64) -> Cluster {
        Cluster::new(ClusterConfig {
            seed,
            ..ClusterConfig::default()
        })
    }

    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    pub fn now(&self) -> Timestamp {
        self.api.now()
    }

    pub fn api(&self) -> &ApiServer {
        &self.api
    }

    /// An API client that writes as `user` (the console uses `kubectl`); what it changes is
    /// journaled.
    pub fn session(&mut self, user: &str) -> ClusterSession<'_> {
        ClusterSession::new(self.api.as_user(user), &mut self.journal)
    }

    /// Every input so far: what [`Cluster::export`] saves.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    pub(crate) fn journal_mut(&mut self) -> &mut Journal {
        &mut self.journal
    }

    pub fn etcd(&self) -> &EtcdCluster {
        &self.etcd
    }

    /// Membership changes with the virtual time they happened at.
    pub fn membership_log(&self) -> &[(Timestamp, MembershipEvent)] {
        &self.membership_log
    }

    pub fn is_node_killed(&self, name: &str) -> bool {
        self.killed_nodes.contains(name)
    }

    pub fn apply(&mut self, action: Action) -> Result<Outcome, Status> {
        let input = Input::Apply(action.clone());
        let outcome = self.perform(action);
        let code = match &outcome {
            Ok(_) => 200,
            Err(s) => s.code(),
        };
        self.journal
            .record(self.now(), self.api.revision(), input, code, None);
        outcome
    }

    fn perform(&mut self, action: Action) -> Result<Outcome, Status> {
        let now = self.now();
        match action {
            Action::CreatePod {
                namespace,
                name,
                image,
                labels,
            } => {
                let body = pod_manifest(&namespace, &name, &image, &labels);
                self.post(&format!("/api/v1/namespaces/{namespace}/pods"), &body)?;
            }
            Action::CreateDeployment {
                namespace,
                name,
                image,
                replicas,
                labels,
            } => {
                let body = deployment_manifest(&namespace, &name, &image, replicas, &labels);
                self.post(
                    &format!("/apis/apps/v1/namespaces/{namespace}/deployments"),
                    &body,
                )?;
            }
            Action::Scale {
                namespace,
                name,
                replicas,
            } => {
                let patch = json!({"spec": {"replicas": replicas}});
                self.patch(&object_path(Kind::Deployment, &namespace, &name), &patch)?;
            }
            Action::Label {
                kind,
                namespace,
                name,
                key,
                value,
                overwrite,
            } => {
                let path = object_path(kind, &namespace, &name);
                let current = self.get_json(&path)?;
                let existing = current["metadata"]["labels"][&key].as_str();
                if let (Some(old), false) = (existing, overwrite) {
                    if old != value {
                        return Err(Status::bad_request(&format!(
                            "'{key}' already has a value ({old}), and --overwrite is false"
                        )));
                    }
                }
                let patch = json!({"metadata": {"labels": {key: value}}});
                self.patch(&path, &patch)?;
            }
            Action::Delete {
                kind,
                namespace,
                name,
            } => {
                let path = object_path(kind, &namespace, &name);
                let r = self
                    .api
                    .as_user(PLAYGROUND_USER)
                    .request("DELETE", &path, None, None);
                check(r.code, &r.body)?;
            }
            Action::KillNode(name) => {
                self.known_node(&name)?;
                if let Some(k) = self.control_plane.kubelet_mut(&name) {
                    k.set_running(false);
                }
                self.killed_nodes.insert(name);
            }
            Action::RestoreNode(name) => {
                self.known_node(&name)?;
                if let Some(k) = self.control_plane.kubelet_mut(&name) {
                    k.set_running(true);
                }
                self.killed_nodes.remove(&name);
            }
            Action::KillEtcdMember(name) => {
                let events = self
                    .etcd
                    .kill(&name, now)
                    .map_err(|e| Status::bad_request(&e.to_string()))?;
                self.record_membership(now, events);
            }
            Action::RestoreEtcdMember(name) => {
                let events = self
                    .etcd
                    .restore(&name, now)
                    .map_err(|e| Status::bad_request(&e.to_string()))?;
                self.record_membership(now, events);
            }
            Action::CompactNow => {
                self.api.compact_now()?;
            }
            Action::DropWatch(id) => self.api.stop_watch(id),
            Action::ConflictingWrite { namespace, name } => {
                return self
                    .conflicting_write(&namespace, &name)
                    .map(Outcome::Conflict);
            }
        }
        Ok(Outcome::Done {
            revision: self.api.revision(),
        })
    }

    /// The earliest moment anything is scheduled.
    pub fn next_timer(&self) -> Option<Timestamp> {
        // A controller that asks for the current instant again runs one millisecond later, as
        // the harness does, so time always moves forward.
        let controllers = self
            .controllers_wake
            .map(|t| t.max(self.now().plus_millis(1)));
        [
            self.api.next_timer(),
            self.etcd.next_timer(),
            controllers,
            self.journal.reaction_due(),
        ]
        .into_iter()
        .flatten()
        .filter(|t| *t > self.now())
        .min()
    }

    /// Runs every timer due by `t`, in time order, and leaves the clock at `t`.
    pub fn advance_to(&mut self, t: Timestamp) {
        while let Some(next) = self.next_timer().filter(|n| *n <= t) {
            self.run_until(next);
        }
        self.run_until(t.max(self.now()));
    }

    /// Jumps to the next timer and runs it; `None` when nothing is scheduled.
    pub fn step(&mut self) -> Option<Timestamp> {
        let next = self.next_timer()?;
        self.run_until(next);
        Some(next)
    }

    fn run_until(&mut self, t: Timestamp) {
        let events = self.etcd.advance_to(t);
        self.record_membership(t, events);
        self.api.set_store_writable(self.etcd.can_commit());
        self.api.advance_to(t);
        self.settle();
        self.journal.clock_ran(self.now(), self.api.revision());
    }

    /// Steps every controller at the current instant until none writes.
    fn settle(&mut self) {
        let now = self.api.now();
        let (wake, _steps) = self.control_plane.settle(now, &mut self.api);
        self.controllers_wake = wake;
    }

    fn record_membership(&mut self, at: Timestamp, events: Vec<MembershipEvent>) {
        self.membership_log
            .extend(events.into_iter().map(|e| (at, e)));
        self.api.set_store_writable(self.etcd.can_commit());
    }

    pub fn nodes(&self) -> Vec<NodeView> {
        let Ok(list) = self.api.list(Kind::Node, None, &Default::default()) else {
            return Vec::new();
        };
        list.items
            .iter()
            .filter_map(|o| o.as_node())
            .map(|n| {
                let ready = n.status.conditions.iter().find(|c| c.type_ == "Ready");
                let status = match ready.map(|c| c.status.to_string()) {
                    Some(s) if s == "True" => "Ready",
                    Some(_) => "NotReady",
                    None => "Unknown",
                };
                NodeView {
                    name: n.metadata.name.clone(),
                    status: status.to_string(),
                    killed: self.killed_nodes.contains(&n.metadata.name),
                    schedulable: !n.spec.unschedulable,
                    resource_version: n.metadata.resource_version.parse().unwrap_or(0),
                }
            })
            .collect()
    }

    pub fn pods(&self) -> Vec<PodView> {
        let Ok(list) = self.api.list(Kind::Pod, None, &Default::default()) else {
            return Vec::new();
        };
        list.items
            .iter()
            .filter_map(|o| o.as_pod())
            .map(|p| {
                let total = p.spec.containers.len();
                let ready = p
                    .status
                    .container_statuses
                    .iter()
                    .filter(|c| c.ready)
                    .count();
                let waiting = p
                    .status
                    .container_statuses
                    .iter()
                    .find_map(|c| c.state.waiting.as_ref().map(|w| w.reason.clone()))
                    .filter(|r| !r.is_empty());
                let deleting = p.metadata.deletion_timestamp.is_some();
                let status = if deleting {
                    "Terminating".to_string()
                } else if let Some(reason) = waiting {
                    reason
                } else if p.status.phase.is_empty() {
                    "Pending".to_string()
                } else {
                    p.status.phase.clone()
                };
                PodView {
                    namespace: p.metadata.namespace.clone(),
                    name: p.metadata.name.clone(),
                    node: Some(p.spec.node_name.clone()).filter(|n| !n.is_empty()),
                    status,
                    ready: format!("{ready}/{total}"),
                    resource_version: p.metadata.resource_version.parse().unwrap_or(0),
                    deleting,
                }
            })
            .collect()
    }

    /// Every controller's informers: each cache's revision against the ledger's.
    pub fn informers(&self) -> Vec<InformerView> {
        let latest = self.api.revision();
        self.control_plane
            .all()
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
                    }
                })
            })
            .collect()
    }

    fn known_node(&self, name: &str) -> Result<(), Status> {
        self.api.get(Kind::Node, None, name).map(|_| ())
    }

    fn create_seed_objects(&mut self) {
        let ns =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "production"}});
        let _ = self.post("/api/v1/namespaces", &ns);
        let labels = [("app".to_string(), "orders-api".to_string())];
        let d = deployment_manifest("production", "orders-api", "orders-api:1.0", 3, &labels);
        let _ = self.post("/apis/apps/v1/namespaces/production/deployments", &d);
    }

    fn post(&mut self, path: &str, body: &Value) -> Result<Value, Status> {
        let r =
            self.api
                .as_user(PLAYGROUND_USER)
                .request("POST", path, None, Some(&body.to_string()));
        check(r.code, &r.body)
    }

    fn patch(&mut self, path: &str, patch: &Value) -> Result<Value, Status> {
        let r = self.api.as_user(PLAYGROUND_USER).request(
            "PATCH",
            path,
            Some("application/merge-patch+json"),
            Some(&patch.to_string()),
        );
        check(r.code, &r.body)
    }

    fn get_json(&mut self, path: &str) -> Result<Value, Status> {
        let r = self
            .api
            .as_user(PLAYGROUND_USER)
            .request("GET", path, None, None);
        check(r.code, &r.body)
    }

    /// Two read-modify-write cycles racing on one resourceVersion, then the loser's retry.
    fn conflicting_write(&mut self, namespace: &str, name: &str) -> Result<ConflictReport, Status> {
        let path = object_path(Kind::Deployment, namespace, name);
        let mut first = self
            .api
            .as_user("editor-1")
            .request("GET", &path, None, None);
        let mut a: Value = check(first.code, &first.body)?;
        let second = self
            .api
            .as_user("editor-2")
            .request("GET", &path, None, None);
        let mut b: Value = check(second.code, &second.body)?;
        let read_revision = rv_of(&a);

        a["metadata"]["annotations"]["watchlab.dev/edited-by"] = json!("editor-1");
        first = self
            .api
            .as_user("editor-1")
            .request("PUT", &path, None, Some(&a.to_string()));
        let winner_revision = rv_of(&check(first.code, &first.body)?);

        b["metadata"]["annotations"]["watchlab.dev/reviewed-by"] = json!("editor-2");
        let lost = self
            .api
            .as_user("editor-2")
            .request("PUT", &path, None, Some(&b.to_string()));
        let loser_message = match check(lost.code, &lost.body) {
            Err(s) => s.message().to_string(),
            Ok(_) => String::new(),
        };

        // retry.RetryOnConflict: re-read the latest version, re-apply the change, write again.
        let reread = self
            .api
            .as_user("editor-2")
            .request("GET", &path, None, None);
        let mut c = check(reread.code, &reread.body)?;
        c["metadata"]["annotations"]["watchlab.dev/reviewed-by"] = json!("editor-2");
        let retried =
            self.api
                .as_user("editor-2")
                .request("PUT", &path, None, Some(&c.to_string()));
        let retry_revision = rv_of(&check(retried.code, &retried.body)?);
        Ok(ConflictReport {
            read_revision,
            winner_revision,
            loser_message,
            retry_revision,
        })
    }
}

fn rv_of(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Turns an HTTP-shaped answer into the JSON body or the `Status` it carries.
fn check(code: u16, body: &str) -> Result<Value, Status> {
    if (200..300).contains(&code) {
        return serde_json::from_str(body).map_err(|e| Status::internal_error(&e.to_string()));
    }
    Err(serde_json::from_str::<Status>(body).unwrap_or_else(|_| Status::internal_error(body)))
}

/// The REST path of one object.
pub fn object_path(kind: Kind, namespace: &str, name: &str) -> String {
    let r = kind.resource();
    let base = if r.group.is_empty() {
        format!("/api/{}", r.version)
    } else {
        format!("/apis/{}/{}", r.group, r.version)
    };
    let name = percent_encode_query_value(name);
    if r.namespaced {
        format!(
            "{base}/namespaces/{}/{}/{name}",
            percent_encode_query_value(namespace),
            r.plural
        )
    } else {
        format!("{base}/{}/{name}", r.plural)
    }
}

fn labels_json(labels: &[(String, String)]) -> Value {
    Value::Object(labels.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

/// What `kubectl run <name> --image=<image>` sends.
pub fn pod_manifest(
    namespace: &str,
    name: &str,
    image: &str,
    labels: &[(String, String)],
) -> Value {
    let mut labels = labels.to_vec();
    if labels.is_empty() {
        labels.push(("run".into(), name.into()));
    }
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels_json(&labels)},
        "spec": {"containers": [{"name": name, "image": image}]},
    })
}

/// What `kubectl create deployment <name> --image=<image> --replicas=N` sends.
pub fn deployment_manifest(
    namespace: &str,
    name: &str,
    image: &str,
    replicas: u32,
    labels: &[(String, String)],
) -> Value {
    let mut labels = labels.to_vec();
    if labels.is_empty() {
        labels.push(("app".into(), name.into()));
    }
    let container = image
        .rsplit('/')
        .next()
        .unwrap_or(image)
        .split(':')
        .next()
        .unwrap_or(name);
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels_json(&labels)},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels_json(&labels)},
            "template": {
                "metadata": {"labels": labels_json(&labels)},
                "spec": {"containers": [{"name": container, "image": image}]},
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare() -> Cluster {
        Cluster::new(ClusterConfig {
            seed_objects: false,
            ..ClusterConfig::default()
        })
    }

    #[test]
    fn starts_with_three_nodes_and_the_seed_deployment() {
        let c = Cluster::with_seed(1);
        let names: Vec<_> = c.nodes().into_iter().map(|n| n.name).collect();
        assert_eq!(names, ["node-a", "node-b", "node-c"]);
        let d = c
            .api()
            .get(Kind::Deployment, Some("production"), "orders-api")
            .unwrap();
        assert_eq!(d.as_deployment().unwrap().spec.replicas, Some(3));
    }

    #[test]
    fn create_pod_lands_in_the_ledger_as_the_playground() {
        let mut c = bare();
        let before = c.api().revision();
        let out = c
            .apply(Action::CreatePod {
                namespace: "default".into(),
                name: "web".into(),
                image: "nginx:1.27".into(),
                labels: vec![],
            })
            .unwrap();
        assert_eq!(
            out,
            Outcome::Done {
                revision: before + 1
            }
        );
        let last = c.api().ledger().iter().next_back().unwrap();
        assert_eq!(
            (last.verb, last.name.as_str(), &*last.user),
            ("create", "web", PLAYGROUND_USER)
        );
        let pods = c.pods();
        assert_eq!(pods.len(), 1);
        assert_eq!(
            (pods[0].status.as_str(), pods[0].ready.as_str()),
            ("Pending", "0/1")
        );
    }

    #[test]
    fn a_bad_action_changes_nothing() {
        let mut c = bare();
        let before = c.api().revision();
        let err = c
            .apply(Action::CreatePod {
                namespace: "nowhere".into(),
                name: "web".into(),
                image: "nginx".into(),
                labels: vec![],
            })
            .unwrap_err();
        assert_eq!(err.code(), 404);
        assert_eq!(err.message(), "namespaces \"nowhere\" not found");
        assert_eq!(c.api().revision(), before);
    }

    #[test]
    fn label_without_overwrite_keeps_the_value() {
        let mut c = Cluster::with_seed(1);
        let label = |value: &str, overwrite| Action::Label {
            kind: Kind::Deployment,
            namespace: "production".into(),
            name: "orders-api".into(),
            key: "team".into(),
            value: value.into(),
            overwrite,
        };
        let Outcome::Done { revision: r1 } = c.apply(label("orders", false)).unwrap() else {
            panic!()
        };
        let err = c.apply(label("payments", false)).unwrap_err();
        assert_eq!(
            err.message(),
            "'team' already has a value (orders), and --overwrite is false"
        );
        let Outcome::Done { revision: r2 } = c.apply(label("payments", true)).unwrap() else {
            panic!()
        };
        assert_eq!(
            r2,
            r1 + 1,
            "the label change is one more page in the ledger"
        );
    }

    #[test]
    fn conflicting_write_has_one_winner_and_a_409_then_a_successful_retry() {
        let mut c = Cluster::with_seed(1);
        let Outcome::Conflict(r) = c
            .apply(Action::ConflictingWrite {
                namespace: "production".into(),
                name: "orders-api".into(),
            })
            .unwrap()
        else {
            panic!("expected a conflict report")
        };
        assert!(r.winner_revision > r.read_revision);
        assert_eq!(
            r.loser_message,
            "Operation cannot be fulfilled on deployments.apps \"orders-api\": the object has been modified; please apply your changes to the latest version and try again"
        );
        assert_eq!(r.retry_revision, r.winner_revision + 1);
        let d = c
            .api()
            .get(Kind::Deployment, Some("production"), "orders-api")
            .unwrap();
        let ann = &d.meta().annotations;
        assert_eq!(
            ann.get("watchlab.dev/edited-by").map(String::as_str),
            Some("editor-1")
        );
        assert_eq!(
            ann.get("watchlab.dev/reviewed-by").map(String::as_str),
            Some("editor-2"),
            "no write lost"
        );
    }

    #[test]
    fn losing_the_etcd_majority_stops_writes_until_a_member_returns() {
        let mut c = bare();
        c.apply(Action::KillEtcdMember("etcd-1".into())).unwrap();
        c.apply(Action::KillEtcdMember("etcd-2".into())).unwrap();
        let before = c.api().revision();
        let pod = || Action::CreatePod {
            namespace: "default".into(),
            name: "web".into(),
            image: "nginx".into(),
            labels: vec![],
        };
        assert!(c.apply(pod()).is_err());
        assert_eq!(c.api().revision(), before);
        assert_eq!(c.nodes().len(), 3, "reads keep working");
        c.apply(Action::RestoreEtcdMember("etcd-2".into())).unwrap();
        let t = c.now().plus_secs(10);
        c.advance_to(t);
        assert!(c.etcd().can_commit());
        assert!(c.apply(pod()).is_ok());
    }

    #[test]
    fn killing_an_unknown_node_is_404() {
        let mut c = bare();
        let err = c.apply(Action::KillNode("node-z".into())).unwrap_err();
        assert_eq!(err.message(), "nodes \"node-z\" not found");
    }

    fn running(c: &Cluster, namespace: &str) -> Vec<PodView> {
        c.pods()
            .into_iter()
            .filter(|p| p.namespace == namespace && p.status == "Running" && p.ready == "1/1")
            .collect()
    }

    #[test]
    fn the_seed_deployment_comes_up_on_three_nodes() {
        let mut c = Cluster::with_seed(7);
        assert_eq!(c.nodes().iter().filter(|n| n.status == "Ready").count(), 3);
        let t = c.now().plus_secs(30);
        c.advance_to(t);
        let pods = running(&c, "production");
        assert_eq!(pods.len(), 3, "{:?}", c.pods());
        assert!(pods.iter().all(|p| p.name.starts_with("orders-api-")));
        let mut nodes: Vec<_> = pods.iter().filter_map(|p| p.node.clone()).collect();
        nodes.sort();
        assert_eq!(
            nodes,
            ["node-a", "node-b", "node-c"],
            "spread by LeastAllocated"
        );
    }

    #[test]
    fn a_created_pod_walks_pending_container_creating_running() {
        let mut c = bare();
        c.apply(Action::CreatePod {
            namespace: "default".into(),
            name: "debug-tools".into(),
            image: "debug-tools:1.0".into(),
            labels: vec![],
        })
        .unwrap();
        let mut seen = Vec::new();
        while c.now().as_millis() < 30_000 {
            let Some(p) = c.pods().into_iter().find(|p| p.name == "debug-tools") else {
                break;
            };
            if seen.last() != Some(&p.status) {
                seen.push(p.status.clone());
            }
            if p.status == "Running" || c.step().is_none() {
                break;
            }
        }
        assert_eq!(
            seen,
            ["Pending", "ContainerCreating", "Running"],
            "three separate writes, as `kubectl get pods -w` shows"
        );
    }

    #[test]
    fn node_c_dies_and_orders_api_is_back_to_three_within_two_minutes() {
        let mut c = Cluster::with_seed(7);
        let t = c.now().plus_secs(30);
        c.advance_to(t);
        c.apply(Action::KillNode("node-c".into())).unwrap();
        let killed_at = c.now();
        let mut not_ready_at = None;
        let mut recovered_at = None;
        while c.now().millis_since(killed_at) < 180_000 {
            if c.step().is_none() {
                break;
            }
            let node_c = c.nodes().into_iter().find(|n| n.name == "node-c").unwrap();
            if not_ready_at.is_none() && node_c.status == "NotReady" {
                not_ready_at = Some(c.now());
            }
            let up = running(&c, "production");
            if not_ready_at.is_some()
                && up.len() == 3
                && up.iter().all(|p| p.node.as_deref() != Some("node-c"))
            {
                recovered_at = Some(c.now());
                break;
            }
        }
        let not_ready = not_ready_at
            .expect("node-c goes NotReady")
            .millis_since(killed_at);
        assert!(
            (20_000..=30_000).contains(&not_ready),
            "grace period of the training profile: {not_ready}"
        );
        let back = recovered_at
            .expect("three replicas again")
            .millis_since(killed_at);
        assert!(back <= 120_000, "about two virtual minutes, got {back} ms");
        assert!(c
            .informers()
            .iter()
            .any(|i| i.component == "replicaset-controller" && i.resource == "pods"));
    }

    #[test]
    fn object_paths_follow_the_real_api() {
        assert_eq!(
            object_path(Kind::Pod, "default", "web"),
            "/api/v1/namespaces/default/pods/web"
        );
        assert_eq!(
            object_path(Kind::Deployment, "production", "orders-api"),
            "/apis/apps/v1/namespaces/production/deployments/orders-api"
        );
        assert_eq!(
            object_path(Kind::Node, "", "node-a"),
            "/api/v1/nodes/node-a"
        );
    }
}
