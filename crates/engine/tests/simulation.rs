//! A randomized simulation of the whole control plane under faults, to find what scripted
//! scenarios miss. Each run draws a fault schedule from one seed — node kills and restores, etcd
//! member kills and restores (a lost quorum stops every write), compactions, dropped watch
//! streams (every component's, at random), stalled readers (watches overflow and expire,
//! informers re-list), observers whose informers lag by a per-seed delay, writers racing on the
//! same Deployment, on the same new pod and on the same pod's labels, scaling, image changes,
//! pods relabelled out of (and back into) their ReplicaSet and its Service, creates, updates and deletes of
//! bare pods, `kubectl delete pod`, cordon/uncordon — then heals everything and checks the
//! invariants a learner relies on.
//!
//! At every instant (every 250 ms of virtual time):
//! - the ledger (read into a [`tape::Tape`] after each slice) never goes back, writes each key
//!   at most once per revision, and every write was compared against the key's latest revision:
//!   no two writes succeeded from one version;
//! - no write acknowledged to the simulation's own clients is missing from the ledger;
//! - Events' counts and timestamps only move forward;
//! - every raw watch stream ([`audit::Auditor`]) is ordered, unique, gap-free, atomic per
//!   revision, complete while open, resumable from its last revision (or re-lists after a
//!   genuine `410 Expired`), with bookmarks that never go backwards;
//! - no pod stays un-Terminating on a dead node past its eviction deadline;
//! - no node carries more cpu/memory requests than it can allocate;
//! - nothing is bound to a node cordoned more than a second ago;
//! - no container's restartCount goes back, and no Succeeded or Failed pod runs again (the bare
//!   pods crash-loop, complete, or hang and get restarted by their liveness probe, by name);
//! - the workloads ([`workloads`]): no Job above its parallelism, no two Jobs of the Forbid
//!   CronJob at once, StatefulSet pods created in order (each lower ordinal Ready first).
//!
//! At every race: of writers that read the same version, at most one succeeds; the others get
//! `409 Conflict` (`AlreadyExists` for two creates of one name).
//!
//! Once healed:
//! - the Deployment converges: exactly the desired number of Running, ready pods on live nodes,
//!   every other pod Running too (or Succeeded, the bare pods that complete), every node Ready and untainted, the status saying so, every
//!   kubelet running exactly its node's pods;
//! - the DaemonSet runs exactly one Running, Ready pod on every node;
//! - the disruption controller caught up: the Deployment's PodDisruptionBudget
//!   (`maxUnavailable: 1`) counts its replicas, its Ready pods and the disruptions they allow,
//!   at the budget's generation;
//! - the ownership chain holds: one current ReplicaSet, named by its template hash, owning
//!   every pod;
//! - no ownerReference names an object that is gone (the garbage collector caught up);
//! - for each Service whose namespace's pods have been quiet a while, every ready pod it
//!   selects is a ready endpoint in exactly one of its EndpointSlices, and every endpoint is a
//!   selected pod with its IP and readiness (the Deployment's pods, and bare pods that
//!   crash-loop, complete or fail readiness);
//! - once the slices have been quiet a while, each node's kube-proxy rules equal them: per
//!   Service port, the ClusterIP leads to exactly the slices' ready `ip:port`s;
//! - no acknowledged write is lost (the last scale and the last annotation both survive);
//! - a repeated Event was counted, not duplicated;
//! - with the ledger held still, every informer cache (an observer's and each controller's) and
//!   every auditor's list + watch reconstruction equals the ledger, object for object and
//!   version for version;
//! - the same seed gives the same history, byte for byte.
//!
//! The cluster is the [`Cluster`] façade the page and the HTTP server drive, so their
//! orchestration (etcd's elections, then the API server, then the controllers, at every timer)
//! is what gets fault-tested; node and etcd faults, compactions and dropped watches are its
//! `Action`s. The simulation's writers go through [`Cluster::session`], the journaled JSON path
//! of the console's kubectl and the HTTP server's clients. Its readers (observers, auditors)
//! need the server's streams themselves and call it in-process ([`Cluster::unrecorded_api`]),
//! which the journal cannot record; so [`JOURNALED_SEEDS`] seeds also run without them, are
//! saved, replayed from the file, and must give the same ledger, write for write.
//!
//! Layout: this file is the driver (the cluster, its clients, applying faults, healing,
//! running seeds); `simulation/faults.rs` the fault schedule and each seed's weights;
//! `simulation/invariants.rs` the checks at every instant; `simulation/liveness.rs` the checks
//! once healed; `simulation/tape.rs` and `simulation/audit.rs` the ledger's and the watch
//! streams' own checkers.
//!
//! Seeds: `WATCHLAB_SIM_SEEDS=<n>` runs seeds `0..n` (default [`DEFAULT_SEEDS`]), spread over
//! the machine's cores; `WATCHLAB_SIM_FIRST_SEED=<k>` starts at `k`; `WATCHLAB_SIM_SEED=<n>`
//! replays one. A failure prints the seed, its fault weights (each seed weighs the kinds of fault
//! differently: swarm testing), the replay command and the fault schedule.

#[path = "simulation/audit.rs"]
mod audit;
#[path = "simulation/faults.rs"]
mod faults;
#[path = "simulation/invariants.rs"]
mod invariants;
#[path = "simulation/liveness.rs"]
mod liveness;
#[path = "simulation/tape.rs"]
mod tape;
#[path = "simulation/workloads.rs"]
mod workloads;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use audit::{AuditStats, Auditor, Spec};
use faults::{schedule, Fault, Weights};
use tape::Tape;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::quantity::Quantity;
use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::{Status, StatusReason};
use watchlab_engine::api::apps::{Deployment, DeploymentSpec, PodTemplateSpec};
use watchlab_engine::api::behaviour::ANNOTATION;
use watchlab_engine::api::meta::LabelSelector;
use watchlab_engine::api::pod::{
    Container, HttpGetAction, IntOrString, Pod, PodSpec, Probe, ResourceRequirements,
};
use watchlab_engine::api::policy::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use watchlab_engine::api::service::{Service, ServicePort, ServiceSpec};
use watchlab_engine::api::Event;
use watchlab_engine::api::{Kind, Namespace, Object, ObjectMeta};
use watchlab_engine::apiserver::instance::Health;
use watchlab_engine::client::{retry_on_conflict, Backoff, InformerConfig};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{
    object_path, Action, Cluster, ClusterConfig, ProfileName, ReplicaRole,
};
use watchlab_engine::controllers::adapter::client_error;
use watchlab_engine::controllers::{deployment, podutil, scheduler, ApiInformer, Profile};
use watchlab_engine::rng::SimRng;
use workloads::Workloads;

/// Seeds a plain `cargo test` runs. A seed costs about 1.4 s of CPU in a plain debug build
/// (measured 2026-12-07 with the workloads and the HA control plane: 24 seeds in 33 s of CPU;
/// 29 s with one API server and one replica each), so 256 seeds on CI's 2 cores take about
/// three minutes.
const DEFAULT_SEEDS: u64 = 256;
/// Seeds run with the real (Kubernetes) timings, out of the same range.
const REAL_TIMING_SEEDS: usize = 16;
/// Seeds run without the in-process readers, saved and replayed from the journal.
const JOURNALED_SEEDS: usize = 16;

const NODES: [&str; 3] = ["node-a", "node-b", "node-c"];
const ETCD_MEMBERS: usize = 3;
const NAMESPACE: &str = "production";
const DEPLOYMENT: &str = "orders-api";
/// Where bare pods are created, updated and deleted.
const SANDBOX: &str = "sandbox";
/// Bare pod names a create race draws from (so that creates also meet existing pods).
const JOB_NAMES: u64 = 6;
/// The label a relabelled pod gets instead of `app=orders-api` (taken out of rotation).
const DEBUG_APP: &str = "orders-api-debug";
/// The Services: one in front of the Deployment's pods, one in front of the bare pods (which
/// crash-loop, complete and fail readiness, so their endpoints come and go).
const SERVICES: [(&str, &str, &str); 2] = [
    (NAMESPACE, DEPLOYMENT, DEPLOYMENT),
    (SANDBOX, "jobs", "job"),
];
/// The annotation the racing writers set.
const NOTE: &str = "watchlab.dev/note";
/// Virtual time between two looks at the invariants (and at the etcd members' elections).
const SLICE_MS: u64 = 250;
/// Events a watch stream may buffer between two polls: far below the real 1000, so that a
/// stalled reader is cut off within a minute (the controllers poll every step and never are).
const WATCH_BUFFER_LIMIT: usize = 50;
/// Each replica's cpu request: two fit on a 4-cpu node, so 5 replicas plus a rollout's surge,
/// or a dead node, leave pods Pending (FailedScheduling) until room frees up.
const CPU_REQUEST: &str = "1500m";
/// How long the healed cluster is left alone before convergence is judged, beyond the
/// profile's grace period and toleration (a node marked NotReady just before healing must
/// still have its evictions replaced).
const HEAL_SLACK_MS: u64 = 160_000;
/// How long after two leaders overlapped the workloads' safety invariants stay unjudged: the
/// stale leader's surplus pods are seen and deleted by the rightful one (its Job controller
/// deletes active pods beyond parallelism) within this.
const TWO_LEADERS_GRACE_MS: u64 = 60_000;
/// Kinds whose informer caches are compared with the ledger.
const OBSERVED: [Kind; 5] = [
    Kind::Node,
    Kind::Pod,
    Kind::ReplicaSet,
    Kind::Deployment,
    Kind::Lease,
];

/// The raw watch streams audited against the tape.
fn audited() -> Vec<(&'static str, Spec)> {
    let spec = |kind, namespace, label| Spec {
        kind,
        namespace,
        label,
    };
    vec![
        ("pods", spec(Kind::Pod, None, None)),
        (
            "orders-api pods",
            spec(Kind::Pod, Some(NAMESPACE), Some(("app", DEPLOYMENT))),
        ),
        ("replicasets", spec(Kind::ReplicaSet, Some(NAMESPACE), None)),
        ("deployments", spec(Kind::Deployment, None, None)),
        ("nodes", spec(Kind::Node, None, None)),
        ("events", spec(Kind::Event, None, None)),
    ]
}

fn quantity(s: &str) -> Quantity {
    Quantity::parse(s).expect("a valid quantity")
}

fn deployment(replicas: i32) -> Object {
    let labels: BTreeMap<String, String> = [("app".to_string(), DEPLOYMENT.to_string())].into();
    Object::Deployment(
        Deployment {
            metadata: ObjectMeta::named(NAMESPACE, DEPLOYMENT),
            spec: DeploymentSpec {
                replicas: Some(replicas),
                selector: Some(LabelSelector {
                    match_labels: labels.clone(),
                    ..Default::default()
                }),
                template: PodTemplateSpec {
                    metadata: ObjectMeta {
                        labels: labels.into(),
                        ..Default::default()
                    },
                    spec: PodSpec {
                        containers: vec![Container {
                            name: DEPLOYMENT.into(),
                            image: format!("{DEPLOYMENT}:0"),
                            resources: ResourceRequirements {
                                requests: [
                                    ("cpu".to_string(), quantity(CPU_REQUEST)),
                                    ("memory".to_string(), quantity("1Gi")),
                                ]
                                .into(),
                                ..Default::default()
                            },
                            ..Default::default()
                        }]
                        .into(),
                        ..Default::default()
                    },
                },
                ..Default::default()
            },
            status: Default::default(),
        }
        .into(),
    )
}

/// A PodDisruptionBudget over the Deployment's pods: at most one unavailable, so the
/// disruption controller counts them through every fault (scaled on the Deployment's
/// replicas through its ReplicaSets).
fn budget() -> Object {
    let labels: BTreeMap<String, String> = [("app".to_string(), DEPLOYMENT.to_string())].into();
    PodDisruptionBudget {
        metadata: ObjectMeta::named(NAMESPACE, DEPLOYMENT),
        spec: PodDisruptionBudgetSpec {
            max_unavailable: Some(IntOrString::Int(1)),
            selector: Some(LabelSelector {
                match_labels: labels,
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    }
    .into()
}

/// A ClusterIP Service `name` in front of the pods labelled `app=<app>`: port 80 to 8080.
fn service(namespace: &str, name: &str, app: &str) -> Object {
    Object::Service(Box::new(Service {
        metadata: ObjectMeta::named(namespace, name),
        spec: ServiceSpec {
            selector: [("app".to_string(), app.to_string())].into(),
            ports: vec![ServicePort {
                port: 80,
                target_port: Some(IntOrString::Int(8080)),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    }))
}

/// What the bare pod `job-<n>` does, by `n % 4` (its `watchlab.dev/behaviour`, restartPolicy,
/// probes): stays healthy; crash-loops; completes and stays Succeeded; hangs after 30 s, so its
/// readiness flips and its liveness probe restarts it, again and again.
fn lifecycle_of(name: &str) -> (&'static str, &'static str, bool) {
    let n: u64 = name
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    match n % 4 {
        1 => ("crash-after=20s", "Always", false),
        2 => ("complete-after=10s", "Never", false),
        3 => ("unhealthy-after=30s", "Always", true),
        _ => ("", "Always", false),
    }
}

/// A bare pod in the sandbox (no requests: it always fits), written by `user`, living as
/// [`lifecycle_of`] its name says.
fn bare_pod(name: &str, user: &str) -> Object {
    let mut metadata = ObjectMeta::named(SANDBOX, name);
    metadata.labels = [
        ("app".to_string(), "job".to_string()),
        ("writer".to_string(), user.to_string()),
    ]
    .into();
    let (behaviour, policy, probes) = lifecycle_of(name);
    if !behaviour.is_empty() {
        metadata
            .annotations
            .insert(ANNOTATION.to_string(), behaviour.to_string());
    }
    let probe = Probe {
        http_get: Some(HttpGetAction {
            path: "/healthz".into(),
            port: IntOrString::Int(8080),
            ..Default::default()
        }),
        ..Default::default()
    };
    Object::Pod(Pod {
        metadata,
        spec: PodSpec {
            containers: vec![Container {
                name: "job".into(),
                image: "busybox:1.36".into(),
                readiness_probe: probes.then(|| Box::new(probe.clone())),
                liveness_probe: probes.then(|| Box::new(probe)),
                ..Default::default()
            }]
            .into(),
            restart_policy: Some(policy.into()),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    })
}

/// A write the simulation was told succeeded: the object stored at its revision, or `None` for
/// a removal.
struct Ack {
    kind: Kind,
    key: String,
    revision: u64,
    object: Option<Arc<Object>>,
}

/// The cluster under test (the same [`Cluster`] façade the page and the HTTP server drive: its
/// etcd members, API server and controllers, stepped in its order), and what the invariants
/// need to remember.
struct Sim {
    seed: u64,
    cluster: Cluster,
    readers: Readers,
    profile: Profile,
    /// Informers of an outside observer (`kubectl get -w` style), one per observed kind.
    observers: Vec<(Kind, ApiInformer)>,
    /// Raw watch streams checked against the tape.
    auditors: Vec<Auditor>,
    /// Every committed write.
    tape: Tape,
    /// Acknowledged writes not yet found on the tape.
    acked: Vec<Ack>,
    /// The observers (and auditors) are not reading.
    stalled: bool,
    /// Dead nodes and since when (continuously).
    dead_since: BTreeMap<String, Timestamp>,
    /// Cordoned nodes and since when (acknowledged).
    cordoned_since: BTreeMap<String, Timestamp>,
    /// Pods (by uid) already seen bound.
    seen_bound: BTreeSet<String>,
    /// Each pod's (by uid) highest restart count so far, and the terminal phase it reached.
    lifecycles: BTreeMap<String, (i32, Option<String>)>,
    /// Virtual time the store refused writes, or the control plane was degraded (a replica
    /// paused, an API server cut or stopped), in total.
    outage_ms: u64,
    /// Until when the safety invariants kube-controller-manager keeps for the workloads (a
    /// Job's parallelism, Forbid, OrderedReady) are not judged: two replicas of a component
    /// believed they led at once (a paused leader resumed) until a grace after that, as
    /// client-go's leader election allows — a stale leader's writes without a precondition
    /// land ([`TWO_LEADERS_GRACE_MS`]).
    two_leaders_until: Timestamp,
    /// The spans (first and last slice) during which two replicas led at once.
    two_leader_windows: Vec<(Timestamp, Timestamp)>,
    /// The time of the newest stale write the control plane recorded, at the last slice.
    last_stale_write: Option<Timestamp>,
    /// Each etcd term's leader, as seen after every slice (Raft's election safety).
    etcd_leaders: BTreeMap<u64, String>,
    /// When the tape last saw a write of a kind in a namespace (pods, Services, EndpointSlices).
    last_write: BTreeMap<(Kind, String), Timestamp>,
    /// The last acknowledged `spec.replicas` and annotation.
    desired: i32,
    note: Option<String>,
    /// What happened, for the failure message.
    log: Vec<String>,
    coverage: Coverage,
    /// The workloads' pods and Jobs as the tape has shown them.
    workloads: Workloads,
}

/// What a run exercised, so that a schedule that tests nothing is noticed.
#[derive(Debug, Default, Clone, Copy)]
struct Coverage {
    /// Slices with a lost etcd quorum.
    outage_slices: u64,
    /// Looks at a node dead past its eviction budget.
    eviction_checks: u64,
    /// Races where a stale write got its 409.
    conflicts: u64,
    /// Create races where the second create got `409 AlreadyExists`.
    create_conflicts: u64,
    /// Observer re-lists after `410 Expired`.
    expired_relists: u64,
    /// Events whose count went past 1 (a repeat was correlated).
    repeated_events: u64,
    /// `FailedScheduling` Events (no room, cordoned or tainted nodes).
    failed_scheduling: u64,
    /// Watch streams cut by `DropWatches`.
    dropped_watches: u64,
    /// Acknowledged relabels of the Deployment's pods.
    relabels: u64,
    /// Watch caches compared with etcd's state at their revision.
    cache_checks: u64,
    /// Container restarts seen by the lifecycle check, and pods seen Succeeded or Failed.
    restarts: u64,
    terminal_pods: u64,
    /// Services held to their slices, and node rules held to the slices, once quiet.
    endpoint_checks: u64,
    proxy_checks: u64,
    /// Writes checked on the tape, and acknowledged writes found there.
    writes: u64,
    acks: u64,
    audit: AuditStats,
}

impl Coverage {
    fn add(&mut self, o: Coverage) {
        self.outage_slices += o.outage_slices;
        self.eviction_checks += o.eviction_checks;
        self.conflicts += o.conflicts;
        self.create_conflicts += o.create_conflicts;
        self.expired_relists += o.expired_relists;
        self.repeated_events += o.repeated_events;
        self.failed_scheduling += o.failed_scheduling;
        self.dropped_watches += o.dropped_watches;
        self.relabels += o.relabels;
        self.cache_checks += o.cache_checks;
        self.restarts += o.restarts;
        self.terminal_pods += o.terminal_pods;
        self.endpoint_checks += o.endpoint_checks;
        self.proxy_checks += o.proxy_checks;
        self.writes += o.writes;
        self.acks += o.acks;
        self.audit.events += o.audit.events;
        self.audit.bookmarks += o.audit.bookmarks;
        self.audit.resumes += o.audit.resumes;
        self.audit.relists += o.audit.relists;
    }
}

impl Sim {
    fn new(seed: u64, profile_name: ProfileName, readers: Readers) -> Self {
        let profile = Profile::named(profile_name);
        let (apiservers, controller_replicas) = faults::control_plane_of(seed);
        let mut cluster = Cluster::new(ClusterConfig {
            seed,
            nodes: NODES.map(String::from).to_vec(),
            etcd_members: ETCD_MEMBERS,
            profile: profile_name,
            seed_objects: false,
            apiservers,
            controller_replicas,
            // The fix for informers going back in time: the checker must stay silent.
            consistent_first_list: true,
            ..ClusterConfig::default()
        });
        for ns in [NAMESPACE, SANDBOX] {
            let ns = Object::Namespace(Namespace {
                metadata: ObjectMeta::named("", ns),
                ..Default::default()
            });
            create(&mut cluster, "kubectl", &ns).expect("namespace");
        }
        create(&mut cluster, "kubectl", &deployment(3)).expect("deployment");
        create(&mut cluster, "kubectl", &budget()).expect("budget");
        for o in workloads::objects() {
            create(&mut cluster, "kubectl", &o).expect("a workload");
        }
        for (namespace, name, app) in SERVICES {
            create(&mut cluster, "kubectl", &service(namespace, name, app)).expect("service");
        }
        if readers == Readers::InProcess {
            // Small buffers make the readers' streams overflow (and controllers' too).
            cluster
                .unrecorded_api()
                .set_watch_buffer_limit(WATCH_BUFFER_LIMIT);
        }
        // The observers lag by a per-seed delay: from none to a few seconds.
        let mut rng = SimRng::child(seed, "simulation/observer-delay");
        let min = rng.below(200);
        let config = InformerConfig {
            delivery_delay_min_ms: min,
            delivery_delay_max_ms: min + rng.below(4_000),
            ..profile.informer_config()
        };
        let observers = OBSERVED
            .iter()
            .filter(|_| readers == Readers::InProcess)
            .map(|&kind| {
                let rng = SimRng::child(seed, &format!("simulation/observer/{kind:?}"));
                let informer = ApiInformer::new(kind, None, config.clone(), vec![], rng);
                (kind, informer)
            })
            .collect();
        let auditors = audited()
            .into_iter()
            .filter(|_| readers == Readers::InProcess)
            .map(|(name, spec)| Auditor::new(seed, name, spec))
            .collect();
        let mut sim = Sim {
            seed,
            cluster,
            readers,
            profile,
            observers,
            auditors,
            tape: Tape::default(),
            acked: Vec::new(),
            stalled: false,
            dead_since: BTreeMap::new(),
            cordoned_since: BTreeMap::new(),
            seen_bound: BTreeSet::new(),
            lifecycles: BTreeMap::new(),
            outage_ms: 0,
            two_leaders_until: Timestamp::ZERO,
            two_leader_windows: Vec::new(),
            last_stale_write: None,
            etcd_leaders: BTreeMap::new(),
            last_write: BTreeMap::new(),
            desired: 3,
            note: None,
            log: Vec::new(),
            coverage: Coverage::default(),
            workloads: Workloads::default(),
        };
        sim.read_tape();
        sim
    }

    fn fail(&self, what: &str) -> ! {
        panic!(
            "simulation seed {} failed at {} ms: {what}\nreplay: WATCHLAB_SIM_SEED={} cargo test \
             -p watchlab-engine --test simulation\nhistory:\n  {}",
            self.seed,
            self.cluster.now().as_millis(),
            self.seed,
            self.log.join("\n  ")
        );
    }

    fn check(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.fail(&what());
        }
    }

    /// Reads the ledger's new writes onto the tape, and finds every acknowledged write there.
    fn read_tape(&mut self) {
        let now = self.cluster.now();
        let before = self.tape.upto();
        if let Err(e) = self.tape.collect(self.cluster.api(), now) {
            self.fail(&e);
        }
        for kind in [Kind::Pod, Kind::Service, Kind::EndpointSlice] {
            for w in self.tape.between(kind, before, self.tape.upto()) {
                if let Some(o) = w.cur.as_ref().or(w.prev.as_ref()) {
                    self.last_write
                        .insert((kind, o.namespace().to_string()), now);
                }
            }
        }
        self.check_workloads_on_the_tape(before);
        for ack in std::mem::take(&mut self.acked) {
            let found = self.tape.at(ack.kind, &ack.key, ack.revision);
            let kept = found.is_some_and(|w| match (&w.cur, &ack.object) {
                // An answer decoded from the session's JSON is another value of the same text.
                (Some(stored), Some(acked)) => {
                    Arc::ptr_eq(stored, acked) || stored.to_json() == acked.to_json()
                }
                (None, None) => true,
                _ => false,
            });
            self.check(kept, || {
                format!(
                    "{} acknowledged at revision {} is not in the ledger: {:?}",
                    ack.key,
                    ack.revision,
                    found.map(|w| (&w.prev, &w.cur))
                )
            });
            self.coverage.acks += 1;
        }
    }

    /// Remembers an acknowledged write (found on the tape at the next read).
    fn ack(&mut self, object: &Arc<Object>, removed: bool) {
        let kind = object.kind();
        self.acked.push(Ack {
            kind,
            key: kind.key(object.namespace(), object.name()),
            revision: object.resource_version(),
            object: (!removed).then(|| object.clone()),
        });
    }

    /// Runs `ms` of virtual time in slices: the cluster (its etcd members' elections, the API
    /// server, the controllers, in the façade's order), then the tape, the observers and the
    /// auditors, then the running invariants.
    fn run_for(&mut self, ms: u64) {
        let until = self.cluster.now().plus_millis(ms);
        while self.cluster.now() < until {
            let slice = SLICE_MS.min(until.millis_since(self.cluster.now()));
            let writable_before = self.cluster.api().store_writable();
            let degraded_before = self.control_plane_degraded();
            self.cluster
                .advance_to(self.cluster.now().plus_millis(slice));
            if !writable_before {
                self.coverage.outage_slices += 1;
            }
            if !writable_before || degraded_before {
                self.outage_ms += slice;
            }
            let now = self.cluster.now();
            // Two leaders now, or a stale leader wrote during the slice (a resumed leader may
            // stop within one slice).
            let stale = self
                .cluster
                .control_plane()
                .stale_writes()
                .back()
                .map(|w| w.time);
            if self.two_leaders() || stale != self.last_stale_write {
                let from = Timestamp::from_millis(now.as_millis().saturating_sub(slice));
                // Extends the window the previous slice began, or opens one.
                match self.two_leader_windows.last_mut() {
                    Some((_, to)) if *to >= from => *to = now,
                    _ => self.two_leader_windows.push((from, now)),
                }
                self.two_leaders_until = now.plus_millis(TWO_LEADERS_GRACE_MS);
            }
            self.last_stale_write = stale;
            self.read_tape();
            if !self.stalled {
                self.step_observers(now);
            }
            self.check_no_pod_left_on_a_dead_node();
            self.check_no_node_overcommitted();
            self.check_no_binding_to_a_cordoned_node();
            self.check_pod_lifecycles_move_forward();
            self.check_one_etcd_leader_per_term();
            self.check_caches_hold_etcds_state();
        }
    }

    /// A replica paused, or an API server cut or stopped: the components may lag behind etcd.
    fn control_plane_degraded(&self) -> bool {
        self.cluster.replicas().iter().any(|r| r.paused)
            || self
                .cluster
                .apiservers()
                .iter()
                .any(|a| a.health != Health::Serving)
    }

    /// Two running replicas of one component both believe they lead.
    fn two_leaders(&self) -> bool {
        let leading: Vec<&'static str> = self
            .cluster
            .replicas()
            .iter()
            .filter(|r| r.role == ReplicaRole::Leading && !r.paused)
            .map(|r| r.component)
            .collect();
        leading
            .iter()
            .enumerate()
            .any(|(i, c)| leading[..i].contains(c))
    }

    /// Every watch cache holds exactly etcd's objects of its resource as of the revision its
    /// etcd watch has delivered (a gap-free prefix of etcd's history: nothing missed, nothing
    /// invented, nothing from a revision its member had not applied).
    fn check_caches_hold_etcds_state(&mut self) {
        let api = self.cluster.api();
        for c in api.cachers() {
            if !c.is_ready() {
                continue;
            }
            let at = api.cache_delivered(c.kind());
            if at < api.store().compact_revision() {
                continue;
            }
            let Ok(etcd) = api.store().range_prefix(c.prefix(), None, Some(at), None) else {
                continue;
            };
            let same = etcd.kvs.len() == c.len()
                && etcd
                    .kvs
                    .iter()
                    .zip(c.objects())
                    .all(|(kv, (key, obj))| *kv.key == *key && Arc::ptr_eq(&kv.value, obj));
            if !same {
                let plural = c.kind().resource().plural;
                let cached: Vec<&str> = c.objects().into_iter().map(|(k, _)| k).collect();
                let stored: Vec<&str> = etcd.kvs.iter().map(|kv| &*kv.key).collect();
                self.fail(&format!(
                    "the {plural} cache (at {at}) differs from etcd there:\n  cache {cached:?}\n  \
                     etcd  {stored:?}"
                ));
            }
            self.coverage.cache_checks += 1;
        }
    }

    fn step_observers(&mut self, now: Timestamp) {
        if self.readers == Readers::Off {
            return;
        }
        let api = self.cluster.unrecorded_api();
        for (_, informer) in &mut self.observers {
            informer.step(now, api, "simulation-observer");
        }
        for a in &mut self.auditors {
            if let Err(e) = a.step(api, &self.tape) {
                self.fail(&e);
            }
        }
    }

    fn pods(&self) -> Vec<Arc<Object>> {
        self.pods_in(Some(NAMESPACE))
    }

    fn all_pods(&self) -> Vec<Arc<Object>> {
        self.pods_in(None)
    }

    fn pods_in(&self, namespace: Option<&str>) -> Vec<Arc<Object>> {
        self.cluster
            .api()
            .list(Kind::Pod, namespace, &ListOptions::from_cache())
            .map(|l| l.items)
            .unwrap_or_default()
    }

    fn get_deployment(&self) -> Option<Deployment> {
        self.cluster
            .api()
            .peek(Kind::Deployment, Some(NAMESPACE), DEPLOYMENT)
            .and_then(|o| o.as_deployment().cloned())
    }

    /// A read-modify-write of one object as kubectl does it, retried on conflict; the stored
    /// object if the write was acknowledged.
    fn edit(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        change: impl Fn(&mut Object),
    ) -> Option<Arc<Object>> {
        let mut rng = SimRng::child(self.seed, &format!("simulation/{user}"));
        let start = self.cluster.now();
        let cluster = &mut self.cluster;
        let out = retry_on_conflict(Backoff::default_retry(), &mut rng, start, |_| {
            let path = object_path(kind, namespace.unwrap_or_default(), name);
            let mut o =
                (*call(cluster, user, "GET", &path, None).map_err(|s| client_error(&s))?).clone();
            change(&mut o);
            update(cluster, user, &o).map_err(|s| client_error(&s))
        });
        let stored = out.result.ok()?;
        self.ack(&stored, false);
        Some(stored)
    }

    /// [`Sim::edit`] of the Deployment; true if acknowledged.
    fn edit_deployment(&mut self, user: &str, change: impl Fn(&mut Deployment)) -> bool {
        self.edit(user, Kind::Deployment, Some(NAMESPACE), DEPLOYMENT, |o| {
            if let Object::Deployment(d) = o {
                change(d);
            }
        })
        .is_some()
    }

    /// `kubectl delete pod`, its outcome remembered if acknowledged.
    fn delete_pod(&mut self, namespace: &str, name: &str) {
        let path = object_path(Kind::Pod, namespace, name);
        if let Ok(object) = call(&mut self.cluster, "kubectl", "DELETE", &path, None) {
            let gone = self
                .cluster
                .api()
                .peek(Kind::Pod, Some(namespace), name)
                .is_none();
            self.ack(&object, gone);
        }
    }

    /// The name of the pod `pick` selects among `pods`, if any.
    fn pick(pods: &[Arc<Object>], pick: u64) -> Option<String> {
        let i = pick.checked_rem(pods.len() as u64)? as usize;
        pods.get(i).map(|p| p.name().to_string())
    }

    fn apply(&mut self, fault: &Fault) {
        let now = self.cluster.now();
        self.log.push(format!("{:>7} ms  {fault}", now.as_millis()));
        match fault {
            Fault::KillNode(i) => {
                let node = NODES[*i];
                if !self.cluster.is_node_killed(node)
                    && self.cluster.apply(Action::KillNode(node.into())).is_ok()
                {
                    self.dead_since.insert(node.to_string(), now);
                }
            }
            Fault::RestoreNode(i) => self.restore_node(NODES[*i]),
            Fault::KillEtcd(i) => {
                let _ = self
                    .cluster
                    .apply(Action::KillEtcdMember(format!("etcd-{i}")));
            }
            Fault::RestoreEtcd(i) => {
                let _ = self
                    .cluster
                    .apply(Action::RestoreEtcdMember(format!("etcd-{i}")));
            }
            Fault::IsolateEtcd(i) => {
                let _ = self
                    .cluster
                    .apply(Action::IsolateEtcdMember(format!("etcd-{i}")));
            }
            Fault::PartitionEtcd { first, pair } => {
                let group = faults::partition_group(*first, *pair);
                let _ = self.cluster.apply(Action::PartitionEtcd(group));
            }
            Fault::HealEtcd => {
                let _ = self.cluster.apply(Action::HealEtcd(None));
            }
            // Refused where the run has no such instance or replica, or for the last instance
            // running: nothing changes.
            Fault::CutApiserver(i) => {
                let _ = self
                    .cluster
                    .apply(Action::CutApiserver(format!("kube-apiserver-{i}")));
            }
            Fault::StopApiserver(i) => {
                let _ = self
                    .cluster
                    .apply(Action::StopApiserver(format!("kube-apiserver-{i}")));
            }
            Fault::RestoreApiserver(i) => {
                let _ = self
                    .cluster
                    .apply(Action::RestoreApiserver(format!("kube-apiserver-{i}")));
            }
            Fault::PauseComponent { scheduler, replica } => {
                let name = faults::replica_name(*scheduler, *replica);
                let _ = self.cluster.apply(Action::PauseComponent(name));
            }
            Fault::ResumeComponent { scheduler, replica } => {
                let name = faults::replica_name(*scheduler, *replica);
                let _ = self.cluster.apply(Action::ResumeComponent(name));
            }
            Fault::Compact => {
                // The tape reads the history first (the compactor keeps it; this does not).
                self.read_tape();
                let _ = self.cluster.apply(Action::CompactNow);
            }
            Fault::DeletePod(pick) => {
                if let Some(name) = Self::pick(&self.pods(), *pick) {
                    self.delete_pod(NAMESPACE, &name);
                }
            }
            Fault::DeleteBare(pick) => {
                if let Some(name) = Self::pick(&self.pods_in(Some(SANDBOX)), *pick) {
                    self.delete_pod(SANDBOX, &name);
                }
            }
            Fault::Relabel(pick) => {
                if let Some(name) = Self::pick(&self.pods(), *pick) {
                    let relabelled = self.edit("kubectl", Kind::Pod, Some(NAMESPACE), &name, |o| {
                        let labels = &mut o.meta_mut().labels;
                        let app = if labels.get("app").map(String::as_str) == Some(DEPLOYMENT) {
                            DEBUG_APP
                        } else {
                            DEPLOYMENT
                        };
                        labels.insert("app".into(), app.into());
                    });
                    if relabelled.is_some() {
                        self.coverage.relabels += 1;
                    }
                }
            }
            Fault::CreateRace(pick) => self.create_race(*pick),
            Fault::UpdateRace(pick) => self.update_race(*pick),
            Fault::Cordon(i) => {
                if self.set_unschedulable(NODES[*i], true) {
                    self.cordoned_since
                        .entry(NODES[*i].to_string())
                        .or_insert(now);
                }
            }
            Fault::Uncordon(i) => {
                if self.set_unschedulable(NODES[*i], false) {
                    self.cordoned_since.remove(NODES[*i]);
                }
            }
            Fault::Scale(n) => {
                let n = *n;
                if self.edit_deployment("kubectl", |d| d.spec.replicas = Some(n)) {
                    self.desired = n;
                }
            }
            Fault::SetImage(v) => {
                let image = format!("{DEPLOYMENT}:{v}");
                self.edit_deployment("kubectl", |d| {
                    if let Some(c) = d.spec.template.spec.containers.first_mut() {
                        c.image = image.clone();
                    }
                });
            }
            Fault::RacingWriters {
                writers,
                replicas,
                note,
            } => self.race(*writers, *replicas, *note),
            Fault::StallObservers(ms) => {
                self.stalled = true;
                self.run_for(*ms);
                self.read_tape();
                let _ = self.cluster.apply(Action::CompactNow);
                self.stalled = false;
            }
            Fault::DropWatches(pick) => {
                let ids: Vec<u64> = self.cluster.api().streams().map(|s| s.id()).collect();
                let mut rng = SimRng::child(*pick, "simulation/drop");
                for id in ids {
                    if rng.below(3) != 0 {
                        let _ = self.cluster.apply(Action::DropWatch(id));
                        self.coverage.dropped_watches += 1;
                    }
                }
            }
            Fault::Wait(ms) => self.run_for(*ms),
        }
    }

    fn restore_node(&mut self, node: &str) {
        if self.cluster.is_node_killed(node) {
            let _ = self.cluster.apply(Action::RestoreNode(node.into()));
        }
        self.dead_since.remove(node);
    }

    /// Alice scales, the others annotate from the same read: while the store takes writes,
    /// only the first real change may succeed, every later one must be a 409, and a retry must
    /// keep Alice's change.
    fn race(&mut self, writers: u32, replicas: i32, note: u32) {
        let path = object_path(Kind::Deployment, NAMESPACE, DEPLOYMENT);
        let read = call(&mut self.cluster, "alice", "GET", &path, None);
        if read.is_err() && !self.cluster.api().store_writable() {
            // A GET is a quorum read: without an etcd majority there is nothing to race on.
            self.log.push("  (GET refused: no etcd quorum)".into());
            return;
        }
        let Some(read) = read.ok().and_then(|o| o.as_deployment().cloned()) else {
            self.fail("the Deployment vanished");
        };
        let read_rv = read.metadata.resource_version.clone();
        let mut alice = read.clone();
        alice.spec.replicas = Some(replicas);
        let alice = update(
            &mut self.cluster,
            "alice",
            &Object::Deployment(alice.into()),
        );
        if let Ok(stored) = &alice {
            self.desired = replicas;
            self.ack(stored, false);
        }
        // A no-op update keeps the resourceVersion (as in Kubernetes), so the others' copies
        // stay current; only a real change makes them stale.
        let alice_won = alice.is_ok_and(|o| o.meta().resource_version != read_rv);
        let mut winner = alice_won.then_some("alice".to_string());
        for i in 1..writers {
            let user = ["bob", "carol", "dave"][(i as usize - 1) % 3];
            let value = format!("{note}-{user}");
            let mut copy = read.clone();
            copy.metadata.annotations.insert(NOTE.into(), value.clone());
            match update(&mut self.cluster, user, &Object::Deployment(copy.into())) {
                Ok(stored) => {
                    if let Some(w) = &winner {
                        self.fail(&format!(
                            "{user} and {w} both wrote the Deployment from resourceVersion {read_rv}"
                        ));
                    }
                    winner = Some(user.to_string());
                    self.ack(&stored, false);
                    self.note = Some(value);
                }
                Err(e) if winner.is_some() => {
                    self.check(
                        e.code() == 409 && e.reason() == StatusReason::Conflict,
                        || format!("{user}'s stale write got {e:?}"),
                    );
                    self.coverage.conflicts += 1;
                }
                Err(_) => {}
            }
        }
        let retried = format!("{note}-retry");
        let bob_note = retried.clone();
        if self.edit_deployment("bob", |d| {
            d.metadata.annotations.insert(NOTE.into(), bob_note.clone());
        }) {
            self.note = Some(retried);
        }
        if alice_won {
            let d = self.get_deployment();
            self.check(d.is_some_and(|d| d.spec.replicas == Some(replicas)), || {
                "bob's retry lost alice's scale".into()
            });
        }
    }

    /// Alice and Bob create the same bare pod: at most one create succeeds; once one has, the
    /// other gets `409 AlreadyExists`.
    fn create_race(&mut self, pick: u64) {
        let name = format!("job-{}", pick % JOB_NAMES);
        let mut created: Option<&str> = None;
        for user in ["alice", "bob"] {
            match create(&mut self.cluster, user, &bare_pod(&name, user)) {
                Ok(stored) => {
                    if let Some(first) = created {
                        self.fail(&format!("{first} and {user} both created {SANDBOX}/{name}"));
                    }
                    created = Some(user);
                    self.ack(&stored, false);
                }
                Err(e) if created.is_some() => {
                    self.check(
                        e.code() == 409 && e.reason() == StatusReason::AlreadyExists,
                        || format!("{user}'s second create of {name} got {e:?}"),
                    );
                    self.coverage.create_conflicts += 1;
                }
                Err(_) => {}
            }
        }
    }

    /// Alice and Bob relabel the same bare pod from one read: at most one succeeds.
    fn update_race(&mut self, pick: u64) {
        let Some(name) = Self::pick(&self.pods_in(Some(SANDBOX)), pick) else {
            return;
        };
        let path = object_path(Kind::Pod, SANDBOX, &name);
        let Ok(read) = call(&mut self.cluster, "alice", "GET", &path, None) else {
            return;
        };
        let mut winner: Option<&str> = None;
        for user in ["alice", "bob"] {
            let mut copy = (*read).clone();
            copy.meta_mut()
                .labels
                .insert("tier".into(), format!("{user}-{}", pick % 97));
            match update(&mut self.cluster, user, &copy) {
                Ok(stored) => {
                    let changed = stored.resource_version() != read.resource_version();
                    if let (true, Some(first)) = (changed, winner) {
                        self.fail(&format!(
                            "{first} and {user} both relabelled {name} from resourceVersion {}",
                            read.resource_version()
                        ));
                    }
                    if changed {
                        winner = Some(user);
                    }
                    self.ack(&stored, false);
                }
                Err(e) if winner.is_some() => {
                    self.check(e.code() == 409, || {
                        format!("{user}'s stale relabel of {name} got {e:?}")
                    });
                    self.coverage.conflicts += 1;
                }
                Err(_) => {}
            }
        }
    }

    /// `kubectl cordon`/`uncordon`: a read-modify-write of `spec.unschedulable`, retried on
    /// conflict (the node lifecycle controller writes the node too); true if acknowledged.
    fn set_unschedulable(&mut self, node: &str, unschedulable: bool) -> bool {
        self.edit("kubectl", Kind::Node, None, node, |o| {
            if let Object::Node(n) = o {
                n.spec.unschedulable = unschedulable;
            }
        })
        .is_some()
    }

    /// Restores every node and etcd member, uncordons every node, puts relabelled pods back,
    /// and leaves the cluster alone.
    fn heal(&mut self) {
        let now = self.cluster.now();
        self.log.push(format!("{:>7} ms  heal", now.as_millis()));
        for node in NODES {
            self.restore_node(node);
        }
        for i in 0..ETCD_MEMBERS {
            // A member already running refuses the restore: nothing to do.
            let _ = self
                .cluster
                .apply(Action::RestoreEtcdMember(format!("etcd-{i}")));
        }
        let _ = self.cluster.apply(Action::HealEtcd(None));
        for a in self.cluster.apiservers() {
            // A serving instance refuses nothing: restoring it changes nothing.
            let _ = self.cluster.apply(Action::RestoreApiserver(a.name));
        }
        for r in self.cluster.replicas() {
            if r.paused {
                let _ = self.cluster.apply(Action::ResumeComponent(r.name));
            }
        }
        for node in NODES {
            // The election takes a second or two; uncordon once writes are taken again.
            for _ in 0..10 {
                if self.set_unschedulable(node, false) {
                    self.cordoned_since.remove(node);
                    break;
                }
                self.run_for(1_000);
            }
        }
        // The pods' watch cache may still be reinitializing (429): wait for it to answer.
        for _ in 0..60 {
            let listed =
                self.cluster
                    .api()
                    .list(Kind::Pod, Some(NAMESPACE), &ListOptions::from_cache());
            if listed.is_ok() {
                break;
            }
            self.run_for(1_000);
        }
        let debug: Vec<String> = self
            .pods()
            .iter()
            .filter(|p| p.meta().labels.get("app").map(String::as_str) != Some(DEPLOYMENT))
            .map(|p| p.name().to_string())
            .collect();
        for name in debug {
            let back = self.edit("kubectl", Kind::Pod, Some(NAMESPACE), &name, |o| {
                o.meta_mut().labels.insert("app".into(), DEPLOYMENT.into());
            });
            self.check(
                back.is_some()
                    || self
                        .cluster
                        .api()
                        .peek(Kind::Pod, Some(NAMESPACE), &name)
                        .is_none(),
                || format!("could not put {name} back into the Deployment"),
            );
        }
        let p = &self.profile;
        let heal = p.node_monitor_grace_period_ms
            + p.default_toleration_seconds as u64 * 1000
            + HEAL_SLACK_MS;
        self.run_for(heal);
    }
}

/// The field selector a component's informer on `kind` lists with (the kubelet watches its own
/// node's pods, the scheduler the unfinished ones; everything else watches everything).
fn field_selector_of(component: &str, kind: Kind) -> Option<String> {
    if kind != Kind::Pod {
        return None;
    }
    if let Some(node) = component.strip_prefix("kubelet/") {
        return Some(format!("spec.nodeName={node}"));
    }
    (component == scheduler::USER_AGENT).then(|| scheduler::POD_FIELD_SELECTOR.to_string())
}

fn identity(o: &Object) -> (String, String, u64) {
    (
        o.namespace().to_string(),
        o.name().to_string(),
        o.resource_version(),
    )
}

/// Whether a run has the in-process readers (observers and auditors). They call the API server
/// directly, which the journal cannot record, so a run with them cannot be saved; a run
/// without them is journaled from start to end, and replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Readers {
    InProcess,
    Off,
}

/// One request as `user` through the cluster's journaled session (the path kubectl in the
/// console and the HTTP server's clients take: JSON in, JSON out): the object the server
/// answered with, or its `Status`. A read-modify-write reads this way too, so the object it
/// sends is a client's own copy, decoded from the server's JSON, as a real client's is.
fn call(
    cluster: &mut Cluster,
    user: &str,
    method: &str,
    path: &str,
    body: Option<&Object>,
) -> Result<Arc<Object>, Status> {
    let body = body.map(Object::to_json);
    let content_type = body.as_ref().map(|_| "application/json");
    let r = cluster
        .session(user)
        .request(method, path, content_type, body.as_deref());
    if r.is_success() {
        return Object::from_json(&r.body).map(Arc::new);
    }
    Err(serde_json::from_str(&r.body).unwrap_or_else(|_| Status::unknown(r.code, &r.body)))
}

/// `POST` of `object` to its collection, as `user`.
fn create(cluster: &mut Cluster, user: &str, object: &Object) -> Result<Arc<Object>, Status> {
    let kind = object.kind();
    let path = kind.resource().path(Some(object.namespace()), None);
    call(cluster, user, "POST", &path, Some(object))
}

/// `PUT` of `object` to its own path, as `user`.
fn update(cluster: &mut Cluster, user: &str, object: &Object) -> Result<Arc<Object>, Status> {
    let path = object_path(object.kind(), object.namespace(), object.name());
    call(cluster, user, "PUT", &path, Some(object))
}

/// One whole run: warm-up, the schedule, healing, the final checks.
fn simulate(seed: u64, profile: ProfileName) -> Sim {
    let mut sim = Sim::new(seed, profile, Readers::InProcess);
    sim.run_for(30_000);
    for fault in schedule(seed) {
        sim.apply(&fault);
    }
    sim.heal();
    sim.check_converged();
    sim.check_daemon_set_on_every_node();
    sim.check_budget_counted();
    sim.check_ready_pods_in_exactly_one_slice();
    sim.check_proxy_rules_equal_the_slices();
    sim.check_ownership();
    sim.check_no_dangling_owners();
    sim.check_events_deduplicated();
    sim.check_caches_equal_the_ledger();
    sim.check_no_time_travel();
    sim.coverage.expired_relists = sim
        .observers
        .iter()
        .map(|(_, i)| i.informer().reflector_stats().expired)
        .sum();
    sim.coverage.writes = sim.tape.writes;
    sim.coverage.repeated_events += sim.tape.event_updates;
    for a in &sim.auditors {
        sim.coverage.audit.events += a.stats.events;
        sim.coverage.audit.bookmarks += a.stats.bookmarks;
        sim.coverage.audit.resumes += a.stats.resumes;
        sim.coverage.audit.relists += a.stats.relists;
    }
    sim
}

/// Every ledger line (revision, verb, resource, object, writer, time, and the JSON the write
/// left), then every stored object's JSON: what two runs of one seed, or a run and its replay,
/// must agree on byte for byte.
fn transcript(c: &Cluster) -> Vec<String> {
    let lines = c.api().ledger().iter().map(|e| {
        format!(
            "{} {} {} {}/{} {} {} {}",
            e.revision,
            e.verb,
            e.resource,
            e.namespace(),
            e.name(),
            e.user,
            e.time.as_millis(),
            e.after.as_ref().map(|o| o.to_json()).unwrap_or_default()
        )
    });
    let objects = Kind::ALL.iter().flat_map(|&kind| {
        c.api()
            .list(kind, None, &ListOptions::from_cache())
            .map(|l| l.items)
            .unwrap_or_default()
            .iter()
            .map(|o| o.to_json())
            .collect::<Vec<_>>()
    });
    lines.chain(objects).collect()
}

/// Where two transcripts part: the line, and 200 bytes either side of the first differing byte.
fn parting(a: &[String], b: &[String]) -> Option<String> {
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    let (x, y) = (
        a.get(i).map_or(&[][..], |l| l.as_bytes()),
        b.get(i).map_or(&[][..], |l| l.as_bytes()),
    );
    let at = (0..x.len().min(y.len()))
        .find(|&k| x[k] != y[k])
        .unwrap_or(x.len().min(y.len()));
    let around = |l: &[u8]| {
        String::from_utf8_lossy(&l[at.saturating_sub(200).min(l.len())..(at + 200).min(l.len())])
            .into_owned()
    };
    Some(format!(
        "line {i}, byte {at}:\n  {}\n  {}",
        around(x),
        around(y)
    ))
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.trim().parse().ok())
}

/// The seeds to run: `WATCHLAB_SIM_SEED` alone, else `WATCHLAB_SIM_SEEDS` of them (default
/// [`DEFAULT_SEEDS`]) from `WATCHLAB_SIM_FIRST_SEED` (default 0).
fn seeds() -> Vec<u64> {
    if let Some(seed) = env_u64("WATCHLAB_SIM_SEED") {
        return vec![seed];
    }
    let first = env_u64("WATCHLAB_SIM_FIRST_SEED").unwrap_or(0);
    let count = env_u64("WATCHLAB_SIM_SEEDS").unwrap_or(DEFAULT_SEEDS);
    (first..first.saturating_add(count)).collect()
}

/// Runs every seed (on as many threads as the machine has cores), each to its end even when
/// another fails; returns the summed coverage and the failures (seed, message).
fn run_seeds(seeds: &[u64], profile: ProfileName) -> (Coverage, Vec<(u64, String)>) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(seeds.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let total = Mutex::new(Coverage::default());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    match catch_unwind(AssertUnwindSafe(|| simulate(seed, profile).coverage)) {
                        Ok(c) => total.lock().unwrap_or_else(|e| e.into_inner()).add(c),
                        Err(panic) => {
                            let msg = panic
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            let first_line = msg.lines().next().unwrap_or_default().to_string();
                            failures
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push((seed, first_line));
                        }
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    failures.sort();
    (
        total.into_inner().unwrap_or_else(|e| e.into_inner()),
        failures,
    )
}

/// Panics with every failed seed and how to replay the first.
fn report(what: &str, ran: usize, failures: &[(u64, String)]) {
    if let Some((seed, _)) = failures.first() {
        let list: Vec<String> = failures
            .iter()
            .take(20)
            .map(|(s, m)| format!("  seed {s} (fault weights {}): {m}", Weights::of(*s)))
            .collect();
        panic!(
            "{what}: {} of {ran} seeds failed:\n{}\nreplay the first: WATCHLAB_SIM_SEED={seed} \
             cargo test -p watchlab-engine --test simulation",
            failures.len(),
            list.join("\n")
        );
    }
}

#[test]
fn faults_heal_into_a_converged_cluster_whose_caches_match_the_ledger() {
    let seeds = seeds();
    let started = std::time::Instant::now();
    let (total, failures) = run_seeds(&seeds, ProfileName::Training);
    eprintln!(
        "simulation: {} seeds from {}, {} failed, {:.1} s; {total:?}",
        seeds.len(),
        seeds.first().copied().unwrap_or(0),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    report("training timings", seeds.len(), &failures);
    if seeds.len() > 1 {
        // The seeds do exercise every fault the invariants are about.
        assert!(total.outage_slices > 0, "no quorum loss: {total:?}");
        assert!(
            total.eviction_checks > 0,
            "no node dead long enough: {total:?}"
        );
        assert!(total.conflicts > 0, "no conflicting write: {total:?}");
        assert!(total.create_conflicts > 0, "no create race: {total:?}");
        assert!(total.expired_relists > 0, "no expired watch: {total:?}");
        assert!(total.repeated_events > 0, "no repeated event: {total:?}");
        assert!(total.failed_scheduling > 0, "no pod ever waited: {total:?}");
        assert!(total.dropped_watches > 0, "no watch dropped: {total:?}");
        assert!(total.relabels > 0, "no pod relabelled: {total:?}");
        assert!(
            total.cache_checks > 0,
            "no watch cache compared with etcd: {total:?}"
        );
        assert!(total.restarts > 0, "no container restarted: {total:?}");
        assert!(total.terminal_pods > 0, "no pod completed: {total:?}");
        assert!(
            total.endpoint_checks > 0 && total.proxy_checks > 0,
            "no Service held to its slices, or no node's rules to them: {total:?}"
        );
        assert!(
            total.acks > 0 && total.writes > 0,
            "no write checked: {total:?}"
        );
        let a = total.audit;
        assert!(
            a.events > 0 && a.bookmarks > 0 && a.resumes > 0 && a.relists > 0,
            "the auditors saw no events, bookmarks, resumes or re-lists: {a:?}"
        );
    }
}

#[test]
fn the_real_timings_heal_too() {
    let seeds: Vec<u64> = seeds().into_iter().take(REAL_TIMING_SEEDS).collect();
    let (_, failures) = run_seeds(&seeds, ProfileName::Kubernetes);
    report("Kubernetes timings", seeds.len(), &failures);
}

#[test]
fn one_seed_one_history_even_under_faults() {
    let seed = seeds().first().copied().unwrap_or(0) + 1;
    let first = transcript(&simulate(seed, ProfileName::Training).cluster);
    let second = transcript(&simulate(seed, ProfileName::Training).cluster);
    assert!(first.len() > 500, "a real history: {} lines", first.len());
    if let Some(at) = parting(&first, &second) {
        panic!("seed {seed}: the runs part at {at}");
    }
    let other = transcript(&simulate(seed + 1, ProfileName::Training).cluster);
    assert_ne!(first, other, "another seed, another history");
}

/// A journaled run replays from its saved file to the same history: the journal records every
/// input made under faults (the writers' requests, the façade's actions at their instants,
/// the virtual time in between) faithfully enough to rebuild the cluster, revision for revision.
#[test]
fn a_faulted_run_saves_and_replays_to_the_same_history() {
    for seed in seeds().into_iter().take(JOURNALED_SEEDS) {
        let mut sim = Sim::new(seed, ProfileName::Training, Readers::Off);
        sim.run_for(30_000);
        for fault in schedule(seed) {
            sim.apply(&fault);
        }
        sim.heal();
        sim.check_converged();
        let saved = sim
            .cluster
            .export()
            .unwrap_or_else(|e| panic!("seed {seed}: the run cannot be saved: {e}"));
        let restored = Cluster::import(&saved)
            .unwrap_or_else(|e| panic!("seed {seed}: the saved run does not replay: {e}"));
        if let Some(at) = parting(&transcript(&sim.cluster), &transcript(&restored)) {
            panic!("seed {seed}: the run (first) and its replay part at {at}");
        }
    }
}

#[test]
fn a_schedule_is_a_function_of_its_seed() {
    let show = |s: u64| {
        schedule(s)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(show(9), show(9));
    assert_ne!(show(9), show(10));
    // Every kind of fault is drawn by some seed among the first hundred.
    let all: BTreeSet<String> = (0..100)
        .flat_map(schedule)
        .map(|f| {
            format!("{f:?}")
                .split(['(', ' '])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(all.len(), 26, "{all:?}");
}
