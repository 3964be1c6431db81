//! `float.__repr__` (and so `str(float)` and the digits of `json.dumps`).
//!
//! CPython prints the shortest digit string that reads back to the same float (David
//! Gay's mode 0), then lays it out with its own rule: scientific notation when the decimal
//! point would sit more than 16 places right of the first digit or 4 or more places left
//! of it, with a signed exponent of at least two digits (`1e+16`, `1.5e-07`); fixed
//! notation otherwise, always with a fractional part (`100.0`).
//!
//! Rust's `{:e}` finds the shortest length, but when two strings of that length are
//! equally close to the float it picks the higher, where CPython picks the even one
//! (`1587630000186053.25` is `…053.2` in Python). So the length comes from `{:e}` and the
//! digits from Rust's exact formatting at that length, which rounds ties to even.

/// `repr(x)` for a Python `float`: `1.0`, `1e+16`, `1.5e-07`, `-0.0`, `nan`, `inf`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let (sign, digits, exponent) = shortest_digits(x);
    let mut out = String::from(sign);
    layout(&mut out, &digits, exponent + 1);
    out
}

/// The sign, the shortest round-trip digits (ties to even) and the decimal exponent of
/// the first digit, for a finite `x`.
fn shortest_digits(x: f64) -> (&'static str, String, i32) {
    let shortest = format!("{x:e}");
    let length = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.bytes().filter(u8::is_ascii_digit).count());
    let exact = format!("{:.*e}", length.saturating_sub(1), x.abs());
    let (mantissa, exponent) = exact.split_once('e').unwrap_or((&exact, "0"));
    let digits = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    (sign, digits, exponent.parse().unwrap_or(0))
}

/// Lays out `0.DIGITS × 10^decpt` the way CPython's `repr` does.
fn layout(out: &mut String, digits: &str, decpt: i32) {
    let n = digits.len() as i32;
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        out.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(digits);
    } else if decpt >= n {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        out.push_str(".0");
    } else {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    }
}

#[cfg(test)]
mod tests {
    use super::float_repr;

    /// Each pair is `(x, repr(x))` as printed by CPython 3.11.7.
    #[test]
    #[allow(clippy::excessive_precision)]
    fn matches_cpython_repr() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (123456789.123456789, "123456789.12345679"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.5e-308, "2.5e-308"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (1e22, "1e+22"),
            (1.2345e16, "1.2345e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (-1.5, "-1.5"),
            (1587630000186053.25, "1587630000186053.2"),
            (191224769802962.625, "191224769802962.62"),
            (0.3, "0.3"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(*x), *want, "repr({x:e})");
        }
    }
}
