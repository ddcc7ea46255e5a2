//! What the kubelet's runtime, prober and restart back-off do with one container of a running
//! pod, on virtual time: the simulated process ([`Behaviour`]) answers the startup, liveness and
//! readiness probes and may exit; the kubelet counts consecutive results against the probe's
//! thresholds, kills the container after failureThreshold liveness (or startup) failures,
//! restarts exited containers as `restartPolicy` says, and waits out the crash-loop back-off
//! between restarts. The kubelet turns the state into the pod's status
//! ([`super::kubelet`]) and the [`Happening`]s into Events.
//!
//! Timings, as kubelet v1.32 has them: the first restart follows at the pod worker's next sync
//! (PLEG's relist, 1 s after the exit); after that each restart waits a back-off that starts at
//! 10 s and doubles up to 300 s (`backOffPeriod`, `MaxContainerBackOff`), counted from the exit;
//! it resets when a container ran 10 minutes (twice the maximum, `flowcontrol.Backoff`'s
//! expiry) since its last restart. A probe runs first `initialDelaySeconds` after the start,
//! then every `periodSeconds`; liveness and readiness probes wait for the startup probe.

use crate::api::behaviour::{Answer, Behaviour};
use crate::api::pod::ProbeKind;
use crate::api::pod::{
    Container, ContainerState, ContainerStateRunning, ContainerStateTerminated,
    ContainerStateWaiting, ContainerStatus, IntOrString, Probe,
};
use crate::api::ObjectMeta;
use crate::clock::Timestamp;

/// kubelet `backOffPeriod`: the first crash-loop back-off.
pub const BACKOFF_INITIAL_MS: u64 = 10_000;
/// kubelet `MaxContainerBackOff` (300 s).
pub const BACKOFF_MAX_MS: u64 = 300_000;
/// A back-off entry expires (restarts count from scratch) when the container exits this long
/// after its last restart: `flowcontrol.Backoff`'s `hasExpired`, 2 × the maximum = 10 min.
pub const BACKOFF_RESET_MS: u64 = 2 * BACKOFF_MAX_MS;
/// PLEG's relist period: the kubelet acts on an exited container this long after the exit.
pub const RELIST_MS: u64 = 1_000;
/// While a container waits out its back-off the pod worker retries the sync this often (its
/// `backOffPeriod`), recording `BackOff` again each time.
pub const BACKOFF_EVENT_EVERY_MS: u64 = 10_000;
/// Exit code of a container killed after failed liveness/startup probes (SIGKILL, 128 + 9).
pub const KILLED_EXIT_CODE: i32 = 137;

/// Something the kubelet records as an Event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happening {
    /// `Unhealthy`: "<Kind> probe failed: <output>".
    ProbeFailed { kind: ProbeKind, output: String },
    /// `Killing`: "Container <name> failed <kind> probe, will be restarted".
    Killed { kind: ProbeKind },
    /// `BackOff`: "Back-off restarting failed container <name> in pod <pod>".
    BackOff,
    /// The container was started again (`Pulled`, `Created`, `Started`).
    Restarted,
}

/// One probe's schedule and consecutive results.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProbeTrack {
    kind: ProbeKind,
    probe: Probe,
    next_at: Timestamp,
    successes: u32,
    failures: u32,
}

/// Where the container is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RunState {
    Running {
        since: Timestamp,
    },
    /// Exited; the kubelet decides about a restart [`RELIST_MS`] later.
    Exited(ContainerStateTerminated),
    /// Waiting out the back-off (`CrashLoopBackOff`) until `until`.
    BackOff {
        until: Timestamp,
        next_event: Timestamp,
    },
    /// Exited for good (restartPolicy).
    Done(ContainerStateTerminated),
}

/// The restart back-off of one container (`flowcontrol.Backoff`'s entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BackoffEntry {
    duration_ms: u64,
    last_update: Timestamp,
}

/// One container of a pod the kubelet runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerRun {
    name: String,
    behaviour: Behaviour,
    probes: Vec<ProbeTrack>,
    state: RunState,
    /// `lastState.terminated`: the exit before the current state's.
    last: Option<Box<ContainerStateTerminated>>,
    restart_count: i32,
    started: bool,
    ready: bool,
    backoff: Option<BackoffEntry>,
}

impl ContainerRun {
    /// The container started at `now`, behaving as `behaviour`.
    pub fn start(c: &Container, behaviour: Behaviour, now: Timestamp) -> Self {
        let mut run = ContainerRun {
            name: c.name.clone(),
            behaviour,
            probes: Vec::new(),
            state: RunState::Running { since: now },
            last: None,
            restart_count: 0,
            started: false,
            ready: false,
            backoff: None,
        };
        run.begin(c, behaviour, now);
        run
    }

    /// A container that was already running since `since` when this kubelet (re)started: its
    /// counters come from the pod's status, its probes start afresh.
    pub fn adopt(
        c: &Container,
        behaviour: Behaviour,
        status: Option<&ContainerStatus>,
        since: Timestamp,
        now: Timestamp,
    ) -> Self {
        let mut run = ContainerRun::start(c, behaviour, now);
        run.state = RunState::Running { since };
        if let Some(s) = status {
            run.restart_count = s.restart_count;
            run.last.clone_from(&s.last_state.terminated);
        }
        run
    }

    /// A (re)start at `now`: probes scheduled from it, not started/ready until they pass.
    fn begin(&mut self, c: &Container, behaviour: Behaviour, now: Timestamp) {
        self.behaviour = behaviour;
        self.state = RunState::Running { since: now };
        self.probes = ProbeKind::ALL
            .iter()
            .filter_map(|&kind| {
                c.probe(kind).map(|p| ProbeTrack {
                    kind,
                    probe: p.clone(),
                    next_at: now.plus_millis(p.initial_delay_ms()),
                    successes: 0,
                    failures: 0,
                })
            })
            .collect();
        // Without a startup probe the container counts as started once running; without a
        // readiness probe it is ready once started.
        self.started = c.startup_probe.is_none();
        self.ready = self.started && c.readiness_probe.is_none();
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn restart_count(&self) -> i32 {
        self.restart_count
    }

    pub fn is_ready(&self) -> bool {
        self.ready && matches!(self.state, RunState::Running { .. })
    }

    /// The next instant something happens to this container, if any.
    pub fn next_due(&self) -> Option<Timestamp> {
        match &self.state {
            RunState::Running { since } => {
                let exit = self.behaviour.exit.map(|e| since.plus_millis(e.after_ms));
                let probe = self
                    .probes
                    .iter()
                    .filter(|t| self.probe_active(t.kind))
                    .map(|t| t.next_at)
                    .min();
                [exit, probe].into_iter().flatten().min()
            }
            RunState::Exited(t) => Some(finished(t).plus_millis(RELIST_MS)),
            RunState::BackOff { until, next_event } => Some(*until.min(next_event)),
            RunState::Done(_) => None,
        }
    }

    /// Liveness and readiness probes wait until the startup probe has succeeded.
    fn probe_active(&self, kind: ProbeKind) -> bool {
        (kind == ProbeKind::Startup) != self.started
    }

    /// Plays everything due up to `now`, in time order. `spec` is the container as the pod
    /// declares it now and `behaviour` the pod's current behaviour (a restart takes them);
    /// `policy` is the pod's restartPolicy.
    pub fn advance(
        &mut self,
        now: Timestamp,
        spec: &Container,
        behaviour: Behaviour,
        policy: &str,
        pod_ip: &str,
        out: &mut Vec<Happening>,
    ) {
        // Bounded: a long outage of the node replays at most this many steps at once.
        for _ in 0..10_000 {
            match self.next_due() {
                Some(t) if t <= now => self.step_at(t, spec, behaviour, policy, pod_ip, out),
                _ => return,
            }
        }
    }

    fn step_at(
        &mut self,
        t: Timestamp,
        spec: &Container,
        behaviour: Behaviour,
        policy: &str,
        pod_ip: &str,
        out: &mut Vec<Happening>,
    ) {
        match self.state.clone() {
            RunState::Running { since } => {
                let exit = self
                    .behaviour
                    .exit
                    .filter(|e| since.plus_millis(e.after_ms) <= t);
                if let Some(e) = exit {
                    let reason = if e.code == 0 { "Completed" } else { "Error" };
                    self.terminate(since, t, e.code, reason);
                    return;
                }
                let Some(i) = self
                    .probes
                    .iter()
                    .position(|p| self.probe_active(p.kind) && p.next_at <= t)
                else {
                    return;
                };
                self.probe(i, since, t, spec, pod_ip, out);
            }
            RunState::Exited(term) => {
                let restart = match policy {
                    "Never" => false,
                    "OnFailure" => term.exit_code != 0,
                    _ => true,
                };
                if !restart {
                    self.state = RunState::Done(term);
                    return;
                }
                let exited = finished(&term);
                self.last = Some(Box::new(term));
                match self.backoff_until(exited, t) {
                    Some(until) => {
                        self.state = RunState::BackOff {
                            until,
                            next_event: t.plus_millis(BACKOFF_EVENT_EVERY_MS),
                        };
                        out.push(Happening::BackOff);
                    }
                    None => self.restart(exited, t, spec, behaviour, out),
                }
            }
            RunState::BackOff { until, next_event } => {
                if until <= t {
                    let exited = self.last.as_deref().map_or(t, finished);
                    self.restart(exited, t, spec, behaviour, out);
                } else if next_event <= t {
                    self.state = RunState::BackOff {
                        until,
                        next_event: t.plus_millis(BACKOFF_EVENT_EVERY_MS),
                    };
                    out.push(Happening::BackOff);
                }
            }
            RunState::Done(_) => {}
        }
    }

    /// One probe run at `t`, and what its result changes.
    fn probe(
        &mut self,
        i: usize,
        since: Timestamp,
        t: Timestamp,
        spec: &Container,
        pod_ip: &str,
        out: &mut Vec<Happening>,
    ) {
        let Some(track) = self.probes.get_mut(i) else {
            return;
        };
        let kind = track.kind;
        track.next_at = t.plus_millis(track.probe.period_ms());
        let answer = self.behaviour.answer(kind, t.millis_since(since));
        let failure = failure_output(&track.probe, answer, pod_ip, spec);
        let Some(output) = failure else {
            track.failures = 0;
            track.successes += 1;
            if track.successes < track.probe.success_threshold() {
                return;
            }
            match kind {
                ProbeKind::Startup if !self.started => {
                    self.started = true;
                    // Liveness and readiness begin now (or after their own initial delay).
                    for p in &mut self.probes {
                        if p.kind != ProbeKind::Startup {
                            p.next_at = since.plus_millis(p.probe.initial_delay_ms()).max(t);
                        }
                    }
                    self.ready = !self.probes.iter().any(|p| p.kind == ProbeKind::Readiness);
                }
                ProbeKind::Readiness => self.ready = true,
                _ => {}
            }
            return;
        };
        track.successes = 0;
        track.failures += 1;
        let failed = track.failures >= track.probe.failure_threshold();
        out.push(Happening::ProbeFailed { kind, output });
        if !failed {
            return;
        }
        match kind {
            ProbeKind::Readiness => self.ready = false,
            ProbeKind::Liveness | ProbeKind::Startup => {
                out.push(Happening::Killed { kind });
                self.terminate(since, t, KILLED_EXIT_CODE, "Error");
            }
        }
    }

    fn terminate(&mut self, since: Timestamp, t: Timestamp, exit_code: i32, reason: &str) {
        self.started = false;
        self.ready = false;
        self.state = RunState::Exited(ContainerStateTerminated {
            exit_code,
            reason: reason.into(),
            message: String::new(),
            started_at: Some(since),
            finished_at: Some(t),
        });
    }

    /// `IsInBackOffSince(exit)`: the end of the back-off the exit at `exited` must wait out,
    /// or `None` to restart at once.
    fn backoff_until(&self, exited: Timestamp, now: Timestamp) -> Option<Timestamp> {
        let entry = self.backoff?;
        if exited.millis_since(entry.last_update) > BACKOFF_RESET_MS {
            return None;
        }
        let until = exited.plus_millis(entry.duration_ms);
        (now < until).then_some(until)
    }

    /// Starts the container again at `t` and moves the back-off on (`Backoff.Next`).
    fn restart(
        &mut self,
        exited: Timestamp,
        t: Timestamp,
        spec: &Container,
        behaviour: Behaviour,
        out: &mut Vec<Happening>,
    ) {
        let duration_ms = match self.backoff {
            Some(e) if exited.millis_since(e.last_update) <= BACKOFF_RESET_MS => {
                (e.duration_ms * 2).min(BACKOFF_MAX_MS)
            }
            _ => BACKOFF_INITIAL_MS,
        };
        self.backoff = Some(BackoffEntry {
            duration_ms,
            last_update: t,
        });
        self.restart_count += 1;
        self.begin(spec, behaviour, t);
        out.push(Happening::Restarted);
    }

    /// The back-off being waited out (for the waiting message), in milliseconds.
    fn waiting_backoff_ms(&self) -> u64 {
        self.backoff.map_or(BACKOFF_INITIAL_MS, |e| e.duration_ms)
    }

    /// Whether the container ran to its end and will not start again (and how it ended).
    pub fn done(&self) -> Option<&ContainerStateTerminated> {
        match &self.state {
            RunState::Done(t) => Some(t),
            _ => None,
        }
    }

    /// Running, or exited but to be restarted: the pod is not finished.
    pub fn is_running(&self) -> bool {
        matches!(self.state, RunState::Running { .. })
    }

    /// The container's `containerStatuses[]` entry in `pod` (a back-off message names it
    /// `name_namespace(uid)`, as the kubelet's `format.Pod` prints it); `id` the runtime's
    /// container ID for this run.
    pub fn status(&self, spec: &Container, pod: &ObjectMeta, id: String) -> ContainerStatus {
        let state = match &self.state {
            RunState::Running { since } => ContainerState {
                running: Some(ContainerStateRunning {
                    started_at: Some(*since),
                }),
                ..Default::default()
            },
            RunState::Exited(t) | RunState::Done(t) => ContainerState {
                terminated: Some(Box::new(t.clone())),
                ..Default::default()
            },
            RunState::BackOff { .. } => ContainerState {
                waiting: Some(ContainerStateWaiting {
                    reason: "CrashLoopBackOff".into(),
                    message: format!(
                        "back-off {} restarting failed container={} pod={}_{}({})",
                        go_seconds(self.waiting_backoff_ms()),
                        self.name,
                        pod.name,
                        pod.namespace,
                        pod.uid
                    ),
                }),
                ..Default::default()
            },
        };
        ContainerStatus {
            name: self.name.clone(),
            image: spec.image.clone(),
            ready: self.is_ready(),
            started: Some(self.started && self.is_running()),
            restart_count: self.restart_count,
            container_id: id,
            last_state: ContainerState {
                terminated: self.last.clone(),
                ..Default::default()
            },
            state,
            ..Default::default()
        }
    }
}

fn finished(t: &ContainerStateTerminated) -> Timestamp {
    t.finished_at.unwrap_or(Timestamp::ZERO)
}

/// Whole seconds as Go prints a `time.Duration` (`10s`, `5m0s`).
fn go_seconds(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 60 {
        format!("{}m{}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// The prober's output for a failed probe, or `None` if `answer` passes it. The texts are the
/// kubelet's: an HTTP GET refused (`Get "http://10.244.1.5:8080/healthz": dial tcp
/// 10.244.1.5:8080: connect: connection refused`) or answered with an error (`HTTP probe failed
/// with statuscode: 503`); a TCP connect refused (a TCP probe only sees the port, so an app
/// answering errors passes it); gRPC's health check not reached or `NOT_SERVING`. An exec
/// probe's output is the command's, which a simulation does not have: it is empty.
fn failure_output(probe: &Probe, answer: Answer, pod_ip: &str, c: &Container) -> Option<String> {
    if answer == Answer::Healthy {
        return None;
    }
    let port_of = |p: &IntOrString| match p {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(name) => c
            .ports
            .iter()
            .find(|cp| &cp.name == name)
            .map_or_else(|| name.clone(), |cp| cp.container_port.to_string()),
    };
    let host_or = |h: &str| {
        if h.is_empty() {
            pod_ip.to_string()
        } else {
            h.to_string()
        }
    };
    if let Some(h) = &probe.http_get {
        let host = host_or(&h.host);
        let port = port_of(&h.port);
        return Some(match answer {
            Answer::Failing(code) => format!("HTTP probe failed with statuscode: {code}"),
            _ => format!(
                "Get \"{}://{host}:{port}{}\": dial tcp {host}:{port}: connect: connection refused",
                h.scheme.to_lowercase(),
                h.path
            ),
        });
    }
    if let Some(tcp) = &probe.tcp_socket {
        let host = host_or(&tcp.host);
        return match answer {
            Answer::Failing(_) => None,
            _ => Some(format!(
                "dial tcp {host}:{}: connect: connection refused",
                port_of(&tcp.port)
            )),
        };
    }
    if let Some(g) = &probe.grpc {
        return Some(match answer {
            Answer::Failing(_) => "service unhealthy (responded with \"NOT_SERVING\")".into(),
            _ => format!(
                "timeout: failed to connect service \"{pod_ip}:{}\" within {}s",
                g.port,
                probe.timeout_seconds.unwrap_or(1)
            ),
        });
    }
    Some(String::new())
}
