//! The revision-ordered history (etcd's backend `key` bucket, keyed by revision, plus the
//! watchable event log). Every write appends one [`Event`]; the event's `kv` is the value the
//! key index points to, so values are stored once. Compaction drops events at or below the
//! compaction revision but keeps, in a small `base`, the puts still needed to read the store at
//! that revision (each live key's latest state).

use super::kv::{Event, KeyValue};
use super::revision::{Rev, Revision};

/// Retained events (revision > compaction) and the compacted base (revision <= compaction).
#[derive(Debug, Clone)]
pub struct History<V> {
    /// Ordered by (revision, sub): a txn's events are contiguous, in op order.
    events: Vec<Event<V>>,
    /// Values of puts at or below `compacted` that some key's state still refers to, ascending,
    /// with their costs.
    base: Vec<(Rev, KeyValue<V>, u32)>,
    /// The costs of every retained event and base value: the space quota's measure.
    bytes: u64,
    compacted: Revision,
    /// Events ever dropped by compaction: `events[i]` has sequence number `drained + i`.
    drained: u64,
}

impl<V> Default for History<V> {
    fn default() -> Self {
        History {
            events: Vec::new(),
            base: Vec::new(),
            bytes: 0,
            compacted: 0,
            drained: 0,
        }
    }
}

impl<V: Clone> History<V> {
    /// The position the next appended event gets.
    #[must_use]
    pub fn next_rev(&self, main: Revision) -> Rev {
        Rev::new(main, self.drained.saturating_add(self.events.len() as u64))
    }

    /// Appends the event written at [`History::next_rev`].
    pub fn push(&mut self, event: Event<V>) {
        debug_assert!(event.kv.mod_revision > self.compacted);
        self.bytes = self.bytes.saturating_add(u64::from(event.cost));
        self.events.push(event);
    }

    /// The key-value written at `rev` (a put's value, or a delete's last value).
    #[must_use]
    pub fn kv(&self, rev: Rev) -> Option<&KeyValue<V>> {
        match rev.seq.checked_sub(self.drained) {
            Some(offset) => self
                .events
                .get(usize::try_from(offset).ok()?)
                .map(|e| &e.kv)
                .filter(|kv| kv.mod_revision == rev.main),
            None => {
                let i = self.base.binary_search_by(|(r, _, _)| r.cmp(&rev)).ok()?;
                self.base.get(i).map(|(_, kv, _)| kv)
            }
        }
    }

    /// Index of the first event with revision > `after`. Searched back from the end with
    /// doubling steps, then by halving: most reads are of the newest revisions (each commit
    /// reads its own events to publish them), whose events are the last few; a plain binary
    /// search would start in the middle of a million cold entries.
    fn first_index_after(&self, after: Revision) -> usize {
        let events = &self.events;
        // Every event at `hi` or later has revision > `after`.
        let mut hi = events.len();
        let mut step = 1usize;
        while let Some(probe) = hi.checked_sub(step).or((hi > 0).then_some(0)) {
            let Some(e) = events.get(probe) else {
                break;
            };
            if e.kv.mod_revision <= after {
                let tail = events.get(probe + 1..hi).unwrap_or_default();
                return probe + 1 + tail.partition_point(|e| e.kv.mod_revision <= after);
            }
            hi = probe;
            step = step.saturating_mul(2);
        }
        0
    }

    /// Retained events with revision > `after`, oldest first.
    #[must_use]
    pub fn after(&self, after: Revision) -> &[Event<V>] {
        let start = self.first_index_after(after);
        self.events.get(start..).unwrap_or_default()
    }

    /// The events of exactly `revision` (empty if it wrote nothing or was compacted).
    #[must_use]
    pub fn at(&self, revision: Revision) -> &[Event<V>] {
        let Some(before) = revision.checked_sub(1) else {
            return &[];
        };
        let start = self.first_index_after(before);
        let end = self.first_index_after(revision);
        self.events.get(start..end).unwrap_or_default()
    }

    /// Number of retained events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// What the retained revisions cost against the space quota.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Drops every event with revision <= `at`, keeping only the values in `keep` (ascending
    /// positions of puts at or below `at`, from [`super::key_index::Index::compact`]).
    pub fn compact(&mut self, at: Revision, keep: &[Rev]) {
        let cut = self.first_index_after(at);
        let mut wanted = keep.iter().peekable();
        let mut base = Vec::with_capacity(keep.len());
        let old_base = std::mem::take(&mut self.base);
        let first_seq = self.drained;
        let dropped = self
            .events
            .drain(..cut)
            .zip(first_seq..)
            .map(|(e, seq)| (Rev::new(e.kv.mod_revision, seq), e.kv, e.cost));
        // Both sources are ascending and the old base precedes every dropped event.
        for (rev, kv, cost) in old_base.into_iter().chain(dropped) {
            self.bytes = self.bytes.saturating_sub(u64::from(cost));
            while wanted.next_if(|w| **w < rev).is_some() {}
            if wanted.next_if(|w| **w == rev).is_some() {
                self.bytes = self.bytes.saturating_add(u64::from(cost));
                base.push((rev, kv, cost));
            }
        }
        base.shrink_to_fit();
        self.base = base;
        // Give back memory after a large compaction (the browser tab keeps what it allocates).
        let len = self.events.len();
        if self.events.capacity() > len.saturating_mul(4).max(1024) {
            self.events.shrink_to(len.saturating_mul(2));
        }
        self.drained = first_seq.saturating_add(cut as u64);
        self.compacted = self.compacted.max(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::kv::EventType;
    use std::sync::Arc;

    fn put(key: &str, main: Revision, value: u32) -> Event<u32> {
        Event {
            kind: EventType::Put,
            kv: KeyValue {
                key: Arc::from(key),
                value,
                create_revision: main,
                mod_revision: main,
                version: 1,
                lease: None,
            },
            prev: None,
            cost: 10,
        }
    }

    /// Revision 2: a=1, b=2 (one txn); 3: a=3; 4: c=4. Sequence numbers 0..4.
    fn sample() -> History<u32> {
        let mut h = History::default();
        for e in [
            put("a", 2, 1),
            put("b", 2, 2),
            put("a", 3, 3),
            put("c", 4, 4),
        ] {
            assert_eq!(h.next_rev(e.kv.mod_revision).seq, h.len() as u64);
            h.push(e);
        }
        h
    }

    fn value(h: &History<u32>, main: Revision, seq: u64) -> Option<u32> {
        h.kv(Rev::new(main, seq)).map(|kv| kv.value)
    }

    #[test]
    fn kv_finds_each_write_by_position() {
        let h = sample();
        assert_eq!(value(&h, 2, 0), Some(1));
        assert_eq!(value(&h, 2, 1), Some(2));
        assert_eq!(value(&h, 3, 2), Some(3));
        assert_eq!(value(&h, 2, 2), None, "sequence 2 is revision 3's write");
        assert_eq!(value(&h, 9, 9), None);
        assert_eq!(value(&h, 0, 0), None);
    }

    #[test]
    fn at_and_after_slice_by_revision() {
        let h = sample();
        let values = |events: &[Event<u32>]| events.iter().map(|e| e.kv.value).collect::<Vec<_>>();
        assert_eq!(values(h.at(2)), [1, 2]);
        assert_eq!(values(h.at(4)), [4]);
        assert!(h.at(0).is_empty() && h.at(1).is_empty() && h.at(5).is_empty());
        assert_eq!(values(h.after(0)), [1, 2, 3, 4]);
        assert_eq!(values(h.after(2)), [3, 4]);
        assert!(h.after(4).is_empty());
    }

    #[test]
    fn the_search_from_the_end_agrees_with_a_binary_search_at_every_revision() {
        // Revisions 2..40, each with 0 to 3 events (a revision may write nothing here).
        let mut h = History::default();
        for main in 2..40u64 {
            for n in 0..(main * 7 % 4) {
                h.push(put("k", main, n as u32));
            }
        }
        for after in 0..45 {
            let expected = h.events.partition_point(|e| e.kv.mod_revision <= after);
            assert_eq!(h.first_index_after(after), expected, "after {after}");
        }
        assert_eq!(History::<u32>::default().first_index_after(3), 0);
    }

    #[test]
    fn compaction_keeps_only_the_wanted_values() {
        let mut h = sample();
        // At revision 3 the states are a@3 (seq 2) and b@2 (seq 1); a@2 (seq 0) is superseded.
        h.compact(3, &[Rev::new(2, 1), Rev::new(3, 2)]);
        assert_eq!(h.len(), 1);
        assert_eq!(value(&h, 2, 0), None);
        assert_eq!(value(&h, 2, 1), Some(2));
        assert_eq!(value(&h, 3, 2), Some(3));
        assert_eq!(value(&h, 4, 3), Some(4));
        assert!(h.at(3).is_empty());
        assert_eq!(
            h.bytes(),
            30,
            "the dropped write a@2 costs nothing any more"
        );
        assert_eq!(h.next_rev(5).seq, 4, "sequence numbers survive compaction");
        // A second compaction carries forward the base values still wanted.
        h.compact(4, &[Rev::new(2, 1), Rev::new(4, 3)]);
        assert_eq!(h.len(), 0);
        assert_eq!(value(&h, 2, 1), Some(2));
        assert_eq!(value(&h, 3, 2), None);
        assert_eq!(value(&h, 4, 3), Some(4));
        assert_eq!(h.bytes(), 20);
    }
}
