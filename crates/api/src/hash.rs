//! FNV-1a, the one hash the engine uses wherever a value must hash the same on every platform
//! and in every release (unlike `std`'s randomly keyed hasher): child seeds of the simulation's
//! generator, container ids, the ledger fingerprint a saved journal is checked against, and
//! the pod-template-hash (32 bits, as the real Deployment controller's FNV-32a). Also the
//! engine's one kind of hash map ([`FixedHashMap`]), for lookups by key, and the event
//! correlator's 128-bit keys ([`hash128_joined`]), which only need to tell keys apart within
//! one run and so use the maps' faster hasher.

/// The hasher of the engine's lookup maps: foldhash with a fixed seed (not a randomly keyed
/// `RandomState`), so a run is the same every time.
pub type FixedState = foldhash::fast::FixedState;

use std::hash::{BuildHasher, Hasher};

/// A hash map for finding values by key where a tree would compare long keys level by level
/// (store keys, cache keys, uids, the event correlator's joined keys). Its hasher has a fixed
/// seed ([`FixedState`]), and its iteration order is never used for anything a user sees:
/// whoever needs an order keeps it beside the map.
pub type FixedHashMap<K, V> = std::collections::HashMap<K, V, FixedState>;

/// A hash set under the same terms as [`FixedHashMap`].
pub type FixedHashSet<T> = std::collections::HashSet<T, FixedState>;

/// The 64-bit FNV offset basis: the state before any byte.
pub const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0100_0000_01b3;
const FNV32_OFFSET: u32 = 0x811c_9dc5;
const FNV32_PRIME: u32 = 0x0100_0193;

/// FNV-1a (64 bits) of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_extend(FNV64_OFFSET, bytes)
}

/// Continues an FNV-1a (64 bits) state `h` over `bytes`, for hashing in pieces.
pub fn fnv1a64_extend(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(FNV64_PRIME))
}

/// A 128-bit hash of `parts` joined by the unit separator U+001F (which no kind, name, uid,
/// type or reason contains), without building the joined string: a key of several strings
/// held as 16 bytes. Two passes of foldhash with different fixed seeds, each taking the bytes
/// eight at a time (FNV-1a's 128-bit multiply per byte was ~2% of a whole cluster's work, more
/// in wasm32, where 128-bit arithmetic is emulated). Equal parts give equal keys on one
/// platform and build, all the correlator needs; the value is never saved or shown.
pub fn hash128_joined(parts: &[&str]) -> u128 {
    let [high, low] = [0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344].map(|seed: u64| {
        let mut h = FixedState::with_seed(seed).build_hasher();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                h.write_u8(0x1f);
            }
            h.write(part.as_bytes());
        }
        h.finish()
    });
    (u128::from(high) << 64) | u128::from(low)
}

/// FNV-1a (32 bits) of `bytes`.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(FNV32_OFFSET, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(FNV32_PRIME)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_test_vectors() {
        // From the FNV reference (draft-eastlake-fnv): "" and "a".
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a64_extend(fnv1a64(b"fo"), b"o"), fnv1a64(b"foo"));
    }

    #[test]
    fn joined_keys_are_equal_for_equal_parts_only() {
        let key = hash128_joined(&["Pod", "default", "web"]);
        assert_eq!(hash128_joined(&["Pod", "default", "web"]), key);
        for other in [
            &["Pod", "defaultweb"][..],
            &["Pod", "default", "web", ""],
            &["Pod", "default", "wed"],
            &["Pod", "default"],
            &[],
        ] {
            assert_ne!(hash128_joined(other), key, "{other:?}");
        }
        // Both halves carry the key.
        assert_ne!(key >> 64, 0);
        assert_ne!(key as u64, 0);
    }
}
