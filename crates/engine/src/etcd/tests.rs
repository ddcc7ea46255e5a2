//! The members' behaviour a learner sees (elections, quorum, partitions, stale reads) and
//! Raft's safety properties held over random schedules of faults.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

fn t(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

const REV: Revision = 100;

/// Runs the clock until `deadline`, stepping through every timer.
fn run_until(c: &mut EtcdCluster, deadline: u64) -> Vec<MembershipEvent> {
    unstamped(c.advance_to(t(deadline), REV))
}

/// The events without when they happened.
fn unstamped(events: Vec<(Timestamp, MembershipEvent)>) -> Vec<MembershipEvent> {
    events.into_iter().map(|(_, e)| e).collect()
}

fn write(c: &mut EtcdCluster) -> Result<Index, RequestError> {
    let committed = c.propose(REV, || "PUT /registry/x".into())?;
    c.applied(committed, REV);
    Ok(committed.index)
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
fn starts_with_a_leader_in_term_one_and_commits() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    assert_eq!(c.leader().map(|m| m.name.as_str()), Some("etcd-0"));
    assert_eq!(c.term(), 1);
    assert!(c.can_commit());
    let i = write(&mut c).unwrap();
    assert_eq!(i, 2, "entry 1 is the leader's empty entry of term 1");
    assert_eq!(c.next_timer(), None, "a settled cluster needs no wake-up");
}

#[test]
fn a_write_is_on_every_reachable_log_and_a_cut_off_follower_serves_stale_reads() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    c.advance_to(t(0), 1);
    let first = write(&mut c).unwrap();
    for name in ["etcd-0", "etcd-1", "etcd-2"] {
        assert_eq!(c.node(name).unwrap().log.last_index(), first, "{name}");
    }
    assert_eq!(c.node("etcd-0").unwrap().commit, first);
    assert_eq!(
        c.members()[0].applied_revision,
        REV,
        "the leader applied the write"
    );
    assert!(
        c.node("etcd-1").unwrap().commit < first,
        "told on the next heartbeat"
    );
    c.advance_to(t(110), REV);
    assert_eq!(c.node("etcd-1").unwrap().commit, first);
    c.isolate("etcd-2", t(110), REV).unwrap();
    let committed = c.propose(REV, || "PUT /registry/x".into()).unwrap();
    c.applied(committed, REV + 1);
    c.advance_to(t(210), REV + 1);
    assert_eq!(c.applied_revision("etcd-1"), Ok(REV + 1));
    assert_eq!(
        c.applied_revision("etcd-2"),
        Ok(REV),
        "stale: it never heard"
    );
    c.heal(None, t(220), REV + 1).unwrap();
    c.advance_to(t(350), REV + 1);
    assert_eq!(
        c.applied_revision("etcd-2"),
        Ok(REV + 1),
        "caught up on a heartbeat"
    );
}

#[test]
fn losing_a_follower_changes_nothing() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    c.kill("etcd-2", t(0), 1).unwrap();
    assert!(c.can_commit());
    assert!(write(&mut c).is_ok());
    run_until(&mut c, 5_000);
    assert_eq!(c.term(), 1);
}

#[test]
fn losing_the_leader_elects_another_in_a_higher_term_after_the_election_timeout() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    let ev = unstamped(c.kill("etcd-0", t(0), 1).unwrap());
    assert!(ev.contains(&MembershipEvent::LeaderLost {
        member: "etcd-0".into(),
        term: 1
    }));
    assert!(!c.can_commit());
    assert!(
        c.advance_to(t(999), 1).is_empty(),
        "no one times out before 1 s"
    );
    let ev = run_until(&mut c, 2_500);
    assert!(
        ev.iter()
            .any(|e| matches!(e, MembershipEvent::LeaderElected { term: 2, .. })),
        "{ev:?}"
    );
    assert!(c.can_commit());
    assert_ne!(c.leader().unwrap().name, "etcd-0");
}

#[test]
fn without_a_majority_nothing_commits_and_pre_vote_keeps_the_term() {
    let mut c = EtcdCluster::new(3, 2).unwrap();
    c.kill("etcd-1", t(0), 1).unwrap();
    c.kill("etcd-2", t(0), 1).unwrap();
    assert_eq!(write(&mut c), Err(RequestError::TimedOut));
    let ev = run_until(&mut c, 10_000);
    assert!(
        ev.contains(&MembershipEvent::LeaderLost {
            member: "etcd-0".into(),
            term: 1
        }),
        "check-quorum steps the lone leader down: {ev:?}"
    );
    assert!(c.leader().is_none());
    assert_eq!(write(&mut c), Err(RequestError::NoLeader));
    assert_eq!(c.linearizable_read(), Err(RequestError::NoLeader));
    run_until(&mut c, 60_000);
    assert_eq!(c.term(), 1, "pre-vote keeps the term during the outage");
    c.restore("etcd-2", t(60_000), 1).unwrap();
    run_until(&mut c, 63_000);
    assert_eq!(c.term(), 2);
    assert!(write(&mut c).is_ok());
}

#[test]
fn an_isolated_leader_keeps_its_uncommitted_entry_until_the_new_leader_overwrites_it() {
    let mut c = EtcdCluster::new(3, 4).unwrap();
    c.advance_to(t(0), 1);
    let committed = write(&mut c).unwrap();
    c.isolate("etcd-0", t(10), REV).unwrap();
    // The isolated leader still believes it leads: the write lands in its log only.
    assert_eq!(write(&mut c), Err(RequestError::TimedOut));
    let old = c.node("etcd-0").unwrap();
    assert_eq!(old.log.last_index(), committed + 1);
    assert!(matches!(
        old.log.entry(committed + 1).unwrap().kind,
        log::EntryKind::Abandoned(_)
    ));
    // A serializable read there answers from what it applied; a linearizable one fails.
    assert_eq!(c.applied_revision("etcd-0"), Ok(REV));
    assert_eq!(c.linearizable_read(), Err(RequestError::TimedOut));
    let ev = run_until(&mut c, 4_000);
    assert!(ev.contains(&MembershipEvent::LeaderLost {
        member: "etcd-0".into(),
        term: 1
    }));
    let leader = c.leader().unwrap().clone();
    assert_ne!(leader.name, "etcd-0");
    assert_eq!(leader.term, 2);
    assert!(write(&mut c).is_ok(), "the majority side writes");
    c.heal(None, t(4_000), REV).unwrap();
    run_until(&mut c, 6_000);
    let old = c.node("etcd-0").unwrap();
    assert_eq!(old.term, 2, "the old leader follows the new term");
    assert_eq!(
        old.log.term_at(committed + 1),
        Some(2),
        "its entry was overwritten"
    );
    assert_eq!(c.next_timer(), None);
}

#[test]
fn a_partition_leaves_the_minority_without_writes_and_the_majority_elects() {
    let mut c = EtcdCluster::new(5, 7).unwrap();
    c.partition(&["etcd-0".into(), "etcd-1".into()], t(0), 1)
        .unwrap();
    run_until(&mut c, 5_000);
    let leader = c.leader().unwrap();
    assert!(!["etcd-0", "etcd-1"].contains(&leader.name.as_str()));
    assert_eq!(
        c.partition(&[], t(5_000), 1),
        Err(Error::BadPartition(
            "a group must hold some members but not all of them".into()
        ))
    );
}

#[test]
fn a_restored_member_catches_up_from_the_leader() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    c.kill("etcd-2", t(0), 1).unwrap();
    for _ in 0..20 {
        write(&mut c).unwrap();
    }
    c.restore("etcd-2", t(100), REV).unwrap();
    run_until(&mut c, 1_000);
    let leader_last = c.node("etcd-0").unwrap().log.last_index();
    assert_eq!(c.node("etcd-2").unwrap().log.last_index(), leader_last);
    assert_eq!(c.node("etcd-2").unwrap().commit, leader_last);
}

#[test]
fn move_leader_hands_over_in_a_higher_term() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    assert_eq!(c.move_leader("etcd-2", t(0), 1), Ok(true));
    run_until(&mut c, 100);
    assert_eq!(c.leader().unwrap().name, "etcd-2");
    assert_eq!(c.term(), 2);
    assert!(c.move_leader("etcd-9", t(100), 1).is_err());
}

#[test]
fn a_single_member_cluster_dies_with_its_member() {
    let mut c = EtcdCluster::new(1, 3).unwrap();
    c.kill("etcd-0", t(0), 1).unwrap();
    assert!(!c.can_commit());
    assert!(
        c.next_timer().is_some(),
        "the restored member must elect itself"
    );
    c.restore("etcd-0", t(5), 1).unwrap();
    run_until(&mut c, 3_000);
    assert!(c.can_commit());
}

#[test]
fn unknown_members_are_refused() {
    let mut c = EtcdCluster::new(3, 1).unwrap();
    assert_eq!(
        c.kill("etcd-9", t(0), 1).err(),
        Some(Error::UnknownMember("etcd-9".into()))
    );
}

/// One step of a random schedule.
#[derive(Debug, Clone)]
enum Op {
    Wait(u64),
    Write,
    Read,
    Kill(usize),
    Restore(usize),
    Isolate(usize),
    Partition(Vec<usize>),
    Heal,
    MoveLeader(usize),
}

fn op(size: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u64..1500).prop_map(Op::Wait),
        4 => Just(Op::Write),
        1 => Just(Op::Read),
        1 => (0..size).prop_map(Op::Kill),
        1 => (0..size).prop_map(Op::Restore),
        1 => (0..size).prop_map(Op::Isolate),
        1 => proptest::collection::vec(0..size, 1..size).prop_map(Op::Partition),
        2 => Just(Op::Heal),
        1 => (0..size).prop_map(Op::MoveLeader),
    ]
}

/// What the checks remember across steps.
#[derive(Default)]
struct Witness {
    /// term → the member that led it.
    leaders: BTreeMap<Term, usize>,
    /// index → (term of the entry committed there, term of the member it was first seen
    /// committed on: every leader of a later term must hold it).
    committed: BTreeMap<Index, (Term, Term)>,
}

impl Witness {
    fn check(&mut self, c: &EtcdCluster) -> Result<(), TestCaseError> {
        let nodes: Vec<&Node> = c.nodes.iter().collect();
        for n in &nodes {
            // Election safety: one leader per term.
            if n.role == RaftRole::Leader {
                let first = *self.leaders.entry(n.term).or_insert(n.id);
                prop_assert_eq!(first, n.id, "two leaders in term {}", n.term);
            }
            // State machine safety: what a member committed is what every member committed.
            for e in n.log.entries().filter(|e| e.index <= n.commit) {
                let (term, _) = *self.committed.entry(e.index).or_insert((e.term, n.term));
                prop_assert_eq!(term, e.term, "index {} committed twice", e.index);
            }
        }
        // Log matching: equal (index, term) means equal logs up to there.
        for a in &nodes {
            for b in &nodes {
                let mut agreed = false;
                for e in a.log.entries().rev() {
                    let same = b.log.term_at(e.index) == Some(e.term);
                    prop_assert!(!agreed || same, "logs differ below a match at {}", e.index);
                    agreed |= same;
                }
            }
        }
        // Leader completeness: a leader holds every committed entry.
        for n in nodes.iter().filter(|n| n.role == RaftRole::Leader) {
            for (&index, &(term, seen_in)) in &self.committed {
                if index > n.log.snapshot().0 && n.term > seen_in {
                    prop_assert_eq!(
                        n.log.term_at(index),
                        Some(term),
                        "leader {} of term {} lacks committed {}",
                        n.id,
                        n.term,
                        index
                    );
                }
            }
        }
        Ok(())
    }
}

fn run_schedule(size: usize, seed: u64, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut c = EtcdCluster::new(size, seed).unwrap();
    let mut now = 0;
    let mut rev = 1;
    let mut w = Witness::default();
    let name = |i: usize| format!("etcd-{i}");
    for op in ops {
        match op {
            Op::Wait(ms) => {
                now += ms;
                c.advance_to(t(now), rev);
            }
            Op::Write => {
                if let Ok(committed) = c.propose(rev, || "PUT k".into()) {
                    rev += 1;
                    c.applied(committed, rev);
                }
            }
            Op::Read => {
                let _ = c.linearizable_read();
            }
            Op::Kill(i) => drop(c.kill(&name(i), t(now), rev)),
            Op::Restore(i) => drop(c.restore(&name(i), t(now), rev)),
            Op::Isolate(i) => drop(c.isolate(&name(i), t(now), rev)),
            Op::Partition(g) => {
                let g: Vec<String> = g.into_iter().map(name).collect();
                let _ = c.partition(&g, t(now), rev);
            }
            Op::Heal => drop(c.heal(None, t(now), rev)),
            Op::MoveLeader(i) => drop(c.move_leader(&name(i), t(now), rev)),
        }
        w.check(&c)?;
    }
    // Healed and whole, the members elect a leader and agree again.
    for i in 0..size {
        let _ = c.restore(&name(i), t(now), rev);
    }
    let _ = c.heal(None, t(now), rev);
    c.advance_to(t(now + 10_000), rev);
    w.check(&c)?;
    prop_assert!(c.can_commit(), "no leader 10 s after healing");
    prop_assert!(c.propose(rev, || "PUT k".into()).is_ok());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn raft_stays_safe_under_random_faults(
        size in prop::sample::select(vec![3usize, 5]),
        seed in 0u64..1000,
        ops in proptest::collection::vec(op(5), 1..120),
    ) {
        let ops = ops.into_iter().map(|o| match o {
            Op::Kill(i) => Op::Kill(i % size),
            Op::Restore(i) => Op::Restore(i % size),
            Op::Isolate(i) => Op::Isolate(i % size),
            Op::MoveLeader(i) => Op::MoveLeader(i % size),
            Op::Partition(g) => Op::Partition(g.into_iter().map(|i| i % size).collect()),
            o => o,
        }).collect();
        run_schedule(size, seed, ops)?;
    }
}

/// Raft's Figure 8: an entry of an older term that reached a majority is not committed by
/// counting replicas; it commits only under an entry of the leader's own term.
#[test]
fn a_leader_never_commits_an_older_terms_entry_by_counting_replicas() {
    use raft::{Body, Message, Progress};
    let mut n = Node::new(0, 5, SimRng::seed_from_u64(1));
    n.log.push(2, log::EntryKind::Write);
    n.term = 4;
    n.role = RaftRole::Leader;
    n.leader = Some(0);
    n.log.push(4, log::EntryKind::Noop);
    n.progress = vec![Progress::default(); 5];
    n.progress[0].matched = 2;
    for p in &mut n.progress[1..] {
        p.next = 1;
    }
    let ack = |from, index| Message {
        from,
        to: 0,
        term: 4,
        body: Body::AppendReply {
            success: true,
            index,
        },
    };
    n.step(ack(1, 1));
    n.step(ack(2, 1));
    assert_eq!(
        n.commit, 0,
        "entry 1 (term 2) is on three of five logs, not of term 4"
    );
    n.step(ack(1, 2));
    assert_eq!(n.commit, 0);
    n.step(ack(2, 2));
    assert_eq!(n.commit, 2, "the term-4 entry commits, and entry 1 with it");
}
