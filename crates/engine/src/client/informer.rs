//! The informer: a reflector feeding a local cache through a delivery delay, plus resync — what
//! a controller builds on (client-go's `SharedIndexInformer`, handlers returned as data).
//!
//! The delay is the point: an event received at `t` reaches the cache (and the handlers) only
//! at `t + delay` (the watch's network hop plus the informer's queue and processing), so a
//! controller that reads its cache right after a write can see the old state. The cache's RV
//! ([`Informer::cache_resource_version`]) trails the latest RV received
//! ([`Informer::latest_resource_version`]) by whatever is still in flight.
//!
//! # What a reader of the cache can rely on
//!
//! - **Lag, bounded per event.** An event received at `t` is applied at `t + d`, `d` drawn
//!   from `[delivery_delay_min_ms, delivery_delay_max_ms]` (50–200 ms by default), or later if
//!   the event before it is due later: deliveries never overtake one another. So
//!   `cache_resource_version() <= latest_resource_version()`, equal once nothing is in flight.
//! - **The server's order.** Events reach the cache and the handlers in the order the server
//!   sent them, one notification per applied event; within one watch the cache's revision only
//!   moves forward.
//! - **Resumes keep the cache; relists swap it whole.** A stream that merely ended is resumed
//!   from the last resourceVersion seen, so nothing is missed or repeated. After a 410 (or
//!   another error) the reflector lists again after its backoff; the list is gathered aside and
//!   swapped in whole at `InitDone`, so a reader sees the old cache or the new one, never half.
//!   Objects the new list lacks are notified as deletions whose final state is unknown
//!   (`DeletedFinalStateUnknown`).
//! - **Only when stepped.** Nothing lands between two [`Informer::step`]s: a delivery due at
//!   `t` is applied by the first step at or after `t` ([`Informer::next_wakeup`] says when).
//! - **Resync** (off by default) re-delivers every cached object as an update with
//!   `old == new`; it changes nothing in the cache.

use std::collections::VecDeque;

use super::lister_watcher::ListerWatcher;
use super::notification::Notification;
use super::reflector::{Reflector, ReflectorStats, WatcherEvent};
use super::resource::Resource;
use super::store::{IndexFunc, Store, Writer};
use crate::clock::Timestamp;
use crate::rng::SimRng;

/// How an informer behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InformerConfig {
    /// Each event's delivery delay is drawn uniformly from `[min, max]` ms (deliveries stay in
    /// order: an event never overtakes an earlier one).
    pub delivery_delay_min_ms: u64,
    pub delivery_delay_max_ms: u64,
    /// Re-deliver every cached object as an update this often; `None` = off. client-go's
    /// default for an informer built with `NewSharedInformerFactory(client, 0)` (the
    /// scheduler, most controllers' handlers) is 0 = off; kube-controller-manager's factory uses
    /// `--min-resync-period` (12 h) × rand[1, 2).
    pub resync_period_ms: Option<u64>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// The first list a consistent read (`resourceVersion=""`) instead of client-go's
    /// `resourceVersion="0"` ([`super::reflector`]).
    pub consistent_first_list: bool,
}

impl Default for InformerConfig {
    /// 50–200 ms of delivery lag, no resync, no selectors.
    fn default() -> Self {
        InformerConfig {
            delivery_delay_min_ms: 50,
            delivery_delay_max_ms: 200,
            resync_period_ms: None,
            label_selector: None,
            field_selector: None,
            consistent_first_list: false,
        }
    }
}

/// A reflector, its in-flight deliveries, and the cache they land in.
pub struct Informer<K> {
    reflector: Reflector<K>,
    writer: Writer<K>,
    /// Events received but not yet delivered, with the time each is due.
    in_flight: VecDeque<(Timestamp, WatcherEvent<K>)>,
    /// The due time of the last event queued (deliveries never reorder).
    last_due: Timestamp,
    next_resync: Option<Timestamp>,
    config: InformerConfig,
    rng: SimRng,
}

impl<K: Resource> Informer<K> {
    /// An informer with the named indexes; `rng` draws delivery delays, backoff jitter and
    /// watch timeouts.
    pub fn new(
        config: InformerConfig,
        indexers: Vec<(String, IndexFunc<K>)>,
        mut rng: SimRng,
    ) -> Self {
        let reflector_rng = SimRng::seed_from_u64(rng.next_u64());
        let reflector = Reflector::new(reflector_rng)
            .with_selectors(config.label_selector.clone(), config.field_selector.clone())
            .with_consistent_first_list(config.consistent_first_list);
        Informer {
            reflector,
            writer: Writer::new(indexers),
            in_flight: VecDeque::new(),
            last_due: Timestamp::ZERO,
            next_resync: None,
            config,
            rng,
        }
    }

    /// A read-only handle on the cache (a lister), for controllers.
    pub fn store(&self) -> Store<K> {
        self.writer.store()
    }

    /// Runs the reflector, delivers what is due at `now`, resyncs if due; returns the handler
    /// notifications in order.
    pub fn step(&mut self, now: Timestamp, lw: &mut impl ListerWatcher<K>) -> Vec<Notification<K>> {
        for event in self.reflector.step(now, lw) {
            let due = now.plus_millis(self.draw_delay()).max(self.last_due);
            self.last_due = due;
            self.in_flight.push_back((due, event));
        }
        let mut notes = Vec::new();
        while self.in_flight.front().is_some_and(|(due, _)| *due <= now) {
            if let Some((_, event)) = self.in_flight.pop_front() {
                notes.extend(self.writer.apply(event));
            }
        }
        notes.extend(self.resync_if_due(now));
        notes
    }

    /// Closes the watch; the informer stops listing and watching (the cache stays readable).
    pub fn stop(&mut self, lw: &mut impl ListerWatcher<K>) {
        self.reflector.stop(lw);
    }

    /// The first list has reached the cache (`HasSynced`).
    pub fn has_synced(&self) -> bool {
        self.writer.store().has_synced()
    }

    pub fn reflector_stats(&self) -> &ReflectorStats {
        self.reflector.stats()
    }

    pub fn reflector(&self) -> &Reflector<K> {
        &self.reflector
    }

    /// The latest RV received from the server (list, event or bookmark).
    pub fn latest_resource_version(&self) -> u64 {
        self.reflector.stats().last_sync_resource_version
    }

    /// The RV the cache reflects.
    pub fn cache_resource_version(&self) -> u64 {
        self.writer.store().resource_version()
    }

    /// Events received but not yet in the cache.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The earliest time something is due on its own: a delivery, a resync, or a list/watch
    /// after a backoff. The driver may skip idle time up to it (an open stream still needs a
    /// step whenever the server has new events).
    pub fn next_wakeup(&self) -> Option<Timestamp> {
        let delivery = self.in_flight.front().map(|(due, _)| *due);
        [delivery, self.next_resync, self.reflector.next_wakeup()]
            .into_iter()
            .flatten()
            .min()
    }

    fn draw_delay(&mut self) -> u64 {
        let (lo, hi) = (
            self.config.delivery_delay_min_ms,
            self.config.delivery_delay_max_ms,
        );
        if hi <= lo {
            return lo;
        }
        lo + self.rng.below((hi - lo).saturating_add(1))
    }

    fn resync_if_due(&mut self, now: Timestamp) -> Vec<Notification<K>> {
        let Some(period) = self.config.resync_period_ms.filter(|p| *p > 0) else {
            return Vec::new();
        };
        if !self.has_synced() {
            return Vec::new();
        }
        match self.next_resync {
            None => {
                self.next_resync = Some(now.plus_millis(period));
                Vec::new()
            }
            Some(at) if now >= at => {
                self.next_resync = Some(now.plus_millis(period));
                self.writer.resync()
            }
            Some(_) => Vec::new(),
        }
    }
}
