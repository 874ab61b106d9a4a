//! The registry: every probe (inspect command) indoubt has, in the order `check` runs a
//! target's checks. A new probe is one line here; `check`, `serve`, the settings,
//! `--help`, `explain` and the man pages read it.

use super::{
    kafka_hanging, kafka_lso, kafka_producers, kafka_transactions, mysql_xa, pg_horizon, pg_outbox,
    pg_prepared, pg_slots, reconcile, seata_globals, seata_sagas, seata_tcc,
};
use crate::codes::{self, Code};
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
    &Registered::<seata_globals::SeataGlobals>::new(),
    &Registered::<seata_tcc::SeataTcc>::new(),
    &Registered::<seata_sagas::SeataSagas>::new(),
];

/// The probe whose command is `path` ("pg outbox").
pub fn named(path: &str) -> Option<&'static dyn Probe> {
    ALL.iter().copied().find(|p| p.command() == path)
}

/// Every finding code, as `explain` lists them: the shared list (`crate::codes`), then
/// each probe's own in the registry's order.
pub fn codes() -> Vec<Code> {
    let mut every = codes::ALL.to_vec();
    for probe in ALL {
        for code in probe.pages().codes {
            if !every.contains(code) {
                every.push(*code);
            }
        }
    }
    every
}

/// The code named `name`, exactly.
pub fn code(name: &str) -> Option<Code> {
    codes().into_iter().find(|c| c.name() == name)
}
