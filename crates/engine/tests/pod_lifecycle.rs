//! The pod lifecycle on virtual time, with exact timings against kubelet v1.32's defaults: a
//! crashing container's restarts (the first 1 s after the exit, then back-off 10, 20, 40 … 300 s,
//! reset after 10 minutes of running), readiness flipping after failureThreshold × period,
//! liveness and startup probes killing and restarting, restartPolicy OnFailure/Never ending in
//! Succeeded or Failed — each with the status, conditions and Events a learner reads.

use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::behaviour::ANNOTATION;
use watchlab_engine::api::pod::{
    Container, ContainerStatus, HttpGetAction, IntOrString, Pod, PodSpec, Probe,
};
use watchlab_engine::api::{Event, Kind, Object, ObjectMeta};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::{Harness, Profile};

fn cluster() -> Harness {
    let mut h = Harness::new(3, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    h
}

fn http_probe(period: i32, failure: i32) -> Probe {
    Probe {
        http_get: Some(HttpGetAction {
            path: "/healthz".into(),
            port: IntOrString::Int(8080),
            ..Default::default()
        }),
        period_seconds: Some(period),
        failure_threshold: Some(failure),
        ..Default::default()
    }
}

fn create(h: &mut Harness, name: &str, behaviour: &str, policy: &str, app: Container) {
    let mut meta = ObjectMeta::named("default", name);
    if !behaviour.is_empty() {
        meta.annotations
            .insert(ANNOTATION.to_string(), behaviour.to_string());
    }
    let pod = Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![Container {
                name: "app".into(),
                image: "app:1.0".into(),
                ..app
            }]
            .into(),
            restart_policy: Some(policy.into()),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    };
    h.api
        .create("kubectl", Object::Pod(pod))
        .expect("create pod");
}

fn pod(h: &Harness, name: &str) -> Pod {
    h.api
        .get(Kind::Pod, Some("default"), name)
        .ok()
        .and_then(|o| o.as_pod().cloned())
        .expect("pod")
}

/// The container's state as one word plus its restart count: `running 2`, `terminated 2`,
/// `waiting 2` (CrashLoopBackOff), `none 0` before the kubelet wrote any.
fn state(h: &Harness, name: &str) -> (String, i32) {
    let p = pod(h, name);
    let Some(c) = p.status.container_statuses.first() else {
        return ("none".into(), 0);
    };
    let word = if c.state.running.is_some() {
        "running"
    } else if c.state.terminated.is_some() {
        "terminated"
    } else {
        c.state
            .waiting
            .as_ref()
            .map_or("none", |w| w.reason.as_str())
    };
    (word.to_string(), c.restart_count)
}

/// Runs until `until`, noting the virtual time of every change of the container's state.
fn transitions(h: &mut Harness, name: &str, until: Timestamp) -> Vec<(String, i32, u64)> {
    let mut seen: Vec<(String, i32, u64)> = Vec::new();
    loop {
        let last = seen.last().map(|(s, n, _)| (s.clone(), *n));
        if !h.run_until_true(until, |h| Some(state(h, name)) != last) {
            return seen;
        }
        let (s, n) = state(h, name);
        seen.push((s, n, h.now().as_millis()));
    }
}

fn events_of(h: &Harness, name: &str) -> Vec<Event> {
    let mut evs: Vec<Event> = h
        .api
        .list(Kind::Event, Some("default"), &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| match &**o {
                    Object::Event(e) if e.involved_object.name == name => Some(e.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    evs.sort_by_key(|e| e.metadata.resource_version.parse::<u64>().unwrap_or(0));
    evs
}

fn condition(p: &Pod, t: &str) -> (String, String) {
    p.condition(t)
        .map(|c| (c.status.to_string(), c.reason.to_string()))
        .unwrap_or_default()
}

/// Two pods whose status writes carry equal conditions and container statuses (pods of one
/// template started at one instant) hold one list of each in the store; a later write to
/// one leaves the other's as it was.
#[test]
fn equal_conditions_of_two_pods_are_one_list_in_the_store() {
    let mut h = cluster();
    for name in ["twin-a", "twin-b"] {
        create(&mut h, name, "", "Never", Container::default());
    }
    let now = h.api.now();
    let write = |h: &mut Harness, name: &str, ready: &'static str| {
        let mut p = pod(h, name);
        p.status.phase = "Pending".into();
        p.set_condition("Initialized", "True", now);
        p.set_condition("Ready", ready, now);
        p.status.container_statuses = vec![ContainerStatus {
            name: "app".into(),
            image: "app:1.0".into(),
            ..Default::default()
        }]
        .into();
        let stored = h
            .api
            .update_status("kubelet/node-a", Object::Pod(p))
            .expect("status");
        stored.as_pod().cloned().expect("pod")
    };
    let a = write(&mut h, "twin-a", "False");
    let b = write(&mut h, "twin-b", "False");
    assert!(a.status.conditions.shares_with(&b.status.conditions));
    assert!(a
        .status
        .container_statuses
        .shares_with(&b.status.container_statuses));

    let a2 = write(&mut h, "twin-a", "True");
    assert!(!a2.status.conditions.shares_with(&b.status.conditions));
    assert_eq!(pod(&h, "twin-b").status.conditions, b.status.conditions);
    assert_eq!(
        b.status.conditions.get(1).map(|c| &*c.status),
        Some("False")
    );
}

#[test]
fn a_crashing_container_restarts_after_1_then_10_20_40_80_160_300_300_seconds() {
    let mut h = cluster();
    create(
        &mut h,
        "crash",
        "crash-after=30s",
        "Always",
        Container::default(),
    );
    let until = h.now().plus_secs(1_500);
    let seen = transitions(&mut h, "crash", until);
    let at = |word: &str, n: i32| {
        seen.iter()
            .find(|(s, c, _)| s == word && *c == n)
            .map(|(_, _, t)| *t)
            .unwrap_or_else(|| panic!("no {word} {n} in {seen:?}"))
    };
    let started = at("running", 0);
    // Each run lasts exactly 30 s.
    for n in 0..8 {
        assert_eq!(at("terminated", n) - at("running", n), 30_000, "{seen:?}");
    }
    // Exit → restart: the first at the next sync (1 s), then the doubling back-off to 300 s.
    let gaps: Vec<u64> = (0..8)
        .map(|n| (at("running", n + 1) - at("terminated", n)) / 1000)
        .collect();
    assert_eq!(gaps, [1, 10, 20, 40, 80, 160, 300, 300], "{seen:?}");
    // The first restart never shows CrashLoopBackOff; every later one does, 1 s after the exit.
    assert!(!seen
        .iter()
        .any(|(s, n, _)| s == "CrashLoopBackOff" && *n == 0));
    for n in 1..8 {
        assert_eq!(at("CrashLoopBackOff", n) - at("terminated", n), 1_000);
    }
    assert!(started > 0);
    let p = pod(&h, "crash");
    assert_eq!(
        p.status.phase, "Running",
        "a crash loop stays in phase Running"
    );
    let c = &p.status.container_statuses[0];
    let last = c.last_state.terminated.as_ref().expect("last state");
    assert_eq!((last.exit_code, last.reason.as_str()), (1, "Error"));
    let evs = events_of(&h, "crash");
    let backoff = evs
        .iter()
        .find(|e| e.reason == "BackOff")
        .expect("BackOff event");
    assert_eq!(backoff.type_, "Warning");
    assert_eq!(
        backoff.message.to_string(),
        format!(
            "Back-off restarting failed container app in pod crash_default({})",
            p.metadata.uid
        )
    );
    assert!(
        backoff.count > Some(8),
        "recorded again while waiting: {:?}",
        backoff.count
    );
    // The kubelet's events about the pod pass client-go's spam filter: a burst of 25, then one
    // per 5 minutes. The back-off repeats use up the burst, so the later restarts' Started
    // events are never written, as on a real node.
    let written: i32 = evs
        .iter()
        .filter(|e| e.source.component == "kubelet")
        .map(|e| e.count.unwrap_or(1))
        .sum();
    let refills = 1_500 / 300;
    assert!(
        (25..=25 + refills).contains(&written),
        "{written} kubelet events written"
    );
    let started_events = evs.iter().find(|e| e.reason == "Started").expect("Started");
    assert!(
        started_events.count < Some(c.restart_count + 1),
        "{:?} Started for {} restarts",
        started_events.count,
        c.restart_count
    );
}

#[test]
fn the_back_off_resets_after_ten_minutes_of_running() {
    let mut h = cluster();
    create(
        &mut h,
        "slow-crash",
        "crash-after=11m",
        "Always",
        Container::default(),
    );
    let until = h.now().plus_secs(3 * 662 + 60);
    let seen = transitions(&mut h, "slow-crash", until);
    let restarts: Vec<_> = seen.iter().filter(|(s, _, _)| s == "running").collect();
    assert_eq!(restarts.len(), 4, "{seen:?}");
    assert!(
        !seen.iter().any(|(s, _, _)| s == "CrashLoopBackOff"),
        "each exit came 11 min after the last restart: no back-off ({seen:?})"
    );
    for w in restarts.windows(2) {
        assert_eq!(w[1].2 - w[0].2, 661_000, "{seen:?}");
    }
}

#[test]
fn readiness_flips_after_failure_threshold_times_period_and_the_pod_stays_running() {
    let mut h = cluster();
    let app = Container {
        readiness_probe: Some(Box::new(http_probe(10, 3))),
        ..Default::default()
    };
    create(&mut h, "web", "unhealthy-after=60s", "Always", app);
    let until = h.now().plus_secs(200);
    let mut ready_at = Vec::new();
    let mut last = None;
    loop {
        let changed = h.run_until_true(until, |h| {
            let p = pod(h, "web");
            let ready = p.status.container_statuses.first().map(|c| c.ready);
            ready != last
        });
        if !changed {
            break;
        }
        last = pod(&h, "web")
            .status
            .container_statuses
            .first()
            .map(|c| c.ready);
        ready_at.push((last, h.now().as_millis()));
    }
    // Created not ready, ready at the first probe (initialDelaySeconds 0: at the start),
    // then probes at 60, 70, 80 s fail: not ready at the third, 80 s after the start.
    assert_eq!(ready_at.len(), 3, "{ready_at:?}");
    assert_eq!(ready_at[0].0, Some(false));
    assert_eq!(ready_at[1].0, Some(true));
    assert_eq!(ready_at[2].0, Some(false));
    assert_eq!(ready_at[2].1 - ready_at[1].1, 80_000, "{ready_at:?}");
    let p = pod(&h, "web");
    assert_eq!(p.status.phase, "Running");
    assert_eq!(
        p.status.container_statuses[0].restart_count, 0,
        "readiness never restarts"
    );
    assert_eq!(
        condition(&p, "Ready"),
        ("False".into(), "ContainersNotReady".into())
    );
    assert_eq!(
        p.condition("ContainersReady").map(|c| &*c.message),
        Some("containers with unready status: [app]")
    );
    let unhealthy = events_of(&h, "web")
        .into_iter()
        .find(|e| e.reason == "Unhealthy")
        .expect("Unhealthy");
    assert_eq!(unhealthy.type_, "Warning");
    let ip = &p.status.pod_ip;
    assert_eq!(
        unhealthy.message.to_string(),
        format!(
            "Readiness probe failed: Get \"http://{ip}:8080/healthz\": dial tcp {ip}:8080: \
             connect: connection refused"
        )
    );
}

#[test]
fn fail_readiness_keeps_the_pod_at_zero_of_one_with_http_503() {
    let mut h = cluster();
    let app = Container {
        readiness_probe: Some(Box::new(http_probe(5, 3))),
        ..Default::default()
    };
    create(&mut h, "never-ready", "fail-readiness", "Always", app);
    h.run_for(60_000);
    let p = pod(&h, "never-ready");
    assert_eq!(p.status.phase, "Running");
    assert!(!p.status.container_statuses[0].ready);
    assert_eq!(p.status.container_statuses[0].started, Some(true));
    let unhealthy = events_of(&h, "never-ready")
        .into_iter()
        .find(|e| e.reason == "Unhealthy")
        .expect("Unhealthy");
    assert_eq!(
        &*unhealthy.message,
        "Readiness probe failed: HTTP probe failed with statuscode: 503"
    );
    assert!(
        unhealthy.count >= Some(10),
        "one per probe: {:?}",
        unhealthy.count
    );
}

#[test]
fn a_failed_liveness_probe_kills_and_restarts_the_container() {
    let mut h = cluster();
    let app = Container {
        liveness_probe: Some(Box::new(http_probe(10, 3))),
        ..Default::default()
    };
    create(&mut h, "hangs", "unhealthy-after=30s", "Always", app);
    let until = h.now().plus_secs(120);
    let seen = transitions(&mut h, "hangs", until);
    let at = |word: &str, n: i32| {
        seen.iter()
            .find(|(s, c, _)| s == word && *c == n)
            .map(|(_, _, t)| *t)
            .unwrap_or_else(|| panic!("no {word} {n} in {seen:?}"))
    };
    // Probes at 0, 10, 20 pass; 30, 40, 50 fail: killed at the third failure.
    assert_eq!(at("terminated", 0) - at("running", 0), 50_000, "{seen:?}");
    assert_eq!(at("running", 1) - at("terminated", 0), 1_000);
    let p = pod(&h, "hangs");
    let last = p.status.container_statuses[0]
        .last_state
        .terminated
        .clone()
        .expect("last state");
    assert_eq!((last.exit_code, last.reason.as_str()), (137, "Error"));
    let evs = events_of(&h, "hangs");
    let killing = evs.iter().find(|e| e.reason == "Killing").expect("Killing");
    assert_eq!(killing.type_, "Normal");
    assert_eq!(
        &*killing.message,
        "Container app failed liveness probe, will be restarted"
    );
    let unhealthy = evs
        .iter()
        .find(|e| e.reason == "Unhealthy")
        .expect("Unhealthy");
    assert!(unhealthy
        .message
        .starts_with("Liveness probe failed: Get \"http://"));
}

#[test]
fn a_startup_probe_holds_liveness_back_until_it_succeeds() {
    let mut h = cluster();
    // Liveness alone would kill this slow starter at its first failure; the startup probe
    // (6 × 10 s) covers the 25 s warm-up: started at the 30 s probe, never restarted.
    let app = Container {
        startup_probe: Some(Box::new(http_probe(10, 6))),
        liveness_probe: Some(Box::new(http_probe(10, 1))),
        ..Default::default()
    };
    create(&mut h, "slow-start", "ready-after=25s", "Always", app);
    let mut started_at = None;
    let deadline = h.now().plus_secs(30);
    assert!(h.run_until_true(deadline, |h| !pod(h, "slow-start")
        .status
        .container_statuses
        .is_empty()));
    let created = h.now().as_millis();
    let until = h.now().plus_secs(120);
    h.run_until_true(until, |h| {
        let p = pod(h, "slow-start");
        let started = p.status.container_statuses[0].started == Some(true);
        if started && started_at.is_none() {
            started_at = Some(h.now().as_millis());
        }
        false
    });
    let p = pod(&h, "slow-start");
    let c = &p.status.container_statuses[0];
    assert_eq!(c.restart_count, 0);
    assert!(c.ready);
    assert!(started_at.is_some_and(|t| t > created + 25_000 && t <= created + 35_000));
    let evs = events_of(&h, "slow-start");
    let unhealthy = evs
        .iter()
        .find(|e| e.reason == "Unhealthy")
        .expect("Unhealthy");
    assert!(unhealthy.message.starts_with("Startup probe failed: "));
    assert_eq!(
        unhealthy.count,
        Some(3),
        "startup probes at 0, 10, 20 s failed"
    );
    assert!(!evs.iter().any(|e| e.reason == "Killing"));

    // The same warm-up with only 2 startup failures allowed: killed at the second.
    let app = Container {
        startup_probe: Some(Box::new(http_probe(10, 2))),
        ..Default::default()
    };
    create(&mut h, "too-slow", "ready-after=25s", "Always", app);
    h.run_for(60_000);
    let killing = events_of(&h, "too-slow")
        .into_iter()
        .find(|e| e.reason == "Killing")
        .expect("Killing");
    assert_eq!(
        &*killing.message,
        "Container app failed startup probe, will be restarted"
    );
}

#[test]
fn restart_policies_end_in_succeeded_or_failed_and_stay_there() {
    let mut h = cluster();
    create(
        &mut h,
        "job",
        "complete-after=5s",
        "Never",
        Container::default(),
    );
    create(
        &mut h,
        "broken",
        "crash-after=5s,exit-code=3",
        "Never",
        Container::default(),
    );
    create(
        &mut h,
        "retry",
        "crash-after=5s",
        "OnFailure",
        Container::default(),
    );
    create(
        &mut h,
        "once",
        "complete-after=5s",
        "OnFailure",
        Container::default(),
    );
    h.run_for(120_000);
    let job = pod(&h, "job");
    assert_eq!(job.status.phase, "Succeeded");
    let t = job.status.container_statuses[0]
        .state
        .terminated
        .clone()
        .expect("terminated");
    assert_eq!((t.exit_code, t.reason.as_str()), (0, "Completed"));
    assert_eq!(
        condition(&job, "Ready"),
        ("False".into(), "PodCompleted".into())
    );
    let broken = pod(&h, "broken");
    assert_eq!(broken.status.phase, "Failed");
    let t = broken.status.container_statuses[0]
        .state
        .terminated
        .clone()
        .expect("terminated");
    assert_eq!((t.exit_code, t.reason.as_str()), (3, "Error"));
    assert_eq!(broken.status.container_statuses[0].restart_count, 0);
    let retry = pod(&h, "retry");
    assert_eq!(retry.status.phase, "Running");
    assert!(retry.status.container_statuses[0].restart_count >= 2);
    assert_eq!(pod(&h, "once").status.phase, "Succeeded");
    // Terminal pods stay terminal.
    let rv = job.metadata.resource_version.clone();
    h.run_for(600_000);
    assert_eq!(pod(&h, "job").metadata.resource_version, rv);
    assert_eq!(pod(&h, "broken").status.phase, "Failed");
}

#[test]
fn a_behaviour_that_does_not_parse_is_refused_and_nothing_is_written() {
    let mut h = cluster();
    let before = h.api.revision();
    let mut meta = ObjectMeta::named("default", "typo");
    meta.annotations
        .insert(ANNOTATION.to_string(), "crash-afterr=5s".to_string());
    let bad = Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![Container {
                name: "app".into(),
                image: "app:1.0".into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    };
    let err = h.api.create("kubectl", Object::Pod(bad)).unwrap_err();
    assert_eq!(err.code(), 422);
    assert!(
        err.message().contains(
            "metadata.annotations[watchlab.dev/behaviour]: Invalid value: \"crash-afterr=5s\": \
             unknown clause \"crash-afterr\""
        ),
        "{}",
        err.message()
    );
    assert_eq!(h.api.revision(), before);
}

#[test]
fn probes_that_keep_passing_write_nothing() {
    let mut h = cluster();
    let app = Container {
        readiness_probe: Some(Box::new(http_probe(10, 3))),
        liveness_probe: Some(Box::new(http_probe(10, 3))),
        ..Default::default()
    };
    create(&mut h, "steady", "", "Always", app);
    let deadline = h.now().plus_secs(30);
    assert!(h.run_until_true(deadline, |h| pod(h, "steady")
        .status
        .container_statuses
        .first()
        .is_some_and(|c| c.ready)));
    h.run_for(1_000);
    let rv = pod(&h, "steady").metadata.resource_version;
    // 60 probes later: one status write per change, and nothing changed.
    h.run_for(300_000);
    assert_eq!(pod(&h, "steady").metadata.resource_version, rv);
}
