//! Human units for thresholds and timeouts: parsing `1h30m`-style durations and printing them back.

use std::time::Duration;

/// Parses a duration such as `500ms`, `10s`, `5m`, `1h30m`, `2d` or `0`.
///
/// A bare number is refused (except `0`): "10" is ambiguous between seconds and
/// milliseconds, and a wrong guess in a threshold silently changes an alert.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total_ms: u128 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(format!(
                "invalid duration {text:?}: expected a number followed by a unit (ms, s, m, h, d), e.g. 90s or 1h30m"
            ));
        }
        let value: u128 = rest[..digits]
            .parse()
            .map_err(|_| format!("invalid duration {text:?}: number too large"))?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit_ms: u128 = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1_000,
            "m" | "min" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            "" => {
                return Err(format!(
                    "invalid duration {text:?}: missing unit after {value} (use ms, s, m, h or d)"
                ))
            }
            other => {
                return Err(format!(
                    "invalid duration {text:?}: unknown unit {other:?} (use ms, s, m, h or d)"
                ))
            }
        };
        total_ms = value
            .checked_mul(unit_ms)
            .and_then(|v| total_ms.checked_add(v))
            .ok_or_else(|| format!("invalid duration {text:?}: too large"))?;
        rest = &rest[unit_len..];
    }
    let ms =
        u64::try_from(total_ms).map_err(|_| format!("invalid duration {text:?}: too large"))?;
    Ok(Duration::from_millis(ms))
}

/// Prints a duration the way an operator reads it: the two largest units, `2d 3h`, `14m 5s`, `800ms`.
pub fn format_duration(d: Duration) -> String {
    let total = d.as_secs();
    if total == 0 {
        return match d.subsec_millis() {
            0 => "0s".to_string(),
            ms => format!("{ms}ms"),
        };
    }
    let parts = [
        (total / 86_400, "d"),
        ((total % 86_400) / 3_600, "h"),
        ((total % 3_600) / 60, "m"),
        (total % 60, "s"),
    ];
    let first = parts.iter().position(|(v, _)| *v > 0).unwrap_or(3);
    parts[first..]
        .iter()
        .take(2)
        .filter(|(v, _)| *v > 0)
        .map(|(v, u)| format!("{v}{u}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seconds as reported by a server (may be fractional or, with clock skew, negative) to a Duration.
pub fn seconds(secs: f64) -> Duration {
    if secs.is_finite() && secs > 0.0 {
        Duration::from_secs_f64(secs)
    } else {
        Duration::ZERO
    }
}

/// Serde helper: thresholds in the config file are written like the flags (`5m`).
pub mod serde_duration {
    use serde::{Deserialize, Deserializer};
    use std::time::Duration;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let text = String::deserialize(d)?;
        super::parse_duration(&text)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_compound_durations() {
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2d").unwrap(), Duration::from_secs(172_800));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration(" 5m ").unwrap(), Duration::from_secs(300));
    }

    #[test]
    fn refuses_ambiguous_or_broken_durations() {
        for bad in [
            "",
            "10",
            "5x",
            "m",
            "1h30",
            "-5s",
            "99999999999999999999999d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn formats_two_largest_units() {
        assert_eq!(
            format_duration(Duration::from_secs(3 * 86_400 + 4 * 3600 + 5)),
            "3d 4h"
        );
        assert_eq!(format_duration(Duration::from_secs(845)), "14m 5s");
        assert_eq!(format_duration(Duration::from_secs(3600)), "1h");
        assert_eq!(format_duration(Duration::from_millis(800)), "800ms");
        assert_eq!(format_duration(Duration::ZERO), "0s");
        assert_eq!(format_duration(Duration::from_secs(61)), "1m 1s");
    }
}
