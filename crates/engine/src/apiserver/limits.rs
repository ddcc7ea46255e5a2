//! Bounds on what a user can grow, each where the real system puts it and with its error, so a
//! learner who pastes a huge manifest or scales to a million replicas gets the real refusal
//! instead of a tab that runs out of memory:
//!
//! | what | bound | answer |
//! | --- | --- | --- |
//! | a request body | kube-apiserver's `MaxRequestBodyBytes`, 3 MiB | 413 `Request entity too large: limit is 3145728` |
//! | one stored object (so also its label count) | etcd's `--max-request-bytes`, 1.5 MiB | 500 `etcdserver: request is too large` |
//! | the whole store | etcd's `--quota-backend-bytes`, 2 GiB of kept revisions (each: key + JSON + 256) | 500 `etcdserver: mvcc: database space exceeded` |
//! | label keys/values, annotations | validation: 63/253 characters, 256 KiB of annotations | 422 `... Too long ...` |
//! | a watch stream's backlog | [`super::WatchConfig::buffer_limit`], 1000 events | the stream is closed; the client re-watches |
//! | history | compaction every 5 minutes; [`super::Ledger`] keeps 10,000 lines | 410 `Expired` for older revisions |
//!
//! Kubernetes has no limit on the number of labels of its own: the object size bounds it. The
//! store enforces its own two bounds ([`crate::store::quota`]), measuring an object by its
//! JSON ([`Encoded`] here); the apiserver passes etcd's message on as a reason-less 500.

use super::json_len::json_len;
use crate::api::Object;
use crate::store::Encoded;
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

/// kube-apiserver's `--max-request-body-bytes`... default for create, update and patch bodies
/// (`MaxRequestBodyBytes = 3 * 1024 * 1024`).
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// 413 for a body beyond [`MAX_REQUEST_BODY_BYTES`] (`limitedReadBody`).
pub fn check_body(body: Option<&str>) -> Result<(), Status> {
    match body {
        Some(b) if b.len() > MAX_REQUEST_BODY_BYTES => Err(Status::request_entity_too_large(
            &format!("limit is {MAX_REQUEST_BODY_BYTES}"),
        )),
        _ => Ok(()),
    }
}

/// An object costs etcd the length of its encoding. kube-apiserver stores built-in kinds as
/// protobuf, a little smaller than this JSON, so both etcd bounds bite slightly earlier here.
/// The length is counted without building the JSON (and without resolving `managedFields` an
/// update left pending: a few hundred bytes at most); an object that cannot be encoded cannot
/// be stored either.
impl Encoded for Arc<Object> {
    fn encoded_len(&self) -> usize {
        json_len(&self.untracked()).unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Namespace, ObjectMeta};

    #[test]
    fn the_bounds_are_the_real_defaults() {
        assert_eq!(MAX_REQUEST_BODY_BYTES, 3_145_728);
        assert_eq!(check_body(Some("{}")), Ok(()));
        assert_eq!(check_body(None), Ok(()));
        let big = "x".repeat(MAX_REQUEST_BODY_BYTES + 1);
        let err = check_body(Some(&big)).err();
        assert_eq!(err.as_ref().map(Status::code), Some(413));
        assert_eq!(
            err.as_ref().map(Status::message),
            Some("Request entity too large: limit is 3145728")
        );
    }

    #[test]
    fn encoded_len_is_the_json_length() {
        let ns = Object::Namespace(Namespace {
            metadata: ObjectMeta::named("", "default"),
            ..Default::default()
        });
        assert_eq!(Arc::new(ns.clone()).encoded_len(), ns.to_json().len());
    }
}
