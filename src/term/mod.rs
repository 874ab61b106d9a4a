//! The terminal edge: what reaches stdout and stderr as text for a person is a [`Shown`]
//! (escaped), how wide tables may be, and whether to use colour.

pub mod shown;

pub use crate::report::layout::Frame;
pub use shown::Shown;
use std::io::IsTerminal;

/// Colour: `always`, `never`, or (auto) for a person at a terminal when NO_COLOR is not
/// set (no-color.org: it wins over auto, not over an explicit `always`).
pub fn use_color(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// When to colour, as `--color` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Box drawing for a person at a terminal; plain aligned columns for a pipe or a file.
pub fn frame() -> Frame {
    match std::io::stdout().is_terminal() {
        true => Frame::Boxed,
        false => Frame::Plain,
    }
}

/// The width output is laid out for, decided once: `--width`; else stdout's terminal
/// width; when there is none or it reports 0 columns (a pipe, some pty and ssh setups),
/// $COLUMNS; then 80. A pipe gets 80 too, so `| less`, `| cat` and `watch` read as a
/// terminal would.
pub fn layout_width(flag: Option<u16>) -> u16 {
    if let Some(width) = flag {
        return width;
    }
    let stdout = std::io::stdout();
    let reported = stdout
        .is_terminal()
        .then(|| terminal_size::terminal_size_of(&stdout).map(|(w, _)| w.0))
        .flatten();
    width_from(reported, std::env::var("COLUMNS").ok().as_deref())
}

/// A reported width of 0 (or none) falls back to $COLUMNS when it is a positive number, then 80.
fn width_from(reported: Option<u16>, columns: Option<&str>) -> u16 {
    reported
        .filter(|w| *w > 0)
        .or_else(|| {
            columns
                .and_then(|c| c.trim().parse::<u16>().ok())
                .filter(|w| *w > 0)
        })
        .unwrap_or(80)
}

/// One line of status, a prompt's evidence or an error on stderr.
#[allow(clippy::disallowed_macros)]
pub fn status(line: &Shown) {
    eprintln!("{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_columns_fall_back_to_columns_then_80() {
        assert_eq!(width_from(Some(120), Some("90")), 120);
        assert_eq!(width_from(Some(0), Some("90")), 90);
        assert_eq!(width_from(None, Some(" 100 ")), 100);
        assert_eq!(width_from(Some(0), Some("0")), 80);
        assert_eq!(width_from(Some(0), Some("wide")), 80);
        assert_eq!(width_from(None, None), 80);
    }
}
