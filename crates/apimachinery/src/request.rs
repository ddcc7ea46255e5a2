//! Request paths and query strings → what a request asks for (the API server's
//! `RequestInfoFactory`, plus the decoding and validation of `metav1.ListOptions` & co).
//!
//! Every client — kubectl, informers, the UI — speaks to the API server in URLs such as
//! `/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx`. This module turns a
//! method and such a URL into a [`RequestInfo`] (verb, group, version, namespace, resource,
//! name, subresource) and a [`Query`] (selectors, resourceVersion, limit, continue, bookmarks,
//! dry run...), or into the `Status` the real API server would answer: 404 for paths no handler
//! serves, 405 for methods a route does not take, 400 for undecodable parameters and 422 for
//! option combinations `ValidateListOptions` / `ValidateDeleteOptions` refuse. Whether the
//! resource exists is for the API server's resource table to say, not for this module.

use crate::fields::FieldSelector;
use crate::labels::LabelSelector;
use crate::status::{GroupResource, Status};
use crate::validation::{BadValue, FieldError};
use percent_encoding::{percent_decode_str, AsciiSet, NON_ALPHANUMERIC};
use std::collections::BTreeMap;
use std::fmt;

/// What a request does (`RequestInfo.Verb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

impl Verb {
    /// The verb as Kubernetes spells it (in audit logs, RBAC rules, `MethodNotSupported`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a resource request addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestInfo {
    pub verb: Verb,
    /// `""` for the core group (`/api/v1`).
    pub group: String,
    pub version: String,
    /// The namespace of a namespaced path (`/namespaces/<ns>/<resource>...`); `None` for
    /// cluster-wide paths, including the namespace object itself (`/api/v1/namespaces/<name>`).
    pub namespace: Option<String>,
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

impl RequestInfo {
    /// The resource with its group, as errors name it (`pods`, `deployments.apps`).
    pub fn group_resource(&self) -> GroupResource {
        GroupResource::new(&self.group, &self.resource)
    }
}

/// `metav1.ResourceVersionMatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceVersionMatch {
    Exact,
    NotOlderThan,
}

impl ResourceVersionMatch {
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceVersionMatch::Exact => "Exact",
            ResourceVersionMatch::NotOlderThan => "NotOlderThan",
        }
    }
}

/// `metav1.ListOptions`, decoded from the query of a list or watch (for a get, only
/// `resource_version` is read, as `GetOptions` has nothing else).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListOptions {
    pub label_selector: LabelSelector,
    pub field_selector: FieldSelector,
    /// `None` when absent or empty (the real server treats both as "most recent").
    pub resource_version: Option<String>,
    pub resource_version_match: Option<ResourceVersionMatch>,
    /// `None` when absent or not positive (no paging).
    pub limit: Option<u64>,
    pub continue_token: Option<String>,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    /// `None` when absent or negative (the server then picks its own timeout).
    pub timeout_seconds: Option<u64>,
}

impl ListOptions {
    /// `resourceVersion=0`: any version the server has is good enough, so the API server
    /// answers from its watch cache without asking etcd (what an informer's first list asks).
    pub fn from_cache() -> Self {
        ListOptions {
            resource_version: Some("0".to_string()),
            ..ListOptions::default()
        }
    }
}

/// All query parameters the API server understands, per the request's verb.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Query {
    pub list: ListOptions,
    /// `dryRun=All` (create, update, patch, delete).
    pub dry_run: bool,
    /// `fieldManager` (create, update, patch).
    pub field_manager: Option<String>,
    /// `gracePeriodSeconds` (delete).
    pub grace_period_seconds: Option<i64>,
    /// `propagationPolicy`: `Orphan`, `Background` or `Foreground` (delete).
    pub propagation_policy: Option<String>,
    /// `force` (server-side apply patches).
    pub force: bool,
    /// `fieldValidation` (create, update, patch): what unknown or duplicate fields in the body
    /// cost. The real default when absent is `Warn` (`handlers.fieldValidation`).
    pub field_validation: FieldValidation,
    pub pretty: bool,
}

/// `fieldValidation`: `Strict` refuses a body with unknown or duplicate fields (400), `Warn`
/// accepts it with a `Warning` header per field, `Ignore` drops them silently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldValidation {
    Ignore,
    #[default]
    Warn,
    Strict,
}

/// The 405 a route answers to a method it does not take.
fn method_not_allowed() -> Status {
    Status::method_not_allowed("the server does not allow this method on the requested resource")
}

/// Parses a request the way the API server's routing does. Rules, as in Kubernetes:
///
/// * `GET` (or `HEAD`) with a name is `Get`; without, `List`, or `Watch` when `watch` is set
///   (anything but `0`/`false`) or the path has the legacy `/watch/` prefix.
/// * `POST` is `Create` on a collection or on a subresource (`pods/<name>/binding`).
/// * `PUT` is `Update`, `PATCH` is `Patch`, both of a named object.
/// * `DELETE` with a name is `Delete`, without one `DeleteCollection`.
pub fn parse_request(method: &str, path_and_query: &str) -> Result<(RequestInfo, Query), Status> {
    let without_fragment = path_and_query
        .split_once('#')
        .map_or(path_and_query, |(before, _)| before);
    let (path, query) = without_fragment
        .split_once('?')
        .unwrap_or((without_fragment, ""));
    let params = QueryParams::parse(query);
    let path = percent_decode_str(path).decode_utf8_lossy();
    let segments: Vec<&str> = match path.strip_prefix('/') {
        Some(rest) => rest.split('/').collect(),
        None => return Err(Status::path_not_found()),
    };
    if segments.iter().any(|s| s.is_empty()) {
        return Err(Status::path_not_found());
    }
    let (group, version, mut rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return Err(Status::path_not_found()),
    };
    let mut watch_path = false;
    match rest {
        ["watch", tail @ ..] => {
            watch_path = true;
            rest = tail;
        }
        ["proxy", ..] => return Err(Status::path_not_found()),
        _ => {}
    }
    if rest.is_empty() {
        // `/api/v1`, `/apis/apps/v1`: discovery, not a resource request.
        return Err(Status::path_not_found());
    }
    // `/namespaces/<ns>/<resource>...` is namespaced; `/namespaces/<name>[/status|/finalize]`
    // is the namespace object itself.
    let mut namespace = None;
    if let ["namespaces", ns, tail @ ..] = rest {
        if let Some(next) = tail.first() {
            if *next != "status" && *next != "finalize" {
                namespace = Some(ns.to_string());
                rest = tail;
            }
        }
    }
    let (resource, name, subresource) = match rest {
        [resource] => (*resource, None, None),
        [resource, name] => (*resource, Some(*name), None),
        [resource, name, sub] => (*resource, Some(*name), Some(*sub)),
        _ => return Err(Status::path_not_found()),
    };
    let verb = if watch_path {
        if method != "GET" {
            return Err(method_not_allowed());
        }
        Verb::Watch
    } else {
        match (method, name, subresource) {
            ("GET" | "HEAD", Some(_), _) => Verb::Get,
            ("GET" | "HEAD", None, _) if params.watch() => Verb::Watch,
            ("GET" | "HEAD", None, _) => Verb::List,
            ("POST", None, _) | ("POST", Some(_), Some(_)) => Verb::Create,
            ("PUT", Some(_), _) => Verb::Update,
            ("PATCH", Some(_), _) => Verb::Patch,
            ("DELETE", Some(_), _) => Verb::Delete,
            ("DELETE", None, _) => Verb::DeleteCollection,
            _ => return Err(method_not_allowed()),
        }
    };
    let info = RequestInfo {
        verb,
        group: group.to_string(),
        version: version.to_string(),
        namespace,
        resource: resource.to_string(),
        name: name.map(str::to_string),
        subresource: subresource.map(str::to_string),
    };
    let query = params.decode(verb)?;
    Ok((info, query))
}

/// The decoded query: the first value of each parameter, as the parameter codec reads them.
struct QueryParams(BTreeMap<String, String>);

impl QueryParams {
    /// `application/x-www-form-urlencoded` decoding (`+` is a space, `%3D` is `=`).
    fn parse(query: &str) -> QueryParams {
        let mut map = BTreeMap::new();
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            map.entry(k.into_owned()).or_insert_with(|| v.into_owned());
        }
        QueryParams(map)
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// `Convert_Slice_string_To_bool`: present and not `0`/`false` (any case) is true.
    fn bool(&self, key: &str) -> bool {
        self.get(key).is_some_and(go_bool)
    }

    fn watch(&self) -> bool {
        self.bool("watch")
    }

    /// A non-empty string parameter.
    fn string(&self, key: &str) -> Option<String> {
        self.get(key).filter(|v| !v.is_empty()).map(str::to_string)
    }

    /// `Convert_Slice_string_To_int64` / `_Pointer_int64`: absent is `None`, anything else
    /// (even empty) must be an integer, with the error text `strconv.ParseInt` gives.
    fn int64(&self, key: &str) -> Result<Option<i64>, Status> {
        self.get(key)
            .map(|v| parse_int64(v).map_err(|e| Status::bad_request(&e)))
            .transpose()
    }

    /// Decodes and validates the options the verb's handler reads.
    fn decode(&self, verb: Verb) -> Result<Query, Status> {
        let mut query = Query {
            pretty: self.bool("pretty"),
            ..Query::default()
        };
        match verb {
            Verb::Get => query.list.resource_version = self.string("resourceVersion"),
            Verb::List | Verb::Watch => query.list = self.list_options(verb == Verb::Watch)?,
            Verb::Create | Verb::Update | Verb::Patch => {
                let kind = match verb {
                    Verb::Create => "CreateOptions",
                    Verb::Update => "UpdateOptions",
                    _ => "PatchOptions",
                };
                query.dry_run = self.dry_run(kind)?;
                query.field_manager = self.string("fieldManager");
                query.force = verb == Verb::Patch && self.bool("force");
                query.field_validation = match self.get("fieldValidation").unwrap_or_default() {
                    "" | "Warn" => FieldValidation::Warn,
                    "Ignore" => FieldValidation::Ignore,
                    "Strict" => FieldValidation::Strict,
                    other => {
                        // `ValidateFieldValidation`.
                        return Err(options_invalid(
                            kind,
                            &[FieldError::not_supported(
                                "fieldValidation",
                                other,
                                &["Ignore", "Strict", "Warn"],
                            )],
                        ));
                    }
                };
                if let Some(manager) = &query.field_manager {
                    let errs = validate_field_manager(manager);
                    if !errs.is_empty() {
                        return Err(options_invalid(kind, &errs));
                    }
                }
            }
            Verb::Delete | Verb::DeleteCollection => {
                if verb == Verb::DeleteCollection {
                    query.list = self.list_options(false)?;
                }
                query.grace_period_seconds = self.int64("gracePeriodSeconds")?;
                query.propagation_policy = self.get("propagationPolicy").map(str::to_string);
                query.dry_run = self.dry_run("DeleteOptions")?;
                if let Some(policy) = &query.propagation_policy {
                    if !matches!(policy.as_str(), "Foreground" | "Background" | "Orphan") {
                        return Err(options_invalid(
                            "DeleteOptions",
                            &[FieldError::not_supported(
                                "propagationPolicy",
                                policy,
                                &["Foreground", "Background", "Orphan", "nil"],
                            )],
                        ));
                    }
                }
            }
        }
        Ok(query)
    }

    /// `dryRun`: every value must be `All` (`ValidateDryRun`).
    fn dry_run(&self, kind: &str) -> Result<bool, Status> {
        let Some(value) = self.get("dryRun") else {
            return Ok(false);
        };
        if value != "All" {
            return Err(options_invalid(
                kind,
                &[FieldError::not_supported(
                    "dryRun",
                    BadValue::string_slice(&[value.to_string()]),
                    &["All"],
                )],
            ));
        }
        Ok(true)
    }

    /// `url.Values` → `v1.ListOptions` → internal `ListOptions`, then `ValidateListOptions`.
    fn list_options(&self, watch: bool) -> Result<ListOptions, Status> {
        // The url.Values → v1 conversion runs first (field order), the selectors are parsed
        // after it, in the v1 → internal conversion.
        let timeout = self.int64("timeoutSeconds")?;
        let limit = self.int64("limit")?;
        let send_initial_events = self.get("sendInitialEvents").map(go_bool);
        let label_selector = LabelSelector::parse(self.get("labelSelector").unwrap_or(""))
            .map_err(|e| Status::bad_request(&e))?;
        let field_selector = FieldSelector::parse(self.get("fieldSelector").unwrap_or(""))
            .map_err(|e| Status::bad_request(&e))?;
        let resource_version = self.string("resourceVersion");
        let continue_token = self.string("continue");
        let raw_match = self.get("resourceVersionMatch").unwrap_or("");
        let errs = validate_list_options(
            watch,
            raw_match,
            resource_version.as_deref(),
            continue_token.is_some(),
            send_initial_events.is_some(),
        );
        if !errs.is_empty() {
            return Err(options_invalid("ListOptions", &errs));
        }
        let resource_version_match = match raw_match {
            "Exact" => Some(ResourceVersionMatch::Exact),
            "NotOlderThan" => Some(ResourceVersionMatch::NotOlderThan),
            _ => None,
        };
        Ok(ListOptions {
            label_selector,
            field_selector,
            resource_version,
            resource_version_match,
            limit: limit.and_then(|l| u64::try_from(l).ok()).filter(|l| *l > 0),
            continue_token,
            allow_watch_bookmarks: self.bool("allowWatchBookmarks"),
            send_initial_events,
            timeout_seconds: timeout.and_then(|t| u64::try_from(t).ok()),
        })
    }
}

/// `ValidateListOptions` (list) / `validateWatchOptions` (watch), the WatchList feature on
/// (its default since v1.32).
fn validate_list_options(
    watch: bool,
    rv_match: &str,
    resource_version: Option<&str>,
    has_continue: bool,
    has_send_initial_events: bool,
) -> Vec<FieldError> {
    const PATH: &str = "resourceVersionMatch";
    let mut errs = Vec::new();
    if watch {
        if has_send_initial_events && rv_match != "NotOlderThan" {
            errs.push(FieldError::forbidden(
                PATH,
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if !rv_match.is_empty() {
            if !has_send_initial_events {
                errs.push(FieldError::forbidden(
                    PATH,
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ));
            }
            if rv_match != "NotOlderThan" {
                errs.push(FieldError::not_supported(PATH, rv_match, &["NotOlderThan"]));
            }
            if has_continue {
                errs.push(FieldError::forbidden(
                    PATH,
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
        }
        return errs;
    }
    if !rv_match.is_empty() {
        if resource_version.is_none() {
            errs.push(FieldError::forbidden(
                PATH,
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if has_continue {
            errs.push(FieldError::forbidden(
                PATH,
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if rv_match != "Exact" && rv_match != "NotOlderThan" {
            errs.push(FieldError::not_supported(
                PATH,
                rv_match,
                &["Exact", "NotOlderThan", ""],
            ));
        }
        if rv_match == "Exact" && resource_version == Some("0") {
            errs.push(FieldError::forbidden(
                PATH,
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if has_send_initial_events {
        errs.push(FieldError::forbidden(
            "sendInitialEvents",
            "sendInitialEvents is forbidden for list",
        ));
    }
    errs
}

/// `ValidateFieldManager`: at most 128 bytes, printable characters only.
fn validate_field_manager(manager: &str) -> Vec<FieldError> {
    const MAX: usize = 128;
    let mut errs = Vec::new();
    if manager.len() > MAX {
        errs.push(FieldError::too_long("fieldManager", MAX));
    }
    if manager.chars().any(|c| c.is_control()) {
        errs.push(FieldError::invalid(
            "fieldManager",
            manager,
            "must only contain printable characters",
        ));
    }
    errs
}

/// The 422 the handlers answer for invalid options: `ListOptions.meta.k8s.io "" is invalid: ...`.
fn options_invalid(kind: &str, errs: &[FieldError]) -> Status {
    Status::invalid(kind, "meta.k8s.io", "", errs)
}

fn go_bool(v: &str) -> bool {
    !(v == "0" || v.eq_ignore_ascii_case("false"))
}

/// `strconv.ParseInt(v, 10, 64)` with its error texts.
fn parse_int64(v: &str) -> Result<i64, String> {
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    let quoted = crate::quote::quote(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseInt: parsing {quoted}: invalid syntax"
        ));
    }
    v.parse()
        .map_err(|_| format!("strconv.ParseInt: parsing {quoted}: value out of range"))
}

/// What Go's `url.QueryEscape` leaves alone: letters, digits, `-`, `_`, `.`, `~`.
const QUERY_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b' ');

/// Go's `url.QueryEscape`: `app=nginx` → `app%3Dnginx`, a space → `+`.
pub fn percent_encode_query_value(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, QUERY_COMPONENT)
        .to_string()
        .replace(' ', "+")
}

/// The REST path of a collection or of one object, the inverse of [`parse_request`]'s path
/// part: `/api/v1` for the legacy core group (`api_version` "v1"), `/apis/<group>/<version>`
/// for every other, then `namespaces/<ns>/` when a namespace is given (callers pass none for a
/// cluster-scoped resource), the resource, and the name if any. Segments are taken as given:
/// a caller with user input encodes them first.
pub fn resource_path(
    api_version: &str,
    namespace: Option<&str>,
    resource: &str,
    name: Option<&str>,
) -> String {
    let mut p = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    if let Some(ns) = namespace {
        p.push_str("/namespaces/");
        p.push_str(ns);
    }
    p.push('/');
    p.push_str(resource);
    if let Some(n) = name {
        p.push('/');
        p.push_str(n);
    }
    p
}

/// `url.Values.Encode` of the given pairs, in the given order: `watch=true&labelSelector=app%3Dnginx`.
pub fn encode_query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                percent_encode_query_value(k),
                percent_encode_query_value(v)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn info(method: &str, path: &str) -> RequestInfo {
        parse_request(method, path).map(|(i, _)| i).unwrap()
    }

    #[test]
    fn a_built_path_parses_back_to_what_built_it() {
        let cases = [
            ("v1", Some("default"), "pods", Some("web")),
            ("apps/v1", Some("production"), "deployments", None),
            ("v1", None, "nodes", Some("node-a")),
            (
                "coordination.k8s.io/v1",
                Some("kube-node-lease"),
                "leases",
                Some("node-a"),
            ),
        ];
        for (api_version, namespace, resource, name) in cases {
            let path = resource_path(api_version, namespace, resource, name);
            let i = info("GET", &path);
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            assert_eq!(
                (i.group.as_str(), i.version.as_str()),
                (group, version),
                "{path}"
            );
            assert_eq!(i.namespace.as_deref(), namespace, "{path}");
            assert_eq!(i.resource, resource, "{path}");
            assert_eq!(i.name.as_deref(), name, "{path}");
        }
        assert_eq!(
            resource_path(
                "apps/v1",
                Some("production"),
                "deployments",
                Some("orders-api")
            ),
            "/apis/apps/v1/namespaces/production/deployments/orders-api"
        );
    }

    fn query(method: &str, path: &str) -> Query {
        parse_request(method, path).map(|(_, q)| q).unwrap()
    }

    fn error(method: &str, path: &str) -> (u16, String) {
        let s = parse_request(method, path).unwrap_err();
        (s.code(), s.message().to_string())
    }

    /// (verb, group, version, namespace, resource, name, subresource)
    type Row<'a> = (
        Verb,
        &'a str,
        &'a str,
        Option<&'a str>,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
    );

    #[test]
    fn paths_resolve_like_the_request_info_factory() {
        let cases: Vec<(&str, &str, Row)> = vec![
            (
                "GET",
                "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx",
                (Verb::Watch, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a",
                (Verb::List, "", "v1", None, "pods", None, None),
            ),
            (
                "GET",
                "/apis/apps/v1/namespaces/production/deployments/orders-api",
                (
                    Verb::Get,
                    "apps",
                    "v1",
                    Some("production"),
                    "deployments",
                    Some("orders-api"),
                    None,
                ),
            ),
            (
                "GET",
                "/api/v1/nodes/node-a/status",
                (
                    Verb::Get,
                    "",
                    "v1",
                    None,
                    "nodes",
                    Some("node-a"),
                    Some("status"),
                ),
            ),
            (
                "PUT",
                "/api/v1/nodes/node-a/status",
                (
                    Verb::Update,
                    "",
                    "v1",
                    None,
                    "nodes",
                    Some("node-a"),
                    Some("status"),
                ),
            ),
            (
                "GET",
                "/api/v1/namespaces",
                (Verb::List, "", "v1", None, "namespaces", None, None),
            ),
            (
                "GET",
                "/api/v1/namespaces/production",
                (
                    Verb::Get,
                    "",
                    "v1",
                    None,
                    "namespaces",
                    Some("production"),
                    None,
                ),
            ),
            (
                "PUT",
                "/api/v1/namespaces/production/status",
                (
                    Verb::Update,
                    "",
                    "v1",
                    None,
                    "namespaces",
                    Some("production"),
                    Some("status"),
                ),
            ),
            (
                "PUT",
                "/api/v1/namespaces/production/finalize",
                (
                    Verb::Update,
                    "",
                    "v1",
                    None,
                    "namespaces",
                    Some("production"),
                    Some("finalize"),
                ),
            ),
            (
                "GET",
                "/api/v1/watch/namespaces/default/pods",
                (Verb::Watch, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/watch/pods",
                (Verb::Watch, "", "v1", None, "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/watch/namespaces/default/pods/web",
                (
                    Verb::Watch,
                    "",
                    "v1",
                    Some("default"),
                    "pods",
                    Some("web"),
                    None,
                ),
            ),
            (
                "POST",
                "/api/v1/namespaces/default/pods",
                (Verb::Create, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "POST",
                "/api/v1/namespaces/default/pods/web/binding",
                (
                    Verb::Create,
                    "",
                    "v1",
                    Some("default"),
                    "pods",
                    Some("web"),
                    Some("binding"),
                ),
            ),
            (
                "POST",
                "/api/v1/namespaces",
                (Verb::Create, "", "v1", None, "namespaces", None, None),
            ),
            (
                "PATCH",
                "/apis/apps/v1/namespaces/default/deployments/web/scale",
                (
                    Verb::Patch,
                    "apps",
                    "v1",
                    Some("default"),
                    "deployments",
                    Some("web"),
                    Some("scale"),
                ),
            ),
            (
                "DELETE",
                "/api/v1/namespaces/default/pods/web",
                (
                    Verb::Delete,
                    "",
                    "v1",
                    Some("default"),
                    "pods",
                    Some("web"),
                    None,
                ),
            ),
            (
                "DELETE",
                "/api/v1/namespaces/default/pods",
                (
                    Verb::DeleteCollection,
                    "",
                    "v1",
                    Some("default"),
                    "pods",
                    None,
                    None,
                ),
            ),
            (
                "GET",
                "/api/v1/namespaces/default/pods?watch=1",
                (Verb::Watch, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/namespaces/default/pods?watch=false",
                (Verb::List, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/namespaces/default/pods?watch=0",
                (Verb::List, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/namespaces/default/pods/web?watch=true",
                (
                    Verb::Get,
                    "",
                    "v1",
                    Some("default"),
                    "pods",
                    Some("web"),
                    None,
                ),
            ),
            (
                "HEAD",
                "/api/v1/namespaces/default/pods",
                (Verb::List, "", "v1", Some("default"), "pods", None, None),
            ),
            (
                "GET",
                "/api/v1/namespaces/kube%2Dsystem/pods/my%20pod",
                (
                    Verb::Get,
                    "",
                    "v1",
                    Some("kube-system"),
                    "pods",
                    Some("my pod"),
                    None,
                ),
            ),
            (
                "GET",
                "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a",
                (
                    Verb::Get,
                    "coordination.k8s.io",
                    "v1",
                    Some("kube-node-lease"),
                    "leases",
                    Some("node-a"),
                    None,
                ),
            ),
            (
                "GET",
                "/api/v1/events#frag",
                (Verb::List, "", "v1", None, "events", None, None),
            ),
        ];
        for (method, path, (verb, group, version, ns, resource, name, sub)) in cases {
            let got = info(method, path);
            let want = RequestInfo {
                verb,
                group: group.to_string(),
                version: version.to_string(),
                namespace: ns.map(str::to_string),
                resource: resource.to_string(),
                name: name.map(str::to_string),
                subresource: sub.map(str::to_string),
            };
            assert_eq!(got, want, "{method} {path}");
        }
    }

    #[test]
    fn malformed_paths_are_404() {
        let not_found = "the server could not find the requested resource";
        for path in [
            "",
            "/",
            "/api",
            "/api/v1",
            "/apis",
            "/apis/apps",
            "/apis/apps/v1",
            "/healthz",
            "api/v1/pods",
            "/api/v1//pods",
            "/api/v1/pods/",
            "/api/v1/namespaces/default/pods/a/b/c",
            "/api/v1/watch",
            "/api/v1/proxy/nodes/a",
            "/apis/apps/v1/watch",
        ] {
            assert_eq!(error("GET", path), (404, not_found.to_string()), "{path:?}");
        }
        let s = parse_request("GET", "/api").unwrap_err();
        assert_eq!(
            s.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#
        );
    }

    #[test]
    fn methods_a_route_does_not_take_are_405() {
        let text = "the server does not allow this method on the requested resource";
        for (method, path) in [
            ("TRACE", "/api/v1/pods"),
            ("get", "/api/v1/pods"),
            ("PUT", "/api/v1/namespaces/default/pods"),
            ("PATCH", "/api/v1/namespaces/default/pods"),
            ("POST", "/api/v1/namespaces/default/pods/web"),
            ("POST", "/api/v1/watch/pods"),
        ] {
            assert_eq!(
                error(method, path),
                (405, text.to_string()),
                "{method} {path}"
            );
        }
    }

    #[test]
    fn list_options_are_decoded() {
        let q = query(
            "GET",
            "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx&resourceVersion=42&allowWatchBookmarks=true&timeoutSeconds=300",
        );
        assert_eq!(q.list.label_selector.to_string(), "app=nginx");
        assert_eq!(q.list.resource_version.as_deref(), Some("42"));
        assert!(q.list.allow_watch_bookmarks);
        assert_eq!(q.list.timeout_seconds, Some(300));

        let q = query(
            "GET",
            "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=500&continue=abc",
        );
        assert_eq!(
            q.list.field_selector.exact_value("spec.nodeName"),
            Some("node-a")
        );
        assert_eq!(q.list.limit, Some(500));
        assert_eq!(q.list.continue_token.as_deref(), Some("abc"));

        let q = query(
            "GET",
            "/api/v1/pods?labelSelector=tier+in+%28a%2Cb%29&limit=0&resourceVersion=",
        );
        assert_eq!(q.list.label_selector.to_string(), "tier in (a,b)");
        assert_eq!(q.list.limit, None);
        assert_eq!(q.list.resource_version, None);

        let q = query("GET", "/api/v1/pods?resourceVersion=10&resourceVersionMatch=NotOlderThan&pretty=true&unknown=1");
        assert_eq!(
            q.list.resource_version_match,
            Some(ResourceVersionMatch::NotOlderThan)
        );
        assert!(q.pretty);

        let q = query("GET", "/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
        assert_eq!(q.list.send_initial_events, Some(true));

        // The first value of a repeated parameter wins.
        let q = query("GET", "/api/v1/pods?limit=5&limit=7");
        assert_eq!(q.list.limit, Some(5));
    }

    #[test]
    fn other_verbs_read_their_own_options() {
        let q = query(
            "GET",
            "/api/v1/namespaces/default/pods/web?resourceVersion=7&limit=abc",
        );
        assert_eq!(q.list.resource_version.as_deref(), Some("7"));

        let q = query(
            "POST",
            "/api/v1/namespaces/default/pods?dryRun=All&fieldManager=kubectl-client-side-apply",
        );
        assert!(q.dry_run);
        assert_eq!(
            q.field_manager.as_deref(),
            Some("kubectl-client-side-apply")
        );

        let q = query(
            "PATCH",
            "/api/v1/namespaces/default/pods/web?fieldManager=kubectl&force=true",
        );
        assert!(q.force);

        let q = query(
            "DELETE",
            "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0&propagationPolicy=Foreground",
        );
        assert_eq!(q.grace_period_seconds, Some(0));
        assert_eq!(q.propagation_policy.as_deref(), Some("Foreground"));

        let q = query(
            "DELETE",
            "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb",
        );
        assert_eq!(q.list.label_selector.to_string(), "app=web");
    }

    #[test]
    fn bad_parameters_get_the_real_errors() {
        let pods = "/api/v1/namespaces/default/pods";
        let cases = [
            ("GET", format!("{pods}?labelSelector=app%3D%3Dx%3Dy"), 400, "found '=', expected: ',' or 'end of string'".to_string()),
            ("GET", format!("{pods}?labelSelector=a+b"), 400, "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt".to_string()),
            ("GET", format!("{pods}?fieldSelector=spec.nodeName"), 400, "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'".to_string()),
            ("GET", format!("{pods}?limit=abc"), 400, "strconv.ParseInt: parsing \"abc\": invalid syntax".to_string()),
            ("GET", format!("{pods}?limit=99999999999999999999"), 400, "strconv.ParseInt: parsing \"99999999999999999999\": value out of range".to_string()),
            ("GET", format!("{pods}?timeoutSeconds=1.5"), 400, "strconv.ParseInt: parsing \"1.5\": invalid syntax".to_string()),
            ("GET", format!("{pods}?resourceVersion=1&resourceVersionMatch=Newest"), 422, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"".to_string()),
            ("GET", format!("{pods}?resourceVersionMatch=Exact"), 422, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided".to_string()),
            ("GET", format!("{pods}?resourceVersion=0&resourceVersionMatch=Exact"), 422, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"".to_string()),
            ("GET", format!("{pods}?sendInitialEvents=true"), 422, "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list".to_string()),
            ("GET", format!("{pods}?watch=true&sendInitialEvents=true"), 422, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan".to_string()),
            ("GET", format!("{pods}?watch=true&resourceVersionMatch=NotOlderThan"), 422, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided".to_string()),
            ("POST", format!("{pods}?dryRun=true"), 422, "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"true\"}: supported values: \"All\"".to_string()),
            ("DELETE", format!("{pods}/web?propagationPolicy=Now"), 422, "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Now\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"".to_string()),
            ("DELETE", format!("{pods}/web?gracePeriodSeconds=soon"), 400, "strconv.ParseInt: parsing \"soon\": invalid syntax".to_string()),
        ];
        for (method, path, code, message) in cases {
            assert_eq!(error(method, &path), (code, message), "{method} {path}");
        }
    }

    #[test]
    fn query_values_encode_like_go() {
        assert_eq!(percent_encode_query_value("app=nginx"), "app%3Dnginx");
        assert_eq!(
            percent_encode_query_value("tier in (a,b)"),
            "tier+in+%28a%2Cb%29"
        );
        assert_eq!(percent_encode_query_value("a-b_c.d~e*"), "a-b_c.d~e%2A");
        assert_eq!(percent_encode_query_value("é"), "%C3%A9");
        assert_eq!(
            encode_query(&[("watch", "true"), ("labelSelector", "app=nginx")]),
            "watch=true&labelSelector=app%3Dnginx"
        );
    }

    proptest! {
        #[test]
        fn never_panics(method in "GET|POST|PUT|PATCH|DELETE|[A-Z]{0,6}", path in "\\PC*") {
            let _ = parse_request(&method, &path);
        }

        #[test]
        fn never_panics_on_path_like_input(path in "(/[a-z%0-9?=&+]{0,8}){0,7}") {
            let _ = parse_request("GET", &path);
        }

        #[test]
        fn encoded_selectors_decode_to_themselves(value in "\\PC*") {
            let path = format!("/api/v1/pods?labelSelector={}", percent_encode_query_value(&value));
            let direct = LabelSelector::parse(&value);
            match parse_request("GET", &path) {
                Ok((_, q)) => prop_assert_eq!(Ok(q.list.label_selector), direct),
                Err(s) => prop_assert_eq!(Err(s.message().to_string()), direct),
            }
        }
    }
}
