//! The codes of `saga`, documented for `indoubt explain`.

crate::codes::codes! {
    SAGA_OK = "saga_ok" {
        meaning: "A hand-written saga has no instance failed, stuck, retrying, overdue or waiting on an unknown outcome too long, and no entity is held for a saga that no longer runs.",
        why: "Every instance in flight made progress within stalled_after (and its deadline).",
        fix: "Nothing to do.",
    }
    SAGA_NEEDS_HUMAN = "saga_needs_human" {
        meaning: "Instances that no retry will finish: FAILED (a failed state of the config), or compensating (or running) at max_attempts. CRITICAL when the manual queue has no open item for them — the failure was logged, not escalated, and nobody is told; WARNING when a person has the item.",
        why: "A saga that stops half-way leaves the business half-done: a payment taken and no order, seats held and no booking, a refund owed that nobody makes. Before the pivot it can still be compensated; from the pivot on it can only be driven forward.",
        fix: "Raise each in the manual queue with `indoubt resolve saga NAME ID… --escalate` (a dry run first): the item carries its state, step, attempts and business context. Then, as the finding's advice says for its side of the pivot, compensate it or drive it forward through the service — indoubt never runs the service's business steps.",
    }
    SAGA_OUTCOME_UNKNOWN = "saga_outcome_unknown" {
        meaning: "Instances in an unknown state (an external call whose outcome is not known: a payment timed out) for longer than unknown_escalate_after.",
        why: "Retrying with a new idempotency key may charge twice; compensating may refund what was never charged. Nothing may be retried or compensated until the outcome is established.",
        fix: "Ask the external system by the call's own key (the payment provider's API, its dashboard) what happened, record it in the saga, and only then retry with the same key or compensate. Raise each with `indoubt resolve saga NAME ID… --escalate` so a person owns it.",
    }
    SAGA_STALLED = "saga_stalled" {
        meaning: "Unfinished instances with no progress (updated_at unchanged) for stalled_after: the process that ran them died, or their message was lost.",
        why: "A stalled saga keeps what it holds (seats, stock, money) and its customer waits; nothing resumes it unless the service has a recovery job.",
        fix: "Find why it stopped (the service's log for the saga id; `indoubt saga NAME` lists them with their state and context, the finding their step). Before the pivot, resume or compensate it through the service; at or after the pivot, drive it forward only.",
    }
    SAGA_OVERDUE = "saga_overdue" {
        meaning: "Unfinished instances started longer ago than the deadline, still moving or not.",
        why: "A saga past its deadline has broken its promise (a booking unconfirmed, a refund late) and usually holds entities other sagas wait for.",
        fix: "Check what keeps it going (the service's log; `indoubt saga NAME` lists them): before the pivot, compensate it through the service; at or after the pivot, drive it to its end.",
    }
    SAGA_RETRYING_HOT = "saga_retrying_hot" {
        meaning: "Instances whose attempts climbed since the previous run (indoubt keeps each saga's attempts beside its audit log): the service retries a step that keeps failing.",
        why: "Each retry repeats the step's side effects (a call, a message) and the saga makes no progress; at max_attempts it needs a person anyway.",
        fix: "Read the service's log for the saga id and fix the step's cause; if it cannot succeed, stop retrying it and raise it with `indoubt resolve saga NAME ID… --escalate`.",
    }
    SAGA_LOCK_ORPHANED = "saga_lock_orphaned" {
        meaning: "Entities still in a held state (a semantic lock) for a saga that is done, failed, missing or overdue (stalled, when no deadline is known): nothing will ever release them.",
        why: "Every other saga must respect the lock: the seat, the stock, the account stays unavailable, and the sagas that want it wait or fail.",
        fix: "Release them with `indoubt resolve saga NAME ID… --release` (a dry run first): set back to the lock's released state only while still held by that saga at the version read — an entity taken again meanwhile is left alone. A running saga that is not overdue is refused.",
    }
    SAGA_QUEUE_OPEN = "saga_queue_open" {
        meaning: "The manual queue has open items (resolved_at NULL): sagas a person has to deal with.",
        why: "Each open item is a saga half-done; the oldest tells how long the queue has gone unworked.",
        fix: "Work the queue: each item's saga is named; `indoubt saga NAME` shows their state. Close an item (`UPDATE … SET resolved_at = now()`) once its saga is dealt with.",
    }
    SAGA_QUEUE_FINISHED = "saga_queue_finished" {
        meaning: "Open items in the manual queue whose saga has since finished (in a done state).",
        why: "Someone may still act on a saga that needs nothing — compensate a completed one — and the queue overstates the work.",
        fix: "Check each saga's end is right (`indoubt saga NAME`), then close its item (`UPDATE … SET resolved_at = now()`).",
    }
    SAGA_STATE_UNLISTED = "saga_state_unlisted" {
        meaning: "Unfinished instances in a state value that the config's states: do not list.",
        why: "What that state means is not known: those instances are not judged, and a stuck one among them is not seen.",
        fix: "List the value under the right group of sagas: NAME: states: (running, done, failed, compensating, unknown) in the config; `indoubt config show` shows them.",
    }
    SAGA_INDEX_MISSING = "saga_index_missing" {
        meaning: "A large table (more than 100,000 rows by the server's estimate) answers one of the saga's questions by reading itself whole: no index serves it.",
        why: "Every run of indoubt (and every service query like it) reads the whole table, which grows with the saga's history, not with what is in flight.",
        fix: "Create the index the finding names (PostgreSQL: `CREATE INDEX CONCURRENTLY … WHERE state NOT IN (done states)`, over the unfinished rows only; MySQL: an index led by the state), where the finding says.",
    }
    SAGA_UNREADABLE = "saga_unreadable" {
        meaning: "The saga's tables could not be read or judged: the connection failed, a table or column the config names is missing or not readable by the role, or a column is not of a type the reads judge (a time kept as text or epoch milliseconds, attempts kept as text).",
        why: "What was not read is not known: stuck sagas may be there unseen.",
        fix: "Check the saga's entry under sagas: in the config with `indoubt config show --check`; grant the role SELECT on its tables; keep its times in timestamp columns.",
    }
}
