//! The kubectl terminal both pages share (the playground's console and live mode's): a
//! scrollback, an input line with ↑/↓ history, Enter to run, Ctrl-C (or Stop) to end a
//! followed `-w` stream, Clear, and the texts' commands one click away. The output is kubectl's
//! own (English), rendered as text only. What a line does is the owner's business: the
//! component only reports it through its callbacks.

use crate::console::{Line, LineKind};
use crate::i18n::{Lang, T};
use crate::seeds::SEED_COMMANDS;
use web_sys::{Element, HtmlInputElement};
use yew::prelude::*;

pub use crate::console::{visible, VISIBLE_LINES};
/// The localStorage key the wrap choice is remembered under.
pub const WRAP_KEY: &str = "watchlab.consoleWrap";

/// A step through the command history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// ↑: the previous command, if any.
    Previous,
    /// ↓: the next one (an empty line past the newest).
    Next,
}

#[derive(Properties, PartialEq)]
pub struct TerminalProps {
    pub lang: Lang,
    /// The newest lines (at most [`VISIBLE_LINES`]).
    pub lines: Vec<Line>,
    /// A `-w` stream is being followed.
    pub following: bool,
    pub on_command: Callback<String>,
    pub on_interrupt: Callback<()>,
    pub on_clear: Callback<()>,
    /// The history line to show for a step, `None` to leave the input as it is.
    pub on_history: Callback<History, Option<String>>,
}

// Long on purpose: a yew function component holds its hooks (wrap, scroll, history), its
// callbacks and its markup together; each piece is a few lines, read top down.
#[component]
pub fn Terminal(props: &TerminalProps) -> Html {
    let lang = props.lang;
    let input = use_node_ref();
    let output = use_node_ref();
    // Long lines scroll sideways by default (kubectl's tables keep their columns); Wrap folds
    // them into the console's width instead. Remembered.
    let wrap = use_state(|| {
        crate::local_storage()
            .and_then(|s| s.get_item(WRAP_KEY).ok().flatten())
            .is_some_and(|v| v == "1")
    });
    let on_wrap = {
        let wrap = wrap.clone();
        Callback::from(move |_: MouseEvent| {
            let next = !*wrap;
            if let Some(s) = crate::local_storage() {
                let _ = s.set_item(WRAP_KEY, if next { "1" } else { "0" });
            }
            wrap.set(next);
        })
    };
    {
        // Keep the newest line in view as output arrives.
        let output = output.clone();
        use_effect_with(props.lines.last().map(|l| l.id), move |_| {
            if let Some(el) = output.cast::<Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let run = {
        let input = input.clone();
        let on_command = props.on_command.clone();
        move || {
            if let Some(i) = input.cast::<HtmlInputElement>() {
                let line = i.value();
                i.set_value("");
                on_command.emit(line);
            }
        }
    };
    let onkeydown = {
        let input = input.clone();
        let run = run.clone();
        let on_history = props.on_history.clone();
        let on_interrupt = props.on_interrupt.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(i) = input.cast::<HtmlInputElement>() else {
                return;
            };
            let step = match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    run();
                    return;
                }
                "ArrowUp" => History::Previous,
                "ArrowDown" => History::Next,
                "c" | "C" if e.ctrl_key() => {
                    // With a selection, Ctrl-C copies as usual; otherwise it interrupts.
                    let selected =
                        i.selection_start().ok().flatten() != i.selection_end().ok().flatten();
                    if !selected {
                        e.prevent_default();
                        on_interrupt.emit(());
                    }
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            if let Some(line) = on_history.emit(step) {
                i.set_value(&line);
            }
        })
    };
    let on_run = Callback::from(move |_: MouseEvent| run());
    let on_stop = props.on_interrupt.reform(|_: MouseEvent| ());
    let on_clear = props.on_clear.reform(|_: MouseEvent| ());
    html! {
        <section class="console" aria-label={T::ConsoleTitle.tr(lang)}>
            <pre id="console-output" class={classes!("output", (*wrap).then_some("wrap"))} ref={output} tabindex="0" aria-live="polite">
                { for props.lines.iter().map(|l| {
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
                    aria-label={T::ConsoleInput.tr(lang)} placeholder={T::ConsoleHint.tr(lang)} {onkeydown} />
                <button id="console-run" onclick={on_run}>{ T::Run.tr(lang) }</button>
                <button id="console-stop" disabled={!props.following} onclick={on_stop}>{ T::Stop.tr(lang) }</button>
                <button id="console-clear" onclick={on_clear}>{ T::Clear.tr(lang) }</button>
                <button id="console-wrap" class="small" aria-pressed={wrap.to_string()} title={T::WrapLinesHint.tr(lang)} onclick={on_wrap}>{ T::WrapLines.tr(lang) }</button>
            </div>
            <p class="hint">
                if props.following { <span id="following" class="badge live">{ T::Following.tr(lang) }</span> }
                { T::ConsoleHint.tr(lang) }
            </p>
            <details class="examples">
                <summary>{ T::Examples.tr(lang) }</summary>
                { for SEED_COMMANDS.iter().map(|c| {
                    let onclick = props.on_command.reform(move |_: MouseEvent| (*c).to_string());
                    html! { <button class="example" {onclick}>{ *c }</button> }
                }) }
            </details>
        </section>
    }
}
