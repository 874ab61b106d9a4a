//! The lab's Spring Modulith application (tests/lab/modulith/run): Spring Boot with Spring
//! Modulith's JDBC event publication registry, publishing and resubmitting through the
//! framework's own code paths.

use super::seata::{harness, Line};

/// Which build: Spring Boot 4.0 with Spring Modulith 2.0 (the v2 layout), or Spring Boot
/// 3.5 with Spring Modulith 1.4 (the 1.x layout).
#[derive(Clone, Copy)]
pub enum Build {
    V2,
    V1,
}

/// Runs `COMMAND db=JDBC key=value...` and returns its lines.
pub fn app(build: Build, command: &str, db: &str, args: &[&str]) -> Vec<Line> {
    let script: &[&str] = match build {
        Build::V2 => &["tests/lab/modulith/run"],
        Build::V1 => &["tests/lab/modulith/run", "--boot3"],
    };
    let mut all = vec![format!("db={db}")];
    all.extend(args.iter().map(|a| a.to_string()));
    harness(script, command, &all)
}

/// The ids of the publications the application found incomplete at its end, for one
/// listener (its id ends with `CLASS.on(…)`).
pub fn incomplete_ids(lines: &[Line], class: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.kind == "incomplete")
        .filter(|l| {
            l.fields
                .get("listener")
                .is_some_and(|id| id.contains(&format!("${class}.on(")))
        })
        .filter_map(|l| l.fields.get("id").cloned())
        .collect()
}
