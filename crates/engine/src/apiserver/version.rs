//! `GET /version`: the `version.Info` the server reports, so `kubectl version` and clients that
//! gate features on the server version see the Kubernetes release this playground models.

use serde::Serialize;

/// `k8s.io/apimachinery/pkg/version.Info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    pub major: &'static str,
    pub minor: &'static str,
    pub git_version: &'static str,
    pub git_commit: &'static str,
    pub git_tree_state: &'static str,
    pub build_date: &'static str,
    pub go_version: &'static str,
    pub compiler: &'static str,
    pub platform: &'static str,
}

/// What the official v1.32.0 kube-apiserver (linux/amd64) answers.
pub const VERSION: VersionInfo = VersionInfo {
    major: "1",
    minor: "32",
    git_version: "v1.32.0",
    git_commit: "70d3cc986aa8221cd1dfb1121852688902d3bf53",
    git_tree_state: "clean",
    build_date: "2024-12-11T17:59:15Z",
    go_version: "go1.23.3",
    compiler: "gc",
    platform: "linux/amd64",
};

impl VersionInfo {
    /// The JSON body, indented as the real server writes it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
