//! `modulith publications`' arguments; the registries they name are resolved in
//! src/settings/modulith.rs.

use crate::cli::EXIT_CODES_HELP;
use clap::Args;

/// Spring Modulith event publications never completed, listeners gone, poison events and completed rows never pruned
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct ModulithArgs {
    /// Only this registry of the config (modulith: NAME) [default: all of them]
    pub name: Option<String>,
}
