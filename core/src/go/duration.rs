//! Go's `time.Duration` as the kubelet reads and prints it: `time.ParseDuration` of the
//! kubelet configuration's durations (`cpuCFSQuotaPeriod`, `kubeletconfig/v1beta1`) and
//! `Duration.String()` in event and status messages (`images/image_manager.go`'s pull
//! times, `kuberuntime_manager.go`'s back-off delays).

/// Parses a Go duration (`100ms`, `1s`, `250us`, `1m30s`) into whole microseconds.
#[must_use]
pub fn parse_go_duration_us(s: &str) -> Option<i64> {
    let mut rest = s.trim();
    if rest == "0" {
        return Some(0);
    }
    let mut total: f64 = 0.0;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, after) = rest.split_at(num_len);
        let value: f64 = num.parse().ok()?;
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let factor = match unit {
            "ns" => 0.001,
            "us" | "µs" => 1.0,
            "ms" => 1_000.0,
            "s" => 1_000_000.0,
            "m" => 60_000_000.0,
            "h" => 3_600_000_000.0,
            _ => return None,
        };
        total += value * factor;
        rest = next;
    }
    // Truncation towards zero, like Go's `Duration / time.Microsecond`.
    Some(total as i64)
}

/// Go's `time.Duration.String()` for a whole number of milliseconds.
#[must_use]
pub fn go_duration_millis(ms: u64) -> String {
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
pub fn go_duration_seconds(seconds: u64) -> String {
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
    fn durations() {
        assert_eq!(parse_go_duration_us("100ms"), Some(100_000));
        assert_eq!(parse_go_duration_us("1s"), Some(1_000_000));
        assert_eq!(parse_go_duration_us("5ms"), Some(5_000));
        assert_eq!(parse_go_duration_us("1m30s"), Some(90_000_000));
        assert_eq!(parse_go_duration_us("x"), None);
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
