//! The ephemeral containers the kubelet runs in a pod it already runs (`kubectl debug POD`):
//! each new entry of `spec.ephemeralContainers` has its image pulled like any container's
//! (`Pulling`/`Pulled`), is created and started (`Created`/`Started`), and then runs until the
//! pod stops. An ephemeral container is never restarted, counts for neither the pod's phase nor
//! its readiness, and reports in `status.ephemeralContainerStatuses` (sorted by name, never
//! `ready`, no `started`). Its process is a debug image waiting for someone to attach, so it
//! does not follow the pod's `watchlab.dev/behaviour`: it starts and keeps running.
//!
//! Kept apart from the pod runtime because the runs live in a map of their own in the kubelet
//! (a pod without ephemeral containers holds nothing for them), and the pod runtime only asks
//! [`step`] what to do and [`statuses`] what to report.
//!
//! Upstream: `pkg/kubelet/kuberuntime/kuberuntime_manager.go` (`computePodActions`:
//! `EphemeralContainersToStart`, ephemeral containers never restarted; `SyncPod` step 7 starts
//! them), `pkg/kubelet/kubelet_pods.go` (`convertToAPIContainerStatuses` for
//! `EphemeralContainerStatuses`, sorted by `SortedContainerStatuses`; a container not yet
//! created waits in `ContainerCreating`).

use super::{event, image_events, pull_delay, pulls, started_events, Effect, Host};
use crate::api::pod::{
    ContainerState, ContainerStateRunning, ContainerStateWaiting, ContainerStatus,
    ContainerStatuses, EphemeralContainer, Pod,
};
use crate::clock::Timestamp;
use crate::controllers::events::EventType;
use crate::hash::fnv1a64;
use watchlab_apimachinery::sort;

/// One ephemeral container of a pod, as the kubelet's runtime holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EphemeralRun {
    name: String,
    state: RunState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunState {
    /// Its image is being pulled (for `pull_ms`, if it had to be); it starts at `ready_at`.
    Creating {
        ready_at: Timestamp,
        pull_ms: Option<u64>,
    },
    /// Started at `since`; it runs until the pod stops.
    Running { since: Timestamp },
}

/// What a sync does with a pod's ephemeral containers.
#[derive(Debug, Default)]
pub struct Step {
    /// The runs from here on, in the spec's order.
    pub runs: Vec<EphemeralRun>,
    /// Whether they differ from the runs the sync started from.
    pub changed: bool,
    /// Events, image and random source changes, in order.
    pub effects: Vec<Effect>,
    /// When a run being created starts, if one is.
    pub wake: Option<Timestamp>,
}

/// The ephemeral containers of running `pod` at `now`, given their runs so far; `None` when the
/// pod has none (nothing to do, nothing copied). A container with no run is adopted when the
/// pod's status shows it running (the kubelet restarted), else its creation starts.
pub fn step(runs: &[EphemeralRun], pod: &Pod, now: Timestamp, host: &Host<'_>) -> Option<Step> {
    if pod.spec.ephemeral_containers.is_empty() && runs.is_empty() {
        return None;
    }
    let mut out = Step::default();
    let mut rng = None;
    for ec in pod.spec.ephemeral_containers.iter() {
        let name = &ec.container.name;
        let state = match runs.iter().find(|r| &r.name == name) {
            Some(run) => match run.state {
                RunState::Creating { ready_at, pull_ms } if now >= ready_at => {
                    started_events(&ec.container, pull_ms, &mut out.effects);
                    RunState::Running { since: now }
                }
                state => state,
            },
            None => match running_since(pod, name) {
                Some(since) => RunState::Running { since },
                None => begin(ec, now, host, &mut rng, &mut out.effects),
            },
        };
        if let RunState::Creating { ready_at, .. } = state {
            out.wake = Some(out.wake.map_or(ready_at, |w: Timestamp| w.min(ready_at)));
        }
        out.runs.push(EphemeralRun {
            name: name.clone(),
            state,
        });
    }
    if let Some(rng) = rng {
        out.effects.push(Effect::Rng(Box::new(rng)));
    }
    out.changed = out.runs != runs;
    Some(out)
}

/// When the pod's status says ephemeral container `name` started, if it runs.
fn running_since(pod: &Pod, name: &str) -> Option<Timestamp> {
    pod.status
        .ephemeral_container_statuses
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| s.state.running.as_ref())
        .and_then(|r| r.started_at)
}

/// A new ephemeral container: its image pulled (`Pulling`, or `already present`) and its start
/// due after the pull, or after the start delay when the image is on the node. `rng` is the
/// node's random source once drawn from in this sync.
fn begin(
    ec: &EphemeralContainer,
    now: Timestamp,
    host: &Host<'_>,
    rng: &mut Option<crate::rng::SimRng>,
    out: &mut Vec<Effect>,
) -> RunState {
    let pull = pulls(&ec.container, host);
    image_events(&ec.container, pull, host, out);
    let delay = if pull {
        pull_delay(host, rng.get_or_insert_with(|| host.rng.clone()))
    } else {
        host.profile.container_start_delay_ms
    };
    RunState::Creating {
        ready_at: now.plus_millis(delay),
        pull_ms: pull.then_some(delay),
    }
}

/// The `Killing` Events of the ephemeral containers running when the pod stops.
pub fn stop_events(runs: &[EphemeralRun], out: &mut Vec<Effect>) {
    for run in runs {
        if matches!(run.state, RunState::Running { .. }) {
            let message = format!("Stopping container {}", run.name);
            out.push(event(EventType::Normal, "Killing", message));
        }
    }
}

/// `status.ephemeralContainerStatuses` for `runs` of `pod`: waiting in `ContainerCreating`,
/// then running since its start; sorted by name as the kubelet sorts them.
pub fn statuses(runs: &[EphemeralRun], pod: &Pod) -> ContainerStatuses {
    let mut out: Vec<ContainerStatus> = runs
        .iter()
        .filter_map(|run| {
            let ec = pod
                .spec
                .ephemeral_containers
                .iter()
                .find(|e| e.container.name == run.name)?;
            Some(status(run, ec, pod))
        })
        .collect();
    sort::sort_by(&mut out, |a, b| a.name.cmp(&b.name));
    out.into()
}

fn status(run: &EphemeralRun, ec: &EphemeralContainer, pod: &Pod) -> ContainerStatus {
    let (state, container_id) = match run.state {
        RunState::Creating { .. } => (
            ContainerState {
                waiting: Some(ContainerStateWaiting {
                    reason: "ContainerCreating".into(),
                    message: String::new(),
                }),
                ..Default::default()
            },
            String::new(),
        ),
        RunState::Running { since } => {
            let hash = fnv1a64(format!("{}/{}", pod.metadata.uid, run.name).as_bytes());
            (
                ContainerState {
                    running: Some(ContainerStateRunning {
                        started_at: Some(since),
                    }),
                    ..Default::default()
                },
                format!("containerd://{hash:016x}"),
            )
        }
    };
    ContainerStatus {
        name: run.name.clone(),
        image: ec.container.image.clone(),
        state,
        container_id,
        ..Default::default()
    }
}
