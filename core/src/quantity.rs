//! Exact Kubernetes `resource.Quantity` arithmetic for the values the kubelet reads:
//! `Value()` (ceil to an integer, e.g. bytes) and `MilliValue()` (ceil to thousandths,
//! e.g. millicores). Parsing follows the API's quantity grammar; results saturate at
//! `i64::MAX` as the kubelet's int64 math would overflow only for absurd inputs.

use thiserror::Error;

/// Why a quantity string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("quantity {input:?} is not valid: {why}")]
pub(crate) struct QuantityError {
    /// The input string.
    pub input: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// A parsed quantity: `sign * digits * 10^exp10 * 2^exp2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quantity {
    negative: bool,
    digits: u128,
    exp10: i32,
    exp2: u32,
}

const MAX_LEN: usize = 128;

/// `10^n` for every `n` whose power fits in a `u128` (0..=38).
const POW10: [u128; 39] = pow10_table();

const fn pow10_table() -> [u128; 39] {
    let mut table = [1u128; 39];
    let mut n = 1;
    while n < 39 {
        // Evaluated at compile time: an out-of-range index would fail the build.
        #[expect(
            clippy::indexing_slicing,
            reason = "const evaluation: an out-of-range index fails the build"
        )]
        {
            table[n] = table[n - 1] * 10;
        }
        n += 1;
    }
    table
}

/// `digits * 10 + d`, or `None` on overflow. Short mantissas (the usual case) stay in
/// 64-bit arithmetic.
fn push_digit(digits: u128, d: u8) -> Option<u128> {
    const SMALL: u64 = 1_000_000_000_000_000_000; // 10^18: * 10 + 9 still fits a u64
    match u64::try_from(digits) {
        Ok(small) if small < SMALL => Some(u128::from(small * 10 + u64::from(d))),
        _ => digits.checked_mul(10)?.checked_add(u128::from(d)),
    }
}

/// `10^n`, or `None` when it does not fit in a `u128` (or `n` is negative).
fn pow10(n: i32) -> Option<u128> {
    usize::try_from(n).ok().and_then(|n| POW10.get(n).copied())
}

impl Quantity {
    /// Parses a quantity (`100m`, `1.5Gi`, `2e3`, `128974848`).
    pub(crate) fn parse(input: &str) -> Result<Self, QuantityError> {
        let err = |why| QuantityError {
            input: input.to_string(),
            why,
        };
        if input.is_empty() {
            return Err(err("empty"));
        }
        if input.len() > MAX_LEN {
            return Err(err("too long"));
        }
        let bytes = input.as_bytes();
        let mut pos = 0;
        let mut negative = false;
        match bytes.first() {
            Some(b'+') => pos = 1,
            Some(b'-') => {
                negative = true;
                pos = 1;
            }
            _ => {}
        }
        let mut digits: u128 = 0;
        let mut exp10: i32 = 0;
        let mut seen_digit = false;
        let mut seen_dot = false;
        while let Some(&b) = bytes.get(pos) {
            match b {
                b'0'..=b'9' => {
                    seen_digit = true;
                    match push_digit(digits, b - b'0') {
                        Some(v) => {
                            digits = v;
                            if seen_dot {
                                exp10 -= 1;
                            }
                        }
                        // Too many significant digits: drop the rest (they cannot matter
                        // at milli precision for any sane value), keeping the magnitude.
                        None => {
                            if !seen_dot {
                                exp10 += 1;
                            }
                        }
                    }
                }
                b'.' if !seen_dot => seen_dot = true,
                _ => break,
            }
            pos += 1;
        }
        if !seen_digit {
            return Err(err("no digits"));
        }
        let suffix = input.get(pos..).unwrap_or("");
        // Byte patterns: compared inline rather than through `str` equality.
        let (e10, e2) = match suffix.as_bytes() {
            [] => (0, 0),
            [b'n'] => (-9, 0),
            [b'u'] => (-6, 0),
            [b'm'] => (-3, 0),
            [b'k'] => (3, 0),
            [b'M'] => (6, 0),
            [b'G'] => (9, 0),
            [b'T'] => (12, 0),
            [b'P'] => (15, 0),
            [b'E'] => (18, 0),
            [b'K', b'i'] => (0, 10),
            [b'M', b'i'] => (0, 20),
            [b'G', b'i'] => (0, 30),
            [b'T', b'i'] => (0, 40),
            [b'P', b'i'] => (0, 50),
            [b'E', b'i'] => (0, 60),
            [b'e' | b'E', ..] => {
                let exp = suffix.get(1..).unwrap_or("");
                let body = exp.strip_prefix(['+', '-']).unwrap_or(exp);
                let valid = !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit());
                if !valid {
                    return Err(err("bad exponent"));
                }
                let e: i32 = exp.parse().map_err(|_| err("exponent out of range"))?;
                if !(-1000..=1000).contains(&e) {
                    return Err(err("exponent out of range"));
                }
                (e, 0)
            }
            _ => return Err(err("unknown suffix")),
        };
        Ok(Self {
            negative: negative && digits != 0,
            digits,
            exp10: exp10 + e10,
            exp2: e2,
        })
    }

    /// Whether the quantity is below zero.
    #[must_use]
    pub(crate) fn is_negative(&self) -> bool {
        self.negative
    }

    fn scaled_ceil(&self, extra_exp10: i32) -> i64 {
        let exp10 = self.exp10 + extra_exp10;
        // Multiply by 2^exp2 (saturating when a bit would be lost).
        let num = if self.digits == 0 {
            0
        } else if self.digits.leading_zeros() < self.exp2 {
            return self.saturate();
        } else {
            self.digits << self.exp2
        };
        let magnitude: u128 = if exp10 >= 0 {
            // Any non-zero value times 10^20 or more is beyond u64.
            let scaled = match pow10(exp10) {
                _ if num == 0 => Some(0),
                Some(p) if exp10 <= 19 => num.checked_mul(p),
                _ => None,
            };
            match scaled {
                Some(v) if v <= u128::from(u64::MAX) => v,
                _ => return self.saturate(),
            }
        } else {
            let Some(div) = pow10(-exp10) else {
                // |x| < 1 at this scale; ceil gives 1 for positives, 0 for negatives.
                return i64::from(num != 0 && !self.negative);
            };
            let q = num / div;
            let r = num % div;
            if self.negative {
                q // ceil towards +inf of a negative value drops the fraction
            } else if r != 0 {
                q + 1
            } else {
                q
            }
        };
        match i64::try_from(magnitude) {
            Ok(v) if self.negative => -v,
            Ok(v) => v,
            Err(_) => self.saturate(),
        }
    }

    fn saturate(&self) -> i64 {
        if self.negative {
            i64::MIN
        } else {
            i64::MAX
        }
    }

    /// `Value()`: the quantity rounded up to an integer.
    #[must_use]
    pub(crate) fn value(&self) -> i64 {
        self.scaled_ceil(0)
    }

    /// `MilliValue()`: the quantity times 1000, rounded up.
    #[must_use]
    pub(crate) fn milli_value(&self) -> i64 {
        self.scaled_ceil(3)
    }

    /// Whether the quantity is a whole number of thousandths (what `RoundUp(-3)` leaves
    /// unchanged).
    #[must_use]
    pub(crate) fn is_milli_exact(&self) -> bool {
        let exp10 = self.exp10 + 3;
        if exp10 >= 0 || self.digits == 0 {
            return true;
        }
        // Whole iff 10^k = 2^k * 5^k divides digits * 2^exp2 (k = -exp10 > 0).
        let k = exp10.unsigned_abs();
        let fives = 5u128.checked_pow(k);
        fives.is_some_and(|f| self.digits.is_multiple_of(f))
            && self.digits.trailing_zeros().saturating_add(self.exp2) >= k
    }

    /// `RoundUp(-3)` as `SetDefaults_ResourceList` applies it: `None` when the quantity is
    /// already a whole number of thousandths, otherwise its value rounded up to
    /// thousandths in canonical decimal form (`0.0001` → `1m`, `0.9999` → `1`).
    #[must_use]
    pub(crate) fn round_up_milli(&self) -> Option<String> {
        if self.is_milli_exact() || self.negative {
            return None;
        }
        Some(format_decimal_milli(self.milli_value()))
    }
}

/// A non-negative number of thousandths in Kubernetes' canonical decimal-SI form
/// (`1500m`, `2`, `3k`).
#[must_use]
pub(crate) fn format_decimal_milli(milli: i64) -> String {
    if milli % 1000 != 0 {
        return format!("{milli}m");
    }
    let mut v = milli / 1000;
    let mut suffix = 0usize;
    const SUFFIXES: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    while v != 0 && v % 1000 == 0 && suffix + 1 < SUFFIXES.len() {
        v /= 1000;
        suffix += 1;
    }
    format!("{v}{}", SUFFIXES.get(suffix).copied().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> i64 {
        Quantity::parse(s).map(|q| q.value()).unwrap_or(-999)
    }
    fn m(s: &str) -> i64 {
        Quantity::parse(s).map(|q| q.milli_value()).unwrap_or(-999)
    }

    #[test]
    fn suffixes() {
        assert_eq!(v("100Mi"), 100 * 1024 * 1024);
        assert_eq!(v("1G"), 1_000_000_000);
        assert_eq!(v("1.5Ki"), 1536);
        assert_eq!(m("1"), 1000);
        assert_eq!(m("250m"), 250);
        assert_eq!(m("0.1m"), 1);
        assert_eq!(v("1e3"), 1000);
        assert_eq!(v("1E-3"), 1);
        assert_eq!(m("1n"), 1);
        assert_eq!(v("0"), 0);
        assert_eq!(v("128974848"), 128_974_848);
        assert_eq!(v("129e6"), 129_000_000);
        assert_eq!(v("123Mi"), 128_974_848);
    }

    /// The scaling before the power tables: one checked step at a time.
    fn stepwise(q: Quantity, extra: i32) -> i64 {
        let exp10 = q.exp10 + extra;
        let mut num = q.digits;
        for _ in 0..q.exp2 {
            num = match num.checked_mul(2) {
                Some(v) => v,
                None => return q.saturate(),
            };
        }
        let magnitude = if exp10 >= 0 {
            let mut v = num;
            for _ in 0..exp10 {
                v = match v.checked_mul(10) {
                    Some(x) if x <= u128::from(u64::MAX) => x,
                    _ => return q.saturate(),
                };
            }
            v
        } else {
            let mut div: u128 = 1;
            for _ in 0..(-exp10) {
                match div.checked_mul(10) {
                    Some(x) => div = x,
                    None => return i64::from(num != 0 && !q.negative),
                }
            }
            let (d, r) = (num / div, num % div);
            if q.negative || r == 0 {
                d
            } else {
                d + 1
            }
        };
        match i64::try_from(magnitude) {
            Ok(v) if q.negative => -v,
            Ok(v) => v,
            Err(_) => q.saturate(),
        }
    }

    #[test]
    fn table_scaling_matches_stepwise_scaling() {
        let mut inputs: Vec<String> = Vec::new();
        for mantissa in [
            "0",
            "1",
            "7",
            "-3",
            "0.001",
            "12.5",
            "18446744073709551615",
            "99999999999999999999999999999",
            "340282366920938463463374607431768211455",
        ] {
            for suffix in [
                "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi",
                "Ei", "e-40", "e-38", "e-20", "e-3", "e0", "e15", "e16", "e19", "e20", "e39",
                "e1000",
            ] {
                inputs.push(format!("{mantissa}{suffix}"));
            }
        }
        for input in &inputs {
            let Ok(q) = Quantity::parse(input) else {
                continue;
            };
            assert_eq!(q.value(), stepwise(q, 0), "value of {input}");
            assert_eq!(q.milli_value(), stepwise(q, 3), "milli of {input}");
        }
    }

    #[test]
    fn rejects_garbage_and_saturates() {
        for bad in ["", "m", "1.2.3", "1x", "1e", "1e+", "--1", "1Kib"] {
            assert!(Quantity::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(v("9999999999999999999999999Ei"), i64::MAX);
        assert_eq!(v("1e1000"), i64::MAX);
        assert_eq!(v("1e-1000"), 1);
        assert_eq!(v("-5"), -5);
    }

    #[test]
    fn round_up_to_milli() {
        let r = |s: &str| Quantity::parse(s).ok().and_then(|q| q.round_up_milli());
        assert_eq!(r("0.0001"), Some("1m".into()));
        assert_eq!(r("0.9999"), Some("1".into()));
        assert_eq!(r("1.0005"), Some("1001m".into()));
        assert_eq!(r("100n"), Some("1m".into()));
        assert_eq!(r("999999.9999"), Some("1M".into()));
        assert_eq!(r("250m"), None);
        assert_eq!(r("1.5Gi"), None);
        assert_eq!(r("1.000"), None);
        assert_eq!(r("128974848"), None);
        assert_eq!(r("1e-3"), None);
        assert_eq!(r("1e-4"), Some("1m".into()));
        assert_eq!(r("1000u"), None);
        assert_eq!(r("1500u"), Some("2m".into()));
    }

    #[test]
    fn parse_example() {
        use crate::quantity::Quantity;
        assert_eq!(Quantity::parse("100m").unwrap().milli_value(), 100);
        assert_eq!(Quantity::parse("1Gi").unwrap().value(), 1 << 30);
        assert_eq!(Quantity::parse("0.5").unwrap().milli_value(), 500);
    }
}
