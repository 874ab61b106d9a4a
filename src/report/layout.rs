//! Table layout for a fixed width: cells wrap only between words, so an identifier, a
//! piece of SQL in backticks or a command is never split; when the words cannot fit, the
//! table turns into one block per row (psql's `\x auto`), where a long value overflows
//! its line whole rather than being cut. Pure text in, lines out: escaping and colour
//! belong to the caller (report::table).

use unicode_width::UnicodeWidthStr;

/// How a table is drawn: box lines for a person at a terminal; aligned columns without
/// box drawing for a pipe, a pager or `watch` (as kubectl prints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    Boxed,
    Plain,
}

/// One cell: its text (escaped already; `\n` is a line break the renderer chose) and
/// whether it must stay on one line (a GID the operator copies).
pub struct LaidCell<'a> {
    pub text: &'a str,
    pub whole: bool,
    /// Wraps each line of the cell after layout (colour); its width is not counted.
    pub paint: Option<&'a str>,
}

/// Display width in terminal columns.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// The words of one line: split at spaces, except that a span in backticks (a command,
/// a SQL statement) is one word, and so is a timestamp (`2026-12-01 19:31:26 UTC`: its
/// date, time and zone read as one value).
pub fn words(line: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for word in split_words(line) {
        match out.last_mut() {
            Some(last) if continues_timestamp(last, word) => {
                // Both are slices of `line`: the joined word runs from one's start to the
                // other's end, the spaces between kept.
                let start = last.as_ptr() as usize - line.as_ptr() as usize;
                let end = word.as_ptr() as usize - line.as_ptr() as usize + word.len();
                *last = &line[start..end];
            }
            _ => out.push(word),
        }
    }
    out
}

/// Whether `next` is the time after a date ending `last`, or the zone after a time.
fn continues_timestamp(last: &str, next: &str) -> bool {
    let digits = |s: &str, shape: &str| {
        s.len() >= shape.len()
            && s.bytes().zip(shape.bytes()).all(|(c, f)| {
                if f == b'9' {
                    c.is_ascii_digit()
                } else {
                    c == f
                }
            })
    };
    fn tail(s: &str, n: usize) -> &str {
        s.get(s.len().saturating_sub(n)..).unwrap_or("")
    }
    let ends_with_date = digits(tail(last, 10), "9999-99-99");
    let ends_with_time = digits(tail(last, 8), "99:99:99")
        || last.rsplit_once('.').is_some_and(|(time, frac)| {
            digits(tail(time, 8), "99:99:99") && frac.bytes().all(|c| c.is_ascii_digit())
        });
    (ends_with_date && digits(next, "99:99:99")) || (ends_with_time && next.starts_with("UTC"))
}

/// Split at spaces outside backticks.
fn split_words(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut in_ticks = false;
    for (i, c) in line.char_indices() {
        match c {
            '`' => {
                in_ticks = !in_ticks;
                start.get_or_insert(i);
            }
            ' ' if !in_ticks => {
                if let Some(s) = start.take() {
                    out.push(&line[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
    out
}

/// The text wrapped to `room` columns between words; a word wider than `room` gets a
/// line of its own, whole.
pub fn wrap(text: &str, room: usize) -> Vec<String> {
    text.split('\n')
        .map(|hard| fill(words(hard), room))
        .collect::<Vec<_>>()
        .concat()
}

/// As [`wrap`] for one line, with the first `keep` in it (a statement a server message
/// quotes: `ROLLBACK PREPARED '…' done`) laid out as one word, never split.
pub fn wrap_keeping(line: &str, keep: &str, room: usize) -> Vec<String> {
    match line.find(keep).filter(|_| !keep.is_empty()) {
        Some(at) => {
            let (before, rest) = line.split_at(at);
            let after = &rest[keep.len()..];
            let all = words(before).into_iter().chain([keep]).chain(words(after));
            fill(all.collect(), room)
        }
        None => fill(words(line), room),
    }
}

/// A command line or SQL statement broken between its words to fit `room` columns (the
/// lines after the first `indent` columns narrower), never inside a quoted word: a GID or
/// a literal stays whole, and a word wider than the room gets a line of its own. A shell
/// command's broken lines end in ` \`, so pasted whole it is still one command.
pub fn break_command(words: &[&str], room: usize, indent: usize, shell: bool) -> Vec<String> {
    let tail = if shell { 2 } else { 0 };
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let widest = room.saturating_sub(indent + tail);
    for word in units(words.to_vec(), shell, widest) {
        let room_here = if lines.is_empty() {
            room
        } else {
            room.saturating_sub(indent)
        };
        if !line.is_empty() && width(&line) + 1 + width(&word) + tail > room_here {
            if shell {
                line.push_str(" \\");
            }
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

/// The units a line breaks between: words, and in a shell command a flag with its value
/// (`--ids-out FILE`, `-- JOB`) when the two fit on a line of `widest` columns, so a value
/// is not read apart from the flag that names it.
fn units<'a>(words: Vec<&'a str>, shell: bool, widest: usize) -> Vec<std::borrow::Cow<'a, str>> {
    let mut units = Vec::new();
    let mut words = words.into_iter().peekable();
    while let Some(word) = words.next() {
        let takes_value = shell && word.starts_with("--");
        match words.peek() {
            Some(value)
                if takes_value
                    && !value.starts_with('-')
                    && width(word) + 1 + width(value) <= widest =>
            {
                units.push(std::borrow::Cow::Owned(format!("{word} {value}")));
                words.next();
            }
            _ => units.push(std::borrow::Cow::Borrowed(word)),
        }
    }
    units
}

/// The words of a command line or statement: split at spaces outside '…' and "…" (and,
/// in a shell, not after a backslash).
pub fn command_words(text: &str, shell: bool) -> Vec<&str> {
    let mut words = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (None, '\\') if shell => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), c) if c == open => quote = None,
            (None, ' ') => {
                if at > start {
                    words.push(&text[start..at]);
                }
                start = at + 1;
            }
            _ => {}
        }
    }
    if text.len() > start {
        words.push(&text[start..]);
    }
    words
}

/// Words filled into lines of `room` columns.
fn fill(words: Vec<&str>, room: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in words {
        let w = width(word);
        if used > 0 && used + 1 + w > room {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += w;
    }
    lines.push(line);
    lines
}

fn natural(text: &str) -> usize {
    text.split('\n').map(width).max().unwrap_or(0)
}

fn narrowest(text: &str) -> usize {
    text.split('\n')
        .flat_map(words)
        .map(width)
        .max()
        .unwrap_or(0)
}

/// Columns' overhead beyond their content: `│ a ┆ b │`, or two spaces between plain columns.
fn overhead(frame: Frame, columns: usize) -> usize {
    match frame {
        Frame::Boxed => 4 + 3 * columns.saturating_sub(1),
        Frame::Plain => 2 * columns.saturating_sub(1),
    }
}

/// Column widths that fit `total`, or None when even every column at its widest word
/// does not. A column gets what it needs up to its natural width; what is left is
/// shared among the columns still wanting, so short columns stay whole and the long
/// text columns take the wrapping.
fn fit(header: &[&str], rows: &[Vec<LaidCell>], frame: Frame, total: usize) -> Option<Vec<usize>> {
    let n = header.len();
    // A stacked header (`DATABASE\nOWNER`) is as wide as its widest line.
    let mut nat: Vec<usize> = header.iter().map(|h| natural(h)).collect();
    let mut min: Vec<usize> = header.iter().map(|h| narrowest(h)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(n) {
            let whole = natural(cell.text);
            nat[i] = nat[i].max(whole);
            min[i] = min[i].max(if cell.whole {
                whole
            } else {
                narrowest(cell.text)
            });
        }
    }
    let room = total.checked_sub(overhead(frame, n))?;
    if nat.iter().sum::<usize>() <= room {
        return Some(nat);
    }
    let mut widths = min;
    let mut spare = room.checked_sub(widths.iter().sum())?;
    loop {
        let wanting: Vec<usize> = (0..n).filter(|&i| widths[i] < nat[i]).collect();
        if wanting.is_empty() || spare == 0 {
            break;
        }
        let share = (spare / wanting.len()).max(1);
        for i in wanting {
            let add = share.min(nat[i] - widths[i]).min(spare);
            widths[i] += add;
            spare -= add;
        }
    }
    Some(widths)
}

/// The table laid out for `total` columns: a grid when it fits, else one block per row.
pub fn lay_out(header: &[&str], rows: &[Vec<LaidCell>], frame: Frame, total: usize) -> String {
    match fit(header, rows, frame, total) {
        Some(widths) => grid(header, rows, frame, &widths),
        None => expanded(header, rows, frame, total),
    }
}

fn padded(line: &str, to: usize, paint: Option<&str>) -> String {
    let pad = " ".repeat(to.saturating_sub(width(line)));
    match paint {
        Some(code) if !line.is_empty() => format!("\x1b[{code}m{line}\x1b[0m{pad}"),
        _ => format!("{line}{pad}"),
    }
}

fn grid(header: &[&str], rows: &[Vec<LaidCell>], frame: Frame, widths: &[usize]) -> String {
    let head: Vec<LaidCell> = header
        .iter()
        .map(|h| LaidCell {
            text: h,
            whole: false,
            paint: None,
        })
        .collect();
    let rule = |left: &str, fill: &str, mid: &str, right: &str| {
        let parts: Vec<String> = widths.iter().map(|w| fill.repeat(w + 2)).collect();
        format!("{left}{}{right}\n", parts.join(mid))
    };
    let mut out = String::new();
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for row in std::iter::once(&head).chain(rows) {
        let wrapped: Vec<Vec<String>> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                row.get(i).map_or_else(Vec::new, |c| match c.whole {
                    // As it is, its spaces too: its column is as wide as it (`fit`).
                    true => c.text.split('\n').map(str::to_string).collect(),
                    false => wrap(c.text, *w),
                })
            })
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let mut lines = Vec::new();
        for l in 0..height {
            let cells: Vec<String> = widths
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    let text = wrapped[i].get(l).map_or("", String::as_str);
                    padded(text, *w, row.get(i).and_then(|c| c.paint))
                })
                .collect();
            lines.push(match frame {
                Frame::Boxed => format!("│ {} │", cells.join(" ┆ ")),
                Frame::Plain => cells.join("  ").trim_end().to_string(),
            });
        }
        blocks.push(lines);
    }
    let tall = blocks.iter().skip(1).any(|b| b.len() > 1);
    if frame == Frame::Boxed {
        out.push_str(&rule("┌", "─", "┬", "┐"));
    }
    for (i, block) in blocks.iter().enumerate() {
        // Plain rows of several lines are told apart by an empty line between them.
        if frame == Frame::Plain && tall && i > 1 {
            out.push('\n');
        }
        for line in block {
            out.push_str(line);
            out.push('\n');
        }
        if i == 0 && frame == Frame::Boxed {
            out.push_str(&rule("╞", "═", "╪", "╡"));
        }
    }
    if frame == Frame::Boxed {
        out.push_str(&rule("└", "─", "┴", "┘"));
    }
    out.pop();
    out
}

/// One block per row: `-[ N ]`, then `HEADER  value` lines, the value wrapped in what
/// the widest header leaves; a word wider than that overflows whole. A stacked header
/// (`DATABASE\nOWNER`) names the lines of its stacked value one by one.
fn expanded(header: &[&str], rows: &[Vec<LaidCell>], frame: Frame, total: usize) -> String {
    let label = header
        .iter()
        .flat_map(|h| h.split('\n'))
        .map(width)
        .max()
        .unwrap_or(0);
    let sep = match frame {
        Frame::Boxed => " │ ",
        Frame::Plain => "  ",
    };
    let room = total.saturating_sub(label + width(sep)).max(20);
    let dash = match frame {
        Frame::Boxed => "─",
        Frame::Plain => "-",
    };
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        let title = format!("{dash}[ {} ]", n + 1);
        out.push_str(&title);
        out.push_str(&dash.repeat(total.saturating_sub(width(&title)).min(40)));
        out.push('\n');
        for (i, h) in header.iter().enumerate() {
            let Some(cell) = row.get(i) else { continue };
            let mut names = h.split('\n');
            for hard in cell.text.split('\n') {
                let lines = match cell.whole {
                    true => vec![hard.to_string()],
                    false => wrap(hard, room),
                };
                for (l, text) in lines.iter().enumerate() {
                    let name = match l {
                        0 => names.next().unwrap_or(""),
                        _ => "",
                    };
                    let line = format!(
                        "{}{sep}{}",
                        padded(name, label, None),
                        padded(text, 0, cell.paint)
                    );
                    out.push_str(line.trim_end());
                    out.push('\n');
                }
            }
        }
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`break_command`] of a command line split into its words.
    fn broken(text: &str, room: usize, indent: usize, shell: bool) -> Vec<String> {
        break_command(&command_words(text, shell), room, indent, shell)
    }

    #[test]
    fn a_long_command_breaks_between_words_and_still_pastes_as_one() {
        let command = "indoubt --config tests/lab/indoubt.yaml resolve pg 131077_orders_4711 --pg lab --dry-run";
        let lines = broken(command, 60, 4, true);
        assert_eq!(
            lines,
            [
                "indoubt --config tests/lab/indoubt.yaml resolve pg \\",
                "131077_orders_4711 --pg lab --dry-run",
            ]
        );
        assert!(lines.iter().all(|l| width(l) <= 60));
        // What a shell reads: the continuations joined, the same words.
        assert_eq!(lines.join("\n").replace(" \\\n", " "), command);
        // Fits: untouched.
        assert_eq!(broken(command, 200, 4, true), [command]);
    }

    #[test]
    fn a_quoted_word_is_never_broken_inside() {
        let lines = broken(
            "indoubt resolve pg 'a gid with spaces' --dry-run",
            20,
            0,
            true,
        );
        assert!(
            lines.iter().any(|l| l.contains("'a gid with spaces'")),
            "{lines:?}"
        );
        let lines = broken(r"indoubt x 'it'\''s here' y", 12, 0, true);
        assert!(
            lines.iter().any(|l| l.starts_with(r"'it'\''s here'")),
            "{lines:?}"
        );
        let sql = r#"SELECT * FROM "my outbox" WHERE note = 'a b c' AND created_at < now() - interval '300 seconds'"#;
        let lines = broken(sql, 30, 0, false);
        assert!(lines.iter().all(|l| !l.ends_with('\\')), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains(r#""my outbox""#)),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("'300 seconds'")),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), sql);
    }

    fn cell(text: &str) -> LaidCell<'_> {
        LaidCell {
            text,
            whole: false,
            paint: None,
        }
    }

    fn longest(text: &str) -> usize {
        text.lines().map(width).max().unwrap_or(0)
    }

    #[test]
    fn words_keep_backticked_commands_whole() {
        assert_eq!(
            words("run `indoubt pg slots` now  twice"),
            ["run", "`indoubt pg slots`", "now", "twice"]
        );
        assert_eq!(words(""), Vec::<&str>::new());
    }

    #[test]
    fn a_timestamp_is_one_word() {
        assert_eq!(
            words("stuck since 2026-12-01 19:31:26 UTC (1m 47s); held"),
            [
                "stuck",
                "since",
                "2026-12-01 19:31:26 UTC",
                "(1m",
                "47s);",
                "held"
            ]
        );
        assert_eq!(
            words("at (2026-12-01 19:31:26.5 UTC), then 12:00:00 UTC 2026-12-01 x"),
            [
                "at",
                "(2026-12-01 19:31:26.5 UTC),",
                "then",
                "12:00:00 UTC",
                "2026-12-01",
                "x"
            ]
        );
        let lines = wrap(
            "LSO 0 is 13 offsets behind, stuck since 2026-12-01 19:31:26 UTC (1m)",
            50,
        );
        assert!(
            lines.iter().any(|l| l.contains("2026-12-01 19:31:26 UTC")),
            "{lines:?}"
        );
    }

    #[test]
    fn wrapping_never_splits_a_word() {
        let text = "drop it: SELECT pg_drop_replication_slot('debezium_shop') (the consumer loses its position)";
        for room in [10, 20, 33, 80] {
            for line in wrap(text, room) {
                assert!(
                    text.contains(&line) && !line.starts_with(' ') && !line.ends_with(' '),
                    "{line:?}"
                );
                assert!(
                    width(&line) <= room || !line.contains(' '),
                    "{line:?} in {room}"
                );
            }
        }
        assert!(wrap(text, 20).contains(&"pg_drop_replication_slot('debezium_shop')".to_string()));
    }

    #[test]
    fn a_quoted_statement_is_kept_whole() {
        let sql = "ROLLBACK PREPARED 'g1'";
        let lines = wrap_keeping("ROLLBACK PREPARED 'g1' done, as asked", sql, 12);
        assert_eq!(lines, ["ROLLBACK PREPARED 'g1'", "done, as", "asked"]);
        assert_eq!(wrap_keeping("a b", "", 1), ["a", "b"]);
    }

    #[test]
    fn a_table_that_fits_keeps_its_columns_within_the_width() {
        let rows = vec![vec![
            cell("CRITICAL"),
            cell("lab pg prepared: prepared transaction '131077_orders_4711' in shop"),
            cell("prepared 28s ago by app; 3 locks\n→ resolve it by the coordinator's decision: `indoubt resolve pg '131077_orders_4711' --dry-run`"),
        ]];
        for frame in [Frame::Boxed, Frame::Plain] {
            let out = lay_out(&["STATUS", "SUBJECT", "FINDING"], &rows, frame, 80);
            assert!(longest(&out) <= 80, "{out}");
            assert!(out.contains("'131077_orders_4711'"), "{out}");
            assert!(
                out.contains("`indoubt resolve pg '131077_orders_4711' --dry-run`"),
                "{out}"
            );
        }
    }

    #[test]
    fn a_gid_wider_than_the_screen_turns_the_table_into_blocks_with_the_gid_whole() {
        let gid = "131077_".to_string() + &"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(3);
        let rows = vec![vec![
            cell("shop"),
            LaidCell {
                text: &gid,
                whole: true,
                paint: None,
            },
        ]];
        let out = lay_out(&["DATABASE", "GID"], &rows, Frame::Plain, 80);
        assert!(out.starts_with("-[ 1 ]"), "{out}");
        assert!(
            out.lines().any(|l| l == format!("GID       {gid}")),
            "{out}"
        );
        assert!(out.lines().any(|l| l == "DATABASE  shop"), "{out}");
        let stacked = vec![vec![cell("shop\napp"), cell("x")]];
        let out = lay_out(&["DATABASE\nOWNER", "GID"], &stacked, Frame::Plain, 8);
        assert_eq!(out, "-[ 1 ]--\nDATABASE  shop\nOWNER     app\nGID       x");
    }

    #[test]
    fn short_columns_stay_whole_and_the_long_one_wraps() {
        let long = "word ".repeat(40);
        let rows = vec![vec![
            cell("CRITICAL"),
            cell("payments-7"),
            cell(long.trim()),
        ]];
        let out = lay_out(&["STATUS", "SUBJECT", "FINDING"], &rows, Frame::Boxed, 60);
        let first = out.lines().nth(3).unwrap();
        assert!(first.starts_with("│ CRITICAL ┆ payments-7 ┆ word"), "{out}");
        assert!(longest(&out) <= 60, "{out}");
    }

    #[test]
    fn plain_rows_of_several_lines_are_separated_and_paint_is_not_counted() {
        let rows = vec![
            vec![
                LaidCell {
                    text: "CRITICAL",
                    whole: false,
                    paint: Some("1;31"),
                },
                cell("a b c d e f g h"),
            ],
            vec![cell("OK"), cell("x")],
        ];
        let out = lay_out(&["STATUS", "FINDING"], &rows, Frame::Plain, 18);
        assert_eq!(
            out,
            "STATUS    FINDING\n\x1b[1;31mCRITICAL\x1b[0m  a b c d\n          e f g h\n\nOK        x"
        );
    }
}
