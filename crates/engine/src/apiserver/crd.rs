//! What the apiextensions-apiserver's controllers do when a CustomResourceDefinition comes and
//! goes, done by the API server right after the write: the naming controller accepts the names
//! unless another resource of the group already uses the plural or the kind (then
//! `NamesAccepted=False`, `NameConflict`), the establishing controller registers the resource
//! (served at `/apis/<group>/<version>/...`, listed by discovery) and sets `Established`; a
//! deleted definition's objects are deleted (each a DELETED event for watchers) and its
//! endpoints go away.

use super::{ApiServer, Write};
use crate::api::apiextensions::{CrdCondition, CustomResourceDefinition};
use crate::api::{custom, Kind, Object};
use watchlab_apimachinery::status::Status;

/// The identity of the controllers' writes.
pub const APIEXTENSIONS_USER: &str = "apiextensions-apiserver";

fn condition(
    type_: &str,
    ok: bool,
    reason: &str,
    message: &str,
    at: crate::clock::Timestamp,
) -> CrdCondition {
    CrdCondition {
        type_: type_.into(),
        status: if ok { "True" } else { "False" }.into(),
        last_transition_time: Some(at),
        reason: reason.into(),
        message: message.into(),
    }
}

impl ApiServer {
    /// The name of the group's served resource that `crd`'s plural, singular, short names or
    /// kind collide with (another definition's, or a built-in's), as the naming controller
    /// reports it (`"websites" is already in use`).
    fn name_conflict(&self, crd: &CustomResourceDefinition) -> Option<String> {
        let names = &crd.spec.names;
        let others = self
            .registry
            .resources()
            .filter(|r| r.group == crd.spec.group && r.plural != names.plural);
        for r in others {
            for taken in [r.plural, r.singular].iter().chain(r.short_names) {
                let mine = [&names.plural, &names.singular]
                    .into_iter()
                    .chain(&names.short_names);
                if let Some(n) = mine.into_iter().find(|n| n.as_str() == *taken) {
                    return Some(format!("{n:?} is already in use"));
                }
            }
            if r.kind_name == names.kind {
                return Some(format!("{:?} is already in use", names.kind));
            }
        }
        None
    }

    /// The naming and establishing controllers' work on a new or changed definition.
    pub(super) fn establish(&mut self, crd: &CustomResourceDefinition) -> Result<(), Status> {
        let mut status = crd.status.clone();
        let now = self.now;
        let conflict = self.name_conflict(crd);
        status
            .conditions
            .retain(|c| c.type_ != "NamesAccepted" && c.type_ != "Established");
        match (&conflict, self.defined(crd)) {
            (None, Some(kind)) => {
                self.registry.register(kind);
                status.accepted_names = crd.spec.names.clone();
                status.conditions.push(condition(
                    "NamesAccepted",
                    true,
                    "NoConflicts",
                    "no conflicts found",
                    now,
                ));
                status.conditions.push(condition(
                    "Established",
                    true,
                    "InitialNamesAccepted",
                    "the initial names have been accepted",
                    now,
                ));
                if let Some(v) = crd.storage_version() {
                    if !status.stored_versions.contains(&v.name) {
                        status.stored_versions.push(v.name.clone());
                    }
                }
            }
            (conflict, _) => {
                let message = conflict.clone().unwrap_or_default();
                status.conditions.push(condition(
                    "NamesAccepted",
                    false,
                    "NameConflict",
                    &message,
                    now,
                ));
                status.conditions.push(condition(
                    "Established",
                    false,
                    "NotAccepted",
                    "not all names are accepted",
                    now,
                ));
            }
        }
        let mut updated = crd.clone();
        updated.status = status;
        self.update_status(APIEXTENSIONS_USER, Object::from(updated))
            .map(|_| ())
    }

    /// The served description of `crd`, reusing the one already allocated for an identical
    /// definition (so re-applying a CRD allocates nothing).
    fn defined(&mut self, crd: &CustomResourceDefinition) -> Option<Kind> {
        let spec = serde_json::to_string(&crd.spec).ok()?;
        if let Some((_, k)) = self.custom_kinds.iter().find(|(s, _)| *s == spec) {
            return Some(*k);
        }
        let kind = custom::define(crd)?;
        self.custom_kinds.push((spec, kind));
        Some(kind)
    }

    /// Before a definition is deleted: its objects are deleted and its endpoints removed.
    pub(super) fn retire(&mut self, crd: &CustomResourceDefinition) {
        let Some(kind) = self
            .registry
            .lookup(
                &crd.spec.group,
                crd.storage_version()
                    .map(|v| v.name.as_str())
                    .unwrap_or_default(),
                &crd.spec.names.plural,
            )
            .map(|r| r.kind())
        else {
            return;
        };
        let objects = self
            .list(kind, None, &Default::default())
            .map(|l| l.items)
            .unwrap_or_default();
        let r = kind.resource();
        for o in objects {
            // Finalizers are not waited for: the objects go with their definition.
            let key = r.key(o.namespace(), o.name());
            if let Some((_, mod_rev)) = self.current(&key) {
                let _ = self.commit_or_conflict(
                    APIEXTENSIONS_USER,
                    "delete",
                    r.plural,
                    key,
                    mod_rev,
                    Write::Delete,
                    o.name(),
                    kind,
                );
            }
        }
        self.registry.unregister(kind);
    }
}
