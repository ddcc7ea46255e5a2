//! One etcd member's Raft state machine, written to the Raft paper (Ongaro & Ousterhout, "In
//! Search of an Understandable Consensus Algorithm", §5) with the two extensions etcd turns on:
//! pre-vote (thesis §9.6: a member asks whether it *could* win before it raises its term, so a
//! member cut off and coming back does not depose a working leader) and check-quorum (a leader
//! that has not heard from a majority for an election timeout steps down, and a member that
//! hears from a leader ignores vote requests for that long).
//!
//! A [`Node`] is pure: it is handed ticks and messages and leaves the messages it wants sent in
//! its outbox; the [`super::network`] carries them and [`super::EtcdCluster`] drives time. Why
//! not tikv's `raft` crate (etcd's Raft ported to Rust)? It draws each randomized election
//! timeout from `rand::thread_rng()` (`src/raft.rs`), so two runs of one seed would elect
//! different leaders, and it needs protobuf-generated messages and a logger; the page needs a
//! run to be a function of its seed.

use super::log::{Entry, EntryKind, Index, Log, Term};
use crate::rng::SimRng;

/// etcd's `--heartbeat-interval` is 100 ms and its Raft ticks once per heartbeat interval.
pub const TICK_MS: u64 = 100;
/// Ticks per heartbeat (etcd: `HeartbeatTick: 1`).
pub const HEARTBEAT_TICKS: u32 = 1;
/// etcd's `--election-timeout` default, 1000 ms, in ticks (`ElectionTick` = 10).
pub const ELECTION_TICKS: u32 = 10;
/// Entries one AppendEntries message carries at most (etcd bounds messages by bytes,
/// `MaxSizePerMsg` 1 MiB).
const MAX_ENTRIES_PER_MESSAGE: usize = 512;

/// A member's place in Raft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaftRole {
    Follower,
    /// Asking for pre-votes: would a majority vote for it in the next term?
    PreCandidate,
    Candidate,
    Leader,
}

/// What one member says to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Pre-vote for the term in the message, which the sender has not taken yet.
    PreVote {
        last_index: Index,
        last_term: Term,
    },
    PreVoteReply {
        granted: bool,
    },
    /// `transfer`: asked for by the leader handing over (etcd's `campaignTransfer`), which
    /// voters heed even while they hear from that leader.
    Vote {
        last_index: Index,
        last_term: Term,
        transfer: bool,
    },
    VoteReply {
        granted: bool,
    },
    /// AppendEntries; with no entries it is a heartbeat.
    Append {
        prev_index: Index,
        prev_term: Term,
        entries: Vec<Entry>,
        commit: Index,
    },
    /// `index`: the last index known to match (success), or the follower's last index as a
    /// hint (rejection).
    AppendReply {
        success: bool,
        index: Index,
    },
    /// The leader's log starts after what the follower needs: take the state at `index`.
    Snapshot {
        index: Index,
        term: Term,
    },
    /// Leadership transfer: start an election now, without pre-vote (etcd's `MsgTimeoutNow`).
    TimeoutNow,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub from: usize,
    pub to: usize,
    pub term: Term,
    pub body: Body,
}

/// The leader's view of one follower (Raft's nextIndex / matchIndex).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub matched: Index,
    pub next: Index,
    /// Heard from since the last check-quorum.
    pub recent_active: bool,
    /// The last read round (see [`Node::start_read_round`]) it answered in this term.
    pub acked_round: u64,
}

/// One member's Raft state.
#[derive(Debug, Clone)]
pub struct Node {
    pub id: usize,
    members: usize,
    pub term: Term,
    pub vote: Option<usize>,
    pub log: Log,
    pub commit: Index,
    pub role: RaftRole,
    pub leader: Option<usize>,
    votes: Vec<Option<bool>>,
    pub progress: Vec<Progress>,
    election_elapsed: u32,
    heartbeat_elapsed: u32,
    randomized_timeout: u32,
    read_round: u64,
    rng: SimRng,
    pub outbox: Vec<Message>,
}

impl Node {
    pub fn new(id: usize, members: usize, rng: SimRng) -> Self {
        let mut n = Node {
            id,
            members,
            term: 0,
            vote: None,
            log: Log::default(),
            commit: 0,
            role: RaftRole::Follower,
            leader: None,
            votes: vec![None; members],
            progress: vec![Progress::default(); members],
            election_elapsed: 0,
            heartbeat_elapsed: 0,
            randomized_timeout: ELECTION_TICKS,
            read_round: 0,
            rng,
            outbox: Vec::new(),
        };
        n.reset_timeout();
        n
    }

    /// The number of members a decision needs: ⌊n/2⌋ + 1.
    pub fn quorum(&self) -> usize {
        self.members / 2 + 1
    }

    /// Raft's randomized election timeout in `[election, 2 × election)` ticks, from the seed.
    fn reset_timeout(&mut self) {
        self.election_elapsed = 0;
        self.randomized_timeout = ELECTION_TICKS + self.rng.below(ELECTION_TICKS.into()) as u32;
    }

    /// Within an election timeout of hearing from a leader (check-quorum's lease): vote
    /// requests are ignored so a rejoining member cannot depose a working leader.
    fn in_lease(&self) -> bool {
        self.leader.is_some() && self.election_elapsed < ELECTION_TICKS
    }

    fn send(&mut self, to: usize, term: Term, body: Body) {
        self.outbox.push(Message {
            from: self.id,
            to,
            term,
            body,
        });
    }

    pub fn become_follower(&mut self, term: Term, leader: Option<usize>) {
        if term > self.term {
            self.term = term;
            self.vote = None;
        }
        self.role = RaftRole::Follower;
        self.leader = leader;
        self.reset_timeout();
    }

    fn become_leader(&mut self) {
        self.role = RaftRole::Leader;
        self.leader = Some(self.id);
        self.heartbeat_elapsed = 0;
        self.election_elapsed = 0;
        let last = self.log.last_index();
        for p in &mut self.progress {
            *p = Progress {
                matched: 0,
                next: last + 1,
                recent_active: true,
                acked_round: 0,
            };
        }
        self.log.push(self.term, EntryKind::Noop);
        self.progress[self.id].matched = self.log.last_index();
        self.maybe_commit();
        self.broadcast_append();
    }

    /// One tick of the clock ([`TICK_MS`]).
    pub fn tick(&mut self) {
        self.election_elapsed += 1;
        if self.role == RaftRole::Leader {
            self.heartbeat_elapsed += 1;
            if self.election_elapsed >= ELECTION_TICKS {
                self.election_elapsed = 0;
                if !self.check_quorum() {
                    let term = self.term;
                    self.become_follower(term, None);
                    return;
                }
            }
            if self.heartbeat_elapsed >= HEARTBEAT_TICKS {
                self.heartbeat_elapsed = 0;
                self.broadcast_append();
            }
        } else if self.election_elapsed >= self.randomized_timeout {
            self.campaign(true);
        }
    }

    /// Whether a majority (counting itself) was heard from since the last check; resets it.
    fn check_quorum(&mut self) -> bool {
        let me = self.id;
        let active = self
            .progress
            .iter()
            .enumerate()
            .filter(|&(i, p)| i == me || p.recent_active)
            .count();
        for (i, p) in self.progress.iter_mut().enumerate() {
            p.recent_active = i == me;
        }
        active >= self.quorum()
    }

    /// Starts an election: a pre-vote round first unless `pre_vote` is false (a transfer).
    pub fn campaign(&mut self, pre_vote: bool) {
        self.campaign_as(pre_vote, false);
    }

    fn campaign_as(&mut self, pre_vote: bool, transfer: bool) {
        self.votes = vec![None; self.members];
        self.votes[self.id] = Some(true);
        self.reset_timeout();
        let (last_index, last_term) = (self.log.last_index(), self.log.last_term());
        let term = if pre_vote {
            self.role = RaftRole::PreCandidate;
            self.leader = None;
            self.term + 1
        } else {
            self.term += 1;
            self.vote = Some(self.id);
            self.role = RaftRole::Candidate;
            self.leader = None;
            self.term
        };
        if self.tally() {
            return;
        }
        let me = self.id;
        for p in (0..self.members).filter(|&p| p != me) {
            let body = if pre_vote {
                Body::PreVote {
                    last_index,
                    last_term,
                }
            } else {
                Body::Vote {
                    last_index,
                    last_term,
                    transfer,
                }
            };
            self.send(p, term, body);
        }
    }

    /// Counts the votes; wins or loses the round when a majority has spoken. Returns whether
    /// the round ended.
    fn tally(&mut self) -> bool {
        let granted = self.votes.iter().filter(|v| **v == Some(true)).count();
        let rejected = self.votes.iter().filter(|v| **v == Some(false)).count();
        if granted >= self.quorum() {
            if self.role == RaftRole::PreCandidate {
                self.campaign(false);
            } else {
                self.become_leader();
            }
            true
        } else if rejected >= self.quorum() {
            let term = self.term;
            self.become_follower(term, None);
            true
        } else {
            false
        }
    }

    /// Appends a client's write; only a leader may. Returns the entry's index.
    pub fn propose(&mut self) -> Option<Index> {
        if self.role != RaftRole::Leader {
            return None;
        }
        let index = self.log.push(self.term, EntryKind::Write);
        self.progress[self.id].matched = index;
        self.maybe_commit();
        self.broadcast_append();
        Some(index)
    }

    /// Starts a ReadIndex round: a heartbeat to every follower, whose answers in this term
    /// confirm that this member still leads (Raft §8). Returns the round's number.
    pub fn start_read_round(&mut self) -> u64 {
        self.read_round += 1;
        self.broadcast_append();
        self.read_round
    }

    /// Whether a majority answered read round `round` and the leader has committed an entry
    /// of its own term (until it has, it does not know the commit index). Then the commit
    /// index is the read index.
    pub fn read_index(&self, round: u64) -> Option<Index> {
        if self.role != RaftRole::Leader || self.log.term_at(self.commit) != Some(self.term) {
            return None;
        }
        let me = self.id;
        let acks = self
            .progress
            .iter()
            .enumerate()
            .filter(|&(i, p)| i == me || p.acked_round == round)
            .count();
        (acks >= self.quorum()).then_some(self.commit)
    }

    /// A leader hands leadership to `to` once `to`'s log is complete (etcd's MoveLeader).
    pub fn transfer_to(&mut self, to: usize) -> bool {
        if self.role != RaftRole::Leader || to == self.id || to >= self.members {
            return false;
        }
        if self.progress[to].matched != self.log.last_index() {
            self.send_append(to);
            return false;
        }
        let term = self.term;
        self.send(to, term, Body::TimeoutNow);
        true
    }

    fn broadcast_append(&mut self) {
        for p in 0..self.members {
            if p != self.id {
                self.send_append(p);
            }
        }
    }

    fn send_append(&mut self, to: usize) {
        let next = self.progress[to].next.max(1);
        let prev_index = next - 1;
        let term = self.term;
        match self.log.term_at(prev_index) {
            Some(prev_term) => {
                let entries = self.log.slice(next, MAX_ENTRIES_PER_MESSAGE);
                let commit = self.commit;
                self.send(
                    to,
                    term,
                    Body::Append {
                        prev_index,
                        prev_term,
                        entries,
                        commit,
                    },
                );
            }
            None => {
                let (index, snap_term) = self.log.snapshot();
                self.send(
                    to,
                    term,
                    Body::Snapshot {
                        index,
                        term: snap_term,
                    },
                );
            }
        }
    }

    /// Advances the commit index to the highest index a majority holds, if that entry is of
    /// the current term (Raft §5.4.2: older entries commit only under a current-term entry).
    fn maybe_commit(&mut self) -> bool {
        // The quorum-th highest match index (members are few: at most 5).
        let mut matched = [0; 8];
        let n = self.progress.len().min(matched.len());
        for (slot, p) in matched.iter_mut().zip(&self.progress) {
            *slot = p.matched;
        }
        let matched = &mut matched[..n];
        matched.sort_unstable_by(|a, b| b.cmp(a));
        let candidate = matched[self.quorum().min(n) - 1];
        if candidate > self.commit && self.log.term_at(candidate) == Some(self.term) {
            self.commit = candidate;
            true
        } else {
            false
        }
    }

    /// Handles one message.
    pub fn step(&mut self, m: Message) {
        if m.term > self.term {
            let vote_request = matches!(
                m.body,
                Body::PreVote { .. }
                    | Body::Vote {
                        transfer: false,
                        ..
                    }
            );
            if vote_request && self.in_lease() {
                return;
            }
            match m.body {
                Body::PreVote { .. } => {}
                Body::PreVoteReply { granted: true } => {}
                Body::Append { .. } | Body::Snapshot { .. } => {
                    self.become_follower(m.term, Some(m.from))
                }
                _ => self.become_follower(m.term, None),
            }
        } else if m.term < self.term {
            match m.body {
                // Tells a stale leader about the newer term, so it steps down (etcd does this
                // when check-quorum or pre-vote is on).
                Body::Append { .. } | Body::Snapshot { .. } => {
                    let term = self.term;
                    self.send(
                        m.from,
                        term,
                        Body::AppendReply {
                            success: false,
                            index: 0,
                        },
                    );
                }
                Body::PreVote { .. } => {
                    let term = self.term;
                    self.send(m.from, term, Body::PreVoteReply { granted: false });
                }
                _ => {}
            }
            return;
        }
        self.step_current(m);
    }

    /// A message of this member's term (or a pre-vote for a later one).
    fn step_current(&mut self, m: Message) {
        match m.body {
            Body::PreVote {
                last_index,
                last_term,
            } => {
                let could = self.vote == Some(m.from)
                    || (self.vote.is_none() && self.leader.is_none())
                    || m.term > self.term;
                let granted = could && self.log.is_up_to_date(last_index, last_term);
                let term = if granted { m.term } else { self.term };
                self.send(m.from, term, Body::PreVoteReply { granted });
            }
            Body::Vote {
                last_index,
                last_term,
                ..
            } => {
                let could =
                    self.vote == Some(m.from) || (self.vote.is_none() && self.leader.is_none());
                let granted = could && self.log.is_up_to_date(last_index, last_term);
                if granted {
                    self.vote = Some(m.from);
                    self.election_elapsed = 0;
                }
                let term = self.term;
                self.send(m.from, term, Body::VoteReply { granted });
            }
            Body::PreVoteReply { granted } if self.role == RaftRole::PreCandidate => {
                self.votes[m.from] = Some(granted);
                self.tally();
            }
            Body::VoteReply { granted } if self.role == RaftRole::Candidate => {
                self.votes[m.from] = Some(granted);
                self.tally();
            }
            Body::Append {
                prev_index,
                prev_term,
                entries,
                commit,
            } => {
                self.hear_from_leader(m.term, m.from);
                self.append(m.from, prev_index, prev_term, entries, commit);
            }
            Body::Snapshot { index, term } => {
                self.hear_from_leader(m.term, m.from);
                if index > self.commit {
                    // A log that already holds the snapshot's last entry only commits to it.
                    if self.log.term_at(index) != Some(term) {
                        self.log.restore(index, term);
                    }
                    self.commit = index;
                }
                let reply_term = self.term;
                let at = self.commit;
                self.send(
                    m.from,
                    reply_term,
                    Body::AppendReply {
                        success: true,
                        index: at,
                    },
                );
            }
            Body::AppendReply { success, index } if self.role == RaftRole::Leader => {
                self.append_reply(m.from, success, index);
            }
            Body::TimeoutNow if self.role == RaftRole::Follower => self.campaign_as(false, true),
            _ => {}
        }
    }

    fn hear_from_leader(&mut self, term: Term, leader: usize) {
        if self.role != RaftRole::Follower || self.leader != Some(leader) {
            self.become_follower(term, Some(leader));
        }
        self.election_elapsed = 0;
    }

    fn append(
        &mut self,
        leader: usize,
        prev_index: Index,
        prev_term: Term,
        entries: Vec<Entry>,
        commit: Index,
    ) {
        let term = self.term;
        if prev_index < self.commit {
            // Everything up to the commit index matches already (log matching); answer with it.
            let at = self.commit;
            self.send(
                leader,
                term,
                Body::AppendReply {
                    success: true,
                    index: at,
                },
            );
            return;
        }
        if self.log.term_at(prev_index) == Some(prev_term) {
            let last_new = self.log.merge(prev_index, entries);
            self.commit = self.commit.max(commit.min(last_new));
            self.send(
                leader,
                term,
                Body::AppendReply {
                    success: true,
                    index: last_new,
                },
            );
        } else {
            let hint = self.log.last_index();
            self.send(
                leader,
                term,
                Body::AppendReply {
                    success: false,
                    index: hint,
                },
            );
        }
    }

    fn append_reply(&mut self, from: usize, success: bool, index: Index) {
        let round = self.read_round;
        let p = &mut self.progress[from];
        p.recent_active = true;
        p.acked_round = round;
        if success {
            if index > p.matched {
                p.matched = index;
            }
            p.next = p.next.max(p.matched + 1);
            let behind = p.next <= self.log.last_index();
            // Followers learn a new commit index with the next AppendEntries or heartbeat
            // (Raft §5.3); etcd also broadcasts it at once, which the page's synchronous
            // requests would pay for on every write.
            self.maybe_commit();
            if behind {
                self.send_append(from);
            }
        } else {
            // Back up past the follower's last entry (or by one), and try again.
            let next = (p.next.saturating_sub(1)).min(index + 1).max(p.matched + 1);
            if next != p.next {
                p.next = next;
                self.send_append(from);
            }
        }
    }

    /// A restarted member: Raft's persistent state (term, vote, log) survives, the rest does
    /// not (etcd also persists the commit index in its HardState).
    pub fn restart(&mut self) {
        self.role = RaftRole::Follower;
        self.leader = None;
        self.outbox.clear();
        self.reset_timeout();
    }
}
