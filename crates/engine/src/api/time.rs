//! How timestamps travel in JSON. Kubernetes writes `metav1.Time` as RFC 3339 with whole seconds
//! and `metav1.MicroTime` (Lease renewTime, Event eventTime) with exactly six fractional digits;
//! the engine keeps both as a virtual [`Timestamp`] so controllers compare numbers, not strings.

use crate::clock::Timestamp;
use serde::{Deserialize, Deserializer, Serializer};

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, keeping millisecond precision.
pub fn parse(text: &str) -> Option<Timestamp> {
    let (base, millis) = match text.find('.') {
        Some(dot) => {
            let frac = text.get(dot + 1..)?.strip_suffix('Z')?;
            if frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let ms: String = frac.chars().chain("000".chars()).take(3).collect();
            (format!("{}Z", text.get(..dot)?), ms.parse::<u64>().ok()?)
        }
        None => (text.to_string(), 0),
    };
    Timestamp::parse_rfc3339(&base).map(|t| t.plus_millis(millis))
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
            Some(t) => s.serialize_str(&t.to_rfc3339()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micro_time_has_six_digits_and_round_trips() {
        let t = Timestamp(5_250);
        assert_eq!(to_micro(t), "2026-01-01T00:00:05.250000Z");
        assert_eq!(parse(&to_micro(t)), Some(t));
        assert_eq!(parse("2026-01-01T00:00:05Z"), Some(Timestamp(5_000)));
        assert_eq!(parse("2026-01-01T00:00:05.1Z"), Some(Timestamp(5_100)));
        assert_eq!(parse("2026-01-01T00:00:05.Z"), None);
        assert_eq!(parse("yesterday"), None);
    }
}
