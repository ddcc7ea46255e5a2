//! How long a failed work item waits before its retry: client-go's workqueue rate limiters on
//! virtual time. A controller gets `DefaultControllerRateLimiter` — the larger of a per-item
//! exponential backoff (a key that keeps failing backs off alone) and an overall token bucket
//! (a burst of failures cannot flood the API server).

use std::collections::BTreeMap;

use crate::clock::Timestamp;

/// Decides the delay of each rate-limited re-add (`workqueue.TypedRateLimiter`).
pub trait RateLimiter<T> {
    /// The delay for this re-add of `item` at `now`, in ms (counts as one more failure).
    fn when(&mut self, item: &T, now: Timestamp) -> u64;
    /// The item succeeded: forget its failures.
    fn forget(&mut self, item: &T);
    /// Failures counted for `item` since it was last forgotten.
    fn num_requeues(&self, item: &T) -> u32;
}

/// `ItemExponentialFailureRateLimiter`: `base × 2^failures`, capped at `max`.
#[derive(Debug, Clone)]
pub struct ItemExponentialFailureRateLimiter<T> {
    base_ms: u64,
    max_ms: u64,
    failures: BTreeMap<T, u32>,
}

impl<T: Ord + Clone> ItemExponentialFailureRateLimiter<T> {
    pub fn new(base_ms: u64, max_ms: u64) -> Self {
        ItemExponentialFailureRateLimiter {
            base_ms,
            max_ms,
            failures: BTreeMap::new(),
        }
    }
}

impl<T: Ord + Clone> RateLimiter<T> for ItemExponentialFailureRateLimiter<T> {
    fn when(&mut self, item: &T, _now: Timestamp) -> u64 {
        let failures = self.failures.entry(item.clone()).or_insert(0);
        let exp = *failures;
        *failures = failures.saturating_add(1);
        let backoff = 1u64
            .checked_shl(exp)
            .and_then(|factor| self.base_ms.checked_mul(factor))
            .unwrap_or(self.max_ms);
        backoff.min(self.max_ms)
    }

    fn forget(&mut self, item: &T) {
        self.failures.remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.get(item).copied().unwrap_or(0)
    }
}

/// `BucketRateLimiter`: a token bucket of `burst` tokens refilled at `qps` per second
/// (`golang.org/x/time/rate`, reservation semantics: a re-add always gets a token, possibly one
/// borrowed from the future, and waits until it would have been available).
#[derive(Debug, Clone)]
pub struct BucketRateLimiter {
    qps: u64,
    burst: u64,
    /// Tokens × 1000 (so a refill of `qps` per second is exactly `qps` per ms); negative when
    /// reservations are ahead of the refill.
    milli_tokens: i64,
    last: Option<Timestamp>,
}

impl BucketRateLimiter {
    /// A full bucket (`rate.NewLimiter(rate.Limit(qps), burst)` starts full).
    pub fn new(qps: u64, burst: u64) -> Self {
        let milli_tokens = i64::try_from(burst.saturating_mul(1000)).unwrap_or(i64::MAX);
        BucketRateLimiter {
            qps,
            burst,
            milli_tokens,
            last: None,
        }
    }
}

impl<T> RateLimiter<T> for BucketRateLimiter {
    fn when(&mut self, _item: &T, now: Timestamp) -> u64 {
        let elapsed = self.last.map_or(0, |last| now.millis_since(last));
        let cap = i64::try_from(self.burst.saturating_mul(1000)).unwrap_or(i64::MAX);
        let refill = i64::try_from(elapsed.saturating_mul(self.qps)).unwrap_or(i64::MAX);
        self.milli_tokens = self
            .milli_tokens
            .saturating_add(refill)
            .min(cap)
            .saturating_sub(1000);
        self.last = Some(now.max(self.last.unwrap_or(now)));
        if self.milli_tokens >= 0 || self.qps == 0 {
            return 0;
        }
        self.milli_tokens.unsigned_abs().div_ceil(self.qps)
    }

    fn forget(&mut self, _item: &T) {}

    fn num_requeues(&self, _item: &T) -> u32 {
        0
    }
}

/// `workqueue.DefaultControllerRateLimiter()`:
/// `MaxOf(ItemExponentialFailureRateLimiter(5ms, 1000s), BucketRateLimiter{10 qps, burst 100})`.
#[derive(Debug, Clone)]
pub struct ControllerRateLimiter<T> {
    per_item: ItemExponentialFailureRateLimiter<T>,
    overall: BucketRateLimiter,
}

impl<T: Ord + Clone> Default for ControllerRateLimiter<T> {
    fn default() -> Self {
        ControllerRateLimiter {
            per_item: ItemExponentialFailureRateLimiter::new(5, 1000 * 1000),
            overall: BucketRateLimiter::new(10, 100),
        }
    }
}

impl<T: Ord + Clone> RateLimiter<T> for ControllerRateLimiter<T> {
    /// Both limiters count the re-add (as `MaxOfRateLimiter` asks each); the longer wait wins.
    fn when(&mut self, item: &T, now: Timestamp) -> u64 {
        let a = self.per_item.when(item, now);
        let b = RateLimiter::<T>::when(&mut self.overall, item, now);
        a.max(b)
    }

    fn forget(&mut self, item: &T) {
        self.per_item.forget(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.per_item.num_requeues(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_item_backoff_doubles_from_5ms_to_the_cap() {
        let mut r = ItemExponentialFailureRateLimiter::new(5, 1_000_000);
        let t = Timestamp::ZERO;
        let waits: Vec<u64> = (0..5).map(|_| r.when(&"a", t)).collect();
        assert_eq!(waits, [5, 10, 20, 40, 80]);
        assert_eq!(r.when(&"b", t), 5, "items back off independently");
        assert_eq!(r.num_requeues(&"a"), 5);
        for _ in 0..30 {
            r.when(&"a", t);
        }
        assert_eq!(r.when(&"a", t), 1_000_000);
        for _ in 0..100 {
            assert_eq!(r.when(&"a", t), 1_000_000, "no overflow past 2^64");
        }
        r.forget(&"a");
        assert_eq!(r.num_requeues(&"a"), 0);
        assert_eq!(r.when(&"a", t), 5);
    }

    #[test]
    fn bucket_allows_a_burst_then_ten_per_second() {
        let mut b = BucketRateLimiter::new(10, 100);
        let t = Timestamp::from_millis(1000);
        for _ in 0..100 {
            assert_eq!(RateLimiter::<&str>::when(&mut b, &"x", t), 0);
        }
        assert_eq!(RateLimiter::<&str>::when(&mut b, &"x", t), 100);
        assert_eq!(RateLimiter::<&str>::when(&mut b, &"x", t), 200);
        // 300 ms later three tokens have refilled; two were already borrowed.
        assert_eq!(
            RateLimiter::<&str>::when(&mut b, &"x", t.plus_millis(300)),
            0
        );
        assert_eq!(
            RateLimiter::<&str>::when(&mut b, &"x", t.plus_millis(300)),
            100
        );
    }

    #[test]
    fn controller_limiter_takes_the_larger_wait() {
        let mut r = ControllerRateLimiter::default();
        let t = Timestamp::ZERO;
        assert_eq!(r.when(&"a", t), 5);
        assert_eq!(r.when(&"a", t), 10);
        assert_eq!(r.when(&"a", t), 20);
        // Exhaust the bucket with other keys: its wait then dominates a fresh key's 5 ms.
        let mut r2: ControllerRateLimiter<u32> = ControllerRateLimiter::default();
        for i in 0..100 {
            assert_eq!(r2.when(&i, t), 5);
        }
        assert_eq!(
            r2.when(&1000, t),
            100,
            "bucket empty: 100 ms beats the item's 5 ms"
        );
        assert_eq!(r2.num_requeues(&1000), 1);
    }
}
