//! Kafka: cluster targets and their security, the wire connection, the admin requests, and
//! read_committed fetching of record batches.

pub mod access;
pub mod cluster;
pub mod conn;
pub mod fetch;
pub mod gss;
pub mod gssapi;
pub mod jaas;
pub mod properties;
pub mod providers;
pub mod records;
pub mod scram;
pub mod security;
pub mod target;
pub mod verdict;
