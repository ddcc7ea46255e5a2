//! Server-side printing over HTTP: the server passes kubectl's Table Accept header to the engine,
//! which answers `meta.k8s.io/v1` Tables for get, list and watch (rows embed the object as
//! `includeObject` says), a custom kind's `additionalPrinterColumns`, and plain JSON for any
//! other Accept.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::TestServer;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::table::TABLE_ACCEPT;

/// One HTTP/1.1 GET with `accept` and `Connection: close`; the status line and the body's JSON
/// lines (a watch's chunk-size lines dropped).
fn get(s: &TestServer, path: &str, accept: &str) -> (String, Vec<Value>) {
    let mut conn = TcpStream::connect(s.addr).expect("connect");
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n",
        s.addr
    )
    .expect("send");
    let mut answer = String::new();
    conn.read_to_string(&mut answer).expect("read");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.lines().next().unwrap_or_default().to_string();
    let docs = body
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (status, docs)
}

fn one(s: &TestServer, path: &str, accept: &str) -> Value {
    let (status, docs) = get(s, path, accept);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}: {docs:?}");
    assert_eq!(docs.len(), 1, "{docs:?}");
    docs.into_iter().next().unwrap_or_default()
}

fn column_names(t: &Value) -> Vec<&str> {
    t["columnDefinitions"]
        .as_array()
        .map(|cs| cs.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default()
}

fn configmap(s: &TestServer) {
    s.with_cluster(|c| {
        let r = c.session("test").request(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            None,
            Some(r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"a":"1"}}"#),
        );
        assert_eq!(r.code, 201, "{}", r.body);
    });
}

#[test]
fn get_and_list_answer_tables_with_the_object_as_include_object_says() {
    let s = TestServer::start();
    configmap(&s);
    let path = "/api/v1/namespaces/default/configmaps/settings";

    let t = one(&s, path, TABLE_ACCEPT);
    assert_eq!(t["kind"], "Table", "{t}");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1", "{t}");
    assert_eq!(column_names(&t), ["Name", "Data", "Age"]);
    assert_eq!(t["rows"][0]["cells"][0], "settings");
    assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert!(t["rows"][0]["object"].get("data").is_none(), "{t}");

    let t = one(&s, &format!("{path}?includeObject=Object"), TABLE_ACCEPT);
    assert_eq!(t["rows"][0]["object"]["kind"], "ConfigMap", "{t}");
    assert_eq!(t["rows"][0]["object"]["data"], json!({"a": "1"}));

    let t = one(&s, &format!("{path}?includeObject=None"), TABLE_ACCEPT);
    assert!(t["rows"][0].get("object").is_none(), "{t}");

    let list = one(
        &s,
        "/api/v1/namespaces/default/configmaps?includeObject=Metadata",
        TABLE_ACCEPT,
    );
    assert_eq!(list["kind"], "Table", "{list}");
    let names: Vec<&Value> = list["rows"]
        .as_array()
        .map(|rows| rows.iter().map(|r| &r["cells"][0]).collect())
        .unwrap_or_default();
    assert!(names.contains(&&json!("settings")), "{list}");
    assert!(list["metadata"]["resourceVersion"]
        .as_str()
        .is_some_and(|rv| !rv.is_empty()));

    // A missing object is the plain 404 Status, not a Table.
    let (status, docs) = get(
        &s,
        "/api/v1/namespaces/default/configmaps/absent",
        TABLE_ACCEPT,
    );
    assert!(status.starts_with("HTTP/1.1 404"), "{status}");
    assert_eq!(
        docs.first().map(|d| d["kind"].clone()),
        Some(json!("Status"))
    );
}

#[test]
fn other_accepts_get_plain_json() {
    let s = TestServer::start();
    configmap(&s);
    let path = "/api/v1/namespaces/default/configmaps/settings";
    for accept in [
        "application/json",
        "*/*",
        "application/json;as=Table;v=v9;g=meta.k8s.io",
        "text/plain",
    ] {
        let doc = one(&s, path, accept);
        assert_eq!(doc["kind"], "ConfigMap", "{accept}: {doc}");
    }
}

#[test]
fn a_watch_sends_one_row_tables() {
    let s = TestServer::start();
    configmap(&s);
    let (status, events) = get(
        &s,
        "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1",
        TABLE_ACCEPT,
    );
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let added = events
        .iter()
        .find(|e| e["type"] == "ADDED" && e["object"]["rows"][0]["cells"][0] == "settings")
        .unwrap_or_else(|| panic!("no ADDED Table of settings: {events:?}"));
    assert_eq!(added["object"]["kind"], "Table");
    assert_eq!(column_names(&added["object"]), ["Name", "Data", "Age"]);
    assert_eq!(added["object"]["rows"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        added["object"]["rows"][0]["object"]["kind"],
        "PartialObjectMetadata"
    );
}

#[test]
fn a_custom_kind_prints_its_additional_printer_columns() {
    let s = TestServer::start();
    s.with_cluster(|c| {
        let mut session = c.session("test");
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "websites.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "websites", "singular": "website", "kind": "Website"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}},
                    "additionalPrinterColumns": [
                        {"name": "Host", "type": "string", "jsonPath": ".spec.host"},
                        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}]}]}
        });
        let r = session.request(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            None,
            Some(&crd.to_string()),
        );
        assert_eq!(r.code, 201, "{}", r.body);
        let site = json!({"apiVersion": "example.com/v1", "kind": "Website",
            "metadata": {"name": "blog"}, "spec": {"host": "blog.example.com", "replicas": 2}});
        let r = session.request(
            "POST",
            "/apis/example.com/v1/namespaces/default/websites",
            None,
            Some(&site.to_string()),
        );
        assert_eq!(r.code, 201, "{}", r.body);
    });
    let t = one(
        &s,
        "/apis/example.com/v1/namespaces/default/websites",
        TABLE_ACCEPT,
    );
    assert_eq!(column_names(&t), ["Name", "Host", "Replicas"], "{t}");
    assert_eq!(
        t["rows"][0]["cells"],
        json!(["blog", "blog.example.com", 2])
    );
}
