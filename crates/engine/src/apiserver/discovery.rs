//! Discovery, the documents a client reads before anything else to learn what the server serves:
//! `/api` (APIVersions), `/api/v1` and `/apis/<group>/<version>` (APIResourceList) and `/apis`
//! (APIGroupList). They are derived from the server's [`Registry`], the same one that routes
//! requests, so they can never disagree with what is served — a custom resource appears here
//! the moment it is registered. Only the legacy (unaggregated) forms are served: kubectl 1.32
//! asks for `apidiscovery.k8s.io/v2` first and falls back when the answer's Content-Type is
//! plain `application/json`.

use super::authorization;
use super::metrics;
use crate::api::resource::ResourceInfo;
use crate::api::Registry;
use serde_json::{json, Value};

/// The verbs a served resource advertises, in the real server's (sorted) order; `deletecollection`
/// only where the collection answers DELETE ([`ResourceInfo::delete_collection`]).
const VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn verbs(r: &ResourceInfo) -> Vec<&'static str> {
    VERBS
        .into_iter()
        .filter(|v| r.delete_collection || *v != "deletecollection")
        .collect()
}

/// Whether `path` (without its query) is a discovery document's.
pub fn is_discovery_path(registry: &Registry, path: &str) -> bool {
    document(registry, path).is_some()
}

/// The answer for a discovery path, `None` when `path` is not one. `/api` carries no
/// `serverAddressByClientCIDRs` here; a server on a socket adds its own address.
pub fn document(registry: &Registry, path: &str) -> Option<Value> {
    let trimmed = path.trim_end_matches('/');
    match trimmed {
        "/api" => Some(json!({"kind": "APIVersions", "versions": ["v1"]})),
        "/apis" => Some(group_list(registry)),
        "/api/v1" => Some(resource_list(registry, "", "v1")),
        _ => {
            let rest = trimmed.strip_prefix("/apis/")?;
            if rest == format!("{}/{}", authorization::GROUP, authorization::VERSION) {
                return Some(authorization_list());
            }
            if rest == format!("{}/{}", metrics::GROUP, metrics::VERSION) {
                return Some(metrics_list());
            }
            let (group, version) = rest.split_once('/')?;
            if version.contains('/') || !registry.groups().contains(&(group, version)) {
                return None;
            }
            Some(resource_list(registry, group, version))
        }
    }
}

/// The named groups in discovery order: the registry's, with `authorization.k8s.io` after
/// `apps` and `events.k8s.io` (as kube-apiserver's group priorities order them), whose
/// reviews are not objects.
fn groups(registry: &Registry) -> Vec<(&'static str, &'static str)> {
    let mut groups = registry.groups();
    let at = groups
        .iter()
        .rposition(|(g, _)| matches!(*g, "apps" | "events.k8s.io"))
        .map_or(0, |i| i + 1);
    groups.insert(at, (authorization::GROUP, authorization::VERSION));
    // An aggregated group (an APIService of metrics-server) comes after the built-in ones.
    groups.push((metrics::GROUP, metrics::VERSION));
    groups
}

/// `/apis/metrics.k8s.io/v1beta1`: metrics-server's read-only NodeMetrics and PodMetrics.
fn metrics_list() -> Value {
    json!({"kind": "APIResourceList", "apiVersion": "v1",
           "groupVersion": metrics::API_VERSION,
           "resources": metrics::discovery_resources()})
}

/// `/apis/authorization.k8s.io/v1`: the create-only self reviews.
fn authorization_list() -> Value {
    json!({"kind": "APIResourceList", "apiVersion": "v1",
           "groupVersion": authorization::API_VERSION,
           "resources": authorization::discovery_resources()})
}

fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = groups(registry)
        .into_iter()
        .map(|(name, version)| {
            let gv = json!({"groupVersion": format!("{name}/{version}"), "version": version});
            json!({"name": name, "versions": [gv.clone()], "preferredVersion": gv})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// The main resource's entry.
fn main_entry(r: &ResourceInfo) -> Value {
    let mut main = json!({
        "name": r.plural,
        "singularName": r.singular,
        "namespaced": r.namespaced,
        "kind": r.kind_name,
        "verbs": verbs(r),
    });
    if !r.short_names.is_empty() {
        main["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        main["categories"] = json!(r.categories);
    }
    main
}

/// A subresource's entry: `binding` creates a `Binding`, `finalize` only updates, `log` only reads, `scale` reads and writes an
/// `autoscaling/v1` `Scale`, `status` reads and writes the object itself.
fn subresource_entry(r: &ResourceInfo, sub: &str) -> Value {
    let mut entry = json!({
        "name": format!("{}/{sub}", r.plural),
        "singularName": "",
        "namespaced": r.namespaced,
        "kind": r.kind_name,
        "verbs": ["get", "patch", "update"],
    });
    match sub {
        "binding" => {
            entry["kind"] = json!("Binding");
            entry["verbs"] = json!(["create"]);
        }
        // `pods/eviction` takes a `policy/v1` Eviction (`kubectl drain` looks for it here).
        "eviction" => {
            entry["group"] = json!("policy");
            entry["version"] = json!("v1");
            entry["kind"] = json!("Eviction");
            entry["verbs"] = json!(["create"]);
        }
        "finalize" => entry["verbs"] = json!(["update"]),
        // `pods/log` is read only (`LogREST`: kind Pod, verb get).
        "log" => entry["verbs"] = json!(["get"]),
        "scale" => {
            entry["group"] = json!("autoscaling");
            entry["version"] = json!("v1");
            entry["kind"] = json!("Scale");
        }
        _ => {}
    }
    entry
}

fn resource_list(registry: &Registry, group: &str, version: &str) -> Value {
    let mut resources = Vec::new();
    for r in registry
        .resources()
        .filter(|r| r.group == group && r.version == version)
    {
        resources.push(main_entry(r));
        for sub in r.subresources {
            resources.push(subresource_entry(r, sub));
        }
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &Value, field: &str, key: &str) -> Vec<String> {
        list[field]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g[key].as_str().map(str::to_string))
            .collect()
    }

    #[test]
    fn groups_come_from_the_registry() {
        let reg = Registry::default();
        let list = document(&reg, "/apis").unwrap_or_default();
        assert_eq!(
            names(&list, "groups", "name"),
            [
                "apps",
                "events.k8s.io",
                "authorization.k8s.io",
                "coordination.k8s.io",
                "apiextensions.k8s.io",
                "discovery.k8s.io",
                "policy",
                "batch",
                "storage.k8s.io",
                "metrics.k8s.io"
            ]
        );
        assert_eq!(
            list["groups"][0]["preferredVersion"]["groupVersion"],
            "apps/v1"
        );
    }

    #[test]
    fn core_resources_carry_kubectl_needs() {
        let reg = Registry::default();
        let list = document(&reg, "/api/v1/").unwrap_or_default();
        let pods = list["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["name"] == "pods")
            .cloned()
            .unwrap_or_default();
        assert_eq!(pods["shortNames"], json!(["po"]));
        assert_eq!(pods["kind"], "Pod");
        assert_eq!(pods["namespaced"], true);
        assert_eq!(pods["categories"], json!(["all"]));
        assert!(pods["verbs"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("watch"))));
        let names = names(&list, "resources", "name");
        assert!(names.contains(&"pods/binding".to_string()) && names.contains(&"nodes".into()));
    }

    #[test]
    fn the_authorization_group_lists_its_create_only_reviews() {
        let reg = Registry::default();
        let list = document(&reg, "/apis/authorization.k8s.io/v1/").unwrap_or_default();
        assert_eq!(list["groupVersion"], "authorization.k8s.io/v1");
        assert_eq!(
            names(&list, "resources", "name"),
            ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]
        );
        for r in list["resources"].as_array().into_iter().flatten() {
            assert_eq!(r["verbs"], json!(["create"]));
            assert_eq!(r["namespaced"], false);
        }
        assert!(document(&reg, "/apis/authorization.k8s.io/v1beta1").is_none());
    }

    #[test]
    fn deployments_have_a_scale_subresource_and_unknown_paths_are_none() {
        let reg = Registry::default();
        let apps = document(&reg, "/apis/apps/v1").unwrap_or_default();
        assert!(apps["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["name"] == "deployments/scale" && r["group"] == "autoscaling"));
        assert!(document(&reg, "/apis/apps/v2").is_none());
        assert!(document(&reg, "/apis/apps/v1/deployments").is_none());
        assert!(document(&reg, "/api/v1/pods").is_none());
    }
}
