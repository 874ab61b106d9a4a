//! Kafka, as a client library that knows nothing of the application: the typed client
//! configuration and its security, the wire connection, the admin requests, and
//! read_committed fetching of record batches.

pub mod access;
pub mod cluster;
pub mod config;
pub mod conn;
pub mod fetch;
pub mod gss;
pub mod gssapi;
pub mod records;
pub mod scram;
pub mod security;
pub mod verdict;
