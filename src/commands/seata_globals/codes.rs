//! The codes of `seata globals`' findings, documented for `indoubt explain`.

crate::codes::codes! {
    SEATA_GLOBALS = "seata_globals" {
        meaning: "`seata globals` summary: the coordinator's store was read; no global transaction is past its timeout plus the grace, given up or in an unknown status, and no row lock outlives its global transaction.",
        why: "An OK line that says what was looked at: the global, branch and lock tables of the coordinator's store.",
        fix: "Nothing to do. `indoubt seata globals -o json` lists how many global transactions the store holds in each status.",
    }

    SEATA_GLOBAL_OVERDUE = "seata_global_overdue" {
        meaning: "A Seata global transaction has not ended long after its own timeout (past the coordinator's grace, its retry-dead-threshold): still Begin (the coordinator has not timed it out: it is down, or another coordinator owns this store), still committing or rolling back, or retrying a branch's phase two that keeps failing (CommitRetrying, RollbackRetrying, TimeoutRollbackRetrying).",
        why: "Until it ends, its AT branches keep their global row locks: every other global transaction that writes those rows fails with a global lock conflict, and Seata's defaults retry a failed phase two for ever (max-commit-retry-timeout and max-rollback-retry-timeout -1). Money or stock may have moved on one side only.",
        fix: "Read why the branch fails in the coordinator's and the client's logs; `indoubt seata globals -o json` shows the branches and the locked rows. An AT rollback that fails because the row changed outside Seata (a dirty write) succeeds on the next retry once the row is what the rollback expects (its undo_log after image); otherwise compensate by hand and then end the session through the coordinator (its console or API), never by editing `global_table`, `branch_table` or `lock_table` behind a running coordinator.",
    }

    SEATA_GLOBAL_GIVEN_UP = "seata_global_given_up" {
        meaning: "A Seata global transaction is in a status the coordinator does not retry from: CommitFailed, RollbackFailed, TimeoutRollbackFailed, CommitRetryTimeout, RollbackRetryTimeout, or (2.4+) StopCommitOrCommitRetry, StopRollbackOrRollbackRetry.",
        why: "Nothing will finish it: its branches may be committed on one side and rolled back on another, and its row locks stay until a person acts.",
        fix: "Decide with the services' owners what each branch must become; `indoubt seata globals -o json` lists the branches with their status and the locked rows. Compensate by hand, then remove the session through the coordinator (its console or API); `indoubt explain seata_global_overdue` says why not by editing its tables.",
    }

    SEATA_GLOBAL_STATUS_UNKNOWN = "seata_global_status_unknown" {
        meaning: "A row of the global table has a status number no Seata release up to 2.5 defines: a newer coordinator, or a table that is not Seata's.",
        why: "indoubt does not judge what it cannot name: the transaction may be stuck or not.",
        fix: "Check the coordinator's version and its GlobalStatus; `indoubt seata globals -o json` shows the row.",
    }

    SEATA_ORPHAN_LOCKS = "seata_orphan_locks" {
        meaning: "Rows of the coordinator's lock table belong to global transactions that are no longer in its global table.",
        why: "No retry and no timeout will ever release them: every AT transaction that writes those rows fails with a global lock conflict. They are left when a global's row was deleted by hand, or when the coordinator lost its session.",
        fix: "List them with the statement of the finding's next, confirm with the coordinator's logs that their global transactions ended, and delete exactly those lock rows (by row_key) while no global transaction holds the rows; `indoubt seata globals -o json` lists a sample.",
    }

    SEATA_UNDO_ORPHANED = "seata_undo_orphaned" {
        meaning: "A business database holds AT undo logs (undo_log rows) of global transactions the coordinator's store no longer has, older than the grace.",
        why: "Seata deletes a branch's undo log when its phase two runs there (at once on rollback, soon after on commit): one left behind means phase two never reached this database. If the global rolled back, what the branch wrote is still in the tables; if it committed, the rows are only garbage.",
        fix: "Find each global's outcome in the coordinator's log (the finding's next lists the records). After a commit, delete the undo logs; after a rollback, restore the rows from the before image by hand (`indoubt seata globals -o json` shows the images of stuck globals), then delete them.",
    }

    SEATA_STORE_UNREADABLE = "seata_store_unreadable" {
        meaning: "The coordinator's store could not be read: the connection failed, a table is missing or lacks columns of Seata's layout, or the role may not read it. The finding says which.",
        why: "What was not read is not known: global transactions may be stuck there unseen.",
        fix: "Check the config's seata: section (the store's database and the table names, as the coordinator's store.db.global-table, branch-table and lock-table name them) with `indoubt config show`; give the role `GRANT SELECT ON TABLE global_table, branch_table, lock_table TO ROLE`.",
    }
}
