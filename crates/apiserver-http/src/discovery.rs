//! Discovery over the socket: the engine's documents ([`watchlab_engine::apiserver::discovery`],
//! derived from the server's registry) with what only a server on an address knows — `/api`'s
//! `serverAddressByClientCIDRs` — and `/version` as this server reports itself.

use serde_json::{json, Value};
use watchlab_engine::api::Registry;
use watchlab_engine::apiserver::discovery;

/// The version this server claims: the release whose behaviour the engine models.
pub const GIT_VERSION: &str = "v1.32.0-watchlab";

/// The answer for a discovery path of a server serving `registry`, `None` when `path` is not one.
pub fn document(registry: &Registry, path: &str, server_address: &str) -> Option<Value> {
    if path.trim_end_matches('/') == "/version" {
        return Some(version());
    }
    let mut doc = discovery::document(registry, path)?;
    if doc["kind"] == "APIVersions" {
        doc["serverAddressByClientCIDRs"] =
            json!([{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]);
    }
    Some(doc)
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
    fn the_engine_documents_with_this_server_address_and_version() {
        let reg = Registry::default();
        let api = document(&reg, "/api", "127.0.0.1:1").unwrap_or_default();
        assert_eq!(api["versions"], json!(["v1"]));
        assert_eq!(
            api["serverAddressByClientCIDRs"][0]["serverAddress"],
            "127.0.0.1:1"
        );
        assert!(document(&reg, "/apis/apps/v1", "x").is_some());
        assert!(document(&reg, "/api/v1/pods", "x").is_none());
        assert_eq!(
            document(&reg, "/version", "x").unwrap_or_default()["gitVersion"],
            GIT_VERSION
        );
    }
}
