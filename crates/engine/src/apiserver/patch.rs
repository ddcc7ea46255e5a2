//! PATCH with the three media types the real API server takes for built-in kinds: a JSON merge
//! patch (RFC 7386: objects merge key by key, `null` deletes, anything else replaces), a
//! strategic merge patch (lists with a merge key merge element by element, with directives;
//! [`super::strategic_merge`]) and a JSON Patch (RFC 6902 operations: `kubectl patch
//! --type=json`), each a read-modify-write under one preconditioned update.

use super::strategic_merge;
use super::update::Part;
use super::{ApiServer, RequestContext};
use crate::api::{Kind, Object};
use serde_json::Value;
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

/// Patch content types the server accepts.
pub const MERGE_PATCH: &str = "application/merge-patch+json";
pub const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";
pub const JSON_PATCH: &str = "application/json-patch+json";
/// A server-side apply (its body is YAML, or JSON; [`super::apply`] handles it).
pub const APPLY_PATCH: &str = "application/apply-patch+yaml";

/// How a patch body merges into the stored object: the PATCH's media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/merge-patch+json`
    Merge,
    /// `application/strategic-merge-patch+json`
    StrategicMerge,
    /// `application/json-patch+json`
    Json,
}

impl PatchType {
    /// The patch type of a `Content-Type` header; `None` for media types the server refuses.
    pub fn from_content_type(content_type: &str) -> Option<PatchType> {
        match content_type.split(';').next().unwrap_or_default().trim() {
            MERGE_PATCH => Some(PatchType::Merge),
            STRATEGIC_MERGE_PATCH => Some(PatchType::StrategicMerge),
            JSON_PATCH => Some(PatchType::Json),
            _ => None,
        }
    }
}

/// Applies `patch` to `target` in place (RFC 7386 MergePatch).
pub use json_patch::merge;

/// Applies RFC 6902 operations to `target`: all or none. A body that is not a list of operations
/// is a 400, as the real server's `jsonpatch.DecodePatch`; an operation that cannot apply (a
/// missing path, a failed `test`) is a 422 with the library's words, as the real one answers
/// with its JSON patch library's error.
pub(super) fn json_patch(target: &mut Value, patch: &Value) -> Result<(), Status> {
    let ops: json_patch::Patch = serde_json::from_value(patch.clone())
        .map_err(|e| Status::bad_request(&format!("error decoding patch: {e}")))?;
    json_patch::patch(target, &ops).map_err(|e| {
        Status::failure(
            422,
            watchlab_apimachinery::status::StatusReason::Invalid,
            e.to_string(),
            None,
        )
    })
}

/// The object a PATCH aims at.
#[derive(Debug, Clone, Copy)]
pub struct PatchTarget<'a> {
    pub kind: Kind,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    /// The `status` subresource rather than the object.
    pub status: bool,
}

impl ApiServer {
    /// Merge-patches `namespace/name` (the controllers' way); see [`ApiServer::patch`].
    pub fn merge_patch(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        patch: &Value,
        status: bool,
    ) -> Result<Arc<Object>, Status> {
        let target = PatchTarget {
            kind,
            namespace,
            name,
            status,
        };
        self.patch(user, target, patch, PatchType::Merge)
    }

    /// Merge-patches `namespace/name` with a change made on the typed object, for a controller
    /// that patches fields it owns (the event recorder's `count` and `lastTimestamp`): the same
    /// write as [`ApiServer::merge_patch`] with the equivalent JSON, without the object's round
    /// trip through JSON (a typed change has no unknown fields to warn about).
    pub fn merge_patch_with(
        &mut self,
        user: &str,
        target: PatchTarget<'_>,
        change: impl FnOnce(&mut Object),
    ) -> Result<Arc<Object>, Status> {
        self.check_writable()?;
        let current = self.get(target.kind, target.namespace, target.name)?;
        let mut obj = Object::clone(&current);
        change(&mut obj);
        let part = if target.status {
            Part::Status
        } else {
            Part::Main
        };
        self.update_part(&mut RequestContext::new(user), obj, part, "patch")
    }

    /// Patches the object `target` names; `target.status` aims at the status subresource. A
    /// `metadata.resourceVersion` in the patch is a precondition (stale → 409). A request by
    /// `user` with no options ([`RequestContext::new`]: no field validation).
    pub fn patch(
        &mut self,
        user: &str,
        target: PatchTarget<'_>,
        patch: &Value,
        patch_type: PatchType,
    ) -> Result<Arc<Object>, Status> {
        self.patch_in(&mut RequestContext::new(user), target, patch, patch_type)
    }

    /// [`ApiServer::patch`] as the request `ctx` (the registry's `Patch` under
    /// `patchResource`): its `fieldManager` records the write, its `fieldValidation` checks
    /// the patched object, whose warnings it records.
    pub fn patch_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        target: PatchTarget<'_>,
        patch: &Value,
        patch_type: PatchType,
    ) -> Result<Arc<Object>, Status> {
        let part = if target.status {
            Part::Status
        } else {
            Part::Main
        };
        self.patch_part_in(ctx, target, patch, patch_type, part)
    }

    /// [`ApiServer::patch_in`] of `part` of the object (a subresource's patch: the patched
    /// object is written through that part's strategy).
    pub(super) fn patch_part_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        target: PatchTarget<'_>,
        patch: &Value,
        patch_type: PatchType,
        part: Part,
    ) -> Result<Arc<Object>, Status> {
        let PatchTarget {
            kind,
            namespace,
            name,
            ..
        } = target;
        self.check_writable()?;
        if patch_type != PatchType::Json && !patch.is_object() {
            return Err(Status::bad_request("error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}"));
        }
        if kind.is_custom() && patch_type == PatchType::StrategicMerge {
            // Custom resources have no Go types to carry patch strategies.
            return Err(Status::unsupported_media_type(&format!(
                "the body of the request was in an unknown format - accepted media types include: {JSON_PATCH}, {MERGE_PATCH}, {}",
                APPLY_PATCH
            )));
        }
        let current = self.get(kind, namespace, name)?;
        let mut doc = current.to_json_value();
        match patch_type {
            PatchType::Merge => merge(&mut doc, patch),
            PatchType::StrategicMerge => {
                let rules = kind.resource().rules;
                strategic_merge::apply(&mut doc, patch, &|path| rules.merge_key(path))
            }
            PatchType::Json => json_patch(&mut doc, patch)?,
        }
        let r = kind.resource();
        ctx.warn_all(super::field_validation::check_patched(
            r,
            &doc,
            ctx.field_validation(),
        )?);
        let mut obj = Object::from_value(kind, doc)?;
        if obj.name() != name {
            return Err(Status::bad_request(&format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                obj.name()
            )));
        }
        if r.namespaced && obj.namespace() != current.namespace() {
            return Err(Status::bad_request("the namespace of the provided object does not match the namespace sent on the request"));
        }
        // A JSON Patch leaves the current resourceVersion in place unless an operation set it.
        let pinned = patch_type == PatchType::Json
            || patch
                .pointer("/metadata/resourceVersion")
                .is_some_and(|v| !v.is_null());
        if !pinned {
            obj.meta_mut().resource_version = current.meta().resource_version.clone();
        }
        self.update_part(ctx, obj, part, "patch")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc7386_examples() {
        let cases = [
            (json!({"a":"b"}), json!({"a":"c"}), json!({"a":"c"})),
            (json!({"a":"b"}), json!({"b":"c"}), json!({"a":"b","b":"c"})),
            (json!({"a":"b"}), json!({"a":null}), json!({})),
            (
                json!({"a":{"b":"c"}}),
                json!({"a":{"b":"d","c":null}}),
                json!({"a":{"b":"d"}}),
            ),
            (json!({"a":[{"b":"c"}]}), json!({"a":[1]}), json!({"a":[1]})),
            (json!(["a", "b"]), json!({"a":"c"}), json!({"a":"c"})),
            (json!({"e":null}), json!({"a":1}), json!({"e":null,"a":1})),
            (
                json!({}),
                json!({"a":{"bb":{"ccc":null}}}),
                json!({"a":{"bb":{}}}),
            ),
        ];
        for (mut target, patch, want) in cases {
            merge(&mut target, &patch);
            assert_eq!(target, want, "{patch}");
        }
    }
}
