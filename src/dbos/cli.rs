//! DBOS's own CLI (`dbos workflow resume|cancel`), as a command line for a system
//! database: the database's URL without its password (the password goes in `PGPASSWORD`,
//! never on a command line another user's `ps` shows), the schema, and the workflow id
//! after `--` so that no id is read as an option.

use crate::pg::conninfo::ConnParams;

/// A command to run: its arguments, and what its environment adds.
#[derive(Debug, Clone)]
pub struct Call {
    pub argv: Vec<String>,
    /// `PGPASSWORD`, `PGPASSFILE`, `PGSSLROOTCERT`…: libpq's, which DBOS's driver reads.
    pub env: Vec<(&'static str, String)>,
}

/// `CLI… workflow ACTION --sys-db-url URL --schema SCHEMA -- ID`.
pub fn call(cli: &[String], params: &ConnParams, schema: &str, action: &str, id: &str) -> Call {
    let mut argv: Vec<String> = cli.to_vec();
    argv.extend(
        [
            "workflow",
            action,
            "--sys-db-url",
            &url(params),
            "--schema",
            schema,
            "--",
            id,
        ]
        .map(String::from),
    );
    let mut env = Vec::new();
    if let Some(password) = &params.password {
        env.push(("PGPASSWORD", password.expose().to_string()));
    }
    if let Some(file) = &params.passfile {
        env.push(("PGPASSFILE", file.display().to_string()));
    }
    for (name, path) in [
        ("PGSSLROOTCERT", &params.sslrootcert),
        ("PGSSLCERT", &params.sslcert),
        ("PGSSLKEY", &params.sslkey),
    ] {
        if let Some(path) = path {
            env.push((name, path.display().to_string()));
        }
    }
    Call { argv, env }
}

/// `postgresql://USER@HOST:PORT/DB?sslmode=…&connect_timeout=…`, every part
/// percent-encoded; a socket directory as `host=` (libpq's form), no password.
pub fn url(params: &ConnParams) -> String {
    let host = params.hosts.first().cloned().unwrap_or_default();
    let port = params.ports.first().copied().unwrap_or(5432);
    let user = encode(&params.user);
    let db = encode(&params.dbname);
    let timeout = params
        .connect_timeout
        .map(|t| t.as_secs().max(1))
        .unwrap_or(10);
    let query = format!(
        "sslmode={}&connect_timeout={timeout}",
        params.sslmode.as_str()
    );
    match host.starts_with('/') {
        true => format!(
            "postgresql://{user}@/{db}?host={}&port={port}&{query}",
            encode(&host)
        ),
        false => {
            let host = match host.contains(':') {
                true => format!("[{host}]"),
                false => encode(&host),
            };
            format!("postgresql://{user}@{host}:{port}/{db}?{query}")
        }
    }
}

/// Every byte but letters, digits and `-._~` as %XX.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn a_user_or_database_name_cannot_change_the_url() {
        assert_eq!(encode("app@x/y?z"), "app%40x%2Fy%3Fz");
        assert_eq!(encode("shop_db-1"), "shop_db-1");
    }
}
