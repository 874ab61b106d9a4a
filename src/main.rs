//! Entry point: parse flags, run one command on a small runtime, and turn the outcome into a Nagios exit code.

use clap::Parser;
use indoubt::interrupt::{self, Ended};
use indoubt::{cli, commands, error, shown, term};
use std::process::ExitCode;

/// Exit code for usage, config and runtime errors: UNKNOWN, never clap's 2 (CRITICAL to a monitor).
const EXIT_UNKNOWN: u8 = 3;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are not errors; their text goes to stdout.
            let code = if err.use_stderr() { EXIT_UNKNOWN } else { 0 };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            term::status(&shown!(
                "indoubt: error: starting the async runtime: {}",
                err
            ));
            return ExitCode::from(EXIT_UNKNOWN);
        }
    };
    // Raced against SIGINT/SIGTERM/SIGHUP: statements in flight are cancelled on their
    // servers, and the exit code is the signal's.
    let outcome = runtime.block_on(interrupt::run(commands::run(cli)));
    // A DNS lookup still running on the blocking pool (or a prompt still reading the
    // terminal after a signal) must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    let outcome = match outcome {
        Ok(Ended::Finished(outcome)) => outcome,
        Ok(Ended::Interrupted(interrupted)) => {
            interrupted.report();
            return ExitCode::from(interrupted.signal.exit_code());
        }
        Err(err) => {
            interrupt::say(&format!("error: listening for signals: {err}"));
            return ExitCode::from(EXIT_UNKNOWN);
        }
    };
    match outcome {
        Ok(status) => ExitCode::from(status.exit_code()),
        Err(err) => {
            // An error may quote a server, a file or an argument: escaped like any data.
            term::status(&shown!("indoubt: error: {:#}", err));
            if let Some(hint) = error::hint_of(&err) {
                term::status(&shown!("hint: {}", hint));
            }
            ExitCode::from(EXIT_UNKNOWN)
        }
    }
}
