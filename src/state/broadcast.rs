//! What the Broadcast view draws, read from the engine once per frame while it shows: the
//! revision whose fan-out is drawn and each stream's part in it, the stream table's rows (or,
//! past [`GROUP_STREAMS_ABOVE`] streams, its groups and the rows of the one group opened), the
//! diagram's lanes and ledger pages, the API server's watch caches (one per resource: the etcd
//! watch that feeds it, its resourceVersion, its window of events), the watch cost, the
//! reconnect comparison and the raw stream; with several API server instances, which of the
//! rows and groups each one serves. The components render these and never read the engine.

use std::collections::BTreeMap;
use std::ops::Range;

use watchlab_apimachinery::client::WatchId;
use watchlab_engine::apiserver::cacher::{Cacher, CacherState};
use watchlab_engine::apiserver::instance::Health;
use watchlab_engine::apiserver::watch::StreamState;
use watchlab_engine::apiserver::{ApiServer, LedgerEntry, WatchStream};
use watchlab_engine::reconnect_comparison::ComparisonView;

use super::engine::Engine;
use crate::fanout::{
    describe_filter, fan_out_counts, lanes, reach, stream_groups, FanOutCounts, GroupKey, Lane,
    Reach, StreamGroup, GROUP_STREAMS_ABOVE, MAX_STREAM_LANES,
};
use watchlab_apimachinery::sort;

/// Recent events shown per stream row.
pub const RECENT_SHOWN: usize = 2;
/// Ledger pages the diagram draws: the one shown, up to [`PAGES_AFTER`] newer ones, the rest
/// older.
const PAGES: usize = 7;
const PAGES_AFTER: usize = 3;

/// What the page asks of the broadcast (from the page state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BroadcastAsk<'a> {
    /// The revision held; `None` follows the newest.
    pub fan_revision: Option<u64>,
    /// The stream whose raw body is shown.
    pub raw_stream: Option<WatchId>,
    /// The group of streams opened.
    pub group: Option<&'a GroupKey>,
}

/// One stream as its table row shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRow {
    pub id: WatchId,
    /// The API server instance serving it.
    pub instance: usize,
    pub user: String,
    /// Its filter as a query string states it.
    pub filter: String,
    pub last_revision: u64,
    pub delivered: u64,
    pub filtered: u64,
    pub pending: usize,
    pub state: StreamState,
    /// Its part in the fan-out revision (None: that revision is not in the ledger).
    pub reach: Option<Reach>,
    /// Its newest events, newest first (`MODIFIED orders-api @1234`).
    pub recent: Vec<String>,
}

/// Where a watch cache's etcd watch stands (the engine's [`CacherState`], as its row says it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheWatch {
    /// Its etcd watch is open on its member.
    Watching,
    /// etcd ended the watch with `error`; the cache serves what it has while the reflector
    /// opens it again.
    Rewatching { error: String },
    /// Not ready (every client watch ended, lists and watches answered 429) until a list
    /// succeeds; the last list failed with `error`, or the watch ended with it.
    Reinitializing { error: String },
}

impl CacheWatch {
    /// The `data-cacher-state` value.
    pub fn key(&self) -> &'static str {
        match self {
            CacheWatch::Watching => "watching",
            CacheWatch::Rewatching { .. } => "rewatching",
            CacheWatch::Reinitializing { .. } => "reinitializing",
        }
    }
}

/// One resource's watch cache (the engine's [`Cacher`]) as the Broadcast view draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct CacherRow {
    /// The resource, plural (`pods`).
    pub resource: &'static str,
    pub watch: CacheWatch,
    /// The etcd member its etcd watch is on (`etcd-0`).
    pub member: String,
    /// The cache's resourceVersion (its newest event's revision, or the last progress
    /// notification's).
    pub revision: u64,
    /// Up to where every event of the resource has reached the cache (etcd's revision while
    /// its etcd watch is caught up).
    pub delivered: u64,
    /// The oldest resourceVersion a watch may start from (older gets `410 Gone`).
    pub oldest: u64,
    /// Events in its window, and how many the window holds before it drops or grows.
    pub events: usize,
    pub capacity: usize,
    /// Objects held.
    pub objects: usize,
    /// Open client streams on the resource (all fed by this cache).
    pub streams: usize,
    /// Events taken in since it started.
    pub events_seen: u64,
    /// Client watches its reinitializations ended.
    pub terminated: u64,
}

impl CacherRow {
    fn of(api: &ApiServer, c: &Cacher, streams: usize) -> CacherRow {
        let error = |e: &String| e.clone();
        let window = c.window();
        CacherRow {
            resource: c.kind().resource().plural,
            watch: match c.state() {
                CacherState::Watching => CacheWatch::Watching,
                CacherState::Rewatching { error: e, .. } => {
                    CacheWatch::Rewatching { error: error(e) }
                }
                CacherState::Reinitializing { error: e, .. } => {
                    CacheWatch::Reinitializing { error: error(e) }
                }
            },
            member: api.etcd().member_name(c.member()).to_string(),
            revision: c.revision(),
            delivered: api.cache_delivered(c.kind()),
            oldest: window.oldest_servable(),
            events: window.len(),
            capacity: window.capacity(),
            objects: c.len(),
            streams,
            events_seen: c.events_seen(),
            terminated: c.terminated(),
        }
    }

    /// Whether its etcd watch has not delivered up to etcd's revision `etcd`.
    pub fn behind(&self, etcd: u64) -> bool {
        self.delivered < etcd
    }

    /// Whether the view lists it without asking for idle caches: a stream reads it, it has
    /// taken in events, or its etcd watch is not simply open.
    pub fn active(&self) -> bool {
        self.streams > 0 || self.events_seen > 0 || self.watch != CacheWatch::Watching
    }

    /// Whether the revision `rev` has reached it (through its etcd watch).
    pub fn has(&self, rev: u64) -> bool {
        self.delivered >= rev
    }
}

/// One API server instance's part of the stream table (several instances only): its streams
/// are the rows `rows` and the groups `groups` of the [`Broadcast`], so the view windows each
/// lane over the frame's one list instead of copying it.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiserverLane {
    /// `kube-apiserver-0`.
    pub name: String,
    pub health: Health,
    /// Its open and recently ended streams (grouped or not).
    pub streams: usize,
    pub rows: Range<usize>,
    pub groups: Range<usize>,
}

/// The Broadcast view's frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Broadcast {
    /// Open and recently ended streams.
    pub total: usize,
    /// Events the fan-out index offered, over all streams.
    pub offers: u64,
    /// The ledger's newest revision.
    pub newest: u64,
    /// The revision whose fan-out is drawn.
    pub shown: u64,
    /// Whether `shown` follows the newest.
    pub following: bool,
    /// The ledger line of `shown`.
    pub entry: Option<LedgerEntry>,
    pub counts: Option<FanOutCounts>,
    /// Newest first: every stream, or past [`GROUP_STREAMS_ABOVE`] the opened group's.
    pub rows: Vec<StreamRow>,
    /// Past [`GROUP_STREAMS_ABOVE`] streams: the groups (else empty).
    pub groups: Vec<StreamGroup>,
    /// With several API server instances, one lane each (in instance order, `rows` and
    /// `groups` sorted the same way); empty with one, which the view draws without lanes.
    pub apiservers: Vec<ApiserverLane>,
    /// The diagram's lanes for `entry`.
    pub lanes: Vec<Lane>,
    /// The ledger pages drawn beside the server, newest on top (revision, verb).
    pub pages: Vec<(u64, &'static str)>,
    /// The revisions before and after `shown` in the ledger.
    pub prev: Option<u64>,
    pub next: Option<u64>,
    /// Each informer's stream and the revision its cache holds.
    pub caches: Vec<(WatchId, u64)>,
    /// The API server's watch caches, one per served resource, in resource order.
    pub cachers: Vec<CacherRow>,
    /// The index in `cachers` of the cache the shown revision's resource goes through.
    pub shown_cacher: Option<usize>,
    /// Events delivered and refused, over all streams.
    pub delivered: u64,
    pub filtered: u64,
    pub reconnect: Option<ComparisonView>,
    /// The raw stream's recent events as HTTP body lines.
    pub raw: Vec<String>,
}

fn stream_row(s: &WatchStream, entry: Option<&LedgerEntry>) -> StreamRow {
    let kept: Vec<_> = s.recent().collect();
    StreamRow {
        id: s.id(),
        instance: s.instance(),
        user: s.user().to_string(),
        filter: describe_filter(s),
        last_revision: s.last_revision(),
        delivered: s.delivered(),
        filtered: s.filtered_out(),
        pending: s.pending(),
        state: s.state(),
        reach: entry.map(|en| reach(s, en)),
        recent: kept
            .iter()
            .rev()
            .take(RECENT_SHOWN)
            .map(|ev| {
                let name = ev
                    .object()
                    .map(|o| o.name().to_string())
                    .unwrap_or_default();
                format!(
                    "{} {} @{}",
                    ev.event_type.as_str(),
                    name,
                    ev.resource_version
                )
            })
            .collect(),
    }
}

/// Every watch cache, with the open client streams of its resource.
fn cacher_rows(api: &ApiServer, streams: &[&WatchStream]) -> Vec<CacherRow> {
    let mut open: BTreeMap<&'static str, usize> = BTreeMap::new();
    for s in streams.iter().filter(|s| s.state() == StreamState::Open) {
        *open.entry(s.filter().kind.resource().plural).or_default() += 1;
    }
    api.cachers()
        .map(|c| {
            let plural = c.kind().resource().plural;
            CacherRow::of(api, c, open.get(plural).copied().unwrap_or(0))
        })
        .collect()
}

/// With several API server instances, one lane per instance over `rows` (sorted by instance
/// here, newest first within each: the sort is stable) and `groups` (already in instance
/// order). Counting the streams is one pass, as the frame's other sums are.
fn apiserver_lanes(
    api: &ApiServer,
    streams: &[&WatchStream],
    rows: &mut [StreamRow],
    groups: &[StreamGroup],
) -> Vec<ApiserverLane> {
    let instances = api.instances();
    if instances.len() < 2 {
        return Vec::new();
    }
    sort::sort_by_key(rows, |r| r.instance);
    let mut counts = vec![0usize; instances.len()];
    for s in streams {
        if let Some(n) = counts.get_mut(s.instance()) {
            *n += 1;
        }
    }
    // Where instance `i`'s rows and groups start.
    let rows_from = |i: usize| rows.partition_point(|r| r.instance < i);
    let groups_from = |i: usize| groups.partition_point(|g| g.instance < i);
    instances
        .iter()
        .zip(counts)
        .enumerate()
        .map(|(i, (inst, streams))| ApiserverLane {
            name: inst.name.clone(),
            health: inst.health,
            streams,
            rows: rows_from(i)..rows_from(i + 1),
            groups: groups_from(i)..groups_from(i + 1),
        })
        .collect()
}

/// The index of the cache that `entry`'s resource goes through (`pods` for `pods/status`).
fn cacher_of(cachers: &[CacherRow], entry: Option<&LedgerEntry>) -> Option<usize> {
    let written = entry?.resource.split('/').next().unwrap_or_default();
    cachers.iter().position(|c| c.resource == written)
}

impl Broadcast {
    /// Reads the broadcast from the engine.
    pub fn of(e: &Engine, ask: BroadcastAsk<'_>) -> Broadcast {
        let api = e.cluster.api();
        let ledger = api.ledger();
        let newest = api.revision();
        let shown = ask.fan_revision.unwrap_or(newest);
        let entry = ledger.iter().rev().find(|l| l.revision == shown).cloned();
        let streams: Vec<&WatchStream> = api.streams().collect();
        let total = streams.len();
        let grouped = total > GROUP_STREAMS_ABOVE;
        let groups = if grouped {
            stream_groups(streams.iter().copied(), entry.as_ref())
        } else {
            Vec::new()
        };
        let open_group = ask.group.and_then(|k| groups.iter().find(|g| g.is(k)));
        // Newest first: a watch just opened (the learner's own, a resumed one) is on top.
        let mut rows: Vec<StreamRow> = match (grouped, open_group) {
            (false, _) => streams
                .iter()
                .rev()
                .map(|s| stream_row(s, entry.as_ref()))
                .collect(),
            (true, Some(g)) => streams
                .iter()
                .rev()
                .filter(|s| g.holds(s))
                .map(|s| stream_row(s, entry.as_ref()))
                .collect(),
            (true, None) => Vec::new(),
        };
        let apiservers = apiserver_lanes(api, &streams, &mut rows, &groups);
        // Newest on top: a few pages written after the one shown, then it and older ones.
        let mut pages: Vec<(u64, &'static str)> = ledger
            .iter()
            .filter(|l| l.revision > shown)
            .take(PAGES_AFTER)
            .map(|l| (l.revision, l.verb))
            .collect();
        pages.reverse();
        let older = PAGES - pages.len();
        pages.extend(
            ledger
                .iter()
                .rev()
                .filter(|l| l.revision <= shown)
                .take(older)
                .map(|l| (l.revision, l.verb)),
        );
        let (delivered, filtered) = streams.iter().fold((0u64, 0u64), |(d, f), s| {
            (d + s.delivered(), f + s.filtered_out())
        });
        let cachers = cacher_rows(api, &streams);
        let shown_cacher = cacher_of(&cachers, entry.as_ref());
        Broadcast {
            total,
            offers: api.watch_offers(),
            newest,
            shown,
            following: ask.fan_revision.is_none(),
            counts: entry
                .as_ref()
                .map(|en| fan_out_counts(streams.iter().copied(), en)),
            lanes: entry
                .as_ref()
                .map(|en| lanes(streams.iter().copied(), en, MAX_STREAM_LANES))
                .unwrap_or_default(),
            entry,
            rows,
            groups,
            apiservers,
            pages,
            prev: ledger
                .iter()
                .rev()
                .find(|l| l.revision < shown)
                .map(|l| l.revision),
            next: ledger
                .iter()
                .find(|l| l.revision > shown)
                .map(|l| l.revision),
            caches: e
                .cluster
                .informers()
                .into_iter()
                .filter_map(|i| i.stream.map(|s| (s, i.cache_revision)))
                .collect(),
            cachers,
            shown_cacher,
            delivered,
            filtered,
            reconnect: e.cluster.reconnect_comparison(),
            raw: ask
                .raw_stream
                .and_then(|id| api.stream(id))
                .map(|s| s.recent().map(|ev| ev.json().to_string()).collect())
                .unwrap_or_default(),
        }
    }

    /// The watch cache the shown revision went through.
    pub fn shown_cacher(&self) -> Option<&CacherRow> {
        self.shown_cacher.and_then(|i| self.cachers.get(i))
    }

    /// The cache revision of the informer reading stream `id`, if one does.
    pub fn cache_of(&self, id: WatchId) -> Option<u64> {
        self.caches.iter().find(|(s, _)| *s == id).map(|(_, r)| *r)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_apimachinery::client::ApiClient;
    use watchlab_engine::apiserver::EtcdFault;
    use watchlab_engine::clock::Timestamp;

    const PODS: &str = "/api/v1/namespaces/default/pods";

    fn post(s: &mut ApiServer, name: &str) {
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}"}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}"#
        );
        let r = s.request("POST", PODS, None, Some(&body));
        assert_eq!(r.code, 201, "{}", r.body);
    }

    fn rows(s: &ApiServer) -> Vec<CacherRow> {
        let streams: Vec<&WatchStream> = s.streams().collect();
        cacher_rows(s, &streams)
    }

    fn pods(rows: &[CacherRow]) -> CacherRow {
        rows.iter()
            .find(|c| c.resource == "pods")
            .cloned()
            .unwrap_or_else(|| panic!("no pods cache in {rows:?}"))
    }

    #[test]
    fn a_cache_row_says_what_the_engines_cacher_holds() {
        let mut s = ApiServer::new(1);
        post(&mut s, "a");
        let id = ApiClient::watch(&mut s, &format!("{PODS}?watch=1")).unwrap_or(0);
        s.poll_watch(id);
        post(&mut s, "b");
        let etcd = s.revision();
        let all = rows(&s);
        assert_eq!(all.len(), s.cachers().count(), "one row per cacher");
        let p = pods(&all);
        assert_eq!(p.watch, CacheWatch::Watching);
        assert_eq!(p.watch.key(), "watching");
        assert_eq!(p.member, "etcd-0");
        assert_eq!((p.revision, p.delivered), (etcd, etcd));
        assert!(!p.behind(etcd) && p.has(etcd));
        assert_eq!((p.objects, p.events, p.events_seen), (2, 2, 2));
        assert_eq!(p.capacity, 100);
        assert_eq!(p.streams, 1);
        assert!(p.active());
        // A cache nobody watches and nothing was written to is idle.
        assert!(all
            .iter()
            .any(|c| c.streams == 0 && c.events_seen == 0 && !c.active()));
    }

    #[test]
    fn a_cache_row_follows_its_etcd_watch_into_rewatching_and_reinitializing() {
        let mut s = ApiServer::new(1);
        post(&mut s, "a");
        for m in ["etcd-1", "etcd-2"] {
            s.etcd_fault(&EtcdFault::Kill(m.into())).expect("kill");
        }
        s.advance_to(Timestamp::from_secs(6));
        let p = pods(&rows(&s));
        assert_eq!(
            p.watch,
            CacheWatch::Rewatching {
                error: "etcdserver: no leader".into()
            }
        );
        assert!(
            p.active(),
            "a cache whose watch is not open is always listed"
        );
        s.advance_to(Timestamp::from_secs(40));
        let p = pods(&rows(&s));
        assert_eq!(p.watch.key(), "reinitializing");
    }

    #[test]
    fn several_api_servers_get_one_lane_each_over_the_streams_they_serve() {
        use crate::state::{Action, State};
        use watchlab_engine::cluster::Action as ClusterAction;
        let run = |s: State, a: Action| s.apply(a).unwrap_or_else(|| panic!("no change"));
        let broadcast = |s: &State| Broadcast::of(&s.engine.borrow(), BroadcastAsk::default());
        let one = State::new(7, crate::i18n::Lang::En);
        one.engine.borrow_mut().advance(5_000);
        assert!(
            broadcast(&one).apiservers.is_empty(),
            "one instance: no lanes"
        );

        let s = run(one, Action::SetApiservers(2));
        s.engine.borrow_mut().advance(5_000);
        let b = broadcast(&s);
        let names: Vec<&str> = b.apiservers.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["kube-apiserver-0", "kube-apiserver-1"]);
        // The lanes split the rows between them, each holding only its instance's streams.
        assert_eq!(
            b.apiservers.iter().map(|l| l.streams).sum::<usize>(),
            b.total
        );
        let mut next = 0;
        for (i, lane) in b.apiservers.iter().enumerate() {
            assert_eq!(lane.rows.start, next, "{lane:?}");
            assert_eq!(lane.rows.len(), lane.streams, "{lane:?}");
            assert!(
                lane.streams > 0,
                "the balancer spreads the clients: {lane:?}"
            );
            assert!(b.rows[lane.rows.clone()].iter().all(|r| r.instance == i));
            next = lane.rows.end;
        }
        assert_eq!(next, b.rows.len());

        let s = run(
            s,
            Action::Cluster(ClusterAction::StopApiserver("kube-apiserver-0".into())),
        );
        s.engine.borrow_mut().advance(5_000);
        let b = broadcast(&s);
        let lane = |name: &str| b.apiservers.iter().find(|l| l.name == name).cloned();
        let stopped = lane("kube-apiserver-0").unwrap_or_else(|| panic!("{b:?}"));
        assert_eq!((stopped.health, stopped.streams), (Health::Stopped, 0));
        assert_eq!(
            lane("kube-apiserver-1").map(|l| l.streams),
            Some(b.total),
            "its clients watch through the other one"
        );
    }

    #[test]
    fn the_shown_revision_goes_through_its_resources_cache() {
        use crate::state::{Action, State};
        use crate::view::View;
        let run = |s: State, a: Action| s.apply(a).unwrap_or_else(|| panic!("no change"));
        let s = run(
            State::new(7, crate::i18n::Lang::En),
            Action::Show(View::Broadcast),
        );
        let s = run(
            s,
            Action::Command("kubectl run via-cache --image=nginx -n production".into()),
        );
        let b = s.frame.broadcast.clone();
        let c = b
            .shown_cacher()
            .unwrap_or_else(|| panic!("no cache for the shown revision"));
        assert_eq!(c.resource, "pods");
        assert!(c.has(b.shown), "the create reached the pods cache");
        assert_eq!(c.revision, b.shown);
        assert_eq!(b.cachers.len(), {
            let e = s.engine.borrow();
            e.cluster.api().cachers().count()
        });
    }
}
