//! The control plane's controllers in their fixed step order, the settle that steps them at one
//! instant, and the test harness around them: one [`ApiServer`], every controller, and virtual
//! time moved by the one loop ([`clock::advance_until`]), as the [`crate::cluster::Cluster`]
//! moves it. At each instant the controllers are stepped repeatedly while they keep writing (a
//! write must reach the others' watch streams before time moves on), then time jumps to the
//! earliest of the controllers' wake-ups and the server's own timers. A round visits only the
//! controllers that are not parked idle ([`super::parking`]). The harness has no etcd
//! members and no journal: tests write through its `api` directly, and the controllers answer
//! at that same instant when it next runs.

use super::deployment::DeploymentController;
use super::endpoints::EndpointsController;
use super::endpointslice::EndpointSliceController;
use super::garbage_collector::GarbageCollector;
use super::kube_proxy::KubeProxy;
use super::kubelet::Kubelet;
use super::namespace::NamespaceController;
use super::node_lifecycle::NodeLifecycleController;
use super::parking::Parking;
use super::profile::Profile;
use super::replicaset::ReplicaSetController;
use super::scheduler::Scheduler;
use super::shared_informer::SharedInformers;
use super::website::WebsiteOperator;
use super::{Controller, Stepped};
use crate::apiserver::{ApiServer, ServerConfig};
use crate::clock::{self, Timers, Timestamp};

/// The controllers besides the kubelets and kube-proxies.
const OTHERS: usize = 9;

/// Rounds per instant before time is forced forward (a safety net against a write loop).
pub const MAX_ROUNDS_PER_INSTANT: usize = 64;

/// Every controller of the cluster, stepped in a fixed order (kubelets in node order, then the
/// kube-proxies in node order, the scheduler, the node lifecycle, ReplicaSet, Deployment,
/// EndpointSlice, Endpoints and namespace controllers, the garbage collector, the example
/// Website operator).
pub struct ControlPlane {
    kubelets: Vec<Kubelet>,
    kube_proxies: Vec<KubeProxy>,
    pub scheduler: Scheduler,
    pub node_lifecycle: NodeLifecycleController,
    pub replicaset: ReplicaSetController,
    pub deployment: DeploymentController,
    pub endpointslice: EndpointSliceController,
    pub endpoints: EndpointsController,
    pub namespace: NamespaceController,
    pub garbage_collector: GarbageCollector,
    pub website: WebsiteOperator,
    /// Step idle controllers too (tests compare the histories with and without skipping).
    pub step_idle: bool,
    /// The idle kubelets and kube-proxies a round passes by.
    parking: Parking,
}

impl ControlPlane {
    /// One kubelet per node name; everything seeded from `seed`.
    pub fn new(seed: u64, profile: &Profile, nodes: &[&str]) -> Self {
        let informers = SharedInformers::new(seed, profile);
        ControlPlane {
            parking: Parking::new(2 * nodes.len() + OTHERS),
            kubelets: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| Kubelet::new(n, i as u32, seed, profile))
                .collect(),
            kube_proxies: nodes
                .iter()
                .map(|n| KubeProxy::new(n, seed, profile))
                .collect(),
            scheduler: Scheduler::new(seed, profile),
            node_lifecycle: NodeLifecycleController::new(profile, &informers),
            replicaset: ReplicaSetController::new(&informers),
            deployment: DeploymentController::new(&informers),
            endpointslice: EndpointSliceController::new(&informers),
            endpoints: EndpointsController::new(&informers),
            namespace: NamespaceController::new(&informers),
            garbage_collector: GarbageCollector::new(&informers),
            website: WebsiteOperator::new(seed, profile),
            step_idle: false,
        }
    }

    /// Every controller, read-only, in the fixed step order.
    pub fn all(&self) -> Vec<&dyn Controller> {
        let mut all: Vec<&dyn Controller> = Vec::new();
        for k in &self.kubelets {
            all.push(k);
        }
        for p in &self.kube_proxies {
            all.push(p);
        }
        all.push(&self.scheduler);
        all.push(&self.node_lifecycle);
        all.push(&self.replicaset);
        all.push(&self.deployment);
        all.push(&self.endpointslice);
        all.push(&self.endpoints);
        all.push(&self.namespace);
        all.push(&self.garbage_collector);
        all.push(&self.website);
        all
    }

    /// The kubelets, in node order.
    pub fn kubelets(&self) -> &[Kubelet] {
        &self.kubelets
    }

    /// The kube-proxies, in node order.
    pub fn kube_proxies(&self) -> &[KubeProxy] {
        &self.kube_proxies
    }

    /// A kubelet to change from outside (stop, restart): it is visited again from the next
    /// round on, whatever it said before.
    pub fn kubelet_mut(&mut self, node: &str) -> Option<&mut Kubelet> {
        let index = self.kubelets.iter().position(|k| k.node_name() == node)?;
        self.parking.unpark(index);
        self.kubelets.get_mut(index)
    }

    pub fn kube_proxy(&self, node: &str) -> Option<&KubeProxy> {
        self.kube_proxies.iter().find(|p| p.node_name() == node)
    }

    /// A kube-proxy to change from outside, visited again from the next round on.
    pub fn kube_proxy_mut(&mut self, node: &str) -> Option<&mut KubeProxy> {
        let index = self
            .kube_proxies
            .iter()
            .position(|p| p.node_name() == node)?;
        self.parking.unpark(self.kubelets.len() + index);
        self.kube_proxies.get_mut(index)
    }

    /// The controllers after the kubelets and kube-proxies, in the fixed step order (as
    /// [`ControlPlane::all_mut`]).
    fn others_mut(&mut self) -> [&mut dyn Controller; OTHERS] {
        [
            &mut self.scheduler,
            &mut self.node_lifecycle,
            &mut self.replicaset,
            &mut self.deployment,
            &mut self.endpointslice,
            &mut self.endpoints,
            &mut self.namespace,
            &mut self.garbage_collector,
            &mut self.website,
        ]
    }

    /// How many controllers there are (the length of a round).
    pub fn len(&self) -> usize {
        self.kubelets.len() + self.kube_proxies.len() + OTHERS
    }

    /// Never empty: the scheduler and the controllers are always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The controller at `index` in the fixed step order.
    fn nth_mut(&mut self, index: usize) -> Option<&mut dyn Controller> {
        let kubelets = self.kubelets.len();
        if index < kubelets {
            return self
                .kubelets
                .get_mut(index)
                .map(|k| k as &mut dyn Controller);
        }
        let proxies = self.kube_proxies.len();
        if index < kubelets + proxies {
            return self
                .kube_proxies
                .get_mut(index - kubelets)
                .map(|p| p as &mut dyn Controller);
        }
        self.others_mut()
            .into_iter()
            .nth(index - kubelets - proxies)
    }

    /// Steps every controller at `now` until a round writes nothing (a write must reach the
    /// others' watch streams before time moves on); returns the earliest wake-up and the steps.
    pub fn settle(&mut self, now: Timestamp, api: &mut ApiServer) -> (Option<Timestamp>, u64) {
        let mut settling = Settling::default();
        loop {
            if let Some(done) = self.settle_until(now, api, &mut settling, || false) {
                return done;
            }
        }
    }

    /// [`ControlPlane::settle`] that can stop after any controller step: asks `stop` after
    /// each one and returns `None` when it stopped, with `settling` saying where to go on.
    /// Called again with the same `settling` (and nothing else run in between), it resumes
    /// exactly there, so however a settle is cut into pieces, the controllers take the same
    /// steps in the same order. `Some((wake, steps))` when the settle is complete.
    ///
    /// A round visits the controllers in step order, but only those not parked: one that says
    /// it is idle is parked ([`Parking`]) until its streams get news or its wake-up is due, and
    /// is passed by meanwhile — what asking it again would have answered, it already said. So
    /// the steps taken, and the history, are those of asking every controller every round.
    pub fn settle_until(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        settling: &mut Settling,
        mut stop: impl FnMut() -> bool,
    ) -> Option<(Option<Timestamp>, u64)> {
        if !settling.started {
            settling.started = true;
            self.parking.unpark_due(now);
        }
        loop {
            if settling.next == 0 {
                settling.round_start = api.revision();
                settling.wake = None;
            }
            loop {
                self.parking.unpark_readers(api.take_ready_streams());
                let Some(index) = self.parking.next_active(settling.next) else {
                    break;
                };
                let step_idle = self.step_idle;
                let Some(c) = self.nth_mut(index) else {
                    break;
                };
                // A step that stopped part-way goes on: it was not idle, and asking again
                // now could answer from the middle of its work.
                let idle = match settling.mid_step {
                    true => None,
                    false => c.idle(now, api).filter(|_| !step_idle),
                };
                let wake = match idle {
                    Some(wake) => {
                        let streams = c
                            .informers()
                            .iter()
                            .filter_map(|i| i.watch_stream())
                            .collect();
                        self.parking.park(index, wake, streams);
                        wake
                    }
                    None => match c.step_until(now, api, &mut stop) {
                        Stepped::Done(wake) => wake,
                        Stepped::Stopped => {
                            settling.next = index;
                            settling.mid_step = true;
                            return None;
                        }
                    },
                };
                settling.mid_step = false;
                settling.wake = super::earliest([settling.wake, wake]);
                settling.next = index + 1;
                settling.steps += 1;
                if settling.next < self.len() && stop() {
                    return None;
                }
            }
            settling.next = 0;
            settling.rounds += 1;
            if api.revision() == settling.round_start || settling.rounds >= MAX_ROUNDS_PER_INSTANT {
                // The parked controllers answer what they last said.
                let wake = super::earliest([settling.wake, self.parking.earliest_wake()]);
                return Some((wake, settling.steps));
            }
            if stop() {
                return None;
            }
        }
    }
}

/// Where an interrupted [`ControlPlane::settle_until`] goes on: the round, the next
/// controller in step order, and what the round has gathered so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settling {
    /// Whether the controllers due at this instant have been unparked.
    started: bool,
    rounds: usize,
    next: usize,
    /// The revision when the current round began (a round that writes nothing ends the settle).
    round_start: u64,
    /// The earliest wake-up asked for in the current round.
    wake: Option<Timestamp>,
    /// The controller at `next` stopped inside its step ([`Stepped::Stopped`]).
    mid_step: bool,
    steps: u64,
}

impl Settling {
    /// Controllers visited so far (parked ones are not).
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

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
                "node-controller",
                "replicaset-controller",
                "deployment-controller",
                "endpointslice-controller",
                "endpoint-controller",
                "namespace-controller",
                "generic-garbage-collector",
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
        assert!(h.rounds < 5_000, "{} steps", h.rounds);
    }
}
