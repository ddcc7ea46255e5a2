//! Guided scenarios inside the reducer: where the learner is in one (saved with the cluster
//! as an opaque marker) and what each step's effects do to the engine.

use watchlab_engine::cluster::Action as ClusterAction;

use super::State;
use crate::scenario::{self, Effect, Scenario};

/// The namespace and Deployment the texts use (seeded by the engine's Training profile).
pub const SEED_NAMESPACE: &str = "production";
pub const SEED_DEPLOYMENT: &str = "orders-api";

/// Where the learner is in a guided scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub scenario: &'static Scenario,
    /// Steps already run.
    pub done: usize,
}

impl Progress {
    pub fn finished(&self) -> bool {
        self.done >= self.scenario.steps.len()
    }

    /// The opaque marker saved with the cluster: `id:done`.
    pub(super) fn marker(&self) -> String {
        format!("{}:{}", self.scenario.id, self.done)
    }

    /// Reads [`Progress::marker`] back; anything unknown is `None`.
    pub(super) fn from_marker(marker: &str) -> Option<Progress> {
        let (id, done) = marker.rsplit_once(':')?;
        let scenario = scenario::find(id)?;
        let done = done.parse::<usize>().ok()?.min(scenario.steps.len());
        Some(Progress { scenario, done })
    }
}

impl State {
    /// Saves where the learner is in a scenario with the cluster.
    pub(super) fn mark_scenario(&mut self) {
        let marker = self.progress.map(|p| p.marker());
        // A marker is a short scenario id and a number, always within the engine's limit.
        let _ = self.engine.borrow_mut().cluster.set_scenario(marker);
    }

    pub(super) fn next_step(&mut self) {
        let Some(mut progress) = self.progress else {
            return;
        };
        let Some(step) = progress.scenario.steps.get(progress.done) else {
            return;
        };
        for effect in step.effects {
            self.effect(*effect);
        }
        progress.done += 1;
        self.progress = Some(progress);
    }

    fn effect(&mut self, effect: Effect) {
        match effect {
            Effect::Command(line) => self.engine.borrow_mut().run_command(line),
            Effect::KillNode(n) => self.cluster_action(ClusterAction::KillNode(n.into())),
            Effect::RestoreNode(n) => self.cluster_action(ClusterAction::RestoreNode(n.into())),
            Effect::KillEtcdMember => {
                let victim = self
                    .engine
                    .borrow()
                    .cluster
                    .etcd()
                    .member_to_kill()
                    .map(str::to_string);
                if let Some(name) = victim {
                    self.cluster_action(ClusterAction::KillEtcdMember(name));
                }
            }
            Effect::RestoreEtcd => {
                let down = self.engine.borrow().cluster.etcd().down_members();
                for name in down {
                    self.cluster_action(ClusterAction::RestoreEtcdMember(name));
                }
            }
            Effect::ConflictingWrite => self.cluster_action(ClusterAction::ConflictingWrite {
                namespace: SEED_NAMESPACE.into(),
                name: SEED_DEPLOYMENT.into(),
            }),
            Effect::SetSpeed(s) => self.engine.borrow_mut().clock.set_speed(s),
            Effect::Pause(p) => self.engine.borrow_mut().clock.set_paused(p),
            Effect::Advance(ms) => self.engine.borrow_mut().advance(ms),
            Effect::Show(v) => self.view = v,
            Effect::CompareReconnects => self.cluster_action(ClusterAction::CompareReconnects {
                namespace: SEED_NAMESPACE.into(),
            }),
            Effect::CutWatches => self.cluster_action(ClusterAction::CutWatchConnections),
            Effect::RestoreWatches => self.cluster_action(ClusterAction::RestoreWatchConnections),
            Effect::Compact => self.cluster_action(ClusterAction::CompactNow),
        }
    }
}
