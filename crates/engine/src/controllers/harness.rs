//! The test harness around the control plane: one [`ApiServer`], the [`ControlPlane`], and
//! virtual time moved by the one loop ([`clock::advance_until`]), as the
//! [`crate::cluster::Cluster`] moves it. At each instant the control plane settles, then time
//! jumps to the earliest of the controllers' wake-ups and the server's own timers. The harness
//! has no etcd members and no journal: tests write through its `api` directly, and the
//! controllers answer at that same instant when it next runs.

use super::control_plane::ControlPlane;
use super::kubelet::Kubelet;
use super::profile::Profile;
use crate::apiserver::{ApiServer, ServerConfig};
use crate::clock::{self, Timers, Timestamp};

/// An API server with the whole control plane around it, and virtual time.
pub struct Harness {
    pub api: ApiServer,
    pub plane: ControlPlane,
    now: Timestamp,
    /// The earliest wake-up the controllers asked for when they last settled.
    wake: Option<Timestamp>,
    /// Controller steps taken, for cost meters (and the no-busy-loop test).
    pub rounds: u64,
}

impl Harness {
    /// A cluster with one kubelet per node name; everything seeded from `seed`.
    pub fn new(seed: u64, profile: &Profile, nodes: &[&str]) -> Self {
        Harness {
            api: ApiServer::with_config(
                seed,
                ServerConfig::default()
                    .with_default_toleration_seconds(profile.default_toleration_seconds),
            ),
            plane: ControlPlane::new(seed, profile, nodes),
            now: Timestamp::ZERO,
            wake: None,
            rounds: 0,
        }
    }

    pub fn now(&self) -> Timestamp {
        self.now
    }

    pub fn kubelet_mut(&mut self, node: &str) -> Option<&mut Kubelet> {
        self.plane.kubelet_mut(node)
    }

    /// Runs the cluster until virtual time `until` (inclusive).
    pub fn run_until(&mut self, until: Timestamp) {
        self.run_until_true(until, |_| false);
    }

    /// Runs for `ms` more milliseconds.
    pub fn run_for(&mut self, ms: u64) {
        let until = self.now.plus_millis(ms);
        self.run_until(until);
    }

    /// Runs until `done` holds (checked after every instant) or `deadline`; true if it held.
    /// The current instant runs first, so what a test wrote since is answered at once.
    pub fn run_until_true(
        &mut self,
        deadline: Timestamp,
        mut done: impl FnMut(&Harness) -> bool,
    ) -> bool {
        let now = self.now;
        self.run_instant(now, &mut || false);
        done(self) || clock::advance_until(self, deadline, &mut || false, &mut |h| done(h))
    }

    /// The controllers' user agents in step order.
    pub fn controller_names(&self) -> Vec<String> {
        self.plane
            .all()
            .iter()
            .map(|c| c.name().to_string())
            .collect()
    }
}

/// An instant runs the server's timers and settles the controllers.
impl Timers for Harness {
    fn now(&self) -> Timestamp {
        self.now
    }

    /// A controller that asks for the current instant again runs one millisecond later, so
    /// time always moves forward.
    fn next_timer(&self) -> Option<Timestamp> {
        let controllers = self.wake.map(|t| t.max(self.now.plus_millis(1)));
        [controllers, self.api.next_timer()]
            .into_iter()
            .flatten()
            .filter(|t| *t > self.now)
            .min()
    }

    fn run_instant(&mut self, t: Timestamp, _stop: &mut dyn FnMut() -> bool) -> bool {
        self.now = self.now.max(t);
        self.api.advance_to(self.now);
        let (wake, steps) = self.plane.settle(self.now, &mut self.api);
        self.wake = wake;
        self.rounds += steps;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_in_a_fixed_order_and_idles_between_wakeups() {
        let mut h = Harness::new(1, &Profile::training(), &["node-a", "node-b"]);
        assert_eq!(
            h.controller_names(),
            [
                "kubelet/node-a",
                "kubelet/node-b",
                "kube-proxy/node-a",
                "kube-proxy/node-b",
                "kube-scheduler",
                "kube-scheduler",
                "kube-controller-manager",
                "node-controller",
                "replicaset-controller",
                "deployment-controller",
                "endpointslice-controller",
                "endpoint-controller",
                "namespace-controller",
                "disruption-controller",
                "job-controller",
                "ttl-after-finished-controller",
                "cronjob-controller",
                "daemon-set-controller",
                "statefulset-controller",
                "persistent-volume-binder",
                "pvc-protection-controller",
                "pv-protection-controller",
                "generic-garbage-collector",
                "local-path-provisioner",
                "website-operator"
            ]
        );
        let by_index: Vec<String> = (0..h.plane.len())
            .filter_map(|i| h.plane.nth_mut(i).map(|c| c.name().to_string()))
            .collect();
        assert_eq!(
            by_index,
            h.controller_names(),
            "a settle steps the same list"
        );
        assert!(h.plane.nth_mut(h.plane.len()).is_none());
        h.run_for(60_000);
        assert_eq!(h.now(), Timestamp::from_secs(60));
        // An idle minute costs a bounded number of steps: lease renewals, status checks and
        // monitor passes, not one step per millisecond.
        assert!(h.rounds < 8_000, "{} steps", h.rounds);
    }
}
