//! Exact Kubernetes `resource.Quantity` arithmetic for the values the kubelet reads:
//! `Value()` (ceil to an integer, e.g. bytes) and `MilliValue()` (ceil to thousandths,
//! e.g. millicores). Parsing follows the API's quantity grammar; results saturate at
//! `i64::MAX` as the kubelet's int64 math would overflow only for absurd inputs.

use thiserror::Error;

/// Why a quantity string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("quantity {input:?} is not valid: {why}")]
pub struct QuantityError {
    /// The input string.
    pub input: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// A parsed quantity: `sign * digits * 10^exp10 * 2^exp2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    digits: u128,
    exp10: i32,
    exp2: u32,
}

const MAX_LEN: usize = 128;

impl Quantity {
    /// Parses a quantity (`100m`, `1.5Gi`, `2e3`, `128974848`).
    ///
    /// ```
    /// use podplan_core::quantity::Quantity;
    /// assert_eq!(Quantity::parse("100m").unwrap().milli_value(), 100);
    /// assert_eq!(Quantity::parse("1Gi").unwrap().value(), 1 << 30);
    /// assert_eq!(Quantity::parse("0.5").unwrap().milli_value(), 500);
    /// ```
    pub fn parse(input: &str) -> Result<Self, QuantityError> {
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
                    let d = u128::from(b - b'0');
                    match digits.checked_mul(10).and_then(|v| v.checked_add(d)) {
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
        let (e10, e2) = match suffix {
            "" => (0, 0),
            "n" => (-9, 0),
            "u" => (-6, 0),
            "m" => (-3, 0),
            "k" => (3, 0),
            "M" => (6, 0),
            "G" => (9, 0),
            "T" => (12, 0),
            "P" => (15, 0),
            "E" => (18, 0),
            "Ki" => (0, 10),
            "Mi" => (0, 20),
            "Gi" => (0, 30),
            "Ti" => (0, 40),
            "Pi" => (0, 50),
            "Ei" => (0, 60),
            s if s.starts_with('e') || s.starts_with('E') => {
                let exp = s.get(1..).unwrap_or("");
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
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    fn scaled_ceil(&self, extra_exp10: i32) -> i64 {
        let exp10 = self.exp10 + extra_exp10;
        let mut num = self.digits;
        // Multiply by 2^exp2.
        for _ in 0..self.exp2 {
            num = match num.checked_mul(2) {
                Some(v) => v,
                None => return self.saturate(),
            };
        }
        let magnitude: u128 = if exp10 >= 0 {
            let mut v = num;
            for _ in 0..exp10 {
                v = match v.checked_mul(10) {
                    Some(x) => x,
                    None => return self.saturate(),
                };
                if v > u128::from(u64::MAX) {
                    return self.saturate();
                }
            }
            v
        } else {
            let mut div: u128 = 1;
            let mut tiny = false;
            for _ in 0..(-exp10) {
                match div.checked_mul(10) {
                    Some(x) => div = x,
                    None => {
                        tiny = true;
                        break;
                    }
                }
            }
            if tiny {
                // |x| < 1 at this scale; ceil gives 1 for positives, 0 for negatives.
                return i64::from(num != 0 && !self.negative);
            }
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
    pub fn value(&self) -> i64 {
        self.scaled_ceil(0)
    }

    /// `MilliValue()`: the quantity times 1000, rounded up.
    #[must_use]
    pub fn milli_value(&self) -> i64 {
        self.scaled_ceil(3)
    }
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
}
