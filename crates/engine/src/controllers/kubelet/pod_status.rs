//! The status the kubelet's status manager writes for a pod, computed from what its runtime
//! holds: the ContainerCreating status of a pod being started, and a started pod's phase,
//! container statuses and conditions. Apart from the pod runtime because it is a pure reading
//! of the runtime's state (the runtime decides *when* a status is written, this module *what*
//! it says). Upstream: `pkg/kubelet/kubelet_pods.go` (`generateAPIPodStatus`, `getPhase`,
//! `convertToAPIContainerStatuses`) and `pkg/kubelet/status/generate.go` (the Ready and
//! ContainersReady conditions' reasons).

use std::sync::Arc;

use crate::api::pod::{
    ContainerState, ContainerStateTerminated, ContainerStateWaiting, ContainerStatus, Pod,
    PodStatus,
};
use crate::api::ObjectMeta;
use crate::clock::Timestamp;
use crate::controllers::container_lifecycle::ContainerRun;
use crate::hash::fnv1a64;

/// The status of a pod whose sandbox is being created: Pending, every container waiting in
/// ContainerCreating, not ready (the kubelet's first status write of a pod).
pub(super) fn creating_status(pod: &Pod, host_ip: &Arc<str>, now: Timestamp) -> PodStatus {
    let mut p = Pod {
        metadata: ObjectMeta::default(),
        spec: pod.spec.clone(),
        status: pod.status.clone(),
    };
    let names: Vec<&str> = pod
        .spec
        .containers
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let unready = format!("containers with unready status: [{}]", names.join(" "));
    p.status.phase = "Pending".into();
    p.set_condition("PodReadyToStartContainers", "False", now);
    p.set_condition("Initialized", "True", now);
    p.set_condition("Ready", "False", now);
    p.set_condition("ContainersReady", "False", now);
    p.set_condition("PodScheduled", "True", now);
    for c in &mut p.status.conditions {
        if c.type_ == "Ready" || c.type_ == "ContainersReady" {
            c.reason = "ContainersNotReady".into();
            c.message = unready.clone();
        }
    }
    p.status.host_ip = host_ip.clone();
    p.status.start_time.get_or_insert(now);
    p.status.container_statuses = pod
        .spec
        .containers
        .iter()
        .map(|c| ContainerStatus {
            name: c.name.clone(),
            image: c.image.clone(),
            ready: false,
            started: Some(false),
            state: ContainerState {
                waiting: Some(ContainerStateWaiting {
                    reason: "ContainerCreating".into(),
                    message: String::new(),
                }),
                ..Default::default()
            },
            ..Default::default()
        })
        .collect();
    p.status
}

/// The status of a pod whose sandbox is up at `ip` but whose containers could not be
/// created: still Pending, ready to start containers, each container in `errors` waiting in
/// `CreateContainerConfigError` with its error, the others still `ContainerCreating`.
pub(super) fn config_error_status(
    pod: &Pod,
    ip: &str,
    host_ip: &Arc<str>,
    errors: &[(String, String)],
    now: Timestamp,
) -> PodStatus {
    // On the ContainerCreating status written at the start (kept as it is, so a retry that
    // finds the same error writes nothing).
    let status = match pod.status.container_statuses.is_empty() {
        true => creating_status(pod, host_ip, now),
        false => pod.status.clone(),
    };
    let mut p = Pod {
        metadata: ObjectMeta::default(),
        spec: pod.spec.clone(),
        status,
    };
    p.set_condition("PodReadyToStartContainers", "True", now);
    p.status.pod_ip = ip.to_string();
    for s in &mut p.status.container_statuses {
        let (reason, message) = match errors.iter().find(|(n, _)| *n == s.name) {
            Some((_, why)) => ("CreateContainerConfigError", why.clone()),
            None => ("ContainerCreating", String::new()),
        };
        s.state.waiting = Some(ContainerStateWaiting {
            reason: reason.into(),
            message,
        });
    }
    p.status
}

/// The status of a pod whose containers run (`generateAPIPodStatus`): each container's state,
/// `ready`, `started`, restarts and last state; the phase from the containers and the
/// restartPolicy (`getPhase`); ContainersReady and Ready from the containers' readiness, with
/// the kubelet's reasons; `ip` the sandbox's address. Built on a copy of the status alone (a
/// sync that finds nothing changed copies no metadata).
pub(super) fn running_status(
    pod: &Pod,
    runs: &[ContainerRun],
    ip: &str,
    host_ip: &Arc<str>,
    now: Timestamp,
) -> PodStatus {
    let mut p = Pod {
        metadata: ObjectMeta::default(),
        spec: pod.spec.clone(),
        status: pod.status.clone(),
    };
    p.status.container_statuses = pod
        .spec
        .containers
        .iter()
        .enumerate()
        .map(|(i, c)| match runs.iter().find(|r| r.name() == c.name) {
            Some(r) => r.status(c, &pod.metadata, container_id(pod, i, r.restart_count())),
            None => ContainerStatus {
                name: c.name.clone(),
                image: c.image.clone(),
                ..Default::default()
            },
        })
        .collect();
    let phase = pod_phase(pod, runs);
    let terminal = matches!(phase, "Succeeded" | "Failed");
    p.status.phase = phase.into();
    let unready: Vec<&str> = pod
        .spec
        .containers
        .iter()
        .filter(|c| !runs.iter().any(|r| r.name() == c.name && r.is_ready()))
        .map(|c| c.name.as_str())
        .collect();
    let ready = if unready.is_empty() { "True" } else { "False" };
    for (t, status) in [
        (
            "PodReadyToStartContainers",
            if terminal { "False" } else { "True" },
        ),
        ("Initialized", "True"),
        ("Ready", ready),
        ("ContainersReady", ready),
        ("PodScheduled", "True"),
    ] {
        p.set_condition(t, status, now);
    }
    for c in &mut p.status.conditions {
        c.reason = "".into();
        c.message.clear();
        if (c.type_ == "Ready" || c.type_ == "ContainersReady") && !unready.is_empty() {
            if phase == "Succeeded" {
                c.reason = "PodCompleted".into();
            } else {
                c.reason = "ContainersNotReady".into();
                c.message = format!("containers with unready status: [{}]", unready.join(" "));
            }
        }
    }
    p.status.host_ip = host_ip.clone();
    p.status.pod_ip = ip.to_string();
    p.status.start_time.get_or_insert(now);
    p.status
}

/// The status of a pod being deleted once the kubelet has stopped its containers
/// (`generateAPIPodStatus` with `podIsTerminal`): each container that was still running
/// terminated by the stop (exit code 143, `Error`), the phase Failed unless every container
/// exited 0, nothing ready. Written only for a pod that outlives the final delete (it has
/// finalizers, such as a Job's tracking finalizer, whose holder reads the phase).
pub(super) fn stopped_status(pod: &Pod, now: Timestamp) -> PodStatus {
    let mut p = Pod {
        metadata: ObjectMeta::default(),
        spec: pod.spec.clone(),
        status: pod.status.clone(),
    };
    let mut all_succeeded = true;
    for s in p.status.container_statuses.iter_mut() {
        if s.state.terminated.is_none() {
            let started_at = s.state.running.as_ref().and_then(|r| r.started_at);
            s.state = ContainerState {
                terminated: Some(Box::new(ContainerStateTerminated {
                    exit_code: 143,
                    reason: "Error".into(),
                    started_at,
                    finished_at: Some(now),
                    ..Default::default()
                })),
                ..Default::default()
            };
        }
        all_succeeded &= s
            .state
            .terminated
            .as_ref()
            .is_some_and(|t| t.exit_code == 0);
        s.ready = false;
        s.started = Some(false);
    }
    let phase = if all_succeeded { "Succeeded" } else { "Failed" };
    p.status.phase = phase.into();
    for t in ["PodReadyToStartContainers", "Ready", "ContainersReady"] {
        p.set_condition(t, "False", now);
    }
    let names: Vec<&str> = pod
        .spec
        .containers
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    for c in &mut p.status.conditions {
        if c.type_ == "Ready" || c.type_ == "ContainersReady" {
            if phase == "Succeeded" {
                c.reason = "PodCompleted".into();
                c.message.clear();
            } else {
                c.reason = "ContainersNotReady".into();
                c.message = format!("containers with unready status: [{}]", names.join(" "));
            }
        }
    }
    p.status
}

/// The runtime's ID of container `i` of `pod` in its `restarts`-th run.
fn container_id(pod: &Pod, i: usize, restarts: i32) -> String {
    let hash = if restarts == 0 {
        fnv1a64(pod.metadata.uid.as_bytes())
    } else {
        fnv1a64(format!("{}#{restarts}", pod.metadata.uid).as_bytes())
    };
    format!("containerd://{hash:016x}{i:02}")
}

/// `getPhase` for a pod whose containers have all been started: Running while any runs (or
/// will be restarted); once none will run again, Succeeded if every container exited 0 (or,
/// with `OnFailure`, as soon as all have), Failed otherwise.
fn pod_phase(pod: &Pod, runs: &[ContainerRun]) -> &'static str {
    let running = runs.iter().filter(|r| r.is_running()).count();
    if running > 0 || runs.is_empty() {
        return "Running";
    }
    let done: Vec<_> = runs.iter().filter_map(ContainerRun::done).collect();
    let failed = done.iter().filter(|t| t.exit_code != 0).count();
    match pod.spec.restart_policy.as_deref().unwrap_or("Always") {
        "Never" if done.len() == runs.len() => {
            if failed > 0 {
                "Failed"
            } else {
                "Succeeded"
            }
        }
        "OnFailure" if done.len() == runs.len() && failed == 0 => "Succeeded",
        _ => "Running",
    }
}
