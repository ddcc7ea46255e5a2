//! The tape: every write the store committed, read from its history after each slice of virtual
//! time (before any compaction can drop it), so that the watch auditors and the write checks
//! have an independent record to compare against.
//!
//! While recording it checks the ledger's own promises:
//! - revisions never go back, and a key is written at most once per revision;
//! - every write was compared against the key's latest revision (its `prev` is what the tape
//!   last saw for the key), so no two writes succeeded from the same version;
//! - a stored object's `resourceVersion` is the revision it was written at;
//! - Events only move forward: `count` never drops, `firstTimestamp` never changes,
//!   `lastTimestamp` never goes back, never precedes `firstTimestamp` and is never in the future.

use std::collections::BTreeMap;
use std::sync::Arc;

use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::ApiServer;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::store::{EventType, Revision};

/// One committed write of one key.
#[derive(Debug, Clone)]
pub struct Write {
    pub revision: Revision,
    pub key: Arc<str>,
    /// The state before (None for a creation).
    pub prev: Option<Arc<Object>>,
    /// The state after (None for a deletion).
    pub cur: Option<Arc<Object>>,
}

/// The committed history, per kind, in revision order.
#[derive(Debug, Default)]
pub struct Tape {
    by_kind: BTreeMap<Kind, Vec<Write>>,
    /// The revision read up to.
    upto: Revision,
    /// Every live key's latest revision and object, as the tape saw them.
    live: BTreeMap<Arc<str>, (Revision, Arc<Object>)>,
    /// Writes recorded in total.
    pub writes: u64,
    /// Event updates (a repeat counted) seen.
    pub event_updates: u64,
}

impl Tape {
    /// The revision the tape has read up to.
    pub fn upto(&self) -> Revision {
        self.upto
    }

    /// The writes of `kind` with a revision in `(after, upto]`.
    pub fn between(&self, kind: Kind, after: Revision, upto: Revision) -> &[Write] {
        let Some(all) = self.by_kind.get(&kind) else {
            return &[];
        };
        let from = all.partition_point(|w| w.revision <= after);
        let to = all.partition_point(|w| w.revision <= upto);
        all.get(from..to.max(from)).unwrap_or(&[])
    }

    /// The write of `key` at exactly `revision`, if the tape holds one.
    pub fn at(&self, kind: Kind, key: &str, revision: Revision) -> Option<&Write> {
        self.between(kind, revision.saturating_sub(1), revision)
            .iter()
            .find(|w| &*w.key == key)
    }

    /// Every live object of `kind`, as the tape reconstructs the store.
    pub fn live(&self, kind: Kind) -> impl Iterator<Item = &Arc<Object>> {
        self.live
            .values()
            .map(|(_, o)| o)
            .filter(move |o| o.kind() == kind)
    }

    /// Reads every write committed since the last call; `now` is the virtual time.
    pub fn collect(&mut self, api: &ApiServer, now: Timestamp) -> Result<(), String> {
        let store = api.store();
        if store.revision() < self.upto {
            return Err(format!(
                "the ledger went back from revision {} to {}",
                self.upto,
                store.revision()
            ));
        }
        let events = store.events_after("", self.upto).map_err(|e| {
            format!(
                "history after revision {} was lost before it was read: {e}",
                self.upto
            )
        })?;
        let mut last = self.upto;
        for e in events {
            let revision = e.kv.mod_revision;
            let key = e.kv.key.clone();
            if revision <= self.upto || revision < last {
                return Err(format!(
                    "{key} written at revision {revision}, after revision {last}"
                ));
            }
            last = revision;
            let latest = self.live.get(&key).map(|(r, _)| *r);
            let over = store.prev_kv(e).map(|kv| kv.mod_revision);
            if over != latest {
                return Err(format!(
                    "{key} written at revision {revision} over revision {over:?}, but its latest \
                     write was {latest:?}: two writes succeeded from one version"
                ));
            }
            let prev = self.live.get(&key).map(|(_, o)| o.clone());
            let cur = match e.kind {
                EventType::Put => {
                    let obj = e.kv.value.clone();
                    if obj.resource_version() != revision {
                        return Err(format!(
                            "{key} stored at revision {revision} says resourceVersion {}",
                            obj.resource_version()
                        ));
                    }
                    self.check_event(&key, prev.as_deref(), &obj, now)?;
                    self.live.insert(key.clone(), (revision, obj.clone()));
                    Some(obj)
                }
                EventType::Delete => {
                    if self.live.remove(&key).is_none() {
                        return Err(format!(
                            "{key} deleted at revision {revision} but it did not exist"
                        ));
                    }
                    None
                }
            };
            let kind = cur
                .as_deref()
                .or(prev.as_deref())
                .map_or(Kind::Namespace, Object::kind);
            self.by_kind.entry(kind).or_default().push(Write {
                revision,
                key,
                prev,
                cur,
            });
            self.writes += 1;
        }
        self.upto = store.revision();
        Ok(())
    }

    /// An Event write only moves its count and lastTimestamp forward.
    fn check_event(
        &mut self,
        key: &str,
        prev: Option<&Object>,
        cur: &Object,
        now: Timestamp,
    ) -> Result<(), String> {
        let Object::Event(e) = cur else {
            return Ok(());
        };
        let (first, last, count) = (e.first_timestamp, e.last_timestamp, e.count.unwrap_or(1));
        if count < 1 || last > Some(now) || (first.is_some() && last < first) {
            return Err(format!(
                "{key}: count {count}, firstTimestamp {first:?}, lastTimestamp {last:?} at {} ms",
                now.as_millis()
            ));
        }
        if let Some(Object::Event(p)) = prev {
            self.event_updates += 1;
            let before = p.count.unwrap_or(1);
            if count < before || first != p.first_timestamp || last < p.last_timestamp {
                return Err(format!(
                    "{key} went from count {before}, first {:?}, last {:?} to count {count}, \
                     first {first:?}, last {last:?}",
                    p.first_timestamp, p.last_timestamp
                ));
            }
        }
        Ok(())
    }
}
