//! `seata tcc`'s arguments; the coordinators they name are resolved as every `seata`
//! probe's are (`seata_common::settings`).

use crate::cli::EXIT_CODES_HELP;
use clap::Args;

/// TCC Trys no Confirm or Cancel ended (reservations held) and fence records never cleaned, in the clients' databases
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct SeataTccArgs {
    /// Only this coordinator of the config (seata: NAME) [default: all of them]
    pub name: Option<String>,
}
