//! `leases` (coordination.k8s.io/v1): the kubelets' heartbeats and the leader elections.

use crate::field_set::{FieldSet, PathElement};
use crate::lease::LeaseSpec;
use crate::meta::same_tracked_meta;
use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::{Lease, Object};
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::string;
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 6,
    kind_name: "Lease",
    list_kind: "LeaseList",
    go_type: "v1.Lease",
    plural: "leases",
    singular: "lease",
    group: "coordination.k8s.io",
    version: "v1",
    api_version: "coordination.k8s.io/v1",
    namespaced: true,
    short_names: &[],
    categories: &[],
    subresources: &[],
    registry: "leases",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: false,
    create_on_update: true,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1Lease",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &LeaseRules,
};

struct LeaseRules;

fn lease(obj: &Object) -> Option<&Lease> {
    match obj {
        Object::Lease(l) => Some(l),
        _ => None,
    }
}

impl Rules for LeaseRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Lease)
    }

    fn empty(&self) -> Object {
        Object::Lease(Lease::default())
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        match lease(obj).and_then(|l| l.spec.lease_duration_seconds) {
            Some(d) if d <= 0 => vec![FieldError::invalid(
                "spec.leaseDurationSeconds",
                i64::from(d),
                "must be greater than 0",
            )],
            _ => Vec::new(),
        }
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        match (lease(new), lease(old)) {
            (Some(n), Some(o)) => n.spec != o.spec,
            _ => false,
        }
    }

    /// A renewal (only `spec.renewTime` moved) sets `spec.renewTime`: the write every kubelet
    /// makes every 10 s, whose managed fields are otherwise worked out from both versions'
    /// JSON.
    fn set_fields(&self, new: &Object, old: &Object) -> Option<FieldSet> {
        let (new, old) = (lease(new)?, lease(old)?);
        if !same_tracked_meta(&new.metadata, &old.metadata) {
            return None;
        }
        let LeaseSpec {
            holder_identity,
            lease_duration_seconds,
            acquire_time,
            renew_time,
            lease_transitions,
        } = &new.spec;
        let rest_same = *holder_identity == old.spec.holder_identity
            && *lease_duration_seconds == old.spec.lease_duration_seconds
            && *acquire_time == old.spec.acquire_time
            && *lease_transitions == old.spec.lease_transitions;
        let mut set = FieldSet::new();
        match (renew_time, old.spec.renew_time) {
            _ if !rest_same => return None,
            (a, b) if *a == b => {}
            (Some(_), Some(_)) => set.insert(&[
                PathElement::Field("spec".to_string()),
                PathElement::Field("renewTime".to_string()),
            ]),
            _ => return None,
        }
        Some(set)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printLease`'s columns.
const COLUMNS: [Column; 3] = [NAME, column("Holder", "string", 0), AGE];

/// `printLease`'s cells.
fn row(lease: &Value, now_unix_ms: i64) -> Vec<Value> {
    vec![
        printer::name(lease),
        text(string(lease, &["spec", "holderIdentity"])),
        printer::age(lease, now_unix_ms),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::field_set;
    use crate::managed_fields::{strip_set, stripped, KindTypes};
    use crate::meta::OwnerReference;
    use crate::{Kind, ObjectMeta};

    fn renewed(l: &Lease, ms: u64) -> Lease {
        let mut l = l.clone();
        l.spec.renew_time = Some(Timestamp::from_millis(ms));
        l
    }

    /// What the JSON comparison says an update from `old` to `new` set, if it removed nothing.
    fn set_by_json(new: &Lease, old: &Lease) -> Option<FieldSet> {
        let json = |l: &Lease| serde_json::to_value(Object::Lease(l.clone())).unwrap();
        let cmp = field_set::compare(&json(old), &json(new), &KindTypes(Kind::Lease), &stripped);
        if !cmp.removed.is_empty() {
            return None;
        }
        let mut set = cmp.changed();
        strip_set(&mut set);
        Some(set)
    }

    #[test]
    fn a_renewal_sets_what_the_json_comparison_says_and_anything_else_is_compared() {
        let old = Lease {
            metadata: ObjectMeta {
                labels: [("a".to_string(), "1".to_string())].into_iter().collect(),
                owner_references: vec![OwnerReference {
                    api_version: "v1".into(),
                    kind: "Node".into(),
                    name: "n1".into(),
                    uid: "u1".into(),
                    ..Default::default()
                }]
                .into(),
                resource_version: "7".into(),
                ..ObjectMeta::named("kube-node-lease", "n1")
            },
            spec: LeaseSpec {
                holder_identity: Some("n1".into()),
                lease_duration_seconds: Some(40),
                renew_time: Some(Timestamp::from_millis(1_000)),
                ..Default::default()
            },
        };
        let mut stored_again = old.clone();
        stored_again.metadata.resource_version = "9".into();
        stored_again.metadata.uid = "other".into();
        let mut relabelled = renewed(&old, 2_000);
        relabelled.metadata.labels = Default::default();
        let mut handed_over = renewed(&old, 2_000);
        handed_over.spec.holder_identity = Some("n2".into());
        let mut finalized = old.clone();
        finalized.metadata.finalizers.push("f".into());
        let mut first = old.clone();
        first.spec.renew_time = None;
        let answered = [
            renewed(&old, 2_000),
            renewed(&old, 1_001),
            stored_again.clone(),
        ];
        let compared = [relabelled, handed_over, finalized, first.clone()];
        let rules = RESOURCE.rules;
        for new in &answered {
            let typed = rules.set_fields(&Object::Lease(new.clone()), &Object::Lease(old.clone()));
            assert_eq!(typed, set_by_json(new, &old), "{new:?}");
            assert!(typed.is_some());
        }
        assert!(rules
            .set_fields(&Object::Lease(stored_again), &Object::Lease(old.clone()))
            .is_some_and(|s| s.is_empty()));
        for new in &compared {
            assert_eq!(
                rules.set_fields(&Object::Lease(new.clone()), &Object::Lease(old.clone())),
                None,
                "{new:?}"
            );
        }
        // The first renewal of a lease created without a time is compared too.
        assert_eq!(
            rules.set_fields(&Object::Lease(renewed(&first, 5)), &Object::Lease(first)),
            None
        );
    }
}
