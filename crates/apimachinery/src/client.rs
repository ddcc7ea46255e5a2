//! The client side of the API server's HTTP surface, as a trait.
//!
//! Everything outside the API server — kubectl, the UI, informers, the loopback HTTP server —
//! talks to it the way a real client does: a method, a path with its query string
//! (`/api/v1/namespaces/default/pods?labelSelector=app%3Dnginx`) and a JSON body, answered with
//! an HTTP status code and a JSON body (the object, a list, or a `Status`). A watch is a stream
//! that yields one JSON line per event, exactly what a chunked HTTP watch body carries.

/// The calendar instant the API server's virtual clock counts from ([`ApiClient::now_ms`]):
/// 2026-01-01T00:00:00Z, the same instant as `watchlab_engine::clock::EPOCH_UNIX_SECONDS`.
pub const EPOCH_UNIX_SECONDS: i64 = 1_767_225_600;

/// Converts the server's virtual `now_ms` to Unix milliseconds.
pub fn virtual_now_unix_ms(now_ms: u64) -> i64 {
    EPOCH_UNIX_SECONDS * 1000 + i64::try_from(now_ms).unwrap_or(i64::MAX / 2)
}

/// An HTTP-shaped answer: the status code and the JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiResponse {
    pub code: u16,
    pub body: String,
}

impl ApiResponse {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.code)
    }
}

/// Identifies one open watch stream on the server.
pub type WatchId = u64;

/// What a client can ask of the API server.
pub trait ApiClient {
    /// A non-watch request. `method` is the HTTP verb (`GET`, `POST`, `PUT`, `PATCH`,
    /// `DELETE`); `content_type` matters for `PATCH` (`application/merge-patch+json`, ...).
    fn request(
        &mut self,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse;

    /// Opens a watch (`path_and_query` carries `watch=true` or is a `/watch/` path). A refused
    /// watch answers with the error response (400 bad selector, 410 too old resource version...).
    fn watch(&mut self, path_and_query: &str) -> Result<WatchId, ApiResponse>;

    /// The JSON event lines (`{"type":"ADDED","object":{...}}`) delivered on the stream since the
    /// last poll. `None` once the stream has ended (timeout, server close, or unknown id): a
    /// client then re-watches from the last resourceVersion it saw.
    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>>;

    /// A GET whose answer is asked for in the representation an Accept header names, such as
    /// kubectl's `application/json;as=Table;v=v1;g=meta.k8s.io` ([`crate::table`]). As in HTTP
    /// content negotiation, a server that cannot give that representation answers the plain JSON
    /// (kubectl's Accept lists `application/json` last), which is this default.
    fn get_accepting(&mut self, path_and_query: &str, accept: &str) -> ApiResponse {
        let _ = accept;
        self.request("GET", path_and_query, None, None)
    }

    /// A watch whose events carry their objects in the representation `accept` names (a Table
    /// event's object is a one-row Table); the default, like a server without that
    /// representation, streams plain JSON objects.
    fn watch_accepting(
        &mut self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<WatchId, ApiResponse> {
        let _ = accept;
        self.watch(path_and_query)
    }

    /// Closes the stream from the client side.
    fn stop_watch(&mut self, id: WatchId);

    /// The server's current virtual time in milliseconds (kubectl prints AGE against it).
    fn now_ms(&self) -> u64;

    /// The warnings the last request earned (the texts of its `Warning: 299 - "…"` headers,
    /// `unknown field "spec.foo"`), handed over once; kubectl prints each as `Warning: …`.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}
