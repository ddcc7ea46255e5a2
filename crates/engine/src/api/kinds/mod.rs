//! The built-in kinds, one registry module each: every module declares its kind's
//! [`ResourceInfo`](super::resource::ResourceInfo) (names, group/version, scope, subresources,
//! etcd prefix, field selectors, strategy flags, garbage-collector owners) and implements its
//! [`Rules`](super::resource::Rules) over the typed object (decoding, field values, defaulting,
//! validation, the spec/status split, strategic-merge keys). Adding a built-in kind is one new
//! module here and one line in [`BUILT_IN`].

pub mod configmap;
pub mod customresourcedefinition;
pub mod deployment;
pub mod endpoints;
pub mod endpointslice;
pub mod event;
pub mod lease;
pub mod namespace;
pub mod node;
pub mod pod;
pub mod replicaset;
pub mod secret;
pub mod service;

use super::resource::meta_merge_key;
use super::Kind;

/// The built-in kinds, in discovery order (each one's `rank` is its index here).
pub const BUILT_IN: [Kind; 13] = [
    Kind::Namespace,
    Kind::Node,
    Kind::Pod,
    Kind::ReplicaSet,
    Kind::Deployment,
    Kind::Event,
    Kind::Lease,
    Kind::CustomResourceDefinition,
    Kind::Service,
    Kind::Endpoints,
    Kind::EndpointSlice,
    Kind::ConfigMap,
    Kind::Secret,
];

/// A boolean field as field selectors compare it.
fn bool_text(b: bool) -> String {
    if b { "true" } else { "false" }.to_string()
}

/// Merge keys of a `status.conditions` list keyed by `type` (pods, nodes, workloads,
/// namespaces), besides ObjectMeta's.
fn conditions_merge_key(path: &[&str]) -> Option<&'static str> {
    match path {
        ["status", "conditions"] => Some("type"),
        _ => meta_merge_key(path),
    }
}

/// `PodSpec`'s merge keys, `path` relative to the spec (pods, and workload templates).
fn pod_spec_merge_key(path: &[&str]) -> Option<&'static str> {
    Some(match path {
        ["containers" | "initContainers" | "ephemeralContainers"]
        | ["volumes" | "imagePullSecrets" | "resourceClaims" | "schedulingGates"] => "name",
        ["containers" | "initContainers" | "ephemeralContainers", container] => match *container {
            "env" => "name",
            "ports" => "containerPort",
            "volumeMounts" => "mountPath",
            "volumeDevices" => "devicePath",
            _ => return None,
        },
        ["hostAliases"] => "ip",
        ["topologySpreadConstraints"] => "topologyKey",
        _ => return None,
    })
}

/// A workload's merge keys: its pod template's spec, its conditions, ObjectMeta's.
fn workload_merge_key(path: &[&str]) -> Option<&'static str> {
    match path {
        ["spec", "template", "spec", rest @ ..] => pod_spec_merge_key(rest),
        _ => conditions_merge_key(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Object;

    #[test]
    fn merge_keys_are_looked_up_by_path_not_by_bare_name() {
        let pod = Kind::Pod.resource().rules;
        assert_eq!(pod.merge_key(&["spec", "containers"]), Some("name"));
        assert_eq!(
            pod.merge_key(&["spec", "containers", "ports"]),
            Some("containerPort")
        );
        assert_eq!(pod.merge_key(&["metadata", "ownerReferences"]), Some("uid"));
        let deploy = Kind::Deployment.resource().rules;
        assert_eq!(
            deploy.merge_key(&["spec", "template", "spec", "containers", "env"]),
            Some("name")
        );
        // A list named like a keyed one elsewhere is replaced.
        assert_eq!(deploy.merge_key(&["spec", "ports"]), None);
        assert_eq!(
            Kind::Lease
                .resource()
                .rules
                .merge_key(&["spec", "containers"]),
            None
        );
        let node = Kind::Node.resource().rules;
        assert_eq!(node.merge_key(&["spec", "taints"]), Some("key"));
        assert_eq!(node.merge_key(&["status", "addresses"]), Some("type"));
    }

    #[test]
    fn every_kind_decodes_its_own_empty_object() {
        for (rank, kind) in BUILT_IN.iter().enumerate() {
            let r = kind.resource();
            assert_eq!(usize::from(r.rank), rank);
            let empty = r.rules.empty();
            assert_eq!(empty.kind(), *kind);
            let mut json = empty.to_json_value();
            if let Some(m) = json.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
            }
            assert_eq!(r.rules.decode(json).ok(), Some(empty), "{kind:?}");
        }
    }

    /// A status unlike the empty object's and unlike what `prepare_for_create` sets.
    fn status_sample(kind: Kind) -> serde_json::Value {
        match kind.resource().kind_name {
            "Namespace" => serde_json::json!({"phase": "Terminating"}),
            "Node" => serde_json::json!({"nodeInfo": {"kubeletVersion": "v1.32.0"}}),
            "Pod" => serde_json::json!({"phase": "Running"}),
            "ReplicaSet" | "Deployment" => serde_json::json!({"replicas": 3}),
            "CustomResourceDefinition" => {
                serde_json::json!({"acceptedNames": {"kind": "Greeter", "plural": "greeters"}})
            }
            "Service" => serde_json::json!({"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}]}}),
            other => panic!("{other} serves status: add a sample status here"),
        }
    }

    /// The `Rules` defaults take nothing from a status-subresource write and keep nothing on a
    /// main-resource write; a kind that serves `status` has to override both.
    #[test]
    fn every_status_subresource_moves_the_status() {
        let status = |o: &Object| o.to_json_value().get("status").cloned();
        for kind in BUILT_IN
            .iter()
            .filter(|k| k.resource().has_subresource("status"))
        {
            let rules = kind.resource().rules;
            let old = rules.empty();
            let mut json = old.to_json_value();
            if let Some(m) = json.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
                m.insert("status".into(), status_sample(*kind));
            }
            let new = rules.decode(json).expect("the sample decodes");
            assert_ne!(
                status(&new),
                status(&old),
                "{kind:?}: the sample is not empty"
            );
            let written = rules.status_update(&new, &old);
            assert_eq!(status(&written), status(&new), "{kind:?} status_update");
            let mut updated = new.clone();
            rules.keep_status(&mut updated, &old);
            assert_eq!(status(&updated), status(&old), "{kind:?} keep_status");
        }
    }
}
