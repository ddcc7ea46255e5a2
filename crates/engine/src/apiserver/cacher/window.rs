//! The cacher's window of recent events: a ring that a watch from a resourceVersion is served
//! from, and whose oldest entry decides when such a watch gets `410 Gone` — long before etcd
//! compacts. Sized as kube-apiserver's `watchCache` sizes its ring (`storage/cacher/
//! watch_cache.go`, v1.32): it starts at 100 events, doubles (up to 102,400) when it is full
//! and its oldest event is younger than 75 s, and halves (down to 100) when even the newest
//! quarter is older than that.

use std::collections::VecDeque;

use crate::apiserver::watch::Change;
use crate::clock::Timestamp;
use crate::store::Revision;

/// `defaultLowerBoundCapacity`.
pub const LOWER_BOUND_CAPACITY: usize = 100;
/// `defaultUpperBoundCapacity` (100 × 1024).
pub const UPPER_BOUND_CAPACITY: usize = 100 * 1024;
/// `eventFreshDuration`: how much history the ring tries to keep (75 s).
pub const EVENT_FRESH_MS: u64 = 75_000;

/// The ring of recent events, each with the time the cacher took it in (`RecordTime`).
#[derive(Debug, Clone)]
pub struct EventWindow {
    events: VecDeque<(Timestamp, Change)>,
    capacity: usize,
    /// The revision of the list the cache was last filled from (`listResourceVersion`).
    list_revision: Revision,
    /// Whether an event has left the ring since that list (`removedEventSinceRelist`).
    removed_since_list: bool,
}

impl EventWindow {
    /// An empty window after a list at `list_revision`.
    pub fn new(list_revision: Revision) -> Self {
        EventWindow {
            events: VecDeque::new(),
            capacity: LOWER_BOUND_CAPACITY,
            list_revision,
            removed_since_list: false,
        }
    }

    /// Takes in one event (`updateCache`): resize first, then drop the oldest if full.
    pub fn push(&mut self, now: Timestamp, change: Change) {
        self.resize(now);
        if self.events.len() >= self.capacity {
            self.events.pop_front();
            self.removed_since_list = true;
        }
        self.events.push_back((now, change));
    }

    /// `resizeCacheLocked`.
    fn resize(&mut self, now: Timestamp) {
        if self.events.len() < self.capacity {
            return;
        }
        let age = |i: usize| now.millis_since(self.events[i].0);
        if age(0) < EVENT_FRESH_MS {
            self.capacity = (self.capacity * 2).min(UPPER_BOUND_CAPACITY);
        } else if age(self.events.len() - self.capacity / 4) > EVENT_FRESH_MS {
            let capacity = (self.capacity / 2).max(LOWER_BOUND_CAPACITY);
            // `doCacheResizeLocked` keeps the newest `capacity` events.
            while self.events.len() > capacity {
                self.events.pop_front();
                self.removed_since_list = true;
            }
            self.capacity = capacity;
        }
    }

    /// The oldest resourceVersion a watch may start from: one before the oldest event still
    /// held (`oldest-1` in `getAllEventsSinceLocked`), or the list's revision while no event
    /// has left the ring since.
    pub fn oldest_servable(&self) -> Revision {
        match self.events.front() {
            Some((_, first)) if self.removed_since_list => first.revision - 1,
            _ => self.list_revision,
        }
    }

    /// The events after `revision`, or `Err(oldest servable)` when the ring no longer holds
    /// them all (the watch's `410 too old resource version`).
    pub fn since(&self, revision: Revision) -> Result<impl Iterator<Item = &Change>, Revision> {
        let oldest = self.oldest_servable();
        if revision < oldest {
            return Err(oldest);
        }
        let first = self.events.partition_point(|(_, c)| c.revision <= revision);
        Ok(self.events.range(first..).map(|(_, c)| c))
    }

    /// Events held now.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// How many the ring holds before it drops or grows.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// When the oldest event held was taken in.
    pub fn oldest_time(&self) -> Option<Timestamp> {
        self.events.front().map(|(at, _)| *at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Kind;
    use std::sync::Arc;

    fn change(revision: Revision) -> Change {
        Change {
            kind: Kind::Pod,
            key: Arc::from("/registry/pods/default/p"),
            revision,
            prev: None,
            cur: None,
            tombstone: None,
        }
    }

    #[test]
    fn the_ring_grows_while_its_events_are_fresh_and_a_watch_before_it_expires() {
        let mut w = EventWindow::new(10);
        for rev in 11..=300 {
            w.push(Timestamp::from_millis(rev * 10), change(rev));
        }
        // 290 events within 3 s: the ring doubled twice, nothing left it.
        assert_eq!((w.len(), w.capacity()), (290, 400));
        assert_eq!(w.oldest_servable(), 10);
        assert_eq!(w.since(10).map(|e| e.count()), Ok(290));
        assert_eq!(w.since(299).map(|e| e.count()), Ok(1));
    }

    #[test]
    fn old_events_leave_a_full_ring_and_watches_before_them_get_the_oldest_revision() {
        let mut w = EventWindow::new(0);
        // One event every 10 s: the ring fills at 100 and never doubles (the oldest is stale).
        for rev in 1..=150 {
            w.push(Timestamp::from_millis(rev * 10_000), change(rev));
        }
        assert_eq!((w.len(), w.capacity()), (100, 100));
        assert_eq!(w.oldest_servable(), 50);
        assert!(w.since(49).is_err());
        assert_eq!(w.since(50).map(|e| e.count()), Ok(100));
    }

    #[test]
    fn a_ring_whose_newest_quarter_is_stale_halves() {
        let mut w = EventWindow::new(0);
        for rev in 1..=400 {
            w.push(Timestamp::from_millis(rev), change(rev));
        }
        assert_eq!(w.capacity(), 400);
        // Much later: the newest quarter is older than 75 s, so the ring halves to 200.
        w.push(Timestamp::from_millis(400 + 80_000), change(401));
        assert_eq!((w.len(), w.capacity()), (200, 200));
        assert_eq!(w.oldest_servable(), 201);
    }
}
