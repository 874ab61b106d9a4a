//! `indoubt pg prepared`: every prepared transaction of a cluster, graded by age, with locks, victims and decoded GID.

mod settings;

use super::pg_common::{self, Addressing};
use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::pg::prepared::{self, BlockedSession, PreparedSnapshot, PreparedXact};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::settings::pg::PreparedSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::targets::Targets;
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Thresholds {
    pub warning_age_seconds: u64,
    pub critical_age_seconds: u64,
}

#[derive(Debug)]
pub(crate) struct PreparedReport {
    thresholds: Thresholds,
    /// Each prepared transaction's grade, in the snapshot's order: decided by the report,
    /// shown by the table (not in the JSON).
    grades: Vec<Severity>,
    snapshot: PreparedSnapshot,
    /// The snapshot's gaps, worded.
    visibility_gaps: Vec<Text>,
}

/// The JSON of `pg prepared`: the thresholds, then the snapshot's fields in their order,
/// its gaps worded.
impl Serialize for PreparedReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            thresholds: &'a Thresholds,
            server_time: &'a chrono::DateTime<chrono::Utc>,
            max_prepared_transactions: i32,
            prepared_transactions: &'a [PreparedXact],
            unattributed_blocked_sessions: &'a [BlockedSession],
            visibility_gaps: &'a [Text],
            unreadable: &'a [String],
        }
        let snapshot = &self.snapshot;
        Json {
            thresholds: &self.thresholds,
            server_time: &snapshot.server_time,
            max_prepared_transactions: snapshot.max_prepared_transactions,
            prepared_transactions: &snapshot.prepared_transactions,
            unattributed_blocked_sessions: &snapshot.unattributed_blocked_sessions,
            visibility_gaps: &self.visibility_gaps,
            unreadable: &snapshot.unreadable,
        }
        .serialize(s)
    }
}

/// `pg prepared` as a probe.
pub(crate) struct PgPrepared;

static PREPARED_TRANSACTIONS: Family = Family {
    name: "indoubt_pg_prepared_transactions",
    help: "Prepared transactions on the server (in the databases read).",
    labels: &[],
};
static PREPARED_OLDEST_AGE: Family = Family {
    name: "indoubt_pg_prepared_oldest_age_seconds",
    help: "How long ago the oldest prepared transaction was prepared (0: none).",
    labels: &[],
};
static PREPARED_OLDEST_XIDS: Family = Family {
    name: "indoubt_pg_prepared_oldest_age_xids",
    help: "How many transaction ids the oldest prepared transaction holds the horizon back by, age(transaction) (0: none).",
    labels: &[],
};
static PREPARED_DATABASE_TRANSACTIONS: Family = Family {
    name: "indoubt_pg_prepared_database_transactions",
    help: "Prepared transactions in one database (databases with none have no series).",
    labels: &["database"],
};
static PREPARED_TRANSACTION_AGE: Family = Family {
    name: "indoubt_pg_prepared_transaction_age_seconds",
    help: "The age of each of the oldest prepared transactions (at most 5, by GID, escaped); the rest are counted in indoubt_pg_prepared_transactions only.",
    labels: &["database", "gid"],
};

/// What `pg prepared` measured: the count, the oldest's age in seconds and xids, per
/// database, and the oldest few by GID.
fn prepared_measures(data: &PreparedReport) -> Vec<Measure> {
    let xacts = &data.snapshot.prepared_transactions;
    let escaped = |raw: &crate::text::RawText| crate::text::escape_bytes(raw.as_bytes());
    let mut out = vec![
        PREPARED_TRANSACTIONS.at(xacts.len() as f64),
        PREPARED_OLDEST_AGE.at(xacts.iter().map(|x| x.age_seconds).fold(0.0, f64::max)),
        PREPARED_OLDEST_XIDS.at(xacts.iter().map(|x| x.age_xids).max().unwrap_or(0) as f64),
    ];
    let mut by_database: std::collections::BTreeMap<String, usize> = Default::default();
    for x in xacts {
        *by_database.entry(escaped(&x.database)).or_default() += 1;
    }
    out.extend(by_database.into_iter().map(|(db, n)| {
        PREPARED_DATABASE_TRANSACTIONS
            .at(n as f64)
            .label("database", db)
    }));
    let mut oldest: Vec<_> = xacts.iter().collect();
    oldest.sort_by(|a, b| b.age_seconds.total_cmp(&a.age_seconds));
    out.extend(
        oldest
            .into_iter()
            .take(crate::metrics::PER_OBJECT)
            .map(|x| {
                PREPARED_TRANSACTION_AGE
                    .at(x.age_seconds)
                    .label("database", escaped(&x.database))
                    .label("gid", escaped(&x.gid))
            }),
    );
    out
}

impl Inspect for PgPrepared {
    type Args = settings::PreparedArgs;
    type Settings = PreparedSettings;
    type Gathered = PreparedSnapshot;
    type Data = PreparedReport;
    const NAME: &'static str = "pg prepared";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Pg);
    const MEASURES: &'static [&'static Family] = &[
        &PREPARED_TRANSACTIONS,
        &PREPARED_OLDEST_AGE,
        &PREPARED_OLDEST_XIDS,
        &PREPARED_DATABASE_TRANSACTIONS,
        &PREPARED_TRANSACTION_AGE,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("The config's only postgres target (else the PG* variables)", "indoubt pg prepared"),
            example!("psql's -h -p -U -d, one database's transactions, a tighter warning", "indoubt pg prepared -h db1 -p 5432 -U monitor -d postgres --database shop --warning-age 2m"),
            example!("A config target, as JSON for a script", "indoubt -o json pg prepared --pg prod"),
        ],
        see_also: &["resolve pg", "pg horizon"],
        codes: &[
            codes::BLOCKED_BY_PREPARED,
            codes::PREPARED_XACTS,
            codes::PREPARED_XACTS_UNREADABLE,
            codes::PREPARED_XACT_AGE,
        ],
    };

    fn measures(data: &PreparedReport) -> Vec<Measure> {
        prepared_measures(data)
    }

    fn settings(
        t: &Targets,
        thresholds: &crate::settings::Thresholds,
        args: Self::Args,
    ) -> Result<PreparedSettings> {
        settings::prepared(t, thresholds, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        pg_common::on_every_server(config, &["pg", "prepared"])
    }

    async fn gather(ctx: &Context, settings: &PreparedSettings) -> Result<PreparedSnapshot> {
        let target = &settings.target;
        let key = format!("{:?}", settings.databases);
        pg_common::server_read(ctx, "pg prepared", target, key, |session| async move {
            ctx.note(format!("connected: PostgreSQL {}", session.info.version));
            prepared::collect(&session, &settings.databases, ctx.timeout).await
        })
        .await
    }

    fn report(
        _ctx: &Context,
        settings: &PreparedSettings,
        snapshot: PreparedSnapshot,
    ) -> Report<PreparedReport> {
        report_of(settings, snapshot)
    }
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(settings: &PreparedSettings, snapshot: PreparedSnapshot) -> Report<PreparedReport> {
    let (warning, critical) = settings.age;
    let findings = assess(&snapshot, warning, critical, &settings.addressing);
    let grades = snapshot
        .prepared_transactions
        .iter()
        .map(|xact| grade(xact, warning, critical))
        .collect();
    Report::new(
        "pg prepared",
        settings.target.report_target(),
        findings,
        PreparedReport {
            thresholds: Thresholds {
                warning_age_seconds: warning.as_secs(),
                critical_age_seconds: critical.as_secs(),
            },
            grades,
            visibility_gaps: snapshot
                .visibility_gaps
                .iter()
                .map(pg_common::gap_text)
                .collect(),
            snapshot,
        },
    )
}

/// A prepared transaction graded by its age.
fn grade(xact: &PreparedXact, warning: Duration, critical: Duration) -> Severity {
    Severity::grade(seconds(xact.age_seconds), warning, critical)
}

fn assess(
    snapshot: &PreparedSnapshot,
    warning: Duration,
    critical: Duration,
    addressing: &Addressing,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if snapshot.prepared_transactions.is_empty() {
        let message = if snapshot.max_prepared_transactions == 0 {
            "none: prepared transactions are disabled (max_prepared_transactions = 0)".to_string()
        } else {
            "none".to_string()
        };
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::PREPARED_XACTS,
                "prepared transactions",
                message,
            )
            .evidence("source", "pg_prepared_xacts")
            .evidence(
                "max_prepared_transactions",
                snapshot.max_prepared_transactions,
            )
            .evidence("server_time", snapshot.server_time.to_rfc3339()),
        );
    }
    for xact in &snapshot.prepared_transactions {
        let age = seconds(xact.age_seconds);
        let severity = grade(xact, warning, critical);
        let mut message = text![
            "prepared ",
            format_duration(age),
            " ago by ",
            prepared::owner_text(&xact.owner),
            " at ",
            xact.prepared_at.format("%Y-%m-%d %H:%M:%S UTC"),
            "; xid age ",
            xact.age_xids,
            "; ",
            xact.locks.len(),
            if xact.locks.len() == 1 {
                " lock"
            } else {
                " locks"
            },
        ];
        if !xact.blocked_sessions.is_empty() {
            let pids: Vec<String> = xact
                .blocked_sessions
                .iter()
                .map(|s| s.pid.to_string())
                .collect();
            message.push_str(&format!("; blocks session(s) {}", pids.join(", ")));
        }
        let threshold = match severity {
            Severity::Critical => format!("; critical from {}", format_duration(critical)),
            Severity::Warning => format!("; warning from {}", format_duration(warning)),
            _ => String::new(),
        };
        message.push_str(&threshold);
        findings.push(
            Finding::new(
                severity,
                codes::PREPARED_XACT_AGE,
                text!["prepared transaction '", xact.gid, "' in ", xact.database],
                message,
            )
            .evidence("source", "pg_prepared_xacts, pg_locks, pg_stat_activity")
            .evidence_raw("gid", &xact.gid)
            .evidence_raw("database", &xact.database)
            .evidence(
                "owner",
                xact.owner.as_ref().map(|o| o.to_text().into_owned()),
            )
            .evidence("prepared_at", xact.prepared_at.to_rfc3339())
            .evidence("server_time", snapshot.server_time.to_rfc3339())
            .evidence("age_seconds", xact.age_seconds)
            .evidence("age_xids", xact.age_xids)
            .evidence("locks", xact.locks.len())
            .evidence(
                "blocked_pids",
                xact.blocked_sessions
                    .iter()
                    .map(|s| s.pid)
                    .collect::<Vec<_>>(),
            )
            .advice(xact.decoded_gid.advice())
            .object(Object::raw(ObjectKind::PreparedTransaction, &xact.gid))
            .related(
                xact.blocked_sessions
                    .iter()
                    .map(|s| Object::new(ObjectKind::Session, s.pid.to_string())),
            )
            .next(addressing.resolve(&xact.gid)),
        );
    }
    for what in &snapshot.unreadable {
        findings.push(Finding::new(
            Severity::Unknown,
            codes::PREPARED_XACTS_UNREADABLE,
            "prepared transactions",
            what.clone(),
        ));
    }
    if !snapshot.unattributed_blocked_sessions.is_empty() {
        let pids: Vec<String> = snapshot
            .unattributed_blocked_sessions
            .iter()
            .map(|s| s.pid.to_string())
            .collect();
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::BLOCKED_BY_PREPARED,
                "sessions blocked by a prepared transaction",
                format!(
                    "session(s) {} wait for a lock the server attributes to a prepared transaction (blocker pid 0) that could not be matched to one",
                    pids.join(", ")
                ),
            )
            .evidence("source", "pg_blocking_pids(), pg_locks")
            .evidence("pids", snapshot.unattributed_blocked_sessions.iter().map(|s| s.pid).collect::<Vec<_>>()),
        );
    }
    findings
}

impl TableView for PreparedReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let xacts = &self.snapshot.prepared_transactions;
        if xacts.is_empty() {
            return Vec::new();
        }
        let mut table = style.table(&[
            "STATUS",
            "GID",
            "DATABASE\nOWNER",
            "AGE",
            "LOCKS",
            "BLOCKS",
            "GLOBAL TX",
            "DECODED GID",
        ]);
        for (xact, grade) in xacts.iter().zip(&self.grades) {
            let age = seconds(xact.age_seconds);
            table.add_row(vec![
                style.severity_cell(*grade),
                Cell::new(&xact.gid),
                Cell::new(shown!(
                    "{}\n{}",
                    xact.database,
                    prepared::owner_text(&xact.owner)
                )),
                Cell::new(shown!(
                    "{}\n{} xids\nsince {}",
                    format_duration(age),
                    xact.age_xids,
                    xact.prepared_at.format("%Y-%m-%d %H:%M:%S")
                )),
                Cell::new(locks_cell(xact)),
                Cell::new(blocked_cell(&xact.blocked_sessions)),
                Cell::new(global_cell(xact)),
                Cell::new(xact.decoded_gid.summary()),
            ]);
        }
        table.keep_whole(1);
        // The GID, where, age, locks and victims come first; the decoding is in the findings.
        table.optional(6);
        table.optional(7);
        vec![table.render()]
    }

    fn visibility_gaps(&self) -> Vec<Shown> {
        self.visibility_gaps.iter().map(Shown::from).collect()
    }
}

/// The global transaction's key, how many of its branches the report lists, its
/// manager and coordinator node.
fn global_cell(xact: &PreparedXact) -> Shown {
    match &xact.global_transaction {
        Some(g) => shown!(
            "{}, {} {} listed\n{}",
            g.key,
            g.branches,
            if g.branches == 1 {
                "branch"
            } else {
                "branches"
            },
            g.manager_and_node()
        ),
        None => Shown::lit("-"),
    }
}

/// One line per lock mode: how many, and on what.
fn locks_cell(xact: &PreparedXact) -> Shown {
    // An empty cell would read as "not known".
    if xact.locks_by_mode.is_empty() {
        return Shown::lit("-");
    }
    let lines = xact.locks_by_mode.iter().map(|(mode, count)| {
        let objects = xact.locks.iter().filter(|l| &l.mode == mode).map(|l| {
            match (&l.relation, l.relation_oid) {
                (Some(name), _) => Shown::from(name),
                (None, Some(oid)) => shown!("oid {} in {}", oid, or_unknown(&l.database)),
                (None, None) => match (&l.locktype[..], &l.transactionid) {
                    ("transactionid", Some(xid)) => shown!("xid {}", xid),
                    _ => Shown::text(&l.locktype),
                },
            }
        });
        // "RowExclusive" reads as well as "RowExclusiveLock" and leaves room for names.
        let short = mode.strip_suffix("Lock").unwrap_or(mode);
        shown!("{} ×{}: {}", short, count, Shown::join(objects, ", "))
    });
    Shown::join(lines, "\n")
}

/// Server text that may be missing, `?` then.
fn or_unknown(text: &Option<crate::text::RawText>) -> Shown {
    text.as_ref().map_or_else(|| Shown::lit("?"), Shown::from)
}

fn blocked_cell(sessions: &[BlockedSession]) -> Shown {
    if sessions.is_empty() {
        return Shown::lit("-");
    }
    let lines = sessions.iter().map(|s| {
        let on = match &s.waits_for.relation {
            Some(relation) => Shown::from(relation),
            None => Shown::text(&s.waits_for.locktype),
        };
        let query = match &s.query {
            Some(q) => Shown::bytes(q.as_bytes()).truncated(60, |_| "…".to_string()),
            None => Shown::lit("(query hidden)"),
        };
        shown!(
            "pid {} {}@{} waits {} on {}: {}",
            s.pid,
            or_unknown(&s.user),
            or_unknown(&s.database),
            s.waits_for.mode,
            on,
            query
        )
    });
    Shown::join(lines, "\n")
}

#[cfg(test)]
pub(crate) mod golden;
