//! `daemonsets` (apps/v1): one pod per eligible node. Defaults follow pkg/apis/apps/v1
//! `SetDefaults_DaemonSet`, validation pkg/apis/apps/validation `ValidateDaemonSetSpec`.

use super::workload_merge_key;
use crate::apps::{DaemonSetSpec, DaemonSetUpdateStrategy, RollingUpdateDeployment};
use crate::intstr::IntOrString;
use crate::printer::{
    self, column, containers_and_images, selector_string, text, Column, AGE, NAME,
};
use crate::resource::{ResourceInfo, Rules};
use crate::validation::{self, WorkloadTemplate};
use crate::{defaults, Object};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{at, int, joined_map, string_map};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 16,
    kind_name: "DaemonSet",
    list_kind: "DaemonSetList",
    go_type: "v1.DaemonSet",
    plural: "daemonsets",
    singular: "daemonset",
    group: "apps",
    version: "v1",
    api_version: "apps/v1",
    namespaced: true,
    short_names: &["ds"],
    categories: &["all"],
    subresources: &["status"],
    registry: "daemonsets",
    field_labels: &["metadata.name", "metadata.namespace"],
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1DaemonSet",
    atomic_maps: &[&["spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &DaemonSetRules,
};

struct DaemonSetRules;

impl Rules for DaemonSetRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::DaemonSet)
    }

    fn empty(&self) -> Object {
        Object::DaemonSet(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::DaemonSet(ds) = obj {
            daemon_set_defaults(&mut ds.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_daemon_set()
            .map(|ds| daemon_set_spec(&ds.spec))
            .unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_daemon_set(), old.as_daemon_set()) {
            (Some(n), Some(o)) => {
                validation::immutable_selector(n.spec.selector.as_ref(), o.spec.selector.as_ref())
            }
            _ => Vec::new(),
        }
    }

    /// `daemonSetStrategy.PrepareForCreate`: no status, template generation 1 (unless the
    /// client sent a higher one).
    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::DaemonSet(ds) = obj {
            ds.status = Default::default();
            let sent = template_generation(&ds.metadata.annotations).unwrap_or(0);
            set_template_generation(&mut ds.metadata.annotations, sent.max(1));
        }
    }

    /// `daemonSetStrategy.PrepareForUpdate`: the status is kept, and a changed pod template
    /// moves the template generation on by one (otherwise it stays what was stored).
    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::DaemonSet(n), Object::DaemonSet(o)) = (new, old) {
            n.status.clone_from(&o.status);
            let stored = template_generation(&o.metadata.annotations).unwrap_or(0);
            let generation = match n.spec.template == o.spec.template {
                true => stored,
                false => stored + 1,
            };
            if generation > 0 {
                set_template_generation(&mut n.metadata.annotations, generation);
            }
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::DaemonSet(o), Object::DaemonSet(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::DaemonSet(n), Object::DaemonSet(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        workload_merge_key(path)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// The annotation apps/v1 keeps the internal `spec.templateGeneration` in
/// (`appsv1.DeprecatedTemplateGeneration`): the DaemonSet controller labels its pods with it
/// (`pod-template-generation`).
pub const TEMPLATE_GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";

/// The template generation the annotation holds (`util.GetTemplateGeneration`).
pub fn template_generation(annotations: &BTreeMap<String, String>) -> Option<i64> {
    annotations
        .get(TEMPLATE_GENERATION_ANNOTATION)
        .and_then(|v| v.parse().ok())
}

fn set_template_generation(annotations: &mut BTreeMap<String, String>, generation: i64) {
    annotations.insert(
        TEMPLATE_GENERATION_ANNOTATION.to_string(),
        generation.to_string(),
    );
}

/// `SetDefaults_DaemonSet`: RollingUpdate with `maxUnavailable` 1 and `maxSurge` 0, ten
/// revisions kept; the pod template's own defaults.
pub fn daemon_set_defaults(spec: &mut DaemonSetSpec) {
    let strategy = spec
        .update_strategy
        .get_or_insert_with(DaemonSetUpdateStrategy::default);
    if strategy.type_.is_empty() {
        strategy.type_ = "RollingUpdate".into();
    }
    if strategy.type_ == "RollingUpdate" {
        let ru = strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateDeployment::default);
        ru.max_unavailable.get_or_insert(IntOrString::Int(1));
        ru.max_surge.get_or_insert(IntOrString::Int(0));
    }
    spec.revision_history_limit
        .get_or_insert(defaults::DEFAULT_REVISION_HISTORY_LIMIT);
    defaults::pod_spec(&mut spec.template.spec);
}

/// `ValidateDaemonSetSpec`: a non-empty selector matching the template, a pod template whose
/// pods restart `Always`, `minReadySeconds` and `revisionHistoryLimit` not negative, and the
/// update strategy (`OnDelete`, or `RollingUpdate` whose two bounds are not both 0).
fn daemon_set_spec(spec: &DaemonSetSpec) -> Vec<FieldError> {
    let mut errs = validation::workload_template(
        &WorkloadTemplate {
            spec: "spec",
            empty_selector_for: Some("daemonset"),
            restart_policies: &["Always"],
        },
        spec.selector.as_ref(),
        &spec.template,
    );
    let counts = [
        ("minReadySeconds", spec.min_ready_seconds),
        ("revisionHistoryLimit", spec.revision_history_limit),
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
    if let Some(strategy) = &spec.update_strategy {
        errs.extend(update_strategy(strategy));
    }
    errs
}

/// `ValidateDaemonSetUpdateStrategy` and `ValidateRollingUpdateDaemonSet`.
fn update_strategy(strategy: &DaemonSetUpdateStrategy) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match strategy.type_.as_str() {
        "OnDelete" => {}
        "RollingUpdate" => {
            let Some(ru) = &strategy.rolling_update else {
                return vec![FieldError::required(
                    "spec.updateStrategy.rollingUpdate",
                    "",
                )];
            };
            let f = "spec.updateStrategy.rollingUpdate";
            errs.extend(validation::int_or_percent(
                ru.max_unavailable.as_ref(),
                &format!("{f}.maxUnavailable"),
            ));
            errs.extend(validation::int_or_percent(
                ru.max_surge.as_ref(),
                &format!("{f}.maxSurge"),
            ));
            let zero = |v: &Option<IntOrString>| {
                v.as_ref()
                    .is_none_or(|v| v.scaled_value(100, true) == Ok(0))
            };
            if zero(&ru.max_unavailable) && zero(&ru.max_surge) {
                errs.push(FieldError::invalid(
                    &format!("{f}.maxUnavailable"),
                    validation::int_or_string_value(ru.max_unavailable.as_ref()),
                    "cannot be 0 when maxSurge is 0",
                ));
            }
        }
        other => errs.push(FieldError::not_supported(
            "spec.updateStrategy.type",
            other,
            &["OnDelete", "RollingUpdate"],
        )),
    }
    errs
}

/// `printDaemonSet`'s columns (pkg/printers/internalversion `daemonSetColumnDefinitions`).
const COLUMNS: [Column; 11] = [
    NAME,
    column("Desired", "integer", 0),
    column("Current", "integer", 0),
    column("Ready", "integer", 0),
    column("Up-to-date", "integer", 0),
    column("Available", "integer", 0),
    column("Node Selector", "string", 0),
    AGE,
    column("Containers", "string", 1),
    column("Images", "string", 1),
    column("Selector", "string", 1),
];

/// `printDaemonSet`'s cells.
fn row(ds: &Value, now_unix_ms: i64) -> Vec<Value> {
    let (containers, images) = containers_and_images(ds);
    let status = |field: &str| json!(int(ds, &["status", field]));
    vec![
        printer::name(ds),
        status("desiredNumberScheduled"),
        status("currentNumberScheduled"),
        status("numberReady"),
        status("updatedNumberScheduled"),
        status("numberAvailable"),
        text(joined_map(&string_map(
            ds,
            &["spec", "template", "spec", "nodeSelector"],
        ))),
        printer::age(ds, now_unix_ms),
        containers,
        images,
        text(selector_string(at(ds, &["spec", "selector"]))),
    ]
}
