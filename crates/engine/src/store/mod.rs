//! The etcd-like store: the cluster's single source of truth, modelled on etcd's MVCC storage
//! (`server/storage/mvcc`). One global revision counts writing transactions; each key carries
//! its create/mod revision and version; past revisions stay readable until compaction; writes
//! are compare-and-swap transactions; leases delete keys when they run out. Only the API server
//! talks to it, exactly as only kube-apiserver talks to etcd.
//!
//! Layers, as in etcd: the `key_index` maps each key to the positions of its writes, the
//! `history` maps positions to values and is the watchable event log, and the `lease` lessor
//! tracks TTLs. [`Store`] ties them together and enforces the transaction rules.
//!
//! Limits (etcd's defaults): [`MAX_TXN_OPS`] compares or ops per txn branch (`--max-txn-ops`),
//! [`MAX_REQUEST_BYTES`] per put (`--max-request-bytes`), the space quota
//! [`DEFAULT_QUOTA_BYTES`] over every kept revision (`--quota-backend-bytes`, [`quota`]), lease
//! TTLs within [`MIN_LEASE_TTL_MS`] and [`MAX_LEASE_TTL_MS`]. A value is sized by its
//! [`Encoded`] length, as etcd sizes the bytes it is given.
//!
//! Scale: writes are O(log keys) (no per-write work proportional to the store's size); a read at
//! any retained revision is a key-index lookup, then an O(1) step into the event log (a binary
//! search for values older than the last compaction); only compaction walks the history.

mod cursor;
mod error;
mod history;
mod key_index;
mod kv;
mod lease;
pub mod quota;
mod revision;
mod snapshot;
mod txn;

pub use error::StoreError;
pub use kv::{Event, EventType, KeyValue, NO_LEASE};
pub use lease::{Lease, LeaseId, MAX_LEASE_TTL_MS, MIN_LEASE_TTL_MS};
pub use quota::{Encoded, DEFAULT_QUOTA_BYTES, MAX_REQUEST_BYTES};
pub use revision::{Revision, INITIAL_REVISION};
pub use snapshot::Snapshot;
pub use txn::{Compare, CompareOp, CompareTarget, Op, OpResponse, Txn, TxnResponse, MAX_TXN_OPS};

use std::sync::Arc;

use crate::clock::Timestamp;
use cursor::PageCursor;
use history::History;
use key_index::Index;
use lease::Lessor;

/// The answer to a range read.
#[derive(Debug, Clone)]
pub struct RangeResponse<V> {
    /// The matching keys' states, in key order, at most `limit` of them.
    pub kvs: Vec<KeyValue<V>>,
    /// Whether matching keys remained beyond `limit`.
    pub more: bool,
    /// How many keys matched in total (after `start_after`), as etcd's `count`.
    pub count: usize,
    /// The store's current revision (etcd's response header revision).
    pub revision: Revision,
}

/// An etcd-like MVCC key-value store over values `V` (cheap to clone: the API server uses
/// `Arc<Object>`; the store never clones deeper than `V::clone`).
#[derive(Debug, Clone)]
pub struct Store<V> {
    index: Index,
    history: History<V>,
    lessor: Lessor,
    revision: Revision,
    compact_revision: Revision,
    live: usize,
    /// `--quota-backend-bytes`: what the kept revisions may cost before puts are refused.
    quota_bytes: u64,
    /// Where the last truncated range stopped, so the next page need not recount.
    cursor: PageCursor,
}

impl<V: Clone + Encoded> Default for Store<V> {
    fn default() -> Self {
        Self::new()
    }
}

/// An open write transaction: its revision and whether it wrote anything yet.
struct Pending {
    main: Revision,
    wrote: bool,
}

impl<V: Clone + Encoded> Store<V> {
    /// An empty store at revision 1, with etcd's default space quota.
    pub fn new() -> Self {
        Store {
            index: Index::default(),
            history: History::default(),
            lessor: Lessor::default(),
            revision: INITIAL_REVISION,
            compact_revision: 0,
            live: 0,
            quota_bytes: DEFAULT_QUOTA_BYTES,
            cursor: PageCursor::default(),
        }
    }

    /// The revision of the last writing transaction (1 for a fresh store).
    #[must_use]
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// The revision of the last compaction, 0 before any.
    #[must_use]
    pub fn compact_revision(&self) -> Revision {
        self.compact_revision
    }

    /// The key's current state, if it exists.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&KeyValue<V>> {
        self.history.kv(self.index.get(key)?.live()?)
    }

    /// How many keys starting with `prefix` exist now: etcd's `countOnly` range at the current
    /// revision (what kube-apiserver's object-count metric asks), without reading a value.
    #[must_use]
    pub fn count_prefix(&self, prefix: &str) -> usize {
        self.index.count_live(prefix)
    }

    /// Keys that start with `prefix`, in key order, strictly after `start_after` if given, at
    /// revision `at` (None or 0 = current, as etcd's revision 0). A past revision reads history:
    /// Compacted if `at < compact_revision` (etcd allows `at == compact_revision`),
    /// FutureRevision if `at > revision`. `limit` caps `kvs` (None or 0 = no limit, as etcd);
    /// `more` says whether more remained; `count` = total matching.
    pub fn range_prefix(
        &self,
        prefix: &str,
        start_after: Option<&str>,
        at: Option<Revision>,
        limit: Option<usize>,
    ) -> Result<RangeResponse<V>, StoreError> {
        let at = self.read_revision(at)?;
        let limit = limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
        let known = self.cursor.remaining(prefix, at, start_after);
        let mut kvs = Vec::new();
        let mut count = 0;
        self.index.walk_prefix(prefix, start_after, |_, index| {
            if known.is_some() && kvs.len() >= limit {
                return false;
            }
            // Counting needs only the key index; values are fetched for the returned page.
            if let Some(write) = index.at(at).filter(|w| !w.tombstone) {
                count += 1;
                if kvs.len() < limit {
                    kvs.extend(self.history.kv(write.rev).cloned());
                }
            }
            true
        });
        let count = known.unwrap_or(count);
        let more = count > kvs.len();
        if let Some(last) = kvs.last().filter(|_| more) {
            self.cursor
                .remember(prefix, at, &last.key, count - kvs.len());
        }
        Ok(RangeResponse {
            more,
            kvs,
            count,
            revision: self.revision,
        })
    }

    /// The revision a read at `at` sees, or why it cannot.
    fn read_revision(&self, at: Option<Revision>) -> Result<Revision, StoreError> {
        match at {
            None | Some(0) => Ok(self.revision),
            Some(r) if r > self.revision => Err(StoreError::FutureRevision {
                requested: r,
                current: self.revision,
            }),
            Some(r) if r < self.compact_revision => Err(StoreError::Compacted {
                requested: r,
                compact_revision: self.compact_revision,
            }),
            Some(r) => Ok(r),
        }
    }

    /// etcd's Txn: compares all true → success ops, else failure ops. A txn that writes anything
    /// raises the revision by exactly one (all its writes share that revision, each key's version
    /// += 1); a read-only txn does not. Deleting a missing key writes nothing. Gets see the
    /// txn's earlier writes, as in etcd. Limit: [`MAX_TXN_OPS`] per branch (etcd's
    /// `--max-txn-ops` default). Nothing is written unless the whole txn is accepted.
    pub fn txn(&mut self, txn: Txn<V>) -> Result<TxnResponse<V>, StoreError> {
        txn.validate()?;
        let succeeded = txn.compare.iter().all(|c| c.holds(self.get(&c.key)));
        let (ops, other) = if succeeded {
            (txn.success, txn.failure)
        } else {
            (txn.failure, txn.success)
        };
        for op in &ops {
            if let Op::Put { lease, .. } = op {
                self.check_lease(*lease)?;
            }
        }
        // etcd charges a txn the dearer of its two branches, whichever runs.
        let costs = put_costs(&ops)?;
        let other = put_costs(&other)?;
        let total = |costs: &[u32]| costs.iter().map(|c| u64::from(*c)).sum::<u64>();
        self.check_space(total(&costs).max(total(&other)))?;
        let mut pending = self.begin();
        let responses = ops
            .into_iter()
            .zip(costs)
            .map(|(op, cost)| match op {
                Op::Get { key } => OpResponse::Get(self.get(&key).cloned()),
                Op::Put { key, value, lease } => OpResponse::Put {
                    prev: self.write_put(&mut pending, &key, value, lease, cost),
                },
                Op::Delete { key } => OpResponse::Delete {
                    deleted: self.write_delete(&mut pending, &key),
                },
            })
            .collect();
        self.commit(&pending);
        Ok(TxnResponse {
            succeeded,
            revision: self.revision,
            responses,
        })
    }

    /// Puts one key (an unconditional one-op txn); returns the write's revision.
    pub fn put(
        &mut self,
        key: &str,
        value: V,
        lease: Option<LeaseId>,
    ) -> Result<Revision, StoreError> {
        txn::check_key(key)?;
        self.check_lease(lease)?;
        let cost = quota::put_cost(key, &value)?;
        self.check_space(u64::from(cost))?;
        let mut pending = self.begin();
        let _ = self.write_put(&mut pending, key, value, lease, cost);
        self.commit(&pending);
        Ok(self.revision)
    }

    /// Deletes one key; the delete's revision, None if the key did not exist (or is invalid).
    pub fn delete(&mut self, key: &str) -> Option<Revision> {
        txn::check_key(key).ok()?;
        let mut pending = self.begin();
        self.write_delete(&mut pending, key)?;
        self.commit(&pending);
        Some(self.revision)
    }

    /// A put may only attach a live lease (etcd: lease 0 means none).
    fn check_lease(&self, lease: Option<LeaseId>) -> Result<(), StoreError> {
        match lease {
            Some(id) if id != 0 && !self.lessor.contains(id) => Err(StoreError::LeaseNotFound(id)),
            _ => Ok(()),
        }
    }

    /// etcd's quota check before a write that adds `cost` bytes.
    fn check_space(&self, cost: u64) -> Result<(), StoreError> {
        quota::available(self.history.bytes(), cost, self.quota_bytes)
    }

    /// Sets `--quota-backend-bytes` (etcd: 0 means the default; here `u64::MAX` turns it off).
    pub fn set_quota_bytes(&mut self, bytes: u64) {
        self.quota_bytes = bytes;
    }

    /// `--quota-backend-bytes` as set.
    pub fn quota_bytes(&self) -> u64 {
        self.quota_bytes
    }

    /// What the kept revisions cost against the space quota (etcd's `dbSizeInUse`).
    #[must_use]
    pub fn bytes_in_use(&self) -> u64 {
        self.history.bytes()
    }

    /// Opens a write transaction at the next revision.
    fn begin(&self) -> Pending {
        Pending {
            main: self.revision.saturating_add(1),
            wrote: false,
        }
    }

    /// Closes a write transaction: the revision moves only if something was written.
    fn commit(&mut self, pending: &Pending) {
        if pending.wrote {
            self.revision = pending.main;
        }
    }

    /// Writes `key = value`; returns the previous state.
    fn write_put(
        &mut self,
        pending: &mut Pending,
        key: &str,
        value: V,
        lease: Option<LeaseId>,
        cost: u32,
    ) -> Option<KeyValue<V>> {
        let lease = lease.filter(|id| *id != 0);
        let (key, index) = self.index.entry(key);
        let prev_rev = index.live();
        let prev = prev_rev.and_then(|r| self.history.kv(r)).cloned();
        let rev = self.history.next_rev(pending.main);
        pending.wrote = true;
        index.record(rev, false);
        let kv = KeyValue {
            key: Arc::clone(&key),
            value,
            create_revision: prev.as_ref().map_or(rev.main, |p| p.create_revision),
            mod_revision: rev.main,
            version: prev.as_ref().map_or(1, |p| p.version.saturating_add(1)),
            lease: lease.unwrap_or(NO_LEASE),
        };
        let old_lease = prev.as_ref().and_then(KeyValue::attached_lease);
        if old_lease != lease {
            if let Some(old) = old_lease {
                self.lessor.detach(old, &key);
            }
            if let Some(new) = lease {
                self.lessor.attach(new, &key);
            }
        }
        if prev.is_none() {
            self.live += 1;
        }
        self.history
            .push(Event::new(EventType::Put, kv, prev_rev, cost));
        prev
    }

    /// Deletes `key` if it exists; returns its last state.
    fn write_delete(&mut self, pending: &mut Pending, key: &str) -> Option<KeyValue<V>> {
        let index = self.index.get_mut(key)?;
        let prev_rev = index.live()?;
        let prev = self.history.kv(prev_rev)?.clone();
        let rev = self.history.next_rev(pending.main);
        pending.wrote = true;
        index.record(rev, true);
        if let Some(old) = prev.attached_lease() {
            self.lessor.detach(old, key);
        }
        self.live = self.live.saturating_sub(1);
        // etcd's tombstone carries only key and mod revision; the last value rides along too.
        let cost = quota::tombstone_cost(key);
        let tombstone = KeyValue {
            key: Arc::clone(&prev.key),
            value: prev.value.clone(),
            create_revision: 0,
            mod_revision: rev.main,
            version: 0,
            lease: NO_LEASE,
        };
        self.history.push(Event::new(
            EventType::Delete,
            tombstone,
            Some(prev_rev),
            cost,
        ));
        Some(prev)
    }

    /// Every event with revision > `after` whose key starts with `prefix`, in (revision, op
    /// order). Compacted if `after < compact_revision` (watching from revision after+1 needs
    /// after+1 > compact_revision, as etcd). An `after` beyond the current revision yields
    /// nothing yet, as a watch from a future revision waits in etcd.
    pub fn events_after(
        &self,
        prefix: &str,
        after: Revision,
    ) -> Result<Vec<&Event<V>>, StoreError> {
        if after < self.compact_revision {
            return Err(StoreError::Compacted {
                requested: after,
                compact_revision: self.compact_revision,
            });
        }
        Ok(self
            .history
            .after(after)
            .filter(|e| e.kv.key.starts_with(prefix))
            .collect())
    }

    /// The state of `event`'s key before it (etcd's `prev_kv`): `None` for a creation.
    #[must_use]
    pub fn prev_kv(&self, event: &Event<V>) -> Option<&KeyValue<V>> {
        event.prev_seq().and_then(|s| self.history.kv_at_seq(s))
    }

    /// All events of exactly one revision (a txn's writes), for atomic per-revision delivery.
    /// Empty for a compacted or unwritten revision.
    #[must_use]
    pub fn events_at(&self, revision: Revision) -> &[Event<V>] {
        self.history.at(revision)
    }

    /// Drops history up to `revision` (keeps each key's latest state, removes tombstones), so
    /// reads at `revision` or later still work. etcd: Compacted if `revision <=
    /// compact_revision`, FutureRevision if `revision > revision()`.
    pub fn compact(&mut self, revision: Revision) -> Result<(), StoreError> {
        if revision <= self.compact_revision {
            return Err(StoreError::Compacted {
                requested: revision,
                compact_revision: self.compact_revision,
            });
        }
        if revision > self.revision {
            return Err(StoreError::FutureRevision {
                requested: revision,
                current: self.revision,
            });
        }
        self.cursor.clear();
        let keep = self.index.compact(revision);
        self.history.compact(revision, &keep);
        self.compact_revision = revision;
        Ok(())
    }

    /// Grants a lease of `ttl_ms` on the caller's virtual clock, clamped to etcd's bounds
    /// ([`MIN_LEASE_TTL_MS`], [`MAX_LEASE_TTL_MS`]).
    pub fn lease_grant(&mut self, ttl_ms: u64, now: Timestamp) -> LeaseId {
        self.lessor.grant(ttl_ms, now)
    }

    /// A live lease (its granted TTL, deadline and attached keys).
    #[must_use]
    pub fn lease(&self, id: LeaseId) -> Option<&Lease> {
        self.lessor.get(id)
    }

    /// Every live lease's id, ascending (etcd's `LeaseLeases`).
    pub fn lease_ids(&self) -> impl Iterator<Item = LeaseId> + '_ {
        self.lessor.ids()
    }

    /// Restarts the lease's TTL from `now`; LeaseNotFound if unknown or already expired.
    pub fn lease_keep_alive(&mut self, id: LeaseId, now: Timestamp) -> Result<(), StoreError> {
        if self.lessor.renew(id, now) {
            Ok(())
        } else {
            Err(StoreError::LeaseNotFound(id))
        }
    }

    /// Revokes the lease, deleting every attached key in ONE revision (returned; None if no key
    /// was attached, so nothing was written). LeaseNotFound if unknown.
    pub fn lease_revoke(&mut self, id: LeaseId) -> Result<Option<Revision>, StoreError> {
        let lease = self
            .lessor
            .remove(id)
            .ok_or(StoreError::LeaseNotFound(id))?;
        let mut pending = self.begin();
        for key in &lease.keys {
            // The key's deleted state is reported through the event log.
            let _ = self.write_delete(&mut pending, key);
        }
        self.commit(&pending);
        Ok(pending.wrote.then_some(pending.main))
    }

    /// Revokes every lease whose deadline is <= `now`, each its own revision, ascending id;
    /// returns their ids.
    pub fn expire_leases(&mut self, now: Timestamp) -> Vec<LeaseId> {
        let expired = self.lessor.expired(now);
        for id in &expired {
            // Each id was just listed as live, so revoking it cannot fail.
            let _ = self.lease_revoke(*id);
        }
        expired
    }

    /// The earliest deadline among live leases (when the driver should next expire them).
    #[must_use]
    pub fn next_lease_expiry(&self) -> Option<Timestamp> {
        self.lessor.next_expiry()
    }

    /// Number of live keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no key is live.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of retained events (the UI shows it).
    #[must_use]
    pub fn history_len(&self) -> usize {
        self.history.len()
    }
}

/// The cost of each op of a txn branch (0 for reads and deletes), after etcd's request size
/// check on each put.
fn put_costs<V: Encoded>(ops: &[Op<V>]) -> Result<Vec<u32>, StoreError> {
    ops.iter()
        .map(|op| match op {
            Op::Put { key, value, .. } => quota::put_cost(key, value),
            Op::Get { .. } | Op::Delete { .. } => Ok(0),
        })
        .collect()
}

#[cfg(test)]
mod tests;
