//! Resource arguments as kubectl's resource builder reads them: `pods`, `pods,deployments`,
//! `pods a b`, `pod/a deploy/b`, with the real errors for unknown types and mixed forms; and
//! the list/get requests every command makes with them (chunked lists with `limit` and
//! `continue`, like the real kubectl's pager), as plain objects or, for `get`'s human-readable
//! output, as the `meta.k8s.io` Tables the server prints.

use crate::errors::{json_body, CmdError};
use crate::query::with_query;
use crate::resources::{Discovery, ResourceType};
use crate::table_printer::default_table;
use serde_json::Value;
use watchlab_apimachinery::client::{virtual_now_unix_ms, ApiClient, ApiResponse};
use watchlab_apimachinery::table::Table;
use watchlab_apimachinery::unstructured::{str_at, string};

/// The Accept header of kubectl's human-readable output (`get`'s `transformRequests`): a v1
/// Table, else a v1beta1 Table, else the plain JSON of a server without server-side printing.
pub const HUMAN_READABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// One resource type with the names asked for (empty: the whole collection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub rt: ResourceType,
    pub names: Vec<String>,
}

/// Whether the arguments name exactly one object (kubectl then prints it, not a List).
pub fn single_object(targets: &[Target]) -> bool {
    targets.len() == 1 && targets.iter().all(|t| t.names.len() == 1)
}

/// The "doesn't have a resource type" error.
pub fn unknown_type(name: &str) -> CmdError {
    CmdError::msg(format!(
        "the server doesn't have a resource type \"{name}\""
    ))
}

fn resolve<'d>(discovery: &'d Discovery, name: &str) -> Result<&'d ResourceType, CmdError> {
    discovery.lookup(name).ok_or_else(|| unknown_type(name))
}

/// Parses `TYPE[,TYPE...] [NAME...]` or `TYPE/NAME...` against what discovery serves.
pub fn parse_targets(
    discovery: &Discovery,
    args: &[String],
    cmd: &str,
) -> Result<Vec<Target>, CmdError> {
    let Some(first) = args.first() else {
        return Ok(Vec::new());
    };
    if first.contains('/') {
        let mut targets: Vec<Target> = Vec::new();
        for arg in args {
            let Some((ty, name)) = arg.split_once('/') else {
                return Err(mixed_form(cmd));
            };
            if name.is_empty() {
                return Err(CmdError::msg(
                    "arguments in resource/name form must have a single resource and name",
                ));
            }
            let rt = resolve(discovery, ty)?;
            match targets.iter_mut().find(|t| t.rt == *rt) {
                Some(t) => t.names.push(name.to_string()),
                None => targets.push(Target {
                    rt: rt.clone(),
                    names: vec![name.to_string()],
                }),
            }
        }
        return Ok(targets);
    }
    let names: Vec<String> = args.get(1..).unwrap_or_default().to_vec();
    if names.iter().any(|n| n.contains('/')) {
        return Err(mixed_form(cmd));
    }
    let mut targets = Vec::new();
    for ty in first.split(',').filter(|t| !t.is_empty()) {
        // The `all` category: the types discovery lists in it.
        let types: Vec<&ResourceType> = if ty == "all" {
            discovery.category("all")
        } else {
            vec![resolve(discovery, ty)?]
        };
        for rt in types {
            if !targets.iter().any(|t: &Target| t.rt == *rt) {
                targets.push(Target {
                    rt: rt.clone(),
                    names: names.clone(),
                });
            }
        }
    }
    Ok(targets)
}

fn mixed_form(cmd: &str) -> CmdError {
    CmdError::msg(format!(
        "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl {cmd} resource/<resource_name>' instead of 'kubectl {cmd} resource resource/<resource_name>'"
    ))
}

/// Fills in `apiVersion` and `kind` on list items (the API server leaves them out; client-go's
/// unstructured list decoding puts them back).
pub fn with_type_meta(rt: &ResourceType, mut item: Value) -> Value {
    if let Some(obj) = item.as_object_mut() {
        obj.entry("apiVersion")
            .or_insert_with(|| Value::String(rt.api_version()));
        obj.entry("kind")
            .or_insert_with(|| Value::String(rt.kind.clone()));
    }
    item
}

/// Selectors and paging for a list request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// `--chunk-size` (kubectl's default 500; 0 disables paging).
    pub chunk_size: i64,
}

/// The items and the list's resourceVersion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    pub items: Vec<Value>,
    pub resource_version: String,
}

/// How a request asks to be answered: plain objects, or Tables (with each row's whole object
/// when `include_object`, as `--sort-by` needs; the server's default embeds the metadata).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Representation {
    Objects,
    Table { include_object: bool },
}

impl Representation {
    fn request(
        self,
        client: &mut dyn ApiClient,
        path: &str,
        params: &mut Vec<(&str, String)>,
    ) -> ApiResponse {
        match self {
            Representation::Objects => client.request("GET", &with_query(path, params), None, None),
            Representation::Table { include_object } => {
                if include_object {
                    params.push(("includeObject", "Object".into()));
                }
                client.get_accepting(&with_query(path, params), HUMAN_READABLE_ACCEPT)
            }
        }
    }
}

/// Reads a collection page by page (`limit`, then `continue` until it is empty), handing each
/// page's body to `page`.
fn pages(
    client: &mut dyn ApiClient,
    rt: &ResourceType,
    namespace: Option<&str>,
    q: &ListQuery,
    representation: Representation,
    mut page: impl FnMut(Value) -> Result<(), CmdError>,
) -> Result<(), CmdError> {
    let path = rt.collection_path(namespace);
    let mut token: Option<String> = None;
    // A bound on pages, so a misbehaving server cannot loop the console forever.
    for _ in 0..10_000 {
        let mut params: Vec<(&str, String)> = Vec::new();
        if let Some(l) = q.label_selector.as_ref().filter(|s| !s.is_empty()) {
            params.push(("labelSelector", l.clone()));
        }
        if let Some(f) = q.field_selector.as_ref().filter(|s| !s.is_empty()) {
            params.push(("fieldSelector", f.clone()));
        }
        if q.chunk_size > 0 {
            params.push(("limit", q.chunk_size.to_string()));
        }
        if let Some(t) = &token {
            params.push(("continue", t.clone()));
        }
        let resp = representation.request(client, &path, &mut params);
        let body = json_body(&resp)?;
        let next = str_at(&body, &["metadata", "continue"]).map(String::from);
        page(body)?;
        match next {
            Some(t) if !t.is_empty() && q.chunk_size > 0 => token = Some(t),
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// Lists a collection's objects page by page.
pub fn list(
    client: &mut dyn ApiClient,
    rt: &ResourceType,
    namespace: Option<&str>,
    q: &ListQuery,
) -> Result<Listed, CmdError> {
    let mut listed = Listed::default();
    pages(client, rt, namespace, q, Representation::Objects, |body| {
        listed.resource_version = string(&body, &["metadata", "resourceVersion"]);
        if let Some(items) = body.get("items").and_then(Value::as_array) {
            listed
                .items
                .extend(items.iter().cloned().map(|i| with_type_meta(rt, i)));
        }
        Ok(())
    })?;
    Ok(listed)
}

/// A collection printed by the server: one Table of every page's rows, and the list's
/// resourceVersion (where a `get -w` starts watching).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListedTable {
    pub table: Table,
    pub resource_version: String,
}

/// Lists a collection as the server prints it, page by page (`get`'s default and wide output).
pub fn list_table(
    client: &mut dyn ApiClient,
    rt: &ResourceType,
    namespace: Option<&str>,
    q: &ListQuery,
    include_object: bool,
) -> Result<ListedTable, CmdError> {
    let now = virtual_now_unix_ms(client.now_ms());
    let mut listed = ListedTable::default();
    let representation = Representation::Table { include_object };
    pages(client, rt, namespace, q, representation, |body| {
        listed.resource_version = string(&body, &["metadata", "resourceVersion"]);
        append_rows(&mut listed.table, as_table(rt, body, now)?);
        Ok(())
    })?;
    Ok(listed)
}

/// Gets one object as the server prints it: a one-row Table.
pub fn get_table(
    client: &mut dyn ApiClient,
    rt: &ResourceType,
    namespace: &str,
    name: &str,
    include_object: bool,
) -> Result<Table, CmdError> {
    let now = virtual_now_unix_ms(client.now_ms());
    let path = rt.object_path(namespace, name);
    let resp = Representation::Table { include_object }.request(client, &path, &mut Vec::new());
    as_table(rt, json_body(&resp)?, now)
}

/// A server's answer to the human-readable Accept as a Table: the Table itself, or, from a
/// server that answered plain JSON (no server-side printing), kubectl's NAME and AGE of the
/// list's items or of the one object.
pub fn as_table(rt: &ResourceType, body: Value, now_unix_ms: i64) -> Result<Table, CmdError> {
    if str_at(&body, &["kind"]) == Some("Table") {
        return serde_json::from_value(body)
            .map_err(|e| CmdError::msg(format!("unable to decode a Table: {e}")));
    }
    let items: Vec<Value> = match body.get("items").and_then(Value::as_array) {
        Some(items) => items
            .iter()
            .cloned()
            .map(|i| with_type_meta(rt, i))
            .collect(),
        None => vec![with_type_meta(rt, body)],
    };
    Ok(default_table(&items, now_unix_ms))
}

/// Adds `page`'s rows to `table` (its columns are the first page's).
pub fn append_rows(table: &mut Table, page: Table) {
    if table.column_definitions.is_empty() {
        let rows = std::mem::take(&mut table.rows);
        *table = page;
        table.rows.splice(0..0, rows);
    } else {
        table.rows.extend(page.rows);
    }
}

/// Gets one object; `Err` carries the printed server error.
pub fn get(
    client: &mut dyn ApiClient,
    rt: &ResourceType,
    namespace: &str,
    name: &str,
) -> Result<Value, CmdError> {
    let resp = client.request("GET", &rt.object_path(namespace, name), None, None);
    json_body(&resp).map(|v| with_type_meta(rt, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn parse_targets(args: &[String], cmd: &str) -> Result<Vec<Target>, CmdError> {
        let mut api = watchlab_engine::apiserver::ApiServer::new(1);
        let discovery = Discovery::fetch(&mut api)?;
        super::parse_targets(&discovery, args, cmd)
    }

    #[test]
    fn forms() {
        let t = parse_targets(&args("pods,deploy a b"), "get").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].rt.plural, "deployments");
        assert_eq!(t[1].names, ["a", "b"]);
        let t = parse_targets(&args("pod/a po/b deploy/c"), "get").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].names, ["a", "b"]);
        assert!(!single_object(&t));
        assert!(single_object(
            &parse_targets(&args("deploy x"), "get").unwrap()
        ));
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_targets(&args("foos"), "get").unwrap_err().stderr,
            "error: the server doesn't have a resource type \"foos\"\n"
        );
        assert!(parse_targets(&args("pods pod/x"), "get")
            .unwrap_err()
            .stderr
            .contains("there is no need to specify a resource type"));
    }
}
