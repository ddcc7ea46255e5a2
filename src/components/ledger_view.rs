//! The ledger: the current revision and the last writes — revision, verb, object, writer and
//! virtual time — each clickable to show the object as it was at that revision.

use super::actions_panel::server_error;
use super::{fill, tr, use_ctx};
use crate::i18n::T;
use crate::inspect::Inspected;
use crate::state::{format_time, Action};
use yew::prelude::*;

/// Ledger lines drawn (newest first); the rest are counted.
pub const MAX_ROWS: usize = 80;

#[component]
pub fn LedgerView() -> Html {
    let ctx = use_ctx();
    let e = ctx.engine.borrow();
    let api = e.cluster.api();
    let ledger = api.ledger();
    let selected = ctx.inspection.as_ref().map(|i| i.revision);
    let compacted = api.store().compact_revision();
    let rows = ledger.iter().rev().take(MAX_ROWS).map(|l| {
        let rev = l.revision;
        let onclick = {
            let ctx = ctx.clone();
            Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Inspect(rev)))
        };
        let object = if l.namespace.is_empty() {
            format!("{}/{}", l.resource, l.name)
        } else {
            format!("{}/{}/{}", l.resource, l.namespace, l.name)
        };
        html! {
            <tr key={rev} class={classes!("entry", (selected == Some(rev)).then_some("selected"), (rev < compacted).then_some("compacted"))} data-rev={rev.to_string()}>
                <td class="num"><button class="link" {onclick} aria-label={fill(&ctx, T::ObjectAt, &[&object, &rev.to_string()])}>{ rev }</button></td>
                <td class={classes!("verb", l.verb)}>{ l.verb }</td>
                <td class="object">{ object }</td>
                <td class="writer">{ l.user.to_string() }</td>
                <td class="num">{ format_time(l.time) }</td>
            </tr>
        }
    });
    let shown = ledger.len().min(MAX_ROWS);
    html! {
        <div class="ledger-view split">
            <div class="pane">
                <h3>{ tr(&ctx, T::LedgerTitle) }
                    <span class="muted">{ fill(&ctx, T::ShowingLast, &[&shown.to_string(), &ledger.len().to_string()]) }</span>
                    if compacted > 0 { <span class="muted">{ fill(&ctx, T::CompactedAt, &[&compacted.to_string()]) }</span> }
                </h3>
                <p class="hint">{ tr(&ctx, T::ClickToInspect) }</p>
                <div class="scroll">
                <table class="ledger">
                    <thead><tr>
                        <th>{ tr(&ctx, T::ColRevision) }</th><th>{ tr(&ctx, T::ColVerb) }</th>
                        <th>{ tr(&ctx, T::ColObject) }</th><th>{ tr(&ctx, T::ColWriter) }</th><th>{ tr(&ctx, T::ColTime) }</th>
                    </tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
                </div>
            </div>
            <InspectionPane />
        </div>
    }
}

/// The object viewer beside the ledger.
#[component]
fn InspectionPane() -> Html {
    let ctx = use_ctx();
    let Some(i) = ctx.inspection.clone() else {
        return html! {};
    };
    let close = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::CloseInspection))
    };
    let body = match &i.outcome {
        Inspected::Object(json) => html! { <pre class="json">{ json }</pre> },
        Inspected::Deleted(json) => {
            html! { <><p class="muted">{ tr(&ctx, T::Deleted) }</p><pre class="json">{ json }</pre></> }
        }
        Inspected::Refused {
            code,
            reason,
            message,
        } => html! {
            <pre class="error" data-code={code.to_string()}>{ server_error(reason, message) }</pre>
        },
    };
    html! {
        <aside class="pane inspection" id="inspection" aria-live="polite">
            <h3>{ fill(&ctx, T::ObjectAt, &[&i.title, &i.revision.to_string()]) }
                <button class="small" id="close-inspection" onclick={close}>{ tr(&ctx, T::Close) }</button></h3>
            <div class="scroll">{ body }</div>
        </aside>
    }
}
