//! Deeply nested or very long input reaching the API server must be refused or handled, never
//! recursed into until the stack runs out: the page's WebAssembly stack is 1 MiB, so each input
//! is run here, in a debug build (the largest frames), on a thread with half of that.

use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::request::parse_request;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::ApiServer;

const SMALL_STACK: usize = 512 * 1024;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(t.join().is_ok());
}

#[test]
fn selectors_and_paths() {
    on_small_stack(|| {
        for text in [
            "(".repeat(100_000),
            "a in (".to_string() + &"b,".repeat(100_000) + ")",
            "!".repeat(100_000),
            "a=".repeat(100_000),
            "\\".repeat(100_001),
        ] {
            let _ = LabelSelector::parse(&text);
            let _ = FieldSelector::parse(&text);
        }
        for path in [
            "/".repeat(100_000),
            format!("/api/v1/pods?{}", "a=b&".repeat(50_000)),
            format!("/api/v1/{}", "namespaces/x/".repeat(20_000)),
            format!("/api/v1/pods?labelSelector={}", "%28".repeat(50_000)),
        ] {
            let _ = parse_request("GET", &path);
        }
    });
}

#[test]
fn nested_json_bodies_and_patches() {
    on_small_stack(|| {
        let deep = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        let mut api = ApiServer::new(1);
        for n in [100, 127, 129, 10_000] {
            let body = format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p{n}","annotations":{{"x":"y"}}}},"spec":{{"containers":[{{"name":"c","image":"i"}}]}},"status":{}}}"#,
                deep(n)
            );
            let _ = Object::decode(Kind::Pod, &body);
            let before = api.revision();
            let r = api.request("POST", "/api/v1/namespaces/default/pods", None, Some(&body));
            assert!(r.code == 201 || api.revision() == before, "{}", r.code);
            for ct in [
                "application/merge-patch+json",
                "application/strategic-merge-patch+json",
            ] {
                let _ = api.request(
                    "PATCH",
                    "/api/v1/namespaces/default",
                    Some(ct),
                    Some(&format!(r#"{{"metadata":{{"labels":{}}}}}"#, deep(n))),
                );
            }
            let pointer = "/a".repeat(n);
            let _ = api.request(
                "PATCH",
                "/api/v1/namespaces/default",
                Some("application/json-patch+json"),
                Some(&format!(r#"[{{"op":"add","path":"{pointer}","value":1}}]"#)),
            );
        }
    });
}
