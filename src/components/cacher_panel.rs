//! The API server's watch caches, one row per resource: where its one etcd watch stands (on
//! which member, or rewatching, or reinitializing with 429s), the cache's resourceVersion
//! against etcd's revision (highlighted while its etcd watch is behind), the window of recent
//! events it serves watches from (the oldest resourceVersion a watch may start from, and how
//! full the ring is), the objects it holds and the client streams it feeds. Caches without a
//! stream or an event are listed only on request; the table has a fixed height and scrolls,
//! so rows appearing never move the view.
//!
//! Everything drawn comes from the frame ([`crate::state::Broadcast::cachers`]).

use super::{fill, tr, use_ctx, Ctx};
use crate::i18n::T;
use crate::state::{CacheWatch, CacherRow};
use yew::prelude::*;

/// The state cell's text: `Watching on etcd-0`, `Rewatching: …`, `Reinitializing: … — 429`.
pub fn state_text(ctx: &Ctx, c: &CacherRow) -> String {
    match &c.watch {
        CacheWatch::Watching => fill(ctx, T::CacheWatching, &[&c.member]),
        CacheWatch::Rewatching { error } => fill(ctx, T::CacheRewatching, &[error]),
        CacheWatch::Reinitializing { error } => fill(ctx, T::CacheReinitializing, &[error]),
    }
}

fn row(ctx: &Ctx, c: &CacherRow, etcd: u64, current: bool) -> Html {
    let behind = c.behind(etcd);
    let state = state_text(ctx, c);
    let state_title = if c.terminated > 0 {
        format!(
            "{state} · {}",
            fill(ctx, T::CacheTerminated, &[&c.terminated.to_string()])
        )
    } else {
        state.clone()
    };
    let rv_title = if behind {
        fill(
            ctx,
            T::CacheBehind,
            &[&c.delivered.to_string(), &etcd.to_string()],
        )
    } else {
        fill(ctx, T::CacheUpToDate, &[&etcd.to_string()])
    };
    let window_title = fill(
        ctx,
        T::CacheWindowHint,
        &[
            &c.oldest.to_string(),
            &c.capacity.to_string(),
            &c.events_seen.to_string(),
        ],
    );
    let key = c.watch.key();
    html! {
        <tr key={c.resource} data-cacher={c.resource} data-cacher-state={key}
            class={classes!(key, current.then_some("current"), behind.then_some("behind"))}>
            <td class="resource" title={c.resource}>{ c.resource }</td>
            <td class="cache-state" title={state_title}>{ state }</td>
            <td class="num cache-rv" data-rv={c.revision.to_string()} data-etcd={etcd.to_string()} data-delivered={c.delivered.to_string()} title={rv_title}>
                { fill(ctx, T::CacheRvOf, &[&c.revision.to_string(), &etcd.to_string()]) }</td>
            <td class="num cache-oldest" data-oldest={c.oldest.to_string()} title={window_title.clone()}>{ c.oldest }</td>
            <td class="num cache-window" data-events={c.events.to_string()} data-capacity={c.capacity.to_string()} title={window_title}>
                { fill(ctx, T::CacheWindowOf, &[&c.events.to_string(), &c.capacity.to_string()]) }</td>
            <td class="num cache-objects">{ c.objects }</td>
            <td class="num cache-streams">{ c.streams }</td>
        </tr>
    }
}

#[component]
pub fn CacherPanel() -> Html {
    let ctx = use_ctx();
    let show_idle = use_state(|| false);
    let b = ctx.frame.broadcast.clone();
    let etcd = b.newest;
    let current = b.shown_cacher().map(|c| c.resource);
    let idle = b.cachers.iter().filter(|c| !c.active()).count();
    let rows: Vec<Html> = b
        .cachers
        .iter()
        .filter(|c| *show_idle || c.active())
        .map(|c| row(&ctx, c, etcd, Some(c.resource) == current))
        .collect();
    let toggle = {
        let show_idle = show_idle.clone();
        Callback::from(move |_: Event| show_idle.set(!*show_idle))
    };
    let empty = rows.is_empty();
    html! {
        <section class="cachers" id="cachers" aria-labelledby="cachers-title" data-idle={idle.to_string()}>
            <h4>
                <span id="cachers-title" class="title" title={tr(&ctx, T::CachersHint)}>{ tr(&ctx, T::CachersTitle) }</span>
                <label class="inline idle-toggle">
                    <input type="checkbox" id="cachers-show-idle" checked={*show_idle} onchange={toggle} />
                    { fill(&ctx, T::CachersShowIdle, &[&idle.to_string()]) }
                </label>
            </h4>
            <div class="cachers-scroll">
                <table class="cachers-table">
                    <thead><tr>
                        <th class="c-resource" title={tr(&ctx, T::ColResource)}>{ tr(&ctx, T::ColResource) }</th>
                        <th class="c-state" title={tr(&ctx, T::ColCacheWatch)}>{ tr(&ctx, T::ColCacheWatch) }</th>
                        <th class="c-rv" title={tr(&ctx, T::ColCacheRv)}>{ tr(&ctx, T::ColCacheRv) }</th>
                        <th class="c-oldest" title={tr(&ctx, T::ColOldestServed)}>{ tr(&ctx, T::ColOldestServed) }</th>
                        <th class="c-window" title={tr(&ctx, T::ColWindow)}>{ tr(&ctx, T::ColWindow) }</th>
                        <th class="c-objects" title={tr(&ctx, T::ColObjects)}>{ tr(&ctx, T::ColObjects) }</th>
                        <th class="c-streams" title={tr(&ctx, T::ColStreams)}>{ tr(&ctx, T::ColStreams) }</th>
                    </tr></thead>
                    <tbody>
                        { for rows }
                        if empty { <tr class="empty"><td colspan="7" class="muted-cell">{ tr(&ctx, T::NoCachers) }</td></tr> }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
