//! `float.__repr__` (and so `str(float)` and the digits of `json.dumps`).
//!
//! CPython prints the shortest digit string that reads back to the same float (David
//! Gay's mode 0), then lays it out with its own rule: scientific notation when the decimal
//! point would sit more than 16 places right of the first digit or 4 or more places left
//! of it, with a signed exponent of at least two digits (`1e+16`, `1.5e-07`); fixed
//! notation otherwise, always with a fractional part (`100.0`). Rust's `{:e}` yields the
//! same shortest digits, so only the layout is ours.

/// `repr(x)` for a Python `float`: `1.0`, `1e+16`, `1.5e-07`, `-0.0`, `nan`, `inf`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let scientific = format!("{x:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("{:e} always writes an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} writes a decimal exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::from(sign);
    layout(&mut out, &digits, exponent + 1);
    out
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
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(*x), *want, "repr({x:e})");
        }
    }
}
