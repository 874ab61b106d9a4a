//! PostgreSQL gathering: connection parameters, diagnostic sessions and typed catalog reads.

pub mod conninfo;
pub mod prepared;
pub mod session;
