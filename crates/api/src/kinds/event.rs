//! `events` (core/v1): what components report about objects, written with a lease of
//! `--event-ttl` so the store forgets them.

use crate::printer::{self, column, text, Column};
use crate::resource::{ResourceInfo, Rules};
use crate::{Event, Object};
use serde_json::{json, Value};
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{at, int, str_at, string};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 5,
    kind_name: "Event",
    list_kind: "EventList",
    go_type: "v1.Event",
    plural: "events",
    singular: "event",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["ev"],
    categories: &[],
    subresources: &[],
    registry: "events",
    field_labels: &[
        "metadata.name",
        "metadata.namespace",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ],
    dns_label_names: false,
    has_generation: false,
    create_on_update: true,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "CoreV1Event",
    atomic_maps: &[],
    event_ttl: true,
    trigger_field: None,
    rules: &EventRules,
};

/// The core Events' rules, which `events.k8s.io/v1` ([`super::events_v1`]) shares: one storage,
/// one internal type, one printer.
pub(super) struct EventRules;

fn event(obj: &Object) -> Option<&Event> {
    match obj {
        Object::Event(e) => Some(e),
        _ => None,
    }
}

impl Rules for EventRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Event)
    }

    fn empty(&self) -> Object {
        Object::Event(Event::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let e = event(obj)?;
        let io = &e.involved_object;
        Some(match field {
            "involvedObject.kind" => io.kind.to_string(),
            "involvedObject.namespace" => io.namespace.clone(),
            "involvedObject.name" => io.name.clone(),
            "involvedObject.uid" => io.uid.clone(),
            "involvedObject.apiVersion" => io.api_version.to_string(),
            "involvedObject.resourceVersion" => io.resource_version.clone(),
            "involvedObject.fieldPath" => io.field_path.clone(),
            "reason" => e.reason.to_string(),
            "reportingComponent" => e.reporting_component.to_string(),
            // `ToSelectableFields`: the reporting controller of an event without a source.
            "source" if e.source.component.is_empty() => e.reporting_component.to_string(),
            "source" => e.source.component.to_string(),
            "type" => e.type_.to_string(),
            _ => return None,
        })
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        event(obj).map(legacy_validate).unwrap_or_default()
    }

    fn spec_changed(&self, _new: &Object, _old: &Object) -> bool {
        false
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// The most `reportingInstance`, `action` and `reason` may hold, and `message` (`note`).
const TERM_LIMIT: usize = 128;
const NOTE_LIMIT: usize = 1024;

/// `legacyValidateEvent`, what every Event passes whichever version wrote it: an event without
/// `eventTime` (a core recorder's) in its object's namespace (or, about a cluster-scoped
/// object, in `default`); one with `eventTime` (a new recorder's) in its object's namespace or
/// in `default`/`kube-system`, naming its reporting controller and instance, action and reason,
/// within their lengths. The paths are the internal type's (`message`, `reportingController`).
pub(super) fn legacy_validate(e: &Event) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (ns, involved_ns) = (e.metadata.namespace.as_str(), &e.involved_object.namespace);
    let mismatch = || {
        FieldError::invalid(
            "involvedObject.namespace",
            involved_ns,
            "does not match event.namespace",
        )
    };
    if e.event_time.is_none() {
        let cluster_scoped_ok = ns.is_empty() || ns == "default";
        if (involved_ns.is_empty() && !cluster_scoped_ok)
            || (!involved_ns.is_empty() && involved_ns != ns)
        {
            errs.push(mismatch());
        }
        return errs;
    }
    if involved_ns.is_empty() && ns != "default" && ns != "kube-system" {
        errs.push(mismatch());
    }
    let controller = &e.reporting_component;
    if controller.is_empty() {
        errs.push(FieldError::required("reportingController", ""));
    }
    for msg in watchlab_apimachinery::validation::is_qualified_name(controller) {
        errs.push(FieldError::invalid(
            "reportingController",
            &**controller,
            &msg,
        ));
    }
    let mut bounded = |field: &str, len: usize, limit: usize, required: bool| {
        if required && len == 0 {
            errs.push(FieldError::required(field, ""));
        }
        if len > limit {
            errs.push(FieldError::invalid(
                field,
                "",
                &format!("can have at most {limit} characters"),
            ));
        }
    };
    bounded(
        "reportingInstance",
        e.reporting_instance.len(),
        TERM_LIMIT,
        true,
    );
    bounded("action", e.action().len(), TERM_LIMIT, true);
    bounded("reason", e.reason.len(), TERM_LIMIT, true);
    bounded("message", e.message.len(), NOTE_LIMIT, false);
    errs
}

/// `printEvent`'s columns (pkg/printers/internalversion `eventColumnDefinitions`).
const COLUMNS: [Column; 10] = [
    column("Last Seen", "string", 0),
    column("Type", "string", 0),
    column("Reason", "string", 0),
    column("Object", "string", 0),
    column("Subobject", "string", 1),
    column("Source", "string", 1),
    column("Message", "string", 0),
    column("First Seen", "string", 1),
    column("Count", "integer", 1),
    column("Name", "string", 1),
];

/// `printEvent`'s cells: ages of the first and last occurrence (a series' last observation),
/// the count, `kind/name` of the involved object, `component, host` of the source.
fn row(ev: &Value, now_unix_ms: i64) -> Vec<Value> {
    let first = match str_at(ev, &["firstTimestamp"]) {
        Some(t) => since(Some(t), now_unix_ms),
        None => since(str_at(ev, &["eventTime"]), now_unix_ms),
    };
    let mut last = match str_at(ev, &["lastTimestamp"]) {
        Some(t) => since(Some(t), now_unix_ms),
        None => first.clone(),
    };
    let mut count = int(ev, &["count"]);
    if let Some(series) = at(ev, &["series"]).filter(|s| s.is_object()) {
        last = since(str_at(series, &["lastObservedTime"]), now_unix_ms);
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
    let component = str_at(ev, &["source", "component"])
        .filter(|c| !c.is_empty())
        .or_else(|| str_at(ev, &["reportingComponent"]).filter(|c| !c.is_empty()));
    let host = str_at(ev, &["source", "host"]).filter(|h| !h.is_empty());
    let source = match (component, host) {
        (Some(c), Some(h)) => format!("{c}, {h}"),
        (Some(c), None) => c.to_string(),
        (None, _) => String::new(),
    };
    vec![
        text(last),
        text(string(ev, &["type"])),
        text(string(ev, &["reason"])),
        text(target),
        text(string(ev, &["involvedObject", "fieldPath"])),
        text(source),
        text(string(ev, &["message"]).trim()),
        text(first),
        json!(count),
        printer::name(ev),
    ]
}
