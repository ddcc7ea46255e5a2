//! The driver loop for tests (and the shape `cluster.rs` copies): one [`ApiServer`], every
//! controller in a fixed order, and virtual time that jumps to the earliest wake-up. At each
//! instant the controllers are stepped repeatedly while they keep writing (a write must reach
//! the others' watch streams before time moves on), then time jumps to the earliest of the
//! controllers' wake-ups and the server's own timers.

use super::deployment::DeploymentController;
use super::kubelet::Kubelet;
use super::node_lifecycle::NodeLifecycleController;
use super::profile::Profile;
use super::replicaset::ReplicaSetController;
use super::scheduler::Scheduler;
use super::Controller;
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;

/// Rounds per instant before time is forced forward (a safety net against a write loop).
pub const MAX_ROUNDS_PER_INSTANT: usize = 64;

/// An API server with the whole control plane around it.
pub struct Harness {
    pub api: ApiServer,
    pub scheduler: Scheduler,
    pub node_lifecycle: NodeLifecycleController,
    pub replicaset: ReplicaSetController,
    pub deployment: DeploymentController,
    pub kubelets: Vec<Kubelet>,
    now: Timestamp,
    /// Steps taken (rounds × controllers), for cost meters.
    pub rounds: u64,
}

impl Harness {
    /// A cluster with one kubelet per node name; everything seeded from `seed`.
    pub fn new(seed: u64, profile: &Profile, nodes: &[&str]) -> Self {
        Harness {
            api: ApiServer::new(seed),
            scheduler: Scheduler::new(seed, profile),
            node_lifecycle: NodeLifecycleController::new(seed, profile),
            replicaset: ReplicaSetController::new(seed, profile),
            deployment: DeploymentController::new(seed, profile),
            kubelets: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| Kubelet::new(n, i as u32, seed, profile))
                .collect(),
            now: Timestamp::ZERO,
            rounds: 0,
        }
    }

    pub fn now(&self) -> Timestamp {
        self.now
    }

    pub fn kubelet_mut(&mut self, node: &str) -> Option<&mut Kubelet> {
        self.kubelets.iter_mut().find(|k| k.node_name() == node)
    }

    /// Every controller, in the fixed step order.
    fn controllers(&mut self) -> Vec<&mut dyn Controller> {
        let mut all: Vec<&mut dyn Controller> = Vec::new();
        for k in &mut self.kubelets {
            all.push(k);
        }
        all.push(&mut self.scheduler);
        all.push(&mut self.node_lifecycle);
        all.push(&mut self.replicaset);
        all.push(&mut self.deployment);
        all
    }

    /// Steps everything at the current instant until no one writes; returns the earliest
    /// wake-up asked for.
    fn settle(&mut self) -> Option<Timestamp> {
        let now = self.now;
        self.api.advance_to(now);
        let mut wake = None;
        for _ in 0..MAX_ROUNDS_PER_INSTANT {
            let before = self.api.revision();
            let api = &mut self.api;
            let mut next: Option<Timestamp> = None;
            let mut steps = 0;
            let mut all: Vec<&mut dyn Controller> = Vec::new();
            for k in &mut self.kubelets {
                all.push(k);
            }
            all.push(&mut self.scheduler);
            all.push(&mut self.node_lifecycle);
            all.push(&mut self.replicaset);
            all.push(&mut self.deployment);
            for c in all {
                steps += 1;
                if let Some(t) = c.step(now, api) {
                    next = Some(next.map_or(t, |n: Timestamp| n.min(t)));
                }
            }
            self.rounds += steps;
            wake = next;
            if self.api.revision() == before {
                break;
            }
        }
        wake
    }

    /// Runs the cluster until virtual time `until` (inclusive).
    pub fn run_until(&mut self, until: Timestamp) {
        self.run_while(until, |_| true);
    }

    /// Runs for `ms` more milliseconds.
    pub fn run_for(&mut self, ms: u64) {
        let until = self.now.plus_millis(ms);
        self.run_until(until);
    }

    /// Runs until `done` holds (checked after every instant) or `deadline`; true if it held.
    pub fn run_until_true(
        &mut self,
        deadline: Timestamp,
        mut done: impl FnMut(&Harness) -> bool,
    ) -> bool {
        let mut held = false;
        self.run_while(deadline, |h| {
            held = done(h);
            !held
        });
        held
    }

    fn run_while(&mut self, until: Timestamp, mut go_on: impl FnMut(&Harness) -> bool) {
        loop {
            let wake = self.settle();
            if !go_on(self) || self.now >= until {
                return;
            }
            let timers = self.api.next_timer();
            let next = [wake, timers]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(until)
                .max(self.now.plus_millis(1))
                .min(until);
            self.now = next;
        }
    }

    /// A name for [`Harness::controllers`]' order, for the UI and tests.
    pub fn controller_names(&mut self) -> Vec<String> {
        self.controllers()
            .iter()
            .map(|c| c.name().to_string())
            .collect()
    }
}
