//! An [`ApiClient`] over the browser's HTTP, so kubectl and the informers run unchanged against
//! a real API server on the page's origin.
//!
//! The trait is synchronous (kubectl's commands are written as straight-line code over it), so
//! a non-watch request is a synchronous `XMLHttpRequest`: it blocks the page for one loopback
//! round trip, which a training tool can afford. A watch is a `fetch` whose chunked body is read
//! as it streams in, split into lines and queued; [`ApiClient::poll_watch`] drains the queue on
//! the page's tick and reports the end of the stream once the body is over (the reflector and
//! kubectl's follow then re-watch or stop, as their real counterparts do). A refused watch (410,
//! 400...) arrives as a `Status` with a non-2xx code; it is queued as the `ERROR` event line the
//! real server would send inside a stream, so both paths look alike to the client.
//!
//! Nothing here panics on network data: every failure becomes an answer or the end of a stream.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use watchlab_apimachinery::client::EPOCH_UNIX_SECONDS;
use watchlab_apimachinery::client::{ApiClient, ApiResponse, WatchId};

/// Watch streams open at once. Browsers allow six HTTP/1.1 connections per host (`kubectl
/// proxy` speaks HTTP/1.1); a synchronous request needs a free one or the page would wait for a
/// stream to end. Three informers and the console's `-w` (briefly two while one replaces the
/// other) fit.
pub const MAX_STREAMS: usize = 5;

/// Lines queued on one stream before the page drains them; past this the stream is closed, as
/// the API server closes a watcher too slow to keep up, and the client re-watches.
pub const MAX_QUEUED_LINES: usize = 20_000;

/// The Accept of a plain request: the objects as JSON.
const JSON: &str = "application/json";

/// The longest watch line accepted (the API server's objects are at most ~1.5 MiB).
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// What a streaming body has delivered so far.
#[derive(Debug, Default)]
struct StreamBuf {
    lines: Vec<String>,
    /// Bytes after the last newline.
    partial: Vec<u8>,
    ended: bool,
}

impl StreamBuf {
    fn push_bytes(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            match chunk.strip_suffix(b"\n") {
                Some(rest) => {
                    self.partial.extend_from_slice(rest);
                    let line = std::mem::take(&mut self.partial);
                    let line = String::from_utf8_lossy(&line);
                    let line = line.trim_end_matches('\r');
                    if !line.trim().is_empty() {
                        self.lines.push(line.to_string());
                    }
                }
                None => self.partial.extend_from_slice(chunk),
            }
        }
        if self.partial.len() > MAX_LINE_BYTES || self.lines.len() > MAX_QUEUED_LINES {
            self.ended = true;
        }
    }
}

struct Stream {
    buf: Rc<RefCell<StreamBuf>>,
    abort: Option<web_sys::AbortController>,
}

/// The browser's HTTP client for the API under `base` (`""` = the page's origin root).
pub struct HttpClient {
    base: String,
    next_id: WatchId,
    streams: BTreeMap<WatchId, Stream>,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("base", &self.base)
            .field("streams", &self.streams.len())
            .finish()
    }
}

/// A `Status` body as the API server words it.
fn status(code: u16, reason: &str, message: &str) -> ApiResponse {
    let body = serde_json::json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    ApiResponse {
        code,
        body: body.to_string(),
    }
}

fn js_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

impl HttpClient {
    pub fn new(base: &str) -> Self {
        HttpClient {
            base: base.to_string(),
            next_id: 1,
            streams: BTreeMap::new(),
        }
    }

    /// The base path the API is served under.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn url(&self, path_and_query: &str) -> String {
        format!("{}{}", self.base, path_and_query)
    }

    fn send(
        &self,
        method: &str,
        url: &str,
        accept: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> Result<ApiResponse, JsValue> {
        let xhr = web_sys::XmlHttpRequest::new()?;
        xhr.open_with_async(method, url, false)?;
        xhr.set_request_header("Accept", accept)?;
        if body.is_some() {
            xhr.set_request_header("Content-Type", content_type.unwrap_or("application/json"))?;
        }
        xhr.send_with_opt_str(body)?;
        let code = xhr.status()?;
        let body = xhr.response_text()?.unwrap_or_default();
        Ok(ApiResponse { code, body })
    }

    /// One synchronous request; a failed connection becomes a 503 Status.
    fn exchange(
        &self,
        method: &str,
        path_and_query: &str,
        accept: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        let url = self.url(path_and_query);
        match self.send(method, &url, accept, content_type, body) {
            Ok(r) if r.code == 0 => status(
                503,
                "ServiceUnavailable",
                &format!("the connection to the server for {url} failed"),
            ),
            Ok(r) => r,
            Err(e) => status(
                503,
                "ServiceUnavailable",
                &format!(
                    "the connection to the server for {url} failed: {}",
                    js_text(&e)
                ),
            ),
        }
    }

    /// Starts the fetch of a watch and the task that queues its lines.
    fn open(
        &self,
        url: &str,
        accept: &str,
        buf: Rc<RefCell<StreamBuf>>,
    ) -> Option<web_sys::AbortController> {
        let window = web_sys::window()?;
        let abort = web_sys::AbortController::new().ok();
        let init = web_sys::RequestInit::new();
        init.set_method("GET");
        if let Some(a) = &abort {
            init.set_signal(Some(&a.signal()));
        }
        if let Ok(headers) = web_sys::Headers::new() {
            let _ = headers.set("Accept", accept);
            init.set_headers(&headers);
        }
        let promise = window.fetch_with_str_and_init(url, &init);
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = pump(promise, &buf).await {
                // The stream broke (network error, abort): its end is all the client needs.
                let _ = e;
            }
            buf.borrow_mut().ended = true;
        });
        abort
    }
}

/// Reads a watch response into `buf`: its lines, or one ERROR event line for a refusal.
async fn pump(promise: js_sys::Promise, buf: &Rc<RefCell<StreamBuf>>) -> Result<(), JsValue> {
    let resp: web_sys::Response = JsFuture::from(promise).await?.dyn_into()?;
    if !resp.ok() {
        let text = JsFuture::from(resp.text()?)
            .await?
            .as_string()
            .unwrap_or_default();
        let code = resp.status();
        let object = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) if v.get("kind").and_then(|k| k.as_str()) == Some("Status") => v,
            _ => {
                let first = text.lines().next().unwrap_or_default();
                let message = if first.trim().is_empty() {
                    format!("the server answered {code}")
                } else {
                    first.chars().take(300).collect()
                };
                serde_json::from_str(&status(code, "", &message).body).unwrap_or_default()
            }
        };
        let line = serde_json::json!({"type": "ERROR", "object": object});
        buf.borrow_mut().lines.push(line.to_string());
        return Ok(());
    }
    let Some(body) = resp.body() else {
        return Ok(());
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().dyn_into()?;
    loop {
        if buf.borrow().ended {
            // Too much queued: stop reading (the reader is dropped, the fetch aborted).
            let _ = reader.cancel();
            return Ok(());
        }
        let chunk = JsFuture::from(reader.read()).await?;
        let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done"))?
            .as_bool()
            .unwrap_or(true);
        if done {
            return Ok(());
        }
        let value = js_sys::Reflect::get(&chunk, &JsValue::from_str("value"))?;
        if let Some(bytes) = value.dyn_ref::<js_sys::Uint8Array>() {
            buf.borrow_mut().push_bytes(&bytes.to_vec());
        }
    }
}

impl ApiClient for HttpClient {
    fn request(
        &mut self,
        method: &str,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> ApiResponse {
        self.exchange(method, path_and_query, JSON, content_type, body)
    }

    /// Sends the caller's Accept (kubectl's names a Table first, the plain JSON last), so the real
    /// API server answers with its own Table, as it does for the real kubectl.
    fn get_accepting(&mut self, path_and_query: &str, accept: &str) -> ApiResponse {
        self.exchange("GET", path_and_query, accept, None, None)
    }

    fn watch(&mut self, path_and_query: &str) -> Result<WatchId, ApiResponse> {
        self.watch_accepting(path_and_query, JSON)
    }

    fn watch_accepting(
        &mut self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<WatchId, ApiResponse> {
        if self.streams.len() >= MAX_STREAMS {
            return Err(status(
                429,
                "TooManyRequests",
                &format!(
                    "this page already has {MAX_STREAMS} watch streams open (a browser allows 6 connections per host)"
                ),
            ));
        }
        let buf = Rc::new(RefCell::new(StreamBuf::default()));
        let url = self.url(path_and_query);
        let abort = self.open(&url, accept, buf.clone());
        if abort.is_none() {
            buf.borrow_mut().ended = true;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.streams.insert(id, Stream { buf, abort });
        Ok(id)
    }

    fn poll_watch(&mut self, id: WatchId) -> Option<Vec<String>> {
        let stream = self.streams.get(&id)?;
        let (lines, ended) = {
            let mut b = stream.buf.borrow_mut();
            (std::mem::take(&mut b.lines), b.ended)
        };
        if lines.is_empty() && ended {
            self.stop_watch(id);
            return None;
        }
        Some(lines)
    }

    fn stop_watch(&mut self, id: WatchId) {
        if let Some(s) = self.streams.remove(&id) {
            s.buf.borrow_mut().ended = true;
            if let Some(a) = s.abort {
                a.abort();
            }
        }
    }

    fn now_ms(&self) -> u64 {
        // The client's own clock, as the real kubectl's: milliseconds after the engine's
        // virtual epoch (watchlab-apiserver starts its clock at its wall-clock start).
        let ms = js_sys::Date::now() - (EPOCH_UNIX_SECONDS as f64) * 1000.0;
        if ms.is_finite() && ms > 0.0 {
            ms as u64
        } else {
            0
        }
    }
}

impl Drop for HttpClient {
    fn drop(&mut self) {
        let ids: Vec<WatchId> = self.streams.keys().copied().collect();
        for id in ids {
            self.stop_watch(id);
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn bytes_become_lines_across_chunks() {
        let mut b = StreamBuf::default();
        b.push_bytes(b"{\"type\":\"ADDED\"}\n{\"ty");
        assert_eq!(b.lines, ["{\"type\":\"ADDED\"}"]);
        b.push_bytes(b"pe\":\"MODIFIED\"}\r\n\n");
        assert_eq!(b.lines.len(), 2);
        assert_eq!(b.lines[1], "{\"type\":\"MODIFIED\"}");
        assert!(b.partial.is_empty() && !b.ended);
        // A multi-byte character split across chunks survives.
        let text = "{\"m\":\"节点\"}\n".as_bytes();
        b.push_bytes(&text[..9]);
        b.push_bytes(&text[9..]);
        assert_eq!(b.lines[2], "{\"m\":\"节点\"}");
    }

    #[test]
    fn an_endless_line_ends_the_stream() {
        let mut b = StreamBuf::default();
        b.push_bytes(&vec![b'x'; MAX_LINE_BYTES + 1]);
        assert!(b.ended);
    }
}
