//! The TTL-after-finished controller (user agent `ttl-after-finished-controller`,
//! pkg/controller/ttlafterfinished/ttlafterfinished_controller.go): deletes a finished Job
//! whose `spec.ttlSecondsAfterFinished` has run out since it finished (the last transition of
//! its `Complete` or `Failed` condition). A Job added or updated while it needs clean-up is
//! queued; one whose time has not come is queued again for exactly then (`AddAfter` on the
//! virtual clock); one whose time has come is read again fresh from the API server (its TTL may
//! have changed since the cache saw it) and deleted with `propagationPolicy: Foreground` and
//! its uid as precondition, so the garbage collector removes its pods before the Job itself.
//! It reads only the shared Job informer: with no Job in the cluster it does nothing.

use std::sync::Arc;

use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::Requeue;
use crate::api::batch::Job;
use crate::api::{Kind, Object};
use crate::apiserver::{ApiServer, DeleteOptions, Preconditions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;

pub const USER_AGENT: &str = "ttl-after-finished-controller";

/// The TTL-after-finished controller.
pub struct TtlAfterFinishedController {
    jobs: SharedInformer,
}

/// `needsCleanup`: finished, with a TTL, not being deleted.
fn needs_cleanup(job: &Job) -> bool {
    job.metadata.deletion_timestamp.is_none()
        && job.spec.ttl_seconds_after_finished.is_some()
        && job.is_finished()
}

/// `timeLeft`: milliseconds until the Job expires (0: expired); `None` when it needs no
/// clean-up or its finish time is unknown.
fn time_left_ms(job: &Job, now: Timestamp) -> Option<u64> {
    if !needs_cleanup(job) {
        return None;
    }
    let ttl = job.spec.ttl_seconds_after_finished?.max(0) as u64;
    let expire_at = job.finish_time()?.plus_secs(ttl);
    Some(expire_at.millis_since(now))
}

impl TtlAfterFinishedController {
    pub fn new(informers: &SharedInformers) -> Self {
        TtlAfterFinishedController {
            jobs: informers.reader(Kind::Job),
        }
    }

    /// `processJob`: deletes the Job if its TTL has run out, on a fresh read; else when to look
    /// again.
    fn process_job(&self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(cached) = self.jobs.store().get(key) else {
            return Ok(Action::Done);
        };
        match cached.as_job().and_then(|j| time_left_ms(j, now)) {
            None => return Ok(Action::Done),
            Some(0) => {}
            Some(ms) => return Ok(Action::RequeueAfter(ms)),
        }
        // The cache may be stale: the TTL is checked again on the Job as it is now.
        let fresh: Arc<Object> = match api.get(Kind::Job, Some(cached.namespace()), cached.name()) {
            Ok(fresh) => fresh,
            Err(s) if s.code() == 404 => return Ok(Action::Done),
            Err(_) => return Err(Requeue),
        };
        match fresh.as_job().and_then(|j| time_left_ms(j, now)) {
            None => return Ok(Action::Done),
            Some(0) => {}
            Some(ms) => return Ok(Action::RequeueAfter(ms)),
        }
        let opts = DeleteOptions {
            propagation_policy: Some("Foreground".into()),
            preconditions: Some(Preconditions {
                uid: Some(fresh.meta().uid.clone()),
                resource_version: None,
            }),
            ..Default::default()
        };
        match api.delete(
            USER_AGENT,
            Kind::Job,
            Some(fresh.namespace()),
            fresh.name(),
            &opts,
        ) {
            Ok(_) => Ok(Action::Done),
            Err(_) => Err(Requeue),
        }
    }
}

impl Reconciler for TtlAfterFinishedController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.jobs).into()]
    }

    /// `addJob`, `updateJob`: a Job needing clean-up is queued (deletions are not handled).
    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        for note in self.jobs.step(now, api) {
            let job = match &note {
                Notification::Add(o) | Notification::Update { new: o, .. } => o.as_job(),
                Notification::Delete(_) => None,
            };
            if job.is_some_and(needs_cleanup) {
                queue.add(note.key());
            }
        }
    }

    fn has_synced(&self) -> bool {
        self.jobs.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.process_job(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        self.jobs.next_wakeup()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::batch::{JobCondition, JOB_COMPLETE};

    #[test]
    fn a_finished_job_expires_ttl_seconds_after_its_finish() {
        let mut job = Job::default();
        job.spec.ttl_seconds_after_finished = Some(30);
        assert_eq!(time_left_ms(&job, Timestamp::ZERO), None, "not finished");
        job.status.conditions.push(JobCondition {
            type_: JOB_COMPLETE.into(),
            status: "True".into(),
            last_transition_time: Some(Timestamp::from_millis(10_500)),
            ..Default::default()
        });
        assert_eq!(time_left_ms(&job, Timestamp::from_secs(20)), Some(20_500));
        assert_eq!(time_left_ms(&job, Timestamp::from_millis(40_500)), Some(0));
        job.metadata.deletion_timestamp = Some(Timestamp::from_secs(41));
        assert_eq!(time_left_ms(&job, Timestamp::from_secs(41)), None);
    }
}
