//! The one source of randomness: a seeded ChaCha generator. Each component takes a child
//! generator derived from the cluster seed and its own name, so adding a component does not
//! change the draws of the others, and a run is reproducible from its seed alone.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::hash::{fnv1a64_extend, FNV64_OFFSET};

/// A seeded, portable generator (ChaCha8 gives the same stream on wasm32 and x86_64).
#[derive(Debug, Clone)]
pub struct SimRng(ChaCha8Rng);

/// Characters Kubernetes uses for generated name suffixes (`k8s.io/apimachinery/pkg/util/rand`):
/// consonants and digits without vowels or look-alikes, so no words and no ambiguity.
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

impl SimRng {
    pub fn seed_from_u64(seed: u64) -> Self {
        SimRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A child generator for the component called `name`, independent of the parent's later
    /// draws.
    pub fn child(seed: u64, name: &str) -> Self {
        // FNV-1a over the name, mixed with the seed: stable across platforms and releases.
        let h = fnv1a64_extend(FNV64_OFFSET ^ seed, name.as_bytes());
        SimRng::seed_from_u64(h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`0` when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Rejection sampling to avoid modulo bias.
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A random string of `len` characters from Kubernetes' name-suffix alphabet
    /// (`generateName` uses 5).
    pub fn name_suffix(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| NAME_ALPHABET[self.below(NAME_ALPHABET.len() as u64) as usize] as char)
            .collect()
    }

    /// A version-4 UUID string for `metadata.uid`: sixteen bytes of the stream with the
    /// version and variant bits set (RFC 4122 §4.4).
    pub fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_be_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_be_bytes());
        let uuid = uuid::Builder::from_random_bytes(bytes).into_uuid();
        let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
        uuid.hyphenated().encode_lower(&mut text).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_children_differ_by_name() {
        let mut a = SimRng::seed_from_u64(7);
        let mut b = SimRng::seed_from_u64(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let x = SimRng::child(7, "scheduler").next_u64();
        let y = SimRng::child(7, "kubelet-node-a").next_u64();
        assert_ne!(x, y);
        assert_eq!(x, SimRng::child(7, "scheduler").next_u64());
    }

    #[test]
    fn suffixes_use_the_kubernetes_alphabet() {
        let mut r = SimRng::seed_from_u64(1);
        let s = r.name_suffix(5);
        assert_eq!(s.len(), 5);
        assert!(s.bytes().all(|c| NAME_ALPHABET.contains(&c)), "{s}");
    }

    #[test]
    fn uuids_are_version_4() {
        let u = SimRng::seed_from_u64(3).uuid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
    }

    /// A saved journal replays to the same uids: the text is the stream's two words, hex, with
    /// the version and variant bits set, as it always was.
    #[test]
    fn uuids_spell_the_streams_words() {
        for seed in 0..50 {
            let mut words = SimRng::seed_from_u64(seed);
            let (a, b) = (words.next_u64(), words.next_u64());
            let a = (a & 0xffff_ffff_ffff_0fff) | 0x4000;
            let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
            let expected = format!(
                "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xffff,
                b >> 48,
                b & 0xffff_ffff_ffff
            );
            assert_eq!(SimRng::seed_from_u64(seed).uuid(), expected);
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = SimRng::seed_from_u64(9);
        assert!((0..1000).all(|_| r.below(3) < 3));
        assert_eq!(r.below(0), 0);
    }
}
