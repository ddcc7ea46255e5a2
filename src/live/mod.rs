//! Live mode: the same page reading and watching a real API server instead of the in-tab
//! engine. Started by the query flag `?live` (the API at the page's origin, as `kubectl proxy
//! --www=dist --www-prefix=/ui/` serves both) or `?live=/prefix` (the API under a path of the
//! same origin). Same origin only: the page's Content-Security-Policy allows no other.
//!
//! The kubectl console runs unchanged over an HTTP [`ApiClient`](watchlab_apimachinery::client::ApiClient)
//! ([`http_client`]); the cluster, events and raw-stream views are fed by list + watch through
//! the engine's own reflector and informer ([`model`]). Views that need the store's internals
//! (ledger, etcd members, every stream's fan-out, controllers' informers, the virtual clock) say
//! they are not available here ([`texts`]), rather than pretend.

pub mod app;
pub mod frame;
pub mod http_client;
pub mod lister;
pub mod model;
pub mod state;
pub mod texts;
pub mod views;

/// The query parameter that starts live mode.
pub const FLAG: &str = "live";

/// The API base path `?live[=/prefix]` asks for (`""` = the origin's root), or `None` when
/// the page runs the in-tab engine. A value that is not a same-origin path is refused (`None`
/// plus the reason), so the page never talks to another origin.
pub fn requested(search: &str) -> Option<Result<String, String>> {
    let query = search.strip_prefix('?').unwrap_or(search);
    let value = form_value(query, FLAG)?;
    Some(match value.as_str() {
        "" | "1" | "true" | "/" => Ok(String::new()),
        v if v.starts_with('/') && !v.starts_with("//") && !v.contains(['?', '#', '\\']) => {
            Ok(v.trim_end_matches('/').to_string())
        }
        v => Err(v.to_string()),
    })
}

/// The first value of `key` in an `application/x-www-form-urlencoded` query (`""` for a bare
/// `key`).
pub(crate) fn form_value(query: &str, key: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_flag_names_a_same_origin_base() {
        assert_eq!(requested(""), None);
        assert_eq!(requested("?lang=en"), None);
        assert_eq!(requested("?live"), Some(Ok(String::new())));
        assert_eq!(requested("?x=1&live="), Some(Ok(String::new())));
        assert_eq!(requested("?live=/"), Some(Ok(String::new())));
        assert_eq!(requested("?live=%2Fk8s%2F"), Some(Ok("/k8s".into())));
        assert_eq!(requested("live=/api-proxy"), Some(Ok("/api-proxy".into())));
        for other in ["http://evil.example", "//evil.example", "k8s", "/a?b"] {
            assert_eq!(
                requested(&format!("?live={other}")),
                Some(Err(other.into()))
            );
        }
    }
}
