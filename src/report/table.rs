//! The table renderer: status line, the command's tables, findings with evidence and advice,
//! visibility gaps. Every cell is made from a [`Shown`], so what a server sent is escaped
//! before it is laid out (report::layout, which never splits a word).

pub use super::layout::Frame;
use super::layout::{self, LaidCell};
use super::{Report, TableView};
use crate::findings::Severity;
use crate::term::Shown;

/// The width of the severity gutter of a finding: the longest label and two spaces.
const GUTTER: usize = 10;
const GUTTER_SPACES: &str = "          ";

/// Characters a cell shows before it is cut with a marker: laying text out costs time
/// quadratic in its length, and the whole value is in -o json anyway.
pub const CELL_LIMIT: usize = 2000;

pub struct Style {
    pub color: bool,
    /// The width everything is laid out for, decided once (term::layout_width).
    pub width: u16,
    /// Box drawing at a terminal, plain aligned columns elsewhere.
    pub frame: Frame,
    /// `-o wide`: every column, the optional ones too.
    pub wide: bool,
}

/// One table cell. Its content is a `Shown`, cut at [`CELL_LIMIT`] characters.
pub struct Cell {
    text: Shown,
    paint: Option<&'static str>,
}

impl Cell {
    pub fn new(content: impl Into<Shown>) -> Cell {
        Cell {
            text: cut(content.into()),
            paint: None,
        }
    }
}

/// At most [`CELL_LIMIT`] characters of a value, then a marker saying how many more.
fn cut(text: Shown) -> Shown {
    text.truncated(CELL_LIMIT, |more| {
        format!("… ({more} more characters; -o json has all)")
    })
}

impl Style {
    pub fn severity(&self, severity: Severity) -> String {
        match self.color {
            true => format!("\x1b[{}m{}\x1b[0m", colour(severity), severity.label()),
            false => severity.label().to_string(),
        }
    }

    pub fn severity_cell(&self, severity: Severity) -> Cell {
        Cell {
            text: Shown::lit(severity.label()),
            paint: self.color.then(|| colour(severity)),
        }
    }

    /// A table laid out for the width and frame decided once (see [`Style`]).
    pub fn table(&self, header: &[&'static str]) -> Grid {
        Grid {
            header: header.to_vec(),
            rows: Vec::new(),
            whole: vec![false; header.len()],
            optional: vec![false; header.len()],
            width: usize::from(self.width),
            frame: self.frame,
            wide: self.wide,
        }
    }
}

/// The SGR code of a severity.
pub(super) fn colour(severity: Severity) -> &'static str {
    match severity {
        Severity::Ok => "32",
        Severity::Warning => "33",
        Severity::Critical => "1;31",
        Severity::Unknown => "35",
    }
}

/// A table being filled: rows of [`Cell`]s only.
pub struct Grid {
    header: Vec<&'static str>,
    rows: Vec<Vec<Cell>>,
    whole: Vec<bool>,
    optional: Vec<bool>,
    width: usize,
    frame: Frame,
    wide: bool,
}

impl Grid {
    pub fn add_row(&mut self, cells: Vec<Cell>) {
        self.rows.push(cells);
    }

    /// Keeps a column's values on one line each (a GID, a slot name: copied as a whole).
    /// Words are never split anyway; this keeps a value with spaces unwrapped too. When
    /// such a column cannot fit, the table is laid out as one block per row.
    pub fn keep_whole(&mut self, column: usize) {
        if let Some(w) = self.whole.get_mut(column) {
            *w = true;
        }
    }

    /// A column of detail that `-o wide` shows and the table leaves out (saying so
    /// under it), so the columns an operator acts on keep their room at 80 columns.
    pub fn optional(&mut self, column: usize) {
        if let Some(o) = self.optional.get_mut(column) {
            *o = true;
        }
    }

    /// The laid-out table, or none when it has no rows (a report whose findings say
    /// nothing is stuck prints no empty header).
    pub fn rendered_unless_empty(&self) -> Vec<Shown> {
        match self.rows.is_empty() {
            true => Vec::new(),
            false => vec![self.render()],
        }
    }

    /// The laid-out table: every cell was a `Shown`, the borders are program text.
    pub fn render(&self) -> Shown {
        let shown = |i: &usize| self.wide || !self.optional.get(*i).copied().unwrap_or(false);
        let columns: Vec<usize> = (0..self.header.len()).filter(shown).collect();
        let header: Vec<&str> = columns.iter().map(|&i| self.header[i]).collect();
        let rows: Vec<Vec<LaidCell>> = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .filter(|(i, _)| shown(i))
                    .map(|(i, c)| LaidCell {
                        text: c.text.as_str(),
                        whole: self.whole.get(i).copied().unwrap_or(false),
                        paint: c.paint,
                    })
                    .collect()
            })
            .collect();
        let mut text = layout::lay_out(&header, &rows, self.frame, self.width);
        let left_out: Vec<String> = (0..self.header.len())
            .filter(|i| !shown(i))
            .map(|i| self.header[i].replace('\n', " "))
            .collect();
        if !left_out.is_empty() && !self.rows.is_empty() {
            text.push_str(&format!("\n(-o wide adds {})", left_out.join(", ")));
        }
        // Borders, headers and escaped cells only: nothing here needs escaping again.
        #[allow(clippy::disallowed_methods)]
        Shown::__from_format(format_args!("{text}"))
    }
}

pub fn render<T: TableView>(report: &Report<T>, style: &Style) -> Shown {
    let target = match &report.target.name {
        Some(name) => crate::shown!("{} ({})", name, report.target.address),
        None => Shown::text(&report.target.address),
    };
    let width = usize::from(style.width);
    let mut out = Shown::default();
    let headline = crate::shown!(
        "indoubt {} on {} at {}",
        report.command,
        target,
        report.generated_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    // The severity label, coloured or not, is program text.
    #[allow(clippy::disallowed_methods)]
    let prefix = Shown::__from_format(format_args!("{}: ", style.severity(report.status)));
    let prefix_width = report.status.label().len() + 2;
    let answer = report
        .data
        .headline()
        .or_else(|| worst_subject(&report.findings));
    match answer.clone() {
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
    match report.data.incidents() {
        None => {
            let tables = report.data.tables(style);
            for table in &tables {
                out.push(table);
                out.push_lit("\n");
            }
            if !tables.is_empty() && !report.findings.is_empty() {
                out.push_lit("\n");
            }
            // Findings as a list, worst first (the order of the checks is kept among
            // equals).
            let mut findings: Vec<_> = report.findings.iter().collect();
            findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
            for finding in findings {
                push_finding(&mut out, finding, style);
                if let Some(next) = &finding.next {
                    push_next(&mut out, next, width);
                }
                out.push_lit("\n");
            }
        }
        Some(incidents) => {
            // Each incident's findings together, then its one next command; the list of
            // those commands, numbered worst first; the tables last. A blank line first:
            // the answer stands apart from the first incident's severity gutter.
            if !incidents.is_empty() {
                out.push_lit("\n");
            }
            for incident in &incidents {
                for &i in incident.findings {
                    if let Some(finding) = report.findings.get(i) {
                        push_finding(&mut out, finding, style);
                    }
                }
                if let Some(next) = incident.next {
                    push_next(&mut out, next, width);
                }
                out.push_lit("\n");
            }
            let nexts: Vec<_> = incidents.iter().filter_map(|i| i.next).collect();
            if !nexts.is_empty() {
                out.push_lit("next:\n");
                for (n, next) in nexts.iter().enumerate() {
                    push_command(&mut out, &crate::shown!("{:>3}. ", n + 1), 5, next, width);
                }
                out.push_lit("\n");
            }
            for table in &report.data.tables(style) {
                out.push(table);
                out.push_lit("\n");
            }
        }
    }
    for gap in report.data.visibility_gaps() {
        push_wrapped(&mut out, &Shown::lit("not visible: "), 13, &gap, width);
    }
    // A run over many incidents is longer than a terminal: the answer at its top has
    // scrolled away when it ends, so the last line says it again.
    if let (Some(_), Some(first)) = (report.data.incidents(), answer) {
        if out.as_str().lines().count() > ONE_SCREEN {
            out.push_lit("\n");
            push_wrapped(&mut out, &prefix, prefix_width, &first, width);
        }
    }
    out
}

/// The rows of the smallest usual terminal, less the prompt's line.
const ONE_SCREEN: usize = 23;

/// One finding: the severity in a gutter, the subject on its line, then what was found
/// and the advice, each wrapped between words, so nothing an operator copies is split.
fn push_finding(out: &mut Shown, finding: &crate::findings::Finding, style: &Style) {
    let width = usize::from(style.width);
    let label = finding.severity.label();
    // The label, coloured or not, and its padding are program text.
    #[allow(clippy::disallowed_methods)]
    let gutter = Shown::__from_format(format_args!(
        "{}{}",
        style.severity(finding.severity),
        " ".repeat(GUTTER - label.len())
    ));
    let indent = Shown::lit(GUTTER_SPACES);
    // The code names what `indoubt explain CODE` says about this kind of finding.
    let subject = cut(crate::shown!(
        "{} (explain: {})",
        Shown::from(&finding.subject),
        finding.code.name()
    ));
    push_wrapped(out, &gutter, GUTTER, &subject, width);
    let message = cut(Shown::from(&finding.message));
    // The statement a resolution ran, quoted in its message: never split.
    let statement = finding
        .evidence
        .get("statement")
        .and_then(serde_json::Value::as_str)
        .map_or_else(Shown::default, Shown::text);
    push_wrapped_keeping(out, &indent, GUTTER, &message, &statement, width);
    if let Some(advice) = &finding.advice {
        let advice = cut(crate::shown!("→ {}", advice));
        push_wrapped(out, &indent, GUTTER, &advice, width);
    }
}

/// The answer when a command has no headline of its own: what its worst finding is
/// about, and how many other findings are not OK (none at all: no headline).
fn worst_subject(findings: &[crate::findings::Finding]) -> Option<Shown> {
    let worst = findings
        .iter()
        .filter(|f| f.severity != Severity::Ok)
        .min_by_key(|f| std::cmp::Reverse(f.severity))?;
    let others = findings
        .iter()
        .filter(|f| f.severity != Severity::Ok)
        .count()
        - 1;
    let subject = match worst.subject.is_empty() {
        true => Shown::from(&worst.message),
        false => Shown::from(&worst.subject),
    };
    Some(match others {
        0 => subject,
        1 => crate::shown!("{}, and 1 more finding", subject),
        n => crate::shown!("{}, and {} more findings", subject, n),
    })
}

/// A next command under its finding.
fn push_next(out: &mut Shown, next: &crate::next::Next, width: usize) {
    let prefix = crate::shown!("{}next: ", GUTTER_SPACES);
    push_command(out, &prefix, GUTTER + 6, next, width);
}

/// Appends `prefix` + a command or statement broken between its words to the layout
/// width (a shell command's broken lines end in ` \`), the lines after the first
/// indented a little further than the prefix.
fn push_command(
    out: &mut Shown,
    prefix: &Shown,
    prefix_width: usize,
    next: &crate::next::Next,
    width: usize,
) {
    const FURTHER: usize = 2;
    out.push(prefix);
    let room = width.saturating_sub(prefix_width).max(20);
    let indent = format!("\n{}", " ".repeat(prefix_width + FURTHER));
    let words: Vec<&str> = next.words().iter().map(String::as_str).collect();
    let lines = layout::break_command(&words, room, FURTHER, next.is_shell()).join(&indent);
    // A next command is built only of characters that show as themselves (next.rs), and
    // must not be escaped: that would change what a shell reads.
    #[allow(clippy::disallowed_methods)]
    out.push(&Shown::__from_format(format_args!("{lines}")));
    out.push_lit("\n");
}

/// Appends `prefix` + `text`, wrapped between words to the layout width, continuation
/// lines indented by the prefix's visible width.
fn push_wrapped(out: &mut Shown, prefix: &Shown, prefix_width: usize, text: &Shown, width: usize) {
    push_wrapped_keeping(out, prefix, prefix_width, text, &Shown::default(), width);
}

/// As [`push_wrapped`], with `keep` (a statement the text quotes) on one line, whole.
fn push_wrapped_keeping(
    out: &mut Shown,
    prefix: &Shown,
    prefix_width: usize,
    text: &Shown,
    keep: &Shown,
    width: usize,
) {
    out.push(prefix);
    let room = width.saturating_sub(prefix_width).max(20);
    let indent = format!("\n{}", " ".repeat(prefix_width));
    let lines = text
        .as_str()
        .split('\n')
        .flat_map(|line| layout::wrap_keeping(line, keep.as_str(), room))
        .collect::<Vec<_>>()
        .join(&indent);
    // Escaped text re-broken at its spaces: still escaped.
    #[allow(clippy::disallowed_methods)]
    out.push(&Shown::__from_format(format_args!("{lines}")));
    out.push_lit("\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value kept whole (an xid, a GID) shows as it is, its runs of spaces included:
    /// copied from the table into a command, it is the same value.
    #[test]
    fn a_value_kept_whole_keeps_its_spaces() {
        for frame in [Frame::Plain, Frame::Boxed] {
            let style = crate::report::golden::style(frame, 80, false);
            let mut table = style.table(&["COORDINATOR", "XID"]);
            table.add_row(vec![Cell::new("lab"), Cell::new("S:a    b")]);
            table.keep_whole(1);
            let shown = table.render().into_string();
            assert!(shown.contains("S:a    b"), "{shown}");
        }
    }
}
