//! Numbers with a fixed count of decimals, written exactly as `format!("{x:.N}")` (and
//! `{x:+.N}`) writes them, for the places that format many: the rating and change of each row of
//! a player's match table, the tick labels of the charts, the ladder ratings. The standard
//! formatter's exact mode (Grisu, falling back to Dragon's big numbers) is general; for up to
//! [`MAX_DIGITS`] decimals of a number below 2^63, the value's binary digits times a power of
//! ten fit in 128 bits, so the rounding (half to even, on the exact binary value, as the
//! standard one rounds) is one shift and one comparison. Anything else (infinities, NaN, huge
//! values, more decimals) goes through the standard formatter.

use std::fmt::Write as _;

/// The most decimals written here (more go through `format!`).
pub const MAX_DIGITS: usize = 3;

/// `x` with `digits` decimals: `format!("{x:.digits$}")`.
pub fn fixed(x: f64, digits: usize) -> String {
    let mut out = String::with_capacity(24);
    push_fixed(&mut out, x, digits, false);
    out
}

/// `x` with `digits` decimals and its sign always shown: `format!("{x:+.digits$}")`.
pub fn signed(x: f64, digits: usize) -> String {
    let mut out = String::with_capacity(24);
    push_fixed(&mut out, x, digits, true);
    out
}

/// Appends `x` with `digits` decimals to `out`, as `{x:.digits$}` writes it (`{x:+.digits$}`
/// when `plus`).
pub fn push_fixed(out: &mut String, x: f64, digits: usize, plus: bool) {
    // Below 2^63, the exponent is at most 10 and the scaled digits fit in 128 bits.
    const LIMIT: f64 = (1u64 << 63) as f64;
    if digits > MAX_DIGITS || !x.is_finite() || x.abs() >= LIMIT {
        let _ = if plus {
            write!(out, "{x:+.digits$}")
        } else {
            write!(out, "{x:.digits$}")
        };
        return;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // x = mantissa * 2^shift, exactly.
    let (mantissa, shift) = match exponent {
        0 => (fraction, -1074),
        _ => (fraction | 1 << 52, exponent - 1075),
    };
    let scale = 10u128.pow(digits as u32);
    let scaled = u128::from(mantissa) * scale;
    let units = if shift >= 0 {
        scaled << shift
    } else if shift <= -127 {
        // Below half a unit of the last decimal (scaled < 2^63): rounds to zero.
        0
    } else {
        let down = (-shift) as u32;
        let whole = scaled >> down;
        let rest = scaled & ((1u128 << down) - 1);
        let half = 1u128 << (down - 1);
        if rest > half || (rest == half && whole & 1 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    if x.is_sign_negative() {
        out.push('-');
    } else if plus {
        out.push('+');
    }
    let _ = write!(out, "{}", units / scale);
    if digits > 0 {
        let _ = write!(out, ".{:0digits$}", units % scale);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks every precision and both signs' notations of `x` against the standard formatter.
    fn check(x: f64) {
        for digits in 0..=MAX_DIGITS + 1 {
            assert_eq!(fixed(x, digits), format!("{x:.digits$}"), "{x:e} .{digits}");
            assert_eq!(
                signed(x, digits),
                format!("{x:+.digits$}"),
                "{x:e} +.{digits}"
            );
        }
    }

    /// A small deterministic generator (xorshift64*): the same values on every run.
    struct Numbers(u64);

    impl Numbers {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    #[test]
    fn edge_values_are_written_as_format_writes_them() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -2.5,
            0.05,
            0.15,
            0.25,
            0.35,
            -0.25,
            0.125,
            0.375,
            1.005,
            2.675,
            1.0005,
            -1.0005,
            0.0005,
            0.00049999999999999,
            -0.0004,
            -0.04,
            -0.4,
            9.95,
            9.995,
            99.95,
            999.9995,
            1234.5678,
            -1234.5678,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-300,
            f64::EPSILON,
            4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
            9_007_199_254_740_993.0,
            9.223_372_036_854_775e18,
            -9.223_372_036_854_775e18,
            2f64.powi(63),
            -2f64.powi(63),
            f64::from_bits(2f64.powi(63).to_bits() - 1),
            1e19,
            1e300,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for x in edges {
            check(x);
        }
    }

    /// Exact ties at every precision: k / 2^n for small n, and values a hair beside them.
    #[test]
    fn ties_round_as_format_rounds_them() {
        for n in 1..=10 {
            for k in -1500i64..=1500 {
                let x = k as f64 / f64::from(1u32 << n);
                check(x);
                check(f64::from_bits(x.to_bits() + 1));
                if x != 0.0 {
                    check(f64::from_bits(x.to_bits() - 1));
                }
            }
        }
        for k in 0..5_000 {
            // x.xx5 and x.xxx5 written in decimal: not ties in binary, but a hair away.
            check(k as f64 / 100.0 + 0.005);
            check(k as f64 / 1000.0 + 0.0005);
            check(-(k as f64) / 10.0 - 0.05);
        }
    }

    #[test]
    fn random_values_are_written_as_format_writes_them() {
        let mut numbers = Numbers(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50_000 {
            // Any bit pattern (every exponent, NaNs included) ...
            check(f64::from_bits(numbers.next()));
            // ... and values of the size ratings and chart ticks have.
            let r = numbers.next();
            let magnitude = 10f64.powi((r % 12) as i32 - 4);
            let x = (numbers.next() as f64 / u64::MAX as f64 - 0.5) * magnitude;
            check(x);
            check((x * 1000.0).round() / 1000.0);
        }
    }
}
