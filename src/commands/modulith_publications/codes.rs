//! The codes of `modulith publications`, documented for `indoubt explain`.

crate::codes::codes! {
    MODULITH_REGISTRY = "modulith_registry" {
        meaning: "A Spring Modulith event publication registry holds no publication incomplete past its age (younger ones may still be running), none that went around its attempts, and no completed ones past the retention.",
        why: "Every event its listeners were handed longer ago than the age was delivered.",
        fix: "Nothing to do.",
    }
    MODULITH_INCOMPLETE = "modulith_incomplete" {
        meaning: "A listener's publications stayed incomplete past the age (WARNING) or the critical age (CRITICAL): the event was published (its transaction committed) but its listener never completed it. In Spring Modulith 2.x a FAILED one threw, a PROCESSING one was cut off mid-run (its application died or was stopped); 1.x tells neither.",
        why: "Nothing retries them by itself: the registry's staleness monitor is off unless configured, and republishing on restart is off by default. Whatever the listener does (an email, a stock reservation, an event to another service) has not happened for these.",
        fix: "Find why the listener fails (the application's log, the publication's event), fix it, then resubmit them from inside the application: `incompleteEventPublications.resubmitIncompletePublications(p -> ids.contains(p.getIdentifier()))` with the ids of the finding, or (2.x) `failedEventPublications.resubmit(ResubmissionOptions.defaults())`. The finding's statement lists them; `indoubt modulith publications` shows them gone once completed.",
    }
    MODULITH_LISTENER_GONE = "modulith_listener_gone" {
        meaning: "A listener's publications are incomplete, it has completed nothing since the oldest of them, publications to its id stopped, and another listener of the same event type appeared after that and completes: the listener id the rows name is no longer in the application, typically a renamed class or method.",
        why: "Resubmission matches listener ids exactly: 1.x leaves these rows as they are for ever, 2.x marks them RESUBMITTED then FAILED on every try. The events were never delivered to the code that now handles them.",
        fix: "Give the listener that now handles them the old id (`@ApplicationModuleListener(id = \"…\")`, `@TransactionalEventListener(id = \"…\")`) and resubmit, or deliver them by hand and delete those rows. The finding names the id and the listener that completes the same event type now.",
    }
    MODULITH_POISON = "modulith_poison" {
        meaning: "An incomplete publication has been attempted at least poison_attempts times (Spring Modulith 2.x counts 1 + each resubmission): the listener fails on this event every time.",
        why: "Resubmitting it again changes nothing and runs whatever the listener does before it fails once more.",
        fix: "Read the event (the finding's statement, a `SELECT` of the listener's incomplete rows) and the listener's log: fix the listener or the data, or deliver it by hand and delete the row.",
    }
    MODULITH_UNPRUNED = "modulith_unpruned" {
        meaning: "Completed publications older than the retention are still in the registry's table (the default completion mode UPDATE keeps every one).",
        why: "The table and its indexes grow without bound, and every read of the registry (and its vacuum) pays for it.",
        fix: "Delete them from inside the application on a schedule (`completedEventPublications.deletePublicationsOlderThan(Duration.ofDays(7))`), or set `spring.modulith.events.completion-mode` to DELETE or ARCHIVE.",
    }
    MODULITH_UNREADABLE = "modulith_unreadable" {
        meaning: "The registry could not be read: the connection failed, there is no such table, the role may not read it, or its columns are of a layout indoubt does not know (neither Spring Modulith 1.x's nor 2.x's).",
        why: "What was not read is not known: undelivered events may be there unseen.",
        fix: "Check the registry's entry under modulith: in the config (its database and table: on MySQL and MariaDB the table is EVENT_PUBLICATION) with `indoubt config show --check`; grant the role SELECT on it.",
    }
}
