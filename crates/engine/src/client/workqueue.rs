//! A controller's work queue with client-go's guarantees (`workqueue.Type` + delaying +
//! rate-limiting), on virtual time. Keys, not objects, are queued — the worker reads the latest
//! state from its cache — so a key changed ten times while waiting is processed once:
//! - fair: FIFO in the order keys were first added;
//! - stingy: a key already waiting is not queued twice;
//! - never concurrent: a key handed out by [`WorkQueue::get`] is not handed out again until
//!   [`WorkQueue::done`]; re-added meanwhile it is marked dirty and re-queued by `done`;
//! - delaying: [`WorkQueue::add_after`] holds a key until a virtual time;
//! - rate-limited: [`WorkQueue::add_rate_limited`] delays by the rate limiter's answer
//!   (default: client-go's `DefaultControllerRateLimiter`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::rate_limiter::{ControllerRateLimiter, RateLimiter};
use crate::clock::Timestamp;

/// A rate-limited delaying work queue of keys.
pub struct WorkQueue<T> {
    queue: VecDeque<T>,
    /// Keys that need processing (queued, or re-added while processing).
    dirty: BTreeSet<T>,
    /// Keys handed out and not yet done.
    processing: BTreeSet<T>,
    /// Delayed keys: key → (ready at, insertion sequence), and the same ordered by time.
    waiting: BTreeMap<T, (Timestamp, u64)>,
    waiting_by_time: BTreeSet<(Timestamp, u64, T)>,
    next_seq: u64,
    shutting_down: bool,
    rate_limiter: Box<dyn RateLimiter<T>>,
}

impl<T: Clone + Ord + 'static> Default for WorkQueue<T> {
    fn default() -> Self {
        WorkQueue::new(Box::new(ControllerRateLimiter::default()))
    }
}

impl<T: Clone + Ord> WorkQueue<T> {
    /// An empty queue with the given rate limiter (see [`WorkQueue::default`] for the
    /// controller default).
    pub fn new(rate_limiter: Box<dyn RateLimiter<T>>) -> Self {
        WorkQueue {
            queue: VecDeque::new(),
            dirty: BTreeSet::new(),
            processing: BTreeSet::new(),
            waiting: BTreeMap::new(),
            waiting_by_time: BTreeSet::new(),
            next_seq: 0,
            shutting_down: false,
            rate_limiter,
        }
    }

    /// Marks `item` as needing processing (ignored after [`WorkQueue::shut_down`]).
    pub fn add(&mut self, item: T) {
        if self.shutting_down || self.dirty.contains(&item) {
            return;
        }
        self.dirty.insert(item.clone());
        if self.processing.contains(&item) {
            return;
        }
        self.queue.push_back(item);
    }

    /// Adds `item` once `delay_ms` has passed after `now`. A key already waiting keeps the
    /// earlier of its two ready times.
    pub fn add_after(&mut self, item: T, delay_ms: u64, now: Timestamp) {
        if self.shutting_down {
            return;
        }
        if delay_ms == 0 {
            self.add(item);
            return;
        }
        let ready_at = now.plus_millis(delay_ms);
        if let Some(&(existing, seq)) = self.waiting.get(&item) {
            if existing <= ready_at {
                return;
            }
            self.waiting_by_time.remove(&(existing, seq, item.clone()));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.waiting.insert(item.clone(), (ready_at, seq));
        self.waiting_by_time.insert((ready_at, seq, item));
    }

    /// Adds `item` after the rate limiter's delay (one more failure for it).
    pub fn add_rate_limited(&mut self, item: T, now: Timestamp) {
        let delay = self.rate_limiter.when(&item, now);
        self.add_after(item, delay, now);
    }

    /// The item succeeded: reset its failure count (does not remove it from the queue).
    pub fn forget(&mut self, item: &T) {
        self.rate_limiter.forget(item);
    }

    /// How many rate-limited re-adds `item` has had since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.rate_limiter.num_requeues(item)
    }

    /// The next key to process at `now` (first moving delayed keys that are ready), or `None`
    /// if none is ready. The caller must call [`WorkQueue::done`] with it when finished.
    pub fn get(&mut self, now: Timestamp) -> Option<T> {
        self.promote_ready(now);
        let item = self.queue.pop_front()?;
        self.dirty.remove(&item);
        self.processing.insert(item.clone());
        Some(item)
    }

    /// Processing of `item` finished; if it was re-added meanwhile it is queued again.
    pub fn done(&mut self, item: &T) {
        self.processing.remove(item);
        if self.dirty.contains(item) {
            self.queue.push_back(item.clone());
        }
    }

    /// Stops accepting keys; queued keys can still be drained with [`WorkQueue::get`].
    pub fn shut_down(&mut self) {
        self.shutting_down = true;
        self.waiting.clear();
        self.waiting_by_time.clear();
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down
    }

    /// Whether [`WorkQueue::get`] at `now` would hand out a key.
    pub fn has_ready(&self, now: Timestamp) -> bool {
        !self.queue.is_empty() || self.next_ready_at().is_some_and(|t| t <= now)
    }

    /// Keys ready to be handed out.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Keys being processed.
    pub fn processing(&self) -> usize {
        self.processing.len()
    }

    /// Keys waiting for their delay.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// When the earliest delayed key becomes ready.
    pub fn next_ready_at(&self) -> Option<Timestamp> {
        self.waiting_by_time.first().map(|(t, _, _)| *t)
    }

    fn promote_ready(&mut self, now: Timestamp) {
        while let Some((ready_at, _, _)) = self.waiting_by_time.first() {
            if *ready_at > now {
                break;
            }
            if let Some((_, _, item)) = self.waiting_by_time.pop_first() {
                self.waiting.remove(&item);
                self.add(item);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = Timestamp::from_millis(0);

    #[test]
    fn has_ready_counts_delayed_keys_once_due() {
        let mut q = WorkQueue::default();
        assert!(!q.has_ready(T0));
        q.add_after("a", 100, T0);
        assert!(!q.has_ready(T0));
        assert!(q.has_ready(Timestamp::from_millis(100)));
        assert_eq!(q.get(Timestamp::from_millis(100)), Some("a"));
        assert!(!q.has_ready(Timestamp::from_millis(100)));
        q.add("b");
        assert!(q.has_ready(T0));
    }

    fn queue() -> WorkQueue<&'static str> {
        WorkQueue::default()
    }

    #[test]
    fn fifo_and_stingy() {
        let mut q = queue();
        for k in ["a", "b", "a", "c", "b", "a"] {
            q.add(k);
        }
        assert_eq!(q.len(), 3);
        let order: Vec<_> = std::iter::from_fn(|| q.get(T0)).collect();
        assert_eq!(order, ["a", "b", "c"]);
    }

    #[test]
    fn a_key_is_never_processed_twice_at_once() {
        let mut q = queue();
        q.add("a");
        q.add("b");
        assert_eq!(q.get(T0), Some("a"));
        q.add("a"); // changed while being processed: dirty, not queued
        q.add("a");
        assert_eq!(q.get(T0), Some("b"));
        assert_eq!(q.get(T0), None, "a is not handed out while processing");
        q.done(&"a");
        assert_eq!(q.get(T0), Some("a"), "re-queued once by done");
        q.done(&"a");
        q.done(&"b");
        assert_eq!(q.get(T0), None);
        assert_eq!(q.processing(), 0);
    }

    #[test]
    fn done_without_readd_does_not_requeue() {
        let mut q = queue();
        q.add("a");
        let k = q.get(T0).unwrap();
        q.done(&k);
        assert!(q.is_empty());
    }

    #[test]
    fn add_after_waits_for_virtual_time_and_keeps_the_earliest() {
        let mut q = queue();
        q.add_after("a", 100, T0);
        q.add_after("b", 50, T0);
        q.add_after("a", 300, T0); // later: ignored
        assert_eq!(q.waiting(), 2);
        assert_eq!(q.next_ready_at(), Some(Timestamp::from_millis(50)));
        assert_eq!(q.get(Timestamp::from_millis(49)), None);
        assert_eq!(q.get(Timestamp::from_millis(50)), Some("b"));
        assert_eq!(q.get(Timestamp::from_millis(99)), None);
        q.add_after("c", 10, Timestamp::from_millis(60)); // ready at 70, before a
        assert_eq!(q.get(Timestamp::from_millis(100)), Some("c"));
        assert_eq!(q.get(Timestamp::from_millis(100)), Some("a"));
        q.add_after("d", 500, T0);
        q.add_after("d", 20, T0); // earlier: wins
        assert_eq!(q.get(Timestamp::from_millis(20)), Some("d"));
    }

    #[test]
    fn rate_limited_requeues_back_off_exponentially() {
        let mut q = queue();
        let mut now = T0;
        let mut waits = Vec::new();
        for _ in 0..4 {
            q.add_rate_limited("a", now);
            let ready = q.next_ready_at().unwrap();
            waits.push(ready.millis_since(now));
            assert_eq!(
                q.get(Timestamp::from_millis(ready.as_millis() - 1)),
                None,
                "not before its delay"
            );
            now = ready;
            assert_eq!(q.get(now), Some("a"));
            q.done(&"a");
        }
        assert_eq!(waits, [5, 10, 20, 40]);
        assert_eq!(q.num_requeues(&"a"), 4);
        q.forget(&"a");
        assert_eq!(q.num_requeues(&"a"), 0);
        q.add_rate_limited("a", now);
        assert_eq!(q.next_ready_at(), Some(now.plus_millis(5)));
    }

    #[test]
    fn shut_down_refuses_new_keys_but_drains() {
        let mut q = queue();
        q.add("a");
        q.shut_down();
        q.add("b");
        q.add_after("c", 5, T0);
        assert!(q.is_shutting_down());
        assert_eq!(q.get(Timestamp::from_millis(10)), Some("a"));
        assert_eq!(q.get(Timestamp::from_millis(10)), None);
    }
}
