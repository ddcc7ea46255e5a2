//! `kubectl expose TYPE NAME [--port] [--target-port] [--name] [--type] [--protocol]`: builds
//! the Service kubectl's service generator builds for a Deployment, ReplicaSet, Pod or Service
//! — the selector from the workload (`spec.selector.matchLabels`, a pod's labels, a Service's
//! selector), the labels from the object, the ports from `--port` or else from the containers'
//! ports (`port-1`, `port-2`... when several) — and POSTs it (`service/NAME exposed`).

use super::run::{create_object, STRICT};
use super::{dry_run, parse_flags, print_changed, Ctx, Done, PRINT_FLAGS};
use crate::errors::{json_body, CmdError};
use crate::flags::{value, FlagSpec};
use serde_json::{json, Map, Value};
use watchlab_apimachinery::unstructured::{array, at, str_at};

const FLAGS: &[FlagSpec] = &[
    value("port", None),
    value("target-port", None),
    value("name", None),
    value("type", None),
    value("protocol", None),
    value("selector", None),
    value("labels", Some('l')),
    value("external-ip", None),
    value("cluster-ip", None),
];

/// The kinds kubectl can expose (`exposeServiceOptions.CanBeExposed`).
const EXPOSABLE: &[&str] = &[
    "Deployment",
    "ReplicaSet",
    "Pod",
    "Service",
    "ReplicationController",
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let specs: Vec<FlagSpec> = FLAGS.iter().chain(PRINT_FLAGS).copied().collect();
    let p = parse_flags("expose", args, &specs)?;
    let (type_arg, name) = match p.args.as_slice() {
        [t, n] => (t.clone(), n.clone()),
        [t] => match t.split_once('/') {
            Some((t, n)) => (t.to_string(), n.to_string()),
            None => return Err(CmdError::msg("resource(s) were provided, but no name was specified")),
        },
        _ => {
            return Err(CmdError::raw(
                "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n",
            ))
        }
    };
    let Some(rt) = ctx.resource_type(&type_arg) else {
        return Err(crate::targets::unknown_type(&type_arg));
    };
    if !EXPOSABLE.contains(&rt.kind.as_str()) {
        return Err(CmdError::msg(format!("cannot expose a {}", rt.kind)));
    }
    let ns = ctx.namespace(&p);
    let obj = json_body(
        &ctx.client
            .request("GET", &rt.object_path(&ns, &name), None, None),
    )?;
    let selector = match p.last("selector") {
        Some(s) => super::run::parse_pairs(s, "selector")?,
        None => selector_of(&rt.kind, &obj)?,
    };
    let protocol = p.last("protocol").unwrap_or("TCP").to_string();
    let ports = match p.last("port") {
        Some(port) => {
            let port: i64 = port.parse().map_err(|_| {
                CmdError::msg(format!("strconv.Atoi: parsing \"{port}\": invalid syntax"))
            })?;
            let target = match p.last("target-port") {
                Some(t) => t
                    .parse::<i64>()
                    .map(|n| json!(n))
                    .unwrap_or_else(|_| json!(t)),
                None => json!(port),
            };
            vec![json!({"port": port, "protocol": protocol, "targetPort": target})]
        }
        None => introspected_ports(&rt.kind, &obj, p.last("target-port"), p.last("protocol"))?,
    };
    let labels = match p.last("labels") {
        Some(l) => Value::Object(super::run::parse_pairs(l, "labels")?),
        None => at(&obj, &["metadata", "labels"])
            .cloned()
            .unwrap_or(json!({})),
    };
    let svc_name = p.last("name").unwrap_or(&name).to_string();
    let mut spec = json!({"ports": ports, "selector": selector});
    if let Some(t) = p.last("type") {
        spec["type"] = json!(t);
    }
    if let Some(ip) = p.last("cluster-ip") {
        spec["clusterIP"] = json!(ip);
    }
    if let Some(ip) = p.last("external-ip") {
        spec["externalIPs"] = json!([ip]);
    }
    let svc = json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": svc_name, "labels": labels, "creationTimestamp": null},
        "spec": spec,
        "status": {"loadBalancer": {}},
    });
    let dry = dry_run(&p)?;
    let created = create_object(ctx, &svc, &ns, "kubectl-expose", STRICT, dry)?;
    Ok(Done::out(print_changed(&p, &created, "exposed", dry)?))
}

const NO_SELECTOR: &str = "couldn't retrieve selectors via --selector flag or introspection";

/// The selector the generator introspects (`MapBasedSelectorForObject`).
fn selector_of(kind: &str, obj: &Value) -> Result<Map<String, Value>, CmdError> {
    let found = match kind {
        "Pod" => at(obj, &["metadata", "labels"]),
        "Service" | "ReplicationController" => at(obj, &["spec", "selector"]),
        _ => {
            if !array(obj, &["spec", "selector", "matchExpressions"]).is_empty() {
                return Err(CmdError::msg(format!(
                    "{NO_SELECTOR}: couldn't convert expressions - \"{:?}\" to map-based selector format",
                    at(obj, &["spec", "selector", "matchExpressions"])
                )));
            }
            at(obj, &["spec", "selector", "matchLabels"])
        }
    };
    match found.and_then(Value::as_object) {
        Some(m) if !m.is_empty() => Ok(m.clone()),
        _ => Err(CmdError::msg(format!(
            "{NO_SELECTOR}\nSee 'kubectl expose -h' for help and examples"
        ))),
    }
}

/// The ports the generator introspects (`PortsForObject`): the containers' ports, or a
/// Service's own.
fn introspected_ports(
    kind: &str,
    obj: &Value,
    target: Option<&str>,
    protocol: Option<&str>,
) -> Result<Vec<Value>, CmdError> {
    let found: Vec<(i64, String)> = if kind == "Service" {
        array(obj, &["spec", "ports"])
            .iter()
            .map(|p| {
                (
                    watchlab_apimachinery::unstructured::int(p, &["port"]),
                    watchlab_apimachinery::unstructured::string(p, &["protocol"]),
                )
            })
            .collect()
    } else {
        let spec = if kind == "Pod" {
            at(obj, &["spec"])
        } else {
            at(obj, &["spec", "template", "spec"])
        };
        spec.map(|s| array(s, &["containers"]))
            .unwrap_or_default()
            .iter()
            .flat_map(|c| array(c, &["ports"]))
            .map(|p| {
                (
                    watchlab_apimachinery::unstructured::int(p, &["containerPort"]),
                    str_at(p, &["protocol"]).unwrap_or("TCP").to_string(),
                )
            })
            .collect()
    };
    if found.is_empty() {
        return Err(CmdError::msg(
            "couldn't find port via --port flag or introspection\nSee 'kubectl expose -h' for help and examples",
        ));
    }
    let several = found.len() > 1;
    Ok(found
        .iter()
        .enumerate()
        .map(|(i, (port, proto))| {
            let mut p = json!({"port": port, "protocol": protocol.unwrap_or(proto)});
            if several {
                p["name"] = json!(format!("port-{}", i + 1));
            }
            p["targetPort"] = match target {
                Some(t) => t
                    .parse::<i64>()
                    .map(|n| json!(n))
                    .unwrap_or_else(|_| json!(t)),
                None => json!(port),
            };
            p
        })
        .collect())
}
