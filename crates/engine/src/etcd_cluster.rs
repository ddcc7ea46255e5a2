//! The etcd members behind the ledger, and the one rule that decides whether the cluster can
//! change at all: a write commits only while a leader holds a majority.
//!
//! This is a majority model with Raft's leader election, not a replicated log: the ledger
//! ([`crate::store`]) is the log every live member agrees on. What it reproduces is what a
//! learner must see: which member leads and in which term, that losing a follower changes
//! nothing while a majority lives, that losing the majority stops every write (a leader that can
//! no longer reach a quorum steps down, as etcd's `--check-quorum` makes it), and that restoring
//! a member lets an election finish and writes resume.

use std::fmt;

use crate::clock::Timestamp;
use crate::rng::SimRng;

/// etcd's `--election-timeout` default (1000 ms). Raft randomizes each member's timeout in
/// `[election_timeout, 2 × election_timeout)` so that one candidate usually wins alone.
pub const ELECTION_TIMEOUT_MS: u64 = 1000;

/// Member counts a trainer can pick: etcd recommends an odd size, and 1, 3 and 5 show the point.
pub const ALLOWED_SIZES: [usize; 3] = [1, 3, 5];

/// A member's Raft role as `etcdctl endpoint status` would report it (or down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
    /// Alive, its election timer has fired, and it is asking for votes.
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

/// One etcd member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// etcd prints member IDs as 16 hex digits.
    pub id: u64,
    /// `etcd-0`, `etcd-1`, ... (the `--name` of each member).
    pub name: String,
    pub role: Role,
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
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The size is not one of [`ALLOWED_SIZES`].
    UnsupportedSize(usize),
    /// No member has that name.
    UnknownMember(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnsupportedSize(n) => write!(
                f,
                "etcd cluster size {n} is not supported (choose 1, 3 or 5)"
            ),
            Error::UnknownMember(m) => write!(f, "etcd member {m:?} not found"),
        }
    }
}

impl std::error::Error for Error {}

/// The etcd cluster's membership, leader and term, on the virtual clock.
#[derive(Debug, Clone)]
pub struct EtcdCluster {
    members: Vec<Member>,
    term: u64,
    leader: Option<usize>,
    /// When the pending election (or the leader's check-quorum step-down) happens.
    deadline: Option<Timestamp>,
    rng: SimRng,
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
        let members = (0..size)
            .map(|i| Member {
                id: rng.next_u64(),
                name: format!("etcd-{i}"),
                role: if i == 0 { Role::Leader } else { Role::Follower },
            })
            .collect();
        EtcdCluster {
            members,
            term: 1,
            leader: Some(0),
            deadline: None,
            rng,
        }
    }

    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The member a "kill an etcd member" scenario step takes down: a live follower, so the
    /// cluster keeps its leader and the story is about quorum, else any live member.
    pub fn member_to_kill(&self) -> Option<&str> {
        let alive = || self.members.iter().filter(|m| m.is_alive());
        alive()
            .find(|m| m.role != Role::Leader)
            .or_else(|| alive().next())
            .map(|m| m.name.as_str())
    }

    /// The members that are down, in order: what "restore etcd" brings back.
    pub fn down_members(&self) -> Vec<String> {
        self.members
            .iter()
            .filter(|m| !m.is_alive())
            .map(|m| m.name.clone())
            .collect()
    }

    pub fn term(&self) -> u64 {
        self.term
    }

    pub fn leader(&self) -> Option<&Member> {
        self.leader.and_then(|i| self.members.get(i))
    }

    /// The number of members a decision needs: ⌊n/2⌋ + 1.
    pub fn quorum(&self) -> usize {
        self.members.len() / 2 + 1
    }

    pub fn alive(&self) -> usize {
        self.members.iter().filter(|m| m.is_alive()).count()
    }

    pub fn has_majority(&self) -> bool {
        self.alive() >= self.quorum()
    }

    /// A proposal commits only through a leader that a majority follows.
    pub fn can_commit(&self) -> bool {
        self.leader.is_some() && self.has_majority()
    }

    /// The next moment [`EtcdCluster::advance_to`] has work to do.
    pub fn next_timer(&self) -> Option<Timestamp> {
        self.deadline
    }

    /// Stops a member (its process is killed).
    pub fn kill(&mut self, name: &str, now: Timestamp) -> Result<Vec<MembershipEvent>, Error> {
        let i = self.index(name)?;
        let mut events = Vec::new();
        if !self.members[i].is_alive() {
            return Ok(events);
        }
        self.members[i].role = Role::Down;
        events.push(MembershipEvent::MemberDown {
            member: name.to_string(),
        });
        if self.leader == Some(i) {
            self.leader = None;
            events.push(MembershipEvent::LeaderLost {
                member: name.to_string(),
                term: self.term,
            });
        }
        self.schedule(now);
        Ok(events)
    }

    /// Starts a stopped member again; it rejoins as a follower.
    pub fn restore(&mut self, name: &str, now: Timestamp) -> Result<Vec<MembershipEvent>, Error> {
        let i = self.index(name)?;
        let mut events = Vec::new();
        if self.members[i].is_alive() {
            return Ok(events);
        }
        self.members[i].role = Role::Follower;
        events.push(MembershipEvent::MemberUp {
            member: name.to_string(),
        });
        self.schedule(now);
        Ok(events)
    }

    /// Runs elections and check-quorum step-downs that are due by `now`.
    pub fn advance_to(&mut self, now: Timestamp) -> Vec<MembershipEvent> {
        let mut events = Vec::new();
        while let Some(at) = self.deadline {
            if at > now {
                break;
            }
            self.deadline = None;
            match self.leader {
                Some(l) if !self.has_majority() => {
                    // check-quorum: a leader that cannot hear from a majority for an election
                    // timeout steps down, so a partitioned minority cannot pretend to lead.
                    self.members[l].role = Role::Follower;
                    self.leader = None;
                    events.push(MembershipEvent::LeaderLost {
                        member: self.members[l].name.clone(),
                        term: self.term,
                    });
                    self.schedule(at);
                }
                Some(_) => {}
                None => self.run_election(at, &mut events),
            }
        }
        events
    }

    fn run_election(&mut self, at: Timestamp, events: &mut Vec<MembershipEvent>) {
        let alive: Vec<usize> = (0..self.members.len())
            .filter(|&i| self.members[i].is_alive())
            .collect();
        if alive.is_empty() {
            return;
        }
        // The member whose randomized timer fired first becomes the candidate.
        let candidate = alive[self.rng.below(alive.len() as u64) as usize];
        if self.has_majority() {
            self.term += 1;
            for &i in &alive {
                self.members[i].role = Role::Follower;
            }
            self.members[candidate].role = Role::Leader;
            self.leader = Some(candidate);
            events.push(MembershipEvent::LeaderElected {
                member: self.members[candidate].name.clone(),
                term: self.term,
            });
        } else {
            // Without a majority no vote can succeed. With pre-vote (etcd's --pre-vote) a
            // candidate does not raise the term for an election it cannot win, so the term stays
            // put however long the outage lasts; the candidate keeps trying.
            for &i in &alive {
                self.members[i].role = Role::Follower;
            }
            self.members[candidate].role = Role::Candidate;
            self.schedule(at);
        }
    }

    /// Arms the next election or step-down timer if the situation calls for one.
    fn schedule(&mut self, now: Timestamp) {
        let needs_timer = match self.leader {
            None => self.alive() > 0,
            Some(_) => !self.has_majority(),
        };
        if needs_timer && self.deadline.is_none() {
            let jitter = self.rng.below(ELECTION_TIMEOUT_MS);
            self.deadline = Some(now.plus_millis(ELECTION_TIMEOUT_MS + jitter));
        }
        if !needs_timer {
            self.deadline = None;
        }
    }

    fn index(&self, name: &str) -> Result<usize, Error> {
        self.members
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| Error::UnknownMember(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn only_odd_small_sizes() {
        assert!(EtcdCluster::new(3, 1).is_ok());
        assert_eq!(
            EtcdCluster::new(4, 1).err(),
            Some(Error::UnsupportedSize(4))
        );
    }

    #[test]
    fn starts_with_a_leader_and_commits() {
        let c = EtcdCluster::new(3, 1).unwrap();
        assert_eq!(c.leader().map(|m| m.name.as_str()), Some("etcd-0"));
        assert_eq!(c.quorum(), 2);
        assert!(c.can_commit());
    }

    #[test]
    fn losing_a_follower_changes_nothing() {
        let mut c = EtcdCluster::new(3, 1).unwrap();
        c.kill("etcd-2", t(0)).unwrap();
        assert!(c.can_commit());
        assert_eq!(c.next_timer(), None);
        assert_eq!(c.term(), 1);
    }

    #[test]
    fn the_scenario_kills_followers_first_and_restores_every_member_down() {
        let mut c = EtcdCluster::new(3, 1).unwrap();
        assert_eq!(
            c.member_to_kill(),
            Some("etcd-1"),
            "a follower, not the leader"
        );
        c.kill("etcd-1", t(0)).unwrap();
        c.kill("etcd-2", t(0)).unwrap();
        assert_eq!(
            c.member_to_kill(),
            Some("etcd-0"),
            "only the leader is left"
        );
        assert_eq!(c.down_members(), ["etcd-1", "etcd-2"]);
        c.kill("etcd-0", t(0)).unwrap();
        assert_eq!(c.member_to_kill(), None);
    }

    #[test]
    fn losing_the_leader_elects_another_after_the_election_timeout() {
        let mut c = EtcdCluster::new(3, 1).unwrap();
        let ev = c.kill("etcd-0", t(0)).unwrap();
        assert!(ev.contains(&MembershipEvent::LeaderLost {
            member: "etcd-0".into(),
            term: 1
        }));
        assert!(!c.can_commit());
        let at = c.next_timer().unwrap();
        assert!((1000..2000).contains(&at.as_millis()), "{at:?}");
        assert!(c.advance_to(t(at.as_millis() - 1)).is_empty());
        let ev = c.advance_to(at);
        assert!(
            matches!(&ev[..], [MembershipEvent::LeaderElected { term: 2, .. }]),
            "{ev:?}"
        );
        assert!(c.can_commit());
        assert_ne!(c.leader().unwrap().name, "etcd-0");
    }

    #[test]
    fn without_a_majority_nothing_commits_until_a_member_returns() {
        let mut c = EtcdCluster::new(3, 2).unwrap();
        c.kill("etcd-1", t(0)).unwrap();
        c.kill("etcd-2", t(0)).unwrap();
        assert!(!c.can_commit(), "a leader without a majority cannot commit");
        // check-quorum: the lone leader steps down.
        let ev = c.advance_to(t(10_000));
        assert!(
            ev.contains(&MembershipEvent::LeaderLost {
                member: "etcd-0".into(),
                term: 1
            }),
            "{ev:?}"
        );
        assert!(c.leader().is_none());
        c.advance_to(t(60_000));
        assert!(c.leader().is_none());
        assert_eq!(c.term(), 1, "pre-vote keeps the term during the outage");
        c.restore("etcd-2", t(60_000)).unwrap();
        let at = c.next_timer().unwrap();
        let ev = c.advance_to(at);
        assert!(
            matches!(&ev[..], [MembershipEvent::LeaderElected { term: 2, .. }]),
            "{ev:?}"
        );
        assert!(c.can_commit());
    }

    #[test]
    fn a_single_member_cluster_dies_with_its_member() {
        let mut c = EtcdCluster::new(1, 3).unwrap();
        c.kill("etcd-0", t(0)).unwrap();
        assert!(!c.can_commit());
        assert_eq!(c.next_timer(), None, "no one is left to hold an election");
        c.restore("etcd-0", t(5)).unwrap();
        let at = c.next_timer().unwrap();
        c.advance_to(at);
        assert!(c.can_commit());
    }

    #[test]
    fn unknown_members_are_refused() {
        let mut c = EtcdCluster::new(3, 1).unwrap();
        assert_eq!(
            c.kill("etcd-9", t(0)).err(),
            Some(Error::UnknownMember("etcd-9".into()))
        );
    }
}
