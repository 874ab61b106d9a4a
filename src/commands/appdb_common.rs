//! What the probes of framework tables in an application's database (Seata's, Spring
//! Modulith's, a workflow engine's) share: a read-only session on it, PostgreSQL or
//! MySQL, the GRANT that lets the role read a table it may not, and how a table that
//! could not be read is said.

use crate::appdb::Problem;
use crate::codes::Code;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::next::Next;
use crate::settings::appdb::Db;
use crate::settings::targets::{MysqlTarget, Referenced};
use anyhow::Result;

/// A read-only session on a PostgreSQL database.
pub(crate) async fn connect_pg(
    ctx: &Context,
    target: &Referenced,
) -> Result<crate::pg::session::Session> {
    let target = target.clone().map_err(anyhow::Error::msg)?;
    let session = crate::pg::session::connect(&target.params, ctx.timeout).await?;
    ctx.note(format!("connected: PostgreSQL {}", session.info.version));
    Ok(session)
}

/// A read-only session on an application's database.
pub(crate) async fn connect(ctx: &Context, db: &Db) -> Result<crate::appdb::Session> {
    use crate::appdb::Session as Client;
    Ok(match db {
        Db::Postgres(target) => Client::Pg(connect_pg(ctx, target).await?),
        Db::Mysql(target) => Client::Mysql(connect_mysql(ctx, target).await?),
    })
}

/// Whether a connection failed because the MySQL account has no privilege on the database
/// it names (ER_DBACCESS_DENIED_ERROR).
pub(crate) fn database_denied(e: &anyhow::Error) -> bool {
    crate::mysql::session::server_error(e).is_some_and(|s| s.code == 1044)
}

/// The database a resolution writes in: an unusable target is the error.
pub(crate) fn target(db: &Db) -> Result<crate::resolve::apply::appdb::AppTarget> {
    use crate::resolve::apply::appdb::AppTarget;
    Ok(match db {
        Db::Postgres(t) => AppTarget::Pg(t.clone().map_err(anyhow::Error::msg)?),
        Db::Mysql(t) => AppTarget::Mysql(t.clone().map_err(anyhow::Error::msg)?),
    })
}

/// A read-only session on a MySQL or MariaDB store or client database.
pub(crate) async fn connect_mysql(
    ctx: &Context,
    target: &Result<MysqlTarget, String>,
) -> Result<crate::mysql::session::Session> {
    let target = target.clone().map_err(anyhow::Error::msg)?;
    let session = crate::mysql::session::connect(
        &target.params,
        ctx.timeout,
        crate::mysql::session::Mode::ReadOnly,
    )
    .await?;
    ctx.note(format!("connected: {}", session.version));
    Ok(session)
}

/// The GRANT that lets the database's role read a table a problem names (SELECT on it,
/// or USAGE on its schema), to paste where the table is (`place`); None for a problem no
/// grant mends or when the role is not known.
pub(crate) fn grant(problem: &Problem, db: &Db, place: &str) -> Option<Next> {
    let role = db.role()?;
    if let (Db::Mysql(_), Problem::NotReadable { table }) = (db, problem) {
        // A table named without its database is in the connection's.
        let table = match (table.contains('.'), db.mysql_database()) {
            (true, _) => table.clone(),
            (false, database) => format!("{}.{table}", database?),
        };
        return Some(Next::sql(
            crate::quote::Sql::new("GRANT SELECT ON ")
                .mysql_qualified(&table)?
                .push(" TO ")
                .mysql_account(role, "%")?
                .push(";")
                .placed(&format!("{place}, as an account that may grant it")),
        ));
    }
    let (sql, owner) = match problem {
        Problem::NotReadable { table } => (
            crate::quote::Sql::new("GRANT SELECT ON TABLE ").qualified(table),
            "the table's owner",
        ),
        Problem::SchemaUnusable { schema, .. } => (
            crate::quote::Sql::new("GRANT USAGE ON SCHEMA ").ident(schema),
            "the schema's owner",
        ),
        Problem::Missing { .. } | Problem::MissingColumns { .. } => return None,
    };
    Some(Next::sql(
        sql.push(" TO ")
            .ident(role)
            .push(";")
            .placed(&format!("{place}, as {owner}")),
    ))
}

/// How a probe of a framework's tables says one it could not read: its finding's code and
/// subject, where its database is, what a missing table may mean, and what layout a table
/// lacking columns is not.
pub(crate) struct Unreadable<'a> {
    pub code: Code,
    pub subject: String,
    pub db: &'a Db,
    pub place: String,
    /// After "no table T PLACE": the question a missing table raises, and the advice.
    pub missing: (&'a str, &'a str),
    /// What a table lacking columns is not: "a Spring Modulith 1.x or 2.x registry".
    pub layout: &'a str,
    /// What the role is to be granted SELECT on: "it", "the engine's tables".
    pub grant_on: &'a str,
    /// What the table is to the framework, said after its name ("undo_log"), if anything.
    pub what: Option<&'a str>,
}

impl Unreadable<'_> {
    /// The problem as an UNKNOWN finding, with the GRANT that would show the table.
    pub(crate) fn finding(&self, problem: &Problem) -> Finding {
        let finding = |message: crate::text::Text| {
            Finding::new(Severity::Unknown, self.code, self.subject.clone(), message)
        };
        let grant = grant(problem, self.db, &self.place);
        let named = |table: &str| match self.what {
            Some(what) => format!("{table} ({what})"),
            None => table.to_string(),
        };
        match problem {
            Problem::Missing { table } => finding(crate::text![
                "no table ",
                named(table),
                " ",
                self.place,
                ": ",
                self.missing.0
            ])
            .advice(self.missing.1.to_string()),
            Problem::MissingColumns { table, columns } => finding(crate::text![
                "table ",
                named(table),
                " lacks the column(s) ",
                columns.join(", "),
                ": it is not ",
                self.layout,
                " indoubt knows, so nothing is judged from it"
            ]),
            Problem::NotReadable { table } => finding(crate::text![
                "the role may not read table ",
                named(table),
                ": what it holds is not known"
            ])
            .advice(format!(
                "grant the monitoring role SELECT on {}",
                self.grant_on
            ))
            .next_if(grant),
            Problem::SchemaUnusable { table, schema } => finding(crate::text![
                "the role may not use schema ",
                schema,
                ", so table ",
                named(table),
                " cannot be looked up: what it holds is not known"
            ])
            .advice("grant the monitoring role USAGE on the schema")
            .next_if(grant),
        }
    }
}
