//! Golden output of `resolve mysql` (report::golden): the dry run of a HEURISTIC
//! rollback of the Narayana branch MariaDB recovered at its restart (its evidence blocks:
//! the XID and the statement whole, each source's answer, the risk marked), and the
//! outcome report after it was done.

use super::*;
use crate::audit::record::{Answer, Outcome, SourceAnswer, Status};
use crate::commands::mysql_xa::golden as xa_golden;
use crate::global_tx::GlobalTransaction;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::layout::Frame;
use crate::report::table;
use crate::report::Report;
use crate::resolve::decision::Decision;
use crate::resolve::flow;
use crate::resolve::flow::Proposal as _;
use crate::resolve::siblings::{Searched, Siblings, THIS_SERVER};
use crate::settings::CommandSettings;

/// `resolve mysql XID --mysql prod-billing --rollback --dry-run`, as the branch's next
/// command and the operator's choice make it.
fn settings() -> ResolveMysqlSettings {
    let arg = xa_golden::narayana_xid().arg();
    let args = [
        "resolve",
        "mysql",
        arg.as_str(),
        "--mysql",
        "prod-billing",
        "--rollback",
        "--dry-run",
    ];
    match golden::settings(xa_golden::CONFIG, &args) {
        CommandSettings::ResolveMysql(s) => *s,
        _ => unreachable!("resolved as resolve mysql"),
    }
}

/// What the configured sources answer: the node's object store, its coordinator not
/// named in the config (so its "no record" proves nothing), and an Atomikos log that
/// does not apply.
fn sources() -> Vec<SourceAnswer> {
    vec![
        SourceAnswer {
            source: "narayana-orders".into(),
            answer: Answer::NoRecord,
            authoritative: false,
            detail: "no AtomicAction record for Uid 0:ffff0a000117:8b3:6b0cc900:1267 in /var/lib/narayana/ObjectStore/ShadowNoFileLockStore/defaultStore; without `coordinator:` in this source's config the log may be another coordinator's, so this proves nothing".into(),
            in_doubt_after_seconds: Some(300.0),
        },
        SourceAnswer {
            source: "atomikos-payments".into(),
            answer: Answer::NotApplicable,
            authoritative: false,
            detail: "format id 131077 is not Atomikos'".into(),
            in_doubt_after_seconds: Some(300.0),
        },
    ]
}

/// The report's data as `run` fills it before the flow: the branch as read, the
/// sources' answers, the proposal and the choice of `--rollback` made from them.
fn data(s: &ResolveMysqlSettings) -> ResolveMysqlReport {
    let xid = s.xid.clone();
    let branch = xa_golden::recovered_branch();
    assert_eq!(branch.xid, xid, "the branch the command names");
    let decoded_xid = decoded(&xid);
    let as_gid = crate::gid::pgjdbc_gid(131_077, &xid.gtrid, &xid.bqual);
    let mut global_transaction = GlobalTransaction::of(&as_gid, &decoded_xid);
    if let Some(g) = global_transaction.as_mut() {
        g.branches = 1;
    }
    let decision_sources = sources();
    let proposal = decision::propose_aged(
        &decision_sources,
        branch.age.lower_bound(),
        branch.age.at_least(),
    );
    let named = Xa {
        xid: xid.clone(),
        branch: Some(branch),
        decoded_xid,
    };
    let mut data = ResolveMysqlReport::new(named, &s.resolution);
    data.decision_sources = decision_sources;
    data.siblings = Siblings {
        global_transaction,
        siblings: Vec::new(),
        mysql_siblings: Vec::new(),
        sibling_search: vec![Searched {
            target: THIS_SERVER.into(),
            address: Some(s.target.report_target().address),
            checked: true,
            detail: "no other branch of it".into(),
            server: None,
        }],
    };
    let chosen = match data.decide(&proposal, &s.resolution, subject(&xid)) {
        Ok(chosen) => chosen,
        Err(refusal) => panic!("--rollback is taken: {:?}", refusal.message),
    };
    assert!(data.heuristic, "no source knows it: a HEURISTIC decision");
    data.proposal = Some(proposal);
    data.statement = Some(apply::mysql::statement(chosen, &xid));
    data
}

/// The subject the flow resolves: its name, dry-run text and annotations are the flow's.
fn branch(s: &ResolveMysqlSettings, data: &ResolveMysqlReport) -> apply::Branch<XaBranch> {
    let ctx = golden::context();
    let xa = XaBranch::new(s.target.params.clone(), data.named.xid.clone());
    let decision = data.decision.unwrap_or(Decision::Rollback);
    let server = Some(xa_golden::server().key());
    let null = serde_json::Value::Null;
    let decided = data.decided(&ctx, s.target.report_target(), decision, null, server);
    apply::Branch::new(xa, decided)
}

fn report_for(
    s: &ResolveMysqlSettings,
    findings: Vec<Finding>,
    data: ResolveMysqlReport,
) -> Report<ResolveMysqlReport> {
    let mut report = data.report(s.target.report_target(), &s.resolution, findings);
    report.generated_at = fixed_now();
    report
}

fn render_all(name: &str, report: &Report<ResolveMysqlReport>, expect: &Expect) {
    golden::pin(name, Layouts::Both, expect, |style| {
        table::render(report, style).into_string()
    });
}

#[test]
fn resolve_mysql() {
    let s = settings();
    let xid = xa_golden::narayana_xid().sql();
    let statement = format!("XA ROLLBACK {xid}");

    // The dry run: the evidence once, then what it would do.
    let data = data(&s);
    assert_eq!(data.statement.as_deref(), Some(statement.as_str()));
    let b = branch(&s, &data);
    let report = report_for(&s, vec![flow::dry_run_finding(&b)], data);
    let whole = vec![
        xid.clone(),
        statement.clone(),
        format!("`{statement}`"),
        "session 4187".into(),
        "0:ffff0a000117:8b3:6b0cc900:1267".into(),
    ];
    let may_overflow = vec![xid.as_str(), statement.as_str()];
    let expect = Expect {
        whole,
        may_overflow,
    };
    render_all("resolve_mysql_dry_run", &report, &expect);
    let mut colour = golden::style(Frame::Boxed, 80, false);
    colour.color = true;
    let text = table::render(&report, &colour).into_string();
    assert!(text.contains("\x1b[1;31mHEURISTIC\x1b[0m"), "{text}");
    golden::snapshot("resolve_mysql_dry_run__colour_box_80", &text);

    // Done, after the prompt showed the evidence: the outcome, not the evidence again.
    let mut data = self::data(&s);
    data.dry_run = false;
    let b = branch(&s, &data);
    let detail = format!("{statement} done");
    let finding = b
        .annotate(Finding::new(
            Severity::Ok,
            codes::RESOLVED,
            b.name(),
            format!("{detail} (HEURISTIC decision, recorded)"),
        ))
        .evidence("action_id", "20261201T031342.518204Z-52113");
    data.outcome = Some(Outcome {
        result: None,
        status: Status::Ok,
        detail,
        code: None,
    });
    data.audit_log = Some("/var/lib/indoubt/audit.jsonl".into());
    data.evidence_shown = true;
    let report = report_for(&s, vec![finding], data);
    let whole = vec![
        xid.clone(),
        statement.clone(),
        "/var/lib/indoubt/audit.jsonl".into(),
    ];
    let may_overflow = vec![xid.as_str(), statement.as_str()];
    let expect = Expect {
        whole,
        may_overflow,
    };
    render_all("resolve_mysql_done", &report, &expect);
}
