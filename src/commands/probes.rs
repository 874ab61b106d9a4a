//! The registry: every probe (inspect command) indoubt has, and the families their
//! commands sit in. A new probe is one line here; the command line's definition (its
//! command and arguments), `check`, `serve`, the settings, `--help`, `explain` and the man
//! pages read it.

use super::{
    camunda_incidents, dbos_workflows, kafka_hanging, kafka_lso, kafka_producers,
    kafka_transactions, modulith_publications, mysql_xa, pg_horizon, pg_outbox, pg_prepared,
    pg_slots, reconcile, saga_instances, seata_globals, seata_sagas, seata_tcc,
};
use crate::codes::{self, Code};
use crate::settings::probe::{Family, Probe, Registered, Registry};

/// The order of the lines is the order of the commands in `--help` (a family where its
/// first probe is), and the order `check` runs one target's checks in.
pub static ALL: &[&dyn Probe] = &[
    &Registered::<pg_prepared::PgPrepared>::new(),
    &Registered::<pg_slots::PgSlots>::new(),
    &Registered::<pg_horizon::PgHorizon>::new(),
    &Registered::<pg_outbox::PgOutbox>::new(),
    &Registered::<kafka_lso::KafkaLso>::new(),
    &Registered::<kafka_producers::KafkaProducers>::new(),
    &Registered::<kafka_transactions::KafkaTransactions>::new(),
    &Registered::<kafka_hanging::KafkaHanging>::new(),
    &Registered::<mysql_xa::MysqlXa>::new(),
    &Registered::<seata_globals::SeataGlobals>::new(),
    &Registered::<seata_tcc::SeataTcc>::new(),
    &Registered::<seata_sagas::SeataSagas>::new(),
    &Registered::<modulith_publications::ModulithPublications>::new(),
    &Registered::<camunda_incidents::CamundaIncidents>::new(),
    &Registered::<dbos_workflows::DbosWorkflows>::new(),
    &Registered::<saga_instances::SagaInstances>::new(),
    &Registered::<reconcile::Reconcile>::new(),
];

/// The command of each family (the first word of its probes' paths), with its help.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "pg",
        about: "Inspect PostgreSQL",
    },
    Family {
        name: "kafka",
        about: "Inspect Kafka: LSO gaps, producers, transactions, hanging transactions",
    },
    Family {
        name: "mysql",
        about: "Inspect MySQL and MariaDB: prepared XA branches and the purge they hold back",
    },
    Family {
        name: "seata",
        about:
            "Inspect Apache Seata: global transactions that never end, and the row locks they hold",
    },
    Family {
        name: "modulith",
        about: "Inspect Spring Modulith's event publication registry: events never delivered",
    },
    Family {
        name: "camunda",
        about: "Inspect Camunda 7 / Operaton: incidents, jobs that keep failing, locks left behind",
    },
    Family {
        name: "dbos",
        about:
            "Inspect DBOS Transact: workflows given up, stranded by a deploy, or holding a queue",
    },
];

/// The registry, as the run hands it to the settings and `--help` (`help::command`).
pub static REGISTRY: Registry = Registry {
    probes: ALL,
    families: FAMILIES,
};

/// The probe whose command is `path` ("pg outbox").
pub fn named(path: &str) -> Option<&'static dyn Probe> {
    REGISTRY.probe(path)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every measured family is named as Prometheus names a gauge in base units
    /// (`indoubt_<area>_<what>_<unit>`, no `_total`), once in the registry, with help,
    /// and labels that are identifiers other than `target` (which `check` adds).
    #[test]
    fn every_metric_family_is_named_once_in_base_units() {
        let mut seen = Vec::new();
        for probe in ALL {
            for f in probe.measures() {
                assert!(f.name.starts_with("indoubt_"), "{}", f.name);
                assert!(
                    f.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{}",
                    f.name
                );
                assert!(!f.name.ends_with("_total"), "{}: a gauge", f.name);
                for unit in [
                    "_ms",
                    "_milliseconds",
                    "_minutes",
                    "_hours",
                    "_kb",
                    "_mb",
                    "_mib",
                ] {
                    assert!(!f.name.ends_with(unit), "{}: base units", f.name);
                }
                assert!(!f.help.is_empty() && !f.help.contains('\n'), "{}", f.name);
                assert!(!f.labels.contains(&"target"), "{}", f.name);
                assert!(!seen.contains(&f.name), "{} twice", f.name);
                seen.push(f.name);
            }
        }
        assert!(seen.len() >= 20, "{seen:?}");
    }

    /// Each probe's path is a family's command and one more word, or one word of its own;
    /// each family has a probe; no two probes share a path.
    #[test]
    fn every_probe_has_its_place_and_every_family_its_probes() {
        let mut paths = Vec::new();
        for probe in ALL {
            let path = probe.command();
            match path.split(' ').collect::<Vec<_>>()[..] {
                [_] => {}
                [family, _] => assert!(
                    FAMILIES.iter().any(|f| f.name == family),
                    "{path}: no family {family} in FAMILIES"
                ),
                _ => panic!("{path}: a probe's path is one or two words"),
            }
            assert!(!paths.contains(&path), "{path} twice");
            paths.push(path);
        }
        for family in FAMILIES {
            assert!(
                paths
                    .iter()
                    .any(|p| p.split(' ').next() == Some(family.name)),
                "family {} has no probe",
                family.name
            );
        }
    }
}
