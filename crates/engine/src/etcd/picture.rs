//! What the etcd panel draws, copied out of the members once per frame: each member's state
//! and the tail of its log, the leader's view of how far each follower has matched, and which
//! links stand. A frame holds this, not the members (whose logs keep thousands of entries).

use super::log::{Entry, EntryKind, Index};
use super::raft::RaftRole;
use super::{EtcdCluster, Member};

/// How many of its last log entries each member's strip shows.
pub const STRIP_ENTRIES: usize = 12;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberPicture {
    pub member: Member,
    /// The last [`STRIP_ENTRIES`] entries of its log, oldest first.
    pub tail: Vec<Entry>,
    /// The index the leader knows this member holds (its match index), when there is a
    /// leader and this member is a follower.
    pub matched: Option<Index>,
    /// How many committed entries it has not heard of (the leader's commit minus its own).
    pub lag: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EtcdPicture {
    pub members: Vec<MemberPicture>,
    pub term: u64,
    pub quorum: usize,
    pub alive: usize,
    /// A write would commit now.
    pub can_commit: bool,
    /// The member the API server's client talks to.
    pub client: Option<String>,
    /// Every pair of members (by position) and whether their link stands.
    pub links: Vec<(usize, usize, bool)>,
    pub in_flight: usize,
}

impl EtcdPicture {
    pub fn leader(&self) -> Option<&Member> {
        self.members
            .iter()
            .map(|m| &m.member)
            .filter(|m| m.role == super::Role::Leader)
            .max_by_key(|m| m.term)
    }

    /// Whether every link stands.
    pub fn network_whole(&self) -> bool {
        self.links.iter().all(|&(_, _, up)| up)
    }
}

impl EtcdCluster {
    /// The panel's picture of the members now.
    pub fn picture(&self) -> EtcdPicture {
        let leader = self
            .nodes
            .iter()
            .enumerate()
            .filter(|&(i, n)| self.alive[i] && n.role == RaftRole::Leader)
            .max_by_key(|(_, n)| n.term)
            .map(|(_, n)| n);
        let members = self
            .nodes
            .iter()
            .zip(&self.view)
            .map(|(node, member)| {
                let skip = node.log.entries().len().saturating_sub(STRIP_ENTRIES);
                MemberPicture {
                    member: member.clone(),
                    tail: node.log.entries().skip(skip).cloned().collect(),
                    matched: leader
                        .filter(|l| l.id != node.id)
                        .map(|l| l.progress[node.id].matched),
                    lag: leader.map_or(0, |l| l.commit.saturating_sub(node.commit)),
                }
            })
            .collect();
        let n = self.nodes.len();
        let links = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .map(|(a, b)| (a, b, self.network.connected(a, b)))
            .collect();
        EtcdPicture {
            members,
            term: self.term(),
            quorum: self.quorum(),
            alive: self.alive(),
            can_commit: self.can_commit(),
            client: self.client_member().map(str::to_string),
            links,
            in_flight: self.network.in_flight(),
        }
    }
}

/// A short label for an entry's kind, for the strip's tooltips.
pub fn entry_label(e: &Entry) -> String {
    match &e.kind {
        EntryKind::Noop => format!("{} · term {} · leader's empty entry", e.index, e.term),
        EntryKind::Write => format!("{} · term {} · write", e.index, e.term),
        EntryKind::Abandoned(what) => {
            format!("{} · term {} · {what} (client timed out)", e.index, e.term)
        }
    }
}
