//! `pods` (core/v1): the unit the scheduler binds and the kubelet runs.

use super::{bool_text, conditions_merge_key, pod_spec_merge_key};
use crate::printer::{self, column, or_none, text, Column, AGE, NAME};
use crate::resource::{ResourceInfo, Rules};
use crate::strategy::qos_class;
use crate::{defaults, validation, Kind, Object, Pod};
use serde_json::Value;
use std::sync::Arc;
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, at, int, str_at, string};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 2,
    kind_name: "Pod",
    list_kind: "PodList",
    go_type: "v1.Pod",
    plural: "pods",
    singular: "pod",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["po"],
    categories: &["all"],
    subresources: &[
        "status",
        "binding",
        "eviction",
        "log",
        "ephemeralcontainers",
    ],
    registry: "pods",
    field_labels: &[
        "metadata.name",
        "metadata.namespace",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.podIPs",
        "status.nominatedNodeName",
    ],
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: true,
    delete_collection: true,
    controller_owners: &[
        Kind::ReplicaSet,
        Kind::Job,
        Kind::DaemonSet,
        Kind::StatefulSet,
    ],
    schema_root: "V1Pod",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: Some("spec.nodeName"),
    rules: &PodRules,
};

struct PodRules;

impl Rules for PodRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Pod)
    }

    fn empty(&self) -> Object {
        Object::Pod(Pod::default())
    }

    /// `NodeNameTriggerFunc`: the node the pod is bound to (empty while unscheduled).
    fn trigger_value<'a>(&self, obj: &'a Object) -> Option<&'a str> {
        obj.as_pod().map(|p| p.spec.node_name.as_str())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let p = obj.as_pod()?;
        Some(match field {
            "spec.nodeName" => p.spec.node_name.clone(),
            "spec.restartPolicy" => p.spec.restart_policy.clone().unwrap_or_default(),
            "spec.schedulerName" => p.spec.scheduler_name.clone().unwrap_or_default(),
            "spec.serviceAccountName" => p.spec.service_account_name.clone(),
            "spec.hostNetwork" => bool_text(p.spec.host_network),
            "status.phase" => p.status.phase.to_string(),
            "status.podIP" | "status.podIPs" => p.status.pod_ip.clone(),
            "status.nominatedNodeName" => p.status.nominated_node_name.to_string(),
            _ => return None,
        })
    }

    fn default(&self, obj: &mut Object) {
        if let Object::Pod(p) = obj {
            if Arc::strong_count(&p.spec) == 1 {
                defaults::pod_spec(p.spec_mut());
            } else {
                // Shared with another version (a status write's copy of the stored pod, whose
                // spec was defaulted when it was stored): defaulting is idempotent, so the
                // shared spec is replaced only if it changes, and the versions keep sharing it.
                let mut spec = (*p.spec).clone();
                defaults::pod_spec(&mut spec);
                if spec != *p.spec {
                    p.spec = Arc::new(spec);
                }
            }
        }
    }

    fn default_update(&self, new: &mut Object, old: &Object) {
        if !spec_shared(new, old) {
            self.default(new);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_pod()
            .map(|p| {
                let mut errs = validation::behaviour_annotation(&p.metadata);
                errs.extend(validation::pod_spec(&p.spec, "spec"));
                errs
            })
            .unwrap_or_default()
    }

    fn validate_changed(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match new.as_pod() {
            Some(p) if spec_shared(new, old) => validation::behaviour_annotation(&p.metadata),
            _ => self.validate(new),
        }
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_pod(), old.as_pod()) {
            _ if spec_shared(new, old) => Vec::new(),
            (Some(n), Some(o)) if !validation::pod_spec_update_allowed(&n.spec, &o.spec) => {
                vec![FieldError::forbidden(
                    "spec",
                    validation::POD_UPDATE_FORBIDDEN,
                )]
            }
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::Pod(p) = obj {
            p.status = Default::default();
            p.status.phase = "Pending".into();
            p.status.qos_class = qos_class(&p.spec).into();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Pod(n), Object::Pod(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Pod(o), Object::Pod(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::Pod(n), Object::Pod(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        match path {
            ["spec", rest @ ..] => pod_spec_merge_key(rest),
            _ => conditions_merge_key(path),
        }
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printPod`'s columns (pkg/printers/internalversion `podColumnDefinitions`).
const COLUMNS: [Column; 9] = [
    NAME,
    column("Ready", "string", 0),
    column("Status", "string", 0),
    column("Restarts", "string", 0),
    AGE,
    column("IP", "string", 1),
    column("Node", "string", 1),
    column("Nominated Node", "string", 1),
    column("Readiness Gates", "string", 1),
];

/// What `printPod` shows as a pod's STATUS, READY and RESTARTS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSummary {
    pub status: String,
    pub ready: String,
    pub restarts: String,
}

/// `printPod`'s STATUS/READY/RESTARTS logic: the phase or reason, `SchedulingGated`, an init
/// container's `Init:` state, a container's waiting or terminated reason, `Terminating`.
pub fn pod_summary(pod: &Value, now_unix_ms: i64) -> PodSummary {
    let total = array(pod, &["spec", "containers"]).len();
    let mut reason = string(pod, &["status", "phase"]);
    if let Some(r) = str_at(pod, &["status", "reason"]).filter(|r| !r.is_empty()) {
        reason = r.to_string();
    }
    if !array(pod, &["spec", "schedulingGates"]).is_empty() {
        reason = "SchedulingGated".into();
    }
    let mut restarts = 0;
    let mut last_restart: Option<String> = None;
    let mut note_restart = |c: &Value, restarts: &mut i64| {
        *restarts += int(c, &["restartCount"]);
        if let Some(t) = str_at(c, &["lastState", "terminated", "finishedAt"]) {
            if last_restart.as_deref().is_none_or(|old| t > old) {
                last_restart = Some(t.to_string());
            }
        }
    };
    let init_statuses = array(pod, &["status", "initContainerStatuses"]);
    let init_total = array(pod, &["spec", "initContainers"]).len();
    let mut initializing = false;
    for (i, c) in init_statuses.iter().enumerate() {
        note_restart(c, &mut restarts);
        let term = at(c, &["state", "terminated"]);
        let waiting_reason = str_at(c, &["state", "waiting", "reason"]).unwrap_or_default();
        match term {
            Some(t) if int(t, &["exitCode"]) == 0 => continue,
            Some(t) => {
                reason = match str_at(t, &["reason"]).filter(|r| !r.is_empty()) {
                    Some(r) => format!("Init:{r}"),
                    None if int(t, &["signal"]) != 0 => {
                        format!("Init:Signal:{}", int(t, &["signal"]))
                    }
                    None => format!("Init:ExitCode:{}", int(t, &["exitCode"])),
                };
            }
            None if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" => {
                reason = format!("Init:{waiting_reason}");
            }
            None => reason = format!("Init:{i}/{init_total}"),
        }
        initializing = true;
        break;
    }
    let mut ready = 0;
    if !initializing {
        restarts = 0;
        let mut has_running = false;
        for c in array(pod, &["status", "containerStatuses"]).iter().rev() {
            note_restart(c, &mut restarts);
            let waiting = str_at(c, &["state", "waiting", "reason"]).filter(|r| !r.is_empty());
            let term = at(c, &["state", "terminated"]);
            if let Some(w) = waiting {
                reason = w.to_string();
            } else if let Some(t) = term {
                reason = match str_at(t, &["reason"]).filter(|r| !r.is_empty()) {
                    Some(r) => r.to_string(),
                    None if int(t, &["signal"]) != 0 => format!("Signal:{}", int(t, &["signal"])),
                    None => format!("ExitCode:{}", int(t, &["exitCode"])),
                };
            } else if c.get("ready").and_then(Value::as_bool) == Some(true)
                && at(c, &["state", "running"]).is_some()
            {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            reason = if pod_ready_condition(pod) {
                "Running".into()
            } else {
                "NotReady".into()
            };
        }
    }
    if at(pod, &["metadata", "deletionTimestamp"]).is_some_and(|t| !t.is_null()) {
        reason = if str_at(pod, &["status", "reason"]) == Some("NodeLost") {
            "Unknown".into()
        } else {
            "Terminating".into()
        };
    }
    let restarts = match last_restart {
        Some(t) if restarts > 0 => format!("{restarts} ({} ago)", since(Some(&t), now_unix_ms)),
        _ => restarts.to_string(),
    };
    PodSummary {
        status: reason,
        ready: format!("{ready}/{total}"),
        restarts,
    }
}

/// Whether an update left the pod's spec the stored version's very own (a status write, or a
/// metadata change): that spec was defaulted and validated when it was stored.
fn spec_shared(new: &Object, old: &Object) -> bool {
    matches!((new, old), (Object::Pod(n), Object::Pod(o)) if Arc::ptr_eq(&n.spec, &o.spec))
}

fn pod_ready_condition(pod: &Value) -> bool {
    array(pod, &["status", "conditions"])
        .iter()
        .any(|c| str_at(c, &["type"]) == Some("Ready") && str_at(c, &["status"]) == Some("True"))
}

/// `printPod`'s cells.
fn row(pod: &Value, now_unix_ms: i64) -> Vec<Value> {
    let s = pod_summary(pod, now_unix_ms);
    let gates = array(pod, &["spec", "readinessGates"]);
    let gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let conditions = array(pod, &["status", "conditions"]);
        let met = gates
            .iter()
            .filter(|g| {
                conditions.iter().any(|c| {
                    c.get("type") == g.get("conditionType")
                        && str_at(c, &["status"]) == Some("True")
                })
            })
            .count();
        format!("{met}/{}", gates.len())
    };
    vec![
        printer::name(pod),
        text(s.ready),
        text(s.status),
        text(s.restarts),
        printer::age(pod, now_unix_ms),
        text(or_none(string(pod, &["status", "podIP"]))),
        text(or_none(string(pod, &["spec", "nodeName"]))),
        text(or_none(string(pod, &["status", "nominatedNodeName"]))),
        text(gates),
    ]
}
