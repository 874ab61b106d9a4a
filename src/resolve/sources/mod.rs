//! Asking every configured decision source about one prepared transaction: SQL queries,
//! Narayana's object store and JDBC store, Atomikos' log, a Seata coordinator's store,
//! and the Citus coordinator.

pub mod atomikos;
pub mod narayana;

use crate::audit::record::{Answer, SourceAnswer};
use crate::config::{DecisionKey, DecisionSource};
use crate::context::Context;
use crate::gid::DecodedGid;
use crate::pg::session;
use crate::resolve::decision::parse_answer;
use crate::settings::resolution::{Source, Sources};
use crate::text::RawText;
use futures_util::future::{join_all, BoxFuture};

/// Asks every source that applies to this GID, all at once (an unreachable one costs one
/// timeout, not one each), answers in the config's order.
/// A GID that is not UTF-8 (a SQL_ASCII database) cannot be a query parameter: the
/// sources keyed by it are not asked, which is not the same as their having no record.
pub async fn ask_sources(
    ctx: &Context,
    resolve: &Sources,
    gid: &RawText,
    decoded: &DecodedGid,
) -> Vec<SourceAnswer> {
    let gid = gid.as_str();
    let mut asks: Vec<BoxFuture<'_, SourceAnswer>> = Vec::new();
    for config in &resolve.decision_sources {
        asks.push(Box::pin(ask_one(ctx, resolve, config, gid, decoded)));
    }
    if let (
        DecodedGid::Citus {
            initiator_group_id,
            transaction_number,
            ..
        },
        Some(coordinator),
        Some(gid),
    ) = (decoded, &resolve.citus_coordinator, gid)
    {
        asks.push(Box::pin(citus(
            ctx,
            resolve,
            coordinator,
            gid,
            *initiator_group_id,
            *transaction_number,
        )));
    }
    join_all(asks).await
}

/// What one source says, with its name, weight and `in_doubt_after` attached.
async fn ask_one(
    ctx: &Context,
    resolve: &Sources,
    config: &Source,
    gid: Option<&str>,
    decoded: &DecodedGid,
) -> SourceAnswer {
    let (answer, authoritative, detail) = match &config.source {
        // Checked when the config loaded; kept as an answer rather than a panic.
        Err(e) => (Answer::Unreachable, false, e.clone()),
        Ok(source) => ask_source(ctx, resolve, source, gid, decoded).await,
    };
    SourceAnswer {
        source: config.name.clone(),
        answer,
        authoritative,
        detail,
        in_doubt_after_seconds: Some(config.in_doubt_after.value.as_secs_f64()),
    }
}

async fn ask_source(
    ctx: &Context,
    resolve: &Sources,
    source: &DecisionSource,
    gid: Option<&str>,
    decoded: &DecodedGid,
) -> (Answer, bool, String) {
    match source {
        DecisionSource::Sql {
            target,
            query,
            key,
            authoritative,
        } => match key_of(*key, gid, decoded) {
            Ok(key) => {
                let (answer, detail) = sql(ctx, resolve, target, query, &key).await;
                (answer, *authoritative, detail)
            }
            Err(why) if matches!(key, DecisionKey::Gid) => (Answer::Unreachable, false, why),
            Err(why) => (Answer::NotApplicable, false, why),
        },
        DecisionSource::NarayanaObjectStore { path, node } => {
            match narayana::uid_for(decoded, node.as_deref()) {
                Ok(uid) => {
                    let (answer, detail) = narayana::object_store(path, &uid);
                    weigh(answer, detail, node.is_some())
                }
                Err(why) => (Answer::NotApplicable, false, why),
            }
        }
        DecisionSource::NarayanaJdbcStore {
            target,
            table,
            node,
        } => match narayana::uid_for(decoded, node.as_deref()) {
            Ok(uid) => {
                let (answer, detail) = jdbc_store(ctx, resolve, target, table, &uid).await;
                weigh(answer, detail, node.is_some())
            }
            Err(why) => (Answer::NotApplicable, false, why),
        },
        DecisionSource::AtomikosLog {
            path,
            tm_unique_name,
        } => match atomikos::tid_for(decoded, tm_unique_name.as_deref()) {
            Ok(tid) => {
                let (answer, detail) = atomikos::log(path, &tid);
                weigh(answer, detail, tm_unique_name.is_some())
            }
            Err(why) => (Answer::NotApplicable, false, why),
        },
        DecisionSource::SeataStore { target, table } => match decoded {
            DecodedGid::Xa(xa) => match &xa.seata {
                Some(seata) => seata_store(ctx, resolve, target, table, &seata.xid).await,
                None => (
                    Answer::NotApplicable,
                    false,
                    "not a Seata XA branch (format id 9752 with a Seata xid)".into(),
                ),
            },
            _ => (
                Answer::NotApplicable,
                false,
                "not an XA branch, so not a Seata one".into(),
            ),
        },
    }
}

/// A Seata coordinator's store: the global table's row for the branch's xid says what
/// the coordinator decided (its own record, so authoritative). No row proves nothing:
/// Seata deletes a global's row once it ended, committed or rolled back.
async fn seata_store(
    ctx: &Context,
    resolve: &Sources,
    target: &str,
    table: &str,
    xid: &str,
) -> (Answer, bool, String) {
    use crate::seata::status::{self, Decided};
    let outcome = async {
        let target = resolve.target(target)?;
        let session = session::connect(&target.params, ctx.timeout).await?;
        crate::seata::store::global_status(&session, table, xid).await
    }
    .await;
    match outcome {
        Ok(Some(code)) => {
            let (name, _) = status::global(code);
            let said = format!("global {xid} is {name} ({code}) in {table}");
            match status::decided(code) {
                Decided::Commit => (Answer::Commit, true, said),
                Decided::Rollback => (Answer::Rollback, true, said),
                Decided::Undecided => (
                    Answer::InProgress,
                    true,
                    format!("{said}: not yet decided (the coordinator rolls it back at its timeout)"),
                ),
                Decided::Unclear => (
                    Answer::Unreachable,
                    false,
                    format!("{said}, which does not say whether it committed or rolled back"),
                ),
            }
        }
        Ok(None) => (
            Answer::NoRecord,
            false,
            format!("no row for global {xid} in {table}: Seata deletes a global's row once it ended, either way, so this proves nothing"),
        ),
        Err(e) => (Answer::Unreachable, false, format!("{e:#}")),
    }
}

/// A transaction manager's log is the coordinator's own, so authoritative, once it is
/// known to be this transaction's coordinator's (`coordinator:` in the config).
fn weigh(answer: Answer, mut detail: String, coordinator_known: bool) -> (Answer, bool, String) {
    if !coordinator_known && answer == Answer::NoRecord {
        detail.push_str(
            "; without `coordinator:` in this source's config the log may be another coordinator's, so this proves nothing",
        );
    }
    (answer, coordinator_known, detail)
}

/// The text a SQL source's $1 gets for this transaction.
fn key_of(key: DecisionKey, gid: Option<&str>, decoded: &DecodedGid) -> Result<String, String> {
    match (key, decoded) {
        (DecisionKey::Gid, _) => gid.map(str::to_string).ok_or_else(|| {
            "not asked: the GID is not UTF-8 text, which no query parameter can carry".into()
        }),
        (DecisionKey::Gtrid, DecodedGid::Xa(xa)) => Ok(xa.gtrid_text.clone()),
        (DecisionKey::NarayanaUid, _) => narayana::uid_for(decoded, None),
        (DecisionKey::AtomikosTid, _) => atomikos::tid_for(decoded, None),
        (DecisionKey::Gtrid, _) => {
            Err("the GID is not an XA id, so it has no gtrid to look up".into())
        }
    }
}

/// Runs a source's query with the key as $1; its first row's first column is the answer.
async fn sql(
    ctx: &Context,
    resolve: &Sources,
    target: &str,
    query: &str,
    key: &str,
) -> (Answer, String) {
    let outcome = async {
        let target = resolve.target(target)?;
        let session = session::connect(&target.params, ctx.timeout).await?;
        let rows = session.query(query, &[&key]).await?;
        anyhow::Ok(match rows.first() {
            Some(row) => Some(row.try_get::<_, String>(0)?),
            None => None,
        })
    }
    .await;
    match outcome {
        Ok(Some(text)) => match parse_answer(&text) {
            Some(answer) => (answer, format!("answered '{text}'")),
            None => (
                Answer::Unreachable,
                format!("answered '{text}', which is neither a decision (commit, rollback) nor a state of an undecided transaction (active, preparing, prepared)"),
            ),
        },
        Ok(None) => (Answer::NoRecord, "no row for this transaction".to_string()),
        Err(e) => (Answer::Unreachable, format!("{e:#}")),
    }
}

/// Narayana's JDBC store: a committed, visible AtomicAction row for the Uid is the commit
/// decision; no row is no record. Read with one SELECT, nothing locked.
async fn jdbc_store(
    ctx: &Context,
    resolve: &Sources,
    target: &str,
    table: &str,
    uid: &str,
) -> (Answer, String) {
    let outcome = async {
        let target = resolve.target(target)?;
        let session = session::connect(&target.params, ctx.timeout).await?;
        let rows = session
            .query(
                &narayana::jdbc_query(table),
                &[&narayana::ATOMIC_ACTION, &uid],
            )
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get::<_, i32>(0)?, r.try_get::<_, i32>(1)?)))
            .collect::<anyhow::Result<Vec<(i32, i32)>>>()
    }
    .await;
    match outcome {
        Ok(rows) => narayana::jdbc_answer(table, uid, &rows),
        Err(e) => (Answer::Unreachable, format!("{e:#}")),
    }
}

/// Citus commits a row of pg_dist_transaction inside the coordinator's own commit: a row
/// means commit. No row means presumed abort only once the distributed transaction is no
/// longer running on the coordinator (its row appears only at its commit), as Citus's own
/// recover_prepared_transactions() checks.
async fn citus(
    ctx: &Context,
    resolve: &Sources,
    coordinator: &str,
    gid: &str,
    group: i64,
    txn: i64,
) -> SourceAnswer {
    let query = "SELECT 'commit' FROM pg_dist_transaction WHERE gid = $1";
    let (mut answer, mut detail) = sql(ctx, resolve, coordinator, query, gid).await;
    if answer == Answer::NoRecord {
        let running = async {
            let target = resolve.target(coordinator)?;
            let session = session::connect(&target.params, ctx.timeout).await?;
            let group = i32::try_from(group).unwrap_or(i32::MAX);
            let rows = session
                .query(
                    "SELECT count(*) FROM get_all_active_transactions() WHERE initiator_node_identifier = $1 AND transaction_number = $2",
                    &[&group, &txn],
                )
                .await?;
            anyhow::Ok(rows.first().map(|r| r.try_get::<_, i64>(0)).transpose()?.unwrap_or(0))
        }
        .await;
        match running {
            Ok(0) => {}
            Ok(_) => {
                answer = Answer::InProgress;
                detail = "no decision row yet, but the distributed transaction is still running on the coordinator".into();
            }
            Err(e) => {
                answer = Answer::Unreachable;
                detail = format!(
                    "no decision row, and whether it is still running could not be checked: {e:#}"
                );
            }
        }
    }
    SourceAnswer {
        source: format!("citus coordinator {coordinator}"),
        answer,
        authoritative: true,
        detail: format!("{detail} (initiator group {group}, transaction {txn})"),
        // Citus's own check (still running on the coordinator or not) replaces a wait.
        in_doubt_after_seconds: Some(0.0),
    }
}
