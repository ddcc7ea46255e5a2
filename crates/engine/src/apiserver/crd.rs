//! What the apiextensions-apiserver's controllers do when a CustomResourceDefinition comes and
//! goes, done by the API server right after the write: the naming controller accepts the names
//! unless another resource of the group already uses one (then `NamesAccepted=False` with
//! `PluralConflict`, `KindConflict`... and `"<name>" is already in use`), the establishing controller registers the resource
//! (served at `/apis/<group>/<version>/...`, listed by discovery) and sets `Established`; a
//! deleted definition's objects are deleted (each a DELETED event for watchers) and its
//! endpoints go away.

use super::{ApiServer, RequestContext, Write};
use crate::api::apiextensions::{CrdCondition, CustomResourceDefinition};
use crate::api::{custom, Kind, Object};
use std::collections::BTreeSet;
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
    /// The naming controller's verdict on `crd`'s names (`calculateNamesAndConditions`): the
    /// plural, singular and short names must be unused by the group's other resources, the kind
    /// and list kind likewise, unless they are the names already accepted for it. Each clash
    /// sets the reason (`PluralConflict`, `SingularConflict`, `ShortNamesConflict`,
    /// `KindConflict`, `ListKindConflict`; the last one found wins, as in the real controller)
    /// and the message `"websites" is already in use`.
    fn name_conflict(&self, crd: &CustomResourceDefinition) -> Option<(&'static str, String)> {
        let names = &crd.spec.names;
        let accepted = &crd.status.accepted_names;
        let mut used: BTreeSet<&str> = BTreeSet::new();
        let mut kinds: BTreeSet<&str> = BTreeSet::new();
        let others = self
            .registry
            .resources()
            .filter(|r| r.group == crd.spec.group && r.plural != names.plural);
        for r in others {
            used.extend([r.plural, r.singular]);
            used.extend(r.short_names.iter().copied());
            kinds.extend([r.kind_name, r.list_kind]);
        }
        // `equalToAcceptedOrFresh`.
        let taken = |requested: &str, accepted: &str, set: &BTreeSet<&str>| {
            (requested != accepted && set.contains(requested))
                .then(|| format!("{requested:?} is already in use"))
        };
        // The defaults of a definition's names (`SetDefaults_CustomResourceDefinitionSpec`).
        let singular = match names.singular.as_str() {
            "" => names.kind.to_lowercase(),
            s => s.to_string(),
        };
        let list_kind = match names.list_kind.as_str() {
            "" => format!("{}List", names.kind),
            k => k.to_string(),
        };
        let mut conflict = None;
        if let Some(m) = taken(&names.plural, &accepted.plural, &used) {
            conflict = Some(("PluralConflict", m));
        }
        if let Some(m) = taken(&singular, &accepted.singular, &used) {
            conflict = Some(("SingularConflict", m));
        }
        if names.short_names != accepted.short_names {
            let clashes: Vec<String> = names
                .short_names
                .iter()
                .filter(|n| !accepted.short_names.contains(n))
                .filter_map(|n| taken(n, "", &used))
                .collect();
            // utilerrors.NewAggregate's text: one error as is, several in brackets.
            match clashes.as_slice() {
                [] => {}
                [one] => conflict = Some(("ShortNamesConflict", one.clone())),
                many => conflict = Some(("ShortNamesConflict", format!("[{}]", many.join(", ")))),
            }
        }
        if let Some(m) = taken(&names.kind, &accepted.kind, &kinds) {
            conflict = Some(("KindConflict", m));
        }
        if let Some(m) = taken(&list_kind, &accepted.list_kind, &kinds) {
            conflict = Some(("ListKindConflict", m));
        }
        conflict
    }

    /// The naming and establishing controllers' work on a new or changed definition, written
    /// by the request `ctx`: the status write is [`APIEXTENSIONS_USER`]'s, under the request's
    /// options (its `fieldManager` names the status entry in `managedFields`, as it always has
    /// here; the real controllers write later, in requests of their own).
    pub(super) fn establish(
        &mut self,
        ctx: &RequestContext<'_>,
        crd: &CustomResourceDefinition,
    ) -> Result<(), Status> {
        let mut status = crd.status.clone();
        let now = self.now;
        let conflict = self.name_conflict(crd);
        status
            .conditions
            .retain(|c| c.type_ != "NamesAccepted" && c.type_ != "Established");
        match (&conflict, self.defined(crd)) {
            (None, Some(kind)) => {
                self.registry.register(kind);
                if self.cacher(kind).is_none() {
                    self.start_cacher(kind);
                }
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
                // Without a conflict (a definition without a storage version) the names are
                // not the reason; the real API server refuses such a definition outright.
                let (reason, message) = conflict
                    .clone()
                    .unwrap_or(("NoStorageVersion", String::new()));
                status
                    .conditions
                    .push(condition("NamesAccepted", false, reason, &message, now));
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
        let mut status_write = ctx.on_behalf_of(APIEXTENSIONS_USER);
        self.update_status_in(&mut status_write, Object::from(updated))
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
        self.stop_cacher(kind);
    }
}
