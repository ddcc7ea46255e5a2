//! Kubernetes Events as every component records them (client-go's `record.EventRecorder` +
//! `EventCorrelator`): a core v1 Event about an involved object, with its source, written
//! through the API. A repeat of the same event (same involved object, type, reason, message and
//! source) within 10 minutes PATCHes `count`+1 and `lastTimestamp` instead of creating a new
//! one — what `kubectl get events` shows as `x3 over 2m`. Like the real correlator it also
//! aggregates: from the 10th distinct message with the same object, type and reason within
//! 10 minutes, the events become one "(combined from similar events): ..." Event whose count
//! grows, so a ReplicaSet creating 3,000 pods leaves ten Events, not 3,000; and its spam filter
//! ([`super::event_spam`]) writes at most 25 events about one object from one source, then one
//! per 5 minutes, so that combined Event's count stops at 16. Its caches are LRUs of 4,096
//! entries. Writes that fail (the store is unwritable) stay pending and are retried
//! every 10 s of virtual time, up to client-go's 12 attempts; the owning component wakes for
//! the retry ([`EventRecorder::next_retry`]), so how often a driver steps the cluster in
//! between changes nothing. The API server expires every Event after
//! `--event-ttl` (1 h).

use std::collections::VecDeque;
use std::sync::Arc;

use super::event_spam::SpamFilter;
use super::lru::{Lru, MAX_CACHE_ENTRIES};
use crate::api::event::EventSource;
use crate::api::meta::{ObjectReference, Term};
use crate::api::shared::Interner;
use crate::api::{Event, Kind, Object, ObjectMeta};
use crate::apiserver::patch::PatchTarget;
use crate::apiserver::ApiServer;
use crate::clock::{Timestamp, EPOCH_UNIX_SECONDS};
use crate::hash::{fnv1a64, hash128_joined};
use watchlab_apimachinery::status::StatusReason;

/// client-go `defaultAggregateIntervalInSeconds`-style window of the dedup cache (10 min).
pub const CORRELATION_WINDOW_MS: u64 = 10 * 60_000;
/// client-go `maxTriesPerEvent`.
pub const MAX_TRIES_PER_EVENT: u32 = 12;
/// client-go's `recordToSink` sleeps 10 s between tries (its first sleep is a random part of
/// that; here always the whole, so that a replay retries at the same instants).
pub const RETRY_INTERVAL_MS: u64 = 10_000;
/// client-go `defaultAggregateMaxEvents`: distinct messages before they are combined.
pub const AGGREGATE_MAX_EVENTS: usize = 10;
/// client-go `defaultAggregateIntervalInSeconds` (600 s).
pub const AGGREGATE_INTERVAL_MS: u64 = 600_000;
/// client-go `EventAggregatorByReasonMessageFunc`'s prefix.
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

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

/// What makes two events "the same" for the correlator (client-go `getEventKey`): involved
/// kind, namespace, name, type, reason and message (none for a combined event: its message
/// changes with each repeat). client-go keeps the joined string; this keeps its 128-bit hash
/// ([`hash128_joined`]; two different events share one with odds of about 2^-128 per pair):
/// 16 bytes an entry where the string was a copy of every part and the
/// message (at 150,000 pods, 600,000 events in the kubelets' caches).
type DedupKey = u128;
/// The aggregator's key (client-go `EventAggregatorByReasonFunc`): the involved object (kind,
/// namespace, name, uid), type and reason, hashed the same way.
type AggregateKey = u128;

/// The distinct messages seen lately under one aggregate key, by their 64-bit FNV-1a hash
/// (client-go keeps the strings in a set; at most ten are held, nearly always one, and a list
/// of hashes is a few bytes where a set of strings was a tree node and a copy of the message).
#[derive(Debug, Clone)]
struct Aggregate {
    messages: Vec<u64>,
    last: Timestamp,
}

/// The event written for a dedup key (client-go's `eventLog`, which keeps its name): the
/// name is `<involved name>.<nanos in hex>` in the namespace [`event_namespace`] gives, and
/// the key holds the involved name and namespace, so the nanoseconds alone find it again
/// (where two strings were copies of what the Event object holds anyway).
#[derive(Debug, Clone)]
struct Seen {
    nanos: u64,
    count: i32,
    last: Timestamp,
}

/// One event waiting to be written.
#[derive(Debug, Clone)]
struct Pending {
    involved: Arc<ObjectReference>,
    event_type: EventType,
    reason: &'static str,
    message: Arc<str>,
    /// Written as the aggregate of similar events.
    combined: bool,
    at: Timestamp,
    tries: u32,
}

/// A component's event recorder.
#[derive(Debug)]
pub struct EventRecorder {
    user: String,
    source: EventSource,
    seen: Lru<DedupKey, Seen>,
    aggregates: Lru<AggregateKey, Aggregate>,
    spam: SpamFilter,
    pending: VecDeque<Pending>,
    /// When the first pending event may be tried again (after a failed write).
    retry_at: Option<Timestamp>,
    /// Events given up after [`MAX_TRIES_PER_EVENT`] failed writes.
    dropped: u64,
    /// The UnixNano of the last Event this recorder named: the next name takes a later one, as
    /// wall-clock nanoseconds would be, so events of one millisecond (a kubelet's `Pulled`,
    /// `Created` and `Started`) do not collide on a name.
    last_nanos: u64,
    /// The reference of the last event recorded, which the next one about the same version of
    /// the same object shares (a kubelet's `Pulled`, `Created` and `Started` of one pod).
    last_reference: Option<Arc<ObjectReference>>,
    /// One of each message this recorder wrote, which its events share ([`Interner`]).
    messages: Interner<Arc<str>>,
}

/// `v1.ObjectReference` of a stored object (`reference.GetReference`).
pub fn reference_of(obj: &Object) -> ObjectReference {
    let r = obj.kind().resource();
    let m = obj.meta();
    ObjectReference {
        kind: Term::Borrowed(r.kind_name),
        namespace: m.namespace.clone(),
        name: m.name.clone(),
        uid: m.uid.clone(),
        api_version: Term::Borrowed(r.api_version),
        resource_version: m.resource_version.clone(),
        field_path: String::new(),
    }
}

impl EventRecorder {
    /// A recorder writing as `user` with source `{component, host}` (host empty for
    /// controllers, the node name for kubelets).
    pub fn new(user: &str, component: &'static str, host: &str) -> Self {
        EventRecorder {
            user: user.to_string(),
            source: EventSource {
                component: Term::Borrowed(component),
                host: Arc::from(host),
            },
            seen: Lru::new(MAX_CACHE_ENTRIES),
            aggregates: Lru::new(MAX_CACHE_ENTRIES),
            spam: SpamFilter::default(),
            pending: VecDeque::new(),
            retry_at: None,
            dropped: 0,
            last_nanos: 0,
            last_reference: None,
            messages: Interner::default(),
        }
    }

    pub fn source(&self) -> &EventSource {
        &self.source
    }

    /// Events not yet written.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// When the owning component must step again to retry a failed write (None: nothing waits).
    pub fn next_retry(&self) -> Option<Timestamp> {
        if self.pending.is_empty() {
            None
        } else {
            self.retry_at
        }
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Events the spam filter kept from being written.
    pub fn filtered(&self) -> u64 {
        self.spam.filtered()
    }

    /// Records an event about `obj` and tries to write it (and any earlier pending ones) now,
    /// unless the spam filter drops it (as client-go's correlator does, after aggregating).
    pub fn record(
        &mut self,
        api: &mut ApiServer,
        now: Timestamp,
        obj: &Object,
        event_type: EventType,
        reason: &'static str,
        message: &str,
    ) {
        let involved = self.reference(obj);
        let combined = self.aggregate(&involved, event_type, reason, message, now);
        let spam_key = hash128_joined(&[
            &self.source.component,
            &self.source.host,
            &involved.kind,
            &involved.namespace,
            &involved.name,
            &involved.uid,
            &involved.api_version,
        ]);
        if !self.spam.allow(spam_key, now) {
            self.flush(api, now);
            return;
        }
        let message = if combined {
            self.messages.text(&format!("{COMBINED_PREFIX}{message}"))
        } else {
            self.messages.text(message)
        };
        self.pending.push_back(Pending {
            message,
            involved,
            event_type,
            reason,
            combined,
            at: now,
            tries: 0,
        });
        self.flush(api, now);
    }

    /// The reference to `obj`: the last event's when it names the same version of the same
    /// object, so those events share it, else a new one.
    fn reference(&mut self, obj: &Object) -> Arc<ObjectReference> {
        let m = obj.meta();
        let same = |r: &&Arc<ObjectReference>| {
            r.uid == m.uid
                && r.resource_version == m.resource_version
                && r.name == m.name
                && r.namespace == m.namespace
                && r.kind == obj.kind().resource().kind_name
        };
        if let Some(r) = self.last_reference.as_ref().filter(same) {
            return r.clone();
        }
        let r = Arc::new(reference_of(obj));
        self.last_reference = Some(r.clone());
        r
    }

    /// `EventAggregator.EventAggregate`: true once this is the 10th distinct message about the
    /// object with this type and reason, each within 10 minutes of the previous one.
    fn aggregate(
        &mut self,
        involved: &ObjectReference,
        event_type: EventType,
        reason: &str,
        message: &str,
        now: Timestamp,
    ) -> bool {
        let key: AggregateKey = hash128_joined(&[
            &involved.kind,
            &involved.namespace,
            &involved.name,
            &involved.uid,
            event_type.as_str(),
            reason,
        ]);
        let recent = self
            .aggregates
            .get_mut(&key)
            .is_some_and(|a| now.millis_since(a.last) <= AGGREGATE_INTERVAL_MS);
        if !recent {
            let fresh = Aggregate {
                messages: Vec::new(),
                last: now,
            };
            self.aggregates.put(key, fresh);
        }
        let Some(record) = self.aggregates.get_mut(&key) else {
            return false;
        };
        let hash = fnv1a64(message.as_bytes());
        if !record.messages.contains(&hash) {
            // Room for one more, not the four a first `push` reserves: nearly every key sees
            // one message (a pod's Pulled, Created, Started are three keys).
            record.messages.reserve_exact(1);
            record.messages.push(hash);
        }
        record.last = now;
        let combined = record.messages.len() >= AGGREGATE_MAX_EVENTS;
        if combined {
            // client-go pops one (any) message, so the next new one combines again.
            record.messages.remove(0);
        }
        combined
    }

    /// Writes pending events in order, unless a failed write waits for its retry time; stops
    /// at the first failure (the store is unwritable: the rest would fail too), keeps it and
    /// tries again [`RETRY_INTERVAL_MS`] later.
    pub fn flush(&mut self, api: &mut ApiServer, now: Timestamp) {
        if self.retry_at.is_some_and(|t| now < t) {
            return;
        }
        self.retry_at = None;
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
            self.retry_at = Some(now.plus_millis(RETRY_INTERVAL_MS));
            return;
        }
    }

    fn write(&mut self, api: &mut ApiServer, now: Timestamp, p: &Pending) -> bool {
        let message = if p.combined { "" } else { &*p.message };
        let key: DedupKey = hash128_joined(&[
            &p.involved.kind,
            &p.involved.namespace,
            &p.involved.name,
            p.event_type.as_str(),
            p.reason,
            if p.combined { "combined" } else { "single" },
            message,
        ]);
        let namespace = event_namespace(&p.involved);
        if let Some(seen) = self.seen.get_mut(&key) {
            if p.at.millis_since(seen.last) <= CORRELATION_WINDOW_MS {
                let count = seen.count + 1;
                // `{"count": …, "lastTimestamp": …}` (and the combined message), as client-go's
                // recorder patches a repeat.
                let name = event_name(&p.involved, seen.nanos);
                let target = PatchTarget {
                    kind: Kind::Event,
                    namespace: Some(namespace),
                    name: &name,
                    status: false,
                };
                let repeat = |obj: &mut Object| {
                    if let Object::Event(e) = obj {
                        e.count = Some(count);
                        e.last_timestamp = Some(whole_second(p.at));
                        if p.combined {
                            e.message = p.message.clone();
                        }
                    }
                };
                match api.merge_patch_with(&self.user, target, repeat) {
                    Ok(_) => {
                        seen.count = count;
                        seen.last = p.at;
                        return true;
                    }
                    // Expired (event TTL) or deleted: fall through and create a new one.
                    Err(s) if s.reason() == StatusReason::NotFound => {}
                    Err(_) => return false,
                }
            }
        }
        // The recorder's same-millisecond events take the next nanoseconds, and a name another
        // recorder took at that instant the next free one.
        let mut nanos = unix_nanos(p.at).max(self.last_nanos + 1);
        for _ in 0..16 {
            let event = Event {
                metadata: ObjectMeta::named(namespace, &event_name(&p.involved, nanos)),
                involved_object: p.involved.clone(),
                reason: Term::Borrowed(p.reason),
                message: p.message.clone(),
                source: self.source.clone(),
                first_timestamp: Some(whole_second(p.at)),
                last_timestamp: Some(whole_second(p.at)),
                count: Some(1),
                type_: Term::Borrowed(p.event_type.as_str()),
                event_time: None,
                extension: None,
                reporting_component: self.source.component.clone(),
                reporting_instance: self.source.host.clone(),
            };
            match api.create(&self.user, Object::Event(event)) {
                Ok(_) => {
                    self.last_nanos = nanos;
                    self.seen.put(
                        key,
                        Seen {
                            nanos,
                            count: 1,
                            last: p.at,
                        },
                    );
                    return true;
                }
                Err(s) if s.reason() == StatusReason::AlreadyExists => nanos += 1,
                Err(_) => return false,
            }
        }
        let _ = now;
        false
    }
}

/// The namespace of the events about `involved`: its own, or `default` for a cluster-scoped
/// object (metav1.NamespaceDefault).
fn event_namespace(involved: &ObjectReference) -> &str {
    if involved.namespace.is_empty() {
        "default"
    } else {
        &involved.namespace
    }
}

/// An event's name: `<involved name>.<UnixNano in hex>`, as client-go's recorder makes it.
fn event_name(involved: &ObjectReference, nanos: u64) -> String {
    format!("{}.{nanos:x}", involved.name)
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
    use crate::apiserver::EtcdFault;

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
    fn events_about_one_version_of_an_object_share_its_reference() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("kubelet", "kubelet", "node-a");
        let t0 = Timestamp::from_secs(10);
        rec.record(&mut api, t0, &ns, EventType::Normal, "Pulled", "p");
        rec.record(&mut api, t0, &ns, EventType::Normal, "Created", "c");
        let patch = serde_json::json!({"metadata": {"labels": {"a": "b"}}});
        let changed = api
            .merge_patch("kubectl", Kind::Namespace, None, "default", &patch, false)
            .unwrap();
        rec.record(&mut api, t0, &changed, EventType::Normal, "Started", "s");
        let evs = events(&api);
        let by = |reason: &str| evs.iter().find(|e| e.reason == reason).unwrap();
        let (pulled, created, started) = (by("Pulled"), by("Created"), by("Started"));
        assert!(Arc::ptr_eq(
            &pulled.involved_object,
            &created.involved_object
        ));
        assert!(!Arc::ptr_eq(
            &created.involved_object,
            &started.involved_object
        ));
        assert_eq!(
            created.involved_object.resource_version,
            ns.meta().resource_version
        );
        assert_eq!(
            started.involved_object.resource_version,
            changed.meta().resource_version
        );
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
        let first = evs.iter().find(|e| &*e.message == "m").unwrap();
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

    /// A kubelet reports `Pulled`, `Created` and `Started` in one millisecond: each Event takes
    /// the next nanosecond after the recorder's last, as wall-clock names would (so none is
    /// first refused as a duplicate name); a name another recorder holds is still skipped.
    #[test]
    fn events_of_one_millisecond_take_successive_nanoseconds() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let t0 = Timestamp::from_millis(7_000);
        let mut other = EventRecorder::new("kube-scheduler", "default-scheduler", "");
        other.record(&mut api, t0, &ns, EventType::Normal, "Scheduled", "s");
        let mut rec = EventRecorder::new("kubelet/n1", "kubelet", "n1");
        let before = api.revision();
        for reason in ["Pulled", "Created", "Started"] {
            rec.record(&mut api, t0, &ns, EventType::Normal, reason, reason);
        }
        assert_eq!(api.revision(), before + 3, "three creates, no refused one");
        let name = |api: &ApiServer, reason: &str| {
            events(api)
                .into_iter()
                .find(|e| e.reason == reason)
                .map(|e| e.metadata.name)
                .unwrap()
        };
        let n0 = unix_nanos(t0);
        assert_eq!(name(&api, "Scheduled"), format!("default.{n0:x}"));
        assert_eq!(name(&api, "Pulled"), format!("default.{:x}", n0 + 1));
        assert_eq!(name(&api, "Created"), format!("default.{:x}", n0 + 2));
        assert_eq!(name(&api, "Started"), format!("default.{:x}", n0 + 3));
        // Another object in the same millisecond: still the recorder's next nanosecond (the
        // names tell the events' order, as wall-clock ones do).
        let system = api.get(Kind::Namespace, None, "kube-system").unwrap();
        rec.record(&mut api, t0, &system, EventType::Normal, "Seen", "x");
        assert_eq!(name(&api, "Seen"), format!("kube-system.{:x}", n0 + 4));
    }

    /// Found by the simulation: an Event first written at 85.396 s had its firstTimestamp
    /// turned into 85 s by the count bump's merge patch (JSON carries whole seconds).
    #[test]
    fn a_repeat_keeps_first_timestamp_and_moves_last_timestamp_forward() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("kube-scheduler", "default-scheduler", "");
        let t0 = Timestamp::from_millis(85_396);
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
            Timestamp::from_millis(86_250),
            &ns,
            EventType::Warning,
            "FailedScheduling",
            "m",
        );
        let after = events(&api);
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].count, Some(2));
        assert_eq!(after[0].first_timestamp, before[0].first_timestamp);
        assert_eq!(
            after[0].first_timestamp,
            Some(Timestamp::from_millis(85_000))
        );
        assert_eq!(
            after[0].last_timestamp,
            Some(Timestamp::from_millis(86_000))
        );
        // The name still tells the two apart by the millisecond.
        assert_eq!(
            after[0].metadata.name,
            format!("default.{:x}", unix_nanos(t0))
        );
    }

    #[test]
    fn the_tenth_distinct_message_is_combined_and_later_ones_count_on_it() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("replicaset-controller", "replicaset-controller", "");
        for i in 0..12u64 {
            let msg = format!("Created pod: web-{i}");
            let at = Timestamp::from_secs(1 + i);
            rec.record(
                &mut api,
                at,
                &ns,
                EventType::Normal,
                "SuccessfulCreate",
                &msg,
            );
        }
        let evs = events(&api);
        // Nine events of their own, then one combined event for the 10th, 11th and 12th.
        assert_eq!(evs.len(), 10);
        let combined: Vec<&Event> = evs
            .iter()
            .filter(|e| e.message.starts_with(COMBINED_PREFIX))
            .collect();
        assert_eq!(combined.len(), 1);
        assert_eq!(combined[0].count, Some(3));
        assert_eq!(
            &*combined[0].message,
            "(combined from similar events): Created pod: web-11"
        );
        assert_eq!(combined[0].last_timestamp, Some(Timestamp::from_secs(12)));
    }

    #[test]
    fn the_spam_filter_keeps_an_objects_26th_event_from_its_source() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("kubelet/node-a", "kubelet", "node-a");
        for i in 0..30u64 {
            let at = Timestamp::from_secs(1 + i);
            rec.record(&mut api, at, &ns, EventType::Warning, "BackOff", "m");
        }
        assert_eq!(rec.filtered(), 5);
        let evs = events(&api);
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].count, Some(25), "the repeats that passed the filter");
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
        for m in ["etcd-1", "etcd-2"] {
            api.etcd_fault(&EtcdFault::Kill(m.into())).unwrap();
        }
        rec.record(
            &mut api,
            Timestamp::from_millis(1),
            &ns,
            EventType::Normal,
            "NodeNotReady",
            "x",
        );
        assert_eq!(rec.pending(), 1);
        assert!(events(&api).is_empty());
        let retry = Timestamp::from_millis(1).plus_millis(RETRY_INTERVAL_MS);
        assert_eq!(rec.next_retry(), Some(retry));
        for m in ["etcd-1", "etcd-2"] {
            api.etcd_fault(&EtcdFault::Restore(m.into())).unwrap();
        }
        // Steps before the retry time try nothing, however many there are.
        for t in 2..20 {
            rec.flush(&mut api, Timestamp::from_millis(t));
        }
        assert_eq!(rec.pending(), 1);
        rec.flush(&mut api, retry);
        assert_eq!(rec.pending(), 0);
        assert_eq!(rec.next_retry(), None);
        assert_eq!(events(&api).len(), 1);
    }

    #[test]
    fn an_event_is_given_up_after_twelve_tries_ten_seconds_apart() {
        let mut api = ApiServer::new(1);
        let ns = api.get(Kind::Namespace, None, "default").unwrap();
        let mut rec = EventRecorder::new("node-controller", "node-controller", "");
        for m in ["etcd-1", "etcd-2"] {
            api.etcd_fault(&EtcdFault::Kill(m.into())).unwrap();
        }
        rec.record(
            &mut api,
            Timestamp::from_millis(0),
            &ns,
            EventType::Normal,
            "X",
            "x",
        );
        let mut tries = 1;
        while let Some(t) = rec.next_retry() {
            // Many steps at and after each retry time count as one try.
            for ms in 0..5 {
                rec.flush(&mut api, t.plus_millis(ms));
            }
            tries += 1;
        }
        assert_eq!(tries, MAX_TRIES_PER_EVENT);
        assert_eq!(rec.dropped(), 1);
    }
}
