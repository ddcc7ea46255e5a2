//! RFC 3339 times as `metav1.Time` reads and writes them. The API server decodes every time with
//! Go's `time.Parse(time.RFC3339, …)`, which accepts `Z` or a numeric offset (`+09:00`) and any
//! fraction of a second; it writes them back in UTC with `Z` (`t.UTC().Format(time.RFC3339)`).
//! Official clients send offsets (the Python client writes `2026-01-01T00:00:05+00:00`), so the
//! engine and kubectl share this one parser.

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` into Unix milliseconds (the fraction is
/// truncated to milliseconds). `None` where Go's `time.Parse(time.RFC3339, …)` fails: a lowercase
/// `t`/`z`, a missing zone, an offset other than `±HH:MM`, a month, day, hour, minute or second out
/// of range (Go has no leap second), or a day the month does not have.
pub fn parse_unix_millis(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if b.len() < 20 || separators.iter().any(|&(i, c)| b.get(i) != Some(&c)) {
        return None;
    }
    let num = |r| num_in(text, r);
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let mut rest = text.get(19..)?;
    let mut millis = 0;
    if let Some(frac_and_zone) = rest.strip_prefix('.') {
        let digits = frac_and_zone.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let frac = frac_and_zone.get(..digits)?;
        millis = format!("{frac:0<3}").get(..3)?.parse::<i64>().ok()?;
        rest = frac_and_zone.get(digits..)?;
    }
    let offset_secs = match rest {
        "Z" => 0,
        _ => {
            let z = rest.as_bytes();
            if z.len() != 6 || z[3] != b':' {
                return None;
            }
            let sign = match z[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let oh = num_in(rest, 1..3)?;
            let om = num_in(rest, 4..6)?;
            // Go: "time zone offset hour out of range" past 24, minutes past 59.
            if oh > 24 || om > 59 {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
    };
    let days = days_from_civil(y, mo, d);
    Some((days * 86_400 + h * 3600 + mi * 60 + s - offset_secs) * 1000 + millis)
}

/// The decimal number at `r` of `text`, digits only (no sign, no space).
fn num_in(text: &str, r: std::ops::Range<usize>) -> Option<i64> {
    let part = text.get(r)?;
    if !part.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}

/// Unix seconds as `metav1.Time` writes them: `2026-01-01T00:00:05Z` (always UTC).
/// Every object written is measured by encoding it, so this runs for each timestamp of each
/// write: years 0–9999 are written digit by digit ([`seconds_text`]), the rare others through
/// `format!`.
pub fn format_unix_secs(unix_secs: i64) -> String {
    if let Some(text) = seconds_text(unix_secs) {
        return text.as_str().to_string();
    }
    let (days, rem) = (unix_secs.div_euclid(86_400), unix_secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (h, min, sec) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{sec:02}Z")
}

/// The twenty bytes of a [`format_unix_secs`] text, held on the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecondsText([u8; 20]);

impl SecondsText {
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// [`format_unix_secs`] without allocating, for years 0–9999 (`None` for the others).
pub fn seconds_text(unix_secs: i64) -> Option<SecondsText> {
    let (days, rem) = (unix_secs.div_euclid(86_400), unix_secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (h, min, sec) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    if !(0..=9999).contains(&y) {
        return None;
    }
    // Two digits at a time (every value below is in 0..100): a write takes a timestamp per
    // condition, and this runs for each one the API server measures.
    let pair = |v: i64| [b'0' + (v / 10) as u8, b'0' + (v % 10) as u8];
    let [y0, y1] = pair(y / 100);
    let [y2, y3] = pair(y % 100);
    let [m0, m1] = pair(i64::from(m));
    let [d0, d1] = pair(i64::from(d));
    let [h0, h1] = pair(h);
    let [n0, n1] = pair(min);
    let [s0, s1] = pair(sec);
    let out = [
        y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, b'T', h0, h1, b':', n0, n1, b':', s0, s1, b'Z',
    ];
    Some(SecondsText(out))
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 to a (year, month, day) civil date (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
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
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

    #[test]
    fn zulu_and_numeric_offsets_name_the_same_instant() {
        let want = Some(T0 + 5_000);
        assert_eq!(parse_unix_millis("2026-01-01T00:00:05Z"), want);
        assert_eq!(parse_unix_millis("2026-01-01T00:00:05+00:00"), want);
        assert_eq!(parse_unix_millis("2026-01-01T09:00:05+09:00"), want);
        assert_eq!(parse_unix_millis("2025-12-31T19:00:05-05:00"), want);
        assert_eq!(
            parse_unix_millis("2026-01-01T00:00:05.25Z"),
            Some(T0 + 5_250)
        );
        assert_eq!(
            parse_unix_millis("2026-01-01T09:00:05.123456789+09:00"),
            Some(T0 + 5_123)
        );
    }

    #[test]
    fn what_go_refuses_is_refused() {
        for bad in [
            "",
            "2026-01-01",
            "2026-01-01T00:00:05",
            "2026-01-01t00:00:05Z",
            "2026-01-01T00:00:05z",
            "2026-01-01T00:00:05+0900",
            "2026-01-01T00:00:05+09",
            "2026-01-01T00:00:05.Z",
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-01-01T25:00:00Z",
            "2026-01-01T00:00:60Z",
            "2026-01-01T00:00:00+25:00",
            "x026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z ",
        ] {
            assert_eq!(parse_unix_millis(bad), None, "{bad:?}");
        }
        assert!(parse_unix_millis("2028-02-29T00:00:00Z").is_some());
    }

    #[test]
    fn output_is_utc_with_z() {
        let secs = parse_unix_millis("2026-01-01T09:00:05+09:00").map(|ms| ms / 1000);
        assert_eq!(
            secs.map(format_unix_secs).as_deref(),
            Some("2026-01-01T00:00:05Z")
        );
        assert_eq!(format_unix_secs(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn digit_by_digit_output_is_what_format_writes() {
        let reference = |secs: i64| {
            let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
            let (y, m, d) = civil_from_days(days);
            format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
                rem / 3600,
                (rem % 3600) / 60,
                rem % 60
            )
        };
        // From before year 0 to past 9999, through leap days and every second of a day.
        let mut secs = -62_200_000_000_i64;
        while secs < 253_500_000_000 {
            assert_eq!(format_unix_secs(secs), reference(secs), "{secs}");
            secs += 86_399 * 7 + 13;
        }
        for secs in [-1, 0, 59, 951_782_400, 1_767_225_599, 253_402_300_799] {
            assert_eq!(format_unix_secs(secs), reference(secs), "{secs}");
        }
        assert_eq!(format_unix_secs(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(format_unix_secs(253_402_300_800), "10000-01-01T00:00:00Z");
    }
}
