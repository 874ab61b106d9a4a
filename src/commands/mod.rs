//! One module per leaf command; each gathers, builds findings and a report, renders, and returns its status.

mod audit_cmd;
mod check;
mod check_output;
mod config_check;
mod config_show;
mod explain;
mod kafka_common;
mod kafka_hanging;
mod kafka_lso;
mod kafka_producers;
mod kafka_transactions;
mod pg_common;
mod pg_horizon;
mod pg_outbox;
mod pg_prepared;
mod pg_slots;
mod reconcile;
mod resolve_kafka;
mod resolve_pg;

use crate::cli::{
    AuditCommand, Cli, Command, ConfigCommand, KafkaCommand, OutputFormat, PgCommand,
    ResolveCommand,
};
use crate::context::Context;
use crate::findings::Severity;
use anyhow::Result;

pub async fn run(cli: Cli) -> Result<Severity> {
    let monitoring_format = matches!(
        cli.global.output,
        OutputFormat::Nagios | OutputFormat::Prometheus
    );
    if monitoring_format && !matches!(cli.command, Command::Check(_)) {
        anyhow::bail!(
            "--output nagios and prometheus are for `indoubt check`; use table, wide, json or yaml"
        );
    }
    // Needs no config and no server: a broken config must not hide what a code means.
    if let Command::Explain(args) = &cli.command {
        return explain::run(&cli.global, args);
    }
    let ctx = Context::new(&cli.global)?;
    match cli.command {
        Command::Pg(PgCommand::Prepared(args)) => pg_prepared::run(&ctx, &args).await,
        Command::Pg(PgCommand::Slots(args)) => pg_slots::run(&ctx, &args).await,
        Command::Pg(PgCommand::Horizon(args)) => pg_horizon::run(&ctx, &args).await,
        Command::Pg(PgCommand::Outbox(args)) => pg_outbox::run(&ctx, &args).await,
        Command::Kafka(KafkaCommand::Lso(args)) => kafka_lso::run(&ctx, &args).await,
        Command::Kafka(KafkaCommand::Producers(args)) => kafka_producers::run(&ctx, &args).await,
        Command::Kafka(KafkaCommand::Transactions(args)) => {
            kafka_transactions::run(&ctx, &args).await
        }
        Command::Kafka(KafkaCommand::Hanging(args)) => kafka_hanging::run(&ctx, &args).await,
        Command::Reconcile(args) => reconcile::run(&ctx, &args).await,
        Command::Resolve(ResolveCommand::Pg(args)) => resolve_pg::run(&ctx, &args).await,
        Command::Resolve(ResolveCommand::Kafka(args)) => resolve_kafka::run(&ctx, &args).await,
        Command::Audit(AuditCommand::List(args)) => {
            local(move || audit_cmd::list(&ctx, &args)).await
        }
        Command::Audit(AuditCommand::Verify(args)) => {
            local(move || audit_cmd::verify(&ctx, &args)).await
        }
        Command::Audit(AuditCommand::Reseal(args)) => {
            local(move || audit_cmd::reseal(&ctx, &args)).await
        }
        Command::Config(ConfigCommand::Show(args)) if args.check => config_check::run(&ctx).await,
        Command::Config(ConfigCommand::Show(_)) => local(move || config_show::run(&ctx)).await,
        Command::Check(args) => check::run(&ctx, &args).await,
        Command::Explain(_) => unreachable!("explain runs before the context is made"),
    }
}

/// A command that waits on no server and reads its files synchronously runs on the
/// blocking pool, so a signal is still answered while it reads a long audit log.
async fn local(command: impl FnOnce() -> Result<Severity> + Send + 'static) -> Result<Severity> {
    tokio::task::spawn_blocking(command)
        .await
        .map_err(|e| anyhow::anyhow!("the command failed: {e}"))?
}
