//! Resolution: where the coordinator's decision is found, how the operator confirms, the
//! one flow every resolution goes through, and the writing steps, which only a
//! confirmation can unlock.

pub mod absent;
pub mod all_branches;
pub mod apply;
pub mod branch_report;
pub mod confirm;
pub mod decision;
pub mod flow;
pub mod prompt;
pub mod siblings;
pub mod sources;
