//! The back-off before a failed Job pod is replaced (pkg/controller/job/backoff_utils.go):
//! the controller remembers, per Job, how many pods failed since the last success and when the
//! last of them finished (`backoffRecord`); a replacement waits 10 s after one failure, twice
//! that after each further one, at most 10 minutes (`DefaultJobPodFailureBackOff`,
//! `MaxJobPodFailureBackOff` in v1.32). When a pod finished is read from the pod itself
//! (`getFinishedTime`). Apart from the controller because it is a small pure calculation.

use crate::api::pod::Pod;
use crate::clock::Timestamp;
use watchlab_apimachinery::sort;

/// `DefaultJobPodFailureBackOff`.
pub const DEFAULT_JOB_POD_FAILURE_BACKOFF_MS: u64 = 10_000;
/// `MaxJobPodFailureBackOff`.
pub const MAX_JOB_POD_FAILURE_BACKOFF_MS: u64 = 10 * 60_000;

/// `backoffRecord`: failures since the last success, and when the last one finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackoffRecord {
    pub failures_after_last_success: u32,
    pub last_failure_time: Option<Timestamp>,
}

impl BackoffRecord {
    /// `newBackoffRecord`: this record after the newly succeeded and failed pods (not yet
    /// counted in the Job's status): failures add up; a success resets the count to the
    /// failures that finished after the last success.
    pub fn after(self, succeeded: &[&Pod], failed: &[&Pod]) -> BackoffRecord {
        let mut failed_at: Vec<Timestamp> = failed.iter().map(|p| finished_time(p)).collect();
        sort::sort(&mut failed_at);
        let Some(last_success) = succeeded.iter().map(|p| finished_time(p)).max() else {
            return match failed_at.last() {
                None => self,
                Some(last) => BackoffRecord {
                    failures_after_last_success: self.failures_after_last_success
                        + failed_at.len() as u32,
                    last_failure_time: Some(*last),
                },
            };
        };
        let after: Vec<Timestamp> = failed_at
            .into_iter()
            .filter(|t| *t > last_success)
            .collect();
        BackoffRecord {
            failures_after_last_success: after.len() as u32,
            last_failure_time: after.last().copied(),
        }
    }

    /// `getRemainingTime`: how long a replacement must still wait at `now` (0: none).
    pub fn remaining_ms(&self, now: Timestamp) -> u64 {
        let Some(last) = self.last_failure_time else {
            return 0;
        };
        if self.failures_after_last_success == 0 {
            return 0;
        }
        let mut backoff = DEFAULT_JOB_POD_FAILURE_BACKOFF_MS;
        for _ in 1..self.failures_after_last_success {
            backoff = backoff.saturating_mul(2);
            if backoff >= MAX_JOB_POD_FAILURE_BACKOFF_MS {
                backoff = MAX_JOB_POD_FAILURE_BACKOFF_MS;
                break;
            }
        }
        backoff.saturating_sub(now.millis_since(last))
    }
}

/// `getFinishedTime`: the last container's `finishedAt` when every container terminated, else
/// when Ready turned False, else the deletion time less the grace period, else the creation.
pub fn finished_time(p: &Pod) -> Timestamp {
    containers_finished(p)
        .or_else(|| {
            p.condition("Ready")
                .filter(|c| c.status == "False")
                .and_then(|c| c.last_transition_time)
        })
        .or_else(|| {
            let grace_ms = p.metadata.deletion_grace_period_seconds.unwrap_or(0).max(0) as u64;
            p.metadata
                .deletion_timestamp
                .map(|t| Timestamp::from_millis(t.as_millis().saturating_sub(grace_ms * 1000)))
        })
        .or(p.metadata.creation_timestamp)
        .unwrap_or(Timestamp::ZERO)
}

/// `getFinishTimeFromContainers`: the latest `finishedAt`, if every container has one.
fn containers_finished(p: &Pod) -> Option<Timestamp> {
    let mut latest: Option<Timestamp> = None;
    for s in p.status.container_statuses.iter() {
        let at = s.state.terminated.as_ref()?.finished_at?;
        latest = Some(latest.map_or(at, |l| l.max(at)));
    }
    latest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pod::{ContainerState, ContainerStateTerminated, ContainerStatus};

    fn finished_at(secs: u64) -> Pod {
        let mut p = Pod::default();
        p.status.container_statuses = vec![ContainerStatus {
            name: "c".into(),
            state: ContainerState {
                terminated: Some(Box::new(ContainerStateTerminated {
                    exit_code: 1,
                    finished_at: Some(Timestamp::from_secs(secs)),
                    ..Default::default()
                })),
                ..Default::default()
            },
            ..Default::default()
        }]
        .into();
        p
    }

    #[test]
    fn the_delay_doubles_from_ten_seconds_to_ten_minutes_and_a_success_resets_it() {
        let none = BackoffRecord::default();
        let f1 = finished_at(100);
        let one = none.after(&[], &[&f1]);
        assert_eq!(one.remaining_ms(Timestamp::from_secs(101)), 9_000);
        let f2 = finished_at(200);
        let two = one.after(&[], &[&f2]);
        assert_eq!(two.remaining_ms(Timestamp::from_secs(200)), 20_000);
        let many = BackoffRecord {
            failures_after_last_success: 12,
            last_failure_time: Some(Timestamp::from_secs(0)),
        };
        assert_eq!(
            many.remaining_ms(Timestamp::ZERO),
            MAX_JOB_POD_FAILURE_BACKOFF_MS
        );
        let ok = finished_at(150);
        let reset = two.after(&[&ok], &[&f2]);
        assert_eq!(
            reset.failures_after_last_success, 1,
            "only the failure after it"
        );
        assert_eq!(two.after(&[&ok], &[]), BackoffRecord::default());
    }
}
