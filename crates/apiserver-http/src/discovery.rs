//! Discovery, the documents a client reads before anything else to learn what the server serves:
//! `/api` (APIVersions), `/api/v1` and `/apis/<group>/<version>` (APIResourceList), `/apis`
//! (APIGroupList) and `/version`. They are derived from the engine's resource table so they can
//! never disagree with what the server routes. Only the legacy (unaggregated) forms are served:
//! kubectl 1.32 asks for `apidiscovery.k8s.io/v2` first and falls back when the answer's
//! Content-Type is plain `application/json`.

use serde_json::{json, Value};
use watchlab_engine::api::resource::{ResourceInfo, RESOURCES};

/// The version this server claims: the release whose behaviour the engine models.
pub const GIT_VERSION: &str = "v1.32.0-watchlab";

/// The verbs every served resource supports (the engine has no `deletecollection`).
const VERBS: [&str; 7] = [
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// `kubectl get all` lists the resources in the `all` category (pods, deployments, replicasets).
fn categories(r: &ResourceInfo) -> Vec<&'static str> {
    match r.plural {
        "pods" | "deployments" | "replicasets" => vec!["all"],
        _ => vec![],
    }
}

/// The answer for a discovery path, `None` when `path` is not one.
pub fn document(path: &str, server_address: &str) -> Option<Value> {
    let trimmed = path.trim_end_matches('/');
    match trimmed {
        "/api" => Some(json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
        })),
        "/apis" => Some(group_list()),
        "/version" => Some(version()),
        "/api/v1" => Some(resource_list("", "v1")),
        _ => {
            let rest = trimmed.strip_prefix("/apis/")?;
            let (group, version) = rest.split_once('/')?;
            if version.contains('/') || !groups().any(|g| g.0 == group && g.1 == version) {
                return None;
            }
            Some(resource_list(group, version))
        }
    }
}

/// The named groups and their one version each, in table order.
fn groups() -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in RESOURCES.iter().filter(|r| !r.group.is_empty()) {
        if !seen.contains(&(r.group, r.version)) {
            seen.push((r.group, r.version));
        }
    }
    seen.into_iter()
}

fn group_list() -> Value {
    let groups: Vec<Value> = groups()
        .map(|(name, version)| {
            let gv = json!({"groupVersion": format!("{name}/{version}"), "version": version});
            json!({"name": name, "versions": [gv.clone()], "preferredVersion": gv})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

fn resource_list(group: &str, version: &str) -> Value {
    let mut resources = Vec::new();
    for r in RESOURCES
        .iter()
        .filter(|r| r.group == group && r.version == version)
    {
        let mut main = json!({
            "name": r.plural,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind_name,
            "verbs": VERBS,
        });
        if !r.short_names.is_empty() {
            main["shortNames"] = json!(r.short_names);
        }
        let cats = categories(r);
        if !cats.is_empty() {
            main["categories"] = json!(cats);
        }
        resources.push(main);
        // `scale` is listed below with its own group and kind, whoever serves it.
        for sub in r.subresources.iter().filter(|s| **s != "scale") {
            let (kind, verbs): (&str, &[&str]) = match *sub {
                "binding" => ("Binding", &["create"]),
                _ => (r.kind_name, &["get", "patch", "update"]),
            };
            resources.push(json!({
                "name": format!("{}/{sub}", r.plural),
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": kind,
                "verbs": verbs,
            }));
        }
        if watchlab_engine::api::scale::has_scale(r.kind) {
            // Served by the engine's scale subresource, as `autoscaling/v1` `Scale`.
            resources.push(json!({
                "name": format!("{}/scale", r.plural),
                "singularName": "",
                "namespaced": r.namespaced,
                "group": "autoscaling",
                "version": "v1",
                "kind": "Scale",
                "verbs": ["get", "patch", "update"],
            }));
        }
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}

fn version() -> Value {
    json!({
        "major": "1",
        "minor": "32",
        "gitVersion": GIT_VERSION,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.23.3",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_come_from_the_resource_table() {
        let list = document("/apis", "127.0.0.1:1").unwrap_or_default();
        let names: Vec<&str> = list["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g["name"].as_str())
            .collect();
        assert_eq!(names, ["apps", "coordination.k8s.io"]);
        assert_eq!(
            list["groups"][0]["preferredVersion"]["groupVersion"],
            "apps/v1"
        );
    }

    #[test]
    fn core_resources_carry_kubectl_needs() {
        let list = document("/api/v1/", "x").unwrap_or_default();
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
        assert!(pods["verbs"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("watch"))));
        let names: Vec<&str> = list["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"pods/binding") && names.contains(&"nodes"));
    }

    #[test]
    fn deployments_have_a_scale_subresource_and_unknown_paths_are_none() {
        let apps = document("/apis/apps/v1", "x").unwrap_or_default();
        assert!(apps["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["name"] == "deployments/scale" && r["group"] == "autoscaling"));
        assert!(document("/apis/apps/v2", "x").is_none());
        assert!(document("/apis/apps/v1/deployments", "x").is_none());
        assert!(document("/api/v1/pods", "x").is_none());
        assert_eq!(
            document("/version", "x").unwrap_or_default()["gitVersion"],
            GIT_VERSION
        );
    }
}
