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
