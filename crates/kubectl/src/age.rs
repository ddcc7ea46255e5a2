//! AGE and LAST SEEN columns: kubectl prints how long ago a timestamp was with apimachinery's
//! `duration.HumanDuration` (`0s`, `119s`, `2m3s`, `10m`, `3h`, `5d`...). Timestamps come as
//! RFC 3339 strings; "now" is the API server's virtual clock (`ApiClient::now_ms`), which counts
//! milliseconds from the virtual epoch below.

/// The calendar instant the virtual clock's zero maps to: 2026-01-01T00:00:00Z, the same
/// constant as `watchlab_engine::clock::EPOCH_UNIX_SECONDS` (kubectl does not depend on the engine).
pub const EPOCH_UNIX_SECONDS: i64 = 1_767_225_600;

/// Converts the server's virtual `now_ms` to Unix milliseconds.
pub fn virtual_now_unix_ms(now_ms: u64) -> i64 {
    EPOCH_UNIX_SECONDS * 1000 + i64::try_from(now_ms).unwrap_or(i64::MAX / 2)
}

/// Parses an RFC 3339 time (`2026-01-01T00:00:05Z`, fractional seconds and offsets allowed)
/// into Unix milliseconds.
pub fn parse_rfc3339_ms(text: &str) -> Option<i64> {
    watchlab_apimachinery::rfc3339::parse_unix_millis(text)
}

/// apimachinery's `duration.HumanDuration`, from milliseconds.
pub fn human_duration(ms: i64) -> String {
    let seconds = ms / 1000;
    if seconds < -1 {
        return "<invalid>".into();
    } else if seconds < 0 {
        return "0s".into();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    } else if hours < 48 {
        return format!("{hours}h");
    } else if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    } else if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// kubectl's `translateTimestampSince`: `<unknown>` for a missing time, else the human age.
pub fn since(timestamp: Option<&str>, now_unix_ms: i64) -> String {
    match timestamp.and_then(parse_rfc3339_ms) {
        None => "<unknown>".into(),
        Some(t) => human_duration(now_unix_ms - t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_matches_apimachinery() {
        for (secs, want) in [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (5, "5s"),
            (119, "119s"),
            (120, "2m"),
            (123, "2m3s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 120, "3h2m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (50 * 3600, "2d2h"),
            (8 * 86_400, "8d"),
            (730 * 86_400, "2y"),
            (731 * 86_400, "2y1d"),
            (9 * 365 * 86_400, "9y"),
        ] {
            assert_eq!(human_duration(secs * 1000), want, "{secs}s");
        }
    }

    #[test]
    fn parses_rfc3339() {
        assert_eq!(
            parse_rfc3339_ms("2026-01-01T00:00:05Z"),
            Some(EPOCH_UNIX_SECONDS * 1000 + 5000)
        );
        assert_eq!(
            parse_rfc3339_ms("2026-01-01T01:00:00.250+01:00"),
            Some(EPOCH_UNIX_SECONDS * 1000 + 250)
        );
        assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339_ms("garbage"), None);
        assert_eq!(parse_rfc3339_ms("2026-13-01T00:00:00Z"), None);
    }

    #[test]
    fn since_uses_the_virtual_clock() {
        let now = virtual_now_unix_ms(3 * 3600 * 1000);
        assert_eq!(since(Some("2026-01-01T00:00:00Z"), now), "3h");
        assert_eq!(since(None, now), "<unknown>");
    }
}

/// Go's `time.RFC1123Z` in UTC (`Thu, 01 Jan 2026 00:00:05 +0000`), as kubectl describe prints times.
pub fn rfc1123z(unix_ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = unix_ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = watchlab_apimachinery::rfc3339::civil_from_days(days);
    let weekday = DAYS
        .get(days.rem_euclid(7) as usize)
        .copied()
        .unwrap_or("Thu");
    let month = MONTHS.get((m - 1) as usize).copied().unwrap_or("Jan");
    format!(
        "{weekday}, {d:02} {month} {y} {:02}:{:02}:{:02} +0000",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod rfc1123_tests {
    use super::*;

    #[test]
    fn formats_like_go() {
        assert_eq!(
            rfc1123z(EPOCH_UNIX_SECONDS * 1000 + 5000),
            "Thu, 01 Jan 2026 00:00:05 +0000"
        );
        assert_eq!(rfc1123z(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(rfc1123z(951_782_400_000), "Tue, 29 Feb 2000 00:00:00 +0000");
    }
}
