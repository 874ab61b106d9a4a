//! Where a framework's tables are: an application's database named by the config's
//! `postgres:` or `mysql:` (exactly one), resolved before anything is read.

use crate::error::hinted;
use crate::settings::targets::{MysqlTarget, Referenced, Targets};
use anyhow::Result;

/// Where an application's database (a Seata coordinator's store or a client's, a Spring
/// Modulith registry's) is: PostgreSQL, or MySQL or MariaDB (whose statements are in
/// their SQL).
// One or a few per coordinator of the config: its size is of no consequence.
#[allow(clippy::large_enum_variant)]
pub enum Db {
    Postgres(Referenced),
    Mysql(Result<MysqlTarget, String>),
}

impl Db {
    /// The config's `postgres:` or `mysql:` (exactly one), resolved; `whose` names the
    /// section in the error.
    pub fn of(
        t: &Targets,
        whose: &str,
        (pg, my): (&Option<String>, &Option<String>),
    ) -> Result<(String, Db)> {
        match (pg, my) {
            (Some(pg), None) => Ok((pg.clone(), Db::Postgres(t.referenced(pg)))),
            (None, Some(my)) => Ok((my.clone(), Db::Mysql(t.mysql_referenced(my)))),
            _ => Err(hinted(
                format!("{whose} names its database by neither or both of postgres: and mysql:"),
                "name the database with exactly one of them (see `man 5 indoubt-config`)",
            )),
        }
    }

    /// Where a statement for it runs (`written`: the config's name for it; `whose`: the
    /// store, the client, the application): a statement names no server.
    pub fn place(&self, written: &str, whose: &str) -> String {
        match self {
            Db::Postgres(target) => crate::settings::targets::place(target, written),
            // No apostrophe: the place is a comment before a statement, and a quote in
            // it would read as the start of a literal to whatever reads the statement.
            Db::Mysql(t) => match t.as_ref().ok().and_then(|t| t.params.database.as_deref()) {
                Some(db) => format!("in database {db} of {whose} (mysql target {written})"),
                None => format!("in {whose} database (mysql target {written})"),
            },
        }
    }

    /// The role or account it connects as, when its target is usable.
    pub fn role(&self) -> Option<&str> {
        match self {
            Db::Postgres(Ok(t)) => Some(t.params.user.as_str()),
            Db::Mysql(Ok(t)) => Some(t.params.user.as_str()),
            _ => None,
        }
    }

    /// The MySQL database its connection names, if any.
    pub fn mysql_database(&self) -> Option<&str> {
        match self {
            Db::Mysql(Ok(t)) => t.params.database.as_deref(),
            _ => None,
        }
    }
}

impl Db {
    /// Which SQL its statements are in.
    pub fn dialect(&self) -> crate::appdb::Dialect {
        match self {
            Db::Postgres(_) => crate::appdb::Dialect::Postgres,
            Db::Mysql(_) => crate::appdb::Dialect::Mysql,
        }
    }
}
