//! `metadata.managedFields` (`metav1.ManagedFieldsEntry`): which manager set which fields of an
//! object, and how (`Apply` for server-side apply, `Update` for every other write). The API
//! server keeps it on every write (`watchlab_engine::apiserver`'s field manager); objects share the
//! list and each entry's field set behind `Arc`s, so copying an object (every informer cache
//! and controller does) costs a reference count, not the sets. An update's effect on the
//! entries (`merge.Updater.Update`) is here too, as resolving a lazy update needs it.

use super::field_set::{self, FieldSet, ListTypes, PathElement};
use super::time;
use super::{Kind, Object};
use crate::clock::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use watchlab_apimachinery::sort;

/// `ManagedFieldsOperationApply`.
pub const APPLY: &str = "Apply";
/// `ManagedFieldsOperationUpdate`.
pub const UPDATE: &str = "Update";
/// The only `fieldsType` there is.
pub const FIELDS_V1: &str = "FieldsV1";

/// One manager's fields (`metav1.ManagedFieldsEntry`, fields in Go's order).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub manager: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub operation: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub fields_type: String,
    #[serde(default, rename = "fieldsV1", skip_serializing_if = "Option::is_none")]
    pub fields_v1: Option<FieldsV1>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subresource: String,
}

impl ManagedFieldsEntry {
    /// The entry's field set (empty when it has none or it is not a valid `FieldsV1`).
    pub fn set(&self) -> &FieldSet {
        static EMPTY: FieldSet = FieldSet::EMPTY;
        self.fields_v1.as_ref().map_or(&EMPTY, |f| &f.0)
    }

    /// Whether `self` and `other` are the same manager (`BuildManagerIdentifier`: name,
    /// operation, subresource, and for `Update` the apiVersion).
    pub fn same_manager(&self, other: &ManagedFieldsEntry) -> bool {
        self.manager == other.manager
            && self.operation == other.operation
            && self.subresource == other.subresource
            && (self.operation == APPLY || self.api_version == other.api_version)
    }
}

/// A `fieldsV1` set, shared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldsV1(pub Arc<FieldSet>);

impl Serialize for FieldsV1 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for FieldsV1 {
    /// Any JSON object decodes (the real type is raw JSON); one that is not a field set reads
    /// as the empty set.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Ok(FieldsV1(Arc::new(
            FieldSet::from_fields_v1(&v).unwrap_or_default(),
        )))
    }
}

/// `metadata.managedFields`: the entries, shared between versions of an object.
///
/// An update's entries are computed lazily: a write records only what it needs to work them
/// out later ([`Pending`]: the previous version and the writer), and the comparison runs the
/// first time anything reads them — a client serializing the object, an apply — then is kept.
/// The controllers' status writes of a large cluster are never read this way, so they cost
/// nothing; a chain of unread writes is resolved every [`MAX_PENDING`] versions so it never
/// holds more than that many old versions alive.
#[derive(Debug, Clone, Default)]
pub struct ManagedFields(Repr);

#[derive(Debug, Clone, Default)]
enum Repr {
    #[default]
    None,
    Entries(Arc<Vec<ManagedFieldsEntry>>),
    Pending(Arc<Pending>),
}

/// The subresource an update was written through (`managedFields[].subresource`): a byte in
/// every version's pending update, where the name took a pointer and a length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subresource {
    None,
    Status,
    Scale,
    Finalize,
    /// `pods/ephemeralcontainers` (`kubectl debug POD`).
    EphemeralContainers,
}

impl Subresource {
    /// The name an entry records (empty for the object itself).
    pub fn as_str(self) -> &'static str {
        match self {
            Subresource::None => "",
            Subresource::Status => "status",
            Subresource::Scale => "scale",
            Subresource::Finalize => "finalize",
            Subresource::EphemeralContainers => "ephemeralcontainers",
        }
    }
}

/// Unresolved pending updates an object may carry before its write resolves them.
pub const MAX_PENDING: u8 = 8;

/// An update whose entries are not computed yet.
#[derive(Debug)]
struct Pending {
    /// The entries before the write (the previous version's, or those the request sent).
    base: ManagedFields,
    /// The version the write replaced (`None`: a create, or once resolved — so resolved
    /// updates do not keep every older version alive).
    prev: Mutex<Option<Arc<Object>>>,
    /// Shared with the writer's other updates ([`ManagedFields::pending`]'s caller keeps one).
    manager: Arc<str>,
    subresource: Subresource,
    time: Timestamp,
    /// Pending updates in this chain, this one included.
    depth: u8,
    /// The stored version the write made ([`ManagedFields::mark_stored`]). Copies of it share
    /// this update; one modified and read before the stored version must not resolve it from
    /// its own fields, so it resolves the stored version instead.
    stored: OnceLock<Weak<Object>>,
    resolved: OnceLock<Arc<Vec<ManagedFieldsEntry>>>,
}

impl PartialEq for ManagedFields {
    fn eq(&self, other: &Self) -> bool {
        let unresolved = |m: &ManagedFields| match &m.0 {
            Repr::Pending(p) => p.resolved.get().is_none(),
            _ => false,
        };
        match (&self.0, &other.0) {
            (Repr::Pending(a), Repr::Pending(b)) if Arc::ptr_eq(a, b) => true,
            // Unknown until resolved: only the same pending update is known equal.
            _ if unresolved(self) || unresolved(other) => false,
            _ => self.entries() == other.entries(),
        }
    }
}

impl Eq for ManagedFields {}

impl ManagedFields {
    pub fn new(entries: Vec<ManagedFieldsEntry>) -> Self {
        if entries.is_empty() {
            ManagedFields(Repr::None)
        } else {
            ManagedFields(Repr::Entries(Arc::new(entries)))
        }
    }

    /// The entries as far as they are known: a pending update's only once resolved (read them
    /// through [`Object::managed_fields`], which resolves).
    pub fn entries(&self) -> &[ManagedFieldsEntry] {
        match &self.0 {
            Repr::None => &[],
            Repr::Entries(e) => e,
            Repr::Pending(p) => p.resolved.get().map_or(&[], |e| e.as_slice()),
        }
    }

    /// Whether there is nothing to write out (a pending update not yet resolved counts as
    /// nothing: the object's serialization resolves it first).
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// An update of `prev` (absent: a create) by `manager`, computed when first read. `base`
    /// is the entries before it.
    pub fn pending(
        base: ManagedFields,
        prev: Option<Arc<Object>>,
        manager: Arc<str>,
        subresource: Subresource,
        time: Timestamp,
    ) -> Self {
        let base = base.settled();
        let depth = match &base.0 {
            Repr::Pending(p) => p.depth + 1,
            _ => 1,
        };
        ManagedFields(Repr::Pending(Arc::new(Pending {
            base,
            prev: Mutex::new(prev),
            manager,
            subresource,
            time,
            depth,
            stored: OnceLock::new(),
            resolved: OnceLock::new(),
        })))
    }

    /// Marks `stored` (the version the store now holds) as the object a pending update
    /// belongs to, so it is resolved from that version's fields whichever copy is read first.
    pub fn mark_stored(stored: &Arc<Object>) {
        if let Repr::Pending(p) = &stored.meta().managed_fields.0 {
            let _ = p.stored.set(Arc::downgrade(stored));
        }
    }

    /// Unresolved updates this value would chain onto.
    pub fn pending_depth(&self) -> u8 {
        match &self.0 {
            Repr::Pending(p) if p.resolved.get().is_none() => p.depth,
            _ => 0,
        }
    }

    /// The same entries, let go of the versions a resolved update kept.
    fn settled(self) -> Self {
        match &self.0 {
            Repr::Pending(p) => match p.resolved.get() {
                Some(e) => ManagedFields(Repr::Entries(e.clone())),
                None => self,
            },
            _ => self,
        }
    }

    /// Resolves a pending update of `owner` (the object carrying `self`).
    fn resolve(&self, owner: &Object) {
        let _ = self.resolve_to_json(owner);
    }

    /// [`ManagedFields::resolve`], returning `owner`'s JSON when resolving built it: the update
    /// after it in a chain compares against that same JSON, so each version of a chain is
    /// converted once, not twice.
    fn resolve_to_json(&self, owner: &Object) -> Option<Value> {
        let Repr::Pending(p) = &self.0 else {
            return None;
        };
        if p.resolved.get().is_some() {
            return None;
        }
        // A copy (a writer's clone, perhaps modified since): the stored version decides.
        if let Some(stored) = p.stored.get().and_then(Weak::upgrade) {
            if !std::ptr::eq(Arc::as_ptr(&stored), owner) {
                stored.meta().managed_fields.resolve(&stored);
                return None;
            }
        }
        let prev = p.prev.lock().ok().and_then(|mut g| g.take());
        let kind = owner.kind();
        let typed = prev
            .as_ref()
            .and_then(|prev| Some((prev, kind.resource().rules.set_fields(owner, prev)?)));
        if let Some((prev, set)) = typed {
            p.resolved.get_or_init(|| {
                // The base is the previous version's entries: resolved first.
                prev.meta().managed_fields.resolve(prev);
                let entries = if set.is_empty() {
                    p.base.entries().to_vec()
                } else {
                    entries_after_update(
                        p.base.entries(),
                        set,
                        &FieldSet::new(),
                        kind,
                        &p.manager,
                        p.subresource.as_str(),
                        p.time,
                    )
                };
                Arc::new(entries)
            });
            return None;
        }
        let mut owner_json = None;
        p.resolved.get_or_init(|| {
            // The comparison leaves `managedFields` out, so the previous version's JSON from
            // before or after its own resolution is the same to it.
            let old_json = match &prev {
                Some(prev) => prev
                    .meta()
                    .managed_fields
                    .resolve_to_json(prev)
                    .unwrap_or_else(|| prev.untracked_json()),
                None => Value::Object(Map::new()),
            };
            let new_json = owner.untracked_json();
            let entries = updated_entries(
                p.base.entries(),
                &old_json,
                &new_json,
                owner.kind(),
                &p.manager,
                p.subresource.as_str(),
                p.time,
            );
            owner_json = Some(new_json);
            Arc::new(entries)
        });
        owner_json
    }
}

impl Object {
    /// `metadata.managedFields`, resolved.
    pub fn managed_fields(&self) -> &[ManagedFieldsEntry] {
        let m = &self.meta().managed_fields;
        m.resolve(self);
        m.entries()
    }

    /// The object's JSON without its unresolved `managedFields` (what the field manager
    /// compares; it ignores resolved ones).
    fn untracked_json(&self) -> Value {
        serde_json::to_value(self.untracked()).unwrap_or(Value::Null)
    }
}

impl Serialize for ManagedFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.entries().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ManagedFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let entries: Option<Vec<ManagedFieldsEntry>> = Option::deserialize(d)?;
        Ok(ManagedFields::new(entries.unwrap_or_default()))
    }
}

/// Fields the field manager never tracks (`NewStripMetaManager`): `apiVersion`, `kind` and
/// these of `metadata`.
const STRIPPED_META: [&str; 9] = [
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
];

/// Whether `path` is one the field manager never tracks.
pub fn stripped(path: &[PathElement]) -> bool {
    match path {
        [PathElement::Field(top)] => top == "apiVersion" || top == "kind",
        [PathElement::Field(top), PathElement::Field(field)] => {
            top == "metadata" && STRIPPED_META.contains(&field.as_str())
        }
        _ => false,
    }
}

/// Drops the untracked paths from `set`; `metadata` itself is never a member either.
pub fn strip_set(set: &mut FieldSet) {
    set.remove_fields(&[], &["apiVersion", "kind"]);
    set.remove_fields(&["metadata"], &STRIPPED_META);
    // Prunes what the removals emptied.
    set.unmark(&[PathElement::Field("metadata".to_string())]);
}

/// A kind's list and map types, from its registry entry: lists with a strategic merge key are
/// associative lists keyed by it, every other list is atomic; the maps it lists in
/// [`ResourceInfo::atomic_maps`](super::ResourceInfo::atomic_maps) (its `LabelSelector`s,
/// `+structType=atomic`) are atomic.
pub struct KindTypes(pub Kind);

impl ListTypes for KindTypes {
    fn list_keys(&self, path: &[&str]) -> Option<Vec<&'static str>> {
        self.0.resource().rules.merge_key(path).map(|k| vec![k])
    }

    fn atomic_map(&self, path: &[PathElement]) -> bool {
        self.0
            .resource()
            .atomic_maps
            .iter()
            .any(|atomic| field_set::field_names(path).eq(atomic.iter().copied()))
    }
}

/// A fresh entry.
pub fn entry(
    manager: &str,
    operation: &str,
    api_version: &str,
    subresource: &str,
    set: FieldSet,
    time: Timestamp,
) -> ManagedFieldsEntry {
    ManagedFieldsEntry {
        manager: manager.to_string(),
        operation: operation.to_string(),
        api_version: api_version.to_string(),
        time: Some(time),
        fields_type: FIELDS_V1.to_string(),
        fields_v1: Some(FieldsV1(Arc::new(set))),
        subresource: subresource.to_string(),
    }
}

/// Entries in the real order (`sortEncodedManagedFields`): by operation (`Apply` first), then
/// time, manager, apiVersion, subresource; empty ones dropped.
pub fn sorted(mut entries: Vec<ManagedFieldsEntry>) -> Vec<ManagedFieldsEntry> {
    entries.retain(|e| !e.set().is_empty());
    sort::sort_by(&mut entries, |a, b| {
        (
            &a.operation,
            a.time,
            &a.manager,
            &a.api_version,
            &a.subresource,
        )
            .cmp(&(
                &b.operation,
                b.time,
                &b.manager,
                &b.api_version,
                &b.subresource,
            ))
    });
    entries
}

/// The entries after an update from `old_json` to `new_json` by `manager`
/// (`managedFieldsUpdater.Update` over `merge.Updater.Update`): the writer's `Update` entry
/// gains what it added or changed and loses what was removed; every other entry loses all of
/// that. Entries the write does not touch keep sharing their sets.
pub fn updated_entries(
    base: &[ManagedFieldsEntry],
    old_json: &Value,
    new_json: &Value,
    kind: Kind,
    manager: &str,
    subresource: &str,
    time: Timestamp,
) -> Vec<ManagedFieldsEntry> {
    let cmp = field_set::compare(old_json, new_json, &KindTypes(kind), &stripped);
    if cmp.is_same() {
        return base.to_vec();
    }
    let mut changed = cmp.changed();
    strip_set(&mut changed);
    entries_after_update(
        base,
        changed,
        &cmp.removed,
        kind,
        manager,
        subresource,
        time,
    )
}

/// [`updated_entries`] once the comparison is known: the fields the update set (`changed`) and
/// those it removed.
fn entries_after_update(
    base: &[ManagedFieldsEntry],
    changed: FieldSet,
    removed: &FieldSet,
    kind: Kind,
    manager: &str,
    subresource: &str,
    time: Timestamp,
) -> Vec<ManagedFieldsEntry> {
    let api_version = kind.resource().api_version;
    let me = entry(
        manager,
        UPDATE,
        api_version,
        subresource,
        FieldSet::new(),
        time,
    );
    let mut entries = Vec::with_capacity(base.len() + 1);
    let mut previous: Option<&FieldsV1> = None;
    for e in base {
        if e.same_manager(&me) {
            previous = e.fields_v1.as_ref();
            continue;
        }
        let mut e = e.clone();
        if e.set().intersects(&changed) || e.set().intersects(removed) {
            let rest = e.set().difference(&changed).difference(removed);
            e.fields_v1 = Some(FieldsV1(Arc::new(rest)));
        }
        entries.push(e);
    }
    let mine = match previous {
        Some(p) if !p.0.intersects(removed) && p.0.contains_all(&changed) => p.clone(),
        Some(p) => {
            let mut set = p.0.difference(removed);
            set.union_with(&changed);
            FieldsV1(Arc::new(set))
        }
        None => FieldsV1(Arc::new(changed)),
    };
    entries.push(ManagedFieldsEntry {
        fields_v1: Some(mine),
        ..me
    });
    sorted(entries)
}
