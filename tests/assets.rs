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
    let page = String::from_utf8_lossy(
        &files
            .iter()
            .find(|(p, _)| p.ends_with("indoubt-pg-prepared.1"))
            .unwrap()
            .1,
    )
    .into_owned();
    for section in [
        "EXIT STATUS",
        "ENVIRONMENT",
        "FILES",
        "config.yaml",
        "UNKNOWN",
    ] {
        assert!(page.contains(section), "the man page lacks {section}");
    }
}
