//! The second text's other §7 risk, the cost of many watch connections, as the engine counts it:
//! how many streams are open, how many events the index offered them and how many they were
//! delivered or refused — against what offering every write to every stream would cost.

use super::{fill, tr, use_ctx};
use crate::i18n::T;
use yew::prelude::*;

#[component]
pub fn WatchCost() -> Html {
    let ctx = use_ctx();
    let b = ctx.frame.broadcast.clone();
    let streams = b.total as u64;
    let (delivered, filtered, offered, revisions) = (b.delivered, b.filtered, b.offers, b.newest);
    let everyone = streams.saturating_mul(revisions);
    let row = |id: &'static str, label: T, value: u64| {
        html! {
            <div class="cost-row"><dt>{ tr(&ctx, label) }</dt><dd class="num" id={id} data-value={value.to_string()}>{ value }</dd></div>
        }
    };
    html! {
        <section class="watch-cost" aria-labelledby="watch-cost-title">
            <h4 id="watch-cost-title">{ tr(&ctx, T::WatchCostTitle) }</h4>
            <dl>
                { row("cost-streams", T::CostStreams, streams) }
                { row("cost-delivered", T::CostDelivered, delivered) }
                { row("cost-filtered", T::CostFiltered, filtered) }
                { row("cost-offered", T::CostOffered, offered) }
            </dl>
            <p class="hint">{ fill(&ctx, T::CostEveryone, &[&streams.to_string(), &revisions.to_string(), &everyone.to_string()]) }</p>
        </section>
    }
}
