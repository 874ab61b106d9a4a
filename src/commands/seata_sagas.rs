//! `indoubt seata sagas`: each configured coordinator's saga stores — the state machine
//! instances that did not end (unknown, stalled, compensation failed or unknown), with
//! their business key, the states that did not succeed and what the coordinator's store
//! says of their global transaction.

mod codes;
mod settings;

use super::seata_common::{self, Client, ClientRead, Coordinator, SeataSettings};
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::Next;
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::seata::saga::{self, Instance, Unended};
use crate::seata::status::Stage;
use crate::seata::store::Known;
use crate::settings::probe::{example, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::term::Shown;
use crate::text;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// The oldest unended instances one client's report lists.
const LISTED: i64 = 100;

/// `seata sagas` as a probe.
pub(crate) struct SeataSagas;

static SAGA_UNENDED: Family = Family {
    name: "indoubt_seata_saga_unended_instances",
    help: "State machine instances of one client's saga store that have not ended (running ones included).",
    labels: &["client"],
};
static SAGA_STUCK: Family = Family {
    name: "indoubt_seata_saga_stuck_instances",
    help: "Unended instances of one client found stuck: unknown, stalled, compensation failed or unknown (as listed, at most 100).",
    labels: &["client"],
};
static SAGA_OLDEST: Family = Family {
    name: "indoubt_seata_saga_oldest_stuck_unchanged_seconds",
    help: "How long the stuck instance unchanged the longest has not changed; 0: none.",
    labels: &["client"],
};

impl Inspect for SeataSagas {
    type Args = settings::SeataSagasArgs;
    type Settings = SeataSettings;
    type Gathered = Vec<Vec<ClientRead<Sagas>>>;
    type Data = SagasReport;
    const NAME: &'static str = "seata sagas";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Seata);
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every saga store of every coordinator of the config", "indoubt seata sagas"),
            example!("One coordinator's, up to 10 states of each instance, as JSON", "indoubt -o json seata sagas orders-tc --show 10"),
        ],
        see_also: &["seata globals", "seata tcc"],
        codes: &[
            codes::SEATA_SAGAS,
            codes::SEATA_SAGA_STUCK,
            seata_common::codes::SEATA_CLIENT_UNREADABLE,
        ],
    };

    const MEASURES: &'static [&'static Family] = &[&SAGA_UNENDED, &SAGA_STUCK, &SAGA_OLDEST];

    fn measures(data: &SagasReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for c in data.coordinators.iter().flat_map(|c| &c.clients) {
            let Some(unended) = c.unended_total else {
                continue;
            };
            let oldest = c
                .stuck
                .iter()
                .filter_map(|s| s.unchanged_seconds)
                .fold(0.0_f64, f64::max);
            let client = crate::text::escape_bytes(c.name.as_bytes());
            out.push(
                SAGA_UNENDED
                    .at(unended as f64)
                    .label("client", client.clone()),
            );
            out.push(
                SAGA_STUCK
                    .at(c.stuck.len() as f64)
                    .label("client", client.clone()),
            );
            out.push(SAGA_OLDEST.at(oldest).label("client", client));
        }
        out
    }

    fn settings(t: &Targets, _thresholds: &Thresholds, args: Self::Args) -> Result<SeataSettings> {
        seata_common::settings(t, args.name.as_deref(), args.show)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        seata_common::client_plan(config, "sagas", |k| k.saga_table_prefix.is_some())
    }

    fn reads(config: &Config) -> Vec<Uses> {
        seata_common::client_reads(config, |k| {
            let Some(prefix) = &k.saga_table_prefix else {
                return Vec::new();
            };
            let [instances, states, definitions] = saga::tables(prefix);
            vec![
                (instances, &saga::INSTANCE_COLUMNS[..]),
                (states, &saga::STATE_COLUMNS[..]),
                (definitions, &saga::DEFINITION_COLUMNS[..]),
            ]
        })
    }

    async fn gather(
        ctx: &Context,
        settings: &SeataSettings,
    ) -> Result<Vec<Vec<ClientRead<Sagas>>>> {
        let mut reads = Vec::new();
        for c in &settings.coordinators {
            let mut clients = Vec::new();
            for client in saga_clients(c) {
                clients.push(read(ctx, c, client).await);
            }
            reads.push(clients);
        }
        Ok(reads)
    }

    fn report(
        _ctx: &Context,
        settings: &SeataSettings,
        reads: Vec<Vec<ClientRead<Sagas>>>,
    ) -> Report<SagasReport> {
        report_of(settings, reads)
    }
}

/// The clients with a saga store, and its table prefix.
fn saga_clients(c: &Coordinator) -> impl Iterator<Item = (&Client, &str)> {
    c.clients
        .iter()
        .filter_map(|k| k.saga_table_prefix.as_deref().map(|p| (k, p)))
}

/// One client's unended instances, and what the store says of their globals.
pub(crate) struct Sagas {
    unended: Unended,
    /// By xid (an instance's id); the error when the store could not be read.
    globals: Result<BTreeMap<String, Known>, String>,
}

async fn read(
    ctx: &Context,
    c: &Coordinator,
    (client, prefix): (&Client, &str),
) -> ClientRead<Sagas> {
    let read = async {
        let instances = &saga::tables(prefix)[0];
        let mut session = match seata_common::connect_to_read(ctx, client, instances).await? {
            Ok(session) => session,
            Err(problems) => return Ok(ClientRead::Problems(problems)),
        };
        let problems = saga::inspect(&mut session, prefix).await?;
        if !problems.is_empty() {
            return Ok(ClientRead::Problems(problems));
        }
        let unended = saga::read(&mut session, prefix, LISTED).await?;
        session.close().await;
        let xids: Vec<String> = unended.instances.iter().map(|i| i.id.clone()).collect();
        let globals = seata_common::known_globals(ctx, c, &xids)
            .await
            .map_err(|e| format!("{e:#}"));
        Ok::<_, anyhow::Error>(ClientRead::Read(Sagas { unended, globals }))
    };
    read.await.unwrap_or_else(ClientRead::Failed)
}

#[derive(Debug, Serialize)]
pub(crate) struct SagasReport {
    coordinators: Vec<CoordinatorEntry>,
}

#[derive(Debug, Serialize)]
struct CoordinatorEntry {
    name: String,
    saga_stall_seconds: u64,
    critical_age_seconds: u64,
    clients: Vec<ClientEntry>,
}

#[derive(Debug, Serialize)]
struct ClientEntry {
    name: String,
    table_prefix: String,
    /// The instances found stuck; each with its states that did not succeed.
    stuck: Vec<Stuck>,
    /// Unended instances in all (listed or not; running ones included).
    unended_total: Option<i64>,
    /// The store could not be read: why.
    store_error: Option<String>,
}

#[derive(Debug, Serialize)]
struct Stuck {
    #[serde(flatten)]
    instance: Instance,
    /// Seconds since its last change, by the database's clock.
    unchanged_seconds: Option<f64>,
    global: Option<Known>,
    severity: Severity,
}

fn report_of(settings: &SeataSettings, reads: Vec<Vec<ClientRead<Sagas>>>) -> Report<SagasReport> {
    let mut findings = Vec::new();
    let mut coordinators = Vec::new();
    for (c, clients) in settings.coordinators.iter().zip(reads) {
        let mut entry = CoordinatorEntry {
            name: c.name.clone(),
            saga_stall_seconds: c.saga_stall.value.as_secs(),
            critical_age_seconds: c.critical_age.value.as_secs(),
            clients: Vec::new(),
        };
        if saga_clients(c).next().is_none() {
            findings.push(Finding::new(
                Severity::Unknown,
                seata_common::codes::SEATA_CLIENT_UNREADABLE,
                c.subject(),
                "no client of this coordinator names a saga_table_prefix in the config: no saga store was read",
            ).advice("name each saga client's business database and table prefix under seata: NAME: clients: in the config"));
        }
        for ((client, prefix), read) in saga_clients(c).zip(clients) {
            let mut client_entry = ClientEntry {
                name: client.name.clone(),
                table_prefix: prefix.to_string(),
                stuck: Vec::new(),
                unended_total: None,
                store_error: None,
            };
            let client_findings = match read {
                ClientRead::Read(sagas) => {
                    assess(c, client, prefix, settings.show, sagas, &mut client_entry)
                }
                ClientRead::Problems(problems) => problems
                    .iter()
                    .map(|p| {
                        seata_common::client_problem(
                            seata_common::codes::SEATA_CLIENT_UNREADABLE,
                            c,
                            client,
                            "the saga store",
                            p,
                        )
                    })
                    .collect(),
                ClientRead::Failed(e) => vec![seata_common::client_failed(
                    seata_common::codes::SEATA_CLIENT_UNREADABLE,
                    c,
                    client,
                    &e,
                )],
            };
            findings.extend(client_findings);
            entry.clients.push(client_entry);
        }
        coordinators.push(entry);
    }
    let target = seata_common::report_target(settings);
    Report::new(
        "seata sagas",
        target,
        findings,
        SagasReport { coordinators },
    )
}

/// What an instance's statuses say it is stuck in; None when it may be running fine.
fn what_stuck(i: &Instance) -> Option<&'static str> {
    match (i.compensation_status.as_deref(), i.status.as_deref()) {
        (Some("FA"), _) => Some("its compensation failed: what its succeeded states did is not undone"),
        (Some("UN"), _) => Some("its compensation's outcome is unknown: what its succeeded states did may not be undone"),
        (Some("RU"), _) => None,
        (_, Some("UN")) => Some("a state's outcome is unknown: the engine can neither go on nor compensate"),
        _ => None,
    }
}

/// One client's saga store, judged.
fn assess(
    c: &Coordinator,
    client: &Client,
    prefix: &str,
    show: usize,
    sagas: Sagas,
    entry: &mut ClientEntry,
) -> Vec<Finding> {
    let subject = seata_common::client_subject(c, client);
    let mut findings = Vec::new();
    entry.unended_total = Some(sagas.unended.total);
    entry.store_error = sagas.globals.as_ref().err().cloned();
    let local_now = sagas.unended.local_now;
    for i in sagas.unended.instances {
        let global = sagas
            .globals
            .as_ref()
            .ok()
            .and_then(|g| g.get(&i.id))
            .cloned();
        let gone = sagas.globals.is_ok() && global.is_none();
        let unchanged = i
            .updated_local
            .map(|u| (local_now - u).num_milliseconds() as f64 / 1000.0);
        let unchanged_d = unchanged.map(|s| seconds(s.max(0.0)));
        let stalled = unchanged_d.is_some_and(|u| u >= c.saga_stall.value);
        let failed = what_stuck(&i).is_some();
        let what = what_stuck(&i).map(str::to_string).or_else(|| {
            stalled.then(|| match i.compensation_status.as_deref() {
                Some("RU") => "its compensation has made no progress".to_string(),
                _ => "it has run without a change".to_string(),
            })
        });
        let Some(what) = what else { continue };
        let owner = match (&global, gone) {
            (Some(g), _) if matches!(g.stage, Stage::GaveUp | Stage::Ended) => {
                format!("its global is {}: nothing will retry it", g.status_name)
            }
            (Some(g), _) if g.stage == Stage::Open => format!(
                "its global is {}: not yet asked to end (the coordinator rolls it back at its timeout)",
                g.status_name
            ),
            (Some(g), _) => format!("its global is {}: the coordinator retries it", g.status_name),
            (None, true) => format!("its global transaction is no longer in coordinator {}'s store: nothing will retry it", c.name),
            (None, false) => "what the coordinator says of its global is not known (the store could not be read)".into(),
        };
        let abandoned = gone
            || global
                .as_ref()
                .is_some_and(|g| matches!(g.stage, Stage::GaveUp | Stage::Ended));
        let severity = match unchanged_d {
            _ if abandoned => Severity::Critical,
            Some(u) if u >= c.critical_age.value => Severity::Critical,
            _ => Severity::Warning,
        };
        let states: Vec<String> = i.states.iter().take(show).map(state_text).collect();
        let states_text = match states.is_empty() {
            true => String::new(),
            false => format!(" (states: {})", states.join(", ")),
        };
        let since = unchanged_d.map_or_else(String::new, |u| {
            format!(", unchanged for {}", format_duration(u))
        });
        let key = i.business_key.as_deref().unwrap_or("-");
        findings.push(
            Finding::new(
                severity,
                codes::SEATA_SAGA_STUCK,
                text!["seata saga ", i.machine, " business key ", key],
                text![
                    status_text(&i),
                    since,
                    ": ",
                    what,
                    states_text,
                    "; ",
                    owner
                ],
            )
            .evidence("source", saga::tables(prefix)[0].clone())
            .evidence("client", client.name.clone())
            .evidence("xid", i.id.clone())
            .evidence("business_key", i.business_key.clone())
            .evidence("status", i.status.clone())
            .evidence("compensation_status", i.compensation_status.clone())
            .evidence("unchanged_seconds", unchanged)
            .evidence("global_status", global.as_ref().map(|g| g.status))
            .advice(match (abandoned, failed) {
                (true, _) => "decide with the owners whether to finish it forward or compensate its succeeded states by hand, and record what was done",
                (false, true) => "read why the failing state's service call fails (its excep in the state table, the service's log): the coordinator's next retry goes on once it can succeed",
                (false, false) => "check that the application running it is alive, and its log: a saga runs inside its application's engine, and one that died mid-state moves again only when the coordinator retries its global",
            })
            .object(Object::new(ObjectKind::SeataGlobal, i.id.as_str()))
            .next_if(
                saga::instance_statement(client.dialect(), prefix, &i.id)
                    .map(|s| Next::sql(s.placed(&client.place()))),
            ),
        );
        entry.stuck.push(Stuck {
            instance: i,
            unchanged_seconds: unchanged,
            global,
            severity,
        });
    }
    let unlisted = sagas.unended.total - LISTED;
    if unlisted > 0 {
        findings.push(Finding::new(
            Severity::Warning,
            codes::SEATA_SAGA_STUCK,
            subject.clone(),
            format!("{unlisted} more unended instance(s) than the {LISTED} oldest read"),
        ));
    }
    if findings.is_empty() {
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::SEATA_SAGAS,
                subject,
                format!(
                    "{} instance(s) running, none unchanged for {}; none unknown, none with a compensation failed or unknown",
                    sagas.unended.total,
                    format_duration(c.saga_stall.value)
                ),
            )
            .evidence("source", saga::tables(prefix)[0].clone()),
        );
    }
    findings
}

/// An instance's statuses as the engine names them.
fn status_text(i: &Instance) -> String {
    let name = |s: &Option<String>| {
        s.as_deref()
            .map(|s| saga::status_name(s).map_or_else(|| s.to_string(), str::to_string))
    };
    match name(&i.compensation_status) {
        Some(c) => format!(
            "{}, compensation {c}",
            name(&i.status).unwrap_or("-".into())
        ),
        None => name(&i.status).unwrap_or_else(|| "-".into()),
    }
}

/// A state as `Refund failed (compensates Debit)`.
fn state_text(s: &saga::State) -> String {
    let status = saga::status_name(&s.status).unwrap_or(&s.status);
    let mut text = format!("{} {status}", s.name);
    if let Some(c) = &s.compensates {
        text.push_str(&format!(" (compensates {c})"));
    }
    if s.retry {
        text.push_str(" (a retry)");
    }
    text
}

#[cfg(test)]
mod golden;

impl TableView for SagasReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&[
            "COORDINATOR",
            "CLIENT",
            "MACHINE",
            "BUSINESS KEY",
            "STATUS",
            "UNCHANGED",
            "STATES",
            "GLOBAL",
        ]);
        for c in &self.coordinators {
            for client in &c.clients {
                for s in &client.stuck {
                    let i = &s.instance;
                    let states: Vec<Shown> = i
                        .states
                        .iter()
                        .map(|st| crate::shown!("{}", state_text(st)))
                        .collect();
                    table.add_row(vec![
                        Cell::new(&c.name),
                        Cell::new(&client.name),
                        Cell::new(&i.machine),
                        Cell::new(i.business_key.as_deref().unwrap_or("-")),
                        Cell::new(status_text(i)),
                        Cell::new(
                            s.unchanged_seconds
                                .map(|u| format_duration(seconds(u.max(0.0))))
                                .unwrap_or_else(|| "-".into()),
                        ),
                        Cell::new(Shown::join(states, "\n")),
                        Cell::new(match &s.global {
                            Some(g) => g.status_name.to_string(),
                            None if client.store_error.is_some() => "not known".into(),
                            None => "gone".into(),
                        }),
                    ]);
                }
            }
        }
        // Nothing stuck: the findings say so; an empty table says nothing.
        table.rendered_unless_empty()
    }
}
