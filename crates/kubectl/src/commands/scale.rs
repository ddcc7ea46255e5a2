//! `kubectl scale TYPE NAME --replicas=N [--current-replicas=M]`: each object read first, as
//! kubectl's resource builder does (none found: `no objects passed to scale` and why), then
//! scaled through the `scale` subresource like kubectl's scaler. Without a precondition it
//! PATCHes `{"spec":{"replicas":N}}`; with `--current-replicas` it GETs the Scale, checks it
//! (`Expected replicas to be 2, was 3`) and PUTs it back with its resourceVersion.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::targets::{parse_targets, Target};
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
    if targets.iter().any(|t| t.names.is_empty()) {
        return Err(CmdError::msg(
            "resource(s) were provided, but no name was specified",
        ));
    }
    let ns = ctx.namespace(&p);
    let Visited { found, missing } = visit(ctx, &targets, &ns);
    if found.is_empty() {
        let why: Vec<&str> = missing.iter().map(|(m, _)| m.as_str()).collect();
        return Err(CmdError::msg(format!(
            "no objects passed to scale {}",
            aggregate(&why)
        )));
    }
    let want = Want {
        replicas,
        current,
        resource_version: p.last("resource-version").map(String::from),
    };
    let mut done = Done::default();
    for (t, names) in &found {
        for name in names {
            scale_one(ctx, &want, &t.rt.object_path(&ns, name))?;
            done.stdout
                .push_str(&format!("{}/{name} scaled\n", t.rt.kind_prefix()));
        }
    }
    // The objects that could not be read, after the others were scaled (`return infoErr`).
    if !missing.is_empty() {
        done.stderr = missing.into_iter().map(|(_, printed)| printed).collect();
        done.exit_code = 1;
    }
    Ok(done)
}

/// What `scale` asks for: the new size and its preconditions (`--current-replicas`, -1 when
/// not given; `--resource-version`).
struct Want {
    replicas: i64,
    current: i64,
    resource_version: Option<String>,
}

/// Scales the object at `object_path` as kubectl's scaler does: a blind PATCH of the `scale`
/// subresource, or, with a precondition, the Scale read, checked and PUT back; a server that
/// serves no `scale` subresource gets the object's `spec.replicas` set instead.
fn scale_one(ctx: &mut Ctx, want: &Want, object_path: &str) -> Result<(), CmdError> {
    let path = format!("{object_path}/scale");
    let replicas = want.replicas;
    let resp = if want.current >= 0 && scale_served(ctx, &path)? == Served::No {
        let obj = json_body(&ctx.client.request("GET", object_path, None, None))?;
        check_current(want, &obj)?;
        let rv =
            watchlab_apimachinery::unstructured::string(&obj, &["metadata", "resourceVersion"]);
        let body = json!({"metadata": {"resourceVersion": rv}, "spec": {"replicas": replicas}});
        merge_patch(ctx, object_path, &body)
    } else if want.current >= 0 || want.resource_version.is_some() {
        let mut scale = json_body(&ctx.client.request("GET", &path, None, None))?;
        check_current(want, &scale)?;
        if let Some(rv) = &want.resource_version {
            scale["metadata"]["resourceVersion"] = json!(rv);
        }
        scale["spec"]["replicas"] = json!(replicas);
        let body = scale.to_string();
        ctx.client
            .request("PUT", &path, Some("application/json"), Some(&body))
    } else {
        merge_patch(ctx, &path, &json!({"spec": {"replicas": replicas}}))
    };
    if resp.code == 404 && decode_is_path_not_found(&resp) {
        // The API server serves no `scale` subresource: set spec.replicas on the object.
        let resp = merge_patch(ctx, object_path, &json!({"spec": {"replicas": replicas}}));
        json_body(&resp)?;
    } else {
        json_body(&resp)?;
    }
    Ok(())
}

/// `--current-replicas` against the size read (`spec.replicas` of a Scale or the object).
fn check_current(want: &Want, read: &serde_json::Value) -> Result<(), CmdError> {
    let actual = watchlab_apimachinery::unstructured::int(read, &["spec", "replicas"]);
    if want.current >= 0 && actual != want.current {
        return Err(CmdError::msg(format!(
            "Expected replicas to be {}, was {actual}",
            want.current
        )));
    }
    Ok(())
}

fn merge_patch(
    ctx: &mut Ctx,
    path: &str,
    body: &serde_json::Value,
) -> watchlab_apimachinery::client::ApiResponse {
    ctx.client.request(
        "PATCH",
        path,
        Some("application/merge-patch+json"),
        Some(&body.to_string()),
    )
}

/// What the resource builder's visit found.
struct Visited<'t> {
    /// The targets with the names that could be read.
    found: Vec<(&'t Target, Vec<&'t String>)>,
    /// For each name that could not: the server's message, and the error as kubectl prints it.
    missing: Vec<(String, String)>,
}

/// The resource builder's visit: each named object read (`GET`), as kubectl reads them before
/// scaling.
fn visit<'t>(ctx: &mut Ctx, targets: &'t [Target], ns: &str) -> Visited<'t> {
    let mut visited = Visited {
        found: Vec::new(),
        missing: Vec::new(),
    };
    for t in targets {
        let mut names = Vec::new();
        for name in &t.names {
            let resp = ctx
                .client
                .request("GET", &t.rt.object_path(ns, name), None, None);
            if resp.is_success() {
                names.push(name);
                continue;
            }
            let message = crate::errors::decode_status(&resp).map_or_else(
                || crate::errors::server_error_text(&resp),
                |s| s.message().to_string(),
            );
            visited
                .missing
                .push((message, CmdError::server(&resp).stderr));
        }
        if !names.is_empty() {
            visited.found.push((t, names));
        }
    }
    visited
}

/// `utilerrors.NewAggregate(...).Error()`: one message as it is, several as `[a, b]`.
fn aggregate(messages: &[&str]) -> String {
    match messages {
        [one] => one.to_string(),
        many => format!("[{}]", many.join(", ")),
    }
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
