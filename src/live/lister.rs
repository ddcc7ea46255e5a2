//! List and watch one resource of a real API server through any [`ApiClient`], for the engine's
//! own reflector and informer (`watchlab_engine::client`): the same list-then-watch, resume from
//! the last resourceVersion and relist-after-410 machinery the simulated controllers use, here
//! fed by HTTP. Objects stay JSON (a [`LiveObject`]): a real cluster's objects carry fields the
//! engine does not model, and the views read them the way kubectl's printers do.
//!
//! Every line a watch delivers is also kept verbatim in a bounded [`RawLog`], which the raw
//! stream view shows exactly as the chunked HTTP body carried it.

use std::collections::VecDeque;
use std::rc::Rc;

use serde_json::Value;
use watchlab_apimachinery::client::{ApiClient, ApiResponse};
use watchlab_apimachinery::request::encode_query;
use watchlab_engine::client::{
    ClientError, ListParams, ListerWatcher, ObjectList, Resource, StreamId, WatchEvent, WatchParams,
};

/// Raw watch lines kept per stream (the newest).
pub const RAW_LINES: usize = 200;

/// One object as the server sent it, with the identity the informer's cache files it under.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveObject {
    pub value: Rc<Value>,
    namespace: Option<String>,
    name: String,
    uid: String,
    resource_version: u64,
}

impl LiveObject {
    /// Reads the identity from `metadata`; `None` for something that is not an object.
    pub fn from_value(value: Value) -> Option<LiveObject> {
        let meta = value.get("metadata")?;
        let text = |k: &str| meta.get(k).and_then(Value::as_str).unwrap_or_default();
        let name = text("name").to_string();
        let namespace = Some(text("namespace").to_string()).filter(|n| !n.is_empty());
        let uid = text("uid").to_string();
        // resourceVersion is opaque to clients; the API servers this talks to use etcd revisions.
        let resource_version = text("resourceVersion").parse().unwrap_or(0);
        Some(LiveObject {
            value: Rc::new(value),
            namespace,
            name,
            uid,
            resource_version,
        })
    }
}

impl Resource for LiveObject {
    fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn resource_version(&self) -> u64 {
        self.resource_version
    }
    fn uid(&self) -> &str {
        &self.uid
    }
}

/// The newest raw lines of one stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawLog {
    lines: VecDeque<String>,
    /// Lines received in all (the log keeps the newest [`RAW_LINES`]).
    pub received: u64,
}

impl RawLog {
    pub fn push(&mut self, line: &str) {
        if self.lines.len() == RAW_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line.to_string());
        self.received += 1;
    }

    pub fn lines(&self) -> &VecDeque<String> {
        &self.lines
    }
}

/// The error a client machinery sees from an answer: the `Status` fields when the body is one,
/// else the bare code (a proxy's plain-text error, a network failure).
pub fn client_error(r: &ApiResponse) -> ClientError {
    let body: Value = serde_json::from_str(&r.body).unwrap_or(Value::Null);
    if body.get("kind").and_then(Value::as_str) == Some("Status") {
        let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
        let code = body
            .get("code")
            .and_then(Value::as_u64)
            .and_then(|c| u16::try_from(c).ok())
            .unwrap_or(r.code);
        return ClientError::new(code, text("reason"), text("message"));
    }
    let text = r.body.trim();
    let message = if text.is_empty() {
        format!("the server answered {}", r.code)
    } else {
        // A proxy's error page can be long: the first line says what happened.
        text.lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect()
    };
    ClientError::new(r.code, "", message)
}

/// Parses one watch line (`{"type":"ADDED","object":{...}}`) into an event.
pub fn parse_event(line: &str) -> WatchEvent<LiveObject> {
    let Ok(mut v) = serde_json::from_str::<Value>(line) else {
        return WatchEvent::Error(ClientError::internal(format!(
            "unable to decode an event from the watch stream: {line:.200}"
        )));
    };
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let object = v.get_mut("object").map(Value::take).unwrap_or(Value::Null);
    let bad = || {
        WatchEvent::Error(ClientError::internal(format!(
            "unable to decode a {kind} event from the watch stream"
        )))
    };
    match kind.as_str() {
        "ADDED" | "MODIFIED" | "DELETED" => match LiveObject::from_value(object) {
            Some(o) if kind == "ADDED" => WatchEvent::Added(o),
            Some(o) if kind == "MODIFIED" => WatchEvent::Modified(o),
            Some(o) => WatchEvent::Deleted(o),
            None => bad(),
        },
        "BOOKMARK" => match LiveObject::from_value(object) {
            Some(o) => WatchEvent::Bookmark {
                resource_version: o.resource_version,
            },
            None => bad(),
        },
        "ERROR" => {
            let status = ApiResponse {
                code: 500,
                body: object.to_string(),
            };
            WatchEvent::Error(client_error(&status))
        }
        _ => bad(),
    }
}

/// List and watch `collection` (`/api/v1/pods`) through `client`, logging raw watch lines.
pub struct JsonListerWatcher<'a> {
    pub client: &'a mut dyn ApiClient,
    pub collection: &'a str,
    pub raw: &'a mut RawLog,
}

impl JsonListerWatcher<'_> {
    fn path(&self, pairs: &[(&str, &str)]) -> String {
        if pairs.is_empty() {
            self.collection.to_string()
        } else {
            format!("{}?{}", self.collection, encode_query(pairs))
        }
    }
}

fn selectors<'a>(
    pairs: &mut Vec<(&'a str, &'a str)>,
    label: &'a Option<String>,
    field: &'a Option<String>,
) {
    if let Some(l) = label {
        pairs.push(("labelSelector", l));
    }
    if let Some(f) = field {
        pairs.push(("fieldSelector", f));
    }
}

impl ListerWatcher<LiveObject> for JsonListerWatcher<'_> {
    fn list(&mut self, params: &ListParams) -> Result<ObjectList<LiveObject>, ClientError> {
        let rv = params.resource_version.as_query();
        let mut pairs = Vec::new();
        if let Some(rv) = &rv {
            pairs.push(("resourceVersion", rv.as_str()));
        }
        selectors(&mut pairs, &params.label_selector, &params.field_selector);
        let r = self.client.request("GET", &self.path(&pairs), None, None);
        if !r.is_success() {
            return Err(client_error(&r));
        }
        let Ok(mut list) = serde_json::from_str::<Value>(&r.body) else {
            return Err(ClientError::internal(format!(
                "the list of {} is not JSON",
                self.collection
            )));
        };
        let resource_version = list
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .and_then(|rv| rv.parse().ok())
            .unwrap_or(0);
        let items = match list.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let items = items
            .into_iter()
            .filter_map(LiveObject::from_value)
            .collect();
        Ok(ObjectList {
            items,
            resource_version,
        })
    }

    fn watch(&mut self, params: &WatchParams) -> Result<StreamId, ClientError> {
        let rv = params.resource_version.to_string();
        let timeout = params.timeout_seconds.map(|t| t.to_string());
        let mut pairs = vec![("watch", "true"), ("resourceVersion", rv.as_str())];
        if params.allow_watch_bookmarks {
            pairs.push(("allowWatchBookmarks", "true"));
        }
        if let Some(t) = &timeout {
            pairs.push(("timeoutSeconds", t.as_str()));
        }
        selectors(&mut pairs, &params.label_selector, &params.field_selector);
        let path = self.path(&pairs);
        self.client.watch(&path).map_err(|r| client_error(&r))
    }

    fn poll(&mut self, id: StreamId) -> Option<Vec<WatchEvent<LiveObject>>> {
        let lines = self.client.poll_watch(id)?;
        Some(
            lines
                .iter()
                .map(|line| {
                    self.raw.push(line);
                    parse_event(line)
                })
                .collect(),
        )
    }

    fn stop(&mut self, id: StreamId) {
        self.client.stop_watch(id);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_engine::apiserver::ApiServer;
    use watchlab_engine::client::ListResourceVersion;

    fn create_pod(server: &mut ApiServer, name: &str) {
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}"}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}"#
        );
        let r = server.as_user("kubectl").request(
            "POST",
            "/api/v1/namespaces/default/pods",
            None,
            Some(&body),
        );
        assert!(r.is_success(), "{}", r.body);
    }

    #[test]
    fn lists_then_watches_and_logs_the_raw_lines() {
        let mut server = ApiServer::new(7);
        create_pod(&mut server, "a");
        let mut raw = RawLog::default();
        let id = {
            let mut client = server.as_user("watchlab-live");
            let mut lw = JsonListerWatcher {
                client: &mut client,
                collection: "/api/v1/pods",
                raw: &mut raw,
            };
            let list = lw
                .list(&ListParams {
                    resource_version: ListResourceVersion::Any,
                    label_selector: None,
                    field_selector: None,
                })
                .expect("list");
            assert_eq!(list.items.len(), 1);
            assert_eq!(list.items[0].name(), "a");
            assert_eq!(list.items[0].namespace(), Some("default"));
            lw.watch(&WatchParams {
                resource_version: list.resource_version,
                allow_watch_bookmarks: true,
                timeout_seconds: Some(300),
                label_selector: None,
                field_selector: None,
            })
            .expect("watch")
        };
        create_pod(&mut server, "b");
        let mut client = server.as_user("watchlab-live");
        let mut lw = JsonListerWatcher {
            client: &mut client,
            collection: "/api/v1/pods",
            raw: &mut raw,
        };
        let events = lw.poll(id).expect("open");
        assert!(
            matches!(&events[..], [WatchEvent::Added(o)] if o.name() == "b"),
            "{events:?}"
        );
        assert_eq!(raw.lines().len(), 1);
        assert!(raw.lines()[0].starts_with(r#"{"type":"ADDED","object":{"#));
    }

    #[test]
    fn errors_keep_the_status_and_bad_lines_become_errors() {
        let mut server = ApiServer::new(7);
        let mut raw = RawLog::default();
        let mut client = server.as_user("watchlab-live");
        let mut lw = JsonListerWatcher {
            client: &mut client,
            collection: "/api/v1/pods",
            raw: &mut raw,
        };
        let err = lw
            .watch(&WatchParams {
                resource_version: 0,
                allow_watch_bookmarks: false,
                timeout_seconds: None,
                label_selector: Some("a in (".into()),
                field_selector: None,
            })
            .expect_err("bad selector");
        assert_eq!(err.code, 400);
        let plain = client_error(&ApiResponse {
            code: 502,
            body: "Error trying to reach service: dial tcp: connection refused\nmore".into(),
        });
        assert_eq!(
            (plain.code, &*plain.message),
            (
                502,
                "Error trying to reach service: dial tcp: connection refused"
            )
        );
        assert!(matches!(parse_event("{not json"), WatchEvent::Error(_)));
        assert!(matches!(
            parse_event(r#"{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}}"#),
            WatchEvent::Error(e) if e.is_expired()
        ));
        assert!(matches!(
            parse_event(
                r#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"42"}}}"#
            ),
            WatchEvent::Bookmark {
                resource_version: 42
            }
        ));
    }
}
