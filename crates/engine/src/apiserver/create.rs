//! `create`: generateName, uid, creationTimestamp, defaults, validation, the namespace check
//! (NamespaceLifecycle admission), the mutating admission plugins ([`super::admission`]:
//! DefaultTolerationSeconds on pods, DefaultStorageClass and StorageObjectInUseProtection on
//! claims and volumes) and AlreadyExists — then
//! one compare-and-swap on "absent", or, for a dry run, the object as it would be stored.

use super::errors;
use super::field_manager::{self, Owner};
use super::{admission, ApiServer, CommitError, RequestContext, Write};
use crate::api::managed_fields::Subresource;
use crate::api::{defaults, strategy, validation, Kind, Object, ObjectMeta, ResourceInfo};
use crate::clock::Timestamp;
use std::sync::Arc;
use watchlab_apimachinery::status::{Status, StatusCause};

/// generateName's random suffix length and the prefix cut (`maxGeneratedNameLength` = 63 - 5).
const SUFFIX_LEN: usize = 5;
const MAX_GENERATED_PREFIX: usize = 58;
/// Attempts when a generated name collides (the real server retries generateName conflicts).
const GENERATE_ATTEMPTS: usize = 8;

impl ApiServer {
    /// Creates `obj` in its `metadata.namespace` (ignored for cluster-scoped kinds), as a
    /// request by `user` with no options ([`RequestContext::new`]).
    pub fn create(&mut self, user: &str, obj: Object) -> Result<Arc<Object>, Status> {
        self.create_in(&mut RequestContext::new(user), obj)
    }

    /// [`ApiServer::create`] as the request `ctx` (its user agent, its `fieldManager`): the
    /// registry's `Create(ctx, obj, …)`.
    pub fn create_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
    ) -> Result<Arc<Object>, Status> {
        let manager = self.manager_for(ctx);
        self.create_as(ctx, obj, Owner::Update(&manager))
    }

    // Long on purpose: the create handler's steps in the real server's order (decode checks,
    // admission, defaulting, validation, allocation, a dry run's stop before storage, commit).
    /// [`ApiServer::create_in`] recorded in `managedFields` for `owner`.
    pub(super) fn create_as(
        &mut self,
        ctx: &mut RequestContext<'_>,
        obj: Object,
        owner: Owner<'_>,
    ) -> Result<Arc<Object>, Status> {
        self.check_writable()?;
        let kind = obj.kind();
        let r = kind.resource();
        let mut obj = obj;
        if !obj.meta().resource_version.is_empty() {
            return Err(errors::unknown(
                "resourceVersion should not be set on objects to be created",
            ));
        }
        server_owned_meta(obj.meta_mut(), r.namespaced, self.now);
        if r.namespaced && !obj.namespace().is_empty() {
            self.check_namespace_accepts(r, obj.name(), obj.namespace())?;
        }
        self.admit(&mut obj);
        let generated = obj.meta().name.is_empty() && !obj.meta().generate_name.is_empty();
        let attempts = if generated { GENERATE_ATTEMPTS } else { 1 };
        for attempt in 0..attempts {
            let last = attempt + 1 == attempts;
            if generated {
                obj.meta_mut().name = self.generated_name(&obj.meta().generate_name);
            }
            // Only an attempt that may be followed by another (a generated name that turns out
            // taken) needs the request kept: the last one consumes it.
            let mut candidate = if last {
                std::mem::replace(&mut obj, Object::Namespace(Default::default()))
            } else {
                obj.clone()
            };
            // The uid first, as the create handler fills it before the strategy runs: a Job's
            // strategy selects its pods by it.
            candidate.meta_mut().uid = self.rng.uuid();
            strategy::prepare_for_create(&mut candidate);
            defaults::apply(&mut candidate);
            let errs = validation::validate_create(&candidate);
            if !errs.is_empty() {
                return Err(Status::invalid(
                    r.kind_name,
                    r.group,
                    candidate.name(),
                    &errs,
                ));
            }
            let key = r.key(candidate.namespace(), candidate.name());
            if self.store.get(&key).is_some() {
                if !last {
                    continue;
                }
                return Err(Status::already_exists(
                    &r.group_resource(),
                    candidate.name(),
                ));
            }
            if let Object::Service(svc) = &mut candidate {
                self.allocate_service(&key, svc, None)?;
            }
            if let Owner::Update(manager) = owner {
                field_manager::track_update(
                    None,
                    &mut candidate,
                    manager,
                    Subresource::None,
                    self.now,
                );
            }
            if ctx.dry_run() {
                // `DryRunnableStorage.Create`: the object as it would be stored, never written
                // (no lease, revision or resourceVersion; the ClusterIP drawn is not kept, as
                // allocations are read from the stored Services).
                return Ok(super::update::as_stored(candidate));
            }
            let lease = self.lease_for(kind);
            let name = candidate.name().to_string();
            let created = self
                .commit(
                    ctx.user(),
                    "create",
                    r.plural,
                    key,
                    0,
                    Write::Put {
                        obj: Box::new(candidate),
                        lease,
                    },
                )
                .map_err(|e| match e {
                    CommitError::Conflict(_) => Status::already_exists(&r.group_resource(), &name),
                    CommitError::Store(msg) => errors::unknown(&msg),
                })?;
            self.after_main_write(ctx, &created);
            return Ok(created);
        }
        // Unreachable: the last attempt returns.
        Err(errors::unknown("no name could be generated"))
    }

    /// The mutating admission plugins of a create: DefaultTolerationSeconds on a pod,
    /// DefaultStorageClass on a claim (it reads the stored classes) and
    /// StorageObjectInUseProtection on a claim or a volume.
    fn admit(&self, obj: &mut Object) {
        match obj {
            Object::Pod(pod) => self.default_tolerations.admit(pod),
            Object::PersistentVolumeClaim(claim) => {
                let prefix = Kind::StorageClass.resource().prefix(None);
                let stored = self
                    .store
                    .range_prefix(&prefix, None, None, None)
                    .map(|r| r.kvs)
                    .unwrap_or_default();
                let classes = stored.iter().filter_map(|kv| kv.value.as_storage_class());
                admission::default_storage_class(claim, classes);
            }
            _ => {}
        }
        admission::storage_object_in_use_protection(obj);
    }

    /// `generateName` plus five random characters, the prefix cut so the name fits
    /// (`names.SimpleNameGenerator`).
    fn generated_name(&mut self, generate_name: &str) -> String {
        let prefix: String = generate_name.chars().take(MAX_GENERATED_PREFIX).collect();
        format!("{prefix}{}", self.rng.name_suffix(SUFFIX_LEN))
    }

    /// NamespaceLifecycle: the namespace must exist and not be terminating (403 with the
    /// `NamespaceTerminating` cause, as the admission plugin answers).
    fn check_namespace_accepts(
        &self,
        r: &ResourceInfo,
        name: &str,
        namespace: &str,
    ) -> Result<(), Status> {
        let ns_res = Kind::Namespace.resource();
        match self.store.get(&ns_res.key("", namespace)) {
            None => Err(Status::not_found(&ns_res.group_resource(), namespace)),
            Some(kv) if kv.value.meta().deletion_timestamp.is_some() => {
                let why = format!(
                    "unable to create new content in namespace {namespace} because it is being terminated"
                );
                let mut s = Status::forbidden(&r.group_resource(), name, &why);
                s.details
                    .get_or_insert_with(Default::default)
                    .causes
                    .push(StatusCause {
                        reason: "NamespaceTerminating".into(),
                        message: format!("namespace {namespace} is being terminated"),
                        field: "metadata.namespace".into(),
                    });
                Err(s)
            }
            Some(_) => Ok(()),
        }
    }
}

/// What the server, not the client, sets in a new object's metadata (`BeforeCreate`):
/// no uid, deletion or generation yet, the creation time now, no namespace if cluster-scoped.
fn server_owned_meta(m: &mut ObjectMeta, namespaced: bool, now: Timestamp) {
    if !namespaced {
        m.namespace.clear();
    }
    m.uid.clear();
    m.deletion_timestamp = None;
    m.deletion_grace_period_seconds = None;
    m.generation = None;
    m.creation_timestamp = Some(now);
}
