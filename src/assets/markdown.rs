//! The manual's hand-written sections (doc/man/PAGE.SECTION.md) as roff. A small
//! Markdown dialect, so a page reads as plain text in the repository and renders without
//! groff warnings:
//!
//! - `% name(7) — what it is`: first line of a page of its own (no clap command behind it);
//! - `# SECTION NAME` (upper case): a man-page section; `## Title`: a subsection;
//! - paragraphs (lines joined), `- ` bullets and `1. ` numbered items (continuation lines
//!   indented), fenced ``` blocks (verbatim), tables (`| a | b |`: each row a tagged
//!   paragraph, the first cell the tag, the others "Header: cell");
//! - inline `code` and **bold** in bold, *italic*, [text](url) as "text <url>".
//!
//! Everything else is text, escaped: a backslash or a leading dot can never become a roff
//! request.

use crate::settings::man::{roff, roff_inline, roff_line};

#[derive(Debug)]
/// A parsed page: its title line (pages of their own only) and its sections in order.
pub struct Page {
    /// `("indoubt-runbook", "7", "incidents …")` from `% indoubt-runbook(7) — incidents …`.
    pub title: Option<(String, String, String)>,
    pub sections: Vec<Section>,
}

#[derive(Debug)]
/// One `# NAME` section, already roff.
pub struct Section {
    pub name: String,
    pub roff: String,
}

impl Page {
    /// The section named `name`, if the page has one.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }
}

/// The page in `text` (from `file`, for errors).
pub fn parse(file: &str, text: &str) -> Result<Page, String> {
    let mut lines = text.lines().peekable();
    let mut title = None;
    if let Some(first) = lines.peek().and_then(|l| l.strip_prefix("% ")) {
        title = Some(title_line(file, first)?);
        lines.next();
    }
    let mut sections: Vec<Section> = Vec::new();
    let mut block = Blocks::default();
    let mut number = if title.is_some() { 1 } else { 0 };
    while let Some(line) = lines.next() {
        number += 1;
        let at = format!("{file}:{number}");
        let at = || at.clone();
        if let Some(name) = line.strip_prefix("# ") {
            let name = name.trim();
            if name.is_empty()
                || name
                    .chars()
                    .any(|c| !(c.is_ascii_uppercase() || c == ' ' || c == '-'))
            {
                return Err(format!(
                    "{}: a section is named in upper case: {name:?}",
                    at()
                ));
            }
            if let Some(last) = sections.last_mut() {
                last.roff.push_str(&block.finish());
            }
            sections.push(Section {
                name: name.to_string(),
                roff: String::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(format!("{}: text before the first `# SECTION`", at()));
        };
        if line.trim_start().starts_with("```") {
            section.roff.push_str(&block.finish());
            let mut verbatim = Vec::new();
            loop {
                let Some(inner) = lines.next() else {
                    return Err(format!("{}: a ``` block is never closed", at()));
                };
                number += 1;
                if inner.trim_start().starts_with("```") {
                    break;
                }
                verbatim.push(inner);
            }
            section.roff.push_str(&code_block(&verbatim));
        } else if let Some(title) = line.strip_prefix("## ") {
            section.roff.push_str(&block.finish());
            section.roff.push_str(&format!(
                ".SS \"{}\"\n",
                inline(title.trim()).replace('"', "\\(dq")
            ));
        } else if line.starts_with('|') {
            if !matches!(block, Blocks::Table(_)) {
                section.roff.push_str(&block.finish());
                block = Blocks::Table(Vec::new());
            }
            if let Blocks::Table(rows) = &mut block {
                rows.push(cells(line));
            }
        } else if line.trim().is_empty() {
            section.roff.push_str(&block.finish());
        } else if let Some(item) = list_item(line) {
            section.roff.push_str(&block.finish());
            block = Blocks::Item(item.0, vec![item.1.to_string()]);
        } else {
            match &mut block {
                Blocks::Item(_, text) if line.starts_with(' ') => text.push(line.to_string()),
                Blocks::Paragraph(text) => text.push(line.to_string()),
                Blocks::Table(_) | Blocks::Item(..) => {
                    section.roff.push_str(&block.finish());
                    block = Blocks::Paragraph(vec![line.to_string()]);
                }
                Blocks::None => block = Blocks::Paragraph(vec![line.to_string()]),
            }
        }
    }
    if let Some(last) = sections.last_mut() {
        last.roff.push_str(&block.finish());
    }
    Ok(Page { title, sections })
}

/// `indoubt-runbook(7) — incidents` as (name, section, what).
fn title_line(file: &str, line: &str) -> Result<(String, String, String), String> {
    let bad = || format!("{file}:1: a title line is `% name(N) — what it is`");
    let (head, what) = line.split_once(" — ").ok_or_else(bad)?;
    let (name, section) = head
        .trim()
        .strip_suffix(')')
        .ok_or_else(bad)?
        .split_once('(')
        .ok_or_else(bad)?;
    Ok((
        name.to_string(),
        section.to_string(),
        what.trim().to_string(),
    ))
}

/// The text block being collected.
#[derive(Default)]
enum Blocks {
    #[default]
    None,
    Paragraph(Vec<String>),
    /// A list item: its mark (`\(bu` or `3.`) and its lines.
    Item(String, Vec<String>),
    Table(Vec<Vec<String>>),
}

impl Blocks {
    /// The block as roff, and a fresh one begun.
    fn finish(&mut self) -> String {
        let out = match std::mem::take(self) {
            Blocks::None => String::new(),
            Blocks::Paragraph(lines) => format!(".PP\n{}\n", text_line(&joined(&lines))),
            Blocks::Item(mark, lines) => {
                let width = if mark == "\\(bu" { 2 } else { 4 };
                format!(".IP {mark} {width}\n{}\n", text_line(&joined(&lines)))
            }
            Blocks::Table(rows) => table(&rows),
        };
        out
    }
}

/// `- text` or `12. text` as (mark, text).
fn list_item(line: &str) -> Option<(String, &str)> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return Some(("\\(bu".to_string(), rest));
    }
    let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
    let rest = line[digits..].strip_prefix(". ")?;
    (digits > 0).then(|| (format!("{}.", &line[..digits]), rest))
}

/// Lines of one paragraph as one line: roff fills it to the reader's width.
fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
}

/// A verbatim block: each line escaped, never filled or hyphenated. Indented under the
/// text when it fits an 80-column terminal so; a wider one (a sample of output at 80
/// columns) starts at the left edge, so that it is not folded.
fn code_block(lines: &[&str]) -> String {
    let lines: Vec<String> = lines.iter().map(|l| l.replace('\t', "        ")).collect();
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let body: Vec<String> = lines.iter().map(|l| roff(l)).collect();
    let body = body.join("\n");
    match widest {
        // The page's text starts at column 8; two more for a block under it.
        0..=71 => format!(".PP\n.RS 2\n.nf\n{body}\n.fi\n.RE\n"),
        72..=73 => format!(".PP\n.nf\n{body}\n.fi\n"),
        _ => format!(".PP\n.nf\n.in 0\n{body}\n.fi\n.PP\n"),
    }
}

/// A table row's cells (`\|` is a pipe inside a cell).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                out.last_mut().unwrap().push('|');
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Each body row as a tagged paragraph: the first cell the tag, then each other cell,
/// after its header unless the table has two columns.
fn table(rows: &[Vec<String>]) -> String {
    let Some((header, rest)) = rows.split_first() else {
        return String::new();
    };
    let body = rest.iter().filter(|r| {
        !r.iter()
            .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    });
    let mut out = String::new();
    for row in body {
        let Some((tag, others)) = row.split_first() else {
            continue;
        };
        out.push_str(&format!(".TP\n{}\n", text_line(tag)));
        let parts: Vec<String> = others
            .iter()
            .enumerate()
            .filter(|(_, cell)| !cell.is_empty())
            .map(|(i, cell)| match (header.len() > 2, header.get(i + 1)) {
                (true, Some(name)) if !name.is_empty() => {
                    format!("\\fI{}:\\fR {}", inline_plain(name), inline(cell))
                }
                _ => text_line(cell),
            })
            .collect();
        out.push_str(&parts.join("\n.br\n"));
        out.push('\n');
    }
    out
}

/// A header's words without their Markdown marks.
fn inline_plain(text: &str) -> String {
    roff(&text.replace(['`', '*'], ""))
}

/// Inline Markdown as roff: `code` and **bold** in bold, *italic* in italic, a link as
/// its text and address; everything else escaped. Not guarded at a line's start: see
/// [`text_line`].
pub fn inline(text: &str) -> String {
    inline_in(text, 'R')
}

/// A line of text as roff: [`inline`], and never a request however it begins.
pub fn text_line(text: &str) -> String {
    roff_line(&inline(text))
}

/// [`inline`] inside the font `outer` (R, B or I), which each change of font returns to:
/// `code` inside *italic* goes back to italic after it.
fn inline_in(text: &str, outer: char) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`') {
            if let Some(end) = after.find('`') {
                out.push_str(&format!("\\fB{}\\f{outer}", roff_inline(&after[..end])));
                rest = &after[end + 1..];
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix("**") {
            if let Some(end) = after.find("**") {
                out.push_str(&format!("\\fB{}\\f{outer}", inline_in(&after[..end], 'B')));
                rest = &after[end + 2..];
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix('*') {
            if let Some(end) = after.find('*') {
                if end > 0 && !after.starts_with(' ') && !after[..end].ends_with(' ') {
                    out.push_str(&format!("\\fI{}\\f{outer}", inline_in(&after[..end], 'I')));
                    rest = &after[end + 1..];
                    continue;
                }
            }
        }
        if let Some(after) = rest.strip_prefix('[') {
            if let Some((label, url, len)) = link(after) {
                out.push_str(&inline_in(label, outer));
                if url.starts_with("http") {
                    out.push_str(&format!(" <{}>", roff_inline(url)));
                }
                rest = &after[len..];
                continue;
            }
        }
        let next = rest
            .char_indices()
            .skip(1)
            .find(|(_, c)| matches!(c, '`' | '*' | '['))
            .map_or(rest.len(), |(i, _)| i);
        out.push_str(&roff_inline(&rest[..next]));
        rest = &rest[next..];
    }
    out
}

/// `label](url)` after a `[`: the label, the url and how many bytes they take.
fn link(after: &str) -> Option<(&str, &str, usize)> {
    let close = after.find("](")?;
    let end = after[close + 2..].find(')')?;
    Some((
        &after[..close],
        &after[close + 2..close + 2 + end],
        close + 3 + end,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_paragraphs_lists_code_and_tables_become_roff() {
        let page = parse(
            "t.md",
            "# DESCRIPTION\n\nOne `pg prepared`\nline **two**.\n\n- a *b*\n  c\n- .d\n\n## Sub \"x\"\n```\n$ indoubt -h\n.not a request\\n\n```\n| key | what | default |\n|---|---|---|\n| `a` | b \\| c | 1 |\n\n# SEE ALSO\n[kafka](https://kafka.apache.org) and [x](#y)\n",
        )
        .unwrap();
        assert!(page.title.is_none());
        let d = &page.section("DESCRIPTION").unwrap().roff;
        assert!(
            d.contains(".PP\nOne \\fBpg prepared\\fR line \\fBtwo\\fR.\n"),
            "{d}"
        );
        assert!(
            d.contains(".IP \\(bu 2\na \\fIb\\fR c\n.IP \\(bu 2\n\\&.d\n"),
            "{d}"
        );
        assert!(d.contains(".SS \"Sub \\(dqx\\(dq\"\n"), "{d}");
        assert!(
            d.contains(".nf\n$ indoubt \\-h\n\\&.not a request\\en\n.fi\n"),
            "{d}"
        );
        assert!(
            d.contains(".TP\n\\fBa\\fR\n\\fIwhat:\\fR b | c\n.br\n\\fIdefault:\\fR 1\n"),
            "{d}"
        );
        let s = &page.section("SEE ALSO").unwrap().roff;
        assert!(
            s.contains("kafka <https://kafka.apache.org> and x\n"),
            "{s}"
        );
    }

    /// A font change inside another returns to the outer font, not to roman.
    #[test]
    fn code_inside_bold_or_italic_goes_back_to_it() {
        assert_eq!(inline("**a `b` c**"), "\\fBa \\fBb\\fB c\\fR");
        assert_eq!(inline("*a `b` c* d"), "\\fIa \\fBb\\fI c\\fR d");
        assert_eq!(text_line(".x `y`"), "\\&.x \\fBy\\fR");
    }

    #[test]
    fn a_page_of_its_own_has_a_title_and_errors_name_the_line() {
        let page = parse(
            "r.md",
            "% indoubt-runbook(7) — incidents\n# DESCRIPTION\nx\n",
        )
        .unwrap();
        assert_eq!(
            page.title,
            Some(("indoubt-runbook".into(), "7".into(), "incidents".into()))
        );
        assert!(parse("r.md", "text\n").unwrap_err().contains("r.md:1"));
        assert!(parse("r.md", "# lower\n")
            .unwrap_err()
            .contains("upper case"));
        assert!(parse("r.md", "# A\n```\nx\n")
            .unwrap_err()
            .contains("never closed"));
    }
}
