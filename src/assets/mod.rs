//! Shell completions and man pages, generated from the clap definitions (so they cannot
//! drift from `--help`) and the manual's hand-written sections in doc/man; the runbook
//! (README's table, indoubt-runbook(7), the alert rules' annotations) from the incidents
//! of src/commands/runbook.rs. `indoubt-assets` writes them, a test checks they are
//! current.

mod markdown;
mod runbook;

use crate::commands::probes;
use crate::help;
use crate::settings::man::roff;
use clap_complete::Shell;
use markdown::Page;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The repository the assets are generated in (and read from: doc/man, README.md,
/// monitoring/).
fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every generated file, as (path relative to the repository, contents); an error names
/// a hand-written page that does not parse or fit.
pub fn render_all() -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let mut manual = manual(&repository().join("doc/man"))?;
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
    man_pages(&cmd, None, "", &mut manual, &mut files)?;
    let config = manual.remove("indoubt-config.5");
    let mut config_page = crate::settings::man::config_page();
    if let Some(page) = config {
        check_sections("indoubt-config.5", &page, &[])?;
        let extra: String = page
            .sections
            .iter()
            .map(|s| format!(".SH \"{}\"\n{}", s.name, s.roff))
            .collect();
        config_page = match config_page.find(".SH \"SEE ALSO\"") {
            Some(at) => format!("{}{extra}{}", &config_page[..at], &config_page[at..]),
            None => config_page + &extra,
        };
    }
    files.push((
        PathBuf::from("man/indoubt-config.5"),
        finished(&config_page).into_bytes(),
    ));
    for (stem, page) in manual {
        let Some((name, section, what)) = page.title.clone() else {
            return Err(format!(
                "doc/man/{stem}.md: no command has this page; a page of its own starts with `% {stem}(N) — what it is`"
            ));
        };
        if stem != format!("{name}.{section}") {
            return Err(format!(
                "doc/man/{stem}.md: its title names {name}({section})"
            ));
        }
        files.push((
            PathBuf::from("man").join(&stem),
            finished(&own_page(&name, &section, &what, &page)).into_bytes(),
        ));
    }
    files.extend(runbook::files(repository())?);
    Ok(files)
}

/// A page as groff sets it without a warning at any width: lines left-aligned (a word
/// longer than the room left is never stretched), and a long word (a Java call, a path)
/// given places to break, after its dots, slashes, commas, underscores and equals signs.
fn finished(page: &str) -> String {
    let mut out = String::with_capacity(page.len() + 64);
    let mut verbatim = false;
    let mut lines = page.lines().peekable();
    while let Some(line) = lines.next() {
        match line {
            ".nf" => verbatim = true,
            ".fi" => verbatim = false,
            _ => {}
        }
        // clap's `help` subcommand has no page: no entry names one.
        if line == ".TP" && lines.peek().is_some_and(|l| l.ends_with("\\-help(1)")) {
            lines.next();
            lines.next();
            continue;
        }
        if let Some(title) = line.strip_prefix(".TH ") {
            // The name and section; "indoubt" as the manual's name (the header of a long
            // page name then fits 80 columns).
            let mut words = title.split_whitespace();
            let (name, section) = (
                words.next().unwrap_or("indoubt"),
                words.next().unwrap_or("1"),
            );
            out.push_str(&format!(
                ".TH {name} {section} \"\" \"indoubt {}\" \"indoubt\"\n.ad l\n",
                env!("CARGO_PKG_VERSION")
            ));
            continue;
        }
        if verbatim || line.starts_with('.') {
            out.push_str(line);
        } else {
            let words: Vec<String> = line.split(' ').map(breakable).collect();
            out.push_str(&words.join(" "));
        }
        out.push('\n');
    }
    out
}

/// A word longer than 40 characters as printed (font changes and escapes not counted)
/// with a zero-width break point (`\:`) after each `.`, `/`, `,`, `_` and `=` that does
/// not end it.
fn breakable(word: &str) -> String {
    let printed = word
        .replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace('\\', "");
    if printed.chars().count() <= 40 {
        return word.to_string();
    }
    let mut out = String::with_capacity(word.len() + 16);
    let mut chars = word.chars().peekable();
    let mut escaped = false;
    while let Some(c) = chars.next() {
        out.push(c);
        let after = !escaped && matches!(c, '.' | '/' | ',' | '_' | '=') && chars.peek().is_some();
        if after {
            out.push_str("\\:");
        }
        escaped = c == '\\' && !escaped;
    }
    out
}

/// The hand-written pages of doc/man by file stem (`indoubt-pg-prepared.1`).
fn manual(dir: &Path) -> Result<BTreeMap<String, Page>, String> {
    let mut pages = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let Some(stem) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".md"))
        else {
            continue;
        };
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = format!("doc/man/{stem}.md");
        pages.insert(stem.to_string(), markdown::parse(&file, &text)?);
    }
    Ok(pages)
}

/// Sections the generator writes itself: a hand-written page may not repeat them.
const GENERATED: [&str; 12] = [
    "NAME",
    "NOTES",
    "SYNOPSIS",
    "OPTIONS",
    "GLOBAL OPTIONS",
    "SUBCOMMANDS",
    "VERSION",
    "EXIT STATUS",
    "ENVIRONMENT",
    "FILES",
    "CODES",
    "SEE ALSO",
];

/// A hand-written page names no section the generator writes (but those in `allowed`).
fn check_sections(stem: &str, page: &Page, allowed: &[&str]) -> Result<(), String> {
    for section in &page.sections {
        if GENERATED.contains(&section.name.as_str()) && !allowed.contains(&section.name.as_str()) {
            return Err(format!(
                "doc/man/{stem}.md: `# {}` is generated; write what it lacks under another name",
                section.name
            ));
        }
    }
    Ok(())
}

/// A page with no command behind it (indoubt-runbook(7), indoubt-development(7)): its
/// title and its sections; the runbook's incidents after its description.
fn own_page(name: &str, section: &str, what: &str, page: &Page) -> String {
    let mut out = format!(
        ".TH {} {section} \"\" \"indoubt\"\n.SH NAME\n{} \\- {}\n.nh\n",
        roff(name),
        roff(name),
        markdown::inline(what)
    );
    for s in &page.sections {
        out.push_str(&format!(".SH \"{}\"\n{}", s.name, s.roff));
        if name == "indoubt-runbook" && s.name == "DESCRIPTION" {
            out.push_str(&runbook::incidents_section());
        }
    }
    out
}

/// One page per command and subcommand: `indoubt-pg-prepared.1` for `indoubt pg prepared`.
fn man_pages(
    cmd: &clap::Command,
    parent: Option<&clap::Command>,
    path: &str,
    manual: &mut BTreeMap<String, Page>,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
) -> Result<(), String> {
    let name = page_name(path);
    let written = manual.remove(&format!("{name}.1"));
    if let Some(page) = &written {
        check_sections(&format!("{name}.1"), page, &[])?;
        if page.title.is_some() {
            return Err(format!(
                "doc/man/{name}.1.md: a command's page has no title line"
            ));
        }
    }
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
    if let Some(page) = &written {
        roff = with_written(&roff, page);
    }
    // No hyphenation in what follows: a command, a variable or a code is never split.
    roff.push_str(".nh\n");
    let mut examples = examples_section(path);
    if let Some(more) = written.as_ref().and_then(|p| p.section("EXAMPLES")) {
        if examples.is_empty() {
            examples.push_str(".SH EXAMPLES\n");
        }
        examples.push_str(&more.roff);
    }
    roff.push_str(&examples);
    roff.push_str(&sections(&after));
    if path == "explain" {
        roff.push_str(&codes_section(&probes::codes()));
    } else if path == "resolve" {
        // What a resolution can end with: the runbook's list of them.
        let outcomes: Vec<crate::codes::Code> = crate::commands::runbook::QUIET
            .iter()
            .filter(|(why, _)| *why == crate::commands::runbook::Quiet::Resolution)
            .flat_map(|(_, codes)| codes.iter().filter_map(|c| probes::code(c)))
            .collect();
        roff.push_str(&codes_section(&outcomes));
    } else if let Some(probe) = probes::named(path) {
        roff.push_str(&codes_section(probe.pages().codes));
        roff.push_str(&runbook::incidents_of(probe.pages().codes));
    }
    roff.push_str(&see_also(cmd, parent, path));
    files.push((
        PathBuf::from("man").join(format!("{name}.1")),
        finished(&roff).into_bytes(),
    ));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let sub_path = match path {
            "" => sub.get_name().to_string(),
            _ => format!("{path} {}", sub.get_name()),
        };
        man_pages(sub, Some(cmd), &sub_path, manual, files)?;
    }
    Ok(())
}

/// clap's page with the hand-written DESCRIPTION after its own, and the other
/// hand-written sections (but EXAMPLES, which follow the generated ones) at its end.
fn with_written(generated: &str, page: &Page) -> String {
    let mut out = generated.to_string();
    if let Some(description) = page.section("DESCRIPTION") {
        let after = out
            .find(".SH DESCRIPTION\n")
            .and_then(|at| out[at + 1..].find("\n.SH ").map(|next| at + 1 + next + 1));
        match after {
            Some(at) => out.insert_str(at, &description.roff),
            None => out.push_str(&format!(".SH DESCRIPTION\n{}", description.roff)),
        }
    }
    for s in page
        .sections
        .iter()
        .filter(|s| s.name != "DESCRIPTION" && s.name != "EXAMPLES")
    {
        out.push_str(&format!(".SH \"{}\"\n{}", s.name, s.roff));
    }
    out
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
        if let Some(incident) = crate::commands::runbook::incident_of(doc.name) {
            out.push_str(&format!(
                ".br\n\\fIIncident:\\fR {} (indoubt\\-runbook(7))\n",
                markdown::inline(incident.symptom)
            ));
        }
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
    // Every command reads the config file: its keys and defaults are on their own page;
    // the incidents, and how indoubt is built, on theirs.
    refs.push(".BR indoubt-config (5)".to_string());
    refs.push(".BR indoubt-runbook (7)".to_string());
    if path.is_empty() {
        refs.push(".BR indoubt-development (7)".to_string());
    }
    format!(".SH \"SEE ALSO\"\n{}\n", refs.join(",\n"))
}
