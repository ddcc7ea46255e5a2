//! A workload's history in ControllerRevisions, the generic part (kube-controller-manager's
//! `pkg/controller/history/controller_history.go`): a revision is an immutable snapshot of
//! the parent's template (`data`, a patch that puts it back) at a `revision` number, named
//! `<parent>-<hash>` after an FNV hash of its data and the parent's collision count, labelled
//! `controller.kubernetes.io/hash`, and controlled by its parent. Two revisions are equal when
//! their data is (`EqualRevision`); a name taken by another snapshot is a collision, which bumps
//! the count so the next hash differs (`CreateControllerRevision`). A rollback moves an old
//! revision to the next number instead of writing a new one (`UpdateControllerRevision`).
//!
//! The StatefulSet controller keeps its history with these; any controller whose revisions
//! follow `pkg/controller/history` can (the DaemonSet controller has its own hash, as
//! upstream's `daemon/update.go` does).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::apps::ControllerRevision;
use crate::api::meta::OwnerReference;
use crate::api::shared::StringMap;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::client::store::NAMESPACE_INDEX;
use crate::client::Store;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::status::{Status, StatusReason};

/// `history.ControllerRevisionHashLabel`.
pub const HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// How many names `create` tries before giving up for this sync (upstream loops until a name is
/// free; a bound keeps a broken store from spinning the tab).
const MAX_COLLISIONS_PER_CREATE: usize = 16;

/// `rand.SafeEncodeString`'s alphabet (no vowels, no look-alikes).
const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `ControllerRevisionName`: `<prefix>-<hash>`, the prefix cut to 223 bytes so the name stays
/// within 253.
pub fn revision_name(prefix: &str, hash: &str) -> String {
    let mut end = prefix.len().min(223);
    while !prefix.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}-{hash}", &prefix[..end])
}

/// FNV-1 (32 bits), Go's `fnv.New32`.
fn fnv1_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
        h.wrapping_mul(0x0100_0193) ^ u32::from(*b)
    })
}

/// `HashControllerRevision`: FNV-1 over the data's JSON and the collision count's decimal
/// digits when given, the sum's decimal digits rendered by `SafeEncodeString`.
pub fn hash_revision(data: Option<&Value>, probe: Option<i32>) -> String {
    let mut bytes = data
        .map(|d| serde_json::to_vec(d).unwrap_or_default())
        .unwrap_or_default();
    if let Some(n) = probe {
        bytes.extend_from_slice(n.to_string().as_bytes());
    }
    fnv1_32(&bytes)
        .to_string()
        .bytes()
        .map(|c| SAFE_ALPHABET[usize::from(c) % SAFE_ALPHABET.len()] as char)
        .collect()
}

/// `NewControllerRevision`: a revision of the parent `owner` names, in `namespace`, with the
/// template's labels plus the hash label, controlled by the parent.
pub fn new_revision(
    namespace: &str,
    owner: OwnerReference,
    template_labels: &StringMap,
    data: Value,
    revision: i64,
    collision_count: Option<i32>,
) -> ControllerRevision {
    let hash = hash_revision(Some(&data), collision_count);
    let mut meta = ObjectMeta::named(namespace, &revision_name(&owner.name, &hash));
    meta.labels = template_labels.clone();
    meta.labels.insert(HASH_LABEL.into(), hash);
    meta.owner_references = vec![owner].into();
    ControllerRevision {
        metadata: meta,
        data: Some(data),
        revision,
    }
}

/// The hash label read as Go's `strconv.ParseInt(hs, 10, 32)` would (most safe-encoded hashes
/// are not numbers, and are then not compared).
fn numeric_hash(rev: &ControllerRevision) -> Option<i32> {
    rev.metadata.labels.get(HASH_LABEL)?.parse().ok()
}

/// `EqualRevision`: the same data (and, when both hash labels are numbers, the same hash).
pub fn equal_revision(a: &ControllerRevision, b: &ControllerRevision) -> bool {
    if let (Some(x), Some(y)) = (numeric_hash(a), numeric_hash(b)) {
        if x != y {
            return false;
        }
    }
    a.data == b.data
}

/// `FindEqualRevisions`: the revisions equal to `needle`, in the order given.
pub fn find_equal_revisions<'a>(
    revisions: &[&'a ControllerRevision],
    needle: &ControllerRevision,
) -> Vec<&'a ControllerRevision> {
    revisions
        .iter()
        .copied()
        .filter(|r| equal_revision(r, needle))
        .collect()
}

/// `SortControllerRevisions`: by revision number, then creation time, then name.
pub fn sort_revisions(revisions: &mut [&ControllerRevision]) {
    sort::sort_by(revisions, |a, b| {
        let key = |r: &ControllerRevision| {
            (
                r.revision,
                r.metadata.creation_timestamp,
                r.metadata.name.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
}

/// `ListControllerRevisions`: the revisions of `parent`'s namespace that `selector` matches
/// and that the parent controls or nobody does (orphans, for adoption).
pub fn list_revisions(
    store: &Store<Arc<Object>>,
    parent: &ObjectMeta,
    selector: &LabelSelector,
) -> Vec<Arc<Object>> {
    let mut all = store
        .by_index(NAMESPACE_INDEX, &parent.namespace)
        .unwrap_or_default();
    all.retain(|o| {
        o.as_controller_revision().is_some()
            && selector.matches(&o.meta().labels)
            && o.meta()
                .controller_ref()
                .is_none_or(|r| r.uid == parent.uid)
    });
    all
}

/// `CreateControllerRevision`: creates `revision` under the name its hash and
/// `collision_count` give; a name already taken by the same data answers that revision, one
/// taken by other data bumps the count and tries the next name.
pub fn create_revision(
    api: &mut ApiServer,
    user: &str,
    parent_name: &str,
    revision: &ControllerRevision,
    collision_count: &mut i32,
) -> Result<Arc<Object>, Status> {
    let ns = revision.metadata.namespace.clone();
    for _ in 0..MAX_COLLISIONS_PER_CREATE {
        let hash = hash_revision(revision.data.as_ref(), Some(*collision_count));
        let mut clone = revision.clone();
        clone.metadata.name = revision_name(parent_name, &hash);
        let name = clone.metadata.name.clone();
        match api.create(user, Object::from(clone)) {
            Err(s) if s.reason() == StatusReason::AlreadyExists => {
                let exists = api.get(Kind::ControllerRevision, Some(&ns), &name)?;
                let same = exists
                    .as_controller_revision()
                    .is_some_and(|e| e.data == revision.data);
                if same {
                    return Ok(exists);
                }
                *collision_count = collision_count.saturating_add(1);
            }
            other => return other,
        }
    }
    Err(Status::conflict(
        &Kind::ControllerRevision.resource().group_resource(),
        &revision.metadata.name,
        "too many hash collisions",
    ))
}

/// `UpdateControllerRevision`: the same snapshot moved to number `revision` (a rollback).
pub fn update_revision(
    api: &mut ApiServer,
    user: &str,
    current: &ControllerRevision,
    revision: i64,
) -> Result<Arc<Object>, Status> {
    if current.revision == revision {
        let ns = Some(current.metadata.namespace.as_str());
        return api.get(Kind::ControllerRevision, ns, &current.metadata.name);
    }
    let mut moved = current.clone();
    moved.revision = revision;
    api.update(user, Object::from(moved))
}

/// `DeleteControllerRevision` (one already gone is no failure).
pub fn delete_revision(
    api: &mut ApiServer,
    user: &str,
    revision: &ControllerRevision,
) -> Result<(), Status> {
    let ns = Some(revision.metadata.namespace.as_str());
    let name = &revision.metadata.name;
    match api.delete(
        user,
        Kind::ControllerRevision,
        ns,
        name,
        &Default::default(),
    ) {
        Err(s) if s.reason() != StatusReason::NotFound => Err(s),
        _ => Ok(()),
    }
}

/// `AdoptControllerRevision`: makes `owner` the orphan's controller (a patch naming the
/// revision's uid, so a revision replaced meanwhile is not adopted).
pub fn adopt_revision(
    api: &mut ApiServer,
    user: &str,
    owner: OwnerReference,
    revision: &ControllerRevision,
) -> Result<Arc<Object>, Status> {
    let mut refs: Vec<OwnerReference> = revision.metadata.owner_references.to_vec();
    refs.push(owner);
    let patch = json!({"metadata": {"ownerReferences": refs, "uid": revision.metadata.uid}});
    let ns = Some(revision.metadata.namespace.as_str());
    let name = &revision.metadata.name;
    api.merge_patch(user, Kind::ControllerRevision, ns, name, &patch, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(name: &str, revision: i64, data: Value) -> ControllerRevision {
        ControllerRevision {
            metadata: ObjectMeta::named("default", name),
            data: Some(data),
            revision,
        }
    }

    #[test]
    fn go_fnv1_32_test_vectors() {
        // Go's hash/fnv New32: "" is the offset basis, "a" is 0x050c5d7e.
        assert_eq!(fnv1_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1_32(b"a"), 0x050c_5d7e);
    }

    #[test]
    fn names_hash_and_collisions() {
        let owner = OwnerReference {
            name: "web".into(),
            uid: "u1".into(),
            controller: Some(true),
            ..Default::default()
        };
        let labels = StringMap::from([("app".to_string(), "web".to_string())]);
        let r = new_revision("default", owner, &labels, json!({"a": 1}), 1, None);
        let hash = r
            .metadata
            .labels
            .get(HASH_LABEL)
            .cloned()
            .unwrap_or_default();
        assert_eq!(r.metadata.name, format!("web-{hash}"));
        assert!(hash.bytes().all(|c| SAFE_ALPHABET.contains(&c)));
        assert_ne!(
            hash_revision(r.data.as_ref(), None),
            hash_revision(r.data.as_ref(), Some(1)),
            "a collision count moves the hash"
        );
        assert_eq!(revision_name(&"x".repeat(300), "h").len(), 225);
    }

    #[test]
    fn equal_find_and_sort() {
        let a = rev("a", 2, json!({"t": 1}));
        let b = rev("b", 1, json!({"t": 2}));
        let c = rev("c", 3, json!({"t": 1}));
        let mut all = vec![&a, &b, &c];
        sort_revisions(&mut all);
        let names: Vec<&str> = all.iter().map(|r| r.metadata.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "c"]);
        let found = find_equal_revisions(&all, &rev("x", 9, json!({"t": 1})));
        assert_eq!(found.len(), 2);
        assert!(!equal_revision(&a, &b));
    }
}
