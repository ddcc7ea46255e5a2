//! `kubectl create job` and `kubectl create cronjob` (kubectl v1.32 `create_job.go`,
//! `create_cronjob.go`): the `batch/v1` objects their generators build — one container named
//! after the object, the command after `--`, `restartPolicy: Never` for a Job and
//! `OnFailure` (or `--restart`) for a CronJob, no labels (the API server gives a Job the
//! labels of its generated selector) — and a Job made from a CronJob's `jobTemplate`
//! (`createJobFromCronJob`: annotation `cronjob.kubernetes.io/instantiate: manual`, the
//! template's labels and annotations, a controller reference to the CronJob without
//! `blockOwnerDeletion`). Their server errors are wrapped as kubectl wraps them
//! (`failed to create job: ...`), and `-o yaml` prints the object as kubectl's typed client
//! re-encodes it ([`as_typed`]: null `creationTimestamp`s in the templates). `-n` puts the
//! namespace in the object, as kubectl's `EnforceNamespace` does.

use super::super::{dry_run, parse_flags, print_changed, Ctx, Done, DryRun, PRINT_FLAGS};
use super::one_name;
use crate::errors::{decode_status, CmdError};
use crate::flags::{value, FlagSpec, Parsed};
use crate::output::{OutputFormat, OBJECT_FORMATS};
use crate::targets::parse_targets;
use serde_json::{json, Map, Value};
use watchlab_apimachinery::unstructured::{at, string};

/// The annotation `createJobFromCronJob` marks a hand-made Job with.
const INSTANTIATE_ANNOTATION: &str = "cronjob.kubernetes.io/instantiate";

const JOB_FLAGS: &[FlagSpec] = &[value("image", None), value("from", None)];
const CRONJOB_FLAGS: &[FlagSpec] = &[
    value("image", None),
    value("schedule", None),
    value("restart", None),
];

/// A generator's command line: its flags, its one NAME, and the command after `--`.
struct Line {
    p: Parsed,
    name: String,
    command: Vec<String>,
    dry: DryRun,
}

/// Parses `NAME [flags] [-- COMMAND [ARGS...]]` as `NameFromCommandArgs` counts it: exactly
/// one argument before `--`; `required` are the flags cobra checks before the command runs.
fn parse_line(
    cmd: &str,
    args: &[String],
    own: &[FlagSpec],
    required: &[&str],
) -> Result<Line, CmdError> {
    let dash = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let specs: Vec<FlagSpec> = own.iter().chain(PRINT_FLAGS).copied().collect();
    let p = parse_flags(cmd, args.get(..dash).unwrap_or_default(), &specs)?;
    let missing: Vec<&str> = required.iter().copied().filter(|f| !p.has(f)).collect();
    if !missing.is_empty() {
        return Err(CmdError::msg(format!(
            "required flag(s) \"{}\" not set",
            missing.join("\", \"")
        )));
    }
    let name = one_name(cmd, &p.args)?.clone();
    let command = args.get(dash + 1..).unwrap_or_default().to_vec();
    let dry = dry_run(&p)?;
    OutputFormat::parse(p.last("output"), OBJECT_FORMATS)?;
    Ok(Line {
        p,
        name,
        command,
        dry,
    })
}

/// The pod template both generators write: one container named `name`, no labels.
fn pod_template(name: &str, image: &str, command: &[String], restart: &str) -> Value {
    let mut container = json!({"name": name, "image": image, "resources": {}});
    if !command.is_empty() {
        container["command"] = json!(command);
    }
    json!({
        "metadata": {"creationTimestamp": null},
        "spec": {"containers": [container], "restartPolicy": restart},
    })
}

/// Metadata with the namespace only when `-n` named it (`EnforceNamespace`).
fn metadata(ctx: &Ctx, line: &Line) -> Value {
    let mut meta = json!({"name": line.name, "creationTimestamp": null});
    if line.p.last("namespace").is_some_and(|n| !n.is_empty()) {
        meta["namespace"] = json!(ctx.namespace(&line.p));
    }
    meta
}

/// `kubectl create job NAME --image=IMAGE [-- COMMAND]` or `--from=cronjob/NAME`.
pub(super) fn job(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let line = parse_line("create job", args, JOB_FLAGS, &[])?;
    let image = line.p.last("image").unwrap_or_default().to_string();
    let from = line.p.last("from").unwrap_or_default().to_string();
    if image.is_empty() == from.is_empty() {
        return Err(CmdError::msg("either --image or --from must be specified"));
    }
    if !line.command.is_empty() && !from.is_empty() {
        return Err(CmdError::msg("cannot specify --from and command"));
    }
    let job = if from.is_empty() {
        json!({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": metadata(ctx, &line),
            "spec": {"template": pod_template(&line.name, &image, &line.command, "Never")},
            "status": {},
        })
    } else {
        let cron_job = from_cron_job(ctx, &line, &from)?;
        job_from_cron_job(ctx, &line, &cron_job)
    };
    let created = as_typed(create(ctx, &line, &job, "job")?, &[&["spec", "template"]]);
    Ok(Done::out(print_changed(
        &line.p, &created, "created", line.dry,
    )?))
}

/// The object `--from` names, read as kubectl's resource builder reads `TYPE/NAME`; anything
/// but a CronJob is refused with the Go type kubectl decoded it into.
fn from_cron_job(ctx: &mut Ctx, line: &Line, from: &str) -> Result<Value, CmdError> {
    let discovery = ctx.discovery()?;
    let targets = parse_targets(&discovery, &[from.to_string()], "create job")?;
    let [target] = targets.as_slice() else {
        return Err(CmdError::msg("from must be an existing cronjob"));
    };
    let [name] = target.names.as_slice() else {
        return Err(CmdError::msg(
            "resource(s) were provided, but no name was specified",
        ));
    };
    let ns = ctx.namespace(&line.p);
    let obj = crate::targets::get(ctx.client, &target.rt, &ns, name)?;
    if target.rt.kind != "CronJob" || target.rt.group != "batch" {
        return Err(CmdError::msg(format!(
            "unknown object type {}",
            go_type_name(&target.rt)
        )));
    }
    Ok(obj)
}

/// `%T` of the object kubectl's builder decodes: the typed struct for the built-in groups
/// (`*v1.Deployment`), an unstructured object for the rest.
fn go_type_name(rt: &crate::resources::ResourceType) -> String {
    const TYPED_GROUPS: [&str; 8] = [
        "",
        "apps",
        "batch",
        "policy",
        "discovery.k8s.io",
        "coordination.k8s.io",
        "events.k8s.io",
        "networking.k8s.io",
    ];
    if TYPED_GROUPS.contains(&rt.group.as_str()) {
        format!("*{}.{}", rt.version, rt.kind)
    } else {
        "*unstructured.Unstructured".to_string()
    }
}

/// `createJobFromCronJob`: the CronJob's job template as a Job it controls.
fn job_from_cron_job(ctx: &Ctx, line: &Line, cron_job: &Value) -> Value {
    let template = at(cron_job, &["spec", "jobTemplate"]).unwrap_or(&Value::Null);
    let mut annotations = Map::new();
    annotations.insert(INSTANTIATE_ANNOTATION.into(), json!("manual"));
    if let Some(own) = at(template, &["metadata", "annotations"]).and_then(Value::as_object) {
        annotations.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let mut meta = metadata(ctx, line);
    meta["annotations"] = Value::Object(annotations);
    if let Some(labels) = at(template, &["metadata", "labels"]).filter(|l| !l.is_null()) {
        meta["labels"] = labels.clone();
    }
    meta["ownerReferences"] = json!([{
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "name": string(cron_job, &["metadata", "name"]),
        "uid": string(cron_job, &["metadata", "uid"]),
        "controller": true,
    }]);
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": at(template, &["spec"]).cloned().unwrap_or_else(|| json!({})),
        "status": {},
    })
}

/// `kubectl create cronjob NAME --image=IMAGE --schedule=SCHEDULE [--restart=POLICY] [-- COMMAND]`.
pub(super) fn cron_job(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let line = parse_line(
        "create cronjob",
        args,
        CRONJOB_FLAGS,
        &["image", "schedule"],
    )?;
    let image = line.p.last("image").unwrap_or_default();
    let restart = line
        .p
        .last("restart")
        .filter(|r| !r.is_empty())
        .unwrap_or("OnFailure");
    let cron_job = json!({
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": metadata(ctx, &line),
        "spec": {
            "schedule": line.p.last("schedule").unwrap_or_default(),
            "jobTemplate": {
                "metadata": {"name": line.name, "creationTimestamp": null},
                "spec": {"template": pod_template(&line.name, image, &line.command, restart)},
            },
        },
        "status": {},
    });
    let templates: [&[&str]; 2] = [
        &["spec", "jobTemplate"],
        &["spec", "jobTemplate", "spec", "template"],
    ];
    let created = as_typed(create(ctx, &line, &cron_job, "cronjob")?, &templates);
    Ok(Done::out(print_changed(
        &line.p, &created, "created", line.dry,
    )?))
}

/// The object as kubectl prints it after decoding it into its Go type and encoding it again
/// (the typed clients of `create job`/`create cronjob`): every `ObjectMeta` it holds — its own
/// and its templates' (`templates`, the paths of objects with a `metadata`) — has a
/// `creationTimestamp` (null when unset, a struct Go never leaves out), and `status` is there.
fn as_typed(mut obj: Value, templates: &[&[&str]]) -> Value {
    let stamp = |v: &mut Value| {
        if let Some(o) = v.as_object_mut() {
            let meta = o.entry("metadata").or_insert_with(|| json!({}));
            if let Some(m) = meta.as_object_mut() {
                m.entry("creationTimestamp").or_insert(Value::Null);
            }
        }
    };
    stamp(&mut obj);
    for path in templates {
        if let Some(t) = path.iter().try_fold(&mut obj, |v, k| v.get_mut(*k)) {
            stamp(t);
        }
    }
    if let Some(o) = obj.as_object_mut() {
        o.entry("status").or_insert_with(|| json!({}));
    }
    obj
}

/// POSTs the object (`fieldManager=kubectl-create`, `fieldValidation=Strict`), or returns it
/// as built for `--dry-run=client`. A refusal reads `failed to create <what>: <the status
/// message>`, as kubectl's `fmt.Errorf("failed to create job: %v", err)` prints it.
fn create(ctx: &mut Ctx, line: &Line, obj: &Value, what: &str) -> Result<Value, CmdError> {
    if line.dry == DryRun::Client {
        return Ok(obj.clone());
    }
    let discovery = ctx.discovery()?;
    let kind = string(obj, &["kind"]);
    let rt = discovery
        .by_kind("batch/v1", &kind)
        .ok_or_else(|| crate::targets::unknown_type(&kind))?;
    let mut params = vec![
        ("fieldManager", "kubectl-create".to_string()),
        ("fieldValidation", "Strict".to_string()),
    ];
    if line.dry == DryRun::Server {
        params.push(("dryRun", "All".into()));
    }
    let ns = ctx.namespace(&line.p);
    let path = crate::query::with_query(&rt.collection_path(Some(&ns)), &params);
    let resp = ctx.client.request(
        "POST",
        &path,
        Some("application/json"),
        Some(&obj.to_string()),
    );
    if !resp.is_success() {
        let message = decode_status(&resp).map_or_else(
            || crate::errors::server_error_text(&resp),
            |s| s.message().to_string(),
        );
        return Err(CmdError::msg(format!("failed to create {what}: {message}")));
    }
    let created = crate::errors::json_body(&resp)?;
    Ok(crate::targets::with_type_meta(rt, created))
}

#[cfg(test)]
mod tests {
    use super::*;
    use watchlab_apimachinery::unstructured::str_at;

    #[test]
    fn go_type_names_as_percent_t_prints_them() {
        let rt = |group: &str, kind: &str| crate::resources::ResourceType {
            plural: String::new(),
            singular: String::new(),
            short_names: Vec::new(),
            group: group.into(),
            version: "v1".into(),
            kind: kind.into(),
            namespaced: true,
            categories: Vec::new(),
            verbs: Vec::new(),
        };
        assert_eq!(go_type_name(&rt("apps", "Deployment")), "*v1.Deployment");
        assert_eq!(go_type_name(&rt("", "Pod")), "*v1.Pod");
        assert_eq!(
            go_type_name(&rt("example.com", "Widget")),
            "*unstructured.Unstructured"
        );
    }

    #[test]
    fn typed_objects_keep_their_null_creation_timestamps() {
        let job = json!({"metadata": {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"template": {"spec": {}}}});
        let typed = as_typed(job, &[&["spec", "template"]]);
        assert_eq!(
            typed,
            json!({"metadata": {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"},
                "spec": {"template": {"metadata": {"creationTimestamp": null}, "spec": {}}},
                "status": {}})
        );
    }

    #[test]
    fn the_pod_template_has_one_container_and_the_command_only_when_given() {
        let t = pod_template("pi", "perl:5", &[], "Never");
        assert_eq!(
            t["spec"],
            json!({"containers": [{"name": "pi", "image": "perl:5", "resources": {}}],
                "restartPolicy": "Never"})
        );
        let t = pod_template("pi", "perl:5", &["perl".into(), "-e".into()], "OnFailure");
        assert_eq!(t["spec"]["containers"][0]["command"], json!(["perl", "-e"]));
        assert_eq!(str_at(&t, &["spec", "restartPolicy"]), Some("OnFailure"));
    }
}
