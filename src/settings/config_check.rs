//! The settings of `indoubt config show --check`: every target the config names (and the
//! postgres and kafka references of its reconcile jobs, outboxes, inboxes, Seata
//! coordinators and resolve section), each once, with what the config uses it for; resolved with the run's other
//! settings, before any connection. What is checked of each is src/commands/config_check/'s.

use super::kafka_client::{client_config, KafkaTarget};
use super::targets::{MysqlTarget, PgTarget, Targets};
use crate::codes;
use crate::findings::{Finding, Severity};
use crate::kafka::config::ClientConfig;
use crate::pg::conninfo::looks_like_conninfo;
use crate::text::Text;
use anyhow::Result;

/// What a postgres target is used for beyond the commands that inspect it.
pub enum PgUse {
    Reconcile {
        job: String,
        query: String,
    },
    Table {
        section: String,
        table: String,
        columns: Vec<String>,
    },
}

/// A postgres target to check, and what the config uses it for.
pub struct PgPlan {
    /// The config's name, or the section whose connection string it is.
    pub name: String,
    /// The config's name or the connection string it was resolved from; None: the
    /// settings of the pg commands without --pg.
    pub reference: Option<String>,
    /// Something reads its database (a reconcile query, an outbox or inbox table, a
    /// decision source, a Citus coordinator's catalog); else only the commands that read
    /// the whole server use it, which connect to postgres when it names no database.
    pub per_database: bool,
    pub target: Result<PgTarget>,
    pub used_by: Vec<String>,
    pub uses: Vec<PgUse>,
}

/// A MySQL target to check.
pub struct MysqlPlan {
    pub name: String,
    pub target: std::result::Result<MysqlTarget, String>,
    pub used_by: Vec<String>,
}

/// A Kafka target to check, with the topics the config reads from it.
pub struct KafkaPlan {
    pub name: String,
    pub target: Result<ClientConfig>,
    /// The bootstrap servers and client properties, as configured: two targets with the
    /// same reach the same cluster as the same principal.
    pub identity: Option<(Vec<String>, std::collections::BTreeMap<String, String>)>,
    pub used_by: Vec<String>,
    /// Reconcile jobs' topics: (topic, jobs).
    pub topics: Vec<(String, Vec<String>)>,
    pub check_topic_regex: Option<String>,
}

/// The targets to check, each once, with what the config uses each for: resolved with
/// the run's other settings, before any connection.
pub struct Plans {
    pub pg: Vec<PgPlan>,
    pub kafka: Vec<KafkaPlan>,
    pub mysql: Vec<MysqlPlan>,
    /// References that name no target (config show says so too).
    pub unusable: Vec<Finding>,
}

impl Plans {
    pub(crate) fn of(t: &Targets) -> Plans {
        let config = &t.config.config;
        let mut plans = Plans {
            pg: Vec::new(),
            kafka: Vec::new(),
            mysql: Vec::new(),
            unusable: Vec::new(),
        };
        for name in config.mysql.keys() {
            let participant =
                config.resolve.participants.contains(name) && !config.postgres.contains_key(name);
            plans.mysql.push(MysqlPlan {
                name: name.clone(),
                target: t.mysql_referenced(name),
                used_by: participant
                    .then(|| "resolve.participants".to_string())
                    .into_iter()
                    .collect(),
            });
        }
        for name in config.postgres.keys() {
            plans.pg.push(PgPlan {
                name: name.clone(),
                reference: Some(name.clone()),
                per_database: false,
                target: t.pg_target(Some(name)),
                used_by: Vec::new(),
                uses: Vec::new(),
            });
        }
        for (name, configured) in &config.kafka {
            let target = KafkaTarget::from_config(name, configured);
            plans.kafka.push(KafkaPlan {
                name: name.clone(),
                identity: target
                    .as_ref()
                    .ok()
                    .map(|t| (t.bootstrap.clone(), t.properties.clone())),
                target: target.and_then(|t| client_config(&t)),
                used_by: Vec::new(),
                topics: Vec::new(),
                check_topic_regex: configured.check_topic_regex.clone(),
            });
        }
        let only_pg = (config.postgres.len() == 1)
            .then(|| config.postgres.keys().next().cloned())
            .flatten();
        let only_kafka = (config.kafka.len() == 1)
            .then(|| config.kafka.keys().next().cloned())
            .flatten();
        for (job, j) in &config.reconcile {
            let section = format!("reconcile job {job}");
            if let (Some(pg), Some(query)) = (j.postgres.clone().or(only_pg.clone()), &j.query) {
                if let Some(plan) = plans.pg_ref(t, &section, &pg, true) {
                    plan.uses.push(PgUse::Reconcile {
                        job: job.clone(),
                        query: query.clone(),
                    });
                }
            }
            if let (Some(kafka), Some(topic)) = (j.kafka.clone().or(only_kafka.clone()), &j.topic) {
                match plans.kafka.iter_mut().find(|k| k.name == kafka) {
                    Some(plan) => {
                        plan.used_by.push(section.clone());
                        match plan.topics.iter_mut().find(|(t, _)| t == topic) {
                            Some((_, jobs)) => jobs.push(job.clone()),
                            None => plan.topics.push((topic.clone(), vec![job.clone()])),
                        }
                    }
                    None => plans.unusable.push(unusable_reference(
                        &section,
                        format!("kafka {kafka:?} is not a kafka target of the config"),
                    )),
                }
            }
        }
        for (name, o) in &config.outbox {
            let section = format!("outbox {name}");
            if let Some(plan) = plans.pg_ref(t, &section, &o.postgres, true) {
                plan.uses.push(PgUse::Table {
                    section,
                    table: o.table.clone(),
                    columns: vec![
                        o.id_column.clone(),
                        o.created_at_column.clone(),
                        o.published_at_column.clone(),
                    ],
                });
            }
        }
        for (name, i) in &config.inbox {
            let section = format!("inbox {name}");
            if let Some(plan) = plans.pg_ref(t, &section, &i.postgres, true) {
                plan.uses.push(PgUse::Table {
                    section,
                    table: i.table.clone(),
                    columns: vec![i.created_at_column.clone()],
                });
            }
        }
        for (name, c) in &config.seata {
            let section = format!("seata coordinator {name}");
            // A store on MySQL: its target's connection is checked with the mysql
            // targets (its tables are not, yet).
            let store = c
                .postgres
                .as_ref()
                .and_then(|pg| plans.pg_ref(t, &section, pg, true));
            if let Some(plan) = store {
                use crate::seata::store::{BRANCH_COLUMNS, GLOBAL_COLUMNS, LOCK_COLUMNS};
                for (table, columns) in [
                    (&c.global_table, &GLOBAL_COLUMNS[..]),
                    (&c.branch_table, &BRANCH_COLUMNS[..]),
                    (&c.lock_table, &LOCK_COLUMNS[..]),
                ] {
                    plan.uses.push(PgUse::Table {
                        section: section.clone(),
                        table: table.clone(),
                        columns: columns.iter().map(|c| c.to_string()).collect(),
                    });
                }
            }
            for (client, k) in &c.clients {
                use crate::seata::{fence, saga, undo};
                let section = format!("seata coordinator {name} client {client}");
                let Some(plan) = plans.pg_ref(t, &section, &k.postgres, true) else {
                    continue;
                };
                let mut tables: Vec<(String, &[&str])> = Vec::new();
                if let Some(u) = &k.undo_log {
                    tables.push((u.clone(), &undo::COLUMNS));
                }
                if let Some(f) = &k.tcc_fence_log {
                    tables.push((f.clone(), &fence::COLUMNS));
                }
                if let Some(prefix) = &k.saga_table_prefix {
                    let [inst, state, def] = saga::tables(prefix);
                    tables.push((inst, &saga::INSTANCE_COLUMNS));
                    tables.push((state, &saga::STATE_COLUMNS));
                    tables.push((def, &saga::DEFINITION_COLUMNS));
                }
                for (table, columns) in tables {
                    plan.uses.push(PgUse::Table {
                        section: section.clone(),
                        table,
                        columns: columns.iter().map(|c| c.to_string()).collect(),
                    });
                }
            }
        }
        let r = &config.resolve;
        // A participant of the mysql: section is checked with the mysql targets.
        for p in r
            .participants
            .iter()
            .filter(|p| !config.mysql.contains_key(*p) || config.postgres.contains_key(*p))
        {
            plans.pg_ref(t, "resolve.participants", p, true);
        }
        if let Some(c) = &r.citus_coordinator {
            plans.pg_ref(t, "resolve.citus_coordinator", c, true);
        }
        for source in &r.decision_sources {
            if let Some(target) = &source.target {
                plans.pg_ref(t, &format!("decision source {}", source.name), target, true);
            }
        }
        // Nothing configured: the server the pg commands would inspect without --pg.
        if plans.pg.is_empty()
            && plans.kafka.is_empty()
            && plans.mysql.is_empty()
            && plans.unusable.is_empty()
        {
            plans.pg.push(PgPlan {
                name: "(default)".into(),
                reference: None,
                per_database: false,
                // pg prepared, pg slots and pg horizon read the whole server.
                target: t.pg_server_target(None),
                used_by: vec![
                    "the pg commands without --pg (PG* variables, libpq defaults)".into(),
                ],
                uses: Vec::new(),
            });
        }
        // A target only the commands that read the whole server use (check's pg prepared,
        // pg slots, pg horizon) is checked as they connect: to postgres when it names no
        // database. (Participants are resolved like decision sources, with libpq's default.)
        for plan in plans.pg.iter_mut().filter(|p| !p.per_database) {
            if let Some(reference) = &plan.reference {
                plan.target = t.pg_server_target(Some(reference));
            }
        }
        plans
    }

    /// The plan a section's postgres reference (a target name or a connection string)
    /// points at, made once per connection string.
    fn pg_ref(
        &mut self,
        t: &Targets,
        section: &str,
        value: &str,
        per_database: bool,
    ) -> Option<&mut PgPlan> {
        let at = if t.config.config.postgres.contains_key(value) {
            self.pg.iter().position(|p| p.name == value)
        } else if let Some(i) = self
            .pg
            .iter()
            .position(|p| p.reference.as_deref() == Some(value))
        {
            // The same connection string in another section: one plan, used by both.
            Some(i)
        } else if looks_like_conninfo(value) {
            let name = format!("{section}'s connection string");
            self.pg.push(PgPlan {
                name,
                reference: Some(value.to_string()),
                per_database: false,
                target: t.pg_target(Some(value)),
                used_by: Vec::new(),
                uses: Vec::new(),
            });
            Some(self.pg.len() - 1)
        } else {
            None
        };
        match at {
            Some(i) => {
                let plan = &mut self.pg[i];
                plan.per_database |= per_database;
                if !plan.used_by.iter().any(|u| u == section) {
                    plan.used_by.push(section.to_string());
                }
                Some(plan)
            }
            None => {
                self.unusable.push(unusable_reference(
                    section,
                    "its postgres reference is neither a postgres target of the config nor a connection string",
                ));
                None
            }
        }
    }
}

fn unusable_reference(section: &str, why: impl Into<Text>) -> Finding {
    Finding::new(
        Severity::Unknown,
        codes::CONFIG_REFERENCE_UNUSABLE,
        section.to_string(),
        why,
    )
}

/// `config show --check`'s settings: the plans, and the config file they came from.
pub struct ConfigCheckSettings {
    pub plans: Plans,
    pub config_file: Option<std::path::PathBuf>,
}
