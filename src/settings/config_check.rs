//! The settings of `indoubt config show --check`: every target the config names (and the
//! postgres and kafka references of its reconcile jobs, outboxes, inboxes, Seata
//! coordinators and resolve section), each once, with what the config uses it for; resolved with the run's other
//! settings, before any connection. What is checked of each is src/commands/config_check/'s.

use super::kafka_client::{client_config, KafkaTarget};
use super::probe::{Read, Registry, Uses};
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

/// A MySQL target to check, and the tables the config's sections read in it.
pub struct MysqlPlan {
    pub name: String,
    pub target: std::result::Result<MysqlTarget, String>,
    pub used_by: Vec<String>,
    pub uses: Vec<TableUse>,
}

/// A table a section reads, and the columns it reads of it.
pub struct TableUse {
    pub section: String,
    pub table: String,
    pub columns: Vec<String>,
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
    /// Camunda engines' REST APIs (what resolve camunda calls): the engine's name and its
    /// API, or why its settings make none.
    pub camunda_rest: Vec<(
        String,
        std::result::Result<crate::camunda::rest::Api, String>,
    )>,
    /// DBOS applications' CLIs (what resolve dbos runs): the application's name and argv.
    pub dbos_cli: Vec<(String, Vec<String>)>,
    /// References that name no target (config show says so too).
    pub unusable: Vec<Finding>,
}

impl Plans {
    pub(crate) fn of(t: &Targets, registry: &Registry) -> Plans {
        let config = &t.config.config;
        let mut plans = Plans {
            pg: Vec::new(),
            kafka: Vec::new(),
            mysql: Vec::new(),
            camunda_rest: Vec::new(),
            dbos_cli: Vec::new(),
            unusable: Vec::new(),
        };
        for (name, c) in &config.camunda {
            match crate::settings::camunda::rest(name, c) {
                Ok(Some(api)) => plans.camunda_rest.push((name.clone(), Ok(api))),
                Ok(None) => {}
                Err(e) => plans
                    .camunda_rest
                    .push((name.clone(), Err(format!("{e:#}")))),
            }
        }
        for (name, c) in &config.dbos {
            if let Some(cli) = &c.cli {
                plans.dbos_cli.push((name.clone(), cli.clone()));
            }
        }
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
                uses: Vec::new(),
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
        // What each probe reads that the config names, from the registry; a reconcile
        // job's query first, so each target's rows keep the order they have always had.
        let mut reads: Vec<Uses> = registry
            .probes
            .iter()
            .flat_map(|p| p.reads(config))
            .collect();
        reads.sort_by_key(|u| !matches!(u.read, Read::PgQuery { .. }));
        for Uses { section, read } in reads {
            match read {
                Read::PgQuery {
                    postgres,
                    job,
                    query,
                } => {
                    if let Some(plan) = plans.pg_ref(t, &section, &postgres, true) {
                        plan.uses.push(PgUse::Reconcile { job, query });
                    }
                }
                Read::PgTable {
                    postgres,
                    table,
                    columns,
                } => {
                    if let Some(plan) = plans.pg_ref(t, &section, &postgres, true) {
                        plan.uses.push(PgUse::Table {
                            section,
                            table,
                            columns,
                        });
                    }
                }
                Read::MysqlTable {
                    mysql,
                    table,
                    columns,
                } => {
                    if let Some(plan) = plans.mysql_ref(t, &section, &mysql) {
                        plan.uses.push(TableUse {
                            section,
                            table,
                            columns,
                        });
                    }
                }
                Read::KafkaTopic { kafka, job, topic } => {
                    match plans.kafka.iter_mut().find(|k| k.name == kafka) {
                        Some(plan) => {
                            if !plan.used_by.contains(&section) {
                                plan.used_by.push(section.clone());
                            }
                            match plan.topics.iter_mut().find(|(t, _)| *t == topic) {
                                Some((_, jobs)) => jobs.push(job),
                                None => plan.topics.push((topic, vec![job])),
                            }
                        }
                        None => plans.unusable.push(unusable_reference(
                            &section,
                            format!("kafka {kafka:?} is not a kafka target of the config"),
                        )),
                    }
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

impl Plans {
    /// The plan a section's mysql reference (a target name or a URL) points at, made
    /// once per URL.
    fn mysql_ref(&mut self, t: &Targets, section: &str, value: &str) -> Option<&mut MysqlPlan> {
        let at = match self.mysql.iter().position(|p| p.name == value) {
            Some(i) => i,
            None if crate::mysql::params::looks_like_url(value) => {
                let name = format!("{section}'s connection string");
                let i = match self.mysql.iter().position(|p| p.name == name) {
                    Some(i) => i,
                    None => {
                        self.mysql.push(MysqlPlan {
                            name,
                            target: t.mysql_referenced(value),
                            used_by: Vec::new(),
                            uses: Vec::new(),
                        });
                        self.mysql.len() - 1
                    }
                };
                i
            }
            None => {
                self.unusable.push(unusable_reference(
                    section,
                    "its mysql reference is neither a mysql target of the config nor a URL",
                ));
                return None;
            }
        };
        let plan = &mut self.mysql[at];
        if !plan.used_by.iter().any(|u| u == section) {
            plan.used_by.push(section.to_string());
        }
        Some(plan)
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
