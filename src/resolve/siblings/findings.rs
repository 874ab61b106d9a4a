//! The findings the siblings add to a resolution: targets not searched, siblings left
//! alone, and other branches still prepared, with the command that resolves them all
//! through one branch (`--all-branches --dry-run`).

use super::{mixed_outcome_risk, Siblings, THIS_SERVER};
use crate::codes;
use crate::findings::{Finding, Severity};
use crate::mysql::xa::Xid;
use crate::next::Next;
use crate::text::{RawText, Text};

/// A branch through which every branch can be resolved together, and where it is.
pub enum Via<'a> {
    Pg(&'a RawText, &'a str),
    Mysql(&'a Xid, &'a str),
}

impl Via<'_> {
    /// `resolve pg 'GID' on TARGET`, `resolve mysql X'…',X'…',N on TARGET`.
    fn command(&self) -> Text {
        match self {
            Via::Pg(gid, on) => crate::text!["resolve pg '", *gid, "' on ", *on],
            Via::Mysql(xid, on) => crate::text!["resolve mysql ", xid.sql(), " on ", *on],
        }
    }
}

/// `indoubt resolve pg|mysql … --all-branches --dry-run` through a branch: on the server
/// of this run addressed as it was (`this server`), else on a participant by its name.
pub fn next_through(
    addressing: &crate::settings::addressing::Addressing,
    via: &Via<'_>,
) -> Option<Next> {
    use crate::next::Word;
    match via {
        Via::Pg(gid, on) => {
            // After `--`: a GID starting with `-` is not read as a flag.
            let tail = [
                Word::Lit("--all-branches"),
                Word::Lit("--dry-run"),
                Word::Lit("--"),
                Word::Raw(gid),
            ];
            let resolve = [Word::Lit("resolve"), Word::Lit("pg")];
            Some(match *on {
                THIS_SERVER => addressing.indoubt(&resolve, &tail),
                participant => addressing
                    .of_config_target(participant)
                    .indoubt(&resolve, &tail),
            })
        }
        Via::Mysql(xid, on) => {
            let arg = xid.arg();
            let resolve = [Word::Lit("resolve"), Word::Lit("mysql"), Word::Value(&arg)];
            let tail = [Word::Lit("--all-branches"), Word::Lit("--dry-run")];
            Some(match *on {
                THIS_SERVER => addressing.indoubt(&resolve, &tail),
                participant => addressing
                    .of_mysql_target(participant)
                    .indoubt(&resolve, &tail),
            })
        }
    }
}

/// How the resolution the siblings belong to went, for their findings.
pub struct Resolution<'a> {
    /// The branch named, while it is prepared; None when it was not (any more).
    pub named: Option<Via<'a>>,
    pub all_branches: bool,
    /// The flow acted (the named branch has an outcome): a sibling handed to it that
    /// has none was not attempted.
    pub acted: bool,
    /// The next command through a branch, when one can be written.
    pub next: &'a dyn Fn(&Via<'_>) -> Option<Next>,
}

/// The findings the siblings add to a resolution (the flow reports each branch it acted
/// on): UNKNOWN for each target that could not be read; with `--all-branches` one for
/// each sibling left alone, and why; a WARNING
/// while other branches stay prepared that nothing was done about, naming how to
/// resolve them together (through a branch still prepared, if the one named is gone).
pub fn findings(found: &Siblings, how: &Resolution<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in found.sibling_search.iter().filter(|t| !t.checked) {
        out.push(
            Finding::new(
                Severity::Unknown,
                codes::SIBLINGS_UNCHECKED,
                crate::text!["siblings on ", t.target.as_str()],
                format!(
                    "{}: whether branches of this global transaction are prepared there is UNKNOWN",
                    t.detail
                ),
            )
            .evidence("source", "pg_prepared_xacts"),
        );
    }
    let pg = found.siblings.iter().map(|s| {
        let subject = crate::text!["prepared transaction ", s.place()];
        (subject, &s.handling)
    });
    let mysql = found
        .mysql_siblings
        .iter()
        .map(|s| (s.place(), &s.handling));
    for (subject, h) in pg.chain(mysql) {
        if let Some(why) = &h.left_alone {
            out.push(Finding::new(
                Severity::Warning,
                codes::BRANCH_LEFT_ALONE,
                subject,
                format!("not resolved: {why}"),
            ));
        }
    }
    // Still prepared, and not handed to the flow, or handed and not done.
    let others = found.others();
    let untouched: Vec<&Text> = others
        .iter()
        .filter(|(_, h)| h.resolvable())
        .filter(|(_, h)| h.statement.is_none() || h.outcome.is_some() || how.acted)
        .map(|(place, _)| place)
        .collect();
    if !untouched.is_empty() {
        let mut message = Text::from(mixed_outcome_risk(untouched.len(), false, how.all_branches));
        message.push_str(". Still prepared: ");
        for (i, place) in untouched.iter().enumerate() {
            if i > 0 {
                message.push_str(", ");
            }
            message.push_text(place);
        }
        // Through the branch named, or, when it is gone, one still prepared.
        let prepared_pg = found.siblings.iter().find(|s| s.handling.resolvable());
        let prepared_mysql = found
            .mysql_siblings
            .iter()
            .find(|s| s.handling.resolvable());
        let via = match (&how.named, prepared_pg, prepared_mysql) {
            (Some(Via::Pg(gid, on)), _, _) => Via::Pg(gid, on),
            (Some(Via::Mysql(xid, on)), _, _) => Via::Mysql(xid, on),
            (None, Some(s), _) => Via::Pg(&s.gid, s.found_on.as_str()),
            (None, None, Some(s)) => Via::Mysql(&s.xid, s.found_on.as_str()),
            (None, None, None) => return out,
        };
        let subject = match &found.global_transaction {
            Some(g) => crate::text!["global transaction ", g.key.as_str()],
            None => crate::text!["global transaction of ", via.command()],
        };
        let mut finding = Finding::new(
            Severity::Warning,
            codes::OTHER_BRANCHES_PREPARED,
            subject,
            message,
        )
        .evidence("source", "pg_prepared_xacts")
        .evidence(
            "global_transaction",
            found.global_transaction.as_ref().map(|g| g.key.clone()),
        )
        .advice(crate::text![
            "resolve every branch with the same decision: ",
            via.command(),
            " with --all-branches and --commit or --rollback"
        ]);
        if let Some(next) = (how.next)(&via) {
            finding = finding.next(next);
        }
        out.push(finding);
    }
    out
}
