//! Kafka: cluster targets and their security, the wire connection, the cluster's metadata
//! and broker pool, the admin requests by job (offsets, producers and transactions, each
//! fanned out by leader), and read_committed fetching of record batches. What the answers
//! mean for an operator (a hanging transaction) is the application's: crate::verdict.

pub mod access;
pub mod cluster;
pub mod conn;
mod fanout;
pub mod fetch;
pub mod jaas;
pub mod offsets;
pub mod properties;
pub mod providers;
pub mod records;
pub mod scram;
pub mod security;
pub mod target;
pub mod transactions;
