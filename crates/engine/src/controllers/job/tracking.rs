//! How a Job counts its finished pods without losing or doubling one
//! (`trackJobStatusAndRemoveFinalizers`, KEP-2307), the mechanism `kubectl get job -o yaml`
//! shows in `status.uncountedTerminatedPods`:
//! 1. a finished pod still holding the `batch.kubernetes.io/job-tracking` finalizer has its
//!    uid written into `uncountedTerminatedPods.succeeded` / `.failed` (an Indexed Job's
//!    succeeded pods go straight into `completedIndexes`), with the interim `FailureTarget` or
//!    `SuccessCriteriaMet` condition, in one status write;
//! 2. then the finalizers are removed from those pods;
//! 3. then each uid whose pod lost its finalizer moves from the uncounted list into
//!    `succeeded` / `failed`, and once none is left uncounted and no pod is terminating, the
//!    Job gets `Complete` (with `completionTime`) or `Failed`, with the `Completed` event or a
//!    warning named after the failure — a second write.
//!
//! A crash between the steps loses nothing: the uid is recorded before the finalizer goes,
//! and counted only after.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::indexes::{completion_index, valid_index};
use super::pod_failure_policy::match_pod_failure_policy;
use super::sync::{ensure_condition, is_pod_failed, new_condition, true_condition, SyncCtx};
use super::{
    has_tracking_finalizer, remove_tracking_finalizer, JobController, MAX_UNCOUNTED_PODS,
    USER_AGENT,
};
use crate::api::batch::{
    JobStatus, JOB_COMPLETE, JOB_FAILED, JOB_FAILURE_TARGET, JOB_SUCCESS_CRITERIA_MET,
};
use crate::api::pod::Pod;
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::controllers::Requeue;
use watchlab_apimachinery::sort;

/// What the walk over the pods found (step 1).
#[derive(Default)]
struct Finished {
    /// Pods whose finalizer goes in step 2.
    to_remove: Vec<Arc<Object>>,
    /// An Indexed Job's newly succeeded indexes, in order.
    new_indexes: Vec<i32>,
    /// The walk stopped at `MaxUncountedPods`.
    reached_max: bool,
    /// The status changed.
    changed: bool,
}

impl JobController {
    /// `trackJobStatusAndRemoveFinalizers`: `needs_flush` says the sync already changed the
    /// status.
    pub(super) fn track_job_status_and_remove_finalizers(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
        mut needs_flush: bool,
    ) -> Result<(), Requeue> {
        let mut pods = ctx.pods.clone();
        if ctx.job.is_indexed() {
            // Completed indexes are added in order.
            sort::sort_by_key(&mut pods, |o| {
                o.as_pod().and_then(completion_index).map_or(-1, i64::from)
            });
        }
        let mut with_finalizer: BTreeSet<String> = pods
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|p| {
                has_tracking_finalizer(p) && !ctx.expected_rm_finalizers.contains(&p.metadata.uid)
            })
            .map(|p| p.metadata.uid.clone())
            .collect();
        needs_flush |= count_uncounted(&mut ctx.job.status, &with_finalizer);
        let found = walk_finished(ctx, &pods);
        needs_flush |= found.changed;
        needs_flush |= record_indexes(ctx, &found.new_indexes);
        needs_flush |= add_interim_condition(ctx, now);
        needs_flush = self.flush_uncounted_and_remove_finalizers(
            api,
            ctx,
            &found.to_remove,
            &mut with_finalizer,
            needs_flush,
        )?;
        let finished = !found.reached_max && enact_job_finished(ctx, now);
        if finished || needs_flush {
            self.update_status(api, ctx)?;
            if finished {
                self.record_job_finished(api, now, ctx);
            }
        }
        Ok(())
    }

    /// `flushUncountedAndRemoveFinalizers`: writes the status with the new uncounted uids (and
    /// the interim condition), removes the finalizers, and counts the uids whose pods lost
    /// theirs. Whether the status has changes still to write.
    fn flush_uncounted_and_remove_finalizers(
        &mut self,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
        to_remove: &[Arc<Object>],
        with_finalizer: &mut BTreeSet<String>,
        mut needs_flush: bool,
    ) -> Result<bool, Requeue> {
        if needs_flush {
            self.update_status(api, ctx)?;
            self.backoff.insert(ctx.key.clone(), ctx.new_backoff);
            needs_flush = false;
        }
        let mut failed = false;
        let pods: Vec<&Pod> = to_remove.iter().filter_map(|o| o.as_pod()).collect();
        if !pods.is_empty() {
            for (pod, removed) in pods
                .iter()
                .zip(self.remove_finalizers(api, &ctx.key, &pods))
            {
                match removed {
                    Ok(()) => {
                        with_finalizer.remove(&pod.metadata.uid);
                    }
                    Err(()) => failed = true,
                }
            }
        }
        needs_flush |= count_uncounted(&mut ctx.job.status, with_finalizer);
        if failed {
            // Some removals failed: the partial progress is written, and the sync retried.
            if needs_flush {
                self.update_status(api, ctx)?;
            }
            return Err(Requeue);
        }
        Ok(needs_flush)
    }

    /// `removeTrackingFinalizerFromPods`: expects each removal to be observed, then patches;
    /// a pod already gone counts as done.
    fn remove_finalizers(
        &mut self,
        api: &mut ApiServer,
        key: &ObjectKey,
        pods: &[&Pod],
    ) -> Vec<Result<(), ()>> {
        let expected = self.finalizer_expectations.entry(key.clone()).or_default();
        expected.extend(pods.iter().map(|p| p.metadata.uid.clone()));
        pods.iter()
            .map(|pod| match remove_tracking_finalizer(api, pod) {
                Ok(()) => Ok(()),
                Err(s) => {
                    // No update will show this removal.
                    self.finalizer_removal_observed(key, &pod.metadata.uid);
                    match s.code() {
                        404 => Ok(()),
                        _ => Err(()),
                    }
                }
            })
            .collect()
    }

    /// `updateJobStatus`: the sync's Job written through the status subresource (its
    /// resourceVersion a precondition); the written version is what follows.
    fn update_status(&mut self, api: &mut ApiServer, ctx: &mut SyncCtx) -> Result<(), Requeue> {
        let written = api
            .update_status(USER_AGENT, Object::Job(Box::new(ctx.job.clone())))
            .map_err(|_| Requeue)?;
        ctx.job.metadata.resource_version = written.meta().resource_version.clone();
        ctx.obj = written;
        Ok(())
    }

    /// `recordJobFinished`: `Completed` (and `TooManySucceededPods` if more succeeded than
    /// asked), or a warning with the failure's reason and message.
    fn record_job_finished(&mut self, api: &mut ApiServer, now: Timestamp, ctx: &SyncCtx) {
        let Some(cond) = &ctx.finished else { return };
        let job = &ctx.obj;
        if cond.type_ == JOB_COMPLETE {
            let status = &ctx.job.status;
            if ctx
                .job
                .spec
                .completions
                .is_some_and(|c| status.succeeded > c)
            {
                let msg = "Too many succeeded pods running after completion count reached";
                self.recorder.record(
                    api,
                    now,
                    job,
                    EventType::Warning,
                    "TooManySucceededPods",
                    msg,
                );
            }
            self.recorder.record(
                api,
                now,
                job,
                EventType::Normal,
                "Completed",
                "Job completed",
            );
        } else {
            let reason = failure_reason(&cond.reason);
            self.recorder
                .record(api, now, job, EventType::Warning, reason, &cond.message);
        }
    }
}

/// The event reason for a failure condition's reason (the recorder takes static reasons; a
/// reason some other writer put on the Job is recorded as `Failed`).
fn failure_reason(reason: &str) -> &'static str {
    match reason {
        "BackoffLimitExceeded" => "BackoffLimitExceeded",
        "DeadlineExceeded" => "DeadlineExceeded",
        "PodFailurePolicy" => "PodFailurePolicy",
        "MaxFailedIndexesExceeded" => "MaxFailedIndexesExceeded",
        "FailedIndexes" => "FailedIndexes",
        _ => "Failed",
    }
}

/// Step 1's walk: each pod still holding the finalizer that may lose it — it succeeded, it
/// failed, or the Job is finishing or being deleted — is picked for step 2, and its uid
/// recorded as uncounted (a failure only if the pod failure policy counts it; every pod not
/// succeeded counts as failed once the Job fails). At most `MaxUncountedPods` at a time.
fn walk_finished(ctx: &mut SyncCtx, pods: &[Arc<Object>]) -> Finished {
    let mut found = Finished::default();
    let job = &ctx.job;
    let completions = job.spec.completions.unwrap_or(0);
    let failing = ctx
        .finished
        .as_ref()
        .is_some_and(|c| c.type_ != JOB_SUCCESS_CRITERIA_MET);
    let (mut succeeded, mut failed) = (Vec::new(), Vec::new());
    let listed = job
        .status
        .uncounted_terminated_pods
        .as_ref()
        .map_or(0, |u| u.succeeded.len() + u.failed.len());
    for o in pods {
        let Some(pod) = o.as_pod() else { continue };
        let uid = &pod.metadata.uid;
        if !has_tracking_finalizer(pod) || ctx.expected_rm_finalizers.contains(uid) {
            continue;
        }
        let pod_failed = is_pod_failed(pod, job);
        let removable = job.metadata.deletion_timestamp.is_some()
            || ctx.finished.is_some()
            || &*pod.status.phase == "Succeeded"
            || pod_failed;
        if !removable {
            continue;
        }
        found.to_remove.push(o.clone());
        if &*pod.status.phase == "Succeeded" && !ctx.uncounted.failed.contains(uid) {
            if job.is_indexed() {
                let ix =
                    valid_index(pod, completions).filter(|ix| !ctx.prev_succeeded_indexes.has(*ix));
                found.new_indexes.extend(ix);
            } else if !ctx.uncounted.succeeded.contains(uid) {
                succeeded.push(uid.clone());
            }
        } else if (pod_failed || failing)
            && !ctx.uncounted.failed.contains(uid)
            && (!job.is_indexed() || valid_index(pod, completions).is_some())
            && match_pod_failure_policy(job.spec.pod_failure_policy.as_ref(), pod).count
        {
            failed.push(uid.clone());
        }
        if found.new_indexes.len() + succeeded.len() + failed.len() + listed >= MAX_UNCOUNTED_PODS {
            found.reached_max = true;
            break;
        }
    }
    found.changed = !found.new_indexes.is_empty() || !succeeded.is_empty() || !failed.is_empty();
    let list = ctx
        .job
        .status
        .uncounted_terminated_pods
        .get_or_insert_with(Default::default);
    list.succeeded.extend(succeeded);
    list.failed.extend(failed);
    found
}

/// An Indexed Job's `completedIndexes` and `succeeded` with the new indexes; whether they
/// changed.
fn record_indexes(ctx: &mut SyncCtx, new: &[i32]) -> bool {
    if !ctx.job.is_indexed() {
        return false;
    }
    ctx.succeeded_indexes = ctx.succeeded_indexes.with_ordered_indexes(new);
    let text = ctx.succeeded_indexes.to_string();
    let status = &mut ctx.job.status;
    let changed = text != status.completed_indexes || status.failed_indexes.is_some();
    status.succeeded = ctx.succeeded_indexes.total();
    status.completed_indexes = text;
    status.failed_indexes = None;
    changed
}

/// The interim condition written before the finalizers go (`FailureTarget`, or
/// `SuccessCriteriaMet` unless the Job has it), and the final one prepared in its place: the
/// same reason and message as `Failed` or `Complete`. Whether the status changed.
fn add_interim_condition(ctx: &mut SyncCtx, now: Timestamp) -> bool {
    let Some(cond) = ctx.finished.clone() else {
        return false;
    };
    let final_type = match cond.type_.as_str() {
        JOB_FAILURE_TARGET => JOB_FAILED,
        JOB_SUCCESS_CRITERIA_MET => JOB_COMPLETE,
        _ => return false,
    };
    let mut changed = false;
    let known =
        final_type == JOB_COMPLETE && true_condition(&ctx.job, JOB_SUCCESS_CRITERIA_MET).is_some();
    if !known {
        ctx.job.status.conditions.push(cond.clone());
        changed = true;
    }
    ctx.finished = Some(new_condition(final_type, &cond.reason, &cond.message, now));
    changed
}

/// `enactJobFinished`: `Complete` or `Failed` (and `completionTime`) once no pod is left
/// uncounted or terminating; whether the Job finished.
fn enact_job_finished(ctx: &mut SyncCtx, now: Timestamp) -> bool {
    let Some(cond) = ctx.finished.clone() else {
        return false;
    };
    let status = &mut ctx.job.status;
    let uncounted = status.uncounted_terminated_pods.as_ref();
    if uncounted.is_some_and(|u| !u.succeeded.is_empty() || !u.failed.is_empty()) {
        return false;
    }
    if ctx.terminating > 0 {
        return false;
    }
    let reason = (cond.reason.as_str(), cond.message.as_str());
    ensure_condition(&mut status.conditions, &cond.type_, "True", reason, now);
    if cond.type_ == JOB_COMPLETE {
        status.completion_time = cond.last_transition_time;
    }
    true
}

/// `cleanUncountedPodsWithoutFinalizers`: the uids whose pods no longer hold the finalizer
/// leave the uncounted lists for the counts; whether anything moved.
fn count_uncounted(status: &mut JobStatus, with_finalizer: &BTreeSet<String>) -> bool {
    let list = status
        .uncounted_terminated_pods
        .get_or_insert_with(Default::default);
    let (s, f) = (list.succeeded.len(), list.failed.len());
    list.succeeded.retain(|u| with_finalizer.contains(u));
    list.failed.retain(|u| with_finalizer.contains(u));
    let moved_s = (s - list.succeeded.len()) as i32;
    let moved_f = (f - list.failed.len()) as i32;
    status.succeeded += moved_s;
    status.failed += moved_f;
    moved_s + moved_f > 0
}
