//! indoubt-config(5): the config file's reference, every section and key with its type
//! and the registry's default, written by the assets generator.

use super::defaults::{self, Entry, Kind};

/// A key of the config file: its place, and either its registry entry (type, default
/// and doc from there) or its own type and doc (a key without a default).
struct Key {
    key: &'static str,
    of: Of,
}

enum Of {
    Registry(&'static Entry),
    Plain(Kind, &'static str),
}

const fn reg(key: &'static str, entry: &'static Entry) -> Key {
    Key {
        key,
        of: Of::Registry(entry),
    }
}

const fn plain(key: &'static str, kind: Kind, doc: &'static str) -> Key {
    Key {
        key,
        of: Of::Plain(kind, doc),
    }
}

/// The sections in the order of the page, each with its keys (relative to the section).
const SECTIONS: &[(&str, &str, &[Key])] = &[
    (
        "postgres.NAME",
        "Named PostgreSQL servers, for --pg NAME and the other sections.",
        &[plain(
            "conninfo",
            Kind::Text,
            "a postgres:// URL or a key=value conninfo string (service=NAME: a service of pg_service.conf); PG* variables and ~/.pgpass fill the gaps (keep the password there, not here)",
        )],
    ),
    (
        "kafka.NAME",
        "Named Kafka clusters, for --kafka NAME and the other sections.",
        &[
            plain("bootstrap_servers", Kind::Text, "host:port[,host:port...], as kafka tools' --bootstrap-server"),
            plain("properties", Kind::Mapping, "a mapping of client properties (librdkafka names: security.protocol, sasl.mechanism, ...); values may be ${env:NAME} or ${file:PATH:KEY}"),
            plain("properties_file", Kind::Text, "a Java-style properties file, like kafka tools' --command-config; properties win over it"),
            plain("check_topic_regex", Kind::Text, "the topics indoubt check inspects on this cluster (a regular expression); every topic when absent"),
        ],
    ),
    (
        "mysql.NAME",
        "Named MySQL and MariaDB servers, for --mysql NAME and resolve.participants.",
        &[
            plain("url", Kind::Text, "mysql://USER@HOST:PORT/DB (keep the password in the option file or MYSQL_PWD, not here)"),
            plain("option_file", Kind::Text, "an option file whose [client] group gives the password, like the client's --defaults-file; else ~/.my.cnf"),
            plain("ssl_mode", Kind::Text, "as the mysql client's --ssl-mode: DISABLED, PREFERRED (default), REQUIRED, VERIFY_CA, VERIFY_IDENTITY"),
            plain("ssl_ca", Kind::Text, "the CA certificate VERIFY_CA and VERIFY_IDENTITY check the server's against"),
        ],
    ),
    (
        "thresholds",
        "When a finding is a WARNING or CRITICAL. A command's flag wins over these.",
        &[
            reg("prepared.warning_age", &defaults::PREPARED_WARNING_AGE),
            reg("prepared.critical_age", &defaults::PREPARED_CRITICAL_AGE),
            reg("slots.warning_retained", &defaults::SLOTS_WARNING_RETAINED),
            reg("slots.critical_retained", &defaults::SLOTS_CRITICAL_RETAINED),
            reg("horizon.warning_age", &defaults::HORIZON_WARNING_AGE),
            reg("horizon.critical_age", &defaults::HORIZON_CRITICAL_AGE),
            reg("horizon.warning_xids", &defaults::HORIZON_WARNING_XIDS),
            reg("horizon.critical_xids", &defaults::HORIZON_CRITICAL_XIDS),
            reg("wraparound.warning_xids", &defaults::WRAPAROUND_WARNING_XIDS),
            reg("wraparound.critical_xids", &defaults::WRAPAROUND_CRITICAL_XIDS),
            reg("lso.warning_age", &defaults::LSO_WARNING_AGE),
            reg("lso.critical_age", &defaults::LSO_CRITICAL_AGE),
            reg("lso.warning_gap", &defaults::LSO_WARNING_GAP),
            reg("lso.critical_gap", &defaults::LSO_CRITICAL_GAP),
            reg("hanging.max_transaction_timeout", &defaults::HANGING_MAX_TRANSACTION_TIMEOUT),
            reg("purge.warning_history_length", &defaults::PURGE_WARNING_HISTORY_LENGTH),
            reg("purge.critical_history_length", &defaults::PURGE_CRITICAL_HISTORY_LENGTH),
        ],
    ),
    (
        "reconcile.NAME",
        "Named reconcile jobs (indoubt reconcile NAME); a flag wins over each field.",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string"),
            plain("query", Kind::Text, "takes $1 = since and $2 = until (timestamptz); returns the id and optionally the row's time"),
            plain("kafka", Kind::Text, "a kafka target name"),
            plain("topic", Kind::Text, "the topic the rows' events are published to"),
            reg("id_from", &defaults::RECONCILE_ID_FROM),
            reg("since", &defaults::RECONCILE_SINCE),
            reg("until", &defaults::RECONCILE_UNTIL),
            reg("settle", &defaults::RECONCILE_SETTLE),
            reg("slack", &defaults::RECONCILE_SLACK),
            reg("check", &defaults::RECONCILE_CHECK),
            plain("republish", Kind::Mapping, "how `indoubt resolve reconcile` builds the messages of the ids missing in the topic (see reconcile.NAME.republish)"),
        ],
    ),
    (
        "reconcile.NAME.republish",
        "The messages of a job's ids missing in its topic, built from the source of truth, for indoubt resolve reconcile to publish them to the job's topic and cluster.",
        &[
            plain("query", Kind::Text, "takes $1 = the ids (text[]: cast it, e.g. id = ANY($1::text[]::bigint[])); returns a row per id it finds: column id, value and optionally key, every other column a header of its name (bytea as it is; text, json, integers and uuid as text); the message must carry the id where the job's id_from reads it (a key or header the query leaves out is set to the id)"),
            plain("transactional_id", Kind::Text, "the transactional.id of resolve reconcile --transactional (default indoubt-republish-NAME)"),
            reg("message_timeout", &defaults::OUTBOX_PUBLISH_MESSAGE_TIMEOUT),
        ],
    ),
    (
        "outbox.NAME",
        "Named outbox tables (indoubt pg outbox): rows written with the business change, published later by a relay.",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the outbox's database"),
            plain("table", Kind::Text, "the table, optionally schema-qualified"),
            reg("id_column", &defaults::OUTBOX_ID_COLUMN),
            reg("created_at_column", &defaults::OUTBOX_CREATED_AT_COLUMN),
            reg("published_at_column", &defaults::OUTBOX_PUBLISHED_AT_COLUMN),
            reg("settle", &defaults::OUTBOX_SETTLE),
            reg("warning_age", &defaults::OUTBOX_WARNING_AGE),
            reg("critical_age", &defaults::OUTBOX_CRITICAL_AGE),
            reg("retention", &defaults::OUTBOX_RETENTION),
            reg("check", &defaults::OUTBOX_CHECK),
            plain("publish", Kind::Mapping, "how `indoubt resolve outbox` makes messages of the rows the relay skipped (see outbox.NAME.publish)"),
        ],
    ),
    (
        "outbox.NAME.publish",
        "The messages a relay makes of the outbox's rows, for indoubt resolve outbox to publish the skipped ones the same way, with the row's id as their stable message id.",
        &[
            plain("kafka", Kind::Text, "a kafka target name: where to publish (its properties, -X and --command-config as for every kafka command)"),
            plain("topic", Kind::Text, "the topic; with the debezium layout, outbox.event. and the row's aggregatetype when not given"),
            reg("layout", &defaults::OUTBOX_PUBLISH_LAYOUT),
            plain("key", Kind::Text, "the column of the message key (debezium: aggregateid); none: no key"),
            reg("value", &defaults::OUTBOX_PUBLISH_VALUE),
            plain("headers", Kind::Mapping, "header name: column, for each header the relay sets (a NULL column: no header)"),
            reg("id_header", &defaults::OUTBOX_PUBLISH_ID_HEADER),
            plain("transactional_id", Kind::Text, "the transactional.id of resolve outbox --transactional (default indoubt-republish-NAME)"),
            reg("message_timeout", &defaults::OUTBOX_PUBLISH_MESSAGE_TIMEOUT),
        ],
    ),
    (
        "inbox.NAME",
        "Named inbox tables (indoubt pg outbox): the ids of the messages a consumer processed, kept to drop a message delivered again; their size, age and retention.",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string"),
            plain("table", Kind::Text, "the table, optionally schema-qualified"),
            reg("created_at_column", &defaults::INBOX_CREATED_AT_COLUMN),
            plain("retention", Kind::Duration, "how long processed ids are kept (a job deletes older ones); without it the inbox is said to keep them for ever, and rows older than it say nothing deletes them"),
            plain("producer_retry_horizon", Kind::Duration, "the longest a producer may deliver a message again (its retries, a replay, a restored backup): a retention shorter than it lets a late duplicate through, applied twice"),
        ],
    ),
    (
        "seata.NAME",
        "Named Apache Seata coordinators (indoubt seata globals), by their database store (store.mode=db).",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the store's database (store.db.db-type postgresql)"),
            plain("mysql", Kind::Text, "instead of postgres: a mysql target name, for a store on MySQL or MariaDB (db-type mysql)"),
            reg("global_table", &defaults::SEATA_GLOBAL_TABLE),
            reg("branch_table", &defaults::SEATA_BRANCH_TABLE),
            reg("lock_table", &defaults::SEATA_LOCK_TABLE),
            reg("grace", &defaults::SEATA_GRACE),
            reg("critical_age", &defaults::SEATA_CRITICAL_AGE),
            reg("reservation_age", &defaults::SEATA_RESERVATION_AGE),
            reg("saga_stall", &defaults::SEATA_SAGA_STALL),
            reg("fence_retention", &defaults::SEATA_FENCE_RETENTION),
            reg("check", &defaults::SEATA_CHECK),
        ],
    ),
    (
        "seata.NAME.clients.NAME",
        "The business databases of the coordinator's clients (indoubt seata globals, seata tcc, seata sagas): the Seata tables each holds, named as the client names them; a table not named is not read.",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the business database"),
            plain("mysql", Kind::Text, "instead of postgres: a mysql target name, for a business database on MySQL or MariaDB"),
            plain("undo_log", Kind::Text, "AT mode's undo log (client.undo.log-table, usually undo_log): the images of a stuck branch, and undo logs no global needs"),
            plain("tcc_fence_log", Kind::Text, "TCC's fence table (usually tcc_fence_log): reservations nobody releases, records never cleaned"),
            plain("saga_table_prefix", Kind::Text, "the saga engine's table prefix (usually seata_): instances unknown, stalled, or whose compensation failed"),
        ],
    ),
    (
        "modulith.NAME",
        "Named Spring Modulith event publication registries (indoubt modulith publications): the JDBC registry's table in the application's database (1.x and 2.x layouts, found from the table's columns).",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the application's database"),
            plain("mysql", Kind::Text, "instead of postgres: a mysql target name, for an application on MySQL or MariaDB"),
            reg("table", &defaults::MODULITH_TABLE),
            reg("incomplete_age", &defaults::MODULITH_INCOMPLETE_AGE),
            reg("critical_age", &defaults::MODULITH_CRITICAL_AGE),
            reg("poison_attempts", &defaults::MODULITH_POISON_ATTEMPTS),
            reg("retention", &defaults::MODULITH_RETENTION),
            reg("check", &defaults::MODULITH_CHECK),
        ],
    ),
    (
        "camunda.NAME",
        "Named Camunda 7 / Operaton process engines (indoubt camunda incidents, resolve camunda): the engine's tables in its PostgreSQL database (schema versions 7.x and Operaton 1.x, read from ACT_GE_PROPERTY), and its REST API for the fixes.",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the engine's database"),
            reg("table_prefix", &defaults::CAMUNDA_TABLE_PREFIX),
            reg("critical_age", &defaults::CAMUNDA_CRITICAL_AGE),
            reg("lock_age", &defaults::CAMUNDA_LOCK_AGE),
            plain("time_zone", Kind::Text, "the engine JVM's time zone (user.timezone, e.g. Europe/Berlin) when it is not the database session's: the engine writes its times as local times without a zone, and ages are read in it"),
            reg("rest", &defaults::CAMUNDA_REST),
            plain("rest_user", Kind::Text, "the REST API's user, for HTTP basic authentication (with rest_password_file)"),
            plain("rest_password_file", Kind::Text, "a file holding that user's password (refused when others may write it)"),
            plain("rest_allow_http", Kind::Bool, "allow plain http to a REST API that is not on loopback (the password and the calls cross the network in clear)"),
            reg("check", &defaults::CAMUNDA_CHECK),
        ],
    ),
    (
        "dbos.NAME",
        "Named DBOS Transact applications (indoubt dbos workflows, resolve dbos): DBOS's system tables in the application's system database (DBOS Transact 1.x to 3.x; its migration read from dbos_migrations), and DBOS's own CLI for the fixes.",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the application's system database"),
            reg("schema", &defaults::DBOS_SCHEMA),
            reg("pending_age", &defaults::DBOS_PENDING_AGE),
            reg("critical_age", &defaults::DBOS_CRITICAL_AGE),
            reg("error_window", &defaults::DBOS_ERROR_WINDOW),
            plain("cli", Kind::List, "DBOS's CLI as a command line, e.g. [/srv/app/.venv/bin/dbos]: resolve dbos runs its workflow resume and cancel (the password in PGPASSWORD, never on the command line); without it the command is printed"),
            reg("check", &defaults::DBOS_CHECK),
        ],
    ),
    (
        "sagas.NAME",
        "Named hand-written sagas (indoubt saga, resolve saga): the table a service keeps one row per saga instance in, on PostgreSQL or MySQL/MariaDB. Every column and table is named as the service names it (quoted: case counts).",
        &[
            plain("postgres", Kind::Text, "a postgres target name or connection string: the service's database"),
            plain("mysql", Kind::Text, "instead of postgres: a mysql target name, for a service on MySQL or MariaDB"),
            plain("table", Kind::Text, "the saga table, optionally schema-qualified"),
            reg("id", &defaults::SAGA_ID_COLUMN),
            reg("state", &defaults::SAGA_STATE_COLUMN),
            reg("updated_at", &defaults::SAGA_UPDATED_AT_COLUMN),
            plain("started_at", Kind::Text, "the column of when the saga started (a timestamp): what deadline is measured from"),
            plain("attempts", Kind::Text, "the column counting the current step's attempts (an integer): max_attempts, and attempts climbing between two runs"),
            plain("step", Kind::Text, "the column naming the current step: compared with pivot (else the state is)"),
            plain("states", Kind::Mapping, "the state column's values by meaning (see sagas.NAME.states); a value found that no list names is UNKNOWN, never judged"),
            plain("steps", Kind::List, "the steps in order, for pivot (default: states.running's order)"),
            plain("pivot", Kind::Text, "the step from which the saga is only driven forward, never compensated: the advice for a stuck saga says which"),
            plain("deadline", Kind::Duration, "how long after started_at a saga not done is overdue (needs started_at)"),
            reg("stalled_after", &defaults::SAGA_STALLED_AFTER),
            plain("max_attempts", Kind::Number, "attempts at which a saga needs a person (needs attempts): a compensation failing that often is logged, not escalated, unless someone looks"),
            reg("unknown_escalate_after", &defaults::SAGA_UNKNOWN_ESCALATE_AFTER),
            plain("context", Kind::Text, "what a saga is about, from its row: \"order {order_id}: refund {amount} {currency}\" (each {column} a column of the saga table); shown with every finding and written into an escalation"),
            plain("manual_queue", Kind::Mapping, "the table a person works stuck sagas from (see sagas.NAME.manual_queue)"),
            plain("locks", Kind::List, "entities a running saga holds by setting their state (see sagas.NAME.locks[])"),
            reg("check", &defaults::SAGA_CHECK),
        ],
    ),
    (
        "sagas.NAME.states",
        "The values of the saga's state column, by what they mean. running and done are required; a value is in one list only.",
        &[
            plain("running", Kind::List, "in progress: judged by stalled_after, deadline and max_attempts"),
            plain("done", Kind::List, "finished, fine (completed, compensated): never read again (the reads go through the other rows only)"),
            plain("failed", Kind::List, "finished, needs a person: is it in the manual queue?"),
            plain("compensating", Kind::List, "undoing its steps: needs a person at max_attempts"),
            plain("unknown", Kind::List, "waiting on an external call whose outcome is not known: past unknown_escalate_after a person must establish it before anything is retried or compensated"),
        ],
    ),
    (
        "sagas.NAME.manual_queue",
        "The table a person works stuck sagas from (the articles' persistent manual-intervention queue), in the saga's database.",
        &[
            plain("table", Kind::Text, "the table, optionally schema-qualified"),
            plain("saga_id", Kind::Text, "the column naming the saga (default saga_id)"),
            plain("created_at", Kind::Text, "when the item was raised (a timestamp; default created_at)"),
            plain("resolved_at", Kind::Text, "NULL while the item is open; without it every item counts as open"),
            plain("reason", Kind::Text, "a text column resolve saga --escalate writes the saga's state, step, attempts and context into"),
        ],
    ),
    (
        "sagas.NAME.locks[]",
        "A list: each a table of entities a running saga holds by setting their state (a semantic lock), in the saga's database.",
        &[
            plain("table", Kind::Text, "the entity table, optionally schema-qualified"),
            plain("id", Kind::Text, "its id column (default id)"),
            plain("state", Kind::Text, "its state column (default state)"),
            plain("held", Kind::List, "the states that mean a saga holds it"),
            plain("saga_id", Kind::Text, "the column naming the saga that holds it (default saga_id)"),
            plain("released", Kind::Text, "the state resolve saga --release sets an orphaned entity back to (its saga_id set NULL); without it nothing is released"),
            plain("version", Kind::Text, "a column every write of the entity changes (a version, an updated_at): with the state and the saga, the release's guard"),
        ],
    ),
    (
        "audit",
        "The audit trail of resolutions.",
        &[reg("path", &defaults::AUDIT_PATH)],
    ),
    (
        "resolve",
        "Where resolve pg looks for the coordinator's decision, and the other branches of a global transaction.",
        &[
            plain("citus_coordinator", Kind::Text, "the postgres target of the Citus coordinator, for citus_... GIDs"),
            plain("participants", Kind::List, "postgres targets where the same global transaction may also be prepared"),
        ],
    ),
    (
        "resolve.decision_sources[]",
        "A list: each a place that knows the coordinator's decision.",
        &[
            plain("name", Kind::Text, "the source's name, shown in the evidence and the audit trail"),
            reg("kind", &defaults::DECISION_SOURCE_KIND),
            plain("target", Kind::Text, "sql, narayana_jdbc_store and seata_store: a postgres target of this config"),
            plain("query", Kind::Text, "sql: takes the key as $1; returns one row whose first column is the decision (commit, rollback or an in-progress state), or no row"),
            reg("key", &defaults::DECISION_SOURCE_KEY),
            reg("authoritative", &defaults::DECISION_SOURCE_AUTHORITATIVE),
            plain("path", Kind::Text, "narayana_object_store: the ObjectStore directory; atomikos_log: its log directory"),
            reg("table", &defaults::DECISION_SOURCE_TABLE),
            plain("coordinator", Kind::Text, "Narayana: the node identifier (xaNodeName); Atomikos: its tm_unique_name; makes \"no record\" count"),
            reg("in_doubt_after", &defaults::DECISION_SOURCE_IN_DOUBT_AFTER),
        ],
    ),
];

/// A config using every section, each threshold at its default.
const EXAMPLE: &str = "\
postgres:
  prod:
    conninfo: host=db1.example.com user=monitor dbname=postgres sslmode=verify-full
kafka:
  prod:
    bootstrap_servers: k1.example.com:9093,k2.example.com:9093
    properties_file: /etc/kafka/client.properties
    check_topic_regex: '^(payments|orders)\\.'
mysql:
  orders:
    url: mysql://monitor@mysql1.example.com:3306/
    option_file: /etc/indoubt/my.cnf
    ssl_mode: VERIFY_IDENTITY
    ssl_ca: /etc/ssl/certs/db-ca.pem
thresholds:
  prepared:
    warning_age: 5m
    critical_age: 30m
  lso:
    warning_gap: 100k
reconcile:
  orders:
    postgres: prod
    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2
    kafka: prod
    topic: orders
    since: 3h
outbox:
  events:
    postgres: prod
    table: public.outbox
    check: true
seata:
  orders-tc:
    postgres: host=db3.example.com user=monitor dbname=seata
    check: true
    clients:
      wallet:
        postgres: host=db2.example.com user=monitor dbname=wallet
        undo_log: undo_log
        tcc_fence_log: tcc_fence_log
audit:
  path: /var/lib/indoubt/audit.jsonl
resolve:
  decision_sources:
    - name: tx-outcomes
      target: prod
      query: SELECT outcome FROM tx_outcomes WHERE gtrid = $1
      key: gtrid
      authoritative: true
";

/// Text as roff reads it literally: a backslash as `\e`, a hyphen as `\-` (not a
/// hyphenation point), a line that would start with a control character guarded by `\&`.
pub(crate) fn roff(text: &str) -> String {
    roff_line(&roff_inline(text))
}

/// Text escaped for the middle of a line (no guard: only a line's start needs one).
pub(crate) fn roff_inline(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// Roff text that cannot begin a request however it starts (`\&` before a `.` or `'`).
pub(crate) fn roff_line(text: &str) -> String {
    match text.starts_with(['.', '\'']) {
        true => format!("\\&{text}"),
        false => text.to_string(),
    }
}

/// The page, as `man/indoubt-config.5`.
pub fn config_page() -> String {
    let mut out = String::from(
        ".TH indoubt-config 5 \"\" \"indoubt\"\n.SH NAME\nindoubt\\-config \\- the indoubt config file\n.SH SYNOPSIS\n~/.config/indoubt/config.yaml (or \\-\\-config FILE, or $INDOUBT_CONFIG)\n.SH DESCRIPTION\nA YAML file of named targets, thresholds and jobs. Every section is optional. Unknown keys and a key given twice in one mapping are refused with the file, line and column (exit 3). A command's flag wins over the config, and the config over the default. \\fBindoubt config show\\fR prints every value in force and where it came from.\n.PP\nTypes: a \\fIduration\\fR is written 10s, 5m, 1h30m; a \\fIcount\\fR 100k, 10M, 1.3B (powers of 1000); a \\fIsize\\fR 512MiB, 10GiB or PostgreSQL's 500MB (powers of 1024).\n",
    );
    for (section, about, keys) in SECTIONS {
        out.push_str(&format!(".SH \"{}\"\n{}\n", roff(section), roff(about)));
        for key in *keys {
            let (kind, default, doc) = match &key.of {
                Of::Registry(e) => (e.value.kind(), Some(e.value.text()), e.doc),
                Of::Plain(kind, doc) => (*kind, None, *doc),
            };
            let default =
                default.map_or_else(String::new, |d| format!(", default \\fB{}\\fR", roff(&d)));
            let flag = match &key.of {
                Of::Registry(Entry {
                    flag: Some(flag), ..
                }) if flag.starts_with("--") => format!(" (flag: {})", roff(flag)),
                Of::Registry(Entry {
                    flag: Some(flag), ..
                }) => format!(" (flag: indoubt {})", roff(flag)),
                _ => String::new(),
            };
            out.push_str(&format!(
                ".TP\n\\fB{}\\fR (\\fI{}\\fR{default})\n{}{flag}\n",
                roff(key.key),
                kind.name(),
                roff(doc)
            ));
        }
    }
    out.push_str(".SH EXAMPLE\n.nf\n");
    for line in EXAMPLE.lines() {
        out.push_str(&roff(line));
        out.push('\n');
    }
    out.push_str(
        ".fi\n.SH \"SEE ALSO\"\nindoubt(1), indoubt\\-config\\-show(1), indoubt\\-check(1)\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields serde expects in a section, from its "unknown field" error.
    fn fields_of(yaml: &str) -> Vec<String> {
        let err = match crate::config::parse(yaml, std::path::Path::new("c.yaml")) {
            Ok(_) => panic!("{yaml}: the unknown field was accepted"),
            Err(e) => e.to_string(),
        };
        let list = err
            .split("expected one of ")
            .nth(1)
            .or_else(|| err.split("expected ").nth(1))
            .unwrap_or_else(|| panic!("{err}"));
        // serde writes `a`, `b` or `c` for many, `a` or `b` for two.
        list.replace("` or `", "`, `")
            .split(", ")
            .map(|f| {
                f.trim_matches(|c: char| c == '`' || c.is_whitespace())
                    .to_string()
            })
            .collect()
    }

    fn documented(section: &str) -> Vec<String> {
        SECTIONS
            .iter()
            .filter(|(s, _, _)| *s == section)
            .flat_map(|(_, _, keys)| keys.iter().map(|k| k.key.to_string()))
            .collect()
    }

    #[test]
    fn the_page_documents_every_key_the_config_accepts() {
        for (section, yaml) in [
            ("postgres.NAME", "postgres:\n  a:\n    nope: 1\n"),
            ("kafka.NAME", "kafka:\n  a:\n    nope: 1\n"),
            ("mysql.NAME", "mysql:\n  a:\n    nope: 1\n"),
            ("reconcile.NAME", "reconcile:\n  a:\n    nope: 1\n"),
            (
                "reconcile.NAME.republish",
                "reconcile:\n  a:\n    republish:\n      query: q\n      nope: 1\n",
            ),
            ("outbox.NAME", "outbox:\n  a:\n    nope: 1\n"),
            (
                "outbox.NAME.publish",
                "outbox:\n  a:\n    postgres: p\n    table: t\n    publish:\n      nope: 1\n",
            ),
            ("inbox.NAME", "inbox:\n  a:\n    nope: 1\n"),
            ("sagas.NAME", "sagas:\n  a:\n    nope: 1\n"),
            (
                "sagas.NAME.states",
                "sagas:\n  a:\n    table: t\n    states:\n      nope: 1\n",
            ),
            (
                "sagas.NAME.manual_queue",
                "sagas:\n  a:\n    table: t\n    manual_queue:\n      nope: 1\n",
            ),
            (
                "sagas.NAME.locks[]",
                "sagas:\n  a:\n    table: t\n    locks:\n      - nope: 1\n",
            ),
            ("audit", "audit:\n  nope: 1\n"),
            (
                "resolve.decision_sources[]",
                "resolve:\n  decision_sources:\n    - nope: 1\n",
            ),
        ] {
            let mut want = fields_of(yaml);
            let mut have = documented(section);
            want.sort();
            have.sort();
            assert_eq!(have, want, "{section}");
        }
        let mut resolve = fields_of("resolve:\n  nope: 1\n");
        resolve.retain(|f| f != "decision_sources");
        assert_eq!(documented("resolve"), resolve);
        // thresholds: each group's fields, as group.field.
        let mut want = Vec::new();
        for group in fields_of("thresholds:\n  nope: 1\n") {
            for field in fields_of(&format!("thresholds:\n  {group}:\n    nope: 1\n")) {
                want.push(format!("{group}.{field}"));
            }
        }
        let mut have = documented("thresholds");
        want.sort();
        have.sort();
        assert_eq!(have, want);
        // Every section of the file is on the page.
        let top = fields_of("nope: 1\n");
        for s in top {
            assert!(
                SECTIONS
                    .iter()
                    .any(|(name, _, _)| name.split('.').next() == Some(s.as_str())),
                "{s}"
            );
        }
    }

    #[test]
    fn every_registry_config_key_is_on_the_page_with_its_default() {
        let page = config_page();
        for e in defaults::ALL {
            let Some(key) = e.config else { continue };
            let found = SECTIONS.iter().any(|(section, _, keys)| {
                keys.iter().any(|k| {
                    let full = format!("{section}.{}", k.key).replace("NAME", "*");
                    matches!(k.of, Of::Registry(r) if r == e) && full == key
                })
            });
            assert!(found, "{key} is not on the page under its own name");
            assert!(
                page.contains(&format!("default \\fB{}\\fR", roff(&e.value.text()))),
                "{key}"
            );
        }
    }

    #[test]
    fn the_example_is_a_valid_config() {
        let config = crate::config::parse(EXAMPLE, std::path::Path::new("example.yaml")).unwrap();
        assert_eq!(config.reconcile.len(), 1);
        assert_eq!(config.resolve.decision_sources.len(), 1);
    }
}
