//! The broadcast: every committed revision is turned into [`Change`]s and offered, through the
//! [`index`], to the streams that can match; each stream gets ADDED / MODIFIED / DELETED by the
//! watch cache's prev/new rule, plus BOOKMARKs on its timer. One [`WatchEvent`] per (change,
//! type) is shared by every receiving stream; all events of one revision land together.
//!
//! # What a watcher can rely on
//!
//! - **Order.** A stream's events come in revision order. The initial events (synthetic ADDED
//!   for each current match, or the history after the requested resourceVersion) come first;
//!   then each committed revision's events arrive together, never interleaved with another's.
//! - **Exactly once while open.** Every change after the stream's start revision that the
//!   filter decides is queued once, as ADDED, MODIFIED or DELETED by the watch cache's prev/new
//!   rule (an object leaving a selector is a DELETED, one entering it an ADDED).
//! - **An end, never a silent drop.** A stream holds at most `buffer_limit` live events between
//!   two polls; the event that does not fit ends the stream ([`EndReason::Overflow`]) instead
//!   of being dropped. A stream also ends at its deadline ([`EndReason::Timeout`]) and, when
//!   its start revision was compacted, right after one ERROR 410 ([`EndReason::Expired`]). An
//!   ended stream still hands over what it queued, then polls `None`; the client resumes from
//!   the last resourceVersion it saw (or relists after a 410).
//! - **Bookmarks.** With `allowWatchBookmarks`, a BOOKMARK at the current revision every
//!   `bookmark_interval_ms`: no object change, only a later resourceVersion to resume from.
//! - **Pull, not push.** Nothing reaches a client between its polls; fan-out is paid at
//!   dispatch (one shared event per change and type), delivery at the client's next poll.

pub mod event;
pub mod filter;
pub mod index;
pub mod stream;

pub use event::{WatchEvent, WatchEventType, WatchObject};
pub use filter::{Change, Filter};
pub use stream::{EndReason, StreamState, WatchStream};

use crate::api::{Kind, Object};
use crate::clock::Timestamp;
use crate::hash::FixedHashMap;
use crate::store::Revision;
use index::WatchIndex;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use watchlab_apimachinery::client::WatchId;

/// The annotation on the BOOKMARK that ends a `sendInitialEvents=true` stream's initial part.
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// Tunables of the broadcast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchConfig {
    /// Live events a stream may hold between two polls before it is terminated. The real
    /// cacher's per-watcher channel holds 10 to 1000 events (`maxWatchChanSizeWithIndexWithoutTrigger`
    /// = 1000) and waits briefly before dropping a blocked watcher; here clients poll on the
    /// driver's schedule, so the bound is counted per poll (default 1000).
    pub buffer_limit: usize,
    /// BOOKMARK interval for `allowWatchBookmarks=true` (real watch cache: `bookmarkFrequency` = 1 minute).
    pub bookmark_interval_ms: u64,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            buffer_limit: 1000,
            bookmark_interval_ms: 60_000,
        }
    }
}

/// How a stream starts.
#[derive(Debug, Clone)]
pub struct StreamStart {
    pub user: Arc<str>,
    /// The API server instance whose watch cache serves it.
    pub instance: usize,
    pub filter: Filter,
    pub now: Timestamp,
    pub deadline: Timestamp,
    pub bookmarks: bool,
    /// Events the stream opens with (synthetic ADDED, replayed history, or one ERROR).
    pub initial: Vec<Arc<WatchEvent>>,
    /// The revision the stream is at after `initial`.
    pub revision: Revision,
    /// Ends the stream right after `initial` (the compacted-RV case).
    pub expired: bool,
    /// Live events at or before this revision are skipped (0: none).
    pub resume_after: Revision,
}

/// All open streams and their index.
#[derive(Debug, Default)]
pub struct WatchHub {
    /// By id. A hash map: every delivery and every poll finds its stream (10,000 open at 5,000
    /// nodes), where a tree search cost a cache miss per level. [`WatchHub::ids`] orders them.
    streams: FixedHashMap<WatchId, WatchStream>,
    /// The open streams' ids in order (the order they were opened), for [`WatchHub::streams`].
    ids: BTreeSet<WatchId>,
    index: WatchIndex,
    next_id: WatchId,
    config: WatchConfig,
    /// Events offered to streams in total (delivered + filtered out), for the UI's cost meter.
    offered: u64,
    /// The streams that got news (an event, their end, a client-side stop) since their reader
    /// last polled them: like epoll's ready list, a driver learns from it which readers need a
    /// step without asking every one ([`WatchHub::take_ready`]).
    ready: BTreeSet<WatchId>,
    /// Each open stream's next timer (its deadline or next bookmark, whichever is first), in
    /// time order, so a tick visits the due streams only and the next timer is the first entry.
    timers: BTreeSet<(Timestamp, WatchId)>,
}

impl WatchHub {
    pub fn new(config: WatchConfig) -> Self {
        WatchHub {
            config,
            next_id: 1,
            ..Default::default()
        }
    }

    pub fn config(&self) -> WatchConfig {
        self.config
    }

    pub fn set_buffer_limit(&mut self, limit: usize) {
        self.config.buffer_limit = limit.max(1);
    }

    /// Opens a stream and returns its id.
    pub fn open(&mut self, start: StreamStart) -> WatchId {
        let id = self.next_id.max(1);
        self.next_id = id + 1;
        let mut s = WatchStream {
            id,
            user: start.user,
            instance: start.instance,
            filter: start.filter,
            opened_at: start.now,
            deadline: start.deadline,
            bookmark_every_ms: start.bookmarks.then_some(self.config.bookmark_interval_ms),
            next_bookmark: start
                .bookmarks
                .then(|| start.now.plus_millis(self.config.bookmark_interval_ms)),
            buffer: VecDeque::new(),
            live_pending: 0,
            capacity: self.config.buffer_limit,
            last_revision: start.revision,
            resume_after: start.resume_after,
            delivered: 0,
            filtered_out: 0,
            recent: VecDeque::new(),
            recent_filtered: VecDeque::new(),
            state: StreamState::Open,
        };
        for e in start.initial {
            s.push(e, false);
        }
        s.last_revision = start.revision;
        if start.expired {
            s.end(EndReason::Expired);
        } else {
            self.index.insert(id, &s.filter);
        }
        if let Some(due) = s.next_timer() {
            self.timers.insert((due, id));
        }
        self.streams.insert(id, s);
        self.ids.insert(id);
        id
    }

    /// Delivers one revision's changes to every matching stream that instance `instance`'s
    /// cache serves.
    pub fn dispatch(&mut self, instance: usize, changes: &[Change]) {
        for change in changes {
            let mut shared: [Option<Arc<WatchEvent>>; 3] = [None, None, None];
            for id in self.index.candidates(change) {
                let Some(s) = self.streams.get_mut(&id) else {
                    continue;
                };
                if change.revision <= s.resume_after || s.instance != instance {
                    continue;
                }
                self.offered += 1;
                let Some(t) = s.filter.decide(change) else {
                    s.refuse(change.revision);
                    continue;
                };
                let slot = match t {
                    WatchEventType::Added => 0,
                    WatchEventType::Modified => 1,
                    _ => 2,
                };
                let event = shared[slot]
                    .get_or_insert_with(|| {
                        let obj = change
                            .object_for_event(t)
                            .unwrap_or_else(|| Arc::new(Object::empty(change.kind)));
                        Arc::new(WatchEvent::new(t, obj, change.revision))
                    })
                    .clone();
                let due = s.next_timer();
                s.push(event, true);
                self.ready.insert(id);
                if s.state != StreamState::Open {
                    let filter = s.filter.clone();
                    self.index.remove(id, &filter);
                    if let Some(due) = due {
                        self.timers.remove(&(due, id));
                    }
                }
            }
        }
    }

    /// Drains a stream: its queued events, or `None` once it has ended and been drained (the
    /// id is then forgotten).
    pub fn poll(&mut self, id: WatchId) -> Option<Vec<Arc<WatchEvent>>> {
        self.ready.remove(&id);
        let s = self.streams.get_mut(&id)?;
        if s.buffer.is_empty() && s.state != StreamState::Open {
            self.streams.remove(&id);
            self.ids.remove(&id);
            return None;
        }
        s.live_pending = 0;
        Some(s.buffer.drain(..).collect())
    }

    /// Closes a stream from the client side. Its reader may be someone else (a dropped watch),
    /// so the stream counts as ready: its next poll says it has ended.
    pub fn stop(&mut self, id: WatchId) {
        if let Some(s) = self.streams.remove(&id) {
            self.ids.remove(&id);
            self.index.remove(id, &s.filter);
            self.ready.insert(id);
            if let Some(due) = s.next_timer() {
                self.timers.remove(&(due, id));
            }
        }
    }

    /// The streams that got news since their last poll, handed over once (a stream polled
    /// since is left out; one with news again is in the next set).
    pub fn take_ready(&mut self) -> BTreeSet<WatchId> {
        std::mem::take(&mut self.ready)
    }

    /// Ends every open stream of `kind` (its cache went unready; every kind: `None`) that
    /// `instance` serves (all instances': `None`); returns how many.
    pub fn end_kind(&mut self, instance: Option<usize>, kind: Option<Kind>) -> usize {
        let ids: Vec<WatchId> = self
            .ids
            .iter()
            .copied()
            .filter(|id| {
                self.streams.get(id).is_some_and(|s| {
                    kind.is_none_or(|k| s.filter.kind == k)
                        && s.state == StreamState::Open
                        && instance.is_none_or(|i| s.instance == i)
                })
            })
            .collect();
        for &id in &ids {
            let Some(s) = self.streams.get_mut(&id) else {
                continue;
            };
            let due = s.next_timer();
            s.end(EndReason::Terminated);
            let filter = s.filter.clone();
            self.index.remove(id, &filter);
            if let Some(due) = due {
                self.timers.remove(&(due, id));
            }
            self.ready.insert(id);
        }
        ids.len()
    }

    /// Ends timed-out streams and sends due bookmarks at their cache's resourceVersion
    /// (`revision_of` an instance's cache of a kind): the streams whose timer is due, in id
    /// order.
    pub fn tick(&mut self, now: Timestamp, revision_of: impl Fn(usize, Kind) -> Revision) {
        let mut due: Vec<WatchId> = Vec::new();
        while let Some(&(at, id)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            due.push(id);
        }
        due.sort_unstable();
        let mut bookmarks: BTreeMap<(usize, Kind), Arc<WatchEvent>> = BTreeMap::new();
        for id in due {
            let Some(s) = self.streams.get_mut(&id) else {
                continue;
            };
            if s.state != StreamState::Open {
                continue;
            }
            if now >= s.deadline {
                s.end(EndReason::Timeout);
            } else if let (Some(next), Some(every)) = (s.next_bookmark, s.bookmark_every_ms) {
                if now >= next {
                    let (kind, instance) = (s.filter.kind, s.instance);
                    let e = bookmarks.entry((instance, kind)).or_insert_with(|| {
                        Arc::new(bookmark(kind, revision_of(instance, kind), false))
                    });
                    // A watch from a resourceVersion the cache has not reached hears no
                    // bookmark before it.
                    if e.resource_version >= s.resume_after {
                        s.push(e.clone(), true);
                    }
                    s.next_bookmark = Some(now.plus_millis(every.max(1)));
                }
            }
            self.ready.insert(id);
            match s.next_timer() {
                Some(at) => {
                    self.timers.insert((at, id));
                }
                None => {
                    let filter = s.filter.clone();
                    self.index.remove(id, &filter);
                }
            }
        }
    }

    /// The earliest virtual time at which [`WatchHub::tick`] has something to do.
    pub fn next_timer(&self) -> Option<Timestamp> {
        self.timers.first().map(|&(at, _)| at)
    }

    pub fn stream(&self, id: WatchId) -> Option<&WatchStream> {
        self.streams.get(&id)
    }

    /// Every open stream, in id order (the order they were opened).
    pub fn streams(&self) -> impl Iterator<Item = &WatchStream> {
        self.ids.iter().filter_map(|id| self.streams.get(id))
    }

    pub fn len(&self) -> usize {
        self.streams.len()
    }

    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }

    /// How many (change, stream) pairs the index has offered so far.
    pub fn offered(&self) -> u64 {
        self.offered
    }
}

/// A BOOKMARK: an empty object of `kind` with only `metadata.resourceVersion` (and, for the end
/// of initial events, the `k8s.io/initial-events-end` annotation).
pub fn bookmark(kind: Kind, revision: Revision, initial_events_end: bool) -> WatchEvent {
    let mut obj = Object::empty(kind);
    obj.meta_mut().resource_version = revision.to_string();
    if initial_events_end {
        obj.meta_mut()
            .annotations
            .insert(INITIAL_EVENTS_END_ANNOTATION.into(), "true".into());
    }
    WatchEvent::new(WatchEventType::Bookmark, Arc::new(obj), revision)
}

#[cfg(test)]
mod tests {
    use super::*;
    use watchlab_apimachinery::fields::FieldSelector;
    use watchlab_apimachinery::labels::LabelSelector;

    fn start(deadline_ms: u64, bookmarks: bool) -> StreamStart {
        StreamStart {
            instance: 0,
            user: Arc::from("test"),
            filter: Filter {
                kind: Kind::Pod,
                namespace: None,
                labels: LabelSelector::default(),
                fields: FieldSelector::default(),
            },
            now: Timestamp::from_millis(0),
            deadline: Timestamp::from_millis(deadline_ms),
            bookmarks,
            initial: Vec::new(),
            revision: 1,
            expired: false,
            resume_after: 0,
        }
    }

    #[test]
    fn the_next_timer_is_the_earliest_deadline_or_bookmark_of_an_open_stream() {
        let mut hub = WatchHub::new(WatchConfig {
            buffer_limit: 1,
            bookmark_interval_ms: 60_000,
        });
        assert_eq!(hub.next_timer(), None);
        let quiet = hub.open(start(300_000, false));
        let chatty = hub.open(start(500_000, true));
        assert_eq!(hub.next_timer(), Some(Timestamp::from_millis(60_000)));
        // Nothing is due before its time.
        hub.tick(Timestamp::from_millis(59_999), |_, _| 7);
        assert_eq!(hub.poll(chatty).map(|e| e.len()), Some(0));
        // The bookmark is sent and the next one is a minute later.
        hub.tick(Timestamp::from_millis(60_000), |_, _| 7);
        let sent = hub.poll(chatty).unwrap_or_default();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].event_type, WatchEventType::Bookmark);
        assert_eq!(hub.next_timer(), Some(Timestamp::from_millis(120_000)));
        // A stream the client stops has no timer any more.
        hub.stop(chatty);
        assert_eq!(hub.next_timer(), Some(Timestamp::from_millis(300_000)));
        // At its deadline a stream ends (its reader learns it at the next poll).
        hub.tick(Timestamp::from_millis(300_000), |_, _| 9);
        assert_eq!(hub.next_timer(), None);
        assert!(hub.poll(quiet).is_none());
        // A stream ended by an overflow leaves no timer behind either.
        let full = hub.open(start(900_000, true));
        let pod = Arc::new(Object::empty(Kind::Pod));
        for revision in [10, 11] {
            hub.dispatch(
                0,
                &[Change {
                    kind: Kind::Pod,
                    key: Arc::from("/registry/pods/default/p"),
                    revision,
                    prev: None,
                    cur: Some(pod.clone()),
                    tombstone: None,
                }],
            );
        }
        assert_ne!(hub.stream(full).map(|s| s.state), Some(StreamState::Open));
        assert_eq!(hub.next_timer(), None);
    }
}
