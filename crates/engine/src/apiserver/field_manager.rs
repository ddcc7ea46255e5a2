//! The field manager (`k8s.io/apiserver`'s `managedfields.FieldManager` over
//! structured-merge-diff's `merge.Updater`): it keeps `metadata.managedFields` on every write
//! and performs server-side apply.
//!
//! - An **update** (create, PUT, any non-apply PATCH, a controller's write) compares the stored
//!   object with the new one: the writer's `Update` entry gains what it added or changed and
//!   loses what it removed; every other manager loses those fields (an update never
//!   conflicts). The manager is the request's `fieldManager`, else the user agent's product
//!   (`kubectl/v1.32.0 (linux/amd64)…` → `kubectl`), as `managerOrUserAgent` derives it.
//! - An **apply** (`application/apply-patch+yaml`) merges the configuration into the object by
//!   the kind's list types; the applier's `Apply` entry becomes exactly the configuration's
//!   fields; fields it applied before and omits now are removed unless another manager owns
//!   them; changing a value another manager owns is a conflict (409) unless `force`, which takes
//!   the field over.
//!
//! Never tracked (`NewStripMetaManager`): `apiVersion`, `kind`, and metadata's `name`,
//! `namespace`, `uid`, `creationTimestamp`, `selfLink`, `generation`, `resourceVersion`,
//! `managedFields`.

use crate::api::field_set::{self, FieldSet, PathElement};
use crate::api::managed_fields::{
    entry, sorted, strip_set, stripped, FieldsV1, KindTypes, ManagedFields, ManagedFieldsEntry,
    Subresource, APPLY, MAX_PENDING, UPDATE,
};
use crate::api::{Kind, Object};
use crate::clock::Timestamp;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::status::{Status, StatusCause, StatusDetails, StatusReason};

/// `validation.FieldManagerMaxLength`.
const FIELD_MANAGER_MAX_LENGTH: usize = 128;

/// The manager a request's user agent names when it gives no `fieldManager`
/// (`prefixFromUserAgent`: up to the first `/`, printable characters, at most 128 bytes). The
/// engine's controllers write under their own names; the real ones run inside
/// kube-controller-manager and carry its user agent, so that is their manager.
pub fn manager_of(user_agent: &str) -> Cow<'_, str> {
    let product = user_agent.split('/').next().unwrap_or_default();
    if product.ends_with("-controller") || product == "generic-garbage-collector" {
        return Cow::Borrowed("kube-controller-manager");
    }
    // Nearly always the product as it stands (one allocation fewer per write).
    if product.len() <= FIELD_MANAGER_MAX_LENGTH && !product.chars().any(char::is_control) {
        return Cow::Borrowed(product);
    }
    let mut out = String::new();
    for c in product.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > FIELD_MANAGER_MAX_LENGTH {
            break;
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Who a write is recorded for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Owner<'a> {
    /// An update by this manager.
    Update(&'a Arc<str>),
    /// An apply that already computed the object's `managedFields`.
    Applied,
}

/// Records an update of `live` (absent for a create) into `new` by `manager`, to be resolved
/// when first read ([`ManagedFields::pending`]). The base is the `managedFields` the request
/// sent when it sent some (they may be edited directly), the stored ones otherwise (always for
/// a subresource). Returns whether the write changes anything but `managedFields` (else it is
/// a no-op and `new` carries the base).
pub(super) fn track_update(
    live: Option<&Arc<Object>>,
    new: &mut Object,
    manager: &Arc<str>,
    subresource: Subresource,
    now: Timestamp,
) {
    let sent = std::mem::take(&mut new.meta_mut().managed_fields);
    // Entries sent back as read (a GET, edit, PUT round trip) are no edit of them.
    let echoed = live.is_some_and(|l| !sent.is_empty() && sent.entries() == l.managed_fields());
    let base = if sent.is_empty() || echoed || subresource != Subresource::None {
        live.map(|l| l.meta().managed_fields.clone())
            .unwrap_or_default()
    } else {
        sent
    };
    if let Some(live) = live {
        // A chain of unread updates is resolved now and then, so it keeps few versions alive.
        if base.pending_depth() >= MAX_PENDING {
            live.managed_fields();
        }
        // Nothing but `managedFields` changed: nothing to record.
        new.meta_mut().managed_fields = live.meta().managed_fields.clone();
        if *new == **live {
            new.meta_mut().managed_fields = base;
            return;
        }
    }
    new.meta_mut().managed_fields =
        ManagedFields::pending(base, live.cloned(), manager.clone(), subresource, now);
}

/// One server-side apply request.
pub(super) struct Apply<'a> {
    pub kind: Kind,
    pub manager: &'a str,
    pub force: bool,
    /// `status` for `…/status`, empty for the object.
    pub subresource: &'a str,
    pub now: Timestamp,
}

impl Apply<'_> {
    /// Merges `config` into `live` (the stored object's JSON, or a bare new object) and computes
    /// the managers after it: the JSON to write, its `managedFields` set in it. A conflict is
    /// the real 409.
    pub fn run(&self, live: &Value, config: &Value) -> Result<Value, Status> {
        let types = KindTypes(self.kind);
        let r = self.kind.resource();
        if let Some(msg) = field_set::missing_key(config, &types) {
            return Err(Status::internal_error(&format!(
                "failed to create typed patch object ({}, Kind={}): {msg}",
                gvk_group_version(r.api_version),
                r.kind_name
            )));
        }
        let mut set = field_set::to_field_set(config, &types);
        strip_set(&mut set);
        // The status subresource's fields and the object's are reset by the strategy on the
        // other's writes (`ResetFieldsStrategy`): an apply owns only its own part.
        let status = [PathElement::Field("status".to_string())];
        if self.subresource == "status" {
            set = set.only_subtree(&status);
        } else if r.has_subresource("status") {
            set.remove_subtree(&status);
        }
        let managers: Vec<ManagedFieldsEntry> = serde_json::from_value(
            live.pointer("/metadata/managedFields")
                .cloned()
                .unwrap_or(Value::Null),
        )
        .unwrap_or_default();
        let me = entry(
            self.manager,
            APPLY,
            r.api_version,
            self.subresource,
            FieldSet::new(),
            self.now,
        );
        let last = managers
            .iter()
            .find(|e| e.same_manager(&me))
            .map(|e| e.set().clone())
            .unwrap_or_default();
        let mut merged = live.clone();
        field_set::merge(&mut merged, config, &types);
        // Prune: what the applier set before and sets no more, unless someone else owns it.
        let mut owned = set.clone();
        for e in managers.iter().filter(|e| !e.same_manager(&me)) {
            owned.union_with(e.set());
        }
        let unowned = last.unowned_by(&owned);
        field_set::remove_items(&mut merged, &unowned, &types);
        let cmp = field_set::compare(live, &merged, &types, &stripped);
        let changed = cmp.changed();
        let mut conflicts: Vec<(&ManagedFieldsEntry, FieldSet)> = Vec::new();
        for e in managers.iter().filter(|e| !e.same_manager(&me)) {
            let c = e.set().intersection(&changed);
            if !c.is_empty() {
                conflicts.push((e, c));
            }
        }
        if !conflicts.is_empty() && !self.force {
            return Err(conflict_status(&conflicts));
        }
        let mut entries = Vec::with_capacity(managers.len() + 1);
        let mut previous_time = None;
        for e in &managers {
            if e.same_manager(&me) {
                previous_time = e.time;
                continue;
            }
            let rest = e.set().difference(&changed).difference(&cmp.removed);
            let mut e = e.clone();
            if rest != *e.set() {
                e.fields_v1 = Some(FieldsV1(Arc::new(rest)));
            }
            entries.push(e);
        }
        let mut mine = entry(
            self.manager,
            APPLY,
            r.api_version,
            self.subresource,
            set,
            self.now,
        );
        if cmp.is_same() {
            // Nothing changed: the applier's time stays (`managedFieldsUpdater.Apply`).
            mine.time = previous_time.or(Some(self.now));
        }
        entries.push(mine);
        let managed = serde_json::to_value(sorted(entries)).unwrap_or(Value::Null);
        if let Some(meta) = merged.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("managedFields".to_string(), managed);
        }
        Ok(merged)
    }
}

/// `apps/v1` → `apps/v1`; `v1` → `/v1` (a GroupVersionKind's printing with an empty group).
fn gvk_group_version(api_version: &str) -> String {
    if api_version.contains('/') {
        api_version.to_string()
    } else {
        format!("/{api_version}")
    }
}

/// `printManager`: `"kubectl"`, `"kubelet" with subresource "status"`, and for updates
/// `… using v1`.
fn print_manager(e: &ManagedFieldsEntry) -> String {
    let mut out = format!("{:?}", e.manager);
    if !e.subresource.is_empty() {
        out = format!("{out} with subresource {:?}", e.subresource);
    }
    if e.operation == UPDATE {
        out = format!("{out} using {}", e.api_version);
    }
    out
}

/// The 409 of a refused apply (`NewConflictError`): one cause per conflicting field.
fn conflict_status(conflicts: &[(&ManagedFieldsEntry, FieldSet)]) -> Status {
    let mut causes = Vec::new();
    let mut by_manager: Vec<(String, Vec<String>)> = Vec::new();
    for (e, set) in conflicts {
        let who = print_manager(e);
        let paths: Vec<String> = set
            .paths()
            .iter()
            .map(|p| field_set::path_string(p))
            .collect();
        for p in &paths {
            causes.push(StatusCause {
                reason: "FieldManagerConflict".to_string(),
                message: format!("conflict with {who}"),
                field: p.clone(),
            });
        }
        by_manager.push((who, paths));
    }
    let message = if let ([cause], [(who, _)]) = (causes.as_slice(), by_manager.as_slice()) {
        format!(
            "Apply failed with 1 conflict: conflict with {who}: {}",
            cause.field
        )
    } else {
        // Sorted by the manager's identifier, which is its JSON, so by name first.
        sort::sort_by(&mut by_manager, |a, b| a.0.cmp(&b.0));
        let mut lines = Vec::new();
        for (who, paths) in &by_manager {
            lines.push(format!("conflicts with {who}:"));
            lines.extend(paths.iter().map(|p| format!("- {p}")));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            causes.len(),
            lines.join("\n")
        )
    };
    Status::failure(
        409,
        StatusReason::Conflict,
        message,
        Some(StatusDetails {
            causes,
            ..Default::default()
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manager_is_the_user_agents_product() {
        // Control characters are left out.
        for (agent, manager) in [
            (
                "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9",
                "kubectl",
            ),
            ("replicaset-controller", "kube-controller-manager"),
            ("kubelet/node-a", "kubelet"),
            ("ku\u{7}be/1", "kube"),
        ] {
            assert_eq!(manager_of(agent), manager, "{agent}");
        }
        // The name ends at 128 bytes.
        assert_eq!(manager_of(&"m".repeat(200)).len(), FIELD_MANAGER_MAX_LENGTH);
    }
}
