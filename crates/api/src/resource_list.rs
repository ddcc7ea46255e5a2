//! `v1.ResourceList` (`{"cpu":"500m","memory":"128Mi"}`) in JSON: quantities travel as their
//! canonical strings, and numbers are accepted on input as the real decoder does.

use serde::{Deserialize, Deserializer, Serializer};
use std::collections::BTreeMap;
use watchlab_apimachinery::quantity::Quantity;

/// Resource name (`cpu`, `memory`, `pods`) to quantity.
pub type ResourceList = BTreeMap<String, Quantity>;

pub fn serialize<S: Serializer>(list: &ResourceList, s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(list.iter().map(|(k, v)| (k, v.to_string())))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ResourceList, D::Error> {
    let raw: BTreeMap<String, serde_json::Value> = BTreeMap::deserialize(d)?;
    raw.into_iter()
        .map(|(k, v)| {
            let text = match &v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "quantities must be strings or numbers, got {other}"
                    )))
                }
            };
            let q = Quantity::parse(&text).map_err(serde::de::Error::custom)?;
            Ok((k, q))
        })
        .collect()
}
