//! The etcd members as Raft sees them: each member's role and term, its log as a strip of
//! entries (coloured by term, marked committed or abandoned), how far the leader knows it has
//! matched and how far behind it is, the links between members (cut ones drawn cut), and
//! whether a write would commit now.

use super::{tr, use_ctx};
use crate::i18n::T;
use watchlab_engine::etcd::picture::{entry_label, EtcdPicture, MemberPicture};
use watchlab_engine::etcd::{log::EntryKind, Role};
use yew::prelude::*;

#[component]
pub fn EtcdPanel() -> Html {
    let ctx = use_ctx();
    let etcd = &ctx.frame.etcd;
    let ok = etcd.can_commit;
    let summary = format!(
        "{} {} · {} {}/{} · {} {}",
        tr(&ctx, T::Term),
        etcd.term,
        tr(&ctx, T::Alive),
        etcd.alive,
        etcd.members.len(),
        tr(&ctx, T::Quorum),
        etcd.quorum
    );
    let member = |m: &MemberPicture| {
        let role = match m.member.role {
            Role::Leader => tr(&ctx, T::Leader),
            Role::Down => tr(&ctx, T::Down),
            Role::Candidate => tr(&ctx, T::Candidate),
            Role::Follower => tr(&ctx, T::Follower),
        };
        let stats = format!(
            "{} {} · {} {} · {} {}",
            tr(&ctx, T::RaftIndex),
            m.member.last_index,
            tr(&ctx, T::RaftCommit),
            m.member.commit,
            tr(&ctx, T::AppliedRevision),
            m.member.applied_revision
        );
        let behind = (m.lag > 0).then(|| format!("{} {}", tr(&ctx, T::Behind), m.lag));
        let matched = m
            .matched
            .map(|i| format!("{} {i}", tr(&ctx, T::MatchIndex)));
        html! {
            <div class={classes!("member", m.member.role.to_string(), m.member.isolated.then_some("isolated"))}
                data-member={m.member.name.clone()} data-role={m.member.role.to_string()}
                data-term={m.member.term.to_string()} data-commit={m.member.commit.to_string()}
                data-applied={m.member.applied_revision.to_string()} data-isolated={m.member.isolated.to_string()}>
                <span class="name">{ &m.member.name }</span>
                <span class="role">{ format!("{role} · {} {}", tr(&ctx, T::Term), m.member.term) }</span>
                <span class="stats">{ stats }</span>
                <ol class="raft-log" aria-label={tr(&ctx, T::RaftLog)}>
                { for m.tail.iter().map(|e| {
                    let committed = e.index <= m.member.commit;
                    let abandoned = matches!(e.kind, EntryKind::Abandoned(_));
                    html! {
                        <li class={classes!("entry", format!("t{}", e.term % 6), committed.then_some("committed"), abandoned.then_some("abandoned"))}
                            title={entry_label(e)} data-index={e.index.to_string()} data-term={e.term.to_string()}>
                            { e.index }
                        </li>
                    }
                }) }
                </ol>
                // One line, always there (empty on a leader in step): the panel keeps its
                // height while followers catch up.
                <span class="progress">
                    if let Some(mi) = matched { <span class="match">{ mi }</span> }
                    if let Some(b) = behind { <span class="lag">{ b }</span> }
                    if m.member.isolated { <span class="cut">{ tr(&ctx, T::Isolated) }</span> }
                </span>
            </div>
        }
    };
    html! {
        <section class="etcd" aria-label={tr(&ctx, T::EtcdMembers)}>
            <h3>{ tr(&ctx, T::EtcdMembers) }<span class="muted">{ summary }</span></h3>
            <div class="members">{ for etcd.members.iter().map(member) }</div>
            { links(&ctx, etcd) }
            <p id="quorum" class={classes!("quorum", if ok { "ok" } else { "lost" })} data-ok={ok.to_string()}>
                { if ok { tr(&ctx, T::QuorumOk) } else { tr(&ctx, T::QuorumLost) } }
            </p>
        </section>
    }
}

/// The cut links, one per pair (nothing when the network is whole).
fn links(ctx: &super::Ctx, etcd: &EtcdPicture) -> Html {
    if etcd.network_whole() {
        return Html::default();
    }
    let name = |i: usize| etcd.members.get(i).map_or("?", |m| m.member.name.as_str());
    html! {
        <p id="etcd-links" class="links">{ tr(ctx, T::CutLinks) }
        { for etcd.links.iter().filter(|(_, _, up)| !up).map(|&(a, b, _)| html! {
            <span class="link cut" data-link={format!("{}-{}", name(a), name(b))}>{ format!("{} ✕ {}", name(a), name(b)) }</span>
        }) }
        </p>
    }
}
