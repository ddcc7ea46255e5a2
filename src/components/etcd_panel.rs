//! The etcd members: who leads, the Raft term, and whether a majority (quorum) is alive —
//! without one, every write fails while reads are still served.

use super::{tr, use_ctx};
use crate::i18n::T;
use watchlab_engine::etcd_cluster::Role;
use yew::prelude::*;

#[component]
pub fn EtcdPanel() -> Html {
    let ctx = use_ctx();
    let etcd = &ctx.frame.etcd;
    let ok = etcd.can_commit();
    let summary = format!(
        "{} {} · {} {}/{} · {} {}",
        tr(&ctx, T::Term),
        etcd.term(),
        tr(&ctx, T::Alive),
        etcd.alive(),
        etcd.members().len(),
        tr(&ctx, T::Quorum),
        etcd.quorum()
    );
    html! {
        <section class="etcd" aria-label={tr(&ctx, T::EtcdMembers)}>
            <h3>{ tr(&ctx, T::EtcdMembers) }<span class="muted">{ summary }</span></h3>
            <div class="members">
            { for etcd.members().iter().map(|m| {
                let (class, role) = match m.role {
                    Role::Leader => ("leader", tr(&ctx, T::Leader)),
                    Role::Down => ("down", tr(&ctx, T::Down)),
                    Role::Candidate => ("candidate", tr(&ctx, T::Candidate)),
                    Role::Follower => ("follower", tr(&ctx, T::Follower)),
                };
                html! {
                    <div class={classes!("member", class)} data-member={m.name.clone()} data-role={m.role.to_string()}>
                        <span class="name">{ &m.name }</span><span class="role">{ role }</span>
                    </div>
                }
            }) }
            </div>
            <p id="quorum" class={classes!("quorum", if ok { "ok" } else { "lost" })} data-ok={ok.to_string()}>
                { if ok { tr(&ctx, T::QuorumOk) } else { tr(&ctx, T::QuorumLost) } }
            </p>
        </section>
    }
}
