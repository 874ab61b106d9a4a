//! `seata sagas`' arguments; the coordinators they name are resolved as every `seata`
//! probe's are (`seata_common::settings`).

use crate::cli::EXIT_CODES_HELP;
use crate::settings::defaults;
use clap::Args;

/// Saga instances unknown, stalled, or whose compensation failed, in the clients' saga stores
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct SeataSagasArgs {
    /// Only this coordinator of the config (seata: NAME) [default: all of them]
    pub name: Option<String>,

    /// How many states of each saga instance to list
    #[arg(long, value_name = "N", default_value_t = defaults::SEATA_SHOW.number() as usize)]
    pub show: usize,
}
