//! How long ago something happened, in the words the AGE and LAST SEEN columns use:
//! apimachinery's `duration.HumanDuration` (`0s`, `119s`, `2m3s`, `10m`, `3h`, `5d`...) and the
//! printers' `translateTimestampSince`. The API server's Table printers and kubectl both print
//! ages, so both read them from here. Timestamps are RFC 3339 strings; "now" is Unix milliseconds
//! (the virtual clock's, [`crate::client::virtual_now_unix_ms`]). And the other way round: a Go
//! duration as flags and annotations write it (`90s`, `1m30s`), read into milliseconds.

use crate::rfc3339::parse_unix_millis;

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

/// The printers' `translateTimestampSince` (kubectl's and the API server's): `<unknown>` for a missing time, else the human age.
pub fn since(timestamp: Option<&str>, now_unix_ms: i64) -> String {
    match timestamp.and_then(parse_unix_millis) {
        None => "<unknown>".into(),
        Some(t) => human_duration(now_unix_ms - t),
    }
}

/// A Go duration of whole numbers (`1m30s`, `500ms`, `2h`, `0`), as `time.ParseDuration` reads
/// the ones people write in flags and files, in milliseconds.
pub fn parse_go_duration(text: &str) -> Result<u64, String> {
    if text == "0" {
        return Ok(0);
    }
    let bad = || format!("{text:?} is not a duration like 500ms, 10s, 1m30s or 2h");
    let mut rest = text;
    let mut total: u64 = 0;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return Err(bad());
        }
        let (number, after) = rest.split_at(digits);
        let n: u64 = number.parse().map_err(|_| bad())?;
        let unit_len = after.len()
            - after
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let (unit, after) = after.split_at(unit_len);
        let scale = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return Err(bad()),
        };
        total = n
            .checked_mul(scale)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
        rest = after;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::virtual_now_unix_ms;

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
    fn since_uses_the_virtual_clock() {
        let now = virtual_now_unix_ms(3 * 3600 * 1000);
        assert_eq!(since(Some("2026-01-01T00:00:00Z"), now), "3h");
        assert_eq!(since(None, now), "<unknown>");
    }

    #[test]
    fn go_durations_read_as_milliseconds() {
        assert_eq!(parse_go_duration("1m30s"), Ok(90_000));
        assert_eq!(parse_go_duration("500ms"), Ok(500));
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(parse_go_duration("2h"), Ok(7_200_000));
        for bad in [
            "",
            "5",
            "1.5s",
            "1d",
            "s",
            "-1s",
            "1x",
            "99999999999999999999h",
        ] {
            assert!(parse_go_duration(bad).is_err(), "{bad:?}");
        }
    }
}
