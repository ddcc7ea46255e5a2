//! `v1.ConfigMap` and `v1.Secret`: configuration a pod reads, plain or base64. A Secret's
//! `data` values are base64 text in JSON (Go `[]byte`); `stringData` is a write-only
//! convenience the server merges into `data` and never stores.

use super::meta::ObjectMeta;
use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMap {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub data: BTreeMap<String, String>,
    /// Values are base64 text, as in JSON.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "base64_map"
    )]
    pub binary_data: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<bool>,
}

/// `type` when none is given (`v1.SecretTypeOpaque`).
pub const SECRET_TYPE_OPAQUE: &str = "Opaque";

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Secret {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Values are base64 text, as in JSON.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "base64_map"
    )]
    pub data: BTreeMap<String, String>,
    /// Write-only: merged into `data` (winning over it) on every write, never stored.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub string_data: BTreeMap<String, String>,
    #[serde(default, rename = "type", skip_serializing_if = "String::is_empty")]
    pub type_: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<bool>,
}

impl Secret {
    /// The conversion's merge: each `stringData` entry becomes a base64 `data` entry.
    pub fn merge_string_data(&mut self) {
        for (k, v) in std::mem::take(&mut self.string_data) {
            self.data.insert(k, encode(v.as_bytes()));
        }
    }
}

/// Standard base64 with padding (Go's `encoding/json` for `[]byte`).
pub fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Decodes base64 text (`None` if it is not).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// A map of `[]byte` values: each must be base64, as Go's decoder requires
/// (`illegal base64 data at input byte N`).
fn base64_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    let map = Option::<BTreeMap<String, String>>::deserialize(d)?.unwrap_or_default();
    for v in map.values() {
        if let Err(e) = base64::engine::general_purpose::STANDARD.decode(v) {
            let at = match e {
                base64::DecodeError::InvalidByte(i, _)
                | base64::DecodeError::InvalidLastSymbol(i, _) => i,
                _ => v.len(),
            };
            return Err(serde::de::Error::custom(format!(
                "illegal base64 data at input byte {at}"
            )));
        }
    }
    Ok(map)
}
