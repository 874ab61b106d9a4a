//! `indoubt seata globals`: each configured Apache Seata coordinator's store — the global
//! transactions that should have ended (past their timeout and the grace, given up, or
//! in a status no release defines), their branches and the row locks they hold, and the
//! locks whose global transaction is gone.

mod codes;
mod settings;

use super::seata_common::{self, Client, ClientRead, Coordinator, Db, SeataSettings};
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::{Invocation, Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::seata::mysql_store;
use crate::seata::status::{self, Decided, Stage};
use crate::seata::store::{self, Global, Held, Problem, Snapshot};
use crate::seata::undo::{self, Now, RowCheck, UndoLog};
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::time::Duration;

/// The most overdue globals one coordinator's report lists (the count says how many
/// more there are).
const LISTED: i64 = 100;

/// `seata globals` as a probe.
pub(crate) struct SeataGlobals;

static SEATA_GLOBALS_BY_STATUS: Family = Family {
    name: "indoubt_seata_global_transactions",
    help: "Rows of one coordinator's global table by status (Seata's name: Begin, CommitRetrying, TimeoutRollbackFailed, …).",
    labels: &["status"],
};
static SEATA_OVERDUE: Family = Family {
    name: "indoubt_seata_overdue_global_transactions",
    help: "Global transactions that should have ended: past their timeout and the grace, given up, or in a status no release defines.",
    labels: &[],
};
static SEATA_OLDEST_OVERDUE: Family = Family {
    name: "indoubt_seata_oldest_overdue_past_timeout_seconds",
    help: "How long the most overdue global transaction is past its own timeout; 0: none (or no begin time).",
    labels: &[],
};
static SEATA_OVERDUE_LOCKS: Family = Family {
    name: "indoubt_seata_overdue_locked_rows",
    help: "Row locks held by the listed overdue global transactions (the rows other transactions wait for).",
    labels: &[],
};
static SEATA_ORPHAN_LOCKS: Family = Family {
    name: "indoubt_seata_orphan_locked_rows",
    help: "Row locks whose global transaction is no longer in the global table.",
    labels: &[],
};

impl Inspect for SeataGlobals {
    type Args = settings::SeataGlobalsArgs;
    type Settings = SeataSettings;
    type Gathered = Vec<(Read, Vec<ClientRead<Undo>>)>;
    type Data = GlobalsReport;
    const NAME: &'static str = "seata globals";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Seata);
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every coordinator of the config", "indoubt seata globals"),
            example!("One coordinator, up to 20 branches and locked rows of each global, as JSON", "indoubt -o json seata globals orders-tc --show 20"),
        ],
        see_also: &["pg prepared", "mysql xa"],
        // Its own, documented in its folder (codes.rs), and the client tables' one.
        codes: &[
            codes::SEATA_GLOBALS,
            codes::SEATA_GLOBAL_OVERDUE,
            codes::SEATA_GLOBAL_GIVEN_UP,
            codes::SEATA_GLOBAL_STATUS_UNKNOWN,
            codes::SEATA_ORPHAN_LOCKS,
            codes::SEATA_UNDO_ORPHANED,
            codes::SEATA_STORE_UNREADABLE,
            seata_common::codes::SEATA_CLIENT_UNREADABLE,
        ],
    };

    const MEASURES: &'static [&'static Family] = &[
        &SEATA_GLOBALS_BY_STATUS,
        &SEATA_OVERDUE,
        &SEATA_OLDEST_OVERDUE,
        &SEATA_OVERDUE_LOCKS,
        &SEATA_ORPHAN_LOCKS,
    ];

    fn measures(data: &GlobalsReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for c in &data.coordinators {
            let Some(s) = &c.snapshot else { continue };
            for by in &s.by_status {
                out.push(
                    SEATA_GLOBALS_BY_STATUS
                        .at(by.globals as f64)
                        .label("status", by.name),
                );
            }
            let past = s
                .overdue
                .iter()
                .filter_map(|g| g.past_timeout_seconds)
                .fold(0.0_f64, f64::max);
            let locked: i64 = s.overdue.iter().map(|g| g.locks.rows).sum();
            out.push(SEATA_OVERDUE.at(s.overdue_total as f64));
            out.push(SEATA_OLDEST_OVERDUE.at(past));
            out.push(SEATA_OVERDUE_LOCKS.at(locked as f64));
            out.push(SEATA_ORPHAN_LOCKS.at(s.orphan_locks.rows as f64));
        }
        out
    }

    fn settings(t: &Targets, _thresholds: &Thresholds, args: Self::Args) -> Result<SeataSettings> {
        seata_common::settings(t, args.name.as_deref(), args.show)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .seata
            .iter()
            .filter(|(_, c)| c.check)
            .map(|(name, _)| planned(name, &["seata", "globals", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        let mut reads = Vec::new();
        for (name, c) in &config.seata {
            let section = format!("seata coordinator {name}");
            for (table, columns) in [
                (&c.global_table, &store::GLOBAL_COLUMNS[..]),
                (&c.branch_table, &store::BRANCH_COLUMNS[..]),
                (&c.lock_table, &store::LOCK_COLUMNS[..]),
            ] {
                // A store named by neither or both is refused by the settings (and by
                // config show).
                match (&c.postgres, &c.mysql) {
                    (Some(pg), None) => reads.push(Uses::pg_table(&section, pg, table, columns)),
                    (None, Some(my)) => reads.push(Uses::mysql_table(&section, my, table, columns)),
                    _ => {}
                }
            }
        }
        reads.extend(seata_common::client_reads(config, |k| {
            k.undo_log
                .iter()
                .map(|u| (u.clone(), &undo::COLUMNS[..]))
                .collect()
        }));
        reads
    }

    async fn gather(
        ctx: &Context,
        settings: &SeataSettings,
    ) -> Result<Vec<(Read, Vec<ClientRead<Undo>>)>> {
        let mut reads = Vec::new();
        for c in &settings.coordinators {
            let store = read(ctx, c, settings.show as i64).await;
            // The AT globals' undo logs, in each client that holds one, with what the
            // store says each holds (its AT branches, the rows it locks): an undo log is
            // compared only where the store agrees. A global the coordinator decided to
            // commit is not: its commit deletes the undo log without reading a row.
            let xids: Vec<(String, Held)> = match &store {
                Read::Snapshot(s) => s
                    .overdue
                    .iter()
                    .filter(|g| status::decided(g.status) != Decided::Commit)
                    .filter_map(Held::of_global)
                    .collect(),
                _ => Vec::new(),
            };
            let mut clients = Vec::new();
            for client in undo_clients(c) {
                clients.push(read_undo(ctx, c, client, &xids, settings.show).await);
            }
            reads.push((store, clients));
        }
        Ok(reads)
    }

    fn report(
        ctx: &Context,
        settings: &SeataSettings,
        reads: Vec<(Read, Vec<ClientRead<Undo>>)>,
    ) -> Report<GlobalsReport> {
        report_of(&ctx.invocation, settings, reads)
    }
}

/// The clients with an undo log, and its table.
fn undo_clients(c: &Coordinator) -> impl Iterator<Item = (&Client, &str)> {
    c.clients
        .iter()
        .filter_map(|k| k.undo_log.as_deref().map(|t| (k, t)))
}

/// One client's undo logs: those of the listed AT globals, each checked against the rows
/// now, and those of globals the store no longer has.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Undo {
    pub branches: Vec<BranchUndo>,
    /// Global transactions with undo logs older than the grace that the store has no
    /// row for (at most LISTED); null when the store could not be asked.
    pub orphaned: Option<Vec<OrphanedUndo>>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct BranchUndo {
    #[serde(flatten)]
    pub log: UndoLog,
    /// Its rows (at most --show) against the table now.
    pub checks: Vec<RowCheck>,
    /// Rows its images hold in all.
    pub rows: usize,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct OrphanedUndo {
    pub xid: String,
    pub records: i64,
    pub oldest_local: Option<chrono::NaiveDateTime>,
}

async fn read_undo(
    ctx: &Context,
    c: &Coordinator,
    (client, table): (&Client, &str),
    xids: &[(String, Held)],
    show: usize,
) -> ClientRead<Undo> {
    let read = async {
        let mut session = match seata_common::connect_to_read(ctx, client, table).await? {
            Ok(session) => session,
            Err(problems) => return Ok(ClientRead::Problems(problems)),
        };
        let problems = undo::inspect(&mut session, table).await?;
        if !problems.is_empty() {
            return Ok(ClientRead::Problems(problems));
        }
        let mut branches = Vec::new();
        let ids: Vec<String> = xids.iter().map(|(x, _)| x.clone()).collect();
        for log in undo::of_globals(&mut session, table, &ids).await? {
            let Some((_, held)) = xids.iter().find(|(x, _)| *x == log.xid) else {
                continue;
            };
            let (checks, rows) = match &log.images {
                Ok(_) if !held.at_branches.contains(&log.branch_id) => (
                    vec![RowCheck {
                        read: None,
                        statement: 0,
                        table: String::new(),
                        key: String::new(),
                        now: Now::NotCompared {
                            why: format!(
                                "branch {} is not an AT branch of this global in the coordinator's branch table (as read): its rows are not read",
                                log.branch_id
                            ),
                        },
                    }],
                    0,
                ),
                Ok(images) => {
                    let locked = held.locked_by(log.branch_id);
                    undo::check_rows(&mut session, images, &locked, show).await?
                }
                Err(_) => (Vec::new(), 0),
            };
            branches.push(BranchUndo { log, checks, rows });
        }
        let old =
            undo::old_globals(&mut session, table, c.grace.value.as_secs_f64(), LISTED).await?;
        session.close().await;
        let old_xids: Vec<String> = old.iter().map(|(x, _, _)| x.clone()).collect();
        let orphaned = seata_common::known_globals(ctx, c, &old_xids)
            .await
            .ok()
            .map(|known| {
                old.into_iter()
                    .filter(|(x, _, _)| !known.contains_key(x))
                    .map(|(xid, records, oldest_local)| OrphanedUndo {
                        xid,
                        records,
                        oldest_local,
                    })
                    .collect()
            });
        Ok::<_, anyhow::Error>(ClientRead::Read(Undo { branches, orphaned }))
    };
    read.await.unwrap_or_else(ClientRead::Failed)
}

/// What one coordinator's store came to: its state, the tables it could not read, or why
/// it could not be read at all.
pub(crate) enum Read {
    Snapshot(Snapshot),
    Problems(Vec<Problem>),
    Failed(anyhow::Error),
}

async fn read(ctx: &Context, c: &Coordinator, sample: i64) -> Read {
    let target = match &c.store {
        Db::Postgres(target) => target,
        Db::Mysql(target) => return read_mysql(ctx, c, target, sample).await,
    };
    let read = async {
        let session = super::appdb_common::connect_pg(ctx, target).await?;
        Ok::<_, anyhow::Error>(match store::inspect(&session, c.tables()).await? {
            Err(problems) => Read::Problems(problems),
            Ok(lock_status) => Read::Snapshot(
                store::read(
                    &session,
                    c.tables(),
                    lock_status,
                    c.grace.value,
                    LISTED,
                    sample,
                )
                .await?,
            ),
        })
    };
    read.await.unwrap_or_else(Read::Failed)
}

/// The same read of a store on MySQL or MariaDB.
async fn read_mysql(
    ctx: &Context,
    c: &Coordinator,
    target: &Result<crate::settings::targets::MysqlTarget, String>,
    sample: i64,
) -> Read {
    let read = async {
        let mut session = super::appdb_common::connect_mysql(ctx, target).await?;
        let read = match mysql_store::inspect(&mut session, c.tables()).await? {
            Err(problems) => Read::Problems(problems),
            Ok(lock_status) => Read::Snapshot(
                mysql_store::read(
                    &mut session,
                    c.tables(),
                    lock_status,
                    c.grace.value,
                    LISTED,
                    sample,
                )
                .await?,
            ),
        };
        session.close().await;
        Ok::<_, anyhow::Error>(read)
    };
    read.await.unwrap_or_else(Read::Failed)
}

#[derive(Debug, Serialize)]
pub(crate) struct GlobalsReport {
    coordinators: Vec<CoordinatorEntry>,
}

#[derive(Debug, Serialize)]
struct CoordinatorEntry {
    name: String,
    /// Where its store is, as the config names it.
    store: String,
    global_table: String,
    branch_table: String,
    lock_table: String,
    grace_seconds: u64,
    critical_age_seconds: u64,
    /// Null when it could not be read (the findings say why).
    snapshot: Option<Snapshot>,
    problems: Vec<Problem>,
    /// Its clients' undo logs (the clients with an undo_log in the config).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    clients: Vec<ClientUndoEntry>,
}

#[derive(Debug, Serialize)]
struct ClientUndoEntry {
    name: String,
    undo_table: String,
    /// Null when it could not be read (the findings say why).
    undo: Option<Undo>,
}

/// Undo logs whose global transaction the store no longer has.
fn orphaned_undo(c: &Coordinator, client: &Client, table: &str, undo: &Undo) -> Option<Finding> {
    let orphaned = undo.orphaned.as_ref()?;
    if orphaned.is_empty() {
        return None;
    }
    let records: i64 = orphaned.iter().map(|o| o.records).sum();
    let sample: Vec<&str> = orphaned.iter().take(3).map(|o| o.xid.as_str()).collect();
    // The statement lists exactly these globals' undo logs (at most LISTED of them).
    let xids: Vec<&str> = orphaned.iter().map(|o| o.xid.as_str()).collect();
    let more = if orphaned.len() > sample.len() {
        ", …"
    } else {
        ""
    };
    Some(
        Finding::new(
            Severity::Warning,
            codes::SEATA_UNDO_ORPHANED,
            seata_common::client_subject(c, client),
            text![
                records,
                " undo log record(s) of ",
                orphaned.len(),
                " global transaction(s) no longer in the store (",
                sample.join(", "),
                more,
                "), older than ",
                format_duration(c.grace.value),
                ": phase two never reached this database for them, so nothing will roll those branches back or delete their undo logs"
            ],
        )
        .evidence("source", table.to_string())
        .evidence("client", client.name.clone())
        .evidence("records", records)
        .evidence("xids", orphaned.len())
        .advice("find each global's outcome in the coordinator's log: if it committed, its undo logs can go; if it rolled back, what the branch wrote is still there")
        .next_if(
            undo::orphans_statement(client.dialect(), table, &xids)
                .map(|s| Next::sql(s.placed(&client.place()))),
        ),
    )
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(
    invocation: &Invocation,
    settings: &SeataSettings,
    reads: Vec<(Read, Vec<ClientRead<Undo>>)>,
) -> Report<GlobalsReport> {
    let mut findings = Vec::new();
    let mut coordinators = Vec::new();
    for (c, (read, client_reads)) in settings.coordinators.iter().zip(reads) {
        let mut undos = Vec::new();
        let mut client_findings = Vec::new();
        let mut clients = Vec::new();
        for ((client, table), read) in undo_clients(c).zip(client_reads) {
            let undo = match read {
                ClientRead::Read(undo) => Some(undo),
                ClientRead::Problems(problems) => {
                    client_findings.extend(problems.iter().map(|p| {
                        seata_common::client_problem(
                            seata_common::codes::SEATA_CLIENT_UNREADABLE,
                            c,
                            client,
                            "the AT undo log",
                            p,
                        )
                    }));
                    None
                }
                ClientRead::Failed(e) => {
                    client_findings.push(seata_common::client_failed(
                        seata_common::codes::SEATA_CLIENT_UNREADABLE,
                        c,
                        client,
                        &e,
                    ));
                    None
                }
            };
            if let Some(undo) = &undo {
                client_findings.extend(orphaned_undo(c, client, table, undo));
                undos.push((client, undo.clone()));
            }
            clients.push(ClientUndoEntry {
                name: client.name.clone(),
                undo_table: table.to_string(),
                undo,
            });
        }
        let mut entry = CoordinatorEntry {
            name: c.name.clone(),
            store: c.store_shown(),
            global_table: c.global_table.clone(),
            branch_table: c.branch_table.clone(),
            lock_table: c.lock_table.clone(),
            grace_seconds: c.grace.value.as_secs(),
            critical_age_seconds: c.critical_age.value.as_secs(),
            snapshot: None,
            problems: Vec::new(),
            clients,
        };
        match read {
            Read::Snapshot(snapshot) => {
                findings.extend(assess(invocation, c, &snapshot, &undos));
                entry.snapshot = Some(snapshot);
            }
            Read::Problems(problems) => {
                findings.extend(problems.iter().map(|p| problem_finding(c, p)));
                entry.problems = problems;
            }
            Read::Failed(e) => findings.push(Finding::new(
                Severity::Unknown,
                codes::SEATA_STORE_UNREADABLE,
                c.subject(),
                format!("{e:#}"),
            )),
        }
        findings.extend(client_findings);
        coordinators.push(entry);
    }
    let target = seata_common::report_target(settings);
    Report::new(
        "seata globals",
        target,
        findings,
        GlobalsReport { coordinators },
    )
}

/// A table of the store that could not be read: UNKNOWN, with what would show it.
fn problem_finding(c: &Coordinator, problem: &Problem) -> Finding {
    super::appdb_common::Unreadable {
        code: codes::SEATA_STORE_UNREADABLE,
        subject: c.subject(),
        db: &c.store,
        place: c.place(),
        missing: (
            "is this the coordinator's store, and is the table named as its store.db settings name it?",
            "set global_table, branch_table and lock_table under seata: in the config as the coordinator names them",
        ),
        layout: "a Seata store table (another product's, or a Seata version indoubt does not read)",
        what: None,
        grant_on: "the coordinator's three tables",
    }
    .finding(problem)
}

/// What a coordinator's store comes to, with its clients' undo logs.
fn assess(
    invocation: &Invocation,
    c: &Coordinator,
    snapshot: &Snapshot,
    undos: &[(&Client, Undo)],
) -> Vec<Finding> {
    let mut findings: Vec<Finding> = snapshot
        .overdue
        .iter()
        .map(|g| {
            let logs: Vec<(&Client, &BranchUndo)> = undos
                .iter()
                .flat_map(|(client, u)| u.branches.iter().map(move |b| (*client, b)))
                .filter(|(_, b)| b.log.xid == g.xid)
                .collect();
            global_finding(invocation, c, g, &logs)
        })
        .collect();
    let unlisted = snapshot.overdue_total - snapshot.overdue.len() as i64;
    if unlisted > 0 {
        let worst = findings
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Warning);
        findings.push(Finding::new(
            worst,
            codes::SEATA_GLOBAL_OVERDUE,
            c.subject(),
            format!("{unlisted} more global transaction(s) past their timeout than the {LISTED} oldest listed"),
        ));
    }
    let orphans = &snapshot.orphan_locks;
    if orphans.rows > 0 {
        let rows: Vec<String> = orphans.sample.iter().map(|o| locked_row(&o.row)).collect();
        let more = if orphans.rows as usize > rows.len() {
            ", …"
        } else {
            ""
        };
        let finding = Finding::new(
                Severity::Critical,
                codes::SEATA_ORPHAN_LOCKS,
                c.subject(),
                text![
                    orphans.rows,
                    " row lock(s) of ",
                    orphans.xids,
                    " global transaction(s) no longer in ",
                    c.global_table,
                    " (",
                    rows.join(", "),
                    more,
                    "): nothing will release them, and every AT transaction that writes those rows fails with a global lock conflict"
                ],
            )
            .evidence("source", c.lock_table.clone())
            .evidence("rows", orphans.rows)
            .evidence("xids", orphans.xids)
            .evidence("oldest_gmt_create_store_local", orphans.oldest_local.map(|t| t.to_string()))
            .advice("confirm in the coordinator's log that their global transactions ended, then delete exactly these lock rows by row_key");
        // In the store's SQL (none for a MySQL table name that would not show).
        let statement = match c.on_postgres() {
            true => Some(store::orphan_locks_statement(c.tables())),
            false => mysql_store::orphan_locks_statement(c.tables()),
        };
        findings.push(finding.next_if(statement.map(|s| Next::sql(s.placed(&c.place())))));
    }
    if findings.is_empty() {
        let live: i64 = snapshot.by_status.iter().map(|s| s.globals).sum();
        let statuses: Vec<String> = snapshot
            .by_status
            .iter()
            .map(|s| format!("{} {}", s.globals, s.name))
            .collect();
        let message = match live {
            0 => "no global transaction in the store; no orphaned row locks".to_string(),
            _ => format!(
                "{live} global transaction(s) in the store ({}), none past its timeout and {} grace; no orphaned row locks",
                statuses.join(", "),
                format_duration(c.grace.value)
            ),
        };
        findings.push(
            Finding::new(Severity::Ok, codes::SEATA_GLOBALS, c.subject(), message)
                .evidence("source", c.global_table.clone()),
        );
    }
    findings
}

/// What the undo logs say of a global's rows, as a sentence to append; and the first
/// branch whose rows a dirty write changed (its client's name and its branch id).
fn undo_verdict<'a>(logs: &[(&'a Client, &BranchUndo)]) -> (String, Option<(&'a str, i64)>) {
    let mut text = String::new();
    let mut dirty: Option<(&str, i64)> = None;
    for (client, b) in logs {
        let at = format!("client {}", client.name);
        if let Err(why) = &b.log.images {
            text.push_str(&format!("; its undo log in {at} cannot be read: {why}"));
            continue;
        }
        if b.log.log_status == 1 {
            text.push_str(&format!(
                "; {at} holds a defense record for branch {} (nothing to undo)",
                b.log.branch_id
            ));
            continue;
        }
        let checks = &b.checks;
        if checks.is_empty() {
            continue;
        }
        let of = |now: fn(&Now) -> bool| checks.iter().filter(|c| now(&c.now)).count();
        let more = match b.rows > checks.len() {
            true => format!(" (the first {} of its {} rows)", checks.len(), b.rows),
            false => String::new(),
        };
        for check in checks {
            match &check.now {
                Now::Changed { columns } => {
                    dirty = dirty.or(Some((client.name.as_str(), b.log.branch_id)));
                    let changed: Vec<String> = columns
                        .iter()
                        .map(|c| {
                            format!("{}: the branch wrote {}, now {}", c.column, c.after, c.now)
                        })
                        .collect();
                    let how = match changed.is_empty() {
                        // A DELETE's row, there again.
                        true => "was written again after the branch deleted it".to_string(),
                        false => format!("was changed after the branch ({})", changed.join("; ")),
                    };
                    text.push_str(&format!(
                        "; in {at}, row {} {} {how}: a dirty write, which the rollback refuses",
                        check.table, check.key
                    ));
                }
                Now::Deleted => {
                    dirty = dirty.or(Some((client.name.as_str(), b.log.branch_id)));
                    text.push_str(&format!(
                        "; in {at}, row {} {} was deleted after the branch updated it: a dirty write, which the rollback refuses",
                        check.table, check.key
                    ));
                }
                Now::Reverted => {
                    dirty = dirty.or(Some((client.name.as_str(), b.log.branch_id)));
                    text.push_str(&format!(
                        "; in {at}, row {} {} is already as before the branch while other rows of its statement are not: the rollback refuses the statement as a whole",
                        check.table, check.key
                    ));
                }
                Now::NotCompared { why } if check.table.is_empty() => {
                    text.push_str(&format!("; its undo log in {at}: {why}"))
                }
                Now::NotCompared { why } => text.push_str(&format!(
                    "; in {at}, row {} {} was not compared: {why}",
                    check.table, check.key
                )),
                Now::AsAfter | Now::AsBefore => {}
            }
        }
        if of(|n| *n == Now::AsAfter) == checks.len() {
            text.push_str(&format!(
                "; its rows in {at} are as the branch left them{more}: a rollback can restore them"
            ));
        } else if of(|n| *n == Now::AsBefore) == checks.len() {
            text.push_str(&format!(
                "; its rows in {at} are already as before the branch{more}"
            ));
        }
    }
    (text, dirty)
}

/// The undo logs' row checks, for the evidence: `client table key: verdict`.
fn undo_rows(logs: &[(&Client, &BranchUndo)]) -> Vec<String> {
    logs.iter()
        .flat_map(|(client, b)| {
            b.checks.iter().map(move |c| {
                let now = seata_common::row_now(&c.now);
                format!("{} {} {}: {now}", client.name, c.table, c.key)
            })
        })
        .collect()
}

/// A branch as one line: its type, its status as Seata names it, its resource.
fn branch_text(b: &store::Branch) -> String {
    format!(
        "{} {} {}",
        b.branch_type.as_deref().unwrap_or("?"),
        b.status_name
            .map(str::to_string)
            .or_else(|| b.status.map(|s| format!("status {s}")))
            .unwrap_or_else(|| "-".into()),
        b.resource_id.as_deref().unwrap_or("?")
    )
}

/// A global's locked rows as `table:pk, …`, the ellipsis when there are more than shown.
fn locked_rows(locks: &store::Locks) -> String {
    let rows: Vec<String> = locks.sample.iter().map(locked_row).collect();
    let more = if locks.rows as usize > rows.len() {
        ", …"
    } else {
        ""
    };
    format!("{}{more}", rows.join(", "))
}

fn locked_row(row: &store::LockedRow) -> String {
    format!(
        "{}:{}",
        row.table_name.as_deref().unwrap_or("?"),
        row.pk.as_deref().unwrap_or("?")
    )
}

/// One global transaction that should have ended: graded by its stage and by how long
/// past its timeout it is.
fn global_finding(
    invocation: &Invocation,
    c: &Coordinator,
    g: &Global,
    logs: &[(&Client, &BranchUndo)],
) -> Finding {
    let past = g.past_timeout_seconds.map(|s| seconds(s.max(0.0)));
    let past_text = past.map_or_else(
        || "with no begin time".to_string(),
        |p| format!("{} past its timeout", format_duration(p)),
    );
    let by_age = |p: Option<Duration>| match p {
        Some(p) if p >= c.critical_age.value => Severity::Critical,
        _ => Severity::Warning,
    };
    // A rollback with AT branches: the one an undo log's rows can hold up.
    let at_rollback = status::decided(g.status) == Decided::Rollback
        && g.branches
            .iter()
            .any(|b| b.branch_type.as_deref() == Some("AT"));
    let (severity, code, what, advice) = match g.stage {
        Stage::GaveUp => (
            Severity::Critical,
            codes::SEATA_GLOBAL_GIVEN_UP,
            "the coordinator has given up on it: nothing will finish it".to_string(),
            "decide with the services' owners what each branch must become, compensate by hand, then remove the session through the coordinator",
        ),
        Stage::Unknown => (
            Severity::Unknown,
            codes::SEATA_GLOBAL_STATUS_UNKNOWN,
            format!("status {}, which no Seata release up to 2.5 defines: not judged", g.status),
            "check the coordinator's version",
        ),
        Stage::Open => (
            by_age(past),
            codes::SEATA_GLOBAL_OVERDUE,
            format!("{past_text}: the coordinator has not timed it out (is it running, and is this its store?)"),
            "check that a coordinator runs on this store; its timeout checker rolls such a global back",
        ),
        Stage::Retrying => (
            by_age(past),
            codes::SEATA_GLOBAL_OVERDUE,
            format!("{past_text}: a branch's phase two keeps failing and the coordinator retries it"),
            match at_rollback {
                true => "read why in the coordinator's and the branch's logs; an AT rollback that fails on a row changed outside Seata succeeds once the row is what its undo_log after image says",
                false => "read why in the coordinator's and the branch's logs, and make the branch's phase two succeed: the coordinator's next retry then ends the global",
            },
        ),
        Stage::Ending | Stage::Ended => (
            by_age(past),
            codes::SEATA_GLOBAL_OVERDUE,
            // Phase two runs in the branches' own applications: the coordinator retries
            // it (every second by default) until a client of each branch's resource (or
            // application) has done it; with none connected, for ever (seen in the lab).
            format!(
                "{past_text}: the coordinator has begun {} and not finished it; it retries until a client of each branch's resource completes it",
                match crate::seata::status::decided(g.status) {
                    crate::seata::status::Decided::Commit => "the commit",
                    crate::seata::status::Decided::Rollback => "the rollback",
                    _ => "phase two",
                }
            ),
            "check that the branches' applications run and reach the coordinator, and its log for this xid",
        ),
    };
    let locks = match g.locks.rows {
        0 => String::new(),
        n => {
            let since = g
                .locks
                .held_since
                .map(|t| format!(" since {}", t.format("%Y-%m-%d %H:%M:%S UTC")))
                .unwrap_or_default();
            format!(
                "; holds {n} row lock(s){since} ({}): Seata transactions writing them (and @GlobalLock ones) fail with a global lock conflict",
                locked_rows(&g.locks)
            )
        }
    };
    let name = match (&g.application_id, &g.transaction_name) {
        (Some(app), Some(name)) => format!(" ({app}: {name})"),
        (Some(one), None) | (None, Some(one)) => format!(" ({one})"),
        (None, None) => String::new(),
    };
    let branches: Vec<String> = g.branches.iter().map(branch_text).collect();
    let (undo_text, dirty) = undo_verdict(logs);
    // A rollback the coordinator retries, held up by a dirty write: `resolve at` lets it
    // go on (a dry run first; the person picks the fix).
    let retried = at_rollback && matches!(g.stage, Stage::Retrying | Stage::Ending);
    let advice = match (dirty, g.stage) {
        (None, _) => advice,
        // The coordinator retries no more: what the rollback should have done is done by
        // hand, or not at all.
        (Some(_), Stage::GaveUp) => "a person decides, with the service's owner: the coordinator no longer retries this rollback, so either set the row to the branch's before image by hand (the later change is lost) or keep the later change and settle the difference by hand; then delete this branch's undo_log row and remove the session through the coordinator",
        (Some(_), _) if retried => "a person decides, with the service's owner: either set the rows back to what the branch wrote (the command below, a dry run: the coordinator's next retry then restores the before image, and the later change is lost), or keep the later change (the same with --fix undo-log: its undo log deleted, the retry finds nothing to undo) and settle the difference by hand",
        (Some(_), _) => "a person decides, with the service's owner: either set the row back to what the branch wrote (the coordinator's next retry then restores the before image, and the later change is lost), or keep the later change, delete this branch's undo_log row (the retry then finds nothing to undo) and settle the difference by hand",
    };
    let finding = Finding::new(
        severity,
        code,
        text!["seata global ", g.xid, name],
        match g.stage {
            Stage::Unknown => text![what, locks],
            _ => text![g.status_name, ": ", what, locks, undo_text],
        },
    )
    .evidence("source", c.global_table.clone())
    .evidence("coordinator", c.name.clone())
    .evidence("xid", g.xid.clone())
    .evidence("status", g.status)
    .evidence("status_name", g.status_name)
    .evidence("timeout_ms", g.timeout_ms)
    .evidence("begun_at", g.begun_at.map(|t| t.to_rfc3339()))
    .evidence("past_timeout_seconds", g.past_timeout_seconds)
    .evidence("branches", branches)
    .evidence("row_locks", g.locks.rows)
    .advice(advice)
    .object(Object::new(ObjectKind::SeataGlobal, g.xid.as_str()));
    // The undo logs' verdict per row, when a client with an undo log was read.
    let finding = match logs.is_empty() {
        true => finding,
        false => finding.evidence("undo_rows", undo_rows(logs)),
    };
    if let (Some((client, branch)), true) = (dirty, retried) {
        let branch = branch.to_string();
        return finding.next(Next::indoubt(
            invocation,
            &[
                Word::Lit("resolve"),
                Word::Lit("at"),
                Word::Value(&g.xid),
                Word::Lit("--branch-id"),
                Word::Value(&branch),
                Word::Lit("--fix"),
                Word::Lit("after-image"),
                Word::Lit("--coordinator"),
                Word::Value(&c.name),
                Word::Lit("--client"),
                Word::Value(client),
                Word::Lit("--dry-run"),
            ],
        ));
    }
    let statement = match c.on_postgres() {
        true => Some(store::global_statement(c.tables(), &g.xid)),
        false => mysql_store::global_statement(c.tables(), &g.xid),
    };
    finding.next_if(statement.map(|s| Next::sql(s.placed(&c.place()))))
}

#[cfg(test)]
mod golden;

impl TableView for GlobalsReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&[
            "COORDINATOR",
            "XID",
            "STATUS",
            "PAST TIMEOUT",
            "APPLICATION",
            "BRANCHES",
            "ROW LOCKS",
        ]);
        for c in &self.coordinators {
            let Some(s) = &c.snapshot else { continue };
            for g in &s.overdue {
                let branches: Vec<Shown> = g
                    .branches
                    .iter()
                    .map(|b| shown!("{}", branch_text(b)))
                    .chain(
                        (g.branches_unlisted > 0)
                            .then(|| shown!("and {} more", g.branches_unlisted)),
                    )
                    .collect();
                let locks = match g.locks.rows {
                    0 => shown!("-"),
                    n => shown!("{}: {}", n, locked_rows(&g.locks)),
                };
                table.add_row(vec![
                    Cell::new(&c.name),
                    Cell::new(&g.xid),
                    Cell::new(match g.stage {
                        Stage::Unknown => format!("status {}", g.status),
                        _ => g.status_name.to_string(),
                    }),
                    Cell::new(
                        g.past_timeout_seconds
                            .map(|p| format_duration(seconds(p.max(0.0))))
                            .unwrap_or_else(|| "-".into()),
                    ),
                    Cell::new(shown!(
                        "{}{}",
                        g.application_id.as_deref().unwrap_or("-"),
                        g.transaction_name
                            .as_deref()
                            .map(|n| format!("\n{n}"))
                            .unwrap_or_default()
                    )),
                    Cell::new(Shown::join(branches, "\n")),
                    Cell::new(locks),
                ]);
            }
        }
        // An xid is copied as a whole (into resolve at, a SELECT).
        table.keep_whole(1);
        table.optional(4);
        table.rendered_unless_empty()
    }
}
