//! A prepared branch handed to the flow, on either engine: the one `Proposal` of
//! PostgreSQL's prepared transactions and MySQL's XA branches. What is decided and
//! recorded of a branch is the same on both (`Decided`); its id, name and statement are
//! its engine's (`Engine`), and so are the re-read and the statement (each engine's
//! `Subject`).

use crate::audit::record::SourceAnswer;
use crate::findings::Finding;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::Expected;
use crate::resolve::decision::Decision;
use crate::resolve::flow::{Plan, Proposal};
use crate::text;
use crate::text::Text;
use std::time::Duration;

/// What was decided for a branch, and what the flow shows, confirms and records of it.
pub struct Decided {
    pub target: Target,
    pub timeout: Duration,
    pub decision: Decision,
    pub heuristic: bool,
    pub evidence: serde_json::Value,
    pub decision_sources: Vec<SourceAnswer>,
    /// The evidence as the operator confirms it.
    pub summary: Vec<Block>,
    /// The server's own identity, when read (the audit trail's `server`).
    pub server: Option<String>,
    /// The server it is on, when that is not the one the command named (a sibling found
    /// on a `resolve.participants` target): its name follows the branch's.
    pub place: Option<String>,
}

/// What a branch is on its engine: how it is named, typed and finished.
pub trait Engine {
    /// The connection the re-read opens and the statement runs on.
    type Session;
    /// What the evidence of its outcome was read from.
    const SOURCE: &'static str;
    /// As findings name it: `prepared transaction 'GID' in DB`, `XA branch X'…',X'…',N`.
    fn name(&self) -> Text;
    /// Its own id, which may be typed instead of the token.
    fn id(&self) -> Expected<'_>;
    /// The statement that carries out `decision`.
    fn statement(&self, decision: Decision) -> String;
    /// Where its statement runs, as a dry run says it: `in database DB`, `on ADDRESS`.
    fn runs_where(&self, target: &Target) -> Text;
    /// Its own evidence on the finding of its outcome, after the statement's.
    fn annotate(&self, finding: Finding) -> Finding {
        finding
    }
}

/// A branch on engine `E`, as the flow acts on it.
pub struct Branch<E: Engine> {
    pub engine: E,
    pub decided: Decided,
    pub(super) plan: Plan,
    /// Opened by the re-read, used by the statement right after it.
    pub(super) session: Option<E::Session>,
}

impl<E: Engine> Branch<E> {
    pub fn new(engine: E, decided: Decided) -> Branch<E> {
        let plan = Plan {
            decision: decided.decision.name(),
            heuristic: decided.heuristic,
            action: engine.statement(decided.decision),
        };
        Branch {
            engine,
            decided,
            plan,
            session: None,
        }
    }
}

impl<E: Engine> Proposal for Branch<E> {
    fn name(&self) -> Text {
        let mut name = self.engine.name();
        if let Some(place) = &self.decided.place {
            name.push_str(" on ");
            name.push_str(place);
        }
        name
    }

    fn target(&self) -> Target {
        self.decided.target.clone()
    }

    fn object(&self) -> String {
        self.name().plain()
    }

    fn server(&self) -> Option<String> {
        self.decided.server.clone()
    }

    fn id(&self) -> Expected<'_> {
        self.engine.id()
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    fn evidence(&self) -> serde_json::Value {
        self.decided.evidence.clone()
    }

    fn decision_sources(&self) -> Vec<SourceAnswer> {
        self.decided.decision_sources.clone()
    }

    fn summary(&self) -> Vec<Block> {
        self.decided.summary.clone()
    }

    fn dry_run(&self) -> Text {
        // In backticks: the statement is laid out as one word, never split.
        text![
            "dry run: would run `",
            self.plan.action,
            "` ",
            self.engine.runs_where(&self.decided.target)
        ]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        self.engine.annotate(
            finding
                .evidence("source", E::SOURCE)
                .evidence("statement", self.plan.action.clone()),
        )
    }
}
