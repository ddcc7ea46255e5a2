//! OpenAPI v3, the documents kubectl reads to learn what a kind looks like: `/openapi/v3` (the
//! index, one `serverRelativeURL` per group-version, with a hash of the document so a client's
//! cache can keep it) and `/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>` (one
//! document each: the paths of every served resource with their operations and query
//! parameters, and `components.schemas`, each kind's object schema).
//!
//! kubectl v1.32 needs them three times. `apply`/`create -f` validate by default
//! (`--validate=strict`): they look for `fieldValidation` among the parameters of the kind's
//! PATCH operation (found by its `x-kubernetes-group-version-kind`) and, when it is there,
//! leave the checking to the server (`?fieldValidation=Strict`); without the documents they
//! stop with `failed to download openapi`. `apply` computes its strategic merge patch from the
//! kind's schema (the component whose `x-kubernetes-group-version-kind` names it), so the list
//! fields carry the patch strategies and merge keys of the Go types. `explain` prints the
//! schemas and their descriptions.
//!
//! Everything is derived from what the server serves: the paths from the discovery documents
//! ([`super::discovery`], themselves from the [`Registry`]), a built-in kind's schema from the
//! generated table of its fields ([`types`], rooted at its `schema_root`), a custom resource's
//! from its CustomResourceDefinition's `openAPIV3Schema` — so a CRD's group has a document
//! from the moment it is established until it is deleted.
//!
//! [`v2`] translates the same documents into the single Swagger 2.0 document of `/openapi/v2`
//! ([`document_v2`]), which `kubectl explain --output=plaintext-openapiv2` reads.

mod descriptions;
mod paths;
mod schemas;
#[rustfmt::skip]
mod types;
pub mod v2;

use super::discovery;
use crate::api::Registry;
use serde_json::{json, Map, Value};

/// The index's path.
pub const ROOT: &str = "/openapi/v3";

/// Whether `path` (without its query) is an OpenAPI path: v3's index or documents, or v2's.
pub fn is_openapi_path(path: &str) -> bool {
    path.trim_end_matches('/') == ROOT || path.starts_with("/openapi/v3/") || v2::is_path(path)
}

/// The answer for `/openapi/v2` (query ignored), `None` for any other path. Apart from
/// [`document`], which answers v3 paths only.
pub fn document_v2(registry: &Registry, path: &str) -> Option<Value> {
    v2::is_path(path).then(|| v2::document(registry))
}

/// The answer for an OpenAPI v3 path (query ignored: the `hash` only keys clients' caches),
/// `None` when `path` is not one this server has.
pub fn document(registry: &Registry, path: &str) -> Option<Value> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let trimmed = path.trim_end_matches('/');
    if trimmed == ROOT {
        return Some(index(registry));
    }
    let gv_path = trimmed.strip_prefix(ROOT)?.strip_prefix('/')?;
    group_versions(registry)
        .into_iter()
        .any(|p| p == gv_path)
        .then(|| group_version_document(registry, gv_path))
        .flatten()
}

/// `/openapi/v3`: every group-version's document, at a URL naming its content's hash.
pub fn index(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for gv_path in group_versions(registry) {
        let Some(doc) = group_version_document(registry, &gv_path) else {
            continue;
        };
        let url = format!("{ROOT}/{gv_path}?hash={}", hash(&doc.to_string()));
        paths.insert(gv_path, json!({ "serverRelativeURL": url }));
    }
    json!({ "paths": paths })
}

/// The served group-versions as the index names them (`api/v1`, `apis/apps/v1`), in discovery
/// order: the core group, then every group `/apis` lists.
pub fn group_versions(registry: &Registry) -> Vec<String> {
    let mut out = vec!["api/v1".to_string()];
    let groups = discovery::document(registry, "/apis").unwrap_or_default();
    for g in groups["groups"].as_array().into_iter().flatten() {
        if let Some(gv) = g["preferredVersion"]["groupVersion"].as_str() {
            out.push(format!("apis/{gv}"));
        }
    }
    out
}

/// One group-version's document, from its discovery list (`api/v1` → `/api/v1`).
fn group_version_document(registry: &Registry, gv_path: &str) -> Option<Value> {
    let list = discovery::document(registry, &format!("/{gv_path}"))?;
    let (group, version) = match gv_path.strip_prefix("apis/") {
        Some(rest) => rest.split_once('/')?,
        None => ("", gv_path.strip_prefix("api/")?),
    };
    let mut components = schemas::Components::new(registry);
    let mut paths = Map::new();
    for entry in list["resources"].as_array().into_iter().flatten() {
        paths::add(&mut paths, &mut components, group, version, entry);
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": components.into_schemas()},
    }))
}

/// FNV-1a (64 bits) of the document, in upper-case hex (the real server's is a SHA-512): it
/// changes whenever the document does, which is all a client's cache needs.
fn hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016X}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_points_at_every_group_version_with_a_hash() {
        let reg = Registry::default();
        let index = document(&reg, "/openapi/v3/").unwrap_or_default();
        let url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
            .as_str()
            .unwrap_or_default();
        assert!(url.starts_with("/openapi/v3/apis/apps/v1?hash="), "{url}");
        assert!(document(&reg, url).is_some());
        assert!(document(&reg, "/openapi/v3/apis/apps/v2").is_none());
        // v2 is its own entry: one document for everything, not a v3 group-version.
        assert!(document(&reg, "/openapi/v2").is_none());
        let v2 = document_v2(&reg, "/openapi/v2").unwrap_or_default();
        assert_eq!(v2["swagger"], "2.0");
        assert!(document_v2(&reg, "/openapi/v3").is_none());
        assert!(is_openapi_path("/openapi/v3/api/v1") && is_openapi_path("/openapi/v2"));
        assert!(!is_openapi_path("/openapi/v1") && !is_openapi_path("/openapi/v2x"));
    }

    #[test]
    fn the_hash_follows_the_content() {
        assert_eq!(hash("a"), hash("a"));
        assert_ne!(hash("a"), hash("b"));
        assert_eq!(hash("").len(), 16);
    }
}
