//! How a StatefulSet moves its pods to a new revision (stateful_set_control.go
//! `updateStatefulSet`'s last loop; stateful_set_utils.go `newVersionedStatefulSetPod`).
//! `RollingUpdate` deletes, from the highest ordinal down to `partition`, one pod that is not
//! of the update revision at a time, and goes on only once the pod above is Running and Ready
//! again (recreated by the next sync at the update revision); pods below the partition keep
//! — and are recreated at — the current revision. `OnDelete` deletes nothing: a pod someone
//! deletes comes back at the update revision. (`maxUnavailable` is the alpha
//! `MaxUnavailableStatefulSet` feature, off in v1.32: one pod at a time.)

use crate::api::apps::StatefulSet;

/// The partition of a `RollingUpdate` (`None` without a `rollingUpdate`).
pub fn partition(set: &StatefulSet) -> Option<i32> {
    let ru = set.spec.update_strategy.as_ref()?.rolling_update.as_ref()?;
    Some(ru.partition.unwrap_or(0))
}

/// `newVersionedStatefulSetPod`'s choice: whether the pod of `ordinal` is made at the current
/// revision (below the partition; without a `rollingUpdate`, below the current replicas),
/// else at the update revision. Go's `A && B || C` groups as `(A && B) || C`.
pub fn made_at_current(set: &StatefulSet, ordinal: i32) -> bool {
    let start = set.start_ordinal();
    let rolling = set.update_strategy() == "RollingUpdate";
    match partition(set) {
        None => rolling && ordinal < start.saturating_add(set.status.current_replicas),
        Some(p) => ordinal < start.saturating_add(p),
    }
}

/// A replica as the rolling update sees it (`replicas[target]`).
pub struct Target {
    pub is_update_revision: bool,
    pub terminating: bool,
    pub healthy: bool,
}

/// What the rolling update does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Delete the replica at this index (its ordinal minus the start).
    Delete(usize),
    /// Wait: a replica at or above the partition is not healthy yet.
    Wait,
    /// Every replica at or above the partition is updated and healthy.
    Done,
}

/// The loop from the highest index down to the partition: the first replica of an old
/// revision that is not terminating is deleted; an unhealthy one is waited for.
pub fn next_step(set: &StatefulSet, len: usize, target: impl Fn(usize) -> Target) -> Step {
    let min = partition(set).unwrap_or(0).max(0) as usize;
    for i in (min..len).rev() {
        let t = target(i);
        if !t.is_update_revision && !t.terminating {
            return Step::Delete(i);
        }
        if !t.healthy {
            return Step::Wait;
        }
    }
    Step::Done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::apps::{RollingUpdateStatefulSetStrategy, StatefulSetUpdateStrategy};

    fn set(partition: i32) -> StatefulSet {
        let mut s = StatefulSet::default();
        s.spec.replicas = Some(3);
        s.spec.update_strategy = Some(StatefulSetUpdateStrategy {
            type_: "RollingUpdate".into(),
            rolling_update: Some(RollingUpdateStatefulSetStrategy {
                partition: Some(partition),
                max_unavailable: None,
            }),
        });
        s
    }

    #[test]
    fn highest_first_down_to_the_partition() {
        let s = set(1);
        let old = |i: usize| Target {
            is_update_revision: false,
            terminating: false,
            healthy: i < 3,
        };
        assert_eq!(next_step(&s, 3, old), Step::Delete(2));
        let updated_above = |i: usize| Target {
            is_update_revision: i >= 2,
            terminating: false,
            healthy: true,
        };
        assert_eq!(next_step(&s, 3, updated_above), Step::Delete(1));
        let all_above = |i: usize| Target {
            is_update_revision: i >= 1,
            terminating: false,
            healthy: true,
        };
        assert_eq!(next_step(&s, 3, all_above), Step::Done, "web-0 stays");
        let waiting = |i: usize| Target {
            is_update_revision: true,
            terminating: false,
            healthy: i != 2,
        };
        assert_eq!(next_step(&s, 3, waiting), Step::Wait);
        assert!(made_at_current(&s, 0) && !made_at_current(&s, 1));
    }
}
