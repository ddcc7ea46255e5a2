//! The naive watcher: what the second text's §7 warns about ("if the client does not handle
//! resourceVersion correctly, events can be missed or duplicated"). It watches without keeping
//! the resourceVersion it reached, so after its connection drops it reconnects with none — and the
//! API server, asked for no particular version, starts the new stream with a synthetic ADDED for
//! every object that exists now, then the live changes.
//!
//! Two things go wrong, both counted here: every object it already had arrives again as ADDED (a
//! handler runs twice for it: a duplicate), and an object deleted while it was away is never
//! reported at all (its DELETED was only in the gap), so it stays in the cache as a ghost: a
//! missed event. Compare the [`super::reflector::Reflector`], which resumes from its last RV (and
//! relists after `410 Expired`), so it neither repeats nor loses one.

use std::collections::BTreeMap;

use super::lister_watcher::{ListerWatcher, StreamId, WatchEvent, WatchParams};
use super::resource::{ObjectKey, Resource};

/// What the naive watcher saw, for the page and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NaiveStats {
    /// Watch events received (errors included).
    pub events: u64,
    /// ADDED events for an object already in its cache: the handler's "new object" ran again.
    pub duplicates: u64,
    /// Streams opened (the first included).
    pub connects: u64,
}

/// A watch on one resource that never remembers where it was.
#[derive(Debug, Clone)]
pub struct NaiveWatcher<K> {
    stream: Option<StreamId>,
    cache: BTreeMap<ObjectKey, K>,
    label_selector: Option<String>,
    field_selector: Option<String>,
    stats: NaiveStats,
}

impl<K: Resource> Default for NaiveWatcher<K> {
    fn default() -> Self {
        NaiveWatcher::new(None, None)
    }
}

impl<K: Resource> NaiveWatcher<K> {
    pub fn new(label_selector: Option<String>, field_selector: Option<String>) -> Self {
        NaiveWatcher {
            stream: None,
            cache: BTreeMap::new(),
            label_selector,
            field_selector,
            stats: NaiveStats::default(),
        }
    }

    /// Opens a stream if none is open — always without a resourceVersion of its own (the
    /// mistake), then takes what the stream delivered. Returns whether a stream is open.
    pub fn step(&mut self, lw: &mut impl ListerWatcher<K>) -> bool {
        if self.stream.is_none() {
            let params = WatchParams {
                // "0": any version — the server answers with the current state as ADDED events.
                resource_version: 0,
                allow_watch_bookmarks: false,
                timeout_seconds: None,
                label_selector: self.label_selector.clone(),
                field_selector: self.field_selector.clone(),
            };
            match lw.watch(&params) {
                Ok(id) => {
                    self.stream = Some(id);
                    self.stats.connects += 1;
                }
                Err(_) => return false,
            }
        }
        let Some(id) = self.stream else {
            return false;
        };
        match lw.poll(id) {
            Some(events) => {
                for e in events {
                    self.apply(e);
                }
                true
            }
            None => {
                self.stream = None;
                false
            }
        }
    }

    fn apply(&mut self, event: WatchEvent<K>) {
        self.stats.events += 1;
        match event {
            WatchEvent::Added(o) => {
                if self.cache.insert(ObjectKey::of(&o), o).is_some() {
                    self.stats.duplicates += 1;
                }
            }
            WatchEvent::Modified(o) => {
                self.cache.insert(ObjectKey::of(&o), o);
            }
            WatchEvent::Deleted(o) => {
                self.cache.remove(&ObjectKey::of(&o));
            }
            WatchEvent::Bookmark { .. } => {}
            // The stream ends after an error; the next step reconnects (without an RV again).
            WatchEvent::Error(_) => {}
        }
    }

    /// Closes its stream from the client side.
    pub fn stop(&mut self, lw: &mut impl ListerWatcher<K>) {
        if let Some(id) = self.stream.take() {
            lw.stop(id);
        }
    }

    /// The open stream, if any.
    pub fn stream(&self) -> Option<StreamId> {
        self.stream
    }

    /// What it believes exists.
    pub fn cache(&self) -> impl Iterator<Item = &K> {
        self.cache.values()
    }

    pub fn stats(&self) -> NaiveStats {
        self.stats
    }
}
