//! PATCH with a JSON merge patch (RFC 7386): objects merge key by key, `null` deletes, anything
//! else replaces. Strategic merge patch is accepted and applied as a merge patch (lists are
//! replaced, not merged by key — a documented deviation).

use super::update::Part;
use super::ApiServer;
use crate::api::{Kind, Object};
use serde_json::Value;
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

/// Patch content types the server accepts.
pub const MERGE_PATCH: &str = "application/merge-patch+json";
pub const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";

/// Applies `patch` to `target` in place (RFC 7386 MergePatch).
pub fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Default::default());
    }
    if let Value::Object(t) = target {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

impl ApiServer {
    /// Merge-patches `namespace/name`; `status` targets the status subresource. A
    /// `metadata.resourceVersion` in the patch is a precondition (stale → 409).
    pub fn merge_patch(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        patch: &Value,
        status: bool,
    ) -> Result<Arc<Object>, Status> {
        self.check_writable()?;
        if !patch.is_object() {
            return Err(Status::bad_request("error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}"));
        }
        let current = self.get(kind, namespace, name)?;
        let mut doc = current.to_json_value();
        merge(&mut doc, patch);
        let mut obj = Object::from_value(kind, doc)?;
        let r = kind.resource();
        if obj.name() != name {
            return Err(Status::bad_request(&format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                obj.name()
            )));
        }
        if r.namespaced && obj.namespace() != current.namespace() {
            return Err(Status::bad_request("the namespace of the provided object does not match the namespace sent on the request"));
        }
        let pinned = patch
            .pointer("/metadata/resourceVersion")
            .is_some_and(|v| !v.is_null());
        if !pinned {
            obj.meta_mut().resource_version = current.meta().resource_version.clone();
        }
        let part = if status { Part::Status } else { Part::Main };
        self.update_part(user, obj, part, "patch")
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
