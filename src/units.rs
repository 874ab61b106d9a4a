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

/// Parses a size: `512MiB`, `10GiB`, and PostgreSQL's own `kB`, `MB`, `GB`, `TB` — all
/// powers of 1024, so a value copied from postgresql.conf means the same — or plain bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let s = text.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len());
    let (number, unit) = (&s[..split], s[split..].trim());
    let value: f64 = number.parse().map_err(|_| {
        format!("invalid size {text:?}: expected a number and a unit, e.g. 512MiB or 10GB")
    })?;
    let factor: f64 = match unit {
        "" | "B" => 1.0,
        "kB" | "KB" | "KiB" => 1024.0,
        "MB" | "MiB" => 1024.0 * 1024.0,
        "GB" | "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TB" | "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("invalid size {text:?}: unknown unit {other:?} (use B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)")),
    };
    let bytes = value * factor;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("invalid size {text:?}: out of range"));
    }
    Ok(bytes.round() as u64)
}

/// Bytes in powers of 1024 with one decimal: `412.0 GiB`, `16.0 MiB`, `512 B`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Parses a transaction count: `150M`, `2k`, `1.5B` (powers of 1000), or a plain number.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let s = text.trim();
    let (number, factor) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1e3),
        Some((i, 'M')) => (&s[..i], 1e6),
        Some((i, 'B' | 'G')) => (&s[..i], 1e9),
        _ => (s, 1.0),
    };
    let value: f64 = number.parse().map_err(|_| {
        format!("invalid count {text:?}: expected a number with an optional k, M or B, e.g. 150M")
    })?;
    let count = value * factor;
    if !count.is_finite() || count < 0.0 || count > u64::MAX as f64 {
        return Err(format!("invalid count {text:?}: out of range"));
    }
    Ok(count.round() as u64)
}

/// `at` minus `back`, or the earliest time there is when that would overflow (`--since 9999999d`).
pub fn time_before(
    at: chrono::DateTime<chrono::Utc>,
    back: Duration,
) -> chrono::DateTime<chrono::Utc> {
    chrono::Duration::from_std(back)
        .ok()
        .and_then(|d| at.checked_sub_signed(d))
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC)
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

/// Serde helper: sizes in the config file, written like the flags (`10GiB`).
pub mod serde_size {
    use serde::Deserializer;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let text = super::number_or_text(d)?;
        super::parse_size(&text)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

/// Serde helper: transaction counts in the config file (`150M`).
pub mod serde_count {
    use serde::Deserializer;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let text = super::number_or_text(d)?;
        super::parse_count(&text)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

/// YAML reads `150000000` as a number and `150M` as text; both are fine for sizes and counts.
fn number_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum NumberOrText {
        Number(u64),
        Text(String),
    }
    Ok(match serde::Deserialize::deserialize(d)? {
        NumberOrText::Number(n) => n.to_string(),
        NumberOrText::Text(t) => t,
    })
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
    fn sizes_in_both_unit_systems() {
        assert_eq!(parse_size("512MiB").unwrap(), 512 * 1024 * 1024);
        assert_eq!(
            parse_size("10GB").unwrap(),
            10 << 30,
            "GB as in postgresql.conf"
        );
        assert_eq!(parse_size("1.5GiB").unwrap(), 1_610_612_736);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("10 gigs").is_err());
        assert!(parse_size("GiB").is_err());
        assert_eq!(format_size(412 * 1024 * 1024 * 1024), "412.0 GiB");
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(16 * 1024 * 1024 + 1), "16.0 MiB");
    }

    #[test]
    fn transaction_counts() {
        assert_eq!(parse_count("150M").unwrap(), 150_000_000);
        assert_eq!(parse_count("2k").unwrap(), 2000);
        assert_eq!(parse_count("1.5B").unwrap(), 1_500_000_000);
        assert_eq!(parse_count("42").unwrap(), 42);
        assert!(parse_count("lots").is_err());
        assert!(parse_count("-5M").is_err());
    }

    #[test]
    fn time_before_never_overflows() {
        let now = chrono::Utc::now();
        assert_eq!(
            time_before(now, Duration::from_secs(60)),
            now - chrono::Duration::seconds(60)
        );
        assert_eq!(
            time_before(now, Duration::from_secs(u64::MAX)),
            chrono::DateTime::<chrono::Utc>::MIN_UTC
        );
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
