//! One Job's sync (`syncJob`): what the pods say (active, ready, terminating, newly succeeded
//! and failed), whether the Job is finished and how, and then either the deletion of its
//! active pods (it failed, or met its success criteria) or the management of its pods and its
//! `Suspended` condition; the status is written by [`super::tracking`].
//!
//! v1.32 finishes a Job in two steps (`delayTerminalCondition` holds, JobManagedBy and
//! JobPodReplacementPolicy being on by default): first an interim condition —
//! `SuccessCriteriaMet` (reason `CompletionsReached`, or `SuccessPolicy`) or `FailureTarget`
//! (`BackoffLimitExceeded`, `DeadlineExceeded`, `PodFailurePolicy`) — then, once every pod is
//! counted and none is terminating, `Complete` or `Failed` with the same reason and message.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::backoff::BackoffRecord;
use super::indexes::{self, valid_index, OrderedIntervals};
use super::pod_failure_policy::match_pod_failure_policy;
use super::{has_tracking_finalizer, managed_by_external, JobController};
use crate::api::batch::{
    Job, JobCondition, INDEXED, JOB_FAILED, JOB_FAILURE_TARGET, JOB_SUCCESS_CRITERIA_MET,
    JOB_SUSPENDED, NON_INDEXED,
};
use crate::api::pod::{is_pod_ready, Pod};
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::controllers::podutil;
use crate::controllers::runtime::{Action, Reconciled};
use crate::controllers::Requeue;

/// `JobReasonCompletionsReached` and its message.
pub const COMPLETIONS_REACHED: (&str, &str) = (
    "CompletionsReached",
    "Reached expected number of succeeded pods",
);
/// `JobReasonBackoffLimitExceeded`.
pub const BACKOFF_LIMIT_EXCEEDED: (&str, &str) = (
    "BackoffLimitExceeded",
    "Job has reached the specified backoff limit",
);
/// `JobReasonDeadlineExceeded`.
pub const DEADLINE_EXCEEDED: (&str, &str) = (
    "DeadlineExceeded",
    "Job was active longer than specified deadline",
);
/// `JobReasonPodFailurePolicy`.
pub const POD_FAILURE_POLICY: &str = "PodFailurePolicy";
/// `JobReasonSuccessPolicy`.
pub const SUCCESS_POLICY: &str = "SuccessPolicy";

/// The UIDs `status.uncountedTerminatedPods` held when the sync began.
#[derive(Default)]
pub(super) struct Uncounted {
    pub succeeded: BTreeSet<String>,
    pub failed: BTreeSet<String>,
}

/// What one sync knows (`syncJobCtx`).
pub(super) struct SyncCtx {
    pub key: ObjectKey,
    /// The Job as the sync changes it; its status is written back.
    pub job: Job,
    /// The Job object its events are about (the version last read or written).
    pub obj: Arc<Object>,
    /// Its pods (claimed), and the active ones among them.
    pub pods: Vec<Arc<Object>>,
    pub active: Vec<Arc<Object>>,
    /// The expectations were met when the sync began.
    pub satisfied: bool,
    pub finished: Option<JobCondition>,
    pub succeeded: i32,
    pub failed: i32,
    pub prev_succeeded_indexes: OrderedIntervals,
    pub succeeded_indexes: OrderedIntervals,
    pub new_backoff: BackoffRecord,
    pub expected_rm_finalizers: BTreeSet<String>,
    pub uncounted: Uncounted,
    pub terminating: i32,
    pub ready: i32,
    /// The earliest the Job must be looked at again (`queue.AddAfter`).
    pub requeue_ms: Option<u64>,
}

impl SyncCtx {
    /// The sync of `job` (a copy of `obj`) over its claimed `pods`, nothing counted yet.
    fn new(
        key: &ObjectKey,
        job: Job,
        obj: Arc<Object>,
        pods: Vec<Arc<Object>>,
        satisfied: bool,
        expected_rm_finalizers: BTreeSet<String>,
    ) -> SyncCtx {
        let active: Vec<Arc<Object>> = pods
            .iter()
            .filter(|o| o.as_pod().is_some_and(podutil::is_active))
            .cloned()
            .collect();
        let uncounted = job
            .status
            .uncounted_terminated_pods
            .clone()
            .unwrap_or_default();
        SyncCtx {
            key: key.clone(),
            ready: pods_of(&active).filter(|p| is_pod_ready(p)).count() as i32,
            terminating: pods_of(&pods).filter(|p| is_terminating(p)).count() as i32,
            uncounted: Uncounted {
                succeeded: uncounted.succeeded.into_iter().collect(),
                failed: uncounted.failed.into_iter().collect(),
            },
            expected_rm_finalizers,
            job,
            obj,
            pods,
            active,
            satisfied,
            finished: None,
            succeeded: 0,
            failed: 0,
            prev_succeeded_indexes: OrderedIntervals::default(),
            succeeded_indexes: OrderedIntervals::default(),
            new_backoff: BackoffRecord::default(),
            requeue_ms: None,
        }
    }

    pub fn requeue_after(&mut self, ms: u64) {
        self.requeue_ms = Some(self.requeue_ms.map_or(ms, |r| r.min(ms)));
    }
}

/// The pods among `objs`.
pub(super) fn pods_of(objs: &[Arc<Object>]) -> impl Iterator<Item = &Pod> {
    objs.iter().filter_map(|o| o.as_pod())
}

/// `newCondition`: True, probed and changed now.
pub(super) fn new_condition(
    type_: &str,
    reason: &str,
    message: &str,
    now: Timestamp,
) -> JobCondition {
    JobCondition {
        type_: type_.into(),
        status: "True".into(),
        last_probe_time: Some(now),
        last_transition_time: Some(now),
        reason: reason.into(),
        message: message.into(),
    }
}

/// The condition of `type_` if it is True.
pub(super) fn true_condition<'a>(job: &'a Job, type_: &str) -> Option<&'a JobCondition> {
    job.status
        .conditions
        .iter()
        .find(|c| c.type_ == type_ && c.status == "True")
}

/// `ensureJobConditionStatus`: sets the condition's status, reason and message (a new
/// transition when any differs); a False condition is never added. True if it changed.
pub(super) fn ensure_condition(
    list: &mut Vec<JobCondition>,
    type_: &str,
    status: &str,
    (reason, message): (&str, &str),
    now: Timestamp,
) -> bool {
    let mut new = new_condition(type_, reason, message, now);
    new.status = status.into();
    match list.iter_mut().find(|c| c.type_ == type_) {
        Some(c) if c.status != status || c.reason != reason || c.message != message => {
            *c = new;
            true
        }
        Some(_) => false,
        None if status != "False" => {
            list.push(new);
            true
        }
        None => false,
    }
}

/// `onlyReplaceFailedPods`: `podReplacementPolicy: Failed`, or a pod failure policy.
pub(super) fn only_replace_failed(job: &Job) -> bool {
    job.spec.pod_replacement_policy.as_deref() == Some("Failed")
        || job.spec.pod_failure_policy.is_some()
}

/// `isPodFailed`: Failed, or (unless only failed pods are replaced) deleted before it
/// succeeded.
pub(super) fn is_pod_failed(p: &Pod, job: &Job) -> bool {
    if &*p.status.phase == "Failed" {
        return true;
    }
    if only_replace_failed(job) {
        return false;
    }
    p.metadata.deletion_timestamp.is_some() && &*p.status.phase != "Succeeded"
}

/// `controller.IsPodTerminating`: being deleted, not yet terminal.
pub(super) fn is_terminating(p: &Pod) -> bool {
    p.metadata.deletion_timestamp.is_some() && !podutil::is_terminal(p)
}

impl JobController {
    /// `syncJob`.
    pub(super) fn sync_job(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
    ) -> Reconciled {
        let Some(mut ctx) = self.begin(now, api, key)? else {
            return Ok(Action::Done);
        };
        self.decide_finish(now, &mut ctx);
        let (active, managed, suspend_changed) = self.act(now, api, &mut ctx);
        let status = &mut ctx.job.status;
        let needs_update = suspend_changed
            || active != status.active
            || status.ready != Some(ctx.ready)
            || status.terminating != Some(ctx.terminating);
        status.active = active;
        status.ready = Some(ctx.ready);
        status.terminating = Some(ctx.terminating);
        self.track_job_status_and_remove_finalizers(now, api, &mut ctx, needs_update)?;
        managed?;
        Ok(ctx
            .requeue_ms
            .map_or(Action::Done, |ms| Action::RequeueAfter(ms.max(1))))
    }

    /// The sync up to its decisions: the Job to sync, its pods claimed and counted.
    fn begin(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
    ) -> Result<Option<SyncCtx>, Requeue> {
        let Some(obj) = self.job_to_sync(now, api, key) else {
            return Ok(None);
        };
        let Some(mut job) = obj.as_job().cloned() else {
            return Ok(None);
        };
        job.status
            .uncounted_terminated_pods
            .get_or_insert_with(Default::default);
        // Checked before the pods are read: a pod arriving after the check defers the sync.
        let satisfied = self.satisfied(key, now);
        let pods = self.pods_for_job(api, &job)?;
        let expected = self.finalizer_expectations.get(key).cloned();
        let mut ctx = SyncCtx::new(key, job, obj, pods, satisfied, expected.unwrap_or_default());
        self.count(now, &mut ctx);
        Ok(Some(ctx))
    }

    /// The Job to sync: none when it is gone (its expectations and back-off forgotten),
    /// finished, managed by another controller, or of an unknown completion mode.
    fn job_to_sync(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
    ) -> Option<Arc<Object>> {
        let Some(obj) = self.jobs.store().get(key) else {
            self.expectations.remove(key);
            self.finalizer_expectations.remove(key);
            self.backoff.remove(key);
            return None;
        };
        let job = obj.as_job().filter(|j| !managed_by_external(j))?;
        if job.is_finished() {
            self.backoff.remove(key);
            return None;
        }
        let mode = job.spec.completion_mode.as_deref();
        if mode.is_some_and(|m| m != NON_INDEXED && m != INDEXED) {
            let msg = "Skipped Job sync because completion mode is unknown";
            let reason = "UnknownCompletionMode";
            self.recorder
                .record(api, now, &obj, EventType::Warning, reason, msg);
            return None;
        }
        Some(obj)
    }

    /// The counts with the newly finished pods, the start time, the back-off record, and an
    /// Indexed Job's succeeded indexes.
    fn count(&self, now: Timestamp, ctx: &mut SyncCtx) {
        let (new_succeeded, new_failed) = new_finished_pods(ctx);
        let policy = ctx.job.spec.pod_failure_policy.as_ref();
        let counted_failures = new_failed
            .iter()
            .filter(|p| match_pod_failure_policy(policy, p).count)
            .count();
        let status = &ctx.job.status;
        let succeeded =
            status.succeeded + (new_succeeded.len() + ctx.uncounted.succeeded.len()) as i32;
        let failed = status.failed + (counted_failures + ctx.uncounted.failed.len()) as i32;
        let record = self.backoff.get(&ctx.key).copied().unwrap_or_default();
        let new_backoff = record.after(&new_succeeded, &new_failed);
        (ctx.succeeded, ctx.failed, ctx.new_backoff) = (succeeded, failed, new_backoff);
        if ctx.job.status.start_time.is_none() && !ctx.job.is_suspended() {
            ctx.job.status.start_time = Some(now);
        }
        if ctx.job.is_indexed() {
            let completions = ctx.job.spec.completions.unwrap_or(0);
            let (prev, all) = indexes::succeeded_indexes(
                &ctx.job.status.completed_indexes,
                completions,
                pods_of(&ctx.pods),
                has_tracking_finalizer,
            );
            ctx.succeeded = all.total();
            ctx.prev_succeeded_indexes = prev;
            ctx.succeeded_indexes = all;
        }
    }

    /// Whether, and how, the Job is finished: met its success criteria before, a failure
    /// target, a pod matching a FailJob rule, the back-off limit, the active deadline (or when
    /// to look again for it), a success policy.
    fn decide_finish(&self, now: Timestamp, ctx: &mut SyncCtx) {
        let mut requeue = None;
        let job = &ctx.job;
        ctx.finished = true_condition(job, JOB_SUCCESS_CRITERIA_MET).cloned();
        if ctx.finished.is_none() {
            if let Some(target) = true_condition(job, JOB_FAILURE_TARGET) {
                ctx.finished = Some(new_condition(
                    JOB_FAILED,
                    &target.reason,
                    &target.message,
                    now,
                ));
            } else if let Some(msg) = fail_job_message(job, &ctx.pods) {
                ctx.finished = Some(new_condition(
                    JOB_FAILURE_TARGET,
                    POD_FAILURE_POLICY,
                    &msg,
                    now,
                ));
            }
        }
        if ctx.finished.is_none() {
            let failure = |(reason, message): (&str, &str)| {
                Some(new_condition(JOB_FAILURE_TARGET, reason, message, now))
            };
            if ctx.failed > job.spec.backoff_limit.unwrap_or(6)
                || past_backoff_limit_on_failure(job, &ctx.pods)
            {
                ctx.finished = failure(BACKOFF_LIMIT_EXCEEDED);
            } else if let Some(left) = deadline_left_ms(job, now) {
                match left {
                    0 => ctx.finished = failure(DEADLINE_EXCEEDED),
                    ms => requeue = Some(ms),
                }
            }
        }
        let job = &ctx.job;
        if ctx.finished.is_none() && job.is_indexed() {
            let completions = job.spec.completions.unwrap_or(0);
            if let Some(msg) = match_success_policy(job, completions, &ctx.succeeded_indexes) {
                ctx.finished = Some(new_condition(
                    JOB_SUCCESS_CRITERIA_MET,
                    SUCCESS_POLICY,
                    &msg,
                    now,
                ));
            }
        }
        if let Some(ms) = requeue {
            ctx.requeue_after(ms);
        }
    }

    /// A finished Job's active pods deleted; else its pods managed, its completion decided
    /// and its `Suspended` condition kept. The active count, the management's outcome, and
    /// whether the `Suspended` condition changed.
    fn act(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
    ) -> (i32, Result<(), Requeue>, bool) {
        let mut active = ctx.active.len() as i32;
        if ctx.finished.is_some() {
            let (ready, deleted, outcome) = self.delete_active_pods(now, api, ctx);
            // Not finished yet while pods remain, or some are not in the cache yet.
            if deleted != active || !ctx.satisfied {
                ctx.finished = None;
            }
            ctx.terminating += deleted;
            ctx.ready -= ready;
            return (active - deleted, outcome, false);
        }
        let mut outcome = Ok(());
        let managed = ctx.satisfied && ctx.job.metadata.deletion_timestamp.is_none();
        if managed {
            (active, outcome) = self.manage_job(now, api, ctx);
        }
        let complete = match ctx.job.spec.completions {
            None => ctx.succeeded > 0 && active == 0,
            Some(c) => ctx.succeeded >= c && active == 0,
        };
        if complete {
            let (reason, message) = COMPLETIONS_REACHED;
            ctx.finished = Some(new_condition(
                JOB_SUCCESS_CRITERIA_MET,
                reason,
                message,
                now,
            ));
            return (active, outcome, false);
        }
        let changed = managed && self.keep_suspended_condition(now, api, ctx);
        (active, outcome, changed)
    }

    /// The `Suspended` condition: True (`JobSuspended`) while suspended, False (`JobResumed`)
    /// once resumed, which also restarts `startTime` (the active deadline counts from there).
    fn keep_suspended_condition(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
    ) -> bool {
        let conditions = &mut ctx.job.status.conditions;
        let (status, reason, event) = match ctx.job.spec.suspend == Some(true) {
            true => ("True", ("JobSuspended", "Job suspended"), "Suspended"),
            false => ("False", ("JobResumed", "Job resumed"), "Resumed"),
        };
        if !ensure_condition(conditions, JOB_SUSPENDED, status, reason, now) {
            return false;
        }
        self.recorder
            .record(api, now, &ctx.obj, EventType::Normal, event, reason.1);
        if status == "False" {
            ctx.job.status.start_time = Some(now);
        }
        true
    }
}

/// `getNewFinishedPods`: the pods still carrying the finalizer, not yet in the uncounted
/// lists nor expected to lose the finalizer (and, Indexed, of a valid index), that succeeded
/// or failed.
fn new_finished_pods(ctx: &SyncCtx) -> (Vec<&Pod>, Vec<&Pod>) {
    let job = &ctx.job;
    let completions = job.spec.completions.unwrap_or(0);
    let candidates = pods_of(&ctx.pods).filter(|p| {
        has_tracking_finalizer(p)
            && !ctx.expected_rm_finalizers.contains(&p.metadata.uid)
            && (!job.is_indexed() || valid_index(p, completions).is_some())
    });
    let (mut succeeded, mut failed) = (Vec::new(), Vec::new());
    for p in candidates {
        let uid = &p.metadata.uid;
        if &*p.status.phase == "Succeeded" && !ctx.uncounted.succeeded.contains(uid) {
            succeeded.push(p);
        }
        if is_pod_failed(p, job) && !ctx.uncounted.failed.contains(uid) {
            failed.push(p);
        }
    }
    (succeeded, failed)
}

/// `getFailJobMessage`: the message of the first failed pod a FailJob rule matches.
fn fail_job_message(job: &Job, pods: &[Arc<Object>]) -> Option<String> {
    let policy = job.spec.pod_failure_policy.as_ref()?;
    pods_of(pods)
        .filter(|p| is_pod_failed(p, job))
        .find_map(|p| match_pod_failure_policy(Some(policy), p).fail_job)
}

/// `pastBackoffLimitOnFailure`: with `restartPolicy: OnFailure`, the restarts of the running
/// and pending pods' containers reach `backoffLimit` (any restart with a limit of 0).
fn past_backoff_limit_on_failure(job: &Job, pods: &[Arc<Object>]) -> bool {
    if job.spec.template.spec.restart_policy.as_deref() != Some("OnFailure") {
        return false;
    }
    let restarts: i32 = pods_of(pods)
        .filter(|p| matches!(&*p.status.phase, "Running" | "Pending"))
        .flat_map(|p| p.status.container_statuses.iter())
        .map(|s| s.restart_count)
        .sum();
    match job.spec.backoff_limit.unwrap_or(6) {
        0 => restarts > 0,
        limit => restarts >= limit,
    }
}

/// `pastActiveDeadline` and the requeue after it: the milliseconds left before
/// `activeDeadlineSeconds` (0: past it); `None` without a deadline, while suspended.
fn deadline_left_ms(job: &Job, now: Timestamp) -> Option<u64> {
    let ads = job.spec.active_deadline_seconds?;
    let start = job.status.start_time.filter(|_| !job.is_suspended())?;
    let allowed = (ads.max(0) as u64).saturating_mul(1000);
    Some(allowed.saturating_sub(now.millis_since(start)))
}

/// `matchSuccessPolicy`: the first rule whose indexes (or count of them) succeeded.
fn match_success_policy(
    job: &Job,
    completions: i32,
    succeeded: &OrderedIntervals,
) -> Option<String> {
    let policy = job.spec.success_policy.as_ref()?;
    if succeeded.0.is_empty() {
        return None;
    }
    for (index, rule) in policy.rules.iter().enumerate() {
        let met = match &rule.succeeded_indexes {
            Some(text) => {
                let required = OrderedIntervals::parse(text, completions);
                !required.0.is_empty() && {
                    let common = overlap(&required, succeeded);
                    common == required.total() || rule.succeeded_count.is_some_and(|c| common >= c)
                }
            }
            None => rule.succeeded_count.is_some_and(|c| succeeded.total() >= c),
        };
        if met {
            return Some(format!("Matched rules at index {index}"));
        }
    }
    None
}

/// How many indexes two interval sets share (`matchSucceededIndexesRule`'s count).
fn overlap(a: &OrderedIntervals, b: &OrderedIntervals) -> i32 {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.0.get(i), b.0.get(j)) {
        common += (x.last.min(y.last) - x.first.max(y.first) + 1).max(0);
        if x.last < y.last {
            i += 1;
        } else {
            j += 1;
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_is_set_once_and_never_added_false() {
        let mut list = Vec::new();
        let t = Timestamp::from_secs(5);
        let resumed = ("JobResumed", "Job resumed");
        assert!(!ensure_condition(
            &mut list,
            JOB_SUSPENDED,
            "False",
            resumed,
            t
        ));
        let suspended = ("JobSuspended", "Job suspended");
        assert!(ensure_condition(
            &mut list,
            JOB_SUSPENDED,
            "True",
            suspended,
            t
        ));
        assert!(!ensure_condition(
            &mut list,
            JOB_SUSPENDED,
            "True",
            suspended,
            t
        ));
        let later = Timestamp::from_secs(9);
        assert!(ensure_condition(
            &mut list,
            JOB_SUSPENDED,
            "False",
            resumed,
            later
        ));
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].last_transition_time, Some(later));
        assert_eq!(list[0].reason, "JobResumed");
    }
}
