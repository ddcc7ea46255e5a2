//! `kubectl apply -f FILE` (client-side apply) and `kubectl create -f FILE`. Apply GETs each
//! object: on 404 it POSTs the manifest with the `kubectl.kubernetes.io/last-applied-configuration`
//! annotation; otherwise it PATCHes a three-way merge patch (last-applied, manifest, live),
//! retrying on 409 Conflict after re-reading like kubectl's patcher (5 tries). A manifest that
//! carries `metadata.resourceVersion` sends it in the patch, so a stale copy fails with the
//! seed's Conflict text.
//!
//! `apply --server-side` sends each manifest whole as an `application/apply-patch+yaml` PATCH
//! for its field manager (`--field-manager`, default `kubectl`; `--force-conflicts` takes
//! fields other managers own) and leaves the merge to the API server.

use super::{dry_run, parse_flags, print_changed, Ctx, Done, DryRun, PRINT_FLAGS};
use crate::errors::{decode_status, server_error_text, CmdError};
use crate::flags::{boolean, value, FlagSpec, Parsed};
use crate::manifest;
use crate::merge_patch::three_way;
use crate::query::with_query;
use crate::resources::ResourceType;
use serde_json::{Map, Value};
use watchlab_apimachinery::client::ApiResponse;

/// The annotation client-side apply keeps the last applied manifest in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// kubectl's `maxPatchRetry`.
const MAX_PATCH_RETRY: usize = 5;
const FIELD_MANAGER: &str = "kubectl-client-side-apply";

const FLAGS: &[FlagSpec] = &[
    value("filename", Some('f')),
    boolean("recursive", Some('R')),
    value("validate", None),
    boolean("server-side", None),
    boolean("force-conflicts", None),
    boolean("force", None),
    boolean("overwrite", None),
    value("selector", Some('l')),
];

/// One object read from a file, with its resource type and namespace resolved.
struct Item {
    source: String,
    rt: ResourceType,
    namespace: String,
    name: String,
    object: Value,
}

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let specs: Vec<FlagSpec> = FLAGS.iter().chain(PRINT_FLAGS).copied().collect();
    let p = parse_flags("apply", args, &specs)?;
    let validation = field_validation(&p)?;
    let dry = dry_run(&p)?;
    let server_side = p.flag("server-side");
    if server_side && dry == DryRun::Client {
        return Err(CmdError::msg(
            "--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)",
        ));
    }
    if p.flag("force-conflicts") && !server_side {
        return Err(CmdError::msg(
            "--force-conflicts only works with --server-side",
        ));
    }
    let items = read_items(ctx, &p)?;
    let mut done = Done::default();
    let mut errors = String::new();
    for item in items {
        let result = if server_side {
            apply_server_side(ctx, &p, &item, validation, dry).map(|text| (text, String::new()))
        } else {
            apply_one(ctx, &p, &item, validation, dry)
        };
        match result {
            Ok((text, warning)) => {
                done.stdout.push_str(&text);
                done.stderr.push_str(&warning);
            }
            Err(e) => errors.push_str(&e.stderr),
        }
    }
    finish(done, errors)
}

/// `kubectl create -f`: POST every object.
pub(crate) fn create_from_files(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let specs: Vec<FlagSpec> = FLAGS.iter().chain(PRINT_FLAGS).copied().collect();
    let p = parse_flags("create", args, &specs)?;
    let validation = field_validation(&p)?;
    let items = read_items(ctx, &p)?;
    let dry = dry_run(&p)?;
    let mut done = Done::default();
    let mut errors = String::new();
    for item in items {
        let result = super::run::create_object(
            ctx,
            &item.object,
            &item.namespace,
            "kubectl-create",
            Some(validation),
            dry,
        )
        .map_err(|e| with_source(e, "creating", &item.source));
        match result.and_then(|obj| print_changed(&p, &obj, "created", dry)) {
            Ok(text) => done.stdout.push_str(&text),
            Err(e) => errors.push_str(&e.stderr),
        }
    }
    finish(done, errors)
}

/// `--validate` as kubectl reads it (`GetValidationDirective`) into the `fieldValidation` it
/// sends: `strict`/`true` (the default) → Strict, `warn` → Warn, `ignore`/`false` → Ignore.
fn field_validation(p: &Parsed) -> Result<&'static str, CmdError> {
    match p.last("validate").unwrap_or("strict").to_ascii_lowercase().as_str() {
        "strict" | "true" => Ok("Strict"),
        "warn" => Ok("Warn"),
        "ignore" | "false" => Ok("Ignore"),
        other => Err(CmdError::msg(format!(
            "invalid - validate option {other:?}; must be one of: strict (or true), warn, ignore (or false)"
        ))),
    }
}

fn finish(done: Done, errors: String) -> Result<Done, CmdError> {
    if errors.is_empty() {
        Ok(done)
    } else if done.stdout.is_empty() {
        Err(CmdError::raw(format!("{}{errors}", done.stderr)))
    } else {
        let mut done = done;
        done.stderr.push_str(&errors);
        done.exit_code = 1;
        Ok(done)
    }
}

fn read_items(ctx: &mut Ctx, p: &Parsed) -> Result<Vec<Item>, CmdError> {
    let files = p.all("filename");
    if files.is_empty() {
        return Err(CmdError::msg("must specify one of -f and -k"));
    }
    let flag_ns = p.last("namespace").filter(|n| !n.is_empty());
    let default_ns = ctx.namespace(p);
    let mut items = Vec::new();
    for file in files {
        let source = if file == "-" {
            "STDIN".to_string()
        } else {
            file.clone()
        };
        let content = ctx
            .kubectl
            .file(file)
            .ok_or_else(|| CmdError::msg(format!("the path \"{file}\" does not exist")))?
            .to_string();
        let objects =
            manifest::parse(&source, &content).map_err(|e| CmdError::msg(e.to_string()))?;
        for mut object in objects {
            let api_version = watchlab_apimachinery::unstructured::string(&object, &["apiVersion"]);
            let kind = watchlab_apimachinery::unstructured::string(&object, &["kind"]);
            let discovery = ctx.discovery()?;
            let rt = discovery.by_kind(&api_version, &kind).cloned().ok_or_else(|| {
                CmdError::msg(format!(
                    "resource mapping not found for name: \"{}\" namespace: \"{}\" from \"{source}\": no matches for kind \"{kind}\" in version \"{api_version}\"\nensure CRDs are installed first",
                    watchlab_apimachinery::unstructured::name(&object),
                    watchlab_apimachinery::unstructured::namespace(&object),
                ))
            })?;
            let name = watchlab_apimachinery::unstructured::name(&object);
            if name.is_empty() {
                return Err(CmdError::msg(format!(
                    "error when retrieving current configuration of:\nResource: \"{}\", GroupVersionKind: \"{}\"\nName: \"\", Namespace: \"{default_ns}\"\nfrom server for: \"{source}\": resource name may not be empty",
                    gvr(&rt),
                    gvk(&rt)
                )));
            }
            let mut namespace = String::new();
            if rt.namespaced {
                let own = watchlab_apimachinery::unstructured::namespace(&object);
                if let (false, Some(flag)) = (own.is_empty(), flag_ns) {
                    if own != flag {
                        return Err(CmdError::msg(format!(
                            "the namespace from the provided object \"{own}\" does not match the namespace \"{flag}\". You must pass '--namespace={own}' to perform this operation."
                        )));
                    }
                }
                namespace = if own.is_empty() {
                    default_ns.clone()
                } else {
                    own
                };
                if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.insert("namespace".into(), Value::String(namespace.clone()));
                }
            }
            items.push(Item {
                source: source.clone(),
                rt,
                namespace,
                name,
                object,
            });
        }
    }
    Ok(items)
}

/// `apps/v1, Resource=deployments` (schema.GroupVersionResource's String()).
fn gvr(rt: &ResourceType) -> String {
    format!("{}/{}, Resource={}", rt.group, rt.version, rt.plural)
}

/// `apps/v1, Kind=Deployment`.
fn gvk(rt: &ResourceType) -> String {
    format!("{}/{}, Kind={}", rt.group, rt.version, rt.kind)
}

/// The manifest with the last-applied annotation set to the manifest itself (as JSON + "\n").
fn with_last_applied(object: &Value) -> Value {
    let mut clean = object.clone();
    if let Some(ann) = clean
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut)
    {
        ann.remove(LAST_APPLIED);
        if ann.is_empty() {
            if let Some(meta) = clean.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("annotations");
            }
        }
    }
    let applied = format!("{clean}\n");
    let mut modified = object.clone();
    if let Some(meta) = modified.get_mut("metadata").and_then(Value::as_object_mut) {
        let ann = meta
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if !ann.is_object() {
            *ann = Value::Object(Map::new());
        }
        if let Some(ann) = ann.as_object_mut() {
            ann.insert(LAST_APPLIED.into(), Value::String(applied));
        }
    }
    modified
}

fn last_applied_of(live: &Value) -> Option<Value> {
    let text = watchlab_apimachinery::unstructured::str_at(
        live,
        &["metadata", "annotations", LAST_APPLIED],
    )?;
    serde_json::from_str(text).ok()
}

fn with_source(e: CmdError, verb: &str, source: &str) -> CmdError {
    // AddSourceToErr: the Status message gets `error when <verb> "<source>": ` in front.
    let prefix = format!("error when {verb} \"{source}\": ");
    match e.stderr.split_once("): ") {
        Some((head, msg)) if e.stderr.starts_with("Error from server (") => {
            CmdError::raw(format!("{head}): {prefix}{msg}"))
        }
        _ => e,
    }
}

fn apply_one(
    ctx: &mut Ctx,
    p: &Parsed,
    item: &Item,
    validation: &str,
    dry: DryRun,
) -> Result<(String, String), CmdError> {
    let path = item.rt.object_path(&item.namespace, &item.name);
    let modified = with_last_applied(&item.object);
    let resp = ctx.client.request("GET", &path, None, None);
    if resp.code == 404 {
        let created = super::run::create_object(
            ctx,
            &modified,
            &item.namespace,
            FIELD_MANAGER,
            Some(validation),
            dry,
        )
        .map_err(|e| with_source(e, "creating", &item.source))?;
        return Ok((print_changed(p, &created, "created", dry)?, String::new()));
    }
    if !resp.is_success() {
        return Err(retrieve_error(&resp, item));
    }
    let mut live = crate::errors::json_body(&resp)?;
    let original = last_applied_of(&live);
    let warning = if original.is_none() {
        format!(
            "Warning: resource {}/{} is missing the {LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n",
            item.rt.plural, item.name
        )
    } else {
        String::new()
    };
    let mut attempt = 0;
    loop {
        let patch = three_way(
            original.as_ref().or(last_applied_of(&live).as_ref()),
            &modified,
            &live,
        );
        if patch.as_object().is_some_and(Map::is_empty) {
            return Ok((print_changed(p, &live, "unchanged", dry)?, warning));
        }
        if dry == DryRun::Client {
            let result = crate::merge_patch::apply(&live, &patch);
            return Ok((print_changed(p, &result, "configured", dry)?, warning));
        }
        let mut params = vec![
            ("fieldManager", FIELD_MANAGER.to_string()),
            ("fieldValidation", validation.to_string()),
        ];
        if dry == DryRun::Server {
            params.push(("dryRun", "All".into()));
        }
        let body = patch.to_string();
        let resp: ApiResponse = ctx.client.request(
            "PATCH",
            &with_query(&path, &params),
            Some("application/merge-patch+json"),
            Some(&body),
        );
        if resp.is_success() {
            let obj = crate::errors::json_body(&resp)?;
            let obj = crate::targets::with_type_meta(&item.rt, obj);
            return Ok((print_changed(p, &obj, "configured", dry)?, warning));
        }
        attempt += 1;
        if resp.code != 409 || attempt > MAX_PATCH_RETRY {
            return Err(patch_error(&resp, &body, item));
        }
        live = crate::targets::get(ctx.client, &item.rt, &item.namespace, &item.name)?;
    }
}

/// kubectl's advice after an apply conflict (`applycmd`'s conflict error).
const CONFLICT_ADVICE: &str =
    "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
";

/// One object by server-side apply: `<type>/<name> serverside-applied`.
fn apply_server_side(
    ctx: &mut Ctx,
    p: &Parsed,
    item: &Item,
    validation: &str,
    dry: DryRun,
) -> Result<String, CmdError> {
    let path = item.rt.object_path(&item.namespace, &item.name);
    let manager = p
        .last("field-manager")
        .filter(|m| !m.is_empty())
        .unwrap_or("kubectl");
    let mut params = vec![
        ("fieldManager", manager.to_string()),
        ("force", p.flag("force-conflicts").to_string()),
        ("fieldValidation", validation.to_string()),
    ];
    if dry == DryRun::Server {
        params.push(("dryRun", "All".into()));
    }
    let resp = ctx.client.request(
        "PATCH",
        &with_query(&path, &params),
        Some("application/apply-patch+yaml"),
        Some(&item.object.to_string()),
    );
    if resp.is_success() {
        let obj = crate::errors::json_body(&resp)?;
        let obj = crate::targets::with_type_meta(&item.rt, obj);
        return print_changed(p, &obj, "serverside-applied", dry);
    }
    match decode_status(&resp) {
        Some(s)
            if resp.code == 409
                && s.reason().as_str() == "Conflict"
                && s.message().starts_with("Apply failed with") =>
        {
            Err(CmdError::raw(format!(
                "error: {}\n{CONFLICT_ADVICE}",
                s.message()
            )))
        }
        _ => Err(with_source(
            CmdError::raw(format!("{}\n", server_error_text(&resp))),
            "patching",
            &item.source,
        )),
    }
}

/// `Error from server (Conflict): error when applying patch:\n<patch>\nto:\n<info>\nfor: "<file>": error when patching "<file>": <message>`.
fn patch_error(resp: &ApiResponse, patch: &str, item: &Item) -> CmdError {
    let info = format!(
        "Resource: \"{}\", GroupVersionKind: \"{}\"\nName: \"{}\", Namespace: \"{}\"",
        gvr(&item.rt),
        gvk(&item.rt),
        item.name,
        item.namespace
    );
    let message = match decode_status(resp) {
        Some(s) => s.message().to_string(),
        None => resp.body.clone(),
    };
    let reason = decode_status(resp)
        .map(|s| s.reason().as_str().to_string())
        .unwrap_or_else(|| "InternalError".into());
    CmdError::raw(format!(
        "Error from server ({reason}): error when applying patch:\n{patch}\nto:\n{info}\nfor: \"{src}\": error when patching \"{src}\": {message}\n",
        src = item.source
    ))
}

/// A failed GET of the live object, with kubectl's "retrieving current configuration" context.
fn retrieve_error(resp: &ApiResponse, item: &Item) -> CmdError {
    let context = format!(
        "error when retrieving current configuration of:\nResource: \"{}\", GroupVersionKind: \"{}\"\nName: \"{}\", Namespace: \"{}\"\nfrom server for: \"{}\": ",
        gvr(&item.rt),
        gvk(&item.rt),
        item.name,
        item.namespace,
        item.source
    );
    let text = server_error_text(resp);
    CmdError::raw(match text.split_once("): ") {
        Some((head, msg)) => format!("{head}): {context}{msg}\n"),
        None => format!("{text}\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn last_applied_annotation_is_the_manifest() {
        let m = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}});
        let with = with_last_applied(&m);
        assert_eq!(
            with["metadata"]["annotations"][LAST_APPLIED],
            "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"x\"}}\n"
        );
        assert_eq!(last_applied_of(&with), Some(m.clone()));
        assert_eq!(with_last_applied(&with), with);
    }
}
