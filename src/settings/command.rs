//! The one typed settings value of a run ([`Resolved`]): the global part ([`Context`])
//! and the command's own, fully resolved from flags, environment and config before any
//! command connects to anything (ripgrep's low-level flags → high-level args). Every
//! resolution error (a warning above the critical, an unknown target or job, a bad -X
//! property, several targets and no choice) therefore comes first, with exit code 3.

use super::config_check::{ConfigCheckSettings, Plans};
use super::pg::{self, Inbox, Outbox};
use super::probe::{Registry, Run};
use super::reconcile::{self, Parameters};
use super::resolution::{self, ResolveKafkaSettings, ResolvePgSettings};
use super::targets::{AuditLog, Targets};
use super::{Checked, Setting, Thresholds};
use crate::cli::{
    AuditCommand, CheckKind, CheckRunArgs, Cli, Command, ConfigCommand, ProbeInvocation,
    ResolveCommand,
};
use crate::config::{self, Loaded};
use crate::context::Context;
use anyhow::{anyhow, Result};
use std::path::PathBuf;
use std::time::Duration;

/// Everything a run needs, resolved.
pub struct Resolved {
    pub ctx: Context,
    pub command: CommandSettings,
}

/// Each command's fully resolved settings.
pub enum CommandSettings {
    /// An inspect command: one of the registry's probes, ready to run.
    Probe(Box<dyn Run>),
    ResolvePg(Box<ResolvePgSettings>),
    ResolveKafka(Box<ResolveKafkaSettings>),
    ResolveMysql(Box<resolution::ResolveMysqlSettings>),
    ResolveTcc(Box<super::seata::ResolveTccSettings>),
    ResolveAt(Box<super::seata::ResolveAtSettings>),
    ResolveModulith(Box<super::modulith::ResolveModulithSettings>),
    ResolveCamunda(Box<super::camunda::ResolveCamundaSettings>),
    ResolveDbos(Box<super::dbos::ResolveDbosSettings>),
    ResolveSaga(Box<super::saga::ResolveSagaSettings>),
    ResolveOutbox(Box<super::republish::ResolveOutboxSettings>),
    ResolveReconcile(Box<super::republish::ResolveReconcileSettings>),
    AuditList(AuditListSettings),
    AuditVerify(AuditLog),
    AuditReseal {
        log: AuditLog,
        reason: String,
    },
    ConfigShow(Box<ConfigShowSettings>),
    ConfigCheck(Box<ConfigCheckSettings>),
    Check(CheckSettings),
    Serve(Box<ServeSettings>),
}

/// `serve`: the checks as `check` runs them, on an interval, and where to answer.
pub struct ServeSettings {
    pub listen: std::net::SocketAddr,
    pub interval: Duration,
    pub check: CheckSettings,
}

/// `audit list`.
pub struct AuditListSettings {
    pub log: AuditLog,
    pub since: Option<Duration>,
    pub object: Option<String>,
}

/// `config show`: the config as loaded (it is what the command shows) and every value
/// in force derived from it, as the commands resolve them.
pub struct ConfigShowSettings {
    pub config: Loaded,
    /// Every threshold with its source, before any command's flag.
    pub thresholds: Thresholds,
    /// The same, each pair checked.
    pub checked: Checked,
    pub timeout: Setting<Duration>,
    /// Each reconcile job's fields (as `reconcile NAME` without flags would use them).
    pub jobs: Vec<(String, Parameters)>,
    pub outboxes: Vec<Outbox>,
    pub inboxes: Vec<Inbox>,
    /// Each decision source's `in_doubt_after`, in the config's order.
    pub in_doubt_after: Vec<Setting<Duration>>,
    pub audit: AuditLog,
}

/// `check`: each (check, target) pair the config and the selection enable, with that
/// check's settings resolved as its command would resolve them.
pub struct CheckSettings {
    pub deadline: Duration,
    /// Checks running at once.
    pub concurrency: usize,
    pub quiet: bool,
    pub prometheus_file: Option<PathBuf>,
    /// The config file checked, as the report's target names it.
    pub config_file: Option<PathBuf>,
    pub plan: Vec<Planned>,
}

/// One check on one target; a check whose settings do not resolve is UNKNOWN with why.
pub struct Planned {
    pub check: &'static str,
    pub target: String,
    pub settings: Result<Box<dyn Run>>,
}

/// The run's settings from its command line, the environment and the config; reads no
/// server. (`explain` needs none: it is run before.) `registry` is the commands' registry
/// (`commands::probes::REGISTRY`).
pub fn resolve(cli: Cli, registry: &Registry) -> Result<Resolved> {
    let ctx = Context::new(&cli.global)?;
    let config = config::load(cli.global.config.as_deref())?;
    resolve_loaded(cli, ctx, config, registry)
}

/// The same from a config already loaded (tests and fixtures give one of their own).
pub fn resolve_loaded(
    cli: Cli,
    ctx: Context,
    config: Loaded,
    registry: &Registry,
) -> Result<Resolved> {
    let thresholds = Thresholds::resolve(&config.config.thresholds);
    let command = {
        let t = Targets {
            config: &config,
            ctx: &ctx,
        };
        match cli.command {
            Command::Check(args) => Some(CommandSettings::Check(check(
                &t,
                &thresholds,
                args.run,
                (args.quiet, args.prometheus_file),
                registry,
            )?)),
            Command::Serve(args) => Some(CommandSettings::Serve(Box::new(ServeSettings {
                listen: args.listen,
                interval: serve_interval(args.interval, args.run.deadline)?,
                check: check(&t, &thresholds, args.run, (false, None), registry)?,
            }))),
            Command::Config(ConfigCommand::Show(args)) if args.check => Some(
                CommandSettings::ConfigCheck(Box::new(ConfigCheckSettings {
                    plans: Plans::of(&t, registry),
                    config_file: config.path.clone(),
                })),
            ),
            Command::Config(ConfigCommand::Show(_)) => None,
            other => Some(command(&t, &thresholds, other, registry)?),
        }
    };
    let command = match command {
        Some(command) => command,
        None => CommandSettings::ConfigShow(Box::new(config_show(&ctx, config, thresholds)?)),
    };
    Ok(Resolved { ctx, command })
}

/// A probe's run: the probe of its command resolves its arguments.
fn probe(
    t: &Targets,
    thresholds: &Thresholds,
    invocation: ProbeInvocation,
    registry: &Registry,
) -> Result<Box<dyn Run>> {
    let probe = registry
        .probe(invocation.command)
        .ok_or_else(|| anyhow!("no probe in the registry runs {}", invocation.command))?;
    probe.resolve(t, thresholds, invocation.args)
}

/// A leaf command's settings.
fn command(
    t: &Targets,
    thresholds: &Thresholds,
    command: Command,
    registry: &Registry,
) -> Result<CommandSettings> {
    use CommandSettings as S;
    Ok(match command {
        Command::Probe(invocation) => S::Probe(probe(t, thresholds, invocation, registry)?),
        Command::Resolve(ResolveCommand::Pg(a)) => {
            S::ResolvePg(Box::new(resolution::resolve_pg(t, a)?))
        }
        Command::Resolve(ResolveCommand::Mysql(a)) => {
            S::ResolveMysql(Box::new(resolution::resolve_mysql(t, a)?))
        }
        Command::Resolve(ResolveCommand::Kafka(a)) => {
            S::ResolveKafka(Box::new(resolution::resolve_kafka(t, a)?))
        }
        Command::Resolve(ResolveCommand::Tcc(a)) => {
            S::ResolveTcc(Box::new(super::seata::resolve_tcc(t, a)?))
        }
        Command::Resolve(ResolveCommand::At(a)) => {
            S::ResolveAt(Box::new(super::seata::resolve_at(t, a)?))
        }
        Command::Resolve(ResolveCommand::Dbos(a)) => {
            S::ResolveDbos(Box::new(super::dbos::resolve_dbos(t, a)?))
        }
        Command::Resolve(ResolveCommand::Saga(a)) => {
            S::ResolveSaga(Box::new(super::saga::resolve_saga(t, a)?))
        }
        Command::Resolve(ResolveCommand::Outbox(a)) => {
            S::ResolveOutbox(Box::new(super::republish::resolve_outbox(t, a)?))
        }
        Command::Resolve(ResolveCommand::Reconcile(a)) => {
            S::ResolveReconcile(Box::new(super::republish::resolve_reconcile(t, a)?))
        }
        Command::Resolve(ResolveCommand::Camunda(a)) => {
            S::ResolveCamunda(Box::new(super::camunda::resolve_camunda(t, a)?))
        }
        Command::Resolve(ResolveCommand::Modulith(a)) => {
            S::ResolveModulith(Box::new(super::modulith::resolve_modulith(t, a)?))
        }
        Command::Audit(AuditCommand::List(a)) => S::AuditList(AuditListSettings {
            log: t.audit_log(a.audit_log.as_deref()),
            since: a.since,
            object: a.object,
        }),
        Command::Audit(AuditCommand::Verify(a)) => {
            S::AuditVerify(t.audit_log(a.audit_log.as_deref()))
        }
        Command::Audit(AuditCommand::Reseal(a)) => S::AuditReseal {
            log: t.audit_log(a.audit_log.as_deref()),
            reason: a.reason,
        },
        Command::Config(_) | Command::Check(_) | Command::Serve(_) | Command::Explain(_) => {
            return Err(anyhow!("resolved elsewhere: {command:?}"))
        }
    })
}

fn config_show(
    ctx: &Context,
    config: Loaded,
    thresholds: Thresholds,
) -> Result<ConfigShowSettings> {
    let checked = thresholds.checked()?;
    let t = Targets {
        config: &config,
        ctx,
    };
    let c = &config.config;
    let jobs = c
        .reconcile
        .iter()
        .map(|(name, job)| {
            (
                name.clone(),
                reconcile::parameters(Some(name), Some(job), None),
            )
        })
        .collect();
    let outboxes = c.outbox.iter().map(|(n, o)| pg::outbox(&t, n, o)).collect();
    let inboxes = c.inbox.iter().map(|(n, i)| pg::inbox(&t, n, i)).collect();
    let in_doubt_after = resolution::in_doubt_after(&c.resolve);
    let audit = t.audit_log(None);
    Ok(ConfigShowSettings {
        timeout: Setting {
            value: ctx.timeout,
            source: ctx.timeout_from.clone(),
            entry: &super::defaults::TIMEOUT,
        },
        thresholds,
        checked,
        jobs,
        outboxes,
        inboxes,
        in_doubt_after,
        audit,
        config,
    })
}

fn check(
    t: &Targets,
    thresholds: &Thresholds,
    args: CheckRunArgs,
    (quiet, prometheus_file): (bool, Option<PathBuf>),
    registry: &Registry,
) -> Result<CheckSettings> {
    let enabled = |kind: CheckKind| {
        if args.only.is_empty() {
            !args.skip.contains(&kind)
        } else {
            args.only.contains(&kind)
        }
    };
    // Built once: each check's arguments are parsed by it.
    let mut definition = crate::help::command(registry);
    let plan: Vec<Planned> = plan(t.config, &enabled, registry)
        .into_iter()
        .map(|(check, target, argv)| Planned {
            check,
            target,
            settings: planned(t, thresholds, &argv, registry, &mut definition),
        })
        .collect();
    if plan.is_empty() {
        return Err(match &t.config.path {
            // Nothing to blame in a config that is not there.
            None => crate::error::hinted(
                format!(
                    "nothing to check: no config file was found ({})",
                    config::where_looked()
                ),
                "check runs what a config file names (man 5 indoubt-config): write one at ~/.config/indoubt/config.yaml, or give --config FILE; one server can be looked at without one, e.g. indoubt pg prepared --pg postgres://USER@HOST:PORT/DB",
            ),
            Some(path) => anyhow!(
                "no check to run: {} names no postgres, kafka or mysql target, and no \
                 reconcile job, outbox, seata coordinator, modulith registry, camunda engine or dbos application with \
                 `check: true` (or --only/--skip left none)",
                path.display()
            ),
        });
    }
    Ok(CheckSettings {
        deadline: args.deadline,
        concurrency: args
            .concurrency
            .map_or_else(default_concurrency, usize::from),
        quiet,
        prometheus_file,
        config_file: t.config.path.clone(),
        plan,
    })
}

/// Checks at once by default: most of a check's time is waiting on its server, so
/// several per CPU; never so many that a fleet's servers see a burst of connections.
fn default_concurrency() -> usize {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cpus).clamp(8, 32)
}

/// A run shorter than a second apart would be a load test, not monitoring.
fn serve_interval(interval: Duration, deadline: Duration) -> Result<Duration> {
    if interval < Duration::from_secs(1) {
        return Err(crate::error::hinted(
            format!(
                "--interval {} is too short: the checks would run back to back",
                crate::units::format_duration(interval)
            ),
            format!(
                "give 1s or more; the default is {}, and each run is bounded by --deadline ({})",
                super::defaults::SERVE_INTERVAL.default_text(),
                crate::units::format_duration(deadline)
            ),
        ));
    }
    Ok(interval)
}

/// The run of the probe `argv` names, parsed from exactly the arguments a user typing it
/// would give (by `definition`, the command line's one: `help::command`), so each check
/// has that command's defaults and the config's thresholds.
fn planned(
    t: &Targets,
    thresholds: &Thresholds,
    argv: &[String],
    registry: &Registry,
    definition: &mut clap::Command,
) -> Result<Box<dyn Run>> {
    let argv = std::iter::once("indoubt").chain(argv.iter().map(String::as_str));
    let cli = definition
        .try_get_matches_from_mut(argv)
        .and_then(|matches| registry.invocation(&matches))
        .map_err(|e| anyhow!("building the check's arguments: {e}"))?;
    match cli.command {
        Command::Probe(invocation) => probe(t, thresholds, invocation, registry),
        other => Err(anyhow!("check plans no such probe: {other:?}")),
    }
}

/// Every (check, target, argv) the config and the selection enable, in selection, then
/// target, then registry order (a target's checks together). Names go in as
/// `--flag=NAME` or after `--`, so a name starting with `-` stays a name.
fn plan(
    config: &Loaded,
    enabled: &dyn Fn(CheckKind) -> bool,
    registry: &Registry,
) -> Vec<(&'static str, String, Vec<String>)> {
    let mut plan = Vec::new();
    for (registered, probe) in registry.probes.iter().enumerate() {
        let Some(selection) = probe.selection().filter(|s| enabled(*s)) else {
            continue;
        };
        for (nth, (target, argv)) in probe.plan(&config.config).into_iter().enumerate() {
            plan.push((
                (selection as usize, nth, registered),
                probe.name(),
                target,
                argv,
            ));
        }
    }
    plan.sort_by_key(|(order, ..)| *order);
    plan.into_iter()
        .map(|(_, check, target, argv)| (check, target, argv))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::probe::settings_of;

    fn resolved(argv: &[&str], yaml: &str) -> Result<Resolved> {
        let registry = &crate::commands::probes::REGISTRY;
        let argv = std::iter::once("indoubt").chain(argv.iter().copied());
        let cli = crate::help::parse_from(registry, argv)?;
        let ctx = Context::new(&cli.global)?;
        let path = std::path::Path::new("/etc/indoubt/test.yaml");
        let config = Loaded {
            path: Some(path.to_path_buf()),
            config: config::parse(yaml, path)?,
        };
        resolve_loaded(cli, ctx, config, registry)
    }

    #[test]
    fn check_resolves_every_planned_check_up_front_and_keeps_each_refusal_as_its_own() {
        let yaml = "postgres:\n  db1:\n    conninfo: postgres://u@db1.invalid:5432/shop\nkafka:\n  k1:\n    bootstrap_servers: k1.invalid:9092\nthresholds:\n  lso:\n    warning_gap: 5M\n";
        let Ok(Resolved {
            command: CommandSettings::Check(check),
            ..
        }) = resolved(&["check"], yaml)
        else {
            panic!("check did not resolve");
        };
        let plan: Vec<(&str, Result<&dyn Run, String>)> = check
            .plan
            .iter()
            .map(|p| {
                let settings = p.settings.as_ref().map(|run| run.as_ref());
                (p.check, settings.map_err(|e| format!("{e:#}")))
            })
            .collect();
        assert_eq!(plan.len(), 5);
        match &plan[0] {
            ("pg prepared", Ok(run)) => {
                let s = settings_of::<super::super::pg::PreparedSettings>(*run).unwrap();
                assert_eq!(s.target.name.as_deref(), Some("db1"));
                assert_eq!(s.age, (Duration::from_secs(300), Duration::from_secs(1800)));
            }
            other => panic!("{:?}", other.0),
        }
        // The config's LSO gap pair is refused for kafka lso alone, with its message;
        // kafka hanging on the same cluster still resolves.
        match &plan[3] {
            ("kafka lso", Err(e)) => assert_eq!(
                e,
                "LSO gap: warning threshold 5000000 is above the critical one 1000000"
            ),
            other => panic!("{:?}", other.0),
        }
        assert!(matches!(
            plan[4],
            ("kafka hanging", Ok(run)) if settings_of::<super::super::kafka::HangingSettings>(run).is_some()
        ));
    }

    /// `config show --check` checks what each probe of the registry says it reads: the
    /// Seata store's tables where the store is (postgres or mysql), each client's tables
    /// in its database, a reconcile job's query and topic.
    #[test]
    fn config_checks_plan_is_what_the_registrys_probes_read() {
        use crate::settings::config_check::PgUse;
        let yaml = "postgres:\n  store:\n    conninfo: postgres://u@s.invalid/seata\n  biz:\n    conninfo: postgres://u@b.invalid/biz\nmysql:\n  my:\n    url: mysql://u@m.invalid/seata\nkafka:\n  k:\n    bootstrap_servers: k.invalid:9092\nseata:\n  tc:\n    postgres: store\n    clients:\n      wallet:\n        postgres: biz\n        undo_log: undo_log\n        tcc_fence_log: tcc_fence_log\n        saga_table_prefix: seata_\n  tm:\n    mysql: my\nreconcile:\n  orders:\n    postgres: biz\n    query: SELECT id FROM orders\n    topic: orders\n";
        let Ok(Resolved {
            command: CommandSettings::ConfigCheck(s),
            ..
        }) = resolved(&["config", "show", "--check"], yaml)
        else {
            panic!("resolved as config show --check");
        };
        let tables = |name: &str| -> Vec<(String, String)> {
            let plan = s.plans.pg.iter().find(|p| p.name == name).unwrap();
            plan.uses
                .iter()
                .map(|u| match u {
                    PgUse::Table { section, table, .. } => (section.clone(), table.clone()),
                    PgUse::Reconcile { job, .. } => (format!("reconcile {job}"), String::new()),
                })
                .collect()
        };
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            tables("store"),
            pairs(&[
                ("seata coordinator tc", "global_table"),
                ("seata coordinator tc", "branch_table"),
                ("seata coordinator tc", "lock_table"),
            ])
        );
        let client = "seata coordinator tc client wallet";
        assert_eq!(
            tables("biz"),
            pairs(&[
                ("reconcile orders", ""),
                (client, "undo_log"),
                (client, "tcc_fence_log"),
                (client, "seata_state_machine_inst"),
                (client, "seata_state_inst"),
                (client, "seata_state_machine_def"),
            ])
        );
        let my = &s.plans.mysql[0];
        assert_eq!(my.used_by, ["seata coordinator tm"]);
        let my_tables: Vec<&str> = my.uses.iter().map(|u| u.table.as_str()).collect();
        assert_eq!(my_tables, ["global_table", "branch_table", "lock_table"]);
        assert_eq!(
            s.plans.kafka[0].topics,
            [("orders".into(), vec!["orders".into()])]
        );
    }

    #[test]
    fn a_command_resolves_its_targets_and_jobs_or_refuses_before_running() {
        let yaml = "postgres:\n  a:\n    conninfo: postgres://u@a.invalid/a\n  b:\n    conninfo: postgres://u@b.invalid/b\nreconcile:\n  orders:\n    postgres: a\n    query: SELECT 1\n    topic: t\n    settle: 2m\n";
        let err = resolved(&["pg", "slots"], yaml)
            .err()
            .map(|e| format!("{e:#}"));
        assert_eq!(
            err.as_deref(),
            Some("the config names several postgres targets (a, b)")
        );
        let Ok(Resolved {
            command: CommandSettings::Probe(run),
            ..
        }) = resolved(
            &["reconcile", "-b", "k.invalid:9092", "--slack", "3m"],
            yaml,
        )
        else {
            panic!("the config's only job did not resolve");
        };
        let job = settings_of::<super::super::reconcile::ReconcileSettings>(run.as_ref()).unwrap();
        assert_eq!(job.job.as_deref(), Some("orders"));
        assert_eq!(job.pg.name.as_deref(), Some("a"));
        assert_eq!(
            (job.settle, job.slack),
            (Duration::from_secs(120), Duration::from_secs(180))
        );
    }
}
