//! An AT client's undo log (`undo_log`, in the business database) on PostgreSQL or
//! MySQL/MariaDB: the before and after images a branch wrote, decoded where the serializer is readable
//! (Jackson, uncompressed or gzip), and the rows as they are now, compared the way
//! Seata's rollback compares them (`AbstractUndoExecutor.dataValidationAndGoOn`): the row
//! still as the branch left it can be rolled back; one already as before needs nothing;
//! any other is a dirty write the rollback refuses.

use super::store::Problem;
use crate::appdb::{local_time, mysql_number, mysql_xids, Dialect, Session};
use crate::mysql::session::{bytes, int, text};
use crate::mysql::tables::{hex, identifier, qualified};
use crate::quote;
use anyhow::Result;
use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

/// The columns Seata's `undo_log` has (1.x and 2.x).
pub const COLUMNS: [&str; 7] = [
    "branch_id",
    "xid",
    "context",
    "rollback_info",
    "log_status",
    "log_created",
    "log_modified",
];

/// One branch's undo log.
#[derive(Debug, Clone, Serialize)]
pub struct UndoLog {
    pub xid: String,
    pub branch_id: i64,
    /// 0 normal, 1 a defense record (a rollback that came before the branch's local
    /// commit: nothing to undo).
    pub log_status: i32,
    pub created_local: Option<NaiveDateTime>,
    /// Its `context` as written (`serializer=jackson&compressorType=NONE`).
    pub context: String,
    /// The md5 of its `rollback_info`: what a statement that deletes it checks first.
    #[serde(skip)]
    pub digest: String,
    /// The images, or why they cannot be read (`{"unreadable": why}` in JSON).
    #[serde(serialize_with = "images_or_why")]
    pub images: Result<Vec<TableImages>, String>,
}

fn images_or_why<S: serde::Serializer>(
    images: &Result<Vec<TableImages>, String>,
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Unreadable<'a> {
        unreadable: &'a str,
    }
    match images {
        Ok(images) => images.serialize(s),
        Err(why) => Unreadable { unreadable: why }.serialize(s),
    }
}

/// What one statement of the branch changed in one table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableImages {
    /// INSERT, UPDATE or DELETE.
    pub sql_type: String,
    pub table: String,
    pub before: Vec<ImageRow>,
    pub after: Vec<ImageRow>,
}

/// A row as an image holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageRow {
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    pub name: String,
    pub primary_key: bool,
    pub value: ImageValue,
}

/// A value as Jackson wrote it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ImageValue {
    Null,
    Text(String),
    /// A number, as written (compared by value, as Seata compares numbers).
    Number(String),
    Bool(bool),
    /// A type indoubt does not compare (a timestamp, bytes, …): its Java class.
    Other(String),
}

impl ImageValue {
    /// The text of a literal of it (as PostgreSQL takes it in a quoted literal); None
    /// when it cannot be one.
    pub fn literal(&self) -> Option<String> {
        match self {
            ImageValue::Text(s) | ImageValue::Number(s) => Some(s.clone()),
            ImageValue::Bool(b) => Some(b.to_string()),
            ImageValue::Null | ImageValue::Other(_) => None,
        }
    }

    /// As a literal of the dialect: PostgreSQL's quoted text (typed by the server as its
    /// column is); MySQL's number bare, text as `Sql::mysql_text`, a boolean as TRUE or
    /// FALSE. None when it cannot be one.
    pub fn sql(&self, dialect: Dialect) -> Option<String> {
        match (dialect, self) {
            (Dialect::Postgres, v) => v.literal().map(|l| quote::sql_literal(&l)),
            (Dialect::Mysql, ImageValue::Number(n)) => mysql_number(n),
            (Dialect::Mysql, ImageValue::Text(t)) => Some(crate::appdb::mysql_char(t)),
            (Dialect::Mysql, ImageValue::Bool(b)) => Some(b.to_string().to_uppercase()),
            (Dialect::Mysql, ImageValue::Null | ImageValue::Other(_)) => None,
        }
    }

    /// Whether a column's value now (PostgreSQL's text of it, None for NULL) is this.
    /// None: not comparable here.
    pub fn same_as(&self, now: Option<&str>) -> Option<bool> {
        Some(match (self, now) {
            (ImageValue::Null, now) => now.is_none(),
            (_, None) => false,
            (ImageValue::Text(s), Some(now)) => s == now,
            // PostgreSQL's boolean; MySQL's tinyint(1), which JDBC reads as one.
            (ImageValue::Bool(b), Some(now)) => match now {
                "t" | "true" | "1" => *b,
                "f" | "false" | "0" => !*b,
                _ => return None,
            },
            (ImageValue::Number(n), Some(now)) => same_number(n, now)?,
            (ImageValue::Other(_), Some(_)) => return None,
        })
    }

    /// As an operator reads it.
    pub fn shown(&self) -> String {
        match self {
            ImageValue::Null => "NULL".into(),
            ImageValue::Text(s) => format!("{s:?}"),
            ImageValue::Number(n) => n.clone(),
            ImageValue::Bool(b) => b.to_string(),
            ImageValue::Other(class) => format!("({class})"),
        }
    }
}

/// Two numbers' texts, equal by value (`90.0` is `90.00`): exactly for integers, else
/// as decimals; None when either is not a number.
fn same_number(a: &str, b: &str) -> Option<bool> {
    if let (Ok(x), Ok(y)) = (a.parse::<i128>(), b.parse::<i128>()) {
        return Some(x == y);
    }
    let (x, y) = (decimal(a)?, decimal(b)?);
    Some(x == y)
}

/// A decimal's digits and exponent, normalised (`90.00` and `9E+1` are the same).
fn decimal(s: &str) -> Option<(bool, String, i64)> {
    let s = s.trim();
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i64>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let exponent = exponent - frac.len() as i64;
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        return Some((false, String::new(), 0));
    }
    let significant = trimmed.trim_end_matches('0');
    let exponent = exponent + (trimmed.len() - significant.len()) as i64;
    Some((negative, significant.to_string(), exponent))
}

/// Decodes `rollback_info` by its `context`; the reason when it cannot.
pub fn decode(context: &str, rollback_info: &[u8]) -> Result<Vec<TableImages>, String> {
    let setting = |key: &str| {
        context
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    };
    let serializer = setting("serializer").unwrap_or("jackson");
    let compressor = setting("compressorType").unwrap_or("NONE");
    let bytes = match compressor {
        "NONE" => rollback_info.to_vec(),
        "GZIP" => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(rollback_info)
                .read_to_end(&mut out)
                .map_err(|e| format!("its gzip does not decompress: {e}"))?;
            out
        }
        other => {
            return Err(format!(
                "compressed with {other}, which indoubt does not read"
            ))
        }
    };
    if serializer != "jackson" {
        return Err(format!(
            "written by the {serializer} serializer, which indoubt does not read (Jackson only)"
        ));
    }
    let json = Json::parse(&bytes).map_err(|e| format!("not Jackson's JSON: {e}"))?;
    images_of(&json).ok_or_else(|| "not a BranchUndoLog as Seata 1.x/2.x writes it".into())
}

/// A JSON value whose numbers keep their text as written: Jackson writes a BigDecimal
/// exactly (`1.000000000000000001`), which a float would round.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    List(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    fn parse(bytes: &[u8]) -> Result<Json, serde_json::Error> {
        let raw: &RawValue = serde_json::from_slice(bytes)?;
        Json::of(raw)
    }

    /// Each level read as raw values, so a number is never parsed as one.
    fn of(raw: &RawValue) -> Result<Json, serde_json::Error> {
        let text = raw.get().trim_start();
        Ok(match text.as_bytes().first() {
            Some(b'{') => {
                let map: BTreeMap<String, &RawValue> = serde_json::from_str(text)?;
                Json::Object(
                    map.into_iter()
                        .map(|(k, v)| Ok((k, Json::of(v)?)))
                        .collect::<Result<_, serde_json::Error>>()?,
                )
            }
            Some(b'[') => {
                let list: Vec<&RawValue> = serde_json::from_str(text)?;
                Json::List(list.into_iter().map(Json::of).collect::<Result<_, _>>()?)
            }
            Some(b'"') => Json::Text(serde_json::from_str(text)?),
            Some(b't' | b'f') => Json::Bool(serde_json::from_str(text)?),
            Some(b'n') => Json::Null,
            _ => Json::Number(text.trim_end().to_string()),
        })
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => map.get(key),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// Jackson's typed values: `["java.util.ArrayList", [...]]`, `["java.lang.Long", 1]`.
fn untyped(v: &Json) -> (Option<&str>, &Json) {
    match v {
        Json::List(items) => match items.as_slice() {
            [Json::Text(class), inner] if class.contains('.') || class.starts_with('[') => {
                (Some(class.as_str()), inner)
            }
            _ => (None, v),
        },
        _ => (None, v),
    }
}

fn list(v: &Json) -> Option<&Vec<Json>> {
    match untyped(v).1 {
        Json::List(items) => Some(items),
        _ => None,
    }
}

fn images_of(json: &Json) -> Option<Vec<TableImages>> {
    list(json.get("sqlUndoLogs")?)?
        .iter()
        .map(|log| {
            let rows = |key: &str| -> Option<Vec<ImageRow>> {
                match log.get(key) {
                    None | Some(Json::Null) => Some(Vec::new()),
                    Some(image) => list(image.get("rows")?)?.iter().map(row_of).collect(),
                }
            };
            Some(TableImages {
                sql_type: log.get("sqlType")?.as_str()?.to_string(),
                table: log.get("tableName")?.as_str()?.to_string(),
                before: rows("beforeImage")?,
                after: rows("afterImage")?,
            })
        })
        .collect()
}

fn row_of(row: &Json) -> Option<ImageRow> {
    let fields = list(row.get("fields")?)?
        .iter()
        .map(|f| {
            Some(Field {
                name: f.get("name")?.as_str()?.to_string(),
                primary_key: f.get("keyType").and_then(Json::as_str) == Some("PRIMARY_KEY"),
                value: value_of(f.get("value").unwrap_or(&Json::Null)),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(ImageRow { fields })
}

fn value_of(v: &Json) -> ImageValue {
    let (class, inner) = untyped(v);
    match (class, inner) {
        (_, Json::Null) => ImageValue::Null,
        (None | Some("java.lang.String"), Json::Text(s)) => ImageValue::Text(s.clone()),
        (_, Json::Number(n)) => ImageValue::Number(n.clone()),
        (_, Json::Bool(b)) => ImageValue::Bool(*b),
        (Some(class), _) => ImageValue::Other(class.to_string()),
        (None, _) => ImageValue::Other("?".into()),
    }
}

/// Whether the undo log table can be read.
pub async fn inspect(session: &mut Session, table: &str) -> Result<Vec<Problem>> {
    session.table_problems(&[(table, &COLUMNS)]).await
}

/// What an undo log's reads select, in both dialects (md5 is the same hex in each).
const SELECTED: &str =
    "xid, branch_id, log_status, log_created, context, rollback_info, md5(rollback_info)";

/// A MySQL row of `SELECTED`.
fn mysql_undo_log(r: &mysql_async::Row) -> UndoLog {
    let context = text(r, 4).unwrap_or_default();
    let info = bytes(r, 5).unwrap_or_default();
    UndoLog {
        xid: text(r, 0).unwrap_or_default(),
        branch_id: int(r, 1).unwrap_or_default(),
        log_status: int(r, 2).unwrap_or_default() as i32,
        created_local: local_time(r, 3),
        images: decode(&context, &info),
        context,
        digest: text(r, 6).unwrap_or_default(),
    }
}

/// The undo logs of these global transactions (by the unique index on xid, branch_id).
pub async fn of_globals(
    session: &mut Session,
    table: &str,
    xids: &[String],
) -> Result<Vec<UndoLog>> {
    if xids.is_empty() {
        return Ok(Vec::new());
    }
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => {
            let sql = format!(
                "SELECT {SELECTED} FROM {} WHERE xid IN ({}) ORDER BY xid, branch_id",
                qualified(table),
                mysql_xids(xids)
            );
            return Ok(s.rows(&sql).await?.iter().map(mysql_undo_log).collect());
        }
    };
    let sql = format!(
        "SELECT {SELECTED} FROM {}
WHERE xid = ANY($1::text[]) ORDER BY xid, branch_id",
        quote::qualified(table)
    );
    session
        .query(&sql, &[&xids])
        .await?
        .iter()
        .map(undo_log)
        .collect()
}

/// A row of `xid, branch_id, log_status, log_created, context, rollback_info, md5`.
fn undo_log(r: &tokio_postgres::Row) -> Result<UndoLog> {
    let context: String = r.try_get(4)?;
    let info: Vec<u8> = r.try_get(5)?;
    Ok(UndoLog {
        xid: r.try_get(0)?,
        branch_id: r.try_get(1)?,
        log_status: r.try_get(2)?,
        created_local: r.try_get(3)?,
        images: decode(&context, &info),
        context,
        digest: r.try_get(6)?,
    })
}

/// The global transactions with undo logs older than `older_than` seconds by the
/// database's clock: (xid, records, the oldest's time), oldest first, at most `limit`.
/// Which of them the store no longer has is the caller's to ask.
pub async fn old_globals(
    session: &mut Session,
    table: &str,
    older_than: f64,
    limit: i64,
) -> Result<Vec<(String, i64, Option<NaiveDateTime>)>> {
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => {
            let micros = (older_than * 1e6) as i64;
            let sql = format!(
                "SELECT xid, count(*), min(log_created) FROM {}
WHERE log_created < NOW(6) - INTERVAL {micros} MICROSECOND
GROUP BY xid ORDER BY min(log_created), xid LIMIT {limit}",
                qualified(table)
            );
            return Ok(s
                .rows(&sql)
                .await?
                .iter()
                .map(|r| {
                    let xid = text(r, 0).unwrap_or_default();
                    (xid, int(r, 1).unwrap_or(0), local_time(r, 2))
                })
                .collect());
        }
    };
    let sql = format!(
        "SELECT xid, count(*), min(log_created) FROM {}
WHERE log_created < localtimestamp - make_interval(secs => $1)
GROUP BY xid ORDER BY min(log_created), xid LIMIT $2",
        quote::qualified(table)
    );
    session
        .query(&sql, &[&older_than, &limit])
        .await?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
        .collect()
}

/// The statement that lists these globals' undo logs, oldest first: read-only, to paste
/// where the undo log is.
pub fn orphans_statement(dialect: Dialect, table: &str, xids: &[&str]) -> Option<quote::Sql> {
    let select = quote::Sql::new("SELECT xid, branch_id, log_status, log_created FROM ");
    let mut sql = match dialect {
        Dialect::Postgres => select.qualified(table),
        Dialect::Mysql => select.mysql_qualified(table)?,
    }
    .push(" WHERE xid IN (");
    for (i, xid) in xids.iter().enumerate() {
        if i > 0 {
            sql = sql.push(", ");
        }
        sql = match dialect {
            Dialect::Postgres => sql.literal(xid.as_bytes()),
            Dialect::Mysql => sql.mysql_text(xid),
        };
    }
    Some(sql.push(") ORDER BY log_created, xid;"))
}

/// One image row checked against the row as it is now.
#[derive(Debug, Clone, Serialize)]
pub struct RowCheck {
    pub table: String,
    /// The primary key, `column=value` joined by `, `.
    pub key: String,
    pub now: Now,
    /// The row as read, for a statement that writes it back (not in JSON: `now` says
    /// what differs).
    #[serde(skip)]
    pub read: Option<ReadRow>,
    /// Which statement of the undo log (its `sqlUndoLogs` index) the row is of.
    #[serde(skip)]
    pub statement: usize,
}

/// A row as read: its key's columns and values (the image's), and every image column's
/// value now (the database's text of it, None for NULL).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRow {
    pub key: Vec<(String, ImageValue)>,
    pub now: Vec<(String, Option<String>)>,
}

impl ReadRow {
    /// Its key as the lock table's `pk` writes it (values joined by `_`).
    pub fn lock_key(&self) -> String {
        let values: Vec<String> = self.key.iter().filter_map(|(_, v)| v.literal()).collect();
        values.join("_")
    }
}

/// The row now, against the branch's images.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "now", rename_all = "snake_case")]
pub enum Now {
    /// As the branch left it (its after image): the rollback can restore it.
    AsAfter,
    /// As it was before the branch (its before image): nothing left to undo.
    AsBefore,
    /// Changed since the branch by someone else: the rollback refuses it.
    Changed { columns: Vec<ChangedColumn> },
    /// The row the branch updated is not there: deleted since, a dirty write the
    /// rollback refuses too.
    Deleted,
    /// As before the branch, while other rows of its statement are not: Seata compares a
    /// statement's rows together, so its rollback refuses this one too.
    Reverted,
    /// Not compared, and why (a key or value of a type indoubt does not compare, a
    /// table it cannot read).
    NotCompared { why: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedColumn {
    pub column: String,
    /// What the branch wrote.
    pub after: String,
    /// What is there now (`NULL` for null).
    pub now: String,
}

/// A row's primary key as the coordinator's lock table writes it (`pk`): the key's
/// values joined by `_`; None when a key value is not one indoubt can write.
fn lock_key(row: &ImageRow) -> Option<String> {
    let values: Option<Vec<String>> = row
        .fields
        .iter()
        .filter(|f| f.primary_key)
        .map(|f| f.value.literal())
        .collect();
    values.filter(|v| !v.is_empty()).map(|v| v.join("_"))
}

/// The rows a statement's undo reads: the before image's, or the after image's for an
/// INSERT.
fn keyed(t: &TableImages) -> &[ImageRow] {
    match t.sql_type.as_str() {
        "INSERT" => &t.after,
        _ => &t.before,
    }
}

/// Each row of a branch's images (at most `sample` of them) against the table now, and
/// how many rows they hold. Only rows the coordinator's lock table says the branch locks
/// are read (`locked`: table and `pk` as it writes them, exactly): an undo log is written
/// by whoever can write the business database, and what it names must not make indoubt
/// read and print any other row. The after image's row is the one with the same key
/// (Seata pairs them by key, not by position). Seata judges each statement's rows
/// together (`dataValidationAndGoOn`): all as the branch left them, or all as before;
/// so a row already as before, beside rows as the branch left them or changed, holds
/// the rollback up too (`Reverted`). A row the branch changed in more than one
/// statement is undone in turn, statement by statement: not compared here.
pub async fn check_rows(
    session: &mut Session,
    images: &[TableImages],
    locked: &BTreeSet<(String, String)>,
    sample: usize,
) -> Result<(Vec<RowCheck>, usize)> {
    let mut statements_of: BTreeMap<(String, String), usize> = BTreeMap::new();
    for t in images {
        for key in keyed(t).iter().filter_map(lock_key) {
            *statements_of.entry((t.table.clone(), key)).or_default() += 1;
        }
    }
    let mut checks = Vec::new();
    let mut rows = 0;
    for (statement, t) in images.iter().enumerate() {
        let mut these = Vec::new();
        for row in keyed(t) {
            rows += 1;
            if checks.len() + these.len() >= sample {
                continue;
            }
            let key = lock_key(row);
            let not_compared = |why: &str| RowCheck {
                table: t.table.clone(),
                key: key_text(row),
                now: Now::NotCompared { why: why.into() },
                read: None,
                statement,
            };
            let at = key.clone().map(|k| (t.table.clone(), k));
            if !at.as_ref().is_some_and(|at| locked.contains(at)) {
                these.push(not_compared("the coordinator's lock table (as read) holds no lock of this branch on this row: not read"));
                continue;
            }
            if at.and_then(|at| statements_of.get(&at).copied()) > Some(1) {
                these.push(not_compared("the branch changed it in more than one statement, which its rollback undoes in turn: not compared"));
                continue;
            }
            let after = t.after.iter().find(|a| lock_key(a) == key);
            let before = t.before.iter().find(|b| lock_key(b) == key);
            if t.sql_type == "UPDATE" && after.is_none() {
                these.push(not_compared(
                    "its after image has no row with this key: not compared",
                ));
                continue;
            }
            let mut check = check_row(session, &t.sql_type, &t.table, row, before, after).await?;
            check.statement = statement;
            these.push(check);
        }
        // Rows of one statement are judged together: one as before beside others that
        // are not is refused as well.
        if these
            .iter()
            .any(|c| matches!(c.now, Now::AsAfter | Now::Changed { .. } | Now::Deleted))
        {
            for c in these.iter_mut().filter(|c| c.now == Now::AsBefore) {
                c.now = Now::Reverted;
            }
        }
        checks.extend(these);
    }
    Ok((checks, rows))
}

/// `column=value` of a row's primary key, joined by `, `.
pub fn key_text(row: &ImageRow) -> String {
    row.fields
        .iter()
        .filter(|f| f.primary_key)
        .map(|f| format!("{}={}", f.name, f.value.shown()))
        .collect::<Vec<_>>()
        .join(", ")
}

async fn check_row(
    session: &mut Session,
    sql_type: &str,
    table: &str,
    keyed: &ImageRow,
    before: Option<&ImageRow>,
    after: Option<&ImageRow>,
) -> Result<RowCheck> {
    let keys: Vec<&Field> = keyed.fields.iter().filter(|f| f.primary_key).collect();
    let key = key_text(keyed);
    let done = |now| RowCheck {
        table: table.to_string(),
        key: key.clone(),
        now,
        read: None,
        statement: 0,
    };
    let dialect = session.dialect();
    let literals: Option<Vec<String>> = keys.iter().map(|f| f.value.sql(dialect)).collect();
    let (Some(literals), false) = (literals, keys.is_empty()) else {
        return Ok(done(Now::NotCompared {
            why: "its primary key is not a value indoubt can look up".into(),
        }));
    };
    let columns: Vec<&str> = keyed.fields.iter().map(|f| f.name.as_str()).collect();
    let rows = match row_now(session, table, &columns, (&keys, &literals)).await? {
        Ok(rows) => rows,
        Err(why) => {
            return Ok(done(Now::NotCompared {
                why: format!("reading it failed: {why}"),
            }))
        }
    };
    // No row: as an INSERT's rollback finds it once done, as a DELETE left it; an
    // UPDATE's row deleted since is a dirty write (Seata compares it with the after
    // image and refuses).
    let Some(now) = rows.first() else {
        return Ok(done(match sql_type {
            "INSERT" => Now::AsBefore,
            "DELETE" => Now::AsAfter,
            _ => Now::Deleted,
        }));
    };
    // The row now by column name (an image lists its columns in its own order).
    let now: BTreeMap<&str, Option<&str>> = columns
        .iter()
        .copied()
        .zip(now.iter().map(Option::as_deref))
        .collect();
    let column_same = |f: &Field| now.get(f.name.as_str()).and_then(|v| f.value.same_as(*v));
    let same = |image: &ImageRow| -> Option<bool> {
        let mut all = true;
        for f in &image.fields {
            all &= column_same(f)?;
        }
        Some(all)
    };
    let verdict = match (after.map(same), before.map(same)) {
        (Some(Some(true)), _) => Now::AsAfter,
        (_, Some(Some(true))) => Now::AsBefore,
        (Some(None), _) | (None, Some(None)) => Now::NotCompared {
            why: "a column holds a type indoubt does not compare".into(),
        },
        _ => Now::Changed {
            columns: after
                .map(|a| {
                    a.fields
                        .iter()
                        .filter(|f| column_same(f) == Some(false))
                        .map(|f| ChangedColumn {
                            column: f.name.clone(),
                            after: f.value.shown(),
                            now: match now.get(f.name.as_str()).copied().flatten() {
                                None => "NULL".into(),
                                // Shown as the image's value is: a number bare, text quoted.
                                Some(v)
                                    if matches!(
                                        f.value,
                                        ImageValue::Number(_) | ImageValue::Bool(_)
                                    ) =>
                                {
                                    v.to_string()
                                }
                                Some(v) => format!("{v:?}"),
                            },
                        })
                        .collect()
                })
                .unwrap_or_default(),
        },
    };
    let read = ReadRow {
        key: keys
            .iter()
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect(),
        now: now
            .iter()
            .map(|(c, v)| (c.to_string(), v.map(str::to_string)))
            .collect(),
    };
    Ok(RowCheck {
        read: Some(read),
        ..done(verdict)
    })
}

/// The row with this key, each of `columns` as the database's text of it (None for
/// NULL): no row, one, or the server's refusal (which the row's check says).
async fn row_now(
    session: &mut Session,
    table: &str,
    columns: &[&str],
    (keys, literals): (&[&Field], &[String]),
) -> Result<Result<Vec<Vec<Option<String>>>, String>> {
    match session {
        Session::Pg(session) => {
            // Each column as its type's output gives it (the simple protocol's text): a
            // char(n) keeps its padding, as JDBC gave it to the image (`::text` would
            // trim it). Literals, not parameters: PostgreSQL types them as the key's own
            // type, so the primary key's index finds the row whatever that type is.
            let listed: Vec<String> = columns.iter().map(|c| quote::sql_identifier(c)).collect();
            let conditions: Vec<String> = keys
                .iter()
                .zip(literals)
                .map(|(f, v)| format!("{} = {v}", quote::sql_identifier(&f.name)))
                .collect();
            let sql = format!(
                "SELECT {} FROM {} WHERE {}",
                listed.join(", "),
                quote::qualified(table),
                conditions.join(" AND ")
            );
            Ok(session
                .simple_rows(&sql)
                .await?
                .map_err(|e| format!("{:#}", crate::pg::wire::pg_error(e))))
        }
        Session::Mysql(session) => {
            // Each column as its text in utf8mb4 (`mysql_text`), which a guard on the
            // write compares again the same way.
            let listed: Vec<String> = columns.iter().map(|c| mysql_as_text(c)).collect();
            let conditions: Vec<String> = keys
                .iter()
                .zip(literals)
                .map(|(f, v)| format!("{} = {v}", identifier(&f.name)))
                .collect();
            let sql = format!(
                "SELECT {} FROM {} WHERE {}",
                listed.join(", "),
                qualified(table),
                conditions.join(" AND ")
            );
            match session.rows(&sql).await {
                Ok(rows) => Ok(Ok(rows
                    .iter()
                    .map(|r| (0..columns.len()).map(|i| text(r, i)).collect())
                    .collect())),
                Err(e) => match crate::mysql::session::server_error(&e) {
                    Some(server) => Ok(Err(server.to_string())),
                    None => Err(e),
                },
            }
        }
    }
}

/// A MySQL column as its text in utf8mb4 (what the check reads and a guard compares).
fn mysql_as_text(column: &str) -> String {
    format!("CAST({} AS CHAR CHARACTER SET utf8mb4)", identifier(column))
}

/// The rows a branch's images key (the before image's, an INSERT's after image's): each
/// table and `pk` as the coordinator's lock table writes them.
pub fn keyed_rows(images: &[TableImages]) -> Vec<(String, String)> {
    images
        .iter()
        .flat_map(|t| {
            let keyed = match t.sql_type.as_str() {
                "INSERT" => &t.after,
                _ => &t.before,
            };
            keyed
                .iter()
                .filter_map(|row| Some((t.table.clone(), lock_key(row)?)))
        })
        .collect()
}

/// The statement that sets a changed row back to the branch's after image, guarded: it
/// changes the row only while every image column is still what was read. The reason
/// when it cannot be written (a value of a type indoubt does not write, a row not read).
pub fn restore_statement(
    dialect: Dialect,
    table: &str,
    after: &ImageRow,
    read: &ReadRow,
) -> Result<quote::Sql, String> {
    let ident = |c: &str| match dialect {
        Dialect::Postgres => quote::sql_identifier(c),
        Dialect::Mysql => identifier(c),
    };
    let mut sets = Vec::new();
    for f in after.fields.iter().filter(|f| !f.primary_key) {
        let value = match &f.value {
            ImageValue::Null => "NULL".to_string(),
            v => v.sql(dialect).ok_or_else(|| {
                format!(
                    "column {} holds a value of a type indoubt does not write ({})",
                    f.name,
                    v.shown()
                )
            })?,
        };
        sets.push(format!("{} = {value}", ident(&f.name)));
    }
    if sets.is_empty() {
        return Err("its after image sets no column".into());
    }
    // The key, then every column as read: the row is written only while unchanged.
    let mut guard = Vec::new();
    for (c, v) in &read.key {
        let v = v
            .sql(dialect)
            .ok_or_else(|| format!("its key {c} is not a value indoubt can write"))?;
        guard.push(format!("{} = {v}", ident(c)));
    }
    // By the value's text as it was read: a type with no `=` (json, xml, point) is
    // guarded as well as any other. PostgreSQL: its type's output, as `format('%s', …)`
    // gives it; MySQL: its utf8mb4 text, compared byte for byte (no collation folds
    // case or trailing spaces).
    guard.extend(read.now.iter().map(|(c, v)| match (v, dialect) {
        (None, _) => format!("{} IS NULL", ident(c)),
        (Some(v), Dialect::Postgres) => {
            let c = ident(c);
            format!(
                "{c} IS NOT NULL AND format('%s', {c}) = {}",
                quote::sql_literal(v)
            )
        }
        (Some(v), Dialect::Mysql) => format!(
            "CAST({} AS BINARY) = CAST({} AS BINARY)",
            mysql_as_text(c),
            crate::appdb::mysql_char(v)
        ),
    }));
    let table = match dialect {
        Dialect::Postgres => quote::qualified(table),
        Dialect::Mysql => qualified(table),
    };
    Ok(quote::Sql::assembled(format!(
        "UPDATE {table} SET {} WHERE {};",
        sets.join(", "),
        guard.join(" AND ")
    )))
}

/// The statement that deletes one branch's undo log, guarded: only while its
/// rollback_info is what was read (its md5). On PostgreSQL in `BEGIN READ WRITE` (a
/// session is read-only by default); on MySQL the DELETE commits itself.
pub fn delete_statement(
    dialect: Dialect,
    table: &str,
    xid: &str,
    branch_id: i64,
    digest: &str,
) -> Option<quote::Sql> {
    let sql = match dialect {
        Dialect::Postgres => quote::Sql::new("BEGIN READ WRITE; DELETE FROM ")
            .qualified(table)
            .push(" WHERE xid = ")
            .literal(xid.as_bytes()),
        Dialect::Mysql => quote::Sql::new("DELETE FROM ")
            .mysql_qualified(table)?
            .push(" WHERE xid = ")
            .mysql_text(xid),
    }
    .push(" AND branch_id = ")
    .number(branch_id)
    .push(" AND md5(rollback_info) = ")
    .literal(digest.as_bytes());
    Some(match dialect {
        Dialect::Postgres => sql.push("; COMMIT;"),
        Dialect::Mysql => sql.push(";"),
    })
}

/// One branch's undo log, or None when it has none.
pub async fn of_branch(
    session: &mut Session,
    table: &str,
    xid: &str,
    branch_id: i64,
) -> Result<Option<UndoLog>> {
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => {
            let sql = format!(
                "SELECT {SELECTED} FROM {} WHERE xid = {} AND branch_id = {branch_id}",
                qualified(table),
                hex(xid)
            );
            return Ok(s.rows(&sql).await?.first().map(mysql_undo_log));
        }
    };
    let sql = format!(
        "SELECT {SELECTED} FROM {}
WHERE xid = $1 AND branch_id = $2",
        quote::qualified(table)
    );
    session
        .query(&sql, &[&xid, &branch_id])
        .await?
        .first()
        .map(undo_log)
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seata 2.0.0's Jackson undo log of `UPDATE accounts SET amount = 90, note = 'seata'
    /// WHERE id = 1001`, as the lab's harness wrote it.
    const LAB: &str = r#"{"@class":"io.seata.rm.datasource.undo.BranchUndoLog","xid":"192.0.2.2:18091:1","branchId":3,"sqlUndoLogs":["java.util.ArrayList",[{"@class":"io.seata.rm.datasource.undo.SQLUndoLog","sqlType":"UPDATE","tableName":"accounts","beforeImage":{"@class":"io.seata.rm.datasource.sql.struct.TableRecords","tableName":"accounts","rows":["java.util.ArrayList",[{"@class":"io.seata.rm.datasource.sql.struct.Row","fields":["java.util.ArrayList",[{"@class":"io.seata.rm.datasource.sql.struct.Field","name":"id","keyType":"PRIMARY_KEY","type":-5,"value":["java.lang.Long",1001]},{"@class":"io.seata.rm.datasource.sql.struct.Field","name":"amount","keyType":"NULL","type":4,"value":100},{"@class":"io.seata.rm.datasource.sql.struct.Field","name":"note","keyType":"NULL","type":12,"value":"before"}]]}]]},"afterImage":{"@class":"io.seata.rm.datasource.sql.struct.TableRecords","tableName":"accounts","rows":["java.util.ArrayList",[{"@class":"io.seata.rm.datasource.sql.struct.Row","fields":["java.util.ArrayList",[{"@class":"io.seata.rm.datasource.sql.struct.Field","name":"id","keyType":"PRIMARY_KEY","type":-5,"value":["java.lang.Long",1001]},{"@class":"io.seata.rm.datasource.sql.struct.Field","name":"amount","keyType":"NULL","type":4,"value":90},{"@class":"io.seata.rm.datasource.sql.struct.Field","name":"note","keyType":"NULL","type":12,"value":"seata"}]]}]]}}]]}"#;

    #[test]
    fn jackson_images_are_decoded_with_their_keys_and_values() {
        let images = decode("serializer=jackson&compressorType=NONE", LAB.as_bytes()).unwrap();
        assert_eq!(images.len(), 1);
        let t = &images[0];
        assert_eq!(
            (t.sql_type.as_str(), t.table.as_str()),
            ("UPDATE", "accounts")
        );
        let after: Vec<(&str, bool, &ImageValue)> = t.after[0]
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.primary_key, &f.value))
            .collect();
        assert_eq!(
            after,
            [
                ("id", true, &ImageValue::Number("1001".into())),
                ("amount", false, &ImageValue::Number("90".into())),
                ("note", false, &ImageValue::Text("seata".into())),
            ]
        );
        assert_eq!(
            t.before[0].fields[2].value,
            ImageValue::Text("before".into())
        );
    }

    #[test]
    fn gzip_is_read_and_other_serializers_say_why_not() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(LAB.as_bytes()).unwrap();
        let zipped = gz.finish().unwrap();
        assert_eq!(
            decode("serializer=jackson&compressorType=GZIP", &zipped).unwrap()[0].table,
            "accounts"
        );
        let kryo = decode("serializer=kryo&compressorType=NONE", b"\x01\x02").unwrap_err();
        assert!(kryo.contains("kryo"), "{kryo}");
        let broken = decode("serializer=jackson&compressorType=NONE", b"{\"x\":1}").unwrap_err();
        assert!(broken.contains("BranchUndoLog"), "{broken}");
    }

    /// A BigDecimal keeps every digit Jackson wrote (a float would make
    /// 1.000000000000000001 into 1.0, and a clean row dirty).
    #[test]
    fn numbers_keep_the_digits_jackson_wrote() {
        let info = br#"{"sqlUndoLogs":["java.util.ArrayList",[{"sqlType":"UPDATE","tableName":"w","beforeImage":{"rows":["java.util.ArrayList",[{"fields":["java.util.ArrayList",[{"name":"id","keyType":"PRIMARY_KEY","value":["java.lang.Long",12345678901234567890123]},{"name":"bal","keyType":"NULL","value":["java.math.BigDecimal",1.000000000000000001]}]]}]]},"afterImage":null}]]}"#;
        let images = decode("serializer=jackson&compressorType=NONE", info).unwrap();
        let fields = &images[0].before[0].fields;
        assert_eq!(
            fields[0].value,
            ImageValue::Number("12345678901234567890123".into())
        );
        assert_eq!(
            fields[1].value,
            ImageValue::Number("1.000000000000000001".into())
        );
        assert_eq!(
            fields[1].value.same_as(Some("1.000000000000000001")),
            Some(true)
        );
        assert_eq!(fields[1].value.same_as(Some("1.0")), Some(false));
    }

    /// MySQL's statement: each value a number, a plain quoted string or its bytes with
    /// the utf8mb4 introducer (never a bare X'…', a number where one is expected), every column guarded by
    /// its utf8mb4 text byte for byte.
    #[test]
    fn a_mysql_restore_writes_typed_values_and_guards_each_column_exactly() {
        let images = decode("serializer=jackson&compressorType=NONE", LAB.as_bytes()).unwrap();
        let after = &images[0].after[0];
        let read = ReadRow {
            key: vec![("id".into(), ImageValue::Number("1001".into()))],
            now: vec![
                ("id".into(), Some("1001".into())),
                ("amount".into(), Some("7".into())),
                ("note".into(), Some("it's".into())),
            ],
        };
        let sql = restore_statement(Dialect::Mysql, "accounts", after, &read).unwrap();
        assert_eq!(
            sql.as_str(),
            "UPDATE `accounts` SET `amount` = 90, `note` = 'seata' WHERE `id` = 1001 \
AND CAST(CAST(`id` AS CHAR CHARACTER SET utf8mb4) AS BINARY) = CAST('1001' AS BINARY) \
AND CAST(CAST(`amount` AS CHAR CHARACTER SET utf8mb4) AS BINARY) = CAST('7' AS BINARY) \
AND CAST(CAST(`note` AS CHAR CHARACTER SET utf8mb4) AS BINARY) = CAST(_utf8mb4 X'69742773' AS BINARY);"
        );
        assert_eq!(read.lock_key(), "1001");
        let pg = restore_statement(Dialect::Postgres, "accounts", after, &read).unwrap();
        assert!(
            pg.as_str().starts_with("UPDATE \"accounts\" SET \"amount\" = '90', \"note\" = 'seata' WHERE \"id\" = '1001' AND "),
            "{}",
            pg.as_str()
        );
    }

    #[test]
    fn values_compare_as_seata_compares_them() {
        let n = |s: &str| ImageValue::Number(s.into());
        assert_eq!(n("90.0").same_as(Some("90.00")), Some(true));
        assert_eq!(n("90").same_as(Some("90.5")), Some(false));
        assert_eq!(
            n("12345678901234567890").same_as(Some("12345678901234567891")),
            Some(false)
        );
        assert_eq!(n("1E+2").same_as(Some("100")), Some(true));
        assert_eq!(n("0.0").same_as(Some("0")), Some(true));
        assert_eq!(ImageValue::Null.same_as(None), Some(true));
        assert_eq!(ImageValue::Null.same_as(Some("")), Some(false));
        assert_eq!(ImageValue::Text("a".into()).same_as(None), Some(false));
        assert_eq!(ImageValue::Bool(true).same_as(Some("t")), Some(true));
        assert_eq!(
            ImageValue::Other("java.sql.Timestamp".into()).same_as(Some("x")),
            None
        );
    }
}
