//! `kubectl patch TYPE NAME -p PATCH|--patch-file FILE [--type strategic|merge|json]`: one PATCH
//! request per object with the patch as given (YAML or JSON, sent as JSON; a file is one of the
//! editor's, as for `apply -f`), the media type chosen by `--type`
//! (strategic by default, as kubectl for built-in kinds). Prints `deployment.apps/x patched`,
//! or `patched (no change)` when the server's object came back as it was.

use super::{dry_run, parse_flags, print_changed, Ctx, Done, DryRun};
use crate::errors::{json_body, CmdError};
use crate::flags::{value, FlagSpec};
use crate::query::with_query;
use crate::targets::parse_targets;
use serde_json::Value;

const FLAGS: &[FlagSpec] = &[
    value("patch", Some('p')),
    value("patch-file", None),
    value("type", None),
    value("subresource", None),
    value("output", Some('o')),
    value("dry-run", None),
    value("field-manager", None),
];

/// `--type` → the PATCH's Content-Type.
fn media_type(kind: &str) -> Result<&'static str, CmdError> {
    match kind {
        "strategic" => Ok("application/strategic-merge-patch+json"),
        "merge" => Ok("application/merge-patch+json"),
        "json" => Ok("application/json-patch+json"),
        other => Err(CmdError::msg(format!(
            "--type must be one of [json merge strategic], not \"{other}\""
        ))),
    }
}

/// The patch text as JSON: kubectl reads `-p` as YAML (a superset of JSON) and sends JSON.
fn patch_json(text: &str) -> Result<Value, CmdError> {
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(text)
        .map_err(|e| CmdError::msg(format!("unable to parse {text:?}: {e}")))?;
    serde_json::to_value(value).map_err(|e| CmdError::msg(format!("unable to parse {text:?}: {e}")))
}

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("patch", args, FLAGS)?;
    let inline = p.last("patch").filter(|t| !t.is_empty());
    let file = p.last("patch-file").filter(|f| !f.is_empty());
    let text = match (inline, file) {
        (Some(_), Some(_)) => {
            return Err(CmdError::msg(
                "cannot specify --patch and --patch-file together",
            ))
        }
        (Some(t), None) => t.to_string(),
        // The editor's files (what `apply -f` reads), as kubectl reads a file from disk.
        (None, Some(f)) => ctx.kubectl.file(f).map(str::to_string).ok_or_else(|| {
            CmdError::msg(format!(
                "unable to read patch file: open {f}: no such file or directory"
            ))
        })?,
        (None, None) => {
            return Err(CmdError::msg(
                "must specify --patch or --patch-file containing the contents of the patch",
            ))
        }
    };
    let text = text.as_str();
    let content_type = media_type(p.last("type").unwrap_or("strategic"))?;
    let patch = patch_json(text)?;
    let dry = dry_run(&p)?;
    if dry == DryRun::Client {
        // A client-side dry run would need kubectl's own copy of every merge strategy.
        return Err(CmdError::msg(
            "--dry-run=client is not available in this playground for patch",
        ));
    }
    let subresource = p.last("subresource");
    if let Some(s) = subresource.filter(|s| !matches!(*s, "status" | "scale")) {
        return Err(CmdError::msg(format!(
            "invalid subresource value: \"{s}\". Must be one of [status scale]"
        )));
    }
    if p.args.is_empty() {
        return Err(CmdError::raw(
            "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n",
        ));
    }
    let targets = parse_targets(&ctx.discovery()?, &p.args, "patch")?;
    let ns = ctx.namespace(&p);
    let manager = p
        .last("field-manager")
        .unwrap_or("kubectl-patch")
        .to_string();
    let body = patch.to_string();
    let mut done = Done::default();
    for t in &targets {
        if t.names.is_empty() {
            return Err(CmdError::msg(
                "resource(s) were provided, but no name was specified",
            ));
        }
        for name in &t.names {
            let mut path = t.rt.object_path(&ns, name);
            if let Some(s) = subresource {
                path = format!("{path}/{s}");
            }
            let before = json_body(&ctx.client.request("GET", &path, None, None))?;
            let mut params = vec![("fieldManager", manager.clone())];
            if dry == DryRun::Server {
                params.push(("dryRun", "All".into()));
            }
            let after = json_body(&ctx.client.request(
                "PATCH",
                &with_query(&path, &params),
                Some(content_type),
                Some(&body),
            ))?;
            let verb = if before == after {
                "patched (no change)"
            } else {
                "patched"
            };
            done.stdout.push_str(&print_changed(&p, &after, verb, dry)?);
        }
    }
    Ok(done)
}
