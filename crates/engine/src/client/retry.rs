//! Read-modify-write under optimistic concurrency: client-go's `retry.RetryOnConflict` /
//! `retry.OnError`. A write with a stale resourceVersion gets `409 Conflict`; the caller re-reads,
//! re-applies its change and tries again after a short backoff. Time is virtual, so instead of
//! sleeping the retry hands each attempt its number and virtual start time, and reports the
//! waits it would have slept.

use super::backoff::Backoff;
use super::error::ClientError;
use crate::clock::Timestamp;
use crate::rng::SimRng;

/// One try of the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    /// 1 for the first try.
    pub number: u32,
    /// The virtual time this try starts at: the start plus every wait so far.
    pub at: Timestamp,
}

/// How a retried operation went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryOutcome<T, E> {
    /// The last attempt's result: success, a non-retriable error, or the last retriable error
    /// once the steps ran out.
    pub result: Result<T, E>,
    /// Attempts made (1 = succeeded or failed at once).
    pub attempts: u32,
    /// The virtual waits between attempts, in milliseconds (`attempts - 1` of them).
    pub waits_ms: Vec<u64>,
    /// When the last attempt started.
    pub finished_at: Timestamp,
}

/// Errors that can say whether they are a `409 Conflict` (`apierrors.IsConflict`).
pub trait ConflictError {
    fn is_conflict(&self) -> bool;
}

impl ConflictError for ClientError {
    fn is_conflict(&self) -> bool {
        ClientError::is_conflict(self)
    }
}

/// `retry.OnError`: runs `operation` until it succeeds, fails with an error `retriable` refuses,
/// or `backoff.steps` attempts have been made (`wait.ExponentialBackoff`: a wait of
/// `backoff.step()` between attempts, none after the last). A backoff of 0 steps still makes
/// one attempt (Go would make none and report success).
pub fn on_error<T, E>(
    mut backoff: Backoff,
    rng: &mut SimRng,
    start: Timestamp,
    retriable: impl Fn(&E) -> bool,
    mut operation: impl FnMut(Attempt) -> Result<T, E>,
) -> RetryOutcome<T, E> {
    let mut at = start;
    let mut waits_ms = Vec::new();
    let mut number = 1;
    loop {
        let result = operation(Attempt { number, at });
        let give_up = match &result {
            Ok(_) => true,
            Err(e) => !retriable(e) || backoff.steps <= 1,
        };
        if give_up {
            return RetryOutcome {
                result,
                attempts: number,
                waits_ms,
                finished_at: at,
            };
        }
        let wait = backoff.step(rng);
        waits_ms.push(wait);
        at = at.plus_millis(wait);
        number += 1;
    }
}

/// `retry.RetryOnConflict`: [`on_error`] retrying only `409 Conflict`. Usually given
/// [`Backoff::default_retry`] (5 attempts, 10 ms apart with 10% jitter).
pub fn retry_on_conflict<T, E: ConflictError>(
    backoff: Backoff,
    rng: &mut SimRng,
    start: Timestamp,
    operation: impl FnMut(Attempt) -> Result<T, E>,
) -> RetryOutcome<T, E> {
    on_error(backoff, rng, start, |e: &E| e.is_conflict(), operation)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict() -> ClientError {
        ClientError::conflict(
            "Operation cannot be fulfilled on pods \"web\": the object has been modified; \
             please apply your changes to the latest version and try again",
        )
    }

    #[test]
    fn conflict_then_success_rereads_and_succeeds_on_attempt_two() {
        let mut rng = SimRng::seed_from_u64(1);
        // A tiny read-modify-write against a versioned cell: the first read races with a
        // concurrent writer, so its write is rejected.
        let mut stored = (7u64, 0u32); // (resourceVersion, replicas)
        let mut reads = Vec::new();
        let out = retry_on_conflict(
            Backoff::default_retry(),
            &mut rng,
            Timestamp::from_millis(1000),
            |a| {
                let (rv, replicas) = stored;
                reads.push(rv);
                if a.number == 1 {
                    stored = (8, 5); // someone else wrote meanwhile
                }
                if stored.0 != rv {
                    return Err(conflict());
                }
                stored = (rv + 1, replicas + 1);
                Ok(stored.0)
            },
        );
        assert_eq!(out.result, Ok(9));
        assert_eq!(out.attempts, 2);
        assert_eq!(reads, [7, 8], "attempt 2 re-read the latest version");
        assert_eq!(
            stored,
            (9, 6),
            "the change was re-applied on top of the other write"
        );
        assert_eq!(out.waits_ms.len(), 1);
        assert!((10..=11).contains(&out.waits_ms[0]));
        assert_eq!(
            out.finished_at,
            Timestamp::from_millis(1000 + out.waits_ms[0])
        );
    }

    #[test]
    fn five_conflicts_give_up_with_the_conflict() {
        let mut rng = SimRng::seed_from_u64(2);
        let mut starts = Vec::new();
        let out: RetryOutcome<(), ClientError> =
            retry_on_conflict(Backoff::default_retry(), &mut rng, Timestamp::ZERO, |a| {
                starts.push(a.at);
                Err(conflict())
            });
        assert_eq!(out.result, Err(conflict()));
        assert_eq!(out.attempts, 5);
        assert_eq!(out.waits_ms.len(), 4);
        assert!(
            out.waits_ms.iter().all(|w| (10..=11).contains(w)),
            "{:?}",
            out.waits_ms
        );
        assert!(starts.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn other_errors_are_not_retried() {
        let mut rng = SimRng::seed_from_u64(3);
        let out: RetryOutcome<(), ClientError> =
            retry_on_conflict(Backoff::default_retry(), &mut rng, Timestamp::ZERO, |_| {
                Err(ClientError::new(404, "NotFound", "pods \"web\" not found"))
            });
        assert_eq!(out.attempts, 1);
        assert!(out.waits_ms.is_empty());
        assert_eq!(out.result.map_err(|e| e.code), Err(404));
    }

    #[test]
    fn default_backoff_waits_grow_fivefold() {
        let mut rng = SimRng::seed_from_u64(4);
        let out: RetryOutcome<(), ClientError> = on_error(
            Backoff::default_backoff(),
            &mut rng,
            Timestamp::ZERO,
            |_| true,
            |_| Err(conflict()),
        );
        assert_eq!(out.attempts, 4);
        let bases = [10u64, 50, 250];
        for (w, base) in out.waits_ms.iter().zip(bases) {
            assert!(*w >= base && *w <= base + base / 10, "{w} vs {base}");
        }
    }
}
