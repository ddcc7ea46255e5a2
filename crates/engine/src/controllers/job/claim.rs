//! Which pods a Job manages (`getPodsForJob` with `PodControllerRefManager.ClaimPods`): the
//! pods it controls that its selector still matches, pods it controls that no longer match
//! released, and the namespace's orphans that match adopted — an ownerReference and the
//! tracking finalizer added by one strategic merge patch, after a fresh read of the Job
//! confirms it is not being deleted (`RecheckDeletionTimestamp`). The pods are read through the
//! shared pod cache's controller-uid index (the Job's own pods and its namespace's orphans), not
//! a scan of the namespace.

use std::sync::Arc;

use serde_json::json;

use super::{JobController, USER_AGENT};
use crate::api::batch::{Job, JOB_TRACKING_FINALIZER};
use crate::api::meta::OwnerReference;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::patch::{PatchTarget, PatchType};
use crate::apiserver::ApiServer;
use crate::controllers::adapter::{orphan_pod_index_key, POD_CONTROLLER_UID_INDEX};
use crate::controllers::Requeue;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::status::Status;

/// `metav1.NewControllerRef(job, batch/v1 Job)`.
pub fn job_controller_ref(meta: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: "batch/v1".into(),
        kind: "Job".into(),
        name: meta.name.clone(),
        uid: meta.uid.clone(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

impl JobController {
    /// The pods the Job manages after claiming; a failed release or adoption fails the sync
    /// (it is retried with back-off).
    pub(super) fn pods_for_job(
        &self,
        api: &mut ApiServer,
        job: &Job,
    ) -> Result<Vec<Arc<Object>>, Requeue> {
        let selector = job
            .spec
            .selector
            .as_ref()
            .and_then(|s| s.to_selector().ok());
        let matches = |o: &Object| {
            selector
                .as_ref()
                .is_some_and(|s| s.matches(&o.meta().labels))
        };
        let store = self.pods.store();
        let deleting = job.metadata.deletion_timestamp.is_some();
        let mut pods = Vec::new();
        let mut failed = false;
        for o in store
            .by_index(POD_CONTROLLER_UID_INDEX, &job.metadata.uid)
            .unwrap_or_default()
        {
            if matches(&o) {
                pods.push(o);
            } else if !deleting {
                failed |= release(api, job, &o).is_err_and(|s| s.code() != 404);
            }
        }
        if !deleting {
            let orphans = store
                .by_index(
                    POD_CONTROLLER_UID_INDEX,
                    &orphan_pod_index_key(&job.metadata.namespace),
                )
                .unwrap_or_default();
            failed |= self.adopt_orphans(api, job, orphans, &selector, &mut pods);
        }
        match failed {
            true => Err(Requeue),
            false => Ok(pods),
        }
    }

    /// Adopts the orphans the selector matches, adding them to `pods` as written; true if an
    /// adoption failed.
    fn adopt_orphans(
        &self,
        api: &mut ApiServer,
        job: &Job,
        orphans: Vec<Arc<Object>>,
        selector: &Option<LabelSelector>,
        pods: &mut Vec<Arc<Object>>,
    ) -> bool {
        let mut can_adopt: Option<bool> = None;
        let mut failed = false;
        for o in orphans {
            let fits = selector
                .as_ref()
                .is_some_and(|s| s.matches(&o.meta().labels));
            if !fits || o.meta().deletion_timestamp.is_some() {
                continue;
            }
            // `RecheckDeletionTimestamp`: one quorum read of the Job before the first adoption.
            let adopt = *can_adopt.get_or_insert_with(|| {
                api.get(Kind::Job, Some(&job.metadata.namespace), &job.metadata.name)
                    .is_ok_and(|f| {
                        f.meta().uid == job.metadata.uid && f.meta().deletion_timestamp.is_none()
                    })
            });
            if !adopt {
                return false;
            }
            match adopt_pod(api, job, &o) {
                Ok(adopted) => pods.push(adopted),
                Err(s) if s.code() == 404 => {}
                Err(_) => failed = true,
            }
        }
        failed
    }
}

/// `AdoptPod`: the controller reference and the tracking finalizer, the pod's uid as a
/// precondition.
fn adopt_pod(api: &mut ApiServer, job: &Job, pod: &Object) -> Result<Arc<Object>, Status> {
    let patch = json!({"metadata": {
        "ownerReferences": [job_controller_ref(&job.metadata)],
        "uid": pod.meta().uid,
        "finalizers": [JOB_TRACKING_FINALIZER],
    }});
    patch_pod(api, pod, &patch)
}

/// `ReleasePod`: the Job's reference deleted from the pod.
fn release(api: &mut ApiServer, job: &Job, pod: &Object) -> Result<Arc<Object>, Status> {
    let patch = json!({"metadata": {
        "ownerReferences": [{"$patch": "delete", "uid": job.metadata.uid}],
        "uid": pod.meta().uid,
    }});
    patch_pod(api, pod, &patch)
}

fn patch_pod(
    api: &mut ApiServer,
    pod: &Object,
    patch: &serde_json::Value,
) -> Result<Arc<Object>, Status> {
    let target = PatchTarget {
        kind: Kind::Pod,
        namespace: Some(pod.namespace()),
        name: pod.name(),
        status: false,
    };
    api.patch(USER_AGENT, target, patch, PatchType::StrategicMerge)
}
