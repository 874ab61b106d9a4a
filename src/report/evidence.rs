//! Evidence as a person reads it before confirming a resolution: blocks of labelled
//! fields, wrapped between words to the layout width under a hanging indent, a statement
//! kept on one line, and the risk (a HEURISTIC decision, a mixed outcome) highlighted.

use super::layout;
use super::table::Style;
use crate::term::Shown;

/// One object in the evidence: a title line, then its fields.
#[derive(Debug, Clone)]
pub struct Block {
    title: Option<Shown>,
    fields: Vec<Field>,
}

#[derive(Debug, Clone)]
struct Field {
    label: &'static str,
    value: Shown,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Prose: wrapped between words.
    Prose,
    /// A statement or a request: copied as one line, never wrapped.
    Whole,
    /// The risk the operator takes: its label is highlighted.
    Alarm,
}

/// Indent of a field under its block's title.
const INDENT: usize = 2;

impl Block {
    pub fn new(title: Shown) -> Block {
        Block {
            title: Some(title),
            fields: Vec::new(),
        }
    }

    /// A block without a title line: fields only (a closing warning).
    pub fn untitled() -> Block {
        Block {
            title: None,
            fields: Vec::new(),
        }
    }

    pub fn field(&mut self, label: &'static str, value: Shown) -> &mut Block {
        self.push(label, value, Kind::Prose)
    }

    /// A value copied as a whole (SQL, a request): one line, however long.
    pub fn whole(&mut self, label: &'static str, value: Shown) -> &mut Block {
        self.push(label, value, Kind::Whole)
    }

    /// The risk: the label (e.g. HEURISTIC) stands out, in colour where colour is on.
    pub fn alarm(&mut self, label: &'static str, value: Shown) -> &mut Block {
        self.push(label, value, Kind::Alarm)
    }

    fn push(&mut self, label: &'static str, value: Shown, kind: Kind) -> &mut Block {
        self.fields.push(Field { label, value, kind });
        self
    }

    /// The block laid out for `width` columns.
    fn render(&self, style: &Style, out: &mut Vec<String>) {
        let width = usize::from(style.width);
        if let Some(title) = &self.title {
            let room = width.max(20);
            let lines = layout::wrap(title.as_str(), room);
            out.push(lines.join(&format!("\n{}", " ".repeat(INDENT))));
        }
        let label_width = self
            .fields
            .iter()
            .map(|f| layout::width(f.label))
            .max()
            .unwrap_or(0);
        // An untitled block (a closing warning) stands at the margin, not under the last title.
        let indent = if self.title.is_some() { INDENT } else { 0 };
        let hang = indent + label_width + 2;
        let room = width.saturating_sub(hang).max(20);
        for f in &self.fields {
            let pad = " ".repeat(label_width - layout::width(f.label) + 2);
            let label = match (f.kind, style.color) {
                // The risk in the colour of a CRITICAL.
                (Kind::Alarm, true) => format!(
                    "\x1b[{}m{}\x1b[0m",
                    super::table::colour(crate::findings::Severity::Critical),
                    f.label
                ),
                _ => f.label.to_string(),
            };
            let value = match f.kind {
                Kind::Whole => f.value.as_str().replace('\n', " "),
                Kind::Prose | Kind::Alarm => {
                    layout::wrap(f.value.as_str(), room).join(&format!("\n{}", " ".repeat(hang)))
                }
            };
            out.push(format!("{}{label}{pad}{value}", " ".repeat(indent)));
        }
    }
}

/// The blocks one after the other, as one text for the prompt or the report.
pub fn render(blocks: &[Block], style: &Style) -> Shown {
    let mut lines = Vec::new();
    for block in blocks {
        block.render(style, &mut lines);
    }
    // Escaped values re-broken at their spaces, program labels and colour: still escaped.
    #[allow(clippy::disallowed_methods)]
    Shown::__from_format(format_args!("{}", lines.join("\n")))
}

/// A paragraph at the margin (a warning before a confirmation), wrapped between words to
/// the layout width, its later lines indented `hang` columns under its first word.
pub fn paragraph(text: &Shown, hang: usize, style: &Style) -> Shown {
    let room = usize::from(style.width).saturating_sub(hang).max(20);
    let lines = layout::wrap(text.as_str(), room);
    // Escaped text re-broken at its spaces: still escaped.
    #[allow(clippy::disallowed_methods)]
    Shown::__from_format(format_args!(
        "{}",
        lines.join(&format!("\n{}", " ".repeat(hang)))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::layout::Frame;

    fn style(width: u16, color: bool) -> Style {
        Style {
            color,
            width,
            frame: Frame::Plain,
            wide: false,
        }
    }

    #[test]
    fn prose_wraps_under_its_label_and_a_statement_stays_whole() {
        let mut b = Block::new(Shown::text("prepared transaction 'g1' in shop"));
        b.field("owner", Shown::text("app"));
        b.field(
            "proposal",
            Shown::text("no decision source is configured for this transaction. Any action is HEURISTIC and risks a mixed outcome"),
        );
        let sql = "ROLLBACK PREPARED '131077_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'";
        b.whole("will run", Shown::text(sql));
        b.alarm("HEURISTIC", Shown::text("not the coordinator's decision"));
        let text = render(&[b], &style(60, false)).into_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "prepared transaction 'g1' in shop");
        assert_eq!(lines[1], "  owner      app");
        assert!(lines[2].starts_with("  proposal   no decision"), "{text}");
        assert!(
            lines[3].starts_with("             "),
            "hanging indent: {text}"
        );
        assert!(
            lines.iter().all(|l| l.len() <= 60 || l.contains(sql)),
            "prose fits 60 columns: {text}"
        );
        assert!(
            lines.iter().any(|l| *l == format!("  will run   {sql}")),
            "the statement is one line: {text}"
        );
        assert!(text.contains("  HEURISTIC  not the coordinator's decision"));
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn the_risk_is_highlighted_only_with_colour() {
        let mut b = Block::untitled();
        b.alarm("HEURISTIC", Shown::text("x"));
        b.field("owner", Shown::text("app"));
        let text = render(&[b], &style(80, true)).into_string();
        assert!(
            text.starts_with("\x1b[1;31mHEURISTIC\x1b[0m  x"),
            "{text:?}"
        );
        assert!(text.contains("\nowner      app"), "{text:?}");
    }

    #[test]
    fn server_text_stays_escaped() {
        let mut b = Block::new(Shown::bytes(b"gid\x1b[31m"));
        b.field("owner", Shown::bytes(b"\x07bell"));
        let text = render(&[b], &style(80, false)).into_string();
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    }
}
