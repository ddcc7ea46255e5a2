//! The playground's kubectl console: the shared [`Terminal`] wired to the in-tab engine.

use super::terminal::{History, Terminal};
use super::use_ctx;
use crate::state::Action;
use yew::prelude::*;

#[component]
pub fn ConsolePanel() -> Html {
    let ctx = use_ctx();
    let (lines, following) = (ctx.frame.console.clone(), ctx.frame.following);
    let on_command = {
        let ctx = ctx.clone();
        Callback::from(move |line: String| ctx.dispatch(Action::Command(line)))
    };
    let on_interrupt = {
        let ctx = ctx.clone();
        Callback::from(move |()| ctx.dispatch(Action::Interrupt))
    };
    let on_clear = {
        let ctx = ctx.clone();
        Callback::from(move |()| ctx.dispatch(Action::ClearConsole))
    };
    let lang = ctx.lang;
    let on_history = Callback::from(move |step: History| match step {
        History::Previous => ctx.history_prev(),
        History::Next => Some(ctx.history_next()),
    });
    html! {
        <Terminal {lang} {lines} {following} {on_command} {on_interrupt} {on_clear} {on_history} />
    }
}
