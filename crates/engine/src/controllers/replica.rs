//! The leader-elected components of the control plane — kube-scheduler and
//! kube-controller-manager — and one replica's elector as a controller of the step order.
//!
//! A production cluster runs two or three replicas of each, of which the one holding the Lease
//! `kube-system/<component>` runs its controllers ([`super::leader_election`]); the others wait,
//! trying the Lease every retry period. A replica is a process: it has its own clock, which
//! stands still while the replica is *paused* (a frozen VM, a stop-the-world pause: the
//! failure HA brings, a leader that comes back still believing it leads), and it exits when it
//! stops leading, to be started again with a new identity, as the real binaries exit
//! (`klog.Fatalf("leaderelection lost")`) and their static pod restarts.
//!
//! The [`ReplicaElector`] steps the elector on the replica's own clock and reports what changed;
//! the [`super::ControlPlane`] runs or parks the replica's controllers accordingly.

use std::sync::Arc;

use super::events::EventRecorder;
use super::leader_election::{LeaderElector, Transition};
use super::profile::Profile;
use super::Controller;
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;
use crate::rng::SimRng;

/// A leader-elected component of the control plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    KubeScheduler,
    KubeControllerManager,
}

impl Component {
    /// In step order: the scheduler before the controller manager, as the one list had them.
    pub const ALL: [Component; 2] = [Component::KubeScheduler, Component::KubeControllerManager];

    /// The binary's name: its Lease's name, its replicas' name prefix, its Events' source.
    pub fn name(self) -> &'static str {
        match self {
            Component::KubeScheduler => "kube-scheduler",
            Component::KubeControllerManager => "kube-controller-manager",
        }
    }

    /// The controllers one replica runs while it leads, in step order; kube-controller-manager's
    /// share one informer per kind ([`super::SharedInformers`]), as one process's do.
    pub fn controllers(self, seed: u64, profile: &Profile) -> Vec<Box<dyn Controller>> {
        use super::*;
        match self {
            Component::KubeScheduler => vec![Box::new(Runner::new(Scheduler::new(seed, profile)))],
            Component::KubeControllerManager => {
                let informers = SharedInformers::new(seed, profile);
                vec![
                    Box::new(NodeLifecycleController::new(profile, &informers)),
                    Box::new(Runner::new(ReplicaSetController::new(&informers))),
                    Box::new(Runner::new(DeploymentController::new(&informers))),
                    Box::new(Runner::new(EndpointSliceController::new(&informers))),
                    Box::new(Runner::new(EndpointsController::new(&informers))),
                    Box::new(Runner::new(NamespaceController::new(&informers))),
                    Box::new(Runner::new(disruption::DisruptionController::new(
                        &informers,
                    ))),
                    Box::new(Runner::new(job::JobController::new(&informers))),
                    Box::new(Runner::new(
                        ttl_after_finished::TtlAfterFinishedController::new(&informers),
                    )),
                    Box::new(Runner::new(cronjob::CronJobController::new(&informers))),
                    Box::new(Runner::new(daemonset::DaemonSetController::new(&informers))),
                    Box::new(Runner::new(statefulset::StatefulSetController::new(
                        &informers,
                    ))),
                    Box::new(Runner::new(volume::PersistentVolumeController::new(
                        &informers,
                    ))),
                    Box::new(Runner::new(
                        volume::protection::PvcProtectionController::new(&informers),
                    )),
                    Box::new(Runner::new(
                        volume::protection::PvProtectionController::new(&informers),
                    )),
                    Box::new(GarbageCollector::new(&informers)),
                ]
            }
        }
    }
}

/// A replica's name: the component's, `-`, its number (`kube-controller-manager-0`), as a
/// static pod's is the component's and its host's.
pub fn replica_name(component: Component, replica: u32) -> String {
    format!("{}-{replica}", component.name())
}

/// The seed a replica's controllers draw from: the cluster's for replica 0's first process (so
/// a cluster of one replica each draws what it drew before replicas existed), another for
/// every other process.
pub fn replica_seed(seed: u64, component: Component, replica: u32, generation: u32) -> u64 {
    if replica == 0 && generation == 0 {
        return seed;
    }
    let name = format!("{}/{generation}", replica_name(component, replica));
    SimRng::child(seed, &name).next_u64()
}

/// One replica's elector, stepped in the step order ahead of the replica's controllers, on the
/// replica's own clock.
#[derive(Debug)]
pub struct ReplicaElector {
    component: Component,
    replica: u32,
    /// Processes started so far, this one included (each a new identity).
    generation: u32,
    /// When each process after the first started (on the cluster's clock).
    restarts: Vec<Timestamp>,
    elector: LeaderElector,
    recorder: EventRecorder,
    /// How far the replica's clock is behind the cluster's: the time it spent paused.
    lag_ms: u64,
    /// Since when it is paused (`None`: running).
    paused_since: Option<Timestamp>,
    /// What the last step changed, for the control plane to take.
    transition: Option<Transition>,
}

impl ReplicaElector {
    /// The first process of replica `replica`, a candidate from `now`.
    pub fn new(seed: u64, component: Component, replica: u32, now: Timestamp) -> Self {
        let name = component.name();
        ReplicaElector {
            component,
            replica,
            generation: 0,
            restarts: Vec::new(),
            elector: Self::start(seed, component, replica, 0, now),
            recorder: EventRecorder::new(name, name, ""),
            lag_ms: 0,
            paused_since: None,
            transition: None,
        }
    }

    /// The elector of one process: `holderIdentity` is the replica's name, `_`, a uuid, as the
    /// real one is the host name, `_`, a uuid (`controllermanager.go`, `server.go`).
    fn start(
        seed: u64,
        component: Component,
        replica: u32,
        generation: u32,
        now: Timestamp,
    ) -> LeaderElector {
        let name = replica_name(component, replica);
        let mut rng = SimRng::child(seed, &format!("{name}/{generation}/leader-election"));
        let identity = format!("{name}_{}", rng.uuid());
        let component_name = component.name();
        LeaderElector::new(component_name, &identity, component_name, rng, now)
    }

    /// The process restarted after it stopped leading: a new identity, a candidate from `now`
    /// (its clock starts anew: no lag).
    pub fn restart(&mut self, seed: u64, now: Timestamp) {
        self.generation += 1;
        self.restarts.push(now);
        self.elector = Self::start(seed, self.component, self.replica, self.generation, now);
        self.recorder = EventRecorder::new(self.component.name(), self.component.name(), "");
        self.lag_ms = 0;
        self.transition = None;
    }

    pub fn component(&self) -> Component {
        self.component
    }

    pub fn replica(&self) -> u32 {
        self.replica
    }

    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// When each process after the first started: a new process's controllers begin with
    /// empty caches, work queues and Event correlators.
    pub fn restarts(&self) -> &[Timestamp] {
        &self.restarts
    }

    /// `kube-controller-manager-0`.
    pub fn replica_name(&self) -> String {
        replica_name(self.component, self.replica)
    }

    pub fn elector(&self) -> &LeaderElector {
        &self.elector
    }

    pub fn paused(&self) -> bool {
        self.paused_since.is_some()
    }

    /// Its clock stops at `now` (and its controllers with it: the control plane parks them).
    pub fn pause(&mut self, now: Timestamp) {
        if self.paused_since.is_none() {
            self.paused_since = Some(now);
        }
    }

    /// Its clock runs again from where it stopped: it is behind the cluster's by the pause.
    pub fn resume(&mut self, now: Timestamp) {
        if let Some(since) = self.paused_since.take() {
            self.lag_ms += now.millis_since(since);
        }
    }

    /// The replica's clock at the cluster's `now`.
    fn own_clock(&self, now: Timestamp) -> Timestamp {
        Timestamp::from_millis(now.as_millis().saturating_sub(self.lag_ms))
    }

    /// Its next wake-up on the cluster's clock.
    fn wake(&self) -> Option<Timestamp> {
        if self.paused() {
            return None;
        }
        let own = super::earliest([self.elector.next_wakeup(), self.recorder.next_retry()]);
        own.map(|t| t.plus_millis(self.lag_ms))
    }

    /// What the last step changed (taken once).
    pub fn take_transition(&mut self) -> Option<Transition> {
        self.transition.take()
    }
}

impl Controller for ReplicaElector {
    fn name(&self) -> &str {
        self.component.name()
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        if self.paused() {
            return None;
        }
        let own = self.own_clock(now);
        self.recorder.flush(api, own);
        if self.elector.next_wakeup().is_some_and(|t| t <= own) {
            if let Some(t) = self.elector.step(api, own, &mut self.recorder) {
                self.transition = Some(t);
            }
        }
        self.wake()
    }

    fn idle(&self, now: Timestamp, _api: &ApiServer) -> Option<Option<Timestamp>> {
        let wake = self.wake();
        match wake {
            Some(t) if t <= now => None,
            _ if self.transition.is_some() => None,
            _ => Some(wake),
        }
    }
}

/// A write by a replica that led only in its own belief: its elector had not yet seen its
/// Lease taken over (a paused leader resumed) while the Lease named another holder. Those with
/// a resourceVersion precondition were refused with 409 Conflict; the others landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleWrite {
    /// `kube-controller-manager-0`.
    pub replica: String,
    pub time: Timestamp,
    /// The controller's user agent (`replicaset-controller`, or the component's own for its
    /// Lease).
    pub user: Arc<str>,
    pub verb: &'static str,
    /// The object's storage key.
    pub key: String,
    /// The revision it landed at; `None`: refused with 409 Conflict.
    pub revision: Option<u64>,
}

/// The stale writes seen so far (the last [`STALE_WRITE_LIMIT`]).
pub const STALE_WRITE_LIMIT: usize = 512;

/// Whether `elector`'s component's Lease names this process as its holder.
pub fn holds_lease(elector: &ReplicaElector, api: &ApiServer) -> bool {
    let lease = api.peek(
        crate::api::Kind::Lease,
        Some(super::leader_election::LEASE_NAMESPACE),
        elector.component.name(),
    );
    let holder = match lease.as_deref() {
        Some(crate::api::Object::Lease(l)) => l.spec.holder_identity.as_deref(),
        _ => None,
    };
    holder == Some(elector.elector.identity())
}

/// Whether `elector`'s component's Lease names someone else while it leads.
pub fn leads_stale(elector: &ReplicaElector, api: &ApiServer) -> bool {
    elector.elector.leading() && !holds_lease(elector, api)
}

/// Appends to `out` what one step of `replica` wrote or had refused: the ledger's lines after
/// `revision` and the server's conflicts after the first `conflicts`.
pub fn record_stale_writes(
    out: &mut std::collections::VecDeque<StaleWrite>,
    replica: &str,
    api: &ApiServer,
    revision: u64,
    conflicts: u64,
) {
    let mut landed: Vec<StaleWrite> = api
        .ledger()
        .iter()
        .rev()
        .take_while(|l| l.revision > revision)
        .map(|l| StaleWrite {
            replica: replica.to_string(),
            time: l.time,
            user: l.user.clone(),
            verb: l.verb,
            key: l.key(),
            revision: Some(l.revision),
        })
        .collect();
    landed.reverse();
    let refused = api.conflicts().since(conflicts).map(|c| StaleWrite {
        replica: replica.to_string(),
        time: c.time,
        user: c.user.clone(),
        verb: c.verb,
        key: c.key.clone(),
        revision: None,
    });
    for w in landed.into_iter().chain(refused) {
        if out.len() == STALE_WRITE_LIMIT {
            out.pop_front();
        }
        out.push_back(w);
    }
}
