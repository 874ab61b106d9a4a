//! Shell completions and man pages, generated from the clap definitions (so they cannot
//! drift from `--help`); `indoubt-assets` writes them, a test checks they are current.

use crate::commands::probes;
use crate::help;
use crate::settings::man::roff;
use clap_complete::Shell;
use std::path::PathBuf;

/// Every generated file, as (path relative to the repository, contents).
pub fn render_all() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut cmd = help::command(&probes::REGISTRY);
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut cmd, "indoubt", &mut out);
        let name = match shell {
            Shell::Bash => "indoubt.bash",
            Shell::Zsh => "_indoubt",
            Shell::Fish => "indoubt.fish",
            Shell::Elvish => "indoubt.elv",
            _ => "_indoubt.ps1",
        };
        files.push((PathBuf::from("completions").join(name), out));
    }
    let mut cmd = help::command(&probes::REGISTRY);
    cmd.build();
    man_pages(&cmd, None, "", &mut files);
    files.push((
        PathBuf::from("man/indoubt-config.5"),
        crate::settings::man::config_page().into_bytes(),
    ));
    files
}

/// One page per command and subcommand: `indoubt-pg-prepared.1` for `indoubt pg prepared`.
fn man_pages(
    cmd: &clap::Command,
    parent: Option<&clap::Command>,
    path: &str,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
) {
    let name = page_name(path);
    // clap_mangen would print the whole after-help text (exit codes, environment,
    // examples) as one reflowed EXTRA section; the sections below say each once.
    let page = cmd
        .clone()
        .name(name.clone())
        .after_help(None::<&str>)
        .after_long_help(None::<&str>);
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = clap_mangen::Man::new(page).render(&mut out);
    let after = cmd
        .get_after_long_help()
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut roff = String::from_utf8_lossy(&out).into_owned();
    // No hyphenation in what follows: a command, a variable or a code is never split.
    roff.push_str(".nh\n");
    roff.push_str(&examples_section(path));
    roff.push_str(&sections(&after));
    if path == "explain" {
        roff.push_str(&codes_section(&probes::codes()));
    } else if let Some(probe) = probes::named(path) {
        roff.push_str(&codes_section(probe.pages().codes));
    }
    roff.push_str(&see_also(cmd, parent, path));
    files.push((
        PathBuf::from("man").join(format!("{name}.1")),
        roff.into_bytes(),
    ));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let sub_path = match path {
            "" => sub.get_name().to_string(),
            _ => format!("{path} {}", sub.get_name()),
        };
        man_pages(sub, Some(cmd), &sub_path, files);
    }
}

/// `indoubt-pg-prepared` for "pg prepared".
fn page_name(path: &str) -> String {
    match path {
        "" => "indoubt".to_string(),
        _ => format!("indoubt-{}", path.replace(' ', "-")),
    }
}

/// Text for roff: backslashes and hyphens escaped, no line starting with a control
/// character.
fn examples_section(path: &str) -> String {
    let examples = help::examples(&probes::REGISTRY, path);
    if examples.is_empty() {
        return String::new();
    }
    let mut out = String::from(".SH EXAMPLES\n");
    for e in examples {
        // A command line is never filled or hyphenated: it is copied as one line.
        let lines: Vec<String> = help::lines(e.line).iter().map(|l| roff(l)).collect();
        out.push_str(&format!(
            ".PP\n{}\n.RS 4\n.nf\n{}\n.fi\n.RE\n",
            roff(e.what),
            lines.join("\n")
        ));
    }
    out
}

/// EXIT STATUS (the command's own codes, from its help), NOTES (the rest of that help
/// text), ENVIRONMENT and FILES.
fn sections(after: &str) -> String {
    let mut exit = String::new();
    let mut notes = String::new();
    for paragraph in after.split("\n\n") {
        let mut lines = paragraph.lines();
        let Some(first) = lines.next() else { continue };
        if first.starts_with("Exit codes") {
            exit.push_str(&tagged(lines));
        } else if first.starts_with("Environment") || first.starts_with("Examples") {
            // The same environment on every page, below; the examples are above.
        } else {
            notes.push_str(&format!(".PP\n{}\n", roff(&joined(paragraph.lines()))));
        }
    }
    let mut out = String::new();
    if !exit.is_empty() {
        out.push_str(".SH \"EXIT STATUS\"\n");
        out.push_str(&exit);
    }
    if !notes.is_empty() {
        out.push_str(".SH NOTES\n");
        out.push_str(&notes);
    }
    out.push_str(".SH ENVIRONMENT\n");
    let environment = crate::cli::EXIT_CODES_HELP
        .split("\n\n")
        .find(|p| p.starts_with("Environment"))
        .unwrap_or_default();
    out.push_str(&tagged(environment.lines().skip(1)));
    out.push_str(
        ".TP\nXDG_STATE_HOME\naudit log and outbox state (default ~/.local/state/indoubt)\n",
    );
    out.push_str(".SH FILES\n.TP\n~/.config/indoubt/config.yaml\nthe config file (or \\-\\-config, or $INDOUBT_CONFIG)\n.TP\n~/.local/state/indoubt/audit.jsonl\nthe audit trail of resolutions (or \\-\\-audit\\-log, or audit.path in the config)\n");
    out
}

/// Words joined with single spaces: roff fills them to the reader's width.
fn joined<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    lines
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A help list (`  TAG  text`, continued on deeper-indented lines) as roff tagged
/// paragraphs, so the reader's width reflows the text and never the tags. A leading
/// capitalised label (`OK`, `WARNING`) is set in bold.
fn tagged<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut entries: Vec<(String, Vec<&str>)> = Vec::new();
    for line in lines {
        let indent = line.len() - line.trim_start().len();
        match entries.last_mut() {
            Some((_, body)) if indent > 2 => body.push(line),
            _ => {
                let item = line.trim();
                match item.split_once("  ") {
                    Some((tag, rest)) => entries.push((tag.to_string(), vec![rest])),
                    None => entries.push((item.to_string(), Vec::new())),
                }
            }
        }
    }
    let mut out = String::new();
    for (tag, body) in entries {
        let text = joined(body.into_iter());
        let text = match text.split_once(' ') {
            Some((label, rest))
                if label.len() > 1 && label.chars().all(|c| c.is_ascii_uppercase()) =>
            {
                format!("\\fB{}\\fR \\(em {}", roff(label), roff(rest))
            }
            _ => roff(&text),
        };
        out.push_str(&format!(".TP\n{}\n{}\n", roff(&tag), text));
    }
    out
}

/// The finding codes: every one on the page of `indoubt explain`, a probe's own on its
/// page.
fn codes_section(codes: &[crate::codes::Code]) -> String {
    let mut out = String::from(".SH CODES\n");
    for code in codes {
        let doc = code.doc();
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n.br\n\\fIWhy:\\fR {}\n.br\n\\fIFix:\\fR {}\n",
            roff(doc.name),
            roff(doc.meaning),
            roff(doc.why),
            roff(doc.fix)
        ));
    }
    out
}

/// Pages a reader of `path` goes to next, beyond its parent, siblings and subcommands: a
/// probe's from the registry.
fn related(path: &str) -> &'static [&'static str] {
    if let Some(probe) = probes::named(path) {
        return probe.pages().see_also;
    }
    match path {
        "resolve pg" => &["pg prepared", "audit list"],
        "resolve kafka" => &["kafka hanging", "audit list"],
        "check" => &["pg prepared", "kafka lso", "explain"],
        _ => &[],
    }
}

/// SEE ALSO: the parent, the subcommands, the siblings, related pages, and where a
/// finding's code is explained.
fn see_also(cmd: &clap::Command, parent: Option<&clap::Command>, path: &str) -> String {
    let parent_path = path.rsplit_once(' ').map_or("", |(p, _)| p);
    let join = |base: &str, name: &str| match base {
        "" => name.to_string(),
        _ => format!("{base} {name}"),
    };
    let mut pages: Vec<String> = Vec::new();
    if let Some(parent) = parent {
        pages.push(parent_path.to_string());
        pages.extend(
            parent
                .get_subcommands()
                .map(|s| join(parent_path, s.get_name())),
        );
    }
    pages.extend(cmd.get_subcommands().map(|s| join(path, s.get_name())));
    pages.extend(related(path).iter().map(|p| p.to_string()));
    pages.push("explain".to_string());
    let mut seen = std::collections::BTreeSet::new();
    let mut refs: Vec<String> = pages
        .into_iter()
        .filter(|p| p != path && !p.ends_with("help") && seen.insert(p.clone()))
        .map(|p| format!(".BR {} (1)", roff(&page_name(&p))))
        .collect();
    // Every command reads the config file: its keys and defaults are on their own page.
    refs.push(".BR indoubt-config (5)".to_string());
    format!(".SH \"SEE ALSO\"\n{}\n", refs.join(",\n"))
}
