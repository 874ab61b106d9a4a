//! The table renderer: status line, the command's tables, findings with evidence and advice, visibility gaps.

use super::{Report, TableView};
use crate::findings::Severity;
use crate::term::escape_control;
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Cell, Color, ColumnConstraint, ContentArrangement, Table, Width,
};

pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn severity(&self, severity: Severity) -> String {
        self.paint(severity, severity.label())
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

/// Keeps a column's values unbroken (up to 40 characters): a GID or a slot name split
/// mid-word is hard to read and to copy.
pub fn keep_whole<'a>(table: &mut Table, column: usize, values: impl Iterator<Item = &'a str>) {
    let widest = values
        .map(|v| escape_control(v).chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    if let Some(column) = table.column_mut(column) {
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
            widest as u16 + 2,
        )));
    }
}

pub fn render<T: TableView>(report: &Report<T>, style: &Style) -> String {
    let target = match &report.target.name {
        Some(name) => format!("{name} ({})", report.target.address),
        None => report.target.address.clone(),
    };
    let width = style.table(&[]).width().map(usize::from);
    let mut out = String::new();
    let headline = format!(
        "indoubt {} on {} at {}",
        report.command,
        escape_control(&target),
        report.generated_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    let prefix = format!("{}: ", style.severity(report.status));
    let prefix_width = report.status.label().len() + 2;
    match report.data.headline() {
        Some(first) => {
            push_wrapped(
                &mut out,
                &prefix,
                prefix_width,
                &escape_control(&first),
                width,
            );
            push_wrapped(
                &mut out,
                &" ".repeat(prefix_width),
                prefix_width,
                &format!("({headline})"),
                width,
            );
        }
        None => push_wrapped(&mut out, &prefix, prefix_width, &headline, width),
    }
    for table in report.data.tables(style) {
        out.push_str(&table);
        out.push('\n');
    }
    if !report.findings.is_empty() {
        let mut findings = style.table(&["STATUS", "SUBJECT", "FINDING"]);
        for finding in &report.findings {
            let mut text = escape_control(&finding.message);
            if let Some(advice) = &finding.advice {
                text.push_str(&format!("\n→ {}", escape_control(advice)));
            }
            findings.add_row(vec![
                style.severity_cell(finding.severity),
                Cell::new(escape_control(&finding.subject)),
                Cell::new(text),
            ]);
        }
        out.push_str(&findings.to_string());
        out.push('\n');
    }
    for gap in report.data.visibility_gaps() {
        push_wrapped(&mut out, "not visible: ", 13, &escape_control(gap), width);
    }
    out
}

/// Appends `prefix` + `text`, word-wrapped to the terminal width (when there is one),
/// continuation lines indented by the prefix's visible width.
fn push_wrapped(
    out: &mut String,
    prefix: &str,
    prefix_width: usize,
    text: &str,
    width: Option<usize>,
) {
    out.push_str(prefix);
    let Some(width) = width.filter(|w| *w > prefix_width + 20) else {
        out.push_str(text);
        out.push('\n');
        return;
    };
    let room = width - prefix_width;
    let mut line_len = 0;
    for word in text.split(' ') {
        let len = word.chars().count();
        if line_len > 0 && line_len + 1 + len > room {
            out.push('\n');
            out.push_str(&" ".repeat(prefix_width));
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += len;
    }
    out.push('\n');
}
