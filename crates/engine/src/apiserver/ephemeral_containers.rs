//! `pods/<name>/ephemeralcontainers`: the one way to add a container to a running pod
//! (`kubectl debug POD --image=IMG` strategic-merge-patches it). It reads the whole Pod and
//! writes only `spec.ephemeralContainers`: any other change the body carries is ignored, an
//! existing ephemeral container may be neither removed nor changed, and the new ones are
//! validated as a pod spec's (`crate::api::ephemeral_containers`). The kubelet of the pod's
//! node then starts them.
//!
//! Upstream: `pkg/registry/core/pod/storage/storage.go` (`EphemeralContainersREST`: `Get` is the
//! pods store's, `Update` goes through `podEphemeralContainersStrategy` and never creates;
//! PATCH is the generic patch handler over those two), `pkg/registry/core/pod/strategy.go`.

use super::patch::{PatchTarget, PatchType};
use super::update::Part;
use super::{ApiServer, RequestContext};
use crate::api::{Kind, Object};
use serde_json::Value;
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

impl ApiServer {
    /// GET .../ephemeralcontainers: the pod itself.
    pub fn get_ephemeral_containers(
        &self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Arc<Object>, Status> {
        self.get(Kind::Pod, namespace, name)
    }

    /// PUT .../ephemeralcontainers with the pod `obj` (its `spec.ephemeralContainers` taken,
    /// the rest ignored; a `metadata.resourceVersion` is the precondition), as a request by
    /// `user` with no options ([`RequestContext::new`]). Answers the pod as stored.
    pub fn update_ephemeral_containers(
        &mut self,
        user: &str,
        obj: Object,
    ) -> Result<Arc<Object>, Status> {
        self.update_ephemeral_containers_in(&mut RequestContext::new(user), obj)
    }

    /// [`ApiServer::update_ephemeral_containers`] as the request `ctx`.
    pub fn update_ephemeral_containers_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
    ) -> Result<Arc<Object>, Status> {
        if obj.kind() != Kind::Pod {
            return Err(Status::bad_request(
                "only pods have an ephemeralcontainers subresource",
            ));
        }
        self.update_part(ctx, obj, Part::EphemeralContainers, "update")
    }

    /// PATCH .../ephemeralcontainers: the patch applied to the whole pod, then written as
    /// [`ApiServer::update_ephemeral_containers`] writes it; a request by `user` with no options.
    pub fn patch_ephemeral_containers(
        &mut self,
        user: &str,
        namespace: Option<&str>,
        name: &str,
        patch: &Value,
        patch_type: PatchType,
    ) -> Result<Arc<Object>, Status> {
        let mut ctx = RequestContext::new(user);
        self.patch_ephemeral_containers_in(&mut ctx, namespace, name, patch, patch_type)
    }

    /// [`ApiServer::patch_ephemeral_containers`] as the request `ctx`.
    pub fn patch_ephemeral_containers_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        namespace: Option<&str>,
        name: &str,
        patch: &Value,
        patch_type: PatchType,
    ) -> Result<Arc<Object>, Status> {
        let target = PatchTarget {
            kind: Kind::Pod,
            namespace,
            name,
            status: false,
        };
        self.patch_part_in(ctx, target, patch, patch_type, Part::EphemeralContainers)
    }
}
