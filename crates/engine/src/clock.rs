//! Virtual time. The engine never reads a wall clock: the driver (a test, a benchmark, the
//! browser's event loop) owns time and moves it forward, so a run is reproducible and idle time
//! can be skipped by jumping to the next timer ([`advance_until`], the one loop that does).

use std::fmt;
use watchlab_apimachinery::rfc3339;

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

    /// RFC 3339 with second precision in UTC, as `metav1.Time` serializes
    /// (`2026-01-01T00:00:05Z`).
    pub fn to_rfc3339(self) -> String {
        rfc3339::format_unix_secs(self.unix_secs())
    }

    /// [`Timestamp::to_rfc3339`] on the stack (what serializing an object writes; `None`
    /// past the year 9999).
    pub fn rfc3339_text(self) -> Option<rfc3339::SecondsText> {
        rfc3339::seconds_text(self.unix_secs())
    }

    fn unix_secs(self) -> i64 {
        EPOCH_UNIX_SECONDS as i64 + (self.0 / 1000) as i64
    }

    /// Parses an RFC 3339 time as Go's `time.Parse(time.RFC3339, …)` does (`Z` or a numeric
    /// offset such as `+09:00`, any fraction kept to the millisecond); times before the virtual
    /// epoch clamp to zero.
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let unix_ms = rfc3339::parse_unix_millis(text)?;
        let since = unix_ms.saturating_sub(EPOCH_UNIX_SECONDS as i64 * 1000);
        Some(Timestamp(since.max(0) as u64))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// What virtual time moves: timers, and the work one instant does. The [`crate::cluster::Cluster`]
/// and the controllers' test [`crate::controllers::Harness`] are driven this way, both by
/// [`advance_until`].
pub trait Timers {
    fn now(&self) -> Timestamp;
    /// The earliest timer after [`Timers::now`], if any.
    fn next_timer(&self) -> Option<Timestamp>;
    /// Moves the clock to `t` (never back) and runs what is due then; true if `stop`, asked
    /// within the instant's work, cut it short (what is left runs first when time next moves).
    fn run_instant(&mut self, t: Timestamp, stop: &mut dyn FnMut() -> bool) -> bool;
}

/// The one loop that moves virtual time: runs the timers due by `t` one instant at a time, in
/// time order, then the instant `t` itself, so idle time costs nothing. After each instant it
/// asks `stop` (a browser frame's real-time budget; also asked within an instant's work) and
/// `done` (a test's condition on the driven value). Returns whether either ended it early,
/// with the clock at the last instant run; otherwise the clock is left at `t`.
pub fn advance_until<T: Timers>(
    timers: &mut T,
    t: Timestamp,
    stop: &mut dyn FnMut() -> bool,
    done: &mut dyn FnMut(&T) -> bool,
) -> bool {
    while let Some(next) = timers.next_timer().filter(|n| *n <= t) {
        if timers.run_instant(next, stop) || stop() || done(timers) {
            return true;
        }
    }
    let last = t.max(timers.now());
    timers.run_instant(last, stop) || done(timers)
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
