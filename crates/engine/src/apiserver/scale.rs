//! The `scale` subresource of Deployments, ReplicaSets and StatefulSets (`.../<name>/scale`):
//! reads and writes only `spec.replicas` through an `autoscaling/v1` `Scale`, so `kubectl
//! scale` and autoscalers can resize a workload without owning (or conflicting on) the rest
//! of its spec.

use super::patch::merge;
use super::update::Part;
use super::{ApiServer, RequestContext};
use crate::api::scale::Scale;
use crate::api::Kind;
use serde_json::Value;
use watchlab_apimachinery::status::{GroupResource, Status};
use watchlab_apimachinery::validation::FieldError;

/// `<plural>/scale.<group> "<name>" not found`: the real ScaleREST turns any read error into
/// this NotFound.
fn scale_not_found(kind: Kind, name: &str) -> Status {
    Status::not_found(&scale_resource(kind), name)
}

/// `deployments/scale.apps`, the group-resource the scale errors name.
fn scale_resource(kind: Kind) -> GroupResource {
    let r = kind.resource();
    GroupResource::new(r.group, &format!("{}/scale", r.plural))
}

impl ApiServer {
    /// GET .../scale.
    pub fn get_scale(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Scale, Status> {
        self.get(kind, namespace, name)
            .ok()
            .and_then(|obj| Scale::of(&obj))
            .ok_or_else(|| scale_not_found(kind, name))
    }

    /// PUT .../scale: sets the parent's `spec.replicas`; a `metadata.resourceVersion` in the
    /// Scale is a precondition on the parent (stale → 409). Answers the new Scale. A request by
    /// `user` with no options ([`RequestContext::new`]).
    pub fn update_scale(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        scale: &Scale,
    ) -> Result<Scale, Status> {
        let mut ctx = RequestContext::new(user);
        self.update_scale_in(&mut ctx, kind, namespace, name, scale)
    }

    /// [`ApiServer::update_scale`] as the request `ctx` (its `fieldManager` records the write).
    pub fn update_scale_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        scale: &Scale,
    ) -> Result<Scale, Status> {
        self.write_scale(ctx, kind, namespace, name, scale, "update")
    }

    /// PATCH .../scale with a merge patch on the current Scale (what `kubectl scale` sends:
    /// `{"spec":{"replicas":N}}`), as a request by `user` with no options.
    pub fn patch_scale(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        patch: &Value,
    ) -> Result<Scale, Status> {
        let mut ctx = RequestContext::new(user);
        self.patch_scale_in(&mut ctx, kind, namespace, name, patch)
    }

    /// [`ApiServer::patch_scale`] as the request `ctx` (its `fieldManager` records the write).
    pub fn patch_scale_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        patch: &Value,
    ) -> Result<Scale, Status> {
        let mut doc = self.get_scale(kind, namespace, name)?.to_json_value();
        merge(&mut doc, patch);
        let scale = Scale::from_value(doc)?;
        if scale.metadata.name != name {
            return Err(Status::bad_request(&format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                scale.metadata.name
            )));
        }
        self.write_scale(ctx, kind, namespace, name, &scale, "patch")
    }

    fn write_scale(
        &mut self,
        ctx: &mut RequestContext<'_>,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        scale: &Scale,
        verb: &'static str,
    ) -> Result<Scale, Status> {
        self.check_writable()?;
        let current = self
            .get(kind, namespace, name)
            .map_err(|_| scale_not_found(kind, name))?;
        // autoscaling validation.ValidateScale.
        if scale.spec.replicas < 0 {
            let errs = [FieldError::invalid(
                "spec.replicas",
                i64::from(scale.spec.replicas),
                "must be greater than or equal to 0",
            )];
            return Err(Status::invalid("Scale", "autoscaling", name, &errs));
        }
        let (want_uid, uid) = (&scale.metadata.uid, &current.meta().uid);
        if !want_uid.is_empty() && want_uid != uid {
            return Err(Status::conflict(
                &scale_resource(kind),
                name,
                &format!(
                    "Precondition failed: UID in precondition: {want_uid}, UID in object meta: {uid}"
                ),
            ));
        }
        // The Scale's resourceVersion becomes the parent's: empty means unconditional.
        let mut obj = (*current).clone();
        obj.meta_mut()
            .resource_version
            .clone_from(&scale.metadata.resource_version);
        let replicas = Some(scale.spec.replicas);
        match &mut obj {
            crate::api::Object::Deployment(d) => d.spec.replicas = replicas,
            crate::api::Object::ReplicaSet(r) => r.spec.replicas = replicas,
            crate::api::Object::StatefulSet(s) => s.spec.replicas = replicas,
            _ => return Err(scale_not_found(kind, name)),
        }
        let out = self.update_part(ctx, obj, Part::Scale, verb)?;
        Scale::of(&out).ok_or_else(|| scale_not_found(kind, name))
    }
}
