//! completions/ and man/ are current: regenerated from the clap definitions, they must
//! equal what is committed.

use std::path::PathBuf;

#[test]
fn completions_and_man_pages_are_current() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = indoubt::assets::render_all().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        files
            .iter()
            .any(|(p, _)| p.ends_with("indoubt-resolve-pg.1")),
        "a page per subcommand"
    );
    assert!(files.iter().any(|(p, _)| p.ends_with("_indoubt")), "zsh");
    let config_page = files
        .iter()
        .find(|(p, _)| p.ends_with("indoubt-config.5"))
        .map(|(_, c)| String::from_utf8_lossy(c).into_owned())
        .expect("indoubt-config(5), the config file's reference");
    for text in [
        "thresholds",
        "reconcile.NAME",
        "decision_sources",
        "EXAMPLE",
        "default \\fB100k\\fR",
    ] {
        assert!(config_page.contains(text), "indoubt-config(5) lacks {text}");
    }
    let mut stale = Vec::new();
    for (path, contents) in &files {
        if std::fs::read(root.join(path)).ok().as_deref() != Some(contents.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale or missing: {stale:?}; regenerate with `cargo run --bin indoubt-assets`"
    );
    let page = |name: &str| {
        let file = format!("{name}.1");
        String::from_utf8_lossy(
            &files
                .iter()
                .find(|(p, _)| p.ends_with(&file))
                .unwrap_or_else(|| panic!("no page {file}"))
                .1,
        )
        .into_owned()
    };
    let prepared = page("indoubt-pg-prepared");
    for section in [
        "EXIT STATUS",
        "ENVIRONMENT",
        "FILES",
        "config.yaml",
        "UNKNOWN",
    ] {
        assert!(prepared.contains(section), "the man page lacks {section}");
    }
    // Every page, by file (`indoubt-runbook.7`).
    let every_file: Vec<String> = files
        .iter()
        .filter(|(p, _)| p.starts_with("man"))
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // The commands' pages (section 1); SEE ALSO may also name the pages of sections 5 and 7.
    let pages: Vec<String> = files
        .iter()
        .filter(|(p, _)| p.starts_with("man") && p.extension().is_some_and(|e| e == "1"))
        .map(|(p, _)| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    for name in &pages {
        let text = page(name);
        // Exit codes once, as tagged paragraphs the reader's width reflows; no EXTRA
        // section repeating the help text.
        assert!(!text.contains(".SH EXTRA"), "{name}: an EXTRA section");
        assert!(
            text.matches(".SH \"EXIT STATUS\"").count() <= 1,
            "{name}: EXIT STATUS twice"
        );
        assert_eq!(
            text.matches("Exit codes").count(),
            0,
            "{name}: help text in the page"
        );
        // SEE ALSO names only pages that exist.
        let see_also = text
            .split(".SH \"SEE ALSO\"\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: no SEE ALSO"));
        let refs: Vec<(String, String)> = see_also
            .lines()
            .take_while(|l| l.starts_with(".BR "))
            .map(|l| {
                let mut words = l.trim_start_matches(".BR ").split(' ');
                let page = words.next().unwrap().replace("\\-", "-");
                let section = words
                    .next()
                    .unwrap_or_default()
                    .trim_matches(|c| "(),".contains(c));
                (page, section.to_string())
            })
            .collect();
        assert!(!refs.is_empty(), "{name}: SEE ALSO is empty");
        for (page, section) in refs {
            assert!(
                every_file.contains(&format!("{page}.{section}")),
                "{name}: SEE ALSO {page}({section}), which is not a page"
            );
        }
    }
    // Every page another names (`indoubt-pg-slots(1)`, in any section of any page) exists:
    // no SUBCOMMANDS entry for clap's `help`, no hand-written reference to a page that is not.
    for (path, contents) in files.iter().filter(|(p, _)| p.starts_with("man")) {
        let text = String::from_utf8_lossy(contents).replace("\\-", "-");
        for (at, _) in text.match_indices("indoubt") {
            let rest = &text[at..];
            let name_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(rest.len());
            let (name, after) = rest.split_at(name_len);
            let Some(section) = after
                .strip_prefix('(')
                .and_then(|a| a.split_once(')'))
                .map(|(n, _)| n)
                .filter(|n| n.len() == 1 && n.chars().all(|c| c.is_ascii_digit()))
            else {
                continue;
            };
            assert!(
                every_file.contains(&format!("{name}.{section}")),
                "{}: names {name}({section}), which is not a page",
                path.display()
            );
        }
    }
    // Every command that runs something has its help's examples, whole, on its page.
    for (name, path) in [
        ("indoubt-pg-prepared", "pg prepared"),
        ("indoubt-resolve-kafka", "resolve kafka"),
        ("indoubt-check", "check"),
        ("indoubt-explain", "explain"),
    ] {
        let text = page(name);
        assert!(text.contains(".SH EXAMPLES"), "{name}: no EXAMPLES");
        for e in indoubt::help::examples(&indoubt::commands::probes::REGISTRY, path) {
            let line = indoubt::help::lines(e.line)
                .join("\n")
                .replace('\\', "\\e")
                .replace('-', "\\-");
            assert!(
                text.contains(&format!(".nf\n{line}\n.fi")),
                "{name}: {}",
                e.line
            );
        }
    }
    // Each page's exit codes are its command's: resolve's on resolve's pages.
    assert!(page("indoubt-resolve-pg").contains("nothing done: not confirmed"));
    assert!(!page("indoubt-resolve-pg").contains("something crossed a warning threshold"));
    assert!(page("indoubt-check").contains("something crossed a warning threshold"));
    // The codes, on explain's page.
    let explain = page("indoubt-explain");
    for code in indoubt::commands::probes::codes() {
        let name = code.name().replace('-', "\\-");
        assert!(
            explain.contains(&format!("\\fB{name}\\fR")),
            "{code} not on the explain page"
        );
    }
}

/// Every page of man/ renders with `man -l` at 80 columns without a groff warning (a line
/// that cannot be adjusted or broken, an unknown request), as CI's install checks too.
#[test]
fn every_man_page_renders_without_warnings() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("man"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    assert!(pages.len() >= 45, "{pages:?}");
    for section in ["1", "5", "7"] {
        assert!(
            pages
                .iter()
                .any(|p| p.extension().is_some_and(|e| e == section)),
            "no page in section {section}"
        );
    }
    for page in pages {
        let out = std::process::Command::new("man")
            .args(["--warnings", "-l"])
            .arg(&page)
            .env("MANWIDTH", "80")
            .env("MAN_KEEP_FORMATTING", "0")
            .output()
            .expect("man (Debian's man-db and groff-base)");
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && warnings.is_empty(),
            "{}: {warnings}",
            page.display()
        );
        assert!(out.stdout.len() > 500, "{}: renders empty", page.display());
    }
}

/// Every command line the README and the manual show in a fenced block (typed, `$ indoubt
/// …`, or printed by a sample to be run) is one indoubt accepts: its subcommand and flags exist, its values parse. A renamed
/// flag fails here, not on an operator's terminal.
#[test]
fn every_documented_command_line_parses() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    files.extend(
        std::fs::read_dir(root.join("doc/man"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    // The README is a front page: the manual holds the reference.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.lines().count() < 400,
        "README.md has {} lines: move reference into doc/man",
        readme.lines().count()
    );
    let mut checked = 0;
    let mut refused = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut fenced = false;
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            // A typed line (`$ indoubt …`), or one a sample prints to be run (`indoubt …`,
            // `1. indoubt …`, `next: indoubt …`).
            let shown = line.trim_start();
            let shown = shown.strip_prefix("next: ").unwrap_or(shown);
            let shown = shown
                .split_once(". ")
                .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                .map_or(shown, |(_, rest)| rest);
            let Some(command) = shown
                .strip_prefix("$ indoubt ")
                .or_else(|| shown.strip_prefix("indoubt "))
            else {
                continue;
            };
            if !fenced {
                continue;
            }
            let mut command = command.to_string();
            while command.ends_with('\\') {
                command.pop();
                command.push_str(lines.next().unwrap_or_default());
            }
            // A placeholder (`…`, `$(…)`) stands for what the reader types.
            // A message indoubt prints (`indoubt serve: serving …`) is no command.
            if command.contains('…')
                || command.contains("$(")
                || command.split(' ').next().is_some_and(|w| w.ends_with(':'))
            {
                continue;
            }
            let Some(words) = shell_words(&command) else {
                continue;
            };
            if let Some(e) = refusal(words) {
                refused.push(format!("{}: `indoubt {command}`: {e}", file.display()));
            }
            checked += 1;
        }
    }
    // The runbook's commands (README's table, indoubt-runbook(7), the alerts' annotations),
    // in backticks: `indoubt resolve pg GID --pg T --dry-run`.
    for incident in indoubt::commands::runbook::INCIDENTS {
        for text in [incident.look, incident.fix] {
            for quoted in text.split('`').skip(1).step_by(2) {
                let Some(command) = quoted.strip_prefix("indoubt ") else {
                    continue;
                };
                if command.contains('…') {
                    continue;
                }
                let Some(words) = shell_words(command) else {
                    continue;
                };
                if let Some(e) = refusal(words) {
                    refused.push(format!(
                        "runbook {:?}: `indoubt {command}`: {e}",
                        incident.symptom
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    assert!(checked >= 60, "only {checked} command lines found");
}

/// Why indoubt refuses `words` (after `indoubt`), if it does. A placeholder where a number
/// goes (`--partition P`) is the reader's to fill, and help is no refusal.
fn refusal(words: Vec<String>) -> Option<clap::Error> {
    let argv = std::iter::once("indoubt".to_string()).chain(words);
    let e = indoubt::help::command(&indoubt::commands::probes::REGISTRY)
        .try_get_matches_from(argv)
        .err()?;
    let placeholder = matches!(
        e.get(clap::error::ContextKind::InvalidValue),
        Some(clap::error::ContextValue::String(v))
            if !v.is_empty() && v.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    );
    let help = matches!(
        e.kind(),
        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
    );
    (!placeholder && !help).then_some(e)
}

/// The words of indoubt's part of a shell line, quotes removed, up to the first unquoted
/// pipe, `;`, `&`, redirection or comment (the shell's part); None for a `<placeholder>`.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        q => w.push(q),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            '|' | ';' | '&' | '>' => break,
            '#' if word.is_none() => break,
            '<' => return None,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}
