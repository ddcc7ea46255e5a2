//! One watch event. Built once per change and shared (`Arc`) by every stream that receives it;
//! its JSON line is rendered lazily, once, on the first raw watcher's poll.

use crate::api::Object;
use crate::store::Revision;
use std::sync::{Arc, OnceLock};
use watchlab_apimachinery::status::Status;

/// The `type` of a watch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WatchEventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl WatchEventType {
    /// The wire name (`ADDED`...).
    pub fn as_str(self) -> &'static str {
        match self {
            WatchEventType::Added => "ADDED",
            WatchEventType::Modified => "MODIFIED",
            WatchEventType::Deleted => "DELETED",
            WatchEventType::Bookmark => "BOOKMARK",
            WatchEventType::Error => "ERROR",
        }
    }
}

/// What an event carries: an object, or a `Status` for ERROR.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchObject {
    Object(Arc<Object>),
    Status(Box<Status>),
}

/// `watch.Event` plus the revision it brings the stream to.
#[derive(Debug)]
pub struct WatchEvent {
    pub event_type: WatchEventType,
    pub object: WatchObject,
    /// For ERROR events, the stream's last revision.
    pub resource_version: Revision,
    json: OnceLock<Arc<str>>,
}

impl WatchEvent {
    pub fn new(
        event_type: WatchEventType,
        object: Arc<Object>,
        resource_version: Revision,
    ) -> Self {
        WatchEvent {
            event_type,
            object: WatchObject::Object(object),
            resource_version,
            json: OnceLock::new(),
        }
    }

    pub fn error(status: Status, resource_version: Revision) -> Self {
        WatchEvent {
            event_type: WatchEventType::Error,
            object: WatchObject::Status(Box::new(status)),
            resource_version,
            json: OnceLock::new(),
        }
    }

    /// The object, unless this is an ERROR event.
    pub fn object(&self) -> Option<&Arc<Object>> {
        match &self.object {
            WatchObject::Object(o) => Some(o),
            WatchObject::Status(_) => None,
        }
    }

    /// The JSON line `{"type":"ADDED","object":{...}}`, rendered on first use.
    pub fn json(&self) -> Arc<str> {
        self.json
            .get_or_init(|| {
                let object = match &self.object {
                    WatchObject::Object(o) => o.to_json(),
                    WatchObject::Status(s) => s.to_json(),
                };
                Arc::from(format!(
                    "{{\"type\":\"{}\",\"object\":{object}}}",
                    self.event_type.as_str()
                ))
            })
            .clone()
    }

    /// Whether the JSON line has been rendered (the UI shows it; tests check sharing).
    pub fn json_rendered(&self) -> bool {
        self.json.get().is_some()
    }
}
