//! `float.__repr__` (and so `str(float)` and the digits of `json.dumps`).
//!
//! CPython prints the shortest digit string that reads back to the same float, and of the
//! strings of that length the nearest to the float, the even one on a tie (David Gay's
//! mode 0). It then lays the digits out with its own rule: scientific notation when the
//! decimal point would sit more than 16 places right of the first digit or 4 or more
//! places left of it, with a signed exponent of at least two digits (`1e+16`, `1.5e-07`);
//! fixed notation otherwise, always with a fractional part (`100.0`).
//!
//! Rust's `{:e}` gives a shortest string that reads back, but not always the nearest one:
//! on a tie it picks the higher (`1587630000186053.25` is `…053.2` in Python, `…053.3` in
//! Rust). Rust's exact formatting at that length gives the nearest string, ties to even,
//! but the nearest string need not read back: at a power of two the gap below the float is
//! half the gap above, so the nearest 16-digit string of `2**-1005` lies below the
//! rounding interval and reads back as the float below. Of the two, CPython's answer is
//! the nearest string when it reads back and the shortest one otherwise (the only string
//! of that length left in the interval: see `shortest_digits`).

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

/// The sign, CPython's digits and the decimal exponent of the first digit, for a finite
/// `x`.
///
/// Let `s` be Rust's shortest string and `r` the nearest string of the same length. When
/// `r` reads back to `x` it is CPython's answer (nearest, ties to even). When it does not,
/// `r` lies outside the rounding interval on one side of `x`, so every string of that
/// length on that side does too, and the interval holds at most one such string on the
/// other side (the interval is at most twice as wide there, and the side of `r` is less
/// than half a unit wide): that string is `s`.
fn shortest_digits(x: f64) -> (&'static str, String, i32) {
    let shortest = format!("{:e}", x.abs());
    let length = significand_digits(&shortest).count();
    let nearest = format!("{:.*e}", length.saturating_sub(1), x.abs());
    let chosen = if nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    let (_, exponent) = chosen.split_once('e').unwrap_or((&chosen, "0"));
    let digits = significand_digits(&chosen).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    (sign, digits, exponent.parse().unwrap_or(0))
}

/// The digits before the `e` of a `{:e}` rendering.
fn significand_digits(rendered: &str) -> impl Iterator<Item = char> + '_ {
    rendered
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
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
    use crate::py::json::{self, DecodeLimits};
    use crate::py::repr::{repr, str_of};
    use crate::py::str_format::format_kwargs;
    use crate::py::{PyStr, Value};

    /// `BITS REPR` lines recorded from CPython 3.11.7 by `scripts/gen_float_repr_testdata.py`:
    /// every power of two and its neighbours, the subnormal boundaries, and seeded samples.
    const TABLE: &str = include_str!("testdata/float-repr-cpython-3.11.txt");

    /// The table's floats with CPython's `repr` of each.
    fn table() -> impl Iterator<Item = (f64, &'static str)> {
        TABLE.lines().filter(|l| !l.starts_with('#')).map(|line| {
            let (bits, repr) = line.split_once(' ').expect("BITS REPR");
            let bits = u64::from_str_radix(bits, 16).expect("16 hex digits");
            (f64::from_bits(bits), repr)
        })
    }

    /// Every row that disagrees with `print`, as `BITS want got` lines (at most 20).
    fn mismatches(print: impl Fn(f64) -> String) -> Vec<String> {
        table()
            .filter_map(|(x, want)| {
                let got = print(x);
                (got != want).then(|| format!("{:016x} {want} {got}", x.to_bits()))
            })
            .take(20)
            .collect()
    }

    /// Whether `x` is `±2**e` for some integer `e`.
    fn is_power_of_two(x: f64) -> bool {
        let bits = x.to_bits() & !(1 << 63);
        let (exponent, fraction) = (bits >> 52, bits & ((1 << 52) - 1));
        match exponent {
            0 => fraction.is_power_of_two(),
            0x7ff => false,
            _ => fraction == 0,
        }
    }

    #[test]
    fn the_table_covers_every_power_of_two() {
        let powers = table().filter(|(x, _)| is_power_of_two(*x)).count();
        // 2**-1074 .. 2**1023 and their negatives.
        assert_eq!(powers, 2 * 2098);
    }

    #[test]
    fn float_repr_is_cpython_repr_on_the_table() {
        assert_eq!(mismatches(float_repr), Vec::<String>::new());
    }

    #[test]
    fn dumps_str_repr_and_format_print_the_table_as_cpython() {
        let value = Value::Float;
        let dumps = |x| json::dumps(&value(x)).expect("a finite float encodes");
        assert_eq!(mismatches(dumps), Vec::<String>::new());
        assert_eq!(
            mismatches(|x| str_of(&value(x)).to_string()),
            Vec::<String>::new()
        );
        assert_eq!(
            mismatches(|x| repr(&value(x)).to_string()),
            Vec::<String>::new()
        );
        let format = |x| {
            let kwargs = [(PyStr::from("x"), value(x))];
            format_kwargs(&PyStr::from("{x}"), &kwargs)
                .expect("formats")
                .to_string()
        };
        assert_eq!(mismatches(format), Vec::<String>::new());
    }

    #[test]
    fn loads_reads_each_repr_back_to_its_float() {
        let limits = DecodeLimits {
            max_depth: 8,
            int_max_str_digits: Some(4300),
        };
        for (x, repr) in table() {
            let read = json::loads(repr.as_bytes(), limits);
            let bits = match read {
                Ok(Value::Float(y)) => Some(y.to_bits()),
                // `json.loads` reads a repr without `.` or `e` as an int; the table has none.
                _ => None,
            };
            assert_eq!(bits, Some(x.to_bits()), "loads({repr})");
        }
    }

    /// The fuzz finding of issue 16: `2**-1005` printed as its lower neighbour.
    #[test]
    fn a_power_of_two_reads_back_to_itself() {
        let x = f64::from_bits(0x0100_0000_0000_0000);
        assert_eq!(float_repr(x), "7.291122019556398e-304");
        assert_eq!(float_repr(x).parse::<f64>(), Ok(x));
    }

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

    use proptest::prelude::*;

    proptest! {
        /// `repr` of any finite float reads back to the same float, and its last significant
        /// digit is not a zero: the shortest string is never padded. (In `100.0` and `1e+16`
        /// the zeros are layout, not digits.)
        #[test]
        fn float_repr_reads_back_with_no_padded_digit(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let printed = float_repr(x);
            prop_assert_eq!(printed.parse::<f64>().map(f64::to_bits), Ok(bits), "{}", printed);
            let last_digit = match printed.split_once('e') {
                Some((significand, _)) => significand.chars().last(),
                None => printed.split_once('.').and_then(|(_, fraction)| {
                    (fraction != "0").then(|| fraction.chars().last()).flatten()
                }),
            };
            prop_assert_ne!(last_digit, Some('0'), "{} has a padded digit", printed);
        }
    }
}
