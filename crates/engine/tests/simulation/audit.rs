//! Watch auditors: raw watch streams, read the way a reflector reads them (list, then watch
//! from the list's revision, resume from the last revision received, re-list after `410
//! Expired`), whose every event is compared with the [`Tape`].
//!
//! For each stream, at every poll:
//! - ordered and unique: revisions strictly increase (one group of events per revision);
//! - no gaps: the events are exactly the tape's writes of the stream's kind that its filter
//!   sees, by the watch cache's rule (ADDED on entering the filter, MODIFIED inside it, DELETED
//!   on leaving it or on deletion, carrying the previous state at the deletion's revision);
//! - atomic per revision: a revision's events arrive in one poll, never split;
//! - bookmarks never go backwards (nor behind a delivered event, nor past the store's revision)
//!   and promise nothing was skipped;
//! - resumable: a stream that ended (timeout, overflow, dropped, its cache reinitializing)
//!   resumes from the last revision received without loss or duplicate; `410 Expired` comes
//!   only for a revision before the watch cache's window (`429` while it reinitializes: retried);
//! - complete up to the cache: every write its watch cache has taken in is queued (a cache whose
//!   etcd watch is stuck holds events back; none is lost);
//! - a re-list shows exactly the ledger's objects at the list's revision, never older than what
//!   the stream already delivered;
//! - list + watch reconstructs the ledger (checked once quiet, by the caller).

use std::collections::BTreeMap;
use std::sync::Arc;

use watchlab_apimachinery::client::WatchId;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::StatusReason;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::watch::{StreamState, WatchObject};
use watchlab_engine::apiserver::{ApiServer, WatchEvent, WatchEventType};
use watchlab_engine::etcd::REQUEST_TIMED_OUT;
use watchlab_engine::rng::SimRng;
use watchlab_engine::store::Revision;

use super::tape::{Tape, Write};

/// The user agent of the auditors' requests.
pub const USER: &str = "simulation-auditor";

/// What an auditor's stream selects.
#[derive(Debug, Clone)]
pub struct Spec {
    pub kind: Kind,
    pub namespace: Option<&'static str>,
    /// One `key=value` label requirement, or none.
    pub label: Option<(&'static str, &'static str)>,
}

impl Spec {
    fn matches(&self, o: &Object) -> bool {
        self.namespace.is_none_or(|ns| o.namespace() == ns)
            && self
                .label
                .is_none_or(|(k, v)| o.meta().labels.get(k).map(String::as_str) == Some(v))
    }

    fn options(&self) -> ListOptions {
        let mut opts = ListOptions::default();
        if let Some((k, v)) = self.label {
            opts.label_selector =
                LabelSelector::parse(&format!("{k}={v}")).unwrap_or_else(|_| unreachable!());
        }
        opts
    }

    /// The event the stream must see for `w` (type, expected object), if any.
    fn expect(&self, w: &Write) -> Option<(WatchEventType, Arc<Object>)> {
        let before = w.prev.as_deref().is_some_and(|o| self.matches(o));
        let after = w.cur.as_deref().is_some_and(|o| self.matches(o));
        match (before, after, &w.prev, &w.cur) {
            (false, true, _, Some(cur)) => Some((WatchEventType::Added, cur.clone())),
            (true, true, _, Some(cur)) => Some((WatchEventType::Modified, cur.clone())),
            (true, false, Some(prev), _) => {
                // The cacher's DELETED carries the previous state at the event's revision.
                let mut last = (**prev).clone();
                last.meta_mut().resource_version = w.revision.to_string();
                Some((WatchEventType::Deleted, Arc::new(last)))
            }
            _ => None,
        }
    }
}

/// What the auditors went through, for the coverage report.
#[derive(Debug, Default, Clone, Copy)]
pub struct AuditStats {
    pub events: u64,
    pub bookmarks: u64,
    /// Streams reopened from the last revision received.
    pub resumes: u64,
    /// Re-lists after `410 Expired`.
    pub relists: u64,
}

/// One audited stream.
pub struct Auditor {
    pub name: String,
    pub spec: Spec,
    id: Option<WatchId>,
    /// The resume point: the last revision received (event, bookmark, or list).
    pos: Revision,
    /// Revisions up to here hold nothing more for this stream (`pos <= checked`).
    checked: Revision,
    last_bookmark: Revision,
    /// The first poll of the current stream is still to come.
    fresh: bool,
    /// What list + watch reconstructs: `namespace/name` → object.
    state: BTreeMap<String, Arc<Object>>,
    rng: SimRng,
    pub stats: AuditStats,
}

fn id_of(o: &Object) -> String {
    format!("{}/{}", o.namespace(), o.name())
}

impl Auditor {
    pub fn new(seed: u64, name: &str, spec: Spec) -> Self {
        Auditor {
            name: name.to_string(),
            spec,
            id: None,
            pos: 0,
            checked: 0,
            last_bookmark: 0,
            fresh: false,
            state: BTreeMap::new(),
            rng: SimRng::child(seed, &format!("simulation/auditor/{name}")),
            stats: AuditStats::default(),
        }
    }

    /// The state list + watch reconstructed: `namespace/name` → resourceVersion.
    pub fn reconstructed(&self) -> BTreeMap<String, u64> {
        self.state
            .iter()
            .map(|(k, o)| (k.clone(), o.resource_version()))
            .collect()
    }

    /// The ledger's objects this stream selects: `namespace/name` → resourceVersion.
    pub fn ledger(&self, tape: &Tape) -> BTreeMap<String, u64> {
        tape.live(self.spec.kind)
            .filter(|o| self.spec.matches(o))
            .map(|o| (id_of(o), o.resource_version()))
            .collect()
    }

    /// Polls the stream (opening or resuming it first if needed) and checks what arrived.
    /// `tape` must have been read up to the store's current revision.
    pub fn step(&mut self, api: &mut ApiServer, tape: &Tape) -> Result<(), String> {
        let Some(id) = self.id else {
            if self.pos == 0 && !self.relist(api, tape)? {
                return Ok(());
            }
            return self.open(api);
        };
        let Some(batch) = api.poll(id) else {
            // Ended and drained (timeout, overflow) or dropped: resume where we were.
            self.id = None;
            self.stats.resumes += 1;
            return self.open(api);
        };
        let fresh = std::mem::replace(&mut self.fresh, false);
        self.receive(api, tape, &batch, fresh)?;
        if let Some(id) = self.id {
            let open = api
                .stream(id)
                .is_some_and(|s| s.state() == StreamState::Open);
            if open {
                // Complete up to what its cache has: a cache whose etcd watch is stuck (its
                // member cut off) delivers nothing newer until the watch moves on.
                let delivered = api.cache_delivered(self.spec.kind);
                let missing = self.expected(tape, delivered);
                if let Some((w, t, _)) = missing.first() {
                    return Err(format!(
                        "{}: stream open at revision {}, yet {t:?} {} at revision {} was never \
                         queued",
                        self.name,
                        api.revision(),
                        w.key,
                        w.revision
                    ));
                }
                self.checked = self.checked.max(delivered);
            }
        }
        Ok(())
    }

    fn open(&mut self, api: &mut ApiServer) -> Result<(), String> {
        let mut opts = self.spec.options();
        opts.resource_version = Some(self.pos.to_string());
        opts.allow_watch_bookmarks = true;
        opts.timeout_seconds = Some(30 + self.rng.below(300));
        let id = match api.watch(USER, self.spec.kind, self.spec.namespace, &opts) {
            Ok(id) => id,
            // The cache is reinitializing: try again on the next step.
            Err(s) if s.code() == 429 => return Ok(()),
            Err(s) => {
                return Err(format!(
                    "{}: watch from revision {} refused: {}",
                    self.name,
                    self.pos,
                    s.message()
                ))
            }
        };
        self.id = Some(id);
        self.fresh = true;
        Ok(())
    }

    /// Lists and checks the list against the ledger; `Ok(false)` when etcd could not answer
    /// (a consistent list needs a quorum), to be tried again on the next step.
    fn relist(&mut self, api: &mut ApiServer, tape: &Tape) -> Result<bool, String> {
        let list = match api.list(self.spec.kind, self.spec.namespace, &self.spec.options()) {
            Ok(list) => list,
            Err(s) if !api.store_writable() && s.message() == REQUEST_TIMED_OUT => {
                return Ok(false)
            }
            // The cache is reinitializing.
            Err(s) if s.code() == 429 => return Ok(false),
            Err(s) => return Err(format!("{}: list refused: {}", self.name, s.message())),
        };
        if list.resource_version < self.pos || list.resource_version != tape.upto() {
            return Err(format!(
                "{}: list at revision {} (stream was at {}, ledger at {})",
                self.name,
                list.resource_version,
                self.pos,
                tape.upto()
            ));
        }
        let items: BTreeMap<String, Arc<Object>> =
            list.items.iter().map(|o| (id_of(o), o.clone())).collect();
        self.state = items;
        let listed = self.reconstructed();
        let ledger = self.ledger(tape);
        if listed != ledger {
            return Err(format!(
                "{}: the list at revision {} differs from the ledger:\n  list   {listed:?}\n  \
                 ledger {ledger:?}",
                self.name, list.resource_version
            ));
        }
        self.pos = list.resource_version;
        self.checked = self.checked.max(self.pos);
        Ok(true)
    }

    /// The writes in `(pos, upto]` this stream must see, beyond those known to hold nothing.
    fn expected<'t>(
        &self,
        tape: &'t Tape,
        upto: Revision,
    ) -> Vec<(&'t Write, WatchEventType, Arc<Object>)> {
        tape.between(self.spec.kind, self.checked.max(self.pos), upto)
            .iter()
            .filter_map(|w| self.spec.expect(w).map(|(t, o)| (w, t, o)))
            .collect()
    }

    fn receive(
        &mut self,
        api: &mut ApiServer,
        tape: &Tape,
        batch: &[Arc<WatchEvent>],
        fresh: bool,
    ) -> Result<(), String> {
        let name = self.name.clone();
        let mut i = 0;
        while let Some(e) = batch.get(i) {
            match e.event_type {
                WatchEventType::Error => {
                    let WatchObject::Status(s) = &e.object else {
                        return Err(format!("{name}: an ERROR event without a Status"));
                    };
                    // 410 only for a revision before the cache's window.
                    let compacted = api
                        .cacher(self.spec.kind)
                        .map_or(0, |c| c.window().oldest_servable());
                    if !fresh
                        || i != 0
                        || batch.len() != 1
                        || s.code() != 410
                        || s.reason() != StatusReason::Expired
                        || self.pos >= compacted
                    {
                        return Err(format!(
                            "{name}: ERROR {} {:?} {:?} (event {i} of {}, from revision {}, \
                             compacted at {compacted})",
                            s.code(),
                            s.reason(),
                            s.message(),
                            batch.len(),
                            self.pos
                        ));
                    }
                    if let Some(id) = self.id.take() {
                        api.stop_watch(id);
                    }
                    self.stats.relists += 1;
                    if !self.relist(api, tape)? {
                        self.pos = 0;
                        return Ok(());
                    }
                    return self.open(api);
                }
                WatchEventType::Bookmark => {
                    let rv = e.resource_version;
                    if rv < self.pos || rv < self.last_bookmark || rv > api.revision() {
                        return Err(format!(
                            "{name}: BOOKMARK at {rv} after revision {} (last bookmark {}, \
                             ledger at {})",
                            self.pos,
                            self.last_bookmark,
                            api.revision()
                        ));
                    }
                    if let Some((w, t, _)) = self.expected(tape, rv).first() {
                        return Err(format!(
                            "{name}: BOOKMARK at {rv} skipped {t:?} {} at revision {}",
                            w.key, w.revision
                        ));
                    }
                    self.stats.bookmarks += 1;
                    self.last_bookmark = rv;
                    self.pos = rv;
                    self.checked = self.checked.max(rv);
                    i += 1;
                }
                _ => {
                    let rv = e.resource_version;
                    let group: Vec<&Arc<WatchEvent>> = batch[i..]
                        .iter()
                        .take_while(|g| {
                            g.resource_version == rv
                                && !matches!(
                                    g.event_type,
                                    WatchEventType::Bookmark | WatchEventType::Error
                                )
                        })
                        .collect();
                    if rv <= self.pos {
                        return Err(format!(
                            "{name}: {:?} at revision {rv} after revision {} (out of order or \
                             repeated)",
                            e.event_type, self.pos
                        ));
                    }
                    let want = self.expected(tape, rv);
                    let got: Vec<(WatchEventType, String, u64)> = group
                        .iter()
                        .map(|g| {
                            let id = g.object().map(|o| id_of(o)).unwrap_or_default();
                            let rv = g.object().map_or(0, |o| o.resource_version());
                            (g.event_type, id, rv)
                        })
                        .collect();
                    let wanted: Vec<(WatchEventType, String, u64)> = want
                        .iter()
                        .map(|(_, t, o)| (*t, id_of(o), o.resource_version()))
                        .collect();
                    if got != wanted {
                        return Err(format!(
                            "{name}: up to revision {rv} (from {}) the stream gave {got:?}, the \
                             ledger says {wanted:?}",
                            self.checked.max(self.pos)
                        ));
                    }
                    for (g, (_, _, o)) in group.iter().zip(&want) {
                        let same = g.object().is_some_and(|x| Arc::ptr_eq(x, o) || **x == **o);
                        if !same {
                            return Err(format!(
                                "{name}: {:?} {} at revision {rv} carries {:?}, the ledger {o:?}",
                                g.event_type,
                                id_of(o),
                                g.object()
                            ));
                        }
                        match g.event_type {
                            WatchEventType::Deleted => {
                                self.state.remove(&id_of(o));
                            }
                            _ => {
                                self.state.insert(id_of(o), o.clone());
                            }
                        }
                    }
                    self.stats.events += group.len() as u64;
                    self.pos = rv;
                    self.checked = self.checked.max(rv);
                    i += group.len();
                }
            }
        }
        Ok(())
    }
}
