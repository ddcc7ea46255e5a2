//! The resource types the server serves, with every name kubectl accepts for them, learnt from
//! discovery as the real kubectl does: `/api` and `/api/v1`, then `/apis` and each group's
//! preferred version. A resource the server starts serving (a custom resource whose CRD was
//! just established) is known to the next command. It also builds the REST paths kubectl uses.

use crate::errors::CmdError;
use serde_json::Value;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::request::resource_path;
use watchlab_apimachinery::sort;

/// One served resource type, from an `APIResourceList` entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceType {
    /// Plural resource name, as in the path (`pods`).
    pub plural: String,
    pub singular: String,
    pub short_names: Vec<String>,
    /// API group; "" for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespaced: bool,
    /// `all` for what `kubectl get all` lists.
    pub categories: Vec<String>,
    /// What the server answers for it (`get`, `list`, `watch`...), as discovery lists them.
    pub verbs: Vec<String>,
}

/// What discovery said: the served types in the order names resolve (the core group, then the
/// groups in the server's order, each by name); `api-resources` sorts them by group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Discovery {
    types: Vec<ResourceType>,
}

/// The most group versions one discovery reads (a bound against a runaway server).
const MAX_GROUPS: usize = 256;

fn get_json(client: &mut dyn ApiClient, path: &str) -> Result<Value, CmdError> {
    let resp = client.request("GET", path, None, None);
    crate::errors::json_body(&resp)
}

impl Discovery {
    /// Reads `/api/v1`, `/apis` and every group's preferred version from the server.
    pub fn fetch(client: &mut dyn ApiClient) -> Result<Discovery, CmdError> {
        let mut lists = vec![get_json(client, "/api/v1")?];
        let groups = get_json(client, "/apis")?;
        for g in groups["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .take(MAX_GROUPS)
        {
            if let Some(gv) = g["preferredVersion"]["groupVersion"].as_str() {
                lists.push(get_json(client, &format!("/apis/{gv}"))?);
            }
        }
        Ok(Discovery::from_lists(&lists))
    }

    /// The types of `APIResourceList` documents (subresources left out), each list's entries
    /// by name.
    pub fn from_lists(lists: &[Value]) -> Discovery {
        let mut types = Vec::new();
        for list in lists {
            let gv = list["groupVersion"].as_str().unwrap_or_default();
            let (group, version) = gv.split_once('/').unwrap_or(("", gv));
            let strings = |v: &Value| -> Vec<String> {
                v.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            };
            let mut these: Vec<ResourceType> = list["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| {
                    let plural = r["name"].as_str()?;
                    if plural.contains('/') {
                        return None;
                    }
                    Some(ResourceType {
                        plural: plural.to_string(),
                        singular: r["singularName"].as_str().unwrap_or_default().to_string(),
                        short_names: strings(&r["shortNames"]),
                        group: group.to_string(),
                        version: version.to_string(),
                        kind: r["kind"].as_str().unwrap_or_default().to_string(),
                        namespaced: r["namespaced"].as_bool().unwrap_or_default(),
                        categories: strings(&r["categories"]),
                        verbs: strings(&r["verbs"]),
                    })
                })
                .collect();
            sort::sort_by(&mut these, |a, b| a.plural.cmp(&b.plural));
            types.extend(these);
        }
        Discovery { types }
    }

    /// Every served type.
    pub fn types(&self) -> &[ResourceType] {
        &self.types
    }

    /// Finds a type by any name kubectl accepts: plural, singular, short name, kind, optionally
    /// qualified by group (`deployments.apps`) or version and group (`deployments.v1.apps`);
    /// case-insensitive like kubectl's RESTMapper.
    pub fn lookup(&self, name: &str) -> Option<&ResourceType> {
        let lower = name.to_ascii_lowercase();
        let (base, qualifier) = match lower.split_once('.') {
            Some((b, q)) => (b.to_string(), Some(q.to_string())),
            None => (lower, None),
        };
        self.types.iter().find(|r| {
            let name_matches = r.plural == base
                || r.singular == base
                || r.short_names.contains(&base)
                || r.kind.eq_ignore_ascii_case(&base);
            let qualifier_matches = match &qualifier {
                None => true,
                Some(q) => *q == r.group || *q == format!("{}.{}", r.version, r.group),
            };
            name_matches && qualifier_matches
        })
    }

    /// The types in a discovery category (`all`).
    pub fn category(&self, name: &str) -> Vec<&ResourceType> {
        self.types
            .iter()
            .filter(|r| r.categories.iter().any(|c| c == name))
            .collect()
    }

    /// Finds the type of a manifest by its `apiVersion` and `kind`.
    pub fn by_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceType> {
        self.types
            .iter()
            .find(|r| r.kind == kind && r.api_version() == api_version)
    }
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
        qualified(&self.plural, &self.group)
    }

    /// `deployment.apps` / `pod`: how kubectl prefixes names in its messages (`deployment.apps/x`).
    pub fn kind_prefix(&self) -> String {
        kind_prefix(&self.kind, &self.group)
    }

    /// The collection path: namespaced types under `namespaces/<ns>` unless `ns` is None
    /// (all namespaces).
    pub fn collection_path(&self, ns: Option<&str>) -> String {
        let ns = ns.filter(|_| self.namespaced);
        resource_path(&self.api_version(), ns, &self.plural, None)
    }

    /// The path of one object.
    pub fn object_path(&self, ns: &str, name: &str) -> String {
        let ns = Some(ns).filter(|_| self.namespaced);
        resource_path(&self.api_version(), ns, &self.plural, Some(name))
    }
}

/// `deployment.apps` for kind `Deployment` of group `apps`, `pod` for the core group's `Pod`.
pub fn kind_prefix(kind: &str, group: &str) -> String {
    qualified(&kind.to_ascii_lowercase(), group)
}

fn qualified(name: &str, group: &str) -> String {
    if group.is_empty() {
        name.to_string()
    } else {
        format!("{name}.{group}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What watchlab's API server's discovery says.
    fn lookup(name: &str) -> Option<ResourceType> {
        let mut api = watchlab_engine::apiserver::ApiServer::new(1);
        Discovery::fetch(&mut api).unwrap().lookup(name).cloned()
    }

    fn by_kind(api_version: &str, kind: &str) -> Option<ResourceType> {
        let mut api = watchlab_engine::apiserver::ApiServer::new(1);
        Discovery::fetch(&mut api)
            .unwrap()
            .by_kind(api_version, kind)
            .cloned()
    }

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
            assert_eq!(
                lookup(alias).map(|r| r.plural).as_deref(),
                Some(plural),
                "{alias}"
            );
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
