//! indoubt as a library: the CLI's modules, also used by the integration tests to speak
//! the Kafka protocol directly (to make a genuinely hanging transaction, for one).

pub mod appdb;
pub mod assets;
pub mod audit;
pub mod camunda;
pub mod cli;
pub mod codes;
pub mod commands;
pub mod config;
pub mod context;
pub mod dbos;
pub mod error;
pub mod findings;
pub mod fsafe;
pub mod gid;
pub mod global_tx;
pub mod help;
pub mod hints;
pub mod http;
pub mod interrupt;
pub mod kafka;
#[cfg(test)]
mod layers;
pub mod metrics;
pub mod modulith;
pub mod mysql;
pub mod next;
pub mod peer;
pub mod pg;
pub mod quote;
pub mod reconcile;
pub mod report;
pub mod resolve;
pub mod saga;
pub mod seata;
pub mod secret;
pub mod settings;
pub mod term;
pub mod text;
pub mod tls;
pub mod units;
pub mod usage;
pub mod verdict;
