//! Server-side apply: `PATCH` with `application/apply-patch+yaml` (a YAML or JSON configuration
//! of the fields a manager wants set). The object is created when it does not exist; otherwise
//! the configuration is merged in by the field manager ([`super::field_manager`]), which may
//! refuse with a 409 listing the fields another manager owns. The result is then written as
//! any update is (defaults, validation, the status strategy, no-op detection).

use super::field_manager::{self, Owner};
use super::patch::PatchTarget;
use super::update::Part;
use super::{errors, ApiServer, RequestContext};
use crate::api::{Object, ResourceInfo};
use serde_json::{json, Value};
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

/// Decodes an apply body: YAML (JSON is YAML too) into one object.
pub fn decode_config(body: &str) -> Result<Value, Status> {
    let value: Value = serde_yaml_ng::from_str(body)
        .map_err(|e| Status::bad_request(&format!("error decoding patch: {e}")))?;
    if !value.is_object() {
        return Err(Status::bad_request(
            "error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}",
        ));
    }
    Ok(value)
}

/// The first unknown field of a configuration (a custom resource's: one its schema would prune),
/// as the typed conversion refuses it whatever `fieldValidation` says (`.spec.foo: field not
/// declared in schema`).
fn undeclared_field(r: &'static ResourceInfo, config: &Value) -> Option<String> {
    let problems = super::field_validation::problems(r, &config.to_string());
    problems.into_iter().find_map(|p| {
        let field = p.strip_prefix("unknown field \"")?.strip_suffix('"')?;
        Some(format!(".{field}: field not declared in schema"))
    })
}

/// `(/v1, Kind=Pod)`: a GroupVersionKind as Go prints it.
fn gvk(r: &ResourceInfo) -> String {
    format!("{}/{}, Kind={}", r.group, r.version, r.kind_name)
}

impl ApiServer {
    /// Applies `config` for `manager` to the object `target` names (creating it when absent);
    /// `force` takes over fields other managers own instead of refusing. Returns the object and
    /// whether it was created. A request by `user` with `manager` as its `fieldManager`.
    pub fn apply(
        &mut self,
        user: &str,
        target: PatchTarget<'_>,
        config: &Value,
        manager: &str,
        force: bool,
    ) -> Result<(Arc<Object>, bool), Status> {
        let mut ctx = RequestContext::new(user).with_field_manager(Some(manager.to_string()));
        self.apply_in(&mut ctx, target, config, force)
    }

    /// [`ApiServer::apply`] as the request `ctx`, for its `fieldManager` (the apply patcher
    /// of `patchResource`; the HTTP edge has refused an apply without one).
    pub fn apply_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        target: PatchTarget<'_>,
        config: &Value,
        force: bool,
    ) -> Result<(Arc<Object>, bool), Status> {
        let PatchTarget {
            kind,
            namespace,
            name,
            status,
        } = target;
        self.check_writable()?;
        let r = kind.resource();
        if let Some(msg) = undeclared_field(r, config) {
            return Err(errors::unknown(&format!(
                "failed to create typed patch object ({}): {msg}",
                gvk(r)
            )));
        }
        if let Some(body_name) = config.pointer("/metadata/name").and_then(Value::as_str) {
            if body_name != name {
                return Err(Status::bad_request(&format!(
                    "the name of the object ({body_name}) does not match the name on the URL ({name})"
                )));
            }
        }
        let current = match self.get(kind, namespace, name) {
            Ok(obj) => Some(obj),
            // The status subresource cannot create.
            Err(e) if e.code() == 404 && !status => None,
            Err(e) => return Err(e),
        };
        let live = match &current {
            Some(obj) => obj.to_json_value(),
            None => {
                let mut meta = json!({ "name": name });
                if let (true, Some(ns)) = (r.namespaced, namespace) {
                    meta["namespace"] = json!(ns);
                }
                json!({ "apiVersion": r.api_version, "kind": r.kind_name, "metadata": meta })
            }
        };
        let apply = field_manager::Apply {
            kind,
            manager: ctx.field_manager().unwrap_or_default(),
            force,
            subresource: if status { "status" } else { "" },
            now: self.now,
        };
        let merged = apply.run(&live, config)?;
        let mut obj = Object::from_value(kind, merged)?;
        if r.namespaced && obj.namespace() != namespace.unwrap_or_default() {
            return Err(Status::bad_request("the namespace of the provided object does not match the namespace sent on the request"));
        }
        match current {
            None => Ok((self.create_as(ctx, obj, Owner::Applied)?, true)),
            Some(current) => {
                if config
                    .pointer("/metadata/resourceVersion")
                    .is_none_or(Value::is_null)
                {
                    obj.meta_mut()
                        .resource_version
                        .clone_from(&current.meta().resource_version);
                }
                let part = if status { Part::Status } else { Part::Main };
                let written = self.update_part_as(ctx, obj, part, "patch", Owner::Applied)?;
                Ok((written, false))
            }
        }
    }
}
