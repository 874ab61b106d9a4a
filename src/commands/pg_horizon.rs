//! `indoubt pg horizon`: the one culprit holding back vacuum, every other holder, and wraparound per database.

mod settings;

use super::pg_common::{self, Addressing};
use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure, PER_OBJECT};
use crate::next::{Next, Word};
use crate::pg::horizon::{self, DatabaseAge, Holder, HorizonSnapshot};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::settings::pg::HorizonSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::targets::Targets;
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::text::{RawText, Text};
use crate::units::{format_duration, seconds};
use anyhow::Result;
use chrono::{DateTime, Utc};
use holds::{Front, Holds, HoldsBack};
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Serialize)]
pub(crate) struct HorizonReport {
    /// Whose xmin vacuum waits for, database by database, in one line; null when nothing
    /// holds one.
    culprit: Option<Text>,
    thresholds: Thresholds,
    server_time: DateTime<Utc>,
    in_recovery: bool,
    settings: horizon::Settings,
    /// Ranked by what they hold back: those vacuum waits for first, oldest first.
    holders: Vec<HolderView>,
    /// Per database that accepts connections: whose xmin its vacuum waits for.
    vacuum_waits_for: Vec<DatabaseWait>,
    databases: Vec<DatabaseAge>,
    visibility_gaps: Vec<Text>,
}

/// A holder with where vacuum waits for it.
#[derive(Debug, Serialize)]
struct HolderView {
    #[serde(flatten)]
    holder: Holder,
    holds_back: HoldsBack,
    /// Holders with the same xmin where it holds vacuum back: all must end.
    jointly_with: Vec<Text>,
    /// When it holds back nothing now: the older holders in front of it.
    behind: Vec<Text>,
}

#[derive(Debug, Serialize)]
struct DatabaseWait {
    database: RawText,
    /// Its ordinary tables; null when nothing holds an xmin that counts there.
    tables: Option<FrontView>,
    /// Its system catalogs (a logical slot's catalog_xmin counts there too).
    catalogs: Option<FrontView>,
}

#[derive(Debug, Serialize)]
struct FrontView {
    /// What VACUUM reports as its removable cutoff (oldest xmin before PostgreSQL 15).
    held_xid: Option<i64>,
    age_xids: Option<i32>,
    held_by: Vec<Text>,
    /// The oldest holder's kind (session, prepared, slot_xmin, …), a metric's label.
    #[serde(skip)]
    oldest_kind: Option<String>,
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

/// `pg horizon` as a probe.
pub(crate) struct PgHorizon;

static HORIZON_HELD_AGE: Family = Family {
    name: "indoubt_pg_horizon_held_age_xids",
    help: "How many transaction ids vacuum of one database is held back by (the age of the xmin it waits for), for its tables or its catalogs (relation), and the oldest holder's kind (session, idle_in_transaction, prepared, slot_xmin, slot_catalog_xmin, standby_feedback; none: nothing holds one, 0); the 5 databases held back most, per relation.",
    labels: &["database", "relation", "holder_kind"],
};
static WRAPAROUND_AGE: Family = Family {
    name: "indoubt_pg_wraparound_datfrozenxid_age_xids",
    help: "age(datfrozenxid) of one database: transaction ids since it was last frozen; the 5 oldest databases of the server.",
    labels: &["database"],
};
static WRAPAROUND_LEFT: Family = Family {
    name: "indoubt_pg_wraparound_xids_left",
    help: "Transaction ids one database can still assign before the server stops accepting writes; the 5 oldest databases.",
    labels: &["database"],
};
static WRAPAROUND_FREEZE_PERCENT: Family = Family {
    name: "indoubt_pg_wraparound_freeze_max_age_ratio",
    help: "age(datfrozenxid) over autovacuum_freeze_max_age (1: an anti-wraparound vacuum is due); the 5 oldest databases.",
    labels: &["database"],
};

impl Inspect for PgHorizon {
    type Args = settings::HorizonArgs;
    type Settings = HorizonSettings;
    type Gathered = HorizonSnapshot;
    type Data = HorizonReport;
    const NAME: &'static str = "pg horizon";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Pg);
    const MEASURES: &'static [&'static Family] = &[
        &HORIZON_HELD_AGE,
        &WRAPAROUND_AGE,
        &WRAPAROUND_LEFT,
        &WRAPAROUND_FREEZE_PERCENT,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Who holds back vacuum, and wraparound per database", "indoubt pg horizon --pg prod"),
            example!("Warn on a holder older than 30 minutes", "indoubt pg horizon -h db1 -U monitor --warning-age 30m"),
        ],
        see_also: &["pg prepared", "pg slots", "resolve pg"],
        codes: &[codes::HORIZON_HOLDER, codes::WRAPAROUND],
    };

    fn measures(data: &HorizonReport) -> Vec<Measure> {
        // Per database, only the few held back most and the few oldest: a server of
        // thousands of databases gives a handful of series, the ones an alert needs.
        let mut out = Vec::new();
        for relation in ["tables", "catalogs"] {
            let mut held: Vec<(&DatabaseWait, Option<&FrontView>)> = data
                .vacuum_waits_for
                .iter()
                .map(|w| match relation {
                    "tables" => (w, w.tables.as_ref()),
                    _ => (w, w.catalogs.as_ref()),
                })
                .collect();
            held.sort_by_key(|(_, f)| std::cmp::Reverse(f.and_then(|f| f.age_xids).unwrap_or(0)));
            for (w, front) in held.into_iter().take(PER_OBJECT) {
                let age = front.and_then(|f| f.age_xids).unwrap_or(0);
                let kind = front
                    .and_then(|f| f.oldest_kind.clone())
                    .unwrap_or_else(|| "none".to_string());
                out.push(
                    HORIZON_HELD_AGE
                        .at(f64::from(age))
                        .label("database", crate::text::escape_bytes(w.database.as_bytes()))
                        .label("relation", relation)
                        .label("holder_kind", kind),
                );
            }
        }
        let mut oldest: Vec<&DatabaseAge> = data.databases.iter().collect();
        oldest.sort_by_key(|d| std::cmp::Reverse(d.datfrozenxid_age));
        for d in oldest.into_iter().take(PER_OBJECT) {
            let db = crate::text::escape_bytes(d.database.as_bytes());
            out.push(
                WRAPAROUND_AGE
                    .at(f64::from(d.datfrozenxid_age))
                    .label("database", db.clone()),
            );
            out.push(
                WRAPAROUND_LEFT
                    .at(d.xids_left as f64)
                    .label("database", db.clone()),
            );
            out.push(
                WRAPAROUND_FREEZE_PERCENT
                    .at(d.percent_of_autovacuum_freeze_max_age / 100.0)
                    .label("database", db),
            );
        }
        out
    }

    fn settings(
        t: &Targets,
        thresholds: &crate::settings::Thresholds,
        args: Self::Args,
    ) -> Result<HorizonSettings> {
        settings::horizon(t, thresholds, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        pg_common::on_every_server(config, &["pg", "horizon"])
    }

    async fn gather(ctx: &Context, settings: &HorizonSettings) -> Result<HorizonSnapshot> {
        pg_common::server_read(
            ctx,
            "pg horizon",
            &settings.target,
            String::new(),
            |session| async move { horizon::collect(&session, ctx.timeout).await },
        )
        .await
    }

    fn report(
        _ctx: &Context,
        settings: &HorizonSettings,
        snapshot: HorizonSnapshot,
    ) -> Report<HorizonReport> {
        report_of(settings, snapshot)
    }
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
    let holds = holds::assess(&snapshot);
    let said = Said {
        snapshot: &snapshot,
        holds: &holds,
        names: snapshot.holders.iter().map(describe).collect(),
        server: pg_common::server(&settings.target),
    };
    let order = said.ranking();
    let findings = assess(&said, &order, &thresholds, &settings.addressing);
    let culprit = said.headline();
    let front_view = |f: &Front| FrontView {
        held_xid: f.xid,
        age_xids: f.age_xids,
        held_by: said.names_of(&f.holders),
        oldest_kind: f.holders.first().map(|&i| snapshot.holders[i].kind.clone()),
    };
    let vacuum_waits_for = holds
        .databases
        .iter()
        .map(|d| DatabaseWait {
            database: d.database.clone(),
            tables: d.tables.as_ref().map(front_view),
            catalogs: d.catalogs.as_ref().map(front_view),
        })
        .collect();
    let views: Vec<(HoldsBack, Vec<Text>, Vec<Text>)> = holds
        .holders
        .iter()
        .map(|a| {
            (
                a.holds_back.clone(),
                said.names_of(&a.jointly_with),
                said.names_of(&a.behind),
            )
        })
        .collect();
    let HorizonSnapshot {
        server_time,
        in_recovery,
        settings: server_settings,
        holders,
        databases,
        visibility_gaps,
    } = snapshot;
    let mut holders: Vec<Option<Holder>> = holders.into_iter().map(Some).collect();
    let mut views: Vec<Option<_>> = views.into_iter().map(Some).collect();
    let holders = order
        .iter()
        .filter_map(|&i| {
            let (holds_back, jointly_with, behind) = views[i].take()?;
            Some(HolderView {
                holder: holders[i].take()?,
                holds_back,
                jointly_with,
                behind,
            })
        })
        .collect();
    Report::new(
        "pg horizon",
        settings.target.report_target(),
        findings,
        HorizonReport {
            culprit,
            thresholds,
            server_time,
            in_recovery,
            settings: server_settings,
            holders,
            vacuum_waits_for,
            databases,
            visibility_gaps: visibility_gaps.iter().map(pg_common::gap_text).collect(),
        },
    )
}

/// The snapshot with where each holder stops vacuum, and each holder's name: what the
/// findings, the headline and the tables say.
struct Said<'a> {
    snapshot: &'a HorizonSnapshot,
    holds: &'a Holds,
    names: Vec<Text>,
    /// The server, as a SQL next step's comment names it (`pg_common::server`).
    server: String,
}

impl Said<'_> {
    fn names_of(&self, holders: &[usize]) -> Vec<Text> {
        holders.iter().map(|&i| self.names[i].clone()).collect()
    }

    /// "a", "a and b", "a, b and c".
    fn and(&self, holders: &[usize]) -> Text {
        and_list(self.names_of(holders))
    }

    /// The databases named, or "every database" when they are all that accept connections.
    fn places(&self, databases: &[RawText]) -> Text {
        if is_every_database(databases.len(), self.holds.databases.len()) {
            return "every database".into();
        }
        const SHOWN: usize = 3;
        let mut names: Vec<Text> = databases.iter().take(SHOWN).map(Text::from).collect();
        if databases.len() > SHOWN {
            names.push(format!("{} more", databases.len() - SHOWN).into());
        }
        and_list(names)
    }

    /// Holders vacuum waits for first (by age), then those holding only the shared
    /// catalogs, then those that hold back nothing now.
    fn ranking(&self) -> Vec<usize> {
        let class = |i: &usize| {
            let holds = &self.holds.holders[*i].holds_back;
            match (holds.databases(), holds.shared_catalogs) {
                (true, _) => 0,
                (false, true) => 1,
                (false, false) => 2,
            }
        };
        let mut order: Vec<usize> = (0..self.snapshot.holders.len()).collect();
        order.sort_by_key(|i| (class(i), *i));
        order
    }

    /// Among holders at one xmin, the one to end first: the likelier root cause, as the
    /// snapshot ranks ties (a prepared transaction before the sessions whose snapshots
    /// took its xid as their xmin).
    fn ends_first(&self, i: usize) -> bool {
        self.holds.holders[i].jointly_with.iter().all(|&j| i < j)
    }

    /// Whose xmin vacuum waits for, database by database.
    fn headline(&self) -> Option<Text> {
        let first = self.snapshot.holders.first()?;
        if self.snapshot.in_recovery {
            return Some(if self.snapshot.settings.hot_standby_feedback {
                text![
                    "oldest xmin held by ",
                    describe(first),
                    " for ",
                    age_text(first),
                    ": hot_standby_feedback sends it to the primary, where vacuum waits for it in every database"
                ]
            } else {
                text![
                    "hot_standby_feedback is off: nothing here holds back the primary's vacuum (oldest xmin held by ",
                    describe(first),
                    " for ",
                    age_text(first),
                    ")"
                ]
            });
        }
        // Databases grouped by who holds their tables, then catalogs held by someone else.
        type Groups = Vec<(Vec<usize>, Vec<RawText>)>;
        let (mut tables, mut catalogs): (Groups, Groups) = (Vec::new(), Vec::new());
        for db in &self.holds.databases {
            let add = |groups: &mut Groups, holders: &Vec<usize>| match groups
                .iter_mut()
                .find(|(h, _)| h == holders)
            {
                Some((_, dbs)) => dbs.push(db.database.clone()),
                None => groups.push((holders.clone(), vec![db.database.clone()])),
            };
            if let Some(f) = &db.tables {
                add(&mut tables, &f.holders);
            }
            match (&db.tables, &db.catalogs) {
                (Some(t), Some(c)) if t.holders == c.holders => {}
                (_, Some(c)) => add(&mut catalogs, &c.holders),
                _ => {}
            }
        }
        // The oldest first: holder indexes follow age.
        tables.sort_by_key(|(holders, _)| holders[0]);
        catalogs.sort_by_key(|(holders, _)| holders[0]);
        let mut parts: Vec<Text> = Vec::new();
        for (holders, dbs) in &tables {
            let lead = if parts.is_empty() {
                "vacuum held back in "
            } else {
                "in "
            };
            parts.push(text![
                lead,
                self.places(dbs),
                " by ",
                self.and(holders),
                " for ",
                age_text(&self.snapshot.holders[holders[0]])
            ]);
        }
        for (holders, dbs) in &catalogs {
            let lead = if parts.is_empty() {
                "vacuum held back in the system catalogs of "
            } else {
                "in the system catalogs of "
            };
            parts.push(text![
                lead,
                self.places(dbs),
                " by ",
                self.and(holders),
                " for ",
                age_text(&self.snapshot.holders[holders[0]])
            ]);
        }
        if parts.is_empty() {
            // Only backends connected to no database: the shared catalogs alone.
            return Some(text![
                "only the shared catalogs are held back, by ",
                describe(first),
                " for ",
                age_text(first)
            ]);
        }
        const SHOWN: usize = 3;
        let more = parts.len().saturating_sub(SHOWN);
        parts.truncate(SHOWN);
        if more > 0 {
            parts.push(format!("and {more} more below").into());
        }
        let mut line = Text::new();
        for (n, part) in parts.iter().enumerate() {
            if n > 0 {
                line.push_str("; ");
            }
            line.push_text(part);
        }
        Some(line)
    }

    /// The finding's message: where vacuum waits for this holder, and beside whom.
    fn message(&self, i: usize) -> Text {
        let holder = &self.snapshot.holders[i];
        let a = &self.holds.holders[i];
        let age = age_text(holder);
        let holds = &a.holds_back;
        let mut message = if !holds.tables_of.is_empty() {
            text![
                "holds back vacuum in ",
                self.places(&holds.tables_of),
                " for ",
                age
            ]
        } else if !holds.catalogs_of.is_empty() {
            text![
                "holds back vacuum of the system catalogs in ",
                self.places(&holds.catalogs_of),
                " for ",
                age
            ]
        } else if holds.shared_catalogs {
            text![
                "holds back vacuum of the shared catalogs only (pg_database, pg_authid, …) for ",
                age,
                ": it is connected to no database"
            ]
        } else if !a.behind.is_empty() {
            text![
                "holds an xmin for ",
                age,
                " but holds back nothing now: ",
                self.and(&a.behind),
                " holds an older one wherever it counts"
            ]
        } else {
            text![
                "holds an xmin for ",
                age,
                " that reaches no primary: hot_standby_feedback is off"
            ]
        };
        if !a.jointly_with.is_empty() {
            message.push_str(", jointly with ");
            message.push_text(&self.and(&a.jointly_with));
            message.push_str(" (the same xmin)");
        }
        message
    }

    /// What the holder is, what ending its hold costs, and what else must end for vacuum
    /// to move; the command itself is `next_step`.
    fn advice(&self, i: usize) -> Text {
        let holder = &self.snapshot.holders[i];
        let a = &self.holds.holders[i];
        let own = kind_advice(holder);
        if a.holds_back.nothing() {
            if a.behind.is_empty() {
                return "with hot_standby_feedback off, a long query here is cancelled by recovery conflicts (or delays replay) instead of holding back the primary's vacuum".into();
            }
            return text![
                "ending it now frees nothing: ",
                self.and(&a.behind),
                " holds an older xmin; end that first (its finding shows how); as for this one, ",
                own
            ];
        }
        if a.jointly_with.is_empty() {
            return own;
        }
        if self.ends_first(i) {
            text![
                own,
                "; ",
                self.and(&a.jointly_with),
                " holds the same xmin and must end too before vacuum moves"
            ]
        } else {
            text![
                "ending it alone frees nothing: ",
                self.and(&a.jointly_with),
                " holds the same xmin; end that first (its finding shows how), then this one; ",
                own
            ]
        }
    }

    /// A command only where ending this holder moves vacuum (with the holders it shares
    /// its xmin with, on the one to end first).
    fn next(&self, i: usize, addressing: &Addressing) -> Option<Next> {
        let a = &self.holds.holders[i];
        if a.holds_back.nothing() || !self.ends_first(i) {
            return None;
        }
        next_step(&self.snapshot.holders[i], addressing, &self.server)
    }

    fn severity(&self, i: usize, t: &Thresholds) -> Severity {
        let holder = &self.snapshot.holders[i];
        let a = &self.holds.holders[i];
        let by_age = grade_holder(holder, t);
        match (a.holds_back.nothing(), a.behind.is_empty()) {
            (false, _) => by_age,
            // Old, and next in line once those in front end; it stops nothing yet.
            (true, false) => by_age.min(Severity::Warning),
            (true, true) => Severity::Ok,
        }
    }
}

/// Whether `held` databases of the `accepting` that accept connections are all of them
/// (said "every database"; one alone is named).
fn is_every_database(held: usize, accepting: usize) -> bool {
    held == accepting && accepting > 1
}

/// "a", "a and b", "a, b and c".
fn and_list(items: Vec<Text>) -> Text {
    let mut out = Text::new();
    let n = items.len();
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(if k + 1 == n { " and " } else { ", " });
        }
        out.push_text(item);
    }
    out
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

/// What the holder is and what ending its hold costs.
fn kind_advice(holder: &Holder) -> Text {
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
fn next_step(holder: &Holder, addressing: &Addressing, server: &str) -> Option<Next> {
    let state = holder.state.as_deref();
    let slot = || {
        holder
            .id
            .as_str()
            .map(|name| pg_common::drop_slot(name, server))
    };
    match holder.kind.as_str() {
        "idle_in_transaction" | "session" => holder
            .id
            .as_str()
            .and_then(|pid| pid.parse::<i32>().ok())
            .map(|pid| pg_common::terminate(pid, server)),
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

fn holder_finding(said: &Said, i: usize, t: &Thresholds, addressing: &Addressing) -> Finding {
    let holder = &said.snapshot.holders[i];
    let holds = &said.holds.holders[i];
    let mut finding = Finding::new(
        said.severity(i, t),
        codes::HORIZON_HOLDER,
        describe(holder),
        said.message(i),
    );
    finding.object = holder_object(holder);
    finding.next = said.next(i, addressing);
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
        .evidence("held_xid", holder.held_xid)
        .evidence(
            "holds_back",
            serde_json::to_value(&holds.holds_back).unwrap_or_default(),
        )
        .advice(said.advice(i))
}

fn assess(said: &Said, order: &[usize], t: &Thresholds, addressing: &Addressing) -> Vec<Finding> {
    let snapshot = said.snapshot;
    let mut findings = Vec::new();
    match order.first() {
        // The first always: it is the answer, also when young.
        Some(&first) => findings.push(holder_finding(said, first, t, addressing)),
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
    for &i in order.iter().skip(1) {
        if said.severity(i, t) > Severity::Ok {
            findings.push(holder_finding(said, i, t, addressing));
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

/// Where vacuum waits for it, in a few words; the finding says it whole.
fn holds_back_text(view: &HolderView, databases: usize) -> Shown {
    let places = |list: &[RawText]| {
        if is_every_database(list.len(), databases) {
            Shown::lit("every database")
        } else {
            Shown::join(list.iter().map(Shown::from), ", ")
        }
    };
    let holds = &view.holds_back;
    if !holds.tables_of.is_empty() {
        places(&holds.tables_of)
    } else if !holds.catalogs_of.is_empty() {
        shown!("catalogs of {}", places(&holds.catalogs_of))
    } else if holds.shared_catalogs {
        Shown::lit("shared catalogs")
    } else if !view.behind.is_empty() {
        Shown::lit("nothing now")
    } else {
        Shown::lit("nothing")
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
        let s = self;
        let mut out = Vec::new();
        let held: Vec<&DatabaseWait> = self
            .vacuum_waits_for
            .iter()
            .filter(|d| d.tables.is_some() || d.catalogs.is_some())
            .collect();
        if !held.is_empty() && !self.in_recovery {
            // One row per horizon, so a held xid stays beside the holders it belongs to
            // however their names wrap.
            let mut table = style.table(&["DATABASE", "RELATIONS", "VACUUM WAITS FOR", "HELD XID"]);
            for d in held {
                let same = matches!((&d.tables, &d.catalogs), (Some(t), Some(c)) if t.held_by == c.held_by);
                let rows = match (&d.tables, &d.catalogs) {
                    (Some(t), _) if same => vec![("tables and catalogs", t)],
                    (t, c) => [("tables", t), ("catalogs", c)]
                        .into_iter()
                        .filter_map(|(what, f)| f.as_ref().map(|f| (what, f)))
                        .collect(),
                };
                for (what, f) in rows {
                    table.add_row(vec![
                        Cell::new(&d.database),
                        Cell::new(what),
                        Cell::new(Shown::join(f.held_by.iter().map(Shown::from), "\n")),
                        Cell::new(held_xid_text(f)),
                    ]);
                }
            }
            out.push(table.render());
        }
        if !s.holders.is_empty() {
            let mut table =
                style.table(&["KIND", "ID", "HOLDS BACK", "WHO", "STATE", "AGE", "QUERY"]);
            let databases = self.vacuum_waits_for.len();
            for view in &s.holders {
                let h = &view.holder;
                let who = [
                    h.user.as_ref().map(Shown::from),
                    h.application.as_ref().map(Shown::from),
                    h.client.as_ref().map(Shown::from),
                ];
                let who = Shown::join(who.into_iter().flatten(), "\n");
                table.add_row(vec![
                    Cell::new(&h.kind),
                    Cell::new(&h.id),
                    Cell::new(holds_back_text(view, databases)),
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
        self.visibility_gaps.iter().map(Shown::from).collect()
    }
}

/// The xid VACUUM keeps rows from, with its age.
fn held_xid_text(front: &FrontView) -> String {
    let xid = front
        .held_xid
        .map(|x| x.to_string())
        .unwrap_or_else(|| "?".into());
    match front.age_xids {
        Some(age) => format!("{xid} ({age} xids ago)"),
        None => xid,
    }
}

#[cfg(test)]
pub(crate) mod golden;
mod holds;
