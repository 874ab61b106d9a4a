//! Reconciliation: the ids in a database window against the ids in a topic — what never
//! reached the topic, what the topic has that the database does not, and duplicates.

pub mod compare;
pub mod db;
pub mod ids;
pub mod json_pointer;
pub mod republish;
pub mod spill;
pub mod topic;
