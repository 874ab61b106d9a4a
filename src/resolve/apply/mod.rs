//! The actions on servers, each a `flow::Subject`: COMMIT/ROLLBACK PREPARED and the Kafka
//! abort marker. Their writes take a `confirm::Confirmed`, and clippy.toml keeps the
//! library calls that write (`Session::simple`, `Cluster::write_abort_marker`) to here.

pub mod kafka;
pub mod pg;
