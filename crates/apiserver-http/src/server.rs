//! The HTTP/1.1 face of the engine: one cluster shared by every request, each request
//! answered by the engine's JSON edge (`ApiServer::handle`), discovery and the Table printing
//! added around it, and watches streamed as chunked JSON lines, flushed as events arrive and
//! ended at the stream's (virtual) timeout. Bound to 127.0.0.1 only: there is no authentication.
//!
//! The cluster holds `Rc`s (controllers, informers), so it lives on one thread: connections,
//! watch pumps and the clock tick are tasks of one `LocalSet`, and the cluster sits in a
//! `RefCell` that is borrowed only between awaits (never across one).

use std::cell::{RefCell, RefMut};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Notify};
use tokio::task::{spawn_local, LocalSet};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use watchlab_apimachinery::client::{ApiClient, ApiResponse, WatchId};
use watchlab_apimachinery::request::{parse_request, RequestInfo, Verb};
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::table::wants_table;
use watchlab_engine::api::Registry;
use watchlab_engine::apiserver::limits::MAX_REQUEST_BODY_BYTES;
use watchlab_engine::apiserver::openapi;
use watchlab_engine::apiserver::pod_log::PodLogOptions;
use watchlab_engine::clock::{Timestamp, EPOCH_UNIX_SECONDS};
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};
use watchlab_engine::journal::MAX_START_MS;

use crate::args::{Args, Start};
use crate::clock_driver::{ClockDriver, TICK_MS};
use crate::discovery;
use crate::etcd_grpc;
use crate::openapi_v2_pb;
use crate::protobuf;

/// A response body: a whole JSON document or a stream of watch lines.
type Body = UnsyncBoxBody<Bytes, Infallible>;

/// What every request handler shares.
pub struct Shared {
    cluster: RefCell<Cluster>,
    clock: ClockDriver,
    /// Woken after every request and tick, so watch streams flush at once.
    changed: Notify,
    /// `host:port`, for `serverAddressByClientCIDRs`.
    address: String,
    /// The command line's faults not yet applied, earliest first, at their virtual instants.
    faults: RefCell<VecDeque<(Timestamp, Action)>>,
}

impl Shared {
    /// Catches the cluster up to real time and lends it: applies the command line's faults
    /// that are due (each at its own virtual instant), advances the virtual clock to the
    /// wall clock's target, and returns the borrowed cluster. Callers drop the guard before any
    /// await, so the borrow never overlaps another.
    pub fn catch_up(&self) -> RefMut<'_, Cluster> {
        let mut guard = self.cluster.borrow_mut();
        let target = self.clock.target();
        let applied = guard.advance_applying(target, &mut self.faults.borrow_mut());
        for (at, action, answer) in applied {
            match answer {
                Ok(_) => eprintln!("watchlab-apiserver: {} {action:?}", at.to_rfc3339()),
                Err(s) => eprintln!("watchlab-apiserver: {action:?} refused: {}", s.message),
            }
        }
        guard
    }

    /// Tells the open watch streams that something may have changed.
    pub fn notify(&self) {
        self.changed.notify_waiters();
    }
}

/// A bound, not yet serving, server.
pub struct Server {
    listener: TcpListener,
    shared: Rc<Shared>,
    /// With `--etcd-port`: member *i*'s gRPC socket at *i*.
    etcd_listeners: Vec<TcpListener>,
}

/// Why the server could not start.
#[derive(Debug)]
pub enum ServeError {
    Bind {
        address: String,
        error: std::io::Error,
    },
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Bind { address, error }
                if error.kind() == std::io::ErrorKind::AddrInUse =>
            {
                write!(f, "failed to listen on {address}: address already in use (is another watchlab-apiserver or kubectl proxy running? try --port)")
            }
            ServeError::Bind { address, error } => {
                write!(f, "failed to listen on {address}: {error}")
            }
        }
    }
}

impl std::error::Error for ServeError {}

impl Server {
    /// Builds the cluster from `args` and binds 127.0.0.1:`args.port` (0: any free port).
    pub async fn bind(args: &Args) -> Result<Server, ServeError> {
        let address = format!("127.0.0.1:{}", args.port);
        let listener = TcpListener::bind(&address)
            .await
            .map_err(|error| ServeError::Bind {
                address: address.clone(),
                error,
            })?;
        let local = listener
            .local_addr()
            .map_err(|error| ServeError::Bind { address, error })?;
        let cluster = Cluster::new(ClusterConfig {
            seed: args.seed,
            profile: args.profile,
            start_ms: start_ms(args.start, SystemTime::now()),
            controller_replicas: args.controller_replicas,
            apiservers: args.apiservers,
            consistent_first_list: args.consistent_first_list,
            ..ClusterConfig::default()
        });
        let clock = ClockDriver::new(cluster.now(), args.speed);
        let mut faults: Vec<(Timestamp, Action)> = args
            .faults
            .iter()
            .map(|f| (cluster.now().plus_millis(f.after_ms), f.action.clone()))
            .collect();
        faults.sort_by_key(|(at, _)| *at);
        let shared = Rc::new(Shared {
            cluster: RefCell::new(cluster),
            clock,
            changed: Notify::new(),
            address: local.to_string(),
            faults: RefCell::new(faults.into()),
        });
        let mut etcd_listeners = Vec::new();
        if let Some(base) = args.etcd_port {
            let members = shared.cluster.borrow().etcd().members().len();
            for i in 0..members {
                // 0 (tests only: the flag refuses it) lets the OS pick each member's port.
                let port = if base == 0 {
                    0
                } else {
                    u32::from(base) + i as u32
                };
                let address = format!("127.0.0.1:{port}");
                let l = TcpListener::bind(&address)
                    .await
                    .map_err(|error| ServeError::Bind { address, error })?;
                etcd_listeners.push(l);
            }
        }
        Ok(Server {
            listener,
            shared,
            etcd_listeners,
        })
    }

    /// The etcd members' gRPC addresses (empty without `--etcd-port`).
    pub fn etcd_addrs(&self) -> Vec<std::net::SocketAddr> {
        self.etcd_listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .collect()
    }

    /// The instant the virtual clock started at (RFC 3339).
    pub fn started_at(&self) -> String {
        self.shared.cluster.borrow().now().to_rfc3339()
    }

    pub fn local_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }

    /// The state the handlers share (tests reach the cluster through it, on this thread).
    pub fn shared(&self) -> Rc<Shared> {
        self.shared.clone()
    }

    /// Serves forever on the current thread, ticking the virtual clock every [`TICK_MS`].
    pub async fn run(self) {
        LocalSet::new().run_until(self.serve()).await
    }

    async fn serve(self) {
        if !self.etcd_listeners.is_empty() {
            // The gRPC handlers' jobs run here, on the cluster's thread.
            let (jobs, mut queue) = mpsc::unbounded_channel::<etcd_grpc::Job>();
            let shared = self.shared.clone();
            spawn_local(async move {
                while let Some(job) = queue.recv().await {
                    job(&mut shared.catch_up());
                    shared.notify();
                }
            });
            etcd_grpc::spawn(self.etcd_listeners, jobs);
        }
        let ticker = self.shared.clone();
        spawn_local(async move {
            let mut every = tokio::time::interval(Duration::from_millis(TICK_MS));
            loop {
                every.tick().await;
                drop(ticker.catch_up());
                ticker.notify();
            }
        });
        loop {
            let stream = match self.listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: report, breathe, keep serving.
                    eprintln!("accept: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let shared = self.shared.clone();
            spawn_local(async move {
                let service = service_fn(move |req| {
                    let shared = shared.clone();
                    async move { Ok::<_, Infallible>(handle(shared, req).await) }
                });
                // A client hanging up mid-response is not the server's error.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }
}

/// Where the cluster's virtual clock starts, in milliseconds after the engine's virtual epoch:
/// `wall_clock` for [`Start::Now`] (so a client's own clock, which `kubectl describe` uses for
/// ages, agrees with the server's), clamped to what the engine represents (a clock before
/// 2026-01-01 starts at the epoch).
pub fn start_ms(start: Start, wall_clock: SystemTime) -> u64 {
    let ms = match start {
        Start::At(t) => t.as_millis(),
        Start::Now => {
            let unix_ms = wall_clock
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0);
            let ms = unix_ms.saturating_sub(u128::from(EPOCH_UNIX_SECONDS) * 1000);
            u64::try_from(ms).unwrap_or(u64::MAX)
        }
    };
    ms.min(MAX_START_MS)
}

/// The largest request body read: the engine's (kube-apiserver's `MaxRequestBodyBytes`).
const MAX_BODY: usize = MAX_REQUEST_BODY_BYTES;

async fn handle(shared: Rc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let (mut parts, body) = req.into_parts();
    let mut body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return status(&Status::request_entity_too_large(&format!(
                "limit is {MAX_BODY}"
            )))
        }
    };
    let writes = !body.is_empty() && matches!(parts.method, Method::POST | Method::PUT);
    let content_type = |parts: &hyper::http::request::Parts| {
        parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    // A DELETE's body is its DeleteOptions (`kubectl drain --disable-eviction`, typed deletes).
    let deletes = !body.is_empty() && parts.method == Method::DELETE;
    if (writes || deletes) && protobuf::is_protobuf(content_type(&parts).as_deref()) {
        // kubectl's typed clients (`create deployment`...) send protobuf: read as JSON.
        match protobuf::to_json(&body) {
            Ok(object) => {
                body = Bytes::from(object.to_string());
                parts.headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
            }
            Err(protobuf::Error::Malformed(m)) => return status(&Status::bad_request(&m)),
            // A resource the engine does not serve is answered as such (404), whatever the body.
            Err(protobuf::Error::Unsupported(_))
                if !served(
                    &shared.catch_up().api().registry().clone(),
                    &parts.method,
                    &parts.uri,
                ) =>
            {
                body = Bytes::new();
                parts.headers.remove(header::CONTENT_TYPE);
            }
            Err(protobuf::Error::Unsupported(m)) => {
                return status(&Status::unsupported_media_type(&m))
            }
        }
    }
    if writes && !is_json(content_type(&parts).as_deref()) {
        return status(&Status::unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf",
        ));
    }
    let body = match std::str::from_utf8(&body) {
        Ok("") => None,
        Ok(b) => Some(b.to_string()),
        Err(_) => return status(&Status::bad_request("the body of the request is not UTF-8")),
    };
    let answer = respond(
        &shared,
        &parts.method,
        &parts.uri,
        &parts.headers,
        body.as_deref(),
    );
    shared.notify();
    if answer.extensions().get::<EtcdTimedOut>().is_some() {
        // etcd gives up on a request no leader could carry out after its request timeout; the
        // engine decides at once, the client hears it when a real server would answer.
        tokio::time::sleep(shared.clock.real_duration(ETCD_REQUEST_TIMEOUT_MS)).await;
    }
    answer
}

/// etcd's `ReqTimeout()`: 5 s plus two election timeouts (2 × 1 s), how long a request waits
/// for a leader and a majority before `etcdserver: request timed out`.
const ETCD_REQUEST_TIMEOUT_MS: u64 = 7_000;

/// Marks an answer that is etcd's request timeout (sent after [`ETCD_REQUEST_TIMEOUT_MS`]).
#[derive(Debug, Clone, Copy)]
struct EtcdTimedOut;

/// Whether the request is for a resource the engine's `registry` serves.
fn served(registry: &Registry, method: &Method, uri: &Uri) -> bool {
    let path = uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or(uri.path());
    parse_request(method.as_str(), path).is_ok_and(|(info, _)| {
        registry
            .lookup(&info.group, &info.version, &info.resource)
            .is_some()
    })
}

fn respond(
    shared: &Rc<Shared>,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Option<&str>,
) -> Response<Body> {
    let path = uri.path();
    let path_and_query = uri.path_and_query().map(|p| p.as_str()).unwrap_or(path);
    let header_str = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let accept = header_str(header::ACCEPT).unwrap_or_default();
    let content_type = header_str(header::CONTENT_TYPE);
    let user = user_of(header_str(header::USER_AGENT));

    if *method == Method::GET {
        if matches!(path, "/healthz" | "/livez" | "/readyz") {
            // The real health endpoints answer a plain `ok`.
            let mut resp = Response::new(Full::new(Bytes::from_static(b"ok")).boxed_unsync());
            resp.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            return resp;
        }
        let registry = shared.catch_up().api().registry().clone();
        if let Some(doc) = discovery::document(&registry, path, &shared.address) {
            return json(StatusCode::OK, doc.to_string());
        }
        // `/openapi/v3` is the engine's (below); v2 is answered here, in JSON or protobuf.
        if openapi::v2::is_path(path) {
            return openapi_v2(&registry, accept);
        }
    }
    let Ok((info, _)) = parse_request(method.as_str(), path_and_query) else {
        // Not an API path (or a malformed one): let the engine word the error.
        let r = shared.catch_up().session(&user).request(
            method.as_str(),
            path_and_query,
            content_type,
            body,
        );
        return api(r);
    };
    // kubectl asks for a Table (server-side printing): the engine prints it.
    let table = wants_table(accept);
    if info.verb == Verb::Watch {
        return watch(
            shared.clone(),
            &user,
            path_and_query,
            table.then_some(accept),
        );
    }
    if info.verb == Verb::Get
        && info.group.is_empty()
        && info.resource == "pods"
        && info.subresource.as_deref() == Some("log")
    {
        return pod_log(shared.clone(), &info, path_and_query);
    }
    let mut cluster = shared.catch_up();
    let mut session = cluster.session(&user);
    let r = if table && *method == Method::GET {
        session.get_accepting(path_and_query, accept)
    } else {
        session.request(method.as_str(), path_and_query, content_type, body)
    };
    let warnings = session.take_warnings();
    drop(cluster);
    let timed_out = r.code == 500 && r.body.contains(watchlab_engine::etcd::REQUEST_TIMED_OUT);
    let mut resp = api(r);
    if timed_out {
        resp.extensions_mut().insert(EtcdTimedOut);
    }
    add_warnings(&mut resp, warnings);
    resp
}

/// `/openapi/v2` in the form `accept` asks for (`openapi_v2_pb`).
fn openapi_v2(registry: &Registry, accept: &str) -> Response<Body> {
    let (media, bytes) = openapi_v2_pb::answer(registry, accept);
    let mut resp = Response::new(Full::new(Bytes::from(bytes)).boxed_unsync());
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    resp
}

/// The answer's `Warning` headers: RFC 7234 warn-code 299, agent "-", the text quoted (`"` and
/// `\` escaped), as `warning.NewWarningsRecorder` writes them.
fn add_warnings(resp: &mut Response<Body>, warnings: Vec<String>) {
    for text in warnings {
        let quoted = text.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(v) = HeaderValue::from_str(&format!("299 - \"{quoted}\"")) {
            resp.headers_mut().append(hyper::header::WARNING, v);
        }
    }
}

/// Whether a create/update body's Content-Type is JSON (absent counts as JSON, as `curl -d`).
fn is_json(content_type: Option<&str>) -> bool {
    let media = content_type
        .and_then(|c| c.split(';').next())
        .map(str::trim)
        .unwrap_or("application/json");
    media.eq_ignore_ascii_case("application/json") || media.is_empty()
}

/// The identity a request acts as: the User-Agent's product (`kubectl/v1.32.0 (...)` →
/// `kubectl`), as the real server's default field manager; `unknown` without one.
fn user_of(agent: Option<&str>) -> String {
    agent
        .and_then(|a| a.split(['/', ' ']).next())
        .filter(|a| !a.is_empty())
        .unwrap_or("unknown")
        .to_string()
}

/// Opens the watch and streams its lines until the engine ends it or the client goes away.
fn watch(
    shared: Rc<Shared>,
    user: &str,
    path_and_query: &str,
    table_accept: Option<&str>,
) -> Response<Body> {
    let opened = {
        let mut cluster = shared.catch_up();
        let mut session = cluster.session(user);
        match table_accept {
            Some(accept) => session.watch_accepting(path_and_query, accept),
            None => session.watch(path_and_query),
        }
    };
    let id: WatchId = match opened {
        Ok(id) => id,
        Err(r) => return api(r),
    };
    let (tx, rx) = mpsc::channel::<String>(256);
    let user = user.to_string();
    spawn_local(async move {
        loop {
            let lines = shared.catch_up().session(&user).poll_watch(id);
            let Some(lines) = lines else { break };
            for line in lines {
                if tx.send(line + "\n").await.is_err() {
                    shared.catch_up().session(&user).stop_watch(id);
                    return;
                }
            }
            tokio::select! {
                _ = shared.changed.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(TICK_MS * 2)) => {}
                _ = tx.closed() => {
                    shared.catch_up().session(&user).stop_watch(id);
                    return;
                }
            }
        }
    });
    let stream =
        ReceiverStream::new(rx).map(|line| Ok::<_, Infallible>(Frame::data(Bytes::from(line))));
    let mut resp = Response::new(StreamBody::new(stream).boxed_unsync());
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// `pods/log`: the text as the kubelet writes it (`text/plain`), or the refusal as a Status; with
/// `follow=true` a stream that sends the run's new lines as the virtual clock writes them and
/// ends with the run (the engine's `LogFollow`, polled like a watch).
fn pod_log(shared: Rc<Shared>, info: &RequestInfo, path_and_query: &str) -> Response<Body> {
    let ns = info.namespace.as_deref();
    let name = info.name.as_deref().unwrap_or_default();
    let opts = match PodLogOptions::from_query(path_and_query) {
        Ok(o) => o,
        Err(s) => return status(&s),
    };
    if !opts.follow {
        let answer = shared.catch_up().api().pod_log(ns, name, &opts);
        return match answer {
            Ok(text) => plain_text(Full::new(Bytes::from(text)).boxed_unsync()),
            Err(s) => status(&s),
        };
    }
    let opened = shared.catch_up().api().follow_pod_log(ns, name, &opts);
    let (first, mut follow) = match opened {
        Ok(o) => o,
        Err(s) => return status(&s),
    };
    let (tx, rx) = mpsc::channel::<String>(256);
    spawn_local(async move {
        let mut next = Some(first);
        while let Some(text) = next {
            if !text.is_empty() && tx.send(text).await.is_err() {
                return;
            }
            tokio::select! {
                _ = shared.changed.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(TICK_MS * 2)) => {}
                _ = tx.closed() => return,
            }
            let cluster = shared.catch_up();
            next = follow.poll(cluster.api());
        }
    });
    let stream =
        ReceiverStream::new(rx).map(|text| Ok::<_, Infallible>(Frame::data(Bytes::from(text))));
    plain_text(StreamBody::new(stream).boxed_unsync())
}

fn plain_text(body: Body) -> Response<Body> {
    let mut resp = Response::new(body);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    resp
}

fn api(r: ApiResponse) -> Response<Body> {
    json(
        StatusCode::from_u16(r.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        r.body,
    )
}

fn status(s: &Status) -> Response<Body> {
    json(
        StatusCode::from_u16(s.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        s.to_json(),
    )
}

fn json(code: StatusCode, body: String) -> Response<Body> {
    let retry_after = retry_after(code, &body);
    let mut resp = Response::new(Full::new(Bytes::from(body)).boxed_unsync());
    *resp.status_mut() = code;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(seconds) = retry_after {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    resp
}

/// `Retry-After` for a 429 or a 5xx Status that carries `details.retryAfterSeconds`, as
/// `responsewriters.ErrorNegotiated` sets it (client-go then retries such a request).
fn retry_after(code: StatusCode, body: &str) -> Option<u64> {
    if code != StatusCode::TOO_MANY_REQUESTS && !code.is_server_error() {
        return None;
    }
    let status: serde_json::Value = serde_json::from_str(body).ok()?;
    status["details"]["retryAfterSeconds"]
        .as_u64()
        .filter(|s| *s > 0)
}

#[cfg(test)]
mod tests {
    use super::{is_json, start_ms, user_of};
    use crate::args::Start;
    use std::time::{Duration, UNIX_EPOCH};
    use watchlab_engine::clock::Timestamp;

    #[test]
    fn the_clock_starts_at_the_wall_clock_or_the_given_instant() {
        let at = |unix_secs: u64| UNIX_EPOCH + Duration::from_secs(unix_secs);
        // 2026-12-02T22:39:23Z.
        let wall = at(1_796_251_163);
        assert_eq!(
            Timestamp::from_millis(start_ms(Start::Now, wall)).to_rfc3339(),
            "2026-12-02T22:39:23Z"
        );
        assert_eq!(start_ms(Start::Now, at(0)), 0);
        assert_eq!(
            start_ms(Start::At(Timestamp::from_millis(5_000)), wall),
            5_000
        );
    }

    #[test]
    fn only_json_bodies_are_decoded() {
        assert!(is_json(None));
        assert!(is_json(Some("application/json; charset=utf-8")));
        assert!(!is_json(Some("application/vnd.kubernetes.protobuf")));
        assert!(!is_json(Some("application/yaml")));
    }

    #[test]
    fn user_agent_product_names_the_user() {
        assert_eq!(
            user_of(Some("kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9")),
            "kubectl"
        );
        assert_eq!(user_of(Some("kube-rs")), "kube-rs");
        assert_eq!(user_of(None), "unknown");
        assert_eq!(user_of(Some("")), "unknown");
    }
}
