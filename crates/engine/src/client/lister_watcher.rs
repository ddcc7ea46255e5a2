//! The reflector's only door to the API server: list and watch one resource. Keeping it this
//! small lets the real server (an adapter over its typed interface, `K = Arc<Object>`) and the
//! in-memory [`crate::client::fake::FakeLedger`] stand behind the same informer code.

use super::error::ClientError;

/// Identifies one open watch stream.
pub type StreamId = u64;

/// Which state a list reads (`resourceVersion` / `resourceVersionMatch` of `ListOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListResourceVersion {
    /// `resourceVersion` unset: the most recent state, a consistent read from etcd.
    MostRecent,
    /// `resourceVersion=0`: any state, served from the watch cache (the reflector's first list).
    Any,
    /// `resourceVersion=N` (NotOlderThan): a state at least as fresh as revision N.
    NotOlderThan(u64),
}

impl ListResourceVersion {
    /// The `resourceVersion` query parameter this asks for (`None` = unset).
    pub fn as_query(&self) -> Option<String> {
        match self {
            ListResourceVersion::MostRecent => None,
            ListResourceVersion::Any => Some("0".to_string()),
            ListResourceVersion::NotOlderThan(rv) => Some(rv.to_string()),
        }
    }
}

/// A list request (`metav1.ListOptions` as the reflector fills it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListParams {
    pub resource_version: ListResourceVersion,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
}

/// A watch request (`metav1.ListOptions` with `watch=true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchParams {
    /// Every change strictly after this revision is streamed.
    pub resource_version: u64,
    /// `allowWatchBookmarks`: the server may send BOOKMARK events that only advance the RV.
    pub allow_watch_bookmarks: bool,
    /// `timeoutSeconds`: the server ends the stream after this much (virtual) time.
    pub timeout_seconds: Option<u64>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
}

/// A list answer: the items and the list's `metadata.resourceVersion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectList<K> {
    pub items: Vec<K>,
    pub resource_version: u64,
}

/// One event of a watch stream (`watch.Event`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent<K> {
    Added(K),
    Modified(K),
    /// The object's final state, at the revision of its deletion.
    Deleted(K),
    /// Nothing changed for this watcher up to `resource_version`; resuming there is safe.
    Bookmark {
        resource_version: u64,
    },
    /// The server ends the stream with an error (`410 Expired` for a compacted RV).
    Error(ClientError),
}

/// List and watch one resource (client-go's `cache.ListerWatcher`), on virtual time: a watch is
/// opened, then polled by the driver.
///
/// The contract the reflector relies on is the real API server's: a stream delivers every
/// change after the requested RV exactly once, in increasing RV order, and each object carries
/// the RV of its event (a DELETED object the deletion's revision), so resuming from the last RV
/// seen neither loses nor repeats an event. An adapter for the real server maps `Status` to
/// [`ClientError`] (code, reason, message) and a BOOKMARK to its `resource_version`.
pub trait ListerWatcher<K> {
    fn list(&mut self, params: &ListParams) -> Result<ObjectList<K>, ClientError>;

    /// Opens a stream of every change after `params.resource_version`. A watch from a compacted
    /// RV may be refused here or (like the real server) open and start with an `Error` event.
    fn watch(&mut self, params: &WatchParams) -> Result<StreamId, ClientError>;

    /// The events delivered since the last poll; `None` once the stream has ended (timeout,
    /// server close, dropped connection, unknown id).
    fn poll(&mut self, id: StreamId) -> Option<Vec<WatchEvent<K>>>;

    /// Closes the stream from the client side.
    fn stop(&mut self, id: StreamId);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_version_query_values() {
        assert_eq!(ListResourceVersion::MostRecent.as_query(), None);
        assert_eq!(ListResourceVersion::Any.as_query().as_deref(), Some("0"));
        assert_eq!(
            ListResourceVersion::NotOlderThan(42).as_query().as_deref(),
            Some("42")
        );
    }
}
