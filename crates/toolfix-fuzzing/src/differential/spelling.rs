//! How a model misspells a tool name: drift that only name normalisation (case, `_`,
//! `-`, spaces) can repair, drift it must not repair (`\t`, `.`), and one-edit typos that
//! difflib's close-match search may or may not accept.

use super::rng::Rng;

/// A spelling of `name` that name normalisation may repair.
pub fn drift(rng: &mut Rng, name: &str) -> String {
    let parts: Vec<String> = name
        .replace('-', "_")
        .split('_')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    let capital = |p: &String| upper_first(p);
    match rng.below(8) {
        0 => parts.iter().map(capital).collect(),
        1 => {
            let head = parts.first().cloned().unwrap_or_default();
            head + &parts.iter().skip(1).map(capital).collect::<String>()
        }
        2 => parts.join("-"),
        3 => name.to_uppercase(),
        4 => {
            let words: Vec<String> = parts.iter().map(|p| title(p)).collect();
            format!(" {}_ ", words.join(" "))
        }
        5 => format!("__{name}--"),
        6 => name.replace('_', "\t"),
        _ => name.replace('_', "."),
    }
}

/// A one-edit typo of `name`: a letter dropped, inserted or replaced.
pub fn near_miss(rng: &mut Rng, name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.is_empty() {
        return "x".to_owned();
    }
    let i = rng.below(chars.len());
    let letter = rng.pick(&"abcdefghijklmnopqrstuvwxyz_".chars().collect::<Vec<_>>());
    let mut out = chars.clone();
    match rng.below(3) {
        0 => {
            out.remove(i);
        }
        1 => out.insert(i, letter),
        _ => out[i] = letter,
    }
    out.into_iter().collect()
}

/// `p` with its first character upper-cased (Python's `p[:1].upper() + p[1:]`).
fn upper_first(p: &str) -> String {
    let mut chars = p.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().collect::<String>() + chars.as_str()
    })
}

/// `p` as `str.title()` writes a single word: first letter upper, the rest lower.
fn title(p: &str) -> String {
    upper_first(&p.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_keeps_the_letters() {
        let mut rng = Rng::for_case("t", "drift", 0);
        for _ in 0..100 {
            let drifted = drift(&mut rng, "web_search");
            let letters: String = drifted.chars().filter(char::is_ascii_alphabetic).collect();
            assert_eq!(letters.to_lowercase(), "websearch", "{drifted:?}");
        }
    }

    #[test]
    fn a_near_miss_is_one_edit_away() {
        let mut rng = Rng::for_case("t", "near", 0);
        for _ in 0..100 {
            let typo = near_miss(&mut rng, "get_weather");
            assert!(typo.chars().count().abs_diff(11) <= 1, "{typo:?}");
        }
    }
}
