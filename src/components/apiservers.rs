//! The kube-apiserver instances in the Actions tool: each with its health (serving, its caches
//! frozen, stopped) and how many clients the load balancer gave it; Cut, Stop and Restore; and a
//! Restart with another number of instances — the faults behind informers going back in time.

use super::{fill, tr, use_ctx, Ctx};
use crate::i18n::T;
use watchlab_engine::apiserver::instance::Health;
use watchlab_engine::cluster::Action as ClusterAction;
use yew::prelude::*;

/// An instance's health as its `data-state` and badge say it (here and in the Broadcast view's
/// lanes).
pub fn health_label(ctx: &Ctx, health: Health) -> (&'static str, &'static str) {
    match health {
        Health::Serving => ("serving", tr(ctx, T::ApiserverServing)),
        Health::Cut => ("cut", tr(ctx, T::ApiserverCut)),
        Health::Stopped => ("stopped", tr(ctx, T::ApiserverStopped)),
    }
}

#[component]
pub fn ApiServers() -> Html {
    let ctx = use_ctx();
    let act = |a: ClusterAction| super::on_click_do(&ctx, a);
    html! {
        <fieldset id="apiservers">
            <legend>{ tr(&ctx, T::ApiServers) }</legend>
            <p class="hint">{ tr(&ctx, T::ApiServersHint) }</p>
            { for ctx.frame.apiservers.iter().map(|s| {
                let name = s.name.clone();
                let (state, label) = health_label(&ctx, s.health);
                let several = ctx.frame.apiservers.len() > 1;
                html! {
                    <div class="row apiserver" data-apiserver={name.clone()} data-state={state}>
                        <span class="name">{ &s.name }</span>
                        <span class={classes!("badge", state)}>{ label }</span>
                        <span class="hint">{ fill(&ctx, T::ApiserverClients, &[&s.clients.to_string()]) }</span>
                        <button id={format!("cut-{name}")} disabled={!several || s.health != Health::Serving}
                            onclick={act(ClusterAction::CutApiserver(name.clone()))}>{ tr(&ctx, T::CutApiserver) }</button>
                        <button id={format!("stop-{name}")} disabled={!several || s.health == Health::Stopped}
                            onclick={act(ClusterAction::StopApiserver(name.clone()))}>{ tr(&ctx, T::StopApiserver) }</button>
                        <button id={format!("restore-{name}")} disabled={s.health == Health::Serving}
                            onclick={act(ClusterAction::RestoreApiserver(name.clone()))}>{ tr(&ctx, T::RestoreApiserver) }</button>
                    </div>
                }
            }) }
            <super::count_restart::CountRestart select_id="apiserver-count" button_id="restart-apiservers" label={T::ApiServerCount}
                current={ctx.size.apiservers} of={super::count_restart::Counted::Apiservers} />
        </fieldset>
    }
}
