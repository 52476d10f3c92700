//! apimachinery's `HumanDuration` and `TranslateTimestampSince`.

/// `HumanDuration(d)` for a duration in nanoseconds (may be negative).
#[must_use]
pub fn human_duration(nanos: i128) -> String {
    // Go durations are int64 nanoseconds; `time.Sub` saturates.
    let d = nanos.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
    let seconds = d / 1_000_000_000;
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    let days = hours / 24;
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{days}d")
        } else {
            format!("{days}d{h}h")
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{days}d");
    }
    let years = days / 365;
    if hours < 24 * 365 * 8 {
        let dy = days % 365;
        return if dy == 0 {
            format!("{years}y")
        } else {
            format!("{years}y{dy}d")
        };
    }
    format!("{years}y")
}

/// `TranslateTimestampSince`: `"<unknown>"` for an absent time, else `H(now - t)`.
#[must_use]
pub(crate) fn since(t: Option<jiff::Timestamp>, now: jiff::Timestamp) -> String {
    match t {
        None => "<unknown>".to_string(),
        Some(t) => human_duration(now.as_nanosecond() - t.as_nanosecond()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries() {
        let s = 1_000_000_000_i128;
        assert_eq!(human_duration(-2 * s), "<invalid>");
        assert_eq!(human_duration(-s - s / 2), "0s");
        assert_eq!(human_duration(119 * s + s - 1), "119s");
        assert_eq!(human_duration(120 * s), "2m");
        assert_eq!(human_duration(190 * s), "3m10s");
        assert_eq!(human_duration(3 * 3600 * s + 60 * s), "3h1m");
        assert_eq!(human_duration(49 * 3600 * s), "2d1h");
        assert_eq!(human_duration((2 * 365 + 1) * 24 * 3600 * s), "2y1d");
    }
}
