//! How timestamps travel in JSON. Kubernetes writes `metav1.Time` as RFC 3339 with whole seconds
//! and `metav1.MicroTime` (Lease renewTime, Event eventTime) with exactly six fractional digits;
//! the engine keeps both as a virtual [`Timestamp`] so controllers compare numbers, not strings.

use crate::clock::Timestamp;
use serde::{Deserialize, Deserializer, Serializer};

/// Parses an RFC 3339 time as the API server decodes `metav1.Time` and `metav1.MicroTime`
/// (`Z` or a numeric offset, any fraction), keeping millisecond precision.
pub fn parse(text: &str) -> Option<Timestamp> {
    Timestamp::parse_rfc3339(text)
}

/// `metav1.MicroTime`: `2026-01-01T00:00:05.250000Z`.
pub fn to_micro(t: Timestamp) -> String {
    let secs = t.to_rfc3339();
    let base = secs.strip_suffix('Z').unwrap_or(&secs);
    format!("{base}.{:03}000Z", t.as_millis() % 1000)
}

fn de_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    let text: Option<String> = Option::deserialize(d)?;
    match text {
        None => Ok(None),
        Some(s) => parse(&s).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!("parsing time {s:?}: invalid RFC 3339 time"))
        }),
    }
}

/// serde for `Option<Timestamp>` as `metav1.Time` (second precision).
pub mod rfc3339 {
    use super::*;
    pub fn serialize<S: Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => match t.rfc3339_text() {
                Some(text) => s.serialize_str(text.as_str()),
                None => s.serialize_str(&t.to_rfc3339()),
            },
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        de_opt(d)
    }
}

/// serde for `Option<Timestamp>` as `metav1.MicroTime` (six fractional digits).
pub mod micro_time {
    use super::*;
    pub fn serialize<S: Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&to_micro(*t)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        de_opt(d)
    }
}

/// serde for a map of `metav1.Time` values (a PodDisruptionBudget's `disruptedPods`).
pub mod rfc3339_map {
    use super::*;
    use serde::ser::SerializeMap;
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(
        m: &BTreeMap<String, Timestamp>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(m.len()))?;
        for (k, t) in m {
            map.serialize_entry(k, &t.to_rfc3339())?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Timestamp>, D::Error> {
        let text: Option<BTreeMap<String, String>> = Option::deserialize(d)?;
        text.unwrap_or_default()
            .into_iter()
            .map(|(k, v)| match parse(&v) {
                Some(t) => Ok((k, t)),
                None => Err(serde::de::Error::custom(format!(
                    "parsing time {v:?}: invalid RFC 3339 time"
                ))),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micro_time_has_six_digits_and_round_trips() {
        let t = Timestamp::from_millis(5_250);
        assert_eq!(to_micro(t), "2026-01-01T00:00:05.250000Z");
        assert_eq!(parse(&to_micro(t)), Some(t));
        assert_eq!(
            parse("2026-01-01T00:00:05Z"),
            Some(Timestamp::from_millis(5_000))
        );
        assert_eq!(
            parse("2026-01-01T00:00:05.1Z"),
            Some(Timestamp::from_millis(5_100))
        );
        assert_eq!(parse("2026-01-01T00:00:05.Z"), None);
        assert_eq!(parse("yesterday"), None);
    }

    /// The Python client writes `+00:00`; a Pod read and written back must be accepted, and the
    /// time comes back in UTC with `Z` as the real API server writes it.
    #[test]
    fn numeric_offsets_decode_and_encode_as_utc() {
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        struct T {
            #[serde(with = "rfc3339")]
            at: Option<Timestamp>,
            #[serde(with = "micro_time")]
            micro: Option<Timestamp>,
        }
        let t: T = serde_json::from_str(
            r#"{"at":"2026-01-01T09:00:05+09:00","micro":"2026-01-01T00:00:05.250000+00:00"}"#,
        )
        .unwrap();
        assert_eq!(t.at, Some(Timestamp::from_millis(5_000)));
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"at":"2026-01-01T00:00:05Z","micro":"2026-01-01T00:00:05.250000Z"}"#
        );
        let bad: Result<T, _> =
            serde_json::from_str(r#"{"at":"2026-01-01T00:00:05+0900","micro":null}"#);
        assert!(bad
            .unwrap_err()
            .to_string()
            .contains("invalid RFC 3339 time"));
    }
}
