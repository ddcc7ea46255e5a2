//! What a claim and a volume say about each other, read the same way by the PV controller (which
//! binds claims to volumes) and the scheduler's VolumeBinding plugin (which picks volumes a node
//! can reach): a claim's and a volume's class, whether a volume is bound to a claim, whether a
//! claim is fully bound, which volume best fits a claim, and which nodes a local volume lives
//! on. Upstream: `pkg/controller/volume/persistentvolume/util/util.go` (`FindMatchingVolume`,
//! `CheckAccessModes`, `IsVolumeBoundToClaim`), `pkg/apis/core/v1/helper`
//! (`GetPersistentVolumeClaimClass`, `GetPersistentVolumeClass`), `pkg/volume/util`
//! (`GetLocalPersistentVolumeNodeNames`, `CheckNodeAffinity`).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::api::node::Node;
use crate::api::storage::{
    PersistentVolume, PersistentVolumeClaim, StorageClass, BIND_COMPLETED, SELECTED_NODE,
    WAIT_FOR_FIRST_CONSUMER,
};
use crate::api::Object;
use crate::apiserver::admission::BETA_STORAGE_CLASS;
use watchlab_apimachinery::quantity::Quantity;

/// `v1.LabelHostname`: the label local volumes name their node by.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

/// `GetPersistentVolumeClaimClass`: the beta annotation, else `storageClassName`, else none
/// (`""`).
pub fn claim_class(claim: &PersistentVolumeClaim) -> &str {
    claim
        .metadata
        .annotations
        .get(BETA_STORAGE_CLASS)
        .map(String::as_str)
        .or(claim.spec.storage_class_name.as_deref())
        .unwrap_or("")
}

/// `GetPersistentVolumeClass`: the beta annotation, else `storageClassName`.
pub fn volume_class(pv: &PersistentVolume) -> &str {
    pv.metadata
        .annotations
        .get(BETA_STORAGE_CLASS)
        .map_or(pv.spec.storage_class_name.as_str(), String::as_str)
}

/// `IsVolumeBoundToClaim`: the volume's `claimRef` names the claim (and its uid, once set).
pub fn is_volume_bound_to_claim(pv: &PersistentVolume, claim: &PersistentVolumeClaim) -> bool {
    pv.spec.claim_ref.as_ref().is_some_and(|r| {
        r.name == claim.metadata.name
            && r.namespace == claim.metadata.namespace
            && (r.uid.is_empty() || r.uid == claim.metadata.uid)
    })
}

/// The scheduler's `isPVCFullyBound`: a volume named and the binding completed.
pub fn is_fully_bound(claim: &PersistentVolumeClaim) -> bool {
    !claim.spec.volume_name.is_empty() && claim.metadata.annotations.contains_key(BIND_COMPLETED)
}

/// The node the scheduler chose for a WaitForFirstConsumer claim, if any.
pub fn selected_node(claim: &PersistentVolumeClaim) -> Option<&str> {
    claim
        .metadata
        .annotations
        .get(SELECTED_NODE)
        .map(String::as_str)
}

/// `IsDelayBindingMode`'s reading of a class: `WaitForFirstConsumer`.
pub fn waits_for_first_consumer(class: &StorageClass) -> bool {
    class.volume_binding_mode.as_deref() == Some(WAIT_FOR_FIRST_CONSUMER)
}

/// The storage a claim requests (zero when it names none: validation requires it).
pub fn requested(claim: &PersistentVolumeClaim) -> Quantity {
    claim
        .spec
        .resources
        .requests
        .get("storage")
        .copied()
        .unwrap_or_default()
}

/// The storage a volume offers.
pub fn capacity(pv: &PersistentVolume) -> Quantity {
    pv.spec.capacity.get("storage").copied().unwrap_or_default()
}

/// `CheckAccessModes`: the volume offers every access mode the claim asks for.
pub fn offers_access_modes(pv: &PersistentVolume, claim: &PersistentVolumeClaim) -> bool {
    claim
        .spec
        .access_modes
        .iter()
        .all(|m| pv.spec.access_modes.contains(m))
}

/// `CheckVolumeModeMismatches`: both `Filesystem` (the default) or both `Block`.
fn volume_mode_mismatch(pv: &PersistentVolume, claim: &PersistentVolumeClaim) -> bool {
    let mode = |m: &Option<String>| m.clone().unwrap_or_else(|| "Filesystem".into());
    mode(&pv.spec.volume_mode) != mode(&claim.spec.volume_mode)
}

/// `CheckNodeAffinity`: a volume without node affinity is reachable from every node; one with
/// required terms, from the nodes some term matches.
pub fn reachable_from(pv: &PersistentVolume, node: &Node) -> bool {
    pv.spec
        .node_affinity
        .as_ref()
        .and_then(|a| a.required.as_ref())
        .is_none_or(|s| s.matches(&node.metadata.labels, &node.metadata.name))
}

/// `GetLocalPersistentVolumeNodeNames`: the hostnames a volume's required node affinity names
/// with `kubernetes.io/hostname In [...]` (intersected within a term, united across terms);
/// `None` when it names none.
pub fn local_node_names(pv: &PersistentVolume) -> Option<BTreeSet<String>> {
    let required = pv.spec.node_affinity.as_ref()?.required.as_ref()?;
    let mut all = BTreeSet::new();
    for term in &required.node_selector_terms {
        let mut names: Option<BTreeSet<String>> = None;
        let named = term
            .match_expressions
            .iter()
            .filter(|r| r.key == LABEL_HOSTNAME && r.operator == "In");
        for r in named {
            let these: BTreeSet<String> = r.values.iter().cloned().collect();
            names = Some(match names {
                None => these,
                Some(n) => n.intersection(&these).cloned().collect(),
            });
        }
        all.extend(names.unwrap_or_default());
    }
    (!all.is_empty()).then_some(all)
}

/// What [`find_matching_volume`] looks for.
pub struct Wanted<'a> {
    pub claim: &'a PersistentVolumeClaim,
    /// The node the volume must be reachable from (the scheduler's path); `None` for the PV
    /// controller's.
    pub node: Option<&'a Node>,
    /// Volumes already chosen for other claims of the same pod.
    pub excluded: &'a BTreeSet<String>,
    /// The claim's class waits for its first consumer: the PV controller binds only a volume
    /// pre-bound to it.
    pub delay_binding: bool,
}

/// `FindMatchingVolume`: a volume pre-bound to the claim if there is one (unless it cannot be
/// reached from the node), else the smallest Available volume of the claim's class with
/// enough capacity, the claim's access modes, volume mode and label selector, reachable from
/// the node. The PV controller does not bind a delayed claim to an unbound volume (the
/// scheduler does, once it knows the node).
pub fn find_matching_volume<'v>(
    wanted: &Wanted<'_>,
    volumes: impl IntoIterator<Item = &'v Arc<Object>>,
) -> Option<Arc<Object>> {
    let claim = wanted.claim;
    let request = requested(claim);
    let class = claim_class(claim);
    let selector = claim.spec.selector.as_ref().map(|s| s.to_selector().ok());
    let mut smallest: Option<(Quantity, &'v Arc<Object>)> = None;
    for obj in volumes {
        let Some(pv) = obj.as_persistent_volume() else {
            continue;
        };
        if wanted.excluded.contains(&pv.metadata.name) {
            continue;
        }
        let bound_here = is_volume_bound_to_claim(pv, claim);
        if pv.spec.claim_ref.is_some() && !bound_here {
            continue;
        }
        let size = capacity(pv);
        if size < request
            || volume_mode_mismatch(pv, claim)
            || pv.metadata.deletion_timestamp.is_some()
        {
            continue;
        }
        let reachable = wanted.node.is_none_or(|n| reachable_from(pv, n));
        if bound_here {
            return reachable.then(|| Arc::clone(obj));
        }
        if wanted.node.is_none() && wanted.delay_binding {
            continue;
        }
        let selected = match &selector {
            None => true,
            Some(Some(s)) => s.matches(&pv.metadata.labels),
            Some(None) => false,
        };
        let fits = pv.status.phase == "Available"
            && selected
            && volume_class(pv) == class
            && reachable
            && offers_access_modes(pv, claim);
        if fits && smallest.as_ref().is_none_or(|(q, _)| *q > size) {
            smallest = Some((size, obj));
        }
    }
    smallest.map(|(_, obj)| Arc::clone(obj))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Kind;
    use serde_json::json;

    fn volume(name: &str, spec: serde_json::Value, phase: &str) -> Arc<Object> {
        let obj = Object::from_value(
            Kind::PersistentVolume,
            json!({"metadata": {"name": name}, "spec": spec, "status": {"phase": phase}}),
        );
        Arc::new(obj.expect("a volume"))
    }

    fn claim(spec: serde_json::Value) -> PersistentVolumeClaim {
        let obj = Object::from_value(
            Kind::PersistentVolumeClaim,
            json!({"metadata": {"name": "data", "namespace": "default", "uid": "u1"}, "spec": spec}),
        );
        obj.ok()
            .and_then(|o| o.as_persistent_volume_claim().cloned())
            .expect("a claim")
    }

    fn find(c: &PersistentVolumeClaim, volumes: &[Arc<Object>], delay: bool) -> Option<String> {
        let excluded = BTreeSet::new();
        let wanted = Wanted {
            claim: c,
            node: None,
            excluded: &excluded,
            delay_binding: delay,
        };
        find_matching_volume(&wanted, volumes).map(|o| o.name().to_string())
    }

    #[test]
    fn the_smallest_available_volume_of_the_class_that_fits_wins() {
        let rwo = |size: &str, class: &str| {
            json!({"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                "storageClassName": class})
        };
        let volumes = [
            volume("big", rwo("10Gi", "manual"), "Available"),
            volume("small", rwo("1Gi", "manual"), "Available"),
            volume("right", rwo("2Gi", "manual"), "Available"),
            volume("other-class", rwo("2Gi", "fast"), "Available"),
            volume("pending", rwo("2Gi", "manual"), "Pending"),
        ];
        let c = claim(
            json!({"accessModes": ["ReadWriteOnce"], "storageClassName": "manual",
            "resources": {"requests": {"storage": "2Gi"}}}),
        );
        assert_eq!(find(&c, &volumes, false).as_deref(), Some("right"));
        // A delayed claim is not bound to an unbound volume by the PV controller.
        assert_eq!(find(&c, &volumes, true), None);
        // Access modes the volume lacks rule it out.
        let rwx = claim(
            json!({"accessModes": ["ReadWriteMany"], "storageClassName": "manual",
            "resources": {"requests": {"storage": "1Gi"}}}),
        );
        assert_eq!(find(&rwx, &volumes, false), None);
    }

    #[test]
    fn a_volume_pre_bound_to_the_claim_is_taken_even_for_a_delayed_claim() {
        let spec = json!({"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "claimRef": {"namespace": "default", "name": "data", "uid": "u1"}});
        let volumes = [volume("mine", spec, "Pending")];
        let c = claim(json!({"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}}}));
        assert_eq!(find(&c, &volumes, true).as_deref(), Some("mine"));
    }

    #[test]
    fn local_volumes_name_their_nodes_by_hostname() {
        let pv = volume(
            "local",
            json!({"nodeAffinity": {"required": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": LABEL_HOSTNAME, "operator": "In",
                    "values": ["node-a", "node-b"]}]},
                {"matchExpressions": [{"key": LABEL_HOSTNAME, "operator": "In",
                    "values": ["node-c"]}]}]}}}),
            "Bound",
        );
        let names = pv.as_persistent_volume().and_then(local_node_names);
        let want: BTreeSet<String> = ["node-a", "node-b", "node-c"].map(String::from).into();
        assert_eq!(names, Some(want));
        let zoned = volume(
            "zoned",
            json!({"nodeAffinity": {"required": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone",
                    "operator": "In", "values": ["a"]}]}]}}}),
            "Bound",
        );
        assert_eq!(
            zoned.as_persistent_volume().and_then(local_node_names),
            None
        );
    }
}
