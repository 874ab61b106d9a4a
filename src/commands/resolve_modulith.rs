//! `indoubt resolve modulith [NAME] [--older-than D]`: a Spring Modulith registry's
//! completed publications older than a retention, deleted in batches that each commit —
//! what the application's `CompletedEventPublications.deletePublicationsOlderThan` does,
//! for one that never runs it (completion mode UPDATE keeps every row). The evidence is
//! the layout and how many there are; the deletes go through the one flow (dry run,
//! confirmation, audit).

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::modulith::registry::{self, Layout, COUNT_CAP};
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::modulith::Prune;
use crate::resolve::flow::{self, Recorded};
use crate::settings::modulith::ResolveModulithSettings;
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveModulithReport {
    registry: String,
    table: String,
    layout: Option<Layout>,
    /// Completed before this instant are deleted.
    completed_before: DateTime<Utc>,
    older_than_seconds: u64,
    /// How many there were when read, counted up to 100,000 (100,001: more).
    prunable: Option<i64>,
    batch_size: u64,
    /// One batch's statement, as it runs (again until a batch takes fewer rows).
    statement: Option<String>,
    /// Rows deleted (0 on a dry run).
    deleted: u64,
    #[serde(flatten)]
    recorded: Recorded,
}

pub async fn run(ctx: &Context, s: &ResolveModulithSettings) -> Result<Severity> {
    let r = &s.registry;
    let target = super::appdb_common::target(&r.db)?;
    let report_target = target.report_target();
    let table = r.table.value.clone();
    let completed_before = Utc::now()
        - chrono::Duration::from_std(s.older_than.value).unwrap_or(chrono::Duration::MAX);
    let mut data = ResolveModulithReport {
        registry: r.name.clone(),
        table: table.clone(),
        layout: None,
        completed_before,
        older_than_seconds: s.older_than.value.as_secs(),
        prunable: None,
        batch_size: s.batch_size,
        statement: None,
        deleted: 0,
        recorded: Recorded::default(),
    };
    let refuse = |message: String| {
        Finding::new(Severity::Unknown, codes::NOT_THERE, r.subject(), message)
            .evidence("source", table.clone())
    };
    let mut session = super::appdb_common::connect(ctx, &r.db).await?;
    let layout = registry::layout(&mut session, &table).await;
    let layout = match layout {
        Ok(Ok(layout)) => layout,
        Ok(Err(problems)) => {
            session.close().await;
            let what: Vec<String> = problems.iter().map(problem_text).collect();
            return super::finish(
                ctx,
                "resolve modulith",
                report_target,
                vec![refuse(format!(
                    "nothing done: {table} is not a registry indoubt can read ({}); `indoubt modulith publications` says why",
                    what.join("; ")
                ))],
                data,
            );
        }
        Err(e) => {
            session.close().await;
            return Err(e);
        }
    };
    data.layout = Some(layout);
    let prunable = registry::prunable(&mut session, &table, layout, completed_before).await;
    session.close().await;
    let prunable = prunable?;
    data.prunable = Some(prunable);
    if prunable == 0 {
        let finding = Finding::new(
            Severity::Ok,
            codes::ALREADY_RESOLVED,
            r.subject(),
            format!(
                "nothing to do: no completed publication older than {}",
                format_duration(s.older_than.value)
            ),
        )
        .evidence("source", table.clone());
        return super::finish(ctx, "resolve modulith", report_target, vec![finding], data);
    }
    let Some(statement) = registry::prune_statement(
        r.db.dialect(),
        &table,
        layout,
        completed_before,
        s.batch_size,
    ) else {
        return super::finish(
            ctx,
            "resolve modulith",
            report_target,
            vec![refuse("nothing done: the table's name holds a character that would not show in a statement".into())],
            data,
        );
    };
    data.statement = Some(statement.as_str().to_string());
    let evidence = serde_json::json!({
        "registry": data.registry,
        "table": data.table,
        "layout": data.layout,
        "completed_before": data.completed_before,
        "prunable": data.prunable,
        "batch_size": data.batch_size,
    });
    let mut subjects = [Prune::new(
        target,
        (r.name.clone(), table.clone()),
        (statement, s.batch_size),
        evidence,
        blocks(&data),
        ctx.timeout,
    )];
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    data.deleted = subjects[0].deleted;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve modulith", report_target, findings, data)
}

/// A problem as the refusal says it (`modulith publications` says it at length, with the
/// GRANT).
fn problem_text(p: &crate::appdb::Problem) -> String {
    use crate::appdb::Problem;
    match p {
        Problem::Missing { table } => format!("no table {table}"),
        Problem::NotReadable { table } => format!("the role may not read {table}"),
        Problem::SchemaUnusable { schema, .. } => format!("the role may not use schema {schema}"),
        Problem::MissingColumns { columns, .. } => format!("no column {}", columns.join(", ")),
    }
}

/// What the operator confirms: the registry, the cutoff, how many, the statement.
fn blocks(data: &ResolveModulithReport) -> Vec<Block> {
    let mut b = Block::new(shown!(
        "modulith registry {}, table {}",
        data.registry,
        data.table
    ));
    let count = match data.prunable {
        Some(n) if n > COUNT_CAP => format!("more than {COUNT_CAP}"),
        Some(n) => n.to_string(),
        None => "not known".into(),
    };
    b.field(
        "completed before",
        shown!(
            "{} ({} ago)",
            data.completed_before.format("%Y-%m-%d %H:%M:%S UTC"),
            format_duration(std::time::Duration::from_secs(data.older_than_seconds))
        ),
    )
    .field("rows", shown!("{}", count))
    .field(
        "batches",
        shown!("of {} rows, each committed by itself", data.batch_size),
    );
    if let Some(statement) = &data.statement {
        // Exactly as it runs (it was built by Sql: it shows as itself).
        let sql = crate::next::Next::sql(crate::quote::Sql::assembled(statement.clone()));
        b.whole("will run", sql.shown());
    }
    vec![b]
}

impl TableView for ResolveModulithReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut lines = self.recorded.evidence(&blocks(self), style);
        lines.extend(self.recorded.recorded_in());
        lines
    }
}
