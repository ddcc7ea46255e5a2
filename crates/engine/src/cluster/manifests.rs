//! What the playground's buttons send, as kubectl would send it: the manifests of
//! `kubectl run` and `kubectl create deployment`, and the REST path of one object.

use serde_json::{json, Value};
use watchlab_apimachinery::request::percent_encode_query_value;

use crate::api::Kind;

/// The REST path of one object, its namespace and name percent-encoded (the resource's own
/// [`crate::api::ResourceInfo::path`] builds it).
pub fn object_path(kind: Kind, namespace: &str, name: &str) -> String {
    kind.resource().path(
        Some(&percent_encode_query_value(namespace)),
        Some(&percent_encode_query_value(name)),
    )
}

fn labels_json(labels: &[(String, String)]) -> Value {
    Value::Object(labels.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

/// What `kubectl run <name> --image=<image>` sends.
pub fn pod_manifest(
    namespace: &str,
    name: &str,
    image: &str,
    labels: &[(String, String)],
) -> Value {
    let mut labels = labels.to_vec();
    if labels.is_empty() {
        labels.push(("run".into(), name.into()));
    }
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels_json(&labels)},
        "spec": {"containers": [{"name": name, "image": image}]},
    })
}

/// What `kubectl create deployment <name> --image=<image> --replicas=N` sends.
pub fn deployment_manifest(
    namespace: &str,
    name: &str,
    image: &str,
    replicas: u32,
    labels: &[(String, String)],
) -> Value {
    workload_manifest(
        Kind::Deployment,
        namespace,
        name,
        image,
        Some(replicas),
        labels,
    )
}

/// A workload of `kind` (Deployment, DaemonSet, StatefulSet) running `image`, its pods
/// labelled `labels` (`app=<name>` when none), as `kubectl create deployment` shapes one;
/// `replicas` for the kinds that have them. A StatefulSet gets a headless Service's name (its
/// own) and one claim template, `data`, of 1Gi mounted at `/data`.
pub fn workload_manifest(
    kind: Kind,
    namespace: &str,
    name: &str,
    image: &str,
    replicas: Option<u32>,
    labels: &[(String, String)],
) -> Value {
    let mut labels = labels.to_vec();
    if labels.is_empty() {
        labels.push(("app".into(), name.into()));
    }
    let container = image
        .rsplit('/')
        .next()
        .unwrap_or(image)
        .split(':')
        .next()
        .unwrap_or(name);
    let r = kind.resource();
    let mut manifest = json!({
        "apiVersion": r.api_version, "kind": r.kind_name,
        "metadata": {"name": name, "namespace": namespace, "labels": labels_json(&labels)},
        "spec": {
            "selector": {"matchLabels": labels_json(&labels)},
            "template": {
                "metadata": {"labels": labels_json(&labels)},
                "spec": {"containers": [{"name": container, "image": image}]},
            },
        },
    });
    if let Some(replicas) = replicas {
        manifest["spec"]["replicas"] = json!(replicas);
    }
    if kind == Kind::StatefulSet {
        manifest["spec"]["serviceName"] = json!(name);
        manifest["spec"]["volumeClaimTemplates"] = json!([{
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }]);
        manifest["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] =
            json!([{"name": "data", "mountPath": "/data"}]);
    }
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_paths_follow_the_real_api() {
        assert_eq!(
            object_path(Kind::Pod, "default", "web"),
            "/api/v1/namespaces/default/pods/web"
        );
        assert_eq!(
            object_path(Kind::Deployment, "production", "orders-api"),
            "/apis/apps/v1/namespaces/production/deployments/orders-api"
        );
        assert_eq!(
            object_path(Kind::Node, "", "node-a"),
            "/api/v1/nodes/node-a"
        );
    }
}
