//! The CronJob controller (user agent and event source `cronjob-controller`,
//! kube-controller-manager's `pkg/controller/cronjob/cronjob_controllerv2.go` and `utils.go`,
//! v1.32): starts a Job from each CronJob's template at the times its schedule names, and keeps
//! the CronJob's status — the Jobs it runs (`status.active`), when it last started one
//! (`lastScheduleTime`) and when one last succeeded (`lastSuccessfulTime`).
//!
//! A sync (`sync`) reads the CronJob and the Jobs it controls, deletes the oldest finished Jobs
//! past the history limits (`cleanupFinishedJobs`), then `syncCronJob`: the active list is
//! brought in line with the Jobs (a finished one leaves it with `SawCompletedJob`, a vanished one
//! with `MissingJob`); unless the CronJob is being deleted, suspended, or its zone or schedule is
//! bad, the most recent unmet schedule time (`mostRecentScheduleTime`, in
//! [`crate::api::cron_schedule`]) gets a Job named `<cronjob>-<scheduled Unix minutes>` —
//! subject to `startingDeadlineSeconds` and the concurrency policy (Forbid skips while one runs,
//! Replace deletes the running ones first). Whatever happened, the key comes back 100 ms after
//! the next schedule time (`nextScheduleTimeDuration`), so an idle CronJob costs one sync per
//! scheduled time on the virtual clock, never a poll.
//!
//! The Jobs a CronJob controls are found through an index the Job notifications keep (the Jobs
//! whose controller reference is a CronJob, by that CronJob's namespace and name), not by
//! listing the namespace: with no CronJob in the cluster, a Job notification costs a look at its
//! controller reference and nothing else.
//!
//! Deliberate differences: a schedule without a zone runs in UTC (upstream: the
//! kube-controller-manager's local zone); the Jobs are matched by a controller reference of kind
//! CronJob and the CronJob's name (upstream: the name alone, of any kind).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::events::{reference_of, EventRecorder, EventType};
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::batch::{
    CronJob, Job, CRONJOB_SCHEDULED_TIMESTAMP, FORBID_CONCURRENT, JOB_COMPLETE, JOB_FAILED,
    REPLACE_CONCURRENT,
};
use crate::api::cron_schedule::{self, CronJobTimes, Schedule};
use crate::api::meta::{OwnerReference, OwnerReferences};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::{Timestamp, EPOCH_UNIX_SECONDS};
use watchlab_apimachinery::gofmt::go_quote;
use watchlab_apimachinery::rfc3339::civil_from_days;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::status::{Status, StatusReason};

pub const USER_AGENT: &str = "cronjob-controller";

/// `controllerKind`: what a Job's controller reference names.
const CONTROLLER_KIND: &str = "CronJob";
const CONTROLLER_API_VERSION: &str = "batch/v1";

/// `NamespaceTerminatingCause`: a create refused because the namespace is going away.
const NAMESPACE_TERMINATING_CAUSE: &str = "NamespaceTerminating";

/// The CronJob controller.
pub struct CronJobController {
    cronjobs: SharedInformer,
    jobs: SharedInformer,
    /// The names of the Jobs whose controller reference is a CronJob, by that CronJob's
    /// namespace and name (`getJobsToBeReconciled` without listing the namespace).
    children: BTreeMap<ObjectKey, BTreeSet<String>>,
    recorder: EventRecorder,
    /// CronJob syncs so far (a test's meter: one per schedule time, not one per step).
    syncs: u64,
}

/// What `syncCronJob` decided.
#[derive(Debug, Default)]
struct Outcome {
    /// When to look again (`requeueAfter`), 100 ms after the next schedule time.
    requeue_at: Option<Timestamp>,
    /// The status changed and must be written.
    update: bool,
    /// An error: with no requeue time, the key is re-added with back-off.
    failed: bool,
}

/// The CronJob a Job's controller reference names, if it is a CronJob.
fn owner_key(job: &Object) -> Option<ObjectKey> {
    let r = job.meta().controller_ref()?;
    (r.kind == CONTROLLER_KIND).then(|| ObjectKey::new(Some(job.namespace()), &r.name))
}

/// Unix seconds of a virtual instant (floored).
fn unix_secs(t: Timestamp) -> i64 {
    EPOCH_UNIX_SECONDS as i64 + (t.as_millis() / 1000) as i64
}

/// The virtual instant of Unix seconds plus `extra_ms` (instants before the virtual epoch
/// clamp to it).
fn instant(unix: i64, extra_ms: u64) -> Timestamp {
    let secs = unix.saturating_sub(EPOCH_UNIX_SECONDS as i64).max(0) as u64;
    Timestamp::from_secs(secs).plus_millis(extra_ms)
}

/// What `mostRecentScheduleTime` reads of a CronJob.
fn times_of(cj: &CronJob) -> CronJobTimes {
    CronJobTimes {
        creation: unix_secs(cj.metadata.creation_timestamp.unwrap_or_default()),
        last_schedule: cj.status.last_schedule_time.map(unix_secs),
        starting_deadline_seconds: cj.spec.starting_deadline_seconds,
    }
}

/// `getJobName`: `<cronjob>-<scheduled time in Unix minutes>` (`getTimeHashInMinutes`).
pub fn job_name(cronjob: &str, scheduled_unix: i64) -> String {
    format!("{cronjob}-{}", scheduled_unix.div_euclid(60))
}

/// Go's `t.UTC().Format(time.RFC1123Z)`: `Thu, 01 Jan 2026 00:05:00 +0000`.
pub fn rfc1123z_utc(unix: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    let month = MONTHS[(m as usize).saturating_sub(1).min(11)];
    let (h, min, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    format!("{weekday}, {d:02} {month} {y:04} {h:02}:{min:02}:{s:02} +0000")
}

/// `jobutil.FinishedCondition`: the type of the Job's first true Complete or Failed condition.
fn finished_condition(job: &Job) -> Option<&'static str> {
    job.status.conditions.iter().find_map(|c| {
        let finished = c.status == "True";
        match c.type_.as_str() {
            JOB_COMPLETE if finished => Some(JOB_COMPLETE),
            JOB_FAILED if finished => Some(JOB_FAILED),
            _ => None,
        }
    })
}

/// `inActiveList`: the active list holds a Job with this uid.
fn in_active_list(cj: &CronJob, uid: &str) -> bool {
    cj.status.active.iter().any(|r| r.uid == uid)
}

/// `deleteFromActiveList`.
fn delete_from_active_list(cj: &mut CronJob, uid: &str) {
    cj.status.active.retain(|r| r.uid != uid);
}

/// `metav1.IsControlledBy`.
fn is_controlled_by(job: &Object, cj: &CronJob) -> bool {
    job.meta()
        .controller_ref()
        .is_some_and(|r| r.uid == cj.metadata.uid)
}

/// `byJobStartTime`: started Jobs first, oldest first, then by name.
fn by_start_time(a: &Job, b: &Job) -> std::cmp::Ordering {
    let start = |j: &Job| (j.status.start_time.is_none(), j.status.start_time);
    start(a)
        .cmp(&start(b))
        .then_with(|| a.metadata.name.cmp(&b.metadata.name))
}

/// `getJobFromTemplate2`: the template's labels, annotations and spec, the scheduled time as
/// `batch.kubernetes.io/cronjob-scheduled-timestamp` (RFC 3339 in `spec.timeZone`, UTC when
/// unset), and the CronJob as controller (`metav1.NewControllerRef`). `None` when the zone
/// does not load.
fn job_from_template(cj: &CronJob, scheduled_unix: i64) -> Option<Job> {
    let zone = cron_schedule::load_location(cj.spec.time_zone.as_deref().unwrap_or("")).ok()?;
    let template = &cj.spec.job_template;
    let mut annotations = template.metadata.annotations.clone();
    annotations.insert(
        CRONJOB_SCHEDULED_TIMESTAMP.to_string(),
        zone.rfc3339(scheduled_unix),
    );
    let owner = OwnerReference {
        api_version: CONTROLLER_API_VERSION.into(),
        kind: CONTROLLER_KIND.into(),
        name: cj.metadata.name.clone(),
        uid: cj.metadata.uid.clone(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    };
    Some(Job {
        metadata: ObjectMeta {
            name: job_name(&cj.metadata.name, scheduled_unix),
            namespace: cj.metadata.namespace.clone(),
            labels: template.metadata.labels.clone(),
            annotations,
            owner_references: OwnerReferences::from(vec![owner]),
            ..Default::default()
        },
        spec: template.spec.clone(),
        status: Default::default(),
    })
}

/// Whether a create was refused because the namespace is being terminated.
fn namespace_terminating(s: &Status) -> bool {
    s.details.as_ref().is_some_and(|d| {
        d.causes
            .iter()
            .any(|c| c.reason == NAMESPACE_TERMINATING_CAUSE)
    })
}

impl CronJobController {
    pub fn new(informers: &SharedInformers) -> Self {
        CronJobController {
            cronjobs: informers.reader(Kind::CronJob),
            jobs: informers.reader(Kind::Job),
            children: BTreeMap::new(),
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
            syncs: 0,
        }
    }

    /// CronJob syncs so far.
    pub fn syncs(&self) -> u64 {
        self.syncs
    }

    fn event(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        obj: &Object,
        kind: EventType,
        reason: &'static str,
        message: &str,
    ) {
        self.recorder.record(api, now, obj, kind, reason, message);
    }

    /// `resolveControllerRef`: the CronJob `key` names, if it is the one with `uid`.
    fn resolve(&self, key: &ObjectKey, uid: &str) -> bool {
        self.cronjobs
            .store()
            .get(key)
            .is_some_and(|o| o.meta().uid == uid)
    }

    /// `addJob` / `updateJob` / `deleteJob`: files the Job under the CronJob controlling it
    /// (before and after) and queues that CronJob. Jobs controlled by anything else are passed
    /// by at the cost of one look at their controller reference.
    fn on_job(&mut self, note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let (old, new) = match note {
            Notification::Add(o) => (None, Some(o)),
            Notification::Update { old, new } => {
                if old.meta().resource_version == new.meta().resource_version {
                    return;
                }
                (Some(old), Some(new))
            }
            Notification::Delete(d) => (Some(d.object()), None),
        };
        let old_owner = old.and_then(|o| owner_key(o).map(|k| (k, o)));
        let new_owner = new.and_then(|o| owner_key(o).map(|k| (k, o)));
        if let Some((key, o)) = &old_owner {
            if let Some(names) = self.children.get_mut(key) {
                names.remove(o.name());
                if names.is_empty() {
                    self.children.remove(key);
                }
            }
        }
        if let Some((key, o)) = &new_owner {
            let names = self.children.entry(key.clone()).or_default();
            names.insert(o.name().to_string());
        }
        let changed =
            old.map(|o| o.meta().controller_ref()) != new.map(|o| o.meta().controller_ref());
        for (key, o) in [old_owner.filter(|_| changed || new.is_none()), new_owner]
            .into_iter()
            .flatten()
        {
            let uid = o
                .meta()
                .controller_ref()
                .map(|r| r.uid.as_str())
                .unwrap_or("");
            if self.resolve(&key, uid) {
                queue.add(key);
            }
        }
    }

    /// `updateCronJob`: a changed schedule or zone queues the CronJob for its next schedule
    /// time (an unparseable one is reported and not queued); any other change queues it now.
    fn on_cronjob_update(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        old: &Object,
        new: &Arc<Object>,
        queue: &mut WorkQueue<ObjectKey>,
    ) {
        let (Some(o), Some(n)) = (old.as_cron_job(), new.as_cron_job()) else {
            return;
        };
        let key = ObjectKey::of(new);
        if o.spec.schedule == n.spec.schedule && o.spec.time_zone == n.spec.time_zone {
            queue.add(key);
            return;
        }
        match Schedule::for_cron_job(&n.spec.schedule, n.spec.time_zone.as_deref()) {
            Ok(sched) => {
                let at = next_wake(&sched, n, now);
                queue.add_after(key, at.millis_since(now), now);
            }
            Err(_) => {
                let msg = format!("unparseable schedule for cronjob: {}", n.spec.schedule);
                let reason = "UnParseableCronJobSchedule";
                self.event(api, now, new, EventType::Warning, reason, &msg);
            }
        }
    }

    /// `getJobsToBeReconciled`: the Jobs whose controller reference names this CronJob.
    fn jobs_of(&self, key: &ObjectKey) -> Vec<Arc<Object>> {
        let Some(names) = self.children.get(key) else {
            return Vec::new();
        };
        let store = self.jobs.store();
        let (ns, _) = key.split();
        names
            .iter()
            .filter_map(|n| store.get(&ObjectKey::new(ns, n)))
            .filter(|o| o.as_job().is_some())
            .collect()
    }

    /// `sync`: cleans up, syncs, writes the status when either changed it.
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.syncs += 1;
        let Some(obj) = self.cronjobs.store().get(key) else {
            return Ok(Action::Done);
        };
        let Some(cached) = obj.as_cron_job() else {
            return Ok(Action::Done);
        };
        let jobs = self.jobs_of(key);
        let mut cj = cached.clone();
        let cleaned = self.cleanup_finished_jobs(now, api, &obj, &mut cj, &jobs);
        let out = self.sync_cron_job(now, api, &obj, &mut cj, &jobs);
        if cleaned || out.update {
            api.update_status(USER_AGENT, Object::CronJob(Box::new(cj)))
                .map_err(|_| Requeue)?;
        }
        match (out.requeue_at, out.failed) {
            (Some(at), _) => Ok(Action::RequeueAfter(at.millis_since(now).max(1))),
            (None, true) => Err(Requeue),
            (None, false) => Ok(Action::Done),
        }
    }

    /// `cleanupFinishedJobs`: past `successfulJobsHistoryLimit` Complete Jobs and
    /// `failedJobsHistoryLimit` Failed ones, the oldest are deleted; true if any was.
    fn cleanup_finished_jobs(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        jobs: &[Arc<Object>],
    ) -> bool {
        let limits = [
            (JOB_COMPLETE, cj.spec.successful_jobs_history_limit),
            (JOB_FAILED, cj.spec.failed_jobs_history_limit),
        ];
        let mut update = false;
        for (condition, limit) in limits {
            let Some(limit) = limit else { continue };
            let mut finished: Vec<&Job> = jobs
                .iter()
                .filter_map(|o| o.as_job())
                .filter(|j| finished_condition(j) == Some(condition))
                .collect();
            let excess = finished.len().saturating_sub(limit.max(0) as usize);
            if excess == 0 {
                continue;
            }
            sort::sort_by(&mut finished, |a, b| by_start_time(a, b));
            for job in finished.into_iter().take(excess) {
                update |= self.delete_job(now, api, obj, cj, job);
            }
        }
        update
    }

    /// `deleteJob`: deletes the Job (Background propagation: the garbage collector takes its
    /// pods) and drops it from the active list; false if the delete failed.
    fn delete_job(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        job: &Job,
    ) -> bool {
        let opts = DeleteOptions {
            propagation_policy: Some("Background".into()),
            ..Default::default()
        };
        let m = &job.metadata;
        match api.delete(USER_AGENT, Kind::Job, Some(&m.namespace), &m.name, &opts) {
            Ok(_) => {
                delete_from_active_list(cj, &m.uid);
                let msg = format!("Deleted job {}", m.name);
                self.event(api, now, obj, EventType::Normal, "SuccessfulDelete", &msg);
                true
            }
            Err(s) => {
                let msg = format!("Deleted job: {}", s.message());
                self.event(api, now, obj, EventType::Warning, "FailedDelete", &msg);
                false
            }
        }
    }

    /// `syncCronJob`: the active list against the Jobs, then (unless the CronJob is being
    /// deleted) the schedule.
    fn sync_cron_job(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        jobs: &[Arc<Object>],
    ) -> Outcome {
        let mut out = Outcome::default();
        if self
            .reconcile_active(now, api, obj, cj, jobs, &mut out)
            .is_err()
            || self
                .reconcile_missing(now, api, obj, cj, jobs, &mut out)
                .is_err()
        {
            out.failed = true;
            return out;
        }
        if cj.metadata.deletion_timestamp.is_some() {
            return out;
        }
        if let Some(sched) = self.schedule_of(now, api, obj, cj) {
            self.run_schedule(now, api, obj, cj, &sched, &mut out);
        }
        out
    }

    /// `syncCronJob`'s first loop: an unfinished Job missing from the active list is reported
    /// (`UnexpectedJob`) unless the CronJob read afresh lists it; a finished one leaves the
    /// list (`SawCompletedJob`), and a succeeded one moves `lastSuccessfulTime` on.
    fn reconcile_active(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        jobs: &[Arc<Object>],
        out: &mut Outcome,
    ) -> Result<(), Requeue> {
        for job in jobs.iter().filter_map(|o| o.as_job()) {
            let uid = job.metadata.uid.as_str();
            let found = in_active_list(cj, uid);
            let condition = finished_condition(job);
            if !found && condition.is_none() {
                let fresh = api
                    .get(
                        Kind::CronJob,
                        Some(&cj.metadata.namespace),
                        &cj.metadata.name,
                    )
                    .map_err(|_| Requeue)?;
                if let Some(fresh) = fresh.as_cron_job().filter(|f| in_active_list(f, uid)) {
                    // The cache is behind our own status write: go on from the stored CronJob.
                    *cj = fresh.clone();
                    continue;
                }
                let msg = format!(
                    "Saw a job that the controller did not create or forgot: {}",
                    job.metadata.name
                );
                self.event(api, now, obj, EventType::Warning, "UnexpectedJob", &msg);
                continue;
            }
            let Some(condition) = condition else { continue };
            if found {
                delete_from_active_list(cj, uid);
                let msg = format!(
                    "Saw completed job: {}, condition: {condition}",
                    job.metadata.name
                );
                self.event(api, now, obj, EventType::Normal, "SawCompletedJob", &msg);
                out.update = true;
            }
            if condition == JOB_COMPLETE {
                let completed = job.status.completion_time;
                let last = cj.status.last_successful_time;
                // (Upstream also "sets" a missing time to a missing completion time.)
                if completed.is_some_and(|c| last.is_none_or(|l| c > l)) {
                    cj.status.last_successful_time = completed;
                    out.update = true;
                }
            }
        }
        Ok(())
    }

    /// `syncCronJob`'s second loop: an active reference to a Job that is neither in the cache
    /// nor, read afresh, on the server leaves the list (`MissingJob`).
    fn reconcile_missing(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        jobs: &[Arc<Object>],
        out: &mut Outcome,
    ) -> Result<(), Requeue> {
        let children: BTreeSet<&str> = jobs.iter().map(|o| o.meta().uid.as_str()).collect();
        let gone: Vec<_> = cj
            .status
            .active
            .iter()
            .filter(|r| !children.contains(r.uid.as_str()))
            .map(|r| (r.namespace.clone(), r.name.clone(), r.uid.clone()))
            .collect();
        for (ns, name, uid) in gone {
            match api.get(Kind::Job, Some(&ns), &name) {
                Err(s) if s.reason() == StatusReason::NotFound => {
                    let msg = format!("Active job went missing: {name}");
                    self.event(api, now, obj, EventType::Normal, "MissingJob", &msg);
                    delete_from_active_list(cj, &uid);
                    out.update = true;
                }
                Err(_) => return Err(Requeue),
                Ok(_) => {}
            }
        }
        Ok(())
    }

    /// The schedule to run, or `None` (with the upstream event) when the zone does not load,
    /// the CronJob is suspended, or the schedule does not parse (`formatSchedule` +
    /// `cron.ParseStandard`).
    fn schedule_of(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &CronJob,
    ) -> Option<Schedule> {
        if let Some(tz) = cj.spec.time_zone.as_deref() {
            if let Err(e) = cron_schedule::load_location(tz) {
                let msg = format!("invalid timeZone: {}: {e}", go_quote(tz));
                self.event(api, now, obj, EventType::Warning, "UnknownTimeZone", &msg);
                return None;
            }
        }
        if cj.is_suspended() {
            return None;
        }
        let schedule = cj.spec.schedule.as_str();
        if schedule.contains("TZ") {
            let msg = format!(
                "CRON_TZ or TZ used in schedule {} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
                go_quote(schedule)
            );
            self.event(
                api,
                now,
                obj,
                EventType::Warning,
                "UnsupportedSchedule",
                &msg,
            );
        }
        match Schedule::for_cron_job(schedule, cj.spec.time_zone.as_deref()) {
            Ok(sched) => Some(sched),
            Err(e) => {
                let msg = format!("unparseable schedule: {} : {e}", go_quote(schedule));
                self.event(
                    api,
                    now,
                    obj,
                    EventType::Warning,
                    "UnparseableSchedule",
                    &msg,
                );
                None
            }
        }
    }

    /// `syncCronJob` from `nextScheduleTime` on: the unmet schedule time, if any, gets its
    /// Job unless it is too late, already started, or the concurrency policy forbids it.
    fn run_schedule(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        sched: &Schedule,
        out: &mut Outcome,
    ) {
        let due = match cron_schedule::next_schedule_time(sched, &times_of(cj), unix_secs(now)) {
            Err(e) => {
                let msg = format!("invalid schedule: {} : {e}", cj.spec.schedule);
                self.event(api, now, obj, EventType::Warning, "InvalidSchedule", &msg);
                return;
            }
            Ok(None) => {
                out.requeue_at = Some(next_wake(sched, cj, now));
                return;
            }
            Ok(Some(due)) => due,
        };
        if due.too_many_missed {
            let (reason, msg) = (
                cron_schedule::TOO_MANY_MISSED_REASON,
                cron_schedule::TOO_MANY_MISSED_MESSAGE,
            );
            self.event(api, now, obj, EventType::Warning, reason, msg);
        }
        if self.skip(now, api, obj, cj, due.at) {
            out.requeue_at = Some(next_wake(sched, cj, now));
            return;
        }
        if cj.spec.concurrency_policy == REPLACE_CONCURRENT
            && self.replace_active(now, api, obj, cj, out).is_err()
        {
            out.failed = true;
            return;
        }
        match self.start_job(now, api, obj, cj, due.at) {
            Started::Yes => {
                out.update = true;
                out.requeue_at = Some(next_wake(sched, cj, now));
            }
            Started::Stop => {}
            Started::Failed => out.failed = true,
        }
    }

    /// Whether the due time `at` is not to be started now: past `startingDeadlineSeconds`
    /// (`MissSchedule`), already started (in the active list by name, or the last schedule
    /// time), or Forbid with a Job still running (`JobAlreadyActive`).
    fn skip(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &CronJob,
        at: i64,
    ) -> bool {
        let scheduled = instant(at, 0);
        let too_late = cj.spec.starting_deadline_seconds.is_some_and(|d| {
            let deadline_ms = d.max(0).saturating_mul(1000) as u64;
            scheduled.plus_millis(deadline_ms) < now
        });
        if too_late {
            let msg = format!("Missed scheduled time to start a job: {}", rfc1123z_utc(at));
            self.event(api, now, obj, EventType::Warning, "MissSchedule", &msg);
            return true;
        }
        let name = job_name(&cj.metadata.name, at);
        let started = cj.status.active.iter().any(|r| r.name == name)
            || cj.status.last_schedule_time == Some(scheduled);
        if started {
            return true;
        }
        if cj.spec.concurrency_policy == FORBID_CONCURRENT
            && (!cj.status.active.is_empty() || Self::forbidden_afresh(api, cj))
        {
            let msg =
                "Not starting job because prior execution is running and concurrency policy is Forbid";
            self.event(api, now, obj, EventType::Normal, "JobAlreadyActive", msg);
            return true;
        }
        false
    }

    /// Deviation: before a Forbid CronJob starts a Job, its active list is read afresh from
    /// the API server (upstream trusts its cache, which may not hold its own last status write
    /// yet, and then starts a second Job beside a running one: the fault simulation caught
    /// it). An unreadable CronJob counts as running one.
    fn forbidden_afresh(api: &mut ApiServer, cj: &CronJob) -> bool {
        let ns = Some(cj.metadata.namespace.as_str());
        match api.get(Kind::CronJob, ns, &cj.metadata.name) {
            Ok(fresh) => fresh
                .as_cron_job()
                .is_none_or(|f| !f.status.active.is_empty()),
            Err(_) => true,
        }
    }

    /// Replace: every active Job is read afresh and deleted before the new one starts.
    fn replace_active(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        out: &mut Outcome,
    ) -> Result<(), Requeue> {
        let active: Vec<_> = cj
            .status
            .active
            .iter()
            .map(|r| (r.namespace.clone(), r.name.clone()))
            .collect();
        for (ns, name) in active {
            let job = match api.get(Kind::Job, Some(&ns), &name) {
                Ok(job) => job,
                Err(s) => {
                    let msg = format!("Get job: {}", s.message());
                    self.event(api, now, obj, EventType::Warning, "FailedGet", &msg);
                    return Err(Requeue);
                }
            };
            let Some(job) = job.as_job() else {
                return Err(Requeue);
            };
            if !self.delete_job(now, api, obj, cj, job) {
                return Err(Requeue);
            }
            out.update = true;
        }
        Ok(())
    }

    /// Creates the Job for the scheduled time `at` and lists it as active with `at` as the last
    /// schedule time. A Job of that name already there counts if this CronJob controls it and
    /// the active list lacks it; else the sync ends with no requeue, as upstream.
    fn start_job(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        obj: &Object,
        cj: &mut CronJob,
        at: i64,
    ) -> Started {
        let Some(job) = job_from_template(cj, at) else {
            return Started::Failed;
        };
        let (ns, name) = (job.metadata.namespace.clone(), job.metadata.name.clone());
        let created = match api.create(USER_AGENT, Object::Job(Box::new(job))) {
            Ok(created) => {
                let msg = format!("Created job {name}");
                self.event(api, now, obj, EventType::Normal, "SuccessfulCreate", &msg);
                created
            }
            Err(s) if namespace_terminating(&s) => return Started::Failed,
            Err(s) if s.reason() == StatusReason::AlreadyExists => {
                let Ok(existing) = api.get(Kind::Job, Some(&ns), &name) else {
                    return Started::Failed;
                };
                if !is_controlled_by(&existing, cj) || in_active_list(cj, &existing.meta().uid) {
                    return Started::Stop;
                }
                existing
            }
            Err(s) => {
                let msg = format!("Error creating job: {}", s.message());
                self.event(api, now, obj, EventType::Warning, "FailedCreate", &msg);
                return Started::Failed;
            }
        };
        cj.status.active.push(reference_of(&created));
        cj.status.last_schedule_time = Some(instant(at, 0));
        Started::Yes
    }
}

/// How [`CronJobController::start_job`] ended.
enum Started {
    /// The Job runs (created now, or found ours and not yet listed).
    Yes,
    /// A Job of that name is there already: nothing more this sync, and no requeue.
    Stop,
    /// An error: requeue with back-off.
    Failed,
}

/// `nextScheduleTimeDuration`: 100 ms after the next schedule time, never before `now` plus
/// a millisecond; where the schedule has no next time, a minute on.
fn next_wake(sched: &Schedule, cj: &CronJob, now: Timestamp) -> Timestamp {
    let delta = cron_schedule::NEXT_SCHEDULE_DELTA_MS.max(0) as u64;
    match cron_schedule::next_schedule_wake(sched, &times_of(cj), unix_secs(now)) {
        Some(t) => instant(t, delta).max(now.plus_millis(1)),
        None => now.plus_millis(60_000),
    }
}

impl Reconciler for CronJobController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.cronjobs).into(), (&self.jobs).into()]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.recorder.flush(api, now);
        for note in self.cronjobs.step(now, api) {
            match &note {
                Notification::Update { old, new } => {
                    self.on_cronjob_update(now, api, old, new, queue)
                }
                _ => queue.add(note.key()),
            }
        }
        for note in self.jobs.step(now, api) {
            self.on_job(&note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.cronjobs.has_synced() && self.jobs.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.cronjobs.next_wakeup(),
            self.jobs.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_names_count_unix_minutes_and_times_print_as_go_rfc1123z() {
        // 2026-01-01T00:05:00Z.
        let at = EPOCH_UNIX_SECONDS as i64 + 300;
        assert_eq!(job_name("hello", at), "hello-29453765");
        assert_eq!(rfc1123z_utc(at), "Thu, 01 Jan 2026 00:05:00 +0000");
        assert_eq!(rfc1123z_utc(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(
            rfc1123z_utc(EPOCH_UNIX_SECONDS as i64 + 86_400 * 45 + 3_661),
            "Sun, 15 Feb 2026 01:01:01 +0000"
        );
    }

    #[test]
    fn unix_seconds_and_virtual_instants_round_trip() {
        let t = Timestamp::from_millis(90_500);
        assert_eq!(unix_secs(t), EPOCH_UNIX_SECONDS as i64 + 90);
        assert_eq!(instant(unix_secs(t), 100), Timestamp::from_millis(90_100));
        assert_eq!(instant(0, 0), Timestamp::ZERO, "before the epoch clamps");
    }
}
