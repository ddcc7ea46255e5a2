//! The columns `kubectl get` shows for each resource, computed the way the API server's table
//! printers (`pkg/printers/internalversion`) compute them: pod STATUS from phase, waiting and
//! terminated reasons and deletionTimestamp; node STATUS from the Ready condition and
//! `spec.unschedulable`; AGE from creationTimestamp against the virtual clock. It is a pure
//! function from (resource, items, now) to a [`Table`] so an `as=Table` HTTP response can reuse it.
//! A custom resource's columns are its definition's `additionalPrinterColumns`, each cell read
//! at its JSONPath ([`printer_cell`], shared with the HTTP server's Table).

use crate::resources::ResourceType;
use crate::service_printers;
use serde_json::Value;
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::jsonpath::JsonPath;
use watchlab_apimachinery::unstructured::{array, at, int, name, str_at, string, string_map};

/// One column, as in `metav1.TableColumnDefinition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column name as the server names it (`Name`, `Nominated Node`); kubectl upper-cases it.
    pub name: &'static str,
    /// `string`, `integer`, `date`...
    pub kind: &'static str,
    /// 0: always shown; 1: only with `-o wide`.
    pub priority: u8,
}

/// A table of printed objects: one row of cells per item, cells aligned with `columns`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Headers and rows restricted to what is shown (`wide` adds the priority-1 columns).
    pub fn visible(&self, wide: bool) -> (Vec<String>, Vec<Vec<String>>) {
        let keep: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| wide || c.priority == 0)
            .map(|(i, _)| i)
            .collect();
        let headers = keep
            .iter()
            .filter_map(|&i| self.columns.get(i))
            .map(|c| c.name.to_uppercase())
            .collect();
        let rows = self
            .rows
            .iter()
            .map(|r| {
                keep.iter()
                    .map(|&i| r.get(i).cloned().unwrap_or_default())
                    .collect()
            })
            .collect();
        (headers, rows)
    }
}

const fn col(name: &'static str, kind: &'static str, priority: u8) -> Column {
    Column {
        name,
        kind,
        priority,
    }
}

/// Computes one row's cells from an object and the time.
type RowFn = fn(&Value, i64) -> Vec<String>;

const NAME: Column = col("Name", "string", 0);
const AGE: Column = col("Age", "string", 0);

// Long on purpose: the table of columns per resource, one arm each, like kubectl's printer
// registrations (`AddHandlers`).
/// The table for `items` of the resource with plural name `resource`, at `now_unix_ms`.
pub fn table(resource: &str, items: &[Value], now_unix_ms: i64) -> Table {
    let (columns, row): (Vec<Column>, RowFn) = match resource {
        "pods" => (
            vec![
                NAME,
                col("Ready", "string", 0),
                col("Status", "string", 0),
                col("Restarts", "string", 0),
                AGE,
                col("IP", "string", 1),
                col("Node", "string", 1),
                col("Nominated Node", "string", 1),
                col("Readiness Gates", "string", 1),
            ],
            pod_row,
        ),
        "nodes" => (
            vec![
                NAME,
                col("Status", "string", 0),
                col("Roles", "string", 0),
                AGE,
                col("Version", "string", 0),
                col("Internal-IP", "string", 1),
                col("External-IP", "string", 1),
                col("OS-Image", "string", 1),
                col("Kernel-Version", "string", 1),
                col("Container-Runtime", "string", 1),
            ],
            node_row,
        ),
        "deployments" => (
            vec![
                NAME,
                col("Ready", "string", 0),
                col("Up-to-date", "integer", 0),
                col("Available", "integer", 0),
                AGE,
                col("Containers", "string", 1),
                col("Images", "string", 1),
                col("Selector", "string", 1),
            ],
            deployment_row,
        ),
        "replicasets" => (
            vec![
                NAME,
                col("Desired", "integer", 0),
                col("Current", "integer", 0),
                col("Ready", "integer", 0),
                AGE,
                col("Containers", "string", 1),
                col("Images", "string", 1),
                col("Selector", "string", 1),
            ],
            replicaset_row,
        ),
        "namespaces" => (vec![NAME, col("Status", "string", 0), AGE], namespace_row),
        "events" => (
            vec![
                col("Last Seen", "string", 0),
                col("Type", "string", 0),
                col("Reason", "string", 0),
                col("Object", "string", 0),
                col("Subobject", "string", 1),
                col("Source", "string", 1),
                col("Message", "string", 0),
                col("First Seen", "string", 1),
                col("Count", "integer", 1),
                col("Name", "string", 1),
            ],
            event_row,
        ),
        "leases" => (vec![NAME, col("Holder", "string", 0), AGE], lease_row),
        "services" => (
            vec![
                NAME,
                col("Type", "string", 0),
                col("Cluster-IP", "string", 0),
                col("External-IP", "string", 0),
                col("Port(s)", "string", 0),
                AGE,
                col("Selector", "string", 1),
            ],
            service_printers::service_row,
        ),
        "endpoints" => (
            vec![NAME, col("Endpoints", "string", 0), AGE],
            service_printers::endpoints_row,
        ),
        "endpointslices" => (
            vec![
                NAME,
                col("AddressType", "string", 0),
                col("Ports", "string", 0),
                col("Endpoints", "string", 0),
                AGE,
            ],
            service_printers::endpoint_slice_row,
        ),
        "configmaps" => (
            vec![NAME, col("Data", "string", 0), AGE],
            service_printers::config_map_row,
        ),
        "secrets" => (
            vec![
                NAME,
                col("Type", "string", 0),
                col("Data", "string", 0),
                AGE,
            ],
            service_printers::secret_row,
        ),
        // No printer is registered for CRDs: the apiextensions server answers with the default
        // table convertor's Name and Created At (RFC 3339), as the engine does.
        "customresourcedefinitions" => (vec![NAME, col("Created At", "date", 0)], created_at_row),
        _ => (vec![NAME, AGE], default_row),
    };
    Table {
        columns,
        rows: items.iter().map(|item| row(item, now_unix_ms)).collect(),
    }
}

/// Whether `resource` (a plural) has a built-in printer; any other prints NAME and AGE unless
/// its CustomResourceDefinition declares printer columns.
pub fn has_printer(resource: &str) -> bool {
    table(resource, &[], 0).columns != [NAME, AGE]
}

/// One printer column's cell (the apiextensions table convertor): the value at `json_path`,
/// `<none>` when there is none, a `date` as an age.
pub fn printer_cell(type_: &str, json_path: &str, item: &Value, now_unix_ms: i64) -> String {
    let text = JsonPath::parse(&format!("{{{json_path}}}"))
        .ok()
        .and_then(|jp| jp.execute(item, true).ok())
        .filter(|t| !t.is_empty());
    match (text, type_) {
        (None, _) => "<none>".to_string(),
        (Some(t), "date") => since(Some(&t), now_unix_ms),
        (Some(t), _) => t,
    }
}

/// TEMPORARY (#12, until the API server answers `Accept: ...;as=Table`): the `meta.k8s.io/v1`
/// Table the server would send for `items` of `rt`, built from these printers (a custom
/// resource's from its definition's printer columns). Each row embeds its whole object, as
/// `includeObject=Object` asks. kubectl lays out nothing but such a Table.
pub fn local_table(
    rt: Option<&ResourceType>,
    items: &[Value],
    now_unix_ms: i64,
) -> watchlab_apimachinery::table::Table {
    use watchlab_apimachinery::table::{Table as WireTable, TableColumnDefinition, TableRow};
    let definition = |i: usize, name: &str, type_: &str, priority: i32| TableColumnDefinition {
        name: name.to_string(),
        type_: type_.to_string(),
        format: if i == 0 && name == "Name" { "name" } else { "" }.to_string(),
        priority,
        ..TableColumnDefinition::default()
    };
    let (columns, rows) = match rt.filter(|r| !r.printer_columns.is_empty()) {
        Some(r) => {
            let columns = std::iter::once(definition(0, "Name", "string", 0))
                .chain(
                    r.printer_columns
                        .iter()
                        .enumerate()
                        .map(|(i, c)| definition(i + 1, &c.name, &c.type_, c.priority)),
                )
                .collect();
            let rows = items
                .iter()
                .map(|item| {
                    std::iter::once(name(item))
                        .chain(
                            r.printer_columns
                                .iter()
                                .map(|c| printer_cell(&c.type_, &c.json_path, item, now_unix_ms)),
                        )
                        .collect::<Vec<String>>()
                })
                .collect::<Vec<_>>();
            (columns, rows)
        }
        None => {
            let plural = rt.map(|r| r.plural.as_str()).unwrap_or_default();
            let t = table(plural, items, now_unix_ms);
            let columns = t
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| definition(i, c.name, c.kind, i32::from(c.priority)))
                .collect();
            (columns, t.rows)
        }
    };
    WireTable {
        column_definitions: columns,
        rows: rows
            .into_iter()
            .zip(items)
            .map(|(cells, item)| TableRow {
                cells: cells.into_iter().map(Value::String).collect(),
                object: Some(item.clone()),
            })
            .collect(),
        ..WireTable::default()
    }
}

fn age(v: &Value, now: i64) -> String {
    since(str_at(v, &["metadata", "creationTimestamp"]), now)
}

fn or_none(s: String) -> String {
    if s.is_empty() {
        "<none>".into()
    } else {
        s
    }
}

fn default_row(v: &Value, now: i64) -> Vec<String> {
    vec![name(v), age(v, now)]
}

/// The default table convertor's cells: the name and `creationTimestamp` as stored (RFC 3339).
fn created_at_row(v: &Value, _now: i64) -> Vec<String> {
    let created = v["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap_or("<none>");
    vec![name(v), created.to_string()]
}

/// What kubectl shows as a pod's STATUS, READY and RESTARTS (printPod).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSummary {
    pub status: String,
    pub ready: String,
    pub restarts: String,
}

/// printPod's STATUS/READY/RESTARTS logic.
pub fn pod_summary(pod: &Value, now: i64) -> PodSummary {
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
        Some(t) if restarts > 0 => format!("{restarts} ({} ago)", since(Some(&t), now)),
        _ => restarts.to_string(),
    };
    PodSummary {
        status: reason,
        ready: format!("{ready}/{total}"),
        restarts,
    }
}

fn pod_ready_condition(pod: &Value) -> bool {
    array(pod, &["status", "conditions"])
        .iter()
        .any(|c| str_at(c, &["type"]) == Some("Ready") && str_at(c, &["status"]) == Some("True"))
}

fn pod_row(pod: &Value, now: i64) -> Vec<String> {
    let s = pod_summary(pod, now);
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
        name(pod),
        s.ready,
        s.status,
        s.restarts,
        age(pod, now),
        or_none(string(pod, &["status", "podIP"])),
        or_none(string(pod, &["spec", "nodeName"])),
        or_none(string(pod, &["status", "nominatedNodeName"])),
        gates,
    ]
}

/// A node's STATUS: `Ready`/`NotReady`/`Unknown`, plus `SchedulingDisabled` when cordoned.
pub fn node_status(node: &Value) -> String {
    let ready = array(node, &["status", "conditions"])
        .iter()
        .find(|c| str_at(c, &["type"]) == Some("Ready"));
    let mut status = match ready {
        Some(c) if str_at(c, &["status"]) == Some("True") => vec!["Ready"],
        Some(_) => vec!["NotReady"],
        None => vec!["Unknown"],
    };
    if at(node, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    status.join(",")
}

/// A node's ROLES from `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels.
pub fn node_roles(node: &Value) -> String {
    let mut roles: Vec<String> = string_map(node, &["metadata", "labels"])
        .into_iter()
        .filter_map(|(k, v)| {
            if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
                Some(role.to_string())
            } else if k == "kubernetes.io/role" {
                Some(v)
            } else {
                None
            }
        })
        .filter(|r| !r.is_empty())
        .collect();
    roles.sort();
    roles.dedup();
    or_none(roles.join(","))
}

fn node_row(node: &Value, now: i64) -> Vec<String> {
    let address = |kind: &str| {
        array(node, &["status", "addresses"])
            .iter()
            .find(|a| str_at(a, &["type"]) == Some(kind))
            .map(|a| string(a, &["address"]))
            .unwrap_or_else(|| "<none>".into())
    };
    let info = |field: &str| {
        let v = string(node, &["status", "nodeInfo", field]);
        if v.is_empty() {
            "<unknown>".into()
        } else {
            v
        }
    };
    vec![
        name(node),
        node_status(node),
        node_roles(node),
        age(node, now),
        string(node, &["status", "nodeInfo", "kubeletVersion"]),
        address("InternalIP"),
        address("ExternalIP"),
        info("osImage"),
        info("kernelVersion"),
        info("containerRuntimeVersion"),
    ]
}

/// `metav1.LabelSelector` printed the way `LabelSelectorAsSelector(...).String()` prints it.
pub fn selector_string(selector: Option<&Value>) -> String {
    let Some(sel) = selector else {
        return "<none>".into();
    };
    let mut parts: Vec<String> = string_map(sel, &["matchLabels"])
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    for e in array(sel, &["matchExpressions"]) {
        let key = string(e, &["key"]);
        let mut values: Vec<String> = array(e, &["values"])
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        values.sort();
        let values = values.join(",");
        parts.push(match str_at(e, &["operator"]).unwrap_or_default() {
            "In" => format!("{key} in ({values})"),
            "NotIn" => format!("{key} notin ({values})"),
            "Exists" => key,
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} ({values})"),
        });
    }
    parts.sort();
    or_none(parts.join(","))
}

fn containers_and_images(v: &Value) -> (String, String) {
    let containers = array(v, &["spec", "template", "spec", "containers"]);
    let names: Vec<String> = containers.iter().map(|c| string(c, &["name"])).collect();
    let images: Vec<String> = containers.iter().map(|c| string(c, &["image"])).collect();
    (names.join(","), images.join(","))
}

fn deployment_row(d: &Value, now: i64) -> Vec<String> {
    let (containers, images) = containers_and_images(d);
    vec![
        name(d),
        format!(
            "{}/{}",
            int(d, &["status", "readyReplicas"]),
            int(d, &["spec", "replicas"])
        ),
        int(d, &["status", "updatedReplicas"]).to_string(),
        int(d, &["status", "availableReplicas"]).to_string(),
        age(d, now),
        containers,
        images,
        selector_string(at(d, &["spec", "selector"])),
    ]
}

fn replicaset_row(rs: &Value, now: i64) -> Vec<String> {
    let (containers, images) = containers_and_images(rs);
    vec![
        name(rs),
        int(rs, &["spec", "replicas"]).to_string(),
        int(rs, &["status", "replicas"]).to_string(),
        int(rs, &["status", "readyReplicas"]).to_string(),
        age(rs, now),
        containers,
        images,
        selector_string(at(rs, &["spec", "selector"])),
    ]
}

fn namespace_row(ns: &Value, now: i64) -> Vec<String> {
    vec![name(ns), string(ns, &["status", "phase"]), age(ns, now)]
}

fn lease_row(lease: &Value, now: i64) -> Vec<String> {
    vec![
        name(lease),
        string(lease, &["spec", "holderIdentity"]),
        age(lease, now),
    ]
}

fn event_row(ev: &Value, now: i64) -> Vec<String> {
    let first = match str_at(ev, &["firstTimestamp"]) {
        Some(t) => since(Some(t), now),
        None => since(str_at(ev, &["eventTime"]), now),
    };
    let mut last = match str_at(ev, &["lastTimestamp"]) {
        Some(t) => since(Some(t), now),
        None => first.clone(),
    };
    let mut count = int(ev, &["count"]);
    if let Some(series) = at(ev, &["series"]).filter(|s| s.is_object()) {
        last = since(str_at(series, &["lastObservedTime"]), now);
        count = int(series, &["count"]);
    } else if count == 0 {
        count = 1;
    }
    let kind = string(ev, &["involvedObject", "kind"]).to_lowercase();
    let involved = string(ev, &["involvedObject", "name"]);
    let target = if involved.is_empty() {
        kind
    } else {
        format!("{kind}/{involved}")
    };
    let source = {
        let component = str_at(ev, &["source", "component"])
            .filter(|c| !c.is_empty())
            .or_else(|| str_at(ev, &["reportingComponent"]).filter(|c| !c.is_empty()));
        match (
            component,
            str_at(ev, &["source", "host"]).filter(|h| !h.is_empty()),
        ) {
            (Some(c), Some(h)) => format!("{c}, {h}"),
            (Some(c), None) => c.to_string(),
            (None, _) => String::new(),
        }
    };
    vec![
        last,
        string(ev, &["type"]),
        string(ev, &["reason"]),
        target,
        string(ev, &["involvedObject", "fieldPath"]),
        source,
        string(ev, &["message"]).trim().to_string(),
        first,
        count.to_string(),
        name(ev),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use watchlab_apimachinery::client::virtual_now_unix_ms;

    fn pod(status: Value) -> Value {
        json!({
            "metadata": {"name": "debug-tools", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "c", "image": "debug-tools:1.0"}]},
            "status": status,
        })
    }

    fn status_of(p: Value) -> (String, String, String) {
        let s = pod_summary(&p, virtual_now_unix_ms(5000));
        (s.status, s.ready, s.restarts)
    }

    #[test]
    fn pod_status_like_kubectl() {
        let t = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        assert_eq!(
            status_of(pod(json!({"phase": "Pending"}))),
            t("Pending", "0/1", "0")
        );
        assert_eq!(
            status_of(pod(json!({"phase": "Pending", "containerStatuses": [
                {"name": "c", "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}
            ]}))),
            t("ContainerCreating", "0/1", "0")
        );
        assert_eq!(
            status_of(pod(json!({"phase": "Running", "containerStatuses": [
                {"name": "c", "ready": true, "restartCount": 2, "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:00:03Z"}}}
            ]}))),
            t("Running", "1/1", "2 (2s ago)")
        );
        assert_eq!(
            status_of(pod(json!({"phase": "Succeeded", "containerStatuses": [
                {"name": "c", "ready": false, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
            ]}))),
            t("Completed", "0/1", "0")
        );
        let mut terminating = pod(json!({"phase": "Running"}));
        terminating["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:04Z");
        assert_eq!(status_of(terminating).0, "Terminating");
        let mut init = pod(json!({"phase": "Pending", "initContainerStatuses": [
            {"name": "i", "state": {"waiting": {"reason": "PodInitializing"}}}
        ]}));
        init["spec"]["initContainers"] = json!([{"name": "i"}]);
        assert_eq!(status_of(init).0, "Init:0/1");
        assert_eq!(status_of(json!(null)), t("", "0/0", "0"));
    }

    #[test]
    fn node_columns() {
        let node = json!({
            "metadata": {"name": "node-c", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "Unknown"}], "nodeInfo": {"kubeletVersion": "v1.32.0"}}
        });
        let t = table("nodes", &[node], 0);
        assert_eq!(
            t.visible(false).1[0][..3],
            ["node-c", "NotReady,SchedulingDisabled", "control-plane"]
        );
        assert_eq!(node_status(&json!({})), "Unknown");
    }

    #[test]
    fn deployment_and_event_columns() {
        let d = json!({
            "metadata": {"name": "orders-api", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "orders-api"}},
                     "template": {"spec": {"containers": [{"name": "api", "image": "orders:1"}]}}},
            "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}
        });
        let now = virtual_now_unix_ms(3 * 3600 * 1000);
        let (headers, rows) = table("deployments", &[d], now).visible(true);
        assert_eq!(
            headers,
            [
                "NAME",
                "READY",
                "UP-TO-DATE",
                "AVAILABLE",
                "AGE",
                "CONTAINERS",
                "IMAGES",
                "SELECTOR"
            ]
        );
        assert_eq!(
            rows[0],
            [
                "orders-api",
                "2/3",
                "3",
                "2",
                "3h",
                "api",
                "orders:1",
                "app=orders-api"
            ]
        );
        let ev = json!({
            "metadata": {"name": "node-c.1"}, "type": "Normal", "reason": "NodeNotReady",
            "involvedObject": {"kind": "Node", "name": "node-c"},
            "lastTimestamp": "2026-01-01T02:59:00Z", "message": "Node node-c status is now: NodeNotReady\n"
        });
        let (headers, rows) = table("events", &[ev], now).visible(false);
        assert_eq!(
            headers,
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        );
        assert_eq!(
            rows[0],
            [
                "60s",
                "Normal",
                "NodeNotReady",
                "node/node-c",
                "Node node-c status is now: NodeNotReady"
            ]
        );
    }
}
