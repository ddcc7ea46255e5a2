//! The faults a trainer causes on the etcd members: kill and restore a member's process, cut
//! every link of one (isolate) or between ticked members and the rest (partition), heal the
//! links, and hand the leadership to a member (`etcdctl move-leader`).

use std::collections::BTreeSet;

use super::{tr, use_ctx};
use crate::i18n::T;
use watchlab_engine::cluster::Action as ClusterAction;
use watchlab_engine::etcd::Role;
use yew::prelude::*;

#[component]
pub fn EtcdFaults() -> Html {
    let ctx = use_ctx();
    let picked = use_state(BTreeSet::<String>::new);
    let act = |a: ClusterAction| super::on_click_do(&ctx, a);
    let toggle = |name: String| {
        let picked = picked.clone();
        Callback::from(move |_: Event| {
            let mut next = (*picked).clone();
            if !next.remove(&name) {
                next.insert(name.clone());
            }
            picked.set(next);
        })
    };
    let etcd = &ctx.frame.etcd;
    let group: Vec<String> = picked.iter().cloned().collect();
    let whole = etcd.network_whole();
    html! {
        <fieldset>
            <legend>{ tr(&ctx, T::EtcdFailures) }</legend>
            { for etcd.members.iter().map(|m| {
                let m = &m.member;
                let name = m.name.clone();
                html! {
                    <div class="row" data-etcd-controls={name.clone()}>
                        <label class="check"><input type="checkbox" id={format!("pick-{name}")}
                            checked={picked.contains(&name)} onchange={toggle(name.clone())} />{ &m.name }</label>
                        <button id={format!("kill-{name}")} disabled={!m.is_alive()} onclick={act(ClusterAction::KillEtcdMember(name.clone()))}>{ tr(&ctx, T::Kill) }</button>
                        <button id={format!("restore-{name}")} disabled={m.is_alive()} onclick={act(ClusterAction::RestoreEtcdMember(name.clone()))}>{ tr(&ctx, T::Restore) }</button>
                        <button id={format!("isolate-{name}")} disabled={m.isolated} onclick={act(ClusterAction::IsolateEtcdMember(name.clone()))}>{ tr(&ctx, T::Isolate) }</button>
                        <button id={format!("rejoin-{name}")} disabled={whole} onclick={act(ClusterAction::HealEtcd(Some(name.clone())))}>{ tr(&ctx, T::Rejoin) }</button>
                        <button id={format!("lead-{name}")} disabled={m.role == Role::Leader || !m.is_alive()} onclick={act(ClusterAction::MoveEtcdLeader(name.clone()))}>{ tr(&ctx, T::MoveLeaderHere) }</button>
                    </div>
                }
            }) }
            <div class="row">
                <button id="etcd-partition" disabled={group.is_empty() || group.len() >= etcd.members.len()}
                    onclick={act(ClusterAction::PartitionEtcd(group.clone()))}>{ tr(&ctx, T::PartitionPicked) }</button>
                <button id="etcd-heal" disabled={whole} onclick={act(ClusterAction::HealEtcd(None))}>{ tr(&ctx, T::HealNetwork) }</button>
            </div>
        </fieldset>
    }
}
