//! The incidents indoubt knows — symptom, the finding codes that report it, the command
//! that shows it, what to look for, the fix and its risk — and the codes that report no
//! incident (a summary, a resolution's outcome). One source for the README's runbook
//! table, indoubt-runbook(7), the alert rules' runbook annotations and `indoubt explain`
//! (src/assets writes the first three; a test fails when a code is in none of these).

/// One row of the runbook.
pub struct Incident {
    /// What the on-call engineer sees: "VACUUM stalls".
    pub symptom: &'static str,
    /// The command and severity that report it: "`pg prepared` CRITICAL".
    pub seen_as: &'static str,
    /// The finding codes that report it (names; each one a documented code).
    pub codes: &'static [&'static str],
    /// The command that shows it.
    pub look: &'static str,
    /// What to look for in that command's answer.
    pub look_for: &'static str,
    /// The fix, dry run first.
    pub fix: &'static str,
    /// What the fix can break.
    pub risk: &'static str,
    /// The alerts of monitoring/indoubt.rules.yml that fire on it; their runbook
    /// annotation is [`Incident::annotation`].
    pub alerts: Alerts,
}

/// How an incident reaches Prometheus.
pub enum Alerts {
    /// These alerts of monitoring/indoubt.rules.yml fire on it.
    Rules(&'static [&'static str]),
    /// No alert can: why (the codes come from a command `check` does not run).
    None(&'static str),
}

impl Incident {
    /// The alert rules' `runbook` annotation: where to look and what to do, in one line.
    pub fn annotation(&self) -> String {
        format!(
            "{} shows it: {}. Fix: {}. Risk: {}",
            self.look,
            self.look_for,
            self.fix.trim_end_matches('.'),
            self.risk.trim_end_matches('.')
        )
    }
}

/// The incident a code reports, if it reports one.
pub fn incident_of(code: &str) -> Option<&'static Incident> {
    INCIDENTS.iter().find(|i| i.codes.contains(&code))
}

/// Why a code reports no incident.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiet {
    /// The OK line of a command: what was read, nothing over a threshold.
    Summary,
    /// What a resolve command did or refused (its own page says each).
    Resolution,
    /// What `audit list`, `audit verify` or `audit reseal` found on a sound trail.
    Audit,
    /// What `config show` and `config show --check` report.
    Config,
}

/// The codes that report no incident, and why.
pub const QUIET: &[(Quiet, &[&str])] = &[
    (
        Quiet::Summary,
        &[
            "prepared_xacts",
            "xa_branches",
            "slots",
            "lso",
            "hanging",
            "producers",
            "transactions",
            "reconciled",
            "inbox_size",
            "check_failed",
            "dbos_system",
            "seata_globals",
            "camunda_engine",
            "saga_ok",
            "seata_sagas",
            "seata_tcc",
            "modulith_registry",
        ],
    ),
    (
        Quiet::Resolution,
        &[
            "already_resolved",
            "resolved_another",
            "not_there",
            "dry_run",
            "not_confirmed",
            "not_recorded",
            "outcome_not_recorded",
            "resolved",
            "failed",
            "busy",
            "lost_race",
            "changed_meanwhile",
            "not_owner",
            "database_not_utf8",
            "decision_conflict",
            "coordinator_deciding",
            "tcc_phase_conflict",
            "at_not_retried",
            "at_not_fixable",
            "at_nothing_to_fix",
            "tcc_undecided",
            "proposal_only",
            "call_only",
            "no_decision",
            "not_judged",
            "owned_by_coordinator",
        ],
    ),
    (
        Quiet::Audit,
        &[
            "audit_records",
            "audit_no_records",
            "audit_no_trail",
            "audit_chain",
            "audit_resealed",
            "audit_head_matches",
            "audit_head_repaired",
        ],
    ),
    (Quiet::Config, &["config", "target_checked"]),
];

/// Every incident, in the order an on-call engineer meets them: PostgreSQL, Kafka, the
/// dual write, MySQL, the saga half, then what indoubt itself cannot see.
pub const INCIDENTS: &[Incident] = &[
    Incident {
        symptom: "VACUUM stalls, locks never clear",
        seen_as: "`pg prepared` CRITICAL",
        codes: &["prepared_xact_age", "blocked_by_prepared"],
        look: "`indoubt pg prepared`",
        look_for: "AGE, LOCKS, BLOCKS; the decoded GID names the coordinator (Narayana node, Atomikos tid, Citus)",
        fix: "`indoubt resolve pg GID --pg T --dry-run`, then without `--dry-run`; `--all-branches` when it has siblings",
        risk: "a decision that is not the coordinator's (HEURISTIC) can leave the global transaction half committed: resolve by the coordinator's log, recorded in the audit trail",
        alerts: Alerts::Rules(&["PreparedTransactionStuck"]),
    },
    Incident {
        symptom: "The same global transaction prepared on several servers",
        seen_as: "`resolve pg`",
        codes: &["other_branches_prepared", "siblings_unchecked", "branch_left_alone"],
        look: "`indoubt resolve pg GID --all-branches --dry-run`",
        look_for: "siblings, and what each decision source says",
        fix: "`--all-branches` with the coordinator's decision",
        risk: "branches given different decisions end mixed (HEURMIX)",
        alerts: Alerts::None("resolve pg reports it while resolving; `pg prepared` and `mysql xa` alert on each branch"),
    },
    Incident {
        symptom: "Disk filling with WAL",
        seen_as: "`pg slots` CRITICAL (an unlimited max_slot_wal_keep_size: WARNING)",
        codes: &["slot_retained_wal", "slot_wal_unreserved", "slot_wal_lost", "max_slot_wal_keep_size_unlimited"],
        look: "`indoubt pg slots`",
        look_for: "ACTIVE no, RETAINED, WAL STATUS (lost: the slot is dead, its consumer must be rebuilt)",
        fix: "start the slot's consumer, or `SELECT pg_drop_replication_slot('SLOT')`; cap what a slot may keep with max_slot_wal_keep_size",
        risk: "the consumer (CDC connector, subscriber) loses its position and must resnapshot",
        alerts: Alerts::Rules(&["ReplicationSlotRetainingWal"]),
    },
    Incident {
        symptom: "Catalog bloat held by a logical slot; dead tuples kept for a standby's slot",
        seen_as: "`pg slots` WARNING or CRITICAL",
        codes: &["slot_catalog_xmin", "slot_xmin"],
        look: "`indoubt pg horizon`",
        look_for: "a logical slot's catalog_xmin holding back catalog vacuum, a physical slot's xmin (hot_standby_feedback)",
        fix: "restart the slot's consumer or drop the slot",
        risk: "the consumer loses its position and must resnapshot",
        alerts: Alerts::Rules(&["SlotHoldsXmin"]),
    },
    Incident {
        symptom: "Dead tuples pile up",
        seen_as: "`pg horizon`",
        codes: &["horizon_holder"],
        look: "`indoubt pg horizon`",
        look_for: "per database, VACUUM WAITS FOR (the holders to end, jointly where they share an xmin); per holder, HOLDS BACK and AGE",
        fix: "the finding's next, given only where ending that holder moves vacuum: a session `SELECT pg_terminate_backend(PID)`, a prepared transaction `resolve pg`",
        risk: "the session's open work is rolled back",
        alerts: Alerts::Rules(&["VacuumHorizonHeld"]),
    },
    Incident {
        symptom: "Wraparound near",
        seen_as: "`pg horizon`",
        codes: &["wraparound"],
        look: "`indoubt pg horizon`",
        look_for: "XID AGE, % FREEZE MAX, FAILSAFE",
        fix: "release the horizon holder first, then `VACUUM (FREEZE)` the oldest tables",
        risk: "a long, I/O-heavy vacuum",
        alerts: Alerts::Rules(&["WraparoundNear"]),
    },
    Incident {
        symptom: "read_committed consumers stalled",
        seen_as: "`kafka lso` CRITICAL",
        codes: &["lso_gap", "lso_gap_unexplained"],
        look: "`indoubt kafka lso --topic T`",
        look_for: "GAP, STUCK SINCE, the OPEN TRANSACTION holding it",
        fix: "if `kafka hanging` says HANGING: `indoubt resolve kafka --topic T --partition P --start-offset N --dry-run`",
        risk: "the abort marker discards that producer's unfinished writes",
        alerts: Alerts::Rules(&["KafkaLsoStuck"]),
    },
    Incident {
        symptom: "A transaction its coordinator forgot",
        seen_as: "`kafka hanging` CRITICAL (HANGING) or WARNING (long, or cannot be judged); `kafka transactions`",
        codes: &["hanging_transaction", "transaction_past_timeout", "long_transaction", "transaction_unjudgeable"],
        look: "`indoubt kafka hanging`",
        look_for: "VERDICT HANGING (not \"long\": its coordinator still owns a long one)",
        fix: "HANGING: `indoubt resolve kafka … --dry-run`; long: its coordinator aborts it at its transaction.timeout.ms — sooner only with `--force` and a reason, or by ending the producer that left it open",
        risk: "the abort marker discards that producer's unfinished writes",
        alerts: Alerts::Rules(&["KafkaHangingTransaction"]),
    },
    Incident {
        symptom: "Events never published",
        seen_as: "`reconcile` CRITICAL",
        codes: &["missing_in_topic"],
        look: "`indoubt reconcile JOB`",
        look_for: "missing ids older than the settle window",
        fix: "with a `republish:` query in the job, the finding's next: `indoubt resolve reconcile --since … --until … --dry-run -- JOB`, then without `--dry-run` (each id's message built from the source, the topic read again right before sending); without one, its next writes every id of the window to a file (`--ids-out`)",
        risk: "consumers that do not deduplicate on the id see an event twice if the service also publishes it late",
        alerts: Alerts::Rules(&["EventsMissingInTopic"]),
    },
    Incident {
        symptom: "Events for rows that do not exist, or published twice",
        seen_as: "`reconcile`",
        codes: &["missing_in_database", "duplicated_in_topic", "unparseable_messages"],
        look: "`indoubt reconcile JOB`",
        look_for: "extra ids (published, then the transaction rolled back), duplicated ids, messages with no id where id_from says",
        fix: "`indoubt reconcile JOB --ids-out FILE` lists them; compensate downstream; publish only after commit (an outbox); consumers that deduplicate on the id (an inbox)",
        risk: "none from indoubt (it only reads); a compensation sent twice acts twice",
        alerts: Alerts::Rules(&["EventsUnexpectedInTopic"]),
    },
    Incident {
        symptom: "Part of a reconcile window cannot be judged",
        seen_as: "`reconcile` UNKNOWN",
        codes: &["window_past_retention", "partitions_emptied", "topic_compacted", "not_judged_past_lso"],
        look: "`indoubt reconcile JOB`",
        look_for: "which rows were not judged and why: retention, deleted records, compaction, a last stable offset held back",
        fix: "narrow the window to the kept part (`--since`); compare a compacted topic by key; end the open transaction first (`indoubt kafka hanging`)",
        risk: "none; the ids outside what was judged stay unknown",
        alerts: Alerts::Rules(&["ReconcileWindowUnjudged"]),
    },
    Incident {
        symptom: "Outbox rows skipped",
        seen_as: "`pg outbox` CRITICAL",
        codes: &["outbox_skipped_rows"],
        look: "`indoubt pg outbox NAME`",
        look_for: "SKIPPED BY A CURSOR",
        fix: "with a `publish:` section, the finding's next: `indoubt resolve outbox --dry-run -- NAME`, then without `--dry-run` (each row published with its id, marked published once acknowledged); without one, its next `SELECT` lists exactly the skipped rows; make the relay select `WHERE published_at IS NULL`",
        risk: "consumers that do not deduplicate on the id see a row twice if the relay also sends it later",
        alerts: Alerts::Rules(&["OutboxRowsSkipped"]),
    },
    Incident {
        symptom: "Outbox rows wait: the relay is down or slow",
        seen_as: "`pg outbox`",
        codes: &["outbox_backlog"],
        look: "`indoubt pg outbox NAME`",
        look_for: "the oldest unpublished row, the backlog's growth since the previous check",
        fix: "check that the relay runs and can publish (its logs, the broker); `indoubt reconcile` compares the rows with the topic",
        risk: "none from indoubt",
        alerts: Alerts::Rules(&["OutboxBacklog"]),
    },
    Incident {
        symptom: "An inbox forgets ids before producers stop redelivering; an inbox or outbox nobody prunes",
        seen_as: "`pg outbox`",
        codes: &["inbox_retention_short", "inbox_unretained", "outbox_unpruned"],
        look: "`indoubt pg outbox`",
        look_for: "retention against the producers' retry horizon; rows, size, oldest, growth since the last check",
        fix: "keep ids at least the retry horizon; delete older rows on a schedule, in batches",
        risk: "a late duplicate applied twice; deleting ids the horizon still needs",
        alerts: Alerts::Rules(&["InboxRetentionShort", "InboxOutboxUnpruned"]),
    },
    Incident {
        symptom: "Row locks that never clear on MySQL/MariaDB",
        seen_as: "`mysql xa` CRITICAL",
        codes: &["xa_branch_age", "xa_branch_age_unknown", "blocked_by_xa"],
        look: "`indoubt mysql xa`",
        look_for: "AGE (exact, at least, or UNKNOWN and why), SESSION (none: its client is gone), LOCKS, BLOCKS; the decoded XID names the coordinator",
        fix: "`indoubt resolve mysql 0x…,0x…,FORMATID --mysql T --dry-run`; `--all-branches` for its PostgreSQL and MySQL siblings",
        risk: "as for `resolve pg`: only the coordinator's decision keeps the global transaction atomic",
        alerts: Alerts::Rules(&["MysqlXaBranchStuck"]),
    },
    Incident {
        symptom: "Reads slow down, undo grows on MySQL/MariaDB",
        seen_as: "`mysql xa`",
        codes: &["purge_lag"],
        look: "`indoubt mysql xa`",
        look_for: "the history list length and the oldest open transaction (a prepared XA branch holds purge back until it ends)",
        fix: "end that transaction: `resolve mysql` for a branch, `KILL` for a session",
        risk: "the session's open work is rolled back",
        alerts: Alerts::Rules(&["MysqlPurgeLag"]),
    },
    Incident {
        symptom: "Row locks that never clear, a Seata global that never ends",
        seen_as: "`seata globals` CRITICAL",
        codes: &["seata_global_given_up", "seata_global_overdue", "seata_global_status_unknown"],
        look: "`indoubt seata globals`",
        look_for: "STATUS (RollbackFailed: given up; TimeoutRollbacking, RollbackRetrying: retried for ever), BRANCHES, ROW LOCKS (table:pk); with the client's `undo_log` in the config, each row against what the branch wrote (a dirty write, column by column)",
        fix: "a dirty write (AT) on a rollback the coordinator retries: a person decides — the finding's next, `indoubt resolve at XID --branch-id N --fix after-image --dry-run`, sets the rows back to what the branch wrote (the retry then restores the before image), `--fix undo-log` keeps the later change (the branch's undo log deleted, the retry finds nothing to undo; settle the difference by hand); given up (RollbackFailed): compensate by hand, delete the undo_log row, remove the session through the coordinator; otherwise the finding's next `SELECT` lists its branches and locked rows",
        risk: "editing `global_table`/`lock_table` behind a running coordinator loses its state; a wrong compensation moves money twice",
        alerts: Alerts::Rules(&["SeataGlobalStuck"]),
    },
    Incident {
        symptom: "Row locks whose global transaction is gone",
        seen_as: "`seata globals`",
        codes: &["seata_orphan_locks"],
        look: "`indoubt seata globals`",
        look_for: "the orphaned rows (table:pk)",
        fix: "the finding's next `SELECT` lists them by row_key; delete exactly those once the coordinator's log shows their globals ended",
        risk: "a lock deleted under a live global lets another transaction write its rows",
        alerts: Alerts::Rules(&["SeataOrphanLocks"]),
    },
    Incident {
        symptom: "AT undo logs left behind",
        seen_as: "`seata globals` (clients with `undo_log`)",
        codes: &["seata_undo_orphaned"],
        look: "`indoubt seata globals`",
        look_for: "undo logs of globals the store no longer has",
        fix: "the coordinator's log says how each global ended: after a commit delete them; after a rollback restore the rows from the before image first",
        risk: "deleting the undo log of a rolled-back global makes its change permanent",
        alerts: Alerts::Rules(&["SeataUndoOrphaned"]),
    },
    Incident {
        symptom: "Stock, seats or credit reserved and never released, a TCC Try nobody ends",
        seen_as: "`seata tcc`",
        codes: &["seata_tcc_reservation"],
        look: "`indoubt seata tcc`",
        look_for: "ACTION, HELD (since its global began), GLOBAL (its status in the store, or gone)",
        fix: "global still retrying: make its Cancel/Confirm succeed (the service's log says why it fails), the next retry runs it — or do that phase by hand and `indoubt resolve tcc XID --branch-id N --as cancelled` marks it in the fence, so the coordinator's next retry finds it done and the global ends; gone or given up: the same, a recorded heuristic with a reason",
        risk: "releasing a reservation whose Confirm did run frees what was sold",
        alerts: Alerts::Rules(&["SeataTccReservationStuck"]),
    },
    Incident {
        symptom: "A TCC fence table nobody cleans",
        seen_as: "`seata tcc`",
        codes: &["seata_tcc_uncleaned"],
        look: "`indoubt seata tcc`",
        look_for: "ended fence records older than the fence retention",
        fix: "check the client's fence settings (Seata's clean period) and that the application that owns the fence runs its clean task",
        risk: "none from indoubt; a fence record deleted while its global still runs lets a late Try reserve after its Cancel",
        alerts: Alerts::Rules(&["SeataTccFenceUncleaned"]),
    },
    Incident {
        symptom: "A saga died owing a refund",
        seen_as: "`seata sagas`",
        codes: &["seata_saga_stuck"],
        look: "`indoubt seata sagas`",
        look_for: "BUSINESS KEY, STATUS (unknown; compensation failed/unknown), STATES (the failing one, what a compensation compensates), GLOBAL",
        fix: "retrying: fix the failing state's service (its `excep` in the finding's next `SELECT`); gone or given up: finish forward or compensate the succeeded states by hand, and record it",
        risk: "compensating twice refunds twice",
        alerts: Alerts::Rules(&["SeataSagaStuck"]),
    },
    Incident {
        symptom: "Events never delivered",
        seen_as: "`modulith publications`",
        codes: &["modulith_incomplete", "modulith_listener_gone", "modulith_poison"],
        look: "`indoubt modulith publications`",
        look_for: "per listener: INCOMPLETE, OLDEST, STATUS (FAILED: it threw; PROCESSING: cut off mid-run), LAST DONE",
        fix: "fix the listener, then resubmit from inside the application (`IncompleteEventPublications.resubmitIncompletePublications` with the ids the finding names); a renamed listener: give the new one the old id (`@ApplicationModuleListener(id = \"…\")`), then resubmit",
        risk: "resubmitting runs the listener again: one that half-ran repeats its side effects",
        alerts: Alerts::Rules(&["EventsNeverDelivered"]),
    },
    Incident {
        symptom: "Registry table growing",
        seen_as: "`modulith publications` WARNING",
        codes: &["modulith_unpruned"],
        look: "`indoubt modulith publications`",
        look_for: "completed rows past the retention, table size",
        fix: "`indoubt resolve modulith NAME --dry-run`, then without it (batches that each commit); for good: `CompletedEventPublications.deletePublicationsOlderThan(…)` on a schedule, or completion mode DELETE/ARCHIVE",
        risk: "none for completed rows; an application that reads its completed publications loses those",
        alerts: Alerts::Rules(&["ModulithRegistryUnpruned"]),
    },
    Incident {
        symptom: "A process instance stands still",
        seen_as: "`camunda incidents`",
        codes: &["camunda_incident", "camunda_retrying"],
        look: "`indoubt camunda incidents`",
        look_for: "per activity: the incidents (failedJob: a job out of retries; failedExternalTask), the exception, the first frame of its stack trace, the business key",
        fix: "fix the cause, then `indoubt resolve camunda NAME ID --dry-run` (ID: the job, task or incident the finding names), then without it: the engine's REST API sets the retries and resolves the incident itself; never `UPDATE act_ru_job SET retries_`",
        risk: "the job or task runs again: a step that half-ran repeats its side effects",
        alerts: Alerts::Rules(&["CamundaIncident"]),
    },
    Incident {
        symptom: "A job whose executor died holding it; a task whose worker is gone",
        seen_as: "`camunda incidents`",
        codes: &["camunda_lock_expired", "camunda_worker_gone"],
        look: "`indoubt camunda incidents`",
        look_for: "the lock's owner or worker, how long ago the lock expired, retries unchanged",
        fix: "start (or mend) the job executor or the topic's workers; a job that kills its executor each time: `indoubt resolve camunda NAME ID --retries 0` makes it an incident",
        risk: "a job that kills its executor loops for ever (retries never counted down)",
        alerts: Alerts::Rules(&["CamundaLockExpired"]),
    },
    Incident {
        symptom: "A DBOS workflow given up, failed, stranded by a deploy, or holding its queue",
        seen_as: "`dbos workflows`",
        codes: &["dbos_dead_lettered", "dbos_error", "dbos_stranded", "dbos_queue_starved", "dbos_pending"],
        look: "`indoubt dbos workflows`",
        look_for: "STATUS, VERSION (against the newest DBOS registered), EXECUTOR, LAST CHANGE, LAST STEP (a sleep or receive still waiting is not judged); how many DBOS connections are open",
        fix: "fix what killed it, then `indoubt resolve dbos NAME ID --resume --dry-run` (DBOS's own CLI; a PENDING one only with `--executor-gone`); stranded under a retired version: `--cancel`, or start a process of that version",
        risk: "resuming a workflow whose process is alive runs it twice; cancelling skips its remaining steps",
        alerts: Alerts::Rules(&["DbosWorkflowStuck"]),
    },
    Incident {
        symptom: "A hand-written saga failed half-way and nobody was told, or waits on an outcome nobody establishes",
        seen_as: "`saga` CRITICAL (the manual queue's items: WARNING)",
        codes: &["saga_needs_human", "saga_outcome_unknown", "saga_queue_open", "saga_queue_finished"],
        look: "`indoubt saga`",
        look_for: "ID, STATE, TRIES, IDLE, CONTEXT (the business it is about); whether the manual queue has it; the pivot's side in the advice",
        fix: "`indoubt resolve saga --escalate --dry-run -- NAME ID…` raises each in the manual queue once, with what is known of it; then, through the service: before the pivot compensate or resume, from the pivot on drive forward only; an unknown outcome: establish it (the provider, by the call's key) before anything",
        risk: "compensating past the pivot, or blind on an unknown outcome, refunds or charges twice",
        alerts: Alerts::Rules(&["SagaNeedsHuman", "SagaOutcomeUnknown"]),
    },
    Incident {
        symptom: "Seats, stock or credit held by a saga that has ended or died",
        seen_as: "`saga`",
        codes: &["saga_lock_orphaned"],
        look: "`indoubt saga`",
        look_for: "each entity and why its saga no longer runs (done, failed, missing, overdue and stalled)",
        fix: "`indoubt resolve saga --release --dry-run -- NAME ID…`, then without `--dry-run`: set back to the released state only while the same saga holds it at the version read",
        risk: "an entity a live saga still uses, taken by another: refused while its saga moves",
        alerts: Alerts::Rules(&["SagaLockOrphaned"]),
    },
    Incident {
        symptom: "Sagas stalled, overdue or retrying hot",
        seen_as: "`saga`",
        codes: &["saga_stalled", "saga_overdue", "saga_retrying_hot", "saga_state_unlisted"],
        look: "`indoubt saga`",
        look_for: "no progress for, started ago, attempts since the previous run; a state the config does not list",
        fix: "the finding's `SELECT` lists them; the service's log says why; recover through the service as the pivot allows",
        risk: "compensating past the pivot refunds or charges twice",
        alerts: Alerts::Rules(&["SagaStalled"]),
    },
    Incident {
        symptom: "A saga's question reads a whole large table",
        seen_as: "`saga` WARNING",
        codes: &["saga_index_missing"],
        look: "`indoubt saga`",
        look_for: "the table, the query and the index the finding names",
        fix: "create that index (PostgreSQL: `CREATE INDEX CONCURRENTLY … WHERE state NOT IN (done states)`)",
        risk: "building an index loads the server; CONCURRENTLY does not block writes",
        alerts: Alerts::Rules(&["SagaIndexMissing"]),
    },
    Incident {
        symptom: "indoubt cannot see what a target holds (UNKNOWN)",
        seen_as: "any check UNKNOWN",
        codes: &[
            "prepared_xacts_unreadable",
            "xa_unreadable",
            "mysql_unprivileged",
            "outbox_state_unreadable",
            "outbox_state_unwritten",
            "outbox_unreadable",
            "inbox_unreadable",
            "lso_unreadable",
            "topic_unreadable",
            "broker_unknown",
            "partition_unknown",
            "producers_unreadable",
            "transactions_unreadable",
            "transaction_unreadable",
            "config_target_unusable",
            "config_reference_unusable",
            "target_unreachable",
            "pg_role_unprivileged",
            "pg_catalog_unreadable",
            "pg_database_blind_spot",
            "pg_cannot_resolve",
            "pg_table_unreadable",
            "mysql_table_unreadable",
            "kafka_acl_missing",
            "kafka_access_unknown",
            "kafka_api_missing",
            "dbos_unreadable",
            "seata_store_unreadable",
            "seata_client_unreadable",
            "camunda_unreadable",
            "saga_unreadable",
            "modulith_unreadable",
        ],
        look: "`indoubt config show --check`",
        look_for: "per target, what fails: the connection, a privilege, an ACL, a table or an API",
        fix: "what the finding's fix says (the GRANT, the ACL, the setting); until then incidents on that target go unseen",
        risk: "none",
        alerts: Alerts::Rules(&["IndoubtTargetUnreadable"]),
    },
    Incident {
        symptom: "indoubt serve completes no run of its checks",
        seen_as: "`indoubt_up` 0",
        codes: &[],
        look: "indoubt serve's stderr",
        look_for: "the line that says why a run failed (a config error, a deadline, no connection at all)",
        fix: "mend what it names; `indoubt check` runs the same checks by hand",
        risk: "none; meanwhile no incident is alerted on",
        alerts: Alerts::Rules(&["IndoubtDown"]),
    },
    Incident {
        symptom: "The audit trail is damaged, or a resolution's outcome is unknown",
        seen_as: "`audit verify`",
        codes: &["audit_chain_broken", "audit_head_behind", "outcome_unknown"],
        look: "`indoubt audit verify`",
        look_for: "each break of the hash chain; an intent without an outcome",
        fix: "an outcome unknown: look at the object itself (`indoubt pg prepared`: is the GID still there?); a head behind: free space, then `indoubt audit reseal --reason TEXT`; a broken chain: keep a copy and compare it with backups",
        risk: "none from verify; reseal records that it ran",
        alerts: Alerts::None("check does not read the audit trail: run `indoubt audit verify` from cron (exit 2 on a break)"),
    },
];

#[cfg(test)]
mod tests {
    use super::super::probes;
    use super::*;

    /// Every documented code is in one incident (so it has a runbook row and an alert's
    /// annotation) or has a reason to report none, never both, never twice; every name
    /// here is a documented code.
    #[test]
    fn every_code_reports_an_incident_or_says_why_not() {
        let mut seen = std::collections::BTreeMap::new();
        for incident in INCIDENTS {
            for code in incident.codes {
                assert!(probes::code(code).is_some(), "{code} is no finding code");
                let why = incident.symptom.to_string();
                assert!(seen.insert(*code, why).is_none(), "{code} twice");
            }
        }
        for (why, codes) in QUIET {
            for code in *codes {
                assert!(probes::code(code).is_some(), "{code} is no finding code");
                let why = format!("{why:?}");
                assert!(seen.insert(*code, why).is_none(), "{code} twice");
            }
        }
        let missing: Vec<&str> = probes::codes()
            .iter()
            .map(|c| c.name())
            .filter(|c| !seen.contains_key(c))
            .collect();
        assert!(
            missing.is_empty(),
            "codes in no incident and not quiet: {missing:?}"
        );
    }
}
