//! An in-memory ledger that lists and watches like the API server, for tests of the informer
//! machinery and of controllers: a revision counter, a history a watch can resume from, and the
//! ways real streams go wrong — compaction (`410 Expired`), timeouts, dropped connections and
//! injected errors. It serves one resource of [`FakeObject`]s and ignores selectors.

use std::collections::{BTreeMap, VecDeque};

use super::error::ClientError;
use super::lister_watcher::{
    ListParams, ListResourceVersion, ListerWatcher, ObjectList, StreamId, WatchEvent, WatchParams,
};
use super::resource::{ObjectKey, Resource};
use crate::clock::Timestamp;

/// A minimal object: identity, the revision it was written at, a node it may be bound to
/// (to exercise indexes) and a counter that updates change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeObject {
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
    pub resource_version: u64,
    pub node_name: Option<String>,
    pub generation: u64,
}

impl FakeObject {
    pub fn new(namespace: Option<&str>, name: &str, uid: &str) -> Self {
        FakeObject {
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
            uid: uid.to_string(),
            resource_version: 0,
            node_name: None,
            generation: 1,
        }
    }
}

impl Resource for FakeObject {
    fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn resource_version(&self) -> u64 {
        self.resource_version
    }
    fn uid(&self) -> &str {
        &self.uid
    }
}

struct FakeStream {
    buffer: Vec<WatchEvent<FakeObject>>,
    bookmarks: bool,
    ends_at: Option<Timestamp>,
    /// No more events are added; the stream reports its end once the buffer is drained.
    ended: bool,
}

/// The fake API server for one resource.
pub struct FakeLedger {
    now: Timestamp,
    revision: u64,
    /// Revisions up to this one are compacted away: a watch from an older RV gets 410.
    compacted: u64,
    objects: BTreeMap<ObjectKey, FakeObject>,
    /// Every event after `compacted`, at its revision.
    history: Vec<WatchEvent<FakeObject>>,
    streams: BTreeMap<StreamId, FakeStream>,
    next_stream: StreamId,
    next_uid: u64,
    failing_lists: VecDeque<ClientError>,
    failing_watches: VecDeque<ClientError>,
    /// Every list served or refused, by the resourceVersion it asked for.
    pub list_calls: Vec<ListResourceVersion>,
    /// Every watch opened or refused, by the resourceVersion it started from.
    pub watch_calls: Vec<u64>,
}

impl Default for FakeLedger {
    fn default() -> Self {
        FakeLedger::new()
    }
}

impl FakeLedger {
    /// An empty ledger at revision 1 (etcd's first revision).
    pub fn new() -> Self {
        FakeLedger {
            now: Timestamp::ZERO,
            revision: 1,
            compacted: 0,
            objects: BTreeMap::new(),
            history: Vec::new(),
            streams: BTreeMap::new(),
            next_stream: 1,
            next_uid: 1,
            failing_lists: VecDeque::new(),
            failing_watches: VecDeque::new(),
            list_calls: Vec::new(),
            watch_calls: Vec::new(),
        }
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn compacted_revision(&self) -> u64 {
        self.compacted
    }

    /// The current objects, in key order.
    pub fn objects(&self) -> Vec<FakeObject> {
        self.objects.values().cloned().collect()
    }

    pub fn get(&self, namespace: Option<&str>, name: &str) -> Option<&FakeObject> {
        self.objects.get(&ObjectKey::new(namespace, name))
    }

    /// Creates an object (409 AlreadyExists if the name is taken).
    pub fn create(
        &mut self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<FakeObject, ClientError> {
        let key = ObjectKey::new(namespace, name);
        if self.objects.contains_key(&key) {
            return Err(ClientError::new(
                409,
                "AlreadyExists",
                format!("fakes \"{name}\" already exists"),
            ));
        }
        let uid = format!("uid-{}", self.next_uid);
        self.next_uid += 1;
        let mut obj = FakeObject::new(namespace, name, &uid);
        obj.resource_version = self.bump();
        self.objects.insert(key, obj.clone());
        self.broadcast(WatchEvent::Added(obj.clone()));
        Ok(obj)
    }

    /// Changes an object through `change` (404 NotFound if absent); its RV becomes the new
    /// revision.
    pub fn update(
        &mut self,
        namespace: Option<&str>,
        name: &str,
        change: impl FnOnce(&mut FakeObject),
    ) -> Result<FakeObject, ClientError> {
        let key = ObjectKey::new(namespace, name);
        let mut obj = self
            .objects
            .get(&key)
            .cloned()
            .ok_or_else(|| not_found(name))?;
        change(&mut obj);
        obj.resource_version = self.bump();
        self.objects.insert(key, obj.clone());
        self.broadcast(WatchEvent::Modified(obj.clone()));
        Ok(obj)
    }

    /// Deletes an object; watchers get its final state at the deletion's revision.
    pub fn delete(
        &mut self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<FakeObject, ClientError> {
        let key = ObjectKey::new(namespace, name);
        let mut obj = self.objects.remove(&key).ok_or_else(|| not_found(name))?;
        obj.resource_version = self.bump();
        self.broadcast(WatchEvent::Deleted(obj.clone()));
        Ok(obj)
    }

    /// A write to some other resource: etcd's revision is global, so this resource's watchers
    /// see the revision jump (through bookmarks) without any event of their own.
    pub fn write_elsewhere(&mut self) -> u64 {
        self.bump()
    }

    /// Compacts the history up to the current revision (open streams keep streaming, as the
    /// API server's watch cache does; only new watches from older RVs get 410).
    pub fn compact(&mut self) {
        self.compacted = self.revision;
        self.history.clear();
    }

    /// Drops every open connection: undelivered events are lost and each stream ends.
    pub fn drop_streams(&mut self) {
        for s in self.streams.values_mut() {
            s.buffer.clear();
            s.ended = true;
        }
    }

    /// Sends a BOOKMARK at the current revision to every stream that allowed bookmarks.
    pub fn send_bookmarks(&mut self) {
        let rv = self.revision;
        for s in self
            .streams
            .values_mut()
            .filter(|s| s.bookmarks && !s.ended)
        {
            s.buffer.push(WatchEvent::Bookmark {
                resource_version: rv,
            });
        }
    }

    /// Moves the ledger's clock; streams past their timeout end (after delivering what they
    /// already sent).
    pub fn set_now(&mut self, now: Timestamp) {
        self.now = now;
        for s in self.streams.values_mut() {
            if s.ends_at.is_some_and(|t| now >= t) {
                s.ended = true;
            }
        }
    }

    /// The next list fails with `error`.
    pub fn fail_next_list(&mut self, error: ClientError) {
        self.failing_lists.push_back(error);
    }

    /// The next watch is refused with `error`.
    pub fn fail_next_watch(&mut self, error: ClientError) {
        self.failing_watches.push_back(error);
    }

    /// Injected list and watch failures not yet consumed.
    pub fn pending_failures(&self) -> usize {
        self.failing_lists.len() + self.failing_watches.len()
    }

    /// Streams still open (not ended).
    pub fn open_streams(&self) -> usize {
        self.streams.values().filter(|s| !s.ended).count()
    }

    fn bump(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    fn broadcast(&mut self, event: WatchEvent<FakeObject>) {
        for s in self.streams.values_mut().filter(|s| !s.ended) {
            s.buffer.push(event.clone());
        }
        self.history.push(event);
    }
}

fn not_found(name: &str) -> ClientError {
    ClientError::new(404, "NotFound", format!("fakes \"{name}\" not found"))
}

fn event_revision(event: &WatchEvent<FakeObject>) -> u64 {
    match event {
        WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => {
            o.resource_version
        }
        WatchEvent::Bookmark { resource_version } => *resource_version,
        WatchEvent::Error(_) => 0,
    }
}

impl ListerWatcher<FakeObject> for FakeLedger {
    fn list(&mut self, params: &ListParams) -> Result<ObjectList<FakeObject>, ClientError> {
        self.list_calls.push(params.resource_version);
        if let Some(e) = self.failing_lists.pop_front() {
            return Err(e);
        }
        if let ListResourceVersion::NotOlderThan(rv) = params.resource_version {
            if rv > self.revision {
                // apierrors.NewTooLargeResourceVersionError
                let msg = format!(
                    "Too large resource version: {rv}, current: {}",
                    self.revision
                );
                return Err(ClientError::timeout(msg));
            }
        }
        Ok(ObjectList {
            items: self.objects(),
            resource_version: self.revision,
        })
    }

    fn watch(&mut self, params: &WatchParams) -> Result<StreamId, ClientError> {
        self.watch_calls.push(params.resource_version);
        if let Some(e) = self.failing_watches.pop_front() {
            return Err(e);
        }
        let from = params.resource_version;
        let (buffer, ended) = if from < self.compacted {
            // The watch cache's text: the requested RV and the newest compacted one.
            let msg = format!("too old resource version: {from} ({})", self.compacted);
            (vec![WatchEvent::Error(ClientError::expired(msg))], true)
        } else {
            let suffix = self
                .history
                .iter()
                .filter(|e| event_revision(e) > from)
                .cloned()
                .collect();
            (suffix, false)
        };
        let ends_at = params.timeout_seconds.map(|s| self.now.plus_secs(s));
        let id = self.next_stream;
        self.next_stream += 1;
        self.streams.insert(
            id,
            FakeStream {
                buffer,
                bookmarks: params.allow_watch_bookmarks,
                ends_at,
                ended,
            },
        );
        Ok(id)
    }

    fn poll(&mut self, id: StreamId) -> Option<Vec<WatchEvent<FakeObject>>> {
        let stream = self.streams.get_mut(&id)?;
        if stream.ended && stream.buffer.is_empty() {
            self.streams.remove(&id);
            return None;
        }
        Some(std::mem::take(&mut stream.buffer))
    }

    fn stop(&mut self, id: StreamId) {
        self.streams.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch_from(rv: u64) -> WatchParams {
        WatchParams {
            resource_version: rv,
            allow_watch_bookmarks: true,
            timeout_seconds: Some(10),
            label_selector: None,
            field_selector: None,
        }
    }

    #[test]
    fn watch_resumes_from_history_and_refuses_compacted_rvs() {
        let mut l = FakeLedger::new();
        l.create(Some("default"), "a").unwrap();
        l.update(Some("default"), "a", |o| o.generation += 1)
            .unwrap();
        let id = l.watch(&watch_from(2)).unwrap();
        let events = l.poll(id).unwrap();
        assert!(matches!(&events[..], [WatchEvent::Modified(o)] if o.resource_version == 3));
        l.compact();
        let id = l.watch(&watch_from(2)).unwrap();
        assert_eq!(
            l.poll(id),
            Some(vec![WatchEvent::Error(ClientError::expired(
                "too old resource version: 2 (3)"
            ))])
        );
        assert_eq!(l.poll(id), None);
    }

    #[test]
    fn streams_time_out_and_drop() {
        let mut l = FakeLedger::new();
        let id = l.watch(&watch_from(1)).unwrap();
        l.create(None, "n").unwrap();
        l.set_now(Timestamp::from_secs(10));
        l.create(None, "late").unwrap();
        assert!(matches!(l.poll(id).as_deref(), Some([WatchEvent::Added(o)]) if o.name == "n"));
        assert_eq!(l.poll(id), None);
        let id = l.watch(&watch_from(3)).unwrap();
        l.delete(None, "n").unwrap();
        l.drop_streams();
        assert_eq!(
            l.poll(id),
            None,
            "undelivered events are lost with the connection"
        );
    }
}
