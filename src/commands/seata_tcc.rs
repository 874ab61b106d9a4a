//! `indoubt seata tcc`: each configured coordinator's TCC clients — the Try records no
//! Confirm or Cancel has ended (reservations held, judged by what the coordinator's store
//! says of their global transaction), and ended fence records the clean task left.

mod codes;
mod settings;

use super::seata_common::{self, Client, ClientRead, Coordinator, SeataSettings};
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::{Invocation, Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::seata::fence::{self, Fence, FenceCount};
use crate::seata::status::{decided, Decided, Stage};
use crate::seata::store::Known;
use crate::settings::probe::{example, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::term::Shown;
use crate::text;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The oldest open Try records one client's report lists.
const LISTED: i64 = 100;

/// `seata tcc` as a probe.
pub(crate) struct SeataTcc;

static TCC_OPEN_TRIES: Family = Family {
    name: "indoubt_seata_tcc_open_tries",
    help: "Try records of one TCC client's fence that no Confirm or Cancel has ended (reservations held, young ones included).",
    labels: &["client"],
};
static TCC_STUCK: Family = Family {
    name: "indoubt_seata_tcc_stuck_reservations",
    help: "Open Try records of one client past the reservation age, or whose global transaction will not end them (as listed, at most 100).",
    labels: &["client"],
};
static TCC_OLDEST: Family = Family {
    name: "indoubt_seata_tcc_oldest_stuck_reservation_age_seconds",
    help: "How long the oldest stuck reservation of one client has been held; 0: none.",
    labels: &["client"],
};

impl Inspect for SeataTcc {
    type Args = settings::SeataTccArgs;
    type Settings = SeataSettings;
    type Gathered = Vec<Vec<ClientRead<Fenced>>>;
    type Data = TccReport;
    const NAME: &'static str = "seata tcc";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Seata);
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every TCC client of every coordinator of the config", "indoubt seata tcc"),
            example!("One coordinator's, as JSON", "indoubt -o json seata tcc orders-tc"),
        ],
        see_also: &["seata globals", "seata sagas"],
        codes: &[
            codes::SEATA_TCC,
            codes::SEATA_TCC_RESERVATION,
            codes::SEATA_TCC_UNCLEANED,
            seata_common::codes::SEATA_CLIENT_UNREADABLE,
        ],
    };

    const MEASURES: &'static [&'static Family] = &[&TCC_OPEN_TRIES, &TCC_STUCK, &TCC_OLDEST];

    fn measures(data: &TccReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for c in data.coordinators.iter().flat_map(|c| &c.clients) {
            if c.by_status.is_none() {
                continue;
            }
            let oldest = c
                .reservations
                .iter()
                .filter_map(|r| r.held_seconds)
                .fold(0.0_f64, f64::max);
            let client = crate::text::escape_bytes(c.name.as_bytes());
            out.push(
                TCC_OPEN_TRIES
                    .at(c.tried_total as f64)
                    .label("client", client.clone()),
            );
            out.push(
                TCC_STUCK
                    .at(c.reservations.len() as f64)
                    .label("client", client.clone()),
            );
            out.push(TCC_OLDEST.at(oldest).label("client", client));
        }
        out
    }

    fn settings(t: &Targets, _thresholds: &Thresholds, args: Self::Args) -> Result<SeataSettings> {
        seata_common::settings(t, args.name.as_deref(), 0)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        seata_common::client_plan(config, "tcc", |k| k.tcc_fence_log.is_some())
    }

    fn reads(config: &Config) -> Vec<Uses> {
        seata_common::client_reads(config, |k| {
            k.tcc_fence_log
                .iter()
                .map(|f| (f.clone(), &fence::COLUMNS[..]))
                .collect()
        })
    }

    async fn gather(
        ctx: &Context,
        settings: &SeataSettings,
    ) -> Result<Vec<Vec<ClientRead<Fenced>>>> {
        let mut reads = Vec::new();
        for c in &settings.coordinators {
            let mut clients = Vec::new();
            for client in fenced_clients(c) {
                clients.push(read(ctx, c, client).await);
            }
            reads.push(clients);
        }
        Ok(reads)
    }

    fn report(
        ctx: &Context,
        settings: &SeataSettings,
        reads: Vec<Vec<ClientRead<Fenced>>>,
    ) -> Report<TccReport> {
        report_of(&ctx.invocation, settings, reads)
    }
}

/// The clients with a fence table, and its name.
fn fenced_clients(c: &Coordinator) -> impl Iterator<Item = (&Client, &str)> {
    c.clients
        .iter()
        .filter_map(|k| k.tcc_fence_log.as_deref().map(|t| (k, t)))
}

/// One client's fence, and what the store says of its open Trys' globals.
pub(crate) struct Fenced {
    fence: Fence,
    /// By xid; the error when the store could not be read.
    globals: Result<BTreeMap<String, Known>, String>,
    /// Of the records whose global is not in the store, those still tried when read again.
    still_tried: BTreeSet<(String, i64)>,
}

async fn read(
    ctx: &Context,
    c: &Coordinator,
    (client, table): (&Client, &str),
) -> ClientRead<Fenced> {
    let read = async {
        let mut session = match seata_common::connect_to_read(ctx, client, table).await? {
            Ok(session) => session,
            Err(problems) => return Ok(ClientRead::Problems(problems)),
        };
        let problems = fence::inspect(&mut session, table).await?;
        if !problems.is_empty() {
            return Ok(ClientRead::Problems(problems));
        }
        let fence = fence::read(&mut session, table, c.fence_retention.value, LISTED).await?;
        let xids: Vec<String> = fence.tried.iter().map(|r| r.xid.clone()).collect();
        let globals = seata_common::known_globals(ctx, c, &xids)
            .await
            .map_err(|e| format!("{e:#}"));
        let gone: Vec<String> = match &globals {
            Ok(known) => xids
                .iter()
                .filter(|x| !known.contains_key(*x))
                .cloned()
                .collect(),
            Err(_) => Vec::new(),
        };
        let still_tried = fence::still_tried(&mut session, table, &gone).await?;
        session.close().await;
        Ok::<_, anyhow::Error>(ClientRead::Read(Fenced {
            fence,
            globals,
            still_tried,
        }))
    };
    read.await.unwrap_or_else(ClientRead::Failed)
}

#[derive(Debug, Serialize)]
pub(crate) struct TccReport {
    coordinators: Vec<CoordinatorEntry>,
}

#[derive(Debug, Serialize)]
struct CoordinatorEntry {
    name: String,
    reservation_age_seconds: u64,
    critical_age_seconds: u64,
    fence_retention_seconds: u64,
    clients: Vec<ClientEntry>,
}

#[derive(Debug, Serialize)]
struct ClientEntry {
    name: String,
    fence_table: String,
    /// Records by status; null when the fence could not be read (the findings say why).
    by_status: Option<Vec<FenceCount>>,
    /// The open Try records past the reservation age or whose global will not end them.
    reservations: Vec<Reservation>,
    /// Open Try records in all (listed or not).
    tried_total: i64,
    /// The store could not be read: why (each reservation's global is then unknown).
    store_error: Option<String>,
}

#[derive(Debug, Serialize)]
struct Reservation {
    xid: String,
    branch_id: i64,
    action_name: Option<String>,
    /// Seconds it has been held: since its global began when the store has it, else
    /// since the record's gmt_create by the database's clock.
    held_seconds: Option<f64>,
    held_since: &'static str,
    /// Its global in the store; null when gone (or not known: see store_error).
    global: Option<Known>,
    severity: Severity,
}

fn report_of(
    invocation: &Invocation,
    settings: &SeataSettings,
    reads: Vec<Vec<ClientRead<Fenced>>>,
) -> Report<TccReport> {
    let mut findings = Vec::new();
    let mut coordinators = Vec::new();
    for (c, clients) in settings.coordinators.iter().zip(reads) {
        let mut entry = CoordinatorEntry {
            name: c.name.clone(),
            reservation_age_seconds: c.reservation_age.value.as_secs(),
            critical_age_seconds: c.critical_age.value.as_secs(),
            fence_retention_seconds: c.fence_retention.value.as_secs(),
            clients: Vec::new(),
        };
        if fenced_clients(c).next().is_none() {
            findings.push(Finding::new(
                Severity::Unknown,
                seata_common::codes::SEATA_CLIENT_UNREADABLE,
                c.subject(),
                "no client of this coordinator names a tcc_fence_log in the config: no TCC fence was read",
            ).advice("name each TCC client's business database and fence table under seata: NAME: clients: in the config"));
        }
        for ((client, table), read) in fenced_clients(c).zip(clients) {
            let mut client_entry = ClientEntry {
                name: client.name.clone(),
                fence_table: table.to_string(),
                by_status: None,
                reservations: Vec::new(),
                tried_total: 0,
                store_error: None,
            };
            let mut client_findings = Vec::new();
            match read {
                ClientRead::Read(fenced) => {
                    client_findings.extend(assess(
                        invocation,
                        (c, client, table),
                        &fenced,
                        &mut client_entry,
                    ));
                    client_entry.by_status = Some(fenced.fence.by_status);
                }
                ClientRead::Problems(problems) => {
                    client_findings.extend(problems.iter().map(|p| {
                        seata_common::client_problem(
                            seata_common::codes::SEATA_CLIENT_UNREADABLE,
                            c,
                            client,
                            "the TCC fence",
                            p,
                        )
                    }))
                }
                ClientRead::Failed(e) => client_findings.push(seata_common::client_failed(
                    seata_common::codes::SEATA_CLIENT_UNREADABLE,
                    c,
                    client,
                    &e,
                )),
            }
            findings.extend(client_findings);
            entry.clients.push(client_entry);
        }
        coordinators.push(entry);
    }
    let target = seata_common::report_target(settings);
    Report::new("seata tcc", target, findings, TccReport { coordinators })
}

/// The second phase a coordinator decided for a TCC Try's global.
#[derive(Clone, Copy)]
enum Phase {
    Confirm,
    Cancel,
}

impl Phase {
    /// As `resolve tcc --as` names what was done.
    fn word(self) -> &'static str {
        match self {
            Phase::Confirm => "confirmed",
            Phase::Cancel => "cancelled",
        }
    }

    fn work(self) -> &'static str {
        match self {
            Phase::Confirm => "Confirm",
            Phase::Cancel => "Cancel",
        }
    }

    fn decision(self) -> &'static str {
        match self {
            Phase::Confirm => "to commit",
            Phase::Cancel => "to roll back",
        }
    }
}

/// One client's fence, judged.
fn assess(
    invocation: &Invocation,
    (c, client, table): (&Coordinator, &Client, &str),
    fenced: &Fenced,
    entry: &mut ClientEntry,
) -> Vec<Finding> {
    let fence = &fenced.fence;
    let subject = seata_common::client_subject(c, client);
    let mut findings = Vec::new();
    entry.tried_total = fence.tried_total;
    entry.store_error = fenced.globals.as_ref().err().cloned();
    for r in &fence.tried {
        let global = fenced
            .globals
            .as_ref()
            .ok()
            .and_then(|g| g.get(&r.xid))
            .cloned();
        let gone = fenced.globals.is_ok()
            && global.is_none()
            && fenced.still_tried.contains(&(r.xid.clone(), r.branch_id));
        let (held, since) = match (&global, r.created_local) {
            (
                Some(Known {
                    begun_at: Some(b), ..
                }),
                _,
            ) => (
                Some((fence.now - *b).num_milliseconds() as f64 / 1000.0),
                "global_begin",
            ),
            (_, Some(created)) => (
                Some((fence.local_now - created).num_milliseconds() as f64 / 1000.0),
                "database_clock",
            ),
            _ => (None, "unknown"),
        };
        let held_d = held.map(|h| seconds(h.max(0.0)));
        let by_age = match held_d {
            Some(h) if h >= c.critical_age.value => Some(Severity::Critical),
            Some(h) if h >= c.reservation_age.value => Some(Severity::Warning),
            _ => None,
        };
        let (severity, verdict) = match &global {
            Some(g) if g.stage == Stage::GaveUp => (
                Some(Severity::Critical),
                format!("its global is {}: the coordinator has given up, and nothing will call Confirm or Cancel", g.status_name),
            ),
            Some(g) if g.stage == Stage::Ended => (
                Some(Severity::Critical),
                format!("its global has ended ({}) without this Try being confirmed or cancelled: nothing will release it", g.status_name),
            ),
            Some(g) => (
                by_age,
                format!(
                    "its global is {}: the coordinator {}",
                    g.status_name,
                    match decided(g.status) {
                        Decided::Commit => "retries its Confirm until the service completes it",
                        Decided::Rollback => "retries its Cancel until the service completes it",
                        _ => "has not yet decided between Confirm and Cancel",
                    }
                ),
            ),
            None if gone => (
                Some(Severity::Critical),
                format!("its global transaction is no longer in coordinator {}'s store: nothing will call Confirm or Cancel", c.name),
            ),
            // Confirmed or cancelled while the store was read: not held.
            None if fenced.globals.is_ok() => (None, String::new()),
            None => (
                by_age,
                "what the coordinator says of its global is not known (the store could not be read)".to_string(),
            ),
        };
        let Some(severity) = severity else { continue };
        let held_text = held_d.map_or_else(
            || "for an unknown time".to_string(),
            |h| format!("for {}", format_duration(h)),
        );
        let action = r.action_name.as_deref().unwrap_or("?");
        // The phase the coordinator decided for its global, which `resolve tcc` records
        // once its work is done by hand; none while it is undecided or gone.
        let phase = global.as_ref().and_then(|g| match decided(g.status) {
            Decided::Rollback => Some(Phase::Cancel),
            Decided::Commit => Some(Phase::Confirm),
            _ => None,
        });
        findings.push(
            Finding::new(
                severity,
                codes::SEATA_TCC_RESERVATION,
                text!["seata tcc ", action, " ", r.xid, " branch ", r.branch_id],
                text![
                    "a Try of ",
                    action,
                    " has held its reservation ",
                    held_text,
                    " with no Confirm or Cancel; ",
                    verdict
                ],
            )
            .evidence("source", table.to_string())
            .evidence("client", client.name.clone())
            .evidence("xid", r.xid.clone())
            .evidence("branch_id", r.branch_id)
            .evidence("action_name", r.action_name.clone())
            .evidence("held_seconds", held)
            .evidence("held_since", since)
            .evidence("global_status", global.as_ref().map(|g| g.status))
            .advice(match (&global, phase) {
                (Some(g), Some(phase)) if g.stage != Stage::GaveUp && g.stage != Stage::Ended => text![
                    "read why its ",
                    phase.work(),
                    " fails in the service's log: the coordinator's next retry runs it once it can succeed; if it never can, do its work by hand through the service, then record that with the command below (a dry run first), which marks the fence record ",
                    phase.word(),
                    " only while it is still open"
                ],
                (_, Some(phase)) => text![
                    "the coordinator decided ",
                    phase.decision(),
                    " and will not run the ",
                    phase.work(),
                    ": do its work by hand through the service with its owner, then record that with the command below (a dry run first), which marks the fence record ",
                    phase.word(),
                    " only while it is still open"
                ],
                (_, None) => text![
                    "decide with the service's owner whether the reservation stands or is released, do it through the service, then record it: indoubt resolve tcc XID --branch-id N --as confirmed (or cancelled) marks the fence record only while it is still open"
                ],
            })
            .object(Object::new(ObjectKind::SeataGlobal, r.xid.as_str()))
            .next_if(match phase {
                Some(phase) => {
                    let branch = r.branch_id.to_string();
                    Some(Next::indoubt(
                        invocation,
                        &[
                            Word::Lit("resolve"),
                            Word::Lit("tcc"),
                            Word::Value(&r.xid),
                            Word::Lit("--branch-id"),
                            Word::Value(&branch),
                            Word::Lit("--as"),
                            Word::Lit(phase.word()),
                            Word::Lit("--coordinator"),
                            Word::Value(&c.name),
                            Word::Lit("--client"),
                            Word::Value(&client.name),
                            Word::Lit("--dry-run"),
                        ],
                    ))
                }
                None => fence::tried_statement(client.dialect(), table, &r.xid, r.branch_id)
                    .map(|s| Next::sql(s.placed(&client.place()))),
            }),
        );
        entry.reservations.push(Reservation {
            xid: r.xid.clone(),
            branch_id: r.branch_id,
            action_name: r.action_name.clone(),
            held_seconds: held,
            held_since: since,
            global,
            severity,
        });
    }
    let unlisted = fence.tried_total - fence.tried.len() as i64;
    if unlisted > 0 && !findings.is_empty() {
        findings.push(Finding::new(
            Severity::Warning,
            codes::SEATA_TCC_RESERVATION,
            subject.clone(),
            format!("{unlisted} more open Try record(s) than the {LISTED} oldest read"),
        ));
    }
    let ended = |s: &FenceCount| (2..=4).contains(&s.status);
    let past: i64 = fence
        .by_status
        .iter()
        .filter(|s| ended(s))
        .map(|s| s.past_retention)
        .sum();
    let counts: Vec<String> = fence
        .by_status
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s.records,
                s.name
                    .map_or_else(|| format!("status {}", s.status), str::to_string)
            )
        })
        .collect();
    let counts = match counts.is_empty() {
        true => "no records".to_string(),
        false => counts.join(", "),
    };
    if past > 0 {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::SEATA_TCC_UNCLEANED,
                subject.clone(),
                format!(
                    "{past} ended fence record(s) older than {}: the fence's clean task is not deleting them (the fence holds {counts} in all)",
                    format_duration(c.fence_retention.value)
                ),
            )
            .evidence("source", table.to_string())
            .evidence("past_retention", past)
            .advice("check the client's fence clean period and that its application runs the clean task"),
        );
    }
    if findings.is_empty() {
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::SEATA_TCC,
                subject,
                format!(
                    "{counts}; no Try held past {} or after its global ended",
                    format_duration(c.reservation_age.value)
                ),
            )
            .evidence("source", table.to_string()),
        );
    }
    findings
}

#[cfg(test)]
mod golden;

impl TableView for TccReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&["COORDINATOR", "CLIENT", "ACTION", "XID", "HELD", "GLOBAL"]);
        for c in &self.coordinators {
            for client in &c.clients {
                for r in &client.reservations {
                    table.add_row(vec![
                        Cell::new(&c.name),
                        Cell::new(&client.name),
                        Cell::new(r.action_name.as_deref().unwrap_or("?")),
                        Cell::new(crate::shown!("{}\nbranch {}", r.xid, r.branch_id)),
                        Cell::new(
                            r.held_seconds
                                .map(|h| format_duration(seconds(h.max(0.0))))
                                .unwrap_or_else(|| "-".into()),
                        ),
                        Cell::new(match &r.global {
                            Some(g) => g.status_name.to_string(),
                            None if client.store_error.is_some() => "not known".into(),
                            None => "gone".into(),
                        }),
                    ]);
                }
            }
        }
        // An xid is copied as a whole (into resolve tcc).
        table.keep_whole(3);
        table.rendered_unless_empty()
    }
}
