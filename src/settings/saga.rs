//! `saga`'s sagas: each of the config (or those named), its database, table, columns,
//! states, pivot, thresholds, manual queue and lock tables, checked for sense and resolved
//! before anything is read; and `resolve saga`'s.

use super::appdb::Db;
use crate::config::{SagaConfig, SagaLockConfig};
use crate::error::hinted;
use crate::saga::{Layout, Limits, Lock, Queue, Saga, States};
use crate::settings::defaults;
use crate::settings::targets::Targets;
use crate::settings::Setting;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// One run: the sagas it reads.
pub struct SagaSettings {
    pub sagas: Vec<SagaEntry>,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One saga of the config.
pub struct SagaEntry {
    pub name: String,
    /// The config's `postgres:` or `mysql:` as written.
    pub written: String,
    pub db: Db,
    /// What the reads name.
    pub saga: Saga,
    pub stalled_after: Setting<Duration>,
    pub unknown_escalate_after: Setting<Duration>,
    /// The steps in order (`steps:`, else the running states), and the pivot among them.
    pub steps: Vec<String>,
    pub pivot: Option<String>,
    /// The context template, in pieces.
    pub context: Vec<Piece>,
}

/// A piece of the context template.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    /// The value of the layout's context column of this index.
    Column(usize),
}

impl SagaEntry {
    /// Where a statement for its database runs.
    pub fn place(&self) -> String {
        self.db.place(&self.written, "the service")
    }

    pub fn subject(&self) -> String {
        format!("saga {}", self.name)
    }

    /// What a saga row is about: the template with its values (`?` for NULL); None
    /// without a template.
    pub fn context(&self, values: &[Option<String>]) -> Option<String> {
        if self.context.is_empty() {
            return None;
        }
        Some(
            self.context
                .iter()
                .map(|p| match p {
                    Piece::Text(t) => t.clone(),
                    Piece::Column(i) => values
                        .get(*i)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| "?".into()),
                })
                .collect(),
        )
    }

    /// Where `step` (a step value, else the state) is against the pivot: None when there
    /// is no pivot or the value is not among the steps.
    pub fn past_pivot(&self, step: &str) -> Option<bool> {
        let pivot = self.pivot.as_ref()?;
        let at = |s: &str| self.steps.iter().position(|x| x == s);
        Some(at(step)? >= at(pivot)?)
    }

    /// The lock table named `table` (the only one when None).
    pub fn lock(&self, table: Option<&str>) -> Result<&Lock> {
        let locks = &self.saga.locks;
        let names = || {
            locks
                .iter()
                .map(|l| l.table.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (table, locks.len()) {
            (_, 0) => Err(hinted(
                format!("saga {} names no lock table", self.name),
                "name the entities its instances hold under sagas: NAME: locks: (see `man 5 indoubt-config`)",
            )),
            (None, 1) => Ok(&locks[0]),
            (None, _) => Err(hinted(
                format!("saga {} has several lock tables", self.name),
                format!("name one with --lock TABLE (the config names: {})", names()),
            )),
            (Some(t), _) => locks.iter().find(|l| l.table == t).ok_or_else(|| {
                hinted(
                    format!("saga {} has no lock table {t:?}", self.name),
                    format!("the config names: {}", names()),
                )
            }),
        }
    }
}

/// The context template in pieces, and the columns it names (in order, once each).
pub fn template(text: &str) -> Result<(Vec<Piece>, Vec<String>), String> {
    let mut pieces = Vec::new();
    let mut columns: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(format!("a }} with no {{ before it in {text:?}"));
        }
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_string()));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("a {{ with no }} after it in {text:?}"))?;
        let column = &after[..close];
        if column.is_empty() || column.contains('{') {
            return Err(format!("{{{column}}} in {text:?} names no column"));
        }
        let i = match columns.iter().position(|c| c == column) {
            Some(i) => i,
            None => {
                columns.push(column.to_string());
                columns.len() - 1
            }
        };
        pieces.push(Piece::Column(i));
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    Ok((pieces, columns))
}

/// One saga of the config, resolved, or why it makes no sense.
pub fn entry(t: &Targets, name: &str, c: &SagaConfig) -> Result<SagaEntry> {
    let whose = format!("saga {name}");
    let bad = |what: String, hint: &str| Err(hinted(format!("{whose}: {what}"), hint.to_string()));
    let (written, db) = Db::of(t, &whose, (&c.postgres, &c.mysql))?;
    let states = States {
        running: c.states.running.clone(),
        done: c.states.done.clone(),
        failed: c.states.failed.clone(),
        compensating: c.states.compensating.clone(),
        unknown: c.states.unknown.clone(),
    };
    if states.done.is_empty() || states.running.is_empty() {
        return bad(
            "states: running and done each need at least one value".into(),
            "list the state column's values under states: (see `man 5 indoubt-config`)",
        );
    }
    let lists = [
        ("running", &states.running),
        ("done", &states.done),
        ("failed", &states.failed),
        ("compensating", &states.compensating),
        ("unknown", &states.unknown),
    ];
    for (i, (a, list)) in lists.iter().enumerate() {
        for (b, other) in &lists[i + 1..] {
            if let Some(both) = list.iter().find(|v| other.contains(v)) {
                return bad(
                    format!("state {both:?} is listed both as {a} and as {b}"),
                    "a state means one thing: list it once",
                );
            }
        }
    }
    let steps = c.steps.clone().unwrap_or_else(|| states.running.clone());
    if let Some(pivot) = &c.pivot {
        if !steps.contains(pivot) {
            return bad(
                format!(
                    "the pivot {pivot:?} is not among the steps ({})",
                    steps.join(", ")
                ),
                "name the pivot as the step column (or the running states) spells it, or list the steps in order under steps:",
            );
        }
    }
    if c.deadline.is_some() && c.started_at.is_none() {
        return bad(
            "deadline needs started_at (the column of when a saga started)".into(),
            "name the column under started_at:, or drop deadline:",
        );
    }
    if c.max_attempts.is_some() && c.attempts.is_none() {
        return bad(
            "max_attempts needs attempts (the column counting a step's attempts)".into(),
            "name the column under attempts:, or drop max_attempts:",
        );
    }
    let (context, context_columns) = match &c.context {
        Some(text) => template(text).map_err(|why| {
            hinted(
                format!("{whose}: context: {why}"),
                "write each column of the saga table as {column}",
            )
        })?,
        None => (Vec::new(), Vec::new()),
    };
    let mut locks = Vec::new();
    for l in &c.locks {
        locks.push(lock(&whose, l)?);
    }
    let stalled_after = Setting::duration_in(&defaults::SAGA_STALLED_AFTER, name, c.stalled_after);
    let unknown_escalate_after = Setting::duration_in(
        &defaults::SAGA_UNKNOWN_ESCALATE_AFTER,
        name,
        c.unknown_escalate_after,
    );
    let saga = Saga {
        layout: Layout {
            table: c.table.clone(),
            id: c.id.clone(),
            state: c.state.clone(),
            updated_at: c.updated_at.clone(),
            started_at: c.started_at.clone(),
            attempts: c.attempts.clone(),
            step: c.step.clone(),
            context: context_columns,
            states,
        },
        limits: Limits {
            stalled_after: stalled_after.value,
            deadline: c.deadline,
            max_attempts: c.max_attempts,
            unknown_after: unknown_escalate_after.value,
        },
        queue: c.manual_queue.as_ref().map(|q| Queue {
            table: q.table.clone(),
            saga_id: q.saga_id.clone(),
            created_at: q.created_at.clone(),
            resolved_at: q.resolved_at.clone(),
            reason: q.reason.clone(),
        }),
        locks,
    };
    Ok(SagaEntry {
        name: name.to_string(),
        written,
        db,
        saga,
        stalled_after,
        unknown_escalate_after,
        steps,
        pivot: c.pivot.clone(),
        context,
    })
}

fn lock(whose: &str, l: &SagaLockConfig) -> Result<Lock> {
    if l.held.is_empty() {
        return Err(hinted(
            format!("{whose}: lock table {} lists no held state", l.table),
            "list the states that mean a saga holds the entity under held:",
        ));
    }
    if let Some(r) = l.released.as_ref().filter(|r| l.held.contains(r)) {
        return Err(hinted(
            format!(
                "{whose}: lock table {}: released state {r:?} is also a held one",
                l.table
            ),
            "released: names the state an entity is free in",
        ));
    }
    Ok(Lock {
        table: l.table.clone(),
        id: l.id.clone(),
        state: l.state.clone(),
        held: l.held.clone(),
        saga_id: l.saga_id.clone(),
        released: l.released.clone(),
        version: l.version.clone(),
    })
}

/// The sagas a run reads: those named, else every one of the config.
pub fn settings(t: &Targets, names: &[String]) -> Result<SagaSettings> {
    let config = &t.config.config;
    if config.sagas.is_empty() {
        return Err(hinted(
            "no saga in the config",
            "name each under sagas: with the postgres or mysql target of its database, its table and its states (see `man 5 indoubt-config`)",
        ));
    }
    for n in names {
        if !config.sagas.contains_key(n) {
            let known: Vec<&str> = config.sagas.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no saga named {n:?} in the config"),
                format!("the config names: {}", known.join(", ")),
            ));
        }
    }
    let mut sagas = Vec::new();
    for (n, c) in &config.sagas {
        if !names.is_empty() && !names.contains(n) {
            continue;
        }
        sagas.push(entry(t, n, c)?);
    }
    Ok(SagaSettings {
        sagas,
        config_file: t.config.path.clone(),
    })
}

/// What `resolve saga` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SagaAction {
    /// Raise each saga in the manual queue.
    Escalate,
    /// Set each orphaned entity of a lock table back to its released state.
    Release,
}

/// `resolve saga`: the saga, the action, the ids (sagas, or entities of `lock`).
pub struct ResolveSagaSettings {
    pub saga: SagaEntry,
    pub action: SagaAction,
    pub ids: Vec<String>,
    /// The lock table's index in the saga's locks (release).
    pub lock: Option<usize>,
    pub confirm: super::resolution::Confirm,
}

pub fn resolve_saga(t: &Targets, args: crate::cli::ResolveSagaArgs) -> Result<ResolveSagaSettings> {
    let saga = settings(t, std::slice::from_ref(&args.name))?
        .sagas
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no saga named {:?}", args.name))?;
    let action = match (args.escalate, args.release) {
        (true, false) => SagaAction::Escalate,
        (false, true) => SagaAction::Release,
        _ => {
            return Err(hinted(
                "resolve saga needs --escalate or --release",
                "--escalate ID… raises sagas in the manual queue; --release ID… frees entities their saga no longer needs",
            ))
        }
    };
    let lock = match action {
        SagaAction::Release => {
            let lock = saga.lock(args.lock.as_deref())?;
            if lock.released.is_none() {
                return Err(hinted(
                    format!(
                        "saga {}: lock table {} names no released state",
                        saga.name, lock.table
                    ),
                    "name the state a free entity is in under locks: - released: (see `man 5 indoubt-config`)",
                ));
            }
            saga.saga.locks.iter().position(|l| l.table == lock.table)
        }
        SagaAction::Escalate => {
            if args.lock.is_some() {
                return Err(hinted(
                    "--lock goes with --release",
                    "drop --lock: --escalate names sagas",
                ));
            }
            if saga.saga.queue.is_none() {
                return Err(hinted(
                    format!("saga {} names no manual queue", saga.name),
                    "name the table a person works stuck sagas from under sagas: NAME: manual_queue: (see `man 5 indoubt-config`)",
                ));
            }
            None
        }
    };
    Ok(ResolveSagaSettings {
        saga,
        action,
        ids: args.ids,
        lock,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_template_names_columns_once_and_keeps_its_text() {
        let (pieces, columns) =
            template("order {order_id}: refund {amount} {currency} ({order_id})").unwrap();
        assert_eq!(columns, ["order_id", "amount", "currency"]);
        assert_eq!(pieces[0], Piece::Text("order ".into()));
        assert_eq!(pieces[1], Piece::Column(0));
        assert_eq!(pieces.last(), Some(&Piece::Text(")".into())));
        assert!(template("order {order_id").is_err());
        assert!(template("order }").is_err());
        assert!(template("order {}").is_err());
    }
}
