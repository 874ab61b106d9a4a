//! PostgreSQL gathering: connection parameters, diagnostic sessions and typed catalog reads.

pub mod cancel;
pub mod conninfo;
pub mod horizon;
pub mod outbox;
pub mod prepared;
pub mod privileges;
pub mod republish;
pub mod service;
pub mod session;
pub mod siblings;
pub mod slots;
pub mod wire;
pub mod xact;

use crate::text::{RawText, Text};
use tokio_postgres::types::{FromSql, Type};

/// Text columns read as the bytes the server sent: a SQL_ASCII database holds GIDs,
/// names and queries that are not UTF-8, and reading one as a String would fail the
/// whole report (and hide every other finding).
impl<'a> FromSql<'a> for RawText {
    fn from_sql(
        _ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawText::from(raw.to_vec()))
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN
        )
    }
}

/// Part of the picture a read could not see, and why: the application words each for the
/// operator, with the grant that would show it.
#[derive(Debug, Clone, PartialEq)]
pub enum Gap {
    /// `what` is hidden from the role, or was not read: `grant` would show it.
    MissingPrivilege { what: Text, grant: Grant },
    /// What could not be read, and why (an error, a name indoubt cannot connect with).
    Unread(Text),
}

/// A privilege the role lacks.
#[derive(Debug, Clone, PartialEq)]
pub enum Grant {
    /// pg_monitor, or pg_read_all_stats alone: other users' sessions' state and queries.
    ReadAllStats,
    /// pg_monitor: pg_ls_waldir, the size of pg_wal.
    Monitor,
    /// CONNECT on the database.
    Connect(RawText),
}

/// Query text from pg_stat_activity, unless it may carry a secret (`ALTER ROLE … PASSWORD
/// '…'`, `CREATE USER MAPPING … OPTIONS (password …)`): reports are pasted into tickets.
pub fn redact_query(query: Option<RawText>) -> Option<RawText> {
    query.map(|q| {
        let lower = q.as_bytes().to_ascii_lowercase();
        if lower.windows(8).any(|w| w == b"password") {
            RawText::from("<hidden: the statement mentions a password>")
        } else {
            q
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn statements_with_passwords_are_hidden() {
        let hidden = super::redact_query(Some("ALTER ROLE app PASSWORD 'hunter2'".into())).unwrap();
        assert!(!hidden.to_text().contains("hunter2"));
        let odd = super::redact_query(Some(b"alter role x \xff PassWord 'a'".to_vec().into()));
        assert!(!odd.unwrap().to_text().contains("'a'"));
        assert_eq!(
            super::redact_query(Some("SELECT 1".into())),
            Some("SELECT 1".into())
        );
        assert_eq!(super::redact_query(None), None);
    }
}
