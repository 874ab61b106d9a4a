//! The codes of `camunda incidents`, documented for `indoubt explain`.

crate::codes::codes! {
    CAMUNDA_ENGINE = "camunda_engine" {
        meaning: "A Camunda 7 or Operaton engine's database holds no open incident, no job or external task that keeps failing, and none left locked long after its lock expired. Also said of a large ACT_RU_JOB with no index for the read: the table is read whole (a read that blocks none of the engine's writes).",
        why: "Every process instance that reached a job or external task is moving, as far as the engine's tables show.",
        fix: "Nothing to do. For a large ACT_RU_JOB, an index makes the read an index read: `CREATE INDEX CONCURRENTLY ON act_ru_job (lock_exp_time_) WHERE lock_owner_ IS NOT NULL`.",
    }
    CAMUNDA_INCIDENT = "camunda_incident" {
        meaning: "Open incidents on a process's activity: a job that ran out of retries (failedJob) or an external task failed with no retries left (failedExternalTask). WARNING while younger than critical_age, CRITICAL after.",
        why: "Each process instance stands still at that activity until someone gives the job or task its retries back (or cancels the instance): nothing retries it by itself, and nothing tells anyone unless the incident is watched.",
        fix: "Read the failure (the finding's message and the start of its stack trace; the engine's log has the rest), fix its cause, then give the job or task its retries back through the engine: `indoubt resolve camunda NAME ID --dry-run`, then without --dry-run (the engine's REST API; never `UPDATE act_ru_job SET retries_`, which bypasses its optimistic locking and leaves the incident open).",
    }
    CAMUNDA_RETRYING = "camunda_retrying" {
        meaning: "Jobs or external tasks of an activity failed and are being retried, retries left: the engine will try them again at their due date.",
        why: "Each failure counts down a retry; at 0 it becomes an incident and the instance stops. A failure that is not transient is an incident on its way.",
        fix: "Read the failure (the finding's message); if it will not pass by itself, fix its cause before the retries run out. To stop one early: `indoubt resolve camunda NAME ID --retries 0 --dry-run`.",
    }
    CAMUNDA_LOCK_EXPIRED = "camunda_lock_expired" {
        meaning: "Jobs are locked by a job executor whose lock expired longer ago than lock_age, and no executor took them since; their retries are unchanged.",
        why: "A running job executor takes a job whose lock expired within seconds: none takes these (none runs for this engine, or a deployment-aware one does not know their deployment). An executor that died while running the job (out of memory, killed) leaves exactly this, and the next one that takes it runs it again without counting down a retry (camunda-bpm-platform issue 2858): a job that kills its executor loops for ever.",
        fix: "Check that a job executor runs for this engine and read the log of the owner the finding names. To stop a job that kills its executor, set its retries to 0 through the engine (it becomes an incident): `indoubt resolve camunda NAME ID --retries 0 --dry-run`.",
    }
    CAMUNDA_WORKER_GONE = "camunda_worker_gone" {
        meaning: "External tasks were locked by a worker that neither completed, failed nor extended them, their lock expired longer ago than lock_age, and no worker fetched them since.",
        why: "The worker that fetched them is gone (crashed or stopped mid-task), and no worker of their topic is fetching now: the process instances wait at that activity.",
        fix: "Start (or mend) the workers of the topic the finding names: they fetch these again by themselves. Whatever the gone worker did before it died may have happened: check before the task runs again, e.g. `curl -s 'http://HOST:8080/engine-rest/external-task?topicName=TOPIC'`.",
    }
    CAMUNDA_UNREADABLE = "camunda_unreadable" {
        meaning: "The engine's tables could not be read: the connection failed, a table is missing or not readable by the role, or the schema's version is not one indoubt knows (Camunda 7.x, Operaton 1.x).",
        why: "What was not read is not known: incidents may be open unseen.",
        fix: "Check the engine's entry under camunda: in the config (its database, its table_prefix) with `indoubt config show --check`; grant the role SELECT on the engine's tables.",
    }
}
