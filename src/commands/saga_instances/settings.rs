//! `saga`'s arguments; the sagas they name are resolved in src/settings/saga.rs.

use crate::cli::EXIT_CODES_HELP;
use clap::Args;

/// Hand-written sagas: failed or stuck instances and whether a person was told, outcomes not known, entities held for sagas that no longer run
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct SagaArgs {
    /// Only these sagas of the config (sagas: NAME) [default: all of them]
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
}
