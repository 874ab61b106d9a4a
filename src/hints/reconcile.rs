//! The hints of reconcile's typed errors: what to change in the query, the id source or
//! the run's flags (the library names none of them).

use crate::kafka::fetch::LogStartMoved;
use crate::reconcile::db::{QueryError, RowTooLarge, TimeKind};
use crate::reconcile::ids::{IdPlace, IdTooLong, MAX_ID_BYTES};
use crate::reconcile::spill::OutOfSpace;
use crate::reconcile::topic::RetentionCut;

/// The hint of a typed failure of a reconcile run, None for any other error.
pub(super) fn hint(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    if let Some(e) = e.downcast_ref::<QueryError>() {
        return Some(query_hint(e));
    }
    if let Some(e) = e.downcast_ref::<IdTooLong>() {
        return Some(match &e.place {
            IdPlace::Row { column, .. } => format!(
                "the id column ({column:?}) must hold an identifier, not a document: check the query, or leave such rows out (… WHERE octet_length({column}) <= {MAX_ID_BYTES})"
            ),
            IdPlace::Message { .. } => "--id-from says where a message's id is (key, header:NAME or json:/pointer): check that it picks the id, not a payload".to_string(),
        });
    }
    // reconcile::db attaches this one as the context of the guard's error, and a
    // context is not among the errors the chain walk downcasts: like the Hinted context
    // it replaced, it is not found, so this hint is not shown (yet).
    if e.is::<RowTooLarge>() {
        return Some(format!(
            "a row holds an id (at most {MAX_ID_BYTES} bytes) and its time: check that the query selects the id, not a document"
        ));
    }
    if e.is::<OutOfSpace>() {
        return Some("free space there, give --spill-dir a file system with room (about 16 bytes per id past the memory budget), or raise --memory (at most 1GiB)".to_string());
    }
    if e.is::<RetentionCut>() {
        return Some(
            "run it again: the window's start is then judged against what is kept".to_string(),
        );
    }
    if e.is::<LogStartMoved>() {
        return Some("run again; a later --since avoids the first".to_string());
    }
    None
}

fn query_hint(e: &QueryError) -> String {
    match e {
        QueryError::Parameters { .. } => "e.g. … WHERE created_at >= $1 AND created_at < $2: rows outside the window would be reported missing".to_string(),
        QueryError::ParameterType { n, .. } => {
            format!("compare it with a timestamptz column, or write ${n}::timestamptz")
        }
        QueryError::NoColumns => {
            "select the id first, then the row's time: SELECT id, created_at FROM …".to_string()
        }
        QueryError::IdType { column, .. } => format!(
            "cast it in the query: {column}::text (exact for numeric, uuid and any other type), or {column}::bigint"
        ),
        QueryError::TimeType { column, kind, .. } => match kind {
            TimeKind::Timestamp => format!(
                "a timestamp without time zone has no instant: say which zone it holds, e.g. {column} AT TIME ZONE 'UTC'"
            ),
            TimeKind::Date => format!("cast it in the query: {column}::timestamptz"),
            TimeKind::Other => format!(
                "return the row's time as timestamptz second ({column}::timestamptz), or drop the column (then no row counts as pending)"
            ),
        },
        QueryError::NullId { column, .. } => format!(
            "leave such rows out of the query: … WHERE {column} IS NOT NULL (or COALESCE them to a placeholder you will recognise)"
        ),
    }
}
