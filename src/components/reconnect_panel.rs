//! The second text's §7 risk of lost and duplicated events, side by side: a naive watcher that
//! reconnects without its last resourceVersion and an informer that resumes from it, on the pods
//! of `production`. The learner cuts their connection, writes (or compacts the ledger) while
//! they are away, and restores it; the engine ([`watchlab_engine::reconnect_comparison`]) counts
//! what each got twice and what each still misses against etcd.

use super::{fill, tr, use_ctx, Ctx};
use crate::i18n::T;
use crate::state::{Action, SEED_NAMESPACE};
use watchlab_engine::cluster::Action as ClusterAction;
use watchlab_engine::reconnect_comparison::Tally;
use yew::prelude::*;

fn act(ctx: &Ctx, a: ClusterAction) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Cluster(a.clone())))
}

fn missed_text(ctx: &Ctx, t: &Tally) -> (String, String) {
    match t.missed {
        Some(m) => (m.to_string(), m.to_string()),
        None => ("".into(), tr(ctx, T::NotYetKnown).to_string()),
    }
}

#[component]
pub fn ReconnectPanel() -> Html {
    let ctx = use_ctx();
    let view = ctx.frame.broadcast.reconnect.clone();
    let start = act(
        &ctx,
        ClusterAction::CompareReconnects {
            namespace: SEED_NAMESPACE.into(),
        },
    );
    let Some(v) = view else {
        return html! {
            <section class="reconnect" id="reconnect" aria-labelledby="reconnect-title">
                <h4 id="reconnect-title">{ tr(&ctx, T::ReconnectTitle) }</h4>
                <p class="hint">{ fill(&ctx, T::ReconnectIntro, &[SEED_NAMESPACE]) }</p>
                <button id="reconnect-start" onclick={start}>{ tr(&ctx, T::ReconnectStart) }</button>
            </section>
        };
    };
    let row = |label: T, id: &str, naive: (String, String), informer: (String, String)| {
        html! {
            <tr>
                <th scope="row">{ tr(&ctx, label) }</th>
                <td class="num" id={format!("naive-{id}")} data-value={naive.0}>{ naive.1 }</td>
                <td class="num" id={format!("informer-{id}")} data-value={informer.0}>{ informer.1 }</td>
            </tr>
        }
    };
    let n = |x: u64| (x.to_string(), x.to_string());
    let state = if v.connected {
        tr(&ctx, T::ReconnectConnected)
    } else {
        tr(&ctx, T::ReconnectCut)
    };
    html! {
        <section class="reconnect" id="reconnect" aria-labelledby="reconnect-title" data-connected={v.connected.to_string()}>
            <div class="reconnect-controls">
            <h4 id="reconnect-title">{ tr(&ctx, T::ReconnectTitle) }<span class={classes!("muted", (!v.connected).then_some("cut"))} id="reconnect-state">{ state }</span></h4>
            <div class="row">
                if v.connected {
                    <button id="reconnect-cut" onclick={act(&ctx, ClusterAction::CutWatchConnections)}>{ tr(&ctx, T::ReconnectCutButton) }</button>
                } else {
                    <button id="reconnect-restore" onclick={act(&ctx, ClusterAction::RestoreWatchConnections)}>{ tr(&ctx, T::ReconnectRestore) }</button>
                }
                <button id="reconnect-compact" onclick={act(&ctx, ClusterAction::CompactNow)}>{ tr(&ctx, T::CompactNow) }</button>
                <button id="reconnect-start" class="small" onclick={start}>{ tr(&ctx, T::ReconnectRestart) }</button>
            </div>
            <p class="hint">{ tr(&ctx, T::ReconnectHint) }</p>
            </div>
            <table class="reconnect-table">
                <thead><tr><th></th><th scope="col">{ tr(&ctx, T::NaiveWatcher) }</th><th scope="col">{ tr(&ctx, T::ResumingInformer) }</th></tr></thead>
                <tbody>
                    { row(T::TallyMissed, "missed", missed_text(&ctx, &v.naive), missed_text(&ctx, &v.informer)) }
                    { row(T::TallyDuplicates, "duplicates", n(v.naive.duplicates), n(v.informer.duplicates)) }
                    { row(T::TallyReceived, "received", n(v.naive.received), n(v.informer.received)) }
                    { row(T::TallyRelists, "relists", n(v.naive.relists), n(v.informer.relists)) }
                    { row(T::Tally410, "expired", n(v.naive.expired), n(v.informer.expired)) }
                    { row(T::TallyReconnects, "reconnects", n(v.naive.reconnects), n(v.informer.reconnects)) }
                    { row(T::TallyCached, "cached", (v.naive.cached.to_string(), fill(&ctx, T::CachedOf, &[&v.naive.cached.to_string(), &v.truth.to_string()])),
                        (v.informer.cached.to_string(), fill(&ctx, T::CachedOf, &[&v.informer.cached.to_string(), &v.truth.to_string()]))) }
                </tbody>
            </table>
        </section>
    }
}
