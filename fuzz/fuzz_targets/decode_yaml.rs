//! Manifests as `kubectl apply -f` reads them (JSON or multi-document YAML): parsing never
//! panics, every document it yields re-reads as the same document once printed as YAML, and
//! `apply -f` of the file against a real API server never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use watchlab_engine::api::Object;
use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::{manifest, Kubectl};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(docs) = manifest::parse("m.yaml", text) else {
        return;
    };
    for doc in &docs {
        let _ = Object::from_json(&doc.to_string());
        let is_list = doc.get("kind").and_then(|k| k.as_str()) == Some("List");
        if is_list {
            continue;
        }
        if let Ok(yaml) = serde_yaml_ng::to_string(doc) {
            let again = manifest::parse("again.yaml", &yaml);
            if let Ok(again) = again {
                assert_eq!(again.len(), 1, "{yaml}");
                assert_eq!(&again[0], doc, "{yaml}");
            }
        }
    }
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    k.set_file("m.yaml", text);
    let _ = k.exec("kubectl apply -f m.yaml", &mut api);
});
