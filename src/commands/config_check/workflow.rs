//! `config show --check` of what the workflow engines' fixes go through: a Camunda or
//! Operaton engine's REST API (it must answer `GET /version` as the engine's) and DBOS's
//! CLI (the program must be there to run; it is not run).

use super::checks::{Check, TargetChecks};
use crate::camunda::rest::Api;
use crate::codes;
use crate::context::Context;
use crate::findings::Severity;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The engine's REST API: its settings usable, and it answers as the engine's.
pub(super) async fn camunda(ctx: &Context, name: &str, api: &Result<Api, String>) -> TargetChecks {
    let check = match api {
        Err(e) => Check::failed(
            "REST API settings",
            Severity::Unknown,
            codes::TARGET_UNREACHABLE,
            e.clone(),
        ),
        Ok(api) => match api.version(ctx.timeout).await {
            Ok(version) => Check::ok(
                "REST API answers",
                format!("GET /version: the engine's version {version}"),
            ),
            Err(e) => Check::failed(
                "REST API answers",
                Severity::Unknown,
                codes::TARGET_UNREACHABLE,
                format!("{e:#}"),
            ),
        },
    };
    TargetChecks {
        kind: "camunda",
        name: name.to_string(),
        address: api.as_ref().ok().map(|a| a.url.clone()),
        also: Vec::new(),
        used_by: vec!["resolve camunda".into()],
        status: check.status,
        checks: vec![check],
    }
}

/// DBOS's CLI: its program is a file this user may run (found on PATH when named bare).
pub(super) fn dbos(name: &str, argv: &[String]) -> TargetChecks {
    let program = argv.first().map(String::as_str).unwrap_or("");
    let check = match found(program) {
        Some(path) if runnable(&path) => Check::ok("CLI runnable", format!("{}", path.display())),
        Some(path) => Check::failed(
            "CLI runnable",
            Severity::Unknown,
            codes::TARGET_UNREACHABLE,
            format!("{} is not a file this user may run", path.display()),
        ),
        None => Check::failed(
            "CLI runnable",
            Severity::Unknown,
            codes::TARGET_UNREACHABLE,
            format!("{program:?} is not there (name DBOS's CLI of the application's environment under dbos: NAME: cli:)"),
        ),
    };
    TargetChecks {
        kind: "dbos",
        name: name.to_string(),
        address: Some(program.to_string()),
        also: Vec::new(),
        used_by: vec!["resolve dbos".into()],
        status: check.status,
        checks: vec![check],
    }
}

/// The program's path: as named when it holds a `/`, else the first on PATH.
fn found(program: &str) -> Option<PathBuf> {
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let path = PathBuf::from(program);
        return path.exists().then_some(path);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| runnable(p))
    })
}

fn runnable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
