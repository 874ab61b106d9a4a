//! Kafka gathering. For now: named cluster targets and their client properties.

pub mod cluster;
pub mod conn;
pub mod scram;
pub mod security;
pub mod target;
pub mod verdict;
