//! `kubectl create deployment NAME --image=...`, `kubectl create namespace NAME` and `kubectl
//! create poddisruptionbudget NAME --selector=... --min-available=N|--max-unavailable=N`: the
//! objects kubectl's generators build (label `app=NAME`, container named after the image; a
//! budget's selector as `metav1.ParseToLabelSelector` makes it), POSTed with
//! `fieldManager=kubectl-create`; `create job` and `create cronjob` are in [`batch`].
//! `create -f` is served by the apply machinery's manifest reader.

mod batch;

use super::run::create_object;
use super::{dry_run, parse_flags, print_changed, Ctx, Done, PRINT_FLAGS};
use crate::errors::CmdError;
use crate::flags::{value, FlagSpec};
use serde_json::{json, Map, Value};
use watchlab_apimachinery::labels::{LabelSelector, Operator};
use watchlab_apimachinery::sort;

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
        "poddisruptionbudget" | "pdb" => pod_disruption_budget(ctx, rest),
        "job" => batch::job(ctx, rest),
        "cronjob" | "cj" => batch::cron_job(ctx, rest),
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

const PDB_FLAGS: &[FlagSpec] = &[
    value("selector", None),
    value("min-available", None),
    value("max-unavailable", None),
];

/// `metav1.ParseToLabelSelector`: equalities become `matchLabels`, the set-based requirements
/// `matchExpressions`; `!=`, `gt` and `lt` are refused as kubectl refuses them.
fn parse_to_label_selector(text: &str) -> Result<Value, CmdError> {
    let parsed = LabelSelector::parse(text).map_err(CmdError::msg)?;
    let mut labels = Map::new();
    let mut expressions = Vec::new();
    for r in parsed.requirements() {
        let op = match r.operator {
            Operator::Equals | Operator::DoubleEquals => {
                let [value] = r.values.as_slice() else {
                    return Err(CmdError::msg("equals operator must have exactly one value"));
                };
                labels.insert(r.key.clone(), json!(value));
                continue;
            }
            Operator::In => "In",
            Operator::NotIn => "NotIn",
            Operator::Exists => "Exists",
            Operator::DoesNotExist => "DoesNotExist",
            Operator::GreaterThan | Operator::LessThan => {
                return Err(CmdError::msg(format!(
                    "{:?} isn't supported in label selectors",
                    r.operator.as_str()
                )))
            }
            Operator::NotEquals => {
                return Err(CmdError::msg(format!(
                    "{:?} is not a valid label selector operator",
                    r.operator.as_str()
                )))
            }
        };
        let mut values = r.values.clone();
        sort::sort(&mut values);
        let mut e = json!({"key": r.key, "operator": op});
        if !values.is_empty() {
            e["values"] = json!(values);
        }
        expressions.push(e);
    }
    let mut selector = Map::new();
    if !labels.is_empty() {
        selector.insert("matchLabels".into(), Value::Object(labels));
    }
    if !expressions.is_empty() {
        selector.insert("matchExpressions".into(), Value::Array(expressions));
    }
    Ok(Value::Object(selector))
}

/// `intstr.Parse`: a number is an integer, anything else a string (`50%`).
fn int_or_string(text: &str) -> Value {
    text.parse::<i32>()
        .map_or_else(|_| json!(text), |n| json!(n))
}

/// `kubectl create poddisruptionbudget` (`create_pdb.go`): one bound, a number or a percentage.
fn pod_disruption_budget(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let specs: Vec<FlagSpec> = PDB_FLAGS.iter().chain(PRINT_FLAGS).copied().collect();
    let p = parse_flags("create poddisruptionbudget", args, &specs)?;
    let name = one_name("create poddisruptionbudget", &p.args)?;
    let min = p.last("min-available").unwrap_or_default().to_string();
    let max = p.last("max-unavailable").unwrap_or_default().to_string();
    if min.is_empty() && max.is_empty() {
        return Err(CmdError::msg(
            "one of min-available or max-unavailable must be specified",
        ));
    }
    if !min.is_empty() && !max.is_empty() {
        return Err(CmdError::msg(
            "min-available and max-unavailable cannot be both specified",
        ));
    }
    // `^[0-9]+%?$`: 10, 30%, not 10Gb.
    let well_formed = |v: &str| {
        let digits = v.strip_suffix('%').unwrap_or(v);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    for (flag, v) in [("min-available", &min), ("max-unavailable", &max)] {
        if !v.is_empty() && !well_formed(v) {
            return Err(CmdError::msg(format!(
                "invalid format specified for {flag}"
            )));
        }
    }
    let selector = parse_to_label_selector(p.last("selector").unwrap_or_default())?;
    let mut spec = json!({"selector": selector});
    if !min.is_empty() {
        spec["minAvailable"] = int_or_string(&min);
    }
    if !max.is_empty() {
        spec["maxUnavailable"] = int_or_string(&max);
    }
    let pdb = json!({
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "creationTimestamp": null},
        "spec": spec,
        "status": {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0,
            "expectedPods": 0},
    });
    let dry = dry_run(&p)?;
    let ns = ctx.namespace(&p);
    let created = create_object(ctx, &pdb, &ns, "kubectl-create", super::run::STRICT, dry)?;
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
