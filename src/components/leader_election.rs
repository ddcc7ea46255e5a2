//! The control plane's leader election in the Actions tool: each replica of kube-scheduler and
//! kube-controller-manager with its role (leads, candidate, paused, or believing it leads while
//! the Lease names another), Pause and Resume, a Restart with another number of replicas, and
//! the writes a leader made after it lost its Lease — refused with 409 or landed.

use super::{fill, tr, use_ctx};
use crate::i18n::T;
use watchlab_engine::cluster::{Action as ClusterAction, ReplicaRole};
use yew::prelude::*;

#[component]
pub fn LeaderElection() -> Html {
    let ctx = use_ctx();
    let act = |a: ClusterAction| super::on_click_do(&ctx, a);
    html! {
        <fieldset id="leader-election">
            <legend>{ tr(&ctx, T::ControlPlaneReplicas) }</legend>
            <p class="hint">{ tr(&ctx, T::ControlPlaneReplicasHint) }</p>
            { for ctx.frame.replicas.iter().map(|r| {
                let name = r.name.clone();
                let stale = r.role == ReplicaRole::Leading && !r.holds_lease;
                let (state, label) = match (r.paused, r.role, stale) {
                    (true, _, _) => ("paused", tr(&ctx, T::ReplicaPaused)),
                    (false, ReplicaRole::Leading, true) => ("stale", tr(&ctx, T::ReplicaStale)),
                    (false, ReplicaRole::Leading, false) => ("leading", tr(&ctx, T::ReplicaLeads)),
                    (false, ReplicaRole::Candidate, _) => ("candidate", tr(&ctx, T::ReplicaWaits)),
                };
                html! {
                    <div class="row replica" data-replica={name.clone()} data-state={state} title={r.identity.clone()}>
                        <span class="name">{ &r.name }</span>
                        <span class={classes!("badge", state)}>{ label }</span>
                        if r.restarts > 0 {
                            <span class="hint">{ fill(&ctx, T::ReplicaRestarts, &[&r.restarts.to_string()]) }</span>
                        }
                        <button id={format!("pause-{name}")} disabled={r.paused} onclick={act(ClusterAction::PauseComponent(name.clone()))}>{ tr(&ctx, T::PauseReplica) }</button>
                        <button id={format!("resume-{name}")} disabled={!r.paused} onclick={act(ClusterAction::ResumeComponent(name.clone()))}>{ tr(&ctx, T::ResumeReplica) }</button>
                    </div>
                }
            }) }
            <super::count_restart::CountRestart select_id="controller-replicas" button_id="restart-replicas" label={T::ReplicasOfEach}
                current={ctx.size.controller_replicas} of={super::count_restart::Counted::ControllerReplicas} />
            if !ctx.frame.stale_writes.is_empty() {
                <h4>{ tr(&ctx, T::StaleWrites) }</h4>
                <p class="hint">{ tr(&ctx, T::StaleWritesHint) }</p>
                <ul class="stale-writes">
                    { for ctx.frame.stale_writes.iter().map(|w| html! {
                        <li data-stale-write={w.replica.clone()} data-refused={w.revision.is_none().to_string()}>
                            <span class="name">{ &w.replica }</span>{ " " }
                            <span class="user">{ &*w.user }</span>{ " " }
                            <code>{ format!("{} {}", w.verb, w.key) }</code>{ " " }
                            <span class={classes!("badge", if w.revision.is_none() { "refused" } else { "landed" })}>
                                { match w.revision {
                                    None => tr(&ctx, T::StaleRefused).to_string(),
                                    Some(rev) => fill(&ctx, T::StaleLanded, &[&rev.to_string()]),
                                } }
                            </span>
                        </li>
                    }) }
                </ul>
            }
        </fieldset>
    }
}
