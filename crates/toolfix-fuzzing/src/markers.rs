//! Helpers that build the grammar's marker texts from the registry's tokens
//! (`toolfix::salvage::tokens`), so no marker is spelled twice.

use toolfix::salvage::tokens::phi4;

/// `parts` joined, as a string that lives as long as the program. Only the initializers
/// of statics call it, once each: the tables built from tokens stay `&'static str`, as
/// the grammar's choices and the calls that quote them expect.
pub fn concat(parts: &[&str]) -> &'static str {
    parts.concat().leak()
}

/// `word` with its first letter upper (`Action`): prose writes markers as a sentence
/// does.
pub fn title(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// Phi-4's marker without the `[` that ends it: the word alone, which the array writer
/// follows with its `[` (after a pad the other array formats may put there), and which
/// alone starts no call.
pub fn functools_word() -> &'static str {
    phi4::FUNCTOOLS.trim_end_matches('[')
}
