//! The live page: the playground's layout (header, views, tools) over a real API server,
//! driven by the live state ([`super::state::LiveState`]) that a browser interval ticks.

use gloo_timers::callback::Interval;
use yew::prelude::*;

use super::state::{use_live, LiveAction, LiveCtx, LiveState};
use super::texts::L;
use super::views;
use crate::components::tabs::Tabs;
use crate::i18n::{Lang, T};
use crate::state::Tool;
use crate::view::View;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The API base path, or the refused `?live=` value.
    pub request: Result<String, String>,
    pub lang: Lang,
}

/// The live page's root.
#[component]
pub fn LiveApp(props: &Props) -> Html {
    let state = {
        let request = props.request.clone();
        let lang = props.lang;
        use_reducer(move || {
            let base = request.clone().unwrap_or_default();
            let client = Box::new(super::http_client::HttpClient::new(&base));
            let mut s = LiveState::new(client, &base, lang);
            s.refused = request.err();
            s
        })
    };
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            let interval = Interval::new(crate::TICK_MS, move || {
                state.dispatch(LiveAction::Tick(crate::performance_now()))
            });
            move || drop(interval)
        });
    }
    use_effect_with(state.lang, |lang| crate::remember_lang(*lang));
    html! {
        <ContextProvider<LiveCtx> context={state.clone()}>
            <LiveHeader />
            <main class="live">
                <ViewsPane />
                <crate::components::splitter::Splitter lang={state.lang} />
                <ToolsPane />
            </main>
        </ContextProvider<LiveCtx>>
    }
}

#[component]
fn LiveHeader() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let (rv, synced, problem) = (
        ctx.frame.latest_resource_version,
        ctx.frame.synced,
        ctx.frame.problem.clone(),
    );
    let origin = if ctx.base.is_empty() {
        L::ThisOrigin.tr(lang).to_string()
    } else {
        ctx.base.clone()
    };
    let (status_class, status) = match (&ctx.refused, problem) {
        (Some(v), _) => ("error", L::Refused.fill(lang, &[v])),
        (None, Some(p)) => ("error", L::ServerError.fill(lang, &[&p])),
        (None, None) if synced => ("ok", L::Connected.tr(lang).to_string()),
        (None, None) => ("", L::Connecting.tr(lang).to_string()),
    };
    let toggle = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(LiveAction::SetLang(lang.other())))
    };
    html! {
        <header>
            <h1><span class="name">{ "watchlab" }</span><small title={T::Tagline.tr(lang)}>{ T::Tagline.tr(lang) }</small></h1>
            <span id="live-badge" class="badge live" title={L::LiveHint.fill(lang, &[&origin])}>{ L::Live.tr(lang) }</span>
            <div class="meter" title={L::LatestRv.tr(lang)}>
                <span class="label">{ L::LatestRv.tr(lang) }</span>
                <span id="revision" class="value">{ rv }</span>
            </div>
            <p id="live-status" class={classes!("result", status_class)}>{ status }</p>
            <p class="hint" id="live-no-clock">{ L::NoClock.tr(lang) }</p>
            <button id="lang" class="lang" title={T::LanguageHint.tr(lang)} onclick={toggle}>{ T::Language.tr(lang) }</button>
        </header>
    }
}

#[component]
fn ViewsPane() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let tabs: Vec<_> = View::ALL
        .iter()
        .map(|v| (v.id(), v.label().tr(lang)))
        .collect();
    let on_select = {
        let ctx = ctx.clone();
        Callback::from(move |id: &'static str| {
            if let Some(v) = View::ALL.iter().find(|v| v.id() == id) {
                ctx.dispatch(LiveAction::Show(*v));
            }
        })
    };
    let body = match ctx.view {
        View::Cluster => html! { <views::ClusterView /> },
        View::Ledger => html! { <views::Unavailable id="ledger" text={L::NoLedger} /> },
        View::Broadcast => html! { <views::StreamsView /> },
        View::Informers => html! { <views::Unavailable id="informers" text={L::NoInformers} /> },
        View::Events => html! { <views::EventsView /> },
        View::Timeline => html! { <views::Unavailable id="timeline" text={L::NoTimeline} /> },
        View::Rules => html! { <views::Unavailable id="rules" text={L::NoRules} /> },
    };
    html! {
        <section class="views">
            <Tabs {tabs} selected={ctx.view.id()} label={T::Views.tr(lang)} {on_select} />
            <div class="view" role="tabpanel" id={format!("view-{}", ctx.view.id())}>{ body }</div>
        </section>
    }
}

#[component]
fn ToolsPane() -> Html {
    let ctx = use_live();
    let lang = ctx.lang;
    let tabs: Vec<_> = Tool::ALL
        .iter()
        .map(|t| (t.id(), t.label().tr(lang)))
        .collect();
    let on_select = {
        let ctx = ctx.clone();
        Callback::from(move |id: &'static str| {
            if let Some(t) = Tool::ALL.iter().find(|t| t.id() == id) {
                ctx.dispatch(LiveAction::ShowTool(*t));
            }
        })
    };
    // The console stays mounted (hidden) so its input keeps what was typed.
    html! {
        <section class="tools" id="tools-pane">
            <Tabs {tabs} selected={ctx.tool.id()} label={T::Tools.tr(lang)} {on_select} />
            <div class="tool" role="tabpanel" id={format!("tool-{}", ctx.tool.id())}>
                <div hidden={ctx.tool != Tool::Console}><views::ConsolePanel /></div>
                {
                    match ctx.tool {
                        Tool::Console => html! {},
                        Tool::Actions => html! { <views::Unavailable id="actions" text={L::NoActions} /> },
                        Tool::Scenarios => html! { <views::Unavailable id="scenarios" text={L::NoScenarios} /> },
                        Tool::Editor => html! { <views::Unavailable id="editor" text={L::NoEditor} /> },
                    }
                }
            </div>
        </section>
    }
}
