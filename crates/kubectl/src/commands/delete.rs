//! `kubectl delete`: by name (`pod x`, `pod/x`), by selector (`-l`), `--all`, or `-f FILE`,
//! sending DeleteOptions (`gracePeriodSeconds`, `propagationPolicy: Background`) the way
//! kubectl does, with its grace-period rules (`--now` is 1s, `--force` is 0s and warns) and its
//! messages (`pod "x" deleted`, `pod "x" force deleted`); `--cascade=background|foreground|orphan`
//! becomes the propagationPolicy (the old `--cascade=true|false` with kubectl's warning).

use super::{parse_flags, Ctx, Done};
use crate::errors::CmdError;
use crate::flags::{boolean, value, value_or, FlagSpec};
use crate::targets::{self, parse_targets, ListQuery};
use serde_json::json;

const FLAGS: &[FlagSpec] = &[
    boolean("all", None),
    boolean("all-namespaces", Some('A')),
    value("selector", Some('l')),
    value("field-selector", None),
    value("grace-period", None),
    boolean("now", None),
    boolean("force", None),
    boolean("ignore-not-found", None),
    value("wait", None),
    value_or("cascade", "background"),
    value("filename", Some('f')),
    value("output", Some('o')),
];

const NO_RESOURCES: &str = "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n";

const FORCE_WARNING: &str = "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n";

// Long on purpose: kubectl's `DeleteOptions` Complete, Validate and Run in order (grace and
// force flags, cascade, selectors, then one delete per object), each error with its real text.
pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("delete", args, FLAGS)?;
    let mut grace = p
        .int("grace-period", None)
        .map_err(|e| CmdError::flag("delete", &e))?
        .unwrap_or(-1);
    let force = p.flag("force");
    if p.flag("now") {
        if grace != -1 {
            return Err(CmdError::msg(
                "--now and --grace-period cannot be specified together",
            ));
        }
        grace = 1;
    }
    if grace == 0 && !force {
        // kubectl turns --grace-period=0 into 1 unless --force is given.
        grace = 1;
    }
    if force && grace < 0 {
        grace = 0;
    }
    let mut done = Done::default();
    let propagation = cascading_strategy(p.last("cascade").unwrap_or("background"), &mut done)?;
    let selector = p
        .last("selector")
        .filter(|s| !s.is_empty())
        .map(String::from);
    if p.flag("all") && selector.is_some() {
        return Err(CmdError::msg(
            "setting 'all' parameter but found a non empty selector. ",
        ));
    }
    let ns = ctx.namespace(&p);
    let discovery = ctx.discovery()?;
    let mut objects: Vec<(crate::resources::ResourceType, String, String)> = Vec::new();
    if !p.all("filename").is_empty() {
        for f in p.all("filename") {
            let content = ctx
                .kubectl
                .file(f)
                .ok_or_else(|| CmdError::msg(format!("the path \"{f}\" does not exist")))?
                .to_string();
            let source = if f == "-" { "STDIN" } else { f.as_str() };
            for obj in crate::manifest::parse(source, &content)
                .map_err(|e| CmdError::msg(e.to_string()))?
            {
                let rt = discovery
                    .by_kind(
                        &watchlab_apimachinery::unstructured::string(&obj, &["apiVersion"]),
                        &watchlab_apimachinery::unstructured::string(&obj, &["kind"]),
                    )
                    .cloned()
                    .ok_or_else(|| {
                        CmdError::msg(format!(
                            "no matches for kind \"{}\"",
                            watchlab_apimachinery::unstructured::string(&obj, &["kind"])
                        ))
                    })?;
                let own = watchlab_apimachinery::unstructured::namespace(&obj);
                let obj_ns = if own.is_empty() { ns.clone() } else { own };
                objects.push((rt, obj_ns, watchlab_apimachinery::unstructured::name(&obj)));
            }
        }
    } else {
        if p.args.is_empty() {
            return Err(CmdError::raw(NO_RESOURCES));
        }
        let targets = parse_targets(&discovery, &p.args, "delete")?;
        for t in &targets {
            if t.names.is_empty() {
                if !p.flag("all") && selector.is_none() && p.last("field-selector").is_none() {
                    return Err(CmdError::msg(
                        "resource(s) were provided, but no name was specified",
                    ));
                }
                let scope = (!p.flag("all-namespaces")).then_some(ns.as_str());
                let listed = targets::list(
                    ctx.client,
                    &t.rt,
                    scope,
                    &ListQuery {
                        label_selector: selector.clone(),
                        field_selector: p.last("field-selector").map(String::from),
                        chunk_size: 500,
                    },
                )?;
                for item in listed.items {
                    let item_ns = watchlab_apimachinery::unstructured::namespace(&item);
                    objects.push((
                        t.rt.clone(),
                        item_ns,
                        watchlab_apimachinery::unstructured::name(&item),
                    ));
                }
            } else {
                objects.extend(
                    t.names
                        .iter()
                        .map(|n| (t.rt.clone(), ns.clone(), n.clone())),
                );
            }
        }
        if objects.is_empty() {
            done.stderr.push_str("No resources found\n");
            return Ok(done);
        }
    }
    if force && grace == 0 {
        done.stderr.push_str(FORCE_WARNING);
    }
    let mut body =
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": propagation});
    if grace >= 0 {
        body["gracePeriodSeconds"] = json!(grace);
    }
    let body = body.to_string();
    let mut errors = String::new();
    for (rt, obj_ns, name) in objects {
        let path = rt.object_path(&obj_ns, &name);
        let resp = ctx
            .client
            .request("DELETE", &path, Some("application/json"), Some(&body));
        if resp.is_success() {
            let verb = if force && grace == 0 {
                "force deleted"
            } else {
                "deleted"
            };
            if p.last("output") == Some("name") {
                done.stdout
                    .push_str(&format!("{}/{name}\n", rt.kind_prefix()));
            } else {
                done.stdout
                    .push_str(&format!("{} \"{name}\" {verb}\n", rt.kind_prefix()));
            }
        } else if !(resp.code == 404 && p.flag("ignore-not-found")) {
            errors.push_str(&CmdError::server(&resp).stderr);
        }
    }
    if !errors.is_empty() {
        if done.stdout.is_empty() {
            return Err(CmdError::raw(format!("{}{errors}", done.stderr)));
        }
        done.stderr.push_str(&errors);
        done.exit_code = 1;
    }
    Ok(done)
}

/// `cmdutil.GetCascadingStrategy`: background, foreground or orphan; the old booleans still
/// work with a warning (`true` is background, `false` orphan).
fn cascading_strategy(flag: &str, done: &mut Done) -> Result<&'static str, CmdError> {
    let legacy = match flag {
        "background" => return Ok("Background"),
        "foreground" => return Ok("Foreground"),
        "orphan" => return Ok("Orphan"),
        "1" | "t" | "T" | "true" | "TRUE" | "True" => ("background", "Background"),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => ("orphan", "Orphan"),
        other => {
            return Err(CmdError::msg(format!(
                "invalid cascade value ({other}). Must be \"background\", \"foreground\", or \"orphan\""
            )))
        }
    };
    done.stderr.push_str(&format!(
        "warning: --cascade={flag} is deprecated (boolean value) and can be replaced with --cascade={}.\n",
        legacy.0
    ));
    Ok(legacy.1)
}
