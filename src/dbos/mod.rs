//! DBOS Transact's system database (schema `dbos`), as a DBOS application keeps it: the
//! schema's migration, the workflows DBOS gave up recovering or that ended in error, the
//! PENDING ones nothing is running (stranded under an application version no process
//! runs, or left by an executor), the queues whose head holds the rest, and the ones that
//! only wait (a sleep or a receive). Typed data; what it comes to for an operator is not
//! here.

pub mod cli;
pub mod system;
