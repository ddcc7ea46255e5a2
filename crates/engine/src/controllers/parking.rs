//! Which controllers a settle round visits. A controller that reports itself idle
//! ([`super::Controller::idle`]: nothing due before its wake-up, no watch stream with news) is
//! parked with that wake-up and its streams; it stays idle, and a round passes it by without
//! asking, until one of its streams gets news (the API server's ready set,
//! [`crate::apiserver::ApiServer::take_ready_streams`]), its wake-up comes due (a timer queue of
//! (due, controller)), or someone changes it from outside (a killed node). At a thousand nodes
//! most kubelets and kube-proxies are parked at any instant, so a round costs what has news,
//! not the number of nodes — as epoll hands a server only its ready sockets.

use std::collections::BTreeSet;

use crate::clock::Timestamp;
use crate::hash::FixedHashMap;
use watchlab_apimachinery::client::WatchId;

/// A parked controller: what it said when it was last asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Parked {
    wake: Option<Timestamp>,
    streams: Vec<WatchId>,
}

/// The controllers (by step-order index) a round visits, and the parked ones. Parking and
/// unparking happen for every controller step with news, thousands per virtual second at
/// 5,000 nodes, so the controllers are numbered slots: a bit per controller for "active", a
/// vector of what each parked one said, a hash map from stream to reader; only the timers
/// need an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parking {
    /// One bit per controller, set while it is not parked: a round visits the set ones in
    /// index order.
    active: Vec<u64>,
    /// What each parked controller said (`None`: not parked).
    parked: Vec<Option<Parked>>,
    /// The parked controller reading each stream.
    readers: FixedHashMap<WatchId, usize>,
    /// Parked controllers by wake-up, earliest first.
    timers: BTreeSet<(Timestamp, usize)>,
}

impl Parking {
    /// `len` controllers, none parked.
    pub fn new(len: usize) -> Self {
        let mut active = vec![u64::MAX; len.div_ceil(64)];
        if let Some(last) = active.last_mut() {
            if len % 64 != 0 {
                *last = (1u64 << (len % 64)) - 1;
            }
        }
        Parking {
            active,
            parked: vec![None; len],
            readers: FixedHashMap::default(),
            timers: BTreeSet::new(),
        }
    }

    /// The first controller at or after `from` that a round visits.
    pub fn next_active(&self, from: usize) -> Option<usize> {
        let mut word = from / 64;
        let mut bits = self.active.get(word)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some(word * 64 + bits.trailing_zeros() as usize);
            }
            word += 1;
            bits = *self.active.get(word)?;
        }
    }

    fn set_active(&mut self, index: usize, active: bool) {
        if let Some(word) = self.active.get_mut(index / 64) {
            let bit = 1u64 << (index % 64);
            if active {
                *word |= bit;
            } else {
                *word &= !bit;
            }
        }
    }

    /// Parks controller `index`, idle until `wake` unless one of `streams` gets news.
    pub fn park(&mut self, index: usize, wake: Option<Timestamp>, streams: Vec<WatchId>) {
        self.unpark(index);
        if index >= self.parked.len() {
            return;
        }
        self.set_active(index, false);
        for s in &streams {
            self.readers.insert(*s, index);
        }
        if let Some(t) = wake {
            self.timers.insert((t, index));
        }
        if let Some(slot) = self.parked.get_mut(index) {
            *slot = Some(Parked { wake, streams });
        }
    }

    /// Controller `index` is visited again from the next round on (or later in this one).
    pub fn unpark(&mut self, index: usize) {
        if let Some(p) = self.parked.get_mut(index).and_then(Option::take) {
            for s in &p.streams {
                self.readers.remove(s);
            }
            if let Some(t) = p.wake {
                self.timers.remove(&(t, index));
            }
        }
        self.set_active(index, true);
    }

    /// Every controller visited again (one changed in ways the parking cannot see).
    pub fn unpark_all(&mut self) {
        for index in 0..self.parked.len() {
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
        self.parked.get(index).is_some_and(Option::is_some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parked_controller_comes_back_on_news_its_timer_or_a_poke() {
        let mut p = Parking::new(4);
        p.park(1, Some(Timestamp::from_millis(500)), vec![7, 8]);
        p.park(2, None, vec![9]);
        p.park(3, Some(Timestamp::from_millis(300)), vec![]);
        assert_eq!(p.next_active(0), Some(0));
        assert_eq!(p.next_active(1), None, "1, 2 and 3 are parked");
        assert_eq!(p.earliest_wake(), Some(Timestamp::from_millis(300)));
        // News on a stream nobody parked on changes nothing; news on 8 brings back 1 only.
        p.unpark_readers([42, 8]);
        assert_eq!(p.next_active(1), Some(1));
        assert!(p.is_parked(2) && p.is_parked(3));
        // Its old timer went with it.
        assert_eq!(p.earliest_wake(), Some(Timestamp::from_millis(300)));
        p.unpark_due(Timestamp::from_millis(299));
        assert!(p.is_parked(3));
        p.unpark_due(Timestamp::from_millis(300));
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

    #[test]
    fn a_round_finds_the_next_active_controller_across_words() {
        let mut p = Parking::new(200);
        for i in 0..200 {
            if i != 3 && i != 64 && i != 130 && i != 199 {
                p.park(i, None, vec![]);
            }
        }
        assert_eq!(p.next_active(0), Some(3));
        assert_eq!(p.next_active(4), Some(64));
        assert_eq!(p.next_active(65), Some(130));
        assert_eq!(p.next_active(131), Some(199));
        assert_eq!(p.next_active(200), None);
        p.park(199, None, vec![]);
        assert_eq!(p.next_active(131), None, "nothing past the last controller");
        // An index beyond the controllers is neither parked nor visited.
        p.park(500, None, vec![1]);
        assert!(!p.is_parked(500));
        assert_eq!(p.next_active(131), None);
    }
}
