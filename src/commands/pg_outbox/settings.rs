//! `pg outbox`'s arguments, resolved into its settings: the outboxes and inboxes of the
//! config (all, or the one named), each outbox's age pair checked.

use crate::cli::EXIT_CODES_HELP;
use crate::error::hinted;
use crate::settings::pair;
use crate::settings::pg::{inbox, outbox, OutboxSettings};
use crate::settings::targets::Targets;
use crate::units::format_duration;
use anyhow::Result;
use clap::Args;

/// Outbox health: unpublished rows, their age, rows a monotonic-cursor relay skipped; inbox size and age
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct OutboxArgs {
    /// Only this outbox (or inbox) of the config [default: all of them]
    pub name: Option<String>,

    /// How many skipped ids to list
    #[arg(long, value_name = "N", default_value_t = crate::settings::defaults::OUTBOX_SHOW.number() as usize)]
    pub show: usize,
}

pub fn outboxes(t: &Targets, args: OutboxArgs) -> Result<OutboxSettings> {
    let config = &t.config.config;
    if config.outbox.is_empty() && config.inbox.is_empty() {
        return Err(hinted(
            "no outbox or inbox in the config",
            "name them under outbox: and inbox: (see indoubt-config(5))",
        ));
    }
    if let Some(n) = &args.name {
        if !config.outbox.contains_key(n) && !config.inbox.contains_key(n) {
            return Err(hinted(
                format!("no outbox or inbox named {n:?} in the config"),
                "see outbox: and inbox: in the config",
            ));
        }
    }
    let wanted = |name: &str| args.name.as_deref().is_none_or(|n| n == name);
    let mut outboxes = Vec::new();
    for (name, o) in config.outbox.iter().filter(|(n, _)| wanted(n)) {
        let outbox = outbox(t, name, o);
        pair(
            &format!("outbox {name} age"),
            (None, None),
            (&outbox.warning_age, &outbox.critical_age),
            format_duration,
        )?;
        outboxes.push(outbox);
    }
    let inboxes = config
        .inbox
        .iter()
        .filter(|(n, _)| wanted(n))
        .map(|(name, i)| inbox(t, name, i))
        .collect();
    Ok(OutboxSettings {
        outboxes,
        inboxes,
        show: args.show,
        config_file: t.config.path.clone(),
    })
}
