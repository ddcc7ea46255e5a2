//! Exponential backoff on virtual time, with the semantics of `k8s.io/apimachinery/pkg/util/wait`:
//! `Backoff.Step` (duration grows by `factor` up to `cap`, each wait jittered upward by up to
//! `jitter × duration`) and the reflector's `ExponentialBackoffManager` (which starts over after a
//! quiet period). Waits are whole milliseconds, the virtual clock's resolution: a jittered wait
//! is rounded to the nearest millisecond.

use crate::clock::Timestamp;
use crate::rng::SimRng;

/// `wait.Backoff`: a sequence of growing waits.
#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    /// The next wait before jitter, in milliseconds.
    pub duration_ms: u64,
    /// Multiplies `duration_ms` after each step (0 or 1 = constant).
    pub factor: f64,
    /// Each wait is `duration + rand[0,1) × jitter × duration` (0 = none).
    pub jitter: f64,
    /// Steps left; once 0 the duration stops growing (and, for retries, attempts stop).
    pub steps: u32,
    /// Upper bound for `duration_ms` (0 = none); reaching it sets `steps` to 0, as in Go.
    pub cap_ms: u64,
}

impl Backoff {
    /// client-go `retry.DefaultRetry`: `{Steps: 5, Duration: 10ms, Factor: 1.0, Jitter: 0.1}`,
    /// the backoff `retry.RetryOnConflict` is usually given.
    pub fn default_retry() -> Self {
        Backoff {
            duration_ms: 10,
            factor: 1.0,
            jitter: 0.1,
            steps: 5,
            cap_ms: 0,
        }
    }

    /// client-go `retry.DefaultBackoff`: `{Steps: 4, Duration: 10ms, Factor: 5.0, Jitter: 0.1}`,
    /// for conflicts that need a longer pause.
    pub fn default_backoff() -> Self {
        Backoff {
            duration_ms: 10,
            factor: 5.0,
            jitter: 0.1,
            steps: 4,
            cap_ms: 0,
        }
    }

    /// The next wait (`Backoff.Step`): advances the sequence and returns the jittered wait.
    pub fn step(&mut self, rng: &mut SimRng) -> u64 {
        if self.steps < 1 {
            return jittered(self.duration_ms, self.jitter, rng);
        }
        self.steps -= 1;
        let wait = self.duration_ms;
        if self.factor != 0.0 {
            let next = (self.duration_ms as f64 * self.factor).round();
            self.duration_ms = if next >= u64::MAX as f64 {
                u64::MAX
            } else {
                next as u64
            };
            if self.cap_ms > 0 && self.duration_ms > self.cap_ms {
                self.duration_ms = self.cap_ms;
                self.steps = 0;
            }
        }
        jittered(wait, self.jitter, rng)
    }
}

/// `wait.Jitter` for a positive factor: `duration + rand[0,1) × factor × duration`.
fn jittered(duration_ms: u64, jitter: f64, rng: &mut SimRng) -> u64 {
    if jitter <= 0.0 {
        return duration_ms;
    }
    let extra = (rng.unit() * jitter * duration_ms as f64).round();
    duration_ms.saturating_add(extra as u64)
}

/// The reflector's backoff between failed list/watch cycles: `wait.NewExponentialBackoffManager`
/// as client-go's `NewReflectorWithOptions` builds it — initial 800 ms, max 30 s, reset after
/// 2 min without backoff, factor 2.0, jitter 1.0.
#[derive(Debug, Clone, PartialEq)]
pub struct BackoffManager {
    initial_ms: u64,
    reset_after_ms: u64,
    backoff: Backoff,
    last_backoff_start: Option<Timestamp>,
}

impl BackoffManager {
    pub fn new(
        initial_ms: u64,
        max_ms: u64,
        reset_after_ms: u64,
        factor: f64,
        jitter: f64,
    ) -> Self {
        BackoffManager {
            initial_ms,
            reset_after_ms,
            // Go sets Steps to MaxInt32 "and assumes we will never use up the steps".
            backoff: Backoff {
                duration_ms: initial_ms,
                factor,
                jitter,
                steps: u32::MAX,
                cap_ms: max_ms,
            },
            last_backoff_start: None,
        }
    }

    /// client-go reflector defaults (`initConnBackoff`, `maxBackoff`, `resetDuration`,
    /// `backoffFactor`, `jitter` in `NewReflectorWithOptions`).
    pub fn reflector_default() -> Self {
        BackoffManager::new(800, 30_000, 120_000, 2.0, 1.0)
    }

    /// The wait before the next attempt, starting over when the previous backoff began more
    /// than `reset_after` ago (`getNextBackoff`).
    pub fn next_backoff(&mut self, now: Timestamp, rng: &mut SimRng) -> u64 {
        let stale = self
            .last_backoff_start
            .is_none_or(|t| now.millis_since(t) > self.reset_after_ms);
        if stale {
            self.backoff.steps = u32::MAX;
            self.backoff.duration_ms = self.initial_ms;
        }
        self.last_backoff_start = Some(now);
        self.backoff.step(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_jitter_the_sequence_grows_to_the_cap() {
        let mut rng = SimRng::seed_from_u64(1);
        let mut b = Backoff {
            duration_ms: 800,
            factor: 2.0,
            jitter: 0.0,
            steps: u32::MAX,
            cap_ms: 30_000,
        };
        let waits: Vec<u64> = (0..8).map(|_| b.step(&mut rng)).collect();
        assert_eq!(
            waits,
            [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]
        );
        assert_eq!(b.steps, 0);
    }

    #[test]
    fn jitter_only_adds_up_to_the_factor() {
        let mut rng = SimRng::seed_from_u64(2);
        for _ in 0..200 {
            let mut b = Backoff::default_retry();
            let w = b.step(&mut rng);
            assert!((10..=11).contains(&w), "{w}");
        }
        let mut m = BackoffManager::reflector_default();
        for _ in 0..50 {
            let w = m.next_backoff(Timestamp::ZERO, &mut rng);
            assert!(w <= 60_000, "{w}");
        }
    }

    #[test]
    fn default_backoff_grows_by_five() {
        let mut rng = SimRng::seed_from_u64(3);
        let mut b = Backoff {
            jitter: 0.0,
            ..Backoff::default_backoff()
        };
        let waits: Vec<u64> = (0..4).map(|_| b.step(&mut rng)).collect();
        assert_eq!(waits, [10, 50, 250, 1250]);
    }

    #[test]
    fn manager_starts_over_after_a_quiet_period() {
        let mut rng = SimRng::seed_from_u64(4);
        let mut m = BackoffManager::new(800, 30_000, 120_000, 2.0, 0.0);
        let t = Timestamp::from_secs(10);
        assert_eq!(m.next_backoff(t, &mut rng), 800);
        assert_eq!(m.next_backoff(t.plus_secs(1), &mut rng), 1600);
        assert_eq!(m.next_backoff(t.plus_secs(3), &mut rng), 3200);
        // More than 2 minutes after the last backoff began: back to the initial wait.
        assert_eq!(m.next_backoff(t.plus_secs(3 + 121), &mut rng), 800);
    }

    #[test]
    fn reflector_jitter_one_stays_within_double() {
        let mut rng = SimRng::seed_from_u64(5);
        let mut m = BackoffManager::reflector_default();
        let first = m.next_backoff(Timestamp::ZERO, &mut rng);
        assert!((800..=1600).contains(&first), "{first}");
    }
}
