//! The OpenAPI v3 documents through the API server's JSON edge, as kubectl reads them: the
//! index names every served group-version (the ones discovery lists) at a URL that answers its
//! document; each document has every served kind's schema with its group-version-kind, and
//! PATCH operations that take `fieldValidation` (what makes kubectl leave validation to the
//! server); a custom resource's document appears with its definition and goes with it.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn get(s: &mut ApiServer, path: &str) -> (u16, Value) {
    let r = s.request("GET", path, None, None);
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

/// Every group-version discovery lists (`api/v1`, `apis/<group>/<version>`).
fn discovered(s: &mut ApiServer) -> Vec<String> {
    let (_, groups) = get(s, "/apis");
    let mut out = vec!["api/v1".to_string()];
    for g in groups["groups"].as_array().into_iter().flatten() {
        out.push(format!(
            "apis/{}",
            g["preferredVersion"]["groupVersion"]
                .as_str()
                .unwrap_or_default()
        ));
    }
    out
}

/// The document the index points at for `gv_path`.
fn document(s: &mut ApiServer, gv_path: &str) -> Option<Value> {
    let (code, index) = get(s, "/openapi/v3");
    assert_eq!(code, 200, "{index}");
    let url = index["paths"][gv_path]["serverRelativeURL"].as_str()?;
    assert!(
        url.starts_with(&format!("/openapi/v3/{gv_path}?hash=")),
        "{url}"
    );
    let (code, doc) = get(s, url);
    assert_eq!(code, 200, "{gv_path}: {doc}");
    Some(doc)
}

/// The PATCH operations of `doc` for `kind`, with their paths.
fn patches<'a>(doc: &'a Value, group: &str, kind: &str) -> Vec<(&'a str, &'a Value)> {
    doc["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(path, item)| Some((path.as_str(), item.get("patch")?)))
        .filter(|(_, op)| {
            op["x-kubernetes-group-version-kind"]["kind"] == kind
                && op["x-kubernetes-group-version-kind"]["group"] == group
        })
        .collect()
}

fn has_query(op: &Value, name: &str) -> bool {
    op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| p["name"] == name && p["in"] == "query")
}

/// The component whose `x-kubernetes-group-version-kind` list names `kind`.
fn schema_of<'a>(doc: &'a Value, group: &str, version: &str, kind: &str) -> Option<&'a Value> {
    let gvk = json!({"group": group, "version": version, "kind": kind});
    doc["components"]["schemas"]
        .as_object()?
        .values()
        .find(|s| {
            s["x-kubernetes-group-version-kind"]
                .as_array()
                .is_some_and(|l| l.contains(&gvk))
        })
}

#[test]
fn the_index_lists_every_discovered_group_version_and_nothing_else() {
    let mut s = ApiServer::new(1);
    let served = discovered(&mut s);
    let (_, index) = get(&mut s, "/openapi/v3/");
    let mut listed: Vec<String> = index["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k.clone())
        .collect();
    listed.sort();
    let mut expected = served.clone();
    expected.sort();
    assert_eq!(listed, expected);
    for gv in &served {
        assert!(document(&mut s, gv).is_some(), "{gv}");
    }
    assert_eq!(get(&mut s, "/openapi/v3/apis/apps/v2").0, 404);
    assert_eq!(get(&mut s, "/openapi/v2").0, 404);
}

#[test]
fn every_served_kind_has_its_schema_and_a_patch_that_takes_field_validation() {
    let mut s = ApiServer::new(1);
    for gv in discovered(&mut s) {
        let doc = document(&mut s, &gv).unwrap_or_default();
        let (_, list) = get(&mut s, &format!("/{gv}"));
        let group_version = list["groupVersion"].as_str().unwrap_or_default();
        let (group, version) = group_version.split_once('/').unwrap_or(("", group_version));
        for r in list["resources"].as_array().into_iter().flatten() {
            let name = r["name"].as_str().unwrap_or_default();
            let kind = r["kind"].as_str().unwrap_or_default();
            if name.contains('/') {
                continue;
            }
            assert!(
                schema_of(&doc, group, version, kind).is_some(),
                "{gv}: no schema for {kind}"
            );
            let verbs = r["verbs"].to_string();
            let ops = patches(&doc, group, kind);
            if verbs.contains("\"patch\"") {
                assert!(!ops.is_empty(), "{gv}: no PATCH for {kind}");
            }
            for (path, op) in ops {
                for q in ["fieldValidation", "dryRun", "fieldManager"] {
                    assert!(has_query(op, q), "{path}: no {q}");
                }
            }
        }
    }
}

#[test]
fn paths_and_schemas_are_what_kubectl_reads() {
    let mut s = ApiServer::new(1);
    let apps = document(&mut s, "apis/apps/v1").unwrap_or_default();
    let paths = &apps["paths"];
    let item = &paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
    for method in ["get", "put", "patch", "delete"] {
        assert!(item.get(method).is_some(), "{method}");
    }
    assert_eq!(
        item["patch"]["x-kubernetes-group-version-kind"],
        json!({"group": "apps", "version": "v1", "kind": "Deployment"})
    );
    assert_eq!(
        paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["patch"]
            ["x-kubernetes-group-version-kind"]["kind"],
        "Scale"
    );
    assert!(paths["/apis/apps/v1/deployments"]["get"].is_object());
    let deployment = schema_of(&apps, "apps", "v1", "Deployment")
        .cloned()
        .unwrap_or_default();
    assert!(deployment["description"].is_string());
    let spec_ref = deployment["properties"]["spec"]["allOf"][0]["$ref"]
        .as_str()
        .unwrap_or_default();
    let spec = &apps["components"]["schemas"][spec_ref.trim_start_matches("#/components/schemas/")];
    assert_eq!(spec["properties"]["replicas"]["type"], "integer");
    assert_eq!(
        spec["properties"]["strategy"]["x-kubernetes-patch-strategy"],
        "retainKeys"
    );
    // The pod template's containers merge by name, as kubectl's strategic merge patch needs.
    let pod_spec = &apps["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"];
    assert_eq!(
        pod_spec["properties"]["containers"]["x-kubernetes-patch-merge-key"],
        "name"
    );
    // Namespaces have no deletecollection; nodes are cluster-scoped.
    let core = document(&mut s, "api/v1").unwrap_or_default();
    assert!(core["paths"]["/api/v1/namespaces"].get("delete").is_none());
    assert!(core["paths"]["/api/v1/nodes/{name}"]["patch"].is_object());
    assert!(core["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/log"]["get"].is_object());
}

fn crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "websites.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced",
        "names": {"plural": "websites", "singular": "website", "kind": "Website"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "description": "What the site serves.", "properties": {
              "host": {"type": "string", "description": "The site's host name."}}}}}}}]}})
}

#[test]
fn a_custom_resource_has_a_document_while_its_definition_is_established() {
    let mut s = ApiServer::new(1);
    assert!(document(&mut s, "apis/example.com/v1").is_none());
    let body = crd().to_string();
    let r = s.request("POST", CRDS, Some("application/json"), Some(&body));
    assert_eq!(r.code, 201, "{}", r.body);
    let doc = document(&mut s, "apis/example.com/v1").unwrap_or_default();
    let site = schema_of(&doc, "example.com", "v1", "Website")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        site["properties"]["spec"]["properties"]["host"]["description"],
        "The site's host name."
    );
    assert_eq!(site["properties"]["apiVersion"]["type"], "string");
    assert!(doc["components"]["schemas"]
        .as_object()
        .is_some_and(|m| m.contains_key("com.example.v1.Website")));
    let ops = patches(&doc, "example.com", "Website");
    assert!(!ops.is_empty() && ops.iter().all(|(_, op)| has_query(op, "fieldValidation")));
    let r = s.request(
        "DELETE",
        &format!("{CRDS}/websites.example.com"),
        None,
        None,
    );
    assert_eq!(r.code, 200, "{}", r.body);
    assert!(document(&mut s, "apis/example.com/v1").is_none());
    assert_eq!(get(&mut s, "/openapi/v3/apis/example.com/v1").0, 404);
}
