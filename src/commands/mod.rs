//! One module per leaf command; each gathers, builds findings and a report, renders, and returns its status.

mod config_show;
mod pg_horizon;
mod pg_prepared;
mod pg_slots;

use crate::cli::{Cli, Command, ConfigCommand, PgCommand};
use crate::context::Context;
use crate::findings::Severity;
use anyhow::Result;

pub async fn run(cli: Cli) -> Result<Severity> {
    let ctx = Context::new(&cli.global)?;
    match &cli.command {
        Command::Pg(PgCommand::Prepared(args)) => pg_prepared::run(&ctx, args).await,
        Command::Pg(PgCommand::Slots(args)) => pg_slots::run(&ctx, args).await,
        Command::Pg(PgCommand::Horizon(args)) => pg_horizon::run(&ctx, args).await,
        Command::Config(ConfigCommand::Show) => config_show::run(&ctx),
    }
}
