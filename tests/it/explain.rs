//! `indoubt explain`: a finding's code says what it means, why it matters and how to fix
//! it; every code is listed; a mistyped code is a usage error (exit 3) naming the codes
//! it is close to; the table shows each finding's code. No server is needed.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::*;
use serde_json::Value;

#[test]
fn explain_prints_meaning_why_and_fix() {
    let out = run(indoubt().args(["--width", "80", "explain", "prepared_xact_age"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("prepared_xact_age\n"),
        "{}",
        out.stdout
    );
    for heading in ["What it means", "Why it matters", "How to fix it"] {
        assert!(out.stdout.contains(heading), "no {heading}: {}", out.stdout);
    }
    // The fix names the command to run, whole on one line at 80 columns.
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains("`indoubt resolve pg 'GID' --dry-run`")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.lines().all(|l| l.chars().count() <= 80),
        "{}",
        out.stdout
    );
    // The same, for scripts.
    let out = run(indoubt().args(["-o", "json", "explain", "PREPARED-XACT-AGE"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let entries: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(entries[0]["code"], "prepared_xact_age");
    for key in ["meaning", "why", "fix"] {
        assert!(
            entries[0][key].as_str().is_some_and(|t| !t.is_empty()),
            "{key}"
        );
    }
}

#[test]
fn explain_without_a_code_lists_every_code() {
    let out = run(indoubt().args(["-o", "json", "explain"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let entries: Value = serde_json::from_str(&out.stdout).unwrap();
    let names: Vec<&str> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    // Every code: the shared list and each probe's own (seata globals documents its
    // codes in its folder).
    let every = indoubt::commands::probes::codes();
    assert_eq!(names.len(), every.len());
    for code in &every {
        assert!(names.contains(&code.name()), "{code}");
    }
    assert!(names.contains(&"seata_global_given_up"), "{names:?}");
    let out = run(indoubt().args(["explain"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    for code in [
        "prepared_xact_age",
        "lso_gap",
        "hanging_transaction",
        "audit_chain_broken",
    ] {
        assert!(
            out.stdout
                .lines()
                .any(|l| l.starts_with(&format!("{code} "))),
            "{code} not listed: {}",
            out.stdout
        );
    }
}

#[test]
fn an_unknown_code_is_a_usage_error_with_near_matches() {
    let out = run(indoubt().args(["explain", "prepared_xact_ages"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("prepared_xact_ages"), "{}", out.stderr);
    let hint = out
        .stderr
        .lines()
        .find(|l| l.starts_with("hint: "))
        .unwrap_or_else(|| panic!("no hint: {}", out.stderr));
    assert!(hint.contains("prepared_xact_age"), "{hint}");
    assert!(hint.contains("indoubt explain"), "{hint}");
    // Nothing close: the hint says where the list is.
    let out = run(indoubt().args(["explain", "zzzzzzzzzzzzzzzzzz"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains("hint: `indoubt explain` lists every code"),
        "{}",
        out.stderr
    );
}

/// A broken config does not hide what a code means: explain reads no config.
#[test]
fn explain_needs_no_config() {
    let dir = std::env::temp_dir().join(unique("explain_config"));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.yaml");
    std::fs::write(&config, "postgres: [not: valid").unwrap();
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["explain", "lso_gap"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("lso_gap\n"));
}

/// The table names each finding's code, for `indoubt explain`; JSON carries it as
/// the same string.
#[test]
fn the_table_shows_each_findings_code() {
    let log = std::env::temp_dir()
        .join(unique("explain_audit"))
        .join("audit.jsonl");
    let table = run(indoubt()
        .args(["-o", "table", "audit", "list", "--audit-log"])
        .arg(&log));
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.contains("(explain: audit_no_records)"),
        "{}",
        table.stdout
    );
    let json = run(indoubt()
        .args(["-o", "json", "audit", "list", "--audit-log"])
        .arg(&log));
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["findings"][0]["code"], "audit_no_records");
}
