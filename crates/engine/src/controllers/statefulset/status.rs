//! A StatefulSet's status (stateful_set_control.go `computeReplicaStatus`, `updateStatus`,
//! `updateStatefulSetStatus`; stateful_set_utils.go `completeRollingUpdate`,
//! `inconsistentStatus`): `replicas` counts the pods that exist, `readyReplicas` the Running
//! and Ready ones, `availableReplicas` those Ready for `minReadySeconds`, `currentReplicas` and
//! `updatedReplicas` the live pods of the current and the update revision. A rolling update
//! whose pods are all updated and ready is complete: the update revision becomes the current
//! one. The status is written only when one of those counts or names changed.

use crate::api::apps::{StatefulSet, StatefulSetStatus};
use crate::api::pod::Pod;
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;
use crate::controllers::podutil::{is_pod_available, is_pod_ready};
use crate::controllers::Requeue;

use super::identity::pod_revision;
use super::USER_AGENT;

/// `isCreated`: the API server has the pod (its phase is set).
pub fn is_created(pod: &Pod) -> bool {
    !pod.status.phase.is_empty()
}

/// `isRunningAndReady`.
pub fn is_running_and_ready(pod: &Pod) -> bool {
    &*pod.status.phase == "Running" && is_pod_ready(pod)
}

/// `isHealthy`: Running, Ready and not terminating.
pub fn is_healthy(pod: &Pod) -> bool {
    is_running_and_ready(pod) && pod.metadata.deletion_timestamp.is_none()
}

/// `computeReplicaStatus` over `pods` (the set's in-range and condemned pods), into `status`.
pub fn count<'a>(
    status: &mut StatefulSetStatus,
    min_ready_seconds: i32,
    now: Timestamp,
    pods: impl Iterator<Item = &'a Pod>,
) {
    status.replicas = 0;
    status.ready_replicas = 0;
    status.available_replicas = 0;
    status.current_replicas = 0;
    status.updated_replicas = 0;
    for pod in pods.filter(|p| is_created(p)) {
        status.replicas += 1;
        if is_running_and_ready(pod) {
            status.ready_replicas += 1;
            if is_pod_available(pod, min_ready_seconds, now) {
                status.available_replicas += 1;
            }
        }
        if pod.metadata.deletion_timestamp.is_none() {
            let revision = pod_revision(pod);
            if revision == status.current_revision {
                status.current_replicas += 1;
            }
            if revision == status.update_revision {
                status.updated_replicas += 1;
            }
        }
    }
}

/// `completeRollingUpdate`: every replica updated and ready ends the rolling update.
fn complete_rolling_update(set: &StatefulSet, status: &mut StatefulSetStatus) {
    let replicas = set.spec.replicas.unwrap_or(1);
    if set.update_strategy() == "RollingUpdate"
        && status.updated_replicas == replicas
        && status.ready_replicas == replicas
        && status.replicas == replicas
    {
        status.current_replicas = status.updated_replicas;
        status.current_revision.clone_from(&status.update_revision);
    }
}

/// `inconsistentStatus`.
fn inconsistent(set: &StatefulSet, s: &StatefulSetStatus) -> bool {
    let old = &set.status;
    s.observed_generation > old.observed_generation
        || s.replicas != old.replicas
        || s.current_replicas != old.current_replicas
        || s.ready_replicas != old.ready_replicas
        || s.updated_replicas != old.updated_replicas
        || s.current_revision != old.current_revision
        || s.available_replicas != old.available_replicas
        || s.update_revision != old.update_revision
}

/// `updateStatefulSetStatus`: completes a finished rolling update, then writes the status
/// (whole, as `set.Status = *status` does) when it is inconsistent with the stored one.
pub fn write(
    api: &mut ApiServer,
    set: &StatefulSet,
    mut status: StatefulSetStatus,
) -> Result<StatefulSetStatus, Requeue> {
    complete_rolling_update(set, &mut status);
    if !inconsistent(set, &status) {
        return Ok(status);
    }
    let mut updated = set.clone();
    updated.status = status.clone();
    api.update_status(USER_AGENT, Object::from(updated))
        .map(|_| status)
        .map_err(|_| Requeue)
}
