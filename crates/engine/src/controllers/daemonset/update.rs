//! The DaemonSet rolling update (pkg/controller/daemon/update.go `rollingUpdate`). Each node
//! is put in a [`Class`] by its old and new pods (`findUpdatedPodsOnNode`) when its facts are
//! computed ([`super::state`]); a sync then reads the class counts and takes the members it
//! may act on:
//! - without surge, old pods are deleted while the nodes without an available pod stay within
//!   `maxUnavailable` (an unavailable old pod is replaced at once), and the core loop creates
//!   the new pod once the old one is gone;
//! - with `maxSurge`, a new pod is created beside an available old one on up to `maxSurge`
//!   nodes at a time (at once where the old one is unavailable), and the old one is deleted
//!   when the new one is available.
//!
//! `maxUnavailable` and `maxSurge` are scaled on the desired number of nodes rounding up
//! (`util.UnavailableCount`, `util.SurgeCount`); both 0 is taken as `maxUnavailable` 1.

use super::class::{find_updated, Class, Shape};
use super::state::DaemonState;
use crate::api::apps::{DaemonSet, IntOrString};

/// `util.SurgeCount` and `util.UnavailableCount` for `desired` nodes, with
/// `updatedDesiredNodeCounts`' fallback to one unavailable.
pub fn surge_and_unavailable(ds: &DaemonSet, desired: i32) -> (i32, i32) {
    let ru = ds
        .spec
        .update_strategy
        .as_ref()
        .filter(|s| s.type_ == "RollingUpdate")
        .and_then(|s| s.rolling_update.as_ref());
    let scaled =
        |v: Option<&IntOrString>| v.map_or(0, |v| v.scaled_value(desired, true).unwrap_or(0));
    let surge = scaled(ru.and_then(|r| r.max_surge.as_ref()));
    let unavailable = scaled(ru.and_then(|r| r.max_unavailable.as_ref()));
    if desired > 0 && surge == 0 && unavailable == 0 {
        return (0, 1);
    }
    (surge, unavailable)
}

/// `util.AllowsSurge`.
pub fn allows_surge(ds: &DaemonSet) -> bool {
    surge_and_unavailable(ds, 1).0 != 0
}

/// What one rolling-update pass asks of `syncNodes`.
#[derive(Debug, Default)]
pub struct Plan {
    /// Old pods to delete, by name.
    pub delete: Vec<String>,
    /// Nodes to create a new pod on.
    pub create: Vec<String>,
}

/// `rollingUpdate`, from the classes the state keeps.
pub fn rolling_update(state: &DaemonState, ds: &DaemonSet, shape: &Shape) -> Plan {
    let totals = state.totals();
    let (max_surge, max_unavailable) = surge_and_unavailable(ds, totals.desired);
    let old_pod = |node: &String| {
        let pods = state.pods_on(node);
        find_updated(shape, &pods)
            .and_then(|(_, old)| old)
            .map(|p| p.metadata.name.clone())
    };
    let mut plan = Plan::default();
    if max_surge == 0 {
        let unavailable = state.count(Class::Unavailable) + state.count(Class::ReplaceOld);
        let remaining = (max_unavailable.max(0) as usize).saturating_sub(unavailable);
        let replace = state.members(Class::ReplaceOld);
        let candidates = state.members(Class::CandidateOld).take(remaining);
        plan.delete = replace.chain(candidates).filter_map(old_pod).collect();
        return plan;
    }
    let surging = state.count(Class::Surging);
    plan.delete = state
        .members(Class::DeleteOld)
        .filter_map(old_pod)
        .collect();
    let deletable = (totals.surge_available - totals.desired).max(0) as usize;
    let sunset = state.members(Class::ShouldNotRun).take(deletable);
    plan.delete.extend(sunset.filter_map(old_pod));
    let remaining = (max_surge.max(0) as usize).saturating_sub(surging);
    let allowed = state.members(Class::AllowNew);
    let candidates = state.members(Class::CandidateNew).take(remaining);
    plan.create = allowed.chain(candidates).cloned().collect();
    plan
}
