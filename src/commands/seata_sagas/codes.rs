//! The codes of `seata sagas`' findings, documented for `indoubt explain`.

crate::codes::codes! {
    SEATA_SAGAS = "seata_sagas" {
        meaning: "`seata sagas` summary: a client's saga store was read; no state machine instance is unknown, stalled, or left with a compensation that failed or is unknown.",
        why: "An OK line that says what was looked at: the saga engine's instance and state tables in one business database, and the coordinator's store for each instance's global transaction.",
        fix: "Nothing to do.",
    }

    SEATA_SAGA_STUCK = "seata_saga_stuck" {
        meaning: "A saga state machine instance did not end: its status is unknown (a state's outcome was not known, so the engine could neither go on nor compensate), it has run without a change past the saga stall, or its compensation failed, is unknown or stalled. The finding names its business key, its machine, and the states that did not succeed.",
        why: "A saga has no locks to show: what its succeeded states did (a debit, a reservation) stays done while nothing undoes it. A compensation that failed is a refund nobody made. Seata's coordinator retries such an instance (forward for an unknown one, its compensation for a failed one) for ever by default, and not at all once its global transaction has been given up or is gone.",
        fix: "Read why the failing state's service call fails (the state's `excep` in the state table, the service's log). When the service can succeed again, the coordinator's next retry goes on; when it is given up or gone, decide with the owners whether to finish the saga forward or compensate it by hand (the states to compensate are the succeeded ones before the failure), and record it. `indoubt seata sagas -o json` lists each instance's states.",
    }
}
