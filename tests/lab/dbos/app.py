"""A DBOS Transact application (the real ``dbos`` library, 3.4.0) for indoubt's tests: each
command starts, recovers or serves workflows through DBOS's own code paths, leaving the
workflow states indoubt's DBOS probe looks for in DBOS's system tables.

    app.py die     db=URL [key=ID] [version=V] [executor=E] [fixed=true]
    app.py recover db=URL [version=V] [executor=E] [fixed=true] [timeout=S]
    app.py enqueue db=URL [key=ID] [count=N] [version=V] [executor=E] [fixed=true] [timeout=S]
    app.py fail    db=URL [key=ID] [version=V] [executor=E] [fixed=true]
    app.py serve   db=URL [version=V] [executor=E] [fixed=true] [wait=ID] [how=sleep|recv]
                          [seconds=S] [until=ID,ID...] [timeout=S]
    app.py send    db=URL key=ID
    app.py state   db=URL

(tests/lab/dbos/run COMMAND ... runs it from its venv; tests/lab/dbos/run dbos ARGS...
runs DBOS's own CLI, e.g. ``dbos workflow resume ID --sys-db-url URL``.)

``db`` is a postgres://USER:PASSWORD@HOST:PORT/DB URL: DBOS's ``system_database_url``.
DBOS 3.x has no application database: its tables all live in this one database, in
schema ``dbos`` (DBOS creates the database if it can connect to ``postgres`` there, and
the schema and its tables itself, recording its migration in ``dbos.dbos_migrations``).
The application is named ``indoubt-lab`` (``workflow_status.application_name``).
``version`` is the application version (``application_version``: default
``$DBOS__APPVERSION``, else ``v1``; DBOS recovers and dequeues only workflows of the
version it runs). ``executor`` is the executor id (``executor_id``; DBOS's default:
``$DBOS__VMID``, else ``local``). ``key`` is the workflow id (default ``order-`` and a
random uuid). ``fixed=true`` makes the failing steps succeed: the deployed fix.
``timeout`` (seconds, default 60) bounds every wait: past it the command prints
``timeout`` and exits 2. ``log`` is DBOS's log level (default INFO, on stderr).

Workflows (registered names are the function names)
  charge_order(order)  ``max_recovery_attempts=2``. Steps: ``reserve`` (completes),
      then ``charge``, which halts the process (``os._exit(1)``) mid-step unless
      ``fixed=true``: the workflow stays PENDING, owned by this executor and version.
  refund_order(order)  Steps: ``reserve``, then ``refund``, which raises (retries
      allowed: 2 attempts, 0.1 s apart) unless ``fixed=true``: the workflow ends ERROR.
  await_payment(order, how, seconds)  Steps: ``reserve``, then ``DBOS.sleep(seconds)``
      (how=sleep) or ``DBOS.recv("payment", timeout_seconds=seconds)`` (how=recv):
      a workflow legitimately waiting, PENDING while it waits.

Commands
  Every command that launches DBOS (all but send and state) first has DBOS recover
  the PENDING workflows of its executor and version, as any DBOS process does: a
  workflow a test wants left alone needs another executor=, version= or database.

  die      launches DBOS and runs charge_order with id ``key``: the process halts in
           ``charge``, leaving it PENDING (recovery_attempts 1).
  recover  launches DBOS, which recovers the PENDING workflows of its executor and
           version (re-enqueues them on its internal queue, ``_dbos_internal_queue``,
           and runs them again: charge_order halts in ``charge`` again, unless
           ``fixed=true``); waits until each of them ends. Each dequeue counts one
           attempt (recovery_attempts 2, 3...); a dequeue that makes it exceed
           ``max_recovery_attempts + 1`` (4 here) marks the workflow
           MAX_RECOVERY_ATTEMPTS_EXCEEDED instead of running it: the third recover
           after die prints it and ``done``.
  enqueue  launches DBOS, registers queue ``orders`` (``concurrency=1``: one workflow
           of the queue PENDING at a time, across all executors) and enqueues ``count``
           (default 3) charge_order workflows with ids ``key-1``..``key-N``: the first
           one dequeued halts the process in ``charge``, the rest stay ENQUEUED behind
           it. With ``fixed=true`` it waits until all of them end.
  fail     launches DBOS and runs refund_order with id ``key``: it ends ERROR.
  serve    launches DBOS and serves until SIGTERM/SIGINT (prints ``done``, exits 0):
           it recovers its executor's PENDING workflows of its version, and runs the
           ENQUEUED workflows of its version, whichever executor enqueued them, on
           DBOS's internal queue (where recovery and ``dbos workflow resume`` put
           them) and on every queue registered in the database (``orders``).
           ``wait=ID`` starts await_payment(ID, how, seconds) with that id (``how``
           default sleep, ``seconds`` default 3600) and prints it once its wait is
           recorded (a ``DBOS.sleep`` row in operation_outputs); ``until=ID,...`` stops
           serving (``done``, exit 0) once each of these workflows has ended.
  send     sends message ``paid`` on topic ``payment`` to workflow ``key`` (DBOSClient):
           await_payment(how=recv) then completes.
  state    every workflow, as DBOS's own client (DBOSClient.list_workflows) sees it.

Lines printed (stdout, ``KIND key=value...``; DBOS's own logs go to stderr)
  workflow id=ID name=NAME status=STATUS version=V executor=E recovery_attempts=N
           queue=Q created_at=MS updated_at=MS
      a workflow a command started, recovered, waited for or (state) found, as
      DBOSClient reports it (queue= is empty when it is on no queue; times are epoch
      milliseconds). STATUS is DBOS's: PENDING, ENQUEUED, SUCCESS, ERROR, CANCELLED,
      MAX_RECOVERY_ATTEMPTS_EXCEEDED (or DELAYED).
  recovering id=ID status=PENDING recovery_attempts=N
      (recover) a PENDING workflow of this executor and version, before DBOS is launched.
  serving executor=E version=V   (serve) DBOS is launched and serving.
  sent id=ID                      (send)
  halting: in step charge id=ID   the process halts now (os._exit(1): exit 1), after a
                                  workflow line for ID as it stands then.
  timeout                         a wait ran out (exit 2).
  done                            the command finished (exit 0).
"""

import os
import signal
import sys
import threading
import time
import uuid

from dbos import DBOS, DBOSClient, DBOSConfig, SetWorkflowID
from dbos._utils import GlobalParams  # the executor id and version DBOS runs as

APP_NAME = "indoubt-lab"
QUEUE = "orders"
MAX_RECOVERY_ATTEMPTS = 2
ENDED = {"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"}

_out = threading.Lock()


def say(line: str) -> None:
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def options(argv: list[str]) -> dict[str, str]:
    opts = {}
    for a in argv:
        key, eq, value = a.partition("=")
        if not eq:
            sys.exit(f"not key=value: {a}")
        opts[key] = value
    return opts


COMMAND = sys.argv[1] if len(sys.argv) > 1 else ""
OPTS = options(sys.argv[2:])
FIXED = OPTS.get("fixed") == "true"
TIMEOUT = float(OPTS.get("timeout", "60"))
# Closed while a command prints the workflows it started: charge halts only after.
GATE = threading.Event()
GATE.set()
_client = None


def client() -> DBOSClient:
    global _client
    if _client is None:
        if "db" not in OPTS:
            sys.exit("db=POSTGRES_URL is required")
        _client = DBOSClient(system_database_url=OPTS["db"], system_database_pool_size=2)
    return _client


def line(w) -> str:
    return (
        f"workflow id={w.workflow_id} name={w.name} status={w.status} "
        f"version={w.app_version or ''} executor={w.executor_id or ''} "
        f"recovery_attempts={w.recovery_attempts} queue={w.queue_name or ''} "
        f"created_at={w.created_at} updated_at={w.updated_at}"
    )


def statuses(ids: list[str]) -> dict:
    found = client().list_workflows(workflow_ids=ids, load_input=False, load_output=False)
    return {w.workflow_id: w for w in found}


def show(ids: list[str]) -> None:
    found = statuses(ids)
    for i in ids:
        if i in found:
            say(line(found[i]))


def halt(where: str, workflow_id: str) -> None:
    show([workflow_id])
    say(f"halting: {where} id={workflow_id}")
    sys.stderr.flush()
    os._exit(1)


def finish(code: int = 0) -> None:
    # Without DBOS.destroy: its threads (and a workflow still waiting) would hold the
    # exit; nothing DBOS keeps changes on a clean shutdown anyway.
    say("done" if code == 0 else "timeout")
    sys.stderr.flush()
    os._exit(code)


def wait_ended(ids: list[str]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = statuses(ids)
        if all(i in found and found[i].status in ENDED for i in ids):
            for i in ids:
                say(line(found[i]))
            return
        if time.monotonic() > deadline:
            for i in ids:
                if i in found:
                    say(line(found[i]))
            finish(2)
        time.sleep(0.2)


@DBOS.step()
def reserve(order: str) -> str:
    return f"reserved {order}"


@DBOS.step()
def charge(order: str) -> str:
    if FIXED:
        return f"charged {order}"
    GATE.wait()
    halt("in step charge", DBOS.workflow_id)
    return ""


@DBOS.workflow(max_recovery_attempts=MAX_RECOVERY_ATTEMPTS)
def charge_order(order: str) -> str:
    reserve(order)
    return charge(order)


@DBOS.step(retries_allowed=True, max_attempts=2, interval_seconds=0.1, backoff_rate=1.0)
def refund(order: str) -> str:
    if FIXED:
        return f"refunded {order}"
    raise RuntimeError(f"the bank refused the refund of {order}")


@DBOS.workflow()
def refund_order(order: str) -> str:
    reserve(order)
    return refund(order)


@DBOS.workflow()
def await_payment(order: str, how: str, seconds: float) -> str:
    reserve(order)
    if how == "sleep":
        DBOS.sleep(seconds)
        return "woke"
    return str(DBOS.recv("payment", timeout_seconds=seconds))


VERSION = OPTS.get("version") or os.environ.get("DBOS__APPVERSION") or "v1"


def dbos() -> str:
    """Configures DBOS (not launched yet); returns its executor id."""
    if "db" not in OPTS:
        sys.exit("db=POSTGRES_URL is required")
    config: DBOSConfig = {
        "name": APP_NAME,
        "system_database_url": OPTS["db"],
        "application_version": VERSION,
        "log_level": OPTS.get("log", "INFO"),
        "sys_db_pool_size": 5,
    }
    if "executor" in OPTS:
        config["executor_id"] = OPTS["executor"]
    DBOS(config=config)
    return GlobalParams.executor_id


def launch() -> None:
    DBOS.launch()


def key() -> str:
    return OPTS.get("key") or f"order-{uuid.uuid4()}"


def cmd_die() -> None:
    dbos()
    launch()
    k = key()
    with SetWorkflowID(k):
        charge_order(k)
    show([k])


def cmd_recover() -> None:
    executor = dbos()
    pending = client().list_workflows(
        status="PENDING", executor_id=executor, app_version=VERSION,
        load_input=False, load_output=False,
    )
    ids = [w.workflow_id for w in pending]
    for w in pending:
        say(f"recovering id={w.workflow_id} status={w.status} recovery_attempts={w.recovery_attempts}")
    launch()
    wait_ended(ids)


def cmd_enqueue() -> None:
    dbos()
    launch()
    queue = DBOS.register_queue(QUEUE, concurrency=1)
    k = key()
    ids = [f"{k}-{i}" for i in range(1, int(OPTS.get("count", "3")) + 1)]
    GATE.clear()
    for i in ids:
        with SetWorkflowID(i):
            queue.enqueue(charge_order, i)
    show(ids)
    GATE.set()
    wait_ended(ids)


def cmd_fail() -> None:
    dbos()
    launch()
    k = key()
    with SetWorkflowID(k):
        try:
            refund_order(k)
        except Exception as e:
            print(f"refund_order raised {type(e).__name__}: {e}", file=sys.stderr)
    show([k])


def cmd_serve() -> None:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    executor = dbos()
    launch()
    say(f"serving executor={executor} version={GlobalParams.app_version}")
    if "wait" in OPTS:
        k = OPTS["wait"]
        how = OPTS.get("how", "sleep")
        with SetWorkflowID(k):
            DBOS.start_workflow(await_payment, k, how, float(OPTS.get("seconds", "3600")))
        deadline = time.monotonic() + TIMEOUT
        # Printed once the wait is recorded: the sleep's wake-up time (both sleep and
        # recv record a DBOS.sleep step before waiting).
        while not any(s["function_name"] == "DBOS.sleep" for s in client().list_workflow_steps(k)):
            if time.monotonic() > deadline:
                finish(2)
            time.sleep(0.2)
        show([k])
    if "until" in OPTS:
        wait_ended(OPTS["until"].split(","))
        finish()
    while not stop.wait(0.5):
        pass
    finish()


def cmd_send() -> None:
    k = OPTS["key"]
    client().send(k, "paid", "payment")
    say(f"sent id={k}")


def cmd_state() -> None:
    for w in client().list_workflows(load_input=False, load_output=False):
        say(line(w))


COMMANDS = {
    "die": cmd_die,
    "recover": cmd_recover,
    "enqueue": cmd_enqueue,
    "fail": cmd_fail,
    "serve": cmd_serve,
    "send": cmd_send,
    "state": cmd_state,
}

if __name__ == "__main__":
    if COMMAND not in COMMANDS:
        sys.exit(f"a command: {', '.join(COMMANDS)}")
    COMMANDS[COMMAND]()
    finish()
