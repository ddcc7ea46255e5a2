//! The production control plane: the node agents (one kubelet and one kube-proxy per node, in
//! node order) and the cluster's controllers, built from **one** ordered list
//! (each leader-elected component's replicas, [`Component`], then
//! [`unelected_controllers`]), and the settle that steps them all at one instant. At each instant the
//! controllers are stepped repeatedly while they keep writing (a write must reach the others'
//! watch streams before time moves on); a round visits only the controllers that are not parked
//! idle ([`super::parking`]). Whoever owns the clock (the [`crate::cluster::Cluster`], the
//! test [`super::Harness`]) calls [`ControlPlane::settle`] when virtual time reaches a wake-up.
//!
//! Of each component's replicas, only the leader's controllers run ([`super::replica`]): the
//! others' are parked and cost nothing; a paused replica's elector and controllers are parked
//! until it resumes. A test holds that every controller type the engine defines is in the list.

use std::collections::VecDeque;
use std::ops::Range;

use super::kube_proxy::KubeProxy;
use super::kubelet::Kubelet;
use super::leader_election::Transition;
use super::parking::Parking;
use super::profile::Profile;
use super::replica::{
    leads_stale, record_stale_writes, replica_seed, Component, ReplicaElector, StaleWrite,
};
use super::runtime::{Reconciler, Runner};
use super::website::WebsiteOperator;
use super::{Controller, Stepped};
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;

/// The controllers that run whoever leads: the local-path provisioner (kind's, a Deployment of
/// its own here) and the example operator. Neither elects a leader in this model.
pub fn unelected_controllers(seed: u64, profile: &Profile) -> Vec<Box<dyn Controller>> {
    vec![
        Box::new(Runner::new(
            super::volume::provisioner::LocalPathProvisioner::new(seed, profile),
        )),
        Box::new(Runner::new(WebsiteOperator::new(seed, profile))),
    ]
}

/// Where one replica sits in [`ControlPlane::controllers`]: its elector, then its controllers.
#[derive(Debug, Clone)]
struct Elected {
    elector: usize,
    controllers: Range<usize>,
    /// Whether its controllers run (from `BecameLeader` to `StoppedLeading`).
    leading: bool,
    /// Its process's connection to the API servers (`kube-controller-manager-0/1`: the
    /// replica, then the process): all of a process's clients share one, as client-go's
    /// transports for one rest config do.
    connection: String,
}

/// The connection of a replica's process (a restarted process connects anew).
fn connection_of(e: &ReplicaElector) -> String {
    format!("{}/{}", e.replica_name(), e.generation())
}

/// Rounds per instant before time is forced forward (a safety net against a write loop).
pub const MAX_ROUNDS_PER_INSTANT: usize = 64;

/// Every controller of the cluster, stepped in a fixed order: the kubelets in node order, the
/// kube-proxies in node order, then each component's replicas (each its elector, then its
/// controllers), then [`unelected_controllers`].
pub struct ControlPlane {
    kubelets: Vec<Kubelet>,
    kube_proxies: Vec<KubeProxy>,
    /// The replicas' electors and controllers and the unelected ones, in step order.
    controllers: Vec<Box<dyn Controller>>,
    /// For each of `controllers`, the replica (in `elected`) it belongs to.
    replica_of: Vec<Option<usize>>,
    /// Each replica of each component, in step order.
    elected: Vec<Elected>,
    /// What replicas wrote while the Lease named another ([`StaleWrite`]).
    stale_writes: VecDeque<StaleWrite>,
    /// What a restarted replica's controllers are built from.
    seed: u64,
    profile: Profile,
    /// Step idle controllers too (tests compare the histories with and without skipping).
    pub step_idle: bool,
    /// The idle kubelets and kube-proxies a round passes by.
    parking: Parking,
}

impl ControlPlane {
    /// One kubelet per node name, one replica of each leader-elected component; everything
    /// seeded from `seed`.
    pub fn new(seed: u64, profile: &Profile, nodes: &[&str]) -> Self {
        Self::with_replicas(seed, profile, nodes, 1)
    }

    /// [`ControlPlane::new`] with `replicas` replicas (at least 1) of kube-scheduler and of
    /// kube-controller-manager; replica 0 of each comes first in the step order and takes its
    /// Lease first.
    pub fn with_replicas(seed: u64, profile: &Profile, nodes: &[&str], replicas: u32) -> Self {
        let mut controllers: Vec<Box<dyn Controller>> = Vec::new();
        let mut replica_of = Vec::new();
        let mut elected = Vec::new();
        for component in Component::ALL {
            for r in 0..replicas.max(1) {
                let index = elected.len();
                let elector = controllers.len();
                let replica = ReplicaElector::new(seed, component, r, Timestamp::ZERO);
                let connection = connection_of(&replica);
                controllers.push(Box::new(replica));
                let own = component.controllers(replica_seed(seed, component, r, 0), profile);
                let range = elector + 1..elector + 1 + own.len();
                controllers.extend(own);
                replica_of.resize(controllers.len(), Some(index));
                elected.push(Elected {
                    elector,
                    controllers: range,
                    leading: false,
                    connection,
                });
            }
        }
        controllers.extend(unelected_controllers(seed, profile));
        replica_of.resize(controllers.len(), None);
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
            replica_of,
            elected,
            stale_writes: VecDeque::new(),
            seed,
            profile: profile.clone(),
            step_idle: false,
        }
    }

    /// Every controller, read-only, in the fixed step order: the waiting replicas' too.
    pub fn all(&self) -> Vec<&dyn Controller> {
        self.node_agents_then(|_| true)
    }

    /// The controllers that run (a paused leader's among them), in step order: what the
    /// cluster's processes do now. A waiting replica's controllers have not started.
    pub fn running(&self) -> Vec<&dyn Controller> {
        self.node_agents_then(|i| !self.waiting(i))
    }

    /// The kubelets and kube-proxies, then those of `controllers` whose index `keep` keeps.
    fn node_agents_then(&self, keep: impl Fn(usize) -> bool) -> Vec<&dyn Controller> {
        let mut all: Vec<&dyn Controller> = Vec::new();
        for k in &self.kubelets {
            all.push(k);
        }
        for p in &self.kube_proxies {
            all.push(p);
        }
        all.extend(
            self.controllers
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, c)| c.as_ref()),
        );
        all
    }

    /// Whether the controller at `i` of `controllers` belongs to a replica that does not lead.
    fn waiting(&self, i: usize) -> bool {
        match self.replica_of.get(i).copied().flatten() {
            Some(r) => {
                let e = &self.elected[r];
                !e.leading && e.controllers.contains(&i)
            }
            None => false,
        }
    }

    /// Whether the controller at `i` of `controllers` is not stepped now: its replica is
    /// paused, or does not lead.
    fn dormant(&self, i: usize) -> bool {
        self.waiting(i)
            || self
                .replica_of
                .get(i)
                .copied()
                .flatten()
                .is_some_and(|r| self.elector(r).is_some_and(ReplicaElector::paused))
    }

    /// The replica of the controller at `i` of `controllers`, if it leads while its Lease names
    /// another (only looked for with several replicas: one alone is never stale).
    fn stale_replica(&self, i: usize, api: &ApiServer) -> Option<usize> {
        // One replica of each component: `elected` holds one per component.
        if self.elected.len() <= Component::ALL.len() {
            return None;
        }
        let r = self.replica_of.get(i).copied().flatten()?;
        self.elector(r)
            .is_some_and(|e| leads_stale(e, api))
            .then_some(r)
    }

    /// What replicas wrote, or had refused with 409 Conflict, while they led only in their
    /// own belief (the last [`super::replica::STALE_WRITE_LIMIT`]), oldest first.
    pub fn stale_writes(&self) -> &VecDeque<StaleWrite> {
        &self.stale_writes
    }

    /// The replica whose elector is at `i` of `controllers`.
    fn elector_at(&self, i: usize) -> Option<usize> {
        let r = self.replica_of.get(i).copied().flatten()?;
        (self.elected[r].elector == i).then_some(r)
    }

    /// Replica `r`'s elector (its slot always holds it).
    fn elector(&self, r: usize) -> Option<&ReplicaElector> {
        let slot = self.elected.get(r)?.elector;
        self.controllers.get(slot)?.as_any().downcast_ref()
    }

    fn elector_mut(&mut self, r: usize) -> Option<&mut ReplicaElector> {
        let slot = self.elected.get(r)?.elector;
        self.controllers.get_mut(slot)?.as_any_mut().downcast_mut()
    }

    /// Each replica's elector, in step order.
    pub fn electors(&self) -> Vec<&ReplicaElector> {
        (0..self.elected.len())
            .filter_map(|r| self.elector(r))
            .collect()
    }

    /// The replica called `name` (`kube-controller-manager-1`).
    fn replica_named(&self, name: &str) -> Option<usize> {
        (0..self.elected.len()).find(|&r| self.elector(r).is_some_and(|e| e.replica_name() == name))
    }

    /// The replicas' names, in step order.
    pub fn replica_names(&self) -> Vec<String> {
        self.electors().iter().map(|e| e.replica_name()).collect()
    }

    /// Whether the informers of processes started from now on list first with a consistent
    /// read ([`Profile::consistent_first_list`]); running ones keep theirs.
    pub fn set_consistent_first_list(&mut self, on: bool) {
        self.profile.consistent_first_list = on;
    }

    /// Pauses the replica `name` at `now`: its clock, its elector and its controllers stop (its
    /// watches stay open and fill up), until [`ControlPlane::resume`]. `false`: no such replica.
    pub fn pause(&mut self, name: &str, now: Timestamp) -> bool {
        let Some(r) = self.replica_named(name) else {
            return false;
        };
        self.elector_mut(r).map(|e| e.pause(now)).is_some()
    }

    /// Resumes a paused replica: it goes on where it stopped, its clock behind by the pause.
    pub fn resume(&mut self, name: &str, now: Timestamp) -> bool {
        let Some(r) = self.replica_named(name) else {
            return false;
        };
        let Some(e) = self.elector_mut(r) else {
            return false;
        };
        e.resume(now);
        self.unpark_replica(r);
        true
    }

    /// Visits the replica's elector and controllers again from the next round on.
    fn unpark_replica(&mut self, r: usize) {
        let offset = self.kubelets.len() + self.kube_proxies.len();
        let e = &self.elected[r];
        for i in std::iter::once(e.elector).chain(e.controllers.clone()) {
            self.parking.unpark(offset + i);
        }
    }

    /// What the replica's elector changed in its last step: `BecameLeader` starts its
    /// controllers; `StoppedLeading` ends its process — its watches close, and a new process
    /// with fresh controllers and a new identity becomes a candidate and tries at once. The
    /// new process's wake-up, when it restarted.
    fn take_transition(
        &mut self,
        r: usize,
        now: Timestamp,
        api: &mut ApiServer,
    ) -> Option<Timestamp> {
        match self.elector_mut(r)?.take_transition() {
            Some(Transition::BecameLeader) => {
                self.elected[r].leading = true;
                self.unpark_replica(r);
                None
            }
            Some(Transition::StoppedLeading) => {
                self.elected[r].leading = false;
                let range = self.elected[r].controllers.clone();
                for c in &self.controllers[range.clone()] {
                    for i in c.informers() {
                        if let Some(id) = i.watch_stream() {
                            api.stop_watch(id);
                        }
                    }
                }
                api.disconnect(&self.elected[r].connection);
                let seed = self.seed;
                let elector = self.elector_mut(r)?;
                elector.restart(seed, now);
                let connection = connection_of(elector);
                let (component, replica, generation) =
                    (elector.component(), elector.replica(), elector.generation());
                let fresh = component.controllers(
                    replica_seed(seed, component, replica, generation),
                    &self.profile,
                );
                for (slot, c) in range.clone().zip(fresh) {
                    self.controllers[slot] = c;
                }
                self.elected[r].connection = connection;
                self.unpark_replica(r);
                let wake = self.elector_mut(r)?.step(now, api);
                // Should that try take the Lease, its controllers start.
                self.take_transition(r, now, api);
                wake
            }
            None => None,
        }
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

    /// The controllers of the list, the leaders' first (then the waiting replicas'), so a
    /// typed look finds the one that runs.
    fn leaders_first(&self) -> impl Iterator<Item = &Box<dyn Controller>> {
        self.leaders_first_order()
            .into_iter()
            .filter_map(|i| self.controllers.get(i))
    }

    /// The indexes of `controllers`, the leaders' (and unelected) first, then the waiting
    /// replicas'.
    fn leaders_first_order(&self) -> Vec<usize> {
        let (running, waiting): (Vec<usize>, Vec<usize>) =
            (0..self.controllers.len()).partition(|i| !self.waiting(*i));
        running.into_iter().chain(waiting).collect()
    }

    /// The controller of type `C` (the leader's, if several replicas have one; not a
    /// [`Runner`]'s reconciler: see [`ControlPlane::reconciler`]).
    pub fn controller<C: Controller>(&self) -> Option<&C> {
        self.leaders_first()
            .find_map(|c| c.as_any().downcast_ref::<C>())
    }

    /// The reconciler of type `R` that a [`Runner`] runs (the leader's).
    pub fn reconciler<R: Reconciler>(&self) -> Option<&R> {
        self.leaders_first().find_map(|c| {
            c.as_any()
                .downcast_ref::<Runner<R>>()
                .map(Runner::reconciler)
        })
    }

    /// The same to change from outside (a test's settings); the runner's queue is kept.
    pub fn reconciler_mut<R: Reconciler>(&mut self) -> Option<&mut R> {
        let found = self.leaders_first_order().into_iter().find(|&i| {
            self.controllers[i]
                .as_any()
                .downcast_ref::<Runner<R>>()
                .is_some()
        })?;
        self.controllers[found]
            .as_any_mut()
            .downcast_mut::<Runner<R>>()
            .map(Runner::reconciler_mut)
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
                let listed = index.checked_sub(self.kubelets.len() + self.kube_proxies.len());
                if listed.is_some_and(|i| self.dormant(i)) {
                    // A waiting or paused replica's: passed by until it leads or resumes.
                    self.parking.park(index, None, Vec::new());
                    settling.mid_step = false;
                    settling.next = index + 1;
                    continue;
                }
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
                    None => match self.step_one(index, listed, now, api, &mut stop) {
                        Stepped::Done(wake) => wake,
                        Stepped::Stopped => {
                            settling.next = index;
                            settling.mid_step = true;
                            return None;
                        }
                    },
                };
                settling.mid_step = false;
                let wake = match listed.and_then(|i| self.elector_at(i)) {
                    Some(r) => self.take_transition(r, now, api).or(wake),
                    None => wake,
                };
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

    /// Steps the controller at `index` (`listed` of `controllers`); what it wrote while its
    /// replica led only in its own belief goes on record ([`ControlPlane::stale_writes`]).
    fn step_one(
        &mut self,
        index: usize,
        listed: Option<usize>,
        now: Timestamp,
        api: &mut ApiServer,
        stop: &mut dyn FnMut() -> bool,
    ) -> Stepped {
        let stale = listed.and_then(|i| self.stale_replica(i, api));
        // Where the ledger and the refusals stood, to read what a stale step added.
        let before = stale.map(|r| (r, api.revision(), api.conflicts().total()));
        // Its requests go to the API server instance its process's connection is on.
        let replica = listed.and_then(|i| self.replica_of.get(i).copied().flatten());
        if let Some(e) = replica.and_then(|r| self.elected.get(r)) {
            api.connect(&e.connection);
        }
        let Some(c) = self.nth_mut(index) else {
            return Stepped::Done(None);
        };
        if replica.is_none() {
            api.connect(c.name());
        }
        let stepped = c.step_until(now, api, stop);
        if let Some((r, revision, conflicts)) = before {
            if let Some(name) = self.elector(r).map(ReplicaElector::replica_name) {
                record_stale_writes(&mut self.stale_writes, &name, api, revision, conflicts);
            }
        }
        stepped
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
    use crate::controllers::{GarbageCollector, NodeLifecycleController, ReplicaSetController};

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
