//! The ledger the UI shows: one line per revision — which verb by which writer touched which
//! object (and its etcd key), when, and what it changed. Bounded (oldest lines drop first); the
//! store's own history stays the truth.

use crate::api::field_diff::{field_changes, FieldChange};
use crate::api::Object;
use crate::clock::Timestamp;
use crate::store::Revision;
use std::collections::VecDeque;
use std::sync::Arc;

/// Lines kept (older ones are dropped; the store's history is bounded by compaction instead).
pub const DEFAULT_LEDGER_LIMIT: usize = 10_000;

/// One revision's record.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    pub revision: Revision,
    /// `create`, `update`, `patch`, `delete`, `bind` (or `expire` for a lease-expired event).
    pub verb: &'static str,
    /// Plural resource, with the subresource if any (`pods/status`); shared by the lines that
    /// name the same one.
    pub resource: Arc<str>,
    /// The writer's user agent (`kubectl`, `kube-scheduler`, `kubelet/node-a`).
    pub user: Arc<str>,
    pub time: Timestamp,
    /// The object before the write (`None` for a creation) and after it (`None` for a
    /// deletion); at least one is there. Shared with the store, not copied; kept so the line
    /// can say what changed even after compaction, and it names the line's object and key
    /// (not copied into each line either: a line is written per revision).
    pub before: Option<Arc<Object>>,
    pub after: Option<Arc<Object>>,
}

impl LedgerEntry {
    /// The object the line is about: the version written, or the one a deletion removed.
    fn object(&self) -> Option<&Object> {
        self.after.as_deref().or(self.before.as_deref())
    }

    pub fn namespace(&self) -> &str {
        self.object().map_or("", Object::namespace)
    }

    pub fn name(&self) -> &str {
        self.object().map_or("", Object::name)
    }

    /// The etcd key written (`/registry/pods/production/orders-api-6c9f-x2k4q`).
    pub fn key(&self) -> String {
        self.object()
            .map(|o| o.kind().key(o.namespace(), o.name()))
            .unwrap_or_default()
    }

    /// What the write changed, field by field (empty for a creation or a deletion).
    pub fn changes(&self) -> Vec<FieldChange> {
        field_changes(self.before.as_deref(), self.after.as_deref())
    }
}

/// A bounded log of [`LedgerEntry`].
#[derive(Debug, Clone)]
pub struct Ledger {
    entries: VecDeque<LedgerEntry>,
    limit: usize,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::new(DEFAULT_LEDGER_LIMIT)
    }
}

impl Ledger {
    pub fn new(limit: usize) -> Self {
        Ledger {
            entries: VecDeque::new(),
            limit: limit.max(1),
        }
    }

    pub fn push(&mut self, entry: LedgerEntry) {
        if self.entries.len() == self.limit {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// Oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &LedgerEntry> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_is_bounded() {
        let mut l = Ledger::new(2);
        for r in 1..=3 {
            l.push(LedgerEntry {
                revision: r,
                verb: "create",
                resource: "pods".into(),
                user: Arc::from("kubectl"),
                time: Timestamp::ZERO,
                before: None,
                after: None,
            });
        }
        let revs: Vec<_> = l.iter().map(|e| e.revision).collect();
        assert_eq!(revs, vec![2, 3]);
    }
}
