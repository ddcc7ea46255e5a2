//! The second text's §7 risk, side by side: two clients watch the same pods of one namespace —
//! a [`NaiveWatcher`] that reconnects without its last resourceVersion, and an informer that
//! resumes from it (and relists after `410 Expired`). The learner cuts both connections, writes
//! while they are away (creates, labels, deletes; a busy minute, even, after which the API
//! server's watch cache no longer holds their resourceVersion), and restores them.
//! Then each client's cache is checked against etcd's truth: the naive one got every object again
//! as ADDED (duplicates) and never heard of what was deleted meanwhile (missed); the informer
//! neither — it caught up from the watch cache's window, or, when the window had moved past its
//! RV (410), relisted.
//!
//! Both are ordinary API clients (their streams show in the broadcast under [`NAIVE_USER`] and
//! [`INFORMER_USER`]); the cluster steps them with its other clients and cuts their connections
//! on request. Nothing here writes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::naive_watcher::NaiveWatcher;
use crate::client::{InformerConfig, Notification, ObjectKey, ReflectorPhase, Resource};
use crate::clock::Timestamp;
use crate::controllers::adapter::{ApiInformer, ApiListerWatcher};
use crate::rng::SimRng;

/// The naive watcher's user agent.
pub const NAIVE_USER: &str = "naive-watcher";
/// The resuming informer's user agent.
pub const INFORMER_USER: &str = "resuming-informer";

/// One client's account against etcd.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Watch events received.
    pub received: u64,
    /// Times its handler was told "added" for an object it already had.
    pub duplicates: u64,
    /// Changes whose effect its cache does not show: objects deleted that it still holds,
    /// objects it lacks, or holds at an older version. `None` while it cannot yet know
    /// (connection cut, or events still on their way).
    pub missed: Option<u64>,
    /// Full relists after the first list (the informer's price for an RV the cache dropped).
    pub relists: u64,
    /// `410 Expired` answers seen.
    pub expired: u64,
    /// Streams opened after the first.
    pub reconnects: u64,
    /// Objects in its cache.
    pub cached: usize,
}

/// Both clients, as the page shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComparisonView {
    pub namespace: String,
    pub connected: bool,
    /// Connection cuts so far.
    pub cuts: u64,
    pub naive: Tally,
    pub informer: Tally,
    /// Pods etcd holds in the namespace.
    pub truth: usize,
}

/// A naive watcher and a resuming informer on the pods of one namespace.
pub struct ReconnectComparison {
    namespace: String,
    naive: NaiveWatcher<Arc<Object>>,
    informer: ApiInformer,
    /// Keys the informer's handlers were told about (to count a second "added").
    informer_seen: BTreeSet<ObjectKey>,
    informer_duplicates: u64,
    connected: bool,
    cuts: u64,
}

impl std::fmt::Debug for ReconnectComparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReconnectComparison")
            .field("namespace", &self.namespace)
            .field("connected", &self.connected)
            .finish_non_exhaustive()
    }
}

impl ReconnectComparison {
    /// Both clients on `namespace`'s pods, connected; `seed` draws the informer's delays.
    pub fn new(namespace: &str, seed: u64) -> Self {
        ReconnectComparison {
            namespace: namespace.to_string(),
            naive: NaiveWatcher::default(),
            informer: ApiInformer::new(
                Kind::Pod,
                Some(namespace),
                InformerConfig::default(),
                Vec::new(),
                SimRng::child(seed, INFORMER_USER),
            ),
            informer_seen: BTreeSet::new(),
            informer_duplicates: 0,
            connected: true,
            cuts: 0,
        }
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Lets both clients take what arrived (and reconnect, each its own way), if connected.
    pub fn step(&mut self, now: Timestamp, api: &mut ApiServer) {
        if !self.connected {
            return;
        }
        let mut lw = ApiListerWatcher {
            api,
            user: NAIVE_USER,
            kind: Kind::Pod,
            namespace: Some(&self.namespace),
            first_list: false,
            went_back: None,
        };
        self.naive.step(&mut lw);
        for note in self.informer.step(now, api, INFORMER_USER) {
            match note {
                Notification::Add(o) => {
                    if !self.informer_seen.insert(ObjectKey::of(&o)) {
                        self.informer_duplicates += 1;
                    }
                }
                Notification::Update { new, .. } => {
                    self.informer_seen.insert(ObjectKey::of(&new));
                }
                Notification::Delete(d) => {
                    self.informer_seen.remove(&ObjectKey::of(d.object()));
                }
            }
        }
    }

    /// The network between both clients and the API server goes down: their streams end (what
    /// was queued is lost) and neither can reconnect until [`ReconnectComparison::restore`].
    pub fn cut(&mut self, api: &mut ApiServer) {
        if !self.connected {
            return;
        }
        if let Some(id) = self.naive.stream() {
            api.stop_watch(id);
        }
        if let ReflectorPhase::Watching { stream, .. } =
            self.informer.informer().reflector().phase()
        {
            api.stop_watch(stream);
        }
        self.connected = false;
        self.cuts += 1;
    }

    /// The network is back: both clients notice their streams ended and reconnect.
    pub fn restore(&mut self, now: Timestamp, api: &mut ApiServer) {
        self.connected = true;
        self.step(now, api);
    }

    /// Closes both streams (the comparison is over).
    pub fn stop(mut self, api: &mut ApiServer) {
        let mut lw = ApiListerWatcher {
            api,
            user: NAIVE_USER,
            kind: Kind::Pod,
            namespace: Some(&self.namespace),
            first_list: false,
            went_back: None,
        };
        self.naive.stop(&mut lw);
        self.informer.stop(api, INFORMER_USER);
    }

    pub fn connected(&self) -> bool {
        self.connected
    }

    /// When the informer next needs a step on its own (a delivery, a backoff, a relist).
    pub fn next_wakeup(&self) -> Option<Timestamp> {
        self.connected
            .then(|| self.informer.next_wakeup())
            .flatten()
    }

    /// Both caches checked against the pods etcd holds now.
    pub fn view(&self, api: &ApiServer) -> ComparisonView {
        let truth: BTreeMap<ObjectKey, u64> = api
            .list(Kind::Pod, Some(&self.namespace), &Default::default())
            .map(|l| {
                l.items
                    .iter()
                    .map(|o| (ObjectKey::of(o), Resource::resource_version(o)))
                    .collect()
            })
            .unwrap_or_default();
        let pending = |id: Option<u64>| id.and_then(|id| api.stream(id)).map_or(0, |s| s.pending());
        let naive_stats = self.naive.stats();
        let naive_settled = self.connected && pending(self.naive.stream()) == 0;
        let naive = Tally {
            received: naive_stats.events,
            duplicates: naive_stats.duplicates,
            missed: naive_settled.then(|| missed(self.naive.cache(), &truth)),
            relists: 0,
            expired: 0,
            reconnects: naive_stats.connects.saturating_sub(1),
            cached: self.naive.cache().count(),
        };
        let informer_stream = match self.informer.informer().reflector().phase() {
            ReflectorPhase::Watching { stream, .. } => Some(stream),
            _ => None,
        };
        let stats = self.informer.informer().reflector_stats();
        let cache = self.informer.store().list();
        let informer_settled = self.connected
            && informer_stream.is_some()
            && pending(informer_stream) == 0
            && self.informer.informer().in_flight() == 0;
        let informer = Tally {
            received: stats.events,
            duplicates: self.informer_duplicates,
            missed: informer_settled.then(|| missed(cache.iter(), &truth)),
            relists: stats.relists,
            expired: stats.expired,
            reconnects: stats.watches.saturating_sub(1),
            cached: cache.len(),
        };
        ComparisonView {
            namespace: self.namespace.clone(),
            connected: self.connected,
            cuts: self.cuts,
            naive,
            informer,
            truth: truth.len(),
        }
    }
}

/// Changes a cache does not reflect: ghosts (deleted in etcd, still cached: a missed DELETED),
/// absentees (a missed ADDED) and stale versions (a missed MODIFIED).
fn missed<'a>(
    cache: impl Iterator<Item = &'a Arc<Object>>,
    truth: &BTreeMap<ObjectKey, u64>,
) -> u64 {
    let cached: BTreeMap<ObjectKey, u64> = cache
        .map(|o| (ObjectKey::of(o), Resource::resource_version(o)))
        .collect();
    let ghosts = cached.keys().filter(|k| !truth.contains_key(*k)).count();
    let behind = truth
        .iter()
        .filter(|(k, rv)| cached.get(*k) != Some(*rv))
        .count();
    (ghosts + behind) as u64
}
