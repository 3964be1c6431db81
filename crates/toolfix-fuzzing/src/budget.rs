//! A time budget proportional to the input: a superlinear path is a finding.
//!
//! The library has no step counter to read, so the budget is wall-clock time with a
//! generous bound per byte. Salvage runs at tens of nanoseconds per byte in an optimized
//! build; the bound allows a hundred times that, and a constant for tiny inputs. Replies
//! from the grammar reach 64 KiB through repetitions, where a quadratic path costs about
//! a thousand times a linear one, so it cannot hide under the bound; below a few KiB it
//! can, which is why the adversarial families are also benchmarked at growing sizes.
//! A run over budget is measured twice more and judged by its fastest run, so a busy
//! machine (fuzzing under `nice`) does not make a finding.

use std::time::{Duration, Instant};

/// A time allowance: `base` plus `per_byte` for each byte of input.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub base: Duration,
    pub per_byte: Duration,
}

impl Budget {
    /// For optimized builds (`cargo fuzz`, which adds debug assertions and a sanitizer).
    pub const OPTIMIZED: Budget = Budget {
        base: Duration::from_millis(20),
        per_byte: Duration::from_micros(2),
    };

    /// For unoptimized builds (`cargo test` replaying regression inputs).
    pub const UNOPTIMIZED: Budget = Budget {
        base: Duration::from_millis(500),
        per_byte: Duration::from_micros(60),
    };

    /// The allowance for an input of `len` bytes.
    pub fn allowance(self, len: usize) -> Duration {
        self.base + self.per_byte * u32::try_from(len).unwrap_or(u32::MAX)
    }

    /// Runs `work` on an input of `len` bytes and returns its result, or a description
    /// of the overrun when even the fastest of three runs exceeds the allowance.
    pub fn run<T>(self, len: usize, mut work: impl FnMut() -> T) -> Result<T, String> {
        let allowance = self.allowance(len);
        let mut fastest = Duration::MAX;
        let mut result = None;
        for _ in 0..3 {
            let start = Instant::now();
            let value = work();
            fastest = fastest.min(start.elapsed());
            result = Some(value);
            if fastest <= allowance {
                break;
            }
        }
        let result = result.expect("ran at least once");
        if fastest <= allowance {
            Ok(result)
        } else {
            Err(format!(
                "{len} bytes took {fastest:?} at best, over the budget of {allowance:?}"
            ))
        }
    }
}
