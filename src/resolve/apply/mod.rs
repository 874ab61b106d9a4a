//! The actions on servers, each a `flow::Subject`: COMMIT/ROLLBACK PREPARED, XA COMMIT/XA
//! ROLLBACK and the Kafka abort marker. Their writes take a `confirm::Confirmed`, and
//! clippy.toml keeps the library calls that write (`Session::simple`, the MySQL
//! `Session::write`, `Cluster::write_abort_marker`) to here.

pub mod appdb;
mod branch;
pub mod camunda;
pub mod dbos;
pub mod kafka;
pub mod modulith;
pub mod mysql;
pub mod outbox;
pub mod pg;
pub mod reconcile;
pub mod republish;
pub mod saga;
pub mod seata;
pub mod seata_at;

pub use branch::{Branch, Decided, Engine};

use crate::audit::record::SourceAnswer;
use crate::findings::Finding;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::text::Text;
use anyhow::Result;

/// A branch of a global transaction on either engine, so one confirmation covers
/// branches in PostgreSQL and MySQL alike (`--all-branches`).
// A handful per resolution: the size of the PostgreSQL variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum AnyBranch {
    Pg(Branch<pg::Xact>),
    Mysql(Branch<mysql::XaBranch>),
}

macro_rules! each {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            AnyBranch::Pg($b) => $e,
            AnyBranch::Mysql($b) => $e,
        }
    };
}

impl Proposal for AnyBranch {
    fn name(&self) -> Text {
        each!(self, b => b.name())
    }
    fn target(&self) -> Target {
        each!(self, b => b.target())
    }
    fn object(&self) -> String {
        each!(self, b => b.object())
    }
    fn id(&self) -> Expected<'_> {
        each!(self, b => b.id())
    }
    fn server(&self) -> Option<String> {
        each!(self, b => b.server())
    }
    fn plan(&self) -> &Plan {
        each!(self, b => b.plan())
    }
    fn evidence(&self) -> serde_json::Value {
        each!(self, b => b.evidence())
    }
    fn decision_sources(&self) -> Vec<SourceAnswer> {
        each!(self, b => b.decision_sources())
    }
    fn summary(&self) -> Vec<Block> {
        each!(self, b => b.summary())
    }
    fn dry_run(&self) -> Text {
        each!(self, b => b.dry_run())
    }
    fn annotate(&self, finding: Finding) -> Finding {
        each!(self, b => b.annotate(finding))
    }
}

impl Subject for AnyBranch {
    type Proposal = AnyBranch;

    fn proposal(&self) -> &AnyBranch {
        self
    }
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        each!(self, b => b.preflight().await)
    }
    async fn still_valid(&mut self) -> Option<Applied> {
        each!(self, b => b.still_valid().await)
    }
    async fn apply(&mut self, confirmed: &Confirmed) -> Applied {
        each!(self, b => b.apply(confirmed).await)
    }
}
