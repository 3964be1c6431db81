//! The source of every choice the generator makes.
//!
//! Choices are read from bytes through `arbitrary::Unstructured`, so one grammar serves two
//! drivers: libFuzzer mutates the bytes (coverage-guided), and proptest generates a byte
//! vector it can shrink (`tests/properties.rs`), which shrinks the reply with it: fewer
//! bytes mean fewer segments, and zero bytes mean the first, simplest alternative.

use arbitrary::{Result, Unstructured};

/// Which replies to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Replies whose calls are recovered exactly as written: offered names, object
    /// arguments, and prose and payloads that cannot form a marker or a fence by accident.
    /// Their intended calls are the exact expectation (the round-trip property).
    Clean,
    /// Anything the grammar can express: hallucinated names, damaged payloads, quoted
    /// tags, unclosed fences, amplified repetitions.
    Hostile,
}

/// How deep segments and JSON values may nest, so generation always terminates.
const MAX_DEPTH: u8 = 4;

/// A generator: the bytes to read choices from, the mode, and the current nesting depth.
pub struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    mode: Mode,
    depth: u8,
}

impl<'u, 'a> Gen<'u, 'a> {
    /// A generator at depth 0.
    pub fn new(u: &'u mut Unstructured<'a>, mode: Mode) -> Gen<'u, 'a> {
        Gen { u, mode, depth: 0 }
    }

    /// Whether hostile constructs are allowed.
    pub fn hostile(&self) -> bool {
        self.mode == Mode::Hostile
    }

    /// Whether another level of nesting is allowed.
    pub fn can_nest(&self) -> bool {
        self.depth < MAX_DEPTH
    }

    /// Runs `f` one nesting level deeper.
    pub fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// One of `items` (the first when the bytes run out). `items` must not be empty.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> Result<T> {
        self.u.choose(items).cloned()
    }

    /// An index below `n` (0 when the bytes run out). `n` must not be 0.
    pub fn below(&mut self, n: usize) -> Result<usize> {
        self.u.choose_index(n)
    }

    /// A number in `0..=max`.
    pub fn upto(&mut self, max: usize) -> Result<usize> {
        self.u.int_in_range(0..=max)
    }

    /// `true` with probability `num / den` (false when the bytes run out).
    pub fn chance(&mut self, num: u8, den: u8) -> Result<bool> {
        self.u.ratio(num, den)
    }

    /// A value of any `Arbitrary` type, for the few leaves the grammar leaves free.
    pub fn any<T: arbitrary::Arbitrary<'a>>(&mut self) -> Result<T> {
        self.u.arbitrary()
    }
}
