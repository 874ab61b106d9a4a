//! The table renderer: status line, the command's tables, findings with evidence and advice, visibility gaps.

use super::{Report, TableView};
use crate::findings::Severity;
use crate::term::escape_control;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, Color, ContentArrangement, Table};

pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn severity(&self, severity: Severity) -> String {
        self.paint(severity, severity.label())
    }

    /// The label padded to one column width before colouring, so escapes do not break alignment.
    pub fn severity_padded(&self, severity: Severity) -> String {
        self.paint(severity, &format!("{:<8}", severity.label()))
    }

    fn paint(&self, severity: Severity, label: &str) -> String {
        if !self.color {
            return label.to_string();
        }
        let code = match severity {
            Severity::Ok => "32",
            Severity::Warning => "33",
            Severity::Critical => "1;31",
            Severity::Unknown => "35",
        };
        format!("\x1b[{code}m{label}\x1b[0m")
    }

    pub fn severity_cell(&self, severity: Severity) -> Cell {
        let cell = Cell::new(severity.label());
        if !self.color {
            return cell;
        }
        cell.fg(match severity {
            Severity::Ok => Color::Green,
            Severity::Warning => Color::Yellow,
            Severity::Critical => Color::Red,
            Severity::Unknown => Color::Magenta,
        })
    }

    /// A table that wraps to the terminal width when there is one.
    pub fn table(&self, header: &[&str]) -> Table {
        let mut table = Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(header.iter().map(Cell::new));
        if self.color {
            table.enforce_styling();
        }
        table
    }
}

pub fn render<T: TableView>(report: &Report<T>, style: &Style) -> String {
    let target = match &report.target.name {
        Some(name) => format!("{name} ({})", report.target.address),
        None => report.target.address.clone(),
    };
    let mut out = format!(
        "{}: indoubt {} on {} at {}\n",
        style.severity(report.status),
        report.command,
        escape_control(&target),
        report.generated_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    for table in report.data.tables(style) {
        out.push_str(&table);
        out.push('\n');
    }
    for finding in &report.findings {
        out.push_str(&format!(
            "{} {}: {}\n",
            style.severity_padded(finding.severity),
            escape_control(&finding.subject),
            escape_control(&finding.message)
        ));
        if let Some(advice) = &finding.advice {
            out.push_str(&format!("         → {}\n", escape_control(advice)));
        }
    }
    for gap in report.data.visibility_gaps() {
        out.push_str(&format!("not visible: {}\n", escape_control(gap)));
    }
    out
}
