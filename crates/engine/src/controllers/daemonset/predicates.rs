//! Which nodes a DaemonSet's pod belongs on, and what marks a daemon pod as belonging to its
//! node: `NodeShouldRunDaemonPod` and `predicates` (pkg/controller/daemon/daemon_controller.go)
//! over the template's nodeName, nodeSelector, required node affinity and tolerations — with
//! the tolerations every daemon pod gets (`util.AddOrUpdateDaemonPodTolerations`) — and the
//! node-name affinity the controller writes into each pod so that the default scheduler binds
//! it to its node (`util.ReplaceDaemonSetPodNodeNameNodeAffinity`, `util.GetTargetNodeName`).

use crate::api::apps::DaemonSet;
use crate::api::meta::Term;
use crate::api::node::Node;
use crate::api::pod::{
    Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec,
    Toleration, OBJECT_NAME_FIELD,
};
use crate::controllers::podutil::{
    untolerated_taint, NO_EXECUTE, NO_SCHEDULE, TAINT_NOT_READY, TAINT_UNREACHABLE,
    TAINT_UNSCHEDULABLE,
};

/// `v1.TaintNodeDiskPressure`, `TaintNodeMemoryPressure`, `TaintNodePIDPressure`,
/// `TaintNodeNetworkUnavailable`.
pub const TAINT_DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
pub const TAINT_MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
pub const TAINT_PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";
pub const TAINT_NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";

fn exists(key: &'static str, effect: &'static str) -> Toleration {
    Toleration {
        key: Term::Borrowed(key),
        operator: Term::Borrowed("Exists"),
        effect: Term::Borrowed(effect),
        ..Default::default()
    }
}

/// `util.AddOrUpdateDaemonPodTolerations`: not-ready and unreachable NoExecute without
/// tolerationSeconds (a daemon pod survives taint-based eviction), disk-, memory- and
/// pid-pressure and unschedulable NoSchedule, and network-unavailable NoSchedule for a pod on
/// the host network; each added, or replacing the pod's toleration with the same key,
/// operator, value and effect (`v1helper.AddOrUpdateTolerationInPodSpec`).
pub fn add_daemon_tolerations(spec: &mut PodSpec) {
    let mut wanted = vec![
        exists(TAINT_NOT_READY, NO_EXECUTE),
        exists(TAINT_UNREACHABLE, NO_EXECUTE),
        exists(TAINT_DISK_PRESSURE, NO_SCHEDULE),
        exists(TAINT_MEMORY_PRESSURE, NO_SCHEDULE),
        exists(TAINT_PID_PRESSURE, NO_SCHEDULE),
        exists(TAINT_UNSCHEDULABLE, NO_SCHEDULE),
    ];
    if spec.host_network {
        wanted.push(exists(TAINT_NETWORK_UNAVAILABLE, NO_SCHEDULE));
    }
    for t in wanted {
        let same = |o: &Toleration| {
            o.key == t.key && o.effect == t.effect && o.operator == t.operator && o.value == t.value
        };
        match spec.tolerations.iter().position(same) {
            Some(i) if spec.tolerations.get(i) == Some(&t) => {}
            Some(i) => {
                if let Some(slot) = spec.tolerations.get_mut(i) {
                    *slot = t;
                }
            }
            None => spec.tolerations.push(t),
        }
    }
}

/// What a DaemonSet's pods are held to on a node (`NewPod`: the template's spec with the
/// daemon tolerations), computed once per DaemonSet generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicates {
    spec: PodSpec,
}

impl Predicates {
    pub fn of(ds: &DaemonSet) -> Self {
        let mut spec = ds.spec.template.spec.clone();
        add_daemon_tolerations(&mut spec);
        Predicates { spec }
    }

    /// The template's spec with the daemon tolerations (every pod's spec starts from it).
    pub fn pod_spec(&self) -> &PodSpec {
        &self.spec
    }

    /// `NodeShouldRunDaemonPod`: (shouldRun, shouldContinueRunning). A node whose name, labels
    /// or node affinity do not fit runs no daemon pod; one with an untolerated NoSchedule or
    /// NoExecute taint gets no new pod, and keeps a running one unless a NoExecute taint is
    /// untolerated.
    pub fn should_run(&self, node: &Node) -> (bool, bool) {
        let name = node.metadata.name.as_str();
        let fits_name = self.spec.node_name.is_empty() || self.spec.node_name == name;
        if !fits_name || !self.spec.matches_node(&node.metadata.labels, name) {
            return (false, false);
        }
        let taints = &node.spec.taints;
        let tolerations = &self.spec.tolerations;
        if untolerated_taint(taints, tolerations, &[NO_SCHEDULE, NO_EXECUTE]).is_none() {
            return (true, true);
        }
        (
            false,
            untolerated_taint(taints, tolerations, &[NO_EXECUTE]).is_none(),
        )
    }
}

/// `util.ReplaceDaemonSetPodNodeNameNodeAffinity`: the required node affinity becomes one term
/// `metadata.name In [node]` (the controller has already checked the template's own terms);
/// the preferred terms are kept.
pub fn replace_node_name_affinity(affinity: Option<Box<Affinity>>, node: &str) -> Box<Affinity> {
    let selector = NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: Vec::new(),
            match_fields: vec![NodeSelectorRequirement {
                key: OBJECT_NAME_FIELD.to_string(),
                operator: "In".to_string(),
                values: vec![node.to_string()],
            }],
        }],
    };
    let mut affinity = affinity.unwrap_or_default();
    let na = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    na.required_during_scheduling_ignored_during_execution = Some(selector);
    affinity
}

/// `util.GetTargetNodeName`: the node a daemon pod is for — its `spec.nodeName` once bound,
/// else the first `metadata.name In [one node]` field requirement of its required affinity.
pub fn target_node_name(pod: &Pod) -> Option<&str> {
    if !pod.spec.node_name.is_empty() {
        return Some(&pod.spec.node_name);
    }
    let terms = &pod.spec.required_node_affinity()?.node_selector_terms;
    let r = terms
        .iter()
        .flat_map(|t| &t.match_fields)
        .find(|r| r.key == OBJECT_NAME_FIELD && r.operator == "In")?;
    match r.values.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::node::Taint;

    fn node(labels: &[(&str, &str)], taints: &[(&str, &str)]) -> Node {
        let mut n = Node::default();
        n.metadata.name = "node-a".into();
        for (k, v) in labels {
            n.metadata.labels.insert(k.to_string(), v.to_string());
        }
        n.spec.taints = taints
            .iter()
            .map(|(key, effect)| Taint {
                key: key.to_string(),
                effect: effect.to_string(),
                ..Default::default()
            })
            .collect();
        n
    }

    #[test]
    fn daemon_tolerations_are_added_once_and_replace_a_timed_one() {
        let mut spec = PodSpec::default();
        spec.tolerations.push(Toleration {
            toleration_seconds: Some(300),
            ..exists(TAINT_NOT_READY, NO_EXECUTE)
        });
        add_daemon_tolerations(&mut spec);
        add_daemon_tolerations(&mut spec);
        assert_eq!(spec.tolerations.len(), 6);
        assert_eq!(
            spec.tolerations.first(),
            Some(&exists(TAINT_NOT_READY, NO_EXECUTE))
        );
        spec.host_network = true;
        add_daemon_tolerations(&mut spec);
        assert_eq!(spec.tolerations.len(), 7);
    }

    #[test]
    fn no_schedule_keeps_new_pods_off_and_no_execute_evicts() {
        let mut ds = DaemonSet::default();
        ds.spec
            .template
            .spec
            .node_selector
            .insert("disk".into(), "ssd".into());
        let p = Predicates::of(&ds);
        assert_eq!(p.should_run(&node(&[("disk", "ssd")], &[])), (true, true));
        assert_eq!(p.should_run(&node(&[], &[])), (false, false));
        let ssd = [("disk", "ssd")];
        assert_eq!(
            p.should_run(&node(&ssd, &[("x", NO_SCHEDULE)])),
            (false, true)
        );
        assert_eq!(
            p.should_run(&node(&ssd, &[("x", NO_EXECUTE)])),
            (false, false)
        );
        // The daemon tolerations: an unreachable or cordoned node keeps and gets its pod.
        let kept = [
            (TAINT_UNREACHABLE, NO_EXECUTE),
            (TAINT_UNSCHEDULABLE, NO_SCHEDULE),
        ];
        assert_eq!(p.should_run(&node(&ssd, &kept)), (true, true));
    }

    #[test]
    fn the_node_name_affinity_replaces_the_required_terms_and_names_the_target() {
        let mut pod = Pod::default();
        pod.spec_mut().affinity = Some(replace_node_name_affinity(None, "node-b"));
        assert_eq!(target_node_name(&pod), Some("node-b"));
        let again = replace_node_name_affinity(pod.spec.affinity.clone(), "node-c");
        pod.spec_mut().affinity = Some(again);
        assert_eq!(target_node_name(&pod), Some("node-c"));
        pod.spec_mut().node_name = "node-d".into();
        assert_eq!(target_node_name(&pod), Some("node-d"));
        assert_eq!(target_node_name(&Pod::default()), None);
    }
}
