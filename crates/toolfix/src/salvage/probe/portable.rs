//! The search with memchr alone: for targets without AVX2, and for short texts.

use memchr::memchr2_iter;

/// [`super::starts`]: each `<` and `[`, then the byte before each `c` or `C` (the start of
/// `action`, whose second letter is rarer in prose than `a`).
pub fn starts(text: &[u8], visit: &mut impl FnMut(usize) -> bool) -> bool {
    memchr2_iter(b'<', b'[', text).any(&mut *visit)
        || memchr2_iter(b'c', b'C', text).any(|i| i >= 1 && visit(i - 1))
}
