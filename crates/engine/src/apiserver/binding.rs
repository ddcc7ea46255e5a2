//! `POST pods/<name>/binding`: the scheduler's only write. Sets `spec.nodeName` and the
//! PodScheduled condition in one revision; a pod already on a node is a 409.

use super::{ApiServer, Write};
use crate::api::binding::Binding;
use crate::api::{Kind, Object};
use std::sync::Arc;
use watchlab_apimachinery::status::{GroupResource, Status};
use watchlab_apimachinery::validation::FieldError;

impl ApiServer {
    /// Binds `binding.metadata.namespace/name` to `binding.target.name`.
    pub fn bind(&mut self, user: &str, binding: &Binding) -> Result<Arc<Object>, Status> {
        self.check_writable()?;
        let name = &binding.metadata.name;
        let mut errs = Vec::new();
        let target_kind: &str = &binding.target.kind;
        if !target_kind.is_empty() && target_kind != "Node" {
            errs.push(FieldError::not_supported(
                "target.kind",
                target_kind,
                &["Node", "<empty>"],
            ));
        }
        if binding.target.name.is_empty() {
            errs.push(FieldError::required("target.name", ""));
        }
        if !errs.is_empty() {
            return Err(Status::invalid("Binding", "", name, &errs));
        }
        let r = Kind::Pod.resource();
        let key = r.key(&binding.metadata.namespace, name);
        let (old, mod_rev) = self
            .current(&key)
            .ok_or_else(|| Status::not_found(&r.group_resource(), name))?;
        let Object::Pod(pod) = &*old else {
            return Err(Status::not_found(&r.group_resource(), name));
        };
        let gr = GroupResource::new("", "pods/binding");
        if pod.metadata.deletion_timestamp.is_some() {
            let msg = format!("pod {name} is being deleted, cannot be assigned to a host");
            return Err(Status::conflict(&gr, name, &msg));
        }
        if !pod.spec.node_name.is_empty() {
            let msg = format!(
                "pod {name} is already assigned to node {:?}",
                pod.spec.node_name
            );
            return Err(Status::conflict(&gr, name, &msg));
        }
        let mut bound = pod.clone();
        bound.spec_mut().node_name.clone_from(&binding.target.name);
        bound.set_condition("PodScheduled", "True", self.now);
        let write = Write::Put {
            obj: Box::new(Object::Pod(bound)),
            lease: None,
        };
        self.commit_or_conflict(
            user,
            "create",
            "pods/binding",
            key,
            mod_rev,
            write,
            name,
            Kind::Pod,
        )
    }
}
