//! `pods/log` on the engine: what `GET .../pods/NAME/log` answers for pods whose containers live
//! as their `watchlab.dev/behaviour` says — the run's lines at their virtual instants, the run
//! before with `previous`, the options (`tailLines`, `sinceSeconds`, `timestamps`,
//! `limitBytes`) as the kubelet applies them, the refusals in the API server's and the
//! kubelet's words, and a `follow` read that hands out new lines as the clock moves and ends
//! with the run.

use watchlab_engine::api::behaviour::ANNOTATION;
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Kind, Object, ObjectMeta};
use watchlab_engine::apiserver::pod_log::PodLogOptions;
use watchlab_engine::controllers::kubelet::container_logs::nano_timestamp;
use watchlab_engine::controllers::{Harness, Profile};

fn cluster() -> Harness {
    let mut h = Harness::new(7, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    h
}

fn create(h: &mut Harness, name: &str, behaviour: &str, containers: &[(&str, &str)]) {
    let mut meta = ObjectMeta::named("default", name);
    if !behaviour.is_empty() {
        meta.annotations
            .insert(ANNOTATION.to_string(), behaviour.to_string());
    }
    let pod = Pod {
        metadata: meta,
        spec: PodSpec {
            containers: containers
                .iter()
                .map(|(n, image)| Container {
                    name: n.to_string(),
                    image: image.to_string(),
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
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

/// `GET .../pods/NAME/log?QUERY` as (code, body).
fn log(h: &mut Harness, name: &str, query: &str) -> (u16, String) {
    let path = format!("/api/v1/namespaces/default/pods/{name}/log?{query}");
    let r = h.api.handle("kubectl", "GET", &path, None, None);
    (r.code, r.body)
}

/// The message of a Status body.
fn message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body).expect("a Status")["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn running(h: &Harness, name: &str) -> bool {
    pod(h, name)
        .status
        .container_statuses
        .first()
        .is_some_and(|c| c.state.running.is_some())
}

#[test]
fn a_crashing_container_shows_its_run_and_previous_shows_the_crash() {
    let mut h = cluster();
    create(
        &mut h,
        "crash",
        "crash-after=30s,exit-code=3",
        &[("app", "busybox:1.36")],
    );
    // Not on a node yet: an empty log (LogLocation has no location).
    assert_eq!(log(&mut h, "crash", ""), (200, String::new()));
    let until = h.now().plus_secs(60);
    assert!(h.run_until_true(until, |h| running(h, "crash")));
    assert_eq!(
        log(&mut h, "crash", ""),
        (200, "busybox: starting\n".into())
    );
    let (code, body) = log(&mut h, "crash", "previous=true");
    assert_eq!(code, 400);
    assert_eq!(
        message(&body),
        "previous terminated container \"app\" in pod \"crash\" not found"
    );

    // Crash, restart: the previous run ends with its exit, at the instant the status records.
    let until = h.now().plus_secs(60);
    assert!(h.run_until_true(until, |h| {
        pod(h, "crash").status.container_statuses[0].restart_count == 1 && running(h, "crash")
    }));
    let p = pod(&h, "crash");
    let last = p.status.container_statuses[0]
        .last_state
        .terminated
        .clone()
        .expect("last state");
    let (code, body) = log(&mut h, "crash", "previous=true&timestamps=true");
    assert_eq!(code, 200);
    let started = nano_timestamp(last.started_at.expect("started"));
    let finished = nano_timestamp(last.finished_at.expect("finished"));
    assert_eq!(
        body,
        format!(
            "{started} busybox: starting\n{finished} busybox: fatal error, exiting with code 3\n"
        )
    );
    assert_eq!(log(&mut h, "crash", "").1, "busybox: starting\n");

    // In CrashLoopBackOff (waiting, a last state) the log is the last run's.
    let until = h.now().plus_secs(120);
    assert!(h.run_until_true(until, |h| {
        pod(h, "crash").status.container_statuses[0]
            .state
            .waiting
            .as_ref()
            .is_some_and(|w| w.reason == "CrashLoopBackOff")
    }));
    assert_eq!(
        log(&mut h, "crash", "").1,
        "busybox: starting\nbusybox: fatal error, exiting with code 3\n"
    );
}

#[test]
fn a_starting_container_is_waiting_and_containers_must_be_named() {
    let mut h = cluster();
    create(&mut h, "two", "", &[("a", "app:1"), ("b", "app:1")]);
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| {
        pod(h, "two")
            .status
            .container_statuses
            .first()
            .is_some_and(|c| {
                c.state
                    .waiting
                    .as_ref()
                    .is_some_and(|w| w.reason == "ContainerCreating")
            })
    }));
    let (code, body) = log(&mut h, "two", "");
    assert_eq!(code, 400);
    assert_eq!(
        message(&body),
        "a container name must be specified for pod two, choose one of: [a b]"
    );
    assert_eq!(
        message(&log(&mut h, "two", "container=c").1),
        "container c is not valid for pod two"
    );
    let (code, body) = log(&mut h, "two", "container=b");
    assert_eq!(code, 400);
    assert_eq!(
        message(&body),
        "container \"b\" in pod \"two\" is waiting to start: ContainerCreating"
    );
    let until = h.now().plus_secs(30);
    assert!(h.run_until_true(until, |h| running(h, "two")));
    assert_eq!(
        log(&mut h, "two", "container=b"),
        (200, "app: starting\n".into())
    );
    let (code, body) = log(&mut h, "nobody", "");
    assert_eq!(
        (code, message(&body)),
        (404, "pods \"nobody\" not found".into())
    );
}

#[test]
fn nginx_prints_its_entrypoint_and_the_options_read_as_the_kubelet_does() {
    let mut h = cluster();
    create(&mut h, "web", "ready-after=20s", &[("web", "nginx:1.27")]);
    let until = h.now().plus_secs(60);
    assert!(h.run_until_true(until, |h| running(h, "web")));
    h.run_for(30_000);
    let all = log(&mut h, "web", "").1;
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration")
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("[notice] 1#1: nginx/1.27")),
        "{all}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("nginx: warm-up done, accepting connections")
    );

    assert_eq!(
        log(&mut h, "web", "tailLines=1").1,
        "nginx: warm-up done, accepting connections\n"
    );
    // The warm-up line is 10 s old: sinceSeconds=15 keeps it alone, 60 keeps everything.
    assert_eq!(
        log(&mut h, "web", "sinceSeconds=15").1,
        "nginx: warm-up done, accepting connections\n"
    );
    assert_eq!(log(&mut h, "web", "sinceSeconds=60").1, all);
    assert_eq!(log(&mut h, "web", "limitBytes=5").1, "/dock");
    let stamped = log(&mut h, "web", "tailLines=1&timestamps=true").1;
    let (ts, text) = stamped.split_once(' ').expect("a timestamp");
    assert_eq!(text, "nginx: warm-up done, accepting connections\n");
    assert!(ts.ends_with("000000Z") && ts.len() == "2026-01-01T00:00:00.000000000Z".len());

    let (code, body) = log(&mut h, "web", "tailLines=-1");
    assert_eq!(code, 422);
    assert_eq!(
        message(&body),
        "PodLogOptions \"web\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0"
    );
    let (code, body) = log(&mut h, "web", "sinceSeconds=0");
    assert_eq!(code, 422);
    assert!(message(&body).ends_with("sinceSeconds: Invalid value: 0: must be greater than 0"));
    assert_eq!(log(&mut h, "web", "limitBytes=0").0, 422);
}

#[test]
fn follow_hands_out_new_lines_and_ends_with_the_run() {
    let mut h = cluster();
    create(
        &mut h,
        "job",
        "ready-after=10s,complete-after=20s",
        &[("job", "worker:2")],
    );
    let until = h.now().plus_secs(60);
    assert!(h.run_until_true(until, |h| running(h, "job")));
    let opts = PodLogOptions {
        follow: true,
        ..Default::default()
    };
    let (first, mut follow) = h
        .api
        .follow_pod_log(Some("default"), "job", &opts)
        .expect("follow");
    assert_eq!(first, "worker: starting\n");
    assert_eq!(follow.poll(&h.api), Some(String::new()));
    let mut got = Vec::new();
    for _ in 0..40 {
        h.run_for(1_000);
        match follow.poll(&h.api) {
            Some(text) => got.push(text),
            None => break,
        }
    }
    let text: String = got.concat();
    assert_eq!(
        text,
        "worker: warm-up done, accepting connections\nworker: done, exiting\n"
    );
    assert_eq!(follow.poll(&h.api), None, "the stream ended with the run");
}

#[test]
fn discovery_lists_pods_log_as_read_only() {
    let mut h = cluster();
    let r = h.api.handle("kubectl", "GET", "/api/v1", None, None);
    let list: serde_json::Value = serde_json::from_str(&r.body).expect("json");
    let entry = list["resources"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["name"] == "pods/log"))
        .cloned()
        .expect("pods/log");
    assert_eq!(entry["verbs"], serde_json::json!(["get"]));
    assert_eq!(entry["kind"], "Pod");
}
