//! etcd's space quota (`--quota-backend-bytes`) and request size limit (`--max-request-bytes`).
//! Every revision the store keeps costs what etcd's `backendQuota` charges for it: the key, the
//! encoded value and `kvOverhead` for the key's metadata. A put that would take the kept
//! revisions past the quota is refused with etcd's `mvcc: database space exceeded`; deletes,
//! reads and compaction still work, and compaction gives the space back.
//!
//! etcd compares the bbolt file's size, which compaction frees for reuse but does not shrink,
//! and a refused put also raises the NOSPACE alarm that only `etcdctl alarm disarm` clears;
//! here the sum of the kept revisions' costs stands for the file, and room freed by compaction
//! is usable at once (README, differences from Kubernetes).

use std::sync::Arc;

use super::error::StoreError;

/// etcd's `DefaultQuotaBytes`: 2 GiB.
pub const DEFAULT_QUOTA_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// etcd's `kvOverhead`: "an estimate for the cost of storing a key's metadata", 256 bytes.
pub const KV_OVERHEAD: usize = 256;

/// etcd's `--max-request-bytes` default, 1.5 MiB: the most a put's key and value may hold.
pub const MAX_REQUEST_BYTES: usize = 1_572_864;

/// A value's length as etcd would store it (the API server's objects: their JSON).
pub trait Encoded {
    fn encoded_len(&self) -> usize;
}

impl Encoded for u32 {
    fn encoded_len(&self) -> usize {
        std::mem::size_of::<u32>()
    }
}

impl Encoded for &str {
    fn encoded_len(&self) -> usize {
        self.len()
    }
}

impl Encoded for Arc<str> {
    fn encoded_len(&self) -> usize {
        self.len()
    }
}

/// What one put costs, after etcd's request size check: `Err` if key and value exceed
/// [`MAX_REQUEST_BYTES`].
pub fn put_cost(key: &str, value: &impl Encoded) -> Result<u32, StoreError> {
    let len = key.len().saturating_add(value.encoded_len());
    if len > MAX_REQUEST_BYTES {
        return Err(StoreError::RequestTooLarge {
            len,
            limit: MAX_REQUEST_BYTES,
        });
    }
    // At most MAX_REQUEST_BYTES + KV_OVERHEAD: always fits.
    Ok(u32::try_from(len + KV_OVERHEAD).unwrap_or(u32::MAX))
}

/// What a delete's tombstone costs: its key and metadata (etcd charges a delete request
/// nothing, so a full store still takes it).
pub fn tombstone_cost(key: &str) -> u32 {
    u32::try_from(key.len().saturating_add(KV_OVERHEAD)).unwrap_or(u32::MAX)
}

/// etcd's `backendQuota.Available`: whether `adding` more bytes (0 for a request that puts
/// nothing, always allowed) fit beside `in_use` under `quota`.
pub fn available(in_use: u64, adding: u64, quota: u64) -> Result<(), StoreError> {
    if adding == 0 || in_use.saturating_add(adding) < quota {
        Ok(())
    } else {
        Err(StoreError::NoSpace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_are_etcds_defaults() {
        assert_eq!(DEFAULT_QUOTA_BYTES, 2_147_483_648);
        assert_eq!(MAX_REQUEST_BYTES, 1_572_864);
        assert_eq!(put_cost("/k", &"abc"), Ok(2 + 3 + 256));
        assert_eq!(tombstone_cost("/k"), 258);
        let big = "v".repeat(MAX_REQUEST_BYTES);
        assert_eq!(
            put_cost("/k", &big.as_str()),
            Err(StoreError::RequestTooLarge {
                len: MAX_REQUEST_BYTES + 2,
                limit: MAX_REQUEST_BYTES
            })
        );
    }

    #[test]
    fn a_put_must_fit_below_the_quota_but_a_delete_always_passes() {
        assert_eq!(available(90, 9, 100), Ok(()));
        assert_eq!(available(90, 10, 100), Err(StoreError::NoSpace));
        assert_eq!(available(200, 0, 100), Ok(()));
        assert_eq!(
            StoreError::NoSpace.to_string(),
            "etcdserver: mvcc: database space exceeded"
        );
    }
}
