//! Golden output of `resolve pg` (report::golden): the dry run of a HEURISTIC rollback
//! of the Narayana transaction (its evidence blocks: the GID and the statement whole, the
//! risk marked), and the outcome report after it was done.

use super::*;
use crate::audit::record::{Answer, SourceAnswer, Status};
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::layout::Frame;
use crate::report::table;
use crate::report::Report;
use crate::resolve::decision::{Decision, Proposal};
use crate::resolve::flow::Proposal as _;
use crate::resolve::siblings::{Searched, Siblings};

fn settings() -> ResolvePgSettings {
    match golden::settings(
        golden::CONFIG,
        &["resolve", "pg", "x", "--pg", "prod-orders"],
    ) {
        crate::settings::CommandSettings::ResolvePg(s) => *s,
        _ => unreachable!("resolved as resolve pg"),
    }
}

fn target(_ctx: &Context) -> crate::settings::targets::PgTarget {
    settings().target
}

/// The report as `finish` makes it, addressed as `--pg prod-orders`.
fn report_for(
    _ctx: &Context,
    findings: Vec<Finding>,
    data: ResolveReport,
) -> Report<ResolveReport> {
    let s = settings();
    let mut report = data.report(s.target.report_target(), &s.resolution, findings);
    report.generated_at = fixed_now();
    report
}

fn data(dry_run: bool) -> ResolveReport {
    let gid = RawText::from(golden::narayana_gid());
    let mut data = ResolveReport::new(Transaction::new(gid.clone()), &settings().resolution);
    data.dry_run = dry_run;
    let xact = &mut data.named;
    xact.database = Some("orders".into());
    xact.owner = Some("app_orders".into());
    xact.age_seconds = Some(18_720.0);
    xact.age_xids = Some(1_204_331);
    xact.locks_by_mode = [
        ("ExclusiveLock".to_string(), 1),
        ("RowExclusiveLock".to_string(), 2),
    ]
    .into();
    xact.blocked_pids = vec![48_211, 48_230];
    data.decision_sources = vec![SourceAnswer {
        source: "narayana-orders".into(),
        answer: Answer::NoRecord,
        authoritative: false,
        detail: "no record of uid 0:ffff0a000117:8b3:6b0cc900:1267 in /var/lib/narayana/ObjectStore (another node's transactions are not kept here)".into(),
        in_doubt_after_seconds: Some(300.0),
    }];
    data.siblings = Siblings {
        global_transaction: crate::global_tx::GlobalTransaction::of(&gid, &data.named.decoded_gid),
        siblings: Vec::new(),
        mysql_siblings: Vec::new(),
        sibling_search: vec![Searched {
            target: "prod-payments".into(),
            address: Some("monitor@db-payments-1.prod.example:5433/payments".into()),
            checked: true,
            detail: "no branch of it prepared".into(),
            server: None,
        }],
    };
    data.proposal = Some(Proposal {
        decision: None,
        heuristic: true,
        wait: false,
        why: "no decision source knows this transaction: any action is HEURISTIC".into(),
    });
    data.decision = Some(Decision::Rollback);
    data.heuristic = true;
    data.statement = Some(apply::pg::statement(Decision::Rollback, &gid));
    data
}

/// The subject the flow resolves: its name, dry-run text and annotations are the flow's.
fn branch(ctx: &Context, data: &ResolveReport) -> Branch<Xact> {
    let target = target(ctx);
    let xact = Xact {
        params: target.params.clone(),
        gid: data.named.gid.clone(),
        xid: 771_203,
        database: "orders".into(),
        owner: data.named.owner.clone(),
    };
    let decided = data.decided(
        ctx,
        target.report_target(),
        Decision::Rollback,
        serde_json::Value::Null,
        None,
    );
    Branch::new(xact, decided)
}

fn render_all(name: &str, report: &Report<ResolveReport>, expect: &Expect) {
    golden::pin(name, Layouts::Both, expect, |style| {
        table::render(report, style).into_string()
    });
}

#[test]
fn resolve_pg() {
    let ctx = golden::context();
    let gid = golden::narayana_gid();
    let statement = format!("ROLLBACK PREPARED '{gid}'");
    let quoted = format!("'{gid}'");

    // The dry run: the evidence once, then what it would do.
    let data = data(true);
    let b = branch(&ctx, &data);
    let findings = vec![Finding::new(
        Severity::Ok,
        codes::DRY_RUN,
        b.name(),
        b.dry_run(),
    )];
    let report = report_for(&ctx, findings, data);
    let whole = vec![
        quoted.clone(),
        statement.clone(),
        format!("`{statement}`"),
        "48211".into(),
    ];
    let may_overflow = vec![quoted.as_str(), statement.as_str()];
    let expect = Expect {
        whole,
        may_overflow,
    };
    render_all("resolve_pg_dry_run", &report, &expect);
    let mut colour = golden::style(Frame::Boxed, 80, false);
    colour.color = true;
    let text = table::render(&report, &colour).into_string();
    assert!(text.contains("\x1b[1;31mHEURISTIC\x1b[0m"), "{text}");
    golden::snapshot("resolve_pg_dry_run__colour_box_80", &text);

    // Done, after the prompt showed the evidence: the outcome, not the evidence again.
    let mut data = data_done();
    let b = branch(&ctx, &data);
    let detail = format!("{statement} done");
    let finding = b.annotate(Finding::new(
        Severity::Ok,
        codes::RESOLVED,
        b.name(),
        format!("{detail} (HEURISTIC decision, recorded)"),
    ));
    data.outcome = Some(Outcome {
        result: None,
        status: Status::Ok,
        detail,
        code: None,
    });
    data.audit_log = Some("/var/lib/indoubt/audit.jsonl".into());
    data.evidence_shown = true;
    let report = report_for(&ctx, vec![finding], data);
    let whole = vec![
        quoted.clone(),
        statement.clone(),
        "/var/lib/indoubt/audit.jsonl".into(),
    ];
    let may_overflow = vec![quoted.as_str(), statement.as_str()];
    let expect = Expect {
        whole,
        may_overflow,
    };
    render_all("resolve_pg_done", &report, &expect);
}

fn data_done() -> ResolveReport {
    let mut data = data(false);
    data.dry_run = false;
    data
}
