//! `kubectl create deployment NAME --image=...` and `kubectl create namespace NAME`: the objects
//! kubectl's generators build (label `app=NAME`, container named after the image), POSTed with
//! `fieldManager=kubectl-create`. `create -f` is served by the apply machinery's manifest reader.

use super::run::create_object;
use super::{dry_run, parse_flags, print_changed, Ctx, Done, PRINT_FLAGS};
use crate::errors::CmdError;
use crate::flags::{value, FlagSpec};
use serde_json::{json, Value};

const DEPLOYMENT_FLAGS: &[FlagSpec] = &[
    value("image", None),
    value("replicas", Some('r')),
    value("port", None),
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(CmdError::msg("must specify one of -f and -k"));
    };
    match sub.as_str() {
        "deployment" | "deploy" => deployment(ctx, rest),
        "namespace" | "ns" => namespace(ctx, rest),
        "-f" | "--filename" => super::apply::create_from_files(ctx, args),
        s if s.starts_with("-f") || s.starts_with("--filename=") => {
            super::apply::create_from_files(ctx, args)
        }
        s if s.starts_with('-') => {
            // flags before the subcommand: let the flag parser report them
            let p = parse_flags("create", args, &[value("filename", Some('f'))])?;
            match p.args.first() {
                Some(a) => Err(CmdError::usage("create", format!("Unexpected args: [{a}]"))),
                None => Err(CmdError::msg("must specify one of -f and -k")),
            }
        }
        other => Err(CmdError::usage(
            "create",
            format!("Unexpected args: [{other}]"),
        )),
    }
}

/// The container name kubectl derives from an image: the last path element without tag or
/// digest, made DNS-label-like.
fn container_name(image: &str) -> String {
    let base = image.rsplit('/').next().unwrap_or(image);
    let base = base.split(['@', ':']).next().unwrap_or(base);
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

fn one_name<'a>(cmd: &str, args: &'a [String]) -> Result<&'a String, CmdError> {
    match args {
        [name] => Ok(name),
        _ => Err(CmdError::usage(
            cmd,
            format!("exactly one NAME is required, got {}", args.len()),
        )),
    }
}

fn deployment(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let specs: Vec<FlagSpec> = DEPLOYMENT_FLAGS
        .iter()
        .chain(PRINT_FLAGS)
        .copied()
        .collect();
    let p = parse_flags("create deployment", args, &specs)?;
    let images = p.all("image");
    if images.is_empty() {
        return Err(CmdError::required_flag("image"));
    }
    let name = one_name("create deployment", &p.args)?;
    let replicas = p
        .int("replicas", Some('r'))
        .map_err(|e| CmdError::flag("create deployment", &e))?
        .unwrap_or(1);
    let dry = dry_run(&p)?;
    let mut containers: Vec<Value> = images
        .iter()
        .map(|i| json!({"name": container_name(i), "image": i, "resources": {}}))
        .collect();
    if let Some(port) = p.last("port") {
        let port: i64 = port.parse().map_err(|_| {
            CmdError::msg(format!("strconv.Atoi: parsing \"{port}\": invalid syntax"))
        })?;
        if let Some(c) = containers.first_mut() {
            c["ports"] = json!([{"containerPort": port}]);
        }
    }
    let labels = json!({"app": name});
    let deploy = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "creationTimestamp": null, "labels": labels},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "strategy": {},
            "template": {
                "metadata": {"creationTimestamp": null, "labels": labels},
                "spec": {"containers": containers},
            },
        },
        "status": {},
    });
    let ns = ctx.namespace(&p);
    let created = create_object(ctx, &deploy, &ns, "kubectl-create", super::run::STRICT, dry)?;
    Ok(Done::out(print_changed(&p, &created, "created", dry)?))
}

fn namespace(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("create namespace", args, PRINT_FLAGS)?;
    let name = one_name("create namespace", &p.args)?;
    let dry = dry_run(&p)?;
    let ns_obj = json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "creationTimestamp": null},
        "spec": {},
        "status": {},
    });
    let created = create_object(ctx, &ns_obj, "", "kubectl-create", super::run::STRICT, dry)?;
    Ok(Done::out(print_changed(&p, &created, "created", dry)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_names_from_images() {
        assert_eq!(container_name("nginx:1.27"), "nginx");
        assert_eq!(
            container_name("registry.io/team/orders-api@sha256:abc"),
            "orders-api"
        );
        assert_eq!(container_name("debug-tools:1.0"), "debug-tools");
    }
}
