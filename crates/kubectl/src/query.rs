//! Query strings the way client-go builds them: Go's `url.Values.Encode`, which sorts by key and
//! escapes with `url.QueryEscape` (space as `+`, `=` as `%3D`), so the console's requests read
//! exactly like the real kubectl's (`?labelSelector=app%3Dnginx&limit=500`).

use watchlab_apimachinery::sort;

/// Go's `url.QueryEscape` (apimachinery's encoder, shared with the API server's parser).
pub fn escape(s: &str) -> String {
    watchlab_apimachinery::request::percent_encode_query_value(s)
}

/// `path?k=v&...` with keys sorted (stable for repeated keys); just `path` when empty.
pub fn with_query(path: &str, params: &[(&str, String)]) -> String {
    if params.is_empty() {
        return path.to_string();
    }
    let mut sorted: Vec<&(&str, String)> = params.iter().collect();
    sort::sort_by(&mut sorted, |a, b| a.0.cmp(b.0));
    let query: Vec<String> = sorted
        .iter()
        .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
        .collect();
    format!("{path}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_go() {
        assert_eq!(escape("app=nginx"), "app%3Dnginx");
        assert_eq!(escape("a in (x, y)"), "a+in+%28x%2C+y%29");
        assert_eq!(escape("metadata.name=x~"), "metadata.name%3Dx~");
        assert_eq!(
            with_query(
                "/api/v1/pods",
                &[
                    ("watch", "true".into()),
                    ("labelSelector", "app=nginx".into())
                ]
            ),
            "/api/v1/pods?labelSelector=app%3Dnginx&watch=true"
        );
        assert_eq!(with_query("/p", &[]), "/p");
    }
}
