//! `dbos workflows`' arguments; the applications they name are resolved in
//! src/settings/dbos.rs.

use crate::cli::EXIT_CODES_HELP;
use clap::Args;

/// DBOS workflows DBOS gave up on or that failed, PENDING ones nothing runs, and queues their heads hold
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct DbosArgs {
    /// Only this application of the config (dbos: NAME) [default: all of them]
    pub name: Option<String>,
}
