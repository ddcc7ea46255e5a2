//! The Job's pods brought to what it wants (`manageJob`): a suspended Job's active pods
//! deleted; otherwise as many active as `parallelism` allows and never more than the
//! completions still to go (`min(completions - succeeded, parallelism)`), surplus pods deleted
//! (the least advanced first, `controller.ActivePods`; for an Indexed Job, pods repeating an
//! index or out of range first), missing ones created in slow-start batches (1, 2, 4, …) once
//! the failure back-off has passed — recorded as expectations so that a create the cache has
//! not shown yet is not made twice. A pod is made from the template with `generateName:
//! <job>-` (Indexed: `<job>-<index>-`, the index as annotation and label), the
//! `batch.kubernetes.io/job-tracking` finalizer and the Job as controller; `SuccessfulCreate`
//! and `SuccessfulDelete` events as `RealPodControl` records them.

use std::cmp::Reverse;
use std::sync::Arc;

use super::claim::job_controller_ref;
use super::indexes::{completion_index, first_pending_indexes};
use super::sync::{is_terminating, only_replace_failed, pods_of, SyncCtx};
use super::{
    has_tracking_finalizer, remove_tracking_finalizer, JobController,
    MAX_POD_CREATE_DELETE_PER_SYNC, SYNC_JOB_BATCH_PERIOD_MS, USER_AGENT,
};
use crate::api::batch::{Job, JOB_COMPLETION_INDEX, JOB_TRACKING_FINALIZER};
use crate::api::meta::OwnerReferences;
use crate::api::pod::{is_pod_ready, Pod};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::controllers::Requeue;
use watchlab_apimachinery::sort;

/// `names.MaxGeneratedNameLength`: a `generateName` is cut to this before the random suffix.
const MAX_GENERATED_NAME_LENGTH: usize = 58;

impl JobController {
    /// `manageJob`: the active count after its creates or deletes, and whether any failed.
    pub(super) fn manage_job(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
    ) -> (i32, Result<(), Requeue>) {
        let active = ctx.active.len() as i32;
        if ctx.job.is_suspended() {
            let all = active_pods_for_removal(&ctx.job, &ctx.active, ctx.active.len());
            return self.delete_surplus(now, api, ctx, all, active);
        }
        let want = want_active(&ctx.job, ctx.succeeded, active);
        let mut surplus =
            active_pods_for_removal(&ctx.job, &ctx.active, (active - want).max(0) as usize);
        surplus.truncate(MAX_POD_CREATE_DELETE_PER_SYNC);
        if !surplus.is_empty() {
            // A sync either deletes or creates, deletion first.
            return self.delete_surplus(now, api, ctx, surplus, active);
        }
        // With `podReplacementPolicy: Failed` a terminating pod is not replaced yet.
        let terminating = match only_replace_failed(&ctx.job) {
            true => ctx.terminating,
            false => 0,
        };
        let diff = want - terminating - active;
        if diff <= 0 {
            return (active, Ok(()));
        }
        let wait_ms = ctx.new_backoff.remaining_ms(now);
        if wait_ms > 0 {
            // Upstream reports no active pod while the replacement waits out its back-off.
            ctx.requeue_after(wait_ms.max(SYNC_JOB_BATCH_PERIOD_MS));
            return (0, Ok(()));
        }
        let diff = (diff as usize).min(MAX_POD_CREATE_DELETE_PER_SYNC);
        self.create_pods(now, api, ctx, diff, active)
    }

    /// Deletes `pods` (a suspended Job's, or the surplus), expecting their deletions.
    fn delete_surplus(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
        pods: Vec<Arc<Object>>,
        active: i32,
    ) -> (i32, Result<(), Requeue>) {
        self.expect(&ctx.key, 0, pods.len() as i64, now);
        let (ready, removed, outcome) = self.delete_job_pods(now, api, ctx, &pods);
        ctx.terminating += removed;
        ctx.ready -= ready;
        (active - removed, outcome)
    }

    /// `deleteJobPods`: each pod's finalizer removed, then the pod deleted (ready ones counted).
    fn delete_job_pods(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &SyncCtx,
        pods: &[Arc<Object>],
    ) -> (i32, i32, Result<(), Requeue>) {
        let (mut ready, mut removed, mut outcome) = (0, pods.len() as i32, Ok(()));
        let mut failed = |code: u16, this: &mut Self| {
            // The informer will not show this deletion.
            this.observe(&ctx.key, 0, 1);
            if code != 404 {
                removed -= 1;
                outcome = Err(Requeue);
            }
        };
        for pod in pods_of(pods) {
            if has_tracking_finalizer(pod) {
                if let Err(s) = remove_tracking_finalizer(api, pod) {
                    failed(s.code(), self);
                    continue;
                }
            }
            if let Err(code) = self.delete_pod_with_event(now, api, &ctx.obj, pod) {
                failed(code, self);
            }
            if is_pod_ready(pod) {
                ready += 1;
            }
        }
        (ready, removed, outcome)
    }

    /// `deleteActivePods`: a finished Job's active pods deleted, their finalizers kept (the
    /// status tracking removes them); the ready ones counted.
    pub(super) fn delete_active_pods(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &SyncCtx,
    ) -> (i32, i32, Result<(), Requeue>) {
        let (mut ready, mut deleted, mut outcome) = (0, ctx.active.len() as i32, Ok(()));
        for pod in pods_of(&ctx.active) {
            if self
                .delete_pod_with_event(now, api, &ctx.obj, pod)
                .is_err_and(|code| code != 404)
            {
                deleted -= 1;
                outcome = Err(Requeue);
            }
            if is_pod_ready(pod) {
                ready += 1;
            }
        }
        (ready, deleted, outcome)
    }

    /// `RealPodControl.DeletePod`: the delete and its event; the failure's status code.
    fn delete_pod_with_event(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        job: &Object,
        pod: &Pod,
    ) -> Result<(), u16> {
        let name = &pod.metadata.name;
        let ns = Some(pod.metadata.namespace.as_str());
        match api.delete(USER_AGENT, Kind::Pod, ns, name, &DeleteOptions::default()) {
            Ok(_) => {
                let msg = format!("Deleted pod: {name}");
                self.recorder
                    .record(api, now, job, EventType::Normal, "SuccessfulDelete", &msg);
                Ok(())
            }
            Err(s) if s.code() == 404 => Err(404),
            Err(s) => {
                let msg = format!("Error deleting: {}", s.message());
                self.recorder
                    .record(api, now, job, EventType::Warning, "FailedDelete", &msg);
                Err(s.code())
            }
        }
    }

    /// Creates `diff` pods (an Indexed Job: the first pending indexes) in slow-start batches;
    /// a failing batch stops the rest. The active count after them.
    fn create_pods(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &mut SyncCtx,
        diff: usize,
        active: i32,
    ) -> (i32, Result<(), Requeue>) {
        let mut indexes = Vec::new();
        if ctx.job.is_indexed() {
            let replace_failed = only_replace_failed(&ctx.job);
            let busy = pods_of(&ctx.active)
                .chain(pods_of(&ctx.pods).filter(|p| replace_failed && is_terminating(p)));
            let completions = ctx.job.spec.completions.unwrap_or(0);
            indexes = first_pending_indexes(&ctx.succeeded_indexes, busy, diff, completions);
        }
        let mut pending: Vec<Option<i32>> = match ctx.job.is_indexed() {
            true => indexes.into_iter().map(Some).collect(),
            false => vec![None; diff],
        };
        pending.reverse();
        let total = pending.len();
        self.expect(&ctx.key, total as i64, 0, now);
        let mut made = 0;
        let mut outcome = Ok(());
        let mut batch = total.min(1);
        while batch > 0 {
            let mut errors = 0;
            for _ in 0..batch {
                let index = pending.pop().flatten();
                match self.create_pod(now, api, ctx, index) {
                    true => made += 1,
                    false => {
                        errors += 1;
                        self.observe(&ctx.key, 1, 0);
                    }
                }
            }
            if errors > 0 {
                outcome = Err(Requeue);
                // The creates never tried will never be observed either.
                self.observe(&ctx.key, pending.len() as i64, 0);
                break;
            }
            batch = (2 * batch).min(pending.len());
        }
        (active + made, outcome)
    }

    /// `CreatePodsWithGenerateName` and its event; false if the create failed.
    fn create_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        ctx: &SyncCtx,
        index: Option<i32>,
    ) -> bool {
        let pod = pod_from_template(&ctx.job, index);
        let (kind, reason, msg) = match api.create(USER_AGENT, Object::Pod(pod)) {
            Ok(created) => (
                EventType::Normal,
                "SuccessfulCreate",
                format!("Created pod: {}", created.name()),
            ),
            Err(s) => (
                EventType::Warning,
                "FailedCreate",
                format!("Error creating: {}", s.message()),
            ),
        };
        self.recorder.record(api, now, &ctx.obj, kind, reason, &msg);
        kind == EventType::Normal
    }
}

/// How many active pods the Job wants: `parallelism`, never more than the completions left;
/// without `completions`, once one pod succeeded, whatever runs.
fn want_active(job: &Job, succeeded: i32, active: i32) -> i32 {
    let parallelism = job.spec.parallelism.unwrap_or(1);
    match job.spec.completions {
        None if succeeded > 0 => active,
        None => parallelism,
        Some(c) => (c - succeeded).min(parallelism).max(0),
    }
}

/// `activePodsForRemoval`: an Indexed Job's pods without a valid index or repeating one (all
/// but the most advanced of each index), then the least advanced of the rest, `at_least` in
/// all.
pub(super) fn active_pods_for_removal(
    job: &Job,
    pods: &[Arc<Object>],
    at_least: usize,
) -> Vec<Arc<Object>> {
    let (mut rm, mut left) = match job.is_indexed() {
        true => duplicated_index_pods(pods, job.spec.completions.unwrap_or(0)),
        false => (Vec::new(), pods.to_vec()),
    };
    if rm.len() < at_least {
        left.sort_by_cached_key(|o| o.as_pod().map(active_pods_rank));
        let more = at_least - rm.len();
        rm.extend(left.into_iter().take(more));
    }
    rm
}

/// `appendDuplicatedIndexPodsForRemoval`: (to remove, to keep).
fn duplicated_index_pods(
    pods: &[Arc<Object>],
    completions: i32,
) -> (Vec<Arc<Object>>, Vec<Arc<Object>>) {
    let index = |o: &Arc<Object>| o.as_pod().and_then(completion_index);
    let mut sorted = pods.to_vec();
    sort::sort_by_key(&mut sorted, |o| index(o).map_or(-1, i64::from));
    let (mut rm, mut keep) = (Vec::new(), Vec::new());
    let mut group: Vec<Arc<Object>> = Vec::new();
    let flush = |group: &mut Vec<Arc<Object>>, rm: &mut Vec<_>, keep: &mut Vec<_>| {
        group.sort_by_cached_key(|o| o.as_pod().map(active_pods_rank));
        if let Some(best) = group.pop() {
            keep.push(best);
        }
        rm.append(group);
    };
    for o in sorted {
        match index(&o) {
            None => rm.push(o),
            Some(ix) if ix >= completions => rm.push(o),
            Some(ix) => {
                if group.first().is_some_and(|g| index(g) != Some(ix)) {
                    flush(&mut group, &mut rm, &mut keep);
                }
                group.push(o);
            }
        }
    }
    flush(&mut group, &mut rm, &mut keep);
    (rm, keep)
}

/// `controller.ActivePods` order, the one to delete first lowest: unscheduled, then Pending
/// before Unknown before Running, not ready, ready for less time, more restarts, newer.
fn active_pods_rank(p: &Pod) -> (u8, u8, u8, Reverse<u64>, Reverse<i32>, Reverse<u64>, String) {
    let scheduled = u8::from(!p.spec.node_name.is_empty());
    let phase = match &*p.status.phase {
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    };
    let ready = is_pod_ready(p);
    let ready_since = p
        .condition("Ready")
        .filter(|_| ready)
        .and_then(|c| c.last_transition_time)
        .map_or(u64::MAX, |t| t.as_millis());
    let restarts = p
        .status
        .container_statuses
        .iter()
        .map(|s| s.restart_count)
        .max()
        .unwrap_or(0);
    let created = p
        .metadata
        .creation_timestamp
        .map_or(u64::MAX, |t| t.as_millis());
    (
        scheduled,
        phase,
        u8::from(ready),
        Reverse(ready_since),
        Reverse(restarts),
        Reverse(created),
        p.metadata.name.clone(),
    )
}

/// `GetPodFromTemplate` for the Job: the template's labels, annotations and spec, its
/// finalizers and the tracking one, the Job as controller; an Indexed Job's index.
fn pod_from_template(job: &Job, index: Option<i32>) -> Pod {
    let t = &job.spec.template;
    let mut meta = ObjectMeta {
        generate_name: Arc::from(format!("{}-", job.metadata.name)),
        namespace: job.metadata.namespace.clone(),
        labels: t.metadata.labels.clone(),
        annotations: t.metadata.annotations.clone(),
        finalizers: t.metadata.finalizers.clone(),
        owner_references: OwnerReferences::from(vec![job_controller_ref(&job.metadata)]),
        ..Default::default()
    };
    if !meta.finalizers.iter().any(|f| f == JOB_TRACKING_FINALIZER) {
        meta.finalizers.push(JOB_TRACKING_FINALIZER.to_string());
    }
    if let Some(ix) = index {
        meta.annotations
            .insert(JOB_COMPLETION_INDEX.into(), ix.to_string());
        meta.labels
            .insert(JOB_COMPLETION_INDEX.into(), ix.to_string());
        meta.generate_name = Arc::from(generate_name_with_index(&job.metadata.name, ix));
    }
    Pod {
        metadata: meta,
        spec: Arc::new(t.spec.clone()),
        status: Default::default(),
    }
}

/// `podGenerateNameWithIndex`: `<job>-<index>-`, the Job's name cut so the whole fits.
fn generate_name_with_index(job: &str, index: i32) -> String {
    let suffix = format!("-{index}-");
    let mut prefix = format!("{job}{suffix}");
    if prefix.len() > MAX_GENERATED_NAME_LENGTH {
        let keep = MAX_GENERATED_NAME_LENGTH.saturating_sub(suffix.len());
        let cut = job.char_indices().nth(keep).map_or(job.len(), |(i, _)| i);
        prefix = format!("{}{suffix}", &job[..cut]);
    }
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_indexed_pod_name_keeps_its_index_when_the_job_name_is_long() {
        assert_eq!(generate_name_with_index("pi", 3), "pi-3-");
        let long = "a".repeat(70);
        let name = generate_name_with_index(&long, 12);
        assert_eq!(name.len(), MAX_GENERATED_NAME_LENGTH);
        assert!(name.ends_with("a-12-"));
    }
}
