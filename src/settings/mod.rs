//! Settings in force, each with where it came from: flag > config > default (the
//! registry of defaults is [`defaults`]). Flags, environment and config are resolved
//! once, by [`resolve`], into one typed [`Resolved`] value before any command connects to
//! anything; a command's run takes its part of it and reads neither flags nor config.

pub mod addressing;
pub mod appdb;
pub mod camunda;
pub mod command;
pub mod config_check;
pub mod dbos;
pub mod defaults;
pub mod kafka;
pub mod kafka_client;
pub mod man;
pub mod modulith;
pub mod mysql;
pub mod pg;
pub mod probe;
pub mod reconcile;
pub mod reconcile_args;
pub mod republish;
pub mod resolution;
pub mod saga;
pub mod seata;
pub mod targets;

use crate::config;
use crate::error::hinted;
use crate::units::{format_duration, format_size};
use defaults::Entry;
use std::time::Duration;

pub use command::{resolve, resolve_loaded, CommandSettings, Resolved};

/// Where a value in force came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A flag on the command line, e.g. `--warning-gap`.
    Flag(&'static str),
    /// A key of the config file, e.g. `thresholds.lso.warning_gap`, `outbox.orders.settle`.
    Config(String),
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

impl<T: Clone> Setting<T> {
    /// The config's value where it has one, else the entry's default.
    fn from(entry: &'static Entry, configured: Option<T>, default: T) -> Setting<T> {
        match (configured, entry.config) {
            (Some(value), Some(key)) => Setting {
                value,
                source: Source::Config(key.to_string()),
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
    pub purge_warning_history_length: Setting<u64>,
    pub purge_critical_history_length: Setting<u64>,
}

/// A command's warning and critical flags, None where not given.
pub type Flags<T> = (Option<T>, Option<T>);

/// Every threshold pair in force before any command's flag, each checked: warning, critical.
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    pub prepared_age: (Duration, Duration),
    pub slots_retained: (u64, u64),
    pub horizon_age: (Duration, Duration),
    pub horizon_xids: (u64, u64),
    pub wraparound_xids: (u64, u64),
    pub lso_age: (Duration, Duration),
    pub lso_gap: (u64, u64),
    pub hanging_max_transaction_timeout: Duration,
    pub purge_history_length: (u64, u64),
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
            purge_warning_history_length: number(
                &PURGE_WARNING_HISTORY_LENGTH,
                c.purge.warning_history_length,
            ),
            purge_critical_history_length: number(
                &PURGE_CRITICAL_HISTORY_LENGTH,
                c.purge.critical_history_length,
            ),
        }
    }

    /// Prepared-transaction age: warning, critical.
    pub fn prepared(
        &self,
        flags: Flags<Duration>,
        note: Note,
    ) -> anyhow::Result<(Duration, Duration)> {
        let t = self;
        noted(
            "prepared age",
            flags,
            (&t.prepared_warning_age, &t.prepared_critical_age),
            format_duration,
            note,
        )
    }

    /// WAL retained by an inactive slot, in bytes.
    pub fn slots(&self, flags: Flags<u64>, note: Note) -> anyhow::Result<(u64, u64)> {
        let t = self;
        noted(
            "retained WAL",
            flags,
            (&t.slots_warning_retained, &t.slots_critical_retained),
            format_size,
            note,
        )
    }

    /// How long one holder may hold the horizon.
    pub fn horizon_age(
        &self,
        flags: Flags<Duration>,
        note: Note,
    ) -> anyhow::Result<(Duration, Duration)> {
        let t = self;
        noted(
            "horizon age",
            flags,
            (&t.horizon_warning_age, &t.horizon_critical_age),
            format_duration,
            note,
        )
    }

    /// How many xids a holder may hold the horizon back; slots use it too.
    pub fn horizon_xids(&self, flags: Flags<u64>, note: Note) -> anyhow::Result<(u64, u64)> {
        let t = self;
        noted(
            "horizon xids",
            flags,
            (&t.horizon_warning_xids, &t.horizon_critical_xids),
            |n| n.to_string(),
            note,
        )
    }

    /// age(datfrozenxid) / mxid_age(datminmxid) of a database.
    pub fn wraparound(&self, flags: Flags<u64>, note: Note) -> anyhow::Result<(u64, u64)> {
        let t = self;
        noted(
            "wraparound xids",
            flags,
            (&t.wraparound_warning_xids, &t.wraparound_critical_xids),
            |n| n.to_string(),
            note,
        )
    }

    /// LSO gap: age of the first unstable record.
    pub fn lso_age(
        &self,
        flags: Flags<Duration>,
        note: Note,
    ) -> anyhow::Result<(Duration, Duration)> {
        let t = self;
        noted(
            "LSO age",
            flags,
            (&t.lso_warning_age, &t.lso_critical_age),
            format_duration,
            note,
        )
    }

    /// LSO gap: offsets behind.
    pub fn lso_gap(&self, flags: Flags<u64>, note: Note) -> anyhow::Result<(u64, u64)> {
        let t = self;
        noted(
            "LSO gap",
            flags,
            (&t.lso_warning_gap, &t.lso_critical_gap),
            |n| n.to_string(),
            note,
        )
    }

    /// InnoDB's history list length.
    pub fn purge(&self, flags: Flags<u64>, note: Note) -> anyhow::Result<(u64, u64)> {
        let t = self;
        noted(
            "history list length",
            flags,
            (
                &t.purge_warning_history_length,
                &t.purge_critical_history_length,
            ),
            |n| n.to_string(),
            note,
        )
    }

    /// How old an open transaction's last write must be before `kafka hanging` examines it.
    pub fn hanging(&self, flag: Option<Duration>) -> Duration {
        flag.unwrap_or(self.hanging_max_transaction_timeout.value)
    }

    /// Every pair of the config and the defaults, checked (no command's flag): what
    /// `config show` reports, and refuses as the commands would.
    pub fn checked(&self) -> anyhow::Result<Checked> {
        let none = &|_: String| {};
        Ok(Checked {
            prepared_age: self.prepared((None, None), none)?,
            slots_retained: self.slots((None, None), none)?,
            horizon_age: self.horizon_age((None, None), none)?,
            horizon_xids: self.horizon_xids((None, None), none)?,
            wraparound_xids: self.wraparound((None, None), none)?,
            lso_age: self.lso_age((None, None), none)?,
            lso_gap: self.lso_gap((None, None), none)?,
            hanging_max_transaction_timeout: self.hanging(None),
            purge_history_length: self.purge((None, None), none)?,
        })
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
            n(&self.purge_warning_history_length),
            n(&self.purge_critical_history_length),
        ]
    }
}

impl<T: Clone> Setting<T> {
    /// A field of a per-name section (a reconcile job's `settle`, an outbox's
    /// `warning_age`, the i-th decision source's `in_doubt_after`): the config's value,
    /// else the entry's default; its key names the section, `outbox.orders.settle`.
    pub fn in_section(
        entry: &'static Entry,
        section: &str,
        configured: Option<T>,
        default: T,
    ) -> Setting<T> {
        match configured {
            Some(value) => Setting {
                value,
                source: Source::Config(
                    entry
                        .config
                        .unwrap_or_default()
                        .replacen('*', section, 1)
                        .replacen("[]", &format!("[{section}]"), 1),
                ),
                entry,
            },
            None => Setting {
                value: default,
                source: Source::Default,
                entry,
            },
        }
    }
}

impl Setting<Duration> {
    /// A duration field of a per-name section, defaulting to its entry's.
    pub fn duration_in(
        entry: &'static Entry,
        section: &str,
        configured: Option<Duration>,
    ) -> Setting<Duration> {
        Setting::in_section(entry, section, configured, entry.duration())
    }

    /// As written in the config and on the command line (`5m`).
    pub fn text(&self) -> String {
        defaults::Value::Duration(self.value).text()
    }
}

/// A warning/critical pair in force: each its command's flag, else the setting (the
/// config's value or the default); a warning above the critical is refused rather than
/// silently swapped.
pub fn pair<T: PartialOrd + Copy>(
    what: &str,
    flags: (Option<T>, Option<T>),
    settings: (&Setting<T>, &Setting<T>),
    show: impl Fn(T) -> String,
) -> anyhow::Result<(T, T)> {
    let (warning, critical) = in_force(flags, settings);
    check_pair(what, (warning.value, critical.value), show)
}

/// The pair's settings with the command's flags laid over them (a flag is named as the
/// command line spells it, `--warning-age`).
fn in_force<T: Copy>(
    flags: Flags<T>,
    settings: (&Setting<T>, &Setting<T>),
) -> (Setting<T>, Setting<T>) {
    let over = |flag: Option<T>, s: &Setting<T>| {
        let name = s
            .entry
            .flag
            .and_then(|f| f.rsplit(' ').next())
            .unwrap_or("a flag");
        s.over(flag, name)
    };
    (over(flags.0, settings.0), over(flags.1, settings.1))
}

/// Where -v notes what is in force.
pub type Note<'a> = &'a dyn Fn(String);

/// [`pair`], and what is in force said to `note` (-v).
fn noted<T: PartialOrd + Copy>(
    what: &str,
    flags: Flags<T>,
    settings: (&Setting<T>, &Setting<T>),
    show: fn(T) -> String,
    note: Note,
) -> anyhow::Result<(T, T)> {
    let checked = pair(what, flags, settings, show)?;
    note(said(what, flags, settings, show));
    Ok(checked)
}

/// What -v says of a pair in force: each value and where it came from.
fn said<T: Copy>(
    what: &str,
    flags: Flags<T>,
    settings: (&Setting<T>, &Setting<T>),
    show: impl Fn(T) -> String,
) -> String {
    let (warning, critical) = in_force(flags, settings);
    format!(
        "{what} thresholds: warning {} ({}), critical {} ({})",
        show(warning.value),
        warning.source.describe(),
        show(critical.value),
        critical.source.describe()
    )
}

/// The pair, or the refusal of a warning above the critical.
fn check_pair<T: PartialOrd + Copy>(
    what: &str,
    (warning, critical): (T, T),
    show: impl Fn(T) -> String,
) -> anyhow::Result<(T, T)> {
    if warning > critical {
        return Err(hinted(
            format!(
                "{what}: warning threshold {} is above the critical one {}",
                show(warning),
                show(critical)
            ),
            "the warning threshold must not exceed the critical one",
        ));
    }
    Ok((warning, critical))
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
            Source::Config("thresholds.lso.warning_gap".into())
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
        assert_eq!(rows.len(), 17);
        assert!(rows
            .iter()
            .any(|(e, v, s)| e.config == Some("thresholds.lso.warning_gap")
                && v == "5k"
                && s.describe() == "config thresholds.lso.warning_gap"));
    }

    #[test]
    fn a_section_field_names_its_section_and_the_checked_pairs_refuse_a_swap() {
        let d = Setting::duration_in(
            &defaults::OUTBOX_SETTLE,
            "orders",
            Some(Duration::from_secs(60)),
        );
        assert_eq!(d.source.describe(), "config outbox.orders.settle");
        assert_eq!(d.text(), "1m");
        let d = Setting::duration_in(
            &defaults::DECISION_SOURCE_IN_DOUBT_AFTER,
            "2",
            Some(Duration::from_secs(1)),
        );
        assert_eq!(
            d.source.describe(),
            "config resolve.decision_sources[2].in_doubt_after"
        );
        let d = Setting::duration_in(&defaults::RECONCILE_SLACK, "orders", None);
        assert_eq!(
            (d.value, d.source),
            (defaults::RECONCILE_SLACK.duration(), Source::Default)
        );

        let c = config::parse(
            "thresholds:\n  lso:\n    warning_gap: 5M\n",
            std::path::Path::new("c.yaml"),
        )
        .unwrap();
        let t = Thresholds::resolve(&c.thresholds);
        let err = t.checked().unwrap_err();
        assert_eq!(
            err.to_string(),
            "LSO gap: warning threshold 5000000 is above the critical one 1000000"
        );
        // A flag over the config makes the pair consistent again.
        assert_eq!(
            t.lso_gap((None, Some(6_000_000)), &|_| {}).unwrap(),
            (5_000_000, 6_000_000)
        );
        let ok = Thresholds::resolve(&config::Thresholds::default())
            .checked()
            .unwrap();
        assert_eq!(ok.lso_gap, (100_000, 1_000_000));
    }
}
