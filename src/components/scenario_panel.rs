//! The guided scenarios: pick one, read the narration, press Next to run its step (console
//! commands verbatim from the texts, actions, clock changes), until it is complete.

use super::{fill, tr, use_ctx};
use crate::i18n::{Lang, T};
use crate::scenario::SCENARIOS;
use crate::state::Action;
use yew::prelude::*;

#[component]
pub fn ScenarioPanel() -> Html {
    let ctx = use_ctx();
    let zh = ctx.lang == Lang::Zh;
    let send = |a: Action| {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(a.clone()))
    };
    let body = match ctx.progress {
        None => html! {
            <ul class="scenarios">
                { for SCENARIOS.iter().map(|s| html! {
                    <li><button id={format!("scenario-{}", s.id)} onclick={send(Action::StartScenario(s.id))}>
                        { if zh { s.title_zh } else { s.title_en } }</button></li>
                }) }
            </ul>
        },
        Some(p) => {
            let total = p.scenario.steps.len();
            let narration = p
                .scenario
                .steps
                .get(p.done.min(total).saturating_sub(usize::from(p.finished())))
                .map(|s| if zh { s.zh } else { s.en })
                .unwrap_or_default();
            html! {
                <div class="scenario" data-scenario={p.scenario.id} data-step={p.done.to_string()}>
                    <h4>{ if zh { p.scenario.title_zh } else { p.scenario.title_en } }</h4>
                    if p.finished() {
                        <p class="narration">{ narration }</p>
                        <p id="scenario-done" class="done">{ tr(&ctx, T::ScenarioDone) }</p>
                    } else {
                        <p class="muted">{ fill(&ctx, T::StepOf, &[&(p.done + 1).to_string(), &total.to_string()]) }</p>
                        <p id="narration" class="narration">{ narration }</p>
                    }
                    <div class="row">
                        if !p.finished() { <button id="scenario-next" onclick={send(Action::NextStep)}>{ tr(&ctx, T::Next) }</button> }
                        <button id="scenario-end" onclick={send(Action::EndScenario)}>{ tr(&ctx, T::Finish) }</button>
                    </div>
                </div>
            }
        }
    };
    html! {
        <section class="scenario-panel" aria-label={tr(&ctx, T::ScenariosTitle)}>
            <h3>{ tr(&ctx, T::ScenariosTitle) }</h3>
            { body }
        </section>
    }
}
