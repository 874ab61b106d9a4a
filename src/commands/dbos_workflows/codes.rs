//! The codes of `dbos workflows`, documented for `indoubt explain`.

crate::codes::codes! {
    DBOS_SYSTEM = "dbos_system" {
        meaning: "A DBOS application's system database holds no workflow DBOS gave up recovering, none that ended in ERROR within the window, no PENDING one unmoved past pending_age (those waiting in a sleep or a receive aside) and no queue waiting past it.",
        why: "Every workflow DBOS was handed is running, waiting by design, or done.",
        fix: "Nothing to do. `indoubt -o json dbos workflows` lists the waiting ones with their wake-up.",
    }
    DBOS_DEAD_LETTERED = "dbos_dead_lettered" {
        meaning: "Workflows DBOS stopped recovering: MAX_RECOVERY_ATTEMPTS_EXCEEDED (RETRIES_EXCEEDED before 1.8). Their process died (or was killed) in the same step on every attempt past the workflow's max_recovery_attempts.",
        why: "Nothing runs them again by itself, and the steps after the last completed one never happen (a payment captured with no shipment, a reservation never released).",
        fix: "Find what kills the process in the step after the last completed one (the finding names it), fix it, then resume them — `indoubt resolve dbos NAME ID --resume --dry-run`, then without --dry-run (DBOS's own `dbos workflow resume`) — or cancel them (`--cancel`) and make up for their steps by hand.",
    }
    DBOS_ERROR = "dbos_error" {
        meaning: "Workflows that ended in ERROR within error_window: a step raised past its retries, or the workflow raised.",
        why: "DBOS treats them as finished: nothing retries them, and `dbos workflow resume` does nothing for them. Whatever their remaining steps would have done has not happened.",
        fix: "Read the error (`dbos workflow get ID`, DBOS's log); to run one again from a step, `dbos workflow fork ID --step N` starts a new workflow from there — it runs that step's side effects again, so indoubt only prints it.",
    }
    DBOS_STRANDED = "dbos_stranded" {
        meaning: "PENDING (or ENQUEUED) workflows of an application version other than the newest one DBOS registered: DBOS recovers and dequeues a workflow only in a process of its own version, so once no process of that version runs, none ever runs them.",
        why: "A deploy that changed the application version (or DBOS's hash of the code, when none is set) strands every workflow the old processes left unfinished; `dbos workflow resume` keeps their version, so it does not help either.",
        fix: "Start a process of their version (it recovers them), or cancel them (`indoubt resolve dbos NAME ID --cancel --dry-run`) and make up for their steps, or start them again on the new version with `dbos workflow fork ID --application-version NEW` (it re-runs side effects: printed only).",
    }
    DBOS_PENDING = "dbos_pending" {
        meaning: "PENDING workflows of the newest version whose status has not changed past pending_age, and that are not waiting (their last step is no unfinished sleep or receive): their process may be running a long step, or be gone.",
        why: "DBOS recovers a PENDING workflow only when a process with its executor id and version starts (or through DBOS Conductor); a process that died and is not restarted under the same executor id leaves it PENDING for ever.",
        fix: "Restart the application with the executor id the finding names (it recovers its own), or, once its process is known gone, resume it: `indoubt resolve dbos NAME ID --resume --executor-gone --dry-run` (resuming a workflow whose process is alive runs it twice).",
    }
    DBOS_QUEUE_STARVED = "dbos_queue_starved" {
        meaning: "ENQUEUED workflows of a queue waited past pending_age, behind PENDING workflows of the same queue that have not moved: with the queue's concurrency taken by them, nothing is dequeued.",
        why: "A head whose process died holds its slot for ever: every workflow behind it waits, whatever executor would run them.",
        fix: "Free the slot: resume the head once its process is known gone (`indoubt resolve dbos NAME ID --resume --executor-gone --dry-run`; it moves to DBOS's internal queue) or cancel it (`--cancel`).",
    }
    DBOS_UNREADABLE = "dbos_unreadable" {
        meaning: "DBOS's system tables could not be read: the connection failed, the tables are missing (another schema?) or not readable by the role, or their columns are of a layout indoubt does not know.",
        why: "What was not read is not known: stuck workflows may be there unseen.",
        fix: "Check the application's entry under dbos: in the config (its system database, its schema) with `indoubt config show --check`; grant the role SELECT on DBOS's tables.",
    }
}
