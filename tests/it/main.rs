//! The integration tests, one binary (as ripgrep's tests/it): a module per area, all of
//! them sharing one build of `common` and one link of librdkafka. A module's tests are
//! named `module::test`: `cargo test --test it -- pg_horizon::` runs one area's.

mod common;

mod assets;
mod camunda;
mod check;
mod config_check;
mod config_show;
mod dbos;
mod explain;
mod hints;
mod hostile_pg;
mod interrupts;
mod kafka_client;
mod kafka_commands;
mod kafka_gssapi;
mod kafka_lab;
mod kafka_legacy;
mod kafka_oauth;
mod kafka_tls;
mod layout;
mod libpq_habits;
mod metrics;
mod modulith;
mod monitoring;
mod mysql_xa;
mod next_shell;
mod next_steps;
mod pg_horizon;
mod pg_outbox;
mod pg_prepared;
mod pg_slots;
mod reconcile;
mod reconcile_spill;
mod resolve_kafka;
mod resolve_outbox;
mod resolve_pg;
mod resolve_reconcile;
mod resolve_tm;
mod resolve_tm_mysql;
mod saga;
mod seata;
mod seata_mariadb;
mod secrets;
mod serve;
mod settings;
mod untrusted_text;
