//! `delete`: preconditions, graceful pod deletion (deletionTimestamp first, removal when the
//! kubelet deletes again with grace 0, immediately for unbound pods), finalizers (removal waits
//! for the last one), namespaces (the first delete marks them Terminating; the namespace
//! controller's `/finalize` removes them), and the protected system namespaces. A dry run
//! (`?dryRun=All`) answers what the delete would do and removes or marks nothing.

use super::errors;
use super::read::ObjectList;
use super::update::spec_finalizers_pending;
use super::{ApiServer, RequestContext, Write};
use crate::api::namespace::PHASE_TERMINATING;
use crate::api::{Kind, Object};
use serde::Deserialize;
use std::sync::Arc;
use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::{Status, StatusDetails};
use watchlab_apimachinery::validation::{BadValue, FieldError};

/// `metav1.DeleteOptions` (the fields the server honours).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteOptions {
    #[serde(default)]
    pub grace_period_seconds: Option<i64>,
    #[serde(default)]
    pub preconditions: Option<Preconditions>,
    #[serde(default)]
    pub propagation_policy: Option<String>,
    /// Deprecated: `true` is propagationPolicy Orphan, `false` Background.
    #[serde(default)]
    pub orphan_dependents: Option<bool>,
    /// `["All"]` for a dry run (kubectl sends it in the body; `?dryRun=All` without a body).
    #[serde(default)]
    pub dry_run: Vec<String>,
}

impl DeleteOptions {
    /// Whether these options ask for a dry run (`dryrun.IsDryRun`: any value, once valid).
    pub fn is_dry_run(&self) -> bool {
        !self.dry_run.is_empty()
    }
}

/// `metav1.Preconditions`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Preconditions {
    #[serde(default)]
    pub uid: Option<String>,
    #[serde(default)]
    pub resource_version: Option<String>,
}

/// What a delete did.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteOutcome {
    /// The removed object (resourceVersion = the deletion's revision), or its new state when
    /// removal is pending (grace period, finalizers).
    pub object: Arc<Object>,
    /// Whether the object is gone from the store.
    pub removed: bool,
}

/// `metav1.FinalizerOrphanDependents`: the garbage collector orphans the dependents first.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`: the garbage collector deletes the dependents first.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";

/// Namespaces the NamespaceLifecycle admission plugin never lets go.
const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

impl ApiServer {
    /// Deletes `namespace/name` of `kind` with `opts`, as a request by `user` with no options
    /// ([`RequestContext::new`]).
    pub fn delete(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<DeleteOutcome, Status> {
        self.delete_in(&mut RequestContext::new(user), kind, namespace, name, opts)
    }

    /// [`ApiServer::delete`] as the request `ctx`: the registry's `Delete(ctx, …)`.
    // Long on purpose: `Store.Delete`'s steps in their real order (preconditions, grace,
    // finalizers, the namespace's own storage, the commit), read top down.
    pub fn delete_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<DeleteOutcome, Status> {
        let user = ctx.user();
        self.check_writable()?;
        validate_options(opts)?;
        let r = kind.resource();
        let gr = r.group_resource();
        let key = r.key(namespace.unwrap_or(""), name);
        let (old, mod_rev) = self
            .current(&key)
            .ok_or_else(|| Status::not_found(&gr, name))?;
        if kind == Kind::Namespace && IMMORTAL_NAMESPACES.contains(&name) {
            return Err(errors::forbidden(
                r,
                name,
                "this namespace may not be deleted",
            ));
        }
        if let Some(p) = &opts.preconditions {
            let meta = old.meta();
            if let Some(uid) = p.uid.as_deref().filter(|u| *u != meta.uid) {
                let msg = format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    meta.uid
                );
                return Err(Status::conflict(&gr, name, &msg));
            }
            if let Some(rv) = p
                .resource_version
                .as_deref()
                .filter(|v| *v != meta.resource_version)
            {
                let msg = format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    meta.resource_version
                );
                return Err(Status::conflict(&gr, name, &msg));
            }
        }
        let dry_run = ctx.dry_run() || opts.is_dry_run();
        if let Object::CustomResourceDefinition(crd) = &*old {
            if !dry_run {
                self.retire(crd);
            }
        }
        let grace = self.grace_period(&old, opts);
        let meta = old.meta();
        // Already terminating with a grace period: only a shorter one changes anything (and
        // the finalizers cannot change meanwhile, as `BeforeDelete`'s pendingGraceful).
        if let Some(current) = meta.deletion_grace_period_seconds.filter(|c| *c > 0) {
            if grace >= current {
                return Ok(DeleteOutcome {
                    object: old,
                    removed: false,
                });
            }
        }
        let finalizers = gc_finalizers(&meta.finalizers, opts);
        if grace == 0 && finalizers.is_empty() && !spec_finalizers_pending(&old) {
            if dry_run {
                // `DryRunnableStorage.Delete`: the stored object, preconditions checked, kept.
                return Ok(DeleteOutcome {
                    object: old,
                    removed: true,
                });
            }
            let object = self.commit_or_conflict(
                user,
                "delete",
                r.plural,
                key,
                mod_rev,
                Write::Delete,
                name,
                kind,
            )?;
            return Ok(DeleteOutcome {
                object,
                removed: true,
            });
        }
        let mut pending = (*old).clone();
        let m = pending.meta_mut();
        m.finalizers = finalizers;
        let newly = m.deletion_timestamp.is_none();
        if newly || m.deletion_grace_period_seconds.is_some_and(|c| grace < c) {
            m.deletion_timestamp = Some(self.now.plus_secs(grace.max(0) as u64));
            m.deletion_grace_period_seconds = Some(grace);
            if let Some(g) = m.generation {
                m.generation = Some(g + 1);
            }
        }
        // The namespace storage's Delete: the first request only starts termination.
        if let Object::Namespace(ns) = &mut pending {
            ns.status.phase = PHASE_TERMINATING.into();
        }
        if pending == *old {
            return Ok(DeleteOutcome {
                object: old,
                removed: false,
            });
        }
        if dry_run {
            // `updateForGracefulDeletionAndFinalizers` under a dry run: the object as it would
            // be marked (deletionTimestamp, finalizers), the stored one untouched.
            return Ok(DeleteOutcome {
                object: super::update::as_stored(pending),
                removed: false,
            });
        }
        let object = self.commit_or_conflict(
            user,
            "delete",
            r.plural,
            key,
            mod_rev,
            Write::Put {
                obj: Box::new(pending),
                lease: None,
            },
            name,
            kind,
        )?;
        Ok(DeleteOutcome {
            object,
            removed: false,
        })
    }

    /// DELETE on a collection: every object the list options select, one delete (and one
    /// revision) each; answers the objects as deleted or pending, as the real server's list.
    /// A request by `user` with no options.
    pub fn delete_collection(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        list: &ListOptions,
        opts: &DeleteOptions,
    ) -> Result<ObjectList, Status> {
        let mut ctx = RequestContext::new(user);
        self.delete_collection_in(&mut ctx, kind, namespace, list, opts)
    }

    /// [`ApiServer::delete_collection`] as the request `ctx` (`DeleteCollection(ctx, …)`).
    pub fn delete_collection_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        kind: Kind,
        namespace: Option<&str>,
        list: &ListOptions,
        opts: &DeleteOptions,
    ) -> Result<ObjectList, Status> {
        self.check_writable()?;
        let mut selected = self.list(kind, namespace, list)?;
        let mut items = Vec::with_capacity(selected.items.len());
        for obj in &selected.items {
            let ns = Some(obj.namespace()).filter(|n| !n.is_empty());
            match self.delete_in(ctx, kind, ns, obj.name(), opts) {
                Ok(outcome) => items.push(outcome.object),
                // Deleted in between (e.g. by a finalizer-free cascade): nothing to report.
                Err(s) if s.code() == 404 => {}
                Err(s) => return Err(s),
            }
        }
        selected.items = items;
        selected.continue_token = None;
        selected.remaining_item_count = None;
        selected.resource_version = self.revision();
        Ok(selected)
    }

    /// The grace period a delete gets: pods use the request's, else their
    /// terminationGracePeriodSeconds (30); an unbound or finished pod goes at once; other
    /// kinds are never graceful.
    fn grace_period(&self, obj: &Object, opts: &DeleteOptions) -> i64 {
        let Object::Pod(pod) = obj else { return 0 };
        if pod.spec.node_name.is_empty() || matches!(&*pod.status.phase, "Succeeded" | "Failed") {
            return 0;
        }
        let grace = opts
            .grace_period_seconds
            .or(pod.spec.termination_grace_period_seconds)
            .unwrap_or(30);
        // A negative grace period is treated as 1 second, as the real pod strategy does.
        if grace < 0 {
            1
        } else {
            grace
        }
    }
}

/// `ValidateDeleteOptions`: a known propagation policy, not together with orphanDependents.
fn validate_options(opts: &DeleteOptions) -> Result<(), Status> {
    let mut errs = Vec::new();
    if let Some(policy) = &opts.propagation_policy {
        if opts.orphan_dependents.is_some() {
            errs.push(FieldError::invalid(
                "propagationPolicy",
                policy.as_str(),
                "orphanDependents and deletionPropagation cannot be both set",
            ));
        }
        if !matches!(policy.as_str(), "Foreground" | "Background" | "Orphan") {
            errs.push(FieldError::not_supported(
                "propagationPolicy",
                policy.as_str(),
                &["Foreground", "Background", "Orphan", "nil"],
            ));
        }
    }
    // `ValidateDryRun`.
    if opts.dry_run.iter().any(|v| v != "All") {
        errs.push(FieldError::not_supported(
            "dryRun",
            BadValue::string_slice(&opts.dry_run),
            &["All"],
        ));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(Status::invalid("DeleteOptions", "meta.k8s.io", "", &errs))
    }
}

/// The finalizers a delete leaves on the object (`deletionFinalizersForGarbageCollection`):
/// `orphan` for Orphan (or orphanDependents: true), `foregroundDeletion` for Foreground,
/// neither for Background; with no policy, whichever of the two the object already has.
pub fn gc_finalizers(existing: &[String], opts: &DeleteOptions) -> Vec<String> {
    let has = |f: &str| existing.iter().any(|e| e == f);
    let policy = match (opts.orphan_dependents, opts.propagation_policy.as_deref()) {
        (Some(true), _) | (None, Some("Orphan")) => Some(FINALIZER_ORPHAN),
        (Some(false), _) | (None, Some("Background")) => None,
        (None, Some("Foreground")) => Some(FINALIZER_FOREGROUND),
        _ => existing
            .iter()
            .find(|f| *f == FINALIZER_ORPHAN || *f == FINALIZER_FOREGROUND)
            .map(|f| {
                if f == FINALIZER_ORPHAN {
                    FINALIZER_ORPHAN
                } else {
                    FINALIZER_FOREGROUND
                }
            }),
    };
    let mut out: Vec<String> = existing
        .iter()
        .filter(|f| *f != FINALIZER_ORPHAN && *f != FINALIZER_FOREGROUND)
        .cloned()
        .collect();
    if let Some(f) = policy {
        out.push(f.to_string());
    }
    // Unchanged as a set: keep the stored order.
    if out.len() == existing.len() && out.iter().all(|f| has(f)) {
        return existing.to_vec();
    }
    out
}

/// The JSON body of a finished delete: the object for pods and namespaces (ReturnDeletedObject),
/// a `Status` Success with details for the rest.
pub(super) fn delete_response(outcome: &DeleteOutcome) -> String {
    let kind = outcome.object.kind();
    let r = kind.resource();
    if !outcome.removed || r.returns_deleted_object {
        return outcome.object.to_json();
    }
    let mut s = Status::success();
    s.details = Some(Box::new(StatusDetails {
        name: outcome.object.name().to_string(),
        group: r.group.to_string(),
        kind: r.plural.to_string(),
        uid: outcome.object.meta().uid.clone(),
        ..Default::default()
    }));
    s.to_json()
}
