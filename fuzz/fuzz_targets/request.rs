//! The request path and query parser, and the API server behind it: input = one method byte,
//! then `path?query`, then (after the first newline) a body. Any request gets an HTTP-shaped
//! answer; a refused one is a `Status` and writes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::request::parse_request;
use watchlab_engine::apiserver::ApiServer;

const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "BREW"];
const CONTENT_TYPES: [&str; 3] = [
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/json-patch+json",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let method = METHODS[pick as usize % METHODS.len()];
    let content_type = CONTENT_TYPES[(pick as usize / METHODS.len()) % CONTENT_TYPES.len()];
    let (path, body) = match text.split_once('\n') {
        Some((p, b)) => (p, Some(b)),
        None => (text, None),
    };
    let _ = parse_request(method, path);
    let mut api = ApiServer::new(1);
    let before = api.revision();
    let r = api.request(method, path, Some(content_type), body);
    assert!(
        (200..600).contains(&r.code),
        "{method} {path:?} -> {}",
        r.code
    );
    if !(200..300).contains(&r.code) && r.code != 405 {
        assert_eq!(api.revision(), before, "{method} {path:?} -> {}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
        assert_eq!(v["kind"], "Status", "{method} {path:?} -> {}", r.body);
    }
    if let Ok(id) = ApiClient::watch(&mut api, path) {
        let _ = api.poll_watch(id);
        api.stop_watch(id);
    }
});
