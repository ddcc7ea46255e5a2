//! The etcd members behind the ledger: each a Raft state machine ([`raft`]) with its own log
//! ([`log`]), talking over a network of links with delays that can be cut ([`network`]), on
//! the virtual clock. A write commits only when the leader has it on a majority of logs; a
//! linearizable read asks the leader to confirm, through a majority, that it still leads.
//!
//! One state machine for all: every member applies the same committed entries in the same
//! order (Raft's state machine safety), so their stores would be equal; the ledger
//! ([`crate::store`]) is that one store, and a member's own state is a position in it — the
//! store revision its applied index reached ([`EtcdCluster::applied_revision`]). A follower
//! that has not yet heard of the latest commit answers a serializable read from an older
//! revision, as a real etcd follower does. Only the uncommitted tail of a log is a member's own.
//!
//! The client (the API server's etcd client) is modelled as etcd's clientv3 with
//! `WithRequireLeader`: it keeps talking to one member while that member has a leader, moves to
//! the next live member when its member is down or leaderless, and a request to a member whose
//! leader cannot reach a majority waits until it times out. The page's requests are
//! synchronous, so the messages of a request's own round (the leader's AppendEntries, the
//! followers' answers) travel within the instant; everything else — heartbeats, elections,
//! catching up — travels with the links' delays on the clock.

pub mod log;
pub mod network;
pub mod picture;
pub mod raft;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use crate::clock::Timestamp;
use crate::rng::SimRng;
use crate::store::Revision;
use log::{Index, Term};
use network::{Network, DEFAULT_LINK_DELAY_MS};
use raft::{Message, Node, RaftRole, TICK_MS};

/// etcd's `--election-timeout` default (1000 ms).
pub const ELECTION_TIMEOUT_MS: u64 = raft::ELECTION_TICKS as u64 * TICK_MS;

/// Member counts a trainer can pick: etcd recommends an odd size, and 1, 3 and 5 show the point.
pub const ALLOWED_SIZES: [usize; 3] = [1, 3, 5];

/// etcd's texts for a request that did not go through (`api/v3rpc/rpctypes/error.go`).
pub const REQUEST_TIMED_OUT: &str = "etcdserver: request timed out";
pub const NO_LEADER: &str = "etcdserver: no leader";
/// What an etcd client reports when its own timeout ran out first (etcdctl's
/// `--command-timeout`, 5 s, is shorter than the server's request timeout).
pub const DEADLINE_EXCEEDED: &str = "context deadline exceeded";

/// How many committed entries' revisions are remembered for followers' positions.
const REMEMBERED_REVISIONS: usize = 8192;

/// A member's Raft role as `etcdctl endpoint status` would report it (or down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
    /// Its election timer fired and it is asking for (pre-)votes.
    Candidate,
    Down,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Leader => "leader",
            Role::Follower => "follower",
            Role::Candidate => "candidate",
            Role::Down => "down",
        })
    }
}

/// One etcd member as the panel and `etcdctl member list` see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// etcd prints member IDs as 16 hex digits.
    pub id: u64,
    /// `etcd-0`, `etcd-1`, ... (the `--name` of each member).
    pub name: String,
    pub role: Role,
    pub term: Term,
    /// The last index of its log, the highest it knows committed (and has applied).
    pub last_index: Index,
    pub commit: Index,
    /// The store revision its applied entries reached.
    pub applied_revision: Revision,
    /// Every link to it is cut.
    pub isolated: bool,
}

impl Member {
    pub fn is_alive(&self) -> bool {
        self.role != Role::Down
    }
}

/// What changed in the membership, for the timeline and the Events table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MembershipEvent {
    MemberDown {
        member: String,
    },
    MemberUp {
        member: String,
    },
    /// The leader stepped down: it died, or it lost contact with a majority.
    LeaderLost {
        member: String,
        term: u64,
    },
    LeaderElected {
        member: String,
        term: u64,
    },
    /// Links were cut or healed (`what` says which).
    Network {
        what: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The size is not one of [`ALLOWED_SIZES`].
    UnsupportedSize(usize),
    /// No member has that name.
    UnknownMember(String),
    /// A partition group must name some members but not all of them.
    BadPartition(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnsupportedSize(n) => write!(
                f,
                "etcd cluster size {n} is not supported (choose 1, 3 or 5)"
            ),
            Error::UnknownMember(m) => write!(f, "etcd member {m:?} not found"),
            Error::BadPartition(why) => write!(f, "cannot partition the etcd members: {why}"),
        }
    }
}

impl std::error::Error for Error {}

/// A request etcd did not carry out, with etcd's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestError {
    /// No member the client can reach has a leader.
    NoLeader,
    /// The leader could not reach a majority (or the client's member cannot reach the leader).
    TimedOut,
}

impl RequestError {
    pub fn text(self) -> &'static str {
        match self {
            RequestError::NoLeader => NO_LEADER,
            RequestError::TimedOut => REQUEST_TIMED_OUT,
        }
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// A write etcd committed: the caller applies it to the store, then reports the revision it
/// reached ([`EtcdCluster::applied`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Committed {
    pub index: Index,
}

/// The etcd cluster: members, their network, and the client's view, on the virtual clock.
#[derive(Debug, Clone)]
pub struct EtcdCluster {
    nodes: Vec<Node>,
    alive: Vec<bool>,
    network: Network,
    /// The members as last observed (roles for the events, and what [`Self::members`] shows).
    view: Vec<Member>,
    /// The next tick; `None` until the clock is first seen.
    next_tick: Option<Timestamp>,
    now: Timestamp,
    /// The member the client talks to.
    pinned: usize,
    /// (raft index, store revision after applying it) for recent committed entries.
    revisions: VecDeque<(Index, Revision)>,
    /// The highest index whose revision is recorded (applied to the store).
    applied_index: Index,
    /// Membership events seen while processing, handed out by the caller's next drain.
    pending_events: Vec<(Timestamp, MembershipEvent)>,
    /// The messages being delivered within the instant ([`EtcdCluster::pump_now`]).
    batch: Vec<Message>,
    /// Per member, since when it has known no leader (`None`: it knows one, or is down).
    leaderless_since: Vec<Option<Timestamp>>,
    /// The member that raised etcd's NOSPACE alarm (the cluster's one alarm kind here), until
    /// it is disarmed.
    nospace_alarm: Option<u64>,
}

impl EtcdCluster {
    /// `size` members, all alive; `etcd-0` leads in term 1 from the start (the cluster was
    /// bootstrapped before the playground opened).
    pub fn new(size: usize, seed: u64) -> Result<Self, Error> {
        if !ALLOWED_SIZES.contains(&size) {
            return Err(Error::UnsupportedSize(size));
        }
        Ok(Self::build(size, seed))
    }

    /// Like [`EtcdCluster::new`], but an unsupported size gets etcd's recommended three members.
    pub fn new_or_three(size: usize, seed: u64) -> Self {
        Self::build(
            if ALLOWED_SIZES.contains(&size) {
                size
            } else {
                3
            },
            seed,
        )
    }

    fn build(size: usize, seed: u64) -> Self {
        let mut rng = SimRng::child(seed, "etcd-members");
        let view = (0..size)
            .map(|i| Member {
                id: rng.next_u64(),
                name: format!("etcd-{i}"),
                role: Role::Follower,
                term: 0,
                last_index: 0,
                commit: 0,
                applied_revision: crate::store::INITIAL_REVISION,
                isolated: false,
            })
            .collect();
        let nodes = (0..size)
            .map(|i| Node::new(i, size, SimRng::child(seed, &format!("etcd-raft-{i}"))))
            .collect();
        let mut c = EtcdCluster {
            nodes,
            alive: vec![true; size],
            network: Network::new(size, DEFAULT_LINK_DELAY_MS),
            view,
            next_tick: None,
            now: Timestamp::default(),
            pinned: 0,
            revisions: VecDeque::new(),
            applied_index: 0,
            pending_events: Vec::new(),
            batch: Vec::new(),
            leaderless_since: vec![None; size],
            nospace_alarm: None,
        };
        c.nodes[0].campaign(false);
        c.pump_now();
        c.record_commits(crate::store::INITIAL_REVISION);
        c.observe();
        c.pending_events.clear();
        c
    }

    /// Sets the clock's origin: the members tick every [`TICK_MS`] from `start` (so a run's
    /// elections do not depend on when the clock is first read).
    pub fn start_clock(&mut self, start: Timestamp) {
        self.now = start;
        self.next_tick = Some(start.plus_millis(TICK_MS));
    }

    pub fn members(&self) -> &[Member] {
        &self.view
    }

    /// A member's Raft state, for the drawing (its log, progress, commit).
    pub fn node(&self, name: &str) -> Option<&Node> {
        self.index(name).ok().map(|i| &self.nodes[i])
    }

    /// Whether the link between two members stands.
    pub fn linked(&self, a: &str, b: &str) -> bool {
        match (self.index(a), self.index(b)) {
            (Ok(a), Ok(b)) => self.network.connected(a, b),
            _ => false,
        }
    }

    /// Messages on their way between members.
    pub fn messages_in_flight(&self) -> usize {
        self.network.in_flight()
    }

    /// The member a "kill an etcd member" scenario step takes down: a live follower, so the
    /// cluster keeps its leader and the story is about quorum, else any live member.
    pub fn member_to_kill(&self) -> Option<&str> {
        let alive = || self.view.iter().filter(|m| m.is_alive());
        alive()
            .find(|m| m.role != Role::Leader)
            .or_else(|| alive().next())
            .map(|m| m.name.as_str())
    }

    /// The members that are down, in order: what "restore etcd" brings back.
    pub fn down_members(&self) -> Vec<String> {
        self.view
            .iter()
            .filter(|m| !m.is_alive())
            .map(|m| m.name.clone())
            .collect()
    }

    /// The term of the leader, else the highest term a live member has reached.
    pub fn term(&self) -> u64 {
        self.leader().map_or_else(
            || {
                self.view
                    .iter()
                    .filter(|m| m.is_alive())
                    .map(|m| m.term)
                    .max()
                    .unwrap_or(0)
            },
            |l| l.term,
        )
    }

    /// The live leader of the highest term (an isolated old leader may still believe it leads
    /// in an older term until check-quorum steps it down).
    pub fn leader(&self) -> Option<&Member> {
        self.view
            .iter()
            .filter(|m| m.role == Role::Leader)
            .max_by_key(|m| m.term)
    }

    /// The number of members a decision needs: ⌊n/2⌋ + 1.
    pub fn quorum(&self) -> usize {
        self.nodes.len() / 2 + 1
    }

    pub fn alive(&self) -> usize {
        self.alive.iter().filter(|a| **a).count()
    }

    pub fn has_majority(&self) -> bool {
        self.alive() >= self.quorum()
    }

    /// Whether a write would commit now: the client's member has a leader that reaches a
    /// majority of live members.
    pub fn can_commit(&self) -> bool {
        self.route()
            .and_then(|m| self.leader_of(m))
            .is_some_and(|l| self.reaches_majority(l))
    }

    /// The store revision the member's applied entries reached: what a serializable read
    /// there answers from.
    pub fn applied_revision(&self, name: &str) -> Result<Revision, Error> {
        let i = self.index(name)?;
        Ok(self.revision_at(self.nodes[i].commit))
    }

    /// The member index the client's requests (and a watch it opens now) go to, if any can
    /// take one: up, and knowing a leader.
    pub fn client_index(&self) -> Option<usize> {
        self.route()
    }

    /// A member's name by index.
    pub fn member_name(&self, i: usize) -> &str {
        self.view.get(i).map_or("", |m| m.name.as_str())
    }

    /// How far a watch served by member `i` has delivered: what the member has applied, or,
    /// while it follows a leader it reaches, what that leader has (etcd sends a follower the
    /// new commit index at once; the page's synchronous rounds skip that message, so a watch on
    /// a linked follower hears a commit in the same instant, as it would within a round trip).
    /// `None` while the member is down.
    pub fn watch_revision(&self, i: usize) -> Option<Revision> {
        if !self.alive.get(i).copied().unwrap_or(false) {
            return None;
        }
        let node = match self.leader_of(i) {
            Some(l) if self.nodes[l].term == self.nodes[i].term => &self.nodes[l],
            _ => &self.nodes[i],
        };
        Some(self.revision_at(node.commit))
    }

    /// Since when member `i` has known no leader (`None` while it knows one, or is down).
    pub fn leaderless_since_index(&self, i: usize) -> Option<Timestamp> {
        self.leaderless_since.get(i).copied().flatten()
    }

    /// Whether any member is up.
    pub fn any_alive(&self) -> bool {
        self.alive.iter().any(|a| *a)
    }

    /// The member the client's requests go to now, if any can take one.
    pub fn client_member(&self) -> Option<&str> {
        self.route().map(|i| self.view[i].name.as_str())
    }

    /// The next moment [`EtcdCluster::advance_to`] has something to show: while the members are
    /// not settled (an election due, a member catching up, links cut), every tick; once a
    /// leader leads every live member over whole links, nothing (heartbeats change nothing a
    /// reader sees, and are run when the clock next moves).
    pub fn next_timer(&self) -> Option<Timestamp> {
        if self.settled() {
            return None;
        }
        let tick = self.next_tick.unwrap_or(self.now.plus_millis(TICK_MS));
        Some(match self.network.next_arrival() {
            Some(at) => at.min(tick),
            None => tick,
        })
    }

    fn settled(&self) -> bool {
        let Some(leader) = self.view.iter().position(|m| m.role == Role::Leader) else {
            return false;
        };
        let term = self.nodes[leader].term;
        self.network.is_whole()
            && (0..self.nodes.len()).all(|i| {
                !self.alive[i]
                    || (self.nodes[i].term == term && self.nodes[i].leader == Some(leader))
            })
    }

    /// Runs ticks and message deliveries due by `now`, in time order, and returns what changed
    /// in the membership. `revision` is the store's revision (entries that commit now apply
    /// as nothing: see [`log::EntryKind::Abandoned`]).
    pub fn advance_to(
        &mut self,
        now: Timestamp,
        revision: Revision,
    ) -> Vec<(Timestamp, MembershipEvent)> {
        let mut tick = *self.next_tick.get_or_insert(now.plus_millis(TICK_MS));
        loop {
            let arrival = self.network.next_arrival().filter(|at| *at <= now);
            match arrival {
                Some(at) if at <= tick => {
                    self.now = self.now.max(at);
                    if let Some(Some(m)) = self.network.pop_due(at) {
                        self.deliver(m);
                    }
                }
                _ if tick <= now => {
                    self.now = self.now.max(tick);
                    for i in 0..self.nodes.len() {
                        if self.alive[i] {
                            self.nodes[i].tick();
                        }
                    }
                    tick = tick.plus_millis(TICK_MS);
                    self.next_tick = Some(tick);
                }
                _ => break,
            }
            self.send_outboxes();
            self.record_commits(revision);
            self.observe();
        }
        self.now = self.now.max(now);
        std::mem::take(&mut self.pending_events)
    }

    fn deliver(&mut self, m: Message) {
        if self.alive[m.to] {
            let to = m.to;
            self.nodes[to].step(m);
        }
    }

    /// Hands every outbox to the network, with the links' delays.
    fn send_outboxes(&mut self) {
        for i in 0..self.nodes.len() {
            for m in std::mem::take(&mut self.nodes[i].outbox) {
                if self.alive[i] {
                    self.network.send(self.now, m);
                }
            }
        }
    }

    /// Delivers the messages the members want sent right away, and their answers, until no
    /// one has more to say: a request's own round trip, within the instant.
    fn pump_now(&mut self) {
        // One buffer swapped with each outbox in turn, so a round allocates nothing.
        let mut batch = std::mem::take(&mut self.batch);
        for _ in 0..64 {
            let mut any = false;
            for i in 0..self.nodes.len() {
                std::mem::swap(&mut self.nodes[i].outbox, &mut batch);
                for m in batch.drain(..) {
                    any = true;
                    if self.alive[i] && self.network.connected(m.from, m.to) {
                        self.deliver(m);
                    }
                }
            }
            if !any {
                break;
            }
        }
        self.batch = batch;
    }

    /// The member the client would talk to: its pinned member if it is alive and has a leader,
    /// else the next live member that has one.
    fn route(&self) -> Option<usize> {
        let n = self.nodes.len();
        (0..n)
            .map(|k| (self.pinned + k) % n)
            .find(|&i| self.alive[i] && self.nodes[i].leader.is_some())
    }

    /// The leader member `m` would forward to, if `m` can reach it.
    fn leader_of(&self, m: usize) -> Option<usize> {
        let l = self.nodes[m].leader?;
        (self.alive[l] && self.network.connected(m, l) && self.nodes[l].role == RaftRole::Leader)
            .then_some(l)
    }

    /// Whether `leader` reaches a majority of live members that accept its term.
    fn reaches_majority(&self, leader: usize) -> bool {
        let term = self.nodes[leader].term;
        let reached = (0..self.nodes.len())
            .filter(|&i| {
                self.alive[i] && self.network.connected(leader, i) && self.nodes[i].term <= term
            })
            .count();
        reached >= self.quorum()
    }

    /// Proposes a client's write. On `Ok` the entry is committed: apply it to the store now and
    /// report the revision with [`EtcdCluster::applied`]. `what` describes the write, for the
    /// drawing of an entry whose client gave up.
    pub fn propose(
        &mut self,
        revision: Revision,
        what: impl FnOnce() -> String,
    ) -> Result<Committed, RequestError> {
        let result = self.try_propose(revision);
        match result {
            Ok(committed) => Ok(committed),
            Err((err, Some((index, term)))) => {
                let what: Arc<str> = what().into();
                for node in &mut self.nodes {
                    node.log.abandon(index, term, &what);
                }
                self.send_outboxes();
                self.observe();
                Err(err)
            }
            Err((err, None)) => Err(err),
        }
    }

    #[allow(clippy::type_complexity)]
    fn try_propose(
        &mut self,
        revision: Revision,
    ) -> Result<Committed, (RequestError, Option<(Index, Term)>)> {
        let member = self.route().ok_or((RequestError::NoLeader, None))?;
        self.pinned = member;
        let leader = self
            .leader_of(member)
            .ok_or((RequestError::TimedOut, None))?;
        let index = self.nodes[leader]
            .propose()
            .ok_or((RequestError::TimedOut, None))?;
        let term = self.nodes[leader].term;
        self.pump_now();
        let committed = self.nodes[leader].commit >= index
            && self.nodes[leader].log.term_at(index) == Some(term);
        if !committed {
            return Err((RequestError::TimedOut, Some((index, term))));
        }
        self.record_commits_before(index, revision);
        if self.nodes[leader].role == RaftRole::Leader && self.nodes[leader].term == term {
            // Nobody's role changed in a round that committed: only the indexes moved.
            for (v, n) in self.view.iter_mut().zip(&self.nodes) {
                v.last_index = n.log.last_index();
                v.commit = n.commit;
            }
        } else {
            self.observe();
        }
        Ok(Committed { index })
    }

    /// Records the store revision a committed write reached once applied.
    pub fn applied(&mut self, committed: Committed, revision: Revision) {
        self.remember(committed.index, revision);
        for m in self.view.iter_mut().filter(|m| m.commit >= committed.index) {
            m.applied_revision = revision;
        }
    }

    /// Raises NOSPACE for the member the client talks to (a put found the space quota spent):
    /// from now on the members refuse every put, whatever compaction frees, until the alarm
    /// is disarmed (etcd's `applierV3Capped`).
    pub fn raise_nospace(&mut self) {
        let member = self.route().map(|i| self.view[i].id);
        if self.nospace_alarm.is_none() {
            self.nospace_alarm = member;
        }
    }

    /// Whether an alarm is active (the members refuse puts).
    pub fn has_alarm(&self) -> bool {
        self.nospace_alarm.is_some()
    }

    /// The active alarms: (member ID, alarm type as etcd names it).
    pub fn alarms(&self) -> Vec<(u64, &'static str)> {
        self.nospace_alarm
            .map(|m| (m, "NOSPACE"))
            .into_iter()
            .collect()
    }

    /// Disarms every alarm; returns those that were active.
    pub fn disarm_alarms(&mut self) -> Vec<(u64, &'static str)> {
        let was = self.alarms();
        self.nospace_alarm = None;
        was
    }

    /// Every member restarted on a store restored at `revision` (etcdutl writes each member's
    /// data directory from one snapshot): each has applied exactly that.
    pub fn restored(&mut self, revision: Revision) {
        self.revisions.clear();
        self.revisions.push_back((self.applied_index, revision));
        for m in &mut self.view {
            m.applied_revision = revision;
        }
    }

    /// Whether a linearizable read would be answered now, without asking: the client's member
    /// reaches a leader that reaches a majority and has committed an entry of its term (the
    /// check behind reads that cannot change the members, such as the API server's).
    pub fn can_read(&self) -> Result<(), RequestError> {
        let member = self.route().ok_or(RequestError::NoLeader)?;
        self.can_read_via(&self.view[member].name)
    }

    /// The cluster's ID (etcd derives it from the members' IDs).
    pub fn cluster_id(&self) -> u64 {
        self.view.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, m| {
            (h ^ m.id).wrapping_mul(0x100_0000_01b3)
        })
    }

    /// The ID of the member `name` believes leads (0 for none), as `endpoint status` reports.
    pub fn leader_seen_by(&self, name: &str) -> Result<u64, Error> {
        let i = self.index(name)?;
        Ok(self.nodes[i].leader.map_or(0, |l| self.view[l].id))
    }

    /// Since when member `name` has known no leader (`None` while it knows one, or is down).
    pub fn leaderless_since(&self, name: &str) -> Result<Option<Timestamp>, Error> {
        Ok(self.leaderless_since[self.index(name)?])
    }

    /// Whether a linearizable read asked of member `name` would be answered now: it is up,
    /// reaches its leader, and that leader confirms through a majority.
    pub fn can_read_via(&self, name: &str) -> Result<(), RequestError> {
        let i = self.index(name).map_err(|_| RequestError::TimedOut)?;
        if !self.alive[i] {
            return Err(RequestError::TimedOut);
        }
        let leader = self.leader_of(i).ok_or(RequestError::TimedOut)?;
        let node = &self.nodes[leader];
        let current = node.log.term_at(node.commit) == Some(node.term);
        if current && self.reaches_majority(leader) {
            Ok(())
        } else {
            Err(RequestError::TimedOut)
        }
    }

    /// A linearizable read (etcd's default): the client's member asks its leader for a read
    /// index, which the leader gives once a majority confirms it still leads (ReadIndex,
    /// Raft §8). The read is then served at the store's current revision.
    pub fn linearizable_read(&mut self) -> Result<(), RequestError> {
        let member = self.route().ok_or(RequestError::NoLeader)?;
        self.pinned = member;
        let leader = self.leader_of(member).ok_or(RequestError::TimedOut)?;
        let round = self.nodes[leader].start_read_round();
        self.pump_now();
        let confirmed = self.nodes[leader].read_index(round).is_some();
        self.observe();
        if confirmed {
            Ok(())
        } else {
            Err(RequestError::TimedOut)
        }
    }

    /// Records every committed entry up to `index` (exclusive) as applying to nothing new.
    fn record_commits_before(&mut self, index: Index, revision: Revision) {
        while self.applied_index + 1 < index {
            self.remember(self.applied_index + 1, revision);
        }
    }

    /// Records every entry some member knows committed as applied at `revision`.
    fn record_commits(&mut self, revision: Revision) {
        let committed = self.nodes.iter().map(|n| n.commit).max().unwrap_or(0);
        while self.applied_index < committed {
            self.remember(self.applied_index + 1, revision);
        }
        for n in &mut self.nodes {
            let applied = n.commit;
            n.log.compact(applied);
        }
    }

    fn remember(&mut self, index: Index, revision: Revision) {
        if index <= self.applied_index {
            return;
        }
        self.applied_index = index;
        if self.revisions.back().is_some_and(|&(_, r)| r == revision) {
            // Runs of entries that changed nothing share one record.
            return;
        }
        self.revisions.push_back((index, revision));
        if self.revisions.len() > REMEMBERED_REVISIONS {
            self.revisions.pop_front();
        }
    }

    /// The store revision after applying entries up to `index`.
    fn revision_at(&self, index: Index) -> Revision {
        let at = self.revisions.partition_point(|&(i, _)| i <= index);
        match at.checked_sub(1) {
            Some(k) => self.revisions[k].1,
            None => self
                .revisions
                .front()
                .map_or(crate::store::INITIAL_REVISION, |&(_, r)| r),
        }
    }

    /// Refreshes the members' view and notes leaders lost and elected.
    fn observe(&mut self) {
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i];
            let role = if !self.alive[i] {
                Role::Down
            } else {
                match node.role {
                    RaftRole::Leader => Role::Leader,
                    RaftRole::Follower => Role::Follower,
                    RaftRole::PreCandidate | RaftRole::Candidate => Role::Candidate,
                }
            };
            let before = &self.view[i];
            let same = before.role == role && before.term == node.term;
            if !same && before.role == Role::Leader {
                self.pending_events.push((
                    self.now,
                    MembershipEvent::LeaderLost {
                        member: before.name.clone(),
                        term: before.term,
                    },
                ));
            }
            if !same && role == Role::Leader {
                self.pending_events.push((
                    self.now,
                    MembershipEvent::LeaderElected {
                        member: before.name.clone(),
                        term: node.term,
                    },
                ));
            }
            let isolated = !self.network.is_whole()
                && (0..self.nodes.len()).all(|j| j == i || !self.network.connected(i, j));
            let applied_revision = if before.commit == node.commit {
                before.applied_revision
            } else {
                self.revision_at(node.commit)
            };
            let knows_leader = !self.alive[i] || node.leader.is_some();
            let since = &mut self.leaderless_since[i];
            *since = if knows_leader {
                None
            } else {
                Some(since.unwrap_or(self.now))
            };
            let v = &mut self.view[i];
            v.role = role;
            v.term = node.term;
            v.last_index = node.log.last_index();
            v.commit = node.commit;
            v.applied_revision = applied_revision;
            v.isolated = isolated && self.nodes.len() > 1;
        }
    }

    /// Catches up to `now` before a fault changes the members.
    fn catch_up(&mut self, now: Timestamp, revision: Revision) {
        let events = self.advance_to(now, revision);
        self.pending_events.extend(events);
    }

    /// Stops a member (its process is killed); its persisted term, vote and log survive.
    pub fn kill(
        &mut self,
        name: &str,
        now: Timestamp,
        revision: Revision,
    ) -> Result<Vec<(Timestamp, MembershipEvent)>, Error> {
        self.set_alive(name, false, now, revision)
    }

    /// Starts a stopped member again; it rejoins as a follower with the log it had.
    pub fn restore(
        &mut self,
        name: &str,
        now: Timestamp,
        revision: Revision,
    ) -> Result<Vec<(Timestamp, MembershipEvent)>, Error> {
        self.set_alive(name, true, now, revision)
    }

    fn set_alive(
        &mut self,
        name: &str,
        alive: bool,
        now: Timestamp,
        revision: Revision,
    ) -> Result<Vec<(Timestamp, MembershipEvent)>, Error> {
        let i = self.index(name)?;
        self.catch_up(now, revision);
        if self.alive[i] != alive {
            self.alive[i] = alive;
            let member = name.to_string();
            if alive {
                self.nodes[i].restart();
                self.note(MembershipEvent::MemberUp { member });
            } else {
                self.nodes[i].outbox.clear();
                self.note(MembershipEvent::MemberDown { member });
            }
            self.observe();
        }
        Ok(std::mem::take(&mut self.pending_events))
    }

    /// Cuts every link of a member (its process keeps running).
    pub fn isolate(
        &mut self,
        name: &str,
        now: Timestamp,
        revision: Revision,
    ) -> Result<Vec<(Timestamp, MembershipEvent)>, Error> {
        let i = self.index(name)?;
        self.catch_up(now, revision);
        self.network.isolate(i);
        self.note(MembershipEvent::Network {
            what: format!("{name} isolated"),
        });
        self.observe();
        Ok(std::mem::take(&mut self.pending_events))
    }

    /// Cuts the links between `group` and the other members.
    pub fn partition(
        &mut self,
        group: &[String],
        now: Timestamp,
        revision: Revision,
    ) -> Result<Vec<(Timestamp, MembershipEvent)>, Error> {
        let mut members = Vec::new();
        for name in group {
            let i = self.index(name)?;
            if !members.contains(&i) {
                members.push(i);
            }
        }
        if members.is_empty() || members.len() == self.nodes.len() {
            return Err(Error::BadPartition(
                "a group must hold some members but not all of them".into(),
            ));
        }
        self.catch_up(now, revision);
        self.network.partition(&members);
        let (mut inside, mut outside) = (Vec::new(), Vec::new());
        for (i, m) in self.view.iter().enumerate() {
            if members.contains(&i) {
                inside.push(m.name.as_str());
            } else {
                outside.push(m.name.as_str());
            }
        }
        let what = format!(
            "partitioned {{{}}} | {{{}}}",
            inside.join(", "),
            outside.join(", ")
        );
        self.note(MembershipEvent::Network { what });
        self.observe();
        Ok(std::mem::take(&mut self.pending_events))
    }

    /// Restores every link (of one member with `Some(name)`).
    pub fn heal(
        &mut self,
        member: Option<&str>,
        now: Timestamp,
        revision: Revision,
    ) -> Result<Vec<(Timestamp, MembershipEvent)>, Error> {
        let one = member.map(|name| self.index(name)).transpose()?;
        self.catch_up(now, revision);
        match one {
            Some(i) => self.network.rejoin(i),
            None => self.network.heal(),
        }
        self.note(MembershipEvent::Network {
            what: match member {
                Some(name) => format!("{name} rejoined"),
                None => "network healed".to_string(),
            },
        });
        self.observe();
        Ok(std::mem::take(&mut self.pending_events))
    }

    /// Asks the leader to hand leadership to `name` (etcd's MoveLeader): the leader brings its
    /// log up to date and tells it to campaign at once. Ok(false) when there is no leader to
    /// ask or `name` is not caught up (etcdctl then answers `etcdserver: bad leader transferee`).
    pub fn move_leader(
        &mut self,
        name: &str,
        now: Timestamp,
        revision: Revision,
    ) -> Result<bool, Error> {
        let to = self.index(name)?;
        self.catch_up(now, revision);
        let Some(leader) = self.route().and_then(|m| self.leader_of(m)) else {
            return Ok(false);
        };
        if !self.alive[to] || !self.network.connected(leader, to) {
            return Ok(false);
        }
        let started = self.nodes[leader].transfer_to(to);
        self.pump_now();
        if !started {
            // The transferee was behind: the append above caught it up; ask again.
            let started = self.nodes[leader].transfer_to(to);
            self.pump_now();
            if !started {
                return Ok(false);
            }
        }
        self.record_commits(revision);
        self.observe();
        Ok(true)
    }

    /// Notes a membership change at the members' clock (so its time does not depend on when
    /// a driver asks: a run replayed in other steps of time notes the same instants).
    fn note(&mut self, event: MembershipEvent) {
        self.pending_events.push((self.now, event));
    }

    /// Membership events noted since the last call (after a proposal or read that saw a
    /// leader step down), each with when it happened.
    pub fn take_events(&mut self) -> Vec<(Timestamp, MembershipEvent)> {
        std::mem::take(&mut self.pending_events)
    }

    fn index(&self, name: &str) -> Result<usize, Error> {
        self.view
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| Error::UnknownMember(name.to_string()))
    }
}
