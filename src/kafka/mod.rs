//! Kafka, as a client library that knows nothing of the application: the typed client
//! configuration and its security, the wire connection, the cluster's metadata and broker
//! pool, the admin requests by job (offsets, producers and transactions, each fanned out
//! by leader), and read_committed fetching of record batches. What the answers mean for
//! an operator (a hanging transaction) is the application's: src/verdict.rs.

pub mod access;
pub mod cluster;
pub mod config;
pub mod conn;
mod fanout;
pub mod fetch;
pub mod gss;
pub mod gssapi;
pub mod librdkafka;
pub mod oauthbearer;
pub mod offsets;
pub mod produce;
pub mod records;
pub mod scram;
pub mod secure;
pub mod security;
pub mod token;
pub mod transactions;
