//! The hash of the allowlist's tables: every recovered call looks its name up once, so
//! the hash is a word-at-a-time multiply instead of the standard library's SipHash
//! (which cost about 270 instructions a lookup, 7 % of a flood of short calls).
//!
//! SipHash's keyed randomness protects a table whose *keys* an attacker chooses. Here the
//! keys are the names the developer offered; the model only looks names up, and a
//! lookup's cost is bounded by the clusters the offered names form, whatever name it
//! asks for. So a fixed, fast hash is safe.

use std::hash::{BuildHasherDefault, Hasher};

/// Builds [`NameHasher`]s for the allowlist's `HashSet` and `HashMap`.
pub type BuildNameHasher = BuildHasherDefault<NameHasher>;

/// An odd constant with well-spread bits (the golden ratio's, as Knuth's multiplicative
/// hashing uses).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// A multiply-rotate hash over eight bytes at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct NameHasher(u64);

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for chunk in &mut words {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // The table takes its bucket from the low bits and its tag from the high ones:
        // folding the high half down lets both depend on every byte.
        self.0 ^ (self.0 >> 32)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::*;

    fn hash(bytes: &[u8]) -> u64 {
        BuildNameHasher::default().hash_one(bytes)
    }

    #[test]
    fn names_that_differ_anywhere_hash_apart() {
        let names: Vec<String> = (0..2000).map(|i| format!("tool_name_{i:04}")).collect();
        let hashes: HashSet<u64> = names.iter().map(|n| hash(n.as_bytes())).collect();
        assert_eq!(hashes.len(), names.len());
        // A trailing zero byte is not padding: the length is hashed too.
        assert_ne!(hash(b"search"), hash(b"search\0"));
    }

    #[test]
    fn low_and_high_bits_both_spread() {
        let buckets: HashSet<u64> = (0..256)
            .map(|i| hash(format!("t{i}").as_bytes()) & 0xFF)
            .collect();
        let tags: HashSet<u64> = (0..256)
            .map(|i| hash(format!("t{i}").as_bytes()) >> 57)
            .collect();
        assert!(buckets.len() > 128, "{} low bytes", buckets.len());
        assert!(tags.len() > 64, "{} tags", tags.len());
    }
}
