//! The kubelet's pod state machine as one pure transition: given what the runtime holds for a
//! pod, the pod as the informer shows it and the instant, [`transition`] says what the kubelet
//! does — as a list of [`Effect`]s the loop applies in order (status writes, Events, the final
//! delete, wake-ups, and the runtime's next state). It reads no API server and changes nothing,
//! so each step of a pod's life can be tested on its own, and the state changes in one place:
//! where the loop applies [`Effect::Runtime`].
//!
//! The states follow upstream's pod worker (`pkg/kubelet/pod_workers.go`: syncing, terminating,
//! terminated) and the syncs it calls in `pkg/kubelet/kubelet.go`:
//! - `SyncPod`: a new pod gets a sandbox and an IP (the CNI plugin's host-local IPAM), a
//!   ContainerCreating status, its images pulled (`Pulling`/`Pulled`) and, after the pull and
//!   start delay, its containers created and started (`Created`/`Started`); a running pod's
//!   containers then live as [`crate::controllers::container_lifecycle`] plays them (probes, exits,
//!   restarts with the crash-loop back-off), each change one status write. A pod found already
//!   running (the kubelet restarted, its containers kept running) is adopted as it stands.
//! - `SyncTerminatingPod`: a pod being deleted has its containers stopped (`Killing`) within its
//!   grace period.
//! - `SyncTerminatedPod` and the status manager's `syncPod`: once stopped, the pod is deleted
//!   for good with `gracePeriodSeconds=0` and a uid precondition.

pub(super) mod ephemeral;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use super::pod_status::{config_error_status, creating_status, running_status, stopped_status};
use crate::api::behaviour::Behaviour;
use crate::api::pod::{Container, Pod, PodStatus};
use crate::clock::Timestamp;
use crate::controllers::container_lifecycle::{ContainerRun, Happening};
use crate::controllers::events::EventType;
use crate::controllers::node_addresses::PodIps;
use crate::controllers::podutil;
use crate::controllers::profile::Profile;
use crate::rng::SimRng;
use ephemeral::EphemeralRun;

/// What the kubelet's runtime is doing with one pod (the pod worker's state).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodState {
    /// The sandbox is up; its images are being pulled (if one was missing) and its containers
    /// started.
    Creating {
        /// When the containers run (the pull and start delay ends).
        ready_at: Timestamp,
        /// How long the image pull took, if the pod needed one (its `Pulled` Event says so).
        pull_ms: Option<u64>,
    },
    /// The sandbox is up; each container lives its own life.
    Running {
        /// The pod's containers as they were started, in the spec's order.
        containers: Vec<ContainerRun>,
    },
    /// Containers stopping (`SyncTerminatingPod`); the final delete is due then.
    Stopping {
        /// When the last container has stopped.
        done_at: Timestamp,
    },
}

/// One pod the kubelet's runtime holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRuntime {
    /// The uid of the pod it runs: a pod of the same name with another uid is another pod.
    uid: String,
    /// The sandbox's address (the pod's `status.podIP`); empty for a pod stopped before it got
    /// one.
    ip: String,
    /// Where the pod is in its life.
    state: PodState,
}

impl PodRuntime {
    /// The sandbox's address, held until the runtime forgets the pod.
    pub fn ip(&self) -> &str {
        &self.ip
    }

    /// The uid of the pod it runs.
    pub fn uid(&self) -> &str {
        &self.uid
    }

    /// Whether its containers are due to be created by `now` (their configuration is read
    /// then, and only then).
    pub fn creates_containers_by(&self, now: Timestamp) -> bool {
        matches!(self.state, PodState::Creating { ready_at, .. } if ready_at <= now)
    }
}

/// How often a pod waiting for its volumes is looked at again (the volume manager polls every
/// 300 ms, its populator every 100 ms; here each second).
pub const VOLUME_POLL_MS: u64 = 1_000;

/// How long a pod whose containers' configuration failed waits before the next try: the pod
/// worker's back-off after a failed sync (`backOffPeriod`, 10 s; upstream adds up to 50%
/// jitter).
pub const CONFIG_RETRY_MS: u64 = 10_000;

/// What a sync reads of the node beyond the pod's own runtime, lent by the loop for one
/// [`transition`]: a start draws on the IP pool and the random source and records images, and
/// returns their new values as [`Effect`]s.
pub struct Host<'a> {
    /// The node's InternalIP, every pod's `status.hostIP`.
    pub host_ip: &'a Arc<str>,
    /// The timings of pulls, starts and stops.
    pub profile: &'a Profile,
    /// The images already on the node (the image manager's view).
    pub images: &'a BTreeSet<String>,
    /// host-local IPAM's pool of the node's pod CIDR, as it stands.
    pub pod_ips: &'a PodIps,
    /// Whether an address is held by another pod of the node.
    pub ip_in_use: &'a dyn Fn(&str) -> bool,
    /// The node's random source of image pull times, as it stands.
    pub rng: &'a SimRng,
    /// The pod's volumes whose claims are not bound yet (the volume manager's unmounted
    /// volumes): a new pod gets no sandbox until there are none.
    pub unmounted: &'a [String],
    /// The containers whose configuration cannot be made yet, with the error
    /// (`container_config.rs`; read only when the pod's containers are due to be created).
    pub config_errors: &'a [(String, String)],
}

/// One thing the loop does for a sync. The loop applies a sync's effects in order and stops
/// at the first write that fails (then retries the pod rate-limited): the runtime's change sits
/// where it takes hold, after the writes it needs (a start's status write, the final delete)
/// and before those that may fail without undoing it (a running pod's status write).
#[derive(Debug, Clone)]
pub enum Effect {
    /// The pod's runtime from here on (`None`: forgotten, its ephemeral runs with it).
    Runtime(Option<PodRuntime>),
    /// The pod's ephemeral containers' runs from here on (empty: none held; `ephemeral.rs`).
    Ephemeral(Vec<EphemeralRun>),
    /// host-local IPAM handed out the sandbox's address: the pool after it.
    PodIps(PodIps),
    /// Record an Event about the pod.
    Event {
        /// `Normal` or `Warning`.
        event_type: EventType,
        /// The kubelet's reason (`Pulling`, `Started`, `BackOff`, ...).
        reason: &'static str,
        /// The kubelet's message.
        message: String,
    },
    /// The status manager writes the pod's status (`UpdateStatus`); a failure stops the sync.
    WriteStatus(PodStatus),
    /// An image is on the node from now on.
    ImagePulled(String),
    /// The node's random source after drawing an image pull time.
    Rng(Box<SimRng>),
    /// Sync the pod again after this many milliseconds.
    SyncAfter(u64),
    /// Delete the pod for good: `gracePeriodSeconds=0`, its uid as precondition. NotFound or
    /// Conflict (someone else finished it) count as done; another failure stops the sync.
    Delete,
    /// The sync failed: stop and retry the pod rate-limited.
    Retry,
}

/// The pod worker's sync of `pod` at `now` (`podWorkerLoop` choosing `SyncPod`,
/// `SyncTerminatingPod` or `SyncTerminatedPod`): what the kubelet does, given `runtime`, what
/// it holds for the pod's key, and `ephemeral`, its ephemeral containers' runs. A sync that
/// finds nothing to do returns no effect and copies neither the pod nor the runtime.
pub fn transition(
    runtime: Option<&PodRuntime>,
    ephemeral: &[EphemeralRun],
    pod: &Pod,
    now: Timestamp,
    host: &Host<'_>,
) -> Vec<Effect> {
    let mut effects = Vec::new();
    // What an earlier pod of the same name left is forgotten first.
    let (current, ephemeral) = match runtime {
        Some(r) if r.uid != pod.metadata.uid => {
            effects.push(Effect::Runtime(None));
            (None, &[][..])
        }
        None => (None, &[][..]),
        r => (r, ephemeral),
    };
    let runs = Runs {
        ephemeral,
        host,
        now,
    };
    if pod.metadata.deletion_timestamp.is_some() {
        sync_terminating(current, ephemeral, pod, now, host, &mut effects);
    } else if !podutil::is_terminal(pod) {
        match current {
            None if pod.status.phase == "Running" && !pod.status.pod_ip.is_empty() => {
                sync_running(Cow::Owned(adopted(pod, now)), &runs, pod, &mut effects);
            }
            None => start(pod, now, host, &mut effects),
            Some(rt) => match &rt.state {
                PodState::Creating { .. } => sync_creating(rt, &runs, pod, &mut effects),
                PodState::Running { .. } => {
                    sync_running(Cow::Borrowed(rt), &runs, pod, &mut effects);
                }
                PodState::Stopping { .. } => {}
            },
        }
    }
    effects
}

/// What a sync of a started pod reads beside its runtime: its ephemeral containers' runs, the
/// node, the instant.
struct Runs<'a, 'h> {
    ephemeral: &'a [EphemeralRun],
    host: &'a Host<'h>,
    now: Timestamp,
}

/// An Event effect.
pub(super) fn event(event_type: EventType, reason: &'static str, message: String) -> Effect {
    Effect::Event {
        event_type,
        reason,
        message,
    }
}

/// A new pod (`SyncPod` → `createPodSandbox`, `EnsureImageExists`): the sandbox's IP (or
/// `FailedCreatePodSandBox` when the node's /24 is full, retried as the kubelet retries the
/// sandbox), the ContainerCreating status, the image pulls, and a wake-up when the containers
/// run.
fn start(pod: &Pod, now: Timestamp, host: &Host<'_>, out: &mut Vec<Effect>) {
    if !host.unmounted.is_empty() {
        wait_for_volumes(pod, now, host, out);
        return;
    }
    if pod.spec.host_network {
        // The node's own network namespace (`kubectl debug node/NAME`'s pod): no CNI address,
        // the pod's IP is the node's (`generateAPIPodStatus` copies the host IPs).
        out.push(Effect::WriteStatus(creating_status(pod, host.host_ip, now)));
        pull_and_wait(pod, host.host_ip.to_string(), now, host, out);
        return;
    }
    let mut pod_ips = host.pod_ips.clone();
    let Some(ip) = pod_ips.allocate(host.ip_in_use) else {
        // Every address of the node's /24 is held by a pod still on it: the CNI plugin's answer.
        let message = format!(
            "Failed to create pod sandbox: failed to allocate for range 0: no IP addresses available in range set: {}",
            host.pod_ips.range()
        );
        out.push(event(EventType::Warning, "FailedCreatePodSandBox", message));
        out.push(Effect::Retry);
        return;
    };
    // Reserved at once: the loop walks the list once, and a list grown push by push would be
    // copied at each doubling (an effect is as large as a pod's status).
    out.reserve(2 * pod.spec.containers.len() + 6);
    out.push(Effect::PodIps(pod_ips));
    out.push(Effect::WriteStatus(creating_status(pod, host.host_ip, now)));
    pull_and_wait(pod, ip, now, host, out);
}

/// `WaitForAttachAndMount` before the sandbox: a pod whose claims are not bound yet stays
/// Pending with its containers `ContainerCreating` (its first status, written once), and is
/// looked at again after [`VOLUME_POLL_MS`]. A wait that times out records nothing (v1.32 emits
/// no `FailedMount` for a timeout), so none is modelled.
fn wait_for_volumes(pod: &Pod, now: Timestamp, host: &Host<'_>, out: &mut Vec<Effect>) {
    if pod.status.start_time.is_none() {
        out.push(Effect::WriteStatus(creating_status(pod, host.host_ip, now)));
    }
    out.push(Effect::SyncAfter(VOLUME_POLL_MS));
}

/// A started sandbox at `ip`: the image pulls' Events, and the runtime waiting for the pull
/// and start delay, with its wake-up.
fn pull_and_wait(pod: &Pod, ip: String, now: Timestamp, host: &Host<'_>, out: &mut Vec<Effect>) {
    let missing: Vec<&str> = pod
        .spec
        .containers
        .iter()
        .filter(|c| pulls(c, host))
        .map(|c| c.image.as_str())
        .collect();
    for c in &pod.spec.containers {
        image_events(c, missing.contains(&c.image.as_str()), host, out);
    }
    let pulled = !missing.is_empty();
    let delay = if pulled {
        let mut rng = host.rng.clone();
        let delay = pull_delay(host, &mut rng);
        out.push(Effect::Rng(Box::new(rng)));
        delay
    } else {
        host.profile.container_start_delay_ms
    };
    out.push(Effect::Runtime(Some(PodRuntime {
        uid: pod.metadata.uid.clone(),
        ip,
        state: PodState::Creating {
            ready_at: now.plus_millis(delay),
            pull_ms: pulled.then_some(delay),
        },
    })));
    out.push(Effect::SyncAfter(delay));
}

/// Whether the kubelet pulls `c`'s image: `imagePullPolicy: Always`, or not on the node.
fn pulls(c: &Container, host: &Host<'_>) -> bool {
    c.image_pull_policy.as_deref() == Some("Always") || !host.images.contains(&c.image)
}

/// A container's image step (`EnsureImageExists`): `Pulling`, or `already present`; the image
/// is on the node from then on.
fn image_events(c: &Container, pull: bool, host: &Host<'_>, out: &mut Vec<Effect>) {
    if pull {
        let message = format!("Pulling image {:?}", c.image);
        out.push(event(EventType::Normal, "Pulling", message));
    } else {
        let message = format!("Container image {:?} already present on machine", c.image);
        out.push(event(EventType::Normal, "Pulled", message));
    }
    if !host.images.contains(&c.image) {
        out.push(Effect::ImagePulled(c.image.clone()));
    }
}

/// How long a pull takes, drawn from `rng` between the profile's bounds.
fn pull_delay(host: &Host<'_>, rng: &mut SimRng) -> u64 {
    let (lo, hi) = (
        host.profile.pod_start_delay_min_ms,
        host.profile.pod_start_delay_max_ms,
    );
    lo + rng.below(hi.saturating_sub(lo) + 1)
}

/// The end of `c`'s image pull, if the pod needed one: `Pulled` with how long it took.
fn pulled_event(c: &Container, pull_ms: Option<u64>, out: &mut Vec<Effect>) {
    if let Some(ms) = pull_ms {
        let d = format_duration(ms);
        let message = format!(
            "Successfully pulled image {:?} in {d} ({d} including waiting)",
            c.image
        );
        out.push(event(EventType::Normal, "Pulled", message));
    }
}

/// `startContainer`'s Events for one container: the pull's end (if it pulled), `Created`,
/// `Started`.
fn started_events(c: &Container, pull_ms: Option<u64>, out: &mut Vec<Effect>) {
    pulled_event(c, pull_ms, out);
    let created = format!("Created container: {}", c.name);
    out.push(event(EventType::Normal, "Created", created));
    let started = format!("Started container {}", c.name);
    out.push(event(EventType::Normal, "Started", started));
}

/// A pod found Running with an IP when the runtime holds nothing for it: this kubelet
/// restarted and its containers kept running. Their counters come from the pod's status.
fn adopted(pod: &Pod, now: Timestamp) -> PodRuntime {
    let behaviour = Behaviour::of(pod);
    let containers = pod
        .spec
        .containers
        .iter()
        .map(|c| {
            let status = pod
                .status
                .container_statuses
                .iter()
                .find(|s| s.name == c.name);
            let since = status
                .and_then(|s| s.state.running.as_ref())
                .and_then(|r| r.started_at)
                .unwrap_or(now);
            ContainerRun::adopt(c, behaviour, status, since, now)
        })
        .collect();
    PodRuntime {
        uid: pod.metadata.uid.clone(),
        ip: pod.status.pod_ip.clone(),
        state: PodState::Running { containers },
    }
}

/// A pod whose images are being pulled: at `ready_at` its containers are created and started
/// (`startContainer`'s `Pulled`, `Created`, `Started`) and it runs; before, a wake-up then.
fn sync_creating(rt: &PodRuntime, runs: &Runs<'_, '_>, pod: &Pod, out: &mut Vec<Effect>) {
    let now = runs.now;
    let PodState::Creating { ready_at, pull_ms } = rt.state else {
        return;
    };
    if now < ready_at {
        out.push(Effect::SyncAfter(ready_at.millis_since(now)));
        return;
    }
    if !runs.host.config_errors.is_empty() {
        config_failed(rt, runs, pod, pull_ms, out);
        return;
    }
    out.reserve(3 * pod.spec.containers.len() + 3);
    for c in &pod.spec.containers {
        started_events(c, pull_ms, out);
    }
    let behaviour = Behaviour::of(pod);
    let containers = pod
        .spec
        .containers
        .iter()
        .map(|c| ContainerRun::start(c, behaviour, now))
        .collect();
    let running = PodRuntime {
        uid: rt.uid.clone(),
        ip: rt.ip.clone(),
        state: PodState::Running { containers },
    };
    sync_running(Cow::Owned(running), runs, pod, out);
}

/// A pod whose containers' configuration failed (`startContainer` → `generateContainerConfig`:
/// a ConfigMap or Secret missing): the pull's end, a `Failed` Event `Error: <why>` for each
/// such container, the status with it waiting in `CreateContainerConfigError` (written when it
/// changed), and another try after [`CONFIG_RETRY_MS`]. No container starts until every one
/// can (upstream starts the others: see DIFFERENCES.md).
fn config_failed(
    rt: &PodRuntime,
    runs: &Runs<'_, '_>,
    pod: &Pod,
    pull_ms: Option<u64>,
    out: &mut Vec<Effect>,
) {
    let (now, host) = (runs.now, runs.host);
    for c in &pod.spec.containers {
        pulled_event(c, pull_ms, out);
        if let Some((_, why)) = host.config_errors.iter().find(|(n, _)| *n == c.name) {
            out.push(event(EventType::Warning, "Failed", format!("Error: {why}")));
        }
    }
    let status = config_error_status(pod, &rt.ip, host.host_ip, host.config_errors, now);
    if status != pod.status {
        out.push(Effect::WriteStatus(status));
    }
    out.push(Effect::Runtime(Some(PodRuntime {
        uid: rt.uid.clone(),
        ip: rt.ip.clone(),
        state: PodState::Creating {
            ready_at: now.plus_millis(CONFIG_RETRY_MS),
            pull_ms: None,
        },
    })));
    out.push(Effect::SyncAfter(CONFIG_RETRY_MS));
}

/// A running pod: its containers play their lives up to `now` (probes, exits, restarts), the
/// kubelet records what happened as Events, comes back when the next thing is due, and writes
/// the status if it changed (or if someone else changed it — the node lifecycle controller
/// marking it not ready). `rt` is copied only when a container has something due (or is new:
/// adopted, just started). Its ephemeral containers are started and reported beside
/// (`ephemeral.rs`).
fn sync_running(
    mut rt: Cow<'_, PodRuntime>,
    runs: &Runs<'_, '_>,
    pod: &Pod,
    out: &mut Vec<Effect>,
) {
    let (now, host) = (runs.now, runs.host);
    let mut happened = Vec::new();
    if containers_of(&rt)
        .iter()
        .any(|r| r.next_due().is_some_and(|t| t <= now))
    {
        let PodRuntime { ip, state, .. } = rt.to_mut();
        if let PodState::Running { containers } = state {
            happened = advance(containers, pod, ip, now);
        }
    }
    let containers = containers_of(&rt);
    let eph = ephemeral::step(runs.ephemeral, pod, now, host);
    let due = containers
        .iter()
        .filter_map(ContainerRun::next_due)
        .chain(eph.as_ref().and_then(|e| e.wake))
        .min();
    // The status the runs make now (the Events below change none of it).
    let mut status = running_status(pod, containers, &rt.ip, host.host_ip, now);
    if let Some(e) = &eph {
        status.ephemeral_container_statuses = ephemeral::statuses(&e.runs, pod);
    }
    let wake = due.filter(|d| *d > now).map(|d| d.millis_since(now));
    let write = status != pod.status;
    // At most four Events a happening (a restart's); nothing reserved when nothing is to do.
    out.reserve(
        usize::from(matches!(rt, Cow::Owned(_)))
            + 4 * happened.len()
            + usize::from(wake.is_some())
            + usize::from(write),
    );
    if let Cow::Owned(rt) = rt {
        out.push(Effect::Runtime(Some(rt)));
    }
    if let Some(e) = eph {
        if e.changed {
            out.push(Effect::Ephemeral(e.runs));
        }
        out.extend(e.effects);
    }
    for (i, h) in happened {
        if let Some(c) = pod.spec.containers.get(i) {
            happening_events(pod, c, &h, host.profile, out);
        }
    }
    if let Some(ms) = wake {
        out.push(Effect::SyncAfter(ms));
    }
    if write {
        out.push(Effect::WriteStatus(status));
    }
}

/// The containers of a running pod (none in another state).
fn containers_of(rt: &PodRuntime) -> &[ContainerRun] {
    match &rt.state {
        PodState::Running { containers } => containers,
        _ => &[],
    }
}

/// Plays each container of the spec up to `now`; what happened, by the container's index in
/// the spec.
fn advance(
    containers: &mut [ContainerRun],
    pod: &Pod,
    ip: &str,
    now: Timestamp,
) -> Vec<(usize, Happening)> {
    let behaviour = Behaviour::of(pod);
    let policy = pod.spec.restart_policy.as_deref().unwrap_or("Always");
    let mut happened = Vec::new();
    for run in containers.iter_mut() {
        let Some((i, spec)) = pod
            .spec
            .containers
            .iter()
            .enumerate()
            .find(|(_, c)| c.name == run.name())
        else {
            continue;
        };
        let mut out = Vec::new();
        run.advance(now, spec, behaviour, policy, ip, &mut out);
        happened.extend(out.into_iter().map(|h| (i, h)));
    }
    happened
}

/// The Events for something that happened to container `c`, with the kubelet's texts.
fn happening_events(
    pod: &Pod,
    c: &Container,
    h: &Happening,
    profile: &Profile,
    out: &mut Vec<Effect>,
) {
    match h {
        Happening::ProbeFailed { kind, output } => {
            let message = format!("{} probe failed: {output}", kind.title());
            out.push(event(EventType::Warning, "Unhealthy", message));
        }
        Happening::Killed { kind } => {
            let message = format!(
                "Container {} failed {} probe, will be restarted",
                c.name,
                kind.lower()
            );
            out.push(event(EventType::Normal, "Killing", message));
        }
        Happening::BackOff => {
            let message = format!(
                "Back-off restarting failed container {} in pod {}_{}({})",
                c.name, pod.metadata.name, pod.metadata.namespace, pod.metadata.uid
            );
            out.push(event(EventType::Warning, "BackOff", message));
        }
        Happening::Restarted => {
            if c.image_pull_policy.as_deref() == Some("Always") {
                let d = format_duration(profile.container_start_delay_ms);
                let pulling = format!("Pulling image {:?}", c.image);
                out.push(event(EventType::Normal, "Pulling", pulling));
                let message = format!(
                    "Successfully pulled image {:?} in {d} ({d} including waiting)",
                    c.image
                );
                out.push(event(EventType::Normal, "Pulled", message));
            } else {
                let message = format!("Container image {:?} already present on machine", c.image);
                out.push(event(EventType::Normal, "Pulled", message));
            }
            let created = format!("Created container: {}", c.name);
            out.push(event(EventType::Normal, "Created", created));
            let started = format!("Started container {}", c.name);
            out.push(event(EventType::Normal, "Started", started));
        }
    }
}

/// A pod being deleted (`SyncTerminatingPod`, then `SyncTerminatedPod`): its containers are
/// stopped (`Killing`) within its grace period, capped by the profile's stop delay; then it is
/// deleted for good and forgotten.
fn sync_terminating(
    current: Option<&PodRuntime>,
    ephemeral: &[EphemeralRun],
    pod: &Pod,
    now: Timestamp,
    host: &Host<'_>,
    out: &mut Vec<Effect>,
) {
    match current.map(|r| &r.state) {
        Some(PodState::Stopping { done_at }) if now >= *done_at => {
            // A pod its finalizers keep after the final delete shows that it stopped.
            if !pod.metadata.finalizers.is_empty() && !podutil::is_terminal(pod) {
                out.push(Effect::WriteStatus(stopped_status(pod, now)));
            }
            out.push(Effect::Delete);
            out.push(Effect::Runtime(None));
        }
        Some(PodState::Stopping { done_at }) => {
            out.push(Effect::SyncAfter(done_at.millis_since(now)));
        }
        _ => {
            out.reserve(pod.spec.containers.len() + 2);
            for c in &pod.spec.containers {
                let message = format!("Stopping container {}", c.name);
                out.push(event(EventType::Normal, "Killing", message));
            }
            if !ephemeral.is_empty() {
                ephemeral::stop_events(ephemeral, out);
                out.push(Effect::Ephemeral(Vec::new()));
            }
            let grace_ms = pod
                .metadata
                .deletion_grace_period_seconds
                .unwrap_or(30)
                .max(0) as u64
                * 1000;
            let wait = grace_ms.min(host.profile.container_stop_delay_ms);
            out.push(Effect::Runtime(Some(PodRuntime {
                uid: pod.metadata.uid.clone(),
                ip: current.map(|r| r.ip.clone()).unwrap_or_default(),
                state: PodState::Stopping {
                    done_at: now.plus_millis(wait),
                },
            })));
            out.push(Effect::SyncAfter(wait));
        }
    }
}

/// A Go `time.Duration` string for whole milliseconds (`2.345s`, `800ms`).
pub(super) fn format_duration(ms: u64) -> String {
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::behaviour::ANNOTATION;
    use crate::api::pod::{HttpGetAction, IntOrString, PodSpec, Probe};
    use crate::api::ObjectMeta;

    const IMAGE: &str = "app:1.0";

    /// A pod named `app` whose one container behaves as `behaviour`.
    fn pod(behaviour: &str, liveness: Option<Probe>) -> Pod {
        let mut metadata = ObjectMeta::named("default", "app");
        metadata.uid = "uid-1".into();
        metadata
            .annotations
            .insert(ANNOTATION.to_string(), behaviour.to_string());
        Pod {
            metadata,
            spec: PodSpec {
                containers: vec![Container {
                    name: "app".into(),
                    image: IMAGE.into(),
                    liveness_probe: liveness.map(Box::new),
                    ..Default::default()
                }]
                .into(),
                restart_policy: Some("Always".into()),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        }
    }

    /// One pod on a node that already holds its image, synced as the loop syncs it: every
    /// effect applied (a status write read straight back), woken when it asks.
    struct Node {
        /// What the loop lends a sync ([`Host`]), owned.
        host_ip: Arc<str>,
        profile: Profile,
        images: BTreeSet<String>,
        pod_ips: PodIps,
        rng: SimRng,
        /// The pod as the informer would show it (its status as last written).
        pod: Pod,
        /// What the runtime holds for it.
        runtime: Option<PodRuntime>,
        /// The earliest wake-up asked for.
        wake: Option<Timestamp>,
        /// Every Event recorded: when, its reason and message.
        events: Vec<(Timestamp, &'static str, String)>,
        /// Every status written, and when.
        writes: Vec<(Timestamp, PodStatus)>,
        /// Whether the final delete was asked for.
        deleted: bool,
        /// The pod's volumes whose claims are not bound ([`Host::unmounted`]).
        unmounted: Vec<String>,
        /// The containers whose configuration fails ([`Host::config_errors`]).
        config_errors: Vec<(String, String)>,
    }

    impl Node {
        fn with(pod: Pod) -> Self {
            Node {
                host_ip: Arc::from("10.0.0.2"),
                profile: Profile::training(),
                images: [IMAGE.to_string()].into_iter().collect(),
                pod_ips: PodIps::new(0),
                rng: SimRng::seed_from_u64(1),
                pod,
                runtime: None,
                wake: None,
                events: Vec::new(),
                writes: Vec::new(),
                deleted: false,
                unmounted: Vec::new(),
                config_errors: Vec::new(),
            }
        }

        fn sync(&mut self, now: Timestamp) -> Vec<Effect> {
            let host = Host {
                host_ip: &self.host_ip,
                profile: &self.profile,
                images: &self.images,
                pod_ips: &self.pod_ips,
                ip_in_use: &|_| false,
                rng: &self.rng,
                unmounted: &self.unmounted,
                config_errors: &self.config_errors,
            };
            let effects = transition(self.runtime.as_ref(), &[], &self.pod, now, &host);
            for effect in effects.clone() {
                match effect {
                    Effect::Runtime(r) => self.runtime = r,
                    Effect::Ephemeral(_) => {}
                    Effect::PodIps(ips) => self.pod_ips = ips,
                    Effect::Event {
                        reason, message, ..
                    } => self.events.push((now, reason, message)),
                    Effect::WriteStatus(s) => {
                        self.pod.status = s.clone();
                        self.writes.push((now, s));
                    }
                    Effect::ImagePulled(image) => {
                        self.images.insert(image);
                    }
                    Effect::Rng(rng) => self.rng = *rng,
                    Effect::SyncAfter(ms) => {
                        let at = now.plus_millis(ms);
                        self.wake = Some(self.wake.map_or(at, |w| w.min(at)));
                    }
                    Effect::Delete => self.deleted = true,
                    Effect::Retry => break,
                }
            }
            effects
        }

        /// Syncs at 0 and then whenever the pod asked, up to `until`.
        fn run_until(&mut self, until: Timestamp) {
            self.sync(Timestamp::ZERO);
            while let Some(at) = self.wake.filter(|w| *w <= until) {
                self.wake = None;
                self.sync(at);
            }
        }

        fn times_of(&self, reason: &str) -> Vec<u64> {
            self.events
                .iter()
                .filter(|(_, r, _)| *r == reason)
                .map(|(t, _, _)| t.as_millis())
                .collect()
        }
    }

    #[test]
    fn a_crash_looping_container_waits_10_20_then_40_seconds_between_restarts() {
        let mut node = Node::with(pod("crash-after=5s", None));
        node.run_until(Timestamp::ZERO.plus_secs(200));
        let starts = node.times_of("Started");
        let first = node.profile.container_start_delay_ms;
        assert_eq!(starts.first(), Some(&first));
        // Each run lasts 5 s; the first restart follows at the next relist (1 s), then the
        // back-off doubles from 10 s.
        let waits: Vec<u64> = starts.windows(2).map(|w| w[1] - (w[0] + 5_000)).collect();
        assert_eq!(waits[..4], [1_000, 10_000, 20_000, 40_000]);
        let mut messages: Vec<String> = node
            .writes
            .iter()
            .filter_map(|(_, s)| s.container_statuses.first()?.state.waiting.clone())
            .filter(|w| w.reason == "CrashLoopBackOff")
            .map(|w| w.message.split(' ').take(2).collect::<Vec<_>>().join(" "))
            .collect();
        messages.dedup();
        assert_eq!(
            messages[..3],
            ["back-off 10s", "back-off 20s", "back-off 40s"]
        );
        let backoffs = node.times_of("BackOff");
        assert_eq!(backoffs.first(), Some(&(first + 12_000)), "at the relist");
        assert_eq!(
            node.writes.last().map(|(_, s)| s.phase.to_string()),
            Some("Running".to_string())
        );
    }

    #[test]
    fn a_failing_liveness_probe_kills_and_restarts_the_container() {
        let probe = Probe {
            http_get: Some(HttpGetAction {
                path: "/healthz".into(),
                port: IntOrString::Int(8080),
                ..Default::default()
            }),
            period_seconds: Some(10),
            failure_threshold: Some(3),
            ..Default::default()
        };
        let mut node = Node::with(pod("fail-liveness", Some(probe)));
        node.run_until(Timestamp::ZERO.plus_secs(25));
        let t0 = node.profile.container_start_delay_ms;
        assert_eq!(
            node.times_of("Unhealthy"),
            [t0, t0 + 10_000, t0 + 20_000, t0 + 21_000],
            "three failures a period apart, then the restarted container's first probe"
        );
        assert!(node.events.iter().any(|(_, r, m)| *r == "Unhealthy"
            && m == "Liveness probe failed: HTTP probe failed with statuscode: 500"));
        assert_eq!(node.times_of("Killing"), [t0 + 20_000]);
        assert_eq!(node.times_of("Started"), [t0, t0 + 21_000]);
        let (_, last) = node.writes.last().expect("a status write");
        let status = &last.container_statuses[0];
        assert_eq!(status.restart_count, 1);
        assert_eq!(
            status.last_state.terminated.as_ref().map(|t| t.exit_code),
            Some(137)
        );
        assert!(status.state.running.is_some());
    }

    #[test]
    fn a_start_writes_container_creating_then_running_and_a_quiet_sync_does_nothing() {
        let mut node = Node::with(pod("", None));
        let start = node.sync(Timestamp::ZERO);
        assert!(matches!(start[0], Effect::PodIps(_)));
        assert!(matches!(&start[1], Effect::WriteStatus(s) if s.phase == "Pending"));
        assert_eq!(node.times_of("Pulled"), [0], "already present");
        assert!(matches!(start.last(), Some(Effect::SyncAfter(500))));
        node.run_until(Timestamp::ZERO.plus_secs(5));
        assert_eq!(
            node.writes
                .iter()
                .map(|(t, s)| (t.as_millis(), s.phase.to_string()))
                .collect::<Vec<_>>(),
            [(0, "Pending".to_string()), (500, "Running".to_string())]
        );
        assert_eq!(node.pod.status.pod_ip, "10.244.0.2");
        // Nothing due and the status as written: nothing to do, nothing copied.
        assert!(node.sync(Timestamp::ZERO.plus_secs(60)).is_empty());
    }

    #[test]
    fn a_deleted_pod_is_stopped_then_deleted_for_good_and_forgotten() {
        let mut node = Node::with(pod("", None));
        node.run_until(Timestamp::ZERO.plus_secs(5));
        node.pod.metadata.deletion_timestamp = Some(Timestamp::ZERO.plus_secs(10));
        node.pod.metadata.deletion_grace_period_seconds = Some(30);
        let stop = node.sync(Timestamp::ZERO.plus_secs(10));
        assert_eq!(node.times_of("Killing"), [10_000]);
        assert!(matches!(stop.last(), Some(Effect::SyncAfter(2_000))));
        assert!(
            node.sync(Timestamp::ZERO.plus_secs(11)).len() == 1,
            "still stopping"
        );
        let done = node.sync(Timestamp::ZERO.plus_secs(12));
        assert!(matches!(done[..], [Effect::Delete, Effect::Runtime(None)]));
        assert!(node.deleted && node.runtime.is_none());
    }

    #[test]
    fn a_runtime_left_by_an_earlier_pod_of_the_name_is_forgotten_first() {
        let mut node = Node::with(pod("", None));
        node.run_until(Timestamp::ZERO.plus_secs(5));
        node.pod = pod("", None);
        node.pod.metadata.uid = "uid-2".into();
        let effects = node.sync(Timestamp::ZERO.plus_secs(6));
        assert!(matches!(effects[0], Effect::Runtime(None)));
        assert!(matches!(&effects[2], Effect::WriteStatus(s) if s.phase == "Pending"));
        assert_eq!(node.runtime.as_ref().map(|r| r.uid.as_str()), Some("uid-2"));
    }

    #[test]
    fn a_pod_whose_claim_is_not_bound_stays_container_creating_until_it_is() {
        let mut node = Node::with(pod("", None));
        node.unmounted = vec!["data".into()];
        node.run_until(Timestamp::ZERO.plus_secs(5));
        assert_eq!(node.writes.len(), 1, "its first status, once");
        let (_, status) = &node.writes[0];
        assert_eq!(status.phase, "Pending");
        let waiting = status.container_statuses[0].state.waiting.as_ref();
        assert_eq!(
            waiting.map(|w| w.reason.as_str()),
            Some("ContainerCreating")
        );
        assert!(status.pod_ip.is_empty(), "no sandbox yet");
        assert!(node.runtime.is_none() && node.events.is_empty());
        assert_eq!(
            node.wake,
            Some(Timestamp::ZERO.plus_secs(6)),
            "polled each second"
        );
        // Bound: the sandbox and the containers start at the next look.
        node.unmounted.clear();
        let until = Timestamp::ZERO.plus_secs(60);
        while let Some(at) = node.wake.take().filter(|w| *w <= until) {
            node.sync(at);
        }
        assert_eq!(node.pod.status.phase, "Running");
        assert_eq!(
            node.times_of("Started"),
            [6_000 + node.profile.container_start_delay_ms]
        );
    }

    #[test]
    fn a_missing_config_map_holds_the_container_in_create_container_config_error() {
        let mut node = Node::with(pod("", None));
        let name = node.pod.spec.containers[0].name.clone();
        let why = "configmap \"web-config\" not found".to_string();
        node.config_errors = vec![(name, why.clone())];
        node.run_until(Timestamp::ZERO.plus_secs(25));
        let status = &node.pod.status;
        assert_eq!(status.phase, "Pending");
        let waiting = status.container_statuses[0].state.waiting.as_ref();
        assert_eq!(
            waiting.map(|w| (w.reason.as_str(), w.message.as_str())),
            Some(("CreateContainerConfigError", why.as_str()))
        );
        assert!(!status.pod_ip.is_empty(), "the sandbox is up");
        let start = node.profile.container_start_delay_ms;
        // Tried when the containers were due, then every 10 s; the status written once.
        assert_eq!(
            node.times_of("Failed"),
            [start, start + CONFIG_RETRY_MS, start + 2 * CONFIG_RETRY_MS]
        );
        assert!(node
            .events
            .iter()
            .all(|(_, r, m)| *r != "Failed" || *m == format!("Error: {why}")));
        assert_eq!(node.writes.len(), 2, "ContainerCreating, then the error");
        assert!(node.times_of("Started").is_empty());
        // The ConfigMap is created: the next try starts the container.
        node.config_errors.clear();
        let until = Timestamp::ZERO.plus_secs(60);
        while let Some(at) = node.wake.take().filter(|w| *w <= until) {
            node.sync(at);
        }
        assert_eq!(node.pod.status.phase, "Running");
        assert_eq!(node.times_of("Started"), [start + 3 * CONFIG_RETRY_MS]);
    }

    #[test]
    fn a_full_pod_cidr_fails_the_sandbox_and_retries() {
        let p = pod("", None);
        let node = Node::with(p.clone());
        let host = Host {
            host_ip: &node.host_ip,
            profile: &node.profile,
            images: &node.images,
            pod_ips: &node.pod_ips,
            ip_in_use: &|_| true,
            rng: &node.rng,
            unmounted: &[],
            config_errors: &[],
        };
        let effects = transition(None, &[], &p, Timestamp::ZERO, &host);
        assert!(matches!(
            &effects[..],
            [
                Effect::Event {
                    reason: "FailedCreatePodSandBox",
                    ..
                },
                Effect::Retry
            ]
        ));
    }
}
