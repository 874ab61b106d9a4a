//! What the resolutions that write in an application's database share (Seata's client
//! tables, Spring Modulith's registry): a connection to it (PostgreSQL, or MySQL or
//! MariaDB) that may write, and a write whose rows are counted, with the server's refusal
//! said the same way for either.

use crate::appdb::{Dialect, Session};
use crate::audit::record::Status;
use crate::codes;
use crate::report::Target;
use crate::resolve::flow::Applied;
use crate::settings::targets::{MysqlTarget, PgTarget};
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// The application's database a resolution writes in.
// One per client read or resolution: its size is of no consequence.
#[allow(clippy::large_enum_variant)]
pub enum AppTarget {
    Pg(PgTarget),
    Mysql(MysqlTarget),
}

impl AppTarget {
    pub fn dialect(&self) -> Dialect {
        match self {
            AppTarget::Pg(_) => Dialect::Postgres,
            AppTarget::Mysql(_) => Dialect::Mysql,
        }
    }

    pub fn report_target(&self) -> Target {
        match self {
            AppTarget::Pg(t) => t.report_target(),
            AppTarget::Mysql(t) => t.report_target(),
        }
    }

    /// A session that may write: PostgreSQL's (read-only by default: each write starts
    /// `BEGIN READ WRITE`), or MySQL's resolution session.
    pub async fn connect(&self, timeout: Duration) -> Result<Session> {
        Ok(match self {
            AppTarget::Pg(t) => Session::Pg(crate::pg::session::connect(&t.params, timeout).await?),
            AppTarget::Mysql(t) => Session::Mysql(
                crate::mysql::session::connect(
                    &t.params,
                    timeout,
                    crate::mysql::session::Mode::Resolve,
                )
                .await?,
            ),
        })
    }
}

/// The server's answer refusing a write.
pub struct Refusal {
    pub said: String,
    /// SQLSTATE (PostgreSQL) or the error number (MySQL).
    pub code: Option<String>,
    /// The role may not write the table.
    pub denied: bool,
}

impl Refusal {
    /// The refusal as an outcome: `done` (what was and was not done) and the server's
    /// words; `grant` is the advice when the role may not write.
    pub fn applied(self, done: &str, grant: Text) -> Applied {
        let applied = Applied::new(
            Status::Error,
            codes::FAILED,
            format!("{done}: {}", self.said),
        )
        .server_code(self.code);
        match self.denied {
            true => applied.advice(grant),
            false => applied,
        }
    }
}

/// Runs one statement that writes, and counts the rows it changed. The outer error is the
/// time bound or a lost connection (the outcome is then unknown), the inner one the
/// server's refusal.
pub async fn write_counted(session: &mut Session, sql: &str) -> Result<Result<u64, Refusal>> {
    #[allow(clippy::disallowed_methods)]
    // the writes of the resolutions in an application database, in their flow
    Ok(match session {
        Session::Pg(s) => s.write_counted(sql).await?.map_err(|e| {
            let code = e.as_db_error().map(|d| d.code().code().to_string());
            Refusal {
                said: format!("{:#}", crate::pg::wire::pg_error(e)),
                denied: code.as_deref() == Some("42501"),
                code,
            }
        }),
        Session::Mysql(s) => s.write_counted(sql).await?.map_err(|e| Refusal {
            said: e.to_string(),
            // ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR, read-only session
            denied: matches!(e.code, 1142 | 1143 | 1792),
            code: Some(e.code.to_string()),
        }),
    })
}

/// The statement that starts the transaction of several writes.
pub fn begin(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Postgres => "BEGIN READ WRITE",
        Dialect::Mysql => "START TRANSACTION READ WRITE",
    }
}
