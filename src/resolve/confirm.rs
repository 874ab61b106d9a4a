//! The confirmation step: the only place a `Confirmed` token can be made.

use super::prompt::{self, Typed};
use crate::term::Shown;
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

/// What the operator must type back: shown escaped (as tables show it), and accepted
/// in that form or as the exact text itself.
pub struct Expected<'a> {
    pub shown: Shown,
    pub exact: &'a [u8],
}

impl Expected<'_> {
    fn matches(&self, typed: &[u8]) -> bool {
        typed == self.shown.as_str().as_bytes()
            || typed == self.exact
            || std::str::from_utf8(typed)
                .ok()
                .and_then(|t| crate::text::unescape(t).ok())
                .is_some_and(|b| b == self.exact)
    }
}

/// `--yes` with a reason confirms without a prompt; otherwise a terminal must be there
/// and the operator must type `expected` exactly (a GID, or `topic-partition@offset`),
/// which cannot be done by reflex the way `y` can. `what` is the evidence, shown first.
/// Ctrl-D and Esc abort; Ctrl-C and a signal end the program with nothing done.
pub async fn confirm(
    yes: bool,
    reason: Option<&str>,
    expected: &Expected<'_>,
    what: &Shown,
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
    crate::term::status(what);
    let prompt = crate::shown!("Type {} to confirm (anything else aborts)", expected.shown);
    Ok(match prompt::read_line(&prompt).await? {
        Typed::Line(typed) if expected.matches(&typed) => Answer::Yes(Confirmed { _private: () }),
        Typed::Line(_) => Answer::No("the typed text did not match: nothing was done".into()),
        Typed::EndOfInput => Answer::No("aborted with Ctrl-D".into()),
        Typed::Escape => Answer::No("aborted with Esc".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_form_and_the_exact_text_both_confirm() {
        let gid = b"odd\xff\\x";
        let expected = Expected {
            shown: Shown::bytes(gid),
            exact: gid,
        };
        assert_eq!(expected.shown.as_str(), "odd\\xff\\\\x");
        assert!(expected.matches(b"odd\\xff\\\\x"));
        assert!(!expected.matches(b"odd"));
        let plain = Expected {
            shown: Shown::text("a\\b"),
            exact: b"a\\b",
        };
        assert!(plain.matches(b"a\\b") && plain.matches(b"a\\\\b"));
    }
}
