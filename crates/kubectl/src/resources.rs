//! The resource types watchlab serves, with every name kubectl accepts for them. Real kubectl
//! learns these from discovery (`/api/v1`, `/apis`); the playground's set is fixed, so the table
//! is static and mirrors what discovery would say (plural, singular, short names, group/version,
//! kind, namespaced). It also builds the REST paths kubectl uses.

/// One served resource type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceType {
    /// Plural resource name, as in the path (`pods`).
    pub plural: &'static str,
    pub singular: &'static str,
    pub short_names: &'static [&'static str],
    /// API group; "" for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

/// The served types, in `kubectl api-resources` order (core group first, then by group).
pub const RESOURCES: &[ResourceType] = &[
    ResourceType {
        plural: "events",
        singular: "event",
        short_names: &["ev"],
        group: "",
        version: "v1",
        kind: "Event",
        namespaced: true,
    },
    ResourceType {
        plural: "namespaces",
        singular: "namespace",
        short_names: &["ns"],
        group: "",
        version: "v1",
        kind: "Namespace",
        namespaced: false,
    },
    ResourceType {
        plural: "nodes",
        singular: "node",
        short_names: &["no"],
        group: "",
        version: "v1",
        kind: "Node",
        namespaced: false,
    },
    ResourceType {
        plural: "pods",
        singular: "pod",
        short_names: &["po"],
        group: "",
        version: "v1",
        kind: "Pod",
        namespaced: true,
    },
    ResourceType {
        plural: "deployments",
        singular: "deployment",
        short_names: &["deploy"],
        group: "apps",
        version: "v1",
        kind: "Deployment",
        namespaced: true,
    },
    ResourceType {
        plural: "replicasets",
        singular: "replicaset",
        short_names: &["rs"],
        group: "apps",
        version: "v1",
        kind: "ReplicaSet",
        namespaced: true,
    },
    ResourceType {
        plural: "leases",
        singular: "lease",
        short_names: &[],
        group: "coordination.k8s.io",
        version: "v1",
        kind: "Lease",
        namespaced: true,
    },
];

/// Finds a type by any name kubectl accepts: plural, singular, short name, kind, optionally
/// qualified by group (`deployments.apps`) or version and group (`deployments.v1.apps`);
/// case-insensitive like kubectl's RESTMapper.
pub fn lookup(name: &str) -> Option<&'static ResourceType> {
    let lower = name.to_ascii_lowercase();
    let (base, qualifier) = match lower.split_once('.') {
        Some((b, q)) => (b.to_string(), Some(q.to_string())),
        None => (lower, None),
    };
    RESOURCES.iter().find(|r| {
        let name_matches = r.plural == base
            || r.singular == base
            || r.short_names.contains(&base.as_str())
            || r.kind.eq_ignore_ascii_case(&base);
        let qualifier_matches = match &qualifier {
            None => true,
            Some(q) => *q == r.group || *q == format!("{}.{}", r.version, r.group),
        };
        name_matches && qualifier_matches
    })
}

impl ResourceType {
    /// `apps/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `deployments.apps` / `pods`: how the API server names it in errors.
    pub fn group_resource(&self) -> String {
        qualified(self.plural, self.group)
    }

    /// `deployment.apps` / `pod`: how kubectl prefixes names in its messages (`deployment.apps/x`).
    pub fn kind_prefix(&self) -> String {
        qualified(&self.kind.to_ascii_lowercase(), self.group)
    }

    /// `/api/v1` or `/apis/apps/v1`.
    fn group_version_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// The collection path: namespaced types under `namespaces/<ns>` unless `ns` is None
    /// (all namespaces).
    pub fn collection_path(&self, ns: Option<&str>) -> String {
        match (self.namespaced, ns) {
            (true, Some(ns)) => format!(
                "{}/namespaces/{}/{}",
                self.group_version_path(),
                ns,
                self.plural
            ),
            _ => format!("{}/{}", self.group_version_path(), self.plural),
        }
    }

    /// The path of one object.
    pub fn object_path(&self, ns: &str, name: &str) -> String {
        format!("{}/{}", self.collection_path(Some(ns)), name)
    }
}

fn qualified(name: &str, group: &str) -> String {
    if group.is_empty() {
        name.to_string()
    } else {
        format!("{name}.{group}")
    }
}

/// Finds the type of a manifest by its `apiVersion` and `kind`.
pub fn by_kind(api_version: &str, kind: &str) -> Option<&'static ResourceType> {
    RESOURCES
        .iter()
        .find(|r| r.kind == kind && r.api_version() == api_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_resolves() {
        for (alias, plural) in [
            ("pods", "pods"),
            ("pod", "pods"),
            ("po", "pods"),
            ("Pod", "pods"),
            ("nodes", "nodes"),
            ("no", "nodes"),
            ("ns", "namespaces"),
            ("deploy", "deployments"),
            ("deployment.apps", "deployments"),
            ("deployments.v1.apps", "deployments"),
            ("rs", "replicasets"),
            ("ev", "events"),
            ("leases", "leases"),
            ("lease.coordination.k8s.io", "leases"),
        ] {
            assert_eq!(lookup(alias).map(|r| r.plural), Some(plural), "{alias}");
        }
        assert!(lookup("foos").is_none());
        assert!(lookup("pods.apps").is_none());
    }

    #[test]
    fn paths_and_names() {
        let deploy = lookup("deploy").unwrap();
        assert_eq!(
            deploy.object_path("production", "orders-api"),
            "/apis/apps/v1/namespaces/production/deployments/orders-api"
        );
        assert_eq!(deploy.collection_path(None), "/apis/apps/v1/deployments");
        assert_eq!(deploy.kind_prefix(), "deployment.apps");
        assert_eq!(deploy.group_resource(), "deployments.apps");
        let node = lookup("node").unwrap();
        assert_eq!(
            node.object_path("default", "node-a"),
            "/api/v1/nodes/node-a"
        );
        assert_eq!(by_kind("apps/v1", "Deployment"), Some(deploy));
        assert_eq!(by_kind("v1", "Deployment"), None);
    }
}
