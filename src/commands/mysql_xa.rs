//! `indoubt mysql xa`: every prepared XA branch of a MySQL or MariaDB server, graded by
//! age (as far as it is known), with its locks, the sessions behind it and its decoded
//! XID; and the history list that purge has not removed, with the oldest transaction.

mod settings;

use super::pg_common::Addressing;
use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::gid::DecodedGid;
use crate::global_tx::GlobalTransaction;
use crate::metrics::{Family, Measure};
use crate::mysql::session::{self, Mode};
use crate::mysql::xa::{self, decoded, global, AgeBasis, Branch, Snapshot, Waiter, Xid};
use crate::next::Word;
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::settings::mysql::MysqlXaSettings;
use crate::settings::probe::{example, planned, Inspect, Pages};
use crate::settings::targets::Targets;
use crate::shown;
use crate::term::Shown;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Thresholds {
    pub warning_age_seconds: u64,
    pub critical_age_seconds: u64,
    pub warning_history_length: u64,
    pub critical_history_length: u64,
}

/// A branch as reported: what was read, its decoded XID and its global transaction.
#[derive(Debug, Serialize)]
pub struct ReportedBranch {
    #[serde(flatten)]
    pub branch: Branch,
    pub decoded_xid: DecodedGid,
    pub global_transaction: Option<GlobalTransaction>,
    /// Its grade by age (UNKNOWN when its age is): decided by the report, shown by the table.
    #[serde(skip)]
    pub grade: Severity,
}

#[derive(Debug, Serialize)]
pub(crate) struct XaReport {
    thresholds: Thresholds,
    server: xa::Identity,
    server_time: chrono::DateTime<chrono::Utc>,
    uptime_seconds: Option<i64>,
    branches: Vec<ReportedBranch>,
    purge: xa::Purge,
    unattributed_waiters: Vec<Waiter>,
    unreadable: Vec<String>,
    unmatched: Option<xa::Unmatched>,
}

static XA_BRANCHES: Family = Family {
    name: "indoubt_mysql_xa_prepared_branches",
    help: "Prepared XA branches on the server (XA RECOVER).",
    labels: &[],
};
static XA_OLDEST_AGE: Family = Family {
    name: "indoubt_mysql_xa_oldest_branch_age_seconds",
    help: "The oldest prepared XA branch's age, exact or a lower bound (indoubt_mysql_xa_oldest_branch_age_exact says which); 0: none, or no age known.",
    labels: &[],
};
static XA_OLDEST_AGE_EXACT: Family = Family {
    name: "indoubt_mysql_xa_oldest_branch_age_exact",
    help: "1 when the oldest branch's age is exact (its own InnoDB transaction's start), 0 when it is a lower bound or not known.",
    labels: &[],
};
static XA_HISTORY_LENGTH: Family = Family {
    name: "indoubt_mysql_history_list_length",
    help: "InnoDB's history list length: undo records purge has not removed (no series when it could not be read).",
    labels: &[],
};

/// `mysql xa` as a probe.
pub(crate) struct MysqlXa;

impl Inspect for MysqlXa {
    type Args = settings::MysqlXaArgs;
    type Settings = MysqlXaSettings;
    type Gathered = Snapshot;
    type Data = XaReport;
    const NAME: &'static str = "mysql xa";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Mysql);
    const MEASURES: &'static [&'static Family] = &[
        &XA_BRANCHES,
        &XA_OLDEST_AGE,
        &XA_OLDEST_AGE_EXACT,
        &XA_HISTORY_LENGTH,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("The config's only mysql target", "indoubt mysql xa"),
            example!("A server by URL, the password from an option file, TLS required", "indoubt mysql xa --mysql mysql://monitor@db1:3306/ --defaults-file ~/.my.cnf --ssl-mode REQUIRED"),
            example!("A config target, as JSON for a script", "indoubt -o json mysql xa --mysql prod"),
        ],
        see_also: &[],
        codes: &[
            codes::BLOCKED_BY_XA,
            codes::PURGE_LAG,
            codes::XA_BRANCHES,
            codes::XA_BRANCH_AGE,
            codes::XA_BRANCH_AGE_UNKNOWN,
            codes::XA_UNREADABLE,
        ],
    };

    fn measures(data: &XaReport) -> Vec<Measure> {
        let oldest = data
            .branches
            .iter()
            .filter_map(|b| Some((b.branch.age.seconds?, &b.branch.age.basis)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let mut out = vec![
            XA_BRANCHES.at(data.branches.len() as f64),
            XA_OLDEST_AGE.at(oldest.map_or(0.0, |(s, _)| s)),
            XA_OLDEST_AGE_EXACT.at(f64::from(u8::from(matches!(
                oldest,
                Some((_, xa::AgeBasis::Exact))
            )))),
        ];
        if let Some(n) = data.purge.history_list_length {
            out.push(XA_HISTORY_LENGTH.at(n as f64));
        }
        out
    }

    fn settings(
        t: &Targets,
        thresholds: &crate::settings::Thresholds,
        args: Self::Args,
    ) -> Result<MysqlXaSettings> {
        settings::xa(t, thresholds, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .mysql
            .keys()
            .map(|name| planned(name, &["mysql", "xa", &format!("--mysql={name}")]))
            .collect()
    }

    async fn gather(ctx: &Context, settings: &MysqlXaSettings) -> Result<Snapshot> {
        let target = &settings.target;
        ctx.note(format!("connecting to {}", target.params.describe()));
        let mut session = session::connect(&target.params, ctx.timeout, Mode::ReadOnly).await?;
        ctx.note(format!(
            "connected: {} {}{}",
            session.flavor.name(),
            session.version,
            if session.tls { ", over TLS" } else { "" }
        ));
        let snapshot = xa::collect(&mut session).await;
        session.close().await;
        snapshot
    }

    fn report(_ctx: &Context, settings: &MysqlXaSettings, snapshot: Snapshot) -> Report<XaReport> {
        report_of(settings, snapshot)
    }
}

/// Whether the branch's age is known (exactly or as a bound).
fn age_known(b: &Branch) -> bool {
    !matches!(b.age.basis, AgeBasis::Unknown) && b.age.seconds.is_some()
}

/// A branch graded by its age; UNKNOWN when its age is.
fn grade(b: &Branch, warning: Duration, critical: Duration) -> Severity {
    match b.age.seconds.filter(|_| age_known(b)) {
        Some(s) => Severity::grade(seconds(s), warning, critical),
        None => Severity::Unknown,
    }
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(settings: &MysqlXaSettings, snapshot: Snapshot) -> Report<XaReport> {
    let (warning, critical) = settings.age;
    let (warning_history, critical_history) = settings.history;
    let mut branches: Vec<ReportedBranch> = snapshot
        .branches
        .into_iter()
        .map(|branch| {
            let decoded_xid = decoded(&branch.xid);
            let global_transaction = global(&branch.xid, &decoded_xid);
            ReportedBranch {
                grade: grade(&branch, warning, critical),
                branch,
                decoded_xid,
                global_transaction,
            }
        })
        .collect();
    // How many branches of each global transaction this server lists.
    let keys: Vec<Option<String>> = branches
        .iter()
        .map(|b| b.global_transaction.as_ref().map(|g| g.key.clone()))
        .collect();
    for b in branches.iter_mut() {
        if let Some(g) = b.global_transaction.as_mut() {
            g.branches = keys.iter().filter(|k| k.as_deref() == Some(&g.key)).count();
        }
    }
    let data = XaReport {
        thresholds: Thresholds {
            warning_age_seconds: warning.as_secs(),
            critical_age_seconds: critical.as_secs(),
            warning_history_length: warning_history,
            critical_history_length: critical_history,
        },
        server: snapshot.server,
        server_time: snapshot.server_time,
        uptime_seconds: snapshot.uptime_seconds,
        branches,
        purge: snapshot.purge,
        unattributed_waiters: snapshot.unattributed_waiters,
        unreadable: snapshot.unreadable,
        unmatched: snapshot.unmatched,
    };
    let findings = assess(&data, settings, &settings.addressing);
    Report::new("mysql xa", settings.target.report_target(), findings, data)
}

/// `indoubt resolve mysql XID … --dry-run` for a branch of this server.
pub fn resolve_next(addressing: &Addressing, xid: &Xid) -> crate::next::Next {
    let arg = xid.arg();
    addressing.indoubt(
        &[Word::Lit("resolve"), Word::Lit("mysql"), Word::Value(&arg)],
        &[Word::Lit("--dry-run")],
    )
}

/// `X'…',X'…',N` as a subject names it.
pub fn subject(xid: &Xid) -> crate::text::Text {
    crate::text!["XA branch ", xid.sql()]
}

/// `1 row changed`, `3 rows changed`.
pub fn rows_changed(n: i64) -> String {
    match n {
        1 => "1 row changed".to_string(),
        n => format!("{n} rows changed"),
    }
}

/// The rows a branch changed: its own count, or the bounds it is known to lie in.
pub fn branch_rows(b: &Branch) -> Option<String> {
    match (b.rows_modified, b.rows_modified_between) {
        (Some(n), _) => Some(rows_changed(n)),
        (None, Some([lo, hi])) if lo == hi => Some(rows_changed(lo)),
        (None, Some([lo, hi])) => Some(format!("{lo} to {hi} rows changed")),
        (None, None) => None,
    }
}

/// When a branch's transaction started, on lines of its own after its age: the time,
/// the span it lies in, or (its age a lower bound only) the latest it can have started.
fn branch_since(age: &xa::Age) -> Shown {
    let at = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    match (age.earliest_since, age.since) {
        (Some(first), Some(last)) if first < last => {
            shown!("\nstarted between {}\nand {}", at(first), at(last))
        }
        (None, Some(last)) if age.basis == AgeBasis::AtLeast => {
            shown!("\nstarted no later than\n{}", at(last))
        }
        (_, Some(last)) => shown!("\nsince {}", at(last)),
        _ => Shown::default(),
    }
}

/// Who holds a branch, in words (for a message, a table cell, a prompt).
pub fn holder_text(branch: &Branch) -> String {
    match (branch.attached_session, branch.holder_known) {
        (Some(id), _) => format!("still held by session {id}"),
        (None, true) => "no session holds it".to_string(),
        (None, false) => {
            "whether a live session holds it is UNKNOWN (performance_schema does not show it)"
                .to_string()
        }
    }
}

/// What to look at for a branch a live session still holds: that session (its user,
/// host and how long it has been idle), not a resolve, which refuses a branch a session
/// holds.
pub fn holder_advice(branch: &Branch) -> Option<String> {
    let id = branch.attached_session?;
    let who = match &branch.holder {
        Some(h) => h.text(),
        None => format!("session {id}"),
    };
    Some(format!(
        "{who} still holds this branch: look at that session and the application behind it — its transaction manager may still be finishing the branch, and indoubt resolves a branch only once no session holds it"
    ))
}

fn assess(data: &XaReport, settings: &MysqlXaSettings, addressing: &Addressing) -> Vec<Finding> {
    let (warning, critical) = settings.age;
    let mut findings = Vec::new();
    let source = "XA RECOVER, information_schema.innodb_trx, performance_schema";
    if data.branches.is_empty() {
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::XA_BRANCHES,
                "prepared XA branches",
                "none",
            )
            .evidence("source", "XA RECOVER")
            .evidence("server_time", data.server_time.to_rfc3339()),
        );
    }
    for rb in &data.branches {
        let b = &rb.branch;
        let known = age_known(b);
        let severity = rb.grade;
        let code = match known {
            true => codes::XA_BRANCH_AGE,
            false => codes::XA_BRANCH_AGE_UNKNOWN,
        };
        let mut message = match known {
            true => format!("prepared, {} old", b.age.text()),
            false => format!("prepared; its age is UNKNOWN: {}", b.age.source),
        };
        message.push_str("; ");
        message.push_str(&holder_text(b));
        if let Some(rows) = branch_rows(b) {
            message.push_str(&format!("; {rows}, locked until it ends"));
        }
        if !b.blocked_sessions.is_empty() {
            let ids: Vec<String> = b
                .blocked_sessions
                .iter()
                .map(|w| w.session.to_string())
                .collect();
            message.push_str(&format!("; blocks session(s) {}", ids.join(", ")));
        }
        message.push_str(&match severity {
            Severity::Critical => format!("; critical from {}", format_duration(critical)),
            Severity::Warning => format!("; warning from {}", format_duration(warning)),
            _ => String::new(),
        });
        // A branch a live session holds: resolve refuses it (busy), so its next is no
        // resolve; the advice names the session to look at.
        let advice = match holder_advice(b) {
            Some(holder) => crate::text![holder, ". ", rb.decoded_xid.advice()],
            None => rb.decoded_xid.advice(),
        };
        let mut finding = Finding::new(severity, code, subject(&b.xid), message)
            .evidence("source", source)
            .evidence("xid", b.xid.sql())
            .evidence(
                "age_basis",
                serde_json::to_value(&b.age.basis).unwrap_or_default(),
            )
            .evidence("age_seconds", b.age.seconds)
            .evidence("age_at_most_seconds", b.age.at_most_seconds)
            .evidence("age_source", b.age.source.clone())
            .evidence("attached_session", b.attached_session)
            .evidence(
                "holder",
                serde_json::to_value(&b.holder).unwrap_or_default(),
            )
            .evidence("holder_known", b.holder_known)
            .evidence("trx_id", b.trx_id.clone())
            .evidence("rows_locked", b.rows_locked)
            .evidence("rows_modified", b.rows_modified)
            .evidence("rows_modified_between", b.rows_modified_between)
            .evidence(
                "blocked_sessions",
                b.blocked_sessions
                    .iter()
                    .map(|w| w.session)
                    .collect::<Vec<_>>(),
            )
            .evidence("server_time", data.server_time.to_rfc3339())
            .advice(advice)
            .object(Object::new(ObjectKind::PreparedTransaction, b.xid.sql()))
            .related(
                b.blocked_sessions
                    .iter()
                    .map(|w| Object::new(ObjectKind::Session, w.session.to_string())),
            );
        if let Some(id) = b.attached_session {
            finding = finding.related([Object::new(ObjectKind::Session, id.to_string())]);
        } else {
            finding = finding.next(resolve_next(addressing, &b.xid));
        }
        findings.push(finding);
    }
    for what in &data.unreadable {
        findings.push(Finding::new(
            Severity::Unknown,
            codes::XA_UNREADABLE,
            "prepared XA branches",
            what.clone(),
        ));
    }
    // Each of several unmatched branches is only "at least the youngest"; that one of
    // them is as old as the oldest is established, and is what an alert must see.
    if let Some(u) = &data.unmatched {
        let age = seconds(u.oldest_seconds);
        let severity = Severity::grade(age, warning, critical);
        let mut message = match u.oldest_recovered {
            false => format!(
                "{} prepared branches no session holds, against as many InnoDB transactions no session holds: the oldest of those started {} ago, so one of these branches is at least that old (which one is not recorded anywhere)",
                u.xids.len(),
                format_duration(age)
            ),
            // InnoDB dates a transaction it recovered from the restart: it is older.
            true => format!(
                "{} prepared branches no session holds, against as many InnoDB transactions no session holds: the oldest of those started no later than the server's restart {} ago (InnoDB dates the transactions it recovers from the restart), so one of these branches is at least that old (which one is not recorded anywhere)",
                u.xids.len(),
                format_duration(age)
            ),
        };
        message.push_str(&match severity {
            Severity::Critical => format!("; critical from {}", format_duration(critical)),
            Severity::Warning => format!("; warning from {}", format_duration(warning)),
            _ => String::new(),
        });
        findings.push(
            Finding::new(
                severity,
                codes::XA_BRANCH_AGE,
                format!("{} prepared XA branches no session holds", u.xids.len()),
                message,
            )
            .evidence("source", "XA RECOVER, information_schema.innodb_trx")
            .evidence("xids", u.xids.iter().map(Xid::sql).collect::<Vec<_>>())
            .evidence("oldest_seconds", u.oldest_seconds)
            .evidence("oldest_since", u.oldest_since.map(|t| t.to_rfc3339()))
            .evidence("oldest_recovered", u.oldest_recovered),
        );
    }
    if !data.unattributed_waiters.is_empty() {
        let ids: Vec<String> = data
            .unattributed_waiters
            .iter()
            .map(|w| w.session.to_string())
            .collect();
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::BLOCKED_BY_XA,
                "sessions blocked by a prepared XA branch",
                format!(
                    "session(s) {} wait for row locks of an InnoDB transaction no session holds, which could not be matched to one of the {} branches XA RECOVER lists",
                    ids.join(", "),
                    data.branches.len()
                ),
            )
            .evidence("source", "information_schema.innodb_trx, lock waits")
            .evidence("sessions", data.unattributed_waiters.iter().map(|w| w.session).collect::<Vec<_>>()),
        );
    }
    if let Some(length) = data.purge.history_list_length {
        let (w, c) = settings.history;
        let severity = Severity::grade(length.max(0) as u64, w, c);
        let mut message = format!("history list length {length}");
        match &data.purge.oldest {
            Some(o) => message.push_str(&format!(
                "; the oldest open transaction is InnoDB's {} ({}, {}{}){}",
                o.trx_id,
                match (o.age_seconds, o.recovered) {
                    (Some(s), false) => format!(
                        "started {} ago by its trx_started",
                        format_duration(seconds(s))
                    ),
                    // Dated from the restart by InnoDB: it started before.
                    (Some(s), true) => format!(
                        "started no later than the server's restart {} ago",
                        format_duration(seconds(s))
                    ),
                    (None, _) => "age unknown".into(),
                },
                match o.session {
                    Some(s) => format!("session {s}"),
                    None => "no session holds it".into(),
                },
                match &o.xid {
                    Some(x) => format!(", XA branch {}", x.sql()),
                    None => String::new(),
                },
                ": purge cannot remove undo it may still need"
            )),
            None if data.unreadable.is_empty() => message.push_str("; no transaction is open"),
            None => {}
        }
        message.push_str(&match severity {
            Severity::Critical => format!("; critical from {c}"),
            Severity::Warning => format!("; warning from {w}"),
            _ => String::new(),
        });
        let mut finding = Finding::new(severity, codes::PURGE_LAG, "InnoDB purge", message)
            .evidence("source", data.purge.source)
            .evidence("history_list_length", length)
            .evidence(
                "oldest_transaction",
                serde_json::to_value(&data.purge.oldest).unwrap_or_default(),
            );
        // The resolve command is the branch's own finding's next: a destructive next
        // stands only on the finding it fixes.
        if let (Some(xid), true) = (
            data.purge.oldest.as_ref().and_then(|o| o.xid.as_ref()),
            severity > Severity::Ok,
        ) {
            finding = finding.advice(format!(
                "the oldest transaction is the XA branch {}: its own finding names how to resolve it, after which purge goes on",
                xid.sql()
            ));
        }
        findings.push(finding);
    }
    findings
}

impl TableView for XaReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.branches.is_empty() {
            return Vec::new();
        }
        let mut table = style.table(&[
            "STATUS",
            "XID",
            "AGE",
            "SESSION",
            "LOCKS",
            "BLOCKS",
            "GLOBAL TX",
            "DECODED XID",
        ]);
        for rb in &self.branches {
            let b = &rb.branch;
            let since = branch_since(&b.age);
            table.add_row(vec![
                style.severity_cell(rb.grade),
                Cell::new(Shown::text(&b.xid.sql())),
                Cell::new(shown!("{}{}", b.age.text(), since)),
                Cell::new(match (b.attached_session, b.holder_known) {
                    (Some(id), _) => shown!("{}", id),
                    (None, true) => Shown::lit("none"),
                    (None, false) => Shown::lit("?"),
                }),
                // Rows it changed: InnoDB counts no lock of a transaction it recovered
                // at a restart until someone touches the row, yet each stays locked.
                Cell::new(match branch_rows(b) {
                    Some(rows) => Shown::text(&rows),
                    None => Shown::lit("?"),
                }),
                Cell::new(blocked_cell(&b.blocked_sessions)),
                Cell::new(match &rb.global_transaction {
                    Some(g) => shown!("{}\n{}", g.key, g.manager_and_node()),
                    None => Shown::lit("-"),
                }),
                Cell::new(rb.decoded_xid.summary()),
            ]);
        }
        table.keep_whole(1);
        table.optional(6);
        table.optional(7);
        vec![table.render()]
    }
}

fn blocked_cell(waiters: &[Waiter]) -> Shown {
    if waiters.is_empty() {
        return Shown::lit("-");
    }
    Shown::join(
        waiters.iter().map(|w| {
            let query = match &w.query {
                Some(q) => Shown::text(q).truncated(60, |_| "…".to_string()),
                None => Shown::lit("(no statement)"),
            };
            shown!(
                "session {} waits{} on {}: {}",
                w.session,
                w.waiting_seconds
                    .map(|s| shown!(" {}", format_duration(seconds(s))))
                    .unwrap_or_default(),
                w.table
                    .as_deref()
                    .map(Shown::text)
                    .unwrap_or_else(|| Shown::lit("a row")),
                query
            )
        }),
        "\n",
    )
}

#[cfg(test)]
pub(crate) mod golden;
