//! The API server's side of its watch caches: starting one per served resource, handing each
//! commit's events to the cacher of their resource (through that cacher's etcd watch: only once
//! the member the watch is on has the revision), and running the watches' lives on the clock —
//! a member without a leader ends them, the reflector opens them again where they were, gives
//! up after 30 s, and lists again — as kube-apiserver v1.32's `Cacher` and its reflector do.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Cacher, CacherState, REWATCH_FOR_MS};
use crate::api::{Kind, Object};
use crate::apiserver::instance::Health;
use crate::apiserver::watch::Change;
use crate::apiserver::{change_of, ApiServer};
use crate::clock::Timestamp;
use crate::etcd::{ELECTION_TIMEOUT_MS, NO_LEADER};
use crate::store::{Revision, StoreError};
use watchlab_apimachinery::status::Status;

/// etcd's `maxNoLeaderCnt`: a member ends its leader-requiring watches after this many
/// election timeouts without a leader (`api/v3rpc/interceptor.go`).
const NO_LEADER_CHECKS: u64 = 3;

/// What the etcd3 watcher passes on when etcd compacted past a watch (`ErrCompacted`).
const WATCH_COMPACTED: &str = "etcdserver: mvcc: required revision has been compacted";

impl ApiServer {
    /// The watch caches of the instance requests are routed to, one per served resource, in
    /// resource order.
    pub fn cachers(&self) -> impl Iterator<Item = &Cacher> {
        self.routed().cachers.values()
    }

    /// The watch cache of `kind` on the instance requests are routed to.
    pub fn cacher(&self, kind: Kind) -> Option<&Cacher> {
        self.routed().cachers.get(&kind)
    }

    fn cachers_of(&mut self, i: usize) -> Option<&mut BTreeMap<Kind, Cacher>> {
        self.instances.get_mut(i).map(|s| &mut s.cachers)
    }

    fn cacher_of(&self, i: usize, kind: Kind) -> Option<&Cacher> {
        self.instances.get(i)?.cachers.get(&kind)
    }

    fn cacher_mut(&mut self, i: usize, kind: Kind) -> Option<&mut Cacher> {
        self.cachers_of(i)?.get_mut(&kind)
    }

    /// Starts the cacher of `kind` on every instance: a list of its prefix at the store's
    /// revision, then its watch from there on the member the etcd client talks to.
    pub(in crate::apiserver) fn start_cacher(&mut self, kind: Kind) {
        for i in 0..self.instances.len() {
            self.start_cacher_on(i, kind);
        }
    }

    fn start_cacher_on(&mut self, i: usize, kind: Kind) {
        let prefix = kind.resource().prefix(None);
        let revision = self.store.revision();
        let member = self.etcd.client_index().unwrap_or(0);
        let items = self.listed(&prefix);
        let cacher = Cacher::new(kind, prefix, items, revision, member, self.now);
        if let Some(cachers) = self.cachers_of(i) {
            cachers.insert(kind, cacher);
        }
    }

    /// Stops the cachers of a resource no longer served, ending their client watches.
    pub(in crate::apiserver) fn stop_cacher(&mut self, kind: Kind) {
        let mut removed = false;
        for s in &mut self.instances {
            removed |= s.cachers.remove(&kind).is_some();
        }
        if removed {
            self.watch.end_kind(None, Some(kind));
        }
    }

    /// A stopped instance started again: each of its cachers lists afresh.
    pub(in crate::apiserver) fn start_instance(&mut self, i: usize) {
        let kinds: Vec<Kind> = match self.instances.get(i) {
            Some(s) => s.cachers.keys().copied().collect(),
            None => return,
        };
        for kind in kinds {
            self.start_cacher_on(i, kind);
        }
    }

    /// The API server restarted on a restored store: every cacher lists again, and every
    /// client watch has ended with the old server.
    pub(in crate::apiserver) fn restart_cachers(&mut self) {
        for i in 0..self.instances.len() {
            self.start_instance(i);
        }
    }

    /// Every key of `prefix` at the store's revision, with its value.
    fn listed(&self, prefix: &str) -> Vec<(Arc<str>, Arc<Object>)> {
        self.store
            .range_prefix(prefix, None, None, None)
            .map(|r| r.kvs.into_iter().map(|kv| (kv.key, kv.value)).collect())
            .unwrap_or_default()
    }

    /// One committed revision's changes, handed to the cachers of their resources: at once
    /// to a cacher whose etcd watch is on a member that has the revision, or left for that
    /// watch to deliver later ([`ApiServer::catch_up_cacher`]). Each cacher then dispatches
    /// them to its client watches.
    pub(in crate::apiserver) fn feed_cachers(&mut self, revision: Revision, changes: &[Change]) {
        for i in 0..self.instances.len() {
            if self.serving(i) {
                self.feed_instance(i, revision, changes);
            }
        }
    }

    /// Whether instance `i` hears etcd (neither cut nor stopped).
    fn serving(&self, i: usize) -> bool {
        self.instances
            .get(i)
            .is_some_and(|s| s.health == Health::Serving)
    }

    fn feed_instance(&mut self, i: usize, revision: Revision, changes: &[Change]) {
        let Some(first) = changes.first() else { return };
        if changes.iter().all(|c| c.kind == first.kind) {
            self.feed_cacher(i, first.kind, revision, changes);
            return;
        }
        let mut kinds: Vec<Kind> = Vec::new();
        for c in changes {
            if !kinds.contains(&c.kind) {
                kinds.push(c.kind);
            }
        }
        for kind in kinds {
            let of_kind: Vec<Change> = changes.iter().filter(|c| c.kind == kind).cloned().collect();
            self.feed_cacher(i, kind, revision, &of_kind);
        }
    }

    fn feed_cacher(&mut self, i: usize, kind: Kind, revision: Revision, changes: &[Change]) {
        let now = self.now;
        let delivered = self
            .cacher_of(i, kind)
            .and_then(|c| self.etcd.watch_revision(c.member()));
        let Some(c) = self.cacher_mut(i, kind) else {
            return;
        };
        if revision <= c.through() {
            // Its watch delivered this revision already (a catch-up read ahead).
            return;
        }
        if !c.is_synced() {
            self.catch_up_cacher(i, kind);
            return;
        }
        if delivered.is_some_and(|d| d >= revision) {
            for change in changes {
                c.process(change, now);
            }
            self.watch.dispatch(i, changes);
        } else {
            // The watch's member has not applied it yet: it delivers it later.
            c.set_synced(false, revision - 1);
        }
    }

    /// Hands a cacher whatever its etcd watch can deliver now that it has not yet: the events
    /// of its prefix the watch's member has applied since the cacher's position.
    pub(in crate::apiserver) fn catch_up_cacher(&mut self, i: usize, kind: Kind) {
        if !self.serving(i) {
            return;
        }
        let Some(c) = self.cacher_of(i, kind) else {
            return;
        };
        if c.is_synced() || *c.state() != CacherState::Watching {
            return;
        }
        let Some(delivered) = self.etcd.watch_revision(c.member()) else {
            return;
        };
        let current = self.store.revision();
        let bound = delivered.min(current);
        let from = c.through();
        if bound <= from {
            if let (true, Some(c)) = (from >= current, self.cacher_mut(i, kind)) {
                c.set_synced(true, current);
            }
            return;
        }
        let changes: Result<Vec<Change>, StoreError> =
            self.store.events_after(c.prefix(), from).map(|events| {
                events
                    .into_iter()
                    .take_while(|e| e.kv.mod_revision <= bound)
                    .map(|e| change_of(&self.store, e))
                    .filter(|ch| ch.kind == kind)
                    .collect()
            });
        match changes {
            Ok(changes) => {
                let now = self.now;
                let Some(c) = self.cacher_mut(i, kind) else {
                    return;
                };
                for change in &changes {
                    c.process(change, now);
                }
                c.set_synced(bound >= current, bound);
                self.watch.dispatch(i, &changes);
            }
            Err(_) => self.reinitialize_cacher(i, kind, WATCH_COMPACTED),
        }
    }

    /// The cacher went unready (`error` ended its ListAndWatch): its client watches end.
    fn reinitialize_cacher(&mut self, i: usize, kind: Kind, error: &str) {
        let ended = self.watch.end_kind(Some(i), Some(kind));
        let now = self.now;
        if let Some(c) = self.cacher_mut(i, kind) {
            c.reinitialize(now, error, ended);
        }
    }

    /// What the watch caches do at the server's time: watches ended by a leaderless member,
    /// reopened, given up on; lists of unready caches; periodic progress notifications; and
    /// events their members have applied since.
    pub(in crate::apiserver) fn run_cachers(&mut self) {
        for i in 0..self.instances.len() {
            if !self.serving(i) {
                continue;
            }
            let kinds: Vec<Kind> = self.instances[i].cachers.keys().copied().collect();
            for kind in kinds {
                self.run_cacher(i, kind);
            }
        }
    }

    fn run_cacher(&mut self, i: usize, kind: Kind) {
        let Some(c) = self.cacher_of(i, kind) else {
            return;
        };
        let now = self.now;
        match c.state().clone() {
            CacherState::Watching => {
                let member = c.member();
                if self.etcd.watch_revision(member).is_none() {
                    // Its member is down: the client opens the watch again on another one.
                    self.rewatch(i, kind);
                } else if self
                    .etcd
                    .leaderless_since_index(member)
                    .is_some_and(|since| {
                        now >= since.plus_millis(NO_LEADER_CHECKS * ELECTION_TIMEOUT_MS)
                    })
                {
                    if let Some(c) = self.cacher_mut(i, kind) {
                        c.watch_ended(now, NO_LEADER);
                    }
                    self.rewatch(i, kind);
                } else {
                    self.catch_up_cacher(i, kind);
                    self.notify_progress(i, kind);
                }
            }
            CacherState::Rewatching { since, error } => {
                self.rewatch(i, kind);
                let still = self
                    .cacher_of(i, kind)
                    .is_some_and(|c| matches!(c.state(), CacherState::Rewatching { .. }));
                if still && now >= since.plus_millis(REWATCH_FOR_MS) {
                    self.reinitialize_cacher(i, kind, &error);
                }
            }
            CacherState::Reinitializing { next_list, .. } => {
                if now >= next_list {
                    match self.etcd.can_read() {
                        Ok(()) => self.start_cacher_on(i, kind),
                        Err(e) => {
                            if let Some(c) = self.cacher_mut(i, kind) {
                                c.list_failed(now, e.text());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Opens the cacher's etcd watch again from where it was, on the member the client talks
    /// to, if one with a leader takes it (`WithRequireLeader` refuses it on one without).
    fn rewatch(&mut self, i: usize, kind: Kind) {
        let now = self.now;
        let Some(member) = self.etcd.client_index() else {
            if self.etcd.any_alive() {
                if let Some(c) = self.cacher_mut(i, kind) {
                    c.watch_ended(now, NO_LEADER);
                }
            }
            return;
        };
        if let Some(c) = self.cacher_mut(i, kind) {
            c.rewatched(member);
        }
        self.catch_up_cacher(i, kind);
    }

    /// etcd's periodic progress notification: a caught-up watch hears the current revision.
    fn notify_progress(&mut self, i: usize, kind: Kind) {
        let now = self.now;
        let Some(c) = self.cacher_of(i, kind) else {
            return;
        };
        if now < c.next_progress() {
            return;
        }
        let fresh = self.fresh_revision(c);
        if let Some(c) = self.cacher_mut(i, kind) {
            c.delivered_through(fresh, true);
            c.progress_notified(now);
        }
    }

    /// The earliest time a cacher has something to do: a leaderless member about to end its
    /// watch, the retries running out, the next list, the next progress notification.
    pub(in crate::apiserver) fn cachers_next_timer(&self) -> Option<Timestamp> {
        self.instances
            .iter()
            .flat_map(|s| s.cachers.values())
            .map(|c| match c.state() {
                CacherState::Watching => {
                    let cancel = self
                        .etcd
                        .leaderless_since_index(c.member())
                        .map(|s| s.plus_millis(NO_LEADER_CHECKS * ELECTION_TIMEOUT_MS));
                    cancel.map_or(c.next_progress(), |at| at.min(c.next_progress()))
                }
                CacherState::Rewatching { since, .. } => since.plus_millis(REWATCH_FOR_MS),
                CacherState::Reinitializing { next_list, .. } => *next_list,
            })
            .filter(|at| *at > self.now)
            .min()
    }

    /// The resourceVersion the cache would be at once a progress notification it asks for
    /// arrives (`RequestWatchProgress`): etcd's revision as far as its watch's member has it,
    /// when the watch is caught up; its own otherwise.
    pub(in crate::apiserver) fn fresh_revision(&self, c: &Cacher) -> Revision {
        if !c.is_synced() {
            return c.revision();
        }
        let delivered = self.etcd.watch_revision(c.member()).unwrap_or(0);
        c.revision().max(delivered.min(self.store.revision()))
    }

    /// The revision up to which every event of `kind` has reached its cache (and its client
    /// watches): etcd's, while the cache is caught up; where its etcd watch stands otherwise.
    pub fn cache_delivered(&self, kind: Kind) -> Revision {
        match self.cacher(kind) {
            Some(c) if c.is_synced() => self.store.revision(),
            Some(c) => c.through(),
            None => 0,
        }
    }

    /// The cacher of `kind` if it is ready to answer: else `429 storage is (re)initializing`.
    pub(in crate::apiserver) fn ready_cacher(&self, kind: Kind) -> Result<&Cacher, Status> {
        match self.cacher(kind) {
            Some(c) if c.is_ready() => Ok(c),
            _ => Err(Status::too_many_requests(super::REINITIALIZING, 1)),
        }
    }
}
