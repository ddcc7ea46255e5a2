//! The ledger the UI shows: one line per revision — which verb by which writer touched which
//! object, and when. Bounded (oldest lines drop first); the store's own history stays the truth.

use crate::clock::Timestamp;
use crate::store::Revision;
use std::collections::VecDeque;
use std::sync::Arc;

/// Lines kept (older ones are dropped; the store's history is bounded by compaction instead).
pub const DEFAULT_LEDGER_LIMIT: usize = 10_000;

/// One revision's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub revision: Revision,
    /// `create`, `update`, `patch`, `delete`, `bind` (or `expire` for a lease-expired event).
    pub verb: &'static str,
    /// Plural resource, with the subresource if any (`pods/status`).
    pub resource: String,
    pub namespace: String,
    pub name: String,
    /// The writer's user agent (`kubectl`, `kube-scheduler`, `kubelet/node-a`).
    pub user: Arc<str>,
    pub time: Timestamp,
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
                namespace: "default".into(),
                name: format!("p{r}"),
                user: Arc::from("kubectl"),
                time: Timestamp::ZERO,
            });
        }
        let revs: Vec<_> = l.iter().map(|e| e.revision).collect();
        assert_eq!(revs, vec![2, 3]);
    }
}
