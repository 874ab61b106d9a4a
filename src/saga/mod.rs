//! Hand-written sagas: a table a service keeps one row per saga instance in, the states
//! it moves through, the entities it holds while it runs (semantic locks) and the queue a
//! person works stuck ones from — read on PostgreSQL or MySQL/MariaDB, and the two
//! writes indoubt makes there (an item in the manual queue, an orphaned entity released).

pub mod read;
mod spell;
pub mod write;

use std::time::Duration;

/// Where a saga's rows are and what its columns and states are called.
#[derive(Debug, Clone)]
pub struct Layout {
    pub table: String,
    pub id: String,
    pub state: String,
    pub updated_at: String,
    pub started_at: Option<String>,
    pub attempts: Option<String>,
    pub step: Option<String>,
    /// The columns its business context is rendered from.
    pub context: Vec<String>,
    pub states: States,
}

/// The state column's values, by what they mean.
#[derive(Debug, Clone, Default)]
pub struct States {
    pub running: Vec<String>,
    pub done: Vec<String>,
    pub failed: Vec<String>,
    pub compensating: Vec<String>,
    pub unknown: Vec<String>,
}

impl States {
    /// Whether the config lists `state` at all.
    pub fn listed(&self, state: &str) -> bool {
        [
            &self.running,
            &self.done,
            &self.failed,
            &self.compensating,
            &self.unknown,
        ]
        .iter()
        .any(|list| list.iter().any(|s| s == state))
    }
}

/// What makes a saga stuck.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// No progress (updated_at) for this long.
    pub stalled_after: Duration,
    /// Not done this long after it started.
    pub deadline: Option<Duration>,
    pub max_attempts: Option<u64>,
    /// In an `unknown` state this long.
    pub unknown_after: Duration,
}

/// The table a person works stuck sagas from.
#[derive(Debug, Clone)]
pub struct Queue {
    pub table: String,
    pub saga_id: String,
    pub created_at: String,
    pub resolved_at: Option<String>,
    pub reason: Option<String>,
}

/// Entities a running saga holds by setting their state.
#[derive(Debug, Clone)]
pub struct Lock {
    pub table: String,
    pub id: String,
    pub state: String,
    pub held: Vec<String>,
    pub saga_id: String,
    pub released: Option<String>,
    /// The column every write of the entity changes: the release's guard.
    pub version: Option<String>,
}

/// Everything one saga's reads name.
#[derive(Debug, Clone)]
pub struct Saga {
    pub layout: Layout,
    pub limits: Limits,
    pub queue: Option<Queue>,
    pub locks: Vec<Lock>,
}

/// Why an instance is stuck, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Why {
    /// Failed, or at its attempts: no retry will finish it.
    NeedsHuman,
    /// Waiting on an external outcome longer than it may.
    OutcomeUnknown,
    /// No progress for stalled_after (whether or not past its deadline).
    Stalled,
    /// Past its deadline, still moving.
    Overdue,
}

impl Why {
    /// Every reason, in order.
    pub const ALL: [Why; 4] = [
        Why::NeedsHuman,
        Why::OutcomeUnknown,
        Why::Stalled,
        Why::Overdue,
    ];

    /// As a label says it.
    pub fn name(self) -> &'static str {
        match self {
            Why::NeedsHuman => "needs_human",
            Why::OutcomeUnknown => "outcome_unknown",
            Why::Stalled => "stalled",
            Why::Overdue => "overdue",
        }
    }
}

impl Saga {
    /// Why an instance is stuck; None when it is not (done, moving within its time) or
    /// its state is not listed (not judged).
    pub fn why(&self, r: &read::SagaRow) -> Option<Why> {
        let st = &self.layout.states;
        let has = |list: &[String]| list.contains(&r.state);
        if !st.listed(&r.state) || has(&st.done) {
            return None;
        }
        let at_max = match (self.limits.max_attempts, r.attempts) {
            (Some(max), Some(n)) => n >= max as i64,
            _ => false,
        };
        let idle = crate::units::seconds(r.idle_seconds);
        if has(&st.failed) || at_max {
            return Some(Why::NeedsHuman);
        }
        if has(&st.unknown) && idle >= self.limits.unknown_after {
            return Some(Why::OutcomeUnknown);
        }
        if idle >= self.limits.stalled_after {
            return Some(Why::Stalled);
        }
        let overdue = match (self.limits.deadline, r.age_seconds) {
            (Some(deadline), Some(age)) => crate::units::seconds(age) >= deadline,
            _ => false,
        };
        overdue.then_some(Why::Overdue)
    }
}

/// How a time column is compared with the server's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeKind {
    /// PostgreSQL's timestamptz: an instant.
    Zoned,
    /// A time without a zone (PostgreSQL's timestamp and date, MySQL's DATETIME and
    /// TIMESTAMP as a session reads them): compared with the session's local time.
    Local,
}
