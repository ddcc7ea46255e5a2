//! `events` (core/v1): what components report about objects, written with a lease of
//! `--event-ttl` so the store forgets them.

use crate::api::resource::{ResourceInfo, Rules};
use crate::api::{Event, Object};
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
    printer_columns: &[],
    rules: &EventRules,
};

struct EventRules;

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
            "involvedObject.kind" => io.kind.clone(),
            "involvedObject.namespace" => io.namespace.clone(),
            "involvedObject.name" => io.name.clone(),
            "involvedObject.uid" => io.uid.clone(),
            "involvedObject.apiVersion" => io.api_version.clone(),
            "involvedObject.resourceVersion" => io.resource_version.clone(),
            "involvedObject.fieldPath" => io.field_path.clone(),
            "reason" => e.reason.clone(),
            "reportingComponent" => e.reporting_component.clone(),
            "source" => e.source.component.clone(),
            "type" => e.type_.clone(),
            _ => return None,
        })
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        let Some(e) = event(obj) else {
            return Vec::new();
        };
        let ns = &e.involved_object.namespace;
        if !ns.is_empty() && *ns != e.metadata.namespace {
            return vec![FieldError::invalid(
                "involvedObject.namespace",
                ns,
                "does not match event.namespace",
            )];
        }
        Vec::new()
    }

    fn spec_changed(&self, _new: &Object, _old: &Object) -> bool {
        false
    }
}
