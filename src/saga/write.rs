//! The two writes indoubt makes in a saga's database, each one statement whose own
//! condition is its guard: an item in the manual queue (only while the saga has no open
//! one: run twice, it inserts once) and an orphaned entity set back to its released state
//! (only while it is still held by the same saga, at the same version).

use super::read::Bump;
use super::spell::Spell;
use super::{Lock, Saga};
use crate::appdb::Dialect;
use crate::quote::Sql;

/// Inserts the saga `id` into the manual queue with `reason`, unless it has an open item
/// there. The id is taken from the saga's own row (so its type is the column's, and a
/// saga that is not there inserts nothing). None without a queue.
pub fn escalate(dialect: Dialect, saga: &Saga, id: &str, reason: &str) -> Option<Sql> {
    let q = saga.queue.as_ref()?;
    let s = Spell(dialect);
    let l = &saga.layout;
    let now = match dialect {
        Dialect::Postgres => "now()",
        Dialect::Mysql => "NOW(6)",
    };
    let mut columns = vec![s.col("", &q.saga_id), s.col("", &q.created_at)];
    let mut values = vec![s.col("s", &l.id), now.to_string()];
    if let Some(r) = &q.reason {
        columns.push(s.col("", r));
        values.push(s.lit(reason));
    }
    let open = match &q.resolved_at {
        Some(r) => format!(" AND {} IS NULL", s.col("q", r)),
        None => String::new(),
    };
    // Two escalations at once would both find no open item: on PostgreSQL the queue is
    // locked against other writers first (SHARE ROW EXCLUSIVE conflicts with itself), so
    // the second reads the first's item. (On MySQL the race is left: indoubt-saga(1).)
    let serialize = match dialect {
        Dialect::Postgres => format!(
            "LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE; ",
            s.table(&q.table)
        ),
        Dialect::Mysql => String::new(),
    };
    Some(written(dialect, format!(
        "{serialize}INSERT INTO {} ({}) SELECT {} FROM {} s WHERE {} = {} AND NOT EXISTS (SELECT 1 FROM {} q WHERE {} = {}{open});",
        s.table(&q.table),
        columns.join(", "),
        values.join(", "),
        s.table(&l.table),
        s.col("s", &l.id),
        s.lit(id),
        s.table(&q.table),
        s.col("q", &q.saga_id),
        s.col("s", &l.id),
    )))
}

/// Sets the entity `id` back to the lock's released state, clears its saga and moves its
/// version on (`bump`), only while it is held by `saga_id` (None: by no saga) at
/// `version` (the guard column's value read, when the lock has one). None when the lock
/// names no released state.
pub fn release(
    dialect: Dialect,
    lock: &Lock,
    id: &str,
    (saga_id, version): (Option<&str>, Option<&str>),
    bump: Bump,
) -> Option<Sql> {
    let released = lock.released.as_ref()?;
    let s = Spell(dialect);
    let by = match saga_id {
        Some(saga) => format!("{} = {}", s.col("", &lock.saga_id), s.lit(saga)),
        None => format!("{} IS NULL", s.col("", &lock.saga_id)),
    };
    let at = match (&lock.version, version) {
        (Some(column), Some(v)) => format!(" AND {} = {}", s.text(&s.col("", column)), s.lit(v)),
        (Some(column), None) => format!(" AND {} IS NULL", s.col("", column)),
        (None, _) => String::new(),
    };
    let moved = match (&lock.version, bump) {
        (Some(v), Bump::Counter) => format!(", {} = {} + 1", s.col("", v), s.col("", v)),
        (Some(v), Bump::Clock(kind)) => format!(", {} = {}", s.col("", v), s.now(kind)),
        _ => String::new(),
    };
    Some(written(
        dialect,
        format!(
            "UPDATE {} SET {} = {}, {} = NULL{moved} WHERE {} = {} AND {} AND {by}{at};",
            s.table(&lock.table),
            s.col("", &lock.state),
            s.lit(released),
            s.col("", &lock.saga_id),
            s.col("", &lock.id),
            s.lit(id),
            s.is_in(&s.col("", &lock.state), &lock.held),
        ),
    ))
}

/// One statement as it runs: on PostgreSQL in its own `BEGIN READ WRITE` (indoubt's
/// sessions are read-only until a write asks otherwise); on MySQL it commits itself.
fn written(dialect: Dialect, statement: String) -> Sql {
    Sql::assembled(match dialect {
        Dialect::Postgres => format!("BEGIN READ WRITE; {statement} COMMIT;"),
        Dialect::Mysql => statement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::saga::{Layout, Limits, Queue, States};
    use std::time::Duration;

    fn saga() -> Saga {
        Saga {
            layout: Layout {
                table: "public.order_saga".into(),
                id: "id".into(),
                state: "state".into(),
                updated_at: "updated_at".into(),
                started_at: None,
                attempts: None,
                step: None,
                context: vec![],
                states: States {
                    done: vec!["COMPLETED".into()],
                    ..States::default()
                },
            },
            limits: Limits {
                stalled_after: Duration::from_secs(600),
                deadline: None,
                max_attempts: None,
                unknown_after: Duration::from_secs(900),
            },
            queue: Some(Queue {
                table: "saga_manual_intervention".into(),
                saga_id: "saga_id".into(),
                created_at: "created_at".into(),
                resolved_at: Some("resolved_at".into()),
                reason: Some("reason".into()),
            }),
            locks: vec![Lock {
                table: "seats".into(),
                id: "id".into(),
                state: "state".into(),
                held: vec!["HELD".into()],
                saga_id: "saga_id".into(),
                released: Some("FREE".into()),
                version: Some("version".into()),
            }],
        }
    }

    /// Whatever an id, a reason or a version holds, it stays one literal: the statement's
    /// guard is the whole of its WHERE.
    #[test]
    fn the_writes_guard_themselves_and_quote_what_they_were_given() {
        let s = saga();
        assert_eq!(
            escalate(Dialect::Postgres, &s, "42", "it's stuck").unwrap().as_str(),
            "BEGIN READ WRITE; LOCK TABLE \"saga_manual_intervention\" IN SHARE ROW EXCLUSIVE MODE; INSERT INTO \"saga_manual_intervention\" (\"saga_id\", \"created_at\", \"reason\") SELECT s.\"id\", now(), 'it''s stuck' FROM \"public\".\"order_saga\" s WHERE s.\"id\" = '42' AND NOT EXISTS (SELECT 1 FROM \"saga_manual_intervention\" q WHERE q.\"saga_id\" = s.\"id\" AND q.\"resolved_at\" IS NULL); COMMIT;"
        );
        assert_eq!(
            release(Dialect::Mysql, &s.locks[0], "7'; DROP", (Some("42"), Some("3")), Bump::Counter).unwrap().as_str(),
            "UPDATE `seats` SET `state` = 'FREE', `saga_id` = NULL, `version` = `version` + 1 WHERE `id` = _utf8mb4 X'37273B2044524F50' AND `state` IN ('HELD') AND `saga_id` = '42' AND CAST(`version` AS CHAR) = '3';"
        );
        assert!(release(
            Dialect::Postgres,
            &s.locks[0],
            "7",
            (None, None),
            Bump::Untouched
        )
        .unwrap()
        .as_str()
        .ends_with("AND \"saga_id\" IS NULL AND \"version\" IS NULL; COMMIT;"));
    }
}
