//! The API server seen by one user agent, with every state-changing call journaled: what the
//! console and the HTTP server write through, so a session can be saved and replayed.

use watchlab_apimachinery::client::{ApiClient, ApiResponse, WatchId};

use crate::apiserver::{discovery, ApiServer, UserSession};

use super::journal::{Input, Journal, Refusal};

/// The API server seen by one user agent, with every state-changing call journaled. What
/// [`super::Cluster::session`] returns; the console passes it on as `&mut dyn ApiClient`.
pub struct ClusterSession<'a> {
    inner: UserSession<'a>,
    journal: &'a mut Journal,
}

impl<'a> ClusterSession<'a> {
    pub(crate) fn new(inner: UserSession<'a>, journal: &'a mut Journal) -> Self {
        ClusterSession { inner, journal }
    }

    pub fn user(&self) -> &str {
        self.inner.user()
    }

    /// The API server itself. Whatever is done through it is not journaled, so the journal
    /// stops here ([`Refusal::Unrecorded`]): the session can no longer be saved.
    pub fn server(&mut self) -> &mut ApiServer {
        self.journal.refuse(Refusal::Unrecorded);
        self.inner.server()
    }

    fn record(&mut self, input: Input, code: u16, watch_id: Option<WatchId>) {
        let server = self.inner.server();
        let (now, revision) = (server.now(), server.revision());
        self.journal.record(now, revision, input, code, watch_id);
    }

    /// Journals a request and hands its answer back; discovery reads change nothing and every
    /// kubectl command makes them, so they are not journaled.
    fn record_request(&mut self, input: Input, r: ApiResponse) -> ApiResponse {
        if let Input::Request { method, path, .. } = &input {
            let path = path.split(['?', '#']).next().unwrap_or_default();
            let registry = self.inner.server().registry();
            if method.eq_ignore_ascii_case("GET") && discovery::is_discovery_path(registry, path) {
                return r;
            }
        }
        self.record(input, r.code, None);
        r
    }

    /// Journals a watch open (with the Accept it asked with) and hands its answer back.
    fn record_watch(
        &mut self,
        path_and_query: &str,
        accept: Option<&str>,
        r: Result<WatchId, ApiResponse>,
    ) -> Result<WatchId, ApiResponse> {
        let input = Input::Watch {
            user: self.inner.user().to_string(),
            path: path_and_query.to_string(),
            accept: accept.map(str::to_string),
        };
        match &r {
            Ok(id) => self.record(input, 200, Some(*id)),
            Err(e) => self.record(input, e.code, None),
        }
        r
    }
}

impl ApiClient for ClusterSession<'_> {
    fn request(
        &mut self,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        let r = self
            .inner
            .request(method, path_and_query, content_type, body);
        let input = Input::Request {
            user: self.inner.user().to_string(),
            method: method.to_string(),
            path: path_and_query.to_string(),
            content_type: content_type.map(str::to_string),
            body: body.map(str::to_string),
            accept: None,
        };
        self.record_request(input, r)
    }

    fn get_accepting(&mut self, path_and_query: &str, accept: &str) -> ApiResponse {
        let r = self.inner.get_accepting(path_and_query, accept);
        let input = Input::Request {
            user: self.inner.user().to_string(),
            method: "GET".to_string(),
            path: path_and_query.to_string(),
            content_type: None,
            body: None,
            accept: Some(accept.to_string()),
        };
        self.record_request(input, r)
    }

    fn watch(&mut self, path_and_query: &str) -> Result<WatchId, ApiResponse> {
        let r = self.inner.watch(path_and_query);
        self.record_watch(path_and_query, None, r)
    }

    fn watch_accepting(
        &mut self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<WatchId, ApiResponse> {
        let r = self.inner.watch_accepting(path_and_query, accept);
        self.record_watch(path_and_query, Some(accept), r)
    }

    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
        let existed = self.inner.server().stream(id).is_some();
        let lines = self.inner.poll_watch(id);
        match &lines {
            Some(l) if !l.is_empty() => self.record(Input::Poll { id }, 200, None),
            None if existed => self.record(Input::Poll { id }, 0, None),
            _ => {}
        }
        lines
    }

    fn stop_watch(&mut self, id: WatchId) {
        let existed = self.inner.server().stream(id).is_some();
        self.inner.stop_watch(id);
        if existed {
            self.record(Input::Stop { id }, 0, None);
        }
    }

    fn now_ms(&self) -> u64 {
        self.inner.now_ms()
    }

    fn take_warnings(&mut self) -> Vec<String> {
        self.inner.take_warnings()
    }
}
