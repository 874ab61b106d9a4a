//! The resolved settings of `resolve pg`, `resolve mysql`, `resolve kafka` and the audit commands: the
//! object, the decision asked for, the confirmation, the audit log, and every decision
//! source, participant and coordinator of the config with its server resolved up front.

use super::addressing::Addressing;
use super::kafka::{self, Cluster};
use super::targets::{AuditLog, MysqlTarget, PgTarget, Referenced, Targets};
use super::{defaults, Setting};
use crate::audit::record::Decision;
use crate::cli::{ConfirmArgs, DecisionArgs, ResolveKafkaArgs, ResolveMysqlArgs, ResolvePgArgs};
use crate::config::{DecisionSource, ResolveConfig};
use anyhow::{anyhow, Result};
use std::collections::BTreeMap;
use std::time::Duration;

/// How a resolution is confirmed and recorded.
pub struct Confirm {
    pub yes: bool,
    pub reason: Option<String>,
    pub ticket: Option<String>,
    pub dry_run: bool,
    pub audit_log: AuditLog,
}

/// One decision source of the config.
pub struct Source {
    pub name: String,
    /// Checked against its kind; what is wrong with it otherwise (it answers unreachable).
    pub source: std::result::Result<DecisionSource, String>,
    pub in_doubt_after: Setting<Duration>,
}

/// The config's `resolve:` section, its servers resolved.
pub struct Sources {
    pub decision_sources: Vec<Source>,
    pub citus_coordinator: Option<String>,
    pub participants: Vec<String>,
    /// Every postgres reference above (a source's target, the coordinator, each
    /// participant), resolved: a name or connection string → its server, or why not.
    targets: BTreeMap<String, Referenced>,
    /// The participants that name a target of the config's `mysql:` section.
    mysql_targets: BTreeMap<String, std::result::Result<MysqlTarget, String>>,
}

impl Sources {
    /// A participant's MySQL server, when it names one of the `mysql:` section.
    pub fn mysql_target(&self, participant: &str) -> Option<Result<MysqlTarget>> {
        self.mysql_targets
            .get(participant)
            .map(|t| t.clone().map_err(|why| anyhow!("{why}")))
    }

    /// The server a reference of the section names, resolved before any connection.
    pub fn target(&self, reference: &str) -> Result<PgTarget> {
        match self.targets.get(reference) {
            Some(Ok(target)) => Ok(target.clone()),
            Some(Err(why)) => Err(anyhow!("{why}")),
            None => Err(anyhow!(
                "{reference:?} is not a reference of the resolve section"
            )),
        }
    }
}

/// `resolve pg`.
pub struct ResolvePgSettings {
    /// The GID argument's bytes, as given.
    pub gid: Vec<u8>,
    pub target: PgTarget,
    pub resolution: ResolveBranchSettings,
}

/// What `resolve pg` and `resolve mysql` share: the decision asked for and how far it
/// goes, how it is confirmed, where the coordinator's decision is sought, and how a next
/// command addresses the server again.
pub struct ResolveBranchSettings {
    /// How a next command addresses this server again (never with a password).
    pub addressing: Addressing,
    pub requested: Option<Decision>,
    pub force: bool,
    pub all_branches: bool,
    pub confirm: Confirm,
    pub sources: Sources,
}

fn resolution(
    t: &Targets,
    addressing: Addressing,
    decision: DecisionArgs,
    all_branches: bool,
    confirm_args: ConfirmArgs,
) -> ResolveBranchSettings {
    ResolveBranchSettings {
        addressing,
        requested: match (decision.commit, decision.rollback) {
            (true, _) => Some(Decision::Commit),
            (_, true) => Some(Decision::Rollback),
            _ => None,
        },
        force: decision.force,
        all_branches,
        confirm: confirm(t, confirm_args),
        sources: sources(t),
    }
}

/// `resolve kafka`.
pub struct ResolveKafkaSettings {
    pub cluster: Cluster,
    pub topic: String,
    pub partition: i32,
    pub start_offset: Option<i64>,
    pub producer_id: Option<i64>,
    pub producer_epoch: Option<i16>,
    pub coordinator_epoch: Option<i32>,
    pub force: bool,
    pub confirm: Confirm,
}

pub fn confirm(t: &Targets, args: ConfirmArgs) -> Confirm {
    Confirm {
        audit_log: t.audit_log(args.audit_log.as_deref()),
        yes: args.yes,
        reason: args.reason,
        ticket: args.ticket,
        dry_run: args.dry_run,
    }
}

/// Each decision source's `in_doubt_after`, with its source (`config show` and the
/// answers of `resolve pg` report the same value).
pub fn in_doubt_after(r: &ResolveConfig) -> Vec<Setting<Duration>> {
    r.decision_sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Setting::duration_in(
                &defaults::DECISION_SOURCE_IN_DOUBT_AFTER,
                &i.to_string(),
                s.in_doubt_after,
            )
        })
        .collect()
}

pub fn sources(t: &Targets) -> Sources {
    let r = &t.config.config.resolve;
    let decision_sources: Vec<Source> = r
        .decision_sources
        .iter()
        .zip(in_doubt_after(r))
        .map(|(config, in_doubt_after)| Source {
            name: config.name.clone(),
            source: config.source().map_err(|e| format!("{e:#}")),
            in_doubt_after,
        })
        .collect();
    let references = decision_sources
        .iter()
        .filter_map(|s| match &s.source {
            Ok(DecisionSource::Sql { target, .. })
            | Ok(DecisionSource::NarayanaJdbcStore { target, .. })
            | Ok(DecisionSource::SeataStore { target, .. }) => Some(target.clone()),
            _ => None,
        })
        .chain(r.citus_coordinator.clone())
        .chain(r.participants.iter().filter(|p| !is_mysql(t, p)).cloned());
    let mysql_targets = r
        .participants
        .iter()
        .filter(|p| is_mysql(t, p))
        .map(|p| (p.clone(), t.mysql_referenced(p)))
        .collect();
    let targets = references
        .map(|reference| {
            let resolved = t.referenced(&reference);
            (reference, resolved)
        })
        .collect();
    Sources {
        decision_sources,
        citus_coordinator: r.citus_coordinator.clone(),
        participants: r.participants.clone(),
        targets,
        mysql_targets,
    }
}

/// A participant is a MySQL server when the `mysql:` section names it and the
/// `postgres:` section does not (a name in both is PostgreSQL's, as before).
fn is_mysql(t: &Targets, participant: &str) -> bool {
    let c = &t.config.config;
    c.mysql.contains_key(participant) && !c.postgres.contains_key(participant)
}

/// `resolve mysql`.
pub struct ResolveMysqlSettings {
    pub xid: crate::mysql::xa::Xid,
    pub target: MysqlTarget,
    pub resolution: ResolveBranchSettings,
}

pub fn resolve_mysql(t: &Targets, args: ResolveMysqlArgs) -> Result<ResolveMysqlSettings> {
    let xid = crate::mysql::xa::Xid::parse(&args.xid).map_err(|why| {
        crate::error::hinted(
            format!("not an XID: {why}"),
            "copy it from `indoubt mysql xa` (the XID column), e.g. \"X'6f7264657273',X'01',131077\"",
        )
    })?;
    let target = t.mysql_for(&args.target)?;
    let addressing = super::mysql::addressing(t, &args.target, &target);
    Ok(ResolveMysqlSettings {
        xid,
        target,
        resolution: resolution(
            t,
            addressing,
            args.decision,
            args.all_branches,
            args.confirm,
        ),
    })
}

pub fn resolve_pg(t: &Targets, args: ResolvePgArgs) -> Result<ResolvePgSettings> {
    // Its lookup reads the whole server; the statement runs in the transaction's database.
    let target = t.pg_for_server(&args.target)?;
    let addressing = Addressing::new(&t.ctx.invocation, &args.target, &target);
    Ok(ResolvePgSettings {
        gid: std::os::unix::ffi::OsStrExt::as_bytes(args.gid.as_os_str()).to_vec(),
        target,
        resolution: resolution(
            t,
            addressing,
            args.decision,
            args.all_branches,
            args.confirm,
        ),
    })
}

pub fn resolve_kafka(t: &Targets, args: ResolveKafkaArgs) -> Result<ResolveKafkaSettings> {
    Ok(ResolveKafkaSettings {
        cluster: kafka::cluster(t, &args.target, None)?,
        topic: args.topic,
        partition: args.partition,
        start_offset: args.start_offset,
        producer_id: args.producer_id,
        producer_epoch: args.producer_epoch,
        coordinator_epoch: args.coordinator_epoch,
        force: args.force,
        confirm: confirm(t, args.confirm),
    })
}
