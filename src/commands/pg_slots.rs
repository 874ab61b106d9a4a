//! `indoubt pg slots`: replication slots, the WAL they retain and what they hold back.

mod settings;

use super::pg_common;
use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::pg::slots::{self, Slot, SlotsSnapshot};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::settings::pg::SlotsSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::targets::Targets;
use crate::shown;
use crate::term::Shown;
use crate::text::Text;
use crate::units::format_size;
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct SlotsReport {
    thresholds: Thresholds,
    #[serde(flatten)]
    snapshot: SlotsSnapshot,
    /// The snapshot's gaps, worded (the last field, as the snapshot's own was).
    visibility_gaps: Vec<Text>,
}

impl SlotsReport {
    fn new(thresholds: Thresholds, snapshot: SlotsSnapshot) -> SlotsReport {
        SlotsReport {
            thresholds,
            visibility_gaps: snapshot
                .visibility_gaps
                .iter()
                .map(pg_common::gap_text)
                .collect(),
            snapshot,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
struct Thresholds {
    warning_retained_bytes: u64,
    critical_retained_bytes: u64,
    /// Slot xmin / catalog_xmin ages, shared with `pg horizon`.
    warning_xids: u64,
    critical_xids: u64,
}

/// `pg slots` as a probe.
pub(crate) struct PgSlots;

static SLOT_RETAINED: Family = Family {
    name: "indoubt_pg_slot_retained_wal_bytes",
    help: "WAL the server keeps for one replication slot (current LSN minus restart_lsn).",
    labels: &["slot", "slot_type"],
};
static SLOT_ACTIVE: Family = Family {
    name: "indoubt_pg_slot_active",
    help: "1 when a consumer is connected to the slot, 0 when not.",
    labels: &["slot", "slot_type"],
};
static SLOT_SAFE_WAL: Family = Family {
    name: "indoubt_pg_slot_safe_wal_size_bytes",
    help: "WAL that may still be written before the slot is lost (max_slot_wal_keep_size); no series when unlimited.",
    labels: &["slot", "slot_type"],
};

impl Inspect for PgSlots {
    type Args = settings::SlotsArgs;
    type Settings = SlotsSettings;
    type Gathered = SlotsSnapshot;
    type Data = SlotsReport;
    const NAME: &'static str = "pg slots";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Pg);
    const MEASURES: &'static [&'static Family] = &[&SLOT_RETAINED, &SLOT_ACTIVE, &SLOT_SAFE_WAL];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("The config's only postgres target", "indoubt pg slots"),
            example!("Other retained-WAL thresholds, a URL", "indoubt pg slots --pg postgres://monitor@db1:5432/postgres --warning-retained 512MiB --critical-retained 5GiB"),
        ],
        see_also: &["pg horizon"],
        codes: &[
            codes::MAX_SLOT_WAL_KEEP_SIZE_UNLIMITED,
            codes::SLOTS,
            codes::SLOT_CATALOG_XMIN,
            codes::SLOT_RETAINED_WAL,
            codes::SLOT_WAL_LOST,
            codes::SLOT_WAL_UNRESERVED,
            codes::SLOT_XMIN,
        ],
    };

    fn measures(data: &SlotsReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for slot in &data.snapshot.slots {
            let named = |m: Measure| {
                m.label("slot", crate::text::escape(&slot.name))
                    .label("slot_type", slot.slot_type.clone())
            };
            if let Some(bytes) = slot.retained_bytes {
                out.push(named(SLOT_RETAINED.at(bytes as f64)));
            }
            out.push(named(SLOT_ACTIVE.at(f64::from(u8::from(slot.active)))));
            if let Some(safe) = slot.safe_wal_size {
                out.push(named(SLOT_SAFE_WAL.at(safe as f64)));
            }
        }
        out
    }

    fn settings(
        t: &Targets,
        thresholds: &crate::settings::Thresholds,
        args: Self::Args,
    ) -> Result<SlotsSettings> {
        settings::slots(t, thresholds, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        pg_common::on_every_server(config, &["pg", "slots"])
    }

    async fn gather(ctx: &Context, settings: &SlotsSettings) -> Result<SlotsSnapshot> {
        pg_common::server_read(
            ctx,
            "pg slots",
            &settings.target,
            String::new(),
            |session| async move { slots::collect(&session).await },
        )
        .await
    }

    fn report(
        _ctx: &Context,
        settings: &SlotsSettings,
        snapshot: SlotsSnapshot,
    ) -> Report<SlotsReport> {
        report_of(settings, snapshot)
    }
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(settings: &SlotsSettings, snapshot: SlotsSnapshot) -> Report<SlotsReport> {
    let (warning, critical) = settings.retained;
    let (warning_xids, critical_xids) = settings.xids;
    let target = &settings.target;
    let thresholds = Thresholds {
        warning_retained_bytes: warning,
        critical_retained_bytes: critical,
        warning_xids,
        critical_xids,
    };
    let findings = assess(&snapshot, thresholds, &pg_common::server(target));
    Report::new(
        "pg slots",
        target.report_target(),
        findings,
        SlotsReport::new(thresholds, snapshot),
    )
}

fn slot_finding(
    severity: Severity,
    code: crate::codes::Code,
    slot: &Slot,
    message: String,
) -> Finding {
    Finding::new(severity, code, format!("slot {}", slot.name), message)
        .evidence("source", "pg_replication_slots")
        .evidence("slot", slot.name.clone())
        .evidence("slot_type", slot.slot_type.clone())
        .evidence("active", slot.active)
        .evidence("wal_status", slot.wal_status.clone())
        .evidence("retained_bytes", slot.retained_bytes)
        .evidence("restart_lsn", slot.restart_lsn.clone())
        .object(Object::new(ObjectKind::ReplicationSlot, slot.name.clone()))
}

/// An invalidated slot: why (PG17+ says; on 16 `conflicting` is set for WAL removal too,
/// which leaves restart_lsn NULL while a recovery conflict keeps it), and that a synced
/// one is re-created on the primary.
fn lost_finding(slot: &Slot, server: &str) -> Finding {
    let why = match (slot.invalidation_reason.as_deref(), slot.conflicting) {
        (Some(reason), _) => format!("invalidated ({reason})"),
        (None, Some(true)) if slot.restart_lsn.is_some() => {
            "invalidated by a recovery conflict".to_string()
        }
        (None, _) => "invalidated: WAL it needs was removed".to_string(),
    };
    let (advice, next) = if slot.synced() {
        ("it is synced from the primary: re-create the failover slot there and re-sync its consumer (for Debezium: a new snapshot); this copy follows", None)
    } else {
        (
            "drop it, then re-create it and re-sync the consumer (for Debezium: a new snapshot)",
            Some(pg_common::drop_slot(&slot.name, server)),
        )
    };
    let finding = slot_finding(
        Severity::Critical,
        codes::SLOT_WAL_LOST,
        slot,
        format!(
            "wal_status {}: {why}; its consumer cannot continue from it, and it holds nothing back",
            slot.wal_status.as_deref().unwrap_or("-")
        ),
    )
    .evidence("invalidation_reason", slot.invalidation_reason.clone())
    .evidence("conflicting", slot.conflicting)
    .evidence("synced", slot.synced)
    .advice(advice);
    match next {
        Some(next) => finding.next(next),
        None => finding,
    }
}

fn retained(slot: &Slot) -> u64 {
    slot.retained_bytes.unwrap_or(0).max(0) as u64
}

fn assess(snapshot: &SlotsSnapshot, t: Thresholds, server: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let by_xids = |age: i32| Severity::grade(age.max(0) as u64, t.warning_xids, t.critical_xids);
    for slot in &snapshot.slots {
        if slot.invalidated() {
            // It holds nothing back any more (the server ignores its xmin and
            // catalog_xmin), so being lost is all there is to say.
            findings.push(lost_finding(slot, server));
            continue;
        }
        if slot.wal_status.as_deref() == Some("unreserved") {
            // safe_wal_size goes negative past the limit: -safe_wal_size is the excess.
            let over = match slot.safe_wal_size {
                Some(safe) if safe < 0 => format!(
                    "retains {} beyond max_slot_wal_keep_size ({} in all)",
                    format_size(safe.unsigned_abs()),
                    format_size(retained(slot))
                ),
                _ => format!(
                    "retains {}, more than max_slot_wal_keep_size",
                    format_size(retained(slot))
                ),
            };
            findings.push(
                slot_finding(
                    Severity::Warning,
                    codes::SLOT_WAL_UNRESERVED,
                    slot,
                    format!("wal_status unreserved: {over}; the next checkpoint may remove it"),
                )
                .evidence("safe_wal_size", slot.safe_wal_size)
                .advice("let the consumer catch up now, or accept that the slot will be lost"),
            );
        }
        if slot.synced() {
            // Exempt from this server's WAL limits, and its horizon is the primary's
            // failover slot's: whatever holds it back is fixed there.
            continue;
        }
        let severity = Severity::grade(
            retained(slot),
            t.warning_retained_bytes,
            t.critical_retained_bytes,
        );
        if !slot.active && severity > Severity::Ok {
            let threshold = match severity {
                Severity::Critical => {
                    format!("critical from {}", format_size(t.critical_retained_bytes))
                }
                _ => format!("warning from {}", format_size(t.warning_retained_bytes)),
            };
            let consumer = if slot.slot_type == "logical" {
                "start its consumer (CDC connector, subscriber)"
            } else {
                "bring its standby back"
            };
            findings.push(
                slot_finding(
                    severity,
                    codes::SLOT_RETAINED_WAL,
                    slot,
                    format!(
                        "inactive, retains {} of WAL; {threshold}",
                        format_size(retained(slot))
                    ),
                )
                .advice(format!(
                    "{consumer}, or drop the slot (its consumer loses its position)"
                ))
                .next(pg_common::drop_slot(&slot.name, server)),
            );
        }
        let state = if slot.active { "active" } else { "inactive" };
        // An inactive slot's hold ends when it is dropped; an active one's when its
        // consumer catches up, which no command here does.
        let drop = |f: Finding| match slot.active {
            true => f,
            false => f.next(pg_common::drop_slot(&slot.name, server)),
        };
        if let Some(age) = slot.catalog_xmin_age.filter(|a| by_xids(*a) > Severity::Ok) {
            findings.push(drop(
                slot_finding(
                    by_xids(age),
                    codes::SLOT_CATALOG_XMIN,
                    slot,
                    format!("{state} slot holds back vacuum of the system catalogs in all databases: catalog_xmin {age} xids old"),
                )
                .evidence("catalog_xmin", slot.catalog_xmin),
            ));
        }
        if let Some(age) = slot.xmin_age.filter(|a| by_xids(*a) > Severity::Ok) {
            findings.push(drop(
                slot_finding(
                    by_xids(age),
                    codes::SLOT_XMIN,
                    slot,
                    format!("{state} slot holds back vacuum in all databases: xmin {age} xids old"),
                )
                .evidence("xmin", slot.xmin),
            ));
        }
    }
    let inactive: Vec<&str> = snapshot
        .slots
        .iter()
        .filter(|s| !s.active && !s.synced() && !s.invalidated())
        .filter(|s| retained(s) >= t.warning_retained_bytes)
        .map(|s| s.name.as_str())
        .collect();
    if snapshot.max_slot_wal_keep_size_mb == -1 && !inactive.is_empty() {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::MAX_SLOT_WAL_KEEP_SIZE_UNLIMITED,
                "max_slot_wal_keep_size",
                format!(
                    "unlimited (-1) while inactive slot(s) {} retain WAL: nothing stops them filling the disk",
                    inactive.join(", ")
                ),
            )
            .evidence("source", "pg_settings")
            .object(Object::new(ObjectKind::Setting, "max_slot_wal_keep_size"))
            .evidence("max_slot_wal_keep_size_mb", snapshot.max_slot_wal_keep_size_mb)
            .advice("set max_slot_wal_keep_size so a stuck slot is invalidated (wal_status lost) before the disk fills"),
        );
    }
    if findings.is_empty() {
        let message = if snapshot.slots.is_empty() {
            "no replication slots".to_string()
        } else {
            format!("{} slot(s), none over a threshold", snapshot.slots.len())
        };
        findings.push(
            Finding::new(Severity::Ok, codes::SLOTS, "replication slots", message)
                .evidence("source", "pg_replication_slots"),
        );
    }
    findings
}

impl TableView for SlotsReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let s = &self.snapshot;
        let mut out = Vec::new();
        if !s.slots.is_empty() {
            let mut table = style.table(&[
                "SLOT",
                "TYPE",
                "DATABASE",
                "ACTIVE",
                "WAL STATUS",
                "RETAINED",
                "XMIN AGE",
                "MORE",
            ]);
            for slot in &s.slots {
                let kind = match &slot.plugin {
                    Some(plugin) => shown!("{}\n{}", slot.slot_type, plugin),
                    None => Shown::text(&slot.slot_type),
                };
                let active = match slot.active_pid {
                    // The pid on a line of its own: a narrow column keeps it whole.
                    Some(pid) if slot.active => format!("yes\npid {pid}"),
                    _ => "no".to_string(),
                };
                let wal_status = match slot.safe_wal_size {
                    Some(safe) => shown!(
                        "{}\nsafe {}",
                        slot.wal_status.as_deref().unwrap_or("-"),
                        format_size(safe.max(0) as u64)
                    ),
                    None => Shown::text(slot.wal_status.as_deref().unwrap_or("-")),
                };
                let ages = [("xmin", slot.xmin_age), ("catalog", slot.catalog_xmin_age)]
                    .iter()
                    .filter_map(|(name, age)| age.map(|a| shown!("{} {}", name, a)))
                    .collect::<Vec<_>>();
                let mut more = Vec::new();
                if slot.temporary {
                    more.push(Shown::lit("temporary"));
                }
                if slot.two_phase == Some(true) {
                    more.push(Shown::lit("two_phase"));
                }
                if slot.conflicting == Some(true) {
                    more.push(Shown::lit("conflicting"));
                }
                if let Some(reason) = &slot.invalidation_reason {
                    more.push(shown!("invalidated: {}", reason));
                }
                if let Some(since) = slot.inactive_since.filter(|_| !slot.synced()) {
                    more.push(shown!(
                        "inactive since {}",
                        since.format("%Y-%m-%d %H:%M:%S")
                    ));
                }
                if slot.failover == Some(true) {
                    more.push(Shown::lit("failover"));
                }
                if slot.synced == Some(true) {
                    more.push(Shown::lit("synced"));
                }
                table.add_row(vec![
                    Cell::new(&slot.name),
                    Cell::new(kind),
                    Cell::new(
                        slot.database
                            .as_ref()
                            .map_or_else(|| Shown::lit("-"), Shown::from),
                    ),
                    Cell::new(active),
                    Cell::new(wal_status),
                    Cell::new(
                        slot.retained_bytes
                            .map(|b| format_size(b.max(0) as u64))
                            .unwrap_or_else(|| "-".into()),
                    ),
                    Cell::new(if ages.is_empty() {
                        Shown::lit("-")
                    } else {
                        Shown::join(ages, "\n")
                    }),
                    // An empty cell would read as "not known".
                    Cell::new(match more.is_empty() {
                        true => Shown::lit("-"),
                        false => Shown::join(more, "\n"),
                    }),
                ]);
            }
            table.keep_whole(0);
            out.push(table.render());
        }
        let keep = if s.max_slot_wal_keep_size_mb < 0 {
            "unlimited".to_string()
        } else {
            format_size((s.max_slot_wal_keep_size_mb as u64) << 20)
        };
        let pg_wal = match (s.pg_wal_bytes, s.pg_wal_files) {
            (Some(bytes), Some(files)) => {
                format!("{} in {files} files", format_size(bytes.max(0) as u64))
            }
            _ => "not visible".to_string(),
        };
        out.push(shown!(
            "max_slot_wal_keep_size: {}; pg_wal: {}{}",
            keep,
            pg_wal,
            if s.in_recovery {
                "; server is a standby (retained WAL measured from the received position)"
            } else {
                ""
            }
        ));
        out
    }

    fn visibility_gaps(&self) -> Vec<Shown> {
        self.visibility_gaps.iter().map(Shown::from).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::slots::Slot;

    fn slot(name: &str, active: bool, wal_status: &str, retained: i64) -> Slot {
        Slot {
            name: name.into(),
            plugin: Some("pgoutput".into()),
            slot_type: "logical".into(),
            database: Some("shop".into()),
            temporary: false,
            active,
            active_pid: None,
            xmin: None,
            xmin_age: None,
            catalog_xmin: Some(700),
            catalog_xmin_age: Some(5),
            restart_lsn: Some("0/1000000".into()),
            confirmed_flush_lsn: None,
            wal_status: Some(wal_status.into()),
            safe_wal_size: None,
            retained_bytes: Some(retained),
            two_phase: None,
            conflicting: None,
            invalidation_reason: None,
            inactive_since: None,
            failover: None,
            synced: None,
        }
    }

    fn snapshot(slots: Vec<Slot>, keep_mb: i64) -> SlotsSnapshot {
        SlotsSnapshot {
            server_time: chrono::Utc::now(),
            in_recovery: false,
            max_slot_wal_keep_size_mb: keep_mb,
            pg_wal_bytes: None,
            pg_wal_files: None,
            slots,
            visibility_gaps: vec![],
        }
    }

    const T: Thresholds = Thresholds {
        warning_retained_bytes: 1 << 30,
        critical_retained_bytes: 10 << 30,
        warning_xids: 10_000_000,
        critical_xids: 100_000_000,
    };

    fn codes(findings: &[Finding]) -> Vec<(&str, Severity)> {
        findings
            .iter()
            .map(|f| (f.code.name(), f.severity))
            .collect()
    }

    #[test]
    fn wal_status_grades() {
        let f = assess(
            &snapshot(vec![slot("a", true, "unreserved", 5 << 30)], 4096),
            T,
            "t",
        );
        assert_eq!(codes(&f), [("slot_wal_unreserved", Severity::Warning)]);
        let f = assess(&snapshot(vec![slot("a", true, "lost", 0)], 4096), T, "t");
        assert_eq!(codes(&f), [("slot_wal_lost", Severity::Critical)]);
    }

    #[test]
    fn the_seed_incident_is_critical_with_every_reason() {
        // debezium_shop: inactive, extended, 412 GB retained, no max_slot_wal_keep_size.
        let mut seed = slot("debezium_shop", false, "extended", 412_000_000_000);
        seed.catalog_xmin_age = Some(20_000_000);
        let f = assess(&snapshot(vec![seed], -1), T, "t");
        assert_eq!(
            codes(&f),
            [
                ("slot_retained_wal", Severity::Critical),
                ("slot_catalog_xmin", Severity::Warning),
                ("max_slot_wal_keep_size_unlimited", Severity::Warning)
            ]
        );
        assert!(f[0].message.contains("383.7 GiB"), "{}", f[0].message);
    }

    #[test]
    fn a_young_inactive_slot_under_every_threshold_is_ok() {
        let mut young = slot("a", false, "reserved", 1 << 20);
        young.catalog_xmin_age = Some(5);
        let f = assess(&snapshot(vec![young], -1), T, "t");
        assert_eq!(codes(&f), [("slots", Severity::Ok)]);
        // An active but stuck logical consumer holds the catalogs back too.
        let mut stuck = slot("b", true, "reserved", 1 << 20);
        stuck.catalog_xmin_age = Some(150_000_000);
        assert_eq!(
            codes(&assess(&snapshot(vec![stuck], 1024), T, "t")),
            [("slot_catalog_xmin", Severity::Critical)]
        );
        // A synced slot on a standby has no consumer to start.
        let mut synced = slot("c", false, "reserved", 50 << 30);
        synced.synced = Some(true);
        synced.catalog_xmin_age = Some(5);
        assert_eq!(
            codes(&assess(&snapshot(vec![synced], 1024), T, "t")),
            [("slots", Severity::Ok)]
        );
    }

    #[test]
    fn an_invalidated_slot_is_lost_and_holds_nothing_back() {
        // PG16: conflicting is set for WAL removal too (restart_lsn NULL then).
        let mut removed = slot("a", false, "lost", 0);
        removed.restart_lsn = None;
        removed.conflicting = Some(true);
        removed.catalog_xmin_age = Some(500_000_000);
        let f = assess(&snapshot(vec![removed.clone()], 1024), T, "t");
        assert_eq!(codes(&f), [("slot_wal_lost", Severity::Critical)]);
        assert!(
            f[0].message.contains("WAL it needs was removed"),
            "{}",
            f[0].message
        );
        // A recovery conflict keeps restart_lsn.
        let mut conflict = removed;
        conflict.restart_lsn = Some("0/3000000".into());
        let f = assess(&snapshot(vec![conflict], 1024), T, "t");
        assert!(
            f[0].message.contains("recovery conflict"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn unreserved_names_the_excess() {
        let mut s = slot("a", true, "unreserved", 48 << 20);
        s.safe_wal_size = Some(-(47 << 20));
        let f = assess(&snapshot(vec![s], 1), T, "t");
        assert!(
            f[0].message
                .contains("retains 47.0 MiB beyond max_slot_wal_keep_size (48.0 MiB in all)"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn a_synced_slot_is_managed_from_the_primary() {
        let mut s = slot("c", false, "reserved", 50 << 30);
        s.synced = Some(true);
        s.catalog_xmin_age = Some(150_000_000);
        assert_eq!(
            codes(&assess(&snapshot(vec![s.clone()], -1), T, "t")),
            [("slots", Severity::Ok)],
            "no retained-WAL, catalog_xmin or max_slot_wal_keep_size finding"
        );
        s.wal_status = Some("lost".into());
        s.invalidation_reason = Some("wal_removed".into());
        let f = assess(&snapshot(vec![s], -1), T, "t");
        let advice = f[0].advice.as_ref().map(|a| a.plain()).unwrap_or_default();
        assert!(
            advice.contains("re-create the failover slot there"),
            "{advice}"
        );
    }

    #[test]
    fn lost_names_its_reason() {
        let mut s = slot("a", false, "lost", 0);
        s.invalidation_reason = Some("idle_timeout".into());
        let f = assess(&snapshot(vec![s], 1024), T, "t");
        assert!(
            f[0].message.contains("invalidated (idle_timeout)"),
            "{}",
            f[0].message
        );
    }
}

#[cfg(test)]
pub(crate) mod golden;
