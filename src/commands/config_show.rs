//! `indoubt config show`: which config file is in force and every section of it (targets
//! without secrets, thresholds, reconcile jobs, outboxes, inboxes, audit, resolve), each
//! value with where it came from.

use crate::codes;
use crate::config::{Config, DecisionKey, DecisionSource, ReconcileJobConfig, SourceKind};
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::pg::conninfo::{is_plain_name, looks_like_conninfo};
use crate::report::table::{Cell, Style};
use crate::report::{self, layout, Report, TableView, Target};
use crate::settings::command::ConfigShowSettings;
use crate::settings::kafka_client::{client_config, KafkaTarget};
use crate::settings::pg::Outbox;
use crate::settings::reconcile::Parameters;
use crate::settings::{defaults, Checked, Setting};
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Serialize)]
struct ConfigReport {
    config_file: Option<String>,
    postgres_targets: Vec<PgTargetView>,
    kafka_targets: Vec<KafkaTargetView>,
    mysql_targets: Vec<MysqlTargetView>,
    thresholds: ThresholdsView,
    /// Every threshold and the timeout: its value as written, and where it came from.
    settings: Vec<SettingView>,
    reconcile_jobs: Vec<ReconcileJobView>,
    outboxes: Vec<OutboxView>,
    inboxes: Vec<InboxView>,
    seata_coordinators: Vec<SeataView>,
    modulith_registries: Vec<ModulithView>,
    camunda_engines: Vec<CamundaView>,
    dbos_applications: Vec<DbosView>,
    sagas: Vec<SagaView>,
    audit: AuditView,
    resolve: ResolveView,
}

#[derive(Debug, Serialize)]
struct SettingView {
    /// The config key; null for a flag-only setting.
    key: Option<String>,
    flag: Option<String>,
    value: String,
    /// `default`, `config KEY` or the flag.
    source: String,
}

/// A value that has a default, and where the one in force came from.
#[derive(Debug, Serialize)]
struct Sourced {
    value: String,
    source: String,
}

#[derive(Debug, Serialize)]
struct ReconcileJobView {
    name: String,
    /// A target name, or a connection string's `user@host:port/db` (never its password).
    postgres: Option<String>,
    kafka: Option<String>,
    topic: Option<String>,
    query: Option<String>,
    id_from: Sourced,
    since: Sourced,
    until: Sourced,
    settle: Sourced,
    slack: Sourced,
    check: bool,
}

#[derive(Debug, Serialize)]
struct OutboxView {
    name: String,
    postgres: String,
    table: String,
    id_column: String,
    created_at_column: String,
    published_at_column: String,
    settle: Sourced,
    warning_age: Sourced,
    critical_age: Sourced,
    check: bool,
}

/// A Seata coordinator: where its store is, its tables, its grace and critical age.
#[derive(Debug, Serialize)]
struct SeataView {
    name: String,
    postgres: String,
    global_table: String,
    branch_table: String,
    lock_table: String,
    grace: Sourced,
    critical_age: Sourced,
    check: bool,
    /// Its clients' business databases; their thresholds only with clients.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    clients: Vec<SeataClientView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_thresholds: Option<SeataClientThresholds>,
}

/// A Spring Modulith registry: its database and table, its thresholds.
#[derive(Debug, Serialize)]
struct ModulithView {
    name: String,
    /// The postgres reference, or `mysql NAME`.
    database: String,
    table: Sourced,
    incomplete_age: Sourced,
    critical_age: Sourced,
    poison_attempts: Sourced,
    retention: Sourced,
    check: bool,
}

#[derive(Debug, Serialize)]
struct CamundaView {
    name: String,
    /// The postgres reference.
    database: String,
    table_prefix: Sourced,
    critical_age: Sourced,
    lock_age: Sourced,
    /// The REST API's URL, if any (never its password).
    rest: Option<String>,
    check: bool,
}

#[derive(Debug, Serialize)]
struct DbosView {
    name: String,
    /// The postgres reference.
    database: String,
    schema: Sourced,
    pending_age: Sourced,
    critical_age: Sourced,
    error_window: Sourced,
    /// DBOS's CLI as configured, if any.
    cli: Option<Vec<String>>,
    check: bool,
}

#[derive(Debug, Serialize)]
struct SagaView {
    name: String,
    /// The postgres reference, or `mysql NAME`.
    database: String,
    table: String,
    stalled_after: Sourced,
    unknown_escalate_after: Sourced,
    deadline: Option<String>,
    max_attempts: Option<u64>,
    pivot: Option<String>,
    manual_queue: Option<String>,
    locks: Vec<String>,
    check: bool,
}

#[derive(Debug, Serialize)]
struct SeataClientView {
    name: String,
    postgres: String,
    undo_log: Option<String>,
    tcc_fence_log: Option<String>,
    saga_table_prefix: Option<String>,
    /// The probes `check` runs that read it.
    checked_by: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
struct SeataClientThresholds {
    reservation_age: Sourced,
    saga_stall: Sourced,
    fence_retention: Sourced,
}

#[derive(Debug, Serialize)]
struct InboxView {
    name: String,
    postgres: String,
    table: String,
    created_at_column: String,
    retention: Option<String>,
    producer_retry_horizon: Option<String>,
}

#[derive(Debug, Serialize)]
struct AuditView {
    /// The audit log resolutions write to (before any --audit-log).
    path: Sourced,
}

#[derive(Debug, Serialize)]
struct ResolveView {
    citus_coordinator: Option<String>,
    participants: Vec<String>,
    decision_sources: Vec<DecisionSourceView>,
}

#[derive(Debug, Serialize)]
struct DecisionSourceView {
    name: String,
    kind: String,
    target: Option<String>,
    query: Option<String>,
    key: Option<String>,
    authoritative: Option<bool>,
    path: Option<String>,
    table: Option<String>,
    coordinator: Option<String>,
    in_doubt_after: Sourced,
}

#[derive(Debug, Serialize)]
struct PgTargetView {
    name: String,
    /// `user@host:port/db` once PG* variables filled the gaps; None when it does not parse.
    address: Option<String>,
    sslmode: Option<String>,
    /// The service of a service file that filled in settings (`service=`, PGSERVICE);
    /// null: none.
    service: Option<ServiceView>,
}

/// A service of pg_service.conf, and which settings it gave (never their values).
#[derive(Debug, Serialize)]
struct ServiceView {
    name: String,
    file: String,
    /// PGSERVICE named it rather than `service=` of the conninfo.
    named_by_pgservice: bool,
    /// The keys it set: those the conninfo left unset.
    keys: Vec<String>,
}

#[derive(Debug, Serialize)]
struct MysqlTargetView {
    name: String,
    /// `mysql://user@host:port/db`, never the password.
    address: String,
    ssl_mode: String,
    /// Where the password comes from (an option file, MYSQL_PWD), never itself; null: none.
    password_from: Option<String>,
}

#[derive(Debug, Serialize)]
struct KafkaTargetView {
    name: String,
    bootstrap_servers: Vec<String>,
    /// Secret-bearing values shown as `<redacted>`.
    properties: BTreeMap<String, String>,
    /// The topics `indoubt check` inspects; null for every topic.
    check_topic_regex: Option<String>,
}

/// Every threshold pair in force (flags aside), as the commands check it.
#[derive(Debug, Serialize)]
struct ThresholdsView {
    prepared_warning_age_seconds: u64,
    prepared_critical_age_seconds: u64,
    slots_warning_retained_bytes: u64,
    slots_critical_retained_bytes: u64,
    horizon_warning_age_seconds: u64,
    horizon_critical_age_seconds: u64,
    horizon_warning_xids: u64,
    horizon_critical_xids: u64,
    wraparound_warning_xids: u64,
    wraparound_critical_xids: u64,
    lso_warning_age_seconds: u64,
    lso_critical_age_seconds: u64,
    lso_warning_gap: u64,
    lso_critical_gap: u64,
    hanging_max_transaction_timeout_seconds: u64,
    purge_warning_history_length: u64,
    purge_critical_history_length: u64,
}

impl From<&Checked> for ThresholdsView {
    fn from(c: &Checked) -> ThresholdsView {
        ThresholdsView {
            prepared_warning_age_seconds: c.prepared_age.0.as_secs(),
            prepared_critical_age_seconds: c.prepared_age.1.as_secs(),
            slots_warning_retained_bytes: c.slots_retained.0,
            slots_critical_retained_bytes: c.slots_retained.1,
            horizon_warning_age_seconds: c.horizon_age.0.as_secs(),
            horizon_critical_age_seconds: c.horizon_age.1.as_secs(),
            horizon_warning_xids: c.horizon_xids.0,
            horizon_critical_xids: c.horizon_xids.1,
            wraparound_warning_xids: c.wraparound_xids.0,
            wraparound_critical_xids: c.wraparound_xids.1,
            lso_warning_age_seconds: c.lso_age.0.as_secs(),
            lso_critical_age_seconds: c.lso_age.1.as_secs(),
            lso_warning_gap: c.lso_gap.0,
            lso_critical_gap: c.lso_gap.1,
            hanging_max_transaction_timeout_seconds: c.hanging_max_transaction_timeout.as_secs(),
            purge_warning_history_length: c.purge_history_length.0,
            purge_critical_history_length: c.purge_history_length.1,
        }
    }
}

pub fn run(ctx: &Context, s: &ConfigShowSettings) -> Result<Severity> {
    let report = build(s)?;
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The report, from the config and the settings alone (it connects to nothing).
fn build(s: &ConfigShowSettings) -> Result<Report<ConfigReport>> {
    let config = &s.config.config;
    let env = |key: &str| std::env::var(key).ok();
    let mut findings = Vec::new();
    let mut postgres_targets = Vec::new();
    for (name, target) in &config.postgres {
        let view = match crate::settings::targets::resolve_conninfo(&target.conninfo, &env) {
            Ok(params) => PgTargetView {
                name: name.clone(),
                address: Some(params.describe()),
                sslmode: Some(params.sslmode.as_str().to_string()),
                service: params.service.map(|s| ServiceView {
                    name: s.name,
                    file: s.file.display().to_string(),
                    named_by_pgservice: s.from_environment,
                    keys: s.keys,
                }),
            },
            Err(e) => {
                findings.push(unusable("postgres", name, format!("{e:#}")));
                PgTargetView {
                    name: name.clone(),
                    address: None,
                    sslmode: None,
                    service: None,
                }
            }
        };
        postgres_targets.push(view);
    }
    let mut kafka_targets = Vec::new();
    for (name, configured) in &config.kafka {
        // Usable means its properties make a connection: names known, values valid,
        // config provider references readable.
        let usable = KafkaTarget::from_config(name, configured).and_then(|target| {
            client_config(&target)?;
            Ok(target)
        });
        match usable {
            Ok(target) => kafka_targets.push(KafkaTargetView {
                name: name.clone(),
                bootstrap_servers: target.bootstrap.clone(),
                properties: target.redacted_properties(),
                check_topic_regex: configured.check_topic_regex.clone(),
            }),
            Err(e) => findings.push(unusable("kafka", name, format!("{e:#}"))),
        }
    }
    let mut mysql_targets = Vec::new();
    for (name, t) in &config.mysql {
        let given = crate::mysql::params::Given {
            url: &t.url,
            option_file: t.option_file.as_deref(),
            ssl_mode: t.ssl_mode.as_deref(),
            ssl_ca: t.ssl_ca.as_deref(),
        };
        match crate::mysql::params::resolve(&given, &env) {
            Ok(p) => mysql_targets.push(MysqlTargetView {
                name: name.clone(),
                address: p.describe(),
                ssl_mode: p.ssl_mode.as_str().to_string(),
                password_from: p.password_from,
            }),
            Err(e) => findings.push(unusable("mysql", name, format!("{e:#}"))),
        }
    }
    let config_file = s.config.path.as_ref().map(|p| p.display().to_string());
    let mut settings: Vec<SettingView> = s
        .thresholds
        .rows()
        .into_iter()
        .map(|(entry, value, source)| SettingView {
            key: entry.config.map(str::to_string),
            flag: entry.flag.map(str::to_string),
            value,
            source: source.describe(),
        })
        .collect();
    settings.insert(
        0,
        SettingView {
            key: None,
            flag: s.timeout.entry.flag.map(str::to_string),
            value: s.timeout.text(),
            source: s.timeout.source.describe(),
        },
    );
    let reconcile_jobs = s
        .jobs
        .iter()
        .filter_map(|(name, p)| Some((name, config.reconcile.get(name)?, p)))
        .map(|(name, job, p)| reconcile_job(config, name, job, p, &mut findings))
        .collect();
    let outboxes = s
        .outboxes
        .iter()
        .map(|o| outbox(config, o, &mut findings))
        .collect();
    let inboxes = s
        .inboxes
        .iter()
        .map(|i| InboxView {
            name: i.name.clone(),
            postgres: pg_reference(
                config,
                &format!("inbox {}", i.name),
                &i.postgres,
                &mut findings,
            ),
            table: i.table.clone(),
            created_at_column: i.created_at_column.clone(),
            retention: i.retention.map(format_duration),
            producer_retry_horizon: i.producer_retry_horizon.map(format_duration),
        })
        .collect();
    let seata_coordinators = config
        .seata
        .iter()
        .map(|(name, c)| {
            let (grace, critical_age) = crate::settings::seata::ages(name, c);
            SeataView {
                name: name.clone(),
                postgres: match (&c.postgres, &c.mysql) {
                    (Some(pg), _) => pg_reference(
                        config,
                        &format!("seata coordinator {name}"),
                        pg,
                        &mut findings,
                    ),
                    (None, Some(my)) => format!("mysql {my}"),
                    (None, None) => "(none)".into(),
                },
                global_table: c.global_table.clone(),
                branch_table: c.branch_table.clone(),
                lock_table: c.lock_table.clone(),
                grace: duration(&grace),
                critical_age: duration(&critical_age),
                check: run_by_check(config, "seata globals", name),
                clients: c
                    .clients
                    .iter()
                    .map(|(client, k)| SeataClientView {
                        name: client.clone(),
                        postgres: match (&k.postgres, &k.mysql) {
                            (Some(pg), _) => pg_reference(
                                config,
                                &format!("seata coordinator {name} client {client}"),
                                pg,
                                &mut findings,
                            ),
                            (None, Some(my)) => format!("mysql {my}"),
                            (None, None) => "(none)".into(),
                        },
                        undo_log: k.undo_log.clone(),
                        tcc_fence_log: k.tcc_fence_log.clone(),
                        saga_table_prefix: k.saga_table_prefix.clone(),
                        checked_by: [
                            ("seata globals", k.undo_log.is_some()),
                            ("seata tcc", k.tcc_fence_log.is_some()),
                            ("seata sagas", k.saga_table_prefix.is_some()),
                        ]
                        .into_iter()
                        .filter(|(probe, holds)| *holds && run_by_check(config, probe, name))
                        .map(|(probe, _)| probe)
                        .collect(),
                    })
                    .collect(),
                client_thresholds: (!c.clients.is_empty()).then(|| {
                    let (reservation_age, saga_stall, fence_retention) =
                        crate::settings::seata::client_ages(name, c);
                    SeataClientThresholds {
                        reservation_age: duration(&reservation_age),
                        saga_stall: duration(&saga_stall),
                        fence_retention: duration(&fence_retention),
                    }
                }),
            }
        })
        .collect();
    let modulith_registries = config
        .modulith
        .iter()
        .map(|(name, m)| {
            let (table, incomplete_age, critical_age, poison_attempts, retention) =
                crate::settings::modulith::thresholds(name, m);
            ModulithView {
                name: name.clone(),
                database: match (&m.postgres, &m.mysql) {
                    (Some(pg), _) => {
                        pg_reference(config, &format!("modulith {name}"), pg, &mut findings)
                    }
                    (None, Some(my)) => format!("mysql {my}"),
                    (None, None) => "(none)".into(),
                },
                table: text(&table),
                incomplete_age: duration(&incomplete_age),
                critical_age: duration(&critical_age),
                poison_attempts: Sourced {
                    value: poison_attempts.value.to_string(),
                    source: poison_attempts.source.describe(),
                },
                retention: duration(&retention),
                check: run_by_check(config, "modulith publications", name),
            }
        })
        .collect();
    let camunda_engines = config
        .camunda
        .iter()
        .map(|(name, c)| {
            let (table_prefix, critical_age, lock_age) =
                crate::settings::camunda::thresholds(name, c);
            CamundaView {
                name: name.clone(),
                database: pg_reference(
                    config,
                    &format!("camunda {name}"),
                    &c.postgres,
                    &mut findings,
                ),
                table_prefix: text(&table_prefix),
                critical_age: duration(&critical_age),
                lock_age: duration(&lock_age),
                rest: c.rest.clone(),
                check: run_by_check(config, "camunda incidents", name),
            }
        })
        .collect();
    let dbos_applications = config
        .dbos
        .iter()
        .map(|(name, c)| {
            let (schema, pending_age, critical_age, error_window) =
                crate::settings::dbos::thresholds(name, c);
            DbosView {
                name: name.clone(),
                database: pg_reference(config, &format!("dbos {name}"), &c.postgres, &mut findings),
                schema: text(&schema),
                pending_age: duration(&pending_age),
                critical_age: duration(&critical_age),
                error_window: duration(&error_window),
                cli: c.cli.clone(),
                check: run_by_check(config, "dbos workflows", name),
            }
        })
        .collect();
    let sagas = config
        .sagas
        .iter()
        .map(|(name, c)| {
            let stalled_after =
                Setting::duration_in(&defaults::SAGA_STALLED_AFTER, name, c.stalled_after);
            let unknown_escalate_after = Setting::duration_in(
                &defaults::SAGA_UNKNOWN_ESCALATE_AFTER,
                name,
                c.unknown_escalate_after,
            );
            SagaView {
                name: name.clone(),
                database: match (&c.postgres, &c.mysql) {
                    (Some(pg), _) => {
                        pg_reference(config, &format!("sagas {name}"), pg, &mut findings)
                    }
                    (None, Some(my)) => format!("mysql {my}"),
                    (None, None) => "(none)".into(),
                },
                table: c.table.clone(),
                stalled_after: duration(&stalled_after),
                unknown_escalate_after: duration(&unknown_escalate_after),
                deadline: c.deadline.map(format_duration),
                max_attempts: c.max_attempts,
                pivot: c.pivot.clone(),
                manual_queue: c.manual_queue.as_ref().map(|q| q.table.clone()),
                locks: c.locks.iter().map(|l| l.table.clone()).collect(),
                check: run_by_check(config, "saga", name),
            }
        })
        .collect();
    let audit = AuditView {
        path: match &s.audit.path {
            Some(path) => Sourced {
                value: path.display().to_string(),
                source: s.audit.source.describe(),
            },
            None => Sourced {
                value: defaults::AUDIT_PATH.text().into(),
                source: "default (HOME and XDG_STATE_HOME are not set)".into(),
            },
        },
    };
    let resolve = resolve_view(config, &s.in_doubt_after, &mut findings);
    if findings.is_empty() {
        let message = match &config_file {
            Some(_) => {
                let mut message = format!(
                    "{} postgres, {} kafka and {} mysql target(s) usable",
                    postgres_targets.len(),
                    kafka_targets.len(),
                    mysql_targets.len()
                );
                // The framework sections, which name their databases by those targets.
                let sections: Vec<String> = [
                    ("seata coordinator", config.seata.len()),
                    ("modulith registry", config.modulith.len()),
                    ("camunda engine", config.camunda.len()),
                    ("dbos application", config.dbos.len()),
                    ("saga", config.sagas.len()),
                ]
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .map(|(what, n)| format!("{n} {what}(s)"))
                .collect();
                if !sections.is_empty() {
                    message.push_str(&format!("; {}", sections.join(", ")));
                }
                message
            }
            None => "no config file: targets come from flags and PG* variables, thresholds are the defaults".to_string(),
        };
        findings.push(Finding::new(Severity::Ok, codes::CONFIG, "config", message));
    }
    let report = Report::new(
        "config show",
        config_target(config_file.as_deref()),
        findings,
        ConfigReport {
            config_file,
            postgres_targets,
            kafka_targets,
            mysql_targets,
            thresholds: ThresholdsView::from(&s.checked),
            settings,
            reconcile_jobs,
            outboxes,
            inboxes,
            seata_coordinators,
            modulith_registries,
            camunda_engines,
            dbos_applications,
            sagas,
            audit,
            resolve,
        },
    );
    Ok(report)
}

/// A value in force as written, and where it came from.
fn text(setting: &Setting<String>) -> Sourced {
    Sourced {
        value: setting.value.clone(),
        source: setting.source.describe(),
    }
}

fn duration(setting: &Setting<Duration>) -> Sourced {
    Sourced {
        value: setting.text(),
        source: setting.source.describe(),
    }
}

/// A postgres reference of a section (a target name or a connection string) as it can be
/// shown: the name, or a connection string's `user@host:port/db` without its password. A
/// name the config does not define is UNKNOWN: the section cannot run.
fn pg_reference(
    config: &Config,
    section: &str,
    value: &str,
    findings: &mut Vec<Finding>,
) -> String {
    if config.postgres.contains_key(value) {
        return value.to_string();
    }
    if looks_like_conninfo(value) {
        let env = |key: &str| std::env::var(key).ok();
        return match crate::settings::targets::resolve_conninfo(value, &env) {
            Ok(params) => params.describe(),
            Err(e) => {
                findings.push(Finding::new(
                    Severity::Unknown,
                    codes::CONFIG_REFERENCE_UNUSABLE,
                    section.to_string(),
                    format!("its postgres connection string cannot be used: {e:#}"),
                ));
                "(unusable connection string)".to_string()
            }
        };
    }
    let shown = if is_plain_name(value) {
        value.to_string()
    } else {
        // A mistyped URL may hold a password.
        "(not shown: it may hold a password)".to_string()
    };
    findings.push(Finding::new(
        Severity::Unknown,
        codes::CONFIG_REFERENCE_UNUSABLE,
        section.to_string(),
        format!(
            "postgres {shown} is neither a postgres target of the config nor a connection string"
        ),
    ));
    shown
}

/// A kafka target name of a section; one the config does not define is UNKNOWN.
fn kafka_reference(config: &Config, section: &str, value: &str, findings: &mut Vec<Finding>) {
    if !config.kafka.contains_key(value) {
        findings.push(Finding::new(
            Severity::Unknown,
            codes::CONFIG_REFERENCE_UNUSABLE,
            section.to_string(),
            format!("kafka {value:?} is not a kafka target of the config"),
        ));
    }
}

fn reconcile_job(
    config: &Config,
    name: &str,
    job: &ReconcileJobConfig,
    p: &Parameters,
    findings: &mut Vec<Finding>,
) -> ReconcileJobView {
    let section = format!("reconcile job {name}");
    if let Some(kafka) = &job.kafka {
        kafka_reference(config, &section, kafka, findings);
    }
    ReconcileJobView {
        name: name.to_string(),
        postgres: job
            .postgres
            .as_deref()
            .map(|p| pg_reference(config, &section, p, findings)),
        kafka: job.kafka.clone(),
        topic: job.topic.clone(),
        query: job.query.clone(),
        id_from: text(&p.id_from),
        since: text(&p.since),
        until: text(&p.until),
        settle: duration(&p.settle),
        slack: duration(&p.slack),
        check: run_by_check(config, "reconcile", name),
    }
}

/// Whether `check` runs the probe `command` on the job or outbox `name`: from the
/// probe's own plan in the registry, so this page says what `check` does.
fn run_by_check(config: &Config, command: &str, name: &str) -> bool {
    super::probes::named(command)
        .is_some_and(|probe| probe.plan(config).iter().any(|(target, _)| target == name))
}

fn outbox(config: &Config, o: &Outbox, findings: &mut Vec<Finding>) -> OutboxView {
    OutboxView {
        name: o.name.clone(),
        postgres: pg_reference(config, &format!("outbox {}", o.name), &o.postgres, findings),
        table: o.table.clone(),
        id_column: o.id_column.clone(),
        created_at_column: o.created_at_column.clone(),
        published_at_column: o.published_at_column.clone(),
        settle: duration(&o.settle),
        warning_age: duration(&o.warning_age),
        critical_age: duration(&o.critical_age),
        check: run_by_check(config, "pg outbox", &o.name),
    }
}

fn resolve_view(
    config: &Config,
    in_doubt_after: &[Setting<Duration>],
    findings: &mut Vec<Finding>,
) -> ResolveView {
    let r = &config.resolve;
    let mut decision_sources = Vec::new();
    for (source, in_doubt_after) in r.decision_sources.iter().zip(in_doubt_after) {
        let section = format!("decision source {}", source.name);
        let target = source
            .target
            .as_deref()
            .map(|t| pg_reference(config, &section, t, findings));
        let (key_name, authoritative) = match source.source() {
            Ok(DecisionSource::Sql {
                key, authoritative, ..
            }) => (Some(decision_key(key).to_string()), Some(authoritative)),
            _ => (None, None),
        };
        let table = match source.source() {
            Ok(DecisionSource::NarayanaJdbcStore { table, .. }) => Some(table),
            _ => None,
        };
        decision_sources.push(DecisionSourceView {
            name: source.name.clone(),
            kind: source.kind.unwrap_or(SourceKind::Sql).name().to_string(),
            target,
            query: source.query.clone(),
            key: key_name,
            authoritative,
            path: source.path.as_ref().map(|p| p.display().to_string()),
            table,
            coordinator: source.coordinator.clone(),
            in_doubt_after: duration(in_doubt_after),
        });
    }
    ResolveView {
        citus_coordinator: r
            .citus_coordinator
            .as_deref()
            .map(|c| pg_reference(config, "resolve.citus_coordinator", c, findings)),
        participants: r
            .participants
            .iter()
            .map(
                |p| match config.mysql.contains_key(p) && !config.postgres.contains_key(p) {
                    // A mysql target, shown (and checked) with the mysql targets.
                    true => p.clone(),
                    false => pg_reference(config, "resolve.participants", p, findings),
                },
            )
            .collect(),
        decision_sources,
    }
}

fn decision_key(key: DecisionKey) -> &'static str {
    match key {
        DecisionKey::Gid => "gid",
        DecisionKey::Gtrid => "gtrid",
        DecisionKey::NarayanaUid => "narayana_uid",
        DecisionKey::AtomikosTid => "atomikos_tid",
    }
}

fn unusable(kind: &str, name: &str, why: String) -> Finding {
    Finding::new(
        Severity::Unknown,
        codes::CONFIG_TARGET_UNUSABLE,
        format!("{kind} target \"{name}\""),
        format!("cannot be used: {why}"),
    )
}

/// A source in short: `config` for a key of the config (the setting's own; JSON keeps it).
fn from(source: &str) -> &str {
    match source.starts_with("config ") {
        true => "config",
        false => source,
    }
}

impl TableView for ConfigReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&["KIND", "NAME", "WHERE", "SETTINGS"]);
        for t in &self.postgres_targets {
            table.add_row(vec![
                Cell::new("postgres"),
                Cell::new(&t.name),
                Cell::new(t.address.as_deref().unwrap_or("(unusable)")),
                Cell::new(Shown::join(
                    t.sslmode
                        .iter()
                        .map(|m| shown!("sslmode {}", m))
                        .chain(t.service.iter().map(|s| {
                            shown!(
                                "{} from service {} of {}{}",
                                match s.keys.is_empty() {
                                    true => "nothing".to_string(),
                                    false => s.keys.join(", "),
                                },
                                s.name,
                                s.file,
                                if s.named_by_pgservice {
                                    " (PGSERVICE)"
                                } else {
                                    ""
                                }
                            )
                        })),
                    "\n",
                )),
            ]);
        }
        for t in &self.kafka_targets {
            let settings = t
                .properties
                .iter()
                .map(|(k, v)| shown!("{}={}", k, v))
                .chain(
                    t.check_topic_regex
                        .iter()
                        .map(|r| shown!("check topics ~ {}", Shown::regex(r))),
                );
            table.add_row(vec![
                Cell::new("kafka"),
                Cell::new(&t.name),
                // One server a line: each whole, the list as narrow as its longest.
                Cell::new(Shown::join(
                    t.bootstrap_servers.iter().map(|s| Shown::text(s)),
                    "\n",
                )),
                Cell::new(Shown::join(settings, "\n")),
            ]);
        }
        for t in &self.mysql_targets {
            table.add_row(vec![
                Cell::new("mysql"),
                Cell::new(&t.name),
                Cell::new(&t.address),
                Cell::new(shown!(
                    "ssl-mode {}\npassword: {}",
                    t.ssl_mode,
                    t.password_from.as_deref().unwrap_or("none")
                )),
            ]);
        }
        for j in &self.reconcile_jobs {
            let place = format!(
                "{} → {} topic {}",
                j.postgres.as_deref().unwrap_or("(--pg)"),
                j.kafka.as_deref().unwrap_or("(-b or --kafka)"),
                j.topic.as_deref().unwrap_or("(--topic)")
            );
            let settings = [
                ("id_from", &j.id_from),
                ("since", &j.since),
                ("until", &j.until),
                ("settle", &j.settle),
                ("slack", &j.slack),
            ]
            .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source));
            table.add_row(vec![
                Cell::new("reconcile"),
                Cell::new(&j.name),
                Cell::new(place),
                Cell::new(Shown::join(
                    settings
                        .into_iter()
                        .chain(j.check.then(|| shown!("run by check"))),
                    "\n",
                )),
            ]);
        }
        for o in &self.outboxes {
            let settings = [
                ("settle", &o.settle),
                ("warning_age", &o.warning_age),
                ("critical_age", &o.critical_age),
            ]
            .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source));
            let columns = shown!(
                "columns {}, {}, {}",
                o.id_column,
                o.created_at_column,
                o.published_at_column
            );
            table.add_row(vec![
                Cell::new("outbox"),
                Cell::new(&o.name),
                Cell::new(format!("{} table {}", o.postgres, o.table)),
                Cell::new(Shown::join(
                    std::iter::once(columns)
                        .chain(settings)
                        .chain(o.check.then(|| shown!("run by check"))),
                    "\n",
                )),
            ]);
        }
        for i in &self.inboxes {
            table.add_row(vec![
                Cell::new("inbox"),
                Cell::new(&i.name),
                Cell::new(format!("{} table {}", i.postgres, i.table)),
                Cell::new(Shown::join(
                    [Some(shown!("column {}", i.created_at_column))]
                        .into_iter()
                        .chain([
                            i.retention.as_ref().map(|r| shown!("retention {}", r)),
                            i.producer_retry_horizon
                                .as_ref()
                                .map(|h| shown!("producer_retry_horizon {}", h)),
                        ])
                        .flatten(),
                    "\n",
                )),
            ]);
        }
        for c in &self.seata_coordinators {
            let mut ages: Vec<Shown> = [("grace", &c.grace), ("critical_age", &c.critical_age)]
                .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source))
                .to_vec();
            if let Some(t) = &c.client_thresholds {
                ages.extend(
                    [
                        ("reservation_age", &t.reservation_age),
                        ("saga_stall", &t.saga_stall),
                        ("fence_retention", &t.fence_retention),
                    ]
                    .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source)),
                );
            }
            table.add_row(vec![
                Cell::new("seata"),
                Cell::new(&c.name),
                Cell::new(format!(
                    "{} tables {}, {}, {}",
                    c.postgres, c.global_table, c.branch_table, c.lock_table
                )),
                Cell::new(Shown::join(
                    ages.into_iter()
                        .chain(c.check.then(|| shown!("run by check"))),
                    "\n",
                )),
            ]);
            for k in &c.clients {
                let tables: Vec<String> = [
                    ("undo_log", &k.undo_log),
                    ("tcc_fence_log", &k.tcc_fence_log),
                    ("saga_table_prefix", &k.saga_table_prefix),
                ]
                .into_iter()
                .filter_map(|(what, t)| t.as_ref().map(|t| format!("{what} {t}")))
                .collect();
                table.add_row(vec![
                    Cell::new("seata client"),
                    Cell::new(format!("{} {}", c.name, k.name)),
                    Cell::new(format!("{} {}", k.postgres, tables.join(", "))),
                    Cell::new(Shown::join(
                        k.checked_by.iter().map(|p| shown!("run by check ({})", p)),
                        "\n",
                    )),
                ]);
            }
        }
        for m in &self.modulith_registries {
            let settings = [
                ("incomplete_age", &m.incomplete_age),
                ("critical_age", &m.critical_age),
                ("poison_attempts", &m.poison_attempts),
                ("retention", &m.retention),
            ]
            .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source));
            table.add_row(vec![
                Cell::new("modulith"),
                Cell::new(&m.name),
                Cell::new(format!("{} table {}", m.database, m.table.value)),
                Cell::new(Shown::join(
                    settings
                        .into_iter()
                        .chain(m.check.then(|| shown!("run by check"))),
                    "
",
                )),
            ]);
        }
        for c in &self.camunda_engines {
            let settings = [
                ("table_prefix", &c.table_prefix),
                ("critical_age", &c.critical_age),
                ("lock_age", &c.lock_age),
            ]
            .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source));
            table.add_row(vec![
                Cell::new("camunda"),
                Cell::new(&c.name),
                Cell::new(match &c.rest {
                    Some(url) => format!("{} rest {url}", c.database),
                    None => c.database.clone(),
                }),
                Cell::new(Shown::join(
                    settings
                        .into_iter()
                        .chain(c.check.then(|| shown!("run by check"))),
                    "\n",
                )),
            ]);
        }
        for d in &self.dbos_applications {
            let settings = [
                ("schema", &d.schema),
                ("pending_age", &d.pending_age),
                ("critical_age", &d.critical_age),
                ("error_window", &d.error_window),
            ]
            .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source));
            table.add_row(vec![
                Cell::new("dbos"),
                Cell::new(&d.name),
                Cell::new(match &d.cli {
                    Some(cli) => format!("{} cli {}", d.database, cli.join(" ")),
                    None => d.database.clone(),
                }),
                Cell::new(Shown::join(
                    settings
                        .into_iter()
                        .chain(d.check.then(|| shown!("run by check"))),
                    "\n",
                )),
            ]);
        }
        for g in &self.sagas {
            let mut settings: Vec<Shown> = [
                ("stalled_after", &g.stalled_after),
                ("unknown_escalate_after", &g.unknown_escalate_after),
            ]
            .map(|(name, v)| shown!("{} {} ({})", name, v.value, v.source))
            .to_vec();
            settings.extend(g.deadline.iter().map(|d| shown!("deadline {}", d)));
            settings.extend(g.max_attempts.map(|n| shown!("max_attempts {}", n)));
            settings.extend(g.pivot.iter().map(|p| shown!("pivot {}", p)));
            settings.extend(g.check.then(|| shown!("run by check")));
            let mut tables = vec![format!("table {}", g.table)];
            tables.extend(g.manual_queue.iter().map(|q| format!("manual_queue {q}")));
            tables.extend(g.locks.iter().map(|l| format!("lock {l}")));
            table.add_row(vec![
                Cell::new("saga"),
                Cell::new(&g.name),
                Cell::new(format!("{} {}", g.database, tables.join(", "))),
                Cell::new(Shown::join(settings, "\n")),
            ]);
        }
        for d in &self.resolve.decision_sources {
            let place = d
                .target
                .clone()
                .or_else(|| d.path.clone())
                .unwrap_or_default();
            let mut settings = vec![shown!("kind {}", d.kind)];
            settings.extend(d.key.iter().map(|k| shown!("key {}", k)));
            settings.extend(d.authoritative.map(|a| shown!("authoritative {}", a)));
            settings.extend(d.table.iter().map(|t| shown!("table {}", t)));
            settings.extend(d.coordinator.iter().map(|c| shown!("coordinator {}", c)));
            settings.push(shown!(
                "in_doubt_after {} ({})",
                d.in_doubt_after.value,
                d.in_doubt_after.source
            ));
            table.add_row(vec![
                Cell::new("decision source"),
                Cell::new(&d.name),
                Cell::new(place),
                Cell::new(Shown::join(settings, "\n")),
            ]);
        }
        if let Some(c) = &self.resolve.citus_coordinator {
            table.add_row(vec![
                Cell::new("resolve"),
                Cell::new("citus_coordinator"),
                Cell::new(c),
                Cell::new(""),
            ]);
        }
        if !self.resolve.participants.is_empty() {
            table.add_row(vec![
                Cell::new("resolve"),
                Cell::new("participants"),
                Cell::new(self.resolve.participants.join(", ")),
                Cell::new(""),
            ]);
        }
        table.add_row(vec![
            Cell::new("audit"),
            Cell::new("path"),
            Cell::new(&self.audit.path.value),
            Cell::new(format!("({})", self.audit.path.source)),
        ]);
        let mut settings = style.table(&["SETTING", "VALUE", "FROM"]);
        let widest = |text: fn(&SettingView) -> &str| {
            self.settings
                .iter()
                .map(|s| layout::width(text(s)))
                .max()
                .unwrap_or(0)
        };
        let overhead = match style.frame {
            layout::Frame::Boxed => 10,
            layout::Frame::Plain => 4,
        };
        // The key of a config source is the row's own: left out when the whole would not
        // fit, so the table stays a grid at 80 columns.
        let short = widest(|s| s.key.as_deref().or(s.flag.as_deref()).unwrap_or_default())
            + widest(|s| &s.value)
            + widest(|s| &s.source)
            + overhead
            > usize::from(style.width);
        for s in &self.settings {
            settings.add_row(vec![
                Cell::new(s.key.as_deref().or(s.flag.as_deref()).unwrap_or_default()),
                Cell::new(&s.value),
                Cell::new(match short {
                    true => from(&s.source),
                    false => &s.source,
                }),
            ]);
        }
        vec![table.render(), settings.render()]
    }
}

/// The config as the target of `config show` and `config show --check`: its file, or
/// that there is none.
pub(super) fn config_target(config_file: Option<&str>) -> Target {
    Target {
        name: None,
        kind: "config".into(),
        address: config_file.unwrap_or("(no config file)").to_string(),
    }
}

#[cfg(test)]
mod golden;
