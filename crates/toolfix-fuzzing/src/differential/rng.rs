//! The random source of one generated case: a SplitMix64 stream seeded from the text
//! `SEED/OP/INDEX`, so case 17 of `execute` under seed 2026 is the same on every machine
//! and can be regenerated without generating cases 0 to 16.

/// A deterministic pseudo-random stream (SplitMix64: tiny, fast, and good enough to pick
/// among alternatives; nothing here needs cryptographic quality).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The stream of case `index` of `op` under `seed`.
    pub fn for_case(seed: &str, op: &str, index: u64) -> Rng {
        Rng(fnv1a(format!("{seed}/{op}/{index}").as_bytes()))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // The multiply-shift map: unbiased enough for choosing among a handful of items.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One of `items`, which must not be empty.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// The index of an item drawn with the given weights.
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let mut left = self.unit() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if left < *w {
                return i;
            }
            left -= w;
        }
        weights.len() - 1
    }

    /// `k` distinct items of `items` (all of them when `k` is larger), in random order.
    pub fn sample<T: Clone>(&mut self, items: &[T], k: usize) -> Vec<T> {
        let mut pool = items.to_vec();
        self.shuffle(&mut pool);
        pool.truncate(k);
        pool
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// `n` random bytes: the choices the reply grammar reads (`crate::choice`).
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next_u64() >> 56) as u8).collect()
    }
}

/// The FNV-1a hash of `bytes`: a stable seed from the case's name (std's hashers are
/// randomised per process or not promised stable across releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_is_its_own_stream() {
        let mut a = Rng::for_case("2026", "salvage", 7);
        let mut b = Rng::for_case("2026", "salvage", 7);
        assert_eq!(a.bytes(64), b.bytes(64));
        let mut c = Rng::for_case("2026", "salvage", 8);
        assert_ne!(Rng::for_case("2026", "salvage", 7).bytes(64), c.bytes(64));
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = Rng::for_case("0", "x", 0);
        for _ in 0..1000 {
            assert!(rng.below(3) < 3);
            assert!((2..=5).contains(&rng.between(2, 5)));
            assert!(rng.weighted(&[0.0, 1.0, 0.0]) == 1);
        }
    }
}
