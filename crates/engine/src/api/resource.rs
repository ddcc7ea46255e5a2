//! The resource table: what each served kind is called in URLs (`pods`, `po`), which group and
//! version serve it, whether it is namespaced, its subresources, its etcd key prefix (the real
//! ones, `/registry/minions/` for nodes included) and the field selectors it supports.

use super::{Kind, Object};
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::status::{GroupResource, Status};

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceInfo {
    pub kind: Kind,
    /// `Pod`.
    pub kind_name: &'static str,
    /// `PodList`.
    pub list_kind: &'static str,
    /// Go type name in decode errors (`v1.Pod`).
    pub go_type: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    /// `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    /// `v1` or `apps/v1`.
    pub api_version: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    pub subresources: &'static [&'static str],
    /// The etcd key segment after `/registry/`.
    pub registry: &'static str,
    /// Field selector labels the real conversion functions accept.
    pub field_labels: &'static [&'static str],
}

const META_FIELDS: &[&str] = &["metadata.name", "metadata.namespace"];

/// Every served resource, in discovery order.
pub const RESOURCES: [ResourceInfo; 7] = [
    ResourceInfo {
        kind: Kind::Namespace,
        kind_name: "Namespace",
        list_kind: "NamespaceList",
        go_type: "v1.Namespace",
        plural: "namespaces",
        singular: "namespace",
        group: "",
        version: "v1",
        api_version: "v1",
        namespaced: false,
        short_names: &["ns"],
        subresources: &["status"],
        registry: "namespaces",
        field_labels: &["metadata.name", "metadata.namespace", "status.phase"],
    },
    ResourceInfo {
        kind: Kind::Node,
        kind_name: "Node",
        list_kind: "NodeList",
        go_type: "v1.Node",
        plural: "nodes",
        singular: "node",
        group: "",
        version: "v1",
        api_version: "v1",
        namespaced: false,
        short_names: &["no"],
        subresources: &["status"],
        registry: "minions",
        field_labels: &["metadata.name", "metadata.namespace", "spec.unschedulable"],
    },
    ResourceInfo {
        kind: Kind::Pod,
        kind_name: "Pod",
        list_kind: "PodList",
        go_type: "v1.Pod",
        plural: "pods",
        singular: "pod",
        group: "",
        version: "v1",
        api_version: "v1",
        namespaced: true,
        short_names: &["po"],
        subresources: &["status", "binding"],
        registry: "pods",
        field_labels: &[
            "metadata.name",
            "metadata.namespace",
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.podIPs",
            "status.nominatedNodeName",
        ],
    },
    ResourceInfo {
        kind: Kind::ReplicaSet,
        kind_name: "ReplicaSet",
        list_kind: "ReplicaSetList",
        go_type: "v1.ReplicaSet",
        plural: "replicasets",
        singular: "replicaset",
        group: "apps",
        version: "v1",
        api_version: "apps/v1",
        namespaced: true,
        short_names: &["rs"],
        subresources: &["status"],
        registry: "replicasets",
        field_labels: &["metadata.name", "metadata.namespace", "status.replicas"],
    },
    ResourceInfo {
        kind: Kind::Deployment,
        kind_name: "Deployment",
        list_kind: "DeploymentList",
        go_type: "v1.Deployment",
        plural: "deployments",
        singular: "deployment",
        group: "apps",
        version: "v1",
        api_version: "apps/v1",
        namespaced: true,
        short_names: &["deploy"],
        subresources: &["status"],
        registry: "deployments",
        field_labels: META_FIELDS,
    },
    ResourceInfo {
        kind: Kind::Event,
        kind_name: "Event",
        list_kind: "EventList",
        go_type: "v1.Event",
        plural: "events",
        singular: "event",
        group: "",
        version: "v1",
        api_version: "v1",
        namespaced: true,
        short_names: &["ev"],
        subresources: &[],
        registry: "events",
        field_labels: &[
            "metadata.name",
            "metadata.namespace",
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
    },
    ResourceInfo {
        kind: Kind::Lease,
        kind_name: "Lease",
        list_kind: "LeaseList",
        go_type: "v1.Lease",
        plural: "leases",
        singular: "lease",
        group: "coordination.k8s.io",
        version: "v1",
        api_version: "coordination.k8s.io/v1",
        namespaced: true,
        short_names: &[],
        subresources: &[],
        registry: "leases",
        field_labels: META_FIELDS,
    },
];

/// The table row of `kind`.
pub fn of(kind: Kind) -> &'static ResourceInfo {
    match kind {
        Kind::Namespace => &RESOURCES[0],
        Kind::Node => &RESOURCES[1],
        Kind::Pod => &RESOURCES[2],
        Kind::ReplicaSet => &RESOURCES[3],
        Kind::Deployment => &RESOURCES[4],
        Kind::Event => &RESOURCES[5],
        Kind::Lease => &RESOURCES[6],
    }
}

/// The resource a URL names (`group`, `version`, plural), as the server routes it.
pub fn lookup(group: &str, version: &str, plural: &str) -> Option<&'static ResourceInfo> {
    RESOURCES
        .iter()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
}

/// What kubectl accepts as a resource argument: plural, singular, short name, kind (any case),
/// or `plural.group` (`deployments.apps`).
pub fn resolve(name: &str) -> Option<&'static ResourceInfo> {
    let lower = name.to_ascii_lowercase();
    RESOURCES.iter().find(|r| {
        r.plural == lower
            || r.singular == lower
            || r.short_names.contains(&lower.as_str())
            || (!r.group.is_empty()
                && (lower == format!("{}.{}", r.plural, r.group)
                    || lower == format!("{}.{}", r.singular, r.group)))
    })
}

impl ResourceInfo {
    /// `pods`, `deployments.apps` (as errors name it).
    pub fn group_resource(&self) -> GroupResource {
        GroupResource {
            group: self.group.to_string(),
            resource: self.plural.to_string(),
        }
    }

    /// The etcd key of one object: `/registry/pods/default/web`, `/registry/minions/node-a`.
    pub fn key(&self, namespace: &str, name: &str) -> String {
        if self.namespaced {
            format!("/registry/{}/{namespace}/{name}", self.registry)
        } else {
            format!("/registry/{}/{name}", self.registry)
        }
    }

    /// The prefix every key of this resource (in `namespace`, if given and namespaced) starts with.
    pub fn prefix(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => format!("/registry/{}/{ns}/", self.registry),
            _ => format!("/registry/{}/", self.registry),
        }
    }

    /// The URL path of one object or of the collection (`/apis/apps/v1/namespaces/x/deployments`).
    pub fn path(&self, namespace: Option<&str>, name: Option<&str>) -> String {
        let mut p = if self.group.is_empty() {
            "/api/v1".to_string()
        } else {
            format!("/apis/{}", self.api_version)
        };
        if let (true, Some(ns)) = (self.namespaced, namespace) {
            p.push_str("/namespaces/");
            p.push_str(ns);
        }
        p.push('/');
        p.push_str(self.plural);
        if let Some(n) = name {
            p.push('/');
            p.push_str(n);
        }
        p
    }

    /// Refuses field selectors on labels this resource does not support, with the real
    /// 400 text `field label not supported: x`.
    pub fn check_field_selector(&self, selector: &FieldSelector) -> Result<(), Status> {
        match selector
            .requirements()
            .iter()
            .find(|r| !self.field_labels.contains(&r.field.as_str()))
        {
            Some(r) => Err(Status::bad_request(&format!(
                "field label not supported: {}",
                r.field
            ))),
            None => Ok(()),
        }
    }
}

fn bool_text(b: bool) -> String {
    if b { "true" } else { "false" }.to_string()
}

/// The value of a supported field label on `obj` (what field selectors compare against).
pub fn field_value(obj: &Object, field: &str) -> Option<String> {
    let meta = obj.meta();
    match field {
        "metadata.name" => return Some(meta.name.clone()),
        "metadata.namespace" => return Some(meta.namespace.clone()),
        _ => {}
    }
    match obj {
        Object::Pod(p) => Some(match field {
            "spec.nodeName" => p.spec.node_name.clone(),
            "spec.restartPolicy" => p.spec.restart_policy.clone().unwrap_or_default(),
            "spec.schedulerName" => p.spec.scheduler_name.clone().unwrap_or_default(),
            "spec.serviceAccountName" => p.spec.service_account_name.clone(),
            "spec.hostNetwork" => bool_text(p.spec.host_network),
            "status.phase" => p.status.phase.clone(),
            "status.podIP" | "status.podIPs" => p.status.pod_ip.clone(),
            "status.nominatedNodeName" => p.status.nominated_node_name.clone(),
            _ => return None,
        }),
        Object::Node(n) => match field {
            "spec.unschedulable" => Some(bool_text(n.spec.unschedulable)),
            _ => None,
        },
        Object::Namespace(n) => match field {
            "status.phase" => Some(n.status.phase.clone()),
            _ => None,
        },
        Object::ReplicaSet(r) => match field {
            "status.replicas" => Some(r.status.replicas.to_string()),
            _ => None,
        },
        Object::Event(e) => {
            let io = &e.involved_object;
            Some(match field {
                "involvedObject.kind" => io.kind.clone(),
                "involvedObject.namespace" => io.namespace.clone(),
                "involvedObject.name" => io.name.clone(),
                "involvedObject.uid" => io.uid.clone(),
                "involvedObject.apiVersion" => io.api_version.clone(),
                "involvedObject.resourceVersion" => io.resource_version.clone(),
                "involvedObject.fieldPath" => io.field_path.clone(),
                "reason" => e.reason.clone(),
                "reportingComponent" => e.reporting_component.clone(),
                "source" => e.source.component.clone(),
                "type" => e.type_.clone(),
                _ => return None,
            })
        }
        Object::Deployment(_) | Object::Lease(_) => None,
    }
}

/// The `spec.nodeName` of a pod (the watch fan-out indexes kubelet watchers by it).
pub fn node_name(obj: &Object) -> Option<&str> {
    obj.as_pod().map(|p| p.spec.node_name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pod::Pod;

    #[test]
    fn keys_follow_the_real_registry_layout() {
        assert_eq!(
            of(Kind::Pod).key("default", "web"),
            "/registry/pods/default/web"
        );
        assert_eq!(of(Kind::Node).key("", "node-a"), "/registry/minions/node-a");
        assert_eq!(
            of(Kind::Deployment).key("prod", "api"),
            "/registry/deployments/prod/api"
        );
        assert_eq!(
            of(Kind::Namespace).prefix(Some("x")),
            "/registry/namespaces/"
        );
        assert_eq!(of(Kind::Pod).prefix(Some("a")), "/registry/pods/a/");
    }

    #[test]
    fn table_is_consistent_with_kinds() {
        for k in Kind::ALL {
            assert_eq!(of(k).kind, k);
            assert_eq!(
                lookup(of(k).group, "v1", of(k).plural).map(|r| r.kind),
                Some(k)
            );
        }
        assert_eq!(resolve("po").map(|r| r.kind), Some(Kind::Pod));
        assert_eq!(
            resolve("deployments.apps").map(|r| r.kind),
            Some(Kind::Deployment)
        );
        assert_eq!(resolve("Deploy").map(|r| r.kind), Some(Kind::Deployment));
        assert_eq!(resolve("widgets"), None);
        assert_eq!(
            of(Kind::Deployment).path(Some("p"), Some("d")),
            "/apis/apps/v1/namespaces/p/deployments/d"
        );
        assert_eq!(of(Kind::Node).path(Some("p"), None), "/api/v1/nodes");
    }

    #[test]
    fn pod_fields_have_values() {
        let mut p = Pod::default();
        p.spec.node_name = "node-a".into();
        let o = Object::Pod(p);
        assert_eq!(field_value(&o, "spec.nodeName").as_deref(), Some("node-a"));
        assert_eq!(
            field_value(&o, "spec.hostNetwork").as_deref(),
            Some("false")
        );
        assert_eq!(field_value(&o, "spec.bogus"), None);
        for f in of(Kind::Pod).field_labels {
            assert!(field_value(&o, f).is_some(), "{f}");
        }
    }
}
