//! Server-side printing: the `meta.k8s.io/v1` `Table` the API server answers when a request's
//! Accept header asks `application/json;as=Table;v=v1;g=meta.k8s.io` (every `kubectl get`,
//! `-w` included). The columns and cells are the kind's own ([`Rules::columns`],
//! [`Rules::row`]: its printer, the default convertor, or a custom resource's
//! `additionalPrinterColumns`); each row carries the object as `?includeObject=` says
//! (`Metadata` by default: a `PartialObjectMetadata`). A list's Table keeps the list's
//! `resourceVersion`, `continue` and `remainingItemCount`; a watch event's object becomes a
//! one-row Table (ADDED, MODIFIED, DELETED), while BOOKMARK and ERROR events pass unchanged.
//!
//! [`Rules::columns`]: crate::api::resource::Rules::columns
//! [`Rules::row`]: crate::api::resource::Rules::row

use super::read::ObjectList;
use super::watch::{WatchEvent, WatchEventType};
use crate::api::resource::ResourceInfo;
use crate::api::Object;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use watchlab_apimachinery::table::{Table, TableRow};

/// What a Table row embeds (`?includeObject=`), as `metav1.IncludeObjectPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    None,
    /// The server's default.
    #[default]
    Metadata,
    Object,
}

impl IncludeObject {
    /// From the query's `includeObject` value (an unknown spelling takes the default).
    pub fn from_query(path_and_query: &str) -> IncludeObject {
        let query = path_and_query.split_once('?').map_or("", |(_, q)| q);
        let value = query_value(query, "includeObject");
        match value.as_deref() {
            Some("None") => IncludeObject::None,
            Some("Object") => IncludeObject::Object,
            _ => IncludeObject::Metadata,
        }
    }
}

/// The raw value of `key` in a query string.
fn query_value(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.to_string())
}

/// How a request asked to be printed: the resource and what each row embeds.
#[derive(Debug, Clone, Copy)]
pub struct TableRequest {
    pub resource: &'static ResourceInfo,
    pub include: IncludeObject,
    /// "Now" for AGE columns, in Unix milliseconds.
    pub now_unix_ms: i64,
}

impl TableRequest {
    /// The Table of one object (a GET of a name).
    pub fn object(&self, obj: &Object) -> String {
        let json = obj.to_json_value();
        let metadata = json!({"resourceVersion": json["metadata"]["resourceVersion"]});
        self.render(std::slice::from_ref(&json), metadata)
    }

    /// The Table of a list, with the list's metadata.
    pub fn list(&self, list: &ObjectList) -> String {
        let mut metadata = Map::new();
        metadata.insert(
            "resourceVersion".into(),
            list.resource_version.to_string().into(),
        );
        if let Some(c) = &list.continue_token {
            metadata.insert("continue".into(), c.clone().into());
        }
        if let Some(n) = list.remaining_item_count {
            metadata.insert("remainingItemCount".into(), n.into());
        }
        let items: Vec<Value> = list.items.iter().map(|o| o.to_json_value()).collect();
        self.render(&items, Value::Object(metadata))
    }

    /// A watch event's line with its object printed as a one-row Table; BOOKMARK and ERROR
    /// events keep their plain line, as on the real server.
    pub fn watch_line(&self, event: &Arc<WatchEvent>) -> String {
        let printed = matches!(
            event.event_type,
            WatchEventType::Added | WatchEventType::Modified | WatchEventType::Deleted
        );
        match event.object().filter(|_| printed) {
            Some(obj) => format!(
                "{{\"type\":\"{}\",\"object\":{}}}",
                event.event_type.as_str(),
                self.object(obj)
            ),
            None => event.json().to_string(),
        }
    }

    fn render(&self, items: &[Value], metadata: Value) -> String {
        serde_json::to_string(&self.table(items, metadata)).unwrap_or_default()
    }

    /// The Table of objects already in JSON, with the list's `metadata`: what the server
    /// answers, for a caller holding JSON (the page's Events view, a test's scripted server).
    pub fn table(&self, items: &[Value], metadata: Value) -> Table {
        let rules = self.resource.rules;
        let rows = items
            .iter()
            .map(|item| TableRow {
                cells: rules.row(item, self.now_unix_ms),
                object: self.embedded(item),
            })
            .collect();
        Table {
            kind: "Table".into(),
            api_version: "meta.k8s.io/v1".into(),
            metadata,
            column_definitions: rules.columns(),
            rows,
        }
    }

    fn embedded(&self, item: &Value) -> Option<Value> {
        match self.include {
            IncludeObject::None => None,
            IncludeObject::Metadata => Some(json!({
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": item["metadata"],
            })),
            IncludeObject::Object => Some(item.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_object_from_the_query() {
        assert_eq!(
            IncludeObject::from_query("/api/v1/pods?limit=500&includeObject=Object"),
            IncludeObject::Object
        );
        assert_eq!(
            IncludeObject::from_query("/api/v1/pods?includeObject=None"),
            IncludeObject::None
        );
        assert_eq!(
            IncludeObject::from_query("/api/v1/pods"),
            IncludeObject::Metadata
        );
        assert_eq!(
            IncludeObject::from_query("/api/v1/pods?includeObject=bogus"),
            IncludeObject::Metadata
        );
    }
}
