//! The resolved settings of `mysql xa`: the server, how next commands address it, and
//! the age and history-list thresholds, each pair checked (resolved from its arguments in
//! its folder, `settings.rs`); how a next command addresses a MySQL server.

use super::addressing::Addressing;
use super::targets::{MysqlTarget, Targets};
use crate::cli::MysqlTargetArgs;
use std::time::Duration;

/// `mysql xa`.
pub struct MysqlXaSettings {
    pub target: MysqlTarget,
    pub addressing: Addressing,
    /// Branch age: warning, critical (the `pg prepared` thresholds).
    pub age: (Duration, Duration),
    /// History list length: warning, critical.
    pub history: (u64, u64),
}

/// How a next command reaches this server again: the config's name, else the URL as
/// resolved (never a password: the next command reads the same option file or
/// MYSQL_PWD), then the flags given.
pub fn addressing(t: &Targets, args: &MysqlTargetArgs, target: &MysqlTarget) -> Addressing {
    let mut flags: Vec<(&'static str, String)> = vec![(
        "--mysql",
        target
            .name
            .clone()
            .unwrap_or_else(|| target.params.describe()),
    )];
    if let Some(file) = &args.defaults_file {
        flags.push(("--defaults-file", file.display().to_string()));
    }
    // A URL's own ssl-mode and ssl-ca are not in its description: given as flags.
    let from_url = target.name.is_none();
    let p = &target.params;
    match (
        &args.ssl_mode,
        from_url && p.ssl_mode != crate::mysql::params::SslMode::Preferred,
    ) {
        (Some(mode), _) => flags.push(("--ssl-mode", mode.clone())),
        (None, true) => flags.push(("--ssl-mode", p.ssl_mode.as_str().to_string())),
        (None, false) => {}
    }
    match (
        &args.ssl_ca,
        from_url.then_some(p.ssl_ca.as_ref()).flatten(),
    ) {
        (Some(ca), _) | (None, Some(ca)) => flags.push(("--ssl-ca", ca.display().to_string())),
        (None, None) => {}
    }
    Addressing::with_flags(&t.ctx.invocation, flags)
}
