//! The finding codes: every `code` a finding can carry, each with what it means, why it
//! matters and how to fix it (`indoubt explain CODE`). A [`Code`] is made only by the
//! [`codes!`] list (here for the codes several commands share and the older probes'; in
//! a probe's own folder for its own), so no finding carries a code that is not documented.

use serde::{Serialize, Serializer};
use std::fmt;

/// One documented finding code. Made only by a `codes!` list (the field is private): a
/// finding's code is always one of [`ALL`] or of a registered probe's `Pages::codes`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Code(&'static Doc);

/// What `indoubt explain CODE` prints.
#[derive(Debug, PartialEq, Eq)]
pub struct Doc {
    /// The stable machine name, as JSON carries it (`prepared_xact_age`).
    pub name: &'static str,
    /// The constant's name in this module (`PREPARED_XACT_AGE`), for the test that
    /// finds every code used somewhere.
    pub ident: &'static str,
    /// What the finding says happened.
    pub meaning: &'static str,
    /// Why an operator should care.
    pub why: &'static str,
    /// What to do: the indoubt command or SQL.
    pub fix: &'static str,
}

impl Code {
    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn doc(self) -> &'static Doc {
        self.0
    }

    /// For the `codes!` macro only: a code is its documentation.
    #[doc(hidden)]
    pub const fn documented(doc: &'static Doc) -> Code {
        Code(doc)
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// JSON and YAML carry the name, as before codes were typed.
impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A list of documented codes: each a constant, and `ALL` in the order `explain` lists
/// them. `crate::codes::codes!` in a probe's folder documents that probe's own codes.
macro_rules! codes {
    ($($ident:ident = $name:literal {
        meaning: $meaning:expr,
        why: $why:expr,
        fix: $fix:expr $(,)?
    })*) => {
        $(
            pub const $ident: $crate::codes::Code = $crate::codes::Code::documented(&$crate::codes::Doc {
                name: $name,
                ident: stringify!($ident),
                meaning: $meaning,
                why: $why,
                fix: $fix,
            });
        )*
        /// Every code, in the order `indoubt explain` lists them. (A probe that also
        /// reports codes it shares with others lists its codes one by one instead.)
        #[allow(dead_code)]
        pub const ALL: &[$crate::codes::Code] = &[$($ident),*];
    };
}
pub(crate) use codes;

codes! {
    PREPARED_XACTS = "prepared_xacts" {
        meaning: "`pg prepared` summary: how many prepared (two-phase) transactions the server holds, against max_prepared_transactions.",
        why: "An OK line that says what was looked at: pg_prepared_xacts was read, and nothing crossed a threshold.",
        fix: "Nothing to do. `indoubt pg prepared -o json` lists every prepared transaction with its evidence.",
    }

    PREPARED_XACT_AGE = "prepared_xact_age" {
        meaning: "A prepared transaction (PREPARE TRANSACTION) has waited longer than the warning or critical age for its COMMIT PREPARED or ROLLBACK PREPARED. Its coordinator (a transaction manager, an XA application server) crashed, lost its log, or forgot it.",
        why: "Until it is finished it keeps its row locks (sessions that touch those rows wait forever), holds back the xmin horizon of its own database (and of the shared catalogs), so vacuum cannot remove rows deleted there since it began, and survives restarts. Left long enough it leads to bloat and, at the end, transaction ID wraparound.",
        fix: "Find the coordinator's decision and apply it: `indoubt resolve pg 'GID' --dry-run` shows the evidence and the decision sources' answers; run it again without --dry-run to COMMIT PREPARED or ROLLBACK PREPARED (confirmed and audited). By hand, in its database as its owner or a superuser: `COMMIT PREPARED 'GID'` or `ROLLBACK PREPARED 'GID'` (only with the coordinator's decision: guessing breaks atomicity).",
    }

    PREPARED_XACTS_UNREADABLE = "prepared_xacts_unreadable" {
        meaning: "The locks of the prepared transactions (pg_locks) or the sessions they block (pg_stat_activity, pg_blocking_pids) could not be read; the list of prepared transactions itself was read. The finding says which.",
        why: "What was not read is not known: the sessions a prepared transaction blocks may be missing from the report.",
        fix: "Connect as a role that may read it: `GRANT pg_monitor TO ROLE` (and CONNECT on the databases), or raise --timeout if it timed out.",
    }

    BLOCKED_BY_PREPARED = "blocked_by_prepared" {
        meaning: "Sessions wait for a lock the server attributes to a prepared transaction (pg_blocking_pids returns 0), but no prepared transaction listed could be matched to that lock.",
        why: "Sessions stuck behind a prepared transaction wait until it is finished, whatever their statement_timeout allows; the blocker was prepared or finished between the reads.",
        fix: "Run `indoubt pg prepared` again to see the prepared transaction now holding the lock, then `indoubt resolve pg 'GID' --dry-run`.",
    }

    XA_BRANCHES = "xa_branches" {
        meaning: "`mysql xa` summary: XA RECOVER lists no prepared XA branch on this MySQL or MariaDB server.",
        why: "An OK line that says what was looked at (XA RECOVER).",
        fix: "Nothing to do.",
    }

    XA_BRANCH_AGE = "xa_branch_age" {
        meaning: "A prepared XA branch (XA PREPARE) of MySQL or MariaDB has waited longer than the warning or critical age (the `pg prepared` thresholds) for its XA COMMIT or XA ROLLBACK. It survives its client's disconnect and a server restart; its transaction manager crashed, lost its log, or forgot it. The age says where it comes from: exact, at least (when InnoDB cannot tell which of several transactions is this branch's, or the server restarted since), or unknown.",
        why: "Until it is finished it keeps its row locks (sessions that touch those rows wait, then fail with lock wait timeouts), and InnoDB's purge cannot remove the undo of changes made after it began, so the history list grows and reads slow down.",
        fix: "Find the coordinator's decision and apply it: `indoubt resolve mysql \"X'…',X'…',FORMATID\" --dry-run` shows the evidence and the decision sources' answers; run it again without --dry-run to XA COMMIT or XA ROLLBACK (confirmed and audited). By hand: `XA COMMIT X'…',X'…',FORMATID` (only with the coordinator's decision: guessing breaks atomicity).",
    }

    XA_BRANCH_AGE_UNKNOWN = "xa_branch_age_unknown" {
        meaning: "A prepared XA branch is listed by XA RECOVER, but its age cannot be established: information_schema.innodb_trx could not be read (it needs PROCESS), or the transactions no session holds cannot be matched to the branches.",
        why: "A branch of unknown age may be minutes or months old: its locks and the purge it holds back are as real either way.",
        fix: "Grant PROCESS to the user indoubt connects as, and turn performance_schema's transaction instrument on (performance-schema-instrument='transaction=ON', performance-schema-consumer-events-transactions-current=ON) so branches still held by a session are told apart; then `indoubt resolve mysql XID --dry-run` for its decision.",
    }

    XA_UNREADABLE = "xa_unreadable" {
        meaning: "Part of what `mysql xa` reads could not be read (information_schema.innodb_trx, the lock waits, performance_schema, the history list); XA RECOVER itself was read. The finding says which and what is left unknown.",
        why: "What was not read is not known: branch ages, the sessions they block or the purge lag may be missing.",
        fix: "Connect as a user with PROCESS: `GRANT PROCESS ON *.* TO 'monitor'@'%'` (and, on MySQL 8, `GRANT SELECT ON performance_schema.* TO 'monitor'@'%'`), or raise --timeout if it timed out.",
    }

    BLOCKED_BY_XA = "blocked_by_xa" {
        meaning: "Sessions wait for row locks held by an InnoDB transaction no session holds (a prepared XA branch), which could not be matched to one branch of those XA RECOVER lists.",
        why: "They wait until the branch is finished or their innodb_lock_wait_timeout ends them, again and again.",
        fix: "Resolve the prepared branches with `indoubt resolve mysql XID --dry-run` (each with its coordinator's decision).",
    }

    MYSQL_UNPRIVILEGED = "mysql_unprivileged" {
        meaning: "`config show --check`: the user a mysql target connects as cannot read what `mysql xa` needs (XA RECOVER, information_schema.innodb_trx), or performance_schema does not record transactions, so which branches live sessions hold cannot be told.",
        why: "`mysql xa` then reports branch ages, locks and victims as UNKNOWN (or only as lower bounds) on that server, and check's alert rests on less.",
        fix: "Grant what the check names, e.g. `GRANT PROCESS ON *.* TO 'monitor'@'%'`; turn on performance-schema-instrument='transaction=ON' and performance-schema-consumer-events-transactions-current=ON in the server's configuration.",
    }

    PURGE_LAG = "purge_lag" {
        meaning: "InnoDB's history list length (undo of committed changes that purge has not removed) of a MySQL or MariaDB server, against the thresholds, with the oldest transaction still open: purge cannot remove undo that transaction may still need to read.",
        why: "A long history list slows every read that walks old row versions and grows the undo tablespaces; a prepared XA branch or a forgotten open transaction keeps it growing until it ends.",
        fix: "End the oldest transaction: a prepared XA branch with `indoubt resolve mysql XID --dry-run`, a session with KILL <id> after checking what it does; then purge catches up by itself.",
    }

    SLOTS = "slots" {
        meaning: "`pg slots` summary: the replication slots read, none over a threshold.",
        why: "An OK line that says what was looked at (pg_replication_slots).",
        fix: "Nothing to do.",
    }

    SLOT_WAL_LOST = "slot_wal_lost" {
        meaning: "A replication slot was invalidated: wal_status is lost (or it has an invalidation reason), because it retained more WAL than max_slot_wal_keep_size allowed, or for another reason the server names.",
        why: "Its consumer (a standby, a logical replication subscriber, a CDC connector) cannot continue from it: the WAL it needs is gone. It holds nothing back any more.",
        fix: "Rebuild the consumer from a fresh copy (a new base backup for a standby, a new snapshot for a logical consumer), then drop the dead slot: `SELECT pg_drop_replication_slot('SLOT')`",
    }

    SLOT_WAL_UNRESERVED = "slot_wal_unreserved" {
        meaning: "A slot's wal_status is unreserved: it retains more WAL than max_wal_size and max_slot_wal_keep_size guarantee, and the next checkpoint may remove WAL it needs.",
        why: "The slot is about to be lost (wal_status lost), and its consumer with it.",
        fix: "Let the consumer catch up now (restart it, see `indoubt pg slots` for its position), or accept that the slot will be lost and rebuild the consumer.",
    }

    SLOT_RETAINED_WAL = "slot_retained_wal" {
        meaning: "An inactive replication slot retains more WAL than the warning or critical size (thresholds.slots).",
        why: "The server keeps every WAL segment since the slot's restart_lsn: pg_wal grows until the disk is full, and a full pg_wal disk stops the server.",
        fix: "Restart the slot's consumer, or drop the slot (its consumer loses its position): `SELECT pg_drop_replication_slot('SLOT');` (see `indoubt pg slots`).",
    }

    SLOT_CATALOG_XMIN = "slot_catalog_xmin" {
        meaning: "A logical slot's catalog_xmin is old (over thresholds.horizon xids): its consumer has not confirmed a position past it.",
        why: "Vacuum cannot remove dead rows of the system catalogs in any database while it holds: catalog bloat, and in the end wraparound.",
        fix: "Restart or unstick the consumer; if it is gone, drop the slot: `SELECT pg_drop_replication_slot('SLOT');`. `indoubt pg horizon` shows whether it is what holds the horizon back.",
    }

    SLOT_XMIN = "slot_xmin" {
        meaning: "A physical slot's xmin is old (over thresholds.horizon xids): it keeps the xmin a standby sent with hot_standby_feedback.",
        why: "Vacuum cannot remove dead rows in any database while it holds, even while the standby is away.",
        fix: "Bring the standby back so its feedback moves on, or drop the slot: `SELECT pg_drop_replication_slot('SLOT');` (see `indoubt pg horizon`).",
    }

    MAX_SLOT_WAL_KEEP_SIZE_UNLIMITED = "max_slot_wal_keep_size_unlimited" {
        meaning: "max_slot_wal_keep_size is -1 (unlimited) while inactive slots retain WAL.",
        why: "Nothing stops an abandoned slot from filling the disk with WAL; with a limit, the slot is invalidated (wal_status lost) instead.",
        fix: "Set a limit the disk can hold: `ALTER SYSTEM SET max_slot_wal_keep_size = '50GB'`, then `SELECT pg_reload_conf()`",
    }

    HORIZON_HOLDER = "horizon_holder" {
        meaning: "Something holds an xmin: an open or idle-in-transaction session, a prepared transaction, a replication slot or a standby's hot_standby_feedback. Each database has its own horizon, as the server computes it: a session's or prepared transaction's xmin counts only in its own database (and the shared catalogs), a slot's xmin and standby feedback in every database, a logical slot's catalog_xmin in the system catalogs of every database. The finding says where vacuum waits for this holder (it holds the oldest xmin there), with whom it holds it jointly (the same xmin: all must end), or that it holds back nothing now because an older holder is in front of it. The first finding is the holder vacuum waits for, oldest first; OK when nothing holds an xmin.",
        why: "Where it holds the horizon, vacuum cannot remove rows deleted since: tables and indexes bloat, queries slow down, and xids age towards wraparound. Ending a holder frees nothing while another holds the same or an older xmin where it counts.",
        fix: "End the holders vacuum waits for, as the finding's next says (it is given only where ending that holder moves the horizon): a session with `SELECT pg_terminate_backend(PID);`, a prepared transaction with `indoubt resolve pg 'GID' --dry-run`; a slot with `indoubt pg slots` (restart its consumer or drop it); standby feedback by cancelling the query on the standby. `indoubt pg horizon` lists, per database, whose xmin its vacuum waits for.",
    }

    WRAPAROUND = "wraparound" {
        meaning: "A database's age(datfrozenxid) or mxid_age(datminmxid) is over the wraparound warning or critical count (thresholds.wraparound); OK lines show every database's age.",
        why: "At about 2 billion xids the server stops assigning transaction ids and accepts no writes until the database is vacuumed; autovacuum's anti-wraparound vacuum cannot finish while something holds the horizon back.",
        fix: "First end what holds the horizon (`indoubt pg horizon` names it), then freeze the oldest tables of that database: `vacuumdb --freeze -d DB` (or `VACUUM (FREEZE) TABLE`); check that autovacuum keeps up.",
    }

    OUTBOX_BACKLOG = "outbox_backlog" {
        meaning: "An outbox table has unpublished rows older than its thresholds (or a backlog that grew since the previous check).",
        why: "Events the database committed have not reached the broker: consumers act on stale data until the relay catches up.",
        fix: "Check that the relay runs and can publish (its logs, the broker); `indoubt pg outbox NAME` shows the oldest unpublished row; `indoubt reconcile` compares the rows with the topic.",
    }

    OUTBOX_SKIPPED_ROWS = "outbox_skipped_rows" {
        meaning: "Unpublished outbox rows lie below the highest published id and are older than the settle time: a relay that polls WHERE id > last_seen passed them (their transactions committed after a later id was published).",
        why: "Those events will never be published: the dual write is broken for good, silently.",
        fix: "Publish them now (the ids are in the finding's evidence, `-o json`), and make the relay select WHERE published_at IS NULL (or use CDC) instead of a monotonic id cursor.",
    }

    OUTBOX_STATE_UNREADABLE = "outbox_state_unreadable" {
        meaning: "The state file of the previous outbox check (under $XDG_STATE_HOME/indoubt) does not parse.",
        why: "The backlog's growth since the last check is not known this time; the file is replaced, so the next check knows it again.",
        fix: "Nothing, unless it recurs: then check what else writes that file (`ls -l ~/.local/state/indoubt`).",
    }

    OUTBOX_STATE_UNWRITTEN = "outbox_state_unwritten" {
        meaning: "The outbox check could not write its state file (under $XDG_STATE_HOME/indoubt).",
        why: "The next check cannot report how the backlog grew.",
        fix: "Make the state directory writable by the user that runs indoubt, and free disk space: `ls -ld ~/.local/state/indoubt`, `df -h ~/.local/state`.",
    }

    OUTBOX_UNREADABLE = "outbox_unreadable" {
        meaning: "An outbox table of the config could not be read: the connection, the table or a column is wrong, or the role lacks SELECT.",
        why: "Its backlog is not known: UNKNOWN, not OK.",
        fix: "Check the outbox entry in the config (`indoubt config show`) and `GRANT SELECT ON TABLE TO ROLE`.",
    }

    OUTBOX_UNPRUNED = "outbox_unpruned" {
        meaning: "An outbox table keeps rows published longer ago than its retention (outbox.NAME.retention, default 7d): nothing deletes them.",
        why: "The table and its indexes grow without bound, and so does every scan the relay and indoubt make of it.",
        fix: "Delete published rows older than the retention on a schedule, in batches: `DELETE FROM TABLE WHERE id IN (SELECT id FROM TABLE WHERE published_at < now() - interval '7 days' LIMIT 10000)` until none is left (or partition by time and drop old partitions).",
    }

    INBOX_SIZE = "inbox_size" {
        meaning: "An inbox (deduplication) table keeps processed ids no longer than its retention, and the retention covers the producers' retry horizon: its rows, size and oldest are shown.",
        why: "An inbox keeps ids to drop a message delivered again; kept within its retention it stays bounded.",
        fix: "Nothing to do.",
    }

    INBOX_UNRETAINED = "inbox_unretained" {
        meaning: "An inbox keeps processed ids older than its retention (plus a day for a daily job), or no retention is configured for it, so nothing says anything deletes them.",
        why: "An inbox nobody prunes grows for ever: slower inserts and lookups, bigger backups, and a vacuum that never catches up.",
        fix: "Delete ids older than the retention on a schedule, in batches (`DELETE FROM TABLE WHERE id IN (SELECT id FROM TABLE WHERE COLUMN < now() - interval '14 days' LIMIT 10000)`, or drop old partitions), and name the retention (and the producers' retry horizon) under inbox: NAME: in the config.",
    }

    INBOX_RETENTION_SHORT = "inbox_retention_short" {
        meaning: "An inbox keeps processed ids for less time (retention) than a producer may deliver a message again (producer_retry_horizon).",
        why: "A duplicate delivered after its id was deleted is not recognised: the consumer applies it a second time (a second charge, a second shipment).",
        fix: "Keep ids at least as long as the producers' retry horizon (raise the retention, or make the deleting job keep longer), or bound the producers' redelivery (their retries, replays) below the retention; then set `retention:` in the config to match.",
    }

    INBOX_UNREADABLE = "inbox_unreadable" {
        meaning: "An inbox table of the config could not be read.",
        why: "Its size is not known: UNKNOWN.",
        fix: "Check the inbox entry in the config (`indoubt config show`) and `GRANT SELECT ON TABLE TO ROLE`.",
    }

    LSO = "lso" {
        meaning: "`kafka lso` summary: the partitions read, none with an LSO gap over a threshold.",
        why: "An OK line that says what was looked at.",
        fix: "Nothing to do.",
    }

    LSO_GAP = "lso_gap" {
        meaning: "A partition's last stable offset (LSO) is behind its high watermark by more than the gap threshold, or its first unstable record is older than the age threshold: an open transaction pins it.",
        why: "read_committed consumers (Kafka Streams, exactly-once pipelines) read nothing past the LSO: they stall and their lag grows, although the data is there.",
        fix: "Find the transaction: `indoubt kafka hanging --topic TOPIC --partition N`; if it hangs, abort it with `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --dry-run`, then without --dry-run.",
    }

    LSO_GAP_UNEXPLAINED = "lso_gap_unexplained" {
        meaning: "A partition has an LSO gap, but the producers (DescribeProducers) or records (Fetch) needed to name the transaction pinning it could not be read.",
        why: "The gap is real, but which producer holds it is not known.",
        fix: "Give the principal READ on the topic (DescribeProducers and Fetch need it), then run `indoubt kafka lso --topic TOPIC` again.",
    }

    LSO_UNREADABLE = "lso_unreadable" {
        meaning: "A partition's offsets (ListOffsets) could not be read.",
        why: "Its LSO gap is not known: UNKNOWN.",
        fix: "Check that its leader is up and that the principal has DESCRIBE on the topic; raise the bound if it timed out: `indoubt kafka lso --topic TOPIC --timeout 30s`.",
    }

    TOPIC_UNREADABLE = "topic_unreadable" {
        meaning: "A topic could not be described (Metadata returned an error for it): it does not exist, or the principal may not describe it.",
        why: "None of its partitions were looked at: UNKNOWN.",
        fix: "Check the name (`kafka-topics.sh --bootstrap-server HOST:PORT --list`) and the ACLs: DESCRIBE on the topic.",
    }

    HANGING = "hanging" {
        meaning: "`kafka hanging` summary: no open transaction older than the maximum transaction timeout in the partitions searched.",
        why: "An OK line that says what was searched.",
        fix: "Nothing to do.",
    }

    HANGING_TRANSACTION = "hanging_transaction" {
        meaning: "A producer has a transaction open on a partition longer than the maximum transaction timeout, and no coordinator will end it (its transactional id is gone, or its coordinator does not list this partition): a hanging transaction.",
        why: "It pins the partition's LSO forever: read_committed consumers stall, and the log cannot be compacted or cleaned past it.",
        fix: "Abort it: `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --dry-run` shows the marker it would send (as kafka-transactions.sh abort); run it without --dry-run to send it.",
    }

    LONG_TRANSACTION = "long_transaction" {
        meaning: "A transaction has been open longer than the maximum transaction timeout, but its coordinator still owns it.",
        why: "The coordinator will abort it at its transaction.timeout.ms; until then it pins the LSO.",
        fix: "Find the producer that left it open (the transactional id is in the finding); `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --force --dry-run` shows how to abort it now, as a recorded heuristic.",
    }

    TRANSACTION_UNJUDGEABLE = "transaction_unjudgeable" {
        meaning: "A transaction is open past the timeout, but the brokers (before Kafka 3.0) cannot say whether its coordinator still owns it.",
        why: "It may be hanging; asking again would tell no more.",
        fix: "If you know its producer is gone: `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --force --dry-run`, then without --dry-run (a recorded heuristic, with a reason).",
    }

    BROKER_UNKNOWN = "broker_unknown" {
        meaning: "The broker given with --broker-id is not in the cluster metadata.",
        why: "No partition was searched for it.",
        fix: "Use a broker id the cluster has: `kafka-broker-api-versions.sh --bootstrap-server HOST:PORT` lists them.",
    }

    PARTITION_UNKNOWN = "partition_unknown" {
        meaning: "The partition given with --partition does not exist in that topic.",
        why: "Nothing was searched.",
        fix: "Use an existing partition: `kafka-topics.sh --bootstrap-server HOST:PORT --describe --topic TOPIC` lists them.",
    }

    PRODUCERS_UNREADABLE = "producers_unreadable" {
        meaning: "A partition's producers (DescribeProducers) could not be read.",
        why: "An open transaction on it would not be seen: UNKNOWN.",
        fix: "Give the principal READ on the topic (DescribeProducers needs it); check that the leader is up; then `indoubt kafka producers --topic TOPIC --partition N`.",
    }

    TRANSACTIONS_UNREADABLE = "transactions_unreadable" {
        meaning: "The transactions a coordinator knows (ListTransactions or DescribeTransactions) could not be read.",
        why: "Whether a transaction's coordinator still owns it cannot be told: verdicts that depend on it are UNKNOWN.",
        fix: "Give the principal DESCRIBE on the TransactionalId resources (or on the cluster); check that the brokers are up; then `indoubt kafka transactions`.",
    }

    PRODUCERS = "producers" {
        meaning: "`kafka producers` summary: the active producers of the partition and how many have an open transaction.",
        why: "An OK line that says what was read.",
        fix: "Nothing to do; `indoubt kafka hanging --topic TOPIC --partition N` judges an open transaction.",
    }

    TRANSACTIONS = "transactions" {
        meaning: "`kafka transactions` summary: the transactions listed, none past its timeout.",
        why: "An OK line that says what was read.",
        fix: "Nothing to do.",
    }

    TRANSACTION_PAST_TIMEOUT = "transaction_past_timeout" {
        meaning: "A coordinator reports a transaction open (Ongoing, PrepareCommit, PrepareAbort) for longer than its own transaction.timeout.ms.",
        why: "The coordinator should have aborted it: it is stuck, and its partitions' LSOs with it.",
        fix: "See which partitions it pins: `indoubt kafka hanging`; restart the coordinator's broker if it is stuck, or abort a partition's transaction with `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --dry-run`.",
    }

    TRANSACTION_UNREADABLE = "transaction_unreadable" {
        meaning: "One transactional id could not be described (DescribeTransactions failed).",
        why: "Its state is not known: UNKNOWN.",
        fix: "Give the principal DESCRIBE on that TransactionalId; check that its coordinator is up; then `indoubt kafka transactions --transactional-id ID`.",
    }

    RECONCILED = "reconciled" {
        meaning: "`reconcile`: every row of the window is in the topic (rows in the settle window are pending, not judged).",
        why: "An OK line with what was compared.",
        fix: "Nothing to do.",
    }

    MISSING_IN_TOPIC = "missing_in_topic" {
        meaning: "Rows of the database window (older than the settle time) have no message in the topic: their publish was lost.",
        why: "Consumers never saw those events: the dual write is broken, and downstream systems disagree with the database.",
        fix: "Publish them again from the source of truth: `indoubt resolve reconcile JOB` with a republish: query in the job (or from the outbox, or the ids written by `indoubt reconcile JOB --ids-out FILE`); then find why the publish was lost.",
    }

    MISSING_IN_DATABASE = "missing_in_database" {
        meaning: "Messages in the window name ids the database does not have: published, but the database transaction was rolled back (or the rows were deleted).",
        why: "Consumers acted on events that did not happen.",
        fix: "List the ids with `indoubt reconcile JOB --ids-out FILE`; compensate downstream; publish only after commit (an outbox).",
    }

    DUPLICATED_IN_TOPIC = "duplicated_in_topic" {
        meaning: "Ids were published more than once in the window.",
        why: "Consumers that do not deduplicate process those events twice.",
        fix: "Make consumers idempotent (an inbox table: `indoubt pg outbox` watches its size), or make the producer idempotent or transactional.",
    }

    UNPARSEABLE_MESSAGES = "unparseable_messages" {
        meaning: "Messages in the window carry no id where --id-from (or the job's id_from) says it is.",
        why: "Those messages cannot be matched to rows: gaps among them are not seen.",
        fix: "Check id_from (key, header:NAME or json:/pointer) against a message: `kcat -b HOST:PORT -C -t TOPIC -c 1 -f '%k %h %s'`.",
    }

    WINDOW_PAST_RETENTION = "window_past_retention" {
        meaning: "The topic may have lost messages from inside the window (retention, or DeleteRecords): rows are compared only from the first kept message on.",
        why: "Older rows are not judged: a missing message there would not be seen.",
        fix: "Narrow the window to the kept part of the topic (`indoubt reconcile JOB --since 6h`), or compare older rows against another copy of the events.",
    }

    PARTITIONS_EMPTIED = "partitions_emptied" {
        meaning: "Partitions of the topic hold no message any more, and no retention.ms tells when they were emptied (DeleteRecords, retention.bytes).",
        why: "Rows whose events went there may be reported missing though they were published.",
        fix: "Treat their missing ids with care: narrow the window (`indoubt reconcile JOB --since 6h`), or compare against another copy of the events.",
    }

    TOPIC_COMPACTED = "topic_compacted" {
        meaning: "The topic's cleanup.policy includes compact: Kafka keeps only the newest message of each key.",
        why: "Duplicates are undercounted, and ids not taken from the key may be reported missing.",
        fix: "Reconcile against a topic with cleanup.policy=delete, or take the id from the key: `indoubt reconcile JOB --id-from key`.",
    }

    NOT_JUDGED_PAST_LSO = "not_judged_past_lso" {
        meaning: "Rows whose events lie beyond a partition's LSO were not judged: read_committed cannot read there, so whether they were committed is not known.",
        why: "An open (maybe hanging) transaction hides them; they are neither missing nor present.",
        fix: "Find the open transaction: `indoubt kafka lso --topic TOPIC` and `indoubt kafka hanging --topic TOPIC`; reconcile again once the LSO moves.",
    }

    ALREADY_RESOLVED = "already_resolved" {
        meaning: "resolve: the transaction asked for is gone, and that it was resolved is established: the audit trail records who resolved it, when and how, or another session finished it the same way while indoubt looked (its transaction's status says so). resolve saga: the instance already has an open item in the manual queue, or the entity is no longer held.",
        why: "Nothing needed doing; exit 0.",
        fix: "Nothing. `indoubt audit list` shows the resolution recorded.",
    }

    RESOLVED_ANOTHER = "resolved_another" {
        meaning: "resolve pg: COMMIT PREPARED or ROLLBACK PREPARED ran, but the transaction reviewed (its xid) did not get that decision: between the re-read and the statement it ended, and another transaction was prepared under the same GID and got the statement instead. Or its xid's status could not be read to confirm.",
        why: "A transaction nobody reviewed was committed or rolled back. Recorded in the audit trail as `mismatch`; exit 2.",
        fix: "`indoubt audit list` shows the record (status mismatch, the xid reviewed); find the application that reuses the GID and what its transaction did, and check the effects of both in the database. Coordinators must never reuse a GID.",
    }

    NOT_THERE = "not_there" {
        meaning: "resolve: nothing by the id asked for is there to resolve (no prepared transaction with that GID, no XA branch with that XID, no open transaction at that offset, no job, external task or incident with that id in a Camunda engine, no DBOS workflow with that id, no instance of a saga or entity of its lock table with that id; for a saga or an entity one id not found stops every id), and the audit trail has no record of indoubt resolving it. A mistyped id, an id copied with its quotes, the wrong server, or a resolution made by other means.",
        why: "Nothing was done, and nothing says the transaction was ever resolved: a runbook must not read this as done. Exit 3.",
        fix: "Check the id against what is there (the finding names the closest ones: `did you mean`): `indoubt pg prepared`, `indoubt mysql xa`, `indoubt kafka transactions`, `indoubt camunda incidents`, `indoubt dbos workflows`, `indoubt saga`; check the server (--pg, --mysql, -b).",
    }

    DRY_RUN = "dry_run" {
        meaning: "resolve --dry-run: the evidence and the exact statement or request, nothing changed, nothing recorded.",
        why: "The step before a resolution: check the decision and the statement.",
        fix: "Run the same command without --dry-run to act, e.g. `indoubt resolve pg 'GID'` (it asks for confirmation first).",
    }

    NOT_CONFIRMED = "not_confirmed" {
        meaning: "resolve: the confirmation was not given: the typed token did not match, Ctrl-D or Esc, no reason for a heuristic decision, --yes without --reason, or no terminal to ask at. Nothing done.",
        why: "A resolution acts only after an explicit confirmation; exit 1.",
        fix: "Run it again and type the token shown, or in a runbook name the decision: `indoubt resolve pg 'GID' --commit --yes --reason TEXT`.",
    }

    NOT_RECORDED = "not_recorded" {
        meaning: "resolve: the intent could not be written to the audit log, so nothing was done.",
        why: "indoubt never acts without a record of it.",
        fix: "Make the audit log writable (--audit-log FILE or audit.path in the config), check it with `indoubt audit verify`, then run it again.",
    }

    OUTCOME_NOT_RECORDED = "outcome_not_recorded" {
        meaning: "resolve: the statement or request ran, but its outcome could not be written to the audit log (a full disk, say); the intent is recorded, so `audit verify` lists it as outcome unknown.",
        why: "The trail is missing what came of an action that did run; running it again is not the fix.",
        fix: "Copy the outcome shown into the ticket, free space where the audit log is, and check `indoubt audit verify`.",
    }

    RESOLVED = "resolved" {
        meaning: "resolve: the statement (COMMIT PREPARED, ROLLBACK PREPARED) or the abort marker was applied, and recorded in the audit log.",
        why: "Done; exit 0.",
        fix: "Check that what it blocked moved on: `indoubt pg prepared`, `indoubt kafka lso`; `indoubt audit list` shows the record.",
    }

    FAILED = "failed" {
        meaning: "resolve: the statement or request failed, or the transaction could not be read again right before acting; the finding names the server's error.",
        why: "What happened is in the audit log as the outcome; the transaction may still be in doubt.",
        fix: "Read the error (42501: connect as its owner or a superuser); see its state now with `indoubt resolve pg 'GID' --dry-run` (or the same `indoubt resolve kafka` line with --dry-run).",
    }

    BUSY = "busy" {
        meaning: "resolve pg: another session is finishing the same prepared transaction right now (SQLSTATE 55000).",
        why: "Nothing done; the other session's outcome decides it.",
        fix: "Wait, then see whether it is gone: `indoubt pg prepared`.",
    }

    LOST_RACE = "lost_race" {
        meaning: "resolve pg: another session finished the transaction first, the other way (or a way that cannot be told); the statement was not run.",
        why: "The decision asked for was not applied; its global transaction's other branches may need the same check.",
        fix: "Check its effects in its database and the other branches of its global transaction (`indoubt pg prepared` on each participant).",
    }

    CHANGED_MEANWHILE = "changed_meanwhile" {
        meaning: "resolve kafka: the transaction changed between the confirmation and the action (ended, or another one opened). resolve camunda: the job or external task is gone or its retries changed; resolve dbos: the workflow's status changed. Nothing was sent.",
        why: "indoubt acts only on what was confirmed.",
        fix: "See its state now: the same command with --dry-run, e.g. `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --dry-run`.",
    }

    NOT_OWNER = "not_owner" {
        meaning: "resolve pg: the connected role neither prepared this transaction nor is a superuser; PostgreSQL lets only those finish it.",
        why: "Nothing done, nothing recorded; exit 3.",
        fix: "Connect as its owner (the finding names it) or a superuser: `indoubt resolve pg 'GID' -U OWNER --dry-run`.",
    }

    DATABASE_NOT_UTF8 = "database_not_utf8" {
        meaning: "resolve pg: the transaction's database has a name that is not UTF-8, so indoubt cannot connect to it.",
        why: "The statement must run in the transaction's own database; nothing done.",
        fix: "Run `COMMIT PREPARED 'GID'` or `ROLLBACK PREPARED 'GID'` there with psql, by the coordinator's decision.",
    }

    DECISION_CONFLICT = "decision_conflict" {
        meaning: "resolve: the decision asked for (--commit or --rollback) contradicts what a decision source recorded.",
        why: "Acting on it would commit one branch of a global transaction and roll back another: atomicity broken. Refused.",
        fix: "Drop the flag to take the sources' decision (`indoubt resolve pg 'GID' --dry-run` shows it); --force makes it a recorded heuristic decision, with a reason.",
    }

    COORDINATOR_DECIDING = "coordinator_deciding" {
        meaning: "resolve: the transaction is young enough that its coordinator may still be deciding, and no source has its decision yet.",
        why: "A decision now could contradict the coordinator's. Refused.",
        fix: "Wait and run `indoubt resolve pg 'GID' --dry-run` again; --force makes it a recorded heuristic decision.",
    }

    TCC_PHASE_CONFLICT = "tcc_phase_conflict" {
        meaning: "resolve tcc: the phase named (--as cancelled or confirmed) contradicts what the coordinator decided for the Try's global transaction (rolling back or committing).",
        why: "The coordinator's next retry would run the other phase: a reservation released that its global committed, or kept that it rolled back. Refused.",
        fix: "Do by hand the phase the coordinator decided (`indoubt seata tcc` shows its global's status), then mark that one: `indoubt resolve tcc XID --branch-id N --as cancelled` for a rollback.",
    }

    AT_NOT_RETRIED = "at_not_retried" {
        meaning: "resolve at: the branch's global transaction is not a rollback the coordinator retries: it is still open (Begin), decided to commit, given up (RollbackFailed, TimeoutRollbackFailed), or gone from the store.",
        why: "Both fixes only let the coordinator's next retry of the rollback succeed: with no retry coming, rows set back to the after image would stay that way (the later change lost and nothing restored), and a deleted undo log would change nothing. Refused.",
        fix: "For a given-up global: decide with the service's owner what the rows must become, write that by hand, delete the branch's undo_log row, and remove the session through the coordinator. For an open one: wait for its timeout and run `indoubt seata globals` again.",
    }

    AT_NOT_FIXABLE = "at_not_fixable" {
        meaning: "resolve at: the branch's rows cannot be set back to its after image as read: a row was deleted since, a column holds a type indoubt does not write (a timestamp, bytes), or not every row of the branch could be compared with the table now.",
        why: "Setting back only some rows, or rows indoubt did not compare, would not let the rollback succeed, or would write what was not checked. Refused.",
        fix: "Restore those rows by hand to the after image `indoubt -o json seata globals` shows, or use `--fix undo-log` (the later change stays), and let the coordinator retry.",
    }

    AT_NOTHING_TO_FIX = "at_nothing_to_fix" {
        meaning: "resolve at: every row of the branch is as the branch left it (or already as before it): no dirty write holds its rollback up.",
        why: "The coordinator's next retry can roll the branch back as it is; nothing needed doing (exit 0).",
        fix: "If the global still does not end, check that a client of the branch's resource runs and reaches the coordinator (`indoubt seata globals` shows its branches), and read the coordinator's log for its xid.",
    }

    TCC_UNDECIDED = "tcc_undecided" {
        meaning: "resolve tcc: the Try's global transaction has not been asked to end (Begin): its coordinator has decided nothing yet.",
        why: "Marking the Try now would pre-empt a decision not yet made. Refused.",
        fix: "Wait for its timeout (the coordinator rolls it back then) and run `indoubt seata tcc` again.",
    }

    PROPOSAL_ONLY = "proposal_only" {
        meaning: "resolve --yes without --commit or --rollback: the sources propose a decision, but a runbook acts only on one it names.",
        why: "A proposal can change between runs; an unattended run must say what it does.",
        fix: "Name the decision: `indoubt resolve pg 'GID' --commit --yes --reason TEXT` (or --rollback).",
    }

    CALL_ONLY = "call_only" {
        meaning: "resolve camunda: no REST API is configured for the engine, so the call that would set the retries is printed; resolve dbos: no DBOS CLI is configured, so DBOS's command is printed. Nothing is sent or run (indoubt never changes a workflow engine's state in SQL).",
        why: "Nothing was done, on a dry run too; exit 1.",
        fix: "Run the printed call or command where it can reach the engine, or name the API (`rest: http://HOST:8080/engine-rest`) or DBOS's CLI (`cli: [/path/to/dbos]`) under the section and run the resolve again.",
    }

    NO_DECISION = "no_decision" {
        meaning: "resolve: no decision source has the coordinator's decision, and none was asked for.",
        why: "indoubt does not guess; nothing done.",
        fix: "Take the decision yourself, with the evidence: `indoubt resolve pg 'GID' --commit` (or --rollback), recorded as a heuristic with a reason.",
    }

    NOT_JUDGED = "not_judged" {
        meaning: "resolve kafka: whether the transaction hangs cannot be told (brokers before Kafka 3.0, or its coordinator could not be read). resolve dbos: resuming a PENDING workflow while DBOS processes are connected (whether its own is alive is not known), or a workflow in ERROR (DBOS's resume and cancel do nothing for it). resolve camunda: a job or task with retries left and no incident (nothing to give back). resolve saga: escalating an instance that is done or not stuck (moving within its time), or releasing an entity whose saga still runs within its time.",
        why: "Acting on what the evidence does not support could break what still runs (abort a live transaction, run a workflow twice); nothing done.",
        fix: "If you know its producer is gone: `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --force --dry-run`; a DBOS workflow whose process you know is gone: `indoubt resolve dbos NAME ID --resume --executor-gone --dry-run`; a saga: `indoubt saga NAME` shows whether it is stuck (wait until it is, or let the service finish it); else fix what could not be read and run it again.",
    }

    OWNED_BY_COORDINATOR = "owned_by_coordinator" {
        meaning: "resolve kafka: the transaction's coordinator still owns it; it will abort it at its transaction.timeout.ms.",
        why: "Refused: the coordinator will end it; aborting it now is a heuristic.",
        fix: "Wait for the timeout (`indoubt kafka lso --topic TOPIC` shows when the LSO moves), or abort it now: `indoubt resolve kafka --topic TOPIC --partition N --start-offset OFFSET --force --dry-run`, then without --dry-run (a recorded heuristic, with a reason).",
    }

    SIBLINGS_UNCHECKED = "siblings_unchecked" {
        meaning: "resolve pg: a participants target could not be searched for other branches of the global transaction.",
        why: "Whether other branches are still prepared there is UNKNOWN; exit 3.",
        fix: "Make the target reachable (`indoubt config show`), then `indoubt pg prepared --pg TARGET` there.",
    }

    BRANCH_LEFT_ALONE = "branch_left_alone" {
        meaning: "resolve pg --all-branches: one branch of the global transaction was not resolved; the finding says why.",
        why: "The global transaction stays partly in doubt.",
        fix: "Resolve it on its own: `indoubt resolve pg 'GID' --pg TARGET --dry-run`.",
    }

    OTHER_BRANCHES_PREPARED = "other_branches_prepared" {
        meaning: "resolve pg: other branches of the same global transaction are still prepared (on this server's other databases or the resolve.participants targets).",
        why: "Each branch must get the same decision, or the global transaction is not atomic.",
        fix: "Apply the same decision to them: `indoubt resolve pg 'GID' --all-branches --dry-run`, or resolve each one by its GID.",
    }

    AUDIT_RECORDS = "audit_records" {
        meaning: "`audit list`: how many audit records matched.",
        why: "An OK line.",
        fix: "Nothing to do.",
    }

    AUDIT_NO_RECORDS = "audit_no_records" {
        meaning: "`audit list`: there is no audit log yet; the first resolution writes it.",
        why: "OK: nothing has been resolved with indoubt at this path.",
        fix: "Nothing; if resolutions were made, check --audit-log or audit.path in the config.",
    }

    AUDIT_NO_TRAIL = "audit_no_trail" {
        meaning: "`audit verify`: there is no audit log (and no head) at the path: nothing was ever recorded there, or the log was removed with its head.",
        why: "Nothing can be verified, and a removed trail looks exactly like one never written.",
        fix: "Check the path (`--audit-log`, `audit.path` in the config) and where resolutions were recorded; `indoubt audit verify --audit-log FILE` for the right one.",
    }

    AUDIT_CHAIN = "audit_chain" {
        meaning: "`audit verify`: the hash chain is intact and every intent has its outcome.",
        why: "The record of resolutions has not been edited, reordered or cut.",
        fix: "Nothing to do.",
    }

    AUDIT_CHAIN_BROKEN = "audit_chain_broken" {
        meaning: "The audit log's hash chain is broken: a record was edited, removed, reordered, or the log was cut; the finding says where.",
        why: "The record of resolutions can no longer be trusted past that point.",
        fix: "Keep a copy of the file for investigation and compare it with backups; `indoubt audit verify` names each break.",
    }

    AUDIT_HEAD_BEHIND = "audit_head_behind" {
        meaning: "The audit log's head file names an earlier record than the last one (a head write failed or was interrupted).",
        why: "Truncation after that point could not be detected until the head is current.",
        fix: "Free space if the disk is full; the next resolution brings the head up to date, or `indoubt audit reseal --reason TEXT` does now.",
    }

    OUTCOME_UNKNOWN = "outcome_unknown" {
        meaning: "An intent in the audit log has no outcome record: indoubt was stopped (or crashed) between recording the intent and the outcome.",
        why: "Whether the action ran is not recorded.",
        fix: "Check the object itself: `indoubt pg prepared` (is the GID still there?) or `indoubt kafka hanging`.",
    }

    AUDIT_RESEALED = "audit_resealed" {
        meaning: "The audit log's head was re-made (`audit reseal`): who, when, why and what the old head said are in the reseal record.",
        why: "Records cut off before the reseal can no longer be ruled out.",
        fix: "Nothing, if the reseal was expected; otherwise ask who ran it: `indoubt audit list` shows the reseal record and its user.",
    }

    AUDIT_HEAD_MATCHES = "audit_head_matches" {
        meaning: "`audit reseal`: the head already names the last record; nothing was done.",
        why: "OK.",
        fix: "Nothing to do.",
    }

    AUDIT_HEAD_REPAIRED = "audit_head_repaired" {
        meaning: "`audit reseal`: the head was one record behind and was brought up to date; the chain is intact, nothing was lost, no record was needed.",
        why: "OK.",
        fix: "Nothing to do.",
    }

    CONFIG = "config" {
        meaning: "`config show`: the config file in force and what it names.",
        why: "An OK line.",
        fix: "Nothing to do.",
    }

    CONFIG_TARGET_UNUSABLE = "config_target_unusable" {
        meaning: "A target in the config cannot be used (its address does not parse, a file it names is missing, a secret reference does not resolve); the finding says why.",
        why: "Every command and check that uses it fails: UNKNOWN.",
        fix: "Correct that target in the config file; `indoubt config show` names it and says why.",
    }

    CONFIG_REFERENCE_UNUSABLE = "config_reference_unusable" {
        meaning: "A section of the config (a reconcile job, an outbox, a decision source, resolve's participants) names a postgres or kafka target the config does not define, or a connection string that cannot be used.",
        why: "The command or check that uses that section fails: UNKNOWN.",
        fix: "Define the target under `postgres:` or `kafka:`, or correct the name; `indoubt config show` names the section.",
    }

    TARGET_CHECKED = "target_checked" {
        meaning: "`config show --check`: the target was reached and every check of it passed: the role or principal may read everything indoubt reads there.",
        why: "An OK line per target; the table under it names each check.",
        fix: "Nothing to do.",
    }

    TARGET_UNREACHABLE = "target_unreachable" {
        meaning: "`config show --check`: indoubt could not connect to the target (refused, no answer within --timeout, wrong password, no such database, TLS), a Camunda engine's REST API did not answer as the engine's (or its settings make none: plain http to another host, a password file others may write), or a DBOS application's CLI is not there to run; the finding carries the error and its hint.",
        why: "Nothing about the target could be established: every command and check that uses it fails the same way. UNKNOWN; the other targets are still checked.",
        fix: "Follow the hint of the finding, then `indoubt config show --check` again (or `indoubt pg prepared --pg TARGET` for the error alone).",
    }

    PG_ROLE_UNPRIVILEGED = "pg_role_unprivileged" {
        meaning: "`config show --check`: the role is neither a superuser nor a member of pg_monitor or pg_read_all_stats.",
        why: "PostgreSQL hides the query text, state, transaction start and client address of other roles' sessions from it: pg horizon shows idle-in-transaction holders as plain sessions without an age, and pg prepared shows the sessions a prepared transaction blocks without their query.",
        fix: "Grant the monitoring role (the finding's next names it): `GRANT pg_monitor TO \"ROLE\";`",
    }

    PG_CATALOG_UNREADABLE = "pg_catalog_unreadable" {
        meaning: "`config show --check`: a catalog view indoubt reads may not be selected, a function it calls may not be executed, or a setting it reads is hidden from the role (has_table_privilege, has_function_privilege, pg_settings); the finding names them and the commands each one blinds.",
        why: "Those commands fail or leave out what they would have read; without pg_prepared_xacts pg prepared cannot work at all (CRITICAL).",
        fix: "Run the GRANT of the finding's next, e.g. `GRANT EXECUTE ON FUNCTION pg_catalog.pg_ls_waldir() TO \"ROLE\";`",
    }

    PG_DATABASE_BLIND_SPOT = "pg_database_blind_spot" {
        meaning: "`config show --check`: the role may not CONNECT to some databases of the cluster (has_database_privilege); the finding names them.",
        why: "Prepared transactions are listed cluster-wide, but pg prepared names the relations they lock by connecting to their database, pg horizon reads each database's dead tuples there, and resolve pg runs COMMIT/ROLLBACK PREPARED in the transaction's own database: in those databases they are blind.",
        fix: "Run the GRANT of the finding's next: `GRANT CONNECT ON DATABASE \"DB\" TO \"ROLE\";`",
    }

    PG_CANNOT_RESOLVE = "pg_cannot_resolve" {
        meaning: "`config show --check`: the role is not a superuser, and prepared transactions another role prepared are on the server now (or some are in databases it may not CONNECT to).",
        why: "PostgreSQL lets only the role that prepared a transaction, or a superuser, run COMMIT PREPARED or ROLLBACK PREPARED: resolve pg refuses those (not_owner) with this role.",
        fix: "Resolve each as its owner (pg prepared shows it): `indoubt resolve pg 'GID' -U OWNER --dry-run`",
    }

    PG_TABLE_UNREADABLE = "pg_table_unreadable" {
        meaning: "`config show --check`: a reconcile job's query, or an outbox's or inbox's table and columns, cannot be read by the role: the table or a column does not exist, or SELECT is not granted (the server's EXPLAIN, has_table_privilege and has_column_privilege say so).",
        why: "That reconcile job or outbox check cannot run at all: CRITICAL.",
        fix: "Run the GRANT of the finding's next, e.g. `GRANT SELECT ON TABLE \"public\".\"outbox\" TO \"ROLE\";` or correct the table and column names in the config (`indoubt config show`).",
    }

    MYSQL_TABLE_UNREADABLE = "mysql_table_unreadable" {
        meaning: "`config show --check`: a table the config names on a MySQL or MariaDB target (a Seata coordinator's store or a client's business database) cannot be read by the account: the table or a column does not exist, or SELECT is not granted (the server's answer to reading none of its rows says which).",
        why: "The check that reads it cannot run at all: CRITICAL.",
        fix: "Run the GRANT of the finding's next, e.g. `GRANT SELECT ON seata.global_table TO 'monitor'@'%';` or correct the table names in the config (`indoubt config show`).",
    }

    KAFKA_ACL_MISSING = "kafka_acl_missing" {
        meaning: "`config show --check`: the broker says the principal may not do an operation indoubt needs (the authorized operations of the cluster or a topic, or a refused DESCRIBE of a transactional id); the finding names the operation, the resource and what it costs.",
        why: "Without READ on a topic, reconcile cannot read it and kafka lso cannot name the transaction behind a gap; without DESCRIBE on transactional ids the broker lists none of them, so kafka transactions is empty and kafka hanging takes a live transaction for a hanging one; without ALTER or CLUSTER_ACTION on the cluster resolve kafka cannot write an abort marker.",
        fix: "Run the kafka-acls.sh line of the finding's next with an admin's credentials, e.g. `kafka-acls.sh --bootstrap-server HOST:PORT --add --allow-principal User:NAME --operation Read --topic TOPIC`",
    }

    KAFKA_ACCESS_UNKNOWN = "kafka_access_unknown" {
        meaning: "`config show --check`: the broker did not say what the principal may do on a resource (its Metadata or DescribeCluster version carries no authorized operations, it reported none because DESCRIBE on the cluster is denied, or the request failed).",
        why: "What indoubt could do there is not established: UNKNOWN, not OK.",
        fix: "Allow DESCRIBE on the cluster so that the broker reports the rest: `kafka-acls.sh --bootstrap-server HOST:PORT --add --allow-principal User:NAME --operation Describe --cluster`",
    }

    KAFKA_API_MISSING = "kafka_api_missing" {
        meaning: "`config show --check`: the broker does not offer an API some indoubt command sends (ApiVersions): DescribeProducers, ListTransactions, DescribeTransactions (Kafka 3.0+), WriteTxnMarkers or DescribeCluster (2.8+).",
        why: "The commands that send it cannot work against this cluster; the finding names them.",
        fix: "Upgrade the brokers; until then use Kafka's own tools: `kafka-transactions.sh --bootstrap-server HOST:PORT find-hanging --broker-id N`",
    }

    CHECK_FAILED = "check_failed" {
        meaning: "`check`: one check gave no answer (an error, or the --deadline passed); the finding names the check and the target.",
        why: "What it would have looked at is not known: UNKNOWN, never silently OK.",
        fix: "Run that check alone for its error (e.g. `indoubt pg prepared --pg TARGET`), or raise --deadline.",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    #[test]
    fn names_are_unique_snake_case_and_match_their_constant() {
        let mut seen = BTreeSet::new();
        for code in crate::commands::probes::codes() {
            let doc = code.doc();
            assert!(seen.insert(doc.name), "{} twice", doc.name);
            assert!(
                doc.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}",
                doc.name
            );
            assert_eq!(doc.ident, doc.name.to_ascii_uppercase());
            for (part, text) in [("meaning", doc.meaning), ("why", doc.why), ("fix", doc.fix)] {
                assert!(!text.trim().is_empty(), "{}: no {part}", doc.name);
            }
            // A fix names what to run (an indoubt command or SQL, in backticks so that
            // wrapping never splits it), unless there is nothing to do.
            assert!(
                doc.fix.starts_with("Nothing") || doc.fix.matches('`').count() >= 2,
                "{}: the fix names no command: {}",
                doc.name,
                doc.fix
            );
            assert_eq!(
                doc.fix.matches('`').count() % 2,
                0,
                "{}: unbalanced backticks",
                doc.name
            );
            assert_eq!(crate::commands::probes::code(doc.name), Some(code));
        }
        assert_eq!(crate::commands::probes::code("no_such_code"), None);
    }

    /// No dead entries: every code is used outside this file and outside tests. The
    /// search is for the constant (`codes::PREPARED_XACT_AGE`), which the compiler
    /// checks at each use, in the code only: comments, string literals and
    /// `#[cfg(test)]` items are removed first, so a mention in a comment, a message or
    /// a test does not count.
    #[test]
    fn every_code_is_used_by_some_finding() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut code = String::new();
        let mut files = vec![root];
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap() {
                    files.push(entry.unwrap().path());
                }
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("codes.rs") {
                // (A list of codes, here or in a probe's folder, is not a use of them.)
                let text = std::fs::read_to_string(&path).unwrap();
                code.push_str(&without_tests(&code_only(&text)));
                code.push('\n');
            }
        }
        let used: BTreeSet<&str> = code
            .match_indices("codes::")
            .map(|(i, m)| {
                let rest = &code[i + m.len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            })
            .collect();
        let dead: Vec<&str> = crate::commands::probes::codes()
            .into_iter()
            .map(|c| c.doc().ident)
            .filter(|ident| !used.contains(ident))
            .collect();
        assert!(dead.is_empty(), "codes no finding uses: {dead:?}");
        // The scan itself: a use in a comment, a string or a test is not a use.
        let sample = "// codes::A\nlet s = \"codes::B\"; /* codes::C */ f(codes::D, 'x', '\\'');\n#[cfg(test)]\nmod tests { fn t() { codes::E; } }\nfn g<'a>() { codes::F }";
        let scanned = without_tests(&code_only(sample));
        for (ident, present) in [
            ("A", false),
            ("B", false),
            ("C", false),
            ("D", true),
            ("E", false),
            ("F", true),
        ] {
            assert_eq!(
                scanned.contains(&format!("codes::{ident}")),
                present,
                "{ident} in {scanned}"
            );
        }
    }

    /// Rust source without its comments, string literals and character literals.
    fn code_only(src: &str) -> String {
        let chars: Vec<char> = src.chars().collect();
        let mut out = String::with_capacity(src.len());
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            if c == '/' && next == Some('/') {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            } else if c == '/' && next == Some('*') {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            } else if c == 'r' && matches!(next, Some('#') | Some('"')) && !ident_before(&chars, i)
            {
                // A raw string: r"…" or r#"…"#.
                let mut j = i + 1;
                let mut hashes = 0;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    out.push(c);
                    i += 1;
                    continue;
                }
                j += 1;
                while j < chars.len() {
                    if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            } else if c == '"' {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            } else if c == '\'' && next == Some('\\') {
                // An escaped character literal: '\n', '\'', '\u{..}'.
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                // Code, or a lifetime ('a).
                out.push(c);
                i += 1;
            }
        }
        out
    }

    fn ident_before(chars: &[char], i: usize) -> bool {
        i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
    }

    /// Code without its `#[cfg(test)]` items (found by their braces, which are
    /// balanced once comments and literals are gone), and without a probe's `PAGES`
    /// (its list of codes is not a use of them).
    fn without_tests(code: &str) -> String {
        without(&without(code, "#[cfg(test)]"), "const PAGES:")
    }

    /// Code without each item that starts with `marker`.
    fn without(code: &str, marker: &str) -> String {
        let mut out = String::with_capacity(code.len());
        let mut rest = code;
        while let Some(at) = rest.find(marker) {
            out.push_str(&rest[..at]);
            let item = &rest[at..];
            let Some(open) = item.find(['{', ';']) else {
                rest = "";
                break;
            };
            if item.as_bytes()[open] == b';' {
                rest = &item[open + 1..];
                continue;
            }
            let mut depth = 0;
            let mut end = item.len();
            for (i, c) in item.char_indices().skip_while(|(i, _)| *i < open) {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &item[end..];
        }
        out.push_str(rest);
        out
    }

    /// Each probe lists, in its `Pages`, exactly the codes its own files use (its
    /// module and the folder beside it, without tests and without the list itself):
    /// a code it reports is on its man page, and the page names no code it never reports.
    #[test]
    fn each_probe_lists_the_codes_it_reports() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for probe in crate::commands::probes::ALL {
            // indoubt::commands::pg_prepared::PgPrepared → src/commands/pg_prepared(.rs|/)
            let module: Vec<&str> = probe.type_name().split("::").skip(1).collect();
            let base = src.join(module[..module.len() - 1].join("/"));
            let mut files = vec![base.with_extension("rs")];
            if let Ok(entries) = std::fs::read_dir(&base) {
                files.extend(entries.map(|e| e.unwrap().path()));
            }
            let mut used = BTreeSet::new();
            for file in files.iter().filter(|f| {
                f.extension().is_some_and(|e| e == "rs")
                    && !f.ends_with("codes.rs")
                    && !f.ends_with("golden.rs")
            }) {
                let text = without_tests(&code_only(&std::fs::read_to_string(file).unwrap()));
                for (i, m) in text.match_indices("codes::") {
                    let rest = &text[i + m.len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if rest[..end]
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
                        && end > 0
                    {
                        used.insert(rest[..end].to_string());
                    }
                }
            }
            let listed: BTreeSet<String> = probe
                .pages()
                .codes
                .iter()
                .map(|c| c.doc().ident.to_string())
                .collect();
            assert_eq!(
                listed,
                used,
                "{}: its Pages.codes against the codes its files use",
                probe.name()
            );
        }
    }
}
