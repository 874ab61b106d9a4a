//! Settings in force, each with where it came from: flag > config > default (the
//! registry of defaults is [`defaults`]). Resolved once from the config when a command
//! starts; a command's own flag is laid over its setting with [`Setting::over`].

pub mod defaults;
pub mod man;

use crate::config;
use defaults::Entry;
use std::time::Duration;

/// Where a value in force came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A flag on the command line, e.g. `--warning-gap`.
    Flag(&'static str),
    /// A key of the config file, e.g. `thresholds.lso.warning_gap`.
    Config(&'static str),
    /// The registry's default.
    Default,
}

impl Source {
    /// `--warning-gap`, `config thresholds.lso.warning_gap`, `default`.
    pub fn describe(&self) -> String {
        match self {
            Source::Flag(flag) => (*flag).to_string(),
            Source::Config(key) => format!("config {key}"),
            Source::Default => "default".to_string(),
        }
    }
}

/// A value in force and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
    pub entry: &'static Entry,
}

impl<T: Copy> Setting<T> {
    /// The config's value where it has one, else the entry's default.
    fn from(entry: &'static Entry, configured: Option<T>, default: T) -> Setting<T> {
        match (configured, entry.config) {
            (Some(value), Some(key)) => Setting {
                value,
                source: Source::Config(key),
                entry,
            },
            _ => Setting {
                value: default,
                source: Source::Default,
                entry,
            },
        }
    }

    /// The same setting with a command's flag over it, when the flag was given.
    pub fn over(&self, flag: Option<T>, name: &'static str) -> Setting<T> {
        match flag {
            Some(value) => Setting {
                value,
                source: Source::Flag(name),
                entry: self.entry,
            },
            None => self.clone(),
        }
    }
}

impl Setting<Duration> {
    /// A duration only a flag sets: its default until the flag is laid over it.
    pub fn of(entry: &'static Entry) -> Setting<Duration> {
        Setting {
            value: entry.duration(),
            source: Source::Default,
            entry,
        }
    }
}

fn duration(entry: &'static Entry, configured: Option<Duration>) -> Setting<Duration> {
    Setting::from(entry, configured, entry.duration())
}

fn number(entry: &'static Entry, configured: Option<u64>) -> Setting<u64> {
    Setting::from(entry, configured, entry.number())
}

/// Every threshold in force from the config and the defaults, before any command's flag.
#[derive(Debug, Clone)]
pub struct Thresholds {
    pub prepared_warning_age: Setting<Duration>,
    pub prepared_critical_age: Setting<Duration>,
    pub slots_warning_retained: Setting<u64>,
    pub slots_critical_retained: Setting<u64>,
    pub horizon_warning_age: Setting<Duration>,
    pub horizon_critical_age: Setting<Duration>,
    pub horizon_warning_xids: Setting<u64>,
    pub horizon_critical_xids: Setting<u64>,
    pub wraparound_warning_xids: Setting<u64>,
    pub wraparound_critical_xids: Setting<u64>,
    pub lso_warning_age: Setting<Duration>,
    pub lso_critical_age: Setting<Duration>,
    pub lso_warning_gap: Setting<u64>,
    pub lso_critical_gap: Setting<u64>,
    pub hanging_max_transaction_timeout: Setting<Duration>,
}

impl Thresholds {
    pub fn resolve(c: &config::Thresholds) -> Thresholds {
        use defaults::*;
        Thresholds {
            prepared_warning_age: duration(&PREPARED_WARNING_AGE, c.prepared.warning_age),
            prepared_critical_age: duration(&PREPARED_CRITICAL_AGE, c.prepared.critical_age),
            slots_warning_retained: number(&SLOTS_WARNING_RETAINED, c.slots.warning_retained),
            slots_critical_retained: number(&SLOTS_CRITICAL_RETAINED, c.slots.critical_retained),
            horizon_warning_age: duration(&HORIZON_WARNING_AGE, c.horizon.warning_age),
            horizon_critical_age: duration(&HORIZON_CRITICAL_AGE, c.horizon.critical_age),
            horizon_warning_xids: number(&HORIZON_WARNING_XIDS, c.horizon.warning_xids),
            horizon_critical_xids: number(&HORIZON_CRITICAL_XIDS, c.horizon.critical_xids),
            wraparound_warning_xids: number(&WRAPAROUND_WARNING_XIDS, c.wraparound.warning_xids),
            wraparound_critical_xids: number(&WRAPAROUND_CRITICAL_XIDS, c.wraparound.critical_xids),
            lso_warning_age: duration(&LSO_WARNING_AGE, c.lso.warning_age),
            lso_critical_age: duration(&LSO_CRITICAL_AGE, c.lso.critical_age),
            lso_warning_gap: number(&LSO_WARNING_GAP, c.lso.warning_gap),
            lso_critical_gap: number(&LSO_CRITICAL_GAP, c.lso.critical_gap),
            hanging_max_transaction_timeout: duration(
                &HANGING_MAX_TRANSACTION_TIMEOUT,
                c.hanging.max_transaction_timeout,
            ),
        }
    }

    /// Each threshold as (entry, value as written, source), in the registry's order.
    pub fn rows(&self) -> Vec<(&'static Entry, String, Source)> {
        let d = |s: &Setting<Duration>| {
            (
                s.entry,
                defaults::Value::Duration(s.value).text(),
                s.source.clone(),
            )
        };
        let n = |s: &Setting<u64>| {
            let value = match s.entry.value {
                defaults::Value::Size(_) => defaults::size_text(s.value),
                _ => defaults::count_text(s.value),
            };
            (s.entry, value, s.source.clone())
        };
        vec![
            d(&self.prepared_warning_age),
            d(&self.prepared_critical_age),
            n(&self.slots_warning_retained),
            n(&self.slots_critical_retained),
            d(&self.horizon_warning_age),
            d(&self.horizon_critical_age),
            n(&self.horizon_warning_xids),
            n(&self.horizon_critical_xids),
            n(&self.wraparound_warning_xids),
            n(&self.wraparound_critical_xids),
            d(&self.lso_warning_age),
            d(&self.lso_critical_age),
            n(&self.lso_warning_gap),
            n(&self.lso_critical_gap),
            d(&self.hanging_max_transaction_timeout),
        ]
    }
}

/// A value of an optional config field, or the entry's default, with its source: for
/// the per-name sections (a reconcile job's `settle`, an outbox's `warning_age`), whose
/// key names the section: `outbox.orders.settle`.
pub fn in_section<T>(configured: Option<T>, default: T, key: String) -> (T, String) {
    match configured {
        Some(value) => (value, format!("config {key}")),
        None => (default, "default".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_over_default_and_flag_over_config_each_say_where_they_came_from() {
        let c = config::parse(
            "thresholds:\n  lso:\n    warning_gap: 5k\n",
            std::path::Path::new("c.yaml"),
        )
        .unwrap();
        let t = Thresholds::resolve(&c.thresholds);
        assert_eq!(t.lso_warning_gap.value, 5_000);
        assert_eq!(
            t.lso_warning_gap.source,
            Source::Config("thresholds.lso.warning_gap")
        );
        assert_eq!(t.lso_critical_gap.value, 1_000_000);
        assert_eq!(t.lso_critical_gap.source, Source::Default);
        let flagged = t.lso_warning_gap.over(Some(7), "--warning-gap");
        assert_eq!(
            (flagged.value, flagged.source),
            (7, Source::Flag("--warning-gap"))
        );
        assert_eq!(t.lso_warning_gap.over(None, "--warning-gap").value, 5_000);
        let rows = t.rows();
        assert_eq!(rows.len(), 15);
        assert!(rows
            .iter()
            .any(|(e, v, s)| e.config == Some("thresholds.lso.warning_gap")
                && v == "5k"
                && s.describe() == "config thresholds.lso.warning_gap"));
    }
}
