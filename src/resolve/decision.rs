//! What the decision sources' answers let us propose: the coordinator's decision, presumed
//! abort (only past `in_doubt_after`), waiting, or an explicit heuristic.

// The decision and the answers are the audit record's words; the settings take a decision too.
pub use crate::audit::record::{Answer, Decision, SourceAnswer};
use crate::codes;
use crate::units::{format_duration, seconds};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    /// The decision the evidence supports, if any.
    pub decision: Option<Decision>,
    /// True when no source decided: any action is a person's heuristic decision.
    pub heuristic: bool,
    /// True when the coordinator may still be deciding: acting now needs `--force`.
    pub wait: bool,
    pub why: String,
}

/// Reads an answer text: the states that record a decision, the states of a transaction
/// still being decided (never a decision, never "no record"), else not understood.
pub fn parse_answer(text: &str) -> Option<Answer> {
    let word = text.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    Some(match word.as_str() {
        "commit" | "committing" | "committed" | "c" | "heurcom" | "heuristic_commit" => {
            Answer::Commit
        }
        "rollback" | "rolling_back" | "rolled_back" | "rolledback" | "abort" | "aborting"
        | "aborted" | "r" | "heurrb" | "heuristic_rollback" => Answer::Rollback,
        "active" | "preparing" | "prepared" | "running" | "in_doubt" | "in_progress" => {
            Answer::InProgress
        }
        _ => return None,
    })
}

/// What a heuristic decision risks, as the evidence shows it next to the statement.
pub const HEURISTIC_RISK: &str = "not the coordinator's decision: it is recorded with the reason given, and unless every participant gets the same decision the global transaction ends mixed (HEURMIX)";

/// What a resolution does with the decision asked for and the proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Act: the decision, and whether it is a person's (not the proposal's).
    Act { decision: Decision, heuristic: bool },
    /// Nothing done: the finding's code and message.
    Refuse {
        code: crate::codes::Code,
        message: String,
    },
}

/// The decision to act on: the one asked for (`--commit`/`--rollback`), refused when a
/// source contradicts it or the coordinator may still be deciding, unless `force`; else
/// the proposal's at a terminal, where the person confirms it, but never for a runbook
/// (`yes`), which acts only on a decision it names: a proposal can change under it.
pub fn choose(
    proposal: &Proposal,
    answers: &[SourceAnswer],
    requested: Option<Decision>,
    force: bool,
    yes: bool,
) -> Choice {
    // Asking for what any source explicitly contradicts needs --force, agreement or not.
    let contradicted =
        requested.is_some_and(|r| answers.iter().any(|a| a.answer == r.opposite().answer()));
    let chosen = match (requested, proposal.decision) {
        (Some(r), _) if contradicted && !force => {
            return Choice::Refuse {
                code: codes::DECISION_CONFLICT,
                message: format!(
                    "refused: {} — --{} would contradict it and break atomicity; --force makes it a recorded heuristic",
                    proposal.why,
                    r.name()
                ),
            }
        }
        (Some(r), _) if proposal.wait && !force => {
            return Choice::Refuse {
                code: codes::COORDINATOR_DECIDING,
                message: format!(
                    "refused: {} — --{} now could contradict the coordinator's decision; --force makes it a recorded heuristic",
                    proposal.why,
                    r.name()
                ),
            }
        }
        (Some(r), _) => r,
        (None, Some(p)) if yes => {
            return Choice::Refuse {
                code: codes::PROPOSAL_ONLY,
                message: format!(
                    "nothing done: the proposal is to {} ({}). --yes acts only on an explicit --{}",
                    p.name(),
                    proposal.why,
                    p.name()
                ),
            }
        }
        (None, Some(p)) => p,
        (None, None) => {
            return Choice::Refuse {
                code: codes::NO_DECISION,
                message: format!(
                    "nothing done: {}. Choose --commit or --rollback to take that decision yourself",
                    proposal.why
                ),
            }
        }
    };
    Choice::Act {
        decision: chosen,
        heuristic: proposal.decision != Some(chosen),
    }
}

const HEURISTIC: &str = "Any action is HEURISTIC and risks a mixed outcome across participants (HEURMIX): record it and reconcile by hand";

/// The proposal for a branch prepared `prepared_age_seconds` ago: a source's decision
/// ("completing the protocol"); waiting while the coordinator may still decide; presumed
/// abort only on an authoritative "no record" for a branch older than that source's
/// `in_doubt_after`, with every source asked; otherwise an explicit heuristic.
pub fn propose(answers: &[SourceAnswer], prepared_age_seconds: f64) -> Proposal {
    propose_aged(answers, prepared_age_seconds, false)
}

/// The same for a branch whose age is known only as a lower bound (`at_least`: MySQL's
/// unattributable or recovered branches), which the words say.
pub fn propose_aged(
    answers: &[SourceAnswer],
    prepared_age_seconds: f64,
    at_least: bool,
) -> Proposal {
    let at_least_words = if at_least { "at least " } else { "" };
    // An authoritative source's explicit answer outranks any other source's.
    for authoritative in [true, false] {
        let said = |d: Answer| {
            answers
                .iter()
                .filter(|a| a.answer == d && (a.authoritative || !authoritative))
                .map(|a| a.source.clone())
                .collect::<Vec<_>>()
        };
        let (commits, rollbacks) = (said(Answer::Commit), said(Answer::Rollback));
        if !commits.is_empty() && !rollbacks.is_empty() {
            return heuristic(format!(
                "the sources disagree ({} say commit, {} say rollback): find out which log is authoritative before acting",
                commits.join(", "),
                rollbacks.join(", ")
            ));
        }
        for (sources, decision) in [(commits, Decision::Commit), (rollbacks, Decision::Rollback)] {
            if !sources.is_empty() {
                return Proposal {
                    decision: Some(decision),
                    heuristic: false,
                    wait: false,
                    why: format!(
                        "completing the protocol: {} recorded {}",
                        sources.join(", "),
                        decision.name().to_uppercase()
                    ),
                };
            }
        }
    }
    if let Some(a) = answers.iter().find(|a| a.answer == Answer::InProgress) {
        return wait(format!(
            "wait: {} says the coordinator has not decided yet ({})",
            a.source, a.detail
        ));
    }
    let unreachable: Vec<String> = answers
        .iter()
        .filter(|a| a.answer == Answer::Unreachable)
        .map(|a| a.source.clone())
        .collect();
    let no_record = answers
        .iter()
        .find(|a| a.authoritative && a.answer == Answer::NoRecord);
    if let (Some(a), true) = (no_record, unreachable.is_empty()) {
        let after = a.in_doubt_after_seconds.unwrap_or(0.0);
        if prepared_age_seconds <= after {
            return wait(match at_least {
                false => format!(
                    "wait: the coordinator may still be deciding. {} has no record yet, but this branch was prepared only {} ago, within its in_doubt_after of {}",
                    a.source,
                    format_duration(seconds(prepared_age_seconds)),
                    format_duration(seconds(after))
                ),
                true => format!(
                    "wait: the coordinator may still be deciding. {} has no record yet, and this branch is known to be only at least {} old, which does not establish that it is past its in_doubt_after of {}",
                    a.source,
                    format_duration(seconds(prepared_age_seconds)),
                    format_duration(seconds(after))
                ),
            });
        }
        return Proposal {
            decision: Some(Decision::Rollback),
            heuristic: false,
            wait: false,
            why: format!(
                "presumed abort: the authoritative source {} is reachable and has no record of a commit, and the branch was prepared {}{} ago (past its in_doubt_after of {})",
                a.source,
                at_least_words,
                format_duration(seconds(prepared_age_seconds)),
                format_duration(seconds(after))
            ),
        };
    }
    let asked = answers.iter().any(|a| a.answer != Answer::NotApplicable);
    heuristic(if answers.is_empty() {
        "no decision source is configured for this transaction".to_string()
    } else if !asked {
        "no configured decision source applies to this transaction".to_string()
    } else if !unreachable.is_empty() {
        format!(
            "{} could not be asked, and its record could say commit; \"no record\" from the others proves nothing",
            unreachable.join(", ")
        )
    } else {
        "no source is authoritative, and none has a record: \"no record in a log I can see\" is not a decision".to_string()
    })
}

fn heuristic(why: String) -> Proposal {
    Proposal {
        decision: None,
        heuristic: true,
        wait: false,
        why: format!("{why}. {HEURISTIC}"),
    }
}

fn wait(why: String) -> Proposal {
    Proposal {
        decision: None,
        heuristic: true,
        wait: true,
        why: format!("{why}. Acting now is a HEURISTIC decision that needs --force"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(source: &str, answer: Answer, authoritative: bool) -> SourceAnswer {
        SourceAnswer {
            source: source.into(),
            answer,
            authoritative,
            detail: String::new(),
            in_doubt_after_seconds: Some(300.0),
        }
    }

    const OLD: f64 = 3600.0;

    #[test]
    fn the_coordinators_decision_comes_first() {
        let p = propose(&[a("log", Answer::Commit, false)], 1.0);
        assert_eq!((p.decision, p.wait), (Some(Decision::Commit), false));
        assert_eq!(
            propose(&[a("log", Answer::Rollback, true)], OLD).decision,
            Some(Decision::Rollback)
        );
        let p = propose(&[a("tm-log", Answer::NoRecord, true)], OLD);
        assert_eq!((p.decision, p.heuristic), (Some(Decision::Rollback), false));
        assert!(p.why.contains("presumed abort"));
    }

    #[test]
    fn an_age_known_only_as_a_lower_bound_is_said_so() {
        let p = propose_aged(&[a("tm-log", Answer::NoRecord, true)], OLD, true);
        assert_eq!(p.decision, Some(Decision::Rollback));
        assert!(p.why.contains("prepared at least 1h ago"), "{}", p.why);
        let p = propose_aged(&[a("tm-log", Answer::NoRecord, true)], 60.0, true);
        assert!(p.wait && p.why.contains("does not establish"), "{}", p.why);
    }

    #[test]
    fn no_record_for_a_young_branch_or_an_undecided_one_means_wait() {
        let p = propose(&[a("tm-log", Answer::NoRecord, true)], 5.0);
        assert_eq!((p.decision, p.heuristic, p.wait), (None, true, true));
        assert!(p.why.contains("may still be deciding") && p.why.contains("--force"));
        let p = propose(
            &[
                a("tm-log", Answer::NoRecord, true),
                a("status", Answer::InProgress, false),
            ],
            OLD,
        );
        assert!(p.wait && p.decision.is_none(), "{p:?}");
    }

    #[test]
    fn no_record_from_a_non_authoritative_or_with_an_unreachable_source_is_heuristic() {
        let p = propose(&[a("replica-log", Answer::NoRecord, false)], OLD);
        assert_eq!((p.decision, p.heuristic, p.wait), (None, true, false));
        let p = propose(
            &[
                a("tm-log", Answer::NoRecord, true),
                a("other-tm", Answer::Unreachable, true),
            ],
            OLD,
        );
        assert!(
            p.heuristic
                && p.decision.is_none()
                && p.why.contains("other-tm could not be asked")
                && p.why.contains("HEURISTIC"),
            "{p:?}"
        );
        let p = propose(
            &[
                a("x", Answer::Commit, false),
                a("y", Answer::Rollback, false),
            ],
            OLD,
        );
        assert!(p.heuristic && p.why.contains("disagree"));
        // The coordinator's own log outranks a replica's.
        let p = propose(
            &[
                a("replica", Answer::Commit, false),
                a("tm-log", Answer::Rollback, true),
            ],
            OLD,
        );
        assert_eq!((p.decision, p.heuristic), (Some(Decision::Rollback), false));
        assert!(propose(&[], OLD).heuristic);
        let p = propose(&[a("atomikos", Answer::NotApplicable, true)], OLD);
        assert!(
            p.why.contains("no configured decision source applies"),
            "{p:?}"
        );
        assert!(propose(&[], OLD)
            .why
            .contains("no decision source is configured"));
    }

    #[test]
    fn a_decision_against_the_sources_or_the_proposal_is_refused_or_heuristic() {
        let answers = [a("log", Answer::Commit, true)];
        let p = propose(&answers, OLD);
        assert_eq!(
            choose(&p, &answers, Some(Decision::Commit), false, true),
            Choice::Act {
                decision: Decision::Commit,
                heuristic: false
            }
        );
        let refused = choose(&p, &answers, Some(Decision::Rollback), false, true);
        assert!(matches!(
            refused,
            Choice::Refuse {
                code: codes::DECISION_CONFLICT,
                ..
            }
        ));
        assert_eq!(
            choose(&p, &answers, Some(Decision::Rollback), true, true),
            Choice::Act {
                decision: Decision::Rollback,
                heuristic: true
            },
            "forced against the log: a person's decision"
        );
        assert!(matches!(
            choose(&p, &answers, None, false, true),
            Choice::Refuse {
                code: codes::PROPOSAL_ONLY,
                ..
            }
        ));
        assert_eq!(
            choose(&p, &answers, None, false, false),
            Choice::Act {
                decision: Decision::Commit,
                heuristic: false
            },
            "at a terminal the proposal is the default"
        );
        let young = [a("tm-log", Answer::NoRecord, true)];
        let p = propose(&young, 5.0);
        assert!(matches!(
            choose(&p, &young, Some(Decision::Rollback), false, false),
            Choice::Refuse {
                code: codes::COORDINATOR_DECIDING,
                ..
            }
        ));
        assert!(matches!(
            choose(&p, &young, None, false, false),
            Choice::Refuse {
                code: codes::NO_DECISION,
                ..
            }
        ));
        assert_eq!(
            choose(&p, &young, Some(Decision::Rollback), true, false),
            Choice::Act {
                decision: Decision::Rollback,
                heuristic: true
            }
        );
    }

    #[test]
    fn answers_in_the_spellings_of_real_transaction_managers() {
        assert_eq!(parse_answer(" COMMITTED "), Some(Answer::Commit));
        assert_eq!(parse_answer("COMMITTING"), Some(Answer::Commit));
        assert_eq!(parse_answer("ROLLING_BACK"), Some(Answer::Rollback));
        assert_eq!(parse_answer("aborted"), Some(Answer::Rollback));
        for undecided in ["ACTIVE", "PREPARING", "prepared", "RUNNING"] {
            assert_eq!(
                parse_answer(undecided),
                Some(Answer::InProgress),
                "{undecided}"
            );
        }
        assert_eq!(parse_answer("maybe"), None);
    }
}
