//! The broadcast drawn the way the texts describe it, as the real chain carries a revision: the
//! etcd ledger on the left (the member the cache's etcd watch is on), that etcd watch to the
//! API server's watch cache of the revision's resource (its resourceVersion, its ring of recent
//! events, the oldest resourceVersion it still serves), and from the cache every open watch
//! stream as a lane to its subscriber on the right. The revision shown travels down the lanes
//! that receive it, stops at the filter of the lanes whose selector refuses it, and never leaves
//! the server for lanes the index skips (another namespace or node); an informer's lane ends in
//! its cache, drawn amber until the event has reached it. The etcd watch is drawn green once the
//! revision has reached the watch cache, amber before, red and crossed while the watch is not
//! open (rewatching, or reinitializing with 429s). Positions follow the virtual clock (the time
//! since the revision committed), so Pause freezes them.
//!
//! Every mark comes from [`crate::fanout`] (what the engine recorded per stream) and the frame's
//! watch caches; the Broadcast view's counts come from the same place. Pause holds one revision;
//! Previous/Next (or ←/→ on the figure) move one revision at a time. Past [`MAX_STREAM_LANES`]
//! streams, lanes group by component and resource with counts. A text summary and a list of
//! lanes describe the figure to screen readers.

use super::cacher_panel::state_text;
use super::{fill, tr, use_ctx, Ctx};
use crate::fanout::{Lane, Reach};
use crate::i18n::T;
use crate::state::{Action, CacheWatch, CacherRow};
use yew::prelude::*;

/// The drawing's width in SVG units (it scales to the view's width).
const WIDTH: u32 = 700;
/// One lane's height.
const LANE_H: u32 = 28;
/// Above the first lane (column captions).
const TOP: u32 = 22;
/// Lanes drawn at least (the ledger's pages and the watch cache need this height).
const MIN_LANES: usize = 8;
/// The etcd box (its right edge) and the API server's box with the watch cache in it.
const ETCD_X1: u32 = 100;
const API_X0: u32 = 106;
const API_X1: u32 = 222;
/// The watch cache's node inside the API server's box, and its text's width in cells.
const CACHE_X0: u32 = 112;
const CACHE_X1: u32 = 216;
const CACHE_Y0: u32 = TOP + 24;
const CACHE_H: u32 = 174;
const CACHE_CELLS: usize = 14;
/// Where lanes leave the cache's dispatch, where their filter gate stands, and where they
/// reach the subscriber.
const X0: u32 = 234;
const XG: u32 = 312;
const X1: u32 = 402;
/// What fits of a lane's second line (what it watches) right of the subscriber's x, in cells
/// of its monospace font: a character is one cell, a CJK one (Chinese text and punctuation,
/// U+2E80 to U+FFEF) two.
const WATCHES_CELLS: usize = 43;
/// A ledger page's height and the distance between two pages.
const PAGE_H: u32 = 20;
const PAGE_STEP: u32 = 23;

/// `text` cut to `cells` monospace cells, ending in `…` when cut (an SVG text has no
/// text-overflow; the lane's tooltip says it whole).
pub fn fit(text: &str, cells: usize) -> String {
    let width = |c: char| {
        if ('\u{2E80}'..='\u{FFEF}').contains(&c) {
            2
        } else {
            1
        }
    };
    if text.chars().map(width).sum::<usize>() <= cells {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 1; // the ellipsis
    for c in text.chars() {
        used += width(c);
        if used > cells {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// Virtual milliseconds a revision takes to cross a lane in the drawing.
pub const TRAVEL_MS: u64 = 600;

/// How far along its lane the revision is drawn, 0 to 1, at `now_ms` for a write at `at_ms`.
pub fn progress(at_ms: u64, now_ms: u64) -> f64 {
    (now_ms.saturating_sub(at_ms) as f64 / TRAVEL_MS as f64).min(1.0)
}

fn class_of(r: Reach) -> &'static str {
    match r {
        Reach::Received(_) => "received",
        Reach::Filtered => "filtered",
        Reach::Skipped => "skipped",
        Reach::OtherResource => "other",
        Reach::OpenedLater => "later",
        Reach::Forgotten => "forgotten",
    }
}

fn reach_text(ctx: &Ctx, r: Reach) -> &'static str {
    match r {
        Reach::Received(_) => tr(ctx, T::Received),
        Reach::Filtered => tr(ctx, T::NotReceived),
        Reach::Skipped => tr(ctx, T::SkippedByIndex),
        Reach::OtherResource => tr(ctx, T::OtherResource),
        Reach::OpenedLater => tr(ctx, T::OpenedLater),
        Reach::Forgotten => tr(ctx, T::Outside),
    }
}

/// An informer's cache at the end of a lane: the revision it holds against the one shown.
#[derive(Clone, Copy)]
struct Cache {
    revision: u64,
}

fn lane_view(ctx: &Ctx, i: usize, lane: &Lane, t: f64, cache: Option<Cache>, shown: u64) -> Html {
    let y = TOP + i as u32 * LANE_H + LANE_H / 2;
    let main = lane.main_reach();
    let c = &lane.counts;
    let at = |x0: u32, x1: u32, f: f64| x0 as f64 + (x1 - x0) as f64 * f;
    // The packet: to the end for a receiver, to the gate for a refusal, nowhere for a skip.
    let packet = match main {
        Reach::Received(_) => Some(at(X0, X1, t)),
        Reach::Filtered => Some(at(X0, XG, (t * 2.0).min(1.0))),
        _ => None,
    };
    let stopped = main == Reach::Filtered && t >= 0.5;
    let arrived = matches!(main, Reach::Received(_)) && t >= 1.0;
    let counts = if lane.streams > 1 {
        fill(
            ctx,
            T::LaneCounts,
            &[
                &lane.streams.to_string(),
                &c.received.to_string(),
                &c.filtered.to_string(),
                &c.skipped.to_string(),
            ],
        )
    } else {
        reach_text(ctx, main).to_string()
    };
    let title = format!("{} — {} — {}", lane.subscriber, lane.watches, counts);
    let cache_mark = cache.map(|cache| {
        // Only a lane that received the revision has it on its way to the cache.
        let state = match (main, cache.revision >= shown) {
            (Reach::Received(_), true) => "cached",
            (Reach::Received(_), false) => "inflight",
            _ => "idle",
        };
        let label = fill(ctx, T::CacheAt, &[&cache.revision.to_string()]);
        html! {
            <rect class={classes!("cache", state)} x={(X1 + 2).to_string()} y={(y - 7).to_string()} width="10" height="14" rx="2">
                <title>{ label }</title>
            </rect>
        }
    });
    html! {
        <g class={classes!("lane", class_of(main), arrived.then_some("arrived"), stopped.then_some("stopped"))}
            data-stream={lane.stream.map(|s| s.to_string())} data-streams={lane.streams.to_string()}
            data-received={c.received.to_string()} data-filtered={c.filtered.to_string()}
            data-skipped={c.skipped.to_string()} data-other={c.other.to_string()}>
            <title>{ title }</title>
            <line class="track" x1={X0.to_string()} y1={y.to_string()} x2={X1.to_string()} y2={y.to_string()} />
            <line class="gate" x1={XG.to_string()} y1={(y - 8).to_string()} x2={XG.to_string()} y2={(y + 8).to_string()} />
            if let Some(x) = packet {
                <circle class="packet" cx={format!("{x:.1}")} cy={y.to_string()} r="5" />
            }
            if let (true, Some(ty)) = (arrived, lane.event_type) {
                <text class="event-type" x={(X1 - 4).to_string()} y={(y - 7).to_string()}>{ ty }</text>
            }
            if stopped {
                <text class="refused" x={(XG + 6).to_string()} y={(y + 4).to_string()}>{ "✕" }</text>
            }
            if main == Reach::Skipped {
                <text class="not-sent" x={(X0 + 4).to_string()} y={(y - 4).to_string()}>{ "⊘" }</text>
            }
            { cache_mark.unwrap_or_default() }
            <text class="subscriber" x={(X1 + 18).to_string()} y={(y - 2).to_string()}>{ &lane.subscriber }
                if lane.streams > 1 { <tspan class="count">{ format!(" ×{}", lane.streams) }</tspan> }
            </text>
            <text class="watches" x={(X1 + 18).to_string()} y={(y + 10).to_string()}>{ fit(&if lane.streams > 1 { format!("{} · {counts}", lane.watches) } else { lane.watches.clone() }, WATCHES_CELLS) }</text>
        </g>
    }
}

/// Whether the revision shown has gone through the cache's etcd watch.
fn watch_class(cache: Option<&CacherRow>, shown: u64) -> &'static str {
    match cache {
        Some(c) if c.watch != CacheWatch::Watching => "cut",
        Some(c) if c.has(shown) => "reached",
        Some(_) => "pending",
        None => "none",
    }
}

/// What the etcd watch's arrow says (its tooltip).
fn watch_text(ctx: &Ctx, cache: Option<&CacherRow>, shown: u64) -> String {
    match cache {
        Some(c) if c.watch != CacheWatch::Watching => {
            fill(ctx, T::EtcdWatchCut, &[c.resource, &state_text(ctx, c)])
        }
        Some(c) if c.has(shown) => {
            fill(ctx, T::EtcdWatchReached, &[&shown.to_string(), c.resource])
        }
        Some(c) => fill(ctx, T::EtcdWatchPending, &[&shown.to_string(), c.resource]),
        None => tr(ctx, T::NoCacheFor).to_string(),
    }
}

/// The watch cache's node: what it is, its resourceVersion, where its etcd watch stands, its
/// ring and the oldest revision a watch may start from, the objects it holds.
fn cache_node(ctx: &Ctx, cache: Option<&CacherRow>, etcd: u64) -> Html {
    let x = CACHE_X0 + 5;
    let line = |dy: u32, class: &'static str, text: String| {
        html! { <text class={class} x={x.to_string()} y={(CACHE_Y0 + dy).to_string()}>{ fit(&text, CACHE_CELLS) }</text> }
    };
    let Some(c) = cache else {
        return html! {
            <g class="cache-node none">
                <rect class="cacher" x={CACHE_X0.to_string()} y={CACHE_Y0.to_string()} width={(CACHE_X1 - CACHE_X0).to_string()} height={CACHE_H.to_string()} rx="4" />
                { line(16, "cache-label", tr(ctx, T::WatchCache).to_string()) }
                { line(34, "cache-none", tr(ctx, T::NoCacheFor).to_string()) }
            </g>
        };
    };
    let state = match c.watch {
        CacheWatch::Watching => fill(ctx, T::CacheNodeOn, &[&c.member]),
        CacheWatch::Rewatching { .. } => tr(ctx, T::CacheNodeRewatching).to_string(),
        CacheWatch::Reinitializing { .. } => tr(ctx, T::CacheNodeReinitializing).to_string(),
    };
    let title = [
        format!("{}: {}", tr(ctx, T::WatchCache), c.resource),
        state_text(ctx, c),
        fill(
            ctx,
            T::CacheRvOf,
            &[&c.revision.to_string(), &etcd.to_string()],
        ),
        fill(
            ctx,
            T::CacheWindowOf,
            &[&c.events.to_string(), &c.capacity.to_string()],
        ),
        fill(
            ctx,
            T::CacheWindowHint,
            &[
                &c.oldest.to_string(),
                &c.capacity.to_string(),
                &c.events_seen.to_string(),
            ],
        ),
        fill(ctx, T::CacheNodeObjects, &[&c.objects.to_string()]),
    ]
    .join(" · ");
    // The ring: how full it is (it grows when full of events younger than 75 s).
    let ring_w = (CACHE_X1 - CACHE_X0 - 10) as f64;
    let filled = if c.capacity == 0 {
        0.0
    } else {
        ring_w * (c.events.min(c.capacity) as f64 / c.capacity as f64)
    };
    html! {
        <g class={classes!("cache-node", c.watch.key(), c.behind(etcd).then_some("behind"))} data-via-cacher={c.resource}>
            <title>{ title }</title>
            <rect class="cacher" x={CACHE_X0.to_string()} y={CACHE_Y0.to_string()} width={(CACHE_X1 - CACHE_X0).to_string()} height={CACHE_H.to_string()} rx="4" />
            { line(16, "cache-label", tr(ctx, T::WatchCache).to_string()) }
            { line(34, "cache-resource", c.resource.to_string()) }
            { line(56, "cache-rv", fill(ctx, T::CacheNodeRv, &[&c.revision.to_string()])) }
            { line(74, "cache-state", state) }
            <rect class="ring" x={x.to_string()} y={(CACHE_Y0 + 88).to_string()} width={format!("{ring_w:.0}")} height="8" rx="2" />
            <rect class="ring-fill" x={x.to_string()} y={(CACHE_Y0 + 88).to_string()} width={format!("{filled:.1}")} height="8" rx="2" />
            { line(112, "cache-ring", fill(ctx, T::CacheNodeRing, &[&c.events.to_string(), &c.capacity.to_string()])) }
            { line(132, "cache-from", fill(ctx, T::CacheNodeFrom, &[&c.oldest.to_string()])) }
            { line(152, "cache-objects", fill(ctx, T::CacheNodeObjects, &[&c.objects.to_string()])) }
        </g>
    }
}

/// The etcd ledger's pages around the one shown, the etcd watch from the shown page to the
/// watch cache of its resource, and the API server's box with that cache in it.
fn source_view(
    ctx: &Ctx,
    pages: &[(u64, &'static str)],
    shown: u64,
    cache: Option<&CacherRow>,
    etcd: u64,
    height: u32,
) -> Html {
    let box_h = height.saturating_sub(TOP + 2).max(40).to_string();
    let page_y = |i: usize| TOP + 40 + i as u32 * PAGE_STEP;
    let from_y = pages
        .iter()
        .position(|(rev, _)| *rev == shown)
        .map_or(TOP + 40 + PAGE_H / 2, |i| page_y(i) + PAGE_H / 2);
    let class = watch_class(cache, shown);
    let member = cache.map(|c| c.member.clone()).unwrap_or_default();
    let (ax0, ax1) = (ETCD_X1 - 6, CACHE_X0);
    html! {
        <g class="server">
            <g class="etcd-box">
                <rect class="etcd" x="2" y={TOP.to_string()} width={(ETCD_X1 - 2).to_string()} height={box_h.clone()} rx="6" />
                <text class="ledger-name" x="8" y={(TOP + 16).to_string()}>{ fit(tr(ctx, T::EtcdLedger), 13) }</text>
                <text class="member-name" x="8" y={(TOP + 32).to_string()}>
                    <title>{ fill(ctx, T::EtcdWatchOn, &[&member]) }</title>{ fit(&member, 13) }</text>
                { for pages.iter().enumerate().map(|(i, (rev, verb))| {
                    let y = page_y(i);
                    html! {
                        <g class={classes!("page", (*rev == shown).then_some("shown"))}>
                            <rect x="8" y={y.to_string()} width={(ETCD_X1 - 14).to_string()} height={PAGE_H.to_string()} rx="2" />
                            <text x="12" y={(y + 14).to_string()}>{ fit(&format!("{rev} {verb}"), 12) }</text>
                        </g>
                    }
                }) }
            </g>
            <rect class="apiserver" x={API_X0.to_string()} y={TOP.to_string()} width={(API_X1 - API_X0).to_string()} height={box_h} rx="6" />
            <text class="server-name" x={(API_X0 + 6).to_string()} y={(TOP + 16).to_string()}>{ "kube-apiserver" }</text>
            <g class={classes!("etcd-watch", class)} data-watch={class}>
                <title>{ watch_text(ctx, cache, shown) }</title>
                <line x1={ax0.to_string()} y1={from_y.to_string()} x2={(ax1 - 4).to_string()} y2={from_y.to_string()} />
                <path d={format!("M{} {} l-6 -4 v8 z", ax1, from_y)} />
                if class == "cut" {
                    <text class="refused" x={(ax0 + 2).to_string()} y={(from_y - 4).to_string()}>{ "✕" }</text>
                }
            </g>
            { cache_node(ctx, cache, etcd) }
        </g>
    }
}

/// The cache's dispatch: from the cache node to where every lane starts.
fn dispatch_view(cache: Option<&CacherRow>, shown: u64, lanes: usize) -> Html {
    let mid = CACHE_Y0 + CACHE_H / 2;
    let first = TOP + LANE_H / 2;
    let last = TOP + (lanes.max(1) as u32 - 1) * LANE_H + LANE_H / 2;
    let class = watch_class(cache, shown);
    html! {
        <g class={classes!("dispatch", class)}>
            <line x1={CACHE_X1.to_string()} y1={mid.to_string()} x2={X0.to_string()} y2={mid.to_string()} />
            <line x1={X0.to_string()} y1={first.min(mid).to_string()} x2={X0.to_string()} y2={last.max(mid).to_string()} />
        </g>
    }
}

// Long on purpose: the figure in drawing order (its controls and summary, the lanes' SVG, the
// screen reader's list), from values computed off the frame just before its markup.
#[component]
pub fn FanOutDiagram() -> Html {
    let ctx = use_ctx();
    // What the frame read from the engine: nothing here reads the engine.
    let b = ctx.frame.broadcast.clone();
    let (shown, following, prev, next) = (b.shown, b.following, b.prev, b.next);
    let entry = b.entry.as_ref();
    let lanes = &b.lanes;
    // A held revision is drawn settled; the newest moves with the virtual clock.
    let t = match (entry, following) {
        (Some(en), true) => progress(en.time.as_millis(), ctx.frame.now.as_millis()),
        _ => 1.0,
    };
    let total = lanes.iter().fold(
        Default::default(),
        |mut acc: crate::fanout::FanOutCounts, l| {
            acc.received += l.counts.received;
            acc.filtered += l.counts.filtered;
            acc.skipped += l.counts.skipped;
            acc.other += l.counts.other;
            acc.later += l.counts.later;
            acc
        },
    );
    let height = TOP + (lanes.len().max(MIN_LANES) as u32) * LANE_H + 6;
    let cache = b.shown_cacher();
    let summary = match entry {
        Some(en) => fill(
            &ctx,
            T::FanOutSummary,
            &[
                &shown.to_string(),
                &format!("{} {}", en.verb, en.key()),
                &en.user,
                &total.received.to_string(),
                &total.filtered.to_string(),
                &total.skipped.to_string(),
                &total.other.to_string(),
            ],
        ),
        None => fill(&ctx, T::FanOutNotInLedger, &[&shown.to_string()]),
    };
    let go = {
        let ctx = ctx.clone();
        move |rev: Option<u64>| {
            let ctx = ctx.clone();
            Callback::from(move |_: MouseEvent| ctx.dispatch(Action::ShowFanOut(rev)))
        }
    };
    let onkeydown = {
        let ctx = ctx.clone();
        Callback::from(move |e: KeyboardEvent| {
            let target = match e.key().as_str() {
                "ArrowLeft" => prev.map(Some),
                "ArrowRight" => next.map(Some),
                "End" => Some(None),
                _ => None,
            };
            if let Some(rev) = target {
                e.prevent_default();
                ctx.dispatch(Action::ShowFanOut(rev));
            }
        })
    };
    let pause = if following {
        html! { <button id="fanout-pause" class="small" aria-pressed="false" onclick={go(Some(shown))}>{ tr(&ctx, T::Pause) }</button> }
    } else {
        html! { <button id="fanout-follow" class="small" aria-pressed="true" onclick={go(None)}>{ tr(&ctx, T::FanOutFollow) }</button> }
    };
    let cache_of = |lane: &Lane| {
        lane.stream
            .and_then(|id| b.cache_of(id))
            .map(|revision| Cache { revision })
    };
    html! {
        <figure class="fanout" id="fanout-diagram" tabindex="0" {onkeydown} aria-labelledby="fanout-summary"
            data-revision={shown.to_string()} data-following={following.to_string()}
            data-received={total.received.to_string()} data-filtered={total.filtered.to_string()}
            data-skipped={total.skipped.to_string()} data-other={total.other.to_string()}>
            <figcaption>
                <span class="controls">
                    { pause }
                    <button id="fanout-prev" class="small" disabled={prev.is_none()} onclick={go(prev)} aria-label={tr(&ctx, T::PrevRevision)}>{ "◀" }</button>
                    <button id="fanout-next" class="small" disabled={next.is_none()} onclick={go(next)} aria-label={tr(&ctx, T::NextRevision)}>{ "▶" }</button>
                </span>
                // Two lines at most (no jump as revisions pass); the whole in its tooltip.
                <span id="fanout-summary" class="summary-text" title={summary.clone()} aria-live={if following { "off" } else { "polite" }}>{ summary.clone() }</span>
            </figcaption>
            <div class="lanes-scroll">
                <svg viewBox={format!("0 0 {WIDTH} {height}")} width="100%" role="img" aria-label={summary} preserveAspectRatio="xMinYMin meet">
                    <text class="col" x={X0.to_string()} y="14">{ tr(&ctx, T::ColIndex) }</text>
                    <text class="col" x={(XG - 20).to_string()} y="14">{ tr(&ctx, T::ColFilter) }</text>
                    <text class="col" x={(X1 + 18).to_string()} y="14">{ tr(&ctx, T::ColSubscriber) }</text>
                    { source_view(&ctx, &b.pages, shown, cache, b.newest, height) }
                    { dispatch_view(cache, shown, lanes.len()) }
                    { for lanes.iter().enumerate().map(|(i, l)| lane_view(&ctx, i, l, t, cache_of(l), shown)) }
                </svg>
            </div>
            // The chain before the lanes: etcd member → its watch → the cache.
            <p class="sr-only">{ match cache {
                Some(c) => format!("{} → {} ({}): {}", c.member, tr(&ctx, T::WatchCache), fill(&ctx, T::CacheRvOf, &[&c.revision.to_string(), &b.newest.to_string()]), watch_text(&ctx, cache, shown)),
                None => tr(&ctx, T::NoCacheFor).to_string(),
            } }</p>
            <ul class="sr-only">
                { for lanes.iter().map(|l| html! { <li>{ format!("{} ({}): {}", l.subscriber, l.watches, reach_text(&ctx, l.main_reach())) }</li> }) }
            </ul>
        </figure>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_long_filter_is_cut_to_the_lane_with_an_ellipsis() {
        assert_eq!(fit("pods -n production", 45), "pods -n production");
        let long = "pods fieldSelector=status.phase!=Failed,status.phase!=Succeeded";
        let cut = fit(long, 45);
        assert_eq!(cut.chars().count(), 45);
        assert!(cut.ends_with('…') && long.starts_with(cut.trim_end_matches('…')));
        // A Chinese character takes two cells.
        assert_eq!(fit("pods · 1000 条流", 13), "pods · 1000 …");
        assert_eq!(fit("pods · 1000 条流", 16), "pods · 1000 条流");
        assert_eq!(fit("条流", 4), "条流");
        assert_eq!(fit("条流条", 4), "条…");
        assert_eq!(fit("", 0), "");
    }
}
