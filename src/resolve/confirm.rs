//! The confirmation step: the only place a `Confirmed` token can be made, and where a
//! heuristic decision taken at the terminal gets the reason it is recorded with.

use super::prompt::{self, Typed};
use crate::shown;
use crate::term::Shown;
use anyhow::Result;
use sha2::{Digest, Sha256};
use std::io::IsTerminal;

/// Proof that a person (or a runbook with `--yes --reason`) confirmed this very action.
/// Writing code paths take one; its field is private, so nothing else can make it.
#[derive(Debug)]
pub struct Confirmed {
    _private: (),
}

/// A yes, with what the audit record says about why.
#[derive(Debug)]
pub struct Confirmation {
    pub confirmed: Confirmed,
    pub reason: Option<String>,
    pub ticket: Option<String>,
}

/// How the operator said yes, or why nothing will be done.
pub enum Answer {
    Yes(Confirmation),
    /// Not confirmed: the reason, for the report.
    No(String),
}

/// An object's own id, which may be typed instead of the token: shown escaped (as
/// tables show it), and accepted in that form or as the exact text itself.
pub struct Expected<'a> {
    pub shown: Shown,
    pub exact: &'a [u8],
    /// How the prompt names it when the id itself is too long to repeat ("the whole GID").
    pub called: Option<&'static str>,
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

/// What is asked of the operator.
pub struct Request<'a> {
    /// `--yes`: a runbook confirms without a prompt, with `--reason`.
    pub yes: bool,
    pub reason: Option<&'a str>,
    pub ticket: Option<&'a str>,
    /// Taken without the coordinator's decision (against the proposal, forced, or with no
    /// authoritative answer): recorded only with a reason, asked for at the terminal.
    pub heuristic: bool,
    /// The decision, as the prompt names it (commit, rollback, abort).
    pub decision: &'static str,
    /// Each object acted on, by its identity: the token is derived from these and the decision.
    pub objects: Vec<Vec<u8>>,
    /// The one object's id, also accepted instead of the token (None for several objects).
    pub id: Option<Expected<'a>>,
    /// The evidence, shown before anything is asked.
    pub what: Shown,
}

/// One thing the terminal shows or asks, in order, before the action is confirmed.
#[derive(Debug)]
pub enum Step {
    /// A paragraph shown (on stderr).
    Say(Shown),
    /// The reason a heuristic decision is recorded with (required).
    AskReason(Shown),
    /// A ticket or incident id (optional).
    AskTicket(Shown),
    /// The last question: the token (or the id) typed confirms.
    Confirm { prompt: Shown, token: String },
}

impl Step {
    /// As it appears on the terminal: a paragraph, or a question the answer is typed after.
    pub fn printed(&self) -> String {
        match self {
            Step::Say(text) => format!("{text}\n"),
            Step::AskReason(q) | Step::AskTicket(q) | Step::Confirm { prompt: q, .. } => {
                prompt::printed(q)
            }
        }
    }
}

/// Characters of the token: Crockford's base32 in lower case (no i, l, o or u to misread).
const TOKEN_ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const TOKEN_LEN: usize = 6;

/// The short token the operator types to confirm: 30 bits of SHA-256 over the decision
/// and the objects, so another decision or another object gives another token, and one
/// typed from a runbook or a shell history for something else does not confirm this.
/// It proves attention, not identity: it is shown on the screen it is typed at.
pub fn token(decision: &str, objects: &[Vec<u8>]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"indoubt confirmation v1\0");
    hash.update(decision.as_bytes());
    for object in objects {
        hash.update((object.len() as u64).to_be_bytes());
        hash.update(object);
    }
    let digest = hash.finalize();
    let bits = u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ]);
    (0..TOKEN_LEN)
        .map(|i| TOKEN_ALPHABET[((bits >> (59 - 5 * i)) & 31) as usize] as char)
        .collect()
}

/// Whether [`confirm`] shows the evidence: at a terminal, without `--yes`.
pub fn shows_evidence(yes: bool) -> bool {
    !yes && std::io::stdin().is_terminal()
}

/// `--yes` with a reason confirms without a prompt; otherwise a terminal must be there.
/// At the terminal the evidence comes first; a heuristic decision without `--reason` then
/// asks for a reason (required) and a ticket (optional, unless `--ticket` gave one); last
/// the operator types the short token shown, or the object's whole id, which cannot be
/// done by reflex the way `y` can. Ctrl-D and Esc abort at every question; Ctrl-C and a
/// signal end the program with nothing done.
pub async fn confirm(request: &Request<'_>) -> Result<Answer> {
    let given = |s: Option<&str>| s.filter(|r| !r.trim().is_empty()).map(str::to_string);
    if request.yes {
        return Ok(match given(request.reason) {
            Some(reason) => Answer::Yes(Confirmation {
                confirmed: Confirmed { _private: () },
                reason: Some(reason),
                ticket: given(request.ticket),
            }),
            None => Answer::No("--yes needs --reason \"…\": the audit trail records why".into()),
        });
    }
    if !shows_evidence(false) {
        return Ok(Answer::No(
            "no terminal to confirm on: a runbook passes --yes --reason \"…\" (and --ticket)"
                .into(),
        ));
    }
    let mut reason = given(request.reason);
    let mut ticket = given(request.ticket);
    for step in steps(request) {
        match step {
            Step::Say(text) => crate::term::status(&text),
            Step::AskReason(question) => match ask(&question).await? {
                Ok(Some(text)) => reason = Some(text),
                Ok(None) => return Ok(Answer::No("a heuristic decision needs a reason".into())),
                Err(why) => return Ok(Answer::No(why)),
            },
            Step::AskTicket(question) => match ask(&question).await? {
                Ok(typed) => ticket = typed,
                Err(why) => return Ok(Answer::No(why)),
            },
            Step::Confirm { prompt, token } => {
                return Ok(match prompt::read_line(&prompt).await? {
                    Typed::Line(typed)
                        if is_token(&typed, &token)
                            || request.id.as_ref().is_some_and(|id| id.matches(&typed)) =>
                    {
                        Answer::Yes(Confirmation {
                            confirmed: Confirmed { _private: () },
                            reason,
                            ticket,
                        })
                    }
                    Typed::Line(_) => Answer::No("the typed text did not match".into()),
                    Typed::EndOfInput => Answer::No("aborted with Ctrl-D".into()),
                    Typed::Escape => Answer::No("aborted with Esc".into()),
                })
            }
        }
    }
    Ok(Answer::No("nothing was asked to confirm".into()))
}

/// What the terminal shows and asks, in order: the evidence; for a heuristic decision
/// without `--reason`, why a reason is needed, the reason and a ticket (unless
/// `--ticket` gave one); last the token. Pure, so the golden tests pin the prompt.
pub fn steps(request: &Request<'_>) -> Vec<Step> {
    let given = |s: Option<&str>| s.is_some_and(|r| !r.trim().is_empty());
    let mut steps = vec![Step::Say(request.what.clone())];
    if request.heuristic && !given(request.reason) {
        // Two short lines: readable on an 80-column terminal without wrapping.
        steps.push(Step::Say(Shown::lit(
            "This is a HEURISTIC decision: it is recorded with the reason you give.\nCtrl-D or Esc aborts.",
        )));
        steps.push(Step::AskReason(Shown::lit("Reason")));
        if !given(request.ticket) {
            steps.push(Step::AskTicket(Shown::lit(
                "Ticket or incident id (Enter for none)",
            )));
        }
    }
    let token = token(request.decision, &request.objects);
    let decision = capitalized(request.decision);
    let prompt = match &request.id {
        Some(Expected {
            called: Some(called),
            ..
        }) => shown!(
            "{}: type {}, or {}, to confirm (anything else aborts)",
            decision,
            token,
            *called
        ),
        Some(id) => shown!(
            "{}: type {}, or {}, to confirm (anything else aborts)",
            decision,
            token,
            id.shown
        ),
        None => shown!(
            "{}: type {} to confirm (anything else aborts)",
            decision,
            token
        ),
    };
    steps.push(Step::Confirm { prompt, token });
    steps
}

/// The token as typed: surrounding blanks and letter case do not matter.
fn is_token(typed: &[u8], token: &str) -> bool {
    typed.trim_ascii().eq_ignore_ascii_case(token.as_bytes())
}

fn capitalized(word: &'static str) -> Shown {
    let mut chars = word.chars();
    let first: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    Shown::text(&format!("{first}{}", chars.as_str()))
}

/// One answer typed at the terminal: Ok(Some(text)), Ok(None) for an empty line, or
/// Err(why nothing will be done) for Ctrl-D, Esc or text that is not UTF-8.
async fn ask(question: &Shown) -> Result<Result<Option<String>, String>> {
    Ok(match prompt::read_line(question).await? {
        Typed::Line(bytes) => match String::from_utf8(bytes) {
            Ok(text) if text.trim().is_empty() => Ok(None),
            Ok(text) => Ok(Some(text)),
            Err(_) => Err("the text typed is not UTF-8".into()),
        },
        Typed::EndOfInput => Err("aborted with Ctrl-D".into()),
        Typed::Escape => Err("aborted with Esc".into()),
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
            called: None,
        };
        assert_eq!(expected.shown.as_str(), "odd\\xff\\\\x");
        assert!(expected.matches(b"odd\\xff\\\\x"));
        assert!(!expected.matches(b"odd"));
        let plain = Expected {
            shown: Shown::text("a\\b"),
            exact: b"a\\b",
            called: None,
        };
        assert!(plain.matches(b"a\\b") && plain.matches(b"a\\\\b"));
    }

    #[test]
    fn the_token_is_short_and_changes_with_the_decision_and_the_object() {
        let gid = vec![b'x'; 120];
        let commit = token("commit", std::slice::from_ref(&gid));
        assert_eq!(commit.len(), TOKEN_LEN);
        assert!(
            commit.bytes().all(|b| TOKEN_ALPHABET.contains(&b)),
            "{commit}"
        );
        assert_eq!(
            commit,
            token("commit", std::slice::from_ref(&gid)),
            "stable"
        );
        assert_ne!(commit, token("rollback", std::slice::from_ref(&gid)));
        let mut other = gid.clone();
        other[119] = b'y';
        assert_ne!(commit, token("commit", &[other]));
        // Two objects are not one object of both.
        assert_ne!(
            token("commit", &[b"ab".to_vec(), b"c".to_vec()]),
            token("commit", &[b"a".to_vec(), b"bc".to_vec()])
        );
        assert!(is_token(
            format!(" {} \n", commit.to_uppercase())
                .trim_ascii_end()
                .as_bytes(),
            &commit
        ));
        assert!(!is_token(b"", &commit));
        // indoubt-resolve-pg(1)'s example session shows this one.
        assert_eq!(
            token("rollback", &[b"rollback\x00131077_orders_4711".to_vec()]),
            "gx8ntn"
        );
    }
}
