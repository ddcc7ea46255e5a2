//! `kubectl get`: lists (chunked with `limit`/`continue`) or gets by name, prints in any `-o`
//! format, sorts with `--sort-by`, and with `-w` prints the list then follows a watch opened
//! at the list's resourceVersion. `--raw` passes a path straight through (streaming it when it
//! is a watch).

use super::{parse_flags, Ctx, Done};
use crate::errors::CmdError;
use crate::flags::{boolean, value, FlagSpec, Parsed};
use crate::follow::Follow;
use crate::output::{ObjectPrinter, OutputFormat, TableOptions, GET_FORMATS};
use crate::query::with_query;
use crate::sort::{sort_items, sort_rows};
use crate::targets::{
    self, parse_targets, single_object, ListQuery, Target, HUMAN_READABLE_ACCEPT,
};
use serde_json::{json, Value};
use watchlab_apimachinery::table::Table;

const FLAGS: &[FlagSpec] = &[
    value("output", Some('o')),
    boolean("watch", Some('w')),
    boolean("watch-only", None),
    boolean("output-watch-events", None),
    boolean("all-namespaces", Some('A')),
    value("selector", Some('l')),
    value("field-selector", None),
    value("sort-by", None),
    boolean("show-labels", None),
    boolean("show-kind", None),
    boolean("no-headers", None),
    boolean("ignore-not-found", None),
    value("raw", None),
    value("chunk-size", None),
    boolean("allow-missing-template-keys", None),
    boolean("show-managed-fields", None),
    value("label-columns", Some('L')),
    value("filename", Some('f')),
    value("subresource", None),
];

/// kubectl's default `--chunk-size`.
const DEFAULT_CHUNK_SIZE: i64 = 500;

const NO_TYPE: &str = "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples\n";

// Long on purpose: kubectl's `GetOptions` Complete, Validate and Run in order (flags, the
// combinations it refuses, then list, get or watch), each error with its real text.
pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("get", args, FLAGS)?;
    let chunk_size = p
        .int("chunk-size", None)
        .map_err(|e| CmdError::flag("get", &e))?
        .unwrap_or(DEFAULT_CHUNK_SIZE);
    if let Some(path) = p.last("raw") {
        if !p.args.is_empty() {
            return Err(CmdError::msg(
                "arguments may not be passed when --raw is specified",
            ));
        }
        return raw(ctx, path);
    }
    if p.args.is_empty() {
        return Err(CmdError::raw(NO_TYPE));
    }
    let format = OutputFormat::parse(p.last("output"), GET_FORMATS)?;
    let discovery = ctx.discovery()?;
    let targets = parse_targets(&discovery, &p.args, "get")?;
    let all_ns = p.flag("all-namespaces");
    let selector = p.last("selector").map(String::from);
    let has_names = targets.iter().any(|t| !t.names.is_empty());
    if has_names && selector.is_some() {
        return Err(CmdError::msg(
            "name cannot be provided when a selector is specified",
        ));
    }
    if has_names && all_ns {
        return Err(CmdError::msg(
            "a resource cannot be retrieved by name across all namespaces",
        ));
    }
    let watch = p.flag("watch") || p.flag("watch-only");
    if watch && targets.len() > 1 {
        return Err(CmdError::msg("you may only specify a single resource type"));
    }
    let ns = ctx.namespace(&p);
    let query = ListQuery {
        label_selector: selector,
        field_selector: p.last("field-selector").map(String::from),
        chunk_size,
    };
    let options = printer_options(&p, all_ns);
    let allow_missing = p.last("allow-missing-template-keys") != Some("false");
    let mut printer = ObjectPrinter::new(format.clone(), options, allow_missing)
        .show_managed_fields(p.flag("show-managed-fields"));
    if watch {
        return watch_cmd(ctx, &p, targets.first(), &ns, query, printer);
    }
    let scope = (!all_ns).then_some(ns.as_str());
    if format.is_server_printed() {
        return printed_by_server(ctx, &p, &targets, scope, &ns, &query, printer);
    }
    let mut done = Done::default();
    let mut collected: Vec<(Target, Vec<Value>)> = Vec::new();
    let mut errors = String::new();
    for t in targets.iter() {
        let mut items = Vec::new();
        if t.names.is_empty() {
            match targets::list(ctx.client, &t.rt, scope, &query) {
                Ok(listed) => items = listed.items,
                Err(e) => errors.push_str(&e.stderr),
            }
        } else {
            for name in &t.names {
                match targets::get(ctx.client, &t.rt, &ns, name) {
                    Ok(obj) => items.push(obj),
                    Err(e) if p.flag("ignore-not-found") && e.stderr.contains("(NotFound)") => {}
                    Err(e) => errors.push_str(&e.stderr),
                }
            }
        }
        if let Some(expr) = p.last("sort-by") {
            sort_items(&mut items, expr)?;
        }
        collected.push((t.clone(), items));
    }
    let now = ctx.now();
    let total: usize = collected.iter().map(|(_, i)| i.len()).sum();
    if format.is_table() {
        // `-o custom-columns`: kubectl prints these from the objects itself.
        for (t, items) in collected.iter().filter(|(_, i)| !i.is_empty()) {
            done.stdout.push_str(&printer.next_table());
            done.stdout
                .push_str(&printer.print_items(Some(&t.rt), items, None, now)?);
        }
    } else if single_object(&targets) && total == 1 {
        if let Some(obj) = collected.first().and_then(|(_, i)| i.first()) {
            done.stdout = printer.print_object(obj)?;
        }
    } else if total != 0 || errors.is_empty() {
        let items: Vec<Value> = collected.into_iter().flat_map(|(_, i)| i).collect();
        if format == OutputFormat::Name {
            done.stdout = printer.print_items(None, &items, None, now)?;
        } else if total > 0 || !has_names {
            let list = json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}});
            done.stdout = printer.print_object(&list)?;
        }
    }
    if total == 0
        && errors.is_empty()
        && !has_names
        && (format.is_table() || format == OutputFormat::Name)
    {
        done.stderr = no_resources(targets.first(), all_ns, &ns);
    }
    with_errors(done, errors)
}

/// kubectl prints what it found and the errors, and exits 1; the console keeps the output and
/// reports the errors on stderr. With nothing found, the errors are the answer.
fn with_errors(mut done: Done, errors: String) -> Result<Done, CmdError> {
    if errors.is_empty() {
        return Ok(done);
    }
    if done.stdout.is_empty() {
        return Err(CmdError::raw(errors));
    }
    done.stderr.push_str(&errors);
    done.exit_code = 1;
    Ok(done)
}

/// The default and `-o wide` output: each type's objects as the server prints them (a Table
/// per type, listed page by page or one row per name), sorted by `--sort-by` from the rows'
/// embedded objects, laid out by kubectl with its decorations.
fn printed_by_server(
    ctx: &mut Ctx,
    p: &Parsed,
    targets: &[Target],
    scope: Option<&str>,
    ns: &str,
    query: &ListQuery,
    printer: ObjectPrinter,
) -> Result<Done, CmdError> {
    let sort_by = p.last("sort-by");
    let include_object = sort_by.is_some();
    let mut tables: Vec<(&Target, Table)> = Vec::new();
    let mut errors = String::new();
    for t in targets {
        let mut table = Table::default();
        if t.names.is_empty() {
            match targets::list_table(ctx.client, &t.rt, scope, query, include_object) {
                Ok(listed) => table = listed.table,
                Err(e) => errors.push_str(&e.stderr),
            }
        } else {
            for name in &t.names {
                match targets::get_table(ctx.client, &t.rt, ns, name, include_object) {
                    Ok(one) => targets::append_rows(&mut table, one),
                    Err(e) if p.flag("ignore-not-found") && e.stderr.contains("(NotFound)") => {}
                    Err(e) => errors.push_str(&e.stderr),
                }
            }
        }
        if let Some(expr) = sort_by {
            sort_rows(&mut table.rows, expr)?;
        }
        tables.push((t, table));
    }
    let types_with_rows = tables.iter().filter(|(_, t)| !t.rows.is_empty()).count();
    let mut printer = printer.with_kind(p.flag("show-kind") || types_with_rows > 1);
    let mut done = Done::default();
    for (t, table) in tables.iter().filter(|(_, t)| !t.rows.is_empty()) {
        done.stdout.push_str(&printer.next_table());
        done.stdout
            .push_str(&printer.print_table(Some(&t.rt), table, None));
    }
    let has_names = targets.iter().any(|t| !t.names.is_empty());
    if types_with_rows == 0 && errors.is_empty() && !has_names {
        done.stderr = no_resources(targets.first(), scope.is_none(), ns);
    }
    with_errors(done, errors)
}

fn printer_options(p: &Parsed, all_ns: bool) -> TableOptions {
    TableOptions {
        with_namespace: all_ns,
        show_labels: p.flag("show-labels"),
        no_headers: p.flag("no-headers"),
        with_kind: p.flag("show-kind"),
        watch_events: p.flag("output-watch-events"),
        column_labels: p
            .all("label-columns")
            .iter()
            .flat_map(|l| l.split(','))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
    }
}

/// `No resources found in production namespace.` / `No resources found`.
fn no_resources(target: Option<&Target>, all_ns: bool, ns: &str) -> String {
    match target {
        Some(t) if t.rt.namespaced && !all_ns => format!("No resources found in {ns} namespace.\n"),
        _ => "No resources found\n".to_string(),
    }
}

fn watch_cmd(
    ctx: &mut Ctx,
    p: &Parsed,
    target: Option<&Target>,
    ns: &str,
    mut query: ListQuery,
    mut printer: ObjectPrinter,
) -> Result<Done, CmdError> {
    let Some(target) = target else {
        return Err(CmdError::raw(NO_TYPE));
    };
    if target.names.len() > 1 {
        return Err(CmdError::msg(
            "watch is only supported on individual resources and resource collections, but 2 resources were found",
        ));
    }
    if let Some(name) = target.names.first() {
        let by_name = format!("metadata.name={name}");
        query.field_selector = Some(
            match query.field_selector.take().filter(|f| !f.is_empty()) {
                Some(f) => format!("{f},{by_name}"),
                None => by_name,
            },
        );
    }
    let all_ns = p.flag("all-namespaces");
    let scope = (!all_ns).then_some(ns);
    let server_printed = printer.format().is_server_printed();
    let sort_by = p.last("sort-by");
    let mut done = Done::default();
    let resource_version = if server_printed {
        let mut listed =
            targets::list_table(ctx.client, &target.rt, scope, &query, sort_by.is_some())?;
        if let Some(expr) = sort_by {
            sort_rows(&mut listed.table.rows, expr)?;
        }
        if !p.flag("watch-only") {
            done.stdout = printer.print_table(Some(&target.rt), &listed.table, Some("ADDED"));
        }
        listed.resource_version
    } else {
        let mut listed = targets::list(ctx.client, &target.rt, scope, &query)?;
        if let Some(expr) = sort_by {
            sort_items(&mut listed.items, expr)?;
        }
        if !p.flag("watch-only") {
            let events = vec!["ADDED".to_string(); listed.items.len()];
            done.stdout =
                printer.print_items(Some(&target.rt), &listed.items, Some(&events), ctx.now())?;
        }
        listed.resource_version
    };
    let mut params: Vec<(&str, String)> = vec![("watch", "true".into())];
    if let Some(l) = query.label_selector.filter(|s| !s.is_empty()) {
        params.push(("labelSelector", l));
    }
    if let Some(f) = query.field_selector.filter(|s| !s.is_empty()) {
        params.push(("fieldSelector", f));
    }
    if !resource_version.is_empty() {
        params.push(("resourceVersion", resource_version));
    }
    let path = with_query(&target.rt.collection_path(scope), &params);
    let opened = if server_printed {
        ctx.client.watch_accepting(&path, HUMAN_READABLE_ACCEPT)
    } else {
        ctx.client.watch(&path)
    };
    let id = opened.map_err(|resp| CmdError::server(&resp))?;
    done.follow = Some(Follow::objects(id, target.rt.clone(), printer));
    Ok(done)
}

/// Whether a raw path asks for a watch (`watch=true|1` or a legacy `/watch/` path).
fn is_watch_path(path: &str) -> bool {
    let (p, q) = path.split_once('?').unwrap_or((path, ""));
    p.contains("/watch/")
        || q.split('&')
            .any(|kv| kv == "watch=true" || kv == "watch=1" || kv == "watch")
}

fn raw(ctx: &mut Ctx, path: &str) -> Result<Done, CmdError> {
    if !path.starts_with('/') {
        return Err(CmdError::msg(format!(
            "--raw must be a path starting with '/', got {path:?}"
        )));
    }
    if is_watch_path(path) {
        let id = ctx
            .client
            .watch(path)
            .map_err(|resp| CmdError::server(&resp))?;
        return Ok(Done {
            follow: Some(Follow::raw(id)),
            ..Done::default()
        });
    }
    let resp = ctx.client.request("GET", path, None, None);
    if !resp.is_success() {
        return Err(CmdError::server(&resp));
    }
    let mut body = resp.body;
    if !body.ends_with('\n') {
        body.push('\n');
    }
    Ok(Done::out(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_paths() {
        assert!(is_watch_path(
            "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx"
        ));
        assert!(is_watch_path("/api/v1/watch/namespaces/default/pods"));
        assert!(!is_watch_path("/api/v1/pods?limit=500"));
    }
}
