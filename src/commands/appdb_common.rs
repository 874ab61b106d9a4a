//! What the probes of framework tables in an application's database (Seata's, Spring
//! Modulith's) share: a read-only session on it, PostgreSQL or MySQL, and the GRANT that
//! lets the role read a table it may not.

use crate::appdb::Problem;
use crate::context::Context;
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
