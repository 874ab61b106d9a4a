//! PostgreSQL gathering: connection parameters, diagnostic sessions and typed catalog reads.

pub mod conninfo;
pub mod horizon;
pub mod prepared;
pub mod session;
pub mod slots;
