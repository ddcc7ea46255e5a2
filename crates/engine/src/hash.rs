//! FNV-1a, the one hash the engine uses wherever a value must hash the same on every platform
//! and in every release (unlike `std`'s randomly keyed hasher): child seeds of the simulation's
//! generator, container ids, the ledger fingerprint a saved journal is checked against, and
//! the pod-template-hash (32 bits, as the real Deployment controller's FNV-32a), the event
//! correlator's keys (128 bits). Also the engine's one kind of hash map ([`FixedHashMap`]), for
//! lookups by key.

/// The hasher of the engine's lookup maps: foldhash with a fixed seed (not a randomly keyed
/// `RandomState`), so a run is the same every time.
pub type FixedState = foldhash::fast::FixedState;

/// A hash map for finding values by key where a tree would compare long keys level by level
/// (store keys, cache keys, uids, the event correlator's joined keys). Its hasher has a fixed
/// seed ([`FixedState`]), and its iteration order is never used for anything a user sees:
/// whoever needs an order keeps it beside the map.
pub type FixedHashMap<K, V> = std::collections::HashMap<K, V, FixedState>;

/// The 64-bit FNV offset basis: the state before any byte.
pub const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0100_0000_01b3;
const FNV128_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV128_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
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

/// FNV-1a (128 bits) of `parts` joined by the unit separator U+001F (which no kind, name,
/// uid, type or reason contains), without building the joined string: a key of several
/// strings held as 16 bytes.
pub fn fnv1a128_joined(parts: &[&str]) -> u128 {
    let step = |h: u128, b: &u8| (h ^ u128::from(*b)).wrapping_mul(FNV128_PRIME);
    let mut h = FNV128_OFFSET;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h = step(h, &0x1f);
        }
        h = part.as_bytes().iter().fold(h, step);
    }
    h
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
        assert_eq!(
            fnv1a128_joined(&[""]),
            0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        );
        assert_eq!(
            fnv1a128_joined(&["a"]),
            0xd228_cb69_6f1a_8caf_7891_2b70_4e4a_8964
        );
    }

    #[test]
    fn joined_parts_hash_as_their_joined_string() {
        let whole = fnv1a128_joined(&["Pod\u{1f}default\u{1f}web"]);
        assert_eq!(fnv1a128_joined(&["Pod", "default", "web"]), whole);
        assert_ne!(fnv1a128_joined(&["Pod", "defaultweb"]), whole);
    }
}
