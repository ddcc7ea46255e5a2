//! `policy/v1` PodDisruptionBudget: how many of a set of pods may be down at once by choice.
//! The eviction subresource consults it before deleting a pod (`kubectl drain`), and the
//! disruption controller keeps its status (how many selected pods are healthy, how many must
//! be, how many disruptions that leaves).

use super::intstr::IntOrString;
use super::meta::{LabelSelector, ObjectMeta};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `unhealthyPodEvictionPolicy`'s values (`policy/v1` `UnhealthyPodEvictionPolicyType`).
pub const IF_HEALTHY_BUDGET: &str = "IfHealthyBudget";
pub const ALWAYS_ALLOW: &str = "AlwaysAllow";

/// The condition the disruption controller keeps (`policy.DisruptionAllowedCondition`) and
/// its reasons.
pub const DISRUPTION_ALLOWED: &str = "DisruptionAllowed";
pub const SUFFICIENT_PODS: &str = "SufficientPods";
pub const INSUFFICIENT_PODS: &str = "InsufficientPods";

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudget {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PodDisruptionBudgetSpec,
    #[serde(default)]
    pub status: PodDisruptionBudgetStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_available: Option<IntOrString>,
    /// `nil` selects no pod; `{}` selects every pod of the namespace (policy/v1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unhealthy_pod_eviction_policy: Option<String>,
}

/// Every count is written even when zero (Go's `json` tags have no `omitempty` on them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudgetStatus {
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub observed_generation: i64,
    /// Pods the eviction subresource let go and the controller has not yet seen deleted, with
    /// the time of their eviction.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "time::rfc3339_map"
    )]
    pub disrupted_pods: BTreeMap<String, Timestamp>,
    #[serde(default)]
    pub disruptions_allowed: i32,
    #[serde(default)]
    pub current_healthy: i32,
    #[serde(default)]
    pub desired_healthy: i32,
    #[serde(default)]
    pub expected_pods: i32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// `metav1.Condition`: `reason` and `message` are always written, empty or not.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub observed_generation: i64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_transition_time: Option<Timestamp>,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

impl PodDisruptionBudget {
    /// `UnhealthyPodEvictionPolicy`, `IfHealthyBudget` when unset.
    pub fn unhealthy_pod_eviction_policy(&self) -> &str {
        self.spec
            .unhealthy_pod_eviction_policy
            .as_deref()
            .unwrap_or(IF_HEALTHY_BUDGET)
    }

    /// `pdbhelper.UpdateDisruptionAllowedCondition`: `DisruptionAllowed` True
    /// (`SufficientPods`) while a disruption is allowed, else False (`InsufficientPods`).
    pub fn update_disruption_allowed_condition(&mut self, now: Timestamp) {
        let (status, reason) = if self.status.disruptions_allowed > 0 {
            ("True", SUFFICIENT_PODS)
        } else {
            ("False", INSUFFICIENT_PODS)
        };
        self.set_disruption_allowed(status, reason, "", now);
    }

    /// `meta.SetStatusCondition` of `DisruptionAllowed` at the status's observed generation:
    /// its transition time moves only when its status does.
    pub fn set_disruption_allowed(
        &mut self,
        status: &str,
        reason: &str,
        message: &str,
        now: Timestamp,
    ) {
        let generation = self.status.observed_generation;
        let conditions = &mut self.status.conditions;
        let existing = conditions
            .iter_mut()
            .find(|c| c.type_ == DISRUPTION_ALLOWED);
        match existing {
            Some(c) => {
                if c.status != status {
                    c.status = status.to_string();
                    c.last_transition_time = Some(now);
                }
                c.reason = reason.to_string();
                c.message = message.to_string();
                c.observed_generation = generation;
            }
            None => conditions.push(Condition {
                type_: DISRUPTION_ALLOWED.to_string(),
                status: status.to_string(),
                observed_generation: generation,
                last_transition_time: Some(now),
                reason: reason.to_string(),
                message: message.to_string(),
            }),
        }
    }

    /// `pdbhelper.ConditionsAreUpToDate`: the condition exists, was written at the observed
    /// generation and agrees with `disruptionsAllowed`.
    pub fn conditions_are_up_to_date(&self) -> bool {
        self.status
            .conditions
            .iter()
            .find(|c| c.type_ == DISRUPTION_ALLOWED)
            .is_some_and(|c| {
                c.observed_generation == self.status.observed_generation
                    && (self.status.disruptions_allowed > 0) == (c.status == "True")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_status_writes_its_zero_counts_and_the_condition_flips_with_them() {
        let mut pdb = PodDisruptionBudget::default();
        let json = serde_json::to_value(&pdb.status).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"disruptionsAllowed": 0, "currentHealthy": 0,
                "desiredHealthy": 0, "expectedPods": 0})
        );
        assert!(!pdb.conditions_are_up_to_date());
        pdb.status.observed_generation = 1;
        pdb.update_disruption_allowed_condition(Timestamp::from_millis(1_000));
        assert!(pdb.conditions_are_up_to_date());
        assert_eq!(pdb.status.conditions[0].reason, INSUFFICIENT_PODS);
        let c = serde_json::to_value(&pdb.status.conditions[0]).unwrap();
        assert_eq!(c["message"], "");
        pdb.status.disruptions_allowed = 1;
        assert!(!pdb.conditions_are_up_to_date());
        pdb.update_disruption_allowed_condition(Timestamp::from_millis(2_000));
        let c = &pdb.status.conditions[0];
        assert_eq!(
            (c.status.as_str(), c.reason.as_str()),
            ("True", SUFFICIENT_PODS)
        );
        assert_eq!(c.last_transition_time, Some(Timestamp::from_millis(2_000)));
        pdb.update_disruption_allowed_condition(Timestamp::from_millis(3_000));
        assert_eq!(
            pdb.status.conditions[0].last_transition_time,
            Some(Timestamp::from_millis(2_000))
        );
    }
}
