//! Spring Modulith's JDBC event publication registry (`event_publication`), as the
//! application's database holds it: which layout it has, the publications no listener
//! completed, and the completed ones kept. Typed data; what it comes to for an operator is
//! not here.

pub mod registry;
