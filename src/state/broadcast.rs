//! What the Broadcast view draws, read from the engine once per frame while it shows: the
//! revision whose fan-out is drawn and each stream's part in it, the stream table's rows (or,
//! past [`GROUP_STREAMS_ABOVE`] streams, its groups and the rows of the one group opened), the
//! diagram's lanes and ledger pages, the watch cost, the reconnect comparison and the raw
//! stream. The components render these and never read the engine.

use watchlab_apimachinery::client::WatchId;
use watchlab_engine::apiserver::watch::StreamState;
use watchlab_engine::apiserver::{LedgerEntry, WatchStream};
use watchlab_engine::reconnect_comparison::ComparisonView;

use super::engine::Engine;
use crate::fanout::{
    describe_filter, fan_out_counts, lanes, reach, stream_groups, FanOutCounts, Lane, Reach,
    StreamGroup, GROUP_STREAMS_ABOVE, MAX_STREAM_LANES,
};

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
    /// The group of streams opened (component, resource).
    pub group: Option<(&'a str, &'static str)>,
}

/// One stream as its table row shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRow {
    pub id: WatchId,
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
    /// The diagram's lanes for `entry`.
    pub lanes: Vec<Lane>,
    /// The ledger pages drawn beside the server, newest on top (revision, verb).
    pub pages: Vec<(u64, &'static str)>,
    /// The revisions before and after `shown` in the ledger.
    pub prev: Option<u64>,
    pub next: Option<u64>,
    /// Each informer's stream and the revision its cache holds.
    pub caches: Vec<(WatchId, u64)>,
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
        let open_group = ask
            .group
            .and_then(|(c, r)| groups.iter().find(|g| g.component == c && g.resource == r));
        // Newest first: a watch just opened (the learner's own, a resumed one) is on top.
        let rows: Vec<StreamRow> = match (grouped, open_group) {
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

    /// The cache revision of the informer reading stream `id`, if one does.
    pub fn cache_of(&self, id: WatchId) -> Option<u64> {
        self.caches.iter().find(|(s, _)| *s == id).map(|(_, r)| *r)
    }
}
