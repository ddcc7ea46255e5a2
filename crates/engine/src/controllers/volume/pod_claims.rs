//! The pods that name each claim in their volumes: upstream's `pod-pvc-index`
//! (`pkg/controller/volume/common.PodPVCIndexFunc`), which the PV controller reads to tell a
//! claim's unscheduled consumers (`WaitForPodScheduled`) and the pvc-protection controller to
//! tell whether a claim is in use. Upstream it is an index on the shared pod informer; here each
//! of the two controllers keeps its own, fed from its pod notifications, so that the many pods
//! without a claim cost one emptiness check and no index entry.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::pod::Pod;
use crate::client::ObjectKey;

/// Claim (namespace/name) to the names of the pods of that namespace naming it.
#[derive(Debug, Default)]
pub struct PodClaims {
    by_claim: BTreeMap<ObjectKey, BTreeSet<String>>,
}

impl PodClaims {
    /// Files the claims a pod names (a pod's volumes never change, so an update files nothing
    /// new); returns them.
    pub fn add(&mut self, pod: &Pod) -> Vec<ObjectKey> {
        let claims = claims_of(pod);
        for claim in &claims {
            self.by_claim
                .entry(claim.clone())
                .or_default()
                .insert(pod.metadata.name.clone());
        }
        claims
    }

    /// Forgets a deleted pod; returns the claims it named.
    pub fn remove(&mut self, pod: &Pod) -> Vec<ObjectKey> {
        let claims = claims_of(pod);
        for claim in &claims {
            if let Some(pods) = self.by_claim.get_mut(claim) {
                pods.remove(&pod.metadata.name);
                if pods.is_empty() {
                    self.by_claim.remove(claim);
                }
            }
        }
        claims
    }

    /// The pods naming `claim`, as keys.
    pub fn pods_of(&self, claim: &ObjectKey) -> Vec<ObjectKey> {
        let (ns, _) = claim.split();
        self.by_claim
            .get(claim)
            .map(|pods| pods.iter().map(|p| ObjectKey::new(ns, p)).collect())
            .unwrap_or_default()
    }
}

/// The claims a pod's volumes name, as keys of its namespace (none, without allocating, for a
/// pod without volumes).
pub fn claims_of(pod: &Pod) -> Vec<ObjectKey> {
    if pod.spec.volumes.is_empty() {
        return Vec::new();
    }
    let ns = Some(pod.metadata.namespace.as_str());
    pod.spec
        .claim_volumes()
        .map(|(_, claim)| ObjectKey::new(ns, claim))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pod::{PersistentVolumeClaimVolumeSource, Volume};

    fn pod(name: &str, claims: &[&str]) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = name.into();
        p.metadata.namespace = "default".into();
        for c in claims {
            p.spec_mut().volumes.push(Volume {
                name: format!("v-{c}"),
                persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                    claim_name: c.to_string(),
                    read_only: false,
                }),
                ..Default::default()
            });
        }
        p
    }

    #[test]
    fn pods_are_filed_under_each_claim_they_name_until_deleted() {
        let mut index = PodClaims::default();
        let data = ObjectKey::new(Some("default"), "data");
        assert!(index.add(&pod("plain", &[])).is_empty());
        index.add(&pod("a", &["data", "logs"]));
        index.add(&pod("b", &["data"]));
        let names = |i: &PodClaims| -> Vec<String> {
            i.pods_of(&data)
                .iter()
                .map(|k| k.split().1.to_string())
                .collect()
        };
        assert_eq!(names(&index), ["a", "b"]);
        assert_eq!(index.remove(&pod("a", &["data", "logs"])).len(), 2);
        assert_eq!(names(&index), ["b"]);
        index.remove(&pod("b", &["data"]));
        assert!(index.pods_of(&data).is_empty());
        assert!(index.by_claim.is_empty());
    }
}
