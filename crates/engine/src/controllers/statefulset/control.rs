//! One pass of the StatefulSet control loop (stateful_set_control.go `updateStatefulSet`,
//! `processReplica`, `processCondemned`, `runForAll`): the set's pods split into replicas
//! (ordinals `start ..= start + replicas - 1`) and condemned ones (any other ordinal), then
//! 1. each replica in ordinal order: a missing one is created (its claims first) at the
//!    revision its ordinal gets, a Failed or Succeeded one deleted (and made again by a later
//!    pass, once it is gone), a pending one's missing claims created, a drifted one's identity
//!    or volumes put back;
//! 2. the condemned pods' claims get the owners the retention policy wants;
//! 3. the condemned pods deleted, highest ordinal first;
//! 4. the rolling update ([`super::update`]).
//!
//! `OrderedReady` (`monotonic`) stops the pass at the first pod that is not Running, Ready
//! and available, at each create and each delete, and at a terminating pod, so web-1 is made
//! only once web-0 is Ready and web-2 is deleted only once it is the last unhealthy one.
//! `Parallel` visits every pod in slow-start batches (1, 2, 4, ... up to 500) and stops only
//! at an error.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::apps::{PodTemplateSpec, StatefulSetStatus};
use crate::api::pod::Pod;
use crate::api::Object;
use crate::controllers::podutil::{is_pod_available, is_terminal};
use crate::controllers::Requeue;
use watchlab_apimachinery::status::StatusReason;

use super::identity::{
    end_ordinal, identity_matches, in_ordinal_range, new_pod, ordinal_of, pod_name, pod_revision,
    storage_matches,
};
use super::pod_control::PodControl;
use super::status::{count, is_healthy, is_running_and_ready};
use super::update::{made_at_current, next_step, Step, Target};
use watchlab_apimachinery::sort;

/// `MaxBatchSize`: the largest slow-start batch, and here also the most pods one pass creates
/// (upstream creates all in one sync; the rest come with the next pass, which the creations'
/// notifications start).
pub const MAX_BATCH_SIZE: usize = 500;

/// The two revisions a pass works with: their names and the templates they hold.
pub struct Versions<'a> {
    pub current: &'a str,
    pub update: &'a str,
    pub current_template: &'a PodTemplateSpec,
    pub update_template: &'a PodTemplateSpec,
    pub collision_count: i32,
}

/// One pass over one set's pods.
struct Pass<'a, 'b> {
    pc: PodControl<'a>,
    v: &'b Versions<'b>,
    monotonic: bool,
    /// The pods in range, by ordinal.
    replicas: BTreeMap<i32, Arc<Object>>,
    /// The pods out of range, highest ordinal first.
    condemned: Vec<(i32, Arc<Object>)>,
    /// The name of the first pod that is not healthy (a missing replica counts).
    first_unhealthy: Option<String>,
    creates: usize,
}

fn pod_of(o: &Object) -> Option<&Pod> {
    o.as_pod()
}

/// `updateStatefulSet`: the status the pass saw, and whether it went through.
pub fn update_stateful_set(
    pc: PodControl<'_>,
    v: &Versions<'_>,
    pods: &[Arc<Object>],
) -> (StatefulSetStatus, Result<(), Requeue>) {
    let set = pc.set;
    let mut pass = Pass {
        monotonic: !set.is_parallel(),
        pc,
        v,
        replicas: BTreeMap::new(),
        condemned: Vec::new(),
        first_unhealthy: None,
        creates: 0,
    };
    for o in pods {
        let Some(ordinal) = ordinal_of(o.name()) else {
            continue;
        };
        match in_ordinal_range(set, ordinal) {
            true => {
                pass.replicas.insert(ordinal, Arc::clone(o));
            }
            false => pass.condemned.push((ordinal, Arc::clone(o))),
        }
    }
    sort::sort_by_key(&mut pass.condemned, |c| std::cmp::Reverse(c.0));
    pass.first_unhealthy = pass.first_unhealthy();
    let mut status = StatefulSetStatus {
        observed_generation: set.metadata.generation.unwrap_or(0),
        current_revision: v.current.to_string(),
        update_revision: v.update.to_string(),
        collision_count: Some(v.collision_count),
        ..Default::default()
    };
    let result = match set.metadata.deletion_timestamp {
        Some(_) => Ok(None),
        None => pass.run(),
    };
    pass.count(&mut status);
    if let Some(Step::Delete(_)) = result.as_ref().ok().copied().flatten() {
        status.current_replicas -= 1;
    }
    (status, result.map(|_| ()))
}

impl Pass<'_, '_> {
    fn count(&self, status: &mut StatefulSetStatus) {
        let set = self.pc.set;
        let min_ready = set.spec.min_ready_seconds.unwrap_or(0);
        let pods = self
            .replicas
            .values()
            .chain(self.condemned.iter().map(|(_, o)| o))
            .filter_map(|o| pod_of(o));
        count(status, min_ready, self.pc.now, pods);
    }

    /// The first unhealthy replica (a missing one is), else the lowest unhealthy condemned.
    fn first_unhealthy(&self) -> Option<String> {
        let set = self.pc.set;
        let mut expect = set.start_ordinal();
        for (ordinal, o) in &self.replicas {
            if *ordinal != expect {
                return Some(pod_name(set, expect));
            }
            if !pod_of(o).is_some_and(is_healthy) {
                return Some(o.name().to_string());
            }
            expect = expect.saturating_add(1);
        }
        if expect <= end_ordinal(set) {
            return Some(pod_name(set, expect));
        }
        self.condemned
            .iter()
            .rev()
            .find(|(_, o)| !pod_of(o).is_some_and(is_healthy))
            .map(|(_, o)| o.name().to_string())
    }

    /// Steps 1 to 4; `Some(step)` when the pass reached the rolling update.
    fn run(&mut self) -> Result<Option<Step>, Requeue> {
        let set = self.pc.set;
        let n = usize::try_from(set.spec.replicas.unwrap_or(1)).unwrap_or(0);
        let start = set.start_ordinal();
        let offset = |i: usize| start.saturating_add(i32::try_from(i).unwrap_or(i32::MAX));
        if self.run_for_all(n, |p, i| p.process_replica(offset(i)))? {
            return Ok(None);
        }
        let c = self.condemned.len();
        if self.run_for_all(c, Self::fix_condemned_claims)? {
            return Ok(None);
        }
        if self.run_for_all(c, Self::process_condemned)? {
            return Ok(None);
        }
        if set.update_strategy() == "OnDelete" {
            return Ok(None);
        }
        let step = next_step(set, n, |i| self.target(offset(i)));
        if let Step::Delete(i) = step {
            if let Some(pod) = self.replicas.get(&offset(i)).cloned() {
                let pod = pod_of(&pod).ok_or(Requeue)?;
                match self.pc.delete_pod(pod) {
                    Err(s) if s.reason() != StatusReason::NotFound => return Err(Requeue),
                    _ => {}
                }
            }
        }
        Ok(Some(step))
    }

    /// `runForAll`: in order, stopping at the first that says so or fails (`OrderedReady`);
    /// else in slow-start batches, stopping after a batch with a failure.
    fn run_for_all(
        &mut self,
        n: usize,
        mut f: impl FnMut(&mut Self, usize) -> Result<bool, Requeue>,
    ) -> Result<bool, Requeue> {
        if self.monotonic {
            for i in 0..n {
                if f(self, i)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        let (mut pos, mut batch) = (0, 1);
        while pos < n {
            let end = n.min(pos + batch);
            let mut failed = false;
            for i in pos..end {
                failed |= f(self, i).is_err();
                if self.creates >= MAX_BATCH_SIZE {
                    return match failed {
                        true => Err(Requeue),
                        false => Ok(true),
                    };
                }
            }
            if failed {
                return Err(Requeue);
            }
            pos = end;
            batch = (2 * batch).min(MAX_BATCH_SIZE);
        }
        Ok(false)
    }

    /// `processReplica`; `Ok(true)` when an `OrderedReady` pass must stop here.
    fn process_replica(&mut self, ordinal: i32) -> Result<bool, Requeue> {
        let Some(obj) = self.replicas.get(&ordinal).cloned() else {
            return self.create(ordinal);
        };
        let Some(pod) = pod_of(&obj) else {
            return Ok(false);
        };
        let terminating = pod.metadata.deletion_timestamp.is_some();
        if is_terminal(pod) {
            // Made again by a later pass, once the old one is gone from the store.
            if !terminating {
                self.pc.delete_pod(pod).map_err(|_| Requeue)?;
            }
            return Ok(true);
        }
        if &*pod.status.phase == "Pending" {
            self.pc.create_missing_claims(&pod.metadata)?;
        }
        let set = self.pc.set;
        if self.monotonic {
            let min_ready = set.spec.min_ready_seconds.unwrap_or(0);
            let available = is_pod_available(pod, min_ready, self.pc.now);
            if terminating || !is_running_and_ready(pod) || !available {
                return Ok(true);
            }
        }
        let retention = self.pc.claims_match_retention(&pod.metadata);
        if identity_matches(set, pod) && storage_matches(set, pod) && retention {
            return Ok(false);
        }
        self.pc.update_pod(pod)?;
        Ok(false)
    }

    /// A missing replica: made at its revision, unless a claim of an earlier pod of the name
    /// is still to be deleted (`PodClaimIsStale`).
    fn create(&mut self, ordinal: i32) -> Result<bool, Requeue> {
        let set = self.pc.set;
        let v = self.v;
        let pod = match made_at_current(set, ordinal) {
            true => new_pod(set, v.current_template, ordinal, v.current),
            false => new_pod(set, v.update_template, ordinal, v.update),
        };
        if self.pc.claim_is_stale(&pod.metadata) {
            return Ok(true);
        }
        self.pc.create_pod(pod)?;
        self.creates += 1;
        Ok(self.monotonic)
    }

    /// Step 2 for one condemned pod.
    fn fix_condemned_claims(&mut self, i: usize) -> Result<bool, Requeue> {
        let Some((_, obj)) = self.condemned.get(i).cloned() else {
            return Ok(false);
        };
        let meta = obj.meta();
        if !self.pc.claims_match_retention(meta) {
            self.pc
                .update_claims_for_retention(meta)
                .map_err(|_| Requeue)?;
        }
        Ok(false)
    }

    /// `processCondemned`: deletes the pod, unless (`OrderedReady`) it is terminating already
    /// or is unhealthy without being the first unhealthy pod.
    fn process_condemned(&mut self, i: usize) -> Result<bool, Requeue> {
        let Some((_, obj)) = self.condemned.get(i).cloned() else {
            return Ok(false);
        };
        let Some(pod) = pod_of(&obj) else {
            return Ok(false);
        };
        if pod.metadata.deletion_timestamp.is_some() {
            return Ok(self.monotonic);
        }
        let first = self.first_unhealthy.as_deref() == Some(pod.metadata.name.as_str());
        let min_ready = self.pc.set.spec.min_ready_seconds.unwrap_or(0);
        let ready = is_running_and_ready(pod) && is_pod_available(pod, min_ready, self.pc.now);
        if self.monotonic && !ready && !first {
            return Ok(true);
        }
        self.pc.delete_pod(pod).map_err(|_| Requeue)?;
        Ok(true)
    }

    /// The replica of `ordinal` as the rolling update sees it; a missing one is being made.
    fn target(&self, ordinal: i32) -> Target {
        match self.replicas.get(&ordinal).and_then(|o| pod_of(o)) {
            Some(p) => Target {
                is_update_revision: pod_revision(p) == self.v.update,
                terminating: p.metadata.deletion_timestamp.is_some(),
                healthy: is_healthy(p),
            },
            None => Target {
                is_update_revision: !made_at_current(self.pc.set, ordinal)
                    || self.v.current == self.v.update,
                terminating: false,
                healthy: false,
            },
        }
    }
}
