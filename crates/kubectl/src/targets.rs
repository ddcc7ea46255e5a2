//! Resource arguments as kubectl's resource builder reads them: `pods`, `pods,deployments`,
//! `pods a b`, `pod/a deploy/b`, with the real errors for unknown types and mixed forms; and
//! the list/get requests every command makes with them (chunked lists with `limit` and
//! `continue`, like the real kubectl's pager).

use crate::errors::{json_body, CmdError};
use crate::printers;
use crate::query::with_query;
use crate::resources::{Discovery, PrinterColumn, ResourceType};
use serde_json::Value;
use watchlab_apimachinery::client::ApiClient;

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

/// Lists a collection page by page (`limit`, then `continue` until it is empty).
pub fn list(
    client: &mut dyn ApiClient,
    rt: &ResourceType,
    namespace: Option<&str>,
    q: &ListQuery,
) -> Result<Listed, CmdError> {
    let path = rt.collection_path(namespace);
    let mut listed = Listed::default();
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
        let resp = client.request("GET", &with_query(&path, &params), None, None);
        let body = json_body(&resp)?;
        listed.resource_version =
            watchlab_apimachinery::unstructured::string(&body, &["metadata", "resourceVersion"]);
        if let Some(items) = body.get("items").and_then(Value::as_array) {
            listed
                .items
                .extend(items.iter().cloned().map(|i| with_type_meta(rt, i)));
        }
        match watchlab_apimachinery::unstructured::str_at(&body, &["metadata", "continue"]) {
            Some(t) if !t.is_empty() && q.chunk_size > 0 => token = Some(t.to_string()),
            _ => return Ok(listed),
        }
    }
    Ok(listed)
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

/// The printer columns of a custom resource, read from its CustomResourceDefinition
/// (`<plural>.<group>`, the version's `additionalPrinterColumns`); none for a built-in type or
/// when the definition cannot be read. The real kubectl asks the server for a Table instead.
pub fn printer_columns(client: &mut dyn ApiClient, rt: &ResourceType) -> Vec<PrinterColumn> {
    if rt.group.is_empty() || printers::has_printer(&rt.plural) {
        return Vec::new();
    }
    let path = format!(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{}",
        rt.group_resource()
    );
    let resp = client.request("GET", &path, None, None);
    let Ok(crd) = json_body(&resp) else {
        return Vec::new();
    };
    crd["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == rt.version.as_str())
        .and_then(|v| serde_json::from_value(v["additionalPrinterColumns"].clone()).ok())
        .unwrap_or_default()
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
