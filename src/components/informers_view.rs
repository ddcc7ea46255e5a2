//! Each component's informer cache against the ledger: the revision it has seen, the ledger's,
//! the lag between them, and how often it had to relist (410 Gone after a compaction). An
//! informer whose list went back in time (below a revision its component had reached: the
//! engine's time-travel checker) is marked, with the objects it saw again after their deletion.

use super::{fill, tr, use_ctx};
use crate::i18n::T;
use yew::prelude::*;

#[component]
pub fn InformersView() -> Html {
    let ctx = use_ctx();
    let informers = &ctx.frame.informers;
    html! {
        <div class="informers-view">
            <h3>{ tr(&ctx, T::InformersTitle) }</h3>
            if informers.is_empty() { <p class="muted" id="no-informers">{ tr(&ctx, T::NoInformers) }</p> } else {
            <table class="informers">
                <thead><tr>
                    <th>{ tr(&ctx, T::ColComponent) }</th><th>{ tr(&ctx, T::ColResource) }</th>
                    <th>{ tr(&ctx, T::ColCache) }</th><th>{ tr(&ctx, T::ColLatest) }</th><th>{ tr(&ctx, T::ColLag) }</th>
                    <th>{ tr(&ctx, T::ColRelists) }</th><th>{ tr(&ctx, T::Col410) }</th>
                </tr></thead>
                <tbody>
                { for informers.iter().map(|i| {
                    let lag = i.latest_revision.saturating_sub(i.cache_revision);
                    // An SVG bar, not a style attribute: the page's CSP refuses inline styles.
                    let width = (lag.min(50) * 2).to_string();
                    let went_back = i.went_back.as_ref().map(|f| {
                        let mut text = fill(&ctx, T::WentBack, &[&f.listed.to_string(), &f.apiserver, &f.reached.to_string()]);
                        if !f.resurrected.is_empty() {
                            text.push_str("; ");
                            text.push_str(&fill(&ctx, T::SeenAgain, &[&f.resurrected.join(", ")]));
                        }
                        text
                    });
                    html! {
                        <>
                        <tr data-informer={format!("{}/{}", i.component, i.resource)} data-went-back={i.went_back.as_ref().map(|f| f.listed.to_string())}>
                            <td class="writer" title={i.component.clone()}>{ &i.component }</td><td title={i.resource.clone()}>{ &i.resource }</td>
                            <td class="num">{ i.cache_revision }</td><td class="num">{ i.latest_revision }</td>
                            <td class="num lag"><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect width={width} height="10" /></svg>{ lag }</td>
                            <td class="num">{ i.relists }</td><td class="num">{ i.expired }</td>
                        </tr>
                        if let Some(text) = went_back {
                            <tr class="went-back"><td colspan="7">{ "↶ " }{ text }</td></tr>
                        }
                        </>
                    }
                }) }
                </tbody>
            </table>
            }
        </div>
    }
}
