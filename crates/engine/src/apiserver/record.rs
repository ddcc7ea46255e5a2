//! A running record the API server keeps of something that happens again and again (writes
//! refused with 409, lists that went back in time): how many since the server started, and the
//! last few, so a view can ask for what is new since it last looked.

use std::collections::VecDeque;

/// A count and the last `LIMIT` entries.
#[derive(Debug, Clone)]
pub struct Record<T, const LIMIT: usize> {
    total: u64,
    recent: VecDeque<T>,
}

impl<T, const LIMIT: usize> Default for Record<T, LIMIT> {
    fn default() -> Self {
        Record {
            total: 0,
            recent: VecDeque::new(),
        }
    }
}

impl<T, const LIMIT: usize> Record<T, LIMIT> {
    pub fn push(&mut self, entry: T) {
        self.total += 1;
        if self.recent.len() == LIMIT {
            self.recent.pop_front();
        }
        self.recent.push_back(entry);
    }

    /// Entries since the server started.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The entries after the first `since` of [`Record::total`] (as many as are kept).
    pub fn since(&self, since: u64) -> impl DoubleEndedIterator<Item = &T> {
        let newer = self.total.saturating_sub(since) as usize;
        let kept = self.recent.len();
        self.recent.iter().skip(kept.saturating_sub(newer))
    }
}
