//! Golden output of `check` (report::golden): the findings of the `pg prepared` and `pg
//! slots` fixtures on one target as incidents, worst first, with a check that did not
//! answer in time and one that found nothing; one snapshot in colour pins the painting.

use super::*;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::layout::Frame;
use crate::report::table;

fn outcome(
    check: &'static str,
    target: &str,
    found: &mut [Finding],
    error: Option<&str>,
) -> CheckOutcome {
    for f in found.iter_mut() {
        f.evidence.insert("check".into(), check.into());
        f.evidence.insert("target".into(), target.into());
    }
    let mut by_severity = std::collections::BTreeMap::new();
    for f in found.iter() {
        *by_severity.entry(f.severity).or_insert(0) += 1;
    }
    CheckOutcome {
        check,
        target: target.into(),
        status: crate::findings::overall(found),
        elapsed_seconds: 0.42,
        error: error.map(str::to_string),
        findings: by_severity,
        address: None,
        measures: Vec::new(),
    }
}

fn report() -> Report<CheckReport> {
    let ctx = golden::context();
    let mut prepared = super::super::pg_prepared::golden::report(&ctx).findings;
    let mut slots = super::super::pg_slots::golden::report(&ctx).findings;
    let mut lso = vec![Finding::new(
        Severity::Unknown,
        codes::CHECK_FAILED,
        "",
        "no answer: did not finish within the 30s deadline",
    )];
    let mut outbox = vec![Finding::new(
        Severity::Ok,
        codes::OUTBOX_BACKLOG,
        "outbox orders-outbox",
        "no unpublished rows",
    )];
    let checks = vec![
        outcome("pg prepared", "prod-orders", &mut prepared, None),
        outcome("pg slots", "prod-orders", &mut slots, None),
        outcome(
            "kafka lso",
            "prod-events",
            &mut lso,
            Some("did not finish within the 30s deadline"),
        ),
        outcome("outbox", "orders-outbox", &mut outbox, None),
    ];
    let findings: Vec<Finding> = [prepared, slots, lso, outbox]
        .into_iter()
        .flatten()
        .collect();
    let target = Target {
        name: None,
        kind: "config".into(),
        address: "/etc/indoubt/prod.yaml".into(),
    };
    let mut report = Report::new(
        "check",
        target,
        findings,
        CheckReport {
            deadline_seconds: 30.0,
            elapsed_seconds: 30.01,
            checks_run: checks.len(),
            checks,
            incidents: Vec::new(),
        },
    );
    report.generated_at = fixed_now();
    present(&mut report, true);
    report
}

#[test]
fn check() {
    let report = report();
    let nexts: Vec<String> = report
        .data
        .incidents
        .iter()
        .filter_map(|i| i.next.as_ref())
        .map(|n| n.line())
        .collect();
    assert!(nexts.len() >= 4, "{nexts:?}");
    let narayana = golden::narayana_gid();
    let atomikos = golden::atomikos_gid();
    let mut whole = vec![
        narayana.clone(),
        atomikos.clone(),
        "airbyte_analytics".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.push(&narayana);
    may_overflow.push(&atomikos);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("check", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    let mut colour = golden::style(Frame::Boxed, 80, false);
    colour.color = true;
    let text = table::render(&report, &colour).into_string();
    assert!(text.contains("\x1b[1;31mCRITICAL\x1b[0m"), "{text}");
    golden::snapshot("check__colour_box_80", &text);
}
