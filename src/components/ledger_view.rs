//! The ledger: the current revision and every write it keeps — revision, verb, object, writer
//! and virtual time, newest first — each clickable to show the object as it was at that
//! revision. The table scrolls in a window: only the lines in view are drawn.

use super::actions_panel::server_error;
use super::window::{VirtualTable, Window};
use super::{fill, tr, use_ctx};
use crate::i18n::T;
use crate::inspect::Inspected;
use crate::state::{format_time, Action};
use yew::prelude::*;

/// A ledger line's height in CSS pixels (`table.ledger tr` in style.css).
pub const ROW_PX: u32 = 26;

#[component]
pub fn LedgerView() -> Html {
    let ctx = use_ctx();
    let (total, compacted) = {
        let e = ctx.engine.borrow();
        let api = e.cluster.api();
        (api.ledger().len(), api.store().compact_revision())
    };
    let render = {
        let ctx = ctx.clone();
        Callback::from(move |w: Window| {
            let e = ctx.engine.borrow();
            let selected = ctx.inspection.as_ref().map(|i| i.revision);
            let rows: Vec<Html> = e
                .cluster
                .api()
                .ledger()
                .iter()
                .rev()
                .skip(w.first)
                .take(w.len())
                .map(|l| {
                    let rev = l.revision;
                    let onclick = {
                        let ctx = ctx.clone();
                        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Inspect(rev)))
                    };
                    let prefix = if l.namespace.is_empty() {
                        format!("{}/", l.resource)
                    } else {
                        format!("{}/{}/", l.resource, l.namespace)
                    };
                    let object = format!("{prefix}{}", l.name);
                    html! {
                        <tr key={rev} class={classes!("entry", (selected == Some(rev)).then_some("selected"), (rev < compacted).then_some("compacted"))} data-rev={rev.to_string()}>
                            <td class="num"><button class="link" {onclick} aria-label={fill(&ctx, T::ObjectAt, &[&object, &rev.to_string()])}>{ rev }</button></td>
                            <td class={classes!("verb", l.verb)}>{ l.verb }</td>
                            <td class="object" title={object.clone()}><div class="ends"><span class="head">{ prefix }</span><span class="tail">{ &l.name }</span></div></td>
                            <td class="writer" title={l.user.to_string()}>{ l.user.to_string() }</td>
                            <td class="num">{ format_time(l.time) }</td>
                        </tr>
                    }
                })
                .collect();
            html! { <>{ for rows }</> }
        })
    };
    let head = html! {
        <tr>
            <th class="c-rev">{ tr(&ctx, T::ColRevision) }</th><th class="c-verb">{ tr(&ctx, T::ColVerb) }</th>
            <th class="c-object">{ tr(&ctx, T::ColObject) }</th><th class="c-writer">{ tr(&ctx, T::ColWriter) }</th><th class="c-time">{ tr(&ctx, T::ColTime) }</th>
        </tr>
    };
    html! {
        <div class="ledger-view split">
            <div class="pane">
                <h3>{ tr(&ctx, T::LedgerTitle) }
                    <span class="muted" id="ledger-count" data-count={total.to_string()}>{ fill(&ctx, T::LedgerLines, &[&total.to_string()]) }</span>
                    if compacted > 0 { <span class="muted">{ fill(&ctx, T::CompactedAt, &[&compacted.to_string()]) }</span> }
                </h3>
                <p class="hint">{ tr(&ctx, T::ClickToInspect) }</p>
                <VirtualTable class="ledger" {total} row_px={ROW_PX} {head} columns={5} {render} label={tr(&ctx, T::LedgerTitle)} />
            </div>
            <InspectionPane />
        </div>
    }
}

/// The object viewer beside the ledger.
#[component]
pub fn InspectionPane() -> Html {
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
