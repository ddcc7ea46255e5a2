//! The network between etcd members: a link per pair, each with a delay on the virtual clock,
//! and the faults a trainer can cause — a link cut (isolate a member, partition the members
//! into groups) and healed. A message over a cut link, or to a member that is down when it
//! arrives, is lost, as a TCP connection to a partitioned peer loses it; Raft retries by itself.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use super::raft::Message;
use crate::clock::Timestamp;

/// The default one-way delay of a link between members: a few milliseconds, a LAN between
/// machines of one data centre (etcd's tuning guide assumes a round trip well under the
/// 100 ms heartbeat).
pub const DEFAULT_LINK_DELAY_MS: u64 = 2;

/// A message on its way.
#[derive(Debug, Clone)]
struct InFlight {
    at: Timestamp,
    seq: u64,
    message: Message,
}

impl PartialEq for InFlight {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InFlight {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

#[derive(Debug, Clone)]
pub struct Network {
    members: usize,
    delay_ms: u64,
    /// Cut links, as (lower, higher) member index pairs.
    cut: BTreeSet<(usize, usize)>,
    in_flight: BinaryHeap<Reverse<InFlight>>,
    seq: u64,
}

impl Network {
    pub fn new(members: usize, delay_ms: u64) -> Self {
        Network {
            members,
            delay_ms,
            cut: BTreeSet::new(),
            in_flight: BinaryHeap::new(),
            seq: 0,
        }
    }

    fn pair(a: usize, b: usize) -> (usize, usize) {
        (a.min(b), a.max(b))
    }

    /// Whether `a` and `b` can talk (a member always reaches itself).
    pub fn connected(&self, a: usize, b: usize) -> bool {
        a == b || !self.cut.contains(&Self::pair(a, b))
    }

    pub fn delay_ms(&self) -> u64 {
        self.delay_ms
    }

    /// Cuts every link of `member`.
    pub fn isolate(&mut self, member: usize) {
        for other in 0..self.members {
            if other != member {
                self.cut.insert(Self::pair(member, other));
            }
        }
    }

    /// Cuts every link between a member of `group` and one outside it.
    pub fn partition(&mut self, group: &[usize]) {
        for a in group {
            for b in (0..self.members).filter(|b| !group.contains(b)) {
                self.cut.insert(Self::pair(*a, b));
            }
        }
    }

    /// Restores every link of `member`.
    pub fn rejoin(&mut self, member: usize) {
        self.cut.retain(|&(a, b)| a != member && b != member);
    }

    /// Restores every link.
    pub fn heal(&mut self) {
        self.cut.clear();
    }

    pub fn is_whole(&self) -> bool {
        self.cut.is_empty()
    }

    /// Puts a message on its link; over a cut link it is lost at once.
    pub fn send(&mut self, now: Timestamp, message: Message) {
        if !self.connected(message.from, message.to) {
            return;
        }
        self.seq += 1;
        self.in_flight.push(Reverse(InFlight {
            at: now.plus_millis(self.delay_ms),
            seq: self.seq,
            message,
        }));
    }

    /// When the next message arrives.
    pub fn next_arrival(&self) -> Option<Timestamp> {
        self.in_flight.peek().map(|Reverse(m)| m.at)
    }

    /// The next message due by `now`, if its link still stands (a link cut while the message
    /// travelled loses it).
    pub fn pop_due(&mut self, now: Timestamp) -> Option<Option<Message>> {
        if self.next_arrival()? > now {
            return None;
        }
        let Reverse(m) = self.in_flight.pop()?;
        let kept = self.connected(m.message.from, m.message.to);
        Some(kept.then_some(m.message))
    }

    /// The messages on their way (for the drawing).
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
}
