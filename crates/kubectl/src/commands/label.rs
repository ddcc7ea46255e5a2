//! `kubectl label` and `kubectl annotate`: `key=value` sets, `key-` removes, an existing
//! different value needs `--overwrite` (kubectl's error otherwise). Each object is read, changed
//! locally and written back as a JSON merge patch of the difference (`fieldManager=kubectl-label`
//! / `kubectl-annotate`), printing `deployment.apps/orders-api labeled`.

use super::{dry_run, dry_run_suffix, parse_flags, Ctx, Done, DryRun};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::query::with_query;
use crate::targets::{self, parse_targets, ListQuery};
use serde_json::{json, Map, Value};
use watchlab_apimachinery::validation::{is_qualified_name, is_valid_label_value};

/// Which metadata map the command edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Label,
    Annotate,
}

impl Kind {
    fn cmd(self) -> &'static str {
        match self {
            Kind::Label => "label",
            Kind::Annotate => "annotate",
        }
    }
    fn field(self) -> &'static str {
        match self {
            Kind::Label => "labels",
            Kind::Annotate => "annotations",
        }
    }
    fn past(self) -> &'static str {
        match self {
            Kind::Label => "labeled",
            Kind::Annotate => "annotated",
        }
    }
}

const FLAGS: &[FlagSpec] = &[
    boolean("overwrite", None),
    boolean("all", None),
    boolean("all-namespaces", Some('A')),
    value("selector", Some('l')),
    value("field-selector", None),
    value("resource-version", None),
    boolean("list", None),
    boolean("local", None),
    value("output", Some('o')),
    value("dry-run", None),
    value("filename", Some('f')),
];

/// `key=value` or `key-`.
enum Change {
    Set(String, String),
    Remove(String),
}

fn is_update(arg: &str) -> bool {
    arg.contains('=') || (arg.ends_with('-') && arg.len() > 1)
}

// Long on purpose: kubectl's `LabelOptions` Complete, Validate and Run in order (flags, the
// key=value arguments, then one patch per target), each error with its real text.
pub(crate) fn run(ctx: &mut Ctx, args: &[String], kind: Kind) -> Result<Done, CmdError> {
    let p = parse_flags(kind.cmd(), args, FLAGS)?;
    let split = p
        .args
        .iter()
        .position(|a| is_update(a))
        .unwrap_or(p.args.len());
    let (resources, updates) = p.args.split_at(split);
    let mut changes = Vec::new();
    for u in updates {
        if let Some((k, v)) = u.split_once('=') {
            if kind == Kind::Label {
                validate_label(u, k, v)?;
            }
            changes.push(Change::Set(k.to_string(), v.to_string()));
        } else if let Some(k) = u.strip_suffix('-') {
            changes.push(Change::Remove(k.to_string()));
        } else {
            return Err(CmdError::msg(format!(
                "all resources must be specified before {} changes: {u}",
                kind.field().trim_end_matches('s')
            )));
        }
    }
    if resources.is_empty() {
        return Err(CmdError::msg(
            "one or more resources must be specified as <resource> <name> or <resource>/<name>",
        ));
    }
    if changes.is_empty() && !p.flag("list") {
        return Err(CmdError::msg(format!(
            "at least one {} update is required",
            kind.field().trim_end_matches('s')
        )));
    }
    let dry = dry_run(&p)?;
    let ns = ctx.namespace(&p);
    let targets = parse_targets(&ctx.discovery()?, resources, kind.cmd())?;
    let selector = p
        .last("selector")
        .filter(|s| !s.is_empty())
        .map(String::from);
    let mut done = Done::default();
    for t in &targets {
        let objects = if t.names.is_empty() {
            if !p.flag("all") && selector.is_none() {
                return Err(CmdError::msg(
                    "resource(s) were provided, but no name was specified",
                ));
            }
            targets::list(
                ctx.client,
                &t.rt,
                (!p.flag("all-namespaces")).then_some(ns.as_str()),
                &ListQuery {
                    label_selector: selector.clone(),
                    field_selector: p.last("field-selector").map(String::from),
                    chunk_size: 500,
                },
            )?
            .items
        } else {
            let mut objs = Vec::new();
            for name in &t.names {
                objs.push(targets::get(ctx.client, &t.rt, &ns, name)?);
            }
            objs
        };
        for obj in objects {
            let current =
                watchlab_apimachinery::unstructured::string_map(&obj, &["metadata", kind.field()]);
            if p.flag("list") {
                for (k, v) in &current {
                    done.stdout.push_str(&format!("{k}={v}\n"));
                }
                continue;
            }
            let mut patch_map = Map::new();
            for change in &changes {
                match change {
                    Change::Set(k, v) => {
                        let existing = current.iter().find(|(ck, _)| ck == k).map(|(_, cv)| cv);
                        if let Some(old) = existing.filter(|old| *old != v) {
                            if !p.flag("overwrite") {
                                return Err(CmdError::msg(match kind {
                                    Kind::Label => format!(
                                        "'{k}' already has a value ({old}), and --overwrite is false"
                                    ),
                                    Kind::Annotate => format!(
                                        "--overwrite is false but found the following declared annotation(s): '{k}' already has a value ({old})"
                                    ),
                                }));
                            }
                        }
                        if existing != Some(v) {
                            patch_map.insert(k.clone(), Value::String(v.clone()));
                        }
                    }
                    Change::Remove(k) => {
                        if current.iter().any(|(ck, _)| ck == k) {
                            patch_map.insert(k.clone(), Value::Null);
                        } else {
                            done.stderr.push_str(&format!(
                                "{} \"{k}\" not found.\n",
                                kind.field().trim_end_matches('s')
                            ));
                        }
                    }
                }
            }
            let name = watchlab_apimachinery::unstructured::name(&obj);
            let obj_ns = watchlab_apimachinery::unstructured::namespace(&obj);
            let reference = format!("{}/{name}", t.rt.kind_prefix());
            if patch_map.is_empty() {
                done.stdout.push_str(&format!(
                    "{reference} not {}{}\n",
                    kind.past(),
                    dry_run_suffix(dry)
                ));
                continue;
            }
            let mut patch = json!({"metadata": {kind.field(): patch_map}});
            if let Some(rv) = p.last("resource-version") {
                patch["metadata"]["resourceVersion"] = json!(rv);
            }
            if dry != DryRun::Client {
                let mut params = vec![("fieldManager", format!("kubectl-{}", kind.cmd()))];
                if dry == DryRun::Server {
                    params.push(("dryRun", "All".into()));
                }
                let path = with_query(&t.rt.object_path(&obj_ns, &name), &params);
                let body = patch.to_string();
                let resp = ctx.client.request(
                    "PATCH",
                    &path,
                    Some("application/merge-patch+json"),
                    Some(&body),
                );
                json_body(&resp)?;
            }
            let verb =
                if kind == Kind::Label && !p.flag("overwrite") && shrinks(&current, &patch_map) {
                    // kubectl's updateDataChangeMsg: a shorter object without --overwrite is "unlabeled".
                    "unlabeled"
                } else {
                    kind.past()
                };
            done.stdout
                .push_str(&format!("{reference} {verb}{}\n", dry_run_suffix(dry)));
        }
    }
    Ok(done)
}

/// Whether applying the label patch makes the label map's JSON shorter.
fn shrinks(current: &[(String, String)], patch: &Map<String, Value>) -> bool {
    let before: Map<String, Value> = current
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let mut after = before.clone();
    for (k, v) in patch {
        if v.is_null() {
            after.remove(k);
        } else {
            after.insert(k.clone(), v.clone());
        }
    }
    Value::Object(after).to_string().len() < Value::Object(before).to_string().len()
}

/// kubectl's parseLabels checks: a qualified-name key and a valid label value.
fn validate_label(spec: &str, key: &str, value: &str) -> Result<(), CmdError> {
    let errs = is_qualified_name(key);
    if !errs.is_empty() {
        return Err(CmdError::msg(format!(
            "invalid label spec: {spec}, {}",
            errs.join(";")
        )));
    }
    let errs = is_valid_label_value(value);
    if !errs.is_empty() {
        return Err(CmdError::msg(format!(
            "invalid label value: {spec:?}: {}",
            errs.join(";")
        )));
    }
    Ok(())
}
