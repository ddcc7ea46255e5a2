//! The apiserver's periodic compactor: every `--etcd-compaction-interval` (default 5m) it
//! compacts etcd to the revision it saw at the previous tick, so history one interval old is
//! always retained and older history goes (watches and lists from before it get 410).

use crate::clock::Timestamp;
use crate::store::Revision;

/// kube-apiserver `--etcd-compaction-interval` default: 5 minutes.
pub const DEFAULT_COMPACTION_INTERVAL_MS: u64 = 5 * 60 * 1000;

/// The compactor's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compactor {
    interval_ms: u64,
    next_tick: Timestamp,
    previous_revision: Option<Revision>,
}

impl Compactor {
    /// `interval_ms == 0` disables periodic compaction.
    pub fn new(interval_ms: u64, now: Timestamp) -> Self {
        Compactor {
            interval_ms,
            next_tick: now.plus_millis(interval_ms),
            previous_revision: None,
        }
    }

    /// Runs the ticks due by `now`; returns the revision to compact to, if any (the one that
    /// was current at the previous tick).
    pub fn due(&mut self, now: Timestamp, current: Revision) -> Option<Revision> {
        if self.interval_ms == 0 {
            return None;
        }
        let mut target = None;
        while now >= self.next_tick {
            target = self.previous_revision.or(target);
            self.previous_revision = Some(current);
            self.next_tick = self.next_tick.plus_millis(self.interval_ms);
        }
        target
    }

    pub fn next_tick(&self) -> Option<Timestamp> {
        (self.interval_ms > 0).then_some(self.next_tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compacts_to_the_previous_ticks_revision() {
        let mut c = Compactor::new(1000, Timestamp::ZERO);
        assert_eq!(c.due(Timestamp::from_millis(999), 5), None);
        assert_eq!(c.due(Timestamp::from_millis(1000), 5), None); // first tick only records
        assert_eq!(c.due(Timestamp::from_millis(2000), 9), Some(5));
        assert_eq!(c.due(Timestamp::from_millis(2500), 12), None);
        assert_eq!(c.due(Timestamp::from_millis(3000), 12), Some(9));
        assert_eq!(
            Compactor::new(0, Timestamp::ZERO).due(Timestamp::from_millis(10_000), 3),
            None
        );
    }
}
