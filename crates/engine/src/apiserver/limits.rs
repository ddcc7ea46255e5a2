//! Bounds on what a user can grow, each where the real system puts it and with its error, so a
//! learner who pastes a huge manifest or scales to a million replicas gets the real refusal
//! instead of a tab that runs out of memory:
//!
//! | what | bound | answer |
//! | --- | --- | --- |
//! | a request body | kube-apiserver's `MaxRequestBodyBytes`, 3 MiB | 413 `Request entity too large: limit is 3145728` |
//! | one stored object (so also its label count) | etcd's `--max-request-bytes`, 1.5 MiB | 500 `etcdserver: request is too large` |
//! | the whole store | etcd's `--quota-backend-bytes` (2 GiB), counted here in entries | 500 `etcdserver: mvcc: database space exceeded` |
//! | label keys/values, annotations | validation: 63/253 characters, 256 KiB of annotations | 422 `... Too long ...` |
//! | a watch stream's backlog | [`super::WatchConfig::buffer_limit`], 1000 events | the stream is closed; the client re-watches |
//! | history | compaction every 5 minutes; [`super::Ledger`] keeps 10,000 lines | 410 `Expired` for older revisions |
//!
//! Kubernetes has no limit on the number of labels of its own: the object size bounds it.

use super::errors;
use super::json_len::json_len;
use crate::api::Object;
use crate::store::{Store, StoreError};
use std::sync::Arc;
use watchlab_apimachinery::status::Status;

/// kube-apiserver's `--max-request-body-bytes`... default for create, update and patch bodies
/// (`MaxRequestBodyBytes = 3 * 1024 * 1024`).
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// etcd's `--max-request-bytes` default (1.5 MiB): a put larger than this fails in etcd's gRPC
/// layer with `etcdserver: request is too large`, which kube-apiserver passes through as a
/// reason-less 500. etcd measures the protobuf request (key + value); here the object is
/// measured as JSON, a little larger, so the bound bites slightly earlier.
pub const MAX_OBJECT_BYTES: usize = 1024 * 1024 * 3 / 2;

/// The store's space quota, standing in for etcd's `--quota-backend-bytes` (2 GiB): live keys
/// plus retained revisions. Half a million entries is about a gigabyte in the engine (an
/// object version costs ~2 KB), what a browser tab can hold; past it a put fails with etcd's
/// `mvcc: database space exceeded` until a compaction frees history (etcd would also need a
/// defragmentation and the NOSPACE alarm disarmed). Deletes and reads still work, as in etcd.
pub const DEFAULT_QUOTA_ENTRIES: usize = 500_000;

/// etcd's `rpctypes.ErrGRPCNoSpace`.
pub const NO_SPACE: &str = "etcdserver: mvcc: database space exceeded";

/// 413 for a body beyond [`MAX_REQUEST_BODY_BYTES`] (`limitedReadBody`).
pub fn check_body(body: Option<&str>) -> Result<(), Status> {
    match body {
        Some(b) if b.len() > MAX_REQUEST_BODY_BYTES => Err(Status::request_entity_too_large(
            &format!("limit is {MAX_REQUEST_BODY_BYTES}"),
        )),
        _ => Ok(()),
    }
}

/// The length of `obj`'s JSON encoding, counted without building it (and without resolving
/// its `managedFields` when an update left them pending: a few hundred bytes at most).
pub fn encoded_len(obj: &Object) -> usize {
    // An object that cannot be encoded cannot be stored either.
    json_len(&obj.untracked()).unwrap_or(usize::MAX)
}

/// etcd's checks on a put of `obj` at `key`: the request size, then the space quota. The
/// message is etcd's own (the caller turns it into the apiserver's 500).
pub fn check_put(
    store: &Store<Arc<Object>>,
    quota_entries: usize,
    key: &str,
    obj: &Object,
) -> Result<(), String> {
    if key.len().saturating_add(encoded_len(obj)) > MAX_OBJECT_BYTES {
        return Err(StoreError::KeyTooLarge {
            len: key.len(),
            limit: MAX_OBJECT_BYTES,
        }
        .to_string());
    }
    // Like etcd's `quotaBackend.Available`, count what the request adds: a new key is an entry
    // and a history event, an update only the event. (Checking the current size alone let a
    // create at quota - 1 end one entry past the quota.)
    let adds = if store.get(key).is_some() { 1 } else { 2 };
    if store
        .len()
        .saturating_add(store.history_len())
        .saturating_add(adds)
        > quota_entries
    {
        return Err(NO_SPACE.to_string());
    }
    Ok(())
}

/// The Status a client sees for a refused put.
pub fn refused(msg: &str) -> Status {
    errors::unknown(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Namespace, ObjectMeta};

    #[test]
    fn the_bounds_are_the_real_defaults() {
        assert_eq!(MAX_REQUEST_BODY_BYTES, 3_145_728);
        assert_eq!(MAX_OBJECT_BYTES, 1_572_864);
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
        assert_eq!(encoded_len(&ns), ns.to_json().len());
    }

    #[test]
    fn a_full_store_refuses_puts_with_etcds_message() {
        let store: Store<Arc<Object>> = Store::new();
        let ns = Object::Namespace(Namespace {
            metadata: ObjectMeta::named("", "a"),
            ..Default::default()
        });
        // A new key costs two entries: the key and its history event.
        assert_eq!(check_put(&store, 2, "/registry/namespaces/a", &ns), Ok(()));
        assert_eq!(
            check_put(&store, 1, "/registry/namespaces/a", &ns),
            Err(NO_SPACE.to_string())
        );
        assert_eq!(refused(NO_SPACE).code(), 500);
    }
}
