//! The header: the ledger's revision and virtual time, the clock controls (pause, step, speed,
//! seed, cluster size + restart), the cluster file (export, import, save notice) and the
//! language switch.

use super::cluster_file::ClusterFile;
use super::{tr, use_ctx, use_initial_value};
use crate::clock::Speed;
use crate::i18n::T;
use crate::state::{format_time, Action, ClusterSize, Frame, NODE_SIZES};
use web_sys::HtmlInputElement;
use yew::prelude::*;

// Long on purpose: the header's meters and controls (revision, clock, pause and step, seed,
// size, restart, language), each a callback and its markup, in the order they are drawn.
#[component]
pub fn Header() -> Html {
    let ctx = use_ctx();
    let seed_input = use_node_ref();
    use_initial_value(seed_input.clone(), ctx.seed.to_string());
    let (nodes_input, replicas_input) = (use_node_ref(), use_node_ref());
    {
        // The fields show the cluster's size whenever it changes (restart, import, restore);
        // a refused size leaves what was typed for the learner to correct.
        let (nodes, replicas) = (nodes_input.clone(), replicas_input.clone());
        use_effect_with(ctx.size, move |size: &ClusterSize| {
            for (field, value) in [(nodes, size.nodes), (replicas, size.replicas as usize)] {
                if let Some(input) = field.cast::<HtmlInputElement>() {
                    input.set_value(&value.to_string());
                }
            }
        });
    }
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
        let (nodes, replicas) = (nodes_input.clone(), replicas_input.clone());
        Callback::from(move |_: MouseEvent| {
            let seed = input
                .cast::<HtmlInputElement>()
                .and_then(|i| i.value().trim().parse::<u64>().ok())
                .unwrap_or(ctx.seed);
            let text = |r: &NodeRef| {
                r.cast::<HtmlInputElement>()
                    .map(|i| i.value())
                    .unwrap_or_default()
            };
            ctx.dispatch(Action::Restart {
                seed,
                nodes: text(&nodes),
                replicas: text(&replicas),
            });
        })
    };
    let next_title = match next {
        Some(t) => format!("{} → {}", tr(&ctx, T::StepHint), format_time(t)),
        None => tr(&ctx, T::NoTimer).to_string(),
    };
    html! {
        <header>
            <h1><span class="name">{ "watchlab" }</span><small title={tr(&ctx, T::Tagline)}>{ tr(&ctx, T::Tagline) }</small></h1>
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
                // One short label for both fields (the header has no room for two); each field
                // names itself to assistive technology and in its tooltip.
                <label for="nodes" title={tr(&ctx, T::SizeHint)}>{ tr(&ctx, T::Size) }</label>
                // Text, not number: what was typed reaches the check as typed, and is named in
                // the message if it is not a number.
                <input id="nodes" class="size" ref={nodes_input} type="text" inputmode="numeric" list="node-sizes"
                    aria-label={tr(&ctx, T::Nodes)} title={format!("{} — {}", tr(&ctx, T::Nodes), tr(&ctx, T::SizeHint))} />
                <datalist id="node-sizes">
                    { for NODE_SIZES.iter().map(|n| html! { <option value={n.to_string()} /> }) }
                </datalist>
                <span class="times" aria-hidden="true">{ "×" }</span>
                <input id="replicas" class="size replicas" ref={replicas_input} type="text" inputmode="numeric"
                    aria-label={tr(&ctx, T::Replicas)} title={format!("{} — {}", tr(&ctx, T::Replicas), tr(&ctx, T::SizeHint))} />
                <button id="restart" onclick={on_restart}>{ tr(&ctx, T::Restart) }</button>
                if let Some(e) = &ctx.size_error {
                    <p id="size-error" class="size-error" role="alert">
                        { e.text(ctx.lang) }
                        <button class="small" onclick={dispatch(Action::DismissSizeError)}>{ tr(&ctx, T::Close) }</button>
                    </p>
                }
            </div>
            <ClusterFile />
            <button id="lang" class="lang" title={tr(&ctx, T::LanguageHint)} onclick={dispatch(Action::SetLang(ctx.lang.other()))}>
                { tr(&ctx, T::Language) }
            </button>
        </header>
    }
}
