//! Kubernetes Events as every component records them (client-go's `record.EventRecorder` +
//! `EventCorrelator`): a core v1 Event about an involved object, with its source, written
//! through the API. A repeat of the same event (same involved object, type, reason, message and
//! source) within 10 minutes PATCHes `count`+1 and `lastTimestamp` instead of creating a new
//! one — what `kubectl get events` shows as `x3 over 2m`. Writes that fail (the store is
//! unwritable) stay pending and are retried on later steps, up to client-go's 12 attempts.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::api::event::EventSource;
use crate::api::meta::ObjectReference;
use crate::api::{Event, Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::clock::{Timestamp, EPOCH_UNIX_SECONDS};
use serde_json::json;
use watchlab_apimachinery::status::StatusReason;

/// client-go `defaultAggregateIntervalInSeconds`-style window of the dedup cache (10 min).
pub const CORRELATION_WINDOW_MS: u64 = 10 * 60_000;
/// client-go `maxTriesPerEvent`.
pub const MAX_TRIES_PER_EVENT: u32 = 12;
/// Entries of the dedup cache (client-go `maxLruCacheEntries` = 4096).
const MAX_CACHE_ENTRIES: usize = 4096;

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// What makes two events "the same" for the correlator.
type DedupKey = (String, String, String, EventType, String, String);

#[derive(Debug, Clone)]
struct Seen {
    namespace: String,
    name: String,
    count: i32,
    last: Timestamp,
}

/// One event waiting to be written.
#[derive(Debug, Clone)]
struct Pending {
    involved: ObjectReference,
    event_type: EventType,
    reason: String,
    message: String,
    at: Timestamp,
    tries: u32,
}

/// A component's event recorder.
#[derive(Debug)]
pub struct EventRecorder {
    user: String,
    source: EventSource,
    seen: BTreeMap<DedupKey, Seen>,
    pending: VecDeque<Pending>,
    /// Events given up after [`MAX_TRIES_PER_EVENT`] failed writes.
    dropped: u64,
}

/// `v1.ObjectReference` of a stored object (`reference.GetReference`).
pub fn reference_of(obj: &Object) -> ObjectReference {
    let r = obj.kind().resource();
    let m = obj.meta();
    ObjectReference {
        kind: r.kind_name.to_string(),
        namespace: m.namespace.clone(),
        name: m.name.clone(),
        uid: m.uid.clone(),
        api_version: r.api_version.to_string(),
        resource_version: m.resource_version.clone(),
        field_path: String::new(),
    }
}

impl EventRecorder {
    /// A recorder writing as `user` with source `{component, host}` (host empty for
    /// controllers, the node name for kubelets).
    pub fn new(user: &str, component: &str, host: &str) -> Self {
        EventRecorder {
            user: user.to_string(),
            source: EventSource {
                component: component.to_string(),
                host: host.to_string(),
            },
            seen: BTreeMap::new(),
            pending: VecDeque::new(),
            dropped: 0,
        }
    }

    pub fn source(&self) -> &EventSource {
        &self.source
    }

    /// Events not yet written.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Records an event about `obj` and tries to write it (and any earlier pending ones) now.
    pub fn record(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        obj: &Object,
        event_type: EventType,
        reason: &str,
        message: &str,
    ) {
        self.pending.push_back(Pending {
            involved: reference_of(obj),
            event_type,
            reason: reason.to_string(),
            message: message.to_string(),
            at: now,
            tries: 0,
        });
        self.flush(api, now);
    }

    /// Writes pending events in order; stops at the first failure (the store is unwritable:
    /// the rest would fail too) and keeps it for the next call.
    pub fn flush(&mut self, api: &mut ApiServer, now: Timestamp) {
        while let Some(mut p) = self.pending.pop_front() {
            if self.write(api, now, &p) {
                continue;
            }
            p.tries += 1;
            if p.tries >= MAX_TRIES_PER_EVENT {
                self.dropped += 1;
            } else {
                self.pending.push_front(p);
            }
            return;
        }
    }

    fn write(&mut self, api: &mut ApiServer, now: Timestamp, p: &Pending) -> bool {
        let key: DedupKey = (
            p.involved.kind.clone(),
            p.involved.namespace.clone(),
            p.involved.name.clone(),
            p.event_type,
            p.reason.clone(),
            p.message.clone(),
        );
        if let Some(seen) = self.seen.get(&key).cloned() {
            if p.at.millis_since(seen.last) <= CORRELATION_WINDOW_MS {
                let count = seen.count + 1;
                let patch = json!({"count": count, "lastTimestamp": p.at.to_rfc3339()});
                let ns = Some(seen.namespace.as_str());
                match api.merge_patch(&self.user, Kind::Event, ns, &seen.name, &patch, false) {
                    Ok(_) => {
                        self.seen.insert(
                            key,
                            Seen {
                                count,
                                last: p.at,
                                ..seen
                            },
                        );
                        return true;
                    }
                    // Expired (event TTL) or deleted: fall through and create a new one.
                    Err(s) if s.reason() == StatusReason::NotFound => {}
                    Err(_) => return false,
                }
            }
        }
        let namespace = if p.involved.namespace.is_empty() {
            // Events about cluster-scoped objects go to `default` (metav1.NamespaceDefault).
            "default".to_string()
        } else {
            p.involved.namespace.clone()
        };
        // `<object-name>.<UnixNano in hex>`; same-millisecond events get the next nanosecond.
        let mut nanos = unix_nanos(p.at);
        for _ in 0..16 {
            let name = format!("{}.{nanos:x}", p.involved.name);
            let event = Event {
                metadata: ObjectMeta::named(&namespace, &name),
                involved_object: p.involved.clone(),
                reason: p.reason.clone(),
                message: p.message.clone(),
                source: self.source.clone(),
                first_timestamp: Some(whole_second(p.at)),
                last_timestamp: Some(whole_second(p.at)),
                count: Some(1),
                type_: p.event_type.as_str().to_string(),
                event_time: None,
                reporting_component: self.source.component.clone(),
                reporting_instance: self.source.host.clone(),
            };
            match api.create(&self.user, Object::Event(event)) {
                Ok(created) => {
                    self.remember(key, &created, p.at);
                    return true;
                }
                Err(s) if s.reason() == StatusReason::AlreadyExists => nanos += 1,
                Err(_) => return false,
            }
        }
        let _ = now;
        false
    }

    fn remember(&mut self, key: DedupKey, created: &Arc<Object>, at: Timestamp) {
        if self.seen.len() >= MAX_CACHE_ENTRIES {
            // Evict the stalest entry (an LRU in client-go).
            if let Some(oldest) = self
                .seen
                .iter()
                .min_by_key(|(_, s)| s.last)
                .map(|(k, _)| k.clone())
            {
                self.seen.remove(&oldest);
            }
        }
        self.seen.insert(
            key,
            Seen {
                namespace: created.namespace().to_string(),
                name: created.name().to_string(),
                count: 1,
                last: at,
            },
        );
    }
}

/// `t` cut to its second: what `metav1.Time` keeps (it serializes, and is stored, in whole
/// seconds). An Event written with milliseconds would see its firstTimestamp move back when a
/// repeat's merge patch round-trips it through JSON.
fn whole_second(t: Timestamp) -> Timestamp {
    Timestamp::from_secs(t.as_millis() / 1000)
}

/// Nanoseconds since the Unix epoch of a virtual time.
pub fn unix_nanos(t: Timestamp) -> u64 {
    EPOCH_UNIX_SECONDS
        .saturating_mul(1_000_000_000)
        .saturating_add(t.as_millis().saturating_mul(1_000_000))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Namespace;

    fn events(api: &ApiServer) -> Vec<Event> {
        api.list(Kind::Event, None, &Default::default())
            .map(|l| {
                l.items
                    .iter()
                    .filter_map(|o| match &**o {
                        Object::Event(e) => Some(e.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn repeats_within_the_window_bump_count_and_last_timestamp() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("kube-scheduler", "default-scheduler", "");
        let t0 = Timestamp::from_secs(10);
        rec.record(
            &mut api,
            t0,
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "m",
        );
        rec.record(
            &mut api,
            t0.plus_secs(5),
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "m",
        );
        rec.record(
            &mut api,
            t0.plus_secs(6),
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "other",
        );
        let evs = events(&api);
        assert_eq!(evs.len(), 2);
        let first = evs.iter().find(|e| e.message == "m").unwrap();
        assert_eq!(first.count, Some(2));
        assert_eq!(first.first_timestamp, Some(t0));
        assert_eq!(first.last_timestamp, Some(t0.plus_secs(5)));
        assert_eq!(first.metadata.name, format!("default.{:x}", unix_nanos(t0)));
        assert_eq!(first.source.component, "default-scheduler");
        assert_eq!(first.involved_object.kind, "Namespace");
        // After the window, a new event object.
        rec.record(
            &mut api,
            t0.plus_secs(700),
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "m",
        );
        assert_eq!(events(&api).len(), 3);
    }

    /// Found by the simulation: an Event first written at 85.396 s had its firstTimestamp
    /// turned into 85 s by the count bump's merge patch (JSON carries whole seconds).
    #[test]
    fn a_repeat_keeps_first_timestamp_and_moves_last_timestamp_forward() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("kube-scheduler", "default-scheduler", "");
        let t0 = Timestamp(85_396);
        rec.record(
            &mut api,
            t0,
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "m",
        );
        let before = events(&api);
        rec.record(
            &mut api,
            Timestamp(86_250),
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "m",
        );
        let after = events(&api);
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].count, Some(2));
        assert_eq!(after[0].first_timestamp, before[0].first_timestamp);
        assert_eq!(after[0].first_timestamp, Some(Timestamp(85_000)));
        assert_eq!(after[0].last_timestamp, Some(Timestamp(86_000)));
        // The name still tells the two apart by the millisecond.
        assert_eq!(
            after[0].metadata.name,
            format!("default.{:x}", unix_nanos(t0))
        );
    }

    #[test]
    fn same_millisecond_events_get_distinct_names() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("kubelet/node-a", "kubelet", "node-a");
        let t = Timestamp::from_secs(3);
        rec.record(&mut api, t, &ns, EventType::Normal, "Pulled", "a");
        rec.record(&mut api, t, &ns, EventType::Normal, "Created", "b");
        let names: Vec<String> = events(&api).into_iter().map(|e| e.metadata.name).collect();
        assert_eq!(names.len(), 2);
        assert_ne!(names[0], names[1]);
    }

    #[test]
    fn failed_writes_stay_pending_until_the_store_is_writable() {
        let mut api = ApiServer::new(1);
        let ns = Object::Namespace(Namespace {
            metadata: ObjectMeta::named("", "default"),
            ..Default::default()
        });
        let mut rec = EventRecorder::new("node-controller", "node-controller", "");
        api.set_store_writable(false);
        rec.record(
            &mut api,
            Timestamp(1),
            &ns,
            EventType::Normal,
            "NodeNotReady",
            "x",
        );
        assert_eq!(rec.pending(), 1);
        assert!(events(&api).is_empty());
        api.set_store_writable(true);
        rec.flush(&mut api, Timestamp(2));
        assert_eq!(rec.pending(), 0);
        assert_eq!(events(&api).len(), 1);
    }
}
