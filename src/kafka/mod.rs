//! Kafka gathering. For now: named cluster targets and their client properties.

pub mod target;
