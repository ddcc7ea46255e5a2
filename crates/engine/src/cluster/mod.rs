//! The simulated cluster as one value that a test, a benchmark and the UI drive the same way:
//! `cluster.apply(action)`, `cluster.advance_to(t)` / `cluster.step()`, and read-only views.
//!
//! It owns the API server (and through it the ledger), the etcd membership, and the
//! controllers, and it owns virtual time: advancing runs every timer that is due, in time order,
//! so idle time costs nothing. It adds no semantics: an action is API requests made by a named
//! client, exactly as a person at a terminal would make them.
//!
//! Moving time can stop after any controller step ([`Cluster::advance_until`],
//! [`Cluster::settle_for`]): at a thousand nodes one instant's settle is seconds of work, which
//! a browser tab must get in slices. A stopped settle resumes where it stopped, and anything
//! that writes (an action, a session) first finishes it, so the history never depends on how
//! the work was sliced.

mod action;
mod census;
mod config;
pub mod journal;
mod manifests;
mod perform;
mod replay;
mod session;
mod views;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use watchlab_apimachinery::status::Status;

use crate::api::Object;
use crate::apiserver::{ApiServer, ServerConfig};
use crate::clock::{self, Timers, Timestamp};
use crate::controllers::{ControlPlane, Profile, Settling};
use crate::etcd::{EtcdCluster, MembershipEvent};
use crate::reconnect_comparison::{ComparisonView, ReconnectComparison};
use crate::store::Snapshot;
use census::Census;

pub use action::{Action, ConflictReport, DrainReport, Outcome, ResourceName};
pub use config::{
    ClusterConfig, ProfileName, MAX_CONTROLLER_REPLICAS, MAX_QUOTA_BYTES, PLAYGROUND_QUOTA_BYTES,
};
use journal::{Input, Journal};
pub use manifests::{deployment_manifest, object_path, pod_manifest};
pub use replay::{history_digest, ledger_fingerprint};
pub use session::ClusterSession;
pub use views::{
    node_view, pod_status, pod_view, ApiserverView, InformerView, NodeView, PodCensus, PodView,
    ReplicaRole, ReplicaView,
};

/// The user agent of the playground's buttons.
pub const PLAYGROUND_USER: &str = "watchlab-ui";

/// The user agent of the requests the Drain button makes: kubectl's, whose drain it is.
pub const KUBECTL_USER: &str = "kubectl";

#[derive(Debug)]
pub struct Cluster {
    config: ClusterConfig,
    api: ApiServer,
    control_plane: ControlPlane,
    killed_nodes: BTreeSet<String>,
    membership_log: Vec<(Timestamp, MembershipEvent)>,
    /// The earliest wake-up the controllers asked for when they last settled.
    controllers_wake: Option<Timestamp>,
    /// A settle at the current instant that stopped part-way (see [`Cluster::settle_for`]).
    settling: Option<Settling>,
    /// Every input since `new`, for save and restore.
    journal: Journal,
    /// The naive watcher and the resuming informer, once started.
    reconnect: Option<ReconnectComparison>,
    /// The cluster view's pod counts, folded forward at each read.
    census: RefCell<Census>,
    /// `etcdctl snapshot save` files, by path.
    etcd_snapshots: BTreeMap<String, Arc<Snapshot<Arc<Object>>>>,
}

impl std::fmt::Debug for ControlPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlPlane")
            .field("kubelets", &self.kubelets().len())
            .finish_non_exhaustive()
    }
}

impl Cluster {
    pub fn new(config: ClusterConfig) -> Cluster {
        let nodes: Vec<&str> = config.nodes.iter().map(String::as_str).collect();
        let profile = Profile {
            consistent_first_list: config.consistent_first_list,
            ..Profile::named(config.profile)
        };
        let replicas = config.controller_replicas.clamp(1, MAX_CONTROLLER_REPLICAS);
        let control_plane = ControlPlane::with_replicas(config.seed, &profile, &nodes, replicas);
        let server_config = ServerConfig {
            start: Timestamp::from_millis(config.start_ms),
            etcd_members: config.etcd_members,
            apiservers: config.apiservers as usize,
            ..ServerConfig::default()
        }
        .with_default_toleration_seconds(profile.default_toleration_seconds);
        let mut cluster = Cluster {
            api: ApiServer::with_config(config.seed, server_config),
            control_plane,
            killed_nodes: BTreeSet::new(),
            membership_log: Vec::new(),
            etcd_snapshots: BTreeMap::new(),
            controllers_wake: None,
            settling: None,
            journal: Journal::new(config.clone()),
            reconnect: None,
            census: RefCell::default(),
            config,
        };
        cluster
            .api
            .set_quota_bytes(cluster.config.quota_backend_bytes);
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
        self.finish_settle();
        ClusterSession::new(self.api.as_user(user), &mut self.journal)
    }

    /// The API server itself, for a client the journal cannot record: typed calls and
    /// in-process informers (the fault simulation drives the cluster this way). As with
    /// [`ClusterSession::server`], the journal stops here ([`journal::Refusal::Unrecorded`]):
    /// the session can no longer be saved.
    pub fn unrecorded_api(&mut self) -> &mut ApiServer {
        self.journal.refuse(journal::Refusal::Unrecorded);
        &mut self.api
    }

    /// The controllers, to read their state and their informers' caches.
    pub fn control_plane(&self) -> &ControlPlane {
        &self.control_plane
    }

    /// Every input so far: what [`Cluster::export`] saves.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    pub(crate) fn journal_mut(&mut self) -> &mut Journal {
        &mut self.journal
    }

    pub fn etcd(&self) -> &EtcdCluster {
        self.api.etcd()
    }

    /// Membership changes with the virtual time they happened at.
    /// A snapshot file `etcdctl snapshot save` wrote.
    pub fn etcd_snapshot(&self, path: &str) -> Option<&Snapshot<Arc<Object>>> {
        self.etcd_snapshots.get(path).map(|s| &**s)
    }

    pub fn membership_log(&self) -> &[(Timestamp, MembershipEvent)] {
        &self.membership_log
    }

    pub fn is_node_killed(&self, name: &str) -> bool {
        self.killed_nodes.contains(name)
    }

    pub fn apply(&mut self, action: Action) -> Result<Outcome, Status> {
        self.finish_settle();
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

    /// The earliest moment anything is scheduled: now, while a settle is unfinished.
    pub fn next_timer(&self) -> Option<Timestamp> {
        if self.settling.is_some() {
            return Some(self.now());
        }
        // A controller that asks for the current instant again runs one millisecond later, as
        // the harness does, so time always moves forward.
        let controllers = self
            .controllers_wake
            .map(|t| t.max(self.now().plus_millis(1)));
        [
            self.api.next_timer(),
            controllers,
            self.journal.reaction_due(),
            self.reconnect
                .as_ref()
                .and_then(ReconnectComparison::next_wakeup),
        ]
        .into_iter()
        .flatten()
        .filter(|t| *t > self.now())
        .min()
    }

    /// Runs every timer due by `t`, in time order, and leaves the clock at `t`.
    pub fn advance_to(&mut self, t: Timestamp) {
        self.advance_until(t, || false);
    }

    /// Moves virtual time ([`clock::advance_until`], the one loop): runs the timers due by `t`
    /// one at a time, in time order, asking `stop` after each (a browser frame's real-time
    /// budget). Returns
    /// whether it stopped early, with the clock at the last timer it ran; otherwise the clock
    /// is left at `t`. Stopping early loses nothing: the rest runs when time is next advanced.
    ///
    /// It also stops inside a timer's work, after any controller step for which `stop` says so
    /// (a settle at a thousand nodes is seconds); that settle resumes first when time is next
    /// advanced, [`Cluster::settle_for`] is called, or anything writes.
    pub fn advance_until(&mut self, t: Timestamp, mut stop: impl FnMut() -> bool) -> bool {
        if self.resume_settle(&mut stop) {
            return true;
        }
        clock::advance_until(self, t, &mut stop, &mut |_| false)
    }

    /// Goes on with an unfinished settle for at most `budget_steps` controller steps (at least
    /// one); returns whether work remains at this instant. Nothing else moves: the clock stays
    /// where it is.
    pub fn settle_for(&mut self, budget_steps: u64) -> bool {
        let mut left = budget_steps;
        self.resume_settle(&mut || {
            left = left.saturating_sub(1);
            left == 0
        })
    }

    /// A settle stopped part-way at the current instant is waiting to be finished.
    pub fn is_settling(&self) -> bool {
        self.settling.is_some()
    }

    /// Advances to `t` applying the scheduled actions due by then, each at its own virtual
    /// instant (not at the moment a driver noticed it), earliest first; they leave `schedule`
    /// as they are applied. Returns each applied action with its instant and answer.
    pub fn advance_applying(
        &mut self,
        t: Timestamp,
        schedule: &mut VecDeque<(Timestamp, Action)>,
    ) -> Vec<(Timestamp, Action, Result<Outcome, Status>)> {
        let mut applied = Vec::new();
        while schedule.front().is_some_and(|(at, _)| *at <= t) {
            let Some((at, action)) = schedule.pop_front() else {
                break;
            };
            if at > self.now() {
                self.advance_to(at);
            }
            let answer = self.apply(action.clone());
            applied.push((at, action, answer));
        }
        if t > self.now() {
            self.advance_to(t);
        }
        applied
    }

    /// Jumps to the next timer and runs it (or finishes an unfinished settle); `None` when
    /// nothing is scheduled.
    pub fn step(&mut self) -> Option<Timestamp> {
        if self.settling.is_some() {
            self.finish_settle();
            return Some(self.now());
        }
        let next = self.next_timer()?;
        self.run_until(next, &mut || false);
        Some(next)
    }

    /// Runs the timers due at `t` and settles the controllers; true if `stop` cut the settle
    /// short (it is then left in `settling`).
    fn run_until(&mut self, t: Timestamp, stop: &mut dyn FnMut() -> bool) -> bool {
        self.api.advance_to(t);
        self.record_membership();
        self.settling = Some(Settling::default());
        self.resume_settle(stop)
    }

    /// Steps every controller at the current instant until none writes (at the start, before
    /// the clock has run).
    fn settle(&mut self) {
        let now = self.api.now();
        let (wake, _steps) = self.control_plane.settle(now, &mut self.api);
        self.controllers_wake = wake;
    }

    /// Completes an unfinished settle, if any.
    fn finish_settle(&mut self) {
        self.resume_settle(&mut || false);
    }

    /// Goes on with the unfinished settle until it completes or `stop` says so; true if it
    /// stopped with work left. A completed settle's instant counts as run in the journal.
    fn resume_settle(&mut self, stop: &mut dyn FnMut() -> bool) -> bool {
        let Some(mut settling) = self.settling.take() else {
            return false;
        };
        let now = self.api.now();
        let Some((wake, _steps)) =
            self.control_plane
                .settle_until(now, &mut self.api, &mut settling, &mut *stop)
        else {
            self.settling = Some(settling);
            return true;
        };
        self.controllers_wake = wake;
        if let Some(c) = self.reconnect.as_mut() {
            c.step(now, &mut self.api);
        }
        self.journal.clock_ran(now, self.api.revision());
        false
    }

    /// The running reconnect comparison and the server it talks to.
    fn reconnecting(&mut self) -> Result<(&mut ReconnectComparison, &mut ApiServer), Status> {
        match self.reconnect.as_mut() {
            Some(c) => Ok((c, &mut self.api)),
            None => Err(Status::bad_request(
                "no reconnect comparison is running: start one first",
            )),
        }
    }

    /// The naive watcher and the resuming informer against etcd, once started.
    pub fn reconnect_comparison(&self) -> Option<ComparisonView> {
        self.reconnect.as_ref().map(|c| c.view(&self.api))
    }

    /// Moves the etcd members' changes into the timeline.
    fn record_membership(&mut self) {
        let events = self.api.take_membership_events();
        self.membership_log.extend(events);
    }
}

/// The cluster's clock is the API server's; an instant runs etcd's, the server's and the
/// controllers' work ([`Cluster::run_until`]).
impl Timers for Cluster {
    fn now(&self) -> Timestamp {
        self.api.now()
    }

    fn next_timer(&self) -> Option<Timestamp> {
        Cluster::next_timer(self)
    }

    fn run_instant(&mut self, t: Timestamp, stop: &mut dyn FnMut() -> bool) -> bool {
        self.run_until(t, stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Kind;

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
            (last.verb, last.name(), &*last.user),
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
            kind: Kind::Deployment.into(),
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
    fn scheduled_actions_land_at_their_own_instants() {
        let mut c = bare();
        let mut schedule = VecDeque::from([
            (
                Timestamp::from_millis(30_000),
                Action::KillNode("node-c".into()),
            ),
            (
                Timestamp::from_millis(40_000),
                Action::KillNode("node-x".into()),
            ),
            (
                Timestamp::from_millis(90_000),
                Action::RestoreNode("node-c".into()),
            ),
        ]);
        let applied = c.advance_applying(Timestamp::from_millis(60_000), &mut schedule);
        let when: Vec<(u64, bool)> = applied
            .iter()
            .map(|(at, _, answer)| (at.as_millis(), answer.is_ok()))
            .collect();
        assert_eq!(when, [(30_000, true), (40_000, false)], "node-x is a 404");
        assert!(c.is_node_killed("node-c"));
        assert_eq!(c.now(), Timestamp::from_millis(60_000));
        assert_eq!(schedule.len(), 1, "the restore is not due yet");
        let killed_at = c.journal().inputs.first().map(|e| e.at_ms);
        assert_eq!(killed_at, Some(30_000));
    }

    /// A cluster with a Deployment being rolled out, so that settles have work in them.
    fn rolling_out() -> Cluster {
        let mut c = bare();
        c.apply(Action::CreateDeployment {
            namespace: "default".into(),
            name: "web".into(),
            image: "nginx:1.27".into(),
            replicas: 6,
            labels: vec![("app".into(), "web".into())],
        })
        .unwrap();
        c
    }

    fn scale_to(replicas: u32) -> Action {
        Action::Scale {
            namespace: "default".into(),
            name: "web".into(),
            replicas,
        }
    }

    /// Drives `c` to `t` in frames of `frame_ms`, each stopping after `steps` controller steps
    /// (inside a settle too), some frames only going on with the settle (`settle_for`).
    fn sliced_to(c: &mut Cluster, t: Timestamp, frame_ms: u64, steps: u64) {
        let mut frame = 0u64;
        while c.now() < t || c.is_settling() {
            frame += 1;
            // At `t` itself only the unfinished settle goes on: advancing to `t` again would
            // run the instant `t` anew each frame, and with fewer steps a frame than a settle
            // takes, a new settle would start as soon as the last one ended.
            if (frame % 3 == 0 || c.now() >= t) && c.is_settling() {
                c.settle_for(steps);
                continue;
            }
            let to = c.now().plus_millis(frame_ms).min(t);
            let mut left = steps;
            c.advance_until(to, || {
                left = left.saturating_sub(1);
                left == 0
            });
        }
    }

    #[test]
    fn a_settle_stops_part_way_and_resumes_where_it_stopped() {
        let mut c = rolling_out();
        let t = c.now().plus_secs(2);
        let mut asked = 0;
        assert!(c.advance_until(t, || {
            asked += 1;
            asked == 3
        }));
        assert!(
            c.is_settling(),
            "stopped inside a settle, after three controller steps"
        );
        assert_eq!(c.next_timer(), Some(c.now()), "the rest of it is due now");
        let at = c.now();
        while c.settle_for(2) {
            assert_eq!(c.now(), at, "finishing a settle does not move the clock");
        }
        assert!(!c.is_settling());
        // A write finishes an unfinished settle first.
        c.advance_until(t, || true);
        assert!(c.is_settling());
        c.apply(scale_to(4)).unwrap();
        assert!(!c.is_settling());
    }

    #[test]
    fn a_burst_of_pods_to_bind_is_cut_between_pods() {
        // The ReplicaSet creates all six pods in one sync; the scheduler then has six to bind
        // in one step. Stopping after every step (a frame budget always spent), each piece
        // binds one pod, and the history is the uncut one.
        let mut sliced = rolling_out();
        let mut whole = rolling_out();
        let t = sliced.now().plus_secs(2);
        let bound = |c: &Cluster| c.pods().iter().filter(|p| p.node.is_some()).count();
        let mut seen = vec![bound(&sliced)];
        let mut note = |c: &Cluster| {
            if seen.last() != Some(&bound(c)) {
                seen.push(bound(c));
            }
        };
        while sliced.now() < t {
            sliced.advance_until(t, || true);
            note(&sliced);
        }
        while sliced.settle_for(1) {
            note(&sliced);
        }
        assert_eq!(seen, [0, 1, 2, 3, 4, 5, 6]);
        whole.advance_to(t);
        assert_eq!(history_digest(&sliced), history_digest(&whole));
    }

    #[test]
    fn a_burst_of_pods_to_create_is_cut_between_creates() {
        // The ReplicaSet controller creates the six pods of one sync in slow-start batches of
        // 1, 2 and 3. Stopping after every step, each piece makes one create, and the history
        // is the uncut one.
        let mut sliced = rolling_out();
        let mut whole = rolling_out();
        let t = sliced.now().plus_secs(2);
        let mut seen = vec![sliced.pods().len()];
        let mut note = |c: &Cluster| {
            if seen.last() != Some(&c.pods().len()) {
                seen.push(c.pods().len());
            }
        };
        let mut pieces_with_one_more = 0;
        while sliced.now() < t || sliced.is_settling() {
            let before = sliced.pods().len();
            if sliced.is_settling() {
                sliced.settle_for(1);
            } else {
                sliced.advance_until(t, || true);
            }
            pieces_with_one_more += usize::from(sliced.pods().len() == before + 1);
            note(&sliced);
        }
        assert_eq!(seen, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(pieces_with_one_more, 6, "one create per piece");
        whole.advance_to(t);
        assert_eq!(history_digest(&sliced), history_digest(&whole));
    }

    #[test]
    fn skipping_idle_controllers_changes_nothing() {
        // The ledger, and what no ledger shows: each kube-proxy's rules and last sync, the open
        // watch streams, and the
        // revision every informer cache reflects.
        let seen = |c: &Cluster, out: &mut Vec<String>| {
            out.extend(history_digest(c));
            for p in c.control_plane().kube_proxies() {
                out.push(format!(
                    "{} {:?} {:?}",
                    p.node_name(),
                    p.last_sync(),
                    p.rules()
                ));
            }
            for s in c.api().streams() {
                out.push(format!("{} {} {:?}", s.id(), s.user(), s.state()));
            }
            for controller in c.control_plane().all() {
                for i in controller.informers() {
                    let rv = i.informer().cache_resource_version();
                    out.push(format!("{} {:?} {rv}", controller.name(), i.kind()));
                }
            }
        };
        let run = |step_idle: bool| {
            let mut out = Vec::new();
            let mut c = rolling_out();
            c.control_plane.step_idle = step_idle;
            // A Service, so the kube-proxies (idle too when their watches are quiet) have
            // rules to sync, and later its removal.
            let service = crate::api::Object::from_value(
                Kind::Service,
                serde_json::json!({"metadata": {"name": "web", "namespace": "default"},
                    "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}),
            )
            .unwrap();
            c.unrecorded_api().create("kubectl", service).unwrap();
            let t = c.now().plus_secs(20);
            c.advance_to(t);
            seen(&c, &mut out);
            c.apply(Action::KillNode("node-b".into())).unwrap();
            // The killed node's kubelet and kube-proxy close their watches at once.
            let t = c.now().plus_millis(100);
            c.advance_to(t);
            seen(&c, &mut out);
            c.apply(scale_to(9)).unwrap();
            let t = c.now().plus_secs(90);
            c.advance_to(t);
            c.apply(Action::RestoreNode("node-b".into())).unwrap();
            c.apply(scale_to(3)).unwrap();
            let t = c.now().plus_secs(30);
            c.advance_to(t);
            seen(&c, &mut out);
            c.unrecorded_api()
                .delete(
                    "kubectl",
                    Kind::Service,
                    Some("default"),
                    "web",
                    &crate::apiserver::DeleteOptions::default(),
                )
                .unwrap();
            let t = c.now().plus_secs(60);
            c.advance_to(t);
            seen(&c, &mut out);
            // A kubelet's watch dropped from outside (its reader is idle), then past every
            // watch's timeout (client-go's 5–10 min): the streams end under idle readers.
            let kubelet = &c.control_plane().kubelets()[0];
            let kubelet_stream =
                crate::controllers::Controller::informers(kubelet)[0].watch_stream();
            c.apply(Action::DropWatch(kubelet_stream.unwrap())).unwrap();
            c.apply(scale_to(5)).unwrap();
            let t = c.now().plus_secs(700);
            c.advance_to(t);
            seen(&c, &mut out);
            out
        };
        assert_eq!(run(false), run(true));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// However the work is sliced — frames of any length, stopping after any number of
        /// controller steps, inside a settle or between timers — the history is the one an
        /// unsliced run writes, and it replays from its journal.
        #[test]
        fn slicing_the_work_differently_gives_the_identical_ledger(
            frame_ms in 1u64..3_000,
            steps in 1u64..40,
        ) {
            let mut whole = rolling_out();
            let mut sliced = rolling_out();
            let scale_at = whole.now().plus_secs(7);
            let end = whole.now().plus_secs(20);
            whole.advance_to(scale_at);
            sliced_to(&mut sliced, scale_at, frame_ms, steps);
            whole.apply(scale_to(2)).unwrap();
            sliced.apply(scale_to(2)).unwrap();
            whole.advance_to(end);
            sliced_to(&mut sliced, end, frame_ms, steps);
            proptest::prop_assert_eq!(history_digest(&sliced), history_digest(&whole));
            let restored = Cluster::import(&sliced.export().unwrap()).unwrap();
            proptest::prop_assert_eq!(history_digest(&restored), history_digest(&whole));
        }
    }

    #[test]
    fn advancing_can_stop_after_any_timer_and_resume() {
        let mut a = Cluster::with_seed(3);
        let mut b = Cluster::with_seed(3);
        let mut timers = 0;
        let stopped = a.advance_until(Timestamp::from_millis(20_000), || {
            timers += 1;
            timers == 2
        });
        assert!(stopped);
        assert!(a.now() < Timestamp::from_millis(20_000));
        a.advance_to(Timestamp::from_millis(20_000));
        b.advance_to(Timestamp::from_millis(20_000));
        assert_eq!(history_digest(&a), history_digest(&b));
    }
}
