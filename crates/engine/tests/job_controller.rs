//! Jobs run end to end through the control plane on virtual time, as `kubectl get job -o
//! yaml` and `kubectl get events` show them: the Job controller (pkg/controller/job) running
//! pods whose behaviour the kubelet plays from their `watchlab.dev/behaviour` annotation —
//! completions and parallelism, Indexed Jobs, the failure back-off and `backoffLimit`,
//! `activeDeadlineSeconds`, `podFailurePolicy`, suspend and resume, the tracking finalizer and
//! `uncountedTerminatedPods` — and the TTL-after-finished controller deleting a finished Job
//! and, through the garbage collector, its pods.

use serde_json::{json, Value};
use std::sync::Arc;
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::batch::{JOB_COMPLETION_INDEX, JOB_NAME_LABEL, JOB_TRACKING_FINALIZER};
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::{Harness, Profile};

const JOBS: &str = "/apis/batch/v1/namespaces/default/jobs";

fn harness() -> Harness {
    let mut h = Harness::new(11, &Profile::training(), &["node-a", "node-b", "node-c"]);
    h.run_for(2_000);
    h
}

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

/// A Job `name` whose one container `main` behaves as `behaviour`, `restartPolicy: Never`,
/// with `spec` added to its spec.
fn job(name: &str, behaviour: &str, spec: Value) -> Value {
    let mut s = json!({"template": {
        "metadata": {"annotations": {"watchlab.dev/behaviour": behaviour}},
        "spec": {"restartPolicy": "Never",
                 "containers": [{"name": "main", "image": "busybox:1.36"}]}}});
    if let (Some(s), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
        s.extend(extra.clone());
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": s})
}

fn create(h: &mut Harness, body: Value) -> Value {
    ok(h, "POST", JOBS, Some(body))
}

fn get_job(h: &mut Harness, name: &str) -> Value {
    ok(h, "GET", &format!("{JOBS}/{name}"), None)
}

/// The Job as stored, typed, without a request.
fn stored(h: &Harness, name: &str) -> Option<Arc<Object>> {
    h.api.peek(Kind::Job, Some("default"), name)
}

fn finished(h: &Harness, name: &str) -> bool {
    stored(h, name).is_some_and(|o| o.as_job().is_some_and(|j| j.is_finished()))
}

/// The Job's pods (by its name label), oldest first.
fn pods(h: &Harness, job: &str) -> Vec<Arc<Object>> {
    let mut pods: Vec<Arc<Object>> = h
        .api
        .peek_all(Kind::Pod)
        .into_iter()
        .filter(|o| o.meta().labels.get(JOB_NAME_LABEL).map(String::as_str) == Some(job))
        .collect();
    pods.sort_by_key(|o| (o.meta().creation_timestamp, o.name().to_string()));
    pods
}

/// Pods neither terminal nor being deleted: what `parallelism` bounds.
fn active(h: &Harness, job: &str) -> usize {
    pods(h, job)
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| {
            p.metadata.deletion_timestamp.is_none()
                && !matches!(&*p.status.phase, "Succeeded" | "Failed")
        })
        .count()
}

fn phase(o: &Object) -> String {
    o.as_pod()
        .map(|p| p.status.phase.to_string())
        .unwrap_or_default()
}

/// (type, status, reason, message) of each condition.
fn conditions(status: &Value) -> Vec<(String, String, String, String)> {
    let text = |c: &Value, k: &str| c[k].as_str().unwrap_or_default().to_string();
    status["conditions"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    (
                        text(c, "type"),
                        text(c, "status"),
                        text(c, "reason"),
                        text(c, "message"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn condition_time(status: &Value, type_: &str) -> Option<String> {
    status["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
        .and_then(|c| c["lastTransitionTime"].as_str())
        .map(str::to_string)
}

/// (reason, message) of the events about `name` written by `component`, in order.
fn events(h: &mut Harness, name: &str, component: &str) -> Vec<(String, String)> {
    let list = ok(h, "GET", "/api/v1/namespaces/default/events", None);
    let mut out: Vec<(String, String, String)> = list["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|e| e["involvedObject"]["name"] == name && e["source"]["component"] == component)
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (s("firstTimestamp"), s("reason"), s("message"))
        })
        .collect();
    out.sort();
    out.into_iter().map(|(_, r, m)| (r, m)).collect()
}

fn rfc3339(t: Timestamp) -> String {
    t.to_rfc3339()
}

#[test]
fn three_completions_two_at_a_time_end_complete_with_the_finalizers_gone() {
    let mut h = harness();
    create(
        &mut h,
        job(
            "pi",
            "complete-after=5s",
            json!({"completions": 3, "parallelism": 2}),
        ),
    );
    let (mut most, mut saw_two) = (0, false);
    let deadline = h.now().plus_secs(120);
    let done = h.run_until_true(deadline, |h| {
        let now_active = active(h, "pi");
        most = most.max(now_active);
        saw_two |= now_active == 2;
        finished(h, "pi")
    });
    assert!(done, "the Job finished");
    assert_eq!(most, 2, "never more than parallelism at any instant");
    assert!(saw_two, "two at a time");
    h.run_for(5_000);
    let s = get_job(&mut h, "pi")["status"].clone();
    assert_eq!(s["succeeded"], 3, "{s}");
    assert!(
        s.get("active").is_none() && s.get("failed").is_none(),
        "{s}"
    );
    assert_eq!(
        (&s["ready"], &s["terminating"]),
        (&json!(0), &json!(0)),
        "{s}"
    );
    assert_eq!(s["uncountedTerminatedPods"], json!({}), "{s}");
    let reached = "Reached expected number of succeeded pods".to_string();
    let c = |t: &str| {
        (
            t.to_string(),
            "True".to_string(),
            "CompletionsReached".to_string(),
            reached.clone(),
        )
    };
    assert_eq!(conditions(&s), [c("SuccessCriteriaMet"), c("Complete")]);
    assert_eq!(
        s["completionTime"].as_str(),
        condition_time(&s, "Complete").as_deref()
    );
    assert!(s["startTime"].as_str() < s["completionTime"].as_str());
    let pods = pods(&h, "pi");
    assert_eq!(pods.len(), 3, "one pod per completion, kept after the end");
    for p in &pods {
        assert_eq!(phase(p), "Succeeded");
        assert!(p.name().starts_with("pi-") && p.name().len() == "pi-".len() + 5);
        assert!(
            !p.meta()
                .finalizers
                .iter()
                .any(|f| f == JOB_TRACKING_FINALIZER),
            "{}",
            p.name()
        );
        let owner = p.meta().controller_ref().expect("an owner");
        assert_eq!(
            (owner.kind.as_str(), owner.api_version.as_str()),
            ("Job", "batch/v1")
        );
        assert_eq!(owner.block_owner_deletion, Some(true));
    }
    let mut expected: Vec<(String, String)> = pods
        .iter()
        .map(|p| {
            (
                "SuccessfulCreate".to_string(),
                format!("Created pod: {}", p.name()),
            )
        })
        .collect();
    expected.push(("Completed".into(), "Job completed".into()));
    let mut seen = events(&mut h, "pi", "job-controller");
    seen.sort();
    expected.sort();
    assert_eq!(seen, expected);
}

/// The ledger's writes, in order, as (user, kind, name, the object after).
fn writes(h: &Harness) -> Vec<(String, Kind, String, Option<Arc<Object>>)> {
    h.api
        .ledger()
        .iter()
        .filter_map(|e| {
            let o = e.after.clone().or_else(|| e.before.clone())?;
            Some((
                e.user.to_string(),
                o.kind(),
                o.name().to_string(),
                e.after.clone(),
            ))
        })
        .collect()
}

#[test]
fn a_finished_pod_is_recorded_uncounted_then_loses_its_finalizer_then_is_counted() {
    let mut h = harness();
    create(&mut h, job("track", "complete-after=20s", json!({})));
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| pods(h, "track").len() == 1));
    let pod = pods(&h, "track").remove(0);
    assert_eq!(pod.meta().finalizers, [JOB_TRACKING_FINALIZER.to_string()]);
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| finished(h, "track")));
    let uid = pod.meta().uid.clone();
    let log = writes(&h);
    let job_status = |w: &(String, Kind, String, Option<Arc<Object>>)| {
        (w.1 == Kind::Job && w.2 == "track")
            .then(|| {
                w.3.as_ref()
                    .and_then(|o| o.as_job().map(|j| j.status.clone()))
            })
            .flatten()
    };
    let recorded = log.iter().position(|w| {
        job_status(w).is_some_and(|s| {
            s.uncounted_terminated_pods
                .is_some_and(|u| u.succeeded == [uid.clone()])
        })
    });
    let released = log.iter().position(|w| {
        w.0 == "job-controller"
            && w.1 == Kind::Pod
            && w.3
                .as_ref()
                .is_some_and(|o| o.meta().uid == uid && o.meta().finalizers.is_empty())
    });
    let counted = log
        .iter()
        .position(|w| job_status(w).is_some_and(|s| s.succeeded == 1));
    let (Some(recorded), Some(released), Some(counted)) = (recorded, released, counted) else {
        panic!("recorded {recorded:?}, released {released:?}, counted {counted:?}");
    };
    assert!(
        recorded < released && released < counted,
        "{recorded} {released} {counted}"
    );
    let last = job_status(&log[counted]).expect("a status");
    assert_eq!(last.uncounted_terminated_pods, Some(Default::default()));
    assert!(pods(&h, "track")[0].meta().finalizers.is_empty());
}

#[test]
fn an_indexed_job_runs_one_pod_per_index_and_lists_the_completed_indexes() {
    let mut h = harness();
    let spec = json!({"completions": 4, "parallelism": 2, "completionMode": "Indexed"});
    create(&mut h, job("idx", "complete-after=5s", spec));
    let mut seen_indexes: Vec<String> = Vec::new();
    let deadline = h.now().plus_secs(120);
    let done = h.run_until_true(deadline, |h| {
        let s =
            stored(h, "idx").and_then(|o| o.as_job().map(|j| j.status.completed_indexes.clone()));
        if let Some(s) = s.filter(|s| seen_indexes.last() != Some(s)) {
            seen_indexes.push(s);
        }
        finished(h, "idx")
    });
    assert!(done);
    assert_eq!(
        seen_indexes.last().map(String::as_str),
        Some("0-3"),
        "{seen_indexes:?}"
    );
    assert!(
        seen_indexes.iter().any(|s| s == "0,1"),
        "a run of two: {seen_indexes:?}"
    );
    let pods = pods(&h, "idx");
    let mut indexes: Vec<String> = Vec::new();
    for p in &pods {
        let ix = p
            .meta()
            .annotations
            .get(JOB_COMPLETION_INDEX)
            .cloned()
            .expect("the annotation");
        assert_eq!(
            p.meta().labels.get(JOB_COMPLETION_INDEX),
            Some(&ix),
            "and the label"
        );
        let prefix = format!("idx-{ix}-");
        assert!(
            p.name().starts_with(&prefix) && p.name().len() == prefix.len() + 5,
            "{}",
            p.name()
        );
        indexes.push(ix);
    }
    indexes.sort();
    assert_eq!(indexes, ["0", "1", "2", "3"], "one pod per index");
    let s = get_job(&mut h, "idx")["status"].clone();
    assert_eq!(
        (&s["completedIndexes"], &s["succeeded"]),
        (&json!("0-3"), &json!(4))
    );
}

#[test]
fn crashing_pods_are_replaced_after_a_growing_back_off_until_the_backoff_limit() {
    let mut h = harness();
    let behaviour = "crash-after=3s,exit-code=3";
    create(&mut h, job("crash", behaviour, json!({"backoffLimit": 2})));
    let deadline = h.now().plus_secs(300);
    assert!(h.run_until_true(deadline, |h| finished(h, "crash")));
    h.run_for(5_000);
    let pods = pods(&h, "crash");
    assert_eq!(pods.len(), 3, "the first pod and two replacements");
    assert!(pods.iter().all(|p| phase(p) == "Failed"));
    // Each replacement is created its back-off after the previous pod's container exited.
    let finished_at = |o: &Object| {
        let p = o.as_pod().expect("a pod");
        p.status.container_statuses[0]
            .state
            .terminated
            .as_ref()
            .and_then(|t| t.finished_at)
            .expect("exited")
    };
    let delays: Vec<u64> = pods
        .windows(2)
        .map(|w| {
            let created = w[1].meta().creation_timestamp.expect("created");
            created.millis_since(finished_at(&w[0]))
        })
        .collect();
    assert_eq!(delays, [10_000, 20_000]);
    let s = get_job(&mut h, "crash")["status"].clone();
    assert_eq!(s["failed"], 3, "{s}");
    assert!(
        s.get("succeeded").is_none() && s.get("completionTime").is_none(),
        "{s}"
    );
    let msg = "Job has reached the specified backoff limit".to_string();
    let c = |t: &str| {
        (
            t.to_string(),
            "True".into(),
            "BackoffLimitExceeded".into(),
            msg.clone(),
        )
    };
    assert_eq!(conditions(&s), [c("FailureTarget"), c("Failed")]);
    let seen = events(&mut h, "crash", "job-controller");
    assert_eq!(
        seen.last(),
        Some(&("BackoffLimitExceeded".to_string(), msg))
    );
}

#[test]
fn the_active_deadline_fails_the_job_at_its_instant_and_deletes_its_pods() {
    let mut h = harness();
    create(
        &mut h,
        job(
            "slow",
            "",
            json!({"activeDeadlineSeconds": 20, "parallelism": 2, "completions": 2}),
        ),
    );
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| active(h, "slow") == 2));
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| finished(h, "slow")));
    let s = get_job(&mut h, "slow")["status"].clone();
    let start =
        Timestamp::parse_rfc3339(s["startTime"].as_str().unwrap_or_default()).expect("started");
    let target = condition_time(&s, "FailureTarget").expect("a failure target");
    assert_eq!(
        target,
        rfc3339(start.plus_secs(20)),
        "exactly at the deadline"
    );
    let msg = "Job was active longer than specified deadline".to_string();
    let c = |t: &str| {
        (
            t.to_string(),
            "True".into(),
            "DeadlineExceeded".into(),
            msg.clone(),
        )
    };
    assert_eq!(conditions(&s), [c("FailureTarget"), c("Failed")]);
    assert_eq!(
        s["failed"], 2,
        "the deleted active pods count as failed: {s}"
    );
    h.run_for(60_000);
    assert!(pods(&h, "slow").is_empty(), "the active pods were deleted");
    let seen = events(&mut h, "slow", "job-controller");
    assert_eq!(
        seen.iter().filter(|(r, _)| r == "SuccessfulDelete").count(),
        2,
        "{seen:?}"
    );
    assert_eq!(seen.last(), Some(&("DeadlineExceeded".to_string(), msg)));
}

fn exit_code_rule(action: &str) -> Value {
    json!({"podFailurePolicy": {"rules": [
        {"action": action, "onExitCodes": {"operator": "In", "values": [42]}}]}})
}

#[test]
fn a_fail_job_rule_fails_the_job_at_the_first_matching_exit_code() {
    let mut h = harness();
    let mut spec = exit_code_rule("FailJob");
    spec["backoffLimit"] = json!(6);
    create(&mut h, job("fj", "crash-after=3s,exit-code=42", spec));
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| finished(h, "fj")));
    let pods = pods(&h, "fj");
    assert_eq!(pods.len(), 1, "no replacement");
    let s = get_job(&mut h, "fj")["status"].clone();
    let msg = format!(
        "Container main for pod default/{} failed with exit code 42 matching FailJob rule at index 0",
        pods[0].name()
    );
    let c = |t: &str| {
        (
            t.to_string(),
            "True".into(),
            "PodFailurePolicy".into(),
            msg.clone(),
        )
    };
    assert_eq!(conditions(&s), [c("FailureTarget"), c("Failed")]);
    assert_eq!(s["failed"], 1);
}

#[test]
fn an_ignore_rule_keeps_matching_failures_out_of_the_count() {
    let mut h = harness();
    let mut spec = exit_code_rule("Ignore");
    spec["backoffLimit"] = json!(0);
    create(&mut h, job("ign", "crash-after=3s,exit-code=42", spec));
    h.run_for(60_000);
    let failed = pods(&h, "ign")
        .iter()
        .filter(|p| phase(p) == "Failed")
        .count();
    assert!(failed >= 2, "{failed} pods failed and were replaced");
    assert!(!finished(&h, "ign"), "backoffLimit 0 is never reached");
    let s = get_job(&mut h, "ign")["status"].clone();
    assert!(s.get("failed").is_none(), "{s}");
}

#[test]
fn a_suspended_job_runs_nothing_until_resumed_and_suspending_deletes_its_pods() {
    let mut h = harness();
    create(
        &mut h,
        job(
            "sus",
            "",
            json!({"suspend": true, "parallelism": 2, "completions": 4}),
        ),
    );
    h.run_for(10_000);
    assert!(pods(&h, "sus").is_empty());
    let s = get_job(&mut h, "sus")["status"].clone();
    let suspended = (
        "Suspended".to_string(),
        "True".to_string(),
        "JobSuspended".to_string(),
        "Job suspended".to_string(),
    );
    assert_eq!(conditions(&s), std::slice::from_ref(&suspended));
    assert!(s.get("startTime").is_none(), "{s}");

    let resume = json!({"spec": {"suspend": false}});
    ok(&mut h, "PATCH", &format!("{JOBS}/sus"), Some(resume));
    let resumed_at = h.now();
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| active(h, "sus") == 2));
    let s = get_job(&mut h, "sus")["status"].clone();
    let resumed = (
        "Suspended".to_string(),
        "False".to_string(),
        "JobResumed".to_string(),
        "Job resumed".to_string(),
    );
    assert_eq!(conditions(&s), [resumed]);
    assert_eq!(s["startTime"].as_str(), Some(rfc3339(resumed_at).as_str()));

    ok(
        &mut h,
        "PATCH",
        &format!("{JOBS}/sus"),
        Some(json!({"spec": {"suspend": true}})),
    );
    h.run_for(60_000);
    assert!(pods(&h, "sus").is_empty(), "the active pods were deleted");
    let s = get_job(&mut h, "sus")["status"].clone();
    assert_eq!(conditions(&s), [suspended]);
    assert!(
        s.get("active").is_none() && s.get("failed").is_none(),
        "{s}"
    );
    let seen: Vec<String> = events(&mut h, "sus", "job-controller")
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    let deletes = seen.iter().filter(|r| *r == "SuccessfulDelete").count();
    assert_eq!(deletes, 2, "{seen:?}");
    for reason in ["Suspended", "Resumed"] {
        assert!(seen.iter().any(|r| r == reason), "{seen:?}");
    }
}

#[test]
fn the_ttl_deletes_a_finished_job_and_its_pods_when_it_runs_out() {
    let mut h = harness();
    create(
        &mut h,
        job(
            "ttl",
            "complete-after=3s",
            json!({"ttlSecondsAfterFinished": 30}),
        ),
    );
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| finished(h, "ttl")));
    let finish = stored(&h, "ttl")
        .and_then(|o| o.as_job().and_then(|j| j.finish_time()))
        .expect("a finish time");
    assert_eq!(
        pods(&h, "ttl").len(),
        1,
        "the pod is kept while the Job lives"
    );
    let deleting =
        |h: &Harness| stored(h, "ttl").is_none_or(|o| o.meta().deletion_timestamp.is_some());
    let deadline = finish.plus_secs(60);
    assert!(h.run_until_true(deadline, deleting));
    assert_eq!(
        h.now(),
        finish.plus_secs(30),
        "deleted exactly when the TTL ran out"
    );
    let deadline = h.now().plus_secs(120);
    assert!(h.run_until_true(deadline, |h| stored(h, "ttl").is_none()
        && pods(h, "ttl").is_empty()));
}

#[test]
fn invalid_jobs_are_refused_with_the_real_messages() {
    let mut h = harness();
    let mut no_policy = job("bad", "", json!({}));
    no_policy["spec"]["template"]["spec"]
        .as_object_mut()
        .map(|s| s.remove("restartPolicy"));
    let (code, v) = call(&mut h, "POST", JOBS, Some(no_policy));
    assert_eq!(code, 422, "{v}");
    assert_eq!(
        v["message"],
        "Job.batch \"bad\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""
    );
    let indexed = job(
        "bad",
        "",
        json!({"completionMode": "Indexed", "parallelism": 2}),
    );
    let (code, v) = call(&mut h, "POST", JOBS, Some(indexed));
    assert_eq!(code, 422, "{v}");
    let msg = v["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("spec.completions: Required value: when completion mode is Indexed"),
        "{msg}"
    );
}

#[test]
fn a_running_job_deleted_in_the_background_lets_its_pods_go() {
    let mut h = harness();
    create(
        &mut h,
        job("gone", "", json!({"parallelism": 2, "completions": 2})),
    );
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| active(h, "gone") == 2));
    ok(&mut h, "DELETE", &format!("{JOBS}/gone"), None);
    let deadline = h.now().plus_secs(60);
    let gone = h.run_until_true(deadline, |h| {
        stored(h, "gone").is_none() && pods(h, "gone").is_empty()
    });
    assert!(
        gone,
        "the garbage collector deleted the pods and the Job controller let them go: {:?}",
        pods(&h, "gone")
            .iter()
            .map(|p| p.meta().finalizers.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn with_pod_replacement_policy_failed_a_deleted_pod_is_replaced_only_once_it_failed() {
    let mut h = harness();
    create(
        &mut h,
        job("rp", "", json!({"podReplacementPolicy": "Failed"})),
    );
    let deadline = h.now().plus_secs(10);
    let running = |h: &Harness| pods(h, "rp").iter().any(|p| phase(p) == "Running");
    assert!(h.run_until_true(deadline, running));
    let first = pods(&h, "rp").remove(0);
    ok(
        &mut h,
        "DELETE",
        &format!("/api/v1/namespaces/default/pods/{}", first.name()),
        None,
    );
    let mut terminating_seen = false;
    let mut replaced_while_terminating = false;
    let deadline = h.now().plus_secs(60);
    let replaced = h.run_until_true(deadline, |h| {
        let all = pods(h, "rp");
        let old_alive = all
            .iter()
            .any(|p| p.meta().uid == first.meta().uid && phase(p) != "Failed");
        let status = stored(h, "rp").and_then(|o| o.as_job().map(|j| j.status.clone()));
        terminating_seen |= status.is_some_and(|s| s.terminating == Some(1));
        replaced_while_terminating |= old_alive && all.len() > 1;
        all.iter().any(|p| p.meta().uid != first.meta().uid)
    });
    assert!(replaced);
    assert!(
        terminating_seen,
        "the terminating pod is counted in status.terminating"
    );
    assert!(
        !replaced_while_terminating,
        "no replacement before the old pod failed"
    );
    let s = get_job(&mut h, "rp")["status"].clone();
    assert_eq!(
        s["failed"], 1,
        "the deleted pod ended Failed and was counted: {s}"
    );
}

#[test]
fn with_restart_policy_on_failure_the_container_restarts_count_against_the_backoff_limit() {
    let mut h = harness();
    let mut body = job("onf", "crash-after=2s", json!({"backoffLimit": 2}));
    body["spec"]["template"]["spec"]["restartPolicy"] = json!("OnFailure");
    create(&mut h, body);
    let deadline = h.now().plus_secs(300);
    assert!(h.run_until_true(deadline, |h| finished(h, "onf")));
    let s = get_job(&mut h, "onf")["status"].clone();
    let reasons: Vec<String> = conditions(&s).into_iter().map(|c| c.2).collect();
    assert_eq!(
        reasons,
        ["BackoffLimitExceeded", "BackoffLimitExceeded"],
        "{s}"
    );
    assert_eq!(
        s["failed"], 1,
        "the one pod, restarted in place, then deleted: {s}"
    );
    h.run_for(60_000);
    assert!(pods(&h, "onf").is_empty(), "the restarting pod was deleted");
}
