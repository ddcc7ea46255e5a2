//! Server-side printing: the `meta.k8s.io/v1` `Table` a client gets when its Accept header asks
//! `application/json;as=Table;v=v1;g=meta.k8s.io` (every `kubectl get`, `-w` included). The
//! columns and cells are the ones watchlab's kubectl computes (`printers::table`), which follow
//! the real server's table printers; each row carries the object as `includeObject` says
//! (`Metadata` by default: a `PartialObjectMetadata`).

use serde_json::{json, Map, Value};
use watchlab_engine::api::ResourceInfo;
use watchlab_kubectl::printers::{self, Column, Table};

/// Who prints a resource's rows: kubectl's printers for a built-in kind (by plural), or a
/// custom resource's own columns (the engine's apiextensions table convertor).
#[derive(Debug, Clone)]
pub enum Printer {
    BuiltIn(String),
    Custom(&'static ResourceInfo),
}

impl Printer {
    /// The printer of a served resource.
    pub fn of(r: &'static ResourceInfo) -> Printer {
        if r.kind().is_custom() {
            Printer::Custom(r)
        } else {
            Printer::BuiltIn(r.plural.to_string())
        }
    }

    fn table(&self, items: &[Value], now_unix_ms: i64) -> Table {
        match self {
            Printer::BuiltIn(plural) => printers::table(plural, items, now_unix_ms),
            Printer::Custom(r) => custom_table(r, items, now_unix_ms),
        }
    }
}

/// The engine's columns and cells of a custom resource, as text.
fn custom_table(r: &'static ResourceInfo, items: &[Value], now_unix_ms: i64) -> Table {
    let columns = r
        .rules
        .columns()
        .into_iter()
        .map(|c| Column {
            name: Box::leak(c.name.into_boxed_str()),
            kind: Box::leak(c.type_.into_boxed_str()),
            priority: u8::try_from(c.priority).unwrap_or(u8::MAX),
        })
        .collect();
    let rows = items
        .iter()
        .map(|item| {
            r.rules
                .row(item, now_unix_ms)
                .iter()
                .map(|cell| cell.as_str().map_or_else(|| cell.to_string(), String::from))
                .collect()
        })
        .collect();
    Table { columns, rows }
}

/// What a Table row embeds (`?includeObject=`), as in `metav1.IncludeObjectPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    None,
    /// The server's default.
    #[default]
    Metadata,
    Object,
}

impl IncludeObject {
    /// From the query's `includeObject` value (unknown spellings take the default).
    pub fn from_query(query: &str) -> IncludeObject {
        let value = query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == "includeObject")
            .map(|(_, v)| v);
        match value {
            Some("None") => IncludeObject::None,
            Some("Object") => IncludeObject::Object,
            _ => IncludeObject::Metadata,
        }
    }
}

/// Whether an Accept header asks for a `meta.k8s.io` Table (v1 or v1beta1).
pub fn wants_table(accept: &str) -> bool {
    accept.split(',').any(|range| {
        let params: Vec<&str> = range.split(';').map(str::trim).collect();
        params.contains(&"as=Table")
            && params.contains(&"g=meta.k8s.io")
            && (params.contains(&"v=v1") || params.contains(&"v=v1beta1"))
    })
}

/// The Table for an object or a list answer printed by `printer` at `now_unix_ms`.
pub fn from_body(
    printer: &Printer,
    body: &Value,
    now_unix_ms: i64,
    include: IncludeObject,
) -> Value {
    let is_list = body.get("items").is_some_and(Value::is_array);
    let (items, metadata) = if is_list {
        let items = body["items"].as_array().cloned().unwrap_or_default();
        let mut meta = Map::new();
        for key in ["resourceVersion", "continue", "remainingItemCount"] {
            if let Some(v) = body["metadata"].get(key) {
                meta.insert(key.to_string(), v.clone());
            }
        }
        (items, Value::Object(meta))
    } else {
        let rv = body["metadata"]["resourceVersion"].clone();
        (vec![body.clone()], json!({"resourceVersion": rv}))
    };
    let kind = body["kind"]
        .as_str()
        .map(|k| k.strip_suffix("List").unwrap_or(k).to_string());
    let api_version = body["apiVersion"].clone();
    let table = printer.table(&items, now_unix_ms);
    let rows: Vec<Value> = items
        .iter()
        .zip(&table.rows)
        .map(|(item, cells)| {
            let cells: Vec<Value> = table
                .columns
                .iter()
                .zip(cells)
                .map(|(c, text)| cell(c, text))
                .collect();
            let mut row = json!({"cells": cells});
            if let Some(obj) = embedded(item, kind.as_deref(), &api_version, include) {
                row["object"] = obj;
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": table.columns.iter().map(definition).collect::<Vec<_>>(),
        "rows": rows,
    })
}

/// A watch event line with its object printed as a one-row Table (ADDED, MODIFIED, DELETED);
/// ERROR and BOOKMARK events pass unchanged, as on the real server.
pub fn watch_line(
    printer: &Printer,
    line: &str,
    now_unix_ms: i64,
    include: IncludeObject,
) -> String {
    let Ok(mut event) = serde_json::from_str::<Value>(line) else {
        return line.to_string();
    };
    if !matches!(
        event["type"].as_str(),
        Some("ADDED" | "MODIFIED" | "DELETED")
    ) {
        return line.to_string();
    }
    event["object"] = from_body(printer, &event["object"], now_unix_ms, include);
    event.to_string()
}

fn definition(c: &Column) -> Value {
    let format = if c.name == "Name" { "name" } else { "" };
    json!({
        "name": c.name,
        "type": c.kind,
        "format": format,
        "description": "",
        "priority": c.priority,
    })
}

/// Integer columns carry numbers, as the real printers' `int64` cells.
fn cell(c: &Column, text: &str) -> Value {
    if c.kind == "integer" {
        if let Ok(n) = text.parse::<i64>() {
            return json!(n);
        }
    }
    json!(text)
}

fn embedded(
    item: &Value,
    kind: Option<&str>,
    api_version: &Value,
    include: IncludeObject,
) -> Option<Value> {
    match include {
        IncludeObject::None => None,
        IncludeObject::Metadata => Some(json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": item["metadata"],
        })),
        IncludeObject::Object => {
            let mut obj = item.clone();
            if let Some(map) = obj.as_object_mut() {
                if let Some(kind) = kind.filter(|_| !map.contains_key("kind")) {
                    map.insert("kind".into(), json!(kind));
                }
                if !map.contains_key("apiVersion") && !api_version.is_null() {
                    map.insert("apiVersion".into(), api_version.clone());
                }
            }
            Some(obj)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> Printer {
        Printer::BuiltIn("nodes".into())
    }

    const KUBECTL_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn accept_negotiation() {
        assert!(wants_table(KUBECTL_ACCEPT));
        assert!(!wants_table("application/json"));
        assert!(!wants_table(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        ));
        assert_eq!(
            IncludeObject::from_query("limit=500&includeObject=Object"),
            IncludeObject::Object
        );
        assert_eq!(
            IncludeObject::from_query("includeObject=None"),
            IncludeObject::None
        );
        assert_eq!(IncludeObject::from_query(""), IncludeObject::Metadata);
    }

    fn node(name: &str) -> Value {
        json!({"metadata": {"name": name, "resourceVersion": "5", "creationTimestamp": "2026-01-01T00:00:00Z"},
               "status": {"conditions": [{"type": "Ready", "status": "True"}]}})
    }

    #[test]
    fn list_rows_embed_metadata_and_keep_list_metadata() {
        let list = json!({"kind": "NodeList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "9", "continue": "abc"},
            "items": [node("node-a"), node("node-b")]});
        let t = from_body(
            &nodes(),
            &list,
            1_767_225_600_000 + 60_000,
            IncludeObject::Metadata,
        );
        assert_eq!(t["kind"], "Table");
        assert_eq!(
            t["metadata"],
            json!({"resourceVersion": "9", "continue": "abc"})
        );
        assert_eq!(t["columnDefinitions"][0]["name"], "Name");
        assert_eq!(t["columnDefinitions"][0]["format"], "name");
        assert_eq!(t["rows"][1]["cells"][0], "node-b");
        assert_eq!(t["rows"][0]["cells"][1], "Ready");
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
        assert_eq!(t["rows"][0]["object"]["metadata"]["name"], "node-a");
    }

    #[test]
    fn single_object_full_and_none() {
        let t = from_body(&nodes(), &node("node-a"), 0, IncludeObject::None);
        assert_eq!(t["rows"].as_array().map(Vec::len), Some(1));
        assert!(t["rows"][0].get("object").is_none());
        let list =
            json!({"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [node("n")]});
        let t = from_body(&nodes(), &list, 0, IncludeObject::Object);
        assert_eq!(t["rows"][0]["object"]["kind"], "Node");
        assert_eq!(t["rows"][0]["object"]["apiVersion"], "v1");
    }

    #[test]
    fn watch_lines_print_objects_but_not_errors() {
        let added = json!({"type": "ADDED", "object": node("node-a")}).to_string();
        let out: Value =
            serde_json::from_str(&watch_line(&nodes(), &added, 0, IncludeObject::Metadata))
                .unwrap_or_default();
        assert_eq!(out["object"]["kind"], "Table");
        assert_eq!(out["object"]["rows"][0]["cells"][0], "node-a");
        let error = r#"{"type":"ERROR","object":{"kind":"Status","code":410}}"#;
        assert_eq!(
            watch_line(&nodes(), error, 0, IncludeObject::Metadata),
            error
        );
        assert_eq!(
            watch_line(&nodes(), "not json", 0, IncludeObject::Metadata),
            "not json"
        );
    }
}
