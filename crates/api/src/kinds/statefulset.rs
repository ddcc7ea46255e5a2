//! `statefulsets` (apps/v1): pods with stable ordinal names and their own volumes. Defaults
//! follow pkg/apis/apps/v1 `SetDefaults_StatefulSet`, validation pkg/apis/apps/validation
//! `ValidateStatefulSetSpec` / `ValidateStatefulSetUpdate`.

use super::persistentvolumeclaim::{claim_defaults, claim_spec};
use super::workload_merge_key;
use crate::apps::{
    ClaimRetentionPolicy, RollingUpdateStatefulSetStrategy, StatefulSetSpec,
    StatefulSetUpdateStrategy,
};
use crate::printer::{self, column, containers_and_images, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::validation::{self, WorkloadTemplate};
use crate::{defaults, Object};
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::int;
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 18,
    kind_name: "StatefulSet",
    list_kind: "StatefulSetList",
    go_type: "v1.StatefulSet",
    plural: "statefulsets",
    singular: "statefulset",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["sts"],
    categories: &["all"],
    subresources: &["status", "scale"],
    registry: "statefulsets",
    field_labels: &["metadata.name", "metadata.namespace"],
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1StatefulSet",
    atomic_maps: &[
        &["spec", "selector"],
        &["spec", "volumeClaimTemplates", "spec", "selector"],
    ],
    event_ttl: false,
    trigger_field: None,
    rules: &StatefulSetRules,
};

/// The pod management policies (`apps.OrderedReadyPodManagement`, `ParallelPodManagement`).
const POLICIES: [&str; 2] = ["OrderedReady", "Parallel"];
/// `persistentVolumeClaimRetentionPolicy` values.
const RETENTION: [&str; 2] = ["Retain", "Delete"];

/// The real text of the update rule (`ValidateStatefulSetUpdate`).
pub const UPDATE_FORBIDDEN: &str = "updates to statefulset spec for fields other than 'replicas', \
'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', \
'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

struct StatefulSetRules;

impl Rules for StatefulSetRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::StatefulSet)
    }

    fn empty(&self) -> Object {
        Object::StatefulSet(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::StatefulSet(sts) = obj {
            stateful_set_defaults(&mut sts.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_stateful_set()
            .map(|s| stateful_set_spec(&s.spec))
            .unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let (Some(n), Some(o)) = (new.as_stateful_set(), old.as_stateful_set()) else {
            return Vec::new();
        };
        // Everything but the fields an update may change must stay as it was.
        let mut mutated = n.spec.clone();
        mutated.replicas = o.spec.replicas;
        mutated.ordinals.clone_from(&o.spec.ordinals);
        mutated.template.clone_from(&o.spec.template);
        mutated.update_strategy.clone_from(&o.spec.update_strategy);
        mutated.revision_history_limit = o.spec.revision_history_limit;
        mutated
            .persistent_volume_claim_retention_policy
            .clone_from(&o.spec.persistent_volume_claim_retention_policy);
        mutated.min_ready_seconds = o.spec.min_ready_seconds;
        if mutated == o.spec {
            Vec::new()
        } else {
            vec![FieldError::forbidden("spec", UPDATE_FORBIDDEN)]
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::StatefulSet(sts) = obj {
            sts.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::StatefulSet(n), Object::StatefulSet(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::StatefulSet(o), Object::StatefulSet(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::StatefulSet(n), Object::StatefulSet(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        workload_merge_key(path)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        let (containers, images) = containers_and_images(obj);
        vec![
            printer::name(obj),
            text(format!(
                "{}/{}",
                int(obj, &["status", "readyReplicas"]),
                int(obj, &["spec", "replicas"])
            )),
            printer::age(obj, now_unix_ms),
            containers,
            images,
        ]
    }
}

/// `SetDefaults_StatefulSet`: OrderedReady, RollingUpdate at partition 0 (a `rollingUpdate`
/// sent without a partition gets 0; `type: RollingUpdate` sent without one gets none), one
/// replica, ten revisions kept, claims retained on deletion and scale-down
/// (`StatefulSetAutoDeletePVC` is on in v1.32), the claim templates' and the pod template's
/// own defaults.
pub fn stateful_set_defaults(spec: &mut StatefulSetSpec) {
    if spec.pod_management_policy.is_empty() {
        spec.pod_management_policy = "OrderedReady".into();
    }
    let strategy = spec
        .update_strategy
        .get_or_insert_with(StatefulSetUpdateStrategy::default);
    if strategy.type_.is_empty() {
        // Only a defaulted type gets a `rollingUpdate`: `type: RollingUpdate` sent without one
        // stays without one.
        strategy.type_ = "RollingUpdate".into();
        strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateStatefulSetStrategy::default);
    }
    if let Some(ru) = strategy
        .rolling_update
        .as_mut()
        .filter(|_| strategy.type_ == "RollingUpdate")
    {
        ru.partition.get_or_insert(0);
    }
    spec.replicas.get_or_insert(1);
    spec.revision_history_limit
        .get_or_insert(defaults::DEFAULT_REVISION_HISTORY_LIMIT);
    let retention = spec
        .persistent_volume_claim_retention_policy
        .get_or_insert_with(ClaimRetentionPolicy::default);
    for policy in [&mut retention.when_deleted, &mut retention.when_scaled] {
        if policy.is_empty() {
            *policy = "Retain".into();
        }
    }
    for claim in &mut spec.volume_claim_templates {
        claim_defaults(&mut claim.spec);
    }
    defaults::pod_spec(&mut spec.template.spec);
}

/// `ValidateStatefulSetSpec`.
fn stateful_set_spec(spec: &StatefulSetSpec) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match spec.pod_management_policy.as_str() {
        "" => errs.push(FieldError::required("spec.podManagementPolicy", "")),
        p if !POLICIES.contains(&p) => errs.push(FieldError::not_supported(
            "spec.podManagementPolicy",
            p,
            &POLICIES,
        )),
        _ => {}
    }
    errs.extend(update_strategy(spec.update_strategy.as_ref()));
    if let Some(policy) = &spec.persistent_volume_claim_retention_policy {
        let f = "spec.persistentVolumeClaimRetentionPolicy";
        for (field, value) in [
            ("whenDeleted", &policy.when_deleted),
            ("whenScaled", &policy.when_scaled),
        ] {
            if !RETENTION.contains(&value.as_str()) {
                errs.push(FieldError::not_supported(
                    &format!("{f}.{field}"),
                    value.as_str(),
                    &RETENTION,
                ));
            }
        }
    }
    let counts = [
        ("replicas", spec.replicas),
        ("minReadySeconds", spec.min_ready_seconds),
        ("ordinals.start", spec.ordinals.as_ref().map(|o| o.start)),
    ];
    for (field, v) in counts {
        if let Some(v) = v.filter(|v| *v < 0) {
            errs.push(FieldError::invalid(
                &format!("spec.{field}"),
                i64::from(v),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs.extend(validation::workload_template(
        &WorkloadTemplate {
            spec: "spec",
            empty_selector_for: Some("statefulset"),
            restart_policies: &["Always"],
        },
        spec.selector.as_ref(),
        &spec.template,
    ));
    for (i, claim) in spec.volume_claim_templates.iter().enumerate() {
        errs.extend(claim_spec(
            &claim.spec,
            &format!("spec.volumeClaimTemplates[{i}].spec"),
        ));
    }
    errs
}

/// The update strategy: `OnDelete` without a `rollingUpdate`, or `RollingUpdate` whose
/// partition is not negative.
fn update_strategy(strategy: Option<&StatefulSetUpdateStrategy>) -> Vec<FieldError> {
    let Some(strategy) = strategy else {
        return Vec::new();
    };
    let f = "spec.updateStrategy";
    match strategy.type_.as_str() {
        "OnDelete" if strategy.rolling_update.is_some() => vec![FieldError::invalid(
            &format!("{f}.rollingUpdate"),
            watchlab_apimachinery::validation::BadValue::Verbatim(
                "apps.RollingUpdateStatefulSetStrategy{...}".into(),
            ),
            "only allowed for updateStrategy 'RollingUpdate'",
        )],
        "OnDelete" => Vec::new(),
        "RollingUpdate" => match strategy
            .rolling_update
            .as_ref()
            .and_then(|r| r.partition)
            .filter(|p| *p < 0)
        {
            Some(p) => vec![FieldError::invalid(
                &format!("{f}.rollingUpdate.partition"),
                i64::from(p),
                "must be greater than or equal to 0",
            )],
            None => Vec::new(),
        },
        "" => vec![FieldError::required(&format!("{f}.type"), "")],
        other => vec![FieldError::not_supported(
            &format!("{f}.type"),
            other,
            &["OnDelete", "RollingUpdate"],
        )],
    }
}

/// `printStatefulSet`'s columns (pkg/printers/internalversion).
const COLUMNS: [Column; 5] = [
    NAME,
    column("Ready", "string", 0),
    AGE,
    column("Containers", "string", 1),
    column("Images", "string", 1),
];
