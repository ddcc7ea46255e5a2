//! Object decoding from JSON, as `POST`/`PUT` bodies and the UI reach it: for every kind,
//! decoding never panics, a decoded object encodes to JSON that decodes to the same object,
//! and the API server answers a create with that body without panicking or, when it refuses,
//! writing anything.
#![no_main]

use libfuzzer_sys::fuzz_target;
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::ApiServer;

fn collection(kind: Kind) -> &'static str {
    match kind {
        Kind::Namespace => "/api/v1/namespaces",
        Kind::Node => "/api/v1/nodes",
        Kind::Pod => "/api/v1/namespaces/default/pods",
        Kind::ReplicaSet => "/apis/apps/v1/namespaces/default/replicasets",
        Kind::Deployment => "/apis/apps/v1/namespaces/default/deployments",
        Kind::Event => "/api/v1/namespaces/default/events",
        Kind::Lease => "/apis/coordination.k8s.io/v1/namespaces/default/leases",
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(obj) = Object::from_json(text) {
        let again = Object::from_json(&obj.to_json());
        assert_eq!(again.as_ref(), Ok(&obj), "{text:?} -> {}", obj.to_json());
    }
    for kind in Kind::ALL {
        if let Ok(obj) = Object::decode(kind, text) {
            let again = Object::decode(kind, &obj.to_json());
            assert_eq!(again.as_ref(), Ok(&obj), "{text:?} -> {}", obj.to_json());
        }
    }
    let mut api = ApiServer::new(1);
    let kind = Kind::ALL[data.len() % Kind::ALL.len()];
    let before = api.revision();
    let r = api.request("POST", collection(kind), None, Some(text));
    assert!((200..600).contains(&r.code));
    if r.code >= 300 {
        assert_eq!(api.revision(), before, "{}", r.body);
    }
});
