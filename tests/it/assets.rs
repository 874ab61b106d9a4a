//! completions/ and man/ are current: regenerated from the clap definitions, they must
//! equal what is committed.

use std::path::PathBuf;

#[test]
fn completions_and_man_pages_are_current() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = indoubt::assets::render_all();
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
    let pages: Vec<String> = files
        .iter()
        .filter(|(p, _)| p.starts_with("man"))
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
        let refs: Vec<&str> = see_also
            .lines()
            .take_while(|l| l.starts_with(".BR "))
            .map(|l| l.trim_start_matches(".BR ").split(' ').next().unwrap())
            .collect();
        assert!(!refs.is_empty(), "{name}: SEE ALSO is empty");
        for r in refs {
            let target = r.replace("\\-", "-");
            assert!(
                pages.contains(&target),
                "{name}: SEE ALSO {target}, which is not a page"
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
    for code in indoubt::codes::ALL {
        let name = code.name().replace('-', "\\-");
        assert!(
            explain.contains(&format!("\\fB{name}\\fR")),
            "{code} not on the explain page"
        );
    }
}
