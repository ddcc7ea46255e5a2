//! `kubectl scale TYPE NAME --replicas=N [--current-replicas=M]`: through the `scale`
//! subresource like kubectl's scaler. Without a precondition it PATCHes
//! `{"spec":{"replicas":N}}`; with `--current-replicas` it GETs the Scale, checks it
//! (`Expected replicas to be 2, was 3`) and PUTs it back with its resourceVersion.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::targets::parse_targets;
use serde_json::json;

const FLAGS: &[FlagSpec] = &[
    value("replicas", None),
    value("current-replicas", None),
    value("resource-version", None),
    boolean("all", None),
    value("selector", Some('l')),
    value("timeout", None),
    value("output", Some('o')),
    value("dry-run", None),
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("scale", args, FLAGS)?;
    let flag_err = |e| CmdError::flag("scale", &e);
    let Some(replicas) = p.int("replicas", None).map_err(flag_err)? else {
        return Err(CmdError::required_flag("replicas"));
    };
    if replicas < 0 {
        return Err(CmdError::msg(
            "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
        ));
    }
    let current = p
        .int("current-replicas", None)
        .map_err(flag_err)?
        .unwrap_or(-1);
    if p.args.is_empty() {
        return Err(CmdError::raw(
            "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n",
        ));
    }
    let targets = parse_targets(&ctx.discovery()?, &p.args, "scale")?;
    let ns = ctx.namespace(&p);
    let mut done = Done::default();
    for t in &targets {
        if t.names.is_empty() {
            return Err(CmdError::msg(
                "resource(s) were provided, but no name was specified",
            ));
        }
        for name in &t.names {
            let path = format!("{}/scale", t.rt.object_path(&ns, name));
            let resp = if current >= 0 && scale_served(ctx, &path)? == Served::No {
                let obj = json_body(&ctx.client.request(
                    "GET",
                    &t.rt.object_path(&ns, name),
                    None,
                    None,
                ))?;
                let actual = watchlab_apimachinery::unstructured::int(&obj, &["spec", "replicas"]);
                if actual != current {
                    return Err(CmdError::msg(format!(
                        "Expected replicas to be {current}, was {actual}"
                    )));
                }
                let body = json!({"metadata": {"resourceVersion": watchlab_apimachinery::unstructured::string(&obj, &["metadata", "resourceVersion"])}, "spec": {"replicas": replicas}}).to_string();
                ctx.client.request(
                    "PATCH",
                    &t.rt.object_path(&ns, name),
                    Some("application/merge-patch+json"),
                    Some(&body),
                )
            } else if current >= 0 || p.last("resource-version").is_some() {
                let mut scale = json_body(&ctx.client.request("GET", &path, None, None))?;
                let actual =
                    watchlab_apimachinery::unstructured::int(&scale, &["spec", "replicas"]);
                if current >= 0 && actual != current {
                    return Err(CmdError::msg(format!(
                        "Expected replicas to be {current}, was {actual}"
                    )));
                }
                if let Some(rv) = p.last("resource-version") {
                    scale["metadata"]["resourceVersion"] = json!(rv);
                }
                scale["spec"]["replicas"] = json!(replicas);
                let body = scale.to_string();
                ctx.client
                    .request("PUT", &path, Some("application/json"), Some(&body))
            } else {
                let body = json!({"spec": {"replicas": replicas}}).to_string();
                ctx.client.request(
                    "PATCH",
                    &path,
                    Some("application/merge-patch+json"),
                    Some(&body),
                )
            };
            if resp.code == 404 && decode_is_path_not_found(&resp) {
                // The API server serves no `scale` subresource: set spec.replicas on the object.
                let body = json!({"spec": {"replicas": replicas}}).to_string();
                let resp = ctx.client.request(
                    "PATCH",
                    &t.rt.object_path(&ns, name),
                    Some("application/merge-patch+json"),
                    Some(&body),
                );
                json_body(&resp)?;
            } else {
                json_body(&resp)?;
            }
            done.stdout
                .push_str(&format!("{}/{name} scaled\n", t.rt.kind_prefix()));
        }
    }
    Ok(done)
}

#[derive(PartialEq, Eq)]
enum Served {
    Yes,
    No,
}

/// Whether the server serves `<object>/scale` (a GET answering "could not find the requested
/// resource" means it does not); other errors (the object is missing) are reported as such.
fn scale_served(ctx: &mut Ctx, path: &str) -> Result<Served, CmdError> {
    let resp = ctx.client.request("GET", path, None, None);
    if resp.is_success() {
        return Ok(Served::Yes);
    }
    if resp.code == 404 && decode_is_path_not_found(&resp) {
        return Ok(Served::No);
    }
    Err(CmdError::server(&resp))
}

fn decode_is_path_not_found(resp: &watchlab_apimachinery::client::ApiResponse) -> bool {
    crate::errors::decode_status(resp)
        .is_none_or(|s| s.message() == "the server could not find the requested resource")
}
