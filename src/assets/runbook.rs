//! The runbook's three renderings, from the incidents of src/commands/runbook.rs: the
//! README's table (between its `runbook` markers), indoubt-runbook(7)'s INCIDENTS, and
//! the `runbook` annotation of every alert in monitoring/ (and its promtool test's
//! expectation), so none of them can say something the others do not.

use super::markdown::{inline, text_line};
use crate::codes::Code;
use crate::commands::runbook::{Alerts, Incident, INCIDENTS};
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- runbook: generated from src/commands/runbook.rs by indoubt-assets -->\n";
const END: &str = "<!-- runbook end -->\n";

/// At most this many codes in a README cell; the page lists them all.
const CODES_IN_README: usize = 4;

/// README.md, the alert rules and their test, each with its generated part rewritten.
pub fn files(root: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).map_err(|e| format!("{p}: {e}"));
    let readme = read("README.md")?;
    let (Some(begin), Some(end)) = (readme.find(BEGIN), readme.find(END)) else {
        return Err(format!(
            "README.md lacks the runbook markers {BEGIN:?} … {END:?}"
        ));
    };
    let readme = format!(
        "{}{BEGIN}{}{}",
        &readme[..begin],
        readme_table(),
        &readme[end..]
    );
    let rules_file = read("monitoring/indoubt.rules.yml")?;
    for incident in INCIDENTS {
        if let Alerts::Rules(rules) = incident.alerts {
            for rule in rules {
                if !rules_file.contains(&format!("- alert: {rule}\n")) {
                    return Err(format!(
                        "the incident {:?} names the alert {rule}, which monitoring/indoubt.rules.yml lacks",
                        incident.symptom
                    ));
                }
            }
        }
    }
    let rules = annotated(&rules_file, "- alert: ", |a| {
        format!("\"{}\"", a.replace('\\', "\\\\").replace('"', "\\\""))
    })?;
    let tests = annotated(
        &read("monitoring/indoubt.rules.test.yml")?,
        "alertname: ",
        |a| format!("'{}'", a.replace('\'', "''")),
    )?;
    Ok(vec![
        (PathBuf::from("README.md"), readme.into_bytes()),
        (
            PathBuf::from("monitoring/indoubt.rules.yml"),
            rules.into_bytes(),
        ),
        (
            PathBuf::from("monitoring/indoubt.rules.test.yml"),
            tests.into_bytes(),
        ),
    ])
}

/// The incident whose alerts include `alert`; an alert no incident claims is an error.
fn incident_of_alert(alert: &str) -> Result<&'static Incident, String> {
    INCIDENTS
        .iter()
        .find(|i| matches!(i.alerts, Alerts::Rules(rules) if rules.contains(&alert)))
        .ok_or_else(|| {
            format!("the alert {alert} belongs to no incident of src/commands/runbook.rs")
        })
}

/// `text` (a rules file, or its promtool test) with the `runbook:` line after each
/// `marker NAME` line set to NAME's incident's annotation, quoted by `quote`.
fn annotated(text: &str, marker: &str, quote: impl Fn(&str) -> String) -> Result<String, String> {
    let mut out = String::new();
    let mut current: Option<&Incident> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(name) = trimmed.strip_prefix(marker) {
            current = Some(incident_of_alert(name.trim())?);
        }
        match (trimmed.strip_prefix("runbook: "), current) {
            (Some(_), Some(incident)) => {
                let indent = &line[..line.len() - trimmed.len()];
                out.push_str(&format!(
                    "{indent}runbook: {}\n",
                    quote(&incident.annotation())
                ));
            }
            _ => out.push_str(line),
        }
    }
    Ok(out)
}

/// The README's runbook table.
fn readme_table() -> String {
    let cell = |t: &str| t.replace('|', "\\|");
    let mut out = String::from(
        "| alert (check, finding code) | look with | what to look for | fix (dry run first) | risk |\n|---|---|---|---|---|\n",
    );
    for i in INCIDENTS {
        let mut codes: Vec<String> = i
            .codes
            .iter()
            .take(CODES_IN_README)
            .map(|c| format!("`{c}`"))
            .collect();
        if i.codes.len() > CODES_IN_README {
            codes.push(format!(
                "{} more in indoubt-runbook(7)",
                i.codes.len() - CODES_IN_README
            ));
        }
        let codes = match codes.is_empty() {
            true => String::new(),
            false => format!(" ({})", codes.join(", ")),
        };
        out.push_str(&format!(
            "| {}, {}{codes} | {} | {} | {} | {} |\n",
            cell(i.symptom),
            cell(i.seen_as),
            cell(i.look),
            cell(i.look_for),
            cell(i.fix),
            cell(i.risk)
        ));
    }
    out
}

/// indoubt-runbook(7)'s INCIDENTS section: every incident.
pub fn incidents_section() -> String {
    incidents(INCIDENTS.iter())
}

/// A command's INCIDENTS section: those its codes report (none: no section).
pub fn incidents_of(codes: &[Code]) -> String {
    let mine: Vec<&Incident> = INCIDENTS
        .iter()
        .filter(|i| codes.iter().any(|c| i.codes.contains(&c.name())))
        .collect();
    match mine.is_empty() {
        true => String::new(),
        false => incidents(mine.into_iter()),
    }
}

/// An INCIDENTS section: each incident a subsection of tagged paragraphs.
fn incidents<'a>(chosen: impl Iterator<Item = &'a Incident>) -> String {
    let mut out = String::from(".SH INCIDENTS\n");
    for i in chosen {
        out.push_str(&format!(
            ".SS \"{}\"\n",
            inline(i.symptom).replace('"', "\\(dq")
        ));
        let codes: Vec<String> = i.codes.iter().map(|c| format!("`{c}`")).collect();
        let seen = match codes.is_empty() {
            true => i.seen_as.to_string(),
            false => format!("{}: {}", i.seen_as, codes.join(", ")),
        };
        let alerts = match i.alerts {
            Alerts::Rules(rules) => format!("{} (monitoring/indoubt.rules.yml)", rules.join(", ")),
            Alerts::None(why) => format!("none: {why}"),
        };
        // One line between incidents, none inside one.
        out.push_str(".PD 0\n");
        for (tag, text) in [
            ("Reported as", seen.as_str()),
            ("Look with", i.look),
            ("Look for", i.look_for),
            ("Fix", i.fix),
            ("Risk", i.risk),
            ("Alerts", alerts.as_str()),
        ] {
            out.push_str(&format!(".TP 12\n\\fI{tag}\\fR\n{}\n", text_line(text)));
        }
        out.push_str(".PD\n");
    }
    out
}
