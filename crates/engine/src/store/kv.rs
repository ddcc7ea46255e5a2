//! What the store holds and what it reports: a key's versioned value ([`KeyValue`], etcd's
//! `mvccpb.KeyValue`) and one change to it ([`Event`], etcd's `mvccpb.Event`). Watchers, the
//! API server and the UI all consume these two shapes.

use std::num::NonZeroU64;
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
    /// The lease the key is attached to, [`NO_LEASE`] for none: etcd's own encoding, eight
    /// bytes where an `Option` took sixteen in every event of the history.
    pub lease: LeaseId,
}

/// The `lease` of a key attached to none (etcd's `NoLease`; lease IDs start at 1).
pub const NO_LEASE: LeaseId = 0;

impl<V> KeyValue<V> {
    /// The lease the key is attached to, if any.
    pub fn attached_lease(&self) -> Option<LeaseId> {
        (self.lease != NO_LEASE).then_some(self.lease)
    }
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
    /// The sequence number of the write this one replaced, plus one: eight bytes where an
    /// `Option<Rev>` took 24 in each of the million events at 150,000 pods (its revision is
    /// that write's own `mod_revision`).
    prev: Option<NonZeroU64>,
    /// What keeping this revision costs against the space quota ([`super::quota`]).
    pub(crate) cost: u32,
}

impl<V> Event<V> {
    pub(crate) fn new(kind: EventType, kv: KeyValue<V>, prev: Option<Rev>, cost: u32) -> Self {
        Event {
            kind,
            kv,
            prev: prev.and_then(|r| NonZeroU64::new(r.seq.saturating_add(1))),
            cost,
        }
    }

    /// The sequence number of the write this one replaced (`None`: it created the key).
    pub(crate) fn prev_seq(&self) -> Option<u64> {
        self.prev.map(|s| s.get() - 1)
    }
}
