//! The HTTP/1.1 face of the engine: one `Mutex<Cluster>` shared by every request, each request
//! answered by the engine's JSON edge (`ApiServer::handle`), discovery and the Table printing
//! added around it, and watches streamed as chunked JSON lines, flushed as events arrive and
//! ended at the stream's (virtual) timeout. Bound to 127.0.0.1 only: there is no authentication.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, Method, Request, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Notify};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use watchlab_apimachinery::client::{ApiClient, ApiResponse, WatchId};
use watchlab_apimachinery::request::parse_request;
use watchlab_apimachinery::status::Status;
use watchlab_engine::cluster::{Cluster, ClusterConfig};
use watchlab_kubectl::age::virtual_now_unix_ms;

use crate::args::Args;
use crate::clock_driver::{ClockDriver, TICK_MS};
use crate::table::{self, IncludeObject};
use crate::{discovery, scale};

/// What every request handler shares.
pub struct Shared {
    cluster: Mutex<Cluster>,
    clock: ClockDriver,
    /// Woken after every request and tick, so watch streams flush at once.
    changed: Notify,
    /// `host:port`, for `serverAddressByClientCIDRs`.
    address: String,
}

impl Shared {
    /// The cluster, with its virtual clock caught up to real time.
    pub fn cluster(&self) -> MutexGuard<'_, Cluster> {
        let mut guard = self.cluster.lock().unwrap_or_else(PoisonError::into_inner);
        self.clock.sync(&mut guard);
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
    shared: Arc<Shared>,
}

/// Why the server could not start.
#[derive(Debug)]
pub enum ServeError {
    Bind {
        address: String,
        error: std::io::Error,
    },
    Serve(std::io::Error),
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
            ServeError::Serve(error) => write!(f, "server stopped: {error}"),
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
            ..ClusterConfig::default()
        });
        let clock = ClockDriver::new(cluster.now(), args.speed);
        let shared = Arc::new(Shared {
            cluster: Mutex::new(cluster),
            clock,
            changed: Notify::new(),
            address: local.to_string(),
        });
        Ok(Server { listener, shared })
    }

    pub fn local_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }

    /// The state the handlers share (tests reach the cluster through it).
    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Serves until the process ends, ticking the virtual clock every [`TICK_MS`].
    pub async fn run(self) -> Result<(), ServeError> {
        let ticker = self.shared.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(TICK_MS));
            loop {
                every.tick().await;
                drop(ticker.cluster());
                ticker.notify();
            }
        });
        let shared = self.shared;
        let app = Router::new().fallback(move |req: Request<Body>| handle(shared.clone(), req));
        axum::serve(self.listener, app)
            .await
            .map_err(ServeError::Serve)
    }
}

/// The largest request body accepted (the real server's limit is 3 MiB for most requests).
const MAX_BODY: usize = 3 * 1024 * 1024;

async fn handle(shared: Arc<Shared>, req: Request<Body>) -> Response {
    let (parts, body) = req.into_parts();
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return status(&Status::request_entity_too_large(
                "the request body is too large",
            ))
        }
    };
    let body = match std::str::from_utf8(&body) {
        Ok(b) if !b.is_empty() => Some(b.to_string()),
        Ok(_) => None,
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
    answer
}

fn respond(
    shared: &Arc<Shared>,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Option<&str>,
) -> Response {
    let path = uri.path();
    let query = uri.query().unwrap_or_default();
    let path_and_query = uri.path_and_query().map(|p| p.as_str()).unwrap_or(path);
    let header_str = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let accept = header_str(header::ACCEPT).unwrap_or_default();
    let content_type = header_str(header::CONTENT_TYPE);
    let user = user_of(header_str(header::USER_AGENT));

    if *method == Method::GET {
        if let Some(doc) = discovery::document(path, &shared.address) {
            return json(StatusCode::OK, doc.to_string());
        }
    }
    let Ok((info, _)) = parse_request(method.as_str(), path_and_query) else {
        // Not an API path (or a malformed one): let the engine word the error.
        let r = shared.cluster().session(&user).request(
            method.as_str(),
            path_and_query,
            content_type,
            body,
        );
        return api(r);
    };
    let include = IncludeObject::from_query(query);
    let as_table = table::wants_table(accept);
    if info.verb == watchlab_apimachinery::request::Verb::Watch {
        let plural = as_table.then(|| info.resource.clone());
        return watch(shared.clone(), &user, path_and_query, plural, include);
    }
    let mut cluster = shared.cluster();
    let now = virtual_now_unix_ms(cluster.now().as_millis());
    let mut session = cluster.session(&user);
    let r = match scale::handle(
        session.server(),
        &user,
        method.as_str(),
        path_and_query,
        content_type,
        body,
    ) {
        Some(r) => r,
        None => session.request(method.as_str(), path_and_query, content_type, body),
    };
    drop(cluster);
    if as_table && r.code == 200 && *method == Method::GET && info.subresource.is_none() {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(&r.body) {
            if value["kind"] != "Status" {
                let t = table::from_body(&info.resource, &value, now, include);
                return json(StatusCode::OK, t.to_string());
            }
        }
    }
    api(r)
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
    shared: Arc<Shared>,
    user: &str,
    path_and_query: &str,
    table_of: Option<String>,
    include: IncludeObject,
) -> Response {
    let id: WatchId = match shared.cluster().session(user).watch(path_and_query) {
        Ok(id) => id,
        Err(r) => return api(r),
    };
    let (tx, rx) = mpsc::channel::<String>(256);
    let user = user.to_string();
    tokio::spawn(async move {
        loop {
            let (lines, now) = {
                let mut cluster = shared.cluster();
                let now = virtual_now_unix_ms(cluster.now().as_millis());
                (cluster.session(&user).poll_watch(id), now)
            };
            let Some(lines) = lines else { break };
            for line in lines {
                let line = match &table_of {
                    Some(plural) => table::watch_line(plural, &line, now, include),
                    None => line,
                };
                if tx.send(line + "\n").await.is_err() {
                    shared.cluster().session(&user).stop_watch(id);
                    return;
                }
            }
            tokio::select! {
                _ = shared.changed.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(TICK_MS * 2)) => {}
                _ = tx.closed() => {
                    shared.cluster().session(&user).stop_watch(id);
                    return;
                }
            }
        }
    });
    let stream = ReceiverStream::new(rx).map(|line| Ok::<_, Infallible>(Bytes::from(line)));
    let mut resp = Response::new(Body::from_stream(stream));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    resp
}

fn api(r: ApiResponse) -> Response {
    json(
        StatusCode::from_u16(r.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        r.body,
    )
}

fn status(s: &Status) -> Response {
    json(
        StatusCode::from_u16(s.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        s.to_json(),
    )
}

fn json(code: StatusCode, body: String) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = code;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::user_of;

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
