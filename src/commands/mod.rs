//! One module per leaf command; each gathers, builds findings and a report, renders, and returns its status.

mod appdb_common;
mod audit_cmd;
mod camunda_incidents;
mod check;
mod check_output;
mod config_check;
mod config_show;
mod dbos_workflows;
mod explain;
mod kafka_common;
mod kafka_hanging;
mod kafka_lso;
mod kafka_producers;
mod kafka_transactions;
mod modulith_publications;
mod mysql_xa;
mod pg_common;
mod pg_horizon;
mod pg_outbox;
mod pg_prepared;
mod pg_slots;
pub mod probes;
mod reconcile;
mod resolve_at;
mod resolve_camunda;
mod resolve_dbos;
mod resolve_kafka;
mod resolve_modulith;
mod resolve_mysql;
mod resolve_outbox;
mod resolve_pg;
mod resolve_reconcile;
mod resolve_saga;
mod resolve_tcc;
mod run_state;
pub mod runbook;
mod saga_instances;
mod seata_common;
mod seata_globals;
mod seata_sagas;
mod seata_tcc;
mod serve;
pub(crate) mod shared;

pub use pg_common::Addressing;

use crate::cli::{Cli, Command, OutputFormat};
use crate::findings::Severity;
use crate::settings::{CommandSettings, Resolved};
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
    // Every setting of the run, resolved (and every resolution error raised) before any
    // command connects to anything.
    let Resolved { mut ctx, command } = crate::settings::resolve(cli, &probes::REGISTRY)?;
    // The command line as the audit trail records it: read by the one definition, which
    // the audit trail may not import, secrets masked.
    ctx.command_line = crate::audit::redact::command_line(
        &crate::help::command(&probes::REGISTRY),
        std::env::args_os(),
    );
    use CommandSettings as S;
    match command {
        S::Probe(run) => {
            let report = run.report(&ctx).await?;
            report.emit(&ctx)?;
            Ok(report.status())
        }
        S::ResolvePg(s) => resolve_pg::run(&ctx, &s).await,
        S::ResolveKafka(s) => resolve_kafka::run(&ctx, &s).await,
        S::ResolveMysql(s) => resolve_mysql::run(&ctx, &s).await,
        S::ResolveTcc(s) => resolve_tcc::run(&ctx, &s).await,
        S::ResolveAt(s) => resolve_at::run(&ctx, &s).await,
        S::ResolveModulith(s) => resolve_modulith::run(&ctx, &s).await,
        S::ResolveCamunda(s) => resolve_camunda::run(&ctx, &s).await,
        S::ResolveDbos(s) => resolve_dbos::run(&ctx, &s).await,
        S::ResolveSaga(s) => resolve_saga::run(&ctx, &s).await,
        S::ResolveOutbox(s) => resolve_outbox::run(&ctx, &s).await,
        S::ResolveReconcile(s) => resolve_reconcile::run(&ctx, &s).await,
        S::AuditList(s) => local(move || audit_cmd::list(&ctx, &s)).await,
        S::AuditVerify(log) => local(move || audit_cmd::verify(&ctx, &log)).await,
        S::AuditReseal { log, reason } => {
            local(move || audit_cmd::reseal(&ctx, &log, &reason)).await
        }
        S::ConfigCheck(s) => config_check::run(&ctx, &s).await,
        S::ConfigShow(s) => local(move || config_show::run(&ctx, &s)).await,
        S::Check(s) => check::run(&ctx, &s).await,
        S::Serve(s) => serve::run(&ctx, &s).await,
    }
}

/// A command that waits on no server and reads its files synchronously runs on the
/// blocking pool, so a signal is still answered while it reads a long audit log.
async fn local(command: impl FnOnce() -> Result<Severity> + Send + 'static) -> Result<Severity> {
    tokio::task::spawn_blocking(command)
        .await
        .map_err(|e| anyhow::anyhow!("the command failed: {e}"))?
}

/// The first `n` ids joined, and how many more: a confirmation's and a report's list.
fn first_ids(ids: &[String], n: usize) -> String {
    let mut out = ids.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > n {
        out.push_str(&format!(", … ({} more)", ids.len() - n));
    }
    out
}

/// A resolve command's report, emitted in the format asked for: its status, for the exit code.
fn finish<T: serde::Serialize + crate::report::TableView>(
    ctx: &crate::context::Context,
    command: &'static str,
    target: crate::report::Target,
    findings: Vec<crate::findings::Finding>,
    data: T,
) -> Result<crate::findings::Severity> {
    let report = crate::report::Report::new(command, target, findings, data);
    crate::report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}
