//! `update` (PUT) and `update_status` (PUT .../status): optimistic concurrency on
//! `metadata.resourceVersion` (stale → 409; absent → unconditional, as these kinds allow),
//! the main resource keeping the stored status and the status subresource keeping everything
//! else, generation bumps on spec changes, no-op updates writing nothing, and removal once the
//! last finalizer of a deleted object goes. A dry run (`?dryRun=All`) runs every step and
//! answers the object as it would be stored, writing nothing.

use super::field_manager::{self, Owner};
use super::{errors, service_allocation};
use super::{ApiServer, CommitError, RequestContext, Write};
use crate::api::managed_fields::Subresource;
use crate::api::{defaults, ephemeral_containers, strategy, validation, Kind, Object};
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

/// Which part of the object a write targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Main,
    Status,
    /// The `scale` subresource: a main update of `spec.replicas`, logged as `<plural>/scale`.
    Scale,
    /// A namespace's `finalize` subresource: only `spec.finalizers` changes.
    Finalize,
    /// A pod's `ephemeralcontainers` subresource: only `spec.ephemeralContainers` changes
    /// ([`crate::api::ephemeral_containers`]).
    EphemeralContainers,
}

impl Part {
    /// The subresource a write's `managedFields` entry records.
    fn subresource(self) -> Subresource {
        match self {
            Part::Main => Subresource::None,
            Part::Status => Subresource::Status,
            Part::Scale => Subresource::Scale,
            Part::Finalize => Subresource::Finalize,
            Part::EphemeralContainers => Subresource::EphemeralContainers,
        }
    }
}

impl ApiServer {
    /// PUT: replaces the object (its status is ignored), as a request by `user` with no
    /// options ([`RequestContext::new`]).
    pub fn update(&mut self, user: &str, obj: Object) -> Result<Arc<Object>, Status> {
        self.update_in(&mut RequestContext::new(user), obj)
    }

    /// [`ApiServer::update`] as the request `ctx`: the registry's `Update(ctx, …)`.
    pub fn update_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
    ) -> Result<Arc<Object>, Status> {
        self.update_part(ctx, obj, Part::Main, "update")
    }

    /// After a main-resource write by the request `ctx`: a changed CustomResourceDefinition is
    /// established again.
    pub(super) fn after_main_write(&mut self, ctx: &RequestContext<'_>, written: &Arc<Object>) {
        if let Object::CustomResourceDefinition(c) = &**written {
            // The write stands whatever the status write answers (an unwritable store).
            let _ = self.establish(ctx, c);
        }
    }

    /// PUT namespaces/NAME/finalize: replaces `spec.finalizers` (everything else is ignored);
    /// a terminating namespace left with no finalizer is removed.
    pub fn finalize_namespace(&mut self, user: &str, obj: Object) -> Result<Arc<Object>, Status> {
        self.finalize_namespace_in(&mut RequestContext::new(user), obj)
    }

    /// [`ApiServer::finalize_namespace`] as the request `ctx`.
    pub fn finalize_namespace_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
    ) -> Result<Arc<Object>, Status> {
        if !obj.kind().resource().has_subresource("finalize") {
            return Err(Status::bad_request(
                "only namespaces have a finalize subresource",
            ));
        }
        self.update_part(ctx, obj, Part::Finalize, "update")
    }

    /// PUT .../status: replaces the status (everything else is ignored), as a request by
    /// `user` with no options.
    pub fn update_status(&mut self, user: &str, obj: Object) -> Result<Arc<Object>, Status> {
        self.update_status_in(&mut RequestContext::new(user), obj)
    }

    /// [`ApiServer::update_status`] as the request `ctx`.
    pub fn update_status_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
    ) -> Result<Arc<Object>, Status> {
        self.update_part(ctx, obj, Part::Status, "update")
    }

    /// Writes `part` of `obj` for the request `ctx`, recorded for its manager.
    pub(super) fn update_part(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
        part: Part,
        verb: &'static str,
    ) -> Result<Arc<Object>, Status> {
        let manager = self.manager_for(ctx);
        self.update_part_as(ctx, obj, part, verb, Owner::Update(&manager))
    }

    /// [`ApiServer::update_part`] recorded in `managedFields` for `owner`.
    pub(super) fn update_part_as(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
        part: Part,
        verb: &'static str,
        owner: Owner<'_>,
    ) -> Result<Arc<Object>, Status> {
        let written = self.write_part(ctx, obj, part, verb, owner)?;
        if part == Part::Main && !ctx.dry_run() {
            self.after_main_write(ctx, &written);
        }
        Ok(written)
    }

    // Long on purpose: `Store.Update`'s steps in their real order (lookup, precondition, the
    // part's strategy, defaults, validation, managed fields, finalizers, commit), read top down.
    fn write_part(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
        part: Part,
        verb: &'static str,
        owner: Owner<'_>,
    ) -> Result<Arc<Object>, Status> {
        self.check_writable()?;
        let kind = obj.kind();
        let r = kind.resource();
        let applied_fields = obj.meta().managed_fields.clone();
        let namespace = if r.namespaced {
            obj.namespace().to_string()
        } else {
            String::new()
        };
        let name = obj.name().to_string();
        if name.is_empty() {
            let errs = [watchlab_apimachinery::validation::FieldError::required(
                "metadata.name",
                "name or generateName is required",
            )];
            return Err(Status::invalid(r.kind_name, r.group, "", &errs));
        }
        let key = r.key(&namespace, &name);
        let Some((old, mod_rev)) = self.current(&key) else {
            // The strategy's AllowCreateOnUpdate (Leases and Events).
            if part == Part::Main && r.create_on_update {
                let mut obj = obj;
                obj.meta_mut().resource_version.clear();
                return self.create_as(ctx, obj, owner);
            }
            return Err(Status::not_found(&r.group_resource(), &name));
        };
        let wanted = &obj.meta().resource_version;
        if !wanted.is_empty() && *wanted != old.meta().resource_version {
            self.note_conflict(ctx.user(), verb, &key);
            return Err(errors::optimistic_lock(r, &name));
        }
        let mut new = match part {
            Part::Status => strategy::status_update(&obj, &old),
            Part::Finalize => {
                let mut new = (*old).clone();
                if let (Object::Namespace(n), Object::Namespace(o)) = (&mut new, &obj) {
                    n.spec.finalizers.clone_from(&o.spec.finalizers);
                }
                new
            }
            Part::EphemeralContainers => ephemeral_containers::prepare_for_update(&obj, &old),
            Part::Main | Part::Scale => {
                let mut new = obj;
                strategy::keep_status(&mut new, &old);
                let (o, m) = (old.meta(), new.meta_mut());
                m.namespace.clone_from(&namespace);
                m.uid.clone_from(&o.uid);
                m.creation_timestamp = o.creation_timestamp;
                m.deletion_timestamp = o.deletion_timestamp;
                m.deletion_grace_period_seconds = o.deletion_grace_period_seconds;
                m.generation = o.generation;
                m.generate_name.clone_from(&o.generate_name);
                new
            }
        };
        new.meta_mut()
            .resource_version
            .clone_from(&old.meta().resource_version);
        defaults::apply_update(&mut new, &old);
        if let (Object::Service(n), Object::Service(o)) = (&mut new, &*old) {
            service_allocation::keep_allocated(&mut n.spec, &o.spec);
        }
        if strategy::has_generation(kind) && strategy::spec_changed(&new, &old) {
            new.meta_mut().generation = Some(old.meta().generation.unwrap_or(0) + 1);
        }
        let errs = if part == Part::EphemeralContainers {
            validation::validate_ephemeral_containers_update(&new, &old)
        } else {
            validation::validate_update(&new, &old)
        };
        if !errs.is_empty() {
            return Err(Status::invalid(r.kind_name, r.group, &name, &errs));
        }
        if let (Object::Service(n), Object::Service(o)) = (&mut new, &*old) {
            self.allocate_service(&key, n, Some(o))?;
        }
        match owner {
            Owner::Update(manager) => {
                field_manager::track_update(
                    Some(&old),
                    &mut new,
                    manager,
                    part.subresource(),
                    self.now,
                );
            }
            Owner::Applied => new.meta_mut().managed_fields = applied_fields,
        }
        // A deleted object is removed once its last finalizer is gone and its grace is over
        // (a namespace also waits for its spec.finalizers: ShouldDeleteNamespaceDuringUpdate).
        let m = new.meta();
        if m.deletion_timestamp.is_some()
            && m.finalizers.is_empty()
            && m.deletion_grace_period_seconds == Some(0)
            && !spec_finalizers_pending(&new)
        {
            if ctx.dry_run() {
                // `ShouldDeleteDuringUpdate` under a dry run: the object as it would go.
                return Ok(as_stored(new));
            }
            return self.commit_or_conflict(
                ctx.user(),
                "delete",
                r.plural,
                key,
                mod_rev,
                Write::Delete,
                &name,
                kind,
            );
        }
        if new == *old {
            return Ok(old);
        }
        if ctx.dry_run() {
            // `DryRunnableStorage.GuaranteedUpdate`: the update function's result, keeping
            // the stored resourceVersion (no revision is spent).
            return Ok(as_stored(new));
        }
        let resource = match part {
            Part::Main => r.plural.to_string(),
            Part::Status => format!("{}/status", r.plural),
            Part::Scale => format!("{}/scale", r.plural),
            Part::Finalize => format!("{}/finalize", r.plural),
            Part::EphemeralContainers => format!("{}/ephemeralcontainers", r.plural),
        };
        let lease = self.lease_for(kind);
        self.commit_or_conflict(
            ctx.user(),
            verb,
            &resource,
            key,
            mod_rev,
            Write::Put {
                obj: Box::new(new),
                lease,
            },
            &name,
            kind,
        )
    }

    /// A kind whose registry entry says so ([`crate::api::ResourceInfo::event_ttl`]: Events) is (re)written
    /// with an `--event-ttl` lease (the lease manager's current one); other kinds have none.
    pub(super) fn lease_for(&mut self, kind: Kind) -> Option<crate::store::LeaseId> {
        kind.resource().event_ttl.then(|| {
            self.leases
                .lease(&mut self.store, self.config.event_ttl_ms, self.now)
        })
    }

    /// [`ApiServer::commit`] with its errors as the Status a client sees.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn commit_or_conflict(
        &mut self,
        user: &str,
        verb: &'static str,
        resource: &str,
        key: String,
        expected_mod: u64,
        write: Write,
        name: &str,
        kind: Kind,
    ) -> Result<Arc<Object>, Status> {
        self.commit(user, verb, resource, key, expected_mod, write)
            .map_err(|e| match e {
                CommitError::Conflict(key) => {
                    self.note_conflict(user, verb, &key);
                    errors::optimistic_lock(kind.resource(), name)
                }
                CommitError::Store(msg) => errors::unknown(&msg),
            })
    }
}

/// The answer of a dry run: `obj` as the write would have stored it (its `managedFields`
/// resolved from it, as from a stored version), though it is stored nowhere.
pub(super) fn as_stored(obj: Object) -> Arc<Object> {
    let obj = Arc::new(obj);
    crate::api::managed_fields::ManagedFields::mark_stored(&obj);
    obj
}

/// Whether a namespace still has `spec.finalizers` (which hold it like metadata finalizers).
pub(super) fn spec_finalizers_pending(obj: &Object) -> bool {
    matches!(obj, Object::Namespace(ns) if !ns.spec.finalizers.is_empty())
}
