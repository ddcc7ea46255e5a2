//! `cronjobs` (batch/v1): a Job template and the cron schedule it is run on. Defaults follow
//! pkg/apis/batch/v1/defaults.go (`SetDefaults_CronJob`), validation
//! pkg/apis/batch/validation/validation.go (`validateCronJobSpec`, the schedule's syntax in
//! [`crate::cron_schedule`]).

use super::job::{job_spec, workload_template};
use super::workload_merge_key;
use crate::batch::{CronJob, ALLOW_CONCURRENT, FORBID_CONCURRENT, REPLACE_CONCURRENT};
use crate::cron_schedule;
use crate::printer::{self, column, containers_and_images_at, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::{defaults, Object};
use serde_json::{json, Value};
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::labels::selector_string;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, at, str_at};
use watchlab_apimachinery::validation::{BadValue, FieldError};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 15,
    kind_name: "CronJob",
    list_kind: "CronJobList",
    go_type: "v1.CronJob",
    plural: "cronjobs",
    singular: "cronjob",
    group: "batch",
    version: "v1",
    api_version: "batch/v1",
    namespaced: true,
    short_names: &["cj"],
    categories: &["all"],
    subresources: &["status"],
    registry: "cronjobs",
    field_labels: &["metadata.name", "metadata.namespace"],
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1CronJob",
    atomic_maps: &[&["spec", "jobTemplate", "spec", "selector"]],
    event_ttl: false,
    trigger_field: None,
    rules: &CronJobRules,
};

/// `successfulJobsHistoryLimit` and `failedJobsHistoryLimit` defaults (`SetDefaults_CronJob`).
pub const DEFAULT_SUCCESSFUL_JOBS_HISTORY_LIMIT: i32 = 3;
pub const DEFAULT_FAILED_JOBS_HISTORY_LIMIT: i32 = 1;

/// The longest name a CronJob may have: its Jobs are named `<name>-<minutes since epoch>`
/// (11 characters) and must stay DNS-1035 labels (`ValidateCronJobCreate`: 63 - 11 = 52).
const MAX_NAME_LENGTH: usize = 52;

struct CronJobRules;

impl Rules for CronJobRules {
    fn decode(&self, value: Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::CronJob)
    }

    fn empty(&self) -> Object {
        Object::CronJob(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::CronJob(cj) = obj {
            let spec = &mut cj.spec;
            if spec.concurrency_policy.is_empty() {
                spec.concurrency_policy = ALLOW_CONCURRENT.into();
            }
            spec.suspend.get_or_insert(false);
            spec.successful_jobs_history_limit
                .get_or_insert(DEFAULT_SUCCESSFUL_JOBS_HISTORY_LIMIT);
            spec.failed_jobs_history_limit
                .get_or_insert(DEFAULT_FAILED_JOBS_HISTORY_LIMIT);
            defaults::pod_spec(&mut spec.job_template.spec.template.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_cron_job()
            .map(|cj| cron_job(cj, None))
            .unwrap_or_default()
    }

    /// The create rules again, with what only an update allows (a TZ schedule kept, an
    /// unchanged time zone not looked up again, a name past 52 characters).
    fn validate_changed(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_cron_job(), old.as_cron_job()) {
            (Some(n), Some(o)) => cron_job(n, Some(o)),
            _ => self.validate(new),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::CronJob(cj) = obj {
            cj.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::CronJob(n), Object::CronJob(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::CronJob(o), Object::CronJob(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::CronJob(n), Object::CronJob(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        match path {
            ["spec", "jobTemplate", rest @ ..] => workload_merge_key(rest),
            _ => workload_merge_key(path),
        }
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `ValidateCronJobCreate` / `ValidateCronJobUpdate` (`old`): `validateCronJobSpec` — the
/// schedule, the starting deadline, the time zone (on create, and on an update that changes it),
/// the concurrency policy, the job template (whose selector is generated, so none may be
/// given), the history limits — then, on create only, the name's length (an update skips it so
/// that older CronJobs with longer names can still be changed and deleted).
fn cron_job(cj: &CronJob, old: Option<&CronJob>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = &cj.spec;
    let allow_tz = old.is_some_and(|o| o.spec.schedule.contains("TZ"));
    errs.extend(schedule(
        &spec.schedule,
        spec.time_zone.as_deref(),
        allow_tz,
    ));
    if let Some(s) = spec.starting_deadline_seconds.filter(|s| *s < 0) {
        errs.push(FieldError::invalid(
            "spec.startingDeadlineSeconds",
            s,
            "must be greater than or equal to 0",
        ));
    }
    if old.is_none_or(|o| o.spec.time_zone != spec.time_zone) {
        errs.extend(cron_schedule::validate_time_zone(spec.time_zone.as_deref()));
    }
    let policies = [ALLOW_CONCURRENT, FORBID_CONCURRENT, REPLACE_CONCURRENT];
    match spec.concurrency_policy.as_str() {
        "" => errs.push(FieldError::required("spec.concurrencyPolicy", "")),
        p if !policies.contains(&p) => errs.push(FieldError::not_supported(
            "spec.concurrencyPolicy",
            p,
            &policies,
        )),
        _ => {}
    }
    errs.extend(job_template(cj));
    let limits = [
        (
            "successfulJobsHistoryLimit",
            spec.successful_jobs_history_limit,
        ),
        ("failedJobsHistoryLimit", spec.failed_jobs_history_limit),
    ];
    for (field, limit) in limits {
        if let Some(l) = limit.filter(|l| *l < 0) {
            errs.push(FieldError::invalid(
                &format!("spec.{field}"),
                i64::from(l),
                "must be greater than or equal to 0",
            ));
        }
    }
    let name = &cj.metadata.name;
    if old.is_none() && name.len() > MAX_NAME_LENGTH {
        errs.push(FieldError::invalid(
            "metadata.name",
            name,
            "must be no more than 52 characters",
        ));
    }
    errs
}

/// `ValidateJobTemplateSpec`: the Job spec's rules (its selector is auto-generated, so the
/// template's labels need not match one) and no selector of its own.
fn job_template(cj: &CronJob) -> Vec<FieldError> {
    let path = "spec.jobTemplate.spec";
    let spec = &cj.spec.job_template.spec;
    let mut errs = job_spec(spec, path);
    // The selector the Job will get matches the labels it will get: check the template alone.
    let everything = crate::meta::LabelSelector::default();
    errs.extend(workload_template(path, Some(&everything), spec));
    if let Some(s) = &spec.selector {
        errs.push(FieldError::invalid(
            &format!("{path}.selector"),
            BadValue::Verbatim(s.go_syntax()),
            "`selector` will be auto-generated",
        ));
    }
    if spec.manual_selector == Some(true) {
        errs.push(FieldError::not_supported(
            &format!("{path}.manualSelector"),
            BadValue::Verbatim("true".into()),
            &["nil", "false"],
        ));
    }
    errs
}

/// `printCronJob`'s columns (pkg/printers/internalversion `cronJobColumnDefinitions`).
const COLUMNS: [Column; 10] = [
    NAME,
    column("Schedule", "string", 0),
    column("Timezone", "string", 0),
    column("Suspend", "boolean", 0),
    column("Active", "integer", 0),
    column("Last Schedule", "string", 0),
    AGE,
    column("Containers", "string", 1),
    column("Images", "string", 1),
    column("Selector", "string", 1),
];

/// `printCronJob`'s cells.
fn row(cj: &Value, now_unix_ms: i64) -> Vec<Value> {
    let template = ["spec", "jobTemplate", "spec", "template", "spec"];
    let (containers, images) = containers_and_images_at(cj, &template);
    let last = match str_at(cj, &["status", "lastScheduleTime"]) {
        Some(t) => since(Some(t), now_unix_ms),
        None => "<none>".into(),
    };
    let suspend = match at(cj, &["spec", "suspend"]).and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    vec![
        printer::name(cj),
        text(str_at(cj, &["spec", "schedule"]).unwrap_or("")),
        text(str_at(cj, &["spec", "timeZone"]).unwrap_or("<none>")),
        text(suspend),
        json!(array(cj, &["status", "active"]).len()),
        text(last),
        printer::age(cj, now_unix_ms),
        containers,
        images,
        text(selector_string(at(
            cj,
            &["spec", "jobTemplate", "spec", "selector"],
        ))),
    ]
}

/// `validateCronJobSpec`'s schedule checks: `Required value` when empty, else
/// `validateScheduleFormat` ([`cron_schedule::validate_schedule`]). A schedule on which
/// robfig's parser panics (a `TZ=` prefix and no space) makes a v1.32 API server answer 500;
/// here it is refused as v1.35 refuses it, `invalid schedule format: ` and the panic's text.
fn schedule(schedule: &str, zone: Option<&str>, allow_tz: bool) -> Vec<FieldError> {
    match cron_schedule::validate_schedule(schedule, allow_tz, zone) {
        Ok(errs) => errs,
        Err(e) => vec![FieldError::invalid(
            "spec.schedule",
            schedule,
            &format!("invalid schedule format: {e}"),
        )],
    }
}
