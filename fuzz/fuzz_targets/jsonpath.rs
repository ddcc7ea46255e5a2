//! client-go's JSONPath (apimachinery) with kubectl's error texts: input = a template, optionally followed (after a newline) by the JSON
//! document to run it on (a Deployment otherwise). Never panics; a parse or execution error
//! renders kubectl's message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use watchlab_apimachinery::jsonpath::JsonPath;
use watchlab_kubectl::output::{execution_error_text, parse_error_text, relaxed};

fn deployment() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "orders-api", "namespace": "production", "resourceVersion": "184553",
                        "labels": {"app": "orders-api", "tier": "web"}},
           "spec": {"replicas": 3, "template": {"spec": {"containers": [
               {"name": "api", "image": "orders-api:1.4", "ports": [{"containerPort": 8080}]},
               {"name": "sidecar", "image": "envoy:1.29"}]}}},
           "status": {"replicas": 3, "readyReplicas": 2, "conditions": [
               {"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True"}]},
           "items": [1, 2.5, "x", null, true, {"a": [[]]}]})
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (template, doc) = match text.split_once('\n') {
        Some((t, d)) => (t, serde_json::from_str(d).unwrap_or_else(|_| deployment())),
        None => (text, deployment()),
    };
    let _ = relaxed(template);
    match JsonPath::parse(template) {
        Ok(p) => {
            for allow_missing in [true, false] {
                if let Err(e) = p.execute(&doc, allow_missing) {
                    let _ = execution_error_text(template, &e, &doc);
                }
            }
        }
        Err(e) => {
            let _ = parse_error_text(template, &e);
        }
    }
});
