//! The production control plane: the node agents (one kubelet and one kube-proxy per node, in
//! node order) and the cluster's controllers, built from **one** ordered list
//! ([`controllers`]), and the settle that steps them all at one instant. At each instant the
//! controllers are stepped repeatedly while they keep writing (a write must reach the others'
//! watch streams before time moves on); a round visits only the controllers that are not parked
//! idle ([`super::parking`]). Whoever owns the clock (the [`crate::cluster::Cluster`], the
//! test [`super::Harness`]) calls [`ControlPlane::settle`] when virtual time reaches a wake-up.
//!
//! Leader election will later decide which replicas of the list run; a test holds that every
//! controller type the engine defines is in it.

use super::deployment::DeploymentController;
use super::disruption::DisruptionController;
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
use super::runtime::{Reconciler, Runner};
use super::scheduler::Scheduler;
use super::shared_informer::SharedInformers;
use super::website::WebsiteOperator;
use super::{Controller, Stepped};
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;

/// The cluster's controllers besides the node agents, in step order: kube-scheduler,
/// kube-controller-manager's controllers (sharing one informer per kind), and the example
/// operator. This is the one list: a controller not in it never runs.
pub fn controllers(seed: u64, profile: &Profile) -> Vec<Box<dyn Controller>> {
    let informers = SharedInformers::new(seed, profile);
    vec![
        Box::new(Runner::new(Scheduler::new(seed, profile))),
        Box::new(NodeLifecycleController::new(profile, &informers)),
        Box::new(Runner::new(ReplicaSetController::new(&informers))),
        Box::new(Runner::new(DeploymentController::new(&informers))),
        Box::new(Runner::new(EndpointSliceController::new(&informers))),
        Box::new(Runner::new(EndpointsController::new(&informers))),
        Box::new(Runner::new(NamespaceController::new(&informers))),
        Box::new(Runner::new(DisruptionController::new(&informers))),
        Box::new(GarbageCollector::new(&informers)),
        Box::new(Runner::new(WebsiteOperator::new(seed, profile))),
    ]
}

/// Rounds per instant before time is forced forward (a safety net against a write loop).
pub const MAX_ROUNDS_PER_INSTANT: usize = 64;

/// Every controller of the cluster, stepped in a fixed order: the kubelets in node order, the
/// kube-proxies in node order, then [`controllers`] in its order.
pub struct ControlPlane {
    kubelets: Vec<Kubelet>,
    kube_proxies: Vec<KubeProxy>,
    /// [`controllers`], in its order.
    controllers: Vec<Box<dyn Controller>>,
    /// Step idle controllers too (tests compare the histories with and without skipping).
    pub step_idle: bool,
    /// The idle kubelets and kube-proxies a round passes by.
    parking: Parking,
}

impl ControlPlane {
    /// One kubelet per node name; everything seeded from `seed`.
    pub fn new(seed: u64, profile: &Profile, nodes: &[&str]) -> Self {
        let controllers = controllers(seed, profile);
        ControlPlane {
            parking: Parking::new(2 * nodes.len() + controllers.len()),
            kubelets: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| Kubelet::new(n, i as u32, seed, profile))
                .collect(),
            kube_proxies: nodes
                .iter()
                .map(|n| KubeProxy::new(n, seed, profile))
                .collect(),
            controllers,
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
        all.extend(self.controllers.iter().map(|c| c.as_ref()));
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

    /// The controller of type `C` in [`controllers`] (not a [`Runner`]'s reconciler: see
    /// [`ControlPlane::reconciler`]).
    pub fn controller<C: Controller>(&self) -> Option<&C> {
        self.controllers
            .iter()
            .find_map(|c| c.as_any().downcast_ref::<C>())
    }

    /// The reconciler of type `R` that a [`Runner`] of [`controllers`] runs.
    pub fn reconciler<R: Reconciler>(&self) -> Option<&R> {
        self.controllers.iter().find_map(|c| {
            c.as_any()
                .downcast_ref::<Runner<R>>()
                .map(Runner::reconciler)
        })
    }

    /// The same to change from outside (a test's settings); the runner's queue is kept.
    pub fn reconciler_mut<R: Reconciler>(&mut self) -> Option<&mut R> {
        self.controllers.iter_mut().find_map(|c| {
            c.as_any_mut()
                .downcast_mut::<Runner<R>>()
                .map(Runner::reconciler_mut)
        })
    }

    /// How many controllers there are (the length of a round).
    pub fn len(&self) -> usize {
        self.kubelets.len() + self.kube_proxies.len() + self.controllers.len()
    }

    /// Never empty: [`controllers`] are always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The controller at `index` in the fixed step order.
    pub(super) fn nth_mut(&mut self, index: usize) -> Option<&mut dyn Controller> {
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
        self.controllers
            .get_mut(index - kubelets - proxies)
            .map(|c| c.as_mut())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The type names after `impl Controller for` and `impl Reconciler for` in the
    /// controllers' sources (a generic impl, `impl<R> ... for Runner<R>`, is not a type).
    fn controller_types_in_sources() -> Vec<String> {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                for line in text.lines() {
                    for prefix in ["impl Controller for ", "impl Reconciler for "] {
                        if let Some(rest) = line.strip_prefix(prefix) {
                            let name: String = rest
                                .chars()
                                .take_while(|c| c.is_alphanumeric() || *c == '_')
                                .collect();
                            out.push(name);
                        }
                    }
                }
            }
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/controllers");
        let mut types = Vec::new();
        walk(&dir, &mut types);
        types.sort();
        types.dedup();
        types
    }

    #[test]
    fn the_list_runs_every_controller_type_there_is() {
        let plane = ControlPlane::new(1, &Profile::training(), &["node-a"]);
        let running: Vec<&str> = plane
            .all()
            .iter()
            .map(|c| c.type_name().rsplit("::").next().unwrap_or_default())
            .collect();
        let defined = controller_types_in_sources();
        assert!(defined.len() >= 11, "found {defined:?}");
        for t in &defined {
            assert!(
                running.contains(&t.as_str()),
                "{t} is a controller, but the control plane does not run it: add it to \
                 `controllers()`"
            );
        }
    }

    #[test]
    fn a_typed_look_finds_runners_and_plain_controllers() {
        let mut plane = ControlPlane::new(1, &Profile::training(), &["node-a"]);
        assert!(plane.reconciler::<WebsiteOperator>().is_some());
        assert!(plane.reconciler_mut::<ReplicaSetController>().is_some());
        assert!(plane.controller::<GarbageCollector>().is_some());
        assert!(plane.controller::<NodeLifecycleController>().is_some());
    }
}
