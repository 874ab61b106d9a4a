//! The audit trail: an append-only, hash-chained JSON Lines log of every resolution —
//! the intent written and fsynced before the action, the outcome after it.

pub mod log;
pub mod record;
pub mod redact;
