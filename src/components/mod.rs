//! One component per file. Every component reads the shared [`Ctx`] (the page state) and
//! dispatches [`crate::state::Action`]s; none keeps semantics of its own.

pub mod actions_panel;
pub mod apiservers;
pub mod broadcast_view;
pub mod cacher_panel;
pub mod cluster_file;
pub mod cluster_view;
pub mod console_panel;
pub mod count_restart;
pub mod editor_panel;
pub mod etcd_faults;
pub mod etcd_panel;
pub mod events_view;
pub mod fanout_diagram;
pub mod header;
pub mod informers_view;
pub mod leader_election;
pub mod ledger_view;
pub mod node_column;
pub mod node_map;
pub mod reconnect_panel;
pub mod rules_view;
pub mod scenario_panel;
pub mod splitter;
pub mod tabs;
pub mod terminal;
pub mod timeline_view;
pub mod watch_cost;
pub mod window;

use crate::i18n::T;
use crate::state::State;
use yew::prelude::*;

/// The page state as every component receives it.
pub type Ctx = UseReducerHandle<State>;

/// The state from context (the App always provides it).
#[hook]
pub fn use_ctx() -> Ctx {
    match use_context::<Ctx>() {
        Some(c) => c,
        None => unreachable_ctx(),
    }
}

#[cold]
fn unreachable_ctx() -> ! {
    // Components are only ever mounted under App's ContextProvider.
    std::process::abort()
}

/// Fills an uncontrolled input once, when it mounts. (yew's `value=` on an `<input>` is
/// controlled: every render would reset what the learner typed.)
#[hook]
pub fn use_initial_value(node: NodeRef, value: String) {
    use_effect_with(node, move |node| {
        if let Some(input) = node.cast::<web_sys::HtmlInputElement>() {
            input.set_value(&value);
        }
    });
}

/// A text in the page's language.
pub fn tr(ctx: &Ctx, key: T) -> &'static str {
    key.tr(ctx.lang)
}

/// A button's click that performs a cluster action (the Actions tool's faults and writes).
pub fn on_click_do(ctx: &Ctx, action: watchlab_engine::cluster::Action) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_: MouseEvent| ctx.dispatch(crate::state::Action::Cluster(action.clone())))
}

/// A text with placeholders filled.
pub fn fill(ctx: &Ctx, key: T, args: &[&str]) -> String {
    key.fill(ctx.lang, args)
}

/// The file just picked in an `<input type=file>` (the input is cleared, so picking the same file
/// again fires `change` again), read as text in the background: `done(name, its text or why not)`.
pub fn read_picked_file(e: Event, done: impl FnOnce(String, Result<String, String>) + 'static) {
    let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() else {
        return;
    };
    let file = input.files().and_then(|f| f.get(0));
    input.set_value("");
    let Some(file) = file else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let read = wasm_bindgen_futures::JsFuture::from(file.text()).await;
        let text = match read.map(|t| t.as_string()) {
            Ok(Some(text)) => Ok(text),
            Ok(None) => Err("the file is not text".to_string()),
            Err(e) => Err(e.as_string().unwrap_or_else(|| format!("{e:?}"))),
        };
        done(file.name(), text);
    });
}
