//! client-go's `EventSourceObjectSpamFilter`: the last step of the event correlator, which
//! drops an event when its source has already said too much about the same object. Each
//! (source component, source host, involved object) pair has a token bucket of 25 events
//! refilled one per 5 minutes (`defaultSpamBurst`, `defaultSpamQPS` = 1/300); an event that
//! finds the bucket empty is never written. So a ReplicaSet creating 3,000 pods records 25
//! `SuccessfulCreate`s (the 10th and later folded into the combined Event by the aggregator) and
//! then one per 5 minutes, and a pod crash-looping for an hour stops adding to its counts after
//! its first 25 events — what a real cluster's `kubectl get events` shows. The buckets sit in an
//! LRU of 4,096 (`maxLruCacheEntries`); a forgotten pair starts again with a full bucket.

use super::lru::{Lru, MAX_CACHE_ENTRIES};
use crate::clock::Timestamp;

/// client-go `defaultSpamBurst`.
pub const SPAM_BURST: u64 = 25;
/// One token per `1 / defaultSpamQPS` = 300 s.
pub const SPAM_REFILL_MS: u64 = 300_000;
/// A full bucket, in milliseconds of refill.
const FULL_MS: u64 = SPAM_BURST * SPAM_REFILL_MS;

/// A passive token bucket (`flowcontrol.NewTokenBucketPassiveRateLimiter`): nothing waits, an
/// event either takes a token or is dropped. Tokens are counted in milliseconds of refill
/// (one token = [`SPAM_REFILL_MS`]), so the arithmetic is exact.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    refill_ms: u64,
    at: Timestamp,
}

impl Bucket {
    fn full(now: Timestamp) -> Self {
        Bucket {
            refill_ms: FULL_MS,
            at: now,
        }
    }

    /// `TryAccept`: refills for the time since the last try, then takes a token if there is one.
    fn try_accept(&mut self, now: Timestamp) -> bool {
        let elapsed = now.millis_since(self.at);
        self.at = self.at.max(now);
        self.refill_ms = self.refill_ms.saturating_add(elapsed).min(FULL_MS);
        if self.refill_ms < SPAM_REFILL_MS {
            return false;
        }
        self.refill_ms -= SPAM_REFILL_MS;
        true
    }
}

/// client-go `getSpamKey`'s joined string (source component and host, the involved object's
/// kind, namespace, name, uid and apiVersion), held as its 128-bit hash
/// ([`crate::hash::hash128_joined`]).
pub type SpamKey = u128;

/// The buckets of one recorder, by spam key.
#[derive(Debug)]
pub struct SpamFilter {
    buckets: Lru<SpamKey, Bucket>,
    /// Events dropped so far.
    filtered: u64,
}

impl Default for SpamFilter {
    fn default() -> Self {
        SpamFilter {
            buckets: Lru::new(MAX_CACHE_ENTRIES),
            filtered: 0,
        }
    }
}

impl SpamFilter {
    /// Whether an event under `key` may be written at `now`.
    pub fn allow(&mut self, key: SpamKey, now: Timestamp) -> bool {
        let allowed = match self.buckets.get_mut(&key) {
            Some(bucket) => bucket.try_accept(now),
            None => {
                let mut bucket = Bucket::full(now);
                let allowed = bucket.try_accept(now);
                self.buckets.put(key, bucket);
                allowed
            }
        };
        if !allowed {
            self.filtered += 1;
        }
        allowed
    }

    pub fn filtered(&self) -> u64 {
        self.filtered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_25_then_one_event_per_five_minutes() {
        let mut filter = SpamFilter::default();
        let key: SpamKey =
            crate::hash::hash128_joined(&["kubelet", "node-1", "Pod", "default", "web"]);
        let t0 = Timestamp::from_secs(100);
        let accepted = (0..40).filter(|_| filter.allow(key, t0)).count();
        assert_eq!(accepted, 25);
        assert_eq!(filter.filtered(), 15);
        assert!(!filter.allow(key, t0.plus_secs(299)));
        assert!(filter.allow(key, t0.plus_secs(300)));
        assert!(!filter.allow(key, t0.plus_secs(301)));
        // Another object of the same source has its own bucket.
        assert!(filter.allow(
            crate::hash::hash128_joined(&["kubelet", "node-1", "Pod", "default", "db"]),
            t0
        ));
    }

    #[test]
    fn an_idle_bucket_refills_to_the_burst_and_no_further() {
        let mut filter = SpamFilter::default();
        let key: SpamKey = 7;
        let t0 = Timestamp::from_secs(0);
        for _ in 0..25 {
            assert!(filter.allow(key, t0));
        }
        let later = t0.plus_secs(24 * 3600);
        let accepted = (0..30).filter(|_| filter.allow(key, later)).count();
        assert_eq!(accepted, 25);
    }
}
