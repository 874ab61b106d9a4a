//! The codes the `seata` probes share, documented for `indoubt explain`.

crate::codes::codes! {
    SEATA_CLIENT_UNREADABLE = "seata_client_unreadable" {
        meaning: "A Seata client table in a business database could not be read: the connection failed, the table is missing or lacks columns of Seata's layout, or the role may not read it. The finding says which.",
        why: "What was not read is not known: reservations, saga instances or undo logs may be stuck there unseen.",
        fix: "Check the client's entry under seata: NAME: clients: in the config (its database and the table names, as the client's settings name them) with `indoubt config show`; give the role SELECT on the table.",
    }
}
