//! The codes of `seata tcc`'s findings, documented for `indoubt explain`.

crate::codes::codes! {
    SEATA_TCC = "seata_tcc" {
        meaning: "`seata tcc` summary: a client's TCC fence table was read; no Try holds its reservation past the reservation age or after its global transaction ended, and no ended record outlives the fence's retention.",
        why: "An OK line that says what was looked at: the fence table of one business database, and the coordinator's store for the global transaction of each open Try.",
        fix: "Nothing to do. `indoubt seata tcc -o json` lists how many fence records there are in each status.",
    }

    SEATA_TCC_RESERVATION = "seata_tcc_reservation" {
        meaning: "A TCC Try ran (its fence record is status 1, tried) and no Confirm or Cancel has ended it: past the reservation age while its global transaction is still in the coordinator's hands, or with its global transaction given up, ended or gone from the store.",
        why: "What the Try reserved (stock, seats, a credit hold) stays reserved: a semantic lock no database shows. When the global transaction is given up or gone, nothing will ever call Confirm or Cancel: the reservation is held for good.",
        fix: "When the global is still retrying: make its Cancel (or Confirm) succeed — read why it fails in the service's log; the coordinator's next retry runs it. When the global is gone or given up: decide with the service's owner whether the reservation stands (confirm by hand) or is released (cancel by hand), do it through the service, and then record it with `indoubt resolve tcc XID --branch-id N --as cancelled` (or `confirmed`), the finding's next, which marks the fence record as that phase only while it is still open, so a late retry does nothing twice. `indoubt seata tcc -o json` lists each Try with its global's status.",
    }

    SEATA_TCC_UNCLEANED = "seata_tcc_uncleaned" {
        meaning: "Ended fence records (committed, rolled back or suspended) are older than the fence retention: the fence's clean task is not deleting them.",
        why: "The fence table grows without end, and every Try, Confirm and Cancel writes to it; suspended records (a Cancel that came before its Try) piling up mean Trys arrive late or not at all.",
        fix: "Check the client's fence settings (Seata's clean period, one day by default) and that the application that owns the fence runs its clean task; `indoubt seata tcc -o json` counts the records by status and age.",
    }
}
