//! `kubectl cordon NODE` / `kubectl uncordon NODE`: flips `spec.unschedulable` with a PATCH,
//! printing `node/node-c cordoned` (or `already cordoned` when nothing changes).

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{value, FlagSpec};
use crate::targets::get;
use serde_json::{json, Value};

const FLAGS: &[FlagSpec] = &[value("selector", Some('l')), value("dry-run", None)];

pub(crate) fn run(ctx: &mut Ctx, args: &[String], cordon: bool) -> Result<Done, CmdError> {
    let cmd = if cordon { "cordon" } else { "uncordon" };
    let p = parse_flags(cmd, args, FLAGS)?;
    let [name] = p.args.as_slice() else {
        return Err(CmdError::usage(cmd, format!("USAGE: {cmd} NODE [flags]")));
    };
    let Some(rt) = ctx.resource_type("nodes") else {
        return Err(CmdError::msg(
            "the server doesn't have a resource type \"nodes\"",
        ));
    };
    let node = get(ctx.client, &rt, "", name)?;
    let is_cordoned = node
        .get("spec")
        .and_then(|s| s.get("unschedulable"))
        .and_then(Value::as_bool)
        == Some(true);
    if is_cordoned == cordon {
        return Ok(Done::out(format!("node/{name} already {cmd}ed\n")));
    }
    // false is omitted from the Node JSON (omitempty), so uncordon removes the field.
    let value = if cordon { json!(true) } else { Value::Null };
    let body = json!({"spec": {"unschedulable": value}}).to_string();
    let resp = ctx.client.request(
        "PATCH",
        &rt.object_path("", name),
        Some("application/merge-patch+json"),
        Some(&body),
    );
    json_body(&resp)?;
    Ok(Done::out(format!("node/{name} {cmd}ed\n")))
}
