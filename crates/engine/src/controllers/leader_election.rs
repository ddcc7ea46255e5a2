//! Leader election over a Lease, as client-go's `tools/leaderelection` (v1.32) does it for
//! kube-controller-manager and kube-scheduler: of several replicas, the one holding the Lease
//! `kube-system/<component>` runs its controllers. This is the first piece of the highly
//! available control plane (issue #34): the elector alone, stepped on the virtual clock; the
//! control plane does not run replicas through it yet.
//!
//! The rules are upstream's, in its order (`leaderelection.go`):
//! - **acquire**: a candidate tries at once and then every `RetryPeriod` (2 s) plus up to 1.2×
//!   of it in jitter (`wait.JitterUntil`), until `tryAcquireOrRenew` succeeds; it records the
//!   Event `LeaderElection` "<identity> became leader" on the Lease;
//! - **renew**: the leader tries again at once, then every `RetryPeriod`; each try is a poll
//!   that may last `RenewDeadline` (10 s). A poll that times out ends the leadership
//!   (`OnStoppedLeading`; the Event "<identity> stopped leading"): the process exits.
//! - **tryAcquireOrRenew**: a leader whose observed record is still valid first updates the Lease
//!   as it last held it (the optimistic path: its resourceVersion is the precondition, so a
//!   Lease someone else wrote answers 409); otherwise, or after a 409, it reads the Lease:
//!   none → it creates it; held by another whose record it has observed for less than
//!   `LeaseDuration` (15 s) → not acquired; else it writes itself in, keeping `acquireTime` and
//!   `leaseTransitions` if it was the holder, or adding one transition if it was not.
//!
//! Validity is judged on the *observed time* — when this elector last saw the record change —
//! not on the Lease's `renewTime`, as upstream does (clocks of different machines are not
//! compared). Hence the failure HA brings: a paused leader still believes it leads when it
//! resumes, until a try fails and its renew poll times out; only its writes with a
//! resourceVersion precondition are fenced by the 409.

use std::sync::Arc;

use super::events::{EventRecorder, EventType};
use crate::api::lease::{Lease, LeaseSpec};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;
use crate::rng::SimRng;
use watchlab_apimachinery::status::StatusReason;

/// `--leader-elect-lease-duration` (15 s): how long a record, once observed, keeps others out.
pub const LEASE_DURATION_MS: u64 = 15_000;
/// `--leader-elect-renew-deadline` (10 s): how long a leader's renew poll may try.
pub const RENEW_DEADLINE_MS: u64 = 10_000;
/// `--leader-elect-retry-period` (2 s): the interval between tries.
pub const RETRY_PERIOD_MS: u64 = 2_000;
/// `leaderelection.JitterFactor`: a candidate waits `RetryPeriod × (1 + 1.2 × [0, 1))`.
pub const JITTER_FACTOR: f64 = 1.2;
/// The namespace of the control plane's Leases.
pub const LEASE_NAMESPACE: &str = "kube-system";

/// Where an elector is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Trying to acquire the Lease; the next try at `next_try`.
    Candidate { next_try: Timestamp },
    /// Leading (its controllers run). The renew poll under way began at `poll_start` (it times
    /// out at `poll_start + RenewDeadline`); the next try at `next_try`.
    Leading {
        poll_start: Timestamp,
        next_try: Timestamp,
    },
    /// The renew poll timed out: leadership is over (the real process exits here).
    Stopped,
}

/// What a step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// `OnStartedLeading`: the controllers start.
    BecameLeader,
    /// `OnStoppedLeading`: the controllers stop.
    StoppedLeading,
}

/// One replica's elector for one Lease.
#[derive(Debug)]
pub struct LeaderElector {
    namespace: String,
    name: String,
    /// `holderIdentity` when it leads (the replica's name, `_`, a uuid, as the real one is the
    /// host name, `_`, a uuid).
    identity: String,
    /// The user agent its writes carry.
    user: String,
    /// The Lease as it last read or wrote it (`LeaseLock.lease`): its resourceVersion is the
    /// precondition of the next update.
    lease: Option<Arc<Object>>,
    /// The record it last observed and when (`observedRecord`, `observedTime`).
    observed: Option<LeaseSpec>,
    observed_time: Timestamp,
    /// The record as last read from the server (`observedRawRecord`): a read that finds it
    /// unchanged does not move the observed time.
    observed_raw: Option<LeaseSpec>,
    phase: Phase,
    rng: SimRng,
}

impl LeaderElector {
    /// A candidate for `kube-system/<name>` that tries first at `now`.
    pub fn new(name: &str, identity: &str, user: &str, rng: SimRng, now: Timestamp) -> Self {
        LeaderElector {
            namespace: LEASE_NAMESPACE.to_string(),
            name: name.to_string(),
            identity: identity.to_string(),
            user: user.to_string(),
            lease: None,
            observed: None,
            observed_time: Timestamp::ZERO,
            observed_raw: None,
            phase: Phase::Candidate { next_try: now },
            rng,
        }
    }

    pub fn identity(&self) -> &str {
        &self.identity
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether it leads: its controllers run from `BecameLeader` to `StoppedLeading`.
    pub fn leading(&self) -> bool {
        matches!(self.phase, Phase::Leading { .. })
    }

    /// `IsLeader`: whether the record it last observed names it — what a paused leader still
    /// believes when it resumes.
    pub fn believes_it_leads(&self) -> bool {
        self.observed
            .as_ref()
            .and_then(|r| r.holder_identity.as_deref())
            == Some(self.identity.as_str())
    }

    /// When it next needs a step.
    pub fn next_wakeup(&self) -> Option<Timestamp> {
        match self.phase {
            Phase::Candidate { next_try } => Some(next_try),
            Phase::Leading {
                poll_start,
                next_try,
            } => Some(next_try.min(poll_start.plus_millis(RENEW_DEADLINE_MS))),
            Phase::Stopped => None,
        }
    }

    /// Runs what is due at `now`: a try to acquire, a renew (and the renew that follows an
    /// acquire at once), or the end of a renew poll that timed out. The Events go through
    /// `recorder` (the component's).
    pub fn step(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        recorder: &mut EventRecorder,
    ) -> Option<Transition> {
        match self.phase {
            Phase::Candidate { next_try } if next_try <= now => {
                if !self.try_acquire_or_renew(api, now) {
                    let jitter = (self.rng.unit() * JITTER_FACTOR * RETRY_PERIOD_MS as f64) as u64;
                    self.phase = Phase::Candidate {
                        next_try: now.plus_millis(RETRY_PERIOD_MS + jitter),
                    };
                    return None;
                }
                self.record(api, now, recorder, "became leader");
                // `renew` starts at once: its first poll tries immediately.
                self.phase = Phase::Leading {
                    poll_start: now,
                    next_try: now,
                };
                self.renew(api, now, recorder);
                Some(Transition::BecameLeader)
            }
            Phase::Leading { .. } => self.renew(api, now, recorder),
            _ => None,
        }
    }

    /// The renew loop's work due at `now`.
    fn renew(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        recorder: &mut EventRecorder,
    ) -> Option<Transition> {
        let Phase::Leading {
            poll_start,
            next_try,
        } = self.phase
        else {
            return None;
        };
        let deadline = poll_start.plus_millis(RENEW_DEADLINE_MS);
        if now >= deadline {
            self.phase = Phase::Stopped;
            self.record(api, now, recorder, "stopped leading");
            return Some(Transition::StoppedLeading);
        }
        if next_try > now {
            return None;
        }
        let next = now.plus_millis(RETRY_PERIOD_MS);
        self.phase = if self.try_acquire_or_renew(api, now) {
            // The poll succeeded: the next poll begins a retry period later.
            Phase::Leading {
                poll_start: next,
                next_try: next,
            }
        } else {
            Phase::Leading {
                poll_start,
                next_try: next,
            }
        };
        None
    }

    /// `tryAcquireOrRenew`: whether it holds the Lease after this try.
    fn try_acquire_or_renew(&mut self, api: &mut ApiServer, now: Timestamp) -> bool {
        let mut record = LeaseSpec {
            holder_identity: Some(self.identity.clone()),
            lease_duration_seconds: Some((LEASE_DURATION_MS / 1_000) as i32),
            acquire_time: Some(now),
            renew_time: Some(now),
            lease_transitions: Some(0),
        };
        // The optimistic path: the Lease as it last held it, with its resourceVersion.
        if self.believes_it_leads() && self.lease_valid(now) {
            if let Some(old) = &self.observed {
                record.acquire_time = old.acquire_time;
                record.lease_transitions = old.lease_transitions;
            }
            if self.update(api, &record) {
                self.set_observed(record, now);
                return true;
            }
        }
        let current = match api.get(Kind::Lease, Some(&self.namespace), &self.name) {
            Ok(obj) => obj,
            Err(s) if s.reason() == StatusReason::NotFound => return self.create(api, record, now),
            Err(_) => return false,
        };
        let Object::Lease(lease) = &*current else {
            return false;
        };
        let old = lease.spec.clone();
        self.lease = Some(current.clone());
        if self.observed_raw.as_ref() != Some(&old) {
            self.set_observed(old.clone(), now);
            self.observed_raw = Some(old.clone());
        }
        let held = old
            .holder_identity
            .as_deref()
            .is_some_and(|h| !h.is_empty());
        if held && self.lease_valid(now) && !self.believes_it_leads() {
            return false;
        }
        if self.believes_it_leads() {
            record.acquire_time = old.acquire_time;
            record.lease_transitions = old.lease_transitions;
        } else {
            record.lease_transitions = Some(old.lease_transitions.unwrap_or(0) + 1);
        }
        if !self.update(api, &record) {
            return false;
        }
        self.set_observed(record, now);
        true
    }

    /// `isLeaseValid`: the observed record's duration has not passed since it was observed.
    fn lease_valid(&self, now: Timestamp) -> bool {
        let seconds = self
            .observed
            .as_ref()
            .and_then(|r| r.lease_duration_seconds)
            .unwrap_or(0);
        self.observed_time
            .plus_millis(u64::try_from(seconds).unwrap_or(0) * 1_000)
            > now
    }

    fn set_observed(&mut self, record: LeaseSpec, now: Timestamp) {
        self.observed = Some(record);
        self.observed_time = now;
    }

    /// `LeaseLock.Create`.
    fn create(&mut self, api: &mut ApiServer, record: LeaseSpec, now: Timestamp) -> bool {
        let lease = Lease {
            metadata: ObjectMeta::named(&self.namespace, &self.name),
            spec: record.clone(),
        };
        match api.create(&self.user, Object::Lease(lease)) {
            Ok(obj) => {
                self.lease = Some(obj);
                self.set_observed(record, now);
                true
            }
            Err(_) => false,
        }
    }

    /// `LeaseLock.Update`: the Lease it holds with `record` as its spec; a Lease written by
    /// someone else since answers 409.
    fn update(&mut self, api: &mut ApiServer, record: &LeaseSpec) -> bool {
        let Some(Object::Lease(held)) = self.lease.as_deref() else {
            return false;
        };
        let mut lease = held.clone();
        lease.spec = record.clone();
        match api.update(&self.user, Object::Lease(lease)) {
            Ok(obj) => {
                self.lease = Some(obj);
                true
            }
            Err(_) => false,
        }
    }

    /// `LeaseLock.RecordEvent`: `LeaderElection` on the Lease, "<identity> <what>".
    fn record(
        &self,
        api: &mut ApiServer,
        now: Timestamp,
        recorder: &mut EventRecorder,
        what: &str,
    ) {
        let subject = match self.lease.as_deref() {
            Some(obj) => obj.clone(),
            None => Object::Lease(Lease {
                metadata: ObjectMeta::named(&self.namespace, &self.name),
                spec: LeaseSpec::default(),
            }),
        };
        let message = format!("{} {what}", self.identity);
        recorder.record(
            api,
            now,
            &subject,
            EventType::Normal,
            "LeaderElection",
            &message,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "kube-controller-manager";

    fn replica(i: u32, now: Timestamp) -> LeaderElector {
        let identity = format!("{NAME}-{i}_0000000{i}-uuid");
        LeaderElector::new(NAME, &identity, NAME, SimRng::child(7, &identity), now)
    }

    fn lease(api: &ApiServer) -> LeaseSpec {
        match &*api.get(Kind::Lease, Some(LEASE_NAMESPACE), NAME).unwrap() {
            Object::Lease(l) => l.spec.clone(),
            other => panic!("{other:?}"),
        }
    }

    /// The LeaderElection Events' messages, in order.
    fn elections(api: &ApiServer) -> Vec<String> {
        let list = api
            .list(Kind::Event, Some(LEASE_NAMESPACE), &Default::default())
            .unwrap();
        let mut events: Vec<_> = list
            .items
            .iter()
            .filter_map(|o| match &**o {
                Object::Event(e) if e.reason == "LeaderElection" => {
                    Some((e.metadata.resource_version.clone(), e.message.to_string()))
                }
                _ => None,
            })
            .collect();
        events.sort_by_key(|(rv, _)| rv.parse::<u64>().unwrap_or(0));
        events.into_iter().map(|(_, m)| m).collect()
    }

    /// Steps `replicas` every 100 ms from `from` to `until`, each on its own clock: `clock`
    /// gives a replica's time at the cluster's (`None` while it is stopped or paused: a paused
    /// process's monotonic clock stands still too).
    fn run(
        api: &mut ApiServer,
        replicas: &mut [(LeaderElector, EventRecorder)],
        clock: impl Fn(usize, Timestamp) -> Option<Timestamp>,
        from: Timestamp,
        until: Timestamp,
    ) -> Vec<(Timestamp, usize, Transition)> {
        let mut transitions = Vec::new();
        let mut now = from;
        while now <= until {
            api.set_now(now);
            for (i, (elector, recorder)) in replicas.iter_mut().enumerate() {
                let Some(own) = clock(i, now) else { continue };
                if elector.next_wakeup().is_some_and(|t| t <= own) {
                    if let Some(t) = elector.step(api, own, recorder) {
                        transitions.push((now, i, t));
                    }
                }
            }
            now = now.plus_millis(100);
        }
        transitions
    }

    fn pair(now: Timestamp) -> Vec<(LeaderElector, EventRecorder)> {
        (0..2)
            .map(|i| {
                (
                    replica(i, now),
                    EventRecorder::new(NAME, "kube-controller-manager", ""),
                )
            })
            .collect()
    }

    #[test]
    fn the_first_replica_creates_the_lease_and_renews_it_every_retry_period() {
        let mut api = ApiServer::new(1);
        let t0 = api.now();
        let mut replicas = pair(t0);
        let only_first = |i: usize, now: Timestamp| (i == 0).then_some(now);
        let transitions = run(&mut api, &mut replicas, only_first, t0, t0.plus_secs(9));
        assert_eq!(transitions, [(t0, 0, Transition::BecameLeader)]);
        let spec = lease(&api);
        assert_eq!(
            spec.holder_identity.as_deref(),
            Some(replicas[0].0.identity())
        );
        assert_eq!(spec.lease_duration_seconds, Some(15));
        assert_eq!(spec.lease_transitions, Some(0));
        assert_eq!(spec.acquire_time, Some(t0));
        // Renewed at once after acquiring, then every 2 s: the last at 8 s.
        assert_eq!(spec.renew_time, Some(t0.plus_secs(8)));
        assert_eq!(
            elections(&api),
            [format!("{} became leader", replicas[0].0.identity())]
        );
    }

    #[test]
    fn a_killed_leader_is_replaced_within_lease_duration_and_retry_period() {
        let mut api = ApiServer::new(1);
        let t0 = api.now();
        let mut replicas = pair(t0);
        let killed = t0.plus_secs(10);
        // Replica 1 starts a second later and finds the Lease held.
        let running = |i: usize, now: Timestamp| {
            let up = match i {
                0 => now < killed,
                _ => now >= t0.plus_secs(1),
            };
            up.then_some(now)
        };
        let transitions = run(&mut api, &mut replicas, running, t0, t0.plus_secs(40));
        assert_eq!(transitions[0], (t0, 0, Transition::BecameLeader));
        let (at, who, what) = transitions[1];
        assert_eq!((who, what), (1, Transition::BecameLeader));
        // The leader's last renew was at 8 s; replica 1 observed it at its next try, and takes
        // over 15 s after that observation, at its first try after (a try every 2–4.4 s).
        let last_renew = t0.plus_secs(8);
        assert!(at > last_renew.plus_millis(LEASE_DURATION_MS), "{at:?}");
        assert!(
            at <= killed.plus_millis(LEASE_DURATION_MS + RETRY_PERIOD_MS * 22 / 10),
            "{at:?}"
        );
        let spec = lease(&api);
        assert_eq!(
            spec.holder_identity.as_deref(),
            Some(replicas[1].0.identity())
        );
        assert_eq!(spec.lease_transitions, Some(1));
        assert_eq!(spec.acquire_time, Some(at));
        assert_eq!(elections(&api).len(), 2);
    }

    #[test]
    fn a_paused_leader_believes_it_leads_until_its_renew_poll_times_out() {
        let mut api = ApiServer::new(1);
        let t0 = api.now();
        let mut replicas = pair(t0);
        let (paused, resumed) = (t0.plus_secs(10), t0.plus_secs(40));
        let pause_ms = resumed.millis_since(paused);
        // Replica 0 is paused from 10 s to 40 s: its clock stands still, and reads 30 s less
        // once it runs again.
        let clock = move |i: usize, now: Timestamp| match i {
            0 if now < paused => Some(now),
            0 if now < resumed => None,
            0 => Some(Timestamp::from_millis(now.as_millis() - pause_ms)),
            _ => Some(now),
        };
        let before = Timestamp::from_millis(resumed.as_millis() - 100);
        let transitions = run(&mut api, &mut replicas, clock, t0, before);
        assert!(transitions.contains(&(t0, 0, Transition::BecameLeader)));
        assert!(transitions
            .iter()
            .any(|&(_, i, t)| i == 1 && t == Transition::BecameLeader));
        // Resumed: the record it last saw is its own, so it still believes it leads.
        let (old, _) = &replicas[0];
        assert!(old.believes_it_leads() && old.leading());
        // Its next try: the optimistic update is refused (409: the Lease moved on) and the read
        // shows replica 1's valid record, no longer its own; its controllers still run until
        // the renew poll times out, 10 s (of its clock) after the poll began.
        let transitions = run(
            &mut api,
            &mut replicas,
            clock,
            resumed,
            resumed.plus_secs(5),
        );
        assert!(transitions.is_empty(), "{transitions:?}");
        let (old, _) = &replicas[0];
        assert!(!old.believes_it_leads());
        assert!(old.leading(), "the controllers still run");
        assert_eq!(
            lease(&api).holder_identity.as_deref(),
            Some(replicas[1].0.identity())
        );
        let transitions = run(
            &mut api,
            &mut replicas,
            clock,
            resumed.plus_secs(5),
            resumed.plus_secs(15),
        );
        assert_eq!(transitions.len(), 1);
        assert_eq!(
            (transitions[0].1, transitions[0].2),
            (0, Transition::StoppedLeading)
        );
        assert_eq!(replicas[0].0.phase(), Phase::Stopped);
        assert_eq!(
            elections(&api).last().map(String::as_str),
            Some(format!("{} stopped leading", replicas[0].0.identity()).as_str())
        );
    }

    #[test]
    fn a_leader_that_cannot_write_its_lease_stops_leading_after_the_renew_deadline() {
        let mut api = ApiServer::new(1);
        let t0 = api.now();
        let mut replicas = pair(t0);
        let only_first = |i: usize, now: Timestamp| (i == 0).then_some(now);
        run(&mut api, &mut replicas, only_first, t0, t0.plus_secs(5));
        // etcd loses its majority after the renew at 4 s: the next poll begins at 6 s.
        for m in ["etcd-1", "etcd-2"] {
            api.etcd_fault(&crate::apiserver::EtcdFault::Kill(m.into()))
                .unwrap();
        }
        let transitions = run(
            &mut api,
            &mut replicas,
            only_first,
            t0.plus_secs(5),
            t0.plus_secs(30),
        );
        assert_eq!(
            transitions,
            [(t0.plus_secs(16), 0, Transition::StoppedLeading)]
        );
    }
}
