//! `indoubt pg horizon`: the one culprit holding back vacuum, every other holder, and wraparound per database.

use super::pg_common::{self, Addressing};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::next::{Next, Word};
use crate::pg::horizon::{self, DatabaseAge, Holder, HorizonSnapshot, Pins};
use crate::report::table::{Cell, Style};
use crate::report::{self, Report, TableView};
use crate::settings::pg::HorizonSettings;
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Serialize)]
pub(crate) struct HorizonReport {
    /// "oldest xmin held by …", or null when nothing holds one.
    culprit: Option<Text>,
    thresholds: Thresholds,
    #[serde(flatten)]
    snapshot: HorizonSnapshot,
}

#[derive(Debug, Clone, Copy, Serialize)]
struct Thresholds {
    warning_age_seconds: u64,
    critical_age_seconds: u64,
    warning_xids: u64,
    critical_xids: u64,
    wraparound_warning_xids: u64,
    wraparound_critical_xids: u64,
}

pub async fn run(ctx: &Context, settings: &HorizonSettings) -> Result<Severity> {
    let report = build(ctx, settings).await?;
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The report, for `run` to print and for `check` to gather.
pub(crate) async fn build(
    ctx: &Context,
    settings: &HorizonSettings,
) -> Result<Report<HorizonReport>> {
    let target = &settings.target;
    let snapshot = pg_common::server_read(
        ctx,
        "pg horizon",
        target,
        String::new(),
        |session| async move { horizon::collect(&session, ctx.timeout).await },
    )
    .await?;
    Ok(report_of(settings, snapshot))
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(settings: &HorizonSettings, snapshot: HorizonSnapshot) -> Report<HorizonReport> {
    let (warning_age, critical_age) = settings.age;
    let (warning_xids, critical_xids) = settings.xids;
    let (wrap_warning, wrap_critical) = settings.wraparound;
    let thresholds = Thresholds {
        warning_age_seconds: warning_age.as_secs(),
        critical_age_seconds: critical_age.as_secs(),
        warning_xids,
        critical_xids,
        wraparound_warning_xids: wrap_warning,
        wraparound_critical_xids: wrap_critical,
    };
    let findings = assess(&snapshot, &thresholds, &settings.addressing);
    let culprit = snapshot.holders.first().map(culprit_line);
    Report::new(
        "pg horizon",
        settings.target.report_target(),
        findings,
        HorizonReport {
            culprit,
            thresholds,
            snapshot,
        },
    )
}

fn describe(holder: &Holder) -> Text {
    let id = &holder.id;
    match holder.kind.as_str() {
        "idle_in_transaction" => text!["idle-in-transaction session ", id],
        "session" => text!["session ", id],
        "prepared" => text!["prepared transaction '", id, "'"],
        "slot_xmin" => text!["xmin of replication slot ", id],
        "slot_catalog_xmin" => text!["catalog_xmin of replication slot ", id],
        "standby_feedback" => {
            let application = holder.application.clone().unwrap_or_else(|| "?".into());
            text![
                "standby feedback from walsender ",
                id,
                " (",
                application,
                ")"
            ]
        }
        other => text![other, " ", id],
    }
}

fn age_text(holder: &Holder) -> String {
    let xids = holder
        .age_xids
        .map(|x| format!("{x} xids"))
        .unwrap_or_else(|| "? xids".into());
    match holder.age_seconds {
        Some(s) => format!("{} ({xids})", format_duration(seconds(s))),
        None => xids,
    }
}

fn culprit_line(holder: &Holder) -> Text {
    text![
        "oldest xmin held by ",
        describe(holder),
        " for ",
        age_text(holder)
    ]
}

/// What the holder is and what ending its hold costs; the command itself is `next_step`.
fn advice(holder: &Holder) -> Text {
    let id = &holder.id;
    match holder.kind.as_str() {
        "idle_in_transaction" => "an application opened a transaction and went quiet: find its owner; ending the session rolls its work back; set idle_in_transaction_session_timeout".into(),
        "session" => "a long transaction or snapshot (long query, REPEATABLE READ): find its owner; ending the session rolls its work back (pg_cancel_backend cancels only its current query)".into(),
        "prepared" => "a prepared transaction: resolve it by the coordinator's decision, never by its age".into(),
        // A synced slot (PG17+ standby) mirrors the primary's failover slot.
        "slot_xmin" | "slot_catalog_xmin" if holder.state.as_deref() == Some("synced") => text![
            "slot ",
            id,
            " is synced from the primary's failover slot: its consumer reads from the primary, so fix it there (`indoubt pg slots` on the primary); this copy follows"
        ],
        // Connected: the xmin is what the standby reports now, i.e. its oldest query.
        "slot_xmin" if holder.state.as_deref() == Some("active") => text![
            "the standby of slot ",
            id,
            " is connected: the xmin is its oldest snapshot, sent with hot_standby_feedback; find the long query or transaction on the standby (`indoubt pg horizon` there) and end it"
        ],
        "slot_xmin" => "a physical slot keeps the xmin its standby sent with hot_standby_feedback while the standby is away: bring the standby back, or drop the slot (the standby then needs a new base backup)".into(),
        "slot_catalog_xmin" if holder.state.as_deref() == Some("active") => text![
            "the consumer of slot ",
            id,
            " is connected but has not confirmed a position past catalog_xmin: it is slow or stuck (or decoding a long transaction)"
        ],
        "slot_catalog_xmin" => "a logical slot whose consumer stopped holds back catalog vacuum: restart the consumer, or drop the slot (the consumer loses its position)".into(),
        "standby_feedback" => "a query on the standby holds it through hot_standby_feedback: find and cancel it on the standby".into(),
        _ => Text::new(),
    }
}

/// The command that ends (or, for a prepared transaction, shows how to end) the hold,
/// where one can be run against this server: none for a standby's query or a synced slot,
/// which are fixed elsewhere.
fn next_step(holder: &Holder, addressing: &Addressing) -> Option<Next> {
    let state = holder.state.as_deref();
    let slot = || holder.id.as_str().map(pg_common::drop_slot);
    match holder.kind.as_str() {
        "idle_in_transaction" | "session" => holder
            .id
            .as_str()
            .and_then(|pid| pid.parse::<i32>().ok())
            .map(pg_common::terminate),
        "prepared" => Some(addressing.resolve(&holder.id)),
        _ if state == Some("synced") => None,
        "slot_xmin" if state == Some("active") => None,
        "slot_catalog_xmin" if state == Some("active") => {
            Some(addressing.indoubt(&[Word::Lit("pg"), Word::Lit("slots")], &[]))
        }
        "slot_xmin" | "slot_catalog_xmin" => slot(),
        _ => None,
    }
}

/// What the holder is, as a key `check` groups by: the prepared transaction, the slot or
/// the session (a walsender's feedback is its session's).
fn holder_object(holder: &Holder) -> Option<Object> {
    let kind = match holder.kind.as_str() {
        "prepared" => ObjectKind::PreparedTransaction,
        "slot_xmin" | "slot_catalog_xmin" => ObjectKind::ReplicationSlot,
        "idle_in_transaction" | "session" | "standby_feedback" => ObjectKind::Session,
        _ => return None,
    };
    Some(Object::raw(kind, &holder.id))
}

fn grade_holder(holder: &Holder, t: &Thresholds) -> Severity {
    let by_xids = holder
        .age_xids
        .map(|x| Severity::grade(x.max(0) as u64, t.warning_xids, t.critical_xids))
        .unwrap_or(Severity::Ok);
    let by_time = holder
        .age_seconds
        .map(|s| {
            Severity::grade(
                seconds(s),
                Duration::from_secs(t.warning_age_seconds),
                Duration::from_secs(t.critical_age_seconds),
            )
        })
        .unwrap_or(Severity::Ok);
    by_xids.max(by_time)
}

fn holder_finding(
    holder: &Holder,
    severity: Severity,
    message: Text,
    addressing: &Addressing,
) -> Finding {
    let mut finding = Finding::new(severity, codes::HORIZON_HOLDER, describe(holder), message);
    finding.object = holder_object(holder);
    finding.next = next_step(holder, addressing);
    let finding = match &holder.database {
        Some(database) => finding.evidence_raw("database", database),
        None => finding.evidence("database", serde_json::Value::Null),
    };
    finding
        .evidence(
            "source",
            "pg_stat_activity, pg_prepared_xacts, pg_replication_slots, pg_stat_replication",
        )
        .evidence("kind", holder.kind.clone())
        .evidence_raw("id", &holder.id)
        .evidence("age_xids", holder.age_xids)
        .evidence("age_seconds", holder.age_seconds)
        .evidence("xmin", holder.xmin)
        .evidence("xid", holder.xid)
        .advice(advice(holder))
}

fn assess(snapshot: &HorizonSnapshot, t: &Thresholds, addressing: &Addressing) -> Vec<Finding> {
    let mut findings = Vec::new();
    match snapshot.holders.first() {
        Some(culprit) => findings.push(holder_finding(
            culprit,
            grade_holder(culprit, t),
            culprit_line(culprit),
            addressing,
        )),
        None => findings.push(
            Finding::new(
                Severity::Ok,
                codes::HORIZON_HOLDER,
                "xmin horizon",
                "nothing holds an xmin: no open transaction, prepared transaction, slot or standby feedback",
            )
            .evidence("source", "pg_stat_activity, pg_prepared_xacts, pg_replication_slots, pg_stat_replication"),
        ),
    }
    for holder in snapshot.holders.iter().skip(1) {
        let severity = grade_holder(holder, t);
        if severity > Severity::Ok {
            findings.push(holder_finding(
                holder,
                severity,
                format!("holds an xmin for {}", age_text(holder)).into(),
                addressing,
            ));
        }
    }
    for db in &snapshot.databases {
        let oldest = db.datfrozenxid_age.max(db.datminmxid_age).max(0) as u64;
        let mut severity = Severity::grade(
            oldest,
            t.wraparound_warning_xids,
            t.wraparound_critical_xids,
        );
        if db.failsafe_reached == Some(true) {
            severity = Severity::Critical;
        }
        if severity > Severity::Ok {
            findings.push(wraparound_finding(
                db,
                severity,
                &snapshot.settings.autovacuum_freeze_max_age,
            ));
        }
    }
    if let Some(db) = snapshot.databases.first() {
        if !findings.iter().any(|f| f.code == codes::WRAPAROUND) {
            findings.push(wraparound_finding(
                db,
                Severity::Ok,
                &snapshot.settings.autovacuum_freeze_max_age,
            ));
        }
    }
    findings
}

fn wraparound_finding(db: &DatabaseAge, severity: Severity, freeze_max_age: &i64) -> Finding {
    let failsafe = if db.failsafe_reached == Some(true) {
        "; vacuum_failsafe_age reached"
    } else {
        ""
    };
    Finding::new(
        severity,
        codes::WRAPAROUND,
        text!["database ", db.database],
        format!(
            "age(datfrozenxid) {} ({:.0}% of autovacuum_freeze_max_age), {} xids left before the server stops assigning them; mxid_age {}{failsafe}",
            db.datfrozenxid_age, db.percent_of_autovacuum_freeze_max_age, db.xids_left, db.datminmxid_age
        ),
    )
    .evidence("source", "pg_database")
    .object(Object::raw(ObjectKind::Database, &db.database))
    .evidence("datfrozenxid_age", db.datfrozenxid_age)
    .evidence("datminmxid_age", db.datminmxid_age)
    .evidence("xids_left", db.xids_left)
    .evidence("autovacuum_freeze_max_age", *freeze_max_age)
}

fn pins_text(holder: &Holder) -> Shown {
    match (&holder.pins, &holder.database) {
        (Pins::OwnDatabase, Some(own)) => Shown::from(own),
        (Pins::OwnDatabase, None) => Shown::lit("-"),
        (Pins::AllDatabases, _) => Shown::lit("all databases"),
        (Pins::CatalogsOfAllDatabases, _) => Shown::lit("catalogs of all databases"),
    }
}

impl TableView for HorizonReport {
    fn headline(&self) -> Option<Shown> {
        Some(match &self.culprit {
            Some(culprit) => Shown::from(culprit),
            None => Shown::lit("nothing holds back the xmin horizon"),
        })
    }

    fn tables(&self, style: &Style) -> Vec<Shown> {
        let s = &self.snapshot;
        let mut out = Vec::new();
        if !s.holders.is_empty() {
            let mut table = style.table(&["KIND", "ID", "PINS", "WHO", "STATE", "AGE", "QUERY"]);
            for h in &s.holders {
                let who = [
                    h.user.as_ref().map(Shown::from),
                    h.application.as_ref().map(Shown::from),
                    h.client.as_ref().map(Shown::from),
                ];
                let who = Shown::join(who.into_iter().flatten(), "\n");
                table.add_row(vec![
                    Cell::new(&h.kind),
                    Cell::new(&h.id),
                    Cell::new(pins_text(h)),
                    Cell::new(who),
                    Cell::new(h.state.as_deref().unwrap_or("-")),
                    Cell::new(age_text(h)),
                    Cell::new(
                        h.query
                            .as_ref()
                            .map(|q| Shown::from(q).truncated(80, |_| "…".to_string()))
                            .unwrap_or_default(),
                    ),
                ]);
            }
            table.keep_whole(0);
            table.keep_whole(1);
            // The query text is context; who holds the horizon, and how long, is the answer.
            table.optional(6);
            out.push(table.render());
        }
        let mut table = style.table(&[
            "DATABASE",
            "XID AGE",
            "XIDS LEFT",
            "% FREEZE MAX",
            "MXID AGE",
            "FAILSAFE",
            "MOST DEAD TUPLES",
        ]);
        for db in &s.databases {
            let dead = db.dead_tuples.iter().take(3).map(|d| {
                let vacuumed = d.last_autovacuum.max(d.last_vacuum);
                shown!(
                    "{} {} dead{}",
                    d.table,
                    d.n_dead_tup,
                    vacuumed
                        // An age, not a time of day: a table vacuumed two days ago
                        // must not read as vacuumed this morning.
                        .map(|t| {
                            let age = (s.server_time - t).num_seconds().max(0);
                            format!(", vacuumed {} ago", format_duration(seconds(age as f64)))
                        })
                        .unwrap_or_default()
                )
            });
            // An empty cell would read as "not known".
            let dead = match db.dead_tuples.is_empty() {
                true => Shown::lit("-"),
                false => Shown::join(dead, "\n"),
            };
            table.add_row(vec![
                Cell::new(&db.database),
                Cell::new(db.datfrozenxid_age),
                Cell::new(db.xids_left),
                Cell::new(format!("{:.0}%", db.percent_of_autovacuum_freeze_max_age)),
                Cell::new(db.datminmxid_age),
                Cell::new(match db.failsafe_reached {
                    Some(true) => "REACHED",
                    Some(false) => "no",
                    None => "n/a",
                }),
                Cell::new(dead),
            ]);
        }
        out.push(table.render());
        out
    }

    fn visibility_gaps(&self) -> Vec<Shown> {
        self.snapshot
            .visibility_gaps
            .iter()
            .map(Shown::from)
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod golden;
