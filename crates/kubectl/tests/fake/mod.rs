//! A scripted API server for the tests: canned answers per (method, path), a log of every
//! request kubectl sent, and watch streams the test feeds event by event. Objects are shaped
//! like the real apiserver's JSON. Discovery answers come from watchlab's own API server.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use watchlab_apimachinery::client::{virtual_now_unix_ms, ApiClient, ApiResponse, WatchId};
use watchlab_apimachinery::table::wants_table;
use watchlab_engine::apiserver::table::{IncludeObject, TableRequest};

/// One request kubectl made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub method: String,
    pub path: String,
    pub content_type: Option<String>,
    pub body: Option<String>,
    /// The Accept header, when the request asked for a representation (a Table).
    pub accept: Option<String>,
}

#[derive(Default)]
pub struct FakeApi {
    pub now_ms: u64,
    routes: BTreeMap<(String, String), VecDeque<ApiResponse>>,
    pub sent: Vec<Sent>,
    pub watch_paths: Vec<String>,
    streams: BTreeMap<WatchId, Option<Vec<String>>>,
    /// The watches that asked for Tables: how their objects are printed.
    table_streams: BTreeMap<WatchId, TableRequest>,
    next_id: WatchId,
    refuse_watch: Option<ApiResponse>,
    /// Answer plain JSON whatever the Accept (a server without server-side printing).
    pub plain_json_only: bool,
    /// The Accept of each watch opened, in order (`None`: a plain watch).
    pub watch_accepts: Vec<Option<String>>,
}

impl FakeApi {
    pub fn new() -> Self {
        FakeApi {
            now_ms: 3 * 3600 * 1000,
            ..FakeApi::default()
        }
    }

    /// Answers `method path` with `code` and `body` (queued: several answers are given in
    /// order, the last one repeats).
    pub fn on(&mut self, method: &str, path: &str, code: u16, body: Value) -> &mut Self {
        self.routes
            .entry((method.to_string(), path.to_string()))
            .or_default()
            .push_back(ApiResponse {
                code,
                body: body.to_string(),
            });
        self
    }

    pub fn refuse_watches(&mut self, resp: ApiResponse) {
        self.refuse_watch = Some(resp);
    }

    /// Delivers an event line on watch `id` (its object printed as a one-row Table when the
    /// watch asked for Tables, at the poll that hands it out, as the engine prints it).
    pub fn push(&mut self, id: WatchId, event_type: &str, object: Value) {
        if let Some(Some(lines)) = self.streams.get_mut(&id) {
            lines.push(json!({"type": event_type, "object": object}).to_string());
        }
    }

    /// Ends watch `id` from the server side.
    pub fn close(&mut self, id: WatchId) {
        self.streams.insert(id, None);
    }

    pub fn last(&self) -> &Sent {
        self.sent.last().expect("a request was sent")
    }

    pub fn paths(&self) -> Vec<String> {
        self.sent
            .iter()
            .map(|s| format!("{} {}", s.method, s.path))
            .collect()
    }
}

impl ApiClient for FakeApi {
    fn request(
        &mut self,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        // Discovery is answered as watchlab's API server answers it, and not logged: the tests
        // script and check the requests a command makes for its resources.
        let registry = watchlab_engine::api::Registry::default();
        let scripted = self
            .routes
            .contains_key(&(method.to_string(), path_and_query.to_string()));
        if method == "GET" && !scripted {
            if let Some(doc) =
                watchlab_engine::apiserver::discovery::document(&registry, path_and_query)
            {
                return ApiResponse {
                    code: 200,
                    body: doc.to_string(),
                };
            }
        }
        self.sent.push(Sent {
            method: method.into(),
            path: path_and_query.into(),
            content_type: content_type.map(String::from),
            body: body.map(String::from),
            accept: None,
        });
        let key = (method.to_string(), path_and_query.to_string());
        match self.routes.get_mut(&key) {
            Some(q) if q.len() > 1 => q.pop_front().expect("non-empty"),
            Some(q) => q.front().cloned().expect("non-empty"),
            None => ApiResponse {
                code: 404,
                body: json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "the server could not find the requested resource", "reason": "NotFound",
                    "details": {}, "code": 404})
                .to_string(),
            },
        }
    }

    fn watch(&mut self, path_and_query: &str) -> Result<WatchId, ApiResponse> {
        self.watch_paths.push(path_and_query.to_string());
        self.watch_accepts.push(None);
        if let Some(r) = &self.refuse_watch {
            return Err(r.clone());
        }
        self.next_id += 1;
        self.streams.insert(self.next_id, Some(Vec::new()));
        Ok(self.next_id)
    }

    /// A scripted answer printed as the API server prints it for a Table Accept (the engine's
    /// own printers, so these tests see the columns the real server sends).
    fn get_accepting(&mut self, path_and_query: &str, accept: &str) -> ApiResponse {
        let resp = self.request("GET", path_and_query, None, None);
        if let Some(sent) = self.sent.last_mut().filter(|s| s.path == path_and_query) {
            sent.accept = Some(accept.to_string());
        }
        if self.plain_json_only {
            return resp;
        }
        let printing = table_request(path_and_query, accept, self.now_ms);
        let (Some(printing), true) = (printing, resp.is_success()) else {
            return resp;
        };
        let Ok(body) = serde_json::from_str::<Value>(&resp.body) else {
            return resp;
        };
        let table = match body.get("items").and_then(Value::as_array) {
            Some(items) => table_value(&printing, items, body["metadata"].clone()),
            None => table_value(&printing, std::slice::from_ref(&body), json!({})),
        };
        ApiResponse {
            code: resp.code,
            body: table.to_string(),
        }
    }

    fn watch_accepting(
        &mut self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<WatchId, ApiResponse> {
        let id = self.watch(path_and_query)?;
        self.watch_accepts.pop();
        self.watch_accepts.push(Some(accept.to_string()));
        let printing = table_request(path_and_query, accept, self.now_ms);
        if let Some(printing) = printing.filter(|_| !self.plain_json_only) {
            self.table_streams.insert(id, printing);
        }
        Ok(id)
    }

    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
        let lines = std::mem::take(self.streams.get_mut(&id)?.as_mut()?);
        let Some(printing) = self.table_streams.get(&id) else {
            return Some(lines);
        };
        let printing = TableRequest {
            now_unix_ms: virtual_now_unix_ms(self.now_ms),
            ..*printing
        };
        let printed = lines.iter().map(|line| {
            let mut event: Value = serde_json::from_str(line).expect("an event line");
            let object = event["object"].take();
            event["object"] = table_value(&printing, &[object], json!({}));
            event.to_string()
        });
        Some(printed.collect())
    }

    fn stop_watch(&mut self, id: WatchId) {
        self.streams.remove(&id);
    }

    fn now_ms(&self) -> u64 {
        self.now_ms
    }
}

/// How the API server would print the resource `path_and_query` names, if `accept` asks for a
/// Table.
fn table_request(path_and_query: &str, accept: &str, now_ms: u64) -> Option<TableRequest> {
    if !wants_table(accept) {
        return None;
    }
    let path = path_and_query.split('?').next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (group, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", (*version, rest)),
        ["apis", group, version, rest @ ..] => (*group, (*version, rest)),
        _ => return None,
    };
    let (version, rest) = rest;
    let plural = match rest {
        ["namespaces", _, plural, ..] => *plural,
        [plural, ..] => *plural,
        [] => return None,
    };
    let resource = watchlab_engine::api::Registry::default().lookup(group, version, plural)?;
    Some(TableRequest {
        resource,
        include: IncludeObject::from_query(path_and_query),
        now_unix_ms: virtual_now_unix_ms(now_ms),
    })
}

fn table_value(printing: &TableRequest, items: &[Value], metadata: Value) -> Value {
    serde_json::to_value(printing.table(items, metadata)).expect("a Table serializes")
}

/// A virtual-clock timestamp `secs` after the epoch, as the API server writes it.
pub fn ts(secs: u64) -> String {
    let base = 1_767_225_600u64 + secs;
    let (days, rem) = (base / 86_400, base % 86_400);
    // 2026-01-01 is day 20454 since 1970; the tests stay within January 2026.
    let day = days - 20_454 + 1;
    format!(
        "2026-01-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

pub fn status(code: u16, reason: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason, "code": code})
}

/// A pod as the API server returns it.
pub fn pod(name: &str, ns: &str, phase: &str, created: u64, containers: Value) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"), "resourceVersion": "100",
                     "creationTimestamp": ts(created), "labels": {"app": "orders-api"}},
        "spec": {"containers": [{"name": "api", "image": "orders-api:1.4"}], "nodeName": "node-a",
                 "restartPolicy": "Always", "serviceAccountName": "default"},
        "status": {"phase": phase, "podIP": "10.244.1.5", "hostIP": "10.0.0.1", "containerStatuses": containers}
    })
}

pub fn running() -> Value {
    json!([{"name": "api", "ready": true, "restartCount": 0, "image": "orders-api:1.4",
            "state": {"running": {"startedAt": ts(5)}}}])
}

pub fn list(kind: &str, rv: &str, items: Vec<Value>) -> Value {
    json!({"kind": kind, "apiVersion": "v1", "metadata": {"resourceVersion": rv}, "items": items})
}

pub fn deployment(rv: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "orders-api", "namespace": "production", "uid": "uid-deploy", "resourceVersion": rv,
                     "generation": 1, "creationTimestamp": ts(0), "labels": labels},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "orders-api"}},
                 "template": {"metadata": {"labels": {"app": "orders-api"}},
                              "spec": {"containers": [{"name": "api", "image": "orders-api:1.4"}]}},
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}},
        "status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3}
    })
}
