//! Go's `time.Duration` as the kubelet reads and prints it: `time.ParseDuration` of the
//! kubelet configuration's durations (`cpuCFSQuotaPeriod`, `kubeletconfig/v1beta1`) and
//! `Duration.String()` in event and status messages (`images/image_manager.go`'s pull
//! times, `kuberuntime_manager.go`'s back-off delays). The host's duration flags are read
//! with the same parser.

use super::encoding::go_quote;

/// Why Go's `time.ParseDuration` refuses a text: its errors, with its
/// texts (the text and unit quoted as Go's `strconv.Quote` does).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not the grammar, or out of `time.Duration`'s range.
    #[error("time: invalid duration {}", go_quote(.0))]
    Invalid(String),
    /// A number without a unit (`10`).
    #[error("time: missing unit in duration {}", go_quote(.0))]
    MissingUnit(String),
    /// A unit Go does not know.
    #[error("time: unknown unit {} in duration {}", go_quote(.unit), go_quote(.duration))]
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The whole text.
        duration: String,
    },
    /// A negative duration where only a span of time makes sense (not Go's:
    /// [`parse_go_duration_std`]'s).
    #[error("negative duration {}", go_quote(.0))]
    Negative(String),
}

/// The largest magnitude a Go duration's arithmetic keeps (`1 << 63`).
const LIMIT: u64 = 1 << 63;

/// Go's `time.ParseDuration`: an optional sign, then one or more decimal numbers, each
/// with an optional fraction and a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`),
/// or `0` alone; the result in nanoseconds (`time.Duration`), computed as Go does
/// (integers, the fraction scaled per unit and truncated).
///
/// # Errors
/// The text is not a Go duration, or is outside `time.Duration`'s range.
pub(crate) fn parse_go_duration(text: &str) -> Result<i64, DurationError> {
    let invalid = || DurationError::Invalid(text.to_string());
    let mut s = text;
    let mut negative = false;
    if let Some(rest) = s.strip_prefix('-') {
        negative = true;
        s = rest;
    } else if let Some(rest) = s.strip_prefix('+') {
        s = rest;
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        // The next character must be [0-9.].
        if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        // [0-9]*
        let (whole, rest) = leading_int(s).ok_or_else(invalid)?;
        let before_point = rest.len() != s.len();
        s = rest;
        // (\.[0-9]*)?
        let mut fraction = (0, 1.0);
        let mut after_point = false;
        if let Some(rest) = s.strip_prefix('.') {
            let (f, scale, rest2) = leading_fraction(rest);
            after_point = rest2.len() != rest.len();
            fraction = (f, scale);
            s = rest2;
        }
        if !before_point && !after_point {
            return Err(invalid());
        }
        // The unit: up to the next [0-9.].
        let unit_len = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(DurationError::MissingUnit(text.to_string()));
        }
        let (unit, rest) = s.split_at(unit_len);
        s = rest;
        let Some(factor) = unit_nanos(unit) else {
            return Err(DurationError::UnknownUnit {
                unit: unit.to_string(),
                duration: text.to_string(),
            });
        };
        if whole > LIMIT / factor {
            return Err(invalid());
        }
        let mut value = whole * factor;
        let (f, scale) = fraction;
        if f > 0 {
            // Go: `v += uint64(float64(f) * (float64(unit) / scale))`: Go's own float
            // arithmetic, truncated as Go converts.
            let part = (f as f64 * (factor as f64 / scale)) as u64;
            value = value.saturating_add(part);
            if value > LIMIT {
                return Err(invalid());
            }
        }
        total = total.saturating_add(value);
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        // -(1 << 63) is the one value whose magnitude is LIMIT.
        return Ok(0_i64.wrapping_sub_unsigned(total));
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// Go's `time.ParseDuration` as a span of time (`std::time::Duration`): a negative
/// duration is an error.
///
/// # Errors
/// The text is not a Go duration or is outside `time.Duration`'s range, or the duration
/// is negative ([`DurationError::Negative`]).
pub fn parse_go_duration_std(text: &str) -> Result<std::time::Duration, DurationError> {
    let nanos = parse_go_duration(text)?;
    u64::try_from(nanos)
        .map(std::time::Duration::from_nanos)
        .map_err(|_| DurationError::Negative(text.to_string()))
}

/// A Go duration (`100ms`, `1s`, `250us`, `1m30s`; surrounding spaces ignored) in whole
/// microseconds, truncated as Go's `Duration / time.Microsecond`; `None` when it is not
/// a duration or is negative.
#[must_use]
pub(crate) fn parse_go_duration_us(s: &str) -> Option<i64> {
    parse_go_duration(s.trim())
        .ok()
        .filter(|nanos| *nanos >= 0)
        .map(|nanos| nanos / 1000)
}

/// Nanoseconds per unit (`unitMap`).
fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        // U+00B5 (micro sign) and U+03BC (Greek mu), as Go accepts both.
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// `leadingInt`: the leading digits' value and the rest; `None` on overflow.
fn leading_int(s: &str) -> Option<(u64, &str)> {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, rest) = s.split_at(digits);
    let mut x: u64 = 0;
    for b in number.bytes() {
        if x > LIMIT / 10 {
            return None;
        }
        x = x * 10 + u64::from(b - b'0');
        if x > LIMIT {
            return None;
        }
    }
    Some((x, rest))
}

/// `leadingFraction`: the leading digits as an integer, the power of ten it is scaled
/// by, and the rest; digits beyond what fits are skipped.
fn leading_fraction(s: &str) -> (u64, f64, &str) {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, rest) = s.split_at(digits);
    let mut x: u64 = 0;
    let mut scale = 1.0;
    let mut overflow = false;
    for b in number.bytes() {
        if overflow {
            continue;
        }
        if x > (LIMIT - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(b - b'0');
        if y > LIMIT {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, rest)
}

/// Go's `time.Duration.String()` for a whole number of milliseconds.
#[must_use]
pub(crate) fn go_duration_millis(ms: u64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let (h, rem) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rem) = (rem / 60_000, rem % 60_000);
    let (s, frac) = (rem / 1000, rem % 1000);
    let mut secs = s.to_string();
    if frac > 0 {
        let f = format!("{frac:03}");
        secs = format!("{s}.{}", f.trim_end_matches('0'));
    }
    if h > 0 {
        format!("{h}h{m}m{secs}s")
    } else if m > 0 {
        format!("{m}m{secs}s")
    } else {
        format!("{secs}s")
    }
}

/// A Go `time.Duration` string for whole seconds (`10s`, `1m20s`, `5m0s`, `1h0m0s`).
#[must_use]
pub(crate) fn go_duration_seconds(seconds: u64) -> String {
    let h = seconds / 3600;
    let m = (seconds % 3600) / 60;
    let s = seconds % 60;
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else if m > 0 {
        format!("{m}m{s}s")
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_go_duration_examples() {
        assert_eq!(parse_go_duration("1m30.5s"), Ok(90_500_000_000));
        assert_eq!(parse_go_duration("-1.5h"), Ok(-5_400_000_000_000));
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(
            parse_go_duration("10").unwrap_err().to_string(),
            r#"time: missing unit in duration "10""#
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_go_duration_us("100ms"), Some(100_000));
        assert_eq!(parse_go_duration_us("1s"), Some(1_000_000));
        assert_eq!(parse_go_duration_us("5ms"), Some(5_000));
        assert_eq!(parse_go_duration_us("1m30s"), Some(90_000_000));
        assert_eq!(parse_go_duration_us("x"), None);
        assert_eq!(parse_go_duration_us(" 1.001ms "), Some(1_001));
        assert_eq!(parse_go_duration_us("-1s"), None);
    }

    #[test]
    fn parses_as_go_time_parse_duration() {
        // The cases of Go's `parseDurationTests`.
        for (text, nanos) in [
            ("0", 0),
            ("5s", 5_000_000_000),
            ("30s", 30_000_000_000),
            ("1478s", 1_478_000_000_000),
            ("-5s", -5_000_000_000),
            ("+5s", 5_000_000_000),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5_000_000_000),
            ("5.6s", 5_600_000_000),
            ("5.s", 5_000_000_000),
            (".5s", 500_000_000),
            ("1.0s", 1_000_000_000),
            ("1.00s", 1_000_000_000),
            ("1.004s", 1_004_000_000),
            ("1.0040s", 1_004_000_000),
            ("100.00100s", 100_001_000_000),
            ("10ns", 10),
            ("11us", 11_000),
            ("12\u{b5}s", 12_000),
            ("12\u{3bc}s", 12_000),
            ("13ms", 13_000_000),
            ("14s", 14_000_000_000),
            ("15m", 900_000_000_000),
            ("16h", 57_600_000_000_000),
            ("3h30m", 12_600_000_000_000),
            ("10.5s4m", 250_500_000_000),
            ("-2m3.4s", -123_400_000_000),
            ("1h2m3s4ms5us6ns", 3_723_004_005_006),
            ("39h9m14.425s", 140_954_425_000_000),
            ("52763797000ns", 52_763_797_000),
            ("0.3333333333333333333h", 1_200_000_000_000),
            ("9007199254740993ns", 9_007_199_254_740_993),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            ("0.100000000000000000000h", 360_000_000_000),
            ("0.830103483285477580700h", 2_988_372_539_827),
        ] {
            assert_eq!(parse_go_duration(text), Ok(nanos), "{text}");
        }
        for text in [
            "",
            "3",
            "-",
            "s",
            ".",
            "-.",
            ".s",
            "+.s",
            "1d",
            "\u{85}",
            "\u{ffd}",
            "9223372036854775808ns",
            "9223372036854775.808us",
            "9223372036854ms775us808ns",
            "-9223372036854775809ns",
        ] {
            assert!(parse_go_duration(text).is_err(), "{text}");
        }
        let message = |t: &str| parse_go_duration(t).unwrap_err().to_string();
        assert_eq!(message("3"), r#"time: missing unit in duration "3""#);
        assert_eq!(message("1d"), r#"time: unknown unit "d" in duration "1d""#);
        assert_eq!(message("x"), r#"time: invalid duration "x""#);
        assert_eq!(
            parse_go_duration_std("-1s").unwrap_err().to_string(),
            r#"negative duration "-1s""#
        );
        assert_eq!(
            parse_go_duration_std("1m30s"),
            Ok(std::time::Duration::from_secs(90))
        );
    }

    #[test]
    fn durations_render_like_go() {
        assert_eq!(go_duration_millis(0), "0s");
        assert_eq!(go_duration_millis(120), "120ms");
        assert_eq!(go_duration_millis(1500), "1.5s");
        assert_eq!(go_duration_millis(61_000), "1m1s");
        assert_eq!(go_duration_millis(3_723_040), "1h2m3.04s");
        assert_eq!(go_duration_seconds(10), "10s");
        assert_eq!(go_duration_seconds(300), "5m0s");
        assert_eq!(go_duration_seconds(3600), "1h0m0s");
    }
}
