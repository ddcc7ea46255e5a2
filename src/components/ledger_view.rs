//! The ledger as a ledger: one line per revision, newest first — the revision, the verb and
//! when, the etcd key written (`/registry/pods/production/…`, the name whole), the writer, and
//! what the write changed against the object's previous version (`metadata.labels.team: +
//! orders`), as the engine computes it ([`LedgerEntry::changes`]). Each line is clickable to
//! show the object as it was at that revision. The table scrolls in a window: only the lines in
//! view are drawn.

use super::actions_panel::server_error;
use super::window::{VirtualTable, Window};
use super::{fill, tr, use_ctx, Ctx};
use crate::i18n::T;
use crate::inspect::Inspected;
use crate::state::{format_time, Action};
use watchlab_engine::apiserver::LedgerEntry;
use yew::prelude::*;

/// A ledger line's height in CSS pixels: two lines (`table.ledger tr` in style.css).
pub const ROW_PX: u32 = 44;
/// Changes spelled out on a line; the rest are counted (all of them are in its tooltip).
const CHANGES_SHOWN: usize = 3;

/// The line's second row: what the write changed.
fn diff_cell(ctx: &Ctx, l: &LedgerEntry) -> Html {
    let changes = l.changes();
    if changes.is_empty() {
        let text = match (&l.before, &l.after) {
            (None, Some(_)) => tr(ctx, T::DiffNew),
            (Some(_), None) => tr(ctx, T::DiffGone),
            _ => tr(ctx, T::DiffNone),
        };
        return html! { <div class="diff none" data-changes="0">{ text }</div> };
    }
    let all: Vec<String> = changes.iter().map(ToString::to_string).collect();
    let more = all.len().saturating_sub(CHANGES_SHOWN);
    html! {
        <div class="diff" data-changes={all.len().to_string()} title={all.join("\n")}>
            { for all.iter().take(CHANGES_SHOWN).map(|c| html! { <span class="change">{ c }</span> }) }
            if more > 0 { <span class="more-changes">{ fill(ctx, T::DiffMore, &[&more.to_string()]) }</span> }
        </div>
    }
}

/// The line at `position` (0 is the newest). Keyed by its position, not its revision: a new
/// revision rewrites the rows in view in place instead of moving every one down by a line (a
/// layout shift on each write; see [`super::window`]).
fn ledger_row(
    ctx: &Ctx,
    position: usize,
    l: &LedgerEntry,
    selected: Option<u64>,
    compacted: u64,
) -> Html {
    let rev = l.revision;
    let onclick = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Inspect(rev)))
    };
    // The key's directory gives way first; the name (its distinguishing end) stays whole.
    let key = l.key();
    let dir = key.strip_suffix(l.name()).unwrap_or_default();
    let name = if dir.is_empty() {
        key.as_str()
    } else {
        l.name()
    };
    let object = if l.resource.contains('/') {
        format!("{key} ({})", l.resource)
    } else {
        key.clone()
    };
    html! {
        <tr key={position} class={classes!("entry", (selected == Some(rev)).then_some("selected"), (rev < compacted).then_some("compacted"))} data-rev={rev.to_string()} data-key={key.clone()}>
            <td class="num"><button class="link" {onclick} aria-label={fill(ctx, T::ObjectAt, &[&object, &rev.to_string()])}>{ rev }</button></td>
            <td class={classes!("verb", l.verb)}><div>{ l.verb }</div><div class="time num">{ format_time(l.time) }</div></td>
            <td class="object" title={object.clone()}>
                <div class="ends key"><span class="head">{ dir }</span><span class="tail">{ name }</span>
                    if l.resource.contains('/') { <span class="sub">{ format!(" {}", l.resource) }</span> }
                </div>
                { diff_cell(ctx, l) }
            </td>
            <td class="writer" title={l.user.to_string()}>{ l.user.to_string() }</td>
        </tr>
    }
}

#[component]
pub fn LedgerView() -> Html {
    let ctx = use_ctx();
    // What the frame read from the engine: nothing here reads the engine.
    let (lines, compacted) = (ctx.frame.ledger.clone(), ctx.frame.compacted);
    let total = lines.len();
    let render = {
        let ctx = ctx.clone();
        Callback::from(move |w: Window| {
            let selected = ctx.inspection.as_ref().map(|i| i.revision);
            let rows: Vec<Html> = lines
                .iter()
                .rev()
                .skip(w.first)
                .take(w.len())
                .enumerate()
                .map(|(i, l)| ledger_row(&ctx, w.first + i, l, selected, compacted))
                .collect();
            html! { <>{ for rows }</> }
        })
    };
    let head = html! {
        <tr>
            <th class="c-rev">{ tr(&ctx, T::ColRevision) }</th><th class="c-verb">{ format!("{} · {}", tr(&ctx, T::ColVerb), tr(&ctx, T::ColTime)) }</th>
            <th class="c-object">{ format!("{} · {}", tr(&ctx, T::ColKey), tr(&ctx, T::ColChange)) }</th><th class="c-writer">{ tr(&ctx, T::ColWriter) }</th>
        </tr>
    };
    let inspecting = ctx.inspection.is_some();
    html! {
        <div class={classes!("ledger-view", inspecting.then_some("split"))}>
            <div class="pane">
                <h3>{ tr(&ctx, T::LedgerTitle) }
                    <span class="muted" id="ledger-count" data-count={total.to_string()}>{ fill(&ctx, T::LedgerLines, &[&total.to_string()]) }</span>
                    if compacted > 0 { <span class="muted">{ fill(&ctx, T::CompactedAt, &[&compacted.to_string()]) }</span> }
                </h3>
                <p class="hint">{ tr(&ctx, T::ClickToInspect) }</p>
                <VirtualTable class="ledger" {total} row_px={ROW_PX} {head} columns={4} {render} label={tr(&ctx, T::LedgerTitle)} />
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
