//! Camunda 7 and Operaton (its Apache-2.0 fork), as the engine's database keeps them: the
//! schema's version, the open incidents with their evidence, the jobs and external tasks
//! still failing or left locked (`engine`), and the engine's REST API that sets their
//! retries the engine's way (`rest`). Typed data; what it comes to for an operator is not
//! here.

pub mod engine;
pub mod rest;
