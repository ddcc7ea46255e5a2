//! `jobs` (batch/v1): pods run to completion. The strategy (pkg/registry/batch/job/strategy.go)
//! generates the selector from the Job's uid unless `manualSelector` is set; defaults follow
//! pkg/apis/batch/v1/defaults.go and validation pkg/apis/batch/validation/validation.go.

use super::workload_merge_key;
use crate::batch::{
    Job, JobSpec, CONTROLLER_UID_LABEL, INDEXED, JOB_COMPLETE, JOB_FAILED, JOB_FAILURE_TARGET,
    JOB_NAME_LABEL, JOB_SUSPENDED, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL, NON_INDEXED,
};
use crate::meta::LabelSelector;
use crate::printer::{
    self, column, containers_and_images, selector_string, text, Column, AGE, NAME,
};
use crate::resource::{ResourceInfo, Rules};
use crate::validation::{self, WorkloadTemplate};
use crate::{defaults, Kind, Object};
use serde_json::Value;
use watchlab_apimachinery::duration::human_duration;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, at, int, str_at};
use watchlab_apimachinery::validation::{BadValue, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 14,
    kind_name: "Job",
    list_kind: "JobList",
    go_type: "v1.Job",
    plural: "jobs",
    singular: "job",
    group: "batch",
    version: "v1",
    api_version: "batch/v1",
    namespaced: true,
    short_names: &[],
    categories: &["all"],
    subresources: &["status"],
    registry: "jobs",
    field_labels: &["metadata.name", "metadata.namespace", "status.successful"],
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[Kind::CronJob],
    schema_root: "V1Job",
    atomic_maps: &[&["spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &JobRules,
};

/// `DefaultBackoffLimit` (pkg/apis/batch/v1/defaults.go).
pub const DEFAULT_BACKOFF_LIMIT: i32 = 6;
/// The most completions or parallelism an Indexed Job may have without a per-index back-off
/// limit (`completionsSoftLimit`, `parallelismLimitForHighCompletions`).
const INDEXED_LIMIT: i32 = 100_000;

struct JobRules;

impl Rules for JobRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Job)
    }

    fn empty(&self) -> Object {
        Object::Job(Box::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let job = obj.as_job()?;
        match field {
            "status.successful" => Some(job.status.succeeded.to_string()),
            _ => None,
        }
    }

    fn default(&self, obj: &mut Object) {
        if let Object::Job(job) = obj {
            job_defaults(job);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(job) = obj.as_job() else {
            return Vec::new();
        };
        let mut errs = Vec::new();
        if job.spec.manual_selector != Some(true) {
            errs.extend(generated_selector(job));
        }
        errs.extend(job_spec(&job.spec, "spec"));
        errs.extend(workload_template(
            "spec",
            job.spec.selector.as_ref(),
            &job.spec,
        ));
        errs
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_job(), old.as_job()) {
            (Some(n), Some(o)) => job_spec_update(n, o),
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::Job(job) = obj {
            if job.spec.manual_selector != Some(true) {
                generate_selector(job);
            }
            job.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Job(n), Object::Job(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Job(o), Object::Job(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::Job(n), Object::Job(o)) if n.spec != o.spec)
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

/// `SetDefaults_Job`: one completion at parallelism 1 when neither is set, parallelism 1,
/// `backoffLimit` 6 (the int32 maximum with a per-index limit), `NonIndexed`, not suspended,
/// `podReplacementPolicy` `Failed` with a pod failure policy and `TerminatingOrFailed`
/// without; the Job's labels from its template's when it has none; the pod template's own.
pub fn job_defaults(job: &mut Job) {
    let spec = &mut job.spec;
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
    }
    spec.parallelism.get_or_insert(1);
    let backoff = if spec.backoff_limit_per_index.is_some() {
        i32::MAX
    } else {
        DEFAULT_BACKOFF_LIMIT
    };
    spec.backoff_limit.get_or_insert(backoff);
    spec.completion_mode
        .get_or_insert_with(|| NON_INDEXED.to_string());
    spec.suspend.get_or_insert(false);
    let replacement = if spec.pod_failure_policy.is_some() {
        "Failed"
    } else {
        "TerminatingOrFailed"
    };
    spec.pod_replacement_policy
        .get_or_insert_with(|| replacement.to_string());
    if let Some(policy) = &mut spec.pod_failure_policy {
        for cond in policy
            .rules
            .iter_mut()
            .flat_map(|r| r.on_pod_conditions.iter_mut())
        {
            if cond.status.is_empty() {
                cond.status = "True".into();
            }
        }
    }
    defaults::pod_spec(&mut spec.template.spec);
    if job.metadata.labels.is_empty() && !spec.template.metadata.labels.is_empty() {
        job.metadata.labels = spec.template.metadata.labels.clone();
    }
}

/// `generateSelector`: the template is labelled with the Job's name and uid (the legacy and
/// the `batch.kubernetes.io/` keys, unless the user set them: validation refuses a wrong
/// one), and the selector matches the uid.
fn generate_selector(job: &mut Job) {
    let uid = job.metadata.uid.clone();
    let name = job.metadata.name.clone();
    let labels = &mut job.spec.template.metadata.labels;
    for (key, value) in [
        (LEGACY_JOB_NAME_LABEL, &name),
        (JOB_NAME_LABEL, &name),
        (LEGACY_CONTROLLER_UID_LABEL, &uid),
        (CONTROLLER_UID_LABEL, &uid),
    ] {
        if !labels.contains_key(key) {
            labels.insert(key.to_string(), value.clone());
        }
    }
    let selector = job.spec.selector.get_or_insert_with(LabelSelector::default);
    if !selector.match_labels.contains_key(CONTROLLER_UID_LABEL) {
        selector
            .match_labels
            .insert(CONTROLLER_UID_LABEL.to_string(), uid);
    }
}

/// `validateGeneratedSelector`: the template's uid and name labels are the Job's, and the
/// selector is the generated one.
fn generated_selector(job: &Job) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let uid = &job.metadata.uid;
    if uid.is_empty() {
        errs.push(FieldError::required("metadata.uid", ""));
    }
    let labels = &job.spec.template.metadata.labels;
    let expected = [
        (LEGACY_CONTROLLER_UID_LABEL, uid),
        (CONTROLLER_UID_LABEL, uid),
        (LEGACY_JOB_NAME_LABEL, &job.metadata.name),
        (JOB_NAME_LABEL, &job.metadata.name),
    ];
    for (key, want) in expected {
        if let Some(v) = labels.get(key).filter(|v| *v != want) {
            errs.push(FieldError::invalid(
                &format!("spec.template.metadata.labels[{key}]"),
                v,
                &format!("must be '{want}'"),
            ));
        }
    }
    let generated = job.spec.selector.as_ref().is_some_and(|s| {
        s.match_expressions.is_empty()
            && s.match_labels.len() == 1
            && s.match_labels.get(CONTROLLER_UID_LABEL) == Some(uid)
    });
    if !generated {
        let shown = job
            .spec
            .selector
            .as_ref()
            .map_or("nil".to_string(), LabelSelector::go_syntax);
        errs.push(FieldError::invalid(
            "spec.selector",
            BadValue::Verbatim(shown),
            "`selector` not auto-generated",
        ));
    }
    errs
}

/// `ValidateJobSpec`'s selector and template part: the selector required and matching the
/// template, the pod template valid; then the restart policy a Job allows.
pub(crate) fn workload_template(
    spec_path: &str,
    selector: Option<&LabelSelector>,
    spec: &JobSpec,
) -> Vec<FieldError> {
    let mut errs = validation::workload_template(
        &WorkloadTemplate {
            spec: spec_path,
            empty_selector_for: None,
            restart_policies: &[],
        },
        selector,
        &spec.template,
    );
    let field = format!("{spec_path}.template.spec.restartPolicy");
    match spec.template.spec.restart_policy.as_deref().unwrap_or("") {
        "" | "Always" => errs.push(FieldError::required(
            &field,
            "valid values: \"OnFailure\", \"Never\"",
        )),
        "OnFailure" if spec.pod_failure_policy.is_some() => errs.push(FieldError::invalid(
            &field,
            "OnFailure",
            "only \"Never\" is supported when podFailurePolicy is specified",
        )),
        "OnFailure" | "Never" => {}
        other => errs.push(FieldError::not_supported(
            &field,
            other,
            &["OnFailure", "Never"],
        )),
    }
    errs
}

/// `validateJobSpec` without the selector and template (a CronJob's job template is checked
/// with it too, at `spec.jobTemplate.spec`): non-negative counts and durations, the completion
/// mode, an Indexed Job's bounds, the pod failure policy's rules.
pub(crate) fn job_spec(spec: &JobSpec, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let counts = [
        ("parallelism", spec.parallelism.map(i64::from)),
        ("completions", spec.completions.map(i64::from)),
        ("activeDeadlineSeconds", spec.active_deadline_seconds),
        ("backoffLimit", spec.backoff_limit.map(i64::from)),
        (
            "ttlSecondsAfterFinished",
            spec.ttl_seconds_after_finished.map(i64::from),
        ),
        (
            "backoffLimitPerIndex",
            spec.backoff_limit_per_index.map(i64::from),
        ),
        ("maxFailedIndexes", spec.max_failed_indexes.map(i64::from)),
    ];
    for (name, value) in counts {
        if let Some(v) = value.filter(|v| *v < 0) {
            errs.push(FieldError::invalid(
                &format!("{path}.{name}"),
                v,
                "must be greater than or equal to 0",
            ));
        }
    }
    if let Some(mode) = spec.completion_mode.as_deref() {
        if mode != NON_INDEXED && mode != INDEXED {
            errs.push(FieldError::not_supported(
                &format!("{path}.completionMode"),
                mode,
                &[NON_INDEXED, INDEXED],
            ));
        }
        if mode == INDEXED {
            errs.extend(indexed_bounds(spec, path));
        } else if spec.backoff_limit_per_index.is_some() {
            errs.push(FieldError::invalid(
                &format!("{path}.backoffLimitPerIndex"),
                i64::from(spec.backoff_limit_per_index.unwrap_or(0)),
                "requires indexed completion mode",
            ));
        }
    }
    errs.extend(pod_failure_policy(spec, path));
    errs
}

/// An Indexed Job needs `completions`, at most 100,000 of them and of parallelism.
fn indexed_bounds(spec: &JobSpec, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match spec.completions {
        None => errs.push(FieldError::required(
            &format!("{path}.completions"),
            "when completion mode is Indexed",
        )),
        Some(c) if c > INDEXED_LIMIT && spec.backoff_limit_per_index.is_none() => {
            errs.push(FieldError::invalid(
                &format!("{path}.completions"),
                i64::from(c),
                "must be less than or equal to 100000 when completion mode is Indexed",
            ))
        }
        _ => {}
    }
    if let Some(p) = spec.parallelism.filter(|p| *p > INDEXED_LIMIT) {
        errs.push(FieldError::invalid(
            &format!("{path}.parallelism"),
            i64::from(p),
            "must be less than or equal to 100000 when completion mode is Indexed",
        ));
    }
    errs
}

/// `validatePodFailurePolicy`: known actions (FailIndex only with a per-index limit), one of
/// `onExitCodes` or `onPodConditions` per rule, exit-code operators and values.
fn pod_failure_policy(spec: &JobSpec, path: &str) -> Vec<FieldError> {
    let Some(policy) = &spec.pod_failure_policy else {
        return Vec::new();
    };
    let mut errs = Vec::new();
    let actions = ["Count", "FailIndex", "FailJob", "Ignore"];
    for (i, rule) in policy.rules.iter().enumerate() {
        let at = format!("{path}.podFailurePolicy.rules[{i}]");
        if !actions.contains(&rule.action.as_str()) {
            errs.push(FieldError::not_supported(
                &format!("{at}.action"),
                rule.action.as_str(),
                &actions,
            ));
        } else if rule.action == "FailIndex" && spec.backoff_limit_per_index.is_none() {
            errs.push(FieldError::invalid(
                &format!("{at}.action"),
                "FailIndex",
                "requires the backoffLimitPerIndex to be set",
            ));
        }
        match (&rule.on_exit_codes, rule.on_pod_conditions.is_empty()) {
            (Some(_), false) => errs.push(FieldError::invalid(
                &at,
                BadValue::Verbatim(String::new()),
                "specifying both OnExitCodes and OnPodConditions is not supported",
            )),
            (None, true) => errs.push(FieldError::invalid(
                &at,
                BadValue::Verbatim(String::new()),
                "specifying one of OnExitCodes and OnPodConditions is required",
            )),
            _ => {}
        }
        if let Some(codes) = &rule.on_exit_codes {
            errs.extend(exit_codes(codes, &format!("{at}.onExitCodes")));
        }
    }
    errs
}

/// An `onExitCodes` requirement: `In` or `NotIn`, 1 to 255 distinct values, no 0 with `In`.
fn exit_codes(codes: &crate::batch::PodFailurePolicyOnExitCodes, at: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if codes.operator != "In" && codes.operator != "NotIn" {
        errs.push(FieldError::not_supported(
            &format!("{at}.operator"),
            codes.operator.as_str(),
            &["In", "NotIn"],
        ));
    }
    if codes.values.is_empty() {
        errs.push(FieldError::required(
            &format!("{at}.values"),
            "at least one value is required",
        ));
    }
    for (j, v) in codes.values.iter().enumerate() {
        if codes.operator == "In" && *v == 0 {
            errs.push(FieldError::invalid(
                &format!("{at}.values[{j}]"),
                0,
                "must not be 0 for the In operator",
            ));
        }
        if codes.values[..j].contains(v) {
            errs.push(FieldError::duplicate(
                &format!("{at}.values[{j}]"),
                i64::from(*v),
            ));
        }
    }
    errs
}

/// `ValidateJobSpecUpdate`: the selector, completion mode, pod failure policy, per-index limit
/// and `managedBy` never change; `completions` only with parallelism on an Indexed Job (elastic
/// Indexed Jobs); the pod template only while the Job is suspended and has never started.
fn job_spec_update(new: &Job, old: &Job) -> Vec<FieldError> {
    let (n, o) = (&new.spec, &old.spec);
    let mut errs = Vec::new();
    let immutable = |field: &str, value: BadValue| {
        FieldError::invalid(&format!("spec.{field}"), value, "field is immutable")
    };
    if n.selector != o.selector {
        let shown = n
            .selector
            .as_ref()
            .map_or("nil".into(), LabelSelector::go_syntax);
        errs.push(immutable("selector", BadValue::Verbatim(shown)));
    }
    if n.completion_mode != o.completion_mode {
        let mode = n.completion_mode.clone().unwrap_or_default();
        errs.push(immutable("completionMode", BadValue::Str(mode)));
    }
    let elastic = new.is_indexed() && n.completions == n.parallelism;
    if n.completions != o.completions && !elastic {
        let shown = n
            .completions
            .map_or(BadValue::Verbatim("null".into()), |c| {
                BadValue::Int(i64::from(c))
            });
        errs.push(immutable("completions", shown));
    }
    if n.pod_failure_policy != o.pod_failure_policy {
        errs.push(immutable(
            "podFailurePolicy",
            BadValue::Verbatim("batch.PodFailurePolicy{...}".into()),
        ));
    }
    if n.backoff_limit_per_index != o.backoff_limit_per_index {
        let v = i64::from(n.backoff_limit_per_index.unwrap_or(0));
        errs.push(immutable("backoffLimitPerIndex", BadValue::Int(v)));
    }
    if n.managed_by != o.managed_by {
        let v = n.managed_by.clone().unwrap_or_default();
        errs.push(immutable("managedBy", BadValue::Str(v)));
    }
    let mutable_template = old.is_suspended() && old.status.start_time.is_none();
    if n.template != o.template && !mutable_template {
        errs.push(immutable(
            "template",
            BadValue::Verbatim("core.PodTemplateSpec{...}".into()),
        ));
    }
    errs
}

/// `printJob`'s columns (pkg/printers/internalversion `jobColumnDefinitions`, v1.32).
const COLUMNS: [Column; 8] = [
    NAME,
    column("Status", "string", 0),
    column("Completions", "string", 0),
    column("Duration", "string", 0),
    AGE,
    column("Containers", "string", 1),
    column("Images", "string", 1),
    column("Selector", "string", 1),
];

/// `printJob`'s cells.
fn row(job: &Value, now_unix_ms: i64) -> Vec<Value> {
    let (containers, images) = containers_and_images(job);
    vec![
        printer::name(job),
        text(status(job)),
        text(completions(job)),
        text(duration(job, now_unix_ms)),
        printer::age(job, now_unix_ms),
        containers,
        images,
        text(selector_string(at(job, &["spec", "selector"]))),
    ]
}

/// The STATUS cell: Complete, Failed, Terminating, Suspended, FailureTarget or Running.
fn status(job: &Value) -> &'static str {
    let has = |type_: &str| {
        array(job, &["status", "conditions"])
            .iter()
            .any(|c| str_at(c, &["type"]) == Some(type_) && str_at(c, &["status"]) == Some("True"))
    };
    if has(JOB_COMPLETE) {
        "Complete"
    } else if has(JOB_FAILED) {
        "Failed"
    } else if at(job, &["metadata", "deletionTimestamp"]).is_some() {
        "Terminating"
    } else if has(JOB_SUSPENDED) {
        "Suspended"
    } else if has(JOB_FAILURE_TARGET) {
        "FailureTarget"
    } else {
        "Running"
    }
}

/// The COMPLETIONS cell: `succeeded/completions`, or without completions `succeeded/1`
/// (`of parallelism` when it is above 1).
fn completions(job: &Value) -> String {
    let succeeded = int(job, &["status", "succeeded"]);
    match at(job, &["spec", "completions"]).and_then(Value::as_i64) {
        Some(c) => format!("{succeeded}/{c}"),
        None => match int(job, &["spec", "parallelism"]) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    }
}

/// The DURATION cell: from `startTime` to `completionTime`, or to now while it runs.
fn duration(job: &Value, now_unix_ms: i64) -> String {
    let time = |field: &str| {
        str_at(job, &["status", field]).and_then(watchlab_apimachinery::rfc3339::parse_unix_millis)
    };
    match (time("startTime"), time("completionTime")) {
        (None, _) => String::new(),
        (Some(start), None) => human_duration(now_unix_ms - start),
        (Some(start), Some(end)) => human_duration(end - start),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn completions_and_status_cells() {
        let job = json!({"spec": {"completions": 3}, "status": {"succeeded": 1}});
        assert_eq!(completions(&job), "1/3");
        assert_eq!(
            completions(&json!({"spec": {"parallelism": 2}})),
            "0/1 of 2"
        );
        assert_eq!(status(&job), "Running");
        let done = json!({"status": {"conditions": [
            {"type": "SuccessCriteriaMet", "status": "True"},
            {"type": "Complete", "status": "True"}]}});
        assert_eq!(status(&done), "Complete");
        let timed = json!({"status": {"startTime": "2026-01-01T00:00:00Z",
                                      "completionTime": "2026-01-01T00:00:07Z"}});
        assert_eq!(duration(&timed, 0), "7s");
    }
}
