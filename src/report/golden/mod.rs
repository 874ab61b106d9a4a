//! Golden snapshots of every command's human output, on fixed data built in code: each
//! report in both frames at 80 and 120 columns (and `-o wide`, and the expanded layout a
//! too-wide table turns into), pinned under src/report/golden/snapshots/ as
//! `COMMAND__FRAME_WIDTH.snap`. After a deliberate change of the output, update them with
//! `INSTA_UPDATE=always cargo test --lib golden` (or `cargo insta review` where
//! cargo-insta is installed) and read the diff of every .snap file as an on-call engineer
//! would. Besides the snapshot, every render at 80 columns is checked mechanically: each
//! identifier, statement and command the fixture put in is whole on one line, and only
//! the lines that hold one of those too long to fit are wider than 80.

use super::layout::{width, Frame};
use super::table::Style;
use crate::context::Context;
use chrono::{DateTime, TimeZone, Utc};

/// The instant every fixture is read at: output is byte-stable.
pub fn fixed_now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 3, 14, 15)
        .single()
        .unwrap_or_default()
}

/// `fixed_now()` minus `seconds`.
pub fn ago(seconds: i64) -> DateTime<Utc> {
    fixed_now() - chrono::Duration::seconds(seconds)
}

/// A context as a run with `--config /etc/indoubt/prod.yaml` and an empty config has it:
/// the defaults in force, next commands repeating the --config.
/// The fixtures' config file, as a next command repeats it.
const CONFIG_PATH: &str = "/etc/indoubt/prod.yaml";

pub fn context() -> Context {
    Context {
        output: crate::cli::OutputFormat::Table,
        style: style(Frame::Plain, 80, false),
        verbose: 0,
        timeout: std::time::Duration::from_secs(10),
        timeout_from: crate::settings::Source::Default,
        invocation: crate::next::Invocation {
            config: Some(CONFIG_PATH.into()),
        },
        command_line: Vec::new(),
        shared: Default::default(),
    }
}

/// `indoubt --config /etc/indoubt/prod.yaml ARGS…` on the fixture config: its command's
/// settings, resolved as a run resolves them (the config given, not read from disk).
pub fn settings(config_yaml: &str, args: &[&str]) -> crate::settings::CommandSettings {
    let path = std::path::Path::new(CONFIG_PATH);
    let config = match crate::config::parse(config_yaml, path) {
        Ok(config) => config,
        Err(e) => panic!("fixture config: {e:#}"),
    };
    let mut argv = vec!["indoubt", "--config", CONFIG_PATH];
    argv.extend_from_slice(args);
    let registry = &crate::commands::probes::REGISTRY;
    let cli = match crate::help::parse_from(registry, argv) {
        Ok(cli) => cli,
        Err(e) => panic!("fixture command line {args:?}: {e}"),
    };
    let loaded = crate::config::Loaded {
        path: Some(path.to_path_buf()),
        config,
    };
    match crate::settings::resolve_loaded(cli, context(), loaded, registry) {
        Ok(resolved) => resolved.command,
        Err(e) => panic!("fixture settings {args:?}: {e:#}"),
    }
}

/// The typed settings of the probe `args` runs (its settings are `S`).
pub fn probe_settings<S: 'static>(config_yaml: &str, args: &[&str]) -> S {
    match settings(config_yaml, args) {
        crate::settings::CommandSettings::Probe(run) => match run.into_settings().downcast::<S>() {
            Ok(settings) => *settings,
            Err(_) => panic!("{args:?} resolved to another probe's settings"),
        },
        _ => panic!("{args:?} is not a probe"),
    }
}

pub fn style(frame: Frame, width: u16, wide: bool) -> Style {
    Style {
        color: false,
        width,
        frame,
        wide,
    }
}

/// What a fixture promises about its output at 80 columns.
#[derive(Default)]
pub struct Expect<'a> {
    /// Shown whole on one line (as displayed: escaped, quoted as the shell word is).
    pub whole: Vec<String>,
    /// Of those, the ones allowed to make their line wider than the layout: a line
    /// wider than 80 must hold one of these, and little else (its label or indent).
    pub may_overflow: Vec<&'a str>,
}

/// A line's margin beside the value that overflows it: the widest label, gutter
/// (`CRITICAL  `, `          next: `, `TRANSACTIONAL ID │ `, an evidence block's
/// `  coordinator epoch  `) or quotes around it.
const MARGIN: usize = 21;

/// The layouts one command is pinned in.
#[derive(Clone, Copy)]
pub enum Layouts {
    /// Box and plain at 80 and 120.
    Both,
    /// Those, and `-o wide` at 80 and 120 in both frames.
    WithWide,
}

/// Renders `render` in every layout of `layouts` plus the named extra ones, snapshots
/// each as `NAME__LAYOUT`, and checks the promises of `expect` at 80 columns.
pub fn pin(name: &str, layouts: Layouts, expect: &Expect, render: impl Fn(&Style) -> String) {
    let mut cases: Vec<(String, Style)> = Vec::new();
    for (wide, tag) in [(false, ""), (true, "wide_")] {
        if wide && matches!(layouts, Layouts::Both) {
            continue;
        }
        for (frame, f) in [(Frame::Boxed, "box"), (Frame::Plain, "plain")] {
            for w in [80u16, 120] {
                cases.push((format!("{tag}{f}_{w}"), style(frame, w, wide)));
            }
        }
    }
    for (case, style) in &cases {
        let text = render(style);
        assert!(
            !text.contains('\x1b'),
            "{name}__{case}: colour is off, yet an escape sequence came out:\n{text}"
        );
        snapshot(&format!("{name}__{case}"), &text);
    }
    // After every snapshot is written, so a failing promise can be read in them.
    for (case, style) in &cases {
        if style.width == 80 {
            promises(&format!("{name}__{case}"), &render(style), expect, 80);
        }
    }
}

/// Pins one text under `name` (the colour snapshot, an expanded layout at a width).
pub fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/report/golden/snapshots"
    ));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// The mechanical checks of one render at `limit` columns.
pub fn promises(case: &str, text: &str, expect: &Expect, limit: usize) {
    for token in &expect.whole {
        assert!(
            text.lines().any(|l| l.contains(token.as_str())),
            "{case}: {token:?} is not whole on one line:\n{text}"
        );
    }
    for line in text.lines() {
        let w = width(line);
        if w <= limit {
            continue;
        }
        let why = expect
            .may_overflow
            .iter()
            .find(|t| line.contains(**t) && w - width(t) <= MARGIN);
        assert!(
            why.is_some(),
            "{case}: a line of {w} columns holds nothing kept whole on purpose:\n{line}\n\n{text}"
        );
    }
}

/// The next commands of the findings, as displayed (quoted as typed).
pub fn nexts(findings: &[crate::findings::Finding]) -> Vec<String> {
    findings
        .iter()
        .filter_map(|f| f.next.as_ref())
        .map(|n| n.line())
        .collect()
}

/// Strings that must each be on one line and may overflow it: the words of next
/// commands (a command breaks between its words; a GID or a quoted literal never does).
pub fn words(nexts: &[String]) -> Vec<String> {
    nexts
        .iter()
        .flat_map(|n| {
            let shell = n.starts_with("indoubt ") || n.starts_with("kafka-");
            crate::report::layout::command_words(n, shell)
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}
/// The config of every fixture: the targets the next commands name.
pub const CONFIG: &str = "\
postgres:
  prod-orders:
    conninfo: postgres://monitor@db-orders-1.prod.example:5432/postgres
kafka:
  prod-events:
    bootstrap_servers: kafka-1.prod.example:9093
";

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A Narayana XA GID as pgjdbc writes it (format id 131077, base64 gtrid and bqual),
/// whose node name makes it 128 characters: wider than an 80-column screen.
pub fn narayana_gid() -> String {
    let mut gtrid = Vec::new();
    gtrid.extend_from_slice(&0u64.to_be_bytes());
    gtrid.extend_from_slice(&0xffff_0a00_0117u64.to_be_bytes());
    gtrid.extend_from_slice(&0x8b3i32.to_be_bytes());
    gtrid.extend_from_slice(&1_796_000_000i32.to_be_bytes());
    gtrid.extend_from_slice(&4711i32.to_be_bytes());
    gtrid.extend_from_slice(b"orders-service-node-eu-west");
    let mut bqual = gtrid[..28].to_vec();
    bqual.extend_from_slice(&7i32.to_be_bytes());
    bqual.extend_from_slice(&0i32.to_be_bytes());
    format!("131077_{}_{}", b64(&gtrid), b64(&bqual))
}

/// An Atomikos XA GID (format id 1096044365) of tm_unique_name `payments-tm`.
pub fn atomikos_gid() -> String {
    format!(
        "1096044365_{}_{}",
        b64(b"payments-tm179600000000000042"),
        b64(b"payments-tm1796000000000000421")
    )
}
