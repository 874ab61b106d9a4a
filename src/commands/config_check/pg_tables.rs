//! What each section of the config reads in its postgres database, checked as the role:
//! a reconcile job's query (planned by the server), an outbox's or inbox's table and
//! columns; each one refused with the GRANT that gives it.

use super::checks::Check;
use crate::codes;
use crate::findings::Severity;
use crate::next::{Next, Sql};
use crate::pg::privileges::{self, TableAccess};
use crate::pg::session::Session;
use crate::settings::config_check::PgUse;

/// What one section uses, checked as the role in the section's database.
pub(super) async fn check(session: &Session, using: &PgUse, grantee: &str) -> Check {
    match using {
        PgUse::Reconcile { job, query } => {
            reconcile_query(job, &privileges::query_runs(session, query).await, grantee)
        }
        PgUse::Table {
            section,
            table,
            columns,
        } => {
            let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
            let access = privileges::table(session, table, &cols).await;
            table_check(section, table, columns, &access, grantee)
        }
    }
}

/// A reconcile job's query, as the server planned it (`ran`: its refusal, or an error).
pub(super) fn reconcile_query(
    job: &str,
    ran: &anyhow::Result<Result<(), String>>,
    grantee: &str,
) -> Check {
    let what = format!("reconcile job {job}");
    match ran {
        Ok(Ok(())) => Check::ok(
            what,
            "its query may run: the server planned it (EXPLAIN checks SELECT on every table and column it reads)",
        ),
        Ok(Err(refused)) => {
            // The server's message names the table when it is English (lc_messages).
            let table = refused
                .split_once("permission denied for table ")
                .map(|(_, rest)| rest.split_whitespace().next().unwrap_or("").to_string())
                .filter(|t| !t.is_empty());
            Check::failed(
                what,
                Severity::Critical,
                codes::PG_TABLE_UNREADABLE,
                format!("its query cannot run as this role: {refused}"),
            )
            .next(table.map(|t| {
                Next::sql(
                    Sql::new("GRANT SELECT ON TABLE ")
                        .ident(&t)
                        .push(" TO ")
                        .ident(grantee)
                        .push(";"),
                )
            }))
        }
        Err(e) => Check::failed(
            what,
            Severity::Unknown,
            codes::PG_TABLE_UNREADABLE,
            format!("{e:#}"),
        ),
    }
}

/// An outbox's or inbox's table and the columns its check reads, as the role may read
/// them (`access`).
pub(super) fn table_check(
    section: &str,
    table: &str,
    columns: &[String],
    access: &anyhow::Result<TableAccess>,
    grantee: &str,
) -> Check {
    match access {
        Ok(TableAccess {
            unusable_schema: Some(schema),
            ..
        }) => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!("no USAGE on schema {schema}, so table {table} cannot be looked up: the {section} check cannot run"),
        )
        .next(Some(Next::sql(
            Sql::new("GRANT USAGE ON SCHEMA ")
                .ident(schema)
                .push(" TO ")
                .ident(grantee)
                .push(";"),
        ))),
        Ok(a) if !a.exists => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!("table {table} was not found (or its schema is not usable by the role): the {section} check cannot run"),
        ),
        Ok(a) if !a.missing_columns.is_empty() => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!(
                "table {table} has no column {}: the {section} check cannot run",
                a.missing_columns.join(", ")
            ),
        ),
        Ok(a) if !a.unreadable_columns.is_empty() => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!(
                "no SELECT on table {table} (columns {}): the {section} check cannot run",
                a.unreadable_columns.join(", ")
            ),
        )
        .next(Some(Next::sql(
            Sql::new("GRANT SELECT ON TABLE ")
                .qualified(table)
                .push(" TO ")
                .ident(grantee)
                .push(";"),
        ))),
        Ok(a) => Check::ok(
            section,
            format!(
                "SELECT on table {table}{} (columns {})",
                if a.select { "" } else { " by column grants" },
                columns.join(", ")
            ),
        ),
        Err(e) => Check::failed(
            section,
            Severity::Unknown,
            codes::PG_TABLE_UNREADABLE,
            format!("{e:#}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table in a schema the role may not use cannot even be looked up: the check says
    /// so and gives the GRANT USAGE (not "not found").
    #[test]
    fn a_schema_the_role_may_not_use_is_named_with_its_grant() {
        let access = Ok(TableAccess {
            unusable_schema: Some("hid".into()),
            exists: false,
            select: false,
            missing_columns: Vec::new(),
            unreadable_columns: Vec::new(),
        });
        let check = table_check("outbox orders", "hid.outbox", &[], &access, "monitor");
        let shown = format!("{check:?}");
        assert!(shown.contains("no USAGE on schema hid"), "{shown}");
        let next = check.next.as_ref().map(|n| n.line()).unwrap_or_default();
        assert_eq!(next, r#"GRANT USAGE ON SCHEMA "hid" TO "monitor";"#);
    }
}
