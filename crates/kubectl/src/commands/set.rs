//! `kubectl set image (TYPE NAME | TYPE/NAME)… CONTAINER=IMAGE…` as kubectl v1.32's
//! pkg/cmd/set/set_image.go: each named container (`*` for all) of the object's pod template
//! (a pod's own spec, a CronJob's job template) gets the new image, in the containers and
//! the init containers, sent as one strategic merge patch per object; `NAME image updated`.
//! Only `image` of `set`'s subcommands is here.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{value, FlagSpec};
use crate::resources::{kind_prefix, ResourceType};
use crate::targets::{get, parse_targets};
use serde_json::{json, Value};

const FLAGS: &[FlagSpec] = &[value("selector", Some('l')), value("dry-run", None)];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    match args.first().map(String::as_str) {
        Some("image") => image(ctx, args.get(1..).unwrap_or_default()),
        Some(other) => Err(CmdError::usage(
            "set",
            format!("unknown command \"{other}\" for \"kubectl set\""),
        )),
        None => Err(CmdError::usage(
            "set",
            "You must specify the type of resource to set",
        )),
    }
}

fn image(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("set image", args, FLAGS)?;
    let (resources, images): (Vec<String>, Vec<String>) =
        p.args.iter().cloned().partition(|a| !a.contains('='));
    if images.is_empty() {
        return Err(CmdError::usage(
            "set image",
            "at least one image update is required",
        ));
    }
    let images: Vec<(String, String)> = images
        .iter()
        .filter_map(|a| {
            a.split_once('=')
                .map(|(c, i)| (c.to_string(), i.to_string()))
        })
        .collect();
    let discovery = ctx.discovery()?;
    let targets = parse_targets(&discovery, &resources, "set image")?;
    if targets.is_empty() {
        return Err(CmdError::usage(
            "set image",
            "one or more resources must be specified as <resource> <name> or <resource>/<name>",
        ));
    }
    let ns = ctx.namespace(&p);
    let mut out = String::new();
    for t in targets {
        for name in &t.names {
            out.push_str(&set_one(ctx, &t.rt, &ns, name, &images)?);
        }
    }
    Ok(Done::out(out))
}

/// The pod spec's path inside an object of this kind.
fn pod_spec_path(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &["spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => &["spec", "template", "spec"],
    }
}

/// Sets the images of one object; the line kubectl prints (nothing when nothing changed).
fn set_one(
    ctx: &mut Ctx,
    rt: &ResourceType,
    ns: &str,
    name: &str,
    images: &[(String, String)],
) -> Result<String, CmdError> {
    let obj = get(ctx.client, rt, ns, name)?;
    let path = pod_spec_path(&rt.kind);
    let spec = path.iter().try_fold(&obj, |v, k| v.get(k));
    let mut changed = serde_json::Map::new();
    for list in ["initContainers", "containers"] {
        let containers = spec
            .and_then(|s| s.get(list))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let patched = updated(&containers, images);
        if !patched.is_empty() {
            changed.insert(list.into(), json!(patched));
        }
    }
    for (container, _) in images {
        let known = container == "*"
            || ["initContainers", "containers"].iter().any(|l| {
                spec.and_then(|s| s.get(l))
                    .and_then(Value::as_array)
                    .is_some_and(|cs| cs.iter().any(|c| c["name"] == json!(container)))
            });
        if !known {
            return Err(CmdError::msg(format!(
                "unable to find container named \"{container}\""
            )));
        }
    }
    if changed.is_empty() {
        return Ok(String::new());
    }
    let mut patch = Value::Object(changed);
    for k in path.iter().rev() {
        patch = json!({ *k: patch });
    }
    let resp = ctx.client.request(
        "PATCH",
        &rt.object_path(ns, name),
        Some("application/strategic-merge-patch+json"),
        Some(&patch.to_string()),
    );
    json_body(&resp)?;
    Ok(format!(
        "{}/{name} image updated\n",
        kind_prefix(&rt.kind, &rt.group)
    ))
}

/// The containers of `containers` whose image changes, as `{name, image}` patch entries.
fn updated(containers: &[Value], images: &[(String, String)]) -> Vec<Value> {
    containers
        .iter()
        .filter_map(|c| {
            let name = c.get("name")?.as_str()?;
            let image = images
                .iter()
                .find(|(n, _)| n == name || n == "*")
                .map(|(_, i)| i)?;
            (c.get("image").and_then(Value::as_str) != Some(image.as_str()))
                .then(|| json!({"name": name, "image": image}))
        })
        .collect()
}
