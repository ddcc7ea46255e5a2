//! One member's Raft log: the entries it holds, in index order, after a compacted prefix.
//!
//! Raft's log matching rests on two numbers per entry, its index and the term it was proposed
//! in; what an entry asks of the state machine lives elsewhere (the shared store, see
//! [`super::EtcdCluster`]), so an entry here is small. Like etcd, a member keeps only a window
//! of entries behind its applied index ([`KEPT_ENTRIES`], etcd's `SnapshotCatchUpEntries`) and
//! remembers the index and term of the last entry it dropped (the snapshot it would send): a
//! follower that needs older entries gets a snapshot instead.

use std::collections::VecDeque;
use std::sync::Arc;

/// A Raft log index (1-based; 0 is "before the first entry").
pub type Index = u64;
/// A Raft term.
pub type Term = u64;

/// etcd keeps 5000 entries behind a snapshot for slow followers to catch up from
/// (`SnapshotCatchUpEntries` in `server/etcdserver/server.go`).
pub const KEPT_ENTRIES: u64 = 5000;

/// What an entry asks the state machine to do, as far as the log's reader needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// The empty entry a new leader appends in its term, so that it can commit (Raft §5.4.2).
    Noop,
    /// A client's write (an API server's transaction): applied to the store when it commits.
    Write,
    /// A write whose client gave up waiting (`etcdserver: request timed out`): what it was, kept
    /// for the drawing. If it commits after all, it applies as nothing (see the README's
    /// differences: the API server already answered the request as failed).
    Abandoned(Arc<str>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub index: Index,
    pub term: Term,
    pub kind: EntryKind,
}

/// The log: `entries[0]` has index `snapshot_index + 1`.
#[derive(Debug, Clone, Default)]
pub struct Log {
    entries: VecDeque<Entry>,
    snapshot_index: Index,
    snapshot_term: Term,
}

impl Log {
    pub fn last_index(&self) -> Index {
        self.snapshot_index + self.entries.len() as u64
    }

    pub fn last_term(&self) -> Term {
        self.entries.back().map_or(self.snapshot_term, |e| e.term)
    }

    /// The first index still held as an entry (one past the snapshot).
    pub fn first_index(&self) -> Index {
        self.snapshot_index + 1
    }

    pub fn snapshot(&self) -> (Index, Term) {
        (self.snapshot_index, self.snapshot_term)
    }

    /// The term of the entry at `index`, if the log knows it (the snapshot's own index counts).
    pub fn term_at(&self, index: Index) -> Option<Term> {
        if index == self.snapshot_index {
            return Some(self.snapshot_term);
        }
        self.entry(index).map(|e| e.term)
    }

    pub fn entry(&self, index: Index) -> Option<&Entry> {
        let offset = index.checked_sub(self.first_index())?;
        self.entries.get(usize::try_from(offset).ok()?)
    }

    fn entry_mut(&mut self, index: Index) -> Option<&mut Entry> {
        let offset = index.checked_sub(self.first_index())?;
        self.entries.get_mut(usize::try_from(offset).ok()?)
    }

    /// The entries from `from` on, at most `max` of them.
    pub fn slice(&self, from: Index, max: usize) -> Vec<Entry> {
        let skip = from.saturating_sub(self.first_index()) as usize;
        self.entries.iter().skip(skip).take(max).cloned().collect()
    }

    /// The entries held, oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry> + ExactSizeIterator {
        self.entries.iter()
    }

    pub fn push(&mut self, term: Term, kind: EntryKind) -> Index {
        let index = self.last_index() + 1;
        self.entries.push_back(Entry { index, term, kind });
        index
    }

    /// Whether a candidate whose log ends at (`index`, `term`) is at least as up to date as
    /// this log (Raft §5.4.1): a later last term wins, and with equal terms the longer log.
    pub fn is_up_to_date(&self, index: Index, term: Term) -> bool {
        term > self.last_term() || (term == self.last_term() && index >= self.last_index())
    }

    /// Appends a leader's `entries`, which follow the entry at `prev` (already matched). An
    /// entry that conflicts with one held (same index, other term) removes it and everything
    /// after it (Raft's AppendEntries rule 3); entries already held are left alone, so a stale,
    /// reordered message cannot cut off a longer matching log. Returns the index of the last
    /// entry of the message.
    pub fn merge(&mut self, prev: Index, entries: Vec<Entry>) -> Index {
        let last_new = prev + entries.len() as u64;
        for e in entries {
            if e.index <= self.snapshot_index {
                continue;
            }
            match self.term_at(e.index) {
                Some(t) if t == e.term => {}
                Some(_) => {
                    self.truncate_from(e.index);
                    self.entries.push_back(e);
                }
                None => self.entries.push_back(e),
            }
        }
        last_new
    }

    fn truncate_from(&mut self, index: Index) {
        let keep = index.saturating_sub(self.first_index()) as usize;
        self.entries.truncate(keep);
    }

    /// Replaces the whole log by a snapshot ending at (`index`, `term`).
    pub fn restore(&mut self, index: Index, term: Term) {
        self.entries.clear();
        self.snapshot_index = index;
        self.snapshot_term = term;
    }

    /// Drops entries more than [`KEPT_ENTRIES`] behind `applied` (they are in the store).
    pub fn compact(&mut self, applied: Index) {
        let upto = applied.saturating_sub(KEPT_ENTRIES);
        while self.snapshot_index < upto {
            let Some(e) = self.entries.pop_front() else {
                break;
            };
            self.snapshot_index = e.index;
            self.snapshot_term = e.term;
        }
    }

    /// Marks the entry at `index` as a write its client gave up on.
    pub fn abandon(&mut self, index: Index, term: Term, what: &Arc<str>) {
        if let Some(e) = self.entry_mut(index) {
            if e.term == term {
                e.kind = EntryKind::Abandoned(what.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(terms: &[Term]) -> Log {
        let mut l = Log::default();
        for &t in terms {
            l.push(t, EntryKind::Write);
        }
        l
    }

    fn e(index: Index, term: Term) -> Entry {
        Entry {
            index,
            term,
            kind: EntryKind::Write,
        }
    }

    #[test]
    fn a_conflicting_entry_cuts_the_tail_and_a_stale_message_does_not() {
        let mut l = log_of(&[1, 1, 2, 2]);
        // A stale message carrying only entry 2 leaves 3 and 4 in place.
        l.merge(1, vec![e(2, 1)]);
        assert_eq!(l.last_index(), 4);
        // A leader of term 3 overwrites from index 3.
        l.merge(2, vec![e(3, 3)]);
        assert_eq!((l.last_index(), l.last_term()), (3, 3));
    }

    #[test]
    fn compaction_keeps_the_window_and_remembers_the_snapshot() {
        let mut l = log_of(&vec![1; 6000]);
        l.compact(6000);
        assert_eq!(l.first_index(), 1001);
        assert_eq!(l.term_at(1000), Some(1));
        assert_eq!(l.term_at(999), None);
        assert_eq!(l.last_index(), 6000);
    }

    #[test]
    fn up_to_date_compares_last_term_then_length() {
        let l = log_of(&[1, 2]);
        assert!(l.is_up_to_date(1, 3));
        assert!(!l.is_up_to_date(5, 1));
        assert!(l.is_up_to_date(2, 2));
        assert!(!l.is_up_to_date(1, 2));
    }
}
