//! The confirmation step: the only place a `Confirmed` token can be made.

use super::prompt::{self, Typed};
use anyhow::Result;
use std::io::IsTerminal;

/// Proof that a person (or a runbook with `--yes --reason`) confirmed this very action.
/// Writing code paths take one; its field is private, so nothing else can make it.
#[derive(Debug)]
pub struct Confirmed {
    _private: (),
}

/// How the operator said yes, or why nothing will be done.
pub enum Answer {
    Yes(Confirmed),
    /// Not confirmed: the reason, for the report.
    No(String),
}

/// `--yes` with a reason confirms without a prompt; otherwise a terminal must be there
/// and the operator must type `expected` exactly (a GID, or `topic-partition@offset`),
/// which cannot be done by reflex the way `y` can. Ctrl-D and Esc abort; Ctrl-C and a
/// signal end the program with nothing done.
pub async fn confirm(
    yes: bool,
    reason: Option<&str>,
    expected: &str,
    what: &str,
) -> Result<Answer> {
    if yes {
        return Ok(match reason.filter(|r| !r.trim().is_empty()) {
            Some(_) => Answer::Yes(Confirmed { _private: () }),
            None => Answer::No("--yes needs --reason \"…\": the audit trail records why".into()),
        });
    }
    if !std::io::stdin().is_terminal() {
        return Ok(Answer::No(
            "no terminal to confirm on: a runbook passes --yes --reason \"…\" (and --ticket)"
                .into(),
        ));
    }
    eprintln!("{what}");
    let prompt = format!(
        "Type {} to confirm (anything else aborts)",
        crate::term::escape_control(expected)
    );
    Ok(match prompt::read_line(&prompt).await? {
        Typed::Line(typed) if typed == expected.as_bytes() => {
            Answer::Yes(Confirmed { _private: () })
        }
        Typed::Line(_) => Answer::No("the typed text did not match: nothing was done".into()),
        Typed::EndOfInput => Answer::No("aborted with Ctrl-D".into()),
        Typed::Escape => Answer::No("aborted with Esc".into()),
    })
}
