//! Mutating admission the API server runs on writes before strategy and validation. Only the
//! plugin whose effect the playground shows is modelled: DefaultTolerationSeconds, which is why
//! every pod — whoever created it — is evicted 300 s (or the configured time) after its node
//! goes NotReady/unreachable, rather than at once.

use crate::api::node::{NO_EXECUTE, TAINT_NOT_READY, TAINT_UNREACHABLE};
use crate::api::pod::{Pod, Toleration};

/// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`
/// (kube-apiserver default 300).
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;

/// The DefaultTolerationSeconds plugin (`plugin/pkg/admission/defaulttolerationseconds`): a
/// pod that tolerates neither the not-ready nor (resp.) the unreachable NoExecute taint gets
/// `{key, operator: Exists, effect: NoExecute, tolerationSeconds}` for it. Like the real
/// plugin, a toleration counts when its key is that taint's or empty and its effect is
/// NoExecute or empty; operator and value are not looked at.
pub fn default_toleration_seconds(pod: &mut Pod, not_ready_secs: i64, unreachable_secs: i64) {
    for (key, secs) in [
        (TAINT_NOT_READY, not_ready_secs),
        (TAINT_UNREACHABLE, unreachable_secs),
    ] {
        let covered = pod.spec.tolerations.iter().any(|t| {
            (t.key == key || t.key.is_empty()) && (t.effect == NO_EXECUTE || t.effect.is_empty())
        });
        if !covered {
            pod.spec_mut().tolerations.push(Toleration {
                key: key.into(),
                operator: "Exists".into(),
                value: "".into(),
                effect: NO_EXECUTE.into(),
                toleration_seconds: Some(secs),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toleration(key: &str, effect: &str, secs: Option<i64>) -> Toleration {
        Toleration {
            key: key.to_string().into(),
            operator: "Exists".into(),
            effect: effect.to_string().into(),
            toleration_seconds: secs,
            ..Default::default()
        }
    }

    #[test]
    fn adds_both_once_and_keeps_the_users_own() {
        let mut pod = Pod::default();
        default_toleration_seconds(&mut pod, 300, 60);
        default_toleration_seconds(&mut pod, 1, 1);
        assert_eq!(
            pod.spec.tolerations,
            vec![
                toleration(TAINT_NOT_READY, NO_EXECUTE, Some(300)),
                toleration(TAINT_UNREACHABLE, NO_EXECUTE, Some(60)),
            ]
        );

        let own = toleration(TAINT_UNREACHABLE, NO_EXECUTE, Some(5));
        let mut pod = Pod::default();
        pod.spec_mut().tolerations.push(own.clone());
        default_toleration_seconds(&mut pod, 300, 300);
        assert_eq!(
            pod.spec.tolerations,
            vec![own, toleration(TAINT_NOT_READY, NO_EXECUTE, Some(300))]
        );
    }

    #[test]
    fn empty_key_or_effect_tolerates_and_other_effects_do_not() {
        let mut all = Pod::default();
        all.spec_mut().tolerations.push(toleration("", "", None));
        default_toleration_seconds(&mut all, 300, 300);
        assert_eq!(all.spec.tolerations.len(), 1);

        let mut no_schedule = Pod::default();
        no_schedule
            .spec_mut()
            .tolerations
            .push(toleration(TAINT_NOT_READY, "NoSchedule", None));
        default_toleration_seconds(&mut no_schedule, 300, 300);
        assert_eq!(no_schedule.spec.tolerations.len(), 3);
    }
}
