//! A StatefulSet pod's identity (pkg/controller/statefulset/stateful_set_utils.go): the name
//! `<set>-<ordinal>` the pod keeps for life, the host name and subdomain that give it a DNS name
//! under the set's headless Service, the labels `statefulset.kubernetes.io/pod-name`,
//! `apps.kubernetes.io/pod-index` and `controller-revision-hash`, and one claim per volume
//! claim template named `<template>-<set>-<ordinal>`, which the pod's volume of the template's
//! name refers to. A pod whose name parses as `<parent>-<digits>` belongs to the set named
//! `<parent>` (`isMemberOf`), whatever its labels say.

use std::sync::Arc;

use crate::api::apps::{PodTemplateSpec, StatefulSet};
use crate::api::meta::OwnerReferences;
use crate::api::pod::{PersistentVolumeClaimVolumeSource, Pod, PodSpec, Volume};
use crate::api::storage::PersistentVolumeClaim;
use crate::api::ObjectMeta;
use crate::controllers::replicaset::controller_ref;

/// `apps.StatefulSetPodNameLabel`.
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// `apps.PodIndexLabel` (the `PodIndexLabel` feature, on in v1.32).
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";
/// `apps.StatefulSetRevisionLabel` (= `ControllerRevisionHashLabelKey`): the name of the
/// revision the pod was made from.
pub const REVISION_LABEL: &str = "controller-revision-hash";

/// `getParentNameAndOrdinal` (`(.*)-([0-9]+)$`): the parent's name, and the ordinal when the
/// digits fit an int32.
pub fn parent_and_ordinal(pod_name: &str) -> Option<(&str, Option<i32>)> {
    let (parent, digits) = pod_name.rsplit_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((parent, digits.parse().ok()))
}

/// `getOrdinal`: `None` for a pod that is not named like a member.
pub fn ordinal_of(pod_name: &str) -> Option<i32> {
    parent_and_ordinal(pod_name).and_then(|(_, o)| o)
}

/// `isMemberOf`.
pub fn is_member_of(set: &StatefulSet, pod_name: &str) -> bool {
    parent_and_ordinal(pod_name).is_some_and(|(p, _)| p == set.metadata.name)
}

/// `getPodName`.
pub fn pod_name(set: &StatefulSet, ordinal: i32) -> String {
    format!("{}-{ordinal}", set.metadata.name)
}

/// `getPersistentVolumeClaimName`: `<template>-<set>-<ordinal>`.
pub fn claim_name(set: &StatefulSet, template: &str, ordinal: i32) -> String {
    format!("{template}-{}-{ordinal}", set.metadata.name)
}

/// `getEndOrdinal`: the last ordinal of the range (`start + replicas - 1`).
pub fn end_ordinal(set: &StatefulSet) -> i32 {
    set.start_ordinal()
        .saturating_add(set.spec.replicas.unwrap_or(1))
        .saturating_sub(1)
}

/// `podInOrdinalRange`.
pub fn in_ordinal_range(set: &StatefulSet, ordinal: i32) -> bool {
    ordinal >= set.start_ordinal() && ordinal <= end_ordinal(set)
}

/// `getPersistentVolumeClaims`: the claims of `ordinal`, as `(template name, claim)` in the
/// templates' order, labelled with the set's `matchLabels` (over the template's own).
pub fn claims_for(set: &StatefulSet, ordinal: i32) -> Vec<(&str, PersistentVolumeClaim)> {
    let selector = set.spec.selector.as_ref();
    set.spec
        .volume_claim_templates
        .iter()
        .map(|t| {
            let mut claim = t.clone();
            claim.metadata.name = claim_name(set, &t.metadata.name, ordinal);
            claim.metadata.namespace.clone_from(&set.metadata.namespace);
            for (k, v) in selector.iter().flat_map(|s| s.match_labels.iter()) {
                claim.metadata.labels.insert(k.clone(), v.clone());
            }
            (t.metadata.name.as_str(), claim)
        })
        .collect()
}

/// `updateStorage`: a volume per claim template naming the ordinal's claim (in the templates'
/// order), then the spec's other volumes; a template volume of a claim template's name is
/// replaced.
pub fn update_storage(set: &StatefulSet, spec: &mut PodSpec, ordinal: i32) {
    let templates = &set.spec.volume_claim_templates;
    if templates.is_empty() {
        return;
    }
    let is_claim = |name: &str| templates.iter().any(|t| t.metadata.name == name);
    let mut volumes: Vec<Volume> = templates
        .iter()
        .map(|t| Volume {
            name: t.metadata.name.clone(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: claim_name(set, &t.metadata.name, ordinal),
                read_only: false,
            }),
            ..Default::default()
        })
        .collect();
    volumes.extend(spec.volumes.iter().filter(|v| !is_claim(&v.name)).cloned());
    spec.volumes = volumes.into();
}

/// `storageMatches`: every claim template has the pod's volume of its name, naming the
/// ordinal's claim.
pub fn storage_matches(set: &StatefulSet, pod: &Pod) -> bool {
    let Some(ordinal) = ordinal_of(&pod.metadata.name) else {
        return false;
    };
    set.spec.volume_claim_templates.iter().all(|t| {
        let want = claim_name(set, &t.metadata.name, ordinal);
        pod.spec.volumes.iter().any(|v| {
            v.name == t.metadata.name
                && v.persistent_volume_claim
                    .as_ref()
                    .is_some_and(|c| c.claim_name == want)
        })
    })
}

/// `identityMatches`: a member of the set by name, in its namespace, labelled with its name.
pub fn identity_matches(set: &StatefulSet, pod: &Pod) -> bool {
    let Some((parent, Some(ordinal))) = parent_and_ordinal(&pod.metadata.name) else {
        return false;
    };
    ordinal >= 0
        && parent == set.metadata.name
        && pod.metadata.name == pod_name(set, ordinal)
        && pod.metadata.namespace == set.metadata.namespace
        && pod
            .metadata
            .labels
            .get(POD_NAME_LABEL)
            .is_some_and(|l| *l == pod.metadata.name)
}

/// `updateIdentity`: the name, namespace and the two identity labels.
pub fn update_identity(set: &StatefulSet, pod: &mut Pod) {
    let Some(ordinal) = ordinal_of(&pod.metadata.name) else {
        return;
    };
    pod.metadata.name = pod_name(set, ordinal);
    pod.metadata.namespace.clone_from(&set.metadata.namespace);
    let name = pod.metadata.name.clone();
    pod.metadata.labels.insert(POD_NAME_LABEL.into(), name);
    pod.metadata
        .labels
        .insert(POD_INDEX_LABEL.into(), ordinal.to_string());
}

/// `newStatefulSetPod` + `setPodRevision`: the pod of `ordinal` from `template` (the set's at
/// the revision named `revision`), as `controller.GetPodFromTemplate` makes it
/// (`generateName: <set>-`, the controller reference), with its identity (`initIdentity`:
/// also the host name and subdomain, set only at creation) and its claims' volumes.
pub fn new_pod(set: &StatefulSet, template: &PodTemplateSpec, ordinal: i32, revision: &str) -> Pod {
    let name = pod_name(set, ordinal);
    let mut spec = template.spec.clone();
    spec.hostname.clone_from(&name);
    spec.subdomain.clone_from(&set.spec.service_name);
    update_storage(set, &mut spec, ordinal);
    let mut pod = Pod {
        metadata: ObjectMeta {
            name,
            generate_name: Arc::from(format!("{}-", set.metadata.name)),
            namespace: set.metadata.namespace.clone(),
            labels: template.metadata.labels.clone(),
            annotations: template.metadata.annotations.clone(),
            finalizers: template.metadata.finalizers.clone(),
            owner_references: OwnerReferences::from(vec![controller_ref(
                "StatefulSet",
                &set.metadata,
            )]),
            ..Default::default()
        },
        spec: Arc::new(spec),
        status: Default::default(),
    };
    update_identity(set, &mut pod);
    pod.metadata
        .labels
        .insert(REVISION_LABEL.into(), revision.to_string());
    pod
}

/// `getPodRevision`.
pub fn pod_revision(pod: &Pod) -> &str {
    pod.metadata
        .labels
        .get(REVISION_LABEL)
        .map_or("", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::meta::LabelSelector;

    fn set() -> StatefulSet {
        let mut s = StatefulSet {
            metadata: ObjectMeta::named("default", "web"),
            ..Default::default()
        };
        s.spec.replicas = Some(3);
        s.spec.service_name = "nginx".into();
        let mut sel = LabelSelector::default();
        sel.match_labels.insert("app".into(), "nginx".into());
        s.spec.selector = Some(sel);
        let mut claim = PersistentVolumeClaim::default();
        claim.metadata.name = "www".into();
        s.spec.volume_claim_templates.push(claim);
        s
    }

    #[test]
    fn names_parse_like_the_regular_expression() {
        assert_eq!(parent_and_ordinal("web-0"), Some(("web", Some(0))));
        assert_eq!(parent_and_ordinal("my-web-12"), Some(("my-web", Some(12))));
        assert_eq!(parent_and_ordinal("web-"), None);
        assert_eq!(parent_and_ordinal("web-x1"), None);
        assert_eq!(parent_and_ordinal("web"), None);
        assert_eq!(
            parent_and_ordinal("web-99999999999"),
            Some(("web", None)),
            "a member by name whose ordinal does not fit"
        );
        assert!(is_member_of(&set(), "web-4"));
        assert!(!is_member_of(&set(), "webby-4"));
    }

    #[test]
    fn a_new_pod_has_its_identity_and_its_claims_volume() {
        let s = set();
        let mut t = PodTemplateSpec::default();
        t.metadata.labels.insert("app".into(), "nginx".into());
        t.spec.volumes = vec![Volume {
            name: "www".into(),
            ..Default::default()
        }]
        .into();
        let p = new_pod(&s, &t, 2, "web-abc");
        assert_eq!(p.metadata.name, "web-2");
        assert_eq!(&*p.metadata.generate_name, "web-");
        assert_eq!(
            (p.spec.hostname.as_str(), p.spec.subdomain.as_str()),
            ("web-2", "nginx")
        );
        assert_eq!(
            p.metadata.labels.get(POD_NAME_LABEL).map(String::as_str),
            Some("web-2")
        );
        assert_eq!(
            p.metadata.labels.get(POD_INDEX_LABEL).map(String::as_str),
            Some("2")
        );
        assert_eq!(pod_revision(&p), "web-abc");
        let claims: Vec<_> = p.spec.claim_volumes().collect();
        assert_eq!(
            claims,
            [("www", "www-web-2")],
            "the template's volume replaced"
        );
        assert!(identity_matches(&s, &p) && storage_matches(&s, &p));
        let (_, claim) = &claims_for(&s, 2)[0];
        assert_eq!(claim.metadata.name, "www-web-2");
        assert_eq!(
            claim.metadata.labels.get("app").map(String::as_str),
            Some("nginx")
        );
        assert!(in_ordinal_range(&s, 2) && !in_ordinal_range(&s, 3));
    }
}
