//! What the store holds and what it reports: a key's versioned value ([`KeyValue`], etcd's
//! `mvccpb.KeyValue`) and one change to it ([`Event`], etcd's `mvccpb.Event`). Watchers, the
//! API server and the UI all consume these two shapes.

use std::sync::Arc;

use super::revision::{Rev, Revision};
use super::LeaseId;

/// A key's state at one revision.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue<V> {
    /// Shared with the key index and every event of the key (one allocation per key).
    pub key: Arc<str>,
    pub value: V,
    /// Revision of the put that created the key (reset when a deleted key is created again).
    pub create_revision: Revision,
    /// Revision of the last write to the key.
    pub mod_revision: Revision,
    /// Number of puts since the key was created (1 after creation, 0 in a delete event).
    pub version: u64,
    pub lease: Option<LeaseId>,
}

/// Whether a change wrote or removed its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Put,
    Delete,
}

/// One change. For Delete, kv.key is the key, kv.mod_revision the delete's revision, kv.value the
/// last value (so watchers can send the final state, as the apiserver's DELETED event does).
/// The state before (etcd's `prev_kv`) is the write at `prev`, read with
/// [`super::Store::prev_kv`]: a position, not a copy, since that write is itself in the history
/// (or, once compacted, kept as the key's state at the compaction revision).
#[derive(Debug, Clone)]
pub struct Event<V> {
    pub kind: EventType,
    pub kv: KeyValue<V>,
    pub(crate) prev: Option<Rev>,
    /// What keeping this revision costs against the space quota ([`super::quota`]).
    pub(crate) cost: u32,
}
