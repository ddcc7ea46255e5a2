//! `poddisruptionbudgets` (policy/v1): how many selected pods must stay up while pods are
//! evicted by choice (`pkg/registry/policy/poddisruptionbudget/strategy.go`, validation from
//! `pkg/apis/policy/validation/validation.go`).

use super::conditions_merge_key;
use crate::printer::{self, column, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::{validation, Object, PodDisruptionBudget};
use serde_json::{json, Value};
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{at, int};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 13,
    kind_name: "PodDisruptionBudget",
    list_kind: "PodDisruptionBudgetList",
    go_type: "v1.PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    singular: "poddisruptionbudget",
    group: "policy",
    version: "v1",
    api_version: "policy/v1",
    namespaced: true,
    short_names: &["pdb"],
    categories: &[],
    subresources: &["status"],
    registry: "poddisruptionbudgets",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1PodDisruptionBudget",
    atomic_maps: &[&["spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &PodDisruptionBudgetRules,
};

struct PodDisruptionBudgetRules;

fn pdb(obj: &Object) -> Option<&PodDisruptionBudget> {
    obj.as_pod_disruption_budget()
}

impl Rules for PodDisruptionBudgetRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value::<PodDisruptionBudget>(value).map(Object::from)
    }

    fn empty(&self) -> Object {
        PodDisruptionBudget::default().into()
    }

    /// `ValidatePodDisruptionBudget`: the spec is validated on create and on every update
    /// (policy/v1 lets the spec change).
    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        pdb(obj).map_or_else(Vec::new, |p| {
            validation::pod_disruption_budget_spec(&p.spec)
        })
    }

    /// The spec as on create when it changed, and `ValidatePodDisruptionBudgetStatusUpdate`:
    /// no count below zero.
    fn validate_changed(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let Some(p) = pdb(new) else {
            return Vec::new();
        };
        let mut errs = if pdb(old).is_some_and(|o| o.spec == p.spec) {
            Vec::new()
        } else {
            validation::pod_disruption_budget_spec(&p.spec)
        };
        let s = &p.status;
        let counts = [
            ("disruptionsAllowed", s.disruptions_allowed),
            ("currentHealthy", s.current_healthy),
            ("desiredHealthy", s.desired_healthy),
            ("expectedPods", s.expected_pods),
        ]
        .into_iter()
        .filter(|(_, v)| *v < 0)
        .map(|(f, v)| {
            FieldError::invalid(
                &format!("status.{f}"),
                i64::from(v),
                "must be greater than or equal to 0",
            )
        });
        errs.extend(counts);
        errs
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::PodDisruptionBudget(p) = obj {
            p.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::PodDisruptionBudget(n), Object::PodDisruptionBudget(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::PodDisruptionBudget(o), Object::PodDisruptionBudget(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((pdb(new), pdb(old)), (Some(n), Some(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        conditions_merge_key(path)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `podDisruptionBudgetColumnDefinitions` (pkg/printers/internalversion).
const COLUMNS: [Column; 5] = [
    NAME,
    column("Min Available", "string", 0),
    column("Max Unavailable", "string", 0),
    column("Allowed Disruptions", "integer", 0),
    AGE,
];

/// `printPodDisruptionBudget`'s cells: a bound not set is `N/A`.
fn row(pdb: &Value, now_unix_ms: i64) -> Vec<Value> {
    let bound = |field: &str| match at(pdb, &["spec", field]) {
        Some(Value::String(s)) => text(s.as_str()),
        Some(Value::Number(n)) => text(n.to_string()),
        _ => text("N/A"),
    };
    vec![
        printer::name(pdb),
        bound("minAvailable"),
        bound("maxUnavailable"),
        json!(int(pdb, &["status", "disruptionsAllowed"])),
        printer::age(pdb, now_unix_ms),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_says_n_a_for_the_bound_not_set() {
        let obj = json!({"metadata": {"name": "web"}, "spec": {"minAvailable": "50%"},
            "status": {"disruptionsAllowed": 2}});
        let cells = row(&obj, 0);
        assert_eq!(cells[1], "50%");
        assert_eq!(cells[2], "N/A");
        assert_eq!(cells[3], 2);
        let obj = json!({"metadata": {"name": "web"}, "spec": {"maxUnavailable": 1}});
        assert_eq!(row(&obj, 0)[2], "1");
    }

    #[test]
    fn counts_below_zero_are_refused_on_status_writes() {
        let mut p = PodDisruptionBudget::default();
        p.status.current_healthy = -1;
        let errs = RESOURCE
            .rules
            .validate_changed(&p.clone().into(), &PodDisruptionBudget::default().into());
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].message().contains("status.currentHealthy"),
            "{errs:?}"
        );
    }
}
