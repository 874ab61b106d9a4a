//! MySQL and MariaDB gathering: connection settings, bounded sessions, prepared XA
//! branches and the purge they hold back.

pub mod params;
pub mod session;
pub mod tables;
pub mod xa;

/// A statement's text, unless it may carry a secret (`ALTER USER … IDENTIFIED BY '…'`,
/// `SET PASSWORD`): reports are pasted into tickets.
pub fn redact_query(query: Option<String>) -> Option<String> {
    query.map(|q| {
        let lower = q.to_ascii_lowercase();
        if lower.contains("password") || lower.contains("identified") {
            "<hidden: the statement may hold a password>".to_string()
        } else {
            q
        }
    })
}
