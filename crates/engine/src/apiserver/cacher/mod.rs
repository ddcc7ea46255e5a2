//! The watch cache: one [`Cacher`] per resource, as kube-apiserver v1.32 has one per resource
//! (`storage/cacher/cacher.go`). It lists the resource's prefix from etcd once, then holds
//! **one** etcd watch on it (opened `WithRequireLeader`, with progress notifications) and keeps
//! what it learns: the objects as of its resourceVersion (shared with the store: the same
//! `Arc`s, no copies) and a ring of recent events ([`window`]). Every client watch and every
//! list the cache may answer is served from here, never from the store; client streams are fed
//! by the cacher's dispatch of the events its etcd watch delivers.
//!
//! Its etcd watch is a state machine on the virtual clock, as the cacher's reflector runs it:
//!
//! - [`CacherState::Watching`]: events arrive as the member the watch is on applies them.
//! - [`CacherState::Rewatching`]: etcd ended the watch with an error (its member went without
//!   a leader for three election timeouts: `etcdserver: no leader`); the cache still serves
//!   what it has, and the reflector opens the watch again from its resourceVersion as soon as
//!   a member with a leader takes it, for up to 30 s (`MaxInternalErrorRetryDuration`).
//! - [`CacherState::Reinitializing`]: the retries ran out, or etcd compacted past the watch
//!   (410): the reflector's ListAndWatch returned, so the cacher went unready, ended every
//!   client watch (`terminateAllWatchers`) and lists again every second until a list succeeds.
//!   Meanwhile lists and watches it would answer get `429 storage is (re)initializing`
//!   (`ResilientWatchCacheInitialization`, on by default since v1.31).

mod feed;
pub mod window;

use std::sync::Arc;

use crate::api::{Kind, Object};
use crate::apiserver::watch::{Change, Filter};
use crate::clock::Timestamp;
use crate::hash::FixedHashMap;
use crate::store::Revision;
use window::EventWindow;

/// The reflector's `MaxInternalErrorRetryDuration` for the cacher (30 s).
pub const REWATCH_FOR_MS: u64 = 30_000;
/// `wait.Until(startCaching, time.Second)`: how often an unready cacher lists again.
pub const RELIST_EVERY_MS: u64 = 1_000;
/// etcd's `--experimental-watch-progress-notify-interval` (10 minutes): a watch opened with
/// progress notifications hears the current revision at least this often.
pub const PROGRESS_NOTIFY_MS: u64 = 10 * 60_000;
/// The text of the 429 an unready cacher answers (`errors.NewTooManyRequests`).
pub const REINITIALIZING: &str = "storage is (re)initializing";

/// Where the cacher's etcd watch stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacherState {
    /// The watch is open on a member.
    Watching,
    /// etcd ended the watch (`error`, at `since`); the cache serves what it has meanwhile.
    Rewatching { since: Timestamp, error: String },
    /// Not ready: every client watch was ended; lists again at `next_list`.
    Reinitializing {
        since: Timestamp,
        next_list: Timestamp,
        error: String,
    },
}

/// One resource's watch cache.
#[derive(Debug, Clone)]
pub struct Cacher {
    kind: Kind,
    /// The etcd prefix it lists and watches (`/registry/pods/`).
    prefix: String,
    /// The objects as of [`Cacher::revision`], by etcd key (the store's own key strings). A
    /// hash map, as the watch cache's thread-safe store: every event finds its key at once,
    /// and a list sorts what it returns by key (`sortableStoreElements`).
    objects: FixedHashMap<Arc<str>, Arc<Object>>,
    window: EventWindow,
    /// `watchCache.resourceVersion`: the last event's revision, or the last progress
    /// notification's.
    revision: Revision,
    /// How far its etcd watch has delivered (every event of the prefix up to here is in).
    through: Revision,
    /// The etcd member its watch is on.
    member: usize,
    /// Whether every event of its prefix that member has applied is in: the API server then
    /// feeds it each commit's events at once, and `through` stands for "what the member has".
    synced: bool,
    state: CacherState,
    /// Events taken in since it started.
    events_seen: u64,
    /// Client watches it has ended by reinitializing.
    terminated: u64,
    /// When etcd next sends the watch a progress notification.
    next_progress: Timestamp,
}

impl Cacher {
    /// A cacher filled by a list of `prefix` at `revision`, watching from there on `member`.
    pub fn new(
        kind: Kind,
        prefix: String,
        items: impl IntoIterator<Item = (Arc<str>, Arc<Object>)>,
        revision: Revision,
        member: usize,
        now: Timestamp,
    ) -> Self {
        let mut c = Cacher {
            kind,
            objects: FixedHashMap::default(),
            window: EventWindow::new(revision),
            revision,
            through: revision,
            member,
            synced: true,
            state: CacherState::Watching,
            events_seen: 0,
            terminated: 0,
            next_progress: now.plus_millis(PROGRESS_NOTIFY_MS),
            prefix,
        };
        c.replace(items, revision, member, now);
        c
    }

    /// Refills the cache from a list at `revision` (`watchCache.Replace`) and watches from
    /// there on `member`: ready again.
    pub fn replace(
        &mut self,
        items: impl IntoIterator<Item = (Arc<str>, Arc<Object>)>,
        revision: Revision,
        member: usize,
        now: Timestamp,
    ) {
        self.objects = items.into_iter().collect();
        self.window = EventWindow::new(revision);
        self.revision = revision;
        self.through = revision;
        self.member = member;
        // The list was a quorum read at the store's revision: nothing committed is missing.
        self.synced = true;
        self.state = CacherState::Watching;
        self.next_progress = now.plus_millis(PROGRESS_NOTIFY_MS);
    }

    /// Whether the API server may feed it each commit's events directly.
    pub fn is_synced(&self) -> bool {
        self.synced && self.state == CacherState::Watching
    }

    /// Marks it caught up (`true`) or behind its member from `through` on (`false`).
    pub fn set_synced(&mut self, synced: bool, through: Revision) {
        self.synced = synced;
        self.through = self.through.max(through);
    }

    /// Takes in one event its etcd watch delivered (`processEvent`): the objects, the ring.
    pub fn process(&mut self, change: &Change, now: Timestamp) {
        match &change.cur {
            Some(cur) => match self.objects.get_mut(&*change.key) {
                Some(slot) => *slot = cur.clone(),
                None => {
                    self.objects.insert(change.key.clone(), cur.clone());
                }
            },
            None => {
                self.objects.remove(&*change.key);
            }
        }
        self.revision = self.revision.max(change.revision);
        self.through = self.through.max(change.revision);
        self.events_seen += 1;
        self.window.push(now, change.clone());
    }

    /// Its etcd watch has delivered everything up to `revision` (a response's header, or a
    /// progress notification when `progress`, which also moves the cache's resourceVersion).
    pub fn delivered_through(&mut self, revision: Revision, progress: bool) {
        self.through = self.through.max(revision);
        if progress {
            self.revision = self.revision.max(revision);
        }
    }

    /// Schedules the next periodic progress notification after one at `now`.
    pub fn progress_notified(&mut self, now: Timestamp) {
        self.next_progress = now.plus_millis(PROGRESS_NOTIFY_MS);
    }

    /// etcd ended its watch with `error`.
    pub fn watch_ended(&mut self, now: Timestamp, error: &str) {
        self.synced = false;
        if self.state == CacherState::Watching {
            self.state = CacherState::Rewatching {
                since: now,
                error: error.to_string(),
            };
        }
    }

    /// The watch is open again on `member`, from where it was.
    pub fn rewatched(&mut self, member: usize) {
        self.member = member;
        // The reflector watches again from the cache's resourceVersion.
        self.through = self.revision;
        self.state = CacherState::Watching;
    }

    /// The reflector gave up (or its watch was compacted away): unready until a list.
    pub fn reinitialize(&mut self, now: Timestamp, error: &str, terminated: usize) {
        self.synced = false;
        self.terminated += terminated as u64;
        self.state = CacherState::Reinitializing {
            since: now,
            next_list: now.plus_millis(RELIST_EVERY_MS),
            error: error.to_string(),
        };
    }

    /// A list that failed at `now`: the next try a second later.
    pub fn list_failed(&mut self, now: Timestamp, error: &str) {
        if let CacherState::Reinitializing { since, .. } = self.state {
            self.state = CacherState::Reinitializing {
                since,
                next_list: now.plus_millis(RELIST_EVERY_MS),
                error: error.to_string(),
            };
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn state(&self) -> &CacherState {
        &self.state
    }

    /// Whether it answers reads and watches (not reinitializing).
    pub fn is_ready(&self) -> bool {
        !matches!(self.state, CacherState::Reinitializing { .. })
    }

    /// `watchCache.resourceVersion`.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// How far its etcd watch has delivered.
    pub fn through(&self) -> Revision {
        self.through
    }

    /// The index of the etcd member its watch is on.
    pub fn member(&self) -> usize {
        self.member
    }

    /// The ring of recent events.
    pub fn window(&self) -> &EventWindow {
        &self.window
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Events taken in since it started.
    pub fn events_seen(&self) -> u64 {
        self.events_seen
    }

    /// Client watches ended by its reinitializations.
    pub fn terminated(&self) -> u64 {
        self.terminated
    }

    /// When etcd next sends its watch a progress notification.
    pub fn next_progress(&self) -> Timestamp {
        self.next_progress
    }

    /// Every object it holds with its etcd key, in key order.
    pub fn objects(&self) -> Vec<(&str, &Arc<Object>)> {
        let mut all: Vec<(&str, &Arc<Object>)> =
            self.objects.iter().map(|(k, v)| (&**k, v)).collect();
        all.sort_unstable_by(|a, b| a.0.cmp(b.0));
        all
    }

    /// The object at `namespace/name`.
    pub fn get(&self, namespace: &str, name: &str) -> Option<&Arc<Object>> {
        self.objects.get(self.kind.key(namespace, name).as_str())
    }

    /// The objects `filter` matches, in key order (a namespace's only, when it names one).
    pub fn matching(&self, filter: &Filter) -> Vec<&Arc<Object>> {
        let within = self.kind.resource().prefix(filter.namespace.as_deref());
        let mut found: Vec<(&str, &Arc<Object>)> = self
            .objects
            .iter()
            .filter(|(k, v)| k.starts_with(within.as_str()) && filter.matches(v))
            .map(|(k, v)| (&**k, v))
            .collect();
        found.sort_unstable_by(|a, b| a.0.cmp(b.0));
        found.into_iter().map(|(_, v)| v).collect()
    }
}
