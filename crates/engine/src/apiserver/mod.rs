//! The API server: the only holder of the store. Every write goes through it (validated,
//! defaulted, compare-and-swapped on the object's revision), lands in the ledger at the next
//! revision, and is broadcast to the watch streams before the call returns. Two faces: a typed
//! one for in-process informers and controllers (`get`, `list`, `create`, `watch` + `poll`...,
//! no JSON per event), and the HTTP-shaped [`ApiClient`] one for kubectl and the UI ([`http`]).

pub mod admission;
pub mod apply;
pub mod authorization;
pub mod cacher;
pub mod compaction;
pub mod conflicts;
pub mod continue_token;
pub mod crd;
pub mod discovery;
pub mod http;
pub mod instance;
pub mod json_len;
pub mod kubernetes_service;
pub mod lease_manager;
pub mod ledger;
pub mod limits;
pub mod metrics;
pub mod openapi;
pub mod patch;
pub mod pod_log;
pub mod record;
pub mod request_context;
pub mod strategic_merge;
pub mod table;
pub mod time_travel;
pub mod version;
pub mod watch;

mod binding;
mod conversion;
mod create;
mod delete;
mod ephemeral_containers;
mod errors;
mod etcd_api;
mod etcd_client;
mod eviction;
mod field_manager;
mod field_validation;
mod read;
mod scale;
pub mod service_allocation;
mod update;
mod watch_start;

pub use delete::{
    gc_finalizers, DeleteOptions, DeleteOutcome, Preconditions, FINALIZER_FOREGROUND,
    FINALIZER_ORPHAN,
};
pub use etcd_api::{
    alarm_text, EtcdCompare, EtcdCompareOp, EtcdCompareTarget, EtcdLease, EtcdOpAnswer, EtcdRange,
    EtcdRangeAnswer, EtcdRequestOp, EtcdStatus, EtcdTxnAnswer, EtcdWatch, EtcdWatchAnswer,
    EtcdWatchEvent, EtcdWritten,
};
pub use etcd_client::EtcdFault;
pub use http::UserSession;
pub use ledger::{Ledger, LedgerEntry};
pub use read::ObjectList;
pub use request_context::RequestContext;
pub use watch::{WatchConfig, WatchEvent, WatchEventType, WatchStream};

use crate::api::managed_fields::ManagedFields;
use crate::api::namespace::Namespace;
use crate::api::pod::{ContainerStatuses, PodConditions};
use crate::api::resource::ResourceInfo;
use crate::api::shared::Interner;
use crate::api::storage::{
    StorageClass, IS_DEFAULT_CLASS, LOCAL_PATH_PROVISIONER, STANDARD_STORAGE_CLASS,
    WAIT_FOR_FIRST_CONSUMER,
};
use crate::api::{Kind, Object, ObjectMeta, Registry};
use crate::clock::Timestamp;
use crate::etcd::{EtcdCluster, MembershipEvent};
use crate::rng::SimRng;
use crate::store::{
    Compare, CompareOp, CompareTarget, EventType, LeaseId, Op, Revision, Store, Txn,
};
use compaction::Compactor;
use lease_manager::LeaseManager;
use std::collections::BTreeMap;
use std::sync::Arc;
use watch::{Change, WatchHub};
use watchlab_apimachinery::client::WatchId;
use watchlab_apimachinery::status::Status;

/// The user agent requests carry when none is given.
pub const DEFAULT_USER: &str = "kubectl";
/// The identity of the server's own writes (lease-expired events).
pub const SERVER_USER: &str = "kube-apiserver";
/// The namespaces every cluster starts with.
pub const SYSTEM_NAMESPACES: [&str; 4] =
    ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Server tunables; the defaults are the real kube-apiserver's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub watch: WatchConfig,
    /// `--etcd-compaction-interval` (5m); 0 disables.
    pub compaction_interval_ms: u64,
    /// `--min-request-timeout` (1800 s): watches without timeoutSeconds last [this, 2×this).
    pub min_request_timeout_secs: u64,
    /// `--event-ttl` (1h): Events are written with an etcd lease at least this long (shared
    /// by the Events of a minute: [`lease_manager`]).
    pub event_ttl_ms: u64,
    /// Ledger lines kept for the UI.
    pub ledger_limit: usize,
    /// `--default-not-ready-toleration-seconds` (300), DefaultTolerationSeconds admission.
    pub default_not_ready_toleration_seconds: i64,
    /// `--default-unreachable-toleration-seconds` (300), DefaultTolerationSeconds admission.
    pub default_unreachable_toleration_seconds: i64,
    /// The virtual time the server starts at (zero for the playground; a server on a socket
    /// starts at its wall-clock start so clients' own clocks agree with it).
    pub start: Timestamp,
    /// How many etcd members hold the store (1, 3 or 5; another number gets 3).
    pub etcd_members: usize,
    /// How many kube-apiserver instances serve it (1 to [`instance::MAX_INSTANCES`]).
    pub apiservers: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            watch: WatchConfig::default(),
            compaction_interval_ms: compaction::DEFAULT_COMPACTION_INTERVAL_MS,
            min_request_timeout_secs: 1800,
            event_ttl_ms: 60 * 60 * 1000,
            ledger_limit: ledger::DEFAULT_LEDGER_LIMIT,
            default_not_ready_toleration_seconds: admission::DEFAULT_TOLERATION_SECONDS,
            default_unreachable_toleration_seconds: admission::DEFAULT_TOLERATION_SECONDS,
            start: Timestamp::ZERO,
            etcd_members: 3,
            apiservers: 1,
        }
    }
}

impl ServerConfig {
    /// Both DefaultTolerationSeconds flags set to `seconds` (a profile's pod eviction delay).
    pub fn with_default_toleration_seconds(self, seconds: i64) -> Self {
        ServerConfig {
            default_not_ready_toleration_seconds: seconds,
            default_unreachable_toleration_seconds: seconds,
            ..self
        }
    }
}

/// The API server.
#[derive(Debug)]
pub struct ApiServer {
    store: Store<Arc<Object>>,
    /// The members replicating every write before the store applies it ([`etcd_client`]).
    etcd: EtcdCluster,
    /// Membership changes not yet handed to the cluster's timeline.
    membership_events: Vec<(Timestamp, MembershipEvent)>,
    /// The served resources (routing and discovery read it).
    registry: Registry,
    /// Custom resource descriptions allocated so far, by their definition's spec JSON.
    custom_kinds: Vec<(String, Kind)>,
    now: Timestamp,
    rng: SimRng,
    watch: WatchHub,
    /// The kube-apiserver instances, each with its watch caches, one per served resource
    /// ([`cacher`], [`instance`]): every client watch and every list a cache may answer is
    /// served from the caches of the instance its request was routed to.
    instances: Vec<instance::Instance>,
    /// The instance the requests served now are routed to.
    route: usize,
    /// Which instance each client is connected to.
    balancer: instance::LoadBalancer,
    ledger: Ledger,
    /// Writers' and field managers' names, one string each for all the ledger lines and
    /// pending `managedFields` updates that name them (a kubelet's status writes and events,
    /// a ReplicaSet's burst of creates).
    names: Interner<Arc<str>>,
    /// One list of each set of equal pod conditions written ([`Interner`]), and of container
    /// statuses.
    pod_conditions: Interner<PodConditions>,
    container_statuses: Interner<ContainerStatuses>,
    config: ServerConfig,
    /// Admission's DefaultTolerationSeconds, with the seconds of `config`.
    default_tolerations: admission::DefaultTolerationSeconds,
    compactor: Compactor,
    /// Grants and reuses the leases Events are written with.
    leases: LeaseManager,
    /// The writes refused with 409 Conflict ([`conflicts`]).
    conflicts: conflicts::Conflicts,
    /// The informers' lists that went back in time ([`time_travel`]).
    time_travels: time_travel::TimeTravels,
    /// The warnings of the last answer [`ApiServer::handle`] gave (the server as its own
    /// [`ApiClient`]), kept for [`ApiServer::take_warnings`] as a response keeps its headers.
    /// Only that face writes and reads it: a request gathers its warnings in its
    /// [`RequestContext`], and no write path sees this.
    ///
    /// [`ApiClient`]: watchlab_apimachinery::client::ApiClient
    client_warnings: Vec<String>,
    /// The watch streams whose events are printed as Tables (opened with a Table Accept).
    table_watches: BTreeMap<WatchId, (&'static ResourceInfo, table::IncludeObject)>,
    /// The watch streams of a version served over another's storage (`events.k8s.io/v1`),
    /// whose lines are converted ([`conversion`]).
    converted_watches: std::collections::BTreeSet<WatchId>,
    /// The seed of the made-up resource metrics ([`metrics`]), a child of the cluster's.
    metrics_seed: u64,
    /// Nodes whose kubelet does not answer metrics-server's scrapes (killed machines): a
    /// handful of names, set by the cluster ([`ApiServer::set_node_scrapable`]).
    unscrapable_nodes: std::collections::BTreeSet<String>,
}

/// What a committed write does to its key.
enum Write {
    Put {
        obj: Box<Object>,
        lease: Option<LeaseId>,
    },
    Delete,
}

impl ApiServer {
    /// A fresh cluster with the system namespaces, randomness from `seed`.
    pub fn new(seed: u64) -> Self {
        ApiServer::with_config(seed, ServerConfig::default())
    }

    pub fn with_config(seed: u64, config: ServerConfig) -> Self {
        let mut s = ApiServer {
            store: Store::new(),
            etcd: EtcdCluster::new_or_three(config.etcd_members, seed),
            membership_events: Vec::new(),
            registry: Registry::default(),
            custom_kinds: Vec::new(),
            now: config.start,
            rng: SimRng::child(seed, "kube-apiserver"),
            watch: WatchHub::new(config.watch),
            instances: (0..config.apiservers.clamp(1, instance::MAX_INSTANCES))
                .map(instance::Instance::new)
                .collect(),
            route: 0,
            balancer: instance::LoadBalancer::default(),
            ledger: Ledger::new(config.ledger_limit),
            names: Interner::default(),
            pod_conditions: Interner::default(),
            container_statuses: Interner::default(),
            compactor: Compactor::new(config.compaction_interval_ms, config.start),
            leases: LeaseManager::default(),
            conflicts: conflicts::Conflicts::default(),
            time_travels: time_travel::TimeTravels::default(),
            default_tolerations: admission::DefaultTolerationSeconds::new(
                config.default_not_ready_toleration_seconds,
                config.default_unreachable_toleration_seconds,
            ),
            config,
            client_warnings: Vec::new(),
            table_watches: BTreeMap::new(),
            converted_watches: std::collections::BTreeSet::new(),
            metrics_seed: SimRng::child(seed, "metrics-server").next_u64(),
            unscrapable_nodes: std::collections::BTreeSet::new(),
        };
        s.etcd.start_clock(s.config.start);
        for kind in s.registry.kinds().to_vec() {
            s.start_cacher(kind);
        }
        for ns in SYSTEM_NAMESPACES {
            let obj = Object::Namespace(Namespace {
                metadata: ObjectMeta::named("", ns),
                ..Default::default()
            });
            // Cannot fail on a fresh store; a failure would only leave the namespace out.
            let _ = s.create(SERVER_USER, obj);
        }
        // The `default/kubernetes` Service and its endpoints (the bootstrap controller's and
        // the endpoint reconciler's); as above, cannot fail.
        for obj in kubernetes_service::objects() {
            let _ = s.create(SERVER_USER, obj);
        }
        // kind's default StorageClass (what its local-path provisioner serves); as above.
        let _ = s.create(SERVER_USER, standard_storage_class());
        s
    }

    /// The warnings the last request made through [`ApiServer::handle`] (the server as its own
    /// [`ApiClient`]) earned (each becomes a `Warning: 299 - "…"` header; kubectl prints
    /// `Warning: …`), handed over once.
    ///
    /// [`ApiClient`]: watchlab_apimachinery::client::ApiClient
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.client_warnings)
    }

    /// The field manager the writes of the request `ctx` are recorded for (its `fieldManager`,
    /// else its user agent's: [`RequestContext::manager`]), shared with the other writes by the
    /// same manager (one allocation of `kubelet` for its status writes, not one per version).
    fn manager_for(&mut self, ctx: &RequestContext<'_>) -> Arc<str> {
        let manager = ctx.manager();
        self.names.text(&manager)
    }

    /// The resources this server serves.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The current virtual time.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Sets the virtual time without running timers (time never goes back).
    pub fn set_now(&mut self, now: Timestamp) {
        self.now = self.now.max(now);
        // The members' ticks and messages due by now run first, so what a request meets does
        // not depend on when the clock was last read.
        self.advance_etcd();
    }

    /// Moves time to `now` and runs what is due: stream timeouts, bookmarks, compaction, lease
    /// (Event TTL) expiry.
    pub fn advance_to(&mut self, now: Timestamp) {
        self.set_now(now);
        self.advance_etcd();
        // The leader revokes an expired lease through the log (etcd's lessor proposes a
        // LeaseRevoke); without a majority the lease outlives its TTL until one returns.
        if self
            .store
            .next_lease_expiry()
            .is_some_and(|at| at <= self.now)
        {
            if let Ok(committed) = self.replicate(|| "LeaseRevoke (expired)".to_string()) {
                let before = self.store.revision();
                let _expired = self.store.expire_leases(self.now);
                self.applied(committed);
                self.publish_range(before, SERVER_USER, "expire");
            }
        }
        if let Some(target) = self.compactor.due(self.now, self.store.revision()) {
            if target > self.store.compact_revision() {
                // The API server's compaction is a Compact request, itself a log entry.
                if let Ok(committed) = self.replicate(|| format!("Compact {target}")) {
                    let _ = self.store.compact(target);
                    self.applied(committed);
                }
            }
        }
        self.run_cachers();
        let instances = &self.instances;
        self.watch.tick(self.now, |i, kind| {
            instances
                .get(i)
                .and_then(|s| s.cachers.get(&kind))
                .map_or(0, |c| c.revision())
        });
    }

    /// The earliest time something is scheduled (stream deadline, bookmark, compaction, lease
    /// expiry), so a driver can jump straight to it.
    pub fn next_timer(&self) -> Option<Timestamp> {
        [
            self.watch.next_timer(),
            self.compactor.next_tick(),
            // An expired lease waits for a leader that can revoke it (the members' own timer
            // wakes the server meanwhile).
            self.store
                .next_lease_expiry()
                .filter(|at| *at > self.now || self.etcd.can_commit()),
            self.etcd.next_timer(),
            self.cachers_next_timer(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Compacts the store to the current revision right away.
    pub fn compact_now(&mut self) -> Result<Revision, Status> {
        let rev = self.store.revision();
        if rev > self.store.compact_revision() {
            self.compact_to(rev)?;
        }
        Ok(rev)
    }

    /// Compacts the store to `rev` through the log (a Compact request is an entry too).
    fn compact_to(&mut self, rev: Revision) -> Result<(), Status> {
        let committed = self
            .replicate(|| format!("Compact {rev}"))
            .map_err(|e| errors::unknown(e.text()))?;
        let done = self.store.compact(rev);
        self.applied(committed);
        done.map_err(|e| Status::internal_error(&e.to_string()))
    }

    /// The store's current revision (the cluster's resourceVersion).
    pub fn revision(&self) -> Revision {
        self.store.revision()
    }

    /// Read-only access to the ledger store (the UI shows its history and sizes).
    pub fn store(&self) -> &Store<Arc<Object>> {
        &self.store
    }

    /// The writes refused for a stale resourceVersion.
    pub fn conflicts(&self) -> &conflicts::Conflicts {
        &self.conflicts
    }

    /// The informers' lists that went back in time.
    pub fn time_travels(&self) -> &time_travel::TimeTravels {
        &self.time_travels
    }

    /// An informer of `user` received a watch event or bookmark of `kind` at `rv`.
    pub fn note_informer_reached(&mut self, user: &str, kind: Kind, rv: Revision) {
        let user = self.names.text(user);
        self.time_travels.reached(&user, kind, rv);
    }

    /// An informer of `user` listed `items` of `kind` at `rv` from the instance requests are
    /// routed to (`first`: its first list, as a fresh process makes): the flag if that went
    /// back in time.
    pub fn note_informer_listed(
        &mut self,
        user: &str,
        kind: Kind,
        rv: Revision,
        items: &[Arc<Object>],
        first: bool,
    ) -> Option<time_travel::TimeTravel> {
        let user = self.names.text(user);
        if !first {
            self.time_travels.reached(&user, kind, rv);
            return None;
        }
        let apiserver = self.routed().name.clone();
        self.time_travels
            .listed(self.now, &user, kind, rv, items, &apiserver, &self.store)
    }

    /// Records a write refused for a stale resourceVersion.
    fn note_conflict(&mut self, user: &str, verb: &'static str, key: &str) {
        let user = self.names.text(user);
        self.conflicts.push(conflicts::Conflict {
            time: self.now,
            user,
            verb,
            key: key.to_string(),
        });
    }

    /// The instance requests are routed to now.
    fn routed(&self) -> &instance::Instance {
        // `route` is always an index of `instances`, which is never empty.
        &self.instances[self.route.min(self.instances.len() - 1)]
    }

    /// The kube-apiserver instances.
    pub fn instances(&self) -> &[instance::Instance] {
        &self.instances
    }

    /// Routes the requests that follow to the instance `client` (a user agent) is connected
    /// to through the load balancer ([`instance::LoadBalancer`]): a client keeps its instance
    /// until that one stops. With one instance, nothing to choose.
    pub fn connect(&mut self, client: &str) {
        if self.instances.len() > 1 {
            self.route = self.balancer.connect(client, &self.instances);
        }
    }

    /// `client`'s process exited: its connection to its instance closes.
    pub fn disconnect(&mut self, client: &str) {
        self.balancer.close(client);
    }

    /// The clients connected to instance `i` (by user agent), in name order.
    pub fn clients_of(&self, i: usize) -> Vec<String> {
        self.balancer.clients_of(i).map(str::to_string).collect()
    }

    /// Cuts, stops or restores the instance called `name`: a cut one's caches stop hearing
    /// etcd and advancing while it keeps serving them; a stopped one's watches end and its clients move to
    /// another; a restored one's caches catch up (cut) or list afresh (stopped).
    pub fn set_instance_health(
        &mut self,
        name: &str,
        health: instance::Health,
    ) -> Result<(), Status> {
        let Some(i) = self.instances.iter().position(|s| s.name == name) else {
            let names: Vec<&str> = self.instances.iter().map(|s| s.name.as_str()).collect();
            return Err(Status::bad_request(&format!(
                "no API server named {name:?}: the control plane runs {}",
                names.join(", ")
            )));
        };
        let before = self.instances[i].health;
        let others_up = self
            .instances
            .iter()
            .enumerate()
            .any(|(k, s)| k != i && s.health != instance::Health::Stopped);
        if health == instance::Health::Stopped && !others_up {
            // Nothing would answer the cluster's clients: the page and the console need one.
            return Err(Status::bad_request(&format!(
                "cannot stop {name}: it is the only API server left running"
            )));
        }
        self.instances[i].health = health;
        match (before, health) {
            (instance::Health::Serving, instance::Health::Cut) => {
                for c in self.instances[i].cachers.values_mut() {
                    let through = c.through();
                    c.set_synced(false, through);
                }
            }
            (_, instance::Health::Stopped) if before != health => {
                self.balancer.disconnect(i);
                self.watch.end_kind(Some(i), None);
            }
            (instance::Health::Stopped, instance::Health::Serving) => {
                self.start_instance(i);
            }
            _ => {}
        }
        Ok(())
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The open watch streams, for the UI.
    pub fn streams(&self) -> impl Iterator<Item = &WatchStream> {
        self.watch.streams()
    }

    pub fn stream(&self, id: WatchId) -> Option<&WatchStream> {
        self.watch.stream(id)
    }

    /// Whether polling the stream would hand its reader anything: queued events, or its end
    /// (an unknown stream counts too). A reader may skip a poll that would not.
    pub fn stream_has_news(&self, id: WatchId) -> bool {
        self.watch
            .stream(id)
            .is_none_or(|s| s.pending() > 0 || s.state() != watch::StreamState::Open)
    }

    /// The streams that got news since their reader last polled them (queued events, their
    /// end), each handed over once: a driver steps the readers of these and no others.
    pub fn take_ready_streams(&mut self) -> std::collections::BTreeSet<WatchId> {
        self.watch.take_ready()
    }

    /// The events queued on a stream since the last poll; `None` once it has ended.
    pub fn poll(&mut self, id: WatchId) -> Option<Vec<Arc<WatchEvent>>> {
        self.watch.poll(id)
    }

    pub fn stop_watch(&mut self, id: WatchId) {
        self.table_watches.remove(&id);
        self.converted_watches.remove(&id);
        self.watch.stop(id);
    }

    /// Sets the live-event bound per stream between polls (see [`WatchConfig::buffer_limit`]).
    pub fn set_watch_buffer_limit(&mut self, limit: usize) {
        self.watch.set_buffer_limit(limit);
    }

    /// Sets etcd's `--quota-backend-bytes` (default [`crate::store::DEFAULT_QUOTA_BYTES`];
    /// `u64::MAX` turns the quota off).
    pub fn set_quota_bytes(&mut self, bytes: u64) {
        self.store.set_quota_bytes(bytes);
    }

    /// The watch hub's count of (change, stream) offers, for cost meters.
    pub fn watch_offers(&self) -> u64 {
        self.watch.offered()
    }

    /// Writes one key with a compare on its mod revision (`expected_mod` 0 = must not exist),
    /// records the revision in the ledger and broadcasts it. Returns the stored object (or
    /// the tombstone for a delete).
    fn commit(
        &mut self,
        user: &str,
        verb: &'static str,
        resource: &str,
        key: String,
        expected_mod: Revision,
        write: Write,
    ) -> Result<Arc<Object>, CommitError> {
        let next = self.store.revision() + 1;
        let (op, stored) = match write {
            Write::Put { mut obj, lease } => {
                obj.meta_mut().resource_version = next.to_string();
                if let Object::Pod(pod) = &mut *obj {
                    self.pod_conditions.share(&mut pod.status.conditions);
                    self.container_statuses
                        .share(&mut pod.status.container_statuses);
                }
                let obj = Arc::new(*obj);
                ManagedFields::mark_stored(&obj);
                (
                    Op::Put {
                        key: key.clone(),
                        value: obj.clone(),
                        lease,
                    },
                    Some(obj),
                )
            }
            Write::Delete => (Op::Delete { key: key.clone() }, None),
        };
        let mut txn = Txn {
            compare: vec![Compare {
                key,
                target: CompareTarget::ModRevision,
                op: CompareOp::Equal,
                value: expected_mod,
            }],
            success: vec![op],
            failure: vec![],
        };
        // The compare is decided before the proposal: nothing else writes between now and the
        // apply below, and a txn whose compare fails changes nothing (etcd would still log it).
        let current_mod = self
            .store
            .get(&txn.compare[0].key)
            .map_or(0, |kv| kv.mod_revision);
        if current_mod != expected_mod {
            return Err(CommitError::Conflict(std::mem::take(
                &mut txn.compare[0].key,
            )));
        }
        self.check_space_alarm(&txn.success)
            .map_err(|e| CommitError::Store(e.to_string()))?;
        let committed = self
            .replicate(|| format!("{verb} {}", txn.compare[0].key))
            .map_err(|e| CommitError::Store(e.text().to_string()))?;
        let resp = self.store.txn(txn);
        self.applied(committed);
        let resp = resp
            .inspect_err(|e| self.note_space_refusal(e))
            .map_err(|e| CommitError::Store(e.to_string()))?;
        if !resp.succeeded {
            // Not reached: the compare was decided above, and nothing wrote since.
            return Err(CommitError::Conflict(String::new()));
        }
        let before = resp.revision.saturating_sub(1);
        let tombstone = self.publish_range_as(before, user, verb, Some(resource));
        stored
            .or(tombstone)
            .ok_or(CommitError::Conflict(String::new()))
    }

    /// Ledger + broadcast for every revision after `before` (server-initiated writes).
    fn publish_range(&mut self, before: Revision, user: &str, verb: &'static str) {
        let _ = self.publish_range_as(before, user, verb, None);
    }

    /// Turns the store events of each revision after `before` into watch changes, logs them and
    /// dispatches them, one revision at a time. Returns the last tombstone built (for deletes).
    fn publish_range_as(
        &mut self,
        before: Revision,
        user: &str,
        verb: &'static str,
        resource: Option<&str>,
    ) -> Option<Arc<Object>> {
        let user = self.names.text(user);
        let resource = resource.map(|r| self.names.text(r));
        let mut last_tombstone = None;
        for rev in before + 1..=self.store.revision() {
            let changes: Vec<Change> = self
                .store
                .events_at(rev)
                .iter()
                .map(|e| change_of(&self.store, e))
                .collect();
            for c in &changes {
                let Some(obj) = c.object_for() else { continue };
                let r = obj.kind().resource();
                self.ledger.push(LedgerEntry {
                    revision: rev,
                    verb,
                    resource: match &resource {
                        Some(named) => named.clone(),
                        None => self.names.text(r.plural),
                    },
                    user: user.clone(),
                    time: self.now,
                    before: c.prev.clone(),
                    after: c.cur.clone(),
                });
                if c.tombstone.is_some() {
                    last_tombstone.clone_from(&c.tombstone);
                }
            }
            self.feed_cachers(rev, &changes);
        }
        last_tombstone
    }

    /// Looks up the stored object at `key`.
    fn current(&self, key: &str) -> Option<(Arc<Object>, Revision)> {
        self.store
            .get(key)
            .map(|kv| (kv.value.clone(), kv.mod_revision))
    }
}

/// The StorageClass every cluster starts with, as kind installs it: `standard`, the default
/// class, provisioned by `rancher.io/local-path`, reclaimed by deletion, bound once a pod using
/// the claim is scheduled (`WaitForFirstConsumer`).
fn standard_storage_class() -> Object {
    let mut class = StorageClass {
        metadata: ObjectMeta::named("", STANDARD_STORAGE_CLASS),
        provisioner: LOCAL_PATH_PROVISIONER.into(),
        reclaim_policy: Some("Delete".into()),
        volume_binding_mode: Some(WAIT_FOR_FIRST_CONSUMER.into()),
        ..Default::default()
    };
    class
        .metadata
        .annotations
        .insert(IS_DEFAULT_CLASS.into(), "true".into());
    Object::StorageClass(Box::new(class))
}

/// Why a commit did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CommitError {
    /// The compare failed (someone wrote the key in between); the key.
    Conflict(String),
    Store(String),
}

/// One store event as the watch sees it.
pub(crate) fn change_of(
    store: &Store<Arc<Object>>,
    e: &crate::store::Event<Arc<Object>>,
) -> Change {
    let prev = store.prev_kv(e).map(|kv| kv.value.clone());
    match e.kind {
        EventType::Put => Change {
            kind: e.kv.value.kind(),
            key: e.kv.key.clone(),
            revision: e.kv.mod_revision,
            prev,
            cur: Some(e.kv.value.clone()),
            tombstone: None,
        },
        EventType::Delete => {
            let mut last = (*e.kv.value).clone();
            last.meta_mut().resource_version = e.kv.mod_revision.to_string();
            Change {
                kind: last.kind(),
                key: e.kv.key.clone(),
                revision: e.kv.mod_revision,
                prev: prev.or_else(|| Some(e.kv.value.clone())),
                cur: None,
                tombstone: Some(Arc::new(last)),
            }
        }
    }
}
