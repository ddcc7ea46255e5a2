//! Server-side printing's vocabulary: the `meta.k8s.io/v1` `Table` an API server answers when a
//! client's Accept header asks for it (`application/json;as=Table;v=v1;g=meta.k8s.io`), as every
//! `kubectl get` (and `get -w`) does. The server decides the columns and computes the cells
//! (k8s.io/apimachinery/pkg/apis/meta/v1 `Table`, `TableColumnDefinition`, `TableRow`); kubectl
//! only lays them out, adding its client-side columns (NAMESPACE for `-A`, LABELS, `-L`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The media type kubectl asks for first: a v1 Table of JSON (kubectl v1.32 sends this, then the
/// v1beta1 Table, then plain `application/json`, in one Accept header).
pub const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// Whether an Accept header asks for a `meta.k8s.io` Table (v1 or v1beta1) in any of its ranges.
pub fn wants_table(accept: &str) -> bool {
    accept.split(',').any(|range| {
        let params: Vec<&str> = range.split(';').map(str::trim).collect();
        params.contains(&"as=Table")
            && params.contains(&"g=meta.k8s.io")
            && (params.contains(&"v=v1") || params.contains(&"v=v1beta1"))
    })
}

/// `s`, or `<none>` when it is empty: how kubectl and the server's printers show an empty
/// value (a selector, a node's roles, a describe line).
pub fn or_none(s: String) -> String {
    if s.is_empty() {
        "<none>".into()
    } else {
        s
    }
}

/// One column, as `metav1.TableColumnDefinition`: `type` is an OpenAPI type (`string`,
/// `integer`, `number`, `boolean`, `date`), `format` a hint (`name` for the Name column), and
/// `priority` 0 for the columns always shown, 1 and more for `-o wide`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct TableColumnDefinition {
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub format: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub priority: i32,
}

/// One printed object: its cells in column order (strings, integers...) and, as the request's
/// `includeObject` says, the object itself or its `PartialObjectMetadata`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TableRow {
    pub cells: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
}

/// A `meta.k8s.io/v1` `Table` (`kind` and `apiVersion` included when serialized).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Table {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    /// The list's `resourceVersion`, `continue` and `remainingItemCount`.
    #[serde(default)]
    pub metadata: Value,
    pub column_definitions: Vec<TableColumnDefinition>,
    #[serde(default)]
    pub rows: Vec<TableRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn accept_negotiation() {
        assert!(wants_table(KUBECTL_ACCEPT));
        assert!(wants_table(TABLE_ACCEPT));
        assert!(!wants_table("application/json"));
        assert!(!wants_table(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        ));
    }

    #[test]
    fn reads_the_wire_shape() {
        let t: Table = serde_json::from_str(
            r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},
            "columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"","priority":0},
                                 {"name":"Restarts","type":"integer","format":"","description":"","priority":0}],
            "rows":[{"cells":["web-1",2],"object":{"kind":"PartialObjectMetadata"}}]}"#,
        )
        .unwrap_or_default();
        assert_eq!(t.column_definitions[1].type_, "integer");
        assert_eq!(t.rows[0].cells[1], 2);
        let back = serde_json::to_value(&t).unwrap_or_default();
        assert_eq!(back["columnDefinitions"][0]["format"], "name");
        assert_eq!(back["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }
}
