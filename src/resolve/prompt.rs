//! One line typed at the terminal, for a confirmation. The terminal stays in its ordinary
//! (canonical) mode, so the kernel edits the line and Ctrl-C and Ctrl-Z do what they do
//! anywhere (interrupt; suspend, then `fg` resumes the prompt); Ctrl-D and Esc abort at
//! once; and the terminal's settings are restored however the prompt ends, a signal
//! that drops it included.

use anyhow::{Context, Result};
use rustix::termios::{
    tcflush, tcgetattr, tcsetattr, InputModes, LocalModes, OptionalActions, QueueSelector,
    SpecialCodeIndex, Termios,
};
use std::io::Write;
use tokio::signal::unix::{signal, SignalKind};

const ESC: u8 = 0x1b;

/// What the operator did at the prompt.
#[derive(Debug, PartialEq, Eq)]
pub enum Typed {
    /// A line, ended with Enter (without its newline; bytes as typed).
    Line(Vec<u8>),
    /// Ctrl-D, or the terminal went away.
    EndOfInput,
    Escape,
}

/// Puts the terminal's settings back when dropped, and ends the prompt's line when the
/// read never did (a signal dropped it).
struct Restore {
    saved: Termios,
    mid_line: bool,
}

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = tcsetattr(std::io::stdin(), OptionalActions::Now, &self.saved);
        if self.mid_line {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// The settings for the prompt: canonical, echoing, signals on (whatever a previous
/// program left), Enter read as a newline, and Esc as a second end of line, so pressing
/// it ends the read at once instead of waiting for Enter.
fn confirming(saved: &Termios) -> Termios {
    let mut mode = saved.clone();
    mode.local_modes |=
        LocalModes::ICANON | LocalModes::ECHO | LocalModes::ECHOE | LocalModes::ISIG;
    mode.input_modes |= InputModes::ICRNL;
    mode.special_codes[SpecialCodeIndex::VEOL] = ESC;
    mode
}

/// Shows `prompt` (escaped text only) on stderr and reads one line from the terminal on
/// stdin. Input typed ahead of the prompt is kept (as a terminal always keeps it).
pub async fn read_line(prompt: &crate::term::Shown) -> Result<Typed> {
    let stdin = std::io::stdin();
    let saved = tcgetattr(&stdin).context("reading the terminal's settings")?;
    let mode = confirming(&saved);
    let mut restore = Restore {
        saved,
        mid_line: true,
    };
    tcsetattr(&stdin, OptionalActions::Now, &mode).context("setting the terminal up")?;
    // After Ctrl-Z and `fg`: the shell may have changed the settings, and the kernel
    // dropped what was typed; ask again.
    let mut resumed = signal(SignalKind::from_raw(rustix::process::Signal::CONT.as_raw()))
        .context("listening for SIGCONT")?;
    show(prompt);
    // A blocking read, off the runtime's thread, so signals are still answered meanwhile.
    let mut reading = tokio::task::spawn_blocking(read_typed);
    let typed = loop {
        tokio::select! {
            typed = &mut reading => break typed.context("reading the terminal")?,
            _ = resumed.recv() => {
                let _ = tcsetattr(&stdin, OptionalActions::Now, &mode);
                let _ = writeln!(std::io::stderr());
                show(prompt);
            }
        }
    };
    let typed = typed.context("reading the terminal")?;
    // Enter ended the line; after Ctrl-D or Esc the cursor is still on the prompt's.
    restore.mid_line = !matches!(typed, Typed::Line(_));
    Ok(typed)
}

fn show(prompt: &crate::term::Shown) {
    let mut err = std::io::stderr();
    let _ = write!(err, "{}", printed(prompt));
    let _ = err.flush();
}

/// The prompt as shown, the cursor after it.
pub fn printed(prompt: &crate::term::Shown) -> String {
    format!("{prompt}: ")
}

/// Reads until Enter, Esc or Ctrl-D. In canonical mode a read returns one line, ended by
/// a newline or Esc; a read that returns text without either was ended by Ctrl-D.
fn read_typed() -> std::io::Result<Typed> {
    let stdin = std::io::stdin();
    let mut line = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = match rustix::io::read(&stdin, &mut buf) {
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        };
        let chunk = &buf[..n];
        if n == 0 {
            return Ok(Typed::EndOfInput);
        }
        if chunk.contains(&ESC) {
            // An arrow or function key sends ESC and more: drop the rest, unread.
            let _ = tcflush(&stdin, QueueSelector::IFlush);
            return Ok(Typed::Escape);
        }
        line.extend_from_slice(chunk);
        if line.ends_with(b"\n") {
            line.pop();
            if line.ends_with(b"\r") {
                line.pop();
            }
            return Ok(Typed::Line(line));
        }
        if n < buf.len() {
            return Ok(Typed::EndOfInput);
        }
    }
}
