//! The header: the ledger's revision and virtual time, the clock controls (pause, step, speed,
//! seed + restart), the cluster file (export, import, save notice) and the language switch.

use super::cluster_file::ClusterFile;
use super::{tr, use_ctx, use_initial_value};
use crate::clock::Speed;
use crate::i18n::T;
use crate::state::{format_time, Action, Frame};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[component]
pub fn Header() -> Html {
    let ctx = use_ctx();
    let seed_input = use_node_ref();
    use_initial_value(seed_input.clone(), ctx.seed.to_string());
    let Frame {
        revision,
        now,
        paused,
        speed,
        next_timer: next,
        behind,
        ..
    } = *ctx.frame;
    let dispatch = |a: Action| {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(a.clone()))
    };
    let on_restart = {
        let ctx = ctx.clone();
        let input = seed_input.clone();
        Callback::from(move |_: MouseEvent| {
            let seed = input
                .cast::<HtmlInputElement>()
                .and_then(|i| i.value().trim().parse::<u64>().ok())
                .unwrap_or(ctx.seed);
            ctx.dispatch(Action::Restart(seed));
        })
    };
    let next_title = match next {
        Some(t) => format!("{} → {}", tr(&ctx, T::StepHint), format_time(t)),
        None => tr(&ctx, T::NoTimer).to_string(),
    };
    html! {
        <header>
            <h1>{ "watchlab" }<small>{ tr(&ctx, T::Tagline) }</small></h1>
            <div class="meter" title={tr(&ctx, T::Revision)}>
                <span class="label">{ tr(&ctx, T::Revision) }</span>
                <span id="revision" class="value">{ revision }</span>
            </div>
            <div class="meter" title={tr(&ctx, T::VirtualTime)}>
                <span class="label">{ tr(&ctx, T::VirtualTime) }</span>
                <span id="clock" class="value" data-ms={now.as_millis().to_string()}>{ format_time(now) }</span>
            </div>
            <div class="clock-controls" role="group" aria-label={tr(&ctx, T::VirtualTime)}>
                <button id="pause" aria-pressed={paused.to_string()} onclick={dispatch(Action::SetPaused(!paused))}>
                    { if paused { tr(&ctx, T::Resume) } else { tr(&ctx, T::Pause) } }
                </button>
                <button id="step" title={next_title} onclick={dispatch(Action::Step)}>{ tr(&ctx, T::Step) }</button>
                <span class="label">{ tr(&ctx, T::Speed) }</span>
                { for Speed::ALL.iter().map(|s| html! {
                    <button id={format!("speed-{}", s.factor())} class={classes!("speed", (*s == speed).then_some("selected"))}
                        aria-pressed={(*s == speed).to_string()} onclick={dispatch(Action::SetSpeed(*s))}>{ s.label() }</button>
                }) }
                // Always in the layout (hidden when not needed) so the header never moves.
                <span id="behind" class={classes!("badge", "behind", (!behind || paused).then_some("idle"))}
                    title={tr(&ctx, T::EngineBehindHint)} aria-hidden={(!behind || paused).to_string()}>
                    { tr(&ctx, T::EngineBehind) }</span>
            </div>
            <div class="seed">
                <label for="seed">{ tr(&ctx, T::Seed) }</label>
                <input id="seed" ref={seed_input} type="number" min="0" />
                <button id="restart" onclick={on_restart}>{ tr(&ctx, T::Restart) }</button>
            </div>
            <ClusterFile />
            <button id="lang" class="lang" title={tr(&ctx, T::LanguageHint)} onclick={dispatch(Action::SetLang(ctx.lang.other()))}>
                { tr(&ctx, T::Language) }
            </button>
        </header>
    }
}
