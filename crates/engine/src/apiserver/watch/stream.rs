//! One open watch: its filter, its bounded buffer of undelivered events (the real cacher gives
//! each watcher a bounded channel and terminates a watcher that cannot keep up), its deadline,
//! bookmark timer, counters and a short log of what it delivered, which the UI shows.

use super::event::WatchEvent;
use super::filter::Filter;
use crate::clock::Timestamp;
use crate::store::Revision;
use std::collections::VecDeque;
use std::sync::Arc;
use watchlab_apimachinery::client::WatchId;

/// How many recently delivered events each stream remembers for the UI.
pub const RECENT_EVENTS: usize = 16;

/// Why a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// `timeoutSeconds` (or the server's random timeout) elapsed.
    Timeout,
    /// The client did not drain its buffer fast enough (the cacher's "terminating blocked watcher").
    Overflow,
    /// The requested resourceVersion was compacted; the stream carried one ERROR 410.
    Expired,
    /// Its watch cache went unready and ended every watch it served (`terminateAllWatchers`):
    /// closed without an ERROR, as a timeout.
    Terminated,
}

/// A stream's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamState {
    Open,
    Ended(EndReason),
}

/// One watch stream (read-only to everyone but the hub).
#[derive(Debug)]
pub struct WatchStream {
    pub(super) id: WatchId,
    pub(super) user: Arc<str>,
    /// The API server instance whose watch cache serves it.
    pub(super) instance: usize,
    pub(super) filter: Filter,
    pub(super) opened_at: Timestamp,
    pub(super) deadline: Timestamp,
    pub(super) bookmark_every_ms: Option<u64>,
    pub(super) next_bookmark: Option<Timestamp>,
    pub(super) buffer: VecDeque<Arc<WatchEvent>>,
    /// Live events queued since the last poll (initial events do not count, as the cacher
    /// sends those from its own interval, not through the watcher's channel).
    pub(super) live_pending: usize,
    pub(super) capacity: usize,
    pub(super) last_revision: Revision,
    /// Events at or before this revision are not sent (a watch from a resourceVersion the
    /// cache had not reached: `cacheWatcher` sends only newer ones).
    pub(super) resume_after: Revision,
    pub(super) delivered: u64,
    pub(super) filtered_out: u64,
    pub(super) recent: VecDeque<Arc<WatchEvent>>,
    /// The revisions of the last [`RECENT_EVENTS`] changes it was offered and refused.
    pub(super) recent_filtered: VecDeque<Revision>,
    pub(super) state: StreamState,
}

impl WatchStream {
    pub fn id(&self) -> WatchId {
        self.id
    }

    /// The API server instance whose watch cache serves it (0 with one instance).
    pub fn instance(&self) -> usize {
        self.instance
    }
    /// When the hub next has something to do for it: its deadline or its next bookmark,
    /// whichever comes first; nothing once it has ended.
    pub(super) fn next_timer(&self) -> Option<Timestamp> {
        if self.state != StreamState::Open {
            return None;
        }
        Some(match self.next_bookmark {
            Some(b) if b < self.deadline => b,
            _ => self.deadline,
        })
    }
    /// The user agent that opened the stream (`kubelet/node-a`...).
    pub fn user(&self) -> &str {
        &self.user
    }
    pub fn filter(&self) -> &Filter {
        &self.filter
    }
    pub fn opened_at(&self) -> Timestamp {
        self.opened_at
    }
    pub fn deadline(&self) -> Timestamp {
        self.deadline
    }
    /// Events waiting for the next poll.
    pub fn pending(&self) -> usize {
        self.buffer.len()
    }
    /// The bound on live events between two polls.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    /// The revision of the last event queued (the resume point).
    pub fn last_revision(&self) -> Revision {
        self.last_revision
    }
    /// Events queued for the client so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// Changes this stream was offered by the index but did not match its filter.
    pub fn filtered_out(&self) -> u64 {
        self.filtered_out
    }
    /// The last [`RECENT_EVENTS`] events queued, oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &Arc<WatchEvent>> {
        self.recent.iter()
    }
    /// The revisions of the last [`RECENT_EVENTS`] changes the index offered this stream and
    /// its filter refused (each one counted in [`WatchStream::filtered_out`]), oldest first.
    pub fn recent_filtered(&self) -> impl Iterator<Item = Revision> + '_ {
        self.recent_filtered.iter().copied()
    }
    pub fn state(&self) -> StreamState {
        self.state
    }

    /// Counts a change it was offered and refused.
    pub(super) fn refuse(&mut self, revision: Revision) {
        self.filtered_out += 1;
        if self.recent_filtered.len() == RECENT_EVENTS {
            self.recent_filtered.pop_front();
        }
        self.recent_filtered.push_back(revision);
    }

    /// Queues an event. Live events beyond the capacity end the stream instead.
    pub(super) fn push(&mut self, event: Arc<WatchEvent>, live: bool) {
        if self.state != StreamState::Open {
            return;
        }
        if live {
            if self.live_pending >= self.capacity {
                self.state = StreamState::Ended(EndReason::Overflow);
                return;
            }
            self.live_pending += 1;
        }
        self.last_revision = self.last_revision.max(event.resource_version);
        self.delivered += 1;
        if self.recent.len() == RECENT_EVENTS {
            self.recent.pop_front();
        }
        self.recent.push_back(event.clone());
        self.buffer.push_back(event);
    }

    pub(super) fn end(&mut self, reason: EndReason) {
        if self.state == StreamState::Open {
            self.state = StreamState::Ended(reason);
        }
    }
}
