//! The labs: pick one (built-in, or loaded from a file or `?lab=URL`), read each step's
//! narration, press Next to run it (console lines, actions, clock changes); a task step shows its
//! task and its checks, passing or not (`data-check`), with a hint and the solution on request,
//! and Next unlocks when every check passes.

use super::{fill, tr, use_ctx, Ctx};
use crate::i18n::T;
use crate::lab::run::describe;
use crate::state::{Action, Progress};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The message of a refused lab, in the page's language.
fn refusal(ctx: &Ctx) -> Option<String> {
    let (id, e) = ctx.lab_error.as_ref()?;
    Some(match (e.line, e.column) {
        (Some(l), Some(c)) => fill(
            ctx,
            T::LabRefusedAt,
            &[id, &l.to_string(), &c.to_string(), &e.reason],
        ),
        _ => fill(ctx, T::LabRefused, &[id, &e.reason]),
    })
}

/// The DOM id of a lab's button: built-in ids as they are, a loaded lab's name made safe.
fn button_id(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("scenario-{safe}")
}

#[component]
pub fn ScenarioPanel() -> Html {
    let ctx = use_ctx();
    let file_input = use_node_ref();
    let send = |a: Action| {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(a.clone()))
    };
    let on_pick = {
        let file_input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = file_input.cast::<HtmlInputElement>() {
                input.click();
            }
        })
    };
    let on_open = {
        let ctx = ctx.clone();
        Callback::from(move |e: Event| {
            let ctx = ctx.clone();
            super::read_picked_file(e, move |name, text| {
                ctx.dispatch(match text {
                    Ok(source) => Action::LoadLab { id: name, source },
                    Err(reason) => Action::LabUnavailable { id: name, reason },
                })
            });
        })
    };
    let refused = refusal(&ctx).map(|text| {
        html! {
            <p id="lab-error" class="error" role="alert">
                <span class="text">{ text }</span>
                <button class="small" onclick={send(Action::DismissLabError)}>{ tr(&ctx, T::Close) }</button>
            </p>
        }
    });
    let body = match &ctx.progress {
        None => html! {
            <>
                <ul class="scenarios">
                    { for ctx.labs.iter().map(|e| html! {
                        <li><button id={button_id(&e.id)} data-lab={e.id.clone()} onclick={send(Action::StartScenario(e.id.clone()))}>
                            { e.lab().title.get(ctx.lang) }</button></li>
                    }) }
                </ul>
                <div class="row">
                    <button id="lab-open" title={tr(&ctx, T::LabOpenHint)} onclick={on_pick}>{ tr(&ctx, T::LabOpen) }</button>
                    <input id="lab-file" ref={file_input} type="file" accept=".yaml,.yml,text/yaml" hidden=true
                        tabindex="-1" aria-label={tr(&ctx, T::LabOpenHint)} onchange={on_open} />
                </div>
            </>
        },
        Some(p) => progress_view(&ctx, p, &send),
    };
    html! {
        <section class="scenario-panel" aria-label={tr(&ctx, T::ScenariosTitle)}>
            <h3>{ tr(&ctx, T::ScenariosTitle) }</h3>
            { for refused }
            { body }
        </section>
    }
}

/// The lab in progress: where the learner is, the step's narration, an open task and its checks.
fn progress_view(ctx: &Ctx, p: &Progress, send: &dyn Fn(Action) -> Callback<MouseEvent>) -> Html {
    let lab = p.entry.lab();
    let total = lab.steps.len();
    let shown = p.shown_step();
    let step = lab.steps.get(shown);
    // A task step not yet entered and with nothing to say announces its task.
    let narration = step
        .and_then(|s| {
            s.say
                .as_ref()
                .or(s.task.as_ref().filter(|_| p.task.is_none()))
        })
        .map(|t| t.get(ctx.lang).to_string())
        .unwrap_or_default();
    let task = p.task.as_ref().zip(step).map(|(task, step)| {
        let checks = step.check.0.iter().enumerate().map(|(i, check)| {
            let result = task.results.get(i);
            let passed = result.is_some_and(|r| r.passed);
            let saw = result.map(|r| fill(ctx, T::LabSaw, &[&r.saw])).unwrap_or_default();
            html! {
                <li class={classes!("check", if passed { "pass" } else { "fail" })}
                    data-check={if passed { "pass" } else { "fail" }}>
                    <span class="mark">{ if passed { "✓ " } else { "✗ " } }</span>
                    <code>{ describe(check).trim_end_matches(':').to_string() }</code>
                    <span class="muted">{ " — " }{ saw }</span>
                </li>
            }
        });
        let status = if task.passed() { T::LabPassed } else { T::LabChecking };
        html! {
            <div class="task" id="lab-task" data-passed={task.passed().to_string()}>
                <h5>{ tr(ctx, T::LabTask) }</h5>
                <p class="task-text">{ step.task.as_ref().map(|t| t.get(ctx.lang).to_string()).unwrap_or_default() }</p>
                <ul class="checks">{ for checks }</ul>
                <p id="lab-status" class="muted">{ tr(ctx, status) }</p>
                <div class="row">
                    if step.hint.is_some() { <button id="lab-hint" class="small" onclick={send(Action::Reveal(false))}>{ tr(ctx, T::LabHint) }</button> }
                    if !step.solution.0.is_empty() { <button id="lab-solution" class="small" onclick={send(Action::Reveal(true))}>{ tr(ctx, T::LabSolution) }</button> }
                </div>
                if task.hint_shown {
                    <p id="lab-hint-text" class="hint">{ step.hint.as_ref().map(|t| t.get(ctx.lang).to_string()).unwrap_or_default() }</p>
                }
                if task.solution_shown {
                    <pre id="lab-solution-text" class="solution">{ step.solution.0.join("\n") }</pre>
                }
            </div>
        }
    });
    let blocked = p.task.as_ref().is_some_and(|t| !t.passed());
    html! {
        <div class="scenario" data-scenario={p.entry.id.clone()} data-step={p.done.to_string()} data-lab-step={shown.to_string()}>
            <h4>{ lab.title.get(ctx.lang) }</h4>
            if p.finished() {
                <p class="narration">{ narration }</p>
                <p id="scenario-done" class="done">{ tr(ctx, T::ScenarioDone) }</p>
            } else {
                <p class="muted">{ fill(ctx, T::StepOf, &[&(shown + 1).to_string(), &total.to_string()]) }</p>
                <p id="narration" class="narration">{ narration }</p>
                { for task }
            }
            <div class="row">
                if !p.finished() { <button id="scenario-next" disabled={blocked} onclick={send(Action::NextStep)}>{ tr(ctx, T::Next) }</button> }
                <button id="lab-restart" onclick={send(Action::RestartLab)}>{ tr(ctx, T::LabRestart) }</button>
                <button id="scenario-end" onclick={send(Action::EndScenario)}>{ tr(ctx, T::Finish) }</button>
            </div>
        </div>
    }
}
