//! `podFailurePolicy` (pkg/controller/job/pod_failure_policy.go): a failed pod is matched
//! against the rules in order, on its containers' exit codes or its conditions
//! (`DisruptionTarget` and the like); the first rule that matches decides — `FailJob` fails
//! the Job at once (with a message naming the container or the condition), `Ignore` keeps the
//! failure out of the `backoffLimit` count, `Count` counts it. Apart from the controller
//! because it is a pure reading of one pod.

use crate::api::batch::{PodFailurePolicy, PodFailurePolicyOnExitCodes, PodFailurePolicyRule};
use crate::api::pod::{ContainerStatus, Pod, PodCondition};

/// What matching a failed pod decided (`matchPodFailurePolicy`'s three results).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// `FailJob`'s message.
    pub fail_job: Option<String>,
    /// Whether the failure counts towards `backoffLimit` (false for `Ignore`).
    pub count: bool,
}

/// `matchPodFailurePolicy`.
pub fn match_pod_failure_policy(policy: Option<&PodFailurePolicy>, pod: &Pod) -> Matched {
    let counted = Matched {
        fail_job: None,
        count: true,
    };
    let Some(policy) = policy else {
        return counted;
    };
    for (index, rule) in policy.rules.iter().enumerate() {
        let Some(what) = rule_matches(rule, pod) else {
            continue;
        };
        return match rule.action.as_str() {
            "Ignore" => Matched {
                fail_job: None,
                count: false,
            },
            "Count" => counted,
            "FailJob" => Matched {
                fail_job: Some(fail_job_message(&what, pod, index)),
                count: true,
            },
            // FailIndex needs backoffLimitPerIndex, which is not modelled: the rule is passed.
            _ => continue,
        };
    }
    counted
}

/// What a rule matched: a terminated container, or a condition.
enum Match<'a> {
    Container(&'a ContainerStatus, i32),
    Condition(&'a PodCondition),
}

fn rule_matches<'a>(rule: &PodFailurePolicyRule, pod: &'a Pod) -> Option<Match<'a>> {
    if let Some(req) = &rule.on_exit_codes {
        return matching_container(pod, req).map(|(c, code)| Match::Container(c, code));
    }
    if rule.on_pod_conditions.is_empty() {
        return None;
    }
    pod.status
        .conditions
        .iter()
        .find(|c| {
            rule.on_pod_conditions
                .iter()
                .any(|p| p.type_ == *c.type_ && p.status == *c.status)
        })
        .map(Match::Condition)
}

/// `matchOnExitCodes`: the first terminated container (of the requirement's name, if it names
/// one) whose non-zero exit code the operator accepts.
fn matching_container<'a>(
    pod: &'a Pod,
    req: &PodFailurePolicyOnExitCodes,
) -> Option<(&'a ContainerStatus, i32)> {
    pod.status.container_statuses.iter().find_map(|s| {
        let code = s.state.terminated.as_ref()?.exit_code;
        let named = req.container_name.as_deref().is_none_or(|n| n == s.name);
        let accepted = match req.operator.as_str() {
            "In" => req.values.contains(&code),
            "NotIn" => !req.values.contains(&code),
            _ => false,
        };
        (named && code != 0 && accepted).then_some((s, code))
    })
}

fn fail_job_message(what: &Match<'_>, pod: &Pod, index: usize) -> String {
    let (ns, name) = (&pod.metadata.namespace, &pod.metadata.name);
    match what {
        Match::Container(c, code) => format!(
            "Container {} for pod {ns}/{name} failed with exit code {code} matching FailJob rule at index {index}",
            c.name
        ),
        Match::Condition(c) => format!(
            "Pod {ns}/{name} has condition {} matching FailJob rule at index {index}",
            &*c.type_
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::batch::PodFailurePolicyOnPodCondition;
    use crate::api::pod::{ContainerState, ContainerStateTerminated};
    use crate::api::ObjectMeta;

    fn exited(code: i32) -> Pod {
        let mut p = Pod {
            metadata: ObjectMeta::named("default", "job-x"),
            ..Default::default()
        };
        p.status.container_statuses = vec![ContainerStatus {
            name: "main".into(),
            state: ContainerState {
                terminated: Some(Box::new(ContainerStateTerminated {
                    exit_code: code,
                    ..Default::default()
                })),
                ..Default::default()
            },
            ..Default::default()
        }]
        .into();
        p
    }

    fn on_codes(action: &str, operator: &str, values: &[i32]) -> PodFailurePolicyRule {
        PodFailurePolicyRule {
            action: action.into(),
            on_exit_codes: Some(PodFailurePolicyOnExitCodes {
                container_name: None,
                operator: operator.into(),
                values: values.to_vec(),
            }),
            on_pod_conditions: Vec::new(),
        }
    }

    #[test]
    fn the_first_matching_rule_decides() {
        let policy = PodFailurePolicy {
            rules: vec![
                on_codes("FailJob", "In", &[42]),
                on_codes("Ignore", "NotIn", &[1]),
                PodFailurePolicyRule {
                    action: "Ignore".into(),
                    on_exit_codes: None,
                    on_pod_conditions: vec![PodFailurePolicyOnPodCondition {
                        type_: "DisruptionTarget".into(),
                        status: "True".into(),
                    }],
                },
            ],
        };
        let m = match_pod_failure_policy(Some(&policy), &exited(42));
        assert_eq!(
            m.fail_job.as_deref(),
            Some("Container main for pod default/job-x failed with exit code 42 matching FailJob rule at index 0")
        );
        assert!(!match_pod_failure_policy(Some(&policy), &exited(3)).count);
        assert!(match_pod_failure_policy(Some(&policy), &exited(1)).count);
        assert!(match_pod_failure_policy(None, &exited(42))
            .fail_job
            .is_none());
    }
}
