//! `kubectl run NAME --image=IMAGE`: builds the Pod the real generator builds (label
//! `run=NAME`, container named after the pod, `restartPolicy`, `dnsPolicy: ClusterFirst`) and
//! POSTs it with `fieldManager=kubectl-run`, or prints it for `--dry-run=client -o yaml`.

use super::{dry_run, parse_flags, print_changed, Ctx, Done, DryRun, PRINT_FLAGS};
use crate::errors::CmdError;
use crate::flags::{boolean, value, FlagSpec};
use serde_json::{json, Map, Value};

const FLAGS: &[FlagSpec] = &[
    value("image", None),
    value("labels", Some('l')),
    value("restart", None),
    value("port", None),
    value("env", None),
    value("annotations", None),
    value("image-pull-policy", None),
    boolean("command", None),
    boolean("privileged", None),
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let specs: Vec<FlagSpec> = FLAGS.iter().chain(PRINT_FLAGS).copied().collect();
    let p = parse_flags("run", args, &specs)?;
    let image = p.last("image").filter(|i| !i.is_empty());
    let Some(image) = image else {
        return Err(CmdError::required_flag("image"));
    };
    let Some((name, rest)) = p.args.split_first() else {
        return Err(CmdError::usage("run", "NAME is required for run"));
    };
    let restart = p.last("restart").unwrap_or("Always");
    if !["Always", "OnFailure", "Never"].contains(&restart) {
        return Err(CmdError::usage(
            "run",
            format!("invalid restart policy: {restart}"),
        ));
    }
    let dry = dry_run(&p)?;
    let labels = match p.last("labels") {
        Some(spec) => parse_pairs(spec, "labels")?,
        None => {
            let mut m = Map::new();
            m.insert("run".into(), Value::String(name.clone()));
            m
        }
    };
    let mut container = json!({"name": name, "image": image, "resources": {}});
    if !rest.is_empty() {
        let key = if p.flag("command") { "command" } else { "args" };
        container[key] = json!(rest);
    }
    if let Some(port) = p.last("port") {
        let port: i64 = port.parse().map_err(|_| {
            CmdError::msg(format!("strconv.Atoi: parsing \"{port}\": invalid syntax"))
        })?;
        container["ports"] = json!([{"containerPort": port}]);
    }
    let mut env = Vec::new();
    for e in p.all("env") {
        match e.split_once('=') {
            Some((k, v)) if !k.is_empty() => env.push(json!({"name": k, "value": v})),
            _ => return Err(CmdError::msg(format!("invalid env: {e}"))),
        }
    }
    if !env.is_empty() {
        container["env"] = Value::Array(env);
    }
    if let Some(policy) = p.last("image-pull-policy") {
        container["imagePullPolicy"] = json!(policy);
    }
    if p.flag("privileged") {
        container["securityContext"] = json!({"privileged": true});
    }
    let mut metadata = json!({"name": name, "creationTimestamp": null, "labels": labels});
    // `--annotations` is a string array in kubectl (one `key=value` per flag, commas kept in
    // the value), unlike the comma-separated `--labels`.
    let mut annotations = Map::new();
    for pair in p.all("annotations") {
        match pair.split_once('=') {
            Some((k, v)) => {
                annotations.insert(k.to_string(), Value::String(v.to_string()));
            }
            None => return Err(CmdError::msg(format!("invalid annotations: {pair}"))),
        }
    }
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [container], "restartPolicy": restart, "dnsPolicy": "ClusterFirst"},
        "status": {},
    });
    let ns = ctx.namespace(&p);
    let created = create_object(ctx, &pod, &ns, "kubectl-run", None, dry)?;
    Ok(Done::out(print_changed(&p, &created, "created", dry)?))
}

/// `a=b,c=d` into a JSON map, with kubectl's error for a pair without `=`.
pub(crate) fn parse_pairs(spec: &str, what: &str) -> Result<Map<String, Value>, CmdError> {
    let mut m = Map::new();
    for pair in spec.split(',').filter(|s| !s.is_empty()) {
        match pair.split_once('=') {
            Some((k, v)) => {
                m.insert(k.to_string(), Value::String(v.to_string()));
            }
            None => return Err(CmdError::msg(format!("invalid {what}: {pair}"))),
        }
    }
    Ok(m)
}

/// `fieldValidation=Strict`: what kubectl's default `--validate=strict` sends (`run` has no
/// `--validate` and sends none).
pub(crate) const STRICT: Option<&str> = Some("Strict");

/// POSTs `obj` to its collection (or returns it untouched for `--dry-run=client`).
pub(crate) fn create_object(
    ctx: &mut Ctx,
    obj: &Value,
    ns: &str,
    field_manager: &str,
    validation: Option<&str>,
    dry: DryRun,
) -> Result<Value, CmdError> {
    if dry == DryRun::Client {
        return Ok(obj.clone());
    }
    let api_version = watchlab_apimachinery::unstructured::string(obj, &["apiVersion"]);
    let kind = watchlab_apimachinery::unstructured::string(obj, &["kind"]);
    let discovery = ctx.discovery()?;
    let rt = discovery.by_kind(&api_version, &kind).ok_or_else(|| {
        CmdError::msg(format!(
            "the server doesn't have a resource type \"{kind}\""
        ))
    })?;
    let mut params = vec![("fieldManager", field_manager.to_string())];
    if let Some(v) = validation {
        params.push(("fieldValidation", v.to_string()));
    }
    if dry == DryRun::Server {
        params.push(("dryRun", "All".into()));
    }
    let path = crate::query::with_query(&rt.collection_path(Some(ns)), &params);
    let body = obj.to_string();
    let resp = ctx
        .client
        .request("POST", &path, Some("application/json"), Some(&body));
    crate::errors::json_body(&resp).map(|v| crate::targets::with_type_meta(rt, v))
}
