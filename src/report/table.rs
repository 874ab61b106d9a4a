//! The table renderer: status line, the command's tables, findings with evidence and advice,
//! visibility gaps. The only module that touches comfy_table (clippy.toml): every cell is
//! made from a [`Shown`], so what a server sent is escaped before it is laid out.

// comfy_table's own constructors take any text unescaped; here they take only `Shown`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use super::{Report, TableView};
use crate::findings::Severity;
use crate::term::Shown;
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Color, ColumnConstraint, ContentArrangement, Width,
};

/// Characters a cell shows before it is cut with a marker: laying text out costs time
/// quadratic in its length, and the whole value is in -o json anyway.
pub const CELL_LIMIT: usize = 2000;

pub struct Style {
    pub color: bool,
    /// The width tables are laid out for (term::table_width); None: not a terminal.
    pub width: Option<u16>,
}

/// One table cell. Its content is a `Shown`, cut at [`CELL_LIMIT`] characters; a
/// severity cell remembers its severity, to be painted in the record layout too.
pub struct Cell(comfy_table::Cell, Option<Severity>);

impl Cell {
    pub fn new(content: impl Into<Shown>) -> Cell {
        let shown = content.into().truncated(CELL_LIMIT, |more| {
            format!("… ({more} more characters; -o json has all)")
        });
        Cell(comfy_table::Cell::new(shown.into_string()), None)
    }
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
        let cell = comfy_table::Cell::new(severity.label());
        if !self.color {
            return Cell(cell, Some(severity));
        }
        Cell(
            cell.fg(match severity {
                Severity::Ok => Color::Green,
                Severity::Warning => Color::Yellow,
                Severity::Critical => Color::Red,
                Severity::Unknown => Color::Magenta,
            }),
            Some(severity),
        )
    }

    /// A table laid out for the width decided once (`width`); comfy_table never asks
    /// the terminal itself (a pty may answer 0 columns).
    pub fn table(&self, header: &[&'static str]) -> Grid {
        let mut table = comfy_table::Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .force_no_tty()
            .set_header(header.iter().map(comfy_table::Cell::new));
        if let Some(width) = self.width {
            table.set_width(width);
        }
        if self.color {
            table.enforce_styling();
        }
        Grid {
            table,
            widest_line: vec![0; header.len()],
            header: header.to_vec(),
            rows: Vec::new(),
            whole: Vec::new(),
            records_when_narrow: false,
            width: self.width,
            color: self.color,
        }
    }
}

/// Below this many characters a column of a table is too narrow to read: a table whose
/// whole columns leave the others less than this is shown as records instead.
const READABLE_COLUMN: usize = 14;

/// A table being filled: rows of [`Cell`]s only.
pub struct Grid {
    table: comfy_table::Table,
    /// Per column, the longest line of any cell so far (for `keep_whole`).
    widest_line: Vec<usize>,
    header: Vec<&'static str>,
    /// Each row's cells as laid out (escaped), and the severity of a severity cell.
    rows: Vec<Vec<(String, Option<Severity>)>>,
    /// Columns kept unbroken.
    whole: Vec<usize>,
    records_when_narrow: bool,
    width: Option<u16>,
    color: bool,
}

impl Grid {
    pub fn add_row(&mut self, cells: Vec<Cell>) {
        for (i, cell) in cells.iter().enumerate() {
            let longest = cell
                .0
                .content()
                .lines()
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(0);
            if let Some(w) = self.widest_line.get_mut(i) {
                *w = (*w).max(longest);
            }
        }
        self.rows.push(
            cells
                .iter()
                .map(|c| (c.0.content(), c.1))
                .collect::<Vec<_>>(),
        );
        self.table
            .add_row(cells.into_iter().map(|c| c.0).collect::<Vec<_>>());
    }

    /// Keeps a column's values unbroken (up to 40 characters): a GID or a slot name split
    /// mid-word is hard to read and to copy.
    pub fn keep_whole(&mut self, column: usize) {
        self.whole.push(column);
        let widest = self.widest_line.get(column).copied().unwrap_or(0).min(40);
        lower_bound(&mut self.table, column, widest);
    }

    /// On a terminal too narrow for the whole columns (keep_whole) at their full width
    /// beside readable other columns, [`render`](Self::render) shows one record per
    /// row instead (psql's `\x auto`): a value kept whole stays on one line, which the
    /// terminal may wrap but a copy takes whole.
    pub fn records_when_narrow(&mut self) {
        self.records_when_narrow = true;
    }

    /// The laid-out table: every cell was a `Shown`, the borders are program text.
    pub fn render(&self) -> Shown {
        if self.records_when_narrow {
            if let Some(width) = self.width {
                if !self.fits(usize::from(width)) {
                    return self.records(usize::from(width));
                }
                // It fits: the whole columns get all of their width, not just 40.
                let mut table = self.table.clone();
                for &column in &self.whole {
                    let widest = self.widest_line.get(column).copied().unwrap_or(0);
                    lower_bound(&mut table, column, widest);
                }
                let text = table.to_string();
                return Shown::__from_format(format_args!("{text}"));
            }
        }
        let text = self.table.to_string();
        // Borders, headers and escaped cells only: nothing here needs escaping again.
        Shown::__from_format(format_args!("{text}"))
    }

    /// Whether the table fits `width`: the whole columns at their widest line, the
    /// others at their widest or [`READABLE_COLUMN`], each with padding and a border.
    fn fits(&self, width: usize) -> bool {
        let needed: usize = self
            .widest_line
            .iter()
            .enumerate()
            .map(|(i, &widest)| {
                let header = self.header[i].lines().map(|l| l.chars().count()).max();
                let content = if self.whole.contains(&i) {
                    widest
                } else {
                    widest.min(READABLE_COLUMN)
                };
                content.max(header.unwrap_or(0)) + 3
            })
            .sum();
        needed < width
    }

    /// One block per row: a rule naming the row, then each column's header and value;
    /// values that are not kept whole are wrapped at word boundaries to the width.
    fn records(&self, width: usize) -> Shown {
        let labels: Vec<String> = self
            .header
            .iter()
            .map(|h| h.lines().collect::<Vec<_>>().join(" / "))
            .collect();
        let label_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 2;
        let room = width.saturating_sub(label_width).max(20);
        let mut out = String::new();
        for (n, row) in self.rows.iter().enumerate() {
            let title = format!("─[ {} of {} ]", n + 1, self.rows.len());
            let rule = width.saturating_sub(title.chars().count()).min(40);
            out.push_str(&format!("{title}{}\n", "─".repeat(rule)));
            for (i, (content, severity)) in row.iter().enumerate() {
                let label = labels.get(i).map(String::as_str).unwrap_or("");
                let lines: Vec<String> = if self.whole.contains(&i) {
                    content.lines().map(str::to_string).collect()
                } else {
                    content.lines().flat_map(|l| wrap(l, room)).collect()
                };
                for (k, line) in lines.iter().enumerate() {
                    let head = if k == 0 { label } else { "" };
                    let line = match severity {
                        Some(s) => Style {
                            color: self.color,
                            width: None,
                        }
                        .severity(*s),
                        None => line.clone(),
                    };
                    out.push_str(&format!("{head:<label_width$}{line}\n"));
                }
            }
        }
        out.pop();
        // Headers and escaped cells only, as in the table.
        Shown::__from_format(format_args!("{out}"))
    }
}

/// Keeps a column at least `width` characters wide (and its padding).
fn lower_bound(table: &mut comfy_table::Table, column: usize, width: usize) {
    if let Some(column) = table.column_mut(column) {
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
            u16::try_from(width + 2).unwrap_or(u16::MAX),
        )));
    }
}

/// A line cut at spaces into pieces of at most `room` characters (a longer word whole).
fn wrap(line: &str, room: usize) -> Vec<String> {
    let mut pieces = vec![String::new()];
    for word in line.split(' ') {
        let Some(last) = pieces.last_mut() else {
            break;
        };
        let used = last.chars().count();
        if used > 0 && used + 1 + word.chars().count() > room {
            pieces.push(word.to_string());
        } else {
            if used > 0 {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    pieces
}

pub fn render<T: TableView>(report: &Report<T>, style: &Style) -> Shown {
    let target = match &report.target.name {
        Some(name) => crate::shown!("{} ({})", name, report.target.address),
        None => Shown::text(&report.target.address),
    };
    let width = style.width.map(usize::from);
    let mut out = Shown::default();
    let headline = crate::shown!(
        "indoubt {} on {} at {}",
        report.command,
        target,
        report.generated_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    // The severity label, coloured or not, is program text.
    let prefix = Shown::__from_format(format_args!("{}: ", style.severity(report.status)));
    let prefix_width = report.status.label().len() + 2;
    match report.data.headline() {
        Some(first) => {
            push_wrapped(&mut out, &prefix, prefix_width, &first, width);
            push_wrapped(
                &mut out,
                &Shown::text(&" ".repeat(prefix_width)),
                prefix_width,
                &crate::shown!("({})", headline),
                width,
            );
        }
        None => push_wrapped(&mut out, &prefix, prefix_width, &headline, width),
    }
    for table in report.data.tables(style) {
        out.push(&table);
        out.push_lit("\n");
    }
    if !report.findings.is_empty() {
        let mut findings = style.table(&["STATUS", "SUBJECT", "FINDING"]);
        for finding in &report.findings {
            let text = match &finding.advice {
                Some(advice) => crate::shown!("{}\n→ {}", finding.message, advice),
                None => Shown::from(&finding.message),
            };
            findings.add_row(vec![
                style.severity_cell(finding.severity),
                Cell::new(&finding.subject),
                Cell::new(text),
            ]);
        }
        out.push(&findings.render());
        out.push_lit("\n");
    }
    for gap in report.data.visibility_gaps() {
        push_wrapped(&mut out, &Shown::lit("not visible: "), 13, &gap, width);
    }
    out
}

/// Appends `prefix` + `text`, word-wrapped to the terminal width (when there is one),
/// continuation lines indented by the prefix's visible width.
fn push_wrapped(
    out: &mut Shown,
    prefix: &Shown,
    prefix_width: usize,
    text: &Shown,
    width: Option<usize>,
) {
    out.push(prefix);
    let Some(width) = width.filter(|w| *w > prefix_width + 20) else {
        out.push(text);
        out.push_lit("\n");
        return;
    };
    let room = width - prefix_width;
    let mut line_len = 0;
    let indent = Shown::text(&" ".repeat(prefix_width));
    for word in text.words() {
        let len = word.as_str().chars().count();
        if line_len > 0 && line_len + 1 + len > room {
            out.push_lit("\n");
            out.push(&indent);
            line_len = 0;
        } else if line_len > 0 {
            out.push_lit(" ");
            line_len += 1;
        }
        out.push(&word);
        line_len += len;
    }
    out.push_lit("\n");
}
