//! The JSON edge never panics and never half-writes: arbitrary methods, paths, queries and
//! bodies get an HTTP-shaped answer, and a failed request leaves the revision unchanged.

use proptest::prelude::*;
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

fn path_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("/api/v1/namespaces/default/pods".to_string()),
        Just("/api/v1/namespaces/default/pods/web".to_string()),
        Just("/api/v1/namespaces/default/pods/web/binding".to_string()),
        Just("/api/v1/namespaces/default/pods/web/status".to_string()),
        Just("/apis/apps/v1/namespaces/default/deployments/d".to_string()),
        Just("/api/v1/nodes/n".to_string()),
        Just("/api/v1/namespaces/x".to_string()),
        "[ -~]{0,40}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("?limit=2".to_string()),
        Just("?resourceVersion=0".to_string()),
        Just("?resourceVersion=abc&resourceVersionMatch=Exact".to_string()),
        Just("?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLiJ9".to_string()),
        Just("?watch=true&labelSelector=app%3Dweb".to_string()),
        Just("?fieldSelector=spec.nodeName%3Dn".to_string()),
        "\\?[ -~]{0,30}",
    ]
}

fn body() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#.to_string())),
        Just(Some(r#"{"kind":"Binding","apiVersion":"v1","metadata":{"name":"web"},"target":{"name":"n"}}"#.to_string())),
        Just(Some(r#"{"metadata":{"labels":{"a":null}},"spec":{"replicas":-3}}"#.to_string())),
        Just(Some(r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{}}}"#.to_string())),
        "[ -~]{0,60}".prop_map(Some),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_request_gets_an_answer(reqs in proptest::collection::vec(
        (prop_oneof![Just("GET"), Just("POST"), Just("PUT"), Just("PATCH"), Just("DELETE"), Just("BREW")], path_piece(), query(), body()), 1..12)) {
        let mut s = ApiServer::new(3);
        for (method, path, q, body) in reqs {
            let rev = s.revision();
            let r = s.request(method, &format!("{path}{q}"), Some("application/merge-patch+json"), body.as_deref());
            prop_assert!((200..600).contains(&r.code));
            if !r.is_success() {
                prop_assert_eq!(s.revision(), rev, "{} {} -> {}", method, path, r.body);
                let v: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
                prop_assert_eq!(&v["kind"], "Status");
            }
            if let Ok(id) = ApiClient::watch(&mut s, &format!("{path}{q}")) {
                let _ = s.poll_watch(id);
            }
        }
    }
}
