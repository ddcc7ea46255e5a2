//! Core `v1.Event`: what `kubectl get events` and `kubectl describe` show. Stored with an etcd
//! lease of at least an hour (kube-apiserver `--event-ttl` default 1h, plus up to the 60 s for
//! which the apiserver reuses a lease), so old events vanish.

use super::meta::{ObjectMeta, ObjectReference, Term};
use super::time;
use crate::clock::Timestamp;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Shared: it keeps an `Event` no larger than a `Pod` in the [`super::Object`] enum, so
    /// that every stored object version is that much smaller, and a recorder's events about
    /// one version of one object (a kubelet's `Pulled`, `Created`, `Started`) hold one copy.
    #[serde(default)]
    pub involved_object: Arc<ObjectReference>,
    /// Terms (reason, type, components): the recorders' literals, borrowed in each of the
    /// hundreds of thousands of Events a large cluster keeps rather than allocated.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub reason: Term,
    /// Shared: a recorder's events about the pods of one template say the same things
    /// (`Created container: web`), and it keeps one of each message it has written.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub message: Arc<str>,
    #[serde(default)]
    pub source: EventSource,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub first_timestamp: Option<Timestamp>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::rfc3339"
    )]
    pub last_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// `Normal` or `Warning`.
    #[serde(default, rename = "type", skip_serializing_if = "str::is_empty")]
    pub type_: Term,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::micro_time"
    )]
    pub event_time: Option<Timestamp>,
    /// `series`, `action` and `related`, in one box: only events written through
    /// `events.k8s.io/v1` have them, and the box keeps an `Event` no larger than a `Pod`.
    #[serde(flatten, deserialize_with = "unless_empty")]
    pub extension: Option<Box<EventExtension>>,
    /// The internal `ReportingController` (`reportingController` in `events.k8s.io/v1`).
    #[serde(default)]
    pub reporting_component: Term,
    /// Shared with `source.host` (one allocation of a kubelet's node name for all its events).
    #[serde(default)]
    pub reporting_instance: Arc<str>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSource {
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub component: Term,
    /// Shared: a recorder's events all name its host, as `reportingInstance` does.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub host: Arc<str>,
}

/// The fields of an Event that the core recorders leave empty and client-go's new recorder
/// (`events.k8s.io/v1`) writes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventExtension {
    /// How often an event that repeats was seen, and when last (the core recorders count in
    /// `count` and `lastTimestamp` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<EventSeries>,
    /// What was done (or failed) about the involved object.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub action: Term,
    /// A second object the event is about (the node a pod was scheduled to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related: Option<ObjectReference>,
}

/// No box for an Event without any of the extension's fields.
fn unless_empty<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Box<EventExtension>>, D::Error> {
    let ext = EventExtension::deserialize(d)?;
    Ok((ext != EventExtension::default()).then(|| Box::new(ext)))
}

impl Event {
    pub fn series(&self) -> Option<&EventSeries> {
        self.extension.as_ref().and_then(|x| x.series.as_ref())
    }

    pub fn action(&self) -> &str {
        self.extension.as_ref().map_or("", |x| &x.action)
    }

    pub fn related(&self) -> Option<&ObjectReference> {
        self.extension.as_ref().and_then(|x| x.related.as_ref())
    }

    /// Sets the extension's fields, boxed only if any is set.
    pub fn set_extension(&mut self, ext: EventExtension) {
        self.extension = (ext != EventExtension::default()).then(|| Box::new(ext));
    }
}

/// `v1.EventSeries` (the same in `events.k8s.io/v1`): how often an event was seen and when last.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSeries {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub count: i32,
    /// Go writes a zero `MicroTime` as `null`.
    #[serde(default, with = "time::micro_time")]
    pub last_observed_time: Option<Timestamp>,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}
