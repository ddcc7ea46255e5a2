//! `persistentVolumeClaimRetentionPolicy` as owner references on the claims
//! (pkg/controller/statefulset/stateful_set_utils.go `isClaimOwnerUpToDate`,
//! `updateClaimOwnerRefForSetAndPod`): the controller deletes no claim itself, it makes the
//! garbage collector do it by whom the claim is owned.
//!
//! | whenScaled | whenDeleted | a claim of a pod in range | of a pod scaled away |
//! |---|---|---|---|
//! | Retain | Retain | no owner | no owner |
//! | Retain | Delete | the set | the set |
//! | Delete | Retain | no owner | its pod |
//! | Delete | Delete | the set | its pod |
//!
//! A claim whose reference to the set or the pod names another uid (a previous set of the same
//! name) is left alone, as is one controlled by something else (a `ConflictingController`
//! warning); a retained claim keeps whatever owners a user gave it.

use crate::api::apps::StatefulSet;
use crate::api::meta::OwnerReference;
use crate::api::ObjectMeta;
use crate::controllers::replicaset::controller_ref;

use super::identity::{in_ordinal_range, ordinal_of};

/// The policy, each half `Delete` or (anything else) `Retain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub delete_when_scaled: bool,
    pub delete_when_deleted: bool,
}

/// `getPersistentVolumeClaimRetentionPolicy` (an unknown value is treated as `Retain`).
pub fn policy(set: &StatefulSet) -> Policy {
    let p = set.spec.persistent_volume_claim_retention_policy.as_ref();
    Policy {
        delete_when_scaled: p.is_some_and(|p| p.when_scaled == "Delete"),
        delete_when_deleted: p.is_some_and(|p| p.when_deleted == "Delete"),
    }
}

/// The owner reference that makes a pod its claim's controller (`NewControllerRef(pod)`).
pub fn pod_ref(pod: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: "v1".into(),
        kind: "Pod".into(),
        name: pod.name.clone(),
        uid: pod.uid.clone(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// `matchesRef`: the same group/version, kind and name (whatever the uid).
fn matches_ref(r: &OwnerReference, name: &str, api_version: &str, kind: &str) -> bool {
    r.api_version == api_version && r.kind == kind && r.name == name
}

fn matches_set(r: &OwnerReference, set: &StatefulSet) -> bool {
    matches_ref(r, &set.metadata.name, "apps/v1", "StatefulSet")
}

fn matches_pod(r: &OwnerReference, pod: &ObjectMeta) -> bool {
    matches_ref(r, &pod.name, "v1", "Pod")
}

/// `hasOwnerRef`: any reference to `uid`.
fn has_owner_ref(claim: &ObjectMeta, uid: &str) -> bool {
    claim.owner_references.iter().any(|r| r.uid == uid)
}

/// `hasStaleOwnerRef`: the first reference matching the object names another uid.
pub fn has_stale_ref(
    claim: &ObjectMeta,
    matches: impl Fn(&OwnerReference) -> bool,
    uid: &str,
) -> bool {
    claim
        .owner_references
        .iter()
        .find(|r| matches(r))
        .is_some_and(|r| r.uid != uid)
}

/// `hasStaleOwnerRef(claim, pod, podKind)`: the claim belongs to a previous pod of the name.
pub fn has_stale_pod_ref(claim: &ObjectMeta, pod: &ObjectMeta) -> bool {
    has_stale_ref(claim, |r| matches_pod(r, pod), &pod.uid)
}

/// `hasUnexpectedController`: under a deleting policy, a controller that is neither this set
/// nor this pod (or a reference to either with another uid).
pub fn has_unexpected_controller(claim: &ObjectMeta, set: &StatefulSet, pod: &ObjectMeta) -> bool {
    let p = policy(set);
    if !p.delete_when_scaled && !p.delete_when_deleted {
        return false;
    }
    claim.owner_references.iter().any(|r| {
        if matches_set(r, set) {
            return r.uid != set.metadata.uid;
        }
        if matches_pod(r, pod) {
            return r.uid != pod.uid;
        }
        r.controller == Some(true)
    })
}

/// `hasNonControllerOwner`: the set or the pod owns the claim without controlling it.
fn has_non_controller_owner(claim: &ObjectMeta, set: &StatefulSet, pod: &ObjectMeta) -> bool {
    claim
        .owner_references
        .iter()
        .any(|r| (r.uid == set.metadata.uid || r.uid == pod.uid) && r.controller != Some(true))
}

/// The owners the policy wants: (the set, the pod).
fn wanted(set: &StatefulSet, pod: &ObjectMeta) -> (bool, bool) {
    let p = policy(set);
    let scaled_down = !ordinal_of(&pod.name).is_some_and(|o| in_ordinal_range(set, o));
    match (p.delete_when_scaled, p.delete_when_deleted) {
        (false, false) => (false, false),
        (false, true) => (true, false),
        (true, false) => (false, scaled_down),
        (true, true) => (!scaled_down, scaled_down),
    }
}

/// `isClaimOwnerUpToDate`.
pub fn is_claim_owner_up_to_date(claim: &ObjectMeta, set: &StatefulSet, pod: &ObjectMeta) -> bool {
    let stale_set = has_stale_ref(claim, |r| matches_set(r, set), &set.metadata.uid);
    if stale_set || has_stale_pod_ref(claim, pod) {
        return true;
    }
    let owned_by_set = has_owner_ref(claim, &set.metadata.uid);
    let owned_by_pod = has_owner_ref(claim, &pod.uid);
    if has_unexpected_controller(claim, set, pod) {
        return !(owned_by_set || owned_by_pod);
    }
    if has_non_controller_owner(claim, set, pod) {
        return false;
    }
    let (want_set, want_pod) = wanted(set, pod);
    owned_by_set == want_set && owned_by_pod == want_pod
}

/// `updateClaimOwnerRefForSetAndPod`: the claim's references to this set and pod scrubbed,
/// then the ones the policy wants added as controller references (none if another controller
/// is there).
pub fn updated_owner_refs(
    claim: &ObjectMeta,
    set: &StatefulSet,
    pod: &ObjectMeta,
) -> Vec<OwnerReference> {
    let unexpected = has_unexpected_controller(claim, set, pod);
    let mut refs: Vec<OwnerReference> = claim
        .owner_references
        .iter()
        .filter(|r| !matches_set(r, set) && !matches_pod(r, pod))
        .cloned()
        .collect();
    if unexpected {
        return refs;
    }
    let (want_set, want_pod) = wanted(set, pod);
    let mut add = |r: OwnerReference| {
        if !refs.iter().any(|x| x.uid == r.uid) {
            refs.push(r);
        }
    };
    if want_pod {
        add(pod_ref(pod));
    }
    if want_set {
        add(controller_ref("StatefulSet", &set.metadata));
    }
    refs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::apps::ClaimRetentionPolicy;

    fn set(when_scaled: &str, when_deleted: &str) -> StatefulSet {
        let mut s = StatefulSet {
            metadata: ObjectMeta::named("default", "web"),
            ..Default::default()
        };
        s.metadata.uid = "set-uid".into();
        s.spec.replicas = Some(2);
        s.spec.persistent_volume_claim_retention_policy = Some(ClaimRetentionPolicy {
            when_scaled: when_scaled.into(),
            when_deleted: when_deleted.into(),
        });
        s
    }

    fn pod(name: &str) -> ObjectMeta {
        let mut p = ObjectMeta::named("default", name);
        p.uid = format!("{name}-uid");
        p
    }

    fn owners(refs: &[OwnerReference]) -> Vec<&str> {
        refs.iter().map(|r| r.kind.as_str()).collect()
    }

    #[test]
    fn the_table_of_owners() {
        let claim = ObjectMeta::named("default", "www-web-1");
        let cases = [
            ("Retain", "Retain", "web-1", vec![]),
            ("Retain", "Delete", "web-1", vec!["StatefulSet"]),
            ("Delete", "Retain", "web-1", vec![]),
            ("Delete", "Retain", "web-3", vec!["Pod"]),
            ("Delete", "Delete", "web-1", vec!["StatefulSet"]),
            ("Delete", "Delete", "web-3", vec!["Pod"]),
        ];
        for (scaled, deleted, p, want) in cases {
            let s = set(scaled, deleted);
            let refs = updated_owner_refs(&claim, &s, &pod(p));
            assert_eq!(owners(&refs), want, "{scaled}/{deleted} {p}");
            let mut updated = claim.clone();
            updated.owner_references = refs.into();
            assert!(is_claim_owner_up_to_date(&updated, &s, &pod(p)));
            assert_eq!(
                is_claim_owner_up_to_date(&claim, &s, &pod(p)),
                want.is_empty()
            );
        }
    }

    #[test]
    fn a_previous_pods_claim_is_stale_and_left_alone() {
        let s = set("Delete", "Retain");
        let mut claim = ObjectMeta::named("default", "www-web-3");
        claim.owner_references = vec![pod_ref(&pod("web-3"))].into();
        let mut new_pod = pod("web-3");
        new_pod.uid.clear();
        assert!(has_stale_pod_ref(&claim, &new_pod));
        assert!(is_claim_owner_up_to_date(&claim, &s, &new_pod));
    }
}
