//! `events` (`events.k8s.io/v1`): the same stored Events as core `v1` ([`super::event`]), served
//! in a second version, as kube-apiserver serves them (one storage, two versions). The fields are
//! the core ones renamed (`pkg/apis/events/v1/conversion.go`): `regarding` is `involvedObject`,
//! `note` `message`, `reportingController` `reportingComponent`, `deprecatedSource` `source`,
//! `deprecatedFirstTimestamp`/`deprecatedLastTimestamp`/`deprecatedCount` the first and last
//! timestamps and the count; `eventTime`, `series`, `action`, `reason`, `type`, `related` and
//! `reportingInstance` are the same. Here: the served description, the conversion both ways, its
//! field-selector labels, and the stricter validation of what is written through this version.

use super::event::{legacy_validate, EventRules};
use crate::clock::Timestamp;
use crate::event::{EventExtension, EventSeries, EventSource};
use crate::meta::{ObjectMeta, ObjectReference, Term};
use crate::resource::ResourceInfo;
use crate::time;
use crate::Event;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::validation::{BadValue, FieldError};

/// The served description: the core Events' rules (decoding to the internal type, printing) and
/// storage (`registry: "events"`), its own group, field labels and field schema.
pub static RESOURCE: ResourceInfo = ResourceInfo {
    // Discovered with the core Events it stores ([`super::OTHER_VERSIONS`]).
    rank: 5,
    kind_name: "Event",
    list_kind: "EventList",
    go_type: "v1.Event",
    plural: "events",
    singular: "event",
    group: "events.k8s.io",
    version: "v1",
    api_version: API_VERSION,
    namespaced: true,
    // The same REST storage as core Events, so the same `ShortNames()`.
    short_names: &["ev"],
    categories: &[],
    subresources: &[],
    registry: "events",
    field_labels: &[
        "metadata.name",
        "metadata.namespace",
        "regarding.kind",
        "regarding.namespace",
        "regarding.name",
        "regarding.uid",
        "regarding.apiVersion",
        "regarding.resourceVersion",
        "regarding.fieldPath",
        "reason",
        "reportingController",
        "source",
        "type",
    ],
    dns_label_names: false,
    has_generation: false,
    create_on_update: true,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "EventsV1Event",
    atomic_maps: &[],
    event_ttl: true,
    trigger_field: None,
    rules: &EventRules,
};

pub const API_VERSION: &str = "events.k8s.io/v1";

/// (`events.k8s.io/v1` name, core `v1` name) of the fields the conversion renames; every other
/// field keeps its name.
const RENAMED: [(&str, &str); 7] = [
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

/// The fields both versions name alike.
const SAME: [&str; 10] = [
    "apiVersion",
    "kind",
    "metadata",
    "eventTime",
    "series",
    "reportingInstance",
    "action",
    "reason",
    "related",
    "type",
];

/// An Event as `events.k8s.io/v1` writes it, fields in Go's order; what Go's `encoding/json`
/// writes for zero values (`regarding: {}`, `deprecatedSource: {}`, `eventTime: null`, the
/// deprecated timestamps `null`) included.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EventV1 {
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default, with = "time::micro_time")]
    event_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    series: Option<EventSeries>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    reporting_controller: Term,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    reporting_instance: Arc<str>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    action: Term,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    reason: Term,
    #[serde(default)]
    regarding: Arc<ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    related: Option<ObjectReference>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    note: Arc<str>,
    #[serde(default, rename = "type", skip_serializing_if = "str::is_empty")]
    type_: Term,
    #[serde(default)]
    deprecated_source: EventSource,
    #[serde(default, with = "time::rfc3339")]
    deprecated_first_timestamp: Option<Timestamp>,
    #[serde(default, with = "time::rfc3339")]
    deprecated_last_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deprecated_count: Option<i32>,
}

/// [`EventV1`] with its `kind` and `apiVersion` first, as the server writes an object.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Tagged<'a> {
    kind: &'static str,
    api_version: &'static str,
    #[serde(flatten)]
    event: &'a EventV1,
}

/// `Convert_core_Event_To_v1_Event`.
fn from_core(e: &Event) -> EventV1 {
    EventV1 {
        metadata: e.metadata.clone(),
        event_time: e.event_time,
        series: e.series().cloned(),
        reporting_controller: e.reporting_component.clone(),
        reporting_instance: e.reporting_instance.clone(),
        action: Term::Owned(e.action().to_string()),
        reason: e.reason.clone(),
        regarding: e.involved_object.clone(),
        related: e.related().cloned(),
        note: e.message.clone(),
        type_: e.type_.clone(),
        deprecated_source: e.source.clone(),
        deprecated_first_timestamp: e.first_timestamp,
        deprecated_last_timestamp: e.last_timestamp,
        deprecated_count: e.count,
    }
}

/// `Convert_v1_Event_To_core_Event`.
fn into_core(e: EventV1) -> Event {
    let mut core = Event {
        metadata: e.metadata,
        involved_object: e.regarding,
        reason: e.reason,
        message: e.note,
        source: e.deprecated_source,
        first_timestamp: e.deprecated_first_timestamp,
        last_timestamp: e.deprecated_last_timestamp,
        count: e.deprecated_count,
        type_: e.type_,
        event_time: e.event_time,
        extension: None,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
    };
    core.set_extension(EventExtension {
        series: e.series,
        action: e.action,
        related: e.related,
    });
    core
}

/// The `events.k8s.io/v1` JSON of a stored Event.
pub fn encode(e: &Event) -> String {
    let event = from_core(e);
    let tagged = Tagged {
        kind: "Event",
        api_version: API_VERSION,
        event: &event,
    };
    serde_json::to_string(&tagged).unwrap_or_default()
}

/// The `events.k8s.io/v1` JSON of a core `v1` Event's JSON (an answer the core routes wrote);
/// `None` if `core` is not an Event.
pub fn encode_core_json(core: &Value) -> Option<String> {
    if core.get("kind").and_then(Value::as_str) != Some("Event")
        || core.get("apiVersion").and_then(Value::as_str) != Some("v1")
    {
        return None;
    }
    serde_json::from_value::<Event>(core.clone())
        .ok()
        .map(|e| encode(&e))
}

/// A request body in `events.k8s.io/v1` as the internal Event, checked as the real decoder
/// checks it: another `apiVersion` (the core `v1` one included) or `kind` is refused, missing
/// ones default to the URL's; fields this version does not have (`message`) are dropped.
pub fn decode(mut value: Value) -> Result<Event, Status> {
    let cannot = |detail: &str| {
        Status::bad_request(&format!(
            "Event in version \"v1\" cannot be handled as a Event: {detail}"
        ))
    };
    let map = value.as_object_mut().ok_or_else(|| {
        cannot("json: cannot unmarshal non-object into Go value of type v1.Event")
    })?;
    let version = map.remove("apiVersion");
    let version = version
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or(API_VERSION);
    if version != API_VERSION {
        return Err(Status::bad_request(&format!(
            "the API version in the data ({version}) does not match the expected API version ({API_VERSION})"
        )));
    }
    let kind = map.remove("kind");
    let kind = kind.as_ref().and_then(Value::as_str).unwrap_or("Event");
    if kind != "Event" {
        return Err(Status::bad_request(&format!(
            "{kind} in version \"v1\" cannot be handled as a Event: the object provided is unrecognized (must be of type Event)"
        )));
    }
    serde_json::from_value::<EventV1>(value)
        .map(into_core)
        .map_err(|e| cannot(&e.to_string()))
}

/// A partial `events.k8s.io/v1` Event (a server-side apply configuration) with the core names:
/// each field renamed, those only the core version has dropped (unknown here), the rest kept.
pub fn rename_to_core(value: &Value) -> Value {
    let Some(map) = value.as_object() else {
        return value.clone();
    };
    let core_only = |k: &str| RENAMED.iter().any(|(_, core)| *core == k);
    let out = map
        .iter()
        .filter_map(|(k, v)| {
            let renamed = RENAMED.iter().find(|(v1, _)| v1 == k).map(|(_, c)| *c);
            match renamed {
                Some(core) => Some((core.to_string(), v.clone())),
                None if SAME.contains(&k.as_str()) => Some((k.clone(), v.clone())),
                None if core_only(k) => None,
                None => Some((k.clone(), v.clone())),
            }
        })
        .collect();
    Value::Object(out)
}

/// `AddFieldLabelConversionsForEvent` (events/v1): a selector's label in the core fields the
/// watch cache and the store match on; `field label not supported: x` for any other.
pub fn field_label(label: &str, value: &str) -> Result<(String, String), String> {
    let core = match label {
        "metadata.name" | "metadata.namespace" | "reason" | "source" | "type" => label,
        "reportingController" => "reportingComponent",
        _ => match label.strip_prefix("regarding.") {
            Some(
                field @ ("kind" | "namespace" | "name" | "uid" | "apiVersion" | "resourceVersion"
                | "fieldPath"),
            ) => return Ok((format!("involvedObject.{field}"), value.to_string())),
            _ => return Err(format!("field label not supported: {label}")),
        },
    };
    Ok((core.to_string(), value.to_string()))
}

/// `ValidateEventCreate` for a request in `events.k8s.io/v1`: what every Event passes, then
/// what only this version asks, an `eventTime`, a `type` of `Normal` or `Warning`, a valid
/// series, and none of the deprecated fields. Paths are the internal type's.
pub fn validate_create(e: &Event) -> Vec<FieldError> {
    let mut errs = legacy_validate(e);
    errs.extend(validate_series(e));
    if e.event_time.is_none() {
        errs.push(FieldError::required("eventTime", ""));
    }
    if e.type_ != "Normal" && e.type_ != "Warning" {
        errs.push(FieldError::invalid(
            "type",
            "",
            &format!("has invalid value: {}", e.type_),
        ));
    }
    let unset = |field: &str| FieldError::invalid(field, "", "needs to be unset");
    if e.first_timestamp.is_some() {
        errs.push(unset("firstTimestamp"));
    }
    if e.last_timestamp.is_some() {
        errs.push(unset("lastTimestamp"));
    }
    if e.count.unwrap_or(0) != 0 {
        errs.push(unset("count"));
    }
    if !e.source.component.is_empty() || !e.source.host.is_empty() {
        errs.push(unset("source"));
    }
    errs
}

/// `ValidateEventUpdate` for a request in `events.k8s.io/v1`: what every Event passes, a
/// changed series valid, and every field but the series and metadata as it was (`reason`
/// checked twice, as the real list does).
pub fn validate_update(new: &Event, old: &Event) -> Vec<FieldError> {
    let mut errs = legacy_validate(new);
    if new.series() != old.series() {
        errs.extend(validate_series(new));
    }
    let mut immutable = |field: &str, changed: bool, value: BadValue| {
        if changed {
            errs.push(FieldError::invalid(field, value, "field is immutable"));
        }
    };
    let text = |s: &str| BadValue::Str(s.to_string());
    immutable(
        "involvedObject",
        new.involved_object != old.involved_object,
        go_reference(&new.involved_object),
    );
    immutable("reason", new.reason != old.reason, text(&new.reason));
    immutable("message", new.message != old.message, text(&new.message));
    immutable(
        "source",
        new.source != old.source,
        BadValue::Verbatim(format!(
            "core.EventSource{{Component:{:?}, Host:{:?}}}",
            &*new.source.component, &*new.source.host
        )),
    );
    immutable(
        "firstTimestamp",
        new.first_timestamp != old.first_timestamp,
        go_time(new.first_timestamp),
    );
    immutable(
        "lastTimestamp",
        new.last_timestamp != old.last_timestamp,
        go_time(new.last_timestamp),
    );
    immutable(
        "count",
        new.count.unwrap_or(0) != old.count.unwrap_or(0),
        BadValue::Int(new.count.unwrap_or(0).into()),
    );
    immutable("reason", new.reason != old.reason, text(&new.reason));
    immutable("type", new.type_ != old.type_, text(&new.type_));
    immutable(
        "eventTime",
        new.event_time != old.event_time,
        go_time(new.event_time),
    );
    immutable("action", new.action() != old.action(), text(new.action()));
    immutable(
        "related",
        new.related() != old.related(),
        match new.related() {
            Some(r) => go_reference(r),
            None => BadValue::Verbatim("null".into()),
        },
    );
    immutable(
        "reportingController",
        new.reporting_component != old.reporting_component,
        text(&new.reporting_component),
    );
    immutable(
        "reportingInstance",
        new.reporting_instance != old.reporting_instance,
        text(&new.reporting_instance),
    );
    errs
}

/// `validateV1EventSeries`.
fn validate_series(e: &Event) -> Vec<FieldError> {
    let Some(series) = e.series() else {
        return Vec::new();
    };
    let mut errs = Vec::new();
    if series.count < 2 {
        errs.push(FieldError::invalid(
            "series.count",
            "",
            "should be at least 2",
        ));
    }
    if series.last_observed_time.is_none() {
        errs.push(FieldError::required("series.lastObservedTime", ""));
    }
    errs
}

/// Go's `%#v` of a `core.ObjectReference`, as a field error prints a struct.
fn go_reference(r: &ObjectReference) -> BadValue {
    BadValue::Verbatim(format!(
        "core.ObjectReference{{Kind:{:?}, Namespace:{:?}, Name:{:?}, UID:{:?}, APIVersion:{:?}, ResourceVersion:{:?}, FieldPath:{:?}}}",
        &*r.kind, r.namespace, r.name, r.uid, &*r.api_version, r.resource_version, r.field_path
    ))
}

/// A time as a field error prints it (Go's `Time.String()`): `2026-01-01 00:00:05 +0000 UTC`,
/// the zero time for an unset one.
fn go_time(t: Option<Timestamp>) -> BadValue {
    let text = match t {
        None => "0001-01-01 00:00:00 +0000 UTC".to_string(),
        Some(t) => {
            let rfc = t.to_rfc3339();
            let base = rfc.strip_suffix('Z').unwrap_or(&rfc).replacen('T', " ", 1);
            let millis = t.as_millis() % 1000;
            let fraction = if millis == 0 {
                String::new()
            } else {
                format!(".{millis:03}").trim_end_matches('0').to_string()
            };
            format!("{base}{fraction} +0000 UTC")
        }
    };
    BadValue::Verbatim(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn core_event() -> Event {
        serde_json::from_value(json!({
            "metadata": {"name": "web.1", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web"},
            "reason": "Started", "message": "Started container web",
            "source": {"component": "kubelet", "host": "node-a"},
            "firstTimestamp": "2026-01-01T00:00:05Z", "lastTimestamp": "2026-01-01T00:00:07Z",
            "count": 2, "type": "Normal",
            "eventTime": "2026-01-01T00:00:05.250000Z",
            "series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:07.000000Z"},
            "action": "Starting", "related": {"kind": "Node", "name": "node-a"},
            "reportingComponent": "kubelet", "reportingInstance": "node-a"
        }))
        .expect("a core event")
    }

    /// Every field lands on its renamed counterpart, and back.
    #[test]
    fn conversion_renames_each_field_and_round_trips() {
        let e = core_event();
        let v1: Value = serde_json::from_str(&encode(&e)).expect("JSON");
        assert_eq!(v1["apiVersion"], "events.k8s.io/v1");
        assert_eq!(v1["regarding"]["name"], "web");
        assert_eq!(v1["note"], "Started container web");
        assert_eq!(v1["reportingController"], "kubelet");
        assert_eq!(v1["reportingInstance"], "node-a");
        assert_eq!(
            v1["deprecatedSource"],
            json!({"component": "kubelet", "host": "node-a"})
        );
        assert_eq!(v1["deprecatedFirstTimestamp"], "2026-01-01T00:00:05Z");
        assert_eq!(v1["deprecatedLastTimestamp"], "2026-01-01T00:00:07Z");
        assert_eq!(v1["deprecatedCount"], 2);
        assert_eq!(v1["series"]["count"], 2);
        assert_eq!(v1["related"]["kind"], "Node");
        assert_eq!(v1["action"], "Starting");
        for core_only in [
            "involvedObject",
            "message",
            "source",
            "count",
            "reportingComponent",
        ] {
            assert!(v1.get(core_only).is_none(), "{core_only}");
        }
        assert_eq!(decode(v1).expect("decodes"), e);
    }

    /// A bare new-style event prints Go's zero values: `regarding: {}`, `null` times.
    #[test]
    fn zero_values_are_written_as_go_writes_them() {
        let v1: Value = serde_json::from_str(&encode(&Event::default())).expect("JSON");
        assert_eq!(v1["regarding"], json!({}));
        assert_eq!(v1["deprecatedSource"], json!({}));
        assert_eq!(v1["eventTime"], Value::Null);
        assert_eq!(v1["deprecatedFirstTimestamp"], Value::Null);
        assert!(v1.get("deprecatedCount").is_none() && v1.get("note").is_none());
        let text = encode(&Event::default());
        assert!(text.starts_with(r#"{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata""#));
    }

    #[test]
    fn decode_refuses_other_versions_and_drops_core_names() {
        let e = decode(json!({"message": "core name", "note": "v1 name"})).expect("decodes");
        assert_eq!(&*e.message, "v1 name");
        let err = decode(json!({"apiVersion": "v1", "kind": "Event"})).expect_err("core version");
        assert_eq!(
            err.message,
            "the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)"
        );
        let err = decode(json!({"kind": "Pod"})).expect_err("another kind");
        assert!(err
            .message
            .starts_with("Pod in version \"v1\" cannot be handled as a Event"));
    }

    #[test]
    fn apply_configurations_are_renamed_field_by_field() {
        let renamed = rename_to_core(&json!({
            "apiVersion": "events.k8s.io/v1", "note": "n", "regarding": {"name": "web"},
            "message": "unknown in v1", "unknownField": 1
        }));
        assert_eq!(
            renamed,
            json!({"apiVersion": "events.k8s.io/v1", "message": "n",
                   "involvedObject": {"name": "web"}, "unknownField": 1})
        );
    }

    #[test]
    fn field_labels_map_onto_the_core_ones() {
        let ok = |l: &str| field_label(l, "x").map(|(f, _)| f);
        assert_eq!(ok("regarding.name").as_deref(), Ok("involvedObject.name"));
        assert_eq!(
            ok("reportingController").as_deref(),
            Ok("reportingComponent")
        );
        assert_eq!(ok("source").as_deref(), Ok("source"));
        assert_eq!(ok("type").as_deref(), Ok("type"));
        assert_eq!(
            ok("involvedObject.name"),
            Err("field label not supported: involvedObject.name".to_string())
        );
        for label in RESOURCE.field_labels {
            assert!(field_label(label, "x").is_ok(), "{label}");
        }
    }

    #[test]
    fn creation_through_v1_is_strict() {
        let mut e = core_event();
        let fields = |errs: Vec<FieldError>| errs.into_iter().map(|e| e.field).collect::<Vec<_>>();
        assert_eq!(
            fields(validate_create(&e)),
            ["firstTimestamp", "lastTimestamp", "count", "source"]
        );
        e.first_timestamp = None;
        e.last_timestamp = None;
        e.count = None;
        e.source = EventSource::default();
        assert!(validate_create(&e).is_empty());
        e.event_time = None;
        e.type_ = "Sometimes".into();
        e.set_extension(EventExtension {
            series: Some(EventSeries {
                count: 1,
                last_observed_time: None,
            }),
            ..EventExtension::default()
        });
        assert_eq!(
            fields(validate_create(&e)),
            [
                "series.count",
                "series.lastObservedTime",
                "eventTime",
                "type"
            ]
        );
        let mut bare = core_event();
        bare.reporting_component = "".into();
        bare.extension = None;
        let errs = fields(legacy_validate(&bare));
        assert_eq!(errs[0], "reportingController");
        assert!(errs.contains(&"action".to_string()));
    }

    #[test]
    fn updates_through_v1_keep_everything_but_the_series() {
        let old = core_event();
        let mut new = old.clone();
        let mut ext = EventExtension::clone(old.extension.as_deref().expect("extension"));
        ext.series = Some(EventSeries {
            count: 3,
            last_observed_time: Some(Timestamp::from_millis(9_000)),
        });
        new.set_extension(ext);
        assert!(validate_update(&new, &old).is_empty());
        new.message = "changed".into();
        new.reason = "Other".into();
        let errs = validate_update(&new, &old);
        let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["reason", "message", "reason"]);
        assert_eq!(
            errs[1].to_string(),
            "message: Invalid value: \"changed\": field is immutable"
        );
        assert_eq!(
            go_time(Some(Timestamp::from_millis(5_250))).to_string(),
            "2026-01-01 00:00:05.25 +0000 UTC"
        );
    }
}
