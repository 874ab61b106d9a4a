//! PostgreSQL gathering: connection parameters, diagnostic sessions and typed catalog reads.

pub mod cancel;
pub mod conninfo;
pub mod horizon;
pub mod outbox;
pub mod prepared;
pub mod session;
pub mod slots;

/// Query text from pg_stat_activity, unless it may carry a secret (`ALTER ROLE … PASSWORD
/// '…'`, `CREATE USER MAPPING … OPTIONS (password …)`): reports are pasted into tickets.
pub fn redact_query(query: Option<String>) -> Option<String> {
    query.map(|q| {
        if q.to_ascii_lowercase().contains("password") {
            "<hidden: the statement mentions a password>".to_string()
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
        assert!(!hidden.contains("hunter2"));
        assert_eq!(
            super::redact_query(Some("SELECT 1".into())).as_deref(),
            Some("SELECT 1")
        );
        assert_eq!(super::redact_query(None), None);
    }
}
