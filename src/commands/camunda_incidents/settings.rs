//! `camunda incidents`' arguments; the engines they name are resolved in
//! src/settings/camunda.rs.

use crate::cli::EXIT_CODES_HELP;
use clap::Args;

/// Camunda 7 / Operaton incidents, jobs and external tasks that keep failing, and locks left behind
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct CamundaArgs {
    /// Only this engine of the config (camunda: NAME) [default: all of them]
    pub name: Option<String>,
}
