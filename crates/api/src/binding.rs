//! `v1.Binding`: the scheduler's request body for `POST pods/<name>/binding` (never stored).

use super::meta::{ObjectMeta, ObjectReference};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub target: ObjectReference,
}

impl Binding {
    /// A binding of `namespace/pod` to `node`, as the scheduler sends it.
    pub fn new(namespace: &str, pod: &str, node: &str) -> Self {
        Binding {
            metadata: ObjectMeta::named(namespace, pod),
            target: ObjectReference {
                kind: "Node".into(),
                name: node.into(),
                api_version: "v1".into(),
                ..Default::default()
            },
        }
    }
}
