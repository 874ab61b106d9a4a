//! The terminal edge: what reaches stdout and stderr as text for a person is a [`Shown`]
//! (escaped), how wide tables may be, and whether to use colour.

pub mod shown;

pub use shown::Shown;
use std::io::IsTerminal;

/// Colour only for a person at a terminal, and never when NO_COLOR is set (no-color.org).
pub fn use_color(no_color_flag: bool) -> bool {
    !no_color_flag
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::io::stdout().is_terminal()
}

/// The width tables are laid out for, decided once: stdout's terminal width; when the
/// terminal reports 0 columns (some pty and ssh setups), $COLUMNS, then 80. None when
/// stdout is not a terminal: a pipe gets the plain layout, not wrapped.
pub fn table_width() -> Option<u16> {
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    let reported = terminal_size::terminal_size_of(&stdout).map(|(w, _)| w.0);
    Some(width_from(
        reported,
        std::env::var("COLUMNS").ok().as_deref(),
    ))
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
