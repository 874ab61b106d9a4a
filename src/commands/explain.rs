//! `indoubt explain [CODE]`: what a finding code means, why it matters and how to fix
//! it, from the codes of every command and every probe (`probes::codes`); without CODE,
//! every code.

use super::{probes, runbook};
use crate::cli::{ExplainArgs, GlobalArgs, OutputFormat};
use crate::codes::{Code, Doc};
use crate::error::hinted;
use crate::findings::Severity;
use crate::report::{layout, write_stdout};
use anyhow::Result;
use serde::Serialize;

pub fn run(global: &GlobalArgs, args: &ExplainArgs) -> Result<Severity> {
    let width = usize::from(crate::term::layout_width(global.width));
    let chosen: Vec<Code> = match &args.code {
        Some(asked) => vec![find(asked)?],
        None => probes::codes(),
    };
    let text = match global.output {
        OutputFormat::Json => {
            let mut json = serde_json::to_string_pretty(&entries(&chosen))?;
            json.push('\n');
            json
        }
        OutputFormat::Yaml => serde_yaml::to_string(&entries(&chosen))?,
        _ if args.code.is_some() => explained(chosen[0].doc(), width),
        _ => listed(width),
    };
    write_stdout(&text)?;
    Ok(Severity::Ok)
}

/// The code asked for, as typed or in the case and dashes a person might use; else a
/// usage error naming the codes it is close to.
fn find(asked: &str) -> Result<Code> {
    let normal = asked.trim().to_ascii_lowercase().replace('-', "_");
    if let Some(code) = probes::code(&normal) {
        return Ok(code);
    }
    let near = near_matches(&normal);
    let hint = match near.as_slice() {
        [] => "`indoubt explain` lists every code".to_string(),
        names => format!(
            "did you mean {}? `indoubt explain` lists every code",
            names.join(", ")
        ),
    };
    Err(hinted(format!("no finding has the code {asked:?}"), hint))
}

/// Codes within a few edits of `asked`, or that contain it (or it them), closest first.
fn near_matches(asked: &str) -> Vec<&'static str> {
    let mut near: Vec<(usize, &'static str)> = probes::codes()
        .into_iter()
        .map(|c| c.name())
        .filter_map(|name| {
            let distance = edits(asked, name);
            let contains = asked.len() >= 3 && (name.contains(asked) || asked.contains(name));
            (distance <= 3 || contains).then_some((distance, name))
        })
        .collect();
    near.sort();
    near.into_iter().take(5).map(|(_, name)| name).collect()
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[derive(Serialize)]
struct Entry {
    code: &'static str,
    meaning: &'static str,
    why: &'static str,
    fix: &'static str,
    /// The runbook's incident this code reports (indoubt-runbook(7)); absent for a code
    /// that reports none (a summary, a resolution's outcome).
    #[serde(skip_serializing_if = "Option::is_none")]
    incident: Option<&'static str>,
}

fn entries(chosen: &[Code]) -> Vec<Entry> {
    chosen
        .iter()
        .map(|c| {
            let d = c.doc();
            Entry {
                code: d.name,
                meaning: d.meaning,
                why: d.why,
                fix: d.fix,
                incident: runbook::incident_of(d.name).map(|i| i.symptom),
            }
        })
        .collect()
}

/// One code: its name, then headed paragraphs wrapped between words (a command in
/// backticks is never split): what it means, why it matters, how to fix it, and the
/// runbook's incident it reports, with that incident's risk and alerts.
fn explained(doc: &Doc, width: usize) -> String {
    let mut out = format!("{}\n", doc.name);
    let incident = runbook::incident_of(doc.name).map(|i| {
        let alerts = match i.alerts {
            runbook::Alerts::Rules(rules) => format!("Prometheus alerts: {}", rules.join(", ")),
            runbook::Alerts::None(why) => format!("no Prometheus alert: {why}"),
        };
        format!(
            "{}; {} shows it. Risk of the fix: {}. {alerts} (indoubt-runbook(7)).",
            i.symptom, i.look, i.risk
        )
    });
    let mut paragraphs = vec![
        ("What it means", doc.meaning),
        ("Why it matters", doc.why),
        ("How to fix it", doc.fix),
    ];
    if let Some(incident) = &incident {
        paragraphs.push(("Incident", incident));
    }
    for (heading, text) in paragraphs {
        out.push('\n');
        out.push_str(heading);
        out.push('\n');
        for line in layout::wrap(text, width.saturating_sub(2).max(20)) {
            out.push_str("  ");
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Every code with the first sentence of its meaning, then how to read one.
fn listed(width: usize) -> String {
    let every = probes::codes();
    let name_width = every.iter().map(|c| c.name().len()).max().unwrap_or(0);
    let indent = format!("\n{}", " ".repeat(name_width + 2));
    let room = width.saturating_sub(name_width + 2).max(20);
    let mut out = String::new();
    for code in every {
        let meaning = code.doc().meaning;
        let first = meaning.split(". ").next().unwrap_or(meaning);
        let first = first.trim_end_matches('.');
        out.push_str(&format!("{:<name_width$}  ", code.name()));
        out.push_str(&layout::wrap(first, room).join(&indent));
        out.push('\n');
    }
    out.push_str(
        "\n`indoubt explain CODE` says what one means, why it matters and how to fix it.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_matches_name_close_codes_first() {
        assert_eq!(near_matches("prepared_xact_ages")[0], "prepared_xact_age");
        assert!(near_matches("lso_gap").contains(&"lso_gap_unexplained"));
        assert!(near_matches("qqqqqqqqqqqqqq").is_empty());
        assert_eq!(edits("kitten", "sitting"), 3);
    }

    #[test]
    fn a_code_is_found_in_another_case_or_with_dashes() {
        assert_eq!(
            find("PREPARED-XACT-AGE").ok(),
            Some(crate::codes::PREPARED_XACT_AGE)
        );
        assert!(find("prepared_xact").is_err());
    }
}

#[cfg(test)]
mod golden;
