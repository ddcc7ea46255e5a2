//! `batch/v1` workloads: Job (runs pods until enough of them succeed, or gives up) and CronJob
//! (creates a Job from its template at the times a cron schedule names). Their controllers are
//! `controllers/job/` and `controllers/cronjob.rs`; the TTL-after-finished controller
//! (`controllers/ttl_after_finished.rs`) deletes finished Jobs.

use super::apps::PodTemplateSpec;
use super::meta::{ConditionStatus, LabelSelector, ObjectMeta, ObjectReference};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};

/// The labels the Job strategy writes on a Job's pod template and selects its pods by
/// (`batch.JobNameLabel`, `batch.ControllerUidLabel` and their legacy forms).
pub const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";
pub const LEGACY_JOB_NAME_LABEL: &str = "job-name";
pub const CONTROLLER_UID_LABEL: &str = "batch.kubernetes.io/controller-uid";
pub const LEGACY_CONTROLLER_UID_LABEL: &str = "controller-uid";
/// An Indexed Job's pod's index (`batch.JobCompletionIndexAnnotation`, also a label).
pub const JOB_COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";
/// The finalizer the Job controller puts on its pods until it has counted them
/// (`batch.JobTrackingFinalizer`).
pub const JOB_TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";
/// The CronJob controller's annotation on a Job it created: the scheduled time
/// (`batch.CronJobScheduledTimestampAnnotation`, RFC 3339 in the CronJob's time zone).
pub const CRONJOB_SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/// `completionMode` values.
pub const NON_INDEXED: &str = "NonIndexed";
pub const INDEXED: &str = "Indexed";

/// Job condition types (`batch.JobConditionType`).
pub const JOB_COMPLETE: &str = "Complete";
pub const JOB_FAILED: &str = "Failed";
pub const JOB_SUSPENDED: &str = "Suspended";
pub const JOB_FAILURE_TARGET: &str = "FailureTarget";
pub const JOB_SUCCESS_CRITERIA_MET: &str = "SuccessCriteriaMet";

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobSpec,
    #[serde(default)]
    pub status: JobStatus,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_failure_policy: Option<PodFailurePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_policy: Option<SuccessPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit_per_index: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_failed_indexes: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manual_selector: Option<bool>,
    #[serde(default)]
    pub template: PodTemplateSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_replacement_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
}

/// `podFailurePolicy`: rules matched in order against a failed pod; the first that matches
/// decides (FailJob, FailIndex, Ignore, Count).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicy {
    #[serde(default)]
    pub rules: Vec<PodFailurePolicyRule>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyRule {
    #[serde(default)]
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exit_codes: Option<PodFailurePolicyOnExitCodes>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_pod_conditions: Vec<PodFailurePolicyOnPodCondition>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOnExitCodes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_name: Option<String>,
    #[serde(default)]
    pub operator: String,
    #[serde(default)]
    pub values: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOnPodCondition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: String,
}

/// `successPolicy` (beta in v1.32): the Job succeeds once any rule holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuccessPolicy {
    #[serde(default)]
    pub rules: Vec<SuccessPolicyRule>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuccessPolicyRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded_indexes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded_count: Option<i32>,
}

/// `JobStatus`: the counts are `omitempty` in Go, so zero counts are left out.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<JobCondition>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub start_time: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub completion_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub active: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub succeeded: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminating: Option<i32>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub completed_indexes: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_indexes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncounted_terminated_pods: Option<UncountedTerminatedPods>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<i32>,
}

/// Pods that finished and still carry the tracking finalizer: counted into `succeeded` /
/// `failed` once their finalizer is gone.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UncountedTerminatedPods {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub succeeded: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
}

/// `JobCondition`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobCondition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: ConditionStatus,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_probe_time: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_transition_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

impl Job {
    /// Whether the condition `type_` is True.
    pub fn has_condition(&self, type_: &str) -> bool {
        self.status
            .conditions
            .iter()
            .any(|c| c.type_ == type_ && c.status == "True")
    }

    /// `IsJobFinished`: Complete or Failed is True.
    pub fn is_finished(&self) -> bool {
        self.has_condition(JOB_COMPLETE) || self.has_condition(JOB_FAILED)
    }

    /// When it finished: the last transition of its Complete or Failed condition.
    pub fn finish_time(&self) -> Option<Timestamp> {
        self.status
            .conditions
            .iter()
            .filter(|c| (c.type_ == JOB_COMPLETE || c.type_ == JOB_FAILED) && c.status == "True")
            .find_map(|c| c.last_transition_time)
    }

    pub fn is_indexed(&self) -> bool {
        self.spec.completion_mode.as_deref() == Some(INDEXED)
    }

    pub fn is_suspended(&self) -> bool {
        self.spec.suspend == Some(true)
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJob {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CronJobSpec,
    #[serde(default)]
    pub status: CronJobStatus,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    #[serde(default)]
    pub schedule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub concurrency_policy: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default)]
    pub job_template: JobTemplateSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

/// `concurrencyPolicy` values.
pub const ALLOW_CONCURRENT: &str = "Allow";
pub const FORBID_CONCURRENT: &str = "Forbid";
pub const REPLACE_CONCURRENT: &str = "Replace";

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobTemplateSpec {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobSpec,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_schedule_time: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_successful_time: Option<Timestamp>,
}

impl CronJob {
    pub fn is_suspended(&self) -> bool {
        self.spec.suspend == Some(true)
    }
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}
