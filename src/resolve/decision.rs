//! The coordinator's decision, from every configured source, and what it lets us propose.

use crate::audit::record::SourceAnswer;
use crate::config::DecisionKey;
use crate::context::Context;
use crate::gid::DecodedGid;
use crate::pg::session;
use crate::text::RawText;
use futures_util::future::{join_all, BoxFuture};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Commit,
    Rollback,
}

impl Decision {
    pub fn statement(self) -> &'static str {
        match self {
            Decision::Commit => "COMMIT PREPARED",
            Decision::Rollback => "ROLLBACK PREPARED",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Decision::Commit => "commit",
            Decision::Rollback => "rollback",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    /// The decision the evidence supports, if any.
    pub decision: Option<Decision>,
    /// True when no source decided: any action is a person's heuristic decision.
    pub heuristic: bool,
    pub why: String,
}

/// Reads a source's answer text: commit/committed or rollback/rolled back/aborted.
fn parse_answer(text: &str) -> Option<Decision> {
    match text.trim().to_ascii_lowercase().as_str() {
        "commit" | "committed" | "c" | "heurcom" => Some(Decision::Commit),
        "rollback" | "rolled back" | "rolledback" | "abort" | "aborted" | "r" | "heurrb" => {
            Some(Decision::Rollback)
        }
        _ => None,
    }
}

/// Asks every source that applies to this GID, all at once (an unreachable one costs one
/// timeout, not one each), answers in the config's order.
pub async fn ask_sources(ctx: &Context, gid: &RawText, decoded: &DecodedGid) -> Vec<SourceAnswer> {
    let resolve = &ctx.config.config.resolve;
    let gtrid = match decoded {
        DecodedGid::Xa(xa) => Some(xa.gtrid_text.as_str()),
        _ => None,
    };
    let mut asks: Vec<BoxFuture<'_, SourceAnswer>> = Vec::new();
    for source in &resolve.decision_sources {
        // A GID that is not UTF-8 cannot be a query parameter: that source is not asked,
        // which is not the same as its having no record.
        let key = match source.key {
            DecisionKey::Gid => gid.as_str().ok_or((
                "unreachable",
                "not asked: the GID is not UTF-8 text, which no query parameter can carry",
            )),
            DecisionKey::Gtrid => gtrid.ok_or((
                "no_record",
                "the GID is not an XA id, so it has no gtrid to look up",
            )),
        };
        asks.push(match key {
            Ok(key) => Box::pin(ask(
                ctx,
                &source.name,
                &source.target,
                &source.query,
                key,
                source.authoritative,
            )),
            Err((answer, detail)) => Box::pin(std::future::ready(SourceAnswer {
                source: source.name.clone(),
                answer: answer.into(),
                authoritative: false,
                detail: detail.into(),
            })),
        });
    }
    if let (
        DecodedGid::Citus {
            initiator_group_id,
            transaction_number,
            ..
        },
        Some(coordinator),
        Some(gid),
    ) = (decoded, &resolve.citus_coordinator, gid.as_str())
    {
        asks.push(Box::pin(citus(
            ctx,
            coordinator,
            gid,
            *initiator_group_id,
            *transaction_number,
        )));
    }
    join_all(asks).await
}

/// Citus commits a row of pg_dist_transaction inside the coordinator's own commit: a row
/// means commit. No row means presumed abort only once the distributed transaction is no
/// longer running on the coordinator (its row appears only at its commit), as Citus's own
/// recover_prepared_transactions() checks.
async fn citus(ctx: &Context, coordinator: &str, gid: &str, group: i64, txn: i64) -> SourceAnswer {
    let name = format!("citus coordinator {coordinator}");
    let query = "SELECT 'commit' FROM pg_dist_transaction WHERE gid = $1";
    let mut answer = ask(ctx, &name, coordinator, query, gid, true).await;
    if answer.answer == "no_record" {
        let running = async {
            let target = ctx.pg_target(Some(coordinator))?;
            let session = session::connect(&target.params, ctx.timeout).await?;
            let group = i32::try_from(group).unwrap_or(i32::MAX);
            let rows = session
                .query(
                    "SELECT count(*) FROM get_all_active_transactions() WHERE initiator_node_identifier = $1 AND transaction_number = $2",
                    &[&group, &txn],
                )
                .await?;
            anyhow::Ok(rows.first().map(|r| r.try_get::<_, i64>(0)).transpose()?.unwrap_or(0))
        }
        .await;
        match running {
            Ok(0) => {}
            Ok(_) => {
                answer.answer = "in_progress".into();
                answer.detail = "no decision row yet, but the distributed transaction is still running on the coordinator".into();
            }
            Err(e) => {
                answer.answer = "unreachable".into();
                answer.detail = format!(
                    "no decision row, and whether it is still running could not be checked: {e:#}"
                );
            }
        }
    }
    answer.detail = format!(
        "{} (initiator group {group}, transaction {txn})",
        answer.detail
    );
    answer
}

async fn ask(
    ctx: &Context,
    name: &str,
    target: &str,
    query: &str,
    key: &str,
    authoritative: bool,
) -> SourceAnswer {
    let outcome = async {
        let target = ctx.pg_target(Some(target))?;
        let session = session::connect(&target.params, ctx.timeout).await?;
        let rows = session.query(query, &[&key]).await?;
        anyhow::Ok(match rows.first() {
            Some(row) => Some(row.try_get::<_, String>(0)?),
            None => None,
        })
    }
    .await;
    let (answer, detail) = match outcome {
        Ok(Some(text)) => match parse_answer(&text) {
            Some(d) => (d.name().to_string(), format!("answered '{text}'")),
            None => (
                "unreachable".to_string(),
                format!("answered '{text}', which is neither commit nor rollback"),
            ),
        },
        Ok(None) => (
            "no_record".to_string(),
            "no row for this transaction".to_string(),
        ),
        Err(e) => ("unreachable".to_string(), format!("{e:#}")),
    };
    SourceAnswer {
        source: name.to_string(),
        answer,
        authoritative,
        detail,
    }
}

/// The proposal: a source's decision ("completing the protocol"); presumed abort only on an
/// authoritative, reachable "no record"; otherwise an explicit heuristic.
pub fn propose(answers: &[SourceAnswer]) -> Proposal {
    // An authoritative source's explicit answer outranks any other source's.
    for authoritative in [true, false] {
        let said = |d: &str| {
            answers
                .iter()
                .filter(|a| a.answer == d && (a.authoritative || !authoritative))
                .map(|a| a.source.clone())
                .collect::<Vec<_>>()
        };
        let (commits, rollbacks) = (said("commit"), said("rollback"));
        if !commits.is_empty() && !rollbacks.is_empty() {
            return Proposal {
                decision: None,
                heuristic: true,
                why: format!(
                    "the sources disagree ({} say commit, {} say rollback): find out which log is authoritative before acting",
                    commits.join(", "),
                    rollbacks.join(", ")
                ),
            };
        }
        if !commits.is_empty() {
            return Proposal {
                decision: Some(Decision::Commit),
                heuristic: false,
                why: format!(
                    "completing the protocol: {} recorded COMMIT",
                    commits.join(", ")
                ),
            };
        }
        if !rollbacks.is_empty() {
            return Proposal {
                decision: Some(Decision::Rollback),
                heuristic: false,
                why: format!(
                    "completing the protocol: {} recorded ROLLBACK",
                    rollbacks.join(", ")
                ),
            };
        }
    }
    if let Some(a) = answers
        .iter()
        .find(|a| a.authoritative && a.answer == "no_record")
    {
        return Proposal {
            decision: Some(Decision::Rollback),
            heuristic: false,
            why: format!(
                "presumed abort: the authoritative source {} is reachable and has no record of a commit",
                a.source
            ),
        };
    }
    let unreachable: Vec<String> = answers
        .iter()
        .filter(|a| a.answer == "unreachable")
        .map(|a| a.source.clone())
        .collect();
    let why = if answers.is_empty() {
        "no decision source is configured for this transaction".to_string()
    } else if !unreachable.is_empty() {
        format!(
            "{} could not be asked; \"no record\" from the others proves nothing",
            unreachable.join(", ")
        )
    } else {
        "no source is authoritative, and none has a record: \"no record in a log I can see\" is not a decision".to_string()
    };
    Proposal {
        decision: None,
        heuristic: true,
        why: format!("{why}. Any action is HEURISTIC and risks a mixed outcome across participants (HEURMIX): record it and reconcile by hand"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(source: &str, answer: &str, authoritative: bool) -> SourceAnswer {
        SourceAnswer {
            source: source.into(),
            answer: answer.into(),
            authoritative,
            detail: String::new(),
        }
    }

    #[test]
    fn the_coordinators_decision_comes_first() {
        assert_eq!(
            propose(&[a("log", "commit", false)]).decision,
            Some(Decision::Commit)
        );
        assert_eq!(
            propose(&[a("log", "rollback", true)]).decision,
            Some(Decision::Rollback)
        );
        let p = propose(&[a("tm-log", "no_record", true)]);
        assert_eq!((p.decision, p.heuristic), (Some(Decision::Rollback), false));
        assert!(p.why.contains("presumed abort"));
    }

    #[test]
    fn no_record_from_a_non_authoritative_or_unreachable_source_is_heuristic() {
        let p = propose(&[a("replica-log", "no_record", false)]);
        assert_eq!((p.decision, p.heuristic), (None, true));
        let p = propose(&[
            a("tm-log", "unreachable", true),
            a("other", "no_record", false),
        ]);
        assert!(
            p.heuristic
                && p.why.contains("tm-log could not be asked")
                && p.why.contains("HEURISTIC")
        );
        let p = propose(&[a("x", "commit", false), a("y", "rollback", false)]);
        assert!(p.heuristic && p.why.contains("disagree"));
        // The coordinator's own log outranks a replica's.
        let p = propose(&[a("replica", "commit", false), a("tm-log", "rollback", true)]);
        assert_eq!((p.decision, p.heuristic), (Some(Decision::Rollback), false));
        assert!(propose(&[]).heuristic);
    }

    #[test]
    fn answers_in_common_spellings() {
        assert_eq!(parse_answer(" COMMITTED "), Some(Decision::Commit));
        assert_eq!(parse_answer("aborted"), Some(Decision::Rollback));
        assert_eq!(parse_answer("maybe"), None);
    }
}
