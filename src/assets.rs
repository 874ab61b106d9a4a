//! Shell completions and man pages, generated from the clap definitions (so they cannot
//! drift from `--help`); `indoubt-assets` writes them, a test checks they are current.

use crate::cli::{Cli, EXIT_CODES_HELP};
use clap::CommandFactory;
use clap_complete::Shell;
use std::path::PathBuf;

/// Every generated file, as (path relative to the repository, contents).
pub fn render_all() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut cmd = Cli::command();
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut cmd, "indoubt", &mut out);
        let name = match shell {
            Shell::Bash => "indoubt.bash",
            Shell::Zsh => "_indoubt",
            Shell::Fish => "indoubt.fish",
            Shell::Elvish => "indoubt.elv",
            _ => "_indoubt.ps1",
        };
        files.push((PathBuf::from("completions").join(name), out));
    }
    let mut cmd = Cli::command();
    cmd.build();
    man_pages(&cmd, "indoubt", &mut files);
    files.push((
        PathBuf::from("man/indoubt-config.5"),
        crate::settings::man::config_page().into_bytes(),
    ));
    files
}

/// One page per command and subcommand: `indoubt-pg-prepared.1` for `indoubt pg prepared`.
fn man_pages(cmd: &clap::Command, name: &str, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    let page = cmd.clone().name(name.to_string());
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = clap_mangen::Man::new(page).render(&mut out);
    out.extend_from_slice(common_sections().as_bytes());
    files.push((PathBuf::from("man").join(format!("{name}.1")), out));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        man_pages(sub, &format!("{name}-{}", sub.get_name()), files);
    }
}

/// Exit status, environment and files: the same on every page.
fn common_sections() -> String {
    let roff = |text: &str| text.replace('\\', "\\\\").replace('-', "\\-");
    let mut out = String::from(".SH \"EXIT STATUS\"\n.nf\n");
    for line in EXIT_CODES_HELP
        .lines()
        .take_while(|l| !l.is_empty())
        .skip(1)
    {
        out.push_str(&roff(line));
        out.push('\n');
    }
    out.push_str(".fi\nResolution commands: 0 done or already resolved; 1 nothing done; 2 the action failed; 3 usage, config or connection error; 129, 130, 143 ended by a signal before the action, nothing done.\n");
    out.push_str(".SH ENVIRONMENT\n.nf\n");
    for line in EXIT_CODES_HELP
        .lines()
        .skip_while(|l| !l.starts_with("Environment"))
        .skip(1)
    {
        out.push_str(&roff(line));
        out.push('\n');
    }
    out.push_str(
        "XDG_STATE_HOME   audit log and outbox state (default ~/.local/state/indoubt)\n.fi\n",
    );
    out.push_str(".SH FILES\n.TP\n~/.config/indoubt/config.yaml\nthe config file (or \\-\\-config, or $INDOUBT_CONFIG)\n.TP\n~/.local/state/indoubt/audit.jsonl\nthe audit trail of resolutions (or \\-\\-audit\\-log, or audit.path in the config)\n");
    out
}
