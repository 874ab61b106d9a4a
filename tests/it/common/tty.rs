//! indoubt on a real pseudo-terminal (util-linux `script`): what a person at a terminal
//! sees, at a width of the test's choosing, with typed input.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// What the terminal showed (line ends as `\n`) and indoubt's exit code (script passes
/// it on).
pub struct Screen {
    pub text: String,
    pub code: Option<i32>,
}

/// Runs indoubt on a pseudo-terminal `columns` wide (0: the broken pty some ssh setups
/// give, no size at all), with the environment isolated as [`super::indoubt_process`]
/// isolates it plus `env`. `input`, if any, is typed after a moment, as a person would.
pub fn on_terminal(
    columns: u16,
    env: &[(&str, &str)],
    input: Option<&str>,
    args: &[&str],
) -> Screen {
    let bin = assert_cmd::cargo::cargo_bin("indoubt");
    let quoted: Vec<String> = std::iter::once(bin.to_string_lossy().into_owned())
        .chain(args.iter().map(|a| a.to_string()))
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let rows = if columns == 0 { 0 } else { 50 };
    let inner = format!("stty cols {columns} rows {rows}; {}", quoted.join(" "));
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &inner, "/dev/null"]);
    super::isolate(&mut cmd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1) from util-linux");
    let mut stdin = child.stdin.take().unwrap();
    let typed = input.map(str::to_string);
    let writer = std::thread::spawn(move || {
        if let Some(typed) = typed {
            std::thread::sleep(Duration::from_millis(1500));
            let _ = stdin.write_all(typed.as_bytes());
            std::thread::sleep(Duration::from_millis(1500));
        }
        // Dropped here: the end of input.
    });
    let out = child.wait_with_output().expect("script output");
    writer.join().unwrap();
    Screen {
        text: String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
        code: out.status.code(),
    }
}

/// A screen as it reads: without its escape sequences (colour, cursor), each one an ESC,
/// then parameters up to its final letter.
pub fn plain(screen: &str) -> String {
    let mut out = String::new();
    let mut chars = screen.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
