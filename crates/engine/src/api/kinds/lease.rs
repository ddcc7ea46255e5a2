//! `leases` (coordination.k8s.io/v1): the kubelets' heartbeats and the leader elections.

use crate::api::printer::{self, column, text, Column, AGE, NAME};
use crate::api::resource::{meta_fields, ResourceInfo, Rules};
use crate::api::{Lease, Object};
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
