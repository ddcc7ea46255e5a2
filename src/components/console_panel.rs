//! The kubectl console: a scrollback, an input line with ↑/↓ history, Enter to run, Ctrl-C
//! (or Stop) to end a followed `-w` stream, and the texts' commands one click away. The output
//! is kubectl's own (English), rendered as text only.

use super::{tr, use_ctx};
use crate::console::LineKind;
use crate::i18n::T;
use crate::seeds::SEED_COMMANDS;
use crate::state::Action;
use web_sys::{Element, HtmlInputElement};
use yew::prelude::*;

/// Scrollback lines drawn (the newest).
pub const VISIBLE_LINES: usize = 400;

#[component]
pub fn ConsolePanel() -> Html {
    let ctx = use_ctx();
    let input = use_node_ref();
    let output = use_node_ref();
    let (lines, following, last_id) = {
        let e = ctx.engine.borrow();
        let all = e.console.lines();
        let skip = all.len().saturating_sub(VISIBLE_LINES);
        let lines: Vec<_> = all.iter().skip(skip).cloned().collect();
        (lines, e.console.following(), all.back().map(|l| l.id))
    };
    {
        // Keep the newest line in view as output arrives.
        let output = output.clone();
        use_effect_with(last_id, move |_| {
            if let Some(el) = output.cast::<Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let run = {
        let ctx = ctx.clone();
        let input = input.clone();
        move || {
            if let Some(i) = input.cast::<HtmlInputElement>() {
                let line = i.value();
                i.set_value("");
                ctx.dispatch(Action::Command(line));
            }
        }
    };
    let onkeydown = {
        let ctx = ctx.clone();
        let input = input.clone();
        let run = run.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(i) = input.cast::<HtmlInputElement>() else {
                return;
            };
            match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    run();
                }
                "ArrowUp" => {
                    e.prevent_default();
                    if let Some(l) = ctx.history_prev() {
                        i.set_value(&l);
                    }
                }
                "ArrowDown" => {
                    e.prevent_default();
                    i.set_value(&ctx.history_next());
                }
                "c" | "C" if e.ctrl_key() => {
                    // With a selection, Ctrl-C copies as usual; otherwise it interrupts.
                    let selected =
                        i.selection_start().ok().flatten() != i.selection_end().ok().flatten();
                    if !selected {
                        e.prevent_default();
                        ctx.dispatch(Action::Interrupt);
                    }
                }
                _ => {}
            }
        })
    };
    let on_run = {
        let run = run.clone();
        Callback::from(move |_: MouseEvent| run())
    };
    let on_stop = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Interrupt))
    };
    let on_clear = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::ClearConsole))
    };
    html! {
        <section class="console" aria-label={tr(&ctx, T::ConsoleTitle)}>
            <pre id="console-output" class="output" ref={output} tabindex="0" aria-live="polite">
                { for lines.iter().map(|l| {
                    let class = match l.kind {
                        LineKind::Input => "in",
                        LineKind::Stdout => "out",
                        LineKind::Stderr => "err",
                        LineKind::Note => "note",
                    };
                    html! { <div key={l.id} class={class}>{ &l.text }</div> }
                }) }
            </pre>
            <div class="prompt">
                <span class="ps1" aria-hidden="true">{ "$" }</span>
                <input id="console-input" ref={input} type="text" spellcheck="false" autocomplete="off"
                    aria-label={tr(&ctx, T::ConsoleInput)} placeholder={tr(&ctx, T::ConsoleHint)} {onkeydown} />
                <button id="console-run" onclick={on_run}>{ tr(&ctx, T::Run) }</button>
                <button id="console-stop" disabled={!following} onclick={on_stop}>{ tr(&ctx, T::Stop) }</button>
                <button id="console-clear" onclick={on_clear}>{ tr(&ctx, T::Clear) }</button>
            </div>
            <p class="hint">
                if following { <span id="following" class="badge live">{ tr(&ctx, T::Following) }</span> }
                { tr(&ctx, T::ConsoleHint) }
            </p>
            <details class="examples">
                <summary>{ tr(&ctx, T::Examples) }</summary>
                { for SEED_COMMANDS.iter().map(|c| {
                    let ctx = ctx.clone();
                    let onclick = Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Command((*c).to_string())));
                    html! { <button class="example" {onclick}>{ *c }</button> }
                }) }
            </details>
        </section>
    }
}
