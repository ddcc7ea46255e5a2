//! Which controllers a settle round visits. A controller that reports itself idle
//! ([`super::Controller::idle`]: nothing due before its wake-up, no watch stream with news) is
//! parked with that wake-up and its streams; it stays idle, and a round passes it by without
//! asking, until one of its streams gets news (the API server's ready set,
//! [`crate::apiserver::ApiServer::take_ready_streams`]), its wake-up comes due (a timer queue of
//! (due, controller)), or someone changes it from outside (a killed node). At a thousand nodes
//! most kubelets and kube-proxies are parked at any instant, so a round costs what has news,
//! not the number of nodes — as epoll hands a server only its ready sockets.

use std::collections::{BTreeMap, BTreeSet};

use crate::clock::Timestamp;
use watchlab_apimachinery::client::WatchId;

/// A parked controller: what it said when it was last asked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parked {
    wake: Option<Timestamp>,
    streams: Vec<WatchId>,
}

/// The controllers (by step-order index) a round visits, and the parked ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parking {
    /// Controllers not parked, visited by every round in index order.
    active: BTreeSet<usize>,
    parked: BTreeMap<usize, Parked>,
    /// The parked controller reading each stream.
    readers: BTreeMap<WatchId, usize>,
    /// Parked controllers by wake-up, earliest first.
    timers: BTreeSet<(Timestamp, usize)>,
}

impl Parking {
    /// `len` controllers, none parked.
    pub fn new(len: usize) -> Self {
        Parking {
            active: (0..len).collect(),
            parked: BTreeMap::new(),
            readers: BTreeMap::new(),
            timers: BTreeSet::new(),
        }
    }

    /// The first controller at or after `from` that a round visits.
    pub fn next_active(&self, from: usize) -> Option<usize> {
        self.active.range(from..).next().copied()
    }

    /// Parks controller `index`, idle until `wake` unless one of `streams` gets news.
    pub fn park(&mut self, index: usize, wake: Option<Timestamp>, streams: Vec<WatchId>) {
        self.unpark(index);
        self.active.remove(&index);
        for s in &streams {
            self.readers.insert(*s, index);
        }
        if let Some(t) = wake {
            self.timers.insert((t, index));
        }
        self.parked.insert(index, Parked { wake, streams });
    }

    /// Controller `index` is visited again from the next round on (or later in this one).
    pub fn unpark(&mut self, index: usize) {
        if let Some(p) = self.parked.remove(&index) {
            for s in &p.streams {
                self.readers.remove(s);
            }
            if let Some(t) = p.wake {
                self.timers.remove(&(t, index));
            }
        }
        self.active.insert(index);
    }

    /// Every controller visited again (one changed in ways the parking cannot see).
    pub fn unpark_all(&mut self) {
        let parked: Vec<usize> = self.parked.keys().copied().collect();
        for index in parked {
            self.unpark(index);
        }
    }

    /// Unparks the readers of streams with news.
    pub fn unpark_readers(&mut self, streams: impl IntoIterator<Item = WatchId>) {
        for s in streams {
            if let Some(index) = self.readers.get(&s).copied() {
                self.unpark(index);
            }
        }
    }

    /// Unparks the controllers whose wake-up is due at `now`.
    pub fn unpark_due(&mut self, now: Timestamp) {
        while let Some(&(t, index)) = self.timers.first() {
            if t > now {
                break;
            }
            self.unpark(index);
        }
    }

    /// The earliest wake-up of a parked controller.
    pub fn earliest_wake(&self) -> Option<Timestamp> {
        self.timers.first().map(|(t, _)| *t)
    }

    /// Whether controller `index` is parked.
    pub fn is_parked(&self, index: usize) -> bool {
        self.parked.contains_key(&index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parked_controller_comes_back_on_news_its_timer_or_a_poke() {
        let mut p = Parking::new(4);
        p.park(1, Some(Timestamp(500)), vec![7, 8]);
        p.park(2, None, vec![9]);
        p.park(3, Some(Timestamp(300)), vec![]);
        assert_eq!(p.next_active(0), Some(0));
        assert_eq!(p.next_active(1), None, "1, 2 and 3 are parked");
        assert_eq!(p.earliest_wake(), Some(Timestamp(300)));
        // News on a stream nobody parked on changes nothing; news on 8 brings back 1 only.
        p.unpark_readers([42, 8]);
        assert_eq!(p.next_active(1), Some(1));
        assert!(p.is_parked(2) && p.is_parked(3));
        // Its old timer went with it.
        assert_eq!(p.earliest_wake(), Some(Timestamp(300)));
        p.unpark_due(Timestamp(299));
        assert!(p.is_parked(3));
        p.unpark_due(Timestamp(300));
        assert!(!p.is_parked(3));
        assert_eq!(p.earliest_wake(), None);
        // Parked again on other streams: the old ones no longer wake it.
        p.park(1, None, vec![10]);
        p.unpark_readers([7, 8]);
        assert!(p.is_parked(1));
        p.unpark_all();
        assert_eq!((0..4).filter(|i| p.is_parked(*i)).count(), 0);
        assert_eq!(p.next_active(1), Some(1));
    }
}
