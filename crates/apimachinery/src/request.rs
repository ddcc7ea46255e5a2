//! Request paths and query options: stub, being filled in.

use crate::fields::FieldSelector;
use crate::labels::LabelSelector;
use crate::status::Status;

/// What a request does (`RequestInfo.Verb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
    DeleteCollection,
}

/// What a resource request addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestInfo {
    pub verb: Verb,
    pub group: String,
    pub version: String,
    pub namespace: Option<String>,
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// `metav1.ResourceVersionMatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceVersionMatch {
    Exact,
    NotOlderThan,
}

/// `metav1.ListOptions`, decoded from the query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListOptions {
    pub label_selector: LabelSelector,
    pub field_selector: FieldSelector,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<ResourceVersionMatch>,
    pub limit: Option<u64>,
    pub continue_token: Option<String>,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    pub timeout_seconds: Option<u64>,
}

/// All query parameters the API server understands.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Query {
    pub list: ListOptions,
    pub dry_run: bool,
    pub field_manager: Option<String>,
    pub grace_period_seconds: Option<i64>,
    pub propagation_policy: Option<String>,
    pub pretty: bool,
}

pub fn parse_request(_method: &str, _path_and_query: &str) -> Result<(RequestInfo, Query), Status> {
    Err(Status::path_not_found())
}

pub fn percent_encode_query_value(s: &str) -> String {
    s.to_string()
}
