//! The CronJob controller (`pkg/controller/cronjob/cronjob_controllerv2.go`, v1.32) end to end,
//! through the controllers' harness on virtual time (2026-01-01T00:00:00Z at zero): a Job per
//! schedule time named `<cronjob>-<Unix minutes>` with the scheduled-timestamp annotation, each
//! started 100 ms after its time and no sync in between; the three concurrency policies; the
//! history limits; suspend and a long pause with and without `startingDeadlineSeconds`; a time
//! zone; the status times; Jobs it did not make; and the API server's refusals.

use std::sync::Arc;

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::batch::{CronJob, Job};
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::clock::{Timestamp, EPOCH_UNIX_SECONDS};
use watchlab_engine::controllers::cronjob::CronJobController;
use watchlab_engine::controllers::{Harness, Profile};

const CRONJOBS: &str = "/apis/batch/v1/namespaces/default/cronjobs";
const JOBS: &str = "/apis/batch/v1/namespaces/default/jobs";
const MINUTE_MS: u64 = 60_000;
/// The Unix minute of the virtual clock's zero.
const EPOCH_MINUTE: u64 = EPOCH_UNIX_SECONDS / 60;

fn call(h: &mut Harness, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let ct = (method == "PATCH").then_some("application/merge-patch+json");
    let r = h.api.request(method, path, ct, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn ok(h: &mut Harness, method: &str, path: &str, body: Option<Value>) -> Value {
    let (code, v) = call(h, method, path, body);
    assert!((200..300).contains(&code), "{method} {path}: {code} {v}");
    v
}

/// A CronJob whose Jobs run one pod behaving as `behaviour` (`complete-after=5s`), never
/// retried; `spec` is merged into its spec.
fn cronjob(name: &str, schedule: &str, behaviour: &str, spec: Value) -> Value {
    let mut cj = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
      "spec": {"schedule": schedule,
        "jobTemplate": {"metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}},
          "spec": {"backoffLimit": 0, "template": {
            "metadata": {"annotations": {"watchlab.dev/behaviour": behaviour}},
            "spec": {"restartPolicy": "Never",
              "containers": [{"name": "task", "image": "busybox:1.36"}]}}}}}});
    if let (Some(s), Some(extra)) = (cj["spec"].as_object_mut(), spec.as_object()) {
        s.extend(extra.clone());
    }
    cj
}

/// A cluster of one node, settled.
fn cluster() -> Harness {
    let mut h = Harness::new(11, &Profile::training(), &["node-a"]);
    h.run_for(2_000);
    h
}

fn create(h: &mut Harness, cj: Value) {
    ok(h, "POST", CRONJOBS, Some(cj));
}

fn patch_spec(h: &mut Harness, name: &str, spec: Value) {
    let path = format!("{CRONJOBS}/{name}");
    ok(h, "PATCH", &path, Some(json!({"spec": spec})));
}

fn stored_cronjob(h: &Harness, name: &str) -> CronJob {
    h.api
        .peek(Kind::CronJob, Some("default"), name)
        .and_then(|o| o.as_cron_job().cloned())
        .expect("the CronJob")
}

/// The Jobs whose controller is the CronJob `cj`, by name.
fn jobs_of(h: &Harness, cj: &str) -> Vec<Arc<Object>> {
    h.api
        .peek_all(Kind::Job)
        .into_iter()
        .filter(|o| o.meta().controller_ref().is_some_and(|r| r.name == cj))
        .collect()
}

fn job(o: &Object) -> &Job {
    o.as_job().expect("a Job")
}

fn names(jobs: &[Arc<Object>]) -> Vec<String> {
    jobs.iter().map(|o| o.name().to_string()).collect()
}

fn unfinished(h: &Harness, cj: &str) -> Vec<String> {
    let jobs: Vec<_> = jobs_of(h, cj)
        .into_iter()
        .filter(|o| !job(o).is_finished())
        .collect();
    names(&jobs)
}

/// `<cj>-<Unix minute>` of the virtual minute `m`.
fn job_at(cj: &str, m: u64) -> String {
    format!("{cj}-{}", EPOCH_MINUTE + m)
}

/// The cronjob-controller's events about `cj` with `reason`: (message, count).
fn events(h: &Harness, cj: &str, reason: &str) -> Vec<(String, i32)> {
    h.api
        .peek_all(Kind::Event)
        .iter()
        .filter_map(|o| match &**o {
            Object::Event(e)
                if e.reason == reason
                    && e.involved_object.kind == "CronJob"
                    && e.involved_object.name == cj
                    && e.source.component == "cronjob-controller" =>
            {
                Some((e.message.to_string(), e.count.unwrap_or(1)))
            }
            _ => None,
        })
        .collect()
}

fn syncs(h: &Harness) -> u64 {
    h.plane
        .reconciler::<CronJobController>()
        .map_or(0, CronJobController::syncs)
}

/// Runs to `until`, calling `check` after every instant (it never stops the run).
fn run_checking(h: &mut Harness, until: Timestamp, mut check: impl FnMut(&Harness)) {
    h.run_until_true(until, |h| {
        check(h);
        false
    });
}

#[test]
fn an_every_minute_cronjob_starts_one_job_each_virtual_minute_100ms_after_it() {
    let mut h = cluster();
    create(&mut h, cronjob("tick", "*/1 * * * *", "", json!({})));
    let before = syncs(&h);
    // When each Job first appears.
    let mut seen: Vec<(String, Timestamp)> = Vec::new();
    run_checking(
        &mut h,
        Timestamp::from_millis(5 * MINUTE_MS + 30_000),
        |h| {
            for n in names(&jobs_of(h, "tick")) {
                if !seen.iter().any(|(s, _)| *s == n) {
                    seen.push((n, h.now()));
                }
            }
        },
    );
    let expected: Vec<(String, Timestamp)> = (1..=5)
        .map(|m| {
            (
                job_at("tick", m),
                Timestamp::from_millis(m * MINUTE_MS + 100),
            )
        })
        .collect();
    assert_eq!(
        seen, expected,
        "one Job per minute, at nextScheduleDelta past it"
    );
    // Each sync is a schedule time or a notification (the Job, the status), never a poll.
    let spent = syncs(&h) - before;
    assert!(spent <= 5 * 6 + 2, "{spent} syncs in five minutes");

    let tick = stored_cronjob(&h, "tick");
    for (m, o) in (1..=5).zip(jobs_of(&h, "tick")) {
        let j = job(&o);
        let at = format!("2026-01-01T00:0{m}:00Z");
        let a = &j.metadata.annotations;
        assert_eq!(
            a.get("batch.kubernetes.io/cronjob-scheduled-timestamp"),
            Some(&at)
        );
        assert_eq!(a.get("note").map(String::as_str), Some("x"));
        assert_eq!(j.metadata.labels.get("team").map(String::as_str), Some("a"));
        let owner = j.metadata.controller_ref().expect("a controller");
        assert_eq!(
            (
                owner.api_version.as_str(),
                owner.kind.as_str(),
                owner.name.as_str()
            ),
            ("batch/v1", "CronJob", "tick")
        );
        assert_eq!(owner.uid, tick.metadata.uid);
        assert_eq!(owner.block_owner_deletion, Some(true));
        assert_eq!(j.spec.backoff_limit, Some(0));
    }
    // Allow: none of them finishes without pods running to completion, so all five are active.
    let active: Vec<_> = tick.status.active.iter().map(|r| r.name.clone()).collect();
    assert_eq!(
        active,
        (1..=5).map(|m| job_at("tick", m)).collect::<Vec<_>>()
    );
    let r = &tick.status.active[0];
    assert_eq!(
        (&*r.kind, &*r.api_version, r.namespace.as_str()),
        ("Job", "batch/v1", "default")
    );
    assert!(!r.uid.is_empty() && !r.resource_version.is_empty());
    assert_eq!(
        tick.status.last_schedule_time,
        Some(Timestamp::from_millis(5 * MINUTE_MS))
    );
    let created = events(&h, "tick", "SuccessfulCreate");
    assert_eq!(
        created.first().map(|e| e.0.clone()),
        Some(format!("Created job {}", job_at("tick", 1)))
    );
    let served = ok(&mut h, "GET", &format!("{CRONJOBS}/tick"), None);
    assert_eq!(served["status"]["lastScheduleTime"], "2026-01-01T00:05:00Z");
}

#[test]
fn a_changed_schedule_is_followed_from_its_next_time() {
    let mut h = cluster();
    create(&mut h, cronjob("moved", "0 * * * *", "", json!({})));
    h.run_until(Timestamp::from_millis(30_000));
    patch_spec(&mut h, "moved", json!({"schedule": "*/2 * * * *"}));
    h.run_until(Timestamp::from_millis(4 * MINUTE_MS + 1_000));
    assert_eq!(
        names(&jobs_of(&h, "moved")),
        [job_at("moved", 2), job_at("moved", 4)]
    );
}

#[test]
fn a_job_that_takes_longer_than_the_period_overlaps_under_allow() {
    let mut h = cluster();
    create(
        &mut h,
        cronjob("allow", "* * * * *", "complete-after=10m", json!({})),
    );
    h.run_until(Timestamp::from_millis(3 * MINUTE_MS + 1_000));
    assert_eq!(unfinished(&h, "allow").len(), 3, "three runs at once");
    assert_eq!(stored_cronjob(&h, "allow").status.active.len(), 3);
}

#[test]
fn forbid_never_runs_two_jobs_at_once_and_says_why_it_skips() {
    let mut h = cluster();
    let spec = json!({"concurrencyPolicy": "Forbid"});
    create(
        &mut h,
        cronjob("solo", "* * * * *", "complete-after=150s", spec),
    );
    let mut most = 0;
    run_checking(&mut h, Timestamp::from_millis(8 * MINUTE_MS), |h| {
        most = most.max(unfinished(h, "solo").len());
    });
    assert_eq!(most, 1, "at most one unfinished Job at any instant");
    let skipped = events(&h, "solo", "JobAlreadyActive");
    assert_eq!(
        skipped.first().map(|e| e.0.as_str()),
        Some(
            "Not starting job because prior execution is running and concurrency policy is Forbid"
        )
    );
    assert!(skipped[0].1 >= 1);
    // The first run takes 150 s and more: 02:00 and 03:00 are skipped; when it finishes (03:33)
    // the most recent missed time, 03:00, starts late (no startingDeadlineSeconds), and so on.
    let jobs = jobs_of(&h, "solo");
    assert_eq!(
        names(&jobs),
        [job_at("solo", 1), job_at("solo", 3), job_at("solo", 6)]
    );
    let first_done = job(&jobs[0]).status.completion_time.expect("finished");
    let late = &job(&jobs[1]).metadata;
    assert!(first_done > Timestamp::from_millis(3 * MINUTE_MS));
    let started = late.creation_timestamp.expect("created");
    assert!(started >= first_done && started.millis_since(first_done) < 1_000);
    assert_eq!(
        late.annotations
            .get("batch.kubernetes.io/cronjob-scheduled-timestamp")
            .map(String::as_str),
        Some("2026-01-01T00:03:00Z")
    );
    assert!(stored_cronjob(&h, "solo").status.active.len() <= 1);
}

#[test]
fn finished_jobs_leave_the_active_list_and_set_the_last_successful_time() {
    let mut h = cluster();
    create(
        &mut h,
        cronjob("done", "* * * * *", "complete-after=5s", json!({})),
    );
    h.run_until(Timestamp::from_millis(MINUTE_MS + 40_000));
    let cj = stored_cronjob(&h, "done");
    assert!(cj.status.active.is_empty(), "{:?}", cj.status.active);
    let jobs = jobs_of(&h, "done");
    assert_eq!(names(&jobs), [job_at("done", 1)]);
    let completed = job(&jobs[0]).status.completion_time;
    assert!(completed.is_some());
    assert_eq!(cj.status.last_successful_time, completed);
    assert_eq!(
        cj.status.last_schedule_time,
        Some(Timestamp::from_millis(MINUTE_MS))
    );
    assert_eq!(
        events(&h, "done", "SawCompletedJob"),
        [(
            format!(
                "Saw completed job: {}, condition: Complete",
                job_at("done", 1)
            ),
            1
        )]
    );
}

#[test]
fn history_limits_keep_the_newest_three_successful_and_one_failed_job() {
    let mut h = cluster();
    create(
        &mut h,
        cronjob("ok", "* * * * *", "complete-after=5s", json!({})),
    );
    create(
        &mut h,
        cronjob("bad", "* * * * *", "crash-after=2s", json!({})),
    );
    h.run_until(Timestamp::from_millis(6 * MINUTE_MS + 40_000));
    assert_eq!(
        names(&jobs_of(&h, "ok")),
        (4..=6).map(|m| job_at("ok", m)).collect::<Vec<_>>(),
        "successfulJobsHistoryLimit 3 (the default)"
    );
    assert_eq!(
        names(&jobs_of(&h, "bad")),
        [job_at("bad", 6)],
        "failedJobsHistoryLimit 1 (the default)"
    );
    let deleted: Vec<String> = events(&h, "ok", "SuccessfulDelete")
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert_eq!(
        deleted,
        (1..=3)
            .map(|m| format!("Deleted job {}", job_at("ok", m)))
            .collect::<Vec<_>>()
    );
    let failed = events(&h, "bad", "SawCompletedJob");
    assert!(failed
        .iter()
        .any(|e| e.0 == format!("Saw completed job: {}, condition: Failed", job_at("bad", 1))));
    let bad = stored_cronjob(&h, "bad");
    assert!(bad.status.last_successful_time.is_none());
    // Their pods went with them (Background propagation, the garbage collector).
    h.run_for(30_000);
    let pods_of_deleted = h
        .api
        .peek_all(Kind::Pod)
        .iter()
        .filter(|o| o.meta().labels.get("batch.kubernetes.io/job-name") == Some(&job_at("ok", 1)))
        .count();
    assert_eq!(pods_of_deleted, 0);
}

#[test]
fn replace_deletes_the_running_job_before_starting_the_next() {
    let mut h = cluster();
    let spec = json!({"concurrencyPolicy": "Replace"});
    create(
        &mut h,
        cronjob("fresh", "* * * * *", "complete-after=10m", spec),
    );
    h.run_until(Timestamp::from_millis(MINUTE_MS + 1_000));
    assert_eq!(names(&jobs_of(&h, "fresh")), [job_at("fresh", 1)]);
    h.run_until(Timestamp::from_millis(2 * MINUTE_MS + 1_000));
    assert_eq!(
        names(&jobs_of(&h, "fresh")),
        [job_at("fresh", 2)],
        "the first run was deleted"
    );
    let cj = stored_cronjob(&h, "fresh");
    let active: Vec<_> = cj.status.active.iter().map(|r| r.name.clone()).collect();
    assert_eq!(active, [job_at("fresh", 2)]);
    let deleted = events(&h, "fresh", "SuccessfulDelete");
    assert_eq!(
        deleted.first().map(|e| e.0.clone()),
        Some(format!("Deleted job {}", job_at("fresh", 1)))
    );
}

#[test]
fn suspended_it_starts_nothing_and_costs_nothing_and_a_long_pause_starts_one_job() {
    let mut h = cluster();
    create(
        &mut h,
        cronjob("pause", "* * * * *", "complete-after=5s", json!({})),
    );
    h.run_until(Timestamp::from_millis(2 * MINUTE_MS + 1_000));
    assert_eq!(jobs_of(&h, "pause").len(), 2);
    patch_spec(&mut h, "pause", json!({"suspend": true}));
    let before = syncs(&h);
    let three_hours = 3 * 60 * MINUTE_MS;
    h.run_for(three_hours);
    assert_eq!(
        jobs_of(&h, "pause").len(),
        2,
        "nothing started while suspended"
    );
    assert!(syncs(&h) - before <= 6, "a suspended CronJob is not polled");
    // Resumed: 180 times were missed; only the most recent gets a Job, with a warning.
    patch_spec(&mut h, "pause", json!({"suspend": false}));
    h.run_for(1_000);
    let now_minute = h.now().as_millis() / MINUTE_MS;
    let jobs = names(&jobs_of(&h, "pause"));
    assert_eq!(jobs.len(), 3, "{jobs:?}");
    assert!(jobs.contains(&job_at("pause", now_minute)), "{jobs:?}");
    let warned = events(&h, "pause", "TooManyMissedTimes");
    assert_eq!(
        warned.first().map(|e| e.0.as_str()),
        Some("too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
    );
}

#[test]
fn with_a_starting_deadline_a_long_pause_starts_the_last_time_within_it_and_no_warning() {
    let mut h = cluster();
    let spec = json!({"startingDeadlineSeconds": 200, "suspend": true});
    create(&mut h, cronjob("late", "*/5 * * * *", "", spec));
    h.run_until(Timestamp::from_millis(3 * 60 * MINUTE_MS + 2 * MINUTE_MS));
    assert!(jobs_of(&h, "late").is_empty());
    patch_spec(&mut h, "late", json!({"suspend": false}));
    h.run_for(1_000);
    // 03:02: the last time within 200 s is 03:00.
    assert_eq!(names(&jobs_of(&h, "late")), [job_at("late", 180)]);
    assert!(events(&h, "late", "TooManyMissedTimes").is_empty());
    // Suspended over 03:05 and resumed at 03:09: 03:05 is past the deadline, so nothing
    // starts before 03:10 (without a deadline 03:05 would start at once).
    patch_spec(&mut h, "late", json!({"suspend": true}));
    h.run_until(Timestamp::from_millis(189 * MINUTE_MS));
    patch_spec(&mut h, "late", json!({"suspend": false}));
    h.run_until(Timestamp::from_millis(190 * MINUTE_MS));
    assert_eq!(jobs_of(&h, "late").len(), 1);
    h.run_for(1_000);
    assert_eq!(
        names(&jobs_of(&h, "late")),
        [job_at("late", 180), job_at("late", 190)]
    );
}

#[test]
fn a_time_zone_shifts_the_hour_and_the_annotation_says_it_in_that_zone() {
    let mut h = cluster();
    let spec = json!({"timeZone": "Asia/Shanghai"});
    create(&mut h, cronjob("tz", "0 9 * * *", "", spec));
    create(&mut h, cronjob("utc", "0 9 * * *", "", json!({})));
    h.run_until(Timestamp::from_millis(60 * MINUTE_MS + 1_000));
    let jobs = jobs_of(&h, "tz");
    assert_eq!(
        names(&jobs),
        [job_at("tz", 60)],
        "09:00 in Shanghai is 01:00 UTC"
    );
    assert_eq!(
        job(&jobs[0])
            .metadata
            .annotations
            .get("batch.kubernetes.io/cronjob-scheduled-timestamp")
            .map(String::as_str),
        Some("2026-01-01T09:00:00+08:00")
    );
    assert!(jobs_of(&h, "utc").is_empty(), "no zone: 09:00 UTC");
    let utc = stored_cronjob(&h, "utc");
    assert!(utc.status.last_schedule_time.is_none());
}

#[test]
fn a_job_it_did_not_make_is_reported_and_a_name_taken_by_another_is_not_adopted() {
    let mut h = cluster();
    create(
        &mut h,
        cronjob(
            "odd",
            "* * * * *",
            "",
            json!({"concurrencyPolicy": "Forbid"}),
        ),
    );
    h.run_for(1_000);
    let uid = stored_cronjob(&h, "odd").metadata.uid;
    // A Job that claims the CronJob as its controller, made by someone else.
    let stray = json!({"apiVersion": "batch/v1", "kind": "Job",
      "metadata": {"name": "stray", "ownerReferences": [{"apiVersion": "batch/v1",
        "kind": "CronJob", "name": "odd", "uid": uid, "controller": true}]},
      "spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
    ok(&mut h, "POST", JOBS, Some(stray));
    h.run_for(1_000);
    assert_eq!(
        events(&h, "odd", "UnexpectedJob")
            .first()
            .map(|e| e.0.as_str()),
        Some("Saw a job that the controller did not create or forgot: stray")
    );
    // Not in the active list, so Forbid does not hold the next run back.
    h.run_until(Timestamp::from_millis(MINUTE_MS + 1_000));
    assert!(names(&jobs_of(&h, "odd")).contains(&job_at("odd", 1)));
    // A Job of the next run's name that someone else owns: the run does not happen.
    create(&mut h, cronjob("taken", "* * * * *", "", json!({})));
    let squatter = json!({"apiVersion": "batch/v1", "kind": "Job",
      "metadata": {"name": job_at("taken", 2)},
      "spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
    ok(&mut h, "POST", JOBS, Some(squatter));
    h.run_until(Timestamp::from_millis(2 * MINUTE_MS + 1_000));
    let taken = stored_cronjob(&h, "taken");
    assert!(taken.status.active.is_empty(), "{:?}", taken.status.active);
    assert!(taken.status.last_schedule_time.is_none());
    assert!(events(&h, "taken", "SuccessfulCreate").is_empty());
}

#[test]
fn with_no_cronjob_jobs_cost_the_controller_no_sync() {
    let mut h = cluster();
    for i in 0..10 {
        let j = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": format!("j{i}")},
          "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
        ok(&mut h, "POST", JOBS, Some(j));
    }
    h.run_for(5 * MINUTE_MS);
    assert_eq!(syncs(&h), 0);
}

/// The API server's refusals, with the real texts.
#[test]
fn invalid_cronjobs_are_refused_with_the_real_texts() {
    let mut h = cluster();
    let refusal = |h: &mut Harness, cj: Value| -> String {
        let (code, v) = call(h, "POST", CRONJOBS, Some(cj));
        assert_eq!(code, 422, "{v}");
        v["message"].as_str().unwrap_or_default().to_string()
    };
    let bad = refusal(&mut h, cronjob("bad", "* * *", "", json!({})));
    assert_eq!(
        bad,
        "CronJob.batch \"bad\" is invalid: spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]"
    );
    let range = refusal(&mut h, cronjob("range", "61 * * * *", "", json!({})));
    assert_eq!(
        range,
        "CronJob.batch \"range\" is invalid: spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"
    );
    let zone = refusal(
        &mut h,
        cronjob("zone", "0 9 * * *", "", json!({"timeZone": "Mars/Base"})),
    );
    assert_eq!(
        zone,
        "CronJob.batch \"zone\" is invalid: spec.timeZone: Invalid value: \"Mars/Base\": unknown time zone Mars/Base"
    );
    let tz = refusal(&mut h, cronjob("tz", "TZ=UTC 0 9 * * *", "", json!({})));
    assert_eq!(
        tz,
        "CronJob.batch \"tz\" is invalid: spec.schedule: Invalid value: \"TZ=UTC 0 9 * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
    );
    let long = "a".repeat(53);
    let name = refusal(&mut h, cronjob(&long, "* * * * *", "", json!({})));
    assert_eq!(
        name,
        format!("CronJob.batch \"{long}\" is invalid: metadata.name: Invalid value: \"{long}\": must be no more than 52 characters")
    );
    // 52 characters are fine.
    create(&mut h, cronjob(&"b".repeat(52), "* * * * *", "", json!({})));
}
