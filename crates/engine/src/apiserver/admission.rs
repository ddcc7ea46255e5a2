//! Mutating admission the API server runs on writes before strategy and validation. Only the
//! plugins whose effect the playground shows are modelled: DefaultTolerationSeconds, which is
//! why every pod — whoever created it — is evicted 300 s (or the configured time) after its
//! node goes NotReady/unreachable, rather than at once; DefaultStorageClass, which gives a claim
//! that names no class the cluster's default one (`standard`); and
//! StorageObjectInUseProtection, whose finalizers keep a claim a pod uses, and a volume bound to
//! a claim, `Terminating` until they are free.

use crate::api::node::{NO_EXECUTE, TAINT_NOT_READY, TAINT_UNREACHABLE};
use crate::api::pod::{Pod, Toleration, Tolerations};
use crate::api::storage::{PersistentVolumeClaim, StorageClass, PVC_PROTECTION, PV_PROTECTION};
use crate::api::Object;

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

/// The beta annotation a claim could name its class with before `storageClassName` existed
/// (still read: `GetPersistentVolumeClaimClass`).
pub const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// The DefaultStorageClass plugin (`plugin/pkg/admission/storage/storageclass/setdefault`,
/// `Admit`): a claim created without a class (`PersistentVolumeClaimHasClass`: no
/// `storageClassName`, not even `""`, and no beta annotation) gets the default class's name;
/// with several defaults, the newest (`GetDefaultClass`: newest creation first, then name).
/// Without a default class the claim is left alone.
pub fn default_storage_class<'a>(
    claim: &mut PersistentVolumeClaim,
    classes: impl IntoIterator<Item = &'a StorageClass>,
) {
    let has_class = claim.spec.storage_class_name.is_some()
        || claim.metadata.annotations.contains_key(BETA_STORAGE_CLASS);
    if has_class {
        return;
    }
    if let Some(default) = default_class(classes) {
        claim.spec.storage_class_name = Some(default.metadata.name.clone());
    }
}

/// `storageutil.GetDefaultClass`: among the classes marked default, the newest (ties by name).
pub fn default_class<'a>(
    classes: impl IntoIterator<Item = &'a StorageClass>,
) -> Option<&'a StorageClass> {
    classes
        .into_iter()
        .filter(|c| c.is_default())
        .min_by(|a, b| {
            b.metadata
                .creation_timestamp
                .cmp(&a.metadata.creation_timestamp)
                .then_with(|| a.metadata.name.cmp(&b.metadata.name))
        })
}

/// The StorageObjectInUseProtection plugin (`plugin/pkg/admission/storage/
/// storageobjectinuseprotection`): a new claim gets the `kubernetes.io/pvc-protection`
/// finalizer and a new volume `kubernetes.io/pv-protection` (the protection controllers remove
/// them once nothing uses the object).
pub fn storage_object_in_use_protection(obj: &mut Object) {
    let (meta, finalizer) = match obj {
        Object::PersistentVolumeClaim(c) => (&mut c.metadata, PVC_PROTECTION),
        Object::PersistentVolume(v) => (&mut v.metadata, PV_PROTECTION),
        _ => return,
    };
    if !meta.finalizers.iter().any(|f| f == finalizer) {
        meta.finalizers.push(finalizer.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::storage::IS_DEFAULT_CLASS;
    use crate::clock::Timestamp;

    fn class(name: &str, default: bool, created_secs: u64) -> StorageClass {
        let mut c = StorageClass::default();
        c.metadata.name = name.into();
        c.metadata.creation_timestamp = Some(Timestamp::from_secs(created_secs));
        if default {
            c.metadata
                .annotations
                .insert(IS_DEFAULT_CLASS.into(), "true".into());
        }
        c
    }

    #[test]
    fn a_claim_without_a_class_gets_the_newest_default_and_one_with_a_class_keeps_it() {
        let classes = [
            class("standard", true, 1),
            class("fast", true, 5),
            class("slow", false, 9),
            class("also-fast", true, 5),
        ];
        let mut claim = PersistentVolumeClaim::default();
        default_storage_class(&mut claim, &classes);
        assert_eq!(claim.spec.storage_class_name.as_deref(), Some("also-fast"));
        // An explicit class, even the empty one (no class), is kept.
        for name in ["slow", ""] {
            let mut claim = PersistentVolumeClaim::default();
            claim.spec.storage_class_name = Some(name.into());
            default_storage_class(&mut claim, &classes);
            assert_eq!(claim.spec.storage_class_name.as_deref(), Some(name));
        }
        let mut beta = PersistentVolumeClaim::default();
        beta.metadata
            .annotations
            .insert(BETA_STORAGE_CLASS.into(), "slow".into());
        default_storage_class(&mut beta, &classes);
        assert_eq!(beta.spec.storage_class_name, None);
        // No default class: nothing set.
        let mut claim = PersistentVolumeClaim::default();
        default_storage_class(&mut claim, &[class("slow", false, 1)]);
        assert_eq!(claim.spec.storage_class_name, None);
    }

    #[test]
    fn claims_and_volumes_get_their_protection_finalizer_once() {
        let mut claim = Object::PersistentVolumeClaim(Box::default());
        storage_object_in_use_protection(&mut claim);
        storage_object_in_use_protection(&mut claim);
        assert_eq!(claim.meta().finalizers, [PVC_PROTECTION]);
        let mut volume = Object::PersistentVolume(Box::default());
        storage_object_in_use_protection(&mut volume);
        assert_eq!(volume.meta().finalizers, [PV_PROTECTION]);
        let mut pod = Object::Pod(Default::default());
        storage_object_in_use_protection(&mut pod);
        assert!(pod.meta().finalizers.is_empty());
    }

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
