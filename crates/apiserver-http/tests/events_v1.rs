//! `events.k8s.io/v1` Events through the real kubectl v1.32 against watchlab-apiserver: the
//! group in discovery (`kubectl api-resources`), the cluster's Events listed, printed as YAML
//! and watched in the new version (the same printer's columns as `kubectl get events`), read
//! raw as a lightkube-style client does, an Event created in either version seen through the
//! other, and a write the new version refuses answered with the real 422. Skipped (with a note)
//! without kubectl.

#![cfg(not(target_arch = "wasm32"))]

#[macro_use]
mod common;

use common::TestServer;
use std::time::Duration;

const V1: &str = "events.v1.events.k8s.io";

/// A server whose seed cluster has run for 30 s of virtual time (the scheduler's and kubelets'
/// Events are written).
fn started() -> TestServer {
    let s = TestServer::start();
    s.with_cluster(|c| {
        let t = c.now().plus_secs(30);
        c.advance_to(t);
    });
    s
}

fn header(out: &str) -> Vec<&str> {
    out.lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect()
}

/// The `(reason, object)` of each row of `kubectl get events -A` (columns NAMESPACE, LAST SEEN,
/// TYPE, REASON, OBJECT, MESSAGE), sorted.
fn reasons_and_objects(out: &str) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = out
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            Some((cells.get(3)?.to_string(), cells.get(4)?.to_string()))
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn the_group_is_discovered_with_the_core_names() {
    need_kubectl!("the_group_is_discovered_with_the_core_names");
    let s = TestServer::start();
    let out = s.ok(&["api-resources", "--api-group=events.k8s.io"]);
    assert!(
        out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>()
            == ["events", "ev", "events.k8s.io/v1", "true", "Event"]),
        "{out}"
    );
    let versions = s.ok(&["api-versions"]);
    assert!(
        versions.lines().any(|l| l == "events.k8s.io/v1"),
        "{versions}"
    );
    // `ev` and `events` stay the core group's, as kubectl prefers it.
    let core = s.ok(&["get", "ev", "-A", "-o", "jsonpath={.items[0].apiVersion}"]);
    assert_eq!(core, "v1");
}

#[test]
fn get_lists_the_same_events_with_the_same_columns() {
    need_kubectl!("get_lists_the_same_events_with_the_same_columns");
    let s = started();
    let core = s.ok(&["get", "events", "-A"]);
    let v1 = s.ok(&["get", V1, "-A"]);
    assert_eq!(
        header(&v1),
        [
            "NAMESPACE",
            "LAST",
            "SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "MESSAGE"
        ]
    );
    assert_eq!(header(&v1), header(&core));
    let rows = reasons_and_objects(&v1);
    assert!(
        rows.iter()
            .any(|(reason, object)| reason == "Scheduled" && object.starts_with("pod/")),
        "{v1}"
    );
    assert_eq!(rows, reasons_and_objects(&core));
    let wide = s.ok(&["get", V1, "-A", "-o", "wide"]);
    assert!(header(&wide).contains(&"SUBOBJECT"), "{wide}");
}

#[test]
fn yaml_and_raw_reads_are_in_the_new_version() {
    need_kubectl!("yaml_and_raw_reads_are_in_the_new_version");
    let s = started();
    let yaml = s.ok(&["get", V1, "-n", "production", "-o", "yaml"]);
    for needle in [
        "apiVersion: events.k8s.io/v1",
        "kind: Event",
        "regarding:",
        "note: ",
        "deprecatedSource:",
        "reportingController: ",
    ] {
        assert!(yaml.contains(needle), "{needle} in\n{yaml}");
    }
    assert!(
        !yaml.contains("involvedObject:") && !yaml.contains("\n    message:"),
        "{yaml}"
    );
    let raw = s.ok(&[
        "get",
        "--raw",
        "/apis/events.k8s.io/v1/namespaces/production/events",
    ]);
    let list: serde_json::Value = serde_json::from_str(&raw).expect("JSON");
    assert_eq!(list["kind"], "EventList");
    assert_eq!(list["apiVersion"], "events.k8s.io/v1");
    let first = &list["items"][0];
    assert_eq!(first["apiVersion"], "events.k8s.io/v1");
    assert!(first["regarding"]["name"].is_string(), "{first}");
    // The same Event through the core version.
    let name = first["metadata"]["name"].as_str().unwrap_or_default();
    let message = s.ok(&[
        "get",
        "events",
        name,
        "-n",
        "production",
        "-o",
        "jsonpath={.message}",
    ]);
    assert_eq!(message, first["note"].as_str().unwrap_or_default());
    let selected = s.ok(&[
        "get",
        "--raw",
        &format!(
            "/apis/events.k8s.io/v1/namespaces/production/events?fieldSelector=regarding.name%3D{}",
            first["regarding"]["name"].as_str().unwrap_or_default()
        ),
    ]);
    assert!(selected.contains(name), "{selected}");
}

const NEW_STYLE: &str = r#"apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web.scheduled
  namespace: default
eventTime: "2026-01-01T00:00:01.000000Z"
reportingController: example.com/scheduler
reportingInstance: scheduler-1
action: Binding
reason: Bound
type: Normal
regarding:
  kind: Pod
  namespace: default
  name: web
note: Bound default/web to node-a
"#;

const CORE_STYLE: &str = r#"apiVersion: v1
kind: Event
metadata:
  name: db.pulled
  namespace: default
involvedObject:
  kind: Pod
  namespace: default
  name: db
reason: Fetched
message: Fetched the image
type: Normal
source:
  component: kubelet
"#;

#[test]
fn a_watch_in_the_new_version_sees_creates_through_either() {
    need_kubectl!("a_watch_in_the_new_version_sees_creates_through_either");
    let s = TestServer::start();
    let mut watch = s.spawn(&["get", V1, "-n", "default", "-w"]);
    watch.wait_for(Duration::from_secs(10), |t| {
        t.contains("No resources") || t.contains("LAST SEEN")
    });
    // A raw watch, as a lightkube-style client opens it: JSON lines in the new version.
    let mut raw = s.spawn(&[
        "get",
        "--raw",
        "/apis/events.k8s.io/v1/namespaces/default/events?watch=1",
    ]);
    let new_style = s.write("new.yaml", NEW_STYLE);
    let out = s.ok(&["create", "-f", new_style.to_str().unwrap_or_default()]);
    assert_eq!(out.trim(), "event.events.k8s.io/web.scheduled created");
    let core_style = s.write("core.yaml", CORE_STYLE);
    let out = s.ok(&["create", "-f", core_style.to_str().unwrap_or_default()]);
    assert_eq!(out.trim(), "event/db.pulled created");
    let both = |t: &str| {
        t.lines()
            .any(|l| l.contains("Bound") && l.contains("pod/web"))
            && t.lines()
                .any(|l| l.contains("Fetched") && l.contains("pod/db"))
    };
    let seen = watch.wait_for(Duration::from_secs(10), both);
    watch.stop();
    assert!(both(&seen), "{seen}");
    let lines = |t: &str| {
        t.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .collect::<Vec<_>>()
    };
    let streamed = raw.wait_for(Duration::from_secs(10), |t| lines(t).len() >= 2);
    raw.stop();
    let events = lines(&streamed);
    let notes: Vec<&str> = events
        .iter()
        .map(|e| e["object"]["note"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        notes,
        ["Bound default/web to node-a", "Fetched the image"],
        "{streamed}"
    );
    assert!(events
        .iter()
        .all(|e| e["type"] == "ADDED" && e["object"]["apiVersion"] == "events.k8s.io/v1"));

    // Each read through the other version.
    let note = s.ok(&["get", V1, "db.pulled", "-o", "jsonpath={.note}"]);
    assert_eq!(note, "Fetched the image");
    let message = s.ok(&[
        "get",
        "events",
        "web.scheduled",
        "-o",
        "jsonpath={.message}",
    ]);
    assert_eq!(message, "Bound default/web to node-a");
    let selected = s.ok(&[
        "get",
        V1,
        "--field-selector",
        "regarding.name=web",
        "-o",
        "name",
    ]);
    assert_eq!(selected.trim(), "event.events.k8s.io/web.scheduled");
}

#[test]
fn a_write_the_new_version_refuses_changes_nothing() {
    need_kubectl!("a_write_the_new_version_refuses_changes_nothing");
    let s = TestServer::start();
    // The old style's fields through the new version: no eventTime, a deprecated source.
    let bad = NEW_STYLE
        .replace("eventTime: \"2026-01-01T00:00:01.000000Z\"\n", "")
        .replace("note: ", "deprecatedSource:\n  component: kubelet\nnote: ");
    let bad = s.write("bad.yaml", &bad);
    let r = s.kubectl(&["create", "-f", bad.to_str().unwrap_or_default()]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("The Event \"web.scheduled\" is invalid")
            && r.stderr.contains("eventTime: Required value")
            && r.stderr
                .contains("source: Invalid value: \"\": needs to be unset"),
        "{}",
        r.stderr
    );
    let r = s.kubectl(&["get", "events", "web.scheduled"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);

    // Created, then changed where the new version allows nothing but the series.
    let good = s.write("new.yaml", NEW_STYLE);
    s.ok(&["create", "-f", good.to_str().unwrap_or_default()]);
    let r = s.kubectl(&[
        "patch",
        V1,
        "web.scheduled",
        "--type=merge",
        "-p",
        r#"{"note":"rewritten"}"#,
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("message: Invalid value: \"rewritten\": field is immutable"),
        "{}",
        r.stderr
    );
    let out = s.ok(&[
        "patch",
        V1,
        "web.scheduled",
        "--type=merge",
        "-p",
        r#"{"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:02.000000Z"}}"#,
    ]);
    assert_eq!(out.trim(), "event.events.k8s.io/web.scheduled patched");
    let note = s.ok(&[
        "get",
        "events",
        "web.scheduled",
        "-o",
        "jsonpath={.message}/{.series.count}",
    ]);
    assert_eq!(note, "Bound default/web to node-a/2");
}
