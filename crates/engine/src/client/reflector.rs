//! The reflector: client-go's `Reflector.ListAndWatch` as a pure state machine on virtual time.
//!
//! It lists once (resourceVersion "0", servable from the watch cache — or, with
//! [`Reflector::with_consistent_first_list`], "": a consistent read), then watches from the
//! list's resourceVersion with bookmarks on. A stream that ends normally (the server's timeout,
//! or the client's own `timeoutSeconds` of 5–10 min) is resumed from the last RV seen — object or
//! bookmark — without relisting. `410 Expired` (the RV was compacted away) and other errors end
//! the cycle: after the reflector backoff (800 ms doubling to 30 s, jitter 1.0) it relists and the
//! cache is replaced. The driver calls [`Reflector::step`] with the current time; each step
//! returns the [`WatcherEvent`]s for the cache, kube-rs style (`Init`, `InitApply`, `InitDone`
//! bracket a relist so it can be swapped in whole).

use std::marker::PhantomData;

use super::backoff::BackoffManager;
use super::error::ClientError;
use super::lister_watcher::{
    ListParams, ListResourceVersion, ListerWatcher, StreamId, WatchEvent, WatchParams,
};
use super::resource::Resource;
use crate::clock::Timestamp;
use crate::rng::SimRng;

/// What the reflector tells the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatcherEvent<K> {
    /// A (re)list starts: gather the items that follow in a side buffer.
    Init,
    /// One listed item.
    InitApply(K),
    /// The list is complete at `resource_version`: swap it in, replacing the cache.
    InitDone { resource_version: u64 },
    /// A watched ADDED or MODIFIED.
    Apply(K),
    /// A watched DELETED (the final state).
    Delete(K),
    /// A BOOKMARK: nothing to change, but the cache is current up to `resource_version`.
    Bookmark { resource_version: u64 },
}

/// What the reflector is doing, for the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReflectorPhase {
    /// Will list at `at` (now, or after a backoff).
    WaitingToList { at: Timestamp },
    /// Will open a watch from the last RV at `at`.
    WaitingToWatch { at: Timestamp },
    /// A stream is open.
    Watching { stream: StreamId, since: Timestamp },
    /// [`Reflector::stop`] was called.
    Stopped,
}

/// Counters for the UI (and tests).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReflectorStats {
    /// client-go `LastSyncResourceVersion`: the RV of the last list, event or bookmark seen
    /// (the latest RV received; the cache may lag behind it).
    pub last_sync_resource_version: u64,
    /// Successful lists, the first included.
    pub lists: u64,
    /// Successful lists after the first.
    pub relists: u64,
    /// `410 Expired`/`Gone` answers seen (watch event, refused watch or list).
    pub expired: u64,
    /// Watches opened.
    pub watches: u64,
    /// Watches reopened from the last RV after a stream ended, without relisting.
    pub watch_restarts: u64,
    /// Backoff waits taken.
    pub backoffs: u64,
    /// Watch events received (bookmarks included).
    pub events: u64,
    /// A list has completed (the reflector side of `HasSynced`).
    pub synced: bool,
    pub last_error: Option<ClientError>,
}

#[derive(Debug, Clone, Copy)]
enum State {
    List {
        at: Timestamp,
    },
    Watch {
        at: Timestamp,
    },
    Watching {
        stream: StreamId,
        since: Timestamp,
        events: u64,
    },
    Stopped,
}

/// client-go's `defaultMinWatchTimeout`: each watch asks `timeoutSeconds` in [5 min, 10 min).
const MIN_WATCH_TIMEOUT_SECS: u64 = 5 * 60;

/// A stream closed sooner than this without any event is an error (client-go's "very short
/// watch"), so a server that closes at once is not hammered with rewatches.
const VERY_SHORT_WATCH_MS: u64 = 1000;

/// Bounds the transitions of one step (list → watch → poll → rewatch → poll), so a misbehaving
/// server cannot spin the driver.
const MAX_TRANSITIONS_PER_STEP: usize = 8;

/// List-then-watch for one resource.
pub struct Reflector<K> {
    state: State,
    /// `lastSyncResourceVersion`; `None` before the first list.
    last_rv: Option<u64>,
    /// `isLastSyncResourceVersionUnavailable`: the next list asks for the most recent state.
    rv_unavailable: bool,
    backoff: BackoffManager,
    rng: SimRng,
    label_selector: Option<String>,
    field_selector: Option<String>,
    /// The first list asks for the most recent state rather than any.
    consistent_first_list: bool,
    stats: ReflectorStats,
    _kind: PhantomData<K>,
}

impl<K: Resource> Reflector<K> {
    /// A reflector that will list at its first step; `rng` draws backoff jitter and watch
    /// timeouts.
    pub fn new(rng: SimRng) -> Self {
        Reflector {
            state: State::List {
                at: Timestamp::ZERO,
            },
            last_rv: None,
            rv_unavailable: false,
            backoff: BackoffManager::reflector_default(),
            rng,
            label_selector: None,
            field_selector: None,
            consistent_first_list: false,
            stats: ReflectorStats::default(),
            _kind: PhantomData,
        }
    }

    /// Restricts the list and watch to matching objects (a filtered informer, e.g. a kubelet's
    /// `spec.nodeName=node-a`).
    pub fn with_selectors(
        mut self,
        label_selector: Option<String>,
        field_selector: Option<String>,
    ) -> Self {
        self.label_selector = label_selector;
        self.field_selector = field_selector;
        self
    }

    /// Makes the first list a consistent read (`resourceVersion=""`), as kubernetes#83520 did
    /// (reverted for the load a quorum read per starting informer put on etcd; since v1.31's
    /// `ConsistentListFromCache` the watch cache serves it once etcd confirmed it fresh): a
    /// fresh process then never starts from a past older than one its predecessor saw
    /// (kubernetes#59848). client-go v1.32 lists first at "0" (`relistResourceVersion`: "For
    /// performance reasons, initial list performed by reflector uses "0" as resource version").
    pub fn with_consistent_first_list(mut self, consistent: bool) -> Self {
        self.consistent_first_list = consistent;
        self
    }

    pub fn stats(&self) -> &ReflectorStats {
        &self.stats
    }

    pub fn phase(&self) -> ReflectorPhase {
        match self.state {
            State::List { at } => ReflectorPhase::WaitingToList { at },
            State::Watch { at } => ReflectorPhase::WaitingToWatch { at },
            State::Watching { stream, since, .. } => ReflectorPhase::Watching { stream, since },
            State::Stopped => ReflectorPhase::Stopped,
        }
    }

    /// When the reflector next has something to do on its own (a list or watch due after a
    /// backoff). An open stream has no deadline of its own: it is polled at every step.
    pub fn next_wakeup(&self) -> Option<Timestamp> {
        match self.state {
            State::List { at } | State::Watch { at } => Some(at),
            State::Watching { .. } | State::Stopped => None,
        }
    }

    /// Closes the stream, if any; the reflector does nothing more.
    pub fn stop(&mut self, lw: &mut impl ListerWatcher<K>) {
        if let State::Watching { stream, .. } = self.state {
            lw.stop(stream);
        }
        self.state = State::Stopped;
    }

    /// Does whatever is due at `now`: list, open a watch, or poll the open stream (reopening it
    /// if it ended). Returns the events for the cache, in order.
    pub fn step(&mut self, now: Timestamp, lw: &mut impl ListerWatcher<K>) -> Vec<WatcherEvent<K>> {
        let mut out = Vec::new();
        for _ in 0..MAX_TRANSITIONS_PER_STEP {
            let progressed = match self.state {
                State::List { at } if now >= at => self.list(now, lw, &mut out),
                State::Watch { at } if now >= at => self.open_watch(now, lw),
                State::Watching {
                    stream,
                    since,
                    events,
                } => self.pump(now, lw, stream, since, events, &mut out),
                _ => false,
            };
            if !progressed {
                break;
            }
        }
        out
    }

    /// client-go `relistResourceVersion`.
    fn relist_resource_version(&self) -> ListResourceVersion {
        match (self.rv_unavailable, self.last_rv) {
            (true, _) => ListResourceVersion::MostRecent,
            (false, None) if self.consistent_first_list => ListResourceVersion::MostRecent,
            (false, None) => ListResourceVersion::Any,
            (false, Some(rv)) => ListResourceVersion::NotOlderThan(rv),
        }
    }

    fn list_params(&self, resource_version: ListResourceVersion) -> ListParams {
        ListParams {
            resource_version,
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector.clone(),
        }
    }

    fn list(
        &mut self,
        now: Timestamp,
        lw: &mut impl ListerWatcher<K>,
        out: &mut Vec<WatcherEvent<K>>,
    ) -> bool {
        let mut result = lw.list(&self.list_params(self.relist_resource_version()));
        if let Err(e) = &result {
            if e.is_expired() || is_too_large_resource_version(e) {
                // "Retry immediately if the resource version used to list is unavailable",
                // with resourceVersion unset: a consistent read of the latest state.
                self.count_error(e);
                self.rv_unavailable = true;
                result = lw.list(&self.list_params(ListResourceVersion::MostRecent));
            }
        }
        match result {
            Ok(list) => {
                self.rv_unavailable = false;
                self.last_rv = Some(list.resource_version);
                self.stats.last_sync_resource_version = list.resource_version;
                if self.stats.synced {
                    self.stats.relists += 1;
                }
                self.stats.lists += 1;
                self.stats.synced = true;
                out.push(WatcherEvent::Init);
                out.extend(list.items.into_iter().map(WatcherEvent::InitApply));
                out.push(WatcherEvent::InitDone {
                    resource_version: list.resource_version,
                });
                self.state = State::Watch { at: now };
                true
            }
            Err(e) => {
                self.count_error(&e);
                let at = self.back_off(now);
                self.state = State::List { at };
                false
            }
        }
    }

    fn open_watch(&mut self, now: Timestamp, lw: &mut impl ListerWatcher<K>) -> bool {
        // `timeoutSeconds := minWatchTimeout.Seconds() * (rand.Float64() + 1.0)`
        let timeout = (MIN_WATCH_TIMEOUT_SECS as f64 * (self.rng.unit() + 1.0)) as u64;
        let params = WatchParams {
            resource_version: self.last_rv.unwrap_or(0),
            allow_watch_bookmarks: true,
            timeout_seconds: Some(timeout),
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector.clone(),
        };
        match lw.watch(&params) {
            Ok(stream) => {
                self.stats.watches += 1;
                self.state = State::Watching {
                    stream,
                    since: now,
                    events: 0,
                };
                true
            }
            Err(e) => {
                self.count_error(&e);
                let at = self.back_off(now);
                // `isWatchErrorRetriable`: only 429 (or a refused connection) rewatches;
                // anything else ends ListAndWatch, and the next cycle relists.
                self.state = if e.is_too_many_requests() {
                    State::Watch { at }
                } else {
                    State::List { at }
                };
                false
            }
        }
    }

    fn pump(
        &mut self,
        now: Timestamp,
        lw: &mut impl ListerWatcher<K>,
        stream: StreamId,
        since: Timestamp,
        mut events: u64,
        out: &mut Vec<WatcherEvent<K>>,
    ) -> bool {
        let Some(batch) = lw.poll(stream) else {
            if events == 0 && now.millis_since(since) < VERY_SHORT_WATCH_MS {
                let e = ClientError::new(
                    0,
                    "",
                    "very short watch: Unexpected watch close - watch lasted less than a second and no items received",
                );
                self.count_error(&e);
                let at = self.back_off(now);
                self.state = State::List { at };
                return false;
            }
            self.stats.watch_restarts += 1;
            self.state = State::Watch { at: now };
            return true;
        };
        let received = !batch.is_empty();
        for event in batch {
            let rv = match event {
                WatchEvent::Added(o) | WatchEvent::Modified(o) => {
                    let rv = o.resource_version();
                    out.push(WatcherEvent::Apply(o));
                    rv
                }
                WatchEvent::Deleted(o) => {
                    let rv = o.resource_version();
                    out.push(WatcherEvent::Delete(o));
                    rv
                }
                WatchEvent::Bookmark { resource_version } => {
                    out.push(WatcherEvent::Bookmark { resource_version });
                    resource_version
                }
                WatchEvent::Error(e) => {
                    lw.stop(stream);
                    self.count_error(&e);
                    let at = self.back_off(now);
                    // 429 keeps watching after the backoff; 410 and the rest relist.
                    self.state = if e.is_too_many_requests() {
                        State::Watch { at }
                    } else {
                        State::List { at }
                    };
                    return false;
                }
            };
            events += 1;
            self.stats.events += 1;
            self.last_rv = Some(rv);
            self.stats.last_sync_resource_version = rv;
        }
        self.state = State::Watching {
            stream,
            since,
            events,
        };
        // Poll again while events keep coming, so a stream that ended right after its last
        // events is noticed (and reopened) in the same step.
        received
    }

    fn back_off(&mut self, now: Timestamp) -> Timestamp {
        self.stats.backoffs += 1;
        now.plus_millis(self.backoff.next_backoff(now, &mut self.rng))
    }

    fn count_error(&mut self, e: &ClientError) {
        if e.is_expired() {
            self.stats.expired += 1;
        }
        self.stats.last_error = Some(e.clone());
    }
}

/// client-go `isTooLargeResourceVersionError`: the list asked for an RV newer than the server
/// has (`Too large resource version: 15, current: 10`).
fn is_too_large_resource_version(e: &ClientError) -> bool {
    e.message.contains("Too large resource version")
}
