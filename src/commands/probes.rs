//! The registry: every probe (inspect command) indoubt has, in the order `check` runs a
//! target's checks. A new probe is one line here.

use super::{
    kafka_hanging, kafka_lso, kafka_producers, kafka_transactions, mysql_xa, pg_horizon, pg_outbox,
    pg_prepared, pg_slots, reconcile,
};
use crate::settings::probe::{Probe, Registered};

pub static ALL: &[&dyn Probe] = &[
    &Registered::<pg_prepared::PgPrepared>::new(),
    &Registered::<pg_slots::PgSlots>::new(),
    &Registered::<pg_horizon::PgHorizon>::new(),
    &Registered::<pg_outbox::PgOutbox>::new(),
    &Registered::<kafka_lso::KafkaLso>::new(),
    &Registered::<kafka_hanging::KafkaHanging>::new(),
    &Registered::<kafka_producers::KafkaProducers>::new(),
    &Registered::<kafka_transactions::KafkaTransactions>::new(),
    &Registered::<mysql_xa::MysqlXa>::new(),
    &Registered::<reconcile::Reconcile>::new(),
];
