//! Virtual time. The engine never reads a wall clock: the driver (a test, a benchmark, the
//! browser's event loop) owns time and moves it forward, so a run is reproducible and idle time
//! can be skipped by jumping to the next timer ([`advance_until`], the one loop that does).

use std::fmt;
use std::num::NonZeroU64;
use watchlab_apimachinery::rfc3339;

/// Milliseconds of virtual time since the simulated cluster started.
///
/// Held as the milliseconds plus one in a `NonZeroU64`, so that an `Option<Timestamp>` takes
/// the eight bytes of the time itself, not sixteen: objects carry many optional times (a pod
/// condition two, an Event three, every object's creation and deletion), and every version
/// of every object is kept in the ledger's history. The last millisecond, `u64::MAX`, is
/// given up for it (times saturate one short of it).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(NonZeroU64);

/// The calendar instant the virtual clock's zero maps to (2026-01-01T00:00:00Z), so timestamps
/// print as real RFC 3339 times the way the API server writes them.
pub const EPOCH_UNIX_SECONDS: u64 = 1_767_225_600;

impl Timestamp {
    pub const ZERO: Timestamp = Timestamp::from_millis(0);

    /// The time `ms` milliseconds after the virtual clock's zero.
    pub const fn from_millis(ms: u64) -> Self {
        match NonZeroU64::new(ms.saturating_add(1)) {
            Some(held) => Timestamp(held),
            None => Timestamp(NonZeroU64::MAX),
        }
    }

    pub fn from_secs(secs: u64) -> Self {
        Timestamp::from_millis(secs.saturating_mul(1000))
    }

    pub const fn as_millis(self) -> u64 {
        self.0.get() - 1
    }

    pub fn plus_millis(self, ms: u64) -> Self {
        Timestamp::from_millis(self.as_millis().saturating_add(ms))
    }

    pub fn plus_secs(self, secs: u64) -> Self {
        self.plus_millis(secs.saturating_mul(1000))
    }

    /// Milliseconds from `earlier` to `self`, zero if `earlier` is later.
    pub fn millis_since(self, earlier: Timestamp) -> u64 {
        self.as_millis().saturating_sub(earlier.as_millis())
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
        EPOCH_UNIX_SECONDS as i64 + (self.as_millis() / 1000) as i64
    }

    /// Parses an RFC 3339 time as Go's `time.Parse(time.RFC3339, …)` does (`Z` or a numeric
    /// offset such as `+09:00`, any fraction kept to the millisecond); times before the virtual
    /// epoch clamp to zero.
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let unix_ms = rfc3339::parse_unix_millis(text)?;
        let since = unix_ms.saturating_sub(EPOCH_UNIX_SECONDS as i64 * 1000);
        Some(Timestamp::from_millis(since.max(0) as u64))
    }
}

impl Default for Timestamp {
    fn default() -> Self {
        Timestamp::ZERO
    }
}

/// `Timestamp(5000)`: the milliseconds, not the value held.
impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Timestamp").field(&self.as_millis()).finish()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// What virtual time moves: timers, and the work one instant does. The engine's
/// `watchlab_engine::cluster::Cluster` and the controllers' test harness
/// (`watchlab_engine::controllers::Harness`) are driven this way, both by [`advance_until`].
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
    fn an_optional_time_is_eight_bytes_and_every_millisecond_but_the_last_round_trips() {
        assert_eq!(std::mem::size_of::<Option<Timestamp>>(), 8);
        for ms in [0, 1, 999, 1_000, u64::MAX - 1] {
            assert_eq!(Timestamp::from_millis(ms).as_millis(), ms);
        }
        assert_eq!(Timestamp::from_millis(u64::MAX).as_millis(), u64::MAX - 1);
        assert_eq!(Timestamp::default(), Timestamp::ZERO);
        assert!(Timestamp::from_millis(0) < Timestamp::from_millis(1));
        assert_eq!(format!("{:?}", Timestamp::from_millis(5)), "Timestamp(5)");
    }

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
