//! watchlab's browser app: a yew UI that drives the engine (`watchlab_engine`) from outside.
//! The engine holds every semantic; the app only turns clicks and console lines into engine
//! actions and API requests, and renders what the engine reports.
//!
//! The pure parts (state, console, clock driver, i18n, scenarios, inspection) are plain Rust
//! tested natively; `components` are the yew views over them.
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod clock;
pub mod components;
pub mod console;
pub mod etcd_console;
pub mod fanout;
pub mod i18n;
pub mod inspect;
pub mod lab;
pub mod live;
pub mod scenario;
pub mod seeds;
pub mod state;
pub mod view;

use components::actions_panel::ActionsPanel;
use components::broadcast_view::BroadcastView;
use components::cluster_view::ClusterView;
use components::console_panel::ConsolePanel;
use components::editor_panel::EditorPanel;
use components::events_view::EventsView;
use components::header::Header;
use components::informers_view::InformersView;
use components::ledger_view::LedgerView;
use components::scenario_panel::ScenarioPanel;
use components::tabs::Tabs;
use components::{tr, Ctx};
use gloo_timers::callback::Interval;
use i18n::{Lang, T};
use state::{Action, FileNotice, State, Tool};
use view::View;
use yew::prelude::*;

/// The seed every fresh playground starts from (a run is reproducible from it).
pub const DEFAULT_SEED: u64 = 7;
/// Real milliseconds between two polls of live mode's API server.
pub const TICK_MS: u32 = 100;
/// Real milliseconds between two slices of engine work in the playground (about one display
/// frame): each slice works at most [`state::FRAME_BUDGET_MS`], and the views are redrawn at
/// most every [`state::REDRAW_EVERY_MS`] while only the clock moves.
pub const SLICE_MS: u32 = 16;

pub(crate) fn stored_lang() -> Lang {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(i18n::STORAGE_KEY).ok().flatten())
        .and_then(|c| Lang::from_code(&c))
        .unwrap_or_default()
}

pub(crate) fn remember_lang(lang: Lang) {
    let window = web_sys::window();
    if let Some(s) = window
        .as_ref()
        .and_then(|w| w.local_storage().ok().flatten())
    {
        let _ = s.set_item(i18n::STORAGE_KEY, lang.code());
    }
    if let Some(html) = window
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = html.set_attribute("lang", lang.code());
    }
}

/// The page's localStorage, if the browser gives one.
pub(crate) fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn stored_cluster() -> Option<String> {
    local_storage().and_then(|s| s.get_item(state::SAVE_KEY).ok().flatten())
}

/// When the cluster was last saved: real time and the learner's action count.
struct SaveMark {
    at_ms: f64,
    user_actions: u64,
}

/// Saves the cluster after every learner action and at most every [`state::SAVE_EVERY_MS`]
/// otherwise; a save that cannot be made leaves the old one and shows why.
fn save_if_due(state: &UseReducerHandle<State>, mark: &mut SaveMark) {
    let now = performance_now();
    if state.user_actions == mark.user_actions && now - mark.at_ms < state::SAVE_EVERY_MS {
        return;
    }
    mark.at_ms = now;
    mark.user_actions = state.user_actions;
    let problem = match state.save_text() {
        Ok(text) => match local_storage() {
            Some(s) => s
                .set_item(state::SAVE_KEY, &text)
                .err()
                .map(|e| FileNotice::SaveFailed(e.as_string().unwrap_or_else(|| format!("{e:?}")))),
            None => None,
        },
        Err(p) => Some(p),
    };
    let shown_save_problem = matches!(
        state.file_notice,
        Some(FileNotice::SaveFailed(_) | FileNotice::SaveTooLarge { .. })
    );
    match problem {
        Some(p) if state.file_notice.as_ref() != Some(&p) => {
            state.dispatch(Action::Notify(Some(p)))
        }
        None if shown_save_problem => state.dispatch(Action::Notify(None)),
        _ => {}
    }
}

/// The page's monotonic real clock (`performance.now()`), in milliseconds. Native runs (the
/// tests) have no browser: it reads 0, so a frame budget measured on it never runs out there.
pub(crate) fn performance_now() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.performance())
            .map(|p| p.now())
            .unwrap_or(0.0)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}

/// The text at `url` (same origin), or why not.
async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    let message = |e: wasm_bindgen::JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(message)?;
    let response: web_sys::Response = response.dyn_into().map_err(message)?;
    if !response.ok() {
        return Err(format!(
            "HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let text = wasm_bindgen_futures::JsFuture::from(response.text().map_err(message)?)
        .await
        .map_err(message)?;
    text.as_string()
        .ok_or_else(|| "the response is not text".into())
}

/// The root component.
#[component]
pub fn App() -> Html {
    let state =
        use_reducer(|| State::restore(DEFAULT_SEED, stored_lang(), stored_cluster().as_deref()));
    {
        let state = state.clone();
        let mark = use_mut_ref(|| SaveMark {
            at_ms: performance_now(),
            user_actions: 0,
        });
        use_effect_with(state.version, move |_| {
            save_if_due(&state, &mut mark.borrow_mut())
        });
    }
    {
        // The engine runs on the browser's event loop: each tick advances virtual time by the
        // real time elapsed × speed (capped per frame), within a budget, and never blocks.
        let state = state.clone();
        use_effect_with((), move |_| {
            let interval = Interval::new(SLICE_MS, move || {
                state.dispatch(Action::Tick(performance_now()))
            });
            move || drop(interval)
        });
    }
    {
        // `?lab=URL`: fetch the lab and load it (or resume it, after a reload).
        let state = state.clone();
        use_effect_with((), move |_| {
            let search = web_sys::window()
                .and_then(|w| w.location().search().ok())
                .unwrap_or_default();
            match scenario::requested(&search) {
                Some(Ok(url)) => wasm_bindgen_futures::spawn_local(async move {
                    let action = match fetch_text(&url).await {
                        Ok(source) => Action::LoadLab { id: url, source },
                        Err(reason) => Action::LabUnavailable { id: url, reason },
                    };
                    state.dispatch(action);
                }),
                Some(Err(url)) => state.dispatch(Action::LabUnavailable {
                    id: url,
                    reason: "only a path on this page's own server can be loaded".into(),
                }),
                None => {}
            }
        });
    }
    use_effect_with(state.lang, |lang| remember_lang(*lang));
    html! {
        <ContextProvider<Ctx> context={state.clone()}>
            <Header />
            <main>
                <ViewsPane />
                <components::splitter::Splitter lang={state.lang} />
                <ToolsPane />
            </main>
        </ContextProvider<Ctx>>
    }
}

#[component]
fn ViewsPane() -> Html {
    let ctx = components::use_ctx();
    let tabs: Vec<_> = View::ALL
        .iter()
        .map(|v| (v.id(), tr(&ctx, v.label())))
        .collect();
    let on_select = {
        let ctx = ctx.clone();
        Callback::from(move |id: &'static str| {
            if let Some(v) = View::ALL.iter().find(|v| v.id() == id) {
                ctx.dispatch(Action::Show(*v));
            }
        })
    };
    let body = match ctx.view {
        View::Cluster => html! { <ClusterView /> },
        View::Ledger => html! { <LedgerView /> },
        View::Broadcast => html! { <BroadcastView /> },
        View::Informers => html! { <InformersView /> },
        View::Events => html! { <EventsView /> },
        View::Timeline => html! { <components::timeline_view::TimelineView /> },
        View::Rules => html! { <components::rules_view::RulesView /> },
    };
    html! {
        <section class="views">
            <Tabs {tabs} selected={ctx.view.id()} label={tr(&ctx, T::Views)} {on_select} />
            <div class="view" role="tabpanel" id={format!("view-{}", ctx.view.id())}>{ body }</div>
        </section>
    }
}

#[component]
fn ToolsPane() -> Html {
    let ctx = components::use_ctx();
    let tabs: Vec<_> = Tool::ALL
        .iter()
        .map(|t| (t.id(), tr(&ctx, t.label())))
        .collect();
    let on_select = {
        let ctx = ctx.clone();
        Callback::from(move |id: &'static str| {
            if let Some(t) = Tool::ALL.iter().find(|t| t.id() == id) {
                ctx.dispatch(Action::ShowTool(*t));
            }
        })
    };
    // The console stays mounted (hidden) so its input keeps what was typed.
    html! {
        <section class="tools" id="tools-pane">
            if ctx.progress.is_some() && ctx.tool != Tool::Scenarios { <ScenarioPanel /> }
            <Tabs {tabs} selected={ctx.tool.id()} label={tr(&ctx, T::Tools)} {on_select} />
            <div class="tool" role="tabpanel" id={format!("tool-{}", ctx.tool.id())}>
                <div hidden={ctx.tool != Tool::Console}><ConsolePanel /></div>
                {
                    match ctx.tool {
                        Tool::Console => html! {},
                        Tool::Actions => html! { <ActionsPanel /> },
                        Tool::Scenarios => html! { <ScenarioPanel /> },
                        Tool::Editor => html! { <EditorPanel /> },
                    }
                }
            </div>
        </section>
    }
}

/// Mounts the app on the page's body: the in-tab engine, or with `?live` the live mode over
/// the API server of the page's origin ([`live`]).
pub fn run() {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    match live::requested(&search) {
        Some(request) => {
            let props = live::app::Props {
                request,
                lang: stored_lang(),
            };
            yew::Renderer::<live::app::LiveApp>::with_props(props).render();
        }
        None => {
            yew::Renderer::<App>::new().render();
        }
    }
}
