//! Mutating admission the API server runs on writes before strategy and validation. Only the
//! plugin whose effect the playground shows is modelled: DefaultTolerationSeconds, which is why
//! every pod — whoever created it — is evicted 300 s (or the configured time) after its node
//! goes NotReady/unreachable, rather than at once.

use crate::api::node::{NO_EXECUTE, TAINT_NOT_READY, TAINT_UNREACHABLE};
use crate::api::pod::{Pod, Toleration, Tolerations};

/// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`
/// (kube-apiserver default 300).
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;

/// The DefaultTolerationSeconds plugin (`plugin/pkg/admission/defaulttolerationseconds`): a
/// pod that tolerates neither the not-ready nor (resp.) the unreachable NoExecute taint gets
/// `{key, operator: Exists, effect: NoExecute, tolerationSeconds}` for it. Like the real
/// plugin, a toleration counts when its key is that taint's or empty and its effect is
/// NoExecute or empty; operator and value are not looked at.
#[derive(Debug, Clone)]
pub struct DefaultTolerationSeconds {
    /// Both tolerations, given as they are (shared, not copied) to every pod that has none:
    /// nearly every pod, so 150,000 pods hold one vector.
    both: Tolerations,
}

impl DefaultTolerationSeconds {
    pub fn new(not_ready_secs: i64, unreachable_secs: i64) -> Self {
        let both = [
            (TAINT_NOT_READY, not_ready_secs),
            (TAINT_UNREACHABLE, unreachable_secs),
        ]
        .map(|(key, secs)| Toleration {
            key: key.into(),
            operator: "Exists".into(),
            value: "".into(),
            effect: NO_EXECUTE.into(),
            toleration_seconds: Some(secs),
        });
        DefaultTolerationSeconds {
            both: Tolerations::new(both.to_vec()),
        }
    }

    /// Adds the tolerations `pod` lacks.
    pub fn admit(&self, pod: &mut Pod) {
        if pod.spec.tolerations.is_empty() {
            pod.spec_mut().tolerations = self.both.clone();
            return;
        }
        for default in self.both.iter() {
            let covered = pod.spec.tolerations.iter().any(|t| {
                (t.key == default.key || t.key.is_empty())
                    && (t.effect == NO_EXECUTE || t.effect.is_empty())
            });
            if !covered {
                pod.spec_mut().tolerations.push(default.clone());
            }
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
        DefaultTolerationSeconds::new(300, 60).admit(&mut pod);
        DefaultTolerationSeconds::new(1, 1).admit(&mut pod);
        assert_eq!(
            *pod.spec.tolerations,
            vec![
                toleration(TAINT_NOT_READY, NO_EXECUTE, Some(300)),
                toleration(TAINT_UNREACHABLE, NO_EXECUTE, Some(60)),
            ]
        );

        let own = toleration(TAINT_UNREACHABLE, NO_EXECUTE, Some(5));
        let mut pod = Pod::default();
        pod.spec_mut().tolerations.push(own.clone());
        DefaultTolerationSeconds::new(300, 300).admit(&mut pod);
        assert_eq!(
            *pod.spec.tolerations,
            vec![own, toleration(TAINT_NOT_READY, NO_EXECUTE, Some(300))]
        );
    }

    #[test]
    fn empty_key_or_effect_tolerates_and_other_effects_do_not() {
        let mut all = Pod::default();
        all.spec_mut().tolerations.push(toleration("", "", None));
        DefaultTolerationSeconds::new(300, 300).admit(&mut all);
        assert_eq!(all.spec.tolerations.len(), 1);

        let mut no_schedule = Pod::default();
        no_schedule
            .spec_mut()
            .tolerations
            .push(toleration(TAINT_NOT_READY, "NoSchedule", None));
        DefaultTolerationSeconds::new(300, 300).admit(&mut no_schedule);
        assert_eq!(no_schedule.spec.tolerations.len(), 3);
    }

    #[test]
    fn pods_without_tolerations_share_one_vector_and_a_writer_copies_it() {
        let plugin = DefaultTolerationSeconds::new(300, 300);
        let (mut a, mut b) = (Pod::default(), Pod::default());
        plugin.admit(&mut a);
        plugin.admit(&mut b);
        assert!(a.spec.tolerations.shares_with(&b.spec.tolerations));
        a.spec_mut()
            .tolerations
            .push(toleration("gpu", "NoSchedule", None));
        assert_eq!((a.spec.tolerations.len(), b.spec.tolerations.len()), (3, 2));
    }
}
