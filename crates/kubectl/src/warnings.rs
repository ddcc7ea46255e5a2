//! The server's `Warning` headers as kubectl prints them: every request a command makes goes
//! through a [`Recorder`], which collects the warnings each answer carried
//! ([`ApiClient::take_warnings`]); the console prints them first on stderr as
//! `Warning: unknown field "spec.foo"`, as client-go's default warning handler does.

use watchlab_apimachinery::client::{ApiClient, ApiResponse, WatchId};

/// An [`ApiClient`] that remembers the warnings of every request it passes on.
pub(crate) struct Recorder<'a> {
    inner: &'a mut dyn ApiClient,
    warnings: Vec<String>,
}

impl<'a> Recorder<'a> {
    pub fn new(inner: &'a mut dyn ApiClient) -> Self {
        Recorder {
            inner,
            warnings: Vec::new(),
        }
    }

    /// The collected warnings as kubectl's stderr lines.
    pub fn into_stderr(self) -> String {
        self.warnings
            .iter()
            .map(|w| format!("Warning: {w}\n"))
            .collect()
    }
}

impl ApiClient for Recorder<'_> {
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
        self.warnings.extend(self.inner.take_warnings());
        r
    }

    fn watch(&mut self, path_and_query: &str) -> Result<WatchId, ApiResponse> {
        self.inner.watch(path_and_query)
    }

    fn get_accepting(&mut self, path_and_query: &str, accept: &str) -> ApiResponse {
        let r = self.inner.get_accepting(path_and_query, accept);
        self.warnings.extend(self.inner.take_warnings());
        r
    }

    fn watch_accepting(
        &mut self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<WatchId, ApiResponse> {
        self.inner.watch_accepting(path_and_query, accept)
    }

    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
        self.inner.poll_watch(id)
    }

    fn stop_watch(&mut self, id: WatchId) {
        self.inner.stop_watch(id)
    }

    fn now_ms(&self) -> u64 {
        self.inner.now_ms()
    }
}
