//! The `continue` token of paged lists, in the real format: unpadded URL-safe base64 of
//! `{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<key after the prefix>\u0000"}`, so the
//! next page reads the same revision starting just after the last key returned.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Token {
    v: String,
    rv: i64,
    start: String,
}

const VERSION: &str = "meta.k8s.io/v1";

/// Encodes the token continuing after `last_key` (a full key under `prefix`) at `revision`.
pub fn encode(prefix: &str, last_key: &str, revision: u64) -> String {
    encode_at(prefix, last_key, revision as i64)
}

/// The token a 410 for an expired `continue` hands back: the same start key at `rv: -1`, which
/// continues at the latest revision (an inconsistent but complete remainder).
pub fn encode_latest(prefix: &str, last_key: &str) -> String {
    encode_at(prefix, last_key, LATEST)
}

/// `rv: -1` in a token: read the rest at the current revision (`storage.DecodeContinue`).
const LATEST: i64 = -1;

fn encode_at(prefix: &str, last_key: &str, rv: i64) -> String {
    let start = format!("{}\u{0}", last_key.strip_prefix(prefix).unwrap_or(last_key));
    let token = Token {
        v: VERSION.into(),
        rv,
        start,
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
}

/// Decodes a token into (revision, the key to continue strictly after), with the real error
/// texts of `storage.DecodeContinue`; the revision is `None` for an `rv: -1` token (latest).
pub fn decode(token: &str, prefix: &str) -> Result<(Option<u64>, String), String> {
    let bytes = URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .map_err(|e| format!("continue key is not valid: {e}"))?;
    let t: Token =
        serde_json::from_slice(&bytes).map_err(|e| format!("continue key is not valid: {e}"))?;
    if t.v != VERSION {
        return Err(format!(
            "continue key is not valid: server does not recognize this encoded version {:?}",
            t.v
        ));
    }
    if t.rv == 0 || t.rv < LATEST {
        return Err("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into());
    }
    let start = t.start.strip_suffix('\u{0}').unwrap_or(&t.start);
    if start.is_empty()
        || start.starts_with('/')
        || start.split('/').any(|seg| seg == "." || seg == "..")
    {
        return Err(
            "continue key is not valid: incorrect encoded start key (version meta.k8s.io/v1)"
                .into(),
        );
    }
    let at = u64::try_from(t.rv).ok();
    Ok((at, format!("{prefix}{start}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_garbage() {
        let t = encode("/registry/pods/", "/registry/pods/default/web-1", 42);
        assert_eq!(
            decode(&t, "/registry/pods/"),
            Ok((Some(42), "/registry/pods/default/web-1".to_string()))
        );
        let latest = encode_latest("/registry/pods/", "/registry/pods/default/web-1");
        assert_eq!(
            decode(&latest, "/registry/pods/"),
            Ok((None, "/registry/pods/default/web-1".to_string()))
        );
        assert!(decode("!!!", "/registry/pods/")
            .unwrap_err()
            .starts_with("continue key is not valid"));
        let bad = URL_SAFE_NO_PAD.encode(br#"{"v":"x","rv":1,"start":"a"}"#);
        assert!(decode(&bad, "/p/").is_err());
        let escape = URL_SAFE_NO_PAD.encode(br#"{"v":"meta.k8s.io/v1","rv":1,"start":"../x"}"#);
        assert!(decode(&escape, "/p/").is_err());
    }
}
