//! Prepared XA branches of a MySQL or MariaDB server: `XA RECOVER` read in each server's
//! binary-safe form, each branch's age, locks and the sessions waiting on it where the
//! server lets them be attributed, and the history list purge has not caught up with.
//!
//! Neither server names the XID of an InnoDB transaction: `information_schema.innodb_trx`
//! has no XID column. A branch whose session is still connected is attributed through
//! performance_schema.events_transactions_current (its XID and thread); a branch whose
//! session is gone (`trx_mysql_thread_id = 0`) is attributed only when it is the one such
//! transaction; with several, each is at least as old as the youngest of them, and no
//! more is claimed. After a restart InnoDB dates a recovered transaction from the restart.

use super::session::{self, Flavor, Session};
use crate::gid::{self, DecodedGid};
use crate::global_tx::GlobalTransaction;
use crate::units::{format_duration, seconds};
use anyhow::{bail, Context, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The decoded form of a MySQL XID (the decoder PostgreSQL GIDs go through).
pub fn decoded(xid: &Xid) -> DecodedGid {
    match i32::try_from(xid.format_id) {
        Ok(format_id) => DecodedGid::Xa(gid::decode_xid(
            format_id,
            xid.gtrid.clone(),
            xid.bqual.clone(),
        )),
        Err(_) => DecodedGid::Opaque {
            note: Some(format!("format id {} is out of XA's range", xid.format_id)),
        },
    }
}

/// Its global transaction (shared by its branches on every engine); none for a format id
/// outside XA's range (no other engine's branch can carry it).
pub fn global(xid: &Xid, decoded: &DecodedGid) -> Option<GlobalTransaction> {
    let format_id = i32::try_from(xid.format_id).ok()?;
    GlobalTransaction::of(&gid::pgjdbc_gid(format_id, &xid.gtrid, &xid.bqual), decoded)
}

/// An XA transaction id: format id, global transaction id, branch qualifier (each at most 64 bytes).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Xid {
    pub format_id: i64,
    pub gtrid: Vec<u8>,
    pub bqual: Vec<u8>,
}

impl Serialize for Xid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.sql())
    }
}

impl Xid {
    /// The XID as XA statements take it, every part in hex: `X'…',X'…',formatID`. The one
    /// form a statement is written with: no server text is ever concatenated into SQL.
    pub fn sql(&self) -> String {
        format!(
            "X'{}',X'{}',{}",
            crate::gid::hex(&self.gtrid),
            crate::gid::hex(&self.bqual),
            self.format_id
        )
    }

    /// The XID as a command-line argument: `0x…,0x…,formatID`, hex only, so no shell
    /// quoting is needed (`resolve mysql` reads it as XA statements would).
    pub fn arg(&self) -> String {
        format!(
            "0x{},0x{},{}",
            crate::gid::hex(&self.gtrid),
            crate::gid::hex(&self.bqual),
            self.format_id
        )
    }

    /// Reads an XID as `XA RECOVER FORMAT='SQL'` prints it and as indoubt shows it:
    /// `X'hex'` or `'text'` parts (`''` is a quote), a `0x…` hex part, then an optional
    /// bqual and format id, as XA statements default them ('' and 1).
    pub fn parse(text: &str) -> Result<Xid, String> {
        let mut rest = text.trim();
        let mut parts: Vec<Vec<u8>> = Vec::new();
        let mut format_id = None;
        loop {
            if parts.len() == 2 {
                let n = rest.trim();
                let id = n
                    .parse::<i64>()
                    .ok()
                    .filter(|id| (0..=i64::from(i32::MAX)).contains(id))
                    .ok_or_else(|| {
                        format!(
                            "the format id {:?} is not one XA takes (0 to 2147483647)",
                            crate::text::escape(n)
                        )
                    })?;
                format_id = Some(id);
                break;
            }
            let (part, after) = xid_part(rest)?;
            parts.push(part);
            let after = after.trim_start();
            if after.is_empty() {
                break;
            }
            rest = after
                .strip_prefix(',')
                .ok_or_else(|| "XID parts are separated by commas".to_string())?
                .trim_start();
        }
        let mut parts = parts.into_iter();
        let gtrid = parts.next().unwrap_or_default();
        let bqual = parts.next().unwrap_or_default();
        if gtrid.is_empty() || gtrid.len() > 64 || bqual.len() > 64 {
            return Err("an XID's gtrid is 1 to 64 bytes and its bqual at most 64".into());
        }
        Ok(Xid {
            format_id: format_id.unwrap_or(1),
            gtrid,
            bqual,
        })
    }
}

fn xid_part(text: &str) -> Result<(Vec<u8>, &str), String> {
    let hex_digits = |s: &str| -> Result<Vec<u8>, String> {
        if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("not a hex digit in an XID part".into());
        }
        if !s.len().is_multiple_of(2) {
            return Err("a hex XID part needs an even number of digits (two per byte)".into());
        }
        (0..s.len())
            .step_by(2)
            .map(|i| {
                u8::from_str_radix(&s[i..i + 2], 16)
                    .map_err(|_| "not a hex digit in an XID part".to_string())
            })
            .collect()
    };
    if let Some(body) = text.strip_prefix("X'").or_else(|| text.strip_prefix("x'")) {
        let end = body.find('\'').ok_or("an X'…' part has no closing quote")?;
        return Ok((hex_digits(&body[..end])?, &body[end + 1..]));
    }
    if let Some(body) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let end = body
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(body.len());
        return Ok((hex_digits(&body[..end])?, &body[end..]));
    }
    if let Some(body) = text.strip_prefix('\'') {
        let mut out = Vec::new();
        let mut chars = body.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                if matches!(chars.peek(), Some((_, '\''))) {
                    chars.next();
                    out.push(b'\'');
                    continue;
                }
                return Ok((out, &body[i + 1..]));
            }
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        return Err("a quoted XID part has no closing quote".into());
    }
    Err("write an XID as XA RECOVER FORMAT='SQL' shows it: X'hex',X'hex',formatID or 'gtrid','bqual',formatID".into())
}

/// How a branch's age is known.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgeBasis {
    /// Its own InnoDB transaction's start (attributed one to one).
    Exact,
    /// A lower bound: it is at least this old (several unattributable transactions, or
    /// one recovered at a restart).
    AtLeast,
    /// Not known; the reason says why.
    Unknown,
}

/// A branch's age and where it comes from.
#[derive(Debug, Clone, Serialize)]
pub struct Age {
    pub basis: AgeBasis,
    /// Seconds, exact or a lower bound; null when unknown.
    pub seconds: Option<f64>,
    /// When its InnoDB transaction started (exact), or the latest it can have (at least).
    pub since: Option<DateTime<Utc>>,
    /// The most it can be, for a branch that is one of several transactions no session
    /// holds (the oldest of them); null otherwise, and when one of them may have been
    /// recovered at a restart (dated from the restart, it is older: no bound is known).
    pub at_most_seconds: Option<f64>,
    /// The earliest it can have started (the oldest of those transactions' start); null
    /// where `at_most_seconds` is.
    pub earliest_since: Option<DateTime<Utc>>,
    /// The tables the value was read from and how it was attributed, or why it is unknown.
    pub source: String,
}

impl Age {
    /// What the proposal rules may rely on: the age, or its lower bound; 0 when unknown
    /// (so "no record" never reads as presumed abort for a branch of unknown age).
    pub fn lower_bound(&self) -> f64 {
        match self.basis {
            AgeBasis::Unknown => 0.0,
            _ => self.seconds.unwrap_or(0.0),
        }
    }

    /// Whether the age is only a lower bound (or not known at all).
    pub fn at_least(&self) -> bool {
        self.basis != AgeBasis::Exact
    }

    /// In words: `5m`, `at least 5m`, `between 5s and 1h 40m`, `unknown`.
    pub fn text(&self) -> String {
        match (&self.basis, self.seconds) {
            (AgeBasis::Exact, Some(s)) => format_duration(seconds(s)),
            (AgeBasis::AtLeast, Some(s)) if self.at_most_seconds.is_some_and(|m| m > s) => format!(
                "between {} and {}",
                format_duration(seconds(s)),
                format_duration(seconds(self.at_most_seconds.unwrap_or(s)))
            ),
            (AgeBasis::AtLeast, Some(s)) => format!("at least {}", format_duration(seconds(s))),
            _ => "unknown".to_string(),
        }
    }
}

/// The live session that holds a branch (XA END'ed or PREPARED, still connected): who it
/// is and what it is doing, as performance_schema.threads shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Holder {
    /// Its processlist id (the branch's `attached_session`).
    pub session: u64,
    pub user: Option<String>,
    pub host: Option<String>,
    /// Its current command: `Sleep` while it waits for the client.
    pub command: Option<String>,
    /// Seconds in that command: how long it has been idle, for `Sleep`.
    pub command_seconds: Option<i64>,
}

impl Holder {
    /// `session 4102 (billing@10.0.3.17:51442, idle 12m 31s)`.
    pub fn text(&self) -> String {
        let who = match (&self.user, &self.host) {
            (Some(u), Some(h)) => Some(format!("{u}@{h}")),
            (Some(u), None) => Some(format!("user {u}")),
            (None, Some(h)) => Some(format!("from {h}")),
            (None, None) => None,
        };
        let doing = match (self.command.as_deref(), self.command_seconds) {
            (Some("Sleep"), Some(s)) => Some(format!(
                "idle {}",
                format_duration(seconds(s.max(0) as f64))
            )),
            (Some("Sleep"), None) => Some("idle".to_string()),
            (Some(c), Some(s)) => Some(format!(
                "in {c} for {}",
                format_duration(seconds(s.max(0) as f64))
            )),
            (Some(c), None) => Some(format!("in {c}")),
            (None, _) => None,
        };
        let details: Vec<String> = who.into_iter().chain(doing).collect();
        match details.is_empty() {
            true => format!("session {}", self.session),
            false => format!("session {} ({})", self.session, details.join(", ")),
        }
    }
}

/// A session waiting for a lock a branch holds.
#[derive(Debug, Clone, Serialize)]
pub struct Waiter {
    /// The waiting session's processlist id (KILL takes it).
    pub session: u64,
    pub trx_id: String,
    pub waiting_seconds: Option<f64>,
    /// What it runs (a statement mentioning a password is hidden).
    pub query: Option<String>,
    /// The table of the lock, when the server says.
    pub table: Option<String>,
}

/// One prepared XA branch.
#[derive(Debug, Clone, Serialize)]
pub struct Branch {
    pub xid: Xid,
    pub format_id: i64,
    pub gtrid_length: usize,
    pub bqual_length: usize,
    /// The processlist id of a session it is still attached to; null when none does or
    /// when that could not be seen (`holder_known` says which).
    pub attached_session: Option<u64>,
    /// Whether performance_schema showed which session, if any, holds it: false when it
    /// is off or unreadable, or its XID matched ambiguously.
    pub holder_known: bool,
    /// Who that session is, as performance_schema.threads showed it with the XID.
    pub holder: Option<Holder>,
    pub age: Age,
    /// Its InnoDB transaction, when attributed.
    pub trx_id: Option<String>,
    pub rows_locked: Option<i64>,
    pub lock_structs: Option<i64>,
    pub rows_modified: Option<i64>,
    /// For a branch that is one of several transactions no session holds: the fewest
    /// and the most rows those transactions changed (its own count is one of them).
    pub rows_modified_between: Option<[i64; 2]>,
    /// Sessions waiting on its locks (attributed branches only).
    pub blocked_sessions: Vec<Waiter>,
}

impl Branch {
    /// A branch as XA RECOVER lists it, nothing else known of it yet.
    fn listed(xid: Xid) -> Branch {
        Branch {
            format_id: xid.format_id,
            gtrid_length: xid.gtrid.len(),
            bqual_length: xid.bqual.len(),
            xid,
            attached_session: None,
            holder_known: false,
            holder: None,
            age: Age {
                basis: AgeBasis::Unknown,
                seconds: None,
                since: None,
                at_most_seconds: None,
                earliest_since: None,
                source: String::new(),
            },
            trx_id: None,
            rows_locked: None,
            lock_structs: None,
            rows_modified: None,
            rows_modified_between: None,
            blocked_sessions: Vec::new(),
        }
    }
}

/// The history list: undo that purge has not removed yet, and the oldest open transaction.
#[derive(Debug, Clone, Serialize)]
pub struct Purge {
    /// Null when it could not be read (the reason is in the snapshot's unreadable list).
    pub history_list_length: Option<i64>,
    /// Where it was read.
    pub source: &'static str,
    /// The oldest transaction open in InnoDB: purge cannot remove undo it may still need.
    pub oldest: Option<OldestTransaction>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OldestTransaction {
    pub trx_id: String,
    pub started_at: Option<DateTime<Utc>>,
    pub age_seconds: Option<f64>,
    /// Whether it may be one InnoDB recovered at the server's restart (no session holds
    /// it, and it is dated from the restart): its age is then only a lower bound.
    pub recovered: bool,
    /// Its session; null for one no session holds (a prepared XA branch, a recovered one).
    pub session: Option<u64>,
    pub state: String,
    /// The XA branch it is, when attributed.
    pub xid: Option<Xid>,
}

/// Which server a session reached, to tell a server reached through two targets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Identity {
    pub flavor: Flavor,
    pub version: String,
    /// `@@hostname:@@port` and `@@server_id` (MariaDB has no server_uuid).
    pub host_port: String,
    pub server_id: String,
    /// MySQL's `@@server_uuid`; null on MariaDB.
    pub server_uuid: Option<String>,
    pub datadir: String,
    pub started_at: Option<DateTime<Utc>>,
    /// `@@read_only`: XA COMMIT is refused there (but for SUPER).
    pub read_only: bool,
    /// Whether it replicates from a primary (SHOW REPLICA STATUS): its XA RECOVER lists
    /// the primary's branches, which are resolved on the primary. Null: not readable.
    pub replica: Option<bool>,
}

impl Identity {
    /// The same server: the same uuid (MySQL) or host, port, server_id and data directory,
    /// started at the same time (within the second the start is derived to).
    pub fn same_server(&self, other: &Identity) -> bool {
        let same_start = match (self.started_at, other.started_at) {
            (Some(a), Some(b)) => (a - b).num_seconds().abs() <= 2,
            _ => true,
        };
        let same_name = match (&self.server_uuid, &other.server_uuid) {
            (Some(a), Some(b)) => a == b,
            _ => {
                self.host_port == other.host_port
                    && self.server_id == other.server_id
                    && self.datadir == other.datadir
            }
        };
        same_name && same_start
    }

    /// The server as the audit trail names it: `mysql UUID` (MySQL), else `mysql
    /// HOST:PORT server_id N DATADIR` (MariaDB has no server_uuid).
    pub fn key(&self) -> String {
        match &self.server_uuid {
            Some(uuid) => format!("mysql {uuid}"),
            None => format!(
                "mysql {} server_id {} {}",
                self.host_port, self.server_id, self.datadir
            ),
        }
    }

    /// Why an XA statement must not run here, if so.
    pub fn not_resolvable_here(&self) -> Option<String> {
        if self.replica == Some(true) {
            return Some(
                "it is on a replica, which lists its primary's branches: resolve it on the primary"
                    .into(),
            );
        }
        if self.read_only {
            return Some("the server is read_only: resolve it on the primary".into());
        }
        None
    }
}

/// What was read of one server.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub server: Identity,
    pub server_time: DateTime<Utc>,
    /// Seconds since the server started.
    pub uptime_seconds: Option<i64>,
    pub branches: Vec<Branch>,
    pub purge: Purge,
    /// Sessions waiting for locks of a transaction no session holds that could not be
    /// matched to one branch.
    pub unattributed_waiters: Vec<Waiter>,
    /// What could not be read, and what that leaves unknown.
    pub unreadable: Vec<String>,
    /// Whether information_schema.innodb_trx answered (it needs PROCESS).
    pub innodb_trx_read: bool,
    /// Branches that could each be given only a lower bound: the oldest of their
    /// transactions is some branch's, which one is not known.
    pub unmatched: Option<Unmatched>,
}

/// Several branches no session holds, against as many such InnoDB transactions.
#[derive(Debug, Clone, Serialize)]
pub struct Unmatched {
    pub xids: Vec<Xid>,
    /// The oldest of their transactions: one of these branches is at least this old.
    pub oldest_seconds: f64,
    /// When it started, by InnoDB's trx_started (the restart, if it was recovered).
    pub oldest_since: Option<DateTime<Utc>>,
    /// Whether that transaction may be one InnoDB recovered at the server's restart: it
    /// is dated from the restart and started earlier, so its age is only a lower bound.
    pub oldest_recovered: bool,
}

pub async fn identity(s: &mut Session) -> Result<Identity> {
    let sql = match s.flavor {
        Flavor::Mysql => "SELECT @@hostname, @@port, @@server_id, @@server_uuid, UNIX_TIMESTAMP() - (SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'), @@datadir, @@read_only",
        Flavor::Mariadb => "SELECT @@hostname, @@port, @@server_id, NULL, UNIX_TIMESTAMP() - (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'), @@datadir, @@read_only",
    };
    let rows = s.rows(sql).await.context("reading the server's identity")?;
    let row = rows.first().context("the server's identity: no row")?;
    // REPLICA (MySQL 8.0.22+, MariaDB 10.5+), else SLAVE; unreadable without its privilege.
    let replica = match s.rows("SHOW REPLICA STATUS").await {
        Ok(r) => Some(!r.is_empty()),
        Err(_) => s
            .rows("SHOW SLAVE STATUS")
            .await
            .ok()
            .map(|r| !r.is_empty()),
    };
    Ok(Identity {
        flavor: s.flavor,
        version: s.version.clone(),
        host_port: format!(
            "{}:{}",
            session::text(row, 0).unwrap_or_default(),
            session::text(row, 1).unwrap_or_default()
        ),
        server_id: session::text(row, 2).unwrap_or_default(),
        server_uuid: session::text(row, 3),
        started_at: session::float(row, 4).and_then(|t| DateTime::from_timestamp(t as i64, 0)),
        datadir: session::text(row, 5).unwrap_or_default(),
        read_only: session::int(row, 6) == Some(1),
        replica,
    })
}

/// `XA RECOVER`: every prepared branch, its bytes exact. MySQL's plain form passes the
/// XID through the result character set, so its CONVERT XID hex form is read; MariaDB
/// has no CONVERT XID and sends the bytes as they are.
pub async fn recover(s: &mut Session) -> Result<Vec<Xid>> {
    let sql = match s.flavor {
        Flavor::Mysql => "XA RECOVER CONVERT XID",
        Flavor::Mariadb => "XA RECOVER",
    };
    let rows = s
        .rows(sql)
        .await
        .with_context(|| format!("reading {sql}"))?;
    rows.iter()
        .map(|row| {
            let format_id = session::int(row, 0).context("XA RECOVER: no formatID")?;
            let length = |i: usize, what: &str| -> Result<usize> {
                session::int(row, i)
                    .and_then(|n| usize::try_from(n).ok())
                    .with_context(|| format!("XA RECOVER: no {what}"))
            };
            let (gtrid_length, bqual_length) = (length(1, "gtrid_length")?, length(2, "bqual_length")?);
            let data = session::bytes(row, 3).unwrap_or_default();
            let data = match s.flavor {
                Flavor::Mysql => hex_data(&data)?,
                Flavor::Mariadb => data,
            };
            if Some(data.len()) != gtrid_length.checked_add(bqual_length) {
                bail!(
                    "XA RECOVER: {} bytes of data for a gtrid of {gtrid_length} and a bqual of {bqual_length}",
                    data.len()
                );
            }
            let (gtrid, bqual) = data.split_at(gtrid_length);
            Ok(Xid {
                format_id,
                gtrid: gtrid.to_vec(),
                bqual: bqual.to_vec(),
            })
        })
        .collect()
}

/// CONVERT XID's `0x…` data.
fn hex_data(data: &[u8]) -> Result<Vec<u8>> {
    let text = std::str::from_utf8(data).context("XA RECOVER CONVERT XID: data is not text")?;
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .context("XA RECOVER CONVERT XID: data is not 0x…")?;
    if !digits.len().is_multiple_of(2) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("XA RECOVER CONVERT XID: data is not hex");
    }
    // gtrid and bqual together: up to 128 bytes, more than one part may hold.
    (0..digits.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&digits[i..i + 2], 16).context("XA RECOVER CONVERT XID: not hex")
        })
        .collect()
}

/// One row of innodb_trx.
#[derive(Debug, Clone)]
struct Trx {
    id: String,
    state: String,
    started: Option<f64>,
    age: Option<f64>,
    thread: u64,
    query: Option<String>,
    wait_started_age: Option<f64>,
    rows_locked: Option<i64>,
    lock_structs: Option<i64>,
    rows_modified: Option<i64>,
}

const TRX_SQL: &str = "\
SELECT trx_id, trx_state, UNIX_TIMESTAMP(trx_started), UNIX_TIMESTAMP() - UNIX_TIMESTAMP(trx_started),
       trx_mysql_thread_id, trx_query, UNIX_TIMESTAMP() - UNIX_TIMESTAMP(trx_wait_started),
       trx_rows_locked, trx_lock_structs, trx_rows_modified
FROM information_schema.innodb_trx";

async fn transactions(s: &mut Session) -> Result<Vec<Trx>> {
    let rows = s.rows(TRX_SQL).await?;
    Ok(rows
        .iter()
        .map(|r| Trx {
            id: session::text(r, 0).unwrap_or_default(),
            state: session::text(r, 1).unwrap_or_default(),
            started: session::float(r, 2),
            age: session::float(r, 3),
            thread: session::int(r, 4).unwrap_or(0).max(0) as u64,
            query: crate::mysql::redact_query(session::text(r, 5)),
            wait_started_age: session::float(r, 6),
            rows_locked: session::int(r, 7),
            lock_structs: session::int(r, 8),
            rows_modified: session::int(r, 9),
        })
        .collect())
}

/// A session in XA state PREPARED, from performance_schema: the XID as it shows it, and
/// the session.
#[derive(Debug, Clone)]
struct Attached {
    format_id: i64,
    gtrid: Vec<u8>,
    bqual: Vec<u8>,
    holder: Holder,
}

/// The XID and session of every session in XA state PREPARED, from performance_schema.
async fn attached(s: &mut Session) -> Result<Vec<Attached>> {
    let rows = s
        .rows(
            "SELECT t.XID_FORMAT_ID, t.XID_GTRID, t.XID_BQUAL, th.PROCESSLIST_ID, \
             th.PROCESSLIST_USER, th.PROCESSLIST_HOST, th.PROCESSLIST_COMMAND, th.PROCESSLIST_TIME \
             FROM performance_schema.events_transactions_current t \
             JOIN performance_schema.threads th ON th.THREAD_ID = t.THREAD_ID \
             WHERE t.XA_STATE = 'PREPARED' AND th.PROCESSLIST_ID IS NOT NULL",
        )
        .await?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            Some(Attached {
                format_id: session::int(r, 0)?,
                gtrid: session::bytes(r, 1).unwrap_or_default(),
                bqual: session::bytes(r, 2).unwrap_or_default(),
                holder: Holder {
                    session: session::int(r, 3)?.max(0) as u64,
                    user: session::text(r, 4),
                    host: session::text(r, 5),
                    command: session::text(r, 6),
                    command_seconds: session::int(r, 7),
                },
            })
        })
        .collect())
}

/// Whether performance_schema's form of an XID part names these bytes: the bytes
/// themselves, or `0x` and their hex (MariaDB 10.11 adds a NUL after that form).
fn names(shown: &[u8], bytes: &[u8]) -> bool {
    let shown: &[u8] = match shown.iter().rposition(|b| *b != 0) {
        Some(end) => &shown[..=end],
        None => &[],
    };
    shown == bytes || shown.eq_ignore_ascii_case(format!("0x{}", crate::gid::hex(bytes)).as_bytes())
}

/// Which transaction blocks which: (waiting trx, blocking trx).
async fn lock_waits(s: &mut Session) -> Result<Vec<(String, String, Option<String>)>> {
    let sql = match s.flavor {
        Flavor::Mariadb => "SELECT w.requesting_trx_id, w.blocking_trx_id, l.lock_table \
             FROM information_schema.INNODB_LOCK_WAITS w \
             LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.requested_lock_id",
        Flavor::Mysql => "SELECT w.REQUESTING_ENGINE_TRANSACTION_ID, w.BLOCKING_ENGINE_TRANSACTION_ID, \
             CONCAT(l.OBJECT_SCHEMA, '.', l.OBJECT_NAME) \
             FROM performance_schema.data_lock_waits w \
             LEFT JOIN performance_schema.data_locks l ON l.ENGINE_LOCK_ID = w.REQUESTING_ENGINE_LOCK_ID",
    };
    let rows = s.rows(sql).await?;
    Ok(rows
        .iter()
        .map(|r| {
            (
                session::text(r, 0).unwrap_or_default(),
                session::text(r, 1).unwrap_or_default(),
                session::text(r, 2),
            )
        })
        .collect())
}

async fn history_list_length(s: &mut Session) -> Result<(Option<i64>, &'static str)> {
    Ok(match s.flavor {
        Flavor::Mariadb => (
            s.one_text("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_HISTORY_LIST_LENGTH'")
                .await?
                .and_then(|v| v.trim().parse().ok()),
            "information_schema.GLOBAL_STATUS Innodb_history_list_length",
        ),
        Flavor::Mysql => (
            s.one_text("SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'")
                .await?
                .and_then(|v| v.trim().parse().ok()),
            "information_schema.INNODB_METRICS trx_rseg_history_len",
        ),
    })
}

/// How long after a restart InnoDB may still be dating the transactions it recovered.
const RECOVERY_WINDOW_SECONDS: f64 = 10.0;

/// Everything about the server's prepared branches and its purge, each part read on its
/// own: one that cannot be read (a privilege, performance_schema off) is named in
/// `unreadable` and leaves only what it would have told unknown.
pub async fn collect(s: &mut Session) -> Result<Snapshot> {
    let server = identity(s).await?;
    let now_text = s.one_text("SELECT UNIX_TIMESTAMP(NOW(6))").await?;
    let now = now_text.and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0);
    let server_time = DateTime::from_timestamp_micros((now * 1e6) as i64).unwrap_or_else(Utc::now);
    let uptime = server
        .started_at
        .map(|start| (server_time - start).num_seconds());
    let xids = recover(s).await?;
    let mut unreadable = Vec::new();
    let trxs = match transactions(s).await {
        Ok(t) => Some(t),
        Err(e) => {
            unreadable.push(format!(
                "information_schema.innodb_trx could not be read ({e:#}; it needs the PROCESS privilege): ages, locks, blocked sessions and the oldest transaction are UNKNOWN"
            ));
            None
        }
    };
    let attached = match attached(s).await {
        Ok(a) => Some(a),
        Err(e) => {
            unreadable.push(format!(
                "performance_schema.events_transactions_current could not be read ({e:#}): which branches a live session still holds cannot be told"
            ));
            None
        }
    };
    let perf_on = match &attached {
        Some(_) => perf_transactions_on(s).await,
        None => false,
    };
    if attached.is_some() && !perf_on && !xids.is_empty() {
        unreadable.push("performance_schema's transaction instrument or events_transactions_current consumer is off: which branches a live session still holds cannot be told (performance-schema-instrument='transaction=ON', performance-schema-consumer-events-transactions-current=ON)".into());
    }
    let waits = match (&trxs, lock_waits(s).await) {
        (None, _) => None,
        (Some(_), Ok(w)) => Some(w),
        (Some(_), Err(e)) => {
            unreadable.push(format!(
                "the lock waits could not be read ({e:#}): blocked sessions are UNKNOWN"
            ));
            None
        }
    };
    let history = match history_list_length(s).await {
        Ok(h) => h,
        Err(e) => {
            unreadable.push(format!("the history list length could not be read ({e:#})"));
            (None, "")
        }
    };
    let server_start = server.started_at.map(|t| t.timestamp() as f64);
    let mut branches: Vec<Branch> = xids.into_iter().map(Branch::listed).collect();
    // Attached branches: the session's own InnoDB transaction, matched one to one.
    if let (Some(attached), true) = (&attached, perf_on) {
        attach(&mut branches, attached);
    }
    let Some(trxs) = trxs else {
        for b in branches.iter_mut() {
            b.age.source = "information_schema.innodb_trx could not be read".into();
        }
        return Ok(Snapshot {
            server,
            server_time,
            uptime_seconds: uptime,
            branches,
            purge: Purge {
                history_list_length: history.0,
                source: history.1,
                oldest: None,
            },
            unattributed_waiters: Vec::new(),
            unreadable,
            innodb_trx_read: false,
            unmatched: None,
        });
    };
    let unmatched = attribute(&mut branches, &trxs, perf_on, server_start);
    let detached_trx = detached(&trxs);
    // Waiters: on an attributed branch's transaction, or on one no session holds.
    let mut unattributed_waiters = Vec::new();
    for (waiting, blocking, table) in waits.unwrap_or_default() {
        let Some(w) = trxs.iter().find(|t| t.id == waiting) else {
            continue;
        };
        let waiter = Waiter {
            session: w.thread,
            trx_id: w.id.clone(),
            waiting_seconds: w.wait_started_age,
            query: w.query.clone(),
            table,
        };
        if let Some(b) = branches
            .iter_mut()
            .find(|b| b.trx_id.as_deref() == Some(&blocking))
        {
            b.blocked_sessions.push(waiter);
        } else if detached_trx.iter().any(|t| t.id == blocking) && !branches.is_empty() {
            unattributed_waiters.push(waiter);
        }
    }
    let oldest = trxs
        .iter()
        .filter(|t| t.started.is_some())
        .min_by(|a, b| {
            a.started
                .unwrap_or(f64::MAX)
                .total_cmp(&b.started.unwrap_or(f64::MAX))
        })
        .map(|t| OldestTransaction {
            trx_id: t.id.clone(),
            started_at: t
                .started
                .and_then(|s| DateTime::from_timestamp(s as i64, 0)),
            age_seconds: t.age,
            recovered: t.thread == 0 && recovered(t, server_start),
            session: (t.thread != 0).then_some(t.thread),
            state: t.state.clone(),
            xid: branches
                .iter()
                .find(|b| b.trx_id.as_deref() == Some(&t.id))
                .map(|b| b.xid.clone()),
        });
    Ok(Snapshot {
        server,
        server_time,
        uptime_seconds: uptime,
        branches,
        purge: Purge {
            history_list_length: history.0,
            source: history.1,
            oldest,
        },
        unattributed_waiters,
        unreadable,
        innodb_trx_read: true,
        unmatched,
    })
}

/// Which session holds each branch, from performance_schema's rows: only where one row
/// names the branch and no other branch, so an XID whose shown forms collide (`0x41` and
/// the byte 0x41) is left unknown.
fn attach(branches: &mut [Branch], rows: &[Attached]) {
    let matches = |b: &Branch, r: &Attached| {
        r.format_id == b.xid.format_id
            && names(&r.gtrid, &b.xid.gtrid)
            && names(&r.bqual, &b.xid.bqual)
    };
    let claims: Vec<usize> = rows
        .iter()
        .map(|r| branches.iter().filter(|b| matches(b, r)).count())
        .collect();
    for b in branches.iter_mut() {
        let mine: Vec<usize> = (0..rows.len()).filter(|&r| matches(b, &rows[r])).collect();
        match mine[..] {
            [] => b.holder_known = true,
            [r] if claims[r] == 1 => {
                b.attached_session = Some(rows[r].holder.session);
                b.holder = Some(rows[r].holder.clone());
                b.holder_known = true;
            }
            _ => {}
        }
    }
}

/// Whether a transaction may be one InnoDB recovered at the server's restart, and so
/// dated from the restart although it started earlier: it started no later than just
/// after the restart, or when the server started is not known.
fn recovered(t: &Trx, server_start: Option<f64>) -> bool {
    match (t.started, server_start) {
        (Some(st), Some(up)) => st <= up + RECOVERY_WINDOW_SECONDS,
        _ => true,
    }
}

/// The InnoDB transactions no session holds (and that are not being rolled back).
fn detached(trxs: &[Trx]) -> Vec<&Trx> {
    trxs.iter()
        .filter(|t| t.thread == 0 && !t.state.eq_ignore_ascii_case("ROLLING BACK"))
        .collect()
}

/// Gives each branch its InnoDB transaction, age, and rows where that is established
/// (the module's comment): a branch a session holds, its session's transaction; the one
/// branch no session holds, the one such transaction; several, a lower bound each.
fn attribute(
    branches: &mut [Branch],
    trxs: &[Trx],
    perf_on: bool,
    server_start: Option<f64>,
) -> Option<Unmatched> {
    let mut unmatched = None;
    let exact = |b: &mut Branch, t: &Trx, how: &str| {
        let recovered = recovered(t, server_start);
        b.trx_id = Some(t.id.clone());
        // A recovered transaction counts no locks until a session touches its rows.
        b.rows_locked = t.rows_locked.filter(|_| !recovered);
        b.lock_structs = t.lock_structs;
        b.rows_modified = t.rows_modified;
        b.age.seconds = t.age;
        b.age.since = t
            .started
            .and_then(|s| DateTime::from_timestamp(s as i64, 0));
        if recovered {
            b.age.basis = AgeBasis::AtLeast;
            b.age.source = format!("information_schema.innodb_trx ({how}): it started no later than the server's restart, and InnoDB dates the transactions it recovers from the restart, so it is at least this old");
        } else {
            b.age.basis = AgeBasis::Exact;
            b.age.source = format!("information_schema.innodb_trx ({how})");
        }
    };
    for b in branches.iter_mut() {
        if let Some(id) = b.attached_session {
            if let Some(t) = trxs.iter().find(|t| t.thread == id) {
                exact(b, t, &format!("the transaction of session {id}, which performance_schema shows in XA state PREPARED with this XID"));
            }
        }
    }
    // Branches no session holds, against transactions no session holds.
    let detached_trx = detached(trxs);
    let unattributed: Vec<usize> = branches
        .iter()
        .enumerate()
        .filter(|(_, b)| b.trx_id.is_none() && b.attached_session.is_none())
        .map(|(i, _)| i)
        .collect();
    // Without performance_schema a branch may be attached and look like none.
    let all_detached_known = perf_on || unattributed.len() == detached_trx.len();
    match (unattributed.len(), detached_trx.len()) {
        (0, _) => {}
        (1, 1) if perf_on => exact(
            &mut branches[unattributed[0]],
            detached_trx[0],
            "the only transaction no session holds",
        ),
        (n, m) if n == m && all_detached_known => {
            let oldest = detached_trx
                .iter()
                .filter_map(|t| Some((t.age?, t.started, recovered(t, server_start))))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            // One recovered at the restart is dated from it and started earlier, by how
            // much nothing says: the group's oldest is then only a lower bound, and no
            // branch of it has an upper one.
            let any_recovered = detached_trx.iter().any(|t| recovered(t, server_start));
            unmatched = oldest.map(|(age, started, recovered)| Unmatched {
                xids: unattributed
                    .iter()
                    .map(|&i| branches[i].xid.clone())
                    .collect(),
                oldest_seconds: age,
                oldest_since: started.and_then(|s| DateTime::from_timestamp(s as i64, 0)),
                oldest_recovered: recovered,
            });
            let youngest = detached_trx
                .iter()
                .filter_map(|t| Some((t.age?, t.started)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let date = |s: Option<f64>| s.and_then(|s| DateTime::from_timestamp(s as i64, 0));
            // Its own rows are one of the group's counts: between the fewest and the most.
            let counts: Vec<i64> = detached_trx
                .iter()
                .filter_map(|t| t.rows_modified)
                .collect();
            let rows_between = match (counts.iter().min(), counts.iter().max()) {
                (Some(&lo), Some(&hi)) if counts.len() == m => Some([lo, hi]),
                _ => None,
            };
            for &i in &unattributed {
                let b = &mut branches[i];
                b.age.basis = AgeBasis::AtLeast;
                b.age.seconds = youngest.map(|y| y.0);
                b.age.since = date(youngest.and_then(|y| y.1));
                b.rows_modified_between = rows_between;
                if any_recovered {
                    b.age.source = format!("information_schema.innodb_trx: {m} transactions no session holds, and which is this branch's is not recorded anywhere; each is at least as old as the youngest of them, and no upper bound is known: one of them started no later than the server's restart, and InnoDB dates the transactions it recovers from the restart");
                } else {
                    b.age.at_most_seconds = oldest.map(|o| o.0);
                    b.age.earliest_since = date(oldest.and_then(|o| o.1));
                    b.age.source = format!("information_schema.innodb_trx: {m} transactions no session holds, and which is this branch's is not recorded anywhere; each is at least as old as the youngest of them and at most as old as the oldest");
                }
            }
        }
        (n, m) => {
            for &i in &unattributed {
                branches[i].age.source = format!(
                    "{n} branch(es) no session is known to hold, {m} InnoDB transaction(s) no session holds{}: which is which cannot be told",
                    if perf_on { "" } else { " (performance_schema does not show which branches live sessions hold)" }
                );
            }
        }
    }
    // Without performance_schema, that no live session holds a branch is assumed, not
    // seen: its age is then only a lower bound, and says so.
    if !perf_on {
        for &i in &unattributed {
            let b = &mut branches[i];
            if b.age.basis == AgeBasis::Exact {
                b.age.basis = AgeBasis::AtLeast;
            }
            if b.age.basis == AgeBasis::AtLeast {
                b.age.source.push_str("; performance_schema does not show which branches live sessions hold, so this assumes none does");
            }
        }
    }
    unmatched
}

/// Whether performance_schema records transactions: the instrument and the consumer on.
async fn perf_transactions_on(s: &mut Session) -> bool {
    let sql = "SELECT (SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = 'transaction'), \
               (SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'events_transactions_current'), \
               @@performance_schema";
    match s.rows(sql).await {
        Ok(rows) => rows.first().is_some_and(|r| {
            session::text(r, 0).as_deref() == Some("YES")
                && session::text(r, 1).as_deref() == Some("YES")
                && session::int(r, 2) == Some(1)
        }),
        Err(_) => false,
    }
}

/// Whether `xid` is prepared on the server now.
pub async fn is_prepared(s: &mut Session, xid: &Xid) -> Result<bool> {
    Ok(recover(s).await?.iter().any(|x| x == xid))
}

/// Whether a live session holds `xid` (performance_schema; None when it cannot tell, or
/// when more than one session's XID reads as this one).
pub async fn held_by_session(s: &mut Session, xid: &Xid) -> Option<u64> {
    if !perf_transactions_on(s).await {
        return None;
    }
    let holders: Vec<u64> = attached(s)
        .await
        .ok()?
        .into_iter()
        .filter(|a| {
            a.format_id == xid.format_id
                && names(&a.gtrid, &xid.gtrid)
                && names(&a.bqual, &xid.bqual)
        })
        .map(|a| a.holder.session)
        .collect();
    match holders[..] {
        [id] => Some(id),
        _ => None,
    }
}

/// `XA COMMIT xid` or `XA ROLLBACK xid`, with the XID in hex.
pub fn statement(commit: bool, xid: &Xid) -> String {
    format!(
        "XA {} {}",
        if commit { "COMMIT" } else { "ROLLBACK" },
        xid.sql()
    )
}

/// XAER_NOTA: the server knows no prepared branch with that XID (none, or — MariaDB —
/// one another session still holds).
pub const XAER_NOTA: u16 = 1397;
/// XA_RBROLLBACK, XA_RBTIMEOUT, XA_RBDEADLOCK: the server rolled the branch back.
pub const XA_ROLLED_BACK: [u16; 3] = [1402, 1613, 1614];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xids_read_back_from_every_form_they_are_shown_in() {
        let x = Xid::parse("X'6774726964',X'62',131077").unwrap();
        assert_eq!(
            (x.format_id, &x.gtrid[..], &x.bqual[..]),
            (131077, &b"gtrid"[..], &b"b"[..])
        );
        assert_eq!(Xid::parse("'gtrid','b',131077").unwrap(), x);
        assert_eq!(Xid::parse(&x.sql()).unwrap(), x);
        assert_eq!(x.arg(), "0x6774726964,0x62,131077");
        assert_eq!(Xid::parse(&x.arg()).unwrap(), x);
        assert_eq!(Xid::parse("0x67,0x,5").unwrap().bqual, Vec::<u8>::new());
        let q = Xid::parse("'it''s', 0x00ff , 7").unwrap();
        assert_eq!(
            (&q.gtrid[..], &q.bqual[..], q.format_id),
            (&b"it's"[..], &[0u8, 255][..], 7)
        );
        assert_eq!(Xid::parse("'g'").unwrap().format_id, 1);
        for bad in [
            "'g','b',-1",
            "'g','b',99999999999",
            "X'a\u{e9}'",
            "",
            "g",
            "X'0'",
            "'g','b',x",
            "'g' 'b'",
            "'unterminated",
            "X'zz'",
        ] {
            assert!(Xid::parse(bad).is_err(), "{bad}");
        }
        assert!(Xid::parse(&format!("X'{}'", "00".repeat(65))).is_err());
    }

    #[test]
    fn statements_carry_the_xid_in_hex_only() {
        let x = Xid::parse("'x'');DROP TABLE t;--','b',1").unwrap();
        assert_eq!(
            statement(false, &x),
            "XA ROLLBACK X'7827293b44524f50205441424c4520743b2d2d',X'62',1"
        );
    }

    fn branch(gtrid: &str, session: Option<u64>) -> Branch {
        let mut b = Branch::listed(Xid {
            format_id: 1,
            gtrid: gtrid.as_bytes().to_vec(),
            bqual: Vec::new(),
        });
        b.attached_session = session;
        b.holder_known = true;
        b
    }

    fn trx(id: &str, thread: u64, started: f64, now: f64) -> Trx {
        Trx {
            id: id.into(),
            state: "RUNNING".into(),
            started: Some(started),
            age: Some(now - started),
            thread,
            query: None,
            wait_started_age: None,
            rows_locked: Some(0),
            lock_structs: Some(2),
            rows_modified: Some(3),
        }
    }

    const NOW: f64 = 1_800_000_000.0;
    const BOOT: Option<f64> = Some(NOW - 86_400.0);

    #[test]
    fn an_age_is_exact_only_where_the_branch_is_matched_one_to_one() {
        // Held by session 7; and the one transaction no session holds.
        let mut b = vec![branch("held", Some(7)), branch("gone", None)];
        let t = [
            trx("11", 7, NOW - 60.0, NOW),
            trx("12", 0, NOW - 600.0, NOW),
            trx("13", 9, NOW - 5.0, NOW),
        ];
        attribute(&mut b, &t, true, BOOT);
        assert_eq!(
            (
                b[0].age.basis.clone(),
                b[0].age.seconds,
                b[0].trx_id.as_deref()
            ),
            (AgeBasis::Exact, Some(60.0), Some("11"))
        );
        assert_eq!(
            (b[1].age.basis.clone(), b[1].age.seconds, b[1].rows_modified),
            (AgeBasis::Exact, Some(600.0), Some(3))
        );
        assert!(
            b[1].age
                .source
                .contains("the only transaction no session holds"),
            "{}",
            b[1].age.source
        );
    }

    #[test]
    fn several_branches_no_session_holds_are_each_at_least_the_youngest_and_claim_no_rows() {
        let mut b = vec![branch("a", None), branch("b", None)];
        let t = [trx("1", 0, NOW - 900.0, NOW), trx("2", 0, NOW - 300.0, NOW)];
        let unmatched = attribute(&mut b, &t, true, BOOT).expect("the group's oldest");
        for x in &b {
            assert_eq!(
                (x.age.basis.clone(), x.age.seconds),
                (AgeBasis::AtLeast, Some(300.0))
            );
            assert_eq!((x.trx_id.as_ref(), x.rows_modified), (None, None));
        }
        // One of them is the 15-minute-old one: the group says so, for its severity.
        assert_eq!((unmatched.oldest_seconds, unmatched.xids.len()), (900.0, 2));
    }

    #[test]
    fn two_detached_branches_each_keep_their_own_bounds_not_the_youngest_alone() {
        // An orphan from 1h 40m ago, and one from 2s ago: which is which is not recorded,
        // so each is between the two, started between the two starts, with 1 to 2 rows.
        let mut b = vec![branch("old", None), branch("new", None)];
        let mut old = trx("1", 0, NOW - 6000.0, NOW);
        old.rows_modified = Some(1);
        let mut new = trx("2", 0, NOW - 2.0, NOW);
        new.rows_modified = Some(2);
        attribute(&mut b, &[new, old], true, BOOT);
        for x in &b {
            assert_eq!(
                (x.age.basis.clone(), x.age.seconds, x.age.at_most_seconds),
                (AgeBasis::AtLeast, Some(2.0), Some(6000.0))
            );
            assert_eq!(x.age.text(), "between 2s and 1h 40m");
            assert_eq!(
                (x.age.earliest_since, x.age.since),
                (
                    DateTime::from_timestamp((NOW - 6000.0) as i64, 0),
                    DateTime::from_timestamp((NOW - 2.0) as i64, 0)
                )
            );
            // Its own count is one of the two; neither is claimed as its own.
            assert_eq!(
                (x.rows_modified, x.rows_modified_between),
                (None, Some([1, 2]))
            );
        }
    }

    #[test]
    fn beside_a_transaction_recovered_at_a_restart_no_branch_has_an_upper_bound() {
        // The server restarted 30m 15s ago under a prepared branch (InnoDB dates it from
        // the restart: it is older); another branch's session went away 50s ago.
        let boot = Some(NOW - 1815.0);
        let mut b = vec![branch("recovered", None), branch("gone", None)];
        let t = [trx("1", 0, NOW - 1815.0, NOW), trx("2", 0, NOW - 50.0, NOW)];
        let unmatched = attribute(&mut b, &t, true, boot).expect("the group's oldest");
        for x in &b {
            assert_eq!(
                (x.age.basis.clone(), x.age.seconds, x.age.at_most_seconds),
                (AgeBasis::AtLeast, Some(50.0), None)
            );
            assert_eq!(x.age.text(), "at least 50s");
            assert_eq!(x.age.earliest_since, None);
            assert!(x.age.source.contains("restart"), "{}", x.age.source);
        }
        assert_eq!(
            (unmatched.oldest_seconds, unmatched.oldest_recovered),
            (1815.0, true)
        );
        // Long after the restart, the same two have both bounds.
        let mut b = vec![branch("old", None), branch("gone", None)];
        let unmatched = attribute(&mut b, &t, true, BOOT).unwrap();
        assert_eq!(b[0].age.at_most_seconds, Some(1815.0));
        assert!(!unmatched.oldest_recovered);
    }

    #[test]
    fn a_transaction_recovered_at_a_restart_is_only_a_lower_bound() {
        let mut b = vec![branch("a", None)];
        let boot = Some(NOW - 100.0);
        attribute(&mut b, &[trx("1", 0, NOW - 98.0, NOW)], true, boot);
        assert_eq!(
            (b[0].age.basis.clone(), b[0].age.seconds),
            (AgeBasis::AtLeast, Some(98.0))
        );
        assert!(b[0].age.source.contains("restart"), "{}", b[0].age.source);
        // Its zero row locks are InnoDB's count before anyone touched its rows: not kept.
        assert_eq!((b[0].rows_locked, b[0].rows_modified), (None, Some(3)));
    }

    #[test]
    fn without_performance_schema_nothing_is_exact_and_a_mismatch_is_unknown() {
        let mut b = vec![branch("a", None)];
        attribute(&mut b, &[trx("1", 0, NOW - 600.0, NOW)], false, BOOT);
        assert_eq!(b[0].age.basis, AgeBasis::AtLeast);
        assert!(
            b[0].age.source.contains("assumes none does"),
            "{}",
            b[0].age.source
        );
        // Two branches, one transaction no session holds (the other branch's session is
        // alive, unseen): which is which cannot be told.
        let mut b = vec![branch("a", None), branch("b", None)];
        attribute(
            &mut b,
            &[trx("1", 0, NOW - 600.0, NOW), trx("2", 5, NOW - 9.0, NOW)],
            false,
            BOOT,
        );
        for x in &b {
            assert_eq!(
                (x.age.basis.clone(), x.age.seconds),
                (AgeBasis::Unknown, None)
            );
            assert!(x.age.source.contains("cannot be told"), "{}", x.age.source);
        }
    }

    fn server(host_port: &str, datadir: &str, started: i64) -> Identity {
        Identity {
            flavor: Flavor::Mariadb,
            version: "10.11".into(),
            host_port: host_port.into(),
            server_id: "1".into(),
            server_uuid: None,
            datadir: datadir.into(),
            started_at: DateTime::from_timestamp(started, 0),
            read_only: false,
            replica: Some(false),
        }
    }

    #[test]
    fn one_server_reached_twice_is_one_and_containers_alike_are_two() {
        let a = server("db:3306", "/var/lib/mysql/", 1_000);
        assert!(a.same_server(&server("db:3306", "/var/lib/mysql/", 1_001)));
        // Same hostname, port and server_id (containers), started at other times.
        assert!(!a.same_server(&server("db:3306", "/var/lib/mysql/", 5_000)));
        assert!(!a.same_server(&server("db:3306", "/data/", 1_000)));
    }

    #[test]
    fn a_replica_or_a_read_only_server_is_never_where_a_branch_is_resolved() {
        let mut s = server("db:3306", "/d/", 0);
        assert_eq!(s.not_resolvable_here(), None);
        s.replica = Some(true);
        assert!(s.not_resolvable_here().unwrap().contains("replica"));
        s.replica = None;
        s.read_only = true;
        assert!(s.not_resolvable_here().unwrap().contains("read_only"));
    }

    fn attached_row(gtrid: &[u8], session: u64) -> Attached {
        Attached {
            format_id: 1,
            gtrid: gtrid.to_vec(),
            bqual: Vec::new(),
            holder: Holder {
                session,
                user: Some("app".into()),
                host: Some("10.0.3.17:51442".into()),
                command: Some("Sleep".into()),
                command_seconds: Some(751),
            },
        }
    }

    #[test]
    fn a_session_is_attached_only_to_the_one_branch_its_xid_names() {
        // gtrid "0x41" (text) and gtrid [0x41] both read as performance_schema's "0x41".
        let mut b = vec![
            branch("0x41", None),
            branch("A", None),
            branch("other", None),
        ];
        b[1].xid.gtrid = vec![0x41];
        for x in b.iter_mut() {
            x.holder_known = false;
        }
        attach(&mut b, &[attached_row(b"0x41", 7)]);
        assert_eq!((b[0].attached_session, b[0].holder_known), (None, false));
        assert_eq!((b[1].attached_session, b[1].holder_known), (None, false));
        assert_eq!((b[2].attached_session, b[2].holder_known), (None, true));
        let mut one = vec![branch("att", None)];
        attach(&mut one, &[attached_row(b"att", 9)]);
        assert_eq!(
            (one[0].attached_session, one[0].holder_known),
            (Some(9), true)
        );
        assert_eq!(
            one[0].holder.as_ref().map(Holder::text).as_deref(),
            Some("session 9 (app@10.0.3.17:51442, idle 12m 31s)")
        );
    }

    #[test]
    fn performance_schema_forms_of_xid_parts_are_recognised() {
        assert!(names(b"att", b"att"));
        assert!(names(b"0x00FF41\0", &[0, 255, 0x41]));
        assert!(!names(b"0x00FF42", &[0, 255, 0x41]));
    }
}
