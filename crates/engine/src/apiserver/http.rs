//! The HTTP-shaped edge: `impl ApiClient` for the server and for a user-bound session. Paths
//! and queries are parsed by apimachinery's `parse_request`, resources resolved in the table
//! (unknown → 404 `the server could not find the requested resource`), bodies decoded, and
//! answers written as the real server writes them (objects, `...List`, `Status`, watch lines).

use super::apply;
use super::delete::{delete_response, DeleteOptions};
use super::patch::{
    PatchTarget, PatchType, APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH,
};
use super::table::{IncludeObject, TableRequest};
use super::{field_validation, ApiServer, RequestContext, DEFAULT_USER};
use crate::api::binding::Binding;
use crate::api::resource::ResourceInfo;
use crate::api::scale::Scale;
use crate::api::Object;
use crate::api::Registry;
use watchlab_apimachinery::client::{ApiClient, ApiResponse, WatchId};
use watchlab_apimachinery::request::{parse_request, Query, RequestInfo, Verb};
use watchlab_apimachinery::status::{Status, StatusReason};
use watchlab_apimachinery::table::wants_table;

fn respond(code: u16, body: String) -> ApiResponse {
    ApiResponse { code, body }
}

fn error(s: Status) -> ApiResponse {
    ApiResponse {
        code: s.code(),
        body: s.to_json(),
    }
}

/// The resource a request names in `registry`, with its subresource checked.
fn route(registry: &Registry, info: &RequestInfo) -> Result<&'static ResourceInfo, Status> {
    let r = registry
        .lookup(&info.group, &info.version, &info.resource)
        .ok_or_else(Status::path_not_found)?;
    if let Some(sub) = info.subresource.as_deref() {
        if !r.has_subresource(sub) {
            return Err(Status::path_not_found());
        }
    }
    Ok(r)
}

/// Whether a PATCH's `Content-Type` is server-side apply's.
pub(super) fn is_apply(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|c| c.split(';').next())
        .is_some_and(|c| c.trim() == APPLY_PATCH)
}

/// A PATCH body as JSON with its type, refusing other media types in the real server's words
/// (its list: custom resources have no strategic merge patch).
pub(super) fn patch_of(
    r: &'static ResourceInfo,
    content_type: Option<&str>,
    body: Option<&str>,
) -> Result<(serde_json::Value, PatchType), Status> {
    let patch_type = PatchType::from_content_type(content_type.unwrap_or_default())
        .ok_or_else(|| {
            let accepted = if r.kind().is_custom() {
                format!("{JSON_PATCH}, {MERGE_PATCH}, {APPLY_PATCH}")
            } else {
                format!("{JSON_PATCH}, {MERGE_PATCH}, {STRATEGIC_MERGE_PATCH}, {APPLY_PATCH}")
            };
            Status::failure(
                415,
                StatusReason::UnsupportedMediaType,
                format!("the body of the request was in an unknown format - accepted media types include: {accepted}"),
                None,
            )
        })?;
    let patch = serde_json::from_str(body_of(body)?)
        .map_err(|e| Status::bad_request(&format!("error decoding patch: {e}")))?;
    Ok((patch, patch_type))
}

/// `/version` (with an optional trailing slash), outside the API groups.
fn is_version_path(path_and_query: &str) -> bool {
    let path = path_and_query.split(['?', '#']).next().unwrap_or_default();
    matches!(path, "/version" | "/version/")
}

pub(super) fn body_of(body: Option<&str>) -> Result<&str, Status> {
    body.filter(|b| !b.trim().is_empty())
        .ok_or_else(|| Status::bad_request("the body of the request was empty"))
}

impl ApiServer {
    /// A handle that writes as `user` (`kube-scheduler`, `kubelet/node-a`...).
    pub fn as_user<'a>(&'a mut self, user: &str) -> UserSession<'a> {
        UserSession {
            server: self,
            user: user.to_string(),
            warnings: Vec::new(),
        }
    }

    /// One non-watch request by `user`, in a context of its own; the warnings it earned wait
    /// for [`ApiServer::take_warnings`] (the server as its own client).
    pub fn handle(
        &mut self,
        user: &str,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        let mut ctx = RequestContext::new(user);
        let answer = self.handle_in(&mut ctx, method, path_and_query, content_type, body);
        self.client_warnings = ctx.into_warnings();
        answer
    }

    /// One non-watch request in `ctx`, a context built for it alone from its user agent
    /// ([`RequestContext::new`]): the options its query carries go into `ctx`, and so do the
    /// warnings it earns, for its answer's `Warning` headers.
    pub fn handle_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        self.connect(ctx.user());
        self.dispatch_request(ctx, method, path_and_query, content_type, body)
            .unwrap_or_else(error)
    }

    // Long on purpose: the route table, one arm per (verb, subresource) as the real server's
    // handlers are registered, each arm a few lines handing over to its verb's module.
    fn dispatch_request(
        &mut self,
        ctx: &mut RequestContext<'_>,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> Result<ApiResponse, Status> {
        if is_version_path(path_and_query) {
            // go-restful's answer to any other method on a GET-only route.
            return Ok(if method.eq_ignore_ascii_case("GET") {
                respond(200, super::version::VERSION.to_json())
            } else {
                respond(405, "405: Method Not Allowed".to_string())
            });
        }
        let path = path_and_query.split(['?', '#']).next().unwrap_or_default();
        if method.eq_ignore_ascii_case("GET") {
            if let Some(doc) = super::discovery::document(&self.registry, path) {
                return Ok(respond(200, doc.to_string()));
            }
            if let Some(doc) = super::openapi::document(&self.registry, path) {
                return Ok(respond(200, doc.to_string()));
            }
        }
        // `authorization.k8s.io`'s self reviews read and write nothing (AlwaysAllow).
        if let Some(review) = super::authorization::answer(method, path_and_query, body) {
            ctx.warn_all(review.warnings);
            return Ok(review.response);
        }
        // `metrics.k8s.io`'s figures are computed, not stored (metrics-server's aggregated API).
        if let Some(answer) = self.metrics_answer(method, path_and_query) {
            return Ok(answer);
        }
        super::limits::check_body(body)?;
        let (info, query) = parse_request(method, path_and_query)?;
        let r = route(&self.registry, &info)?;
        if r.is_converted() {
            // `events.k8s.io/v1` Events: the core route, converted both ways (`conversion.rs`).
            return self.serve_converted(
                ctx,
                r,
                &info,
                &query,
                method,
                path_and_query,
                content_type,
                body,
            );
        }
        ctx.set_options(&query);
        let user = ctx.user();
        let ns = info.namespace.as_deref().filter(|_| r.namespaced);
        let name = info.name.as_deref().unwrap_or_default();
        let sub = info.subresource.as_deref();
        match (info.verb, sub) {
            (Verb::Get, None | Some("status" | "ephemeralcontainers")) => {
                let rv = query.list.resource_version.as_deref();
                let obj = match rv.filter(|v| !v.is_empty()) {
                    Some(v) => self.get_at(r.kind(), ns, name, super::errors::parse_rv(v)?)?,
                    None => self.get(r.kind(), ns, name)?,
                };
                Ok(respond(200, obj.to_json()))
            }
            (Verb::List, None) => Ok(respond(
                200,
                self.list(r.kind(), ns, &query.list)?.to_json(),
            )),
            (Verb::Watch, None) => {
                // A plain request cannot stream: answer what the stream has at once, then close.
                let id = self.watch(user, r.kind(), ns, &query.list)?;
                let lines: Vec<String> = self
                    .poll(id)
                    .unwrap_or_default()
                    .iter()
                    .map(|e| e.json().to_string())
                    .collect();
                self.stop_watch(id);
                Ok(respond(200, lines.join("\n")))
            }
            (Verb::Create, Some("binding")) if query.dry_run => {
                // Refused rather than ignored: a dry run that wrote would lie to the learner.
                Err(Status::bad_request(
                    "dryRun is not supported for pods/binding by this API server (watchlab): nothing was written",
                ))
            }
            (Verb::Create, Some("binding")) => {
                let mut binding: Binding = serde_json::from_str(body_of(body)?).map_err(|e| {
                    Status::bad_request(&format!(
                        "Binding in version \"v1\" cannot be handled as a Binding: {e}"
                    ))
                })?;
                if binding.metadata.name.is_empty() {
                    binding.metadata.name = name.to_string();
                }
                if binding.metadata.name != name {
                    return Err(name_mismatch(&binding.metadata.name, name));
                }
                binding.metadata.namespace = ns.unwrap_or_default().to_string();
                self.bind(user, &binding)?;
                let mut ok = Status::success();
                ok.code = 201;
                Ok(respond(201, ok.to_json()))
            }
            (Verb::Create, Some("eviction")) => {
                let eviction = super::eviction::Eviction::from_json(body_of(body)?)?;
                let ok = self.evict_in(ctx, ns, name, &eviction, query.dry_run)?;
                Ok(respond(201, ok.to_json()))
            }
            (Verb::Create, None) => {
                ctx.warn_all(field_validation::check(
                    r,
                    body_of(body)?,
                    ctx.field_validation(),
                )?);
                let mut obj = Object::decode(r.kind(), body_of(body)?)?;
                place(&mut obj, r, ns)?;
                Ok(respond(201, self.create_in(ctx, obj)?.to_json()))
            }
            (Verb::Update, None | Some("status")) => {
                ctx.warn_all(field_validation::check(
                    r,
                    body_of(body)?,
                    ctx.field_validation(),
                )?);
                let mut obj = Object::decode(r.kind(), body_of(body)?)?;
                place(&mut obj, r, ns)?;
                if obj.name() != name {
                    return Err(name_mismatch(obj.name(), name));
                }
                let existed = self
                    .current(&r.kind().key(ns.unwrap_or(""), name))
                    .is_some();
                let out = if sub == Some("status") {
                    self.update_status_in(ctx, obj)?
                } else {
                    self.update_in(ctx, obj)?
                };
                Ok(respond(if existed { 200 } else { 201 }, out.to_json()))
            }
            (Verb::Update, Some("ephemeralcontainers")) => {
                // `pods/ephemeralcontainers` (`ephemeral_containers.rs`): a Pod body.
                ctx.warn_all(field_validation::check(
                    r,
                    body_of(body)?,
                    ctx.field_validation(),
                )?);
                let mut obj = Object::decode(r.kind(), body_of(body)?)?;
                place(&mut obj, r, ns)?;
                if obj.name() != name {
                    return Err(name_mismatch(obj.name(), name));
                }
                let out = self.update_ephemeral_containers_in(ctx, obj)?;
                Ok(respond(200, out.to_json()))
            }
            (Verb::Patch, Some("ephemeralcontainers")) if !is_apply(content_type) => {
                patch_options(false, &query)?;
                let (patch, patch_type) = patch_of(r, content_type, body)?;
                let out = self.patch_ephemeral_containers_in(ctx, ns, name, &patch, patch_type)?;
                Ok(respond(200, out.to_json()))
            }
            (Verb::Update, Some("finalize")) => {
                let mut obj = Object::decode(r.kind(), body_of(body)?)?;
                place(&mut obj, r, ns)?;
                if obj.name() != name {
                    return Err(name_mismatch(obj.name(), name));
                }
                Ok(respond(
                    200,
                    self.finalize_namespace_in(ctx, obj)?.to_json(),
                ))
            }
            (Verb::Get, Some("log")) => {
                // `pods/log` (`pod_log.rs`); a follow stream is served by the caller's loop.
                let opts = super::pod_log::PodLogOptions::from_query(path_and_query)?;
                Ok(respond(200, self.pod_log(ns, name, &opts)?))
            }
            (Verb::Get, Some("scale")) => {
                Ok(respond(200, self.get_scale(r.kind(), ns, name)?.to_json()))
            }
            (Verb::Update, Some("scale")) => {
                let value: serde_json::Value =
                    serde_json::from_str(body_of(body)?).map_err(|e| {
                        Status::bad_request(&format!(
                            "couldn't get version/kind; json parse error: {e}"
                        ))
                    })?;
                let scale = Scale::from_value(value)?;
                if !scale.metadata.namespace.is_empty()
                    && Some(scale.metadata.namespace.as_str()) != ns
                {
                    return Err(Status::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ));
                }
                if scale.metadata.name != name {
                    return Err(name_mismatch(&scale.metadata.name, name));
                }
                let out = self.update_scale_in(ctx, r.kind(), ns, name, &scale)?;
                Ok(respond(200, out.to_json()))
            }
            (Verb::Patch, Some("scale")) => {
                // A Scale has no lists: both patch types merge it the same way.
                let (patch, _) = patch_of(r, content_type, body)?;
                Ok(respond(
                    200,
                    self.patch_scale_in(ctx, r.kind(), ns, name, &patch)?
                        .to_json(),
                ))
            }
            (Verb::Patch, None | Some("status")) => {
                let target = PatchTarget {
                    kind: r.kind(),
                    namespace: ns,
                    name,
                    status: sub == Some("status"),
                };
                patch_options(is_apply(content_type), &query)?;
                if is_apply(content_type) {
                    let config = apply::decode_config(body_of(body)?)?;
                    let (out, created) = self.apply_in(ctx, target, &config, query.force)?;
                    return Ok(respond(if created { 201 } else { 200 }, out.to_json()));
                }
                let (patch, patch_type) = patch_of(r, content_type, body)?;
                let out = self.patch_in(ctx, target, &patch, patch_type)?;
                Ok(respond(200, out.to_json()))
            }
            (Verb::Delete, None) => {
                let opts = delete_options(body, &query)?;
                let outcome = self.delete_in(ctx, r.kind(), ns, name, &opts)?;
                Ok(respond(200, delete_response(&outcome)))
            }
            (Verb::DeleteCollection, None) if !r.delete_collection => {
                // No route for the method: go-restful's 405, as the generic server renders it
                // (`NewGenericServerResponse`).
                Err(Status::failure(
                    405,
                    StatusReason::MethodNotAllowed,
                    "the server does not allow this method on the requested resource",
                    Some(Default::default()),
                ))
            }
            (Verb::DeleteCollection, None) => {
                let opts = delete_options(body, &query)?;
                let deleted = self.delete_collection_in(ctx, r.kind(), ns, &query.list, &opts)?;
                Ok(respond(200, deleted.to_json()))
            }
            (verb, _) => {
                let gr = match sub {
                    Some(s) => watchlab_apimachinery::status::GroupResource::new(
                        r.group,
                        &format!("{}/{s}", r.plural),
                    ),
                    None => r.group_resource(),
                };
                Err(Status::method_not_supported(&gr, verb.as_str()))
            }
        }
    }

    /// Opens a watch from a path (`?watch=true` or a `/watch/` path) for `user`.
    pub fn watch_path(&mut self, user: &str, path_and_query: &str) -> Result<WatchId, ApiResponse> {
        self.connect(user);
        let (info, query) = parse_request("GET", path_and_query).map_err(error)?;
        let r = route(&self.registry, &info).map_err(error)?;
        if r.is_converted() {
            return self.watch_converted(user, r, &query, path_and_query);
        }
        if info.name.is_some() || info.subresource.is_some() {
            // A watch on one object is a list watch with a metadata.name selector in the real
            // server; route it the same way.
            let mut list = query.list.clone();
            let name = info.name.clone().unwrap_or_default();
            let sel = format!("metadata.name={name}");
            list.field_selector = watchlab_apimachinery::fields::FieldSelector::parse(&sel)
                .map_err(|e| error(Status::bad_request(&e)))?;
            let ns = info.namespace.as_deref().filter(|_| r.namespaced);
            return self.watch(user, r.kind(), ns, &list).map_err(error);
        }
        let ns = info.namespace.as_deref().filter(|_| r.namespaced);
        self.watch(user, r.kind(), ns, &query.list).map_err(error)
    }

    /// The JSON lines a stream has queued, `None` once it ended. A stream opened with a Table
    /// Accept prints each event's object as a one-row Table.
    pub fn poll_lines(&mut self, id: WatchId) -> Option<Vec<String>> {
        let printer = self
            .table_watches
            .get(&id)
            .map(|&(resource, include)| TableRequest {
                resource,
                include,
                now_unix_ms: self.now_unix_ms(),
            });
        let Some(events) = self.poll(id) else {
            self.table_watches.remove(&id);
            return self.converted_lines(id, None);
        };
        let lines = match printer {
            Some(p) => events.iter().map(|e| p.watch_line(e)).collect(),
            None => events.iter().map(|e| e.json().to_string()).collect(),
        };
        self.converted_lines(id, Some(lines))
    }

    /// A GET by `user` answered in the representation `accept` names, in a context of its own
    /// ([`ApiServer::handle_accepting_in`]); its warnings wait for [`ApiServer::take_warnings`].
    pub fn handle_accepting(
        &mut self,
        user: &str,
        path_and_query: &str,
        accept: &str,
    ) -> ApiResponse {
        let mut ctx = RequestContext::new(user);
        let answer = self.handle_accepting_in(&mut ctx, path_and_query, accept);
        self.client_warnings = ctx.into_warnings();
        answer
    }

    /// A GET in `ctx` answered in the representation `accept` names: a get or list of a
    /// resource as a `meta.k8s.io/v1` Table when `accept` asks for one, everything else (and
    /// any refusal) as [`ApiServer::handle_in`] answers it.
    pub fn handle_accepting_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        path_and_query: &str,
        accept: &str,
    ) -> ApiResponse {
        if wants_table(accept) {
            if let Some(answer) = self.table_answer(path_and_query) {
                return answer.unwrap_or_else(error);
            }
        }
        self.handle_in(ctx, "GET", path_and_query, None, None)
    }

    /// The Table of a get or list; `None` for any other request, or one that does not parse.
    pub(super) fn table_answer(
        &mut self,
        path_and_query: &str,
    ) -> Option<Result<ApiResponse, Status>> {
        let path = path_and_query.split(['?', '#']).next().unwrap_or_default();
        if is_version_path(path_and_query)
            || super::discovery::is_discovery_path(&self.registry, path)
        {
            return None;
        }
        let (info, query) = parse_request("GET", path_and_query).ok()?;
        if query.dry_run || info.subresource.is_some() {
            return None;
        }
        let r = route(&self.registry, &info).ok()?;
        if r.is_converted() {
            return self.table_converted(r, &query, path_and_query);
        }
        let printer = self.table_request(r, path_and_query);
        let ns = info.namespace.as_deref().filter(|_| r.namespaced);
        match info.verb {
            Verb::Get => {
                let name = info.name.as_deref().unwrap_or_default();
                Some(
                    self.get(r.kind(), ns, name)
                        .map(|o| respond(200, printer.object(&o))),
                )
            }
            Verb::List => Some(
                self.list(r.kind(), ns, &query.list)
                    .map(|l| respond(200, printer.list(&l))),
            ),
            _ => None,
        }
    }

    fn table_request(&self, resource: &'static ResourceInfo, path_and_query: &str) -> TableRequest {
        TableRequest {
            resource,
            include: IncludeObject::from_query(path_and_query),
            now_unix_ms: self.now_unix_ms(),
        }
    }

    fn now_unix_ms(&self) -> i64 {
        watchlab_apimachinery::client::virtual_now_unix_ms(self.now().as_millis())
    }

    /// A watch by `user` whose events, when `accept` asks for a Table, carry one-row Tables.
    pub fn watch_path_accepting(
        &mut self,
        user: &str,
        path_and_query: &str,
        accept: &str,
    ) -> Result<WatchId, ApiResponse> {
        let id = self.watch_path(user, path_and_query)?;
        if wants_table(accept) {
            let resource = parse_request("GET", path_and_query)
                .ok()
                .and_then(|(info, _)| route(&self.registry, &info).ok());
            if let Some(r) = resource {
                let include = IncludeObject::from_query(path_and_query);
                self.table_watches.insert(id, (r, include));
            }
        }
        Ok(id)
    }
}

/// `ValidatePatchOptions`: an apply names its manager; only an apply may force.
pub(super) fn patch_options(apply: bool, query: &Query) -> Result<(), Status> {
    use watchlab_apimachinery::validation::FieldError;
    let err = if apply
        && query
            .field_manager
            .as_deref()
            .unwrap_or_default()
            .is_empty()
    {
        FieldError::required("fieldManager", "is required for apply patch")
    } else if !apply && query.force {
        FieldError::forbidden("force", "may not be specified for non-apply patch")
    } else {
        return Ok(());
    };
    Err(Status::invalid("PatchOptions", "meta.k8s.io", "", &[err]))
}

fn name_mismatch(body: &str, url: &str) -> Status {
    Status::bad_request(&format!(
        "the name of the object ({body}) does not match the name on the URL ({url})"
    ))
}

/// Puts the URL's namespace on a decoded object, refusing a different one in the body.
fn place(obj: &mut Object, r: &ResourceInfo, ns: Option<&str>) -> Result<(), Status> {
    if !r.namespaced {
        obj.meta_mut().namespace.clear();
        return Ok(());
    }
    let url_ns = ns.unwrap_or_default();
    let body_ns = obj.namespace();
    if !body_ns.is_empty() && body_ns != url_ns {
        return Err(Status::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    obj.meta_mut().namespace = url_ns.to_string();
    Ok(())
}

/// DeleteOptions from the body, else from the query (`?gracePeriodSeconds=0`).
fn delete_options(body: Option<&str>, query: &Query) -> Result<DeleteOptions, Status> {
    match body.filter(|b| !b.trim().is_empty()) {
        Some(b) => serde_json::from_str(b).map_err(|e| {
            Status::bad_request(&format!(
                "DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: {e}"
            ))
        }),
        None => Ok(DeleteOptions {
            grace_period_seconds: query.grace_period_seconds,
            preconditions: None,
            propagation_policy: query.propagation_policy.clone(),
            orphan_dependents: None,
            dry_run: if query.dry_run {
                vec!["All".to_string()]
            } else {
                Vec::new()
            },
        }),
    }
}

/// The server seen by one user agent: each request it makes is served in a context of its
/// own ([`RequestContext`]), whose warnings the session keeps as the answer's headers until
/// they are taken.
pub struct UserSession<'a> {
    /// The server requests go to.
    server: &'a mut ApiServer,
    /// The user agent every request is made as.
    user: String,
    /// The warnings of the last request's answer (its `Warning` headers), handed over once.
    warnings: Vec<String>,
}

impl UserSession<'_> {
    pub fn user(&self) -> &str {
        &self.user
    }

    pub fn server(&mut self) -> &mut ApiServer {
        self.server
    }
}

impl ApiClient for UserSession<'_> {
    fn request(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        let mut ctx = RequestContext::new(&self.user);
        let answer = self
            .server
            .handle_in(&mut ctx, method, path, content_type, body);
        self.warnings = ctx.into_warnings();
        answer
    }

    fn watch(&mut self, path: &str) -> Result<WatchId, ApiResponse> {
        self.warnings.clear();
        self.server.watch_path(&self.user, path)
    }

    fn get_accepting(&mut self, path: &str, accept: &str) -> ApiResponse {
        let mut ctx = RequestContext::new(&self.user);
        let answer = self.server.handle_accepting_in(&mut ctx, path, accept);
        self.warnings = ctx.into_warnings();
        answer
    }

    fn watch_accepting(&mut self, path: &str, accept: &str) -> Result<WatchId, ApiResponse> {
        self.warnings.clear();
        self.server.watch_path_accepting(&self.user, path, accept)
    }

    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
        self.server.poll_lines(id)
    }

    fn stop_watch(&mut self, id: WatchId) {
        self.server.stop_watch(id);
    }

    fn now_ms(&self) -> u64 {
        self.server.now().as_millis()
    }

    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// The server as the default user agent ([`DEFAULT_USER`], `kubectl`).
impl ApiClient for ApiServer {
    fn request(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        self.handle(DEFAULT_USER, method, path, content_type, body)
    }

    fn watch(&mut self, path: &str) -> Result<WatchId, ApiResponse> {
        self.client_warnings.clear();
        self.watch_path(DEFAULT_USER, path)
    }

    fn get_accepting(&mut self, path: &str, accept: &str) -> ApiResponse {
        self.handle_accepting(DEFAULT_USER, path, accept)
    }

    fn watch_accepting(&mut self, path: &str, accept: &str) -> Result<WatchId, ApiResponse> {
        self.client_warnings.clear();
        self.watch_path_accepting(DEFAULT_USER, path, accept)
    }

    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
        self.poll_lines(id)
    }

    fn stop_watch(&mut self, id: WatchId) {
        ApiServer::stop_watch(self, id);
    }

    fn now_ms(&self) -> u64 {
        self.now().as_millis()
    }

    fn take_warnings(&mut self) -> Vec<String> {
        ApiServer::take_warnings(self)
    }
}
