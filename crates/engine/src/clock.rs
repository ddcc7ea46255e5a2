//! Virtual time. The engine never reads a wall clock: the driver (a test, a benchmark, the
//! browser's event loop) owns time and moves it forward, so a run is reproducible and idle time
//! can be skipped by jumping to the next timer.

use std::fmt;

/// Milliseconds of virtual time since the simulated cluster started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub u64);

/// The calendar instant the virtual clock's zero maps to (2026-01-01T00:00:00Z), so timestamps
/// print as real RFC 3339 times the way the API server writes them.
pub const EPOCH_UNIX_SECONDS: u64 = 1_767_225_600;

impl Timestamp {
    pub const ZERO: Timestamp = Timestamp(0);

    pub fn from_secs(secs: u64) -> Self {
        Timestamp(secs.saturating_mul(1000))
    }

    pub fn as_millis(self) -> u64 {
        self.0
    }

    pub fn plus_millis(self, ms: u64) -> Self {
        Timestamp(self.0.saturating_add(ms))
    }

    pub fn plus_secs(self, secs: u64) -> Self {
        self.plus_millis(secs.saturating_mul(1000))
    }

    /// Milliseconds from `earlier` to `self`, zero if `earlier` is later.
    pub fn millis_since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// RFC 3339 with second precision, as `metav1.Time` serializes (`2026-01-01T00:00:05Z`).
    pub fn to_rfc3339(self) -> String {
        let secs = EPOCH_UNIX_SECONDS + self.0 / 1000;
        let (days, rem) = (secs / 86_400, secs % 86_400);
        let (y, m, d) = civil_from_days(days as i64);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            rem / 3600,
            (rem % 3600) / 60,
            rem % 60
        )
    }

    /// Parses what [`Timestamp::to_rfc3339`] writes (`YYYY-MM-DDTHH:MM:SSZ`); times before the
    /// virtual epoch clamp to zero.
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[19] != b'Z' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
            return None;
        }
        let unix = days_from_civil(y, mo as u32, d as u32) * 86_400 + h * 3600 + mi * 60 + s;
        let since = unix - EPOCH_UNIX_SECONDS as i64;
        Some(Timestamp::from_secs(since.max(0) as u64))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// Days since 1970-01-01 to a (year, month, day) civil date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The inverse of [`civil_from_days`].
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_the_virtual_epoch() {
        assert_eq!(Timestamp::ZERO.to_rfc3339(), "2026-01-01T00:00:00Z");
    }

    #[test]
    fn rfc3339_round_trips_across_months_and_leap_years() {
        for secs in [
            0,
            59,
            3_600,
            86_399,
            31 * 86_400,
            59 * 86_400,
            3 * 365 * 86_400 + 7,
        ] {
            let t = Timestamp::from_secs(secs);
            assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339()), Some(t), "{t}");
        }
        assert_eq!(
            Timestamp::from_secs(2 * 365 * 86_400 + 59 * 86_400).to_rfc3339(),
            "2028-02-29T00:00:00Z"
        );
    }

    #[test]
    fn malformed_times_are_refused() {
        for bad in [
            "",
            "2026-01-01",
            "2026-13-01T00:00:00Z",
            "2026-01-01T25:00:00Z",
            "x026-01-01T00:00:00Z",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(bad), None, "{bad}");
        }
    }
}
