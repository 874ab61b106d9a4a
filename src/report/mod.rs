//! The serializable report model shared by every command, and its output to stdout in the chosen format.

pub mod evidence;
pub mod layout;
pub mod table;

#[cfg(test)]
pub mod golden;

use crate::cli::OutputFormat;
use crate::findings::{self, Finding, Severity};
use crate::term::Shown;
use anyhow::{Context as _, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::io::Write;

/// Bumped on any change that could break a consumer of the JSON/YAML output;
/// adding a field is not such a change.
pub const SCHEMA_VERSION: u32 = 2;

/// What was inspected. Never holds a password.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Target {
    /// The config's name for it, when it came from the config.
    pub name: Option<String>,
    pub kind: String,
    /// `user@host:port/database` for PostgreSQL.
    pub address: String,
}

impl Target {
    /// A run over the sections of a config file, of one kind: the file is where it looked.
    pub fn config_file(kind: &str, path: Option<&std::path::Path>) -> Target {
        Target {
            name: None,
            kind: kind.into(),
            address: path.map(|p| p.display().to_string()).unwrap_or_default(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Report<T> {
    pub schema_version: u32,
    pub indoubt_version: &'static str,
    pub command: &'static str,
    pub generated_at: DateTime<Utc>,
    pub target: Target,
    /// The worst severity among the findings; the exit code follows it.
    pub status: Severity,
    pub exit_code: u8,
    pub findings: Vec<Finding>,
    #[serde(flatten)]
    pub data: T,
}

impl<T> Report<T> {
    pub fn new(command: &'static str, target: Target, findings: Vec<Finding>, data: T) -> Self {
        let status = findings::overall(&findings);
        Report {
            schema_version: SCHEMA_VERSION,
            indoubt_version: env!("CARGO_PKG_VERSION"),
            command,
            generated_at: Utc::now(),
            target,
            status,
            exit_code: status.exit_code(),
            findings,
            data,
        }
    }
}

/// Findings shown together as one incident: indexes into the report's findings (the
/// worst first), and the command to run for it.
pub struct IncidentView<'a> {
    pub findings: &'a [usize],
    pub next: Option<&'a crate::next::Next>,
}

/// How a command lays its own data out as tables for a person: only escaped text
/// ([`Shown`]) comes out, so a value that was never escaped does not type-check.
pub trait TableView {
    fn tables(&self, style: &table::Style) -> Vec<Shown>;
    /// The one line an operator needs first, shown right after the status.
    fn headline(&self) -> Option<Shown> {
        None
    }
    /// The findings grouped into incidents, for a command that groups them (`check`):
    /// shown instead of one finding after another, then a numbered list of their next
    /// commands, then the command's tables.
    fn incidents(&self) -> Option<Vec<IncidentView<'_>>> {
        None
    }
    /// What the role could not see, shown under the findings.
    fn visibility_gaps(&self) -> Vec<Shown> {
        Vec::new()
    }
}

/// Renders the report and writes it to stdout. A closed pipe (`| head`) is not an error.
pub fn emit<T: Serialize + TableView>(
    report: &Report<T>,
    format: OutputFormat,
    style: &table::Style,
) -> Result<()> {
    let text = match format {
        // The style knows whether it is wide.
        OutputFormat::Table | OutputFormat::Wide => table::render(report, style).into_string(),
        OutputFormat::Json => {
            let mut json = serde_json::to_string_pretty(report).context("encoding JSON")?;
            json.push('\n');
            json
        }
        OutputFormat::Yaml => serde_yaml::to_string(report).context("encoding YAML")?,
        // Refused before any work starts (commands::run); only `check` renders these.
        OutputFormat::Nagios | OutputFormat::Prometheus => {
            unreachable!("monitoring formats are rendered by check")
        }
    };
    write_stdout(&text)
}

/// Writes to stdout. A closed pipe (`| head`) is not an error.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to stdout"),
    }
}
