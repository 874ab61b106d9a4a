//! Entry point: parse flags, run one command on a small runtime, and turn the outcome into a Nagios exit code.
// The futures of a check run nest deep (each check in its shared reads, in the run, in
// the interrupt race): past the default limit of 128 the type checker gives up.
#![recursion_limit = "256"]

use indoubt::commands::probes::REGISTRY;
use indoubt::interrupt::{self, Ended};
use indoubt::usage::{self, HelpAsked};
use indoubt::{commands, error, hints, shown, term};
use std::process::ExitCode;

/// Exit code for usage, config and runtime errors: UNKNOWN, never clap's 2 (CRITICAL to a monitor).
const EXIT_UNKNOWN: u8 = 3;

fn main() -> ExitCode {
    // The one definition: the registry's commands, every command's examples attached
    // (help::command); a probe's command is parsed into its own arguments.
    let parsed = indoubt::help::command(&REGISTRY)
        .try_get_matches()
        .and_then(|matches| REGISTRY.invocation(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => {
            if err.kind() == clap::error::ErrorKind::DisplayHelp {
                let args: Vec<_> = std::env::args_os().skip(1).collect();
                if let HelpAsked::WithOthers { path } =
                    usage::help_asked(&indoubt::help::command(&REGISTRY), &args)
                {
                    // Help and exit 0 would read as OK to a monitor that runs this line.
                    let alone = match path.as_str() {
                        "" => "indoubt --help".to_string(),
                        path => format!("indoubt {path} --help"),
                    };
                    report(&error::hinted(
                        "help (-h or --help) was asked for along with other arguments; nothing was run",
                        format!(
                            "for help, give it alone: {alone}. -h is the host only in the pg commands and resolve pg, as in psql"
                        ),
                    ));
                    return ExitCode::from(EXIT_UNKNOWN);
                }
            }
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
    // Work left on the blocking pool after a signal may still hold reconcile's scratch
    // directory: it goes now, with the process.
    indoubt::fsafe::remove_scratch_dirs();
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
            report(&err);
            ExitCode::from(EXIT_UNKNOWN)
        }
    }
}

/// An error and its hint on stderr. An error may quote a server, a file or an argument:
/// escaped like any data.
fn report(err: &anyhow::Error) {
    term::status(&shown!("indoubt: error: {:#}", err));
    if let Some(hint) = hints::hint_for(err) {
        term::status(&shown!("hint: {}", hint));
    }
}
