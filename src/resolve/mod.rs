//! Resolution: where the coordinator's decision is found, how the operator confirms, and
//! the writing steps, which only a confirmation can unlock.

pub mod all_branches;
pub mod confirm;
pub mod decision;
pub mod pg_apply;
pub mod prompt;
pub mod siblings;
pub mod sources;
