//! What an on-call engineer reads, piped or at a terminal: plain columns off a terminal,
//! laid out for $COLUMNS or 80 (or --width), colour only when asked for or at a terminal,
//! and never an identifier split across lines.

use crate::common;

use common::tty::on_terminal;
use common::*;

/// A database with one prepared transaction whose GID (pgjdbc's base64 form of a
/// Narayana XID, 120 characters and more) is wider than an 80-column screen.
fn long_gid_db() -> (TestDb, String) {
    let db = TestDb::create("layout");
    // GIDs are unique in the whole cluster: the database's name makes it this test's.
    let gid = format!(
        "131077_AAAAAAAAAAAAAP//fwAAAQAAnQlmIzBkAAAAAzEwMjkxMGQ1NTYtMWVjMS00NzIx_{}",
        db.name
    );
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    (db, gid)
}

fn prepared_args(db: &TestDb) -> Vec<String> {
    let url = pg_url();
    [
        "pg",
        "prepared",
        "--pg",
        &url,
        "--database",
        &db.name,
        "--warning-age",
        "0s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Every line fits `width`, but a line that holds the GID whole.
fn assert_laid_out_for(text: &str, width: usize, gid: &str) {
    assert!(
        text.lines().any(|l| l.contains(gid)),
        "the GID is not whole on any line:\n{text}"
    );
    for line in text.lines().filter(|l| !l.contains(gid)) {
        assert!(
            line.chars().count() <= width,
            "a line wider than {width}: {line:?}\n{text}"
        );
    }
}

#[test]
fn piped_output_is_plain_and_80_wide_and_keeps_the_gid_whole() {
    let (db, gid) = long_gid_db();
    let out = run(indoubt().args(prepared_args(&db)));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        !out.stdout.contains(['│', '┆', '─', '═']),
        "box drawing in a pipe:\n{}",
        out.stdout
    );
    assert!(!out.stdout.contains('\u{1b}'), "colour in a pipe");
    assert_laid_out_for(&out.stdout, 80, &gid);
    // The finding's advice is wrapped for 80 columns, not left on one long line.
    assert!(
        out.stdout
            .lines()
            .filter(|l| !l.contains(&gid))
            .any(|l| l.chars().count() > 60),
        "{}",
        out.stdout
    );

    let columns = run(indoubt().env("COLUMNS", "100").args(prepared_args(&db)));
    assert_laid_out_for(&columns.stdout, 100, &gid);
    assert!(
        columns
            .stdout
            .lines()
            .any(|l| !l.contains(&gid) && l.chars().count() > 80),
        "$COLUMNS=100 is not used:\n{}",
        columns.stdout
    );
}

#[test]
fn a_width_that_fits_the_gid_gives_a_grid_and_a_narrow_one_gives_blocks() {
    let (db, gid) = long_gid_db();
    let wide = run(indoubt().args(["--width", "250"]).args(prepared_args(&db)));
    assert_laid_out_for(&wide.stdout, 250, &gid);
    let header = wide
        .stdout
        .lines()
        .find(|l| l.starts_with("STATUS"))
        .unwrap();
    assert!(
        header.contains("GID") && header.contains("DATABASE"),
        "not a grid at 250 columns:\n{}",
        wide.stdout
    );
    let narrow = run(indoubt().args(["--width", "80"]).args(prepared_args(&db)));
    assert!(narrow.stdout.contains("-[ 1 ]"), "{}", narrow.stdout);
    assert!(
        narrow
            .stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["GID", gid.as_str()]),
        "the block does not give the GID its own line:\n{}",
        narrow.stdout
    );
    let refused = run(indoubt().args(["--width", "5"]).args(prepared_args(&db)));
    assert_eq!(
        refused.code, 3,
        "a width under 20 is a usage error: {}",
        refused.stderr
    );
}

#[test]
fn colour_is_auto_always_or_never_and_no_color_wins_over_auto() {
    let (db, _gid) = long_gid_db();
    let args = prepared_args(&db);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let always = run(indoubt().args(["--color", "always"]).args(&args));
    assert!(
        always.stdout.contains("\u{1b}[33mWARNING\u{1b}[0m"),
        "{}",
        always.stdout
    );
    let on_tty = on_terminal(100, &[], None, &args).text;
    assert!(
        on_tty.contains("\u{1b}[33m"),
        "no colour at a terminal:\n{on_tty}"
    );
    assert!(
        on_tty.contains('│'),
        "a terminal gets box drawing:\n{on_tty}"
    );
    let no_color = on_terminal(100, &[("NO_COLOR", "1")], None, &args).text;
    assert!(!no_color.contains("\u{1b}["), "{no_color}");
    let mut never = vec!["--color", "never"];
    never.extend(&args);
    assert!(!on_terminal(100, &[], None, &never).text.contains("\u{1b}["));
    let mut forced = vec!["--color", "always"];
    forced.extend(&args);
    let forced = on_terminal(100, &[("NO_COLOR", "1")], None, &forced).text;
    assert!(
        forced.contains("\u{1b}[33m"),
        "an explicit --color always wins:\n{forced}"
    );
}
