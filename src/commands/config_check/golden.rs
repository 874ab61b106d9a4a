//! Golden output of `config show --check` (report::golden): a production-like config's
//! targets as their checks found them, each row made by the check that makes it in a run
//! from what the server or broker answered (fixed here). Two postgres targets of one
//! server and role checked once, the monitoring role lacking CONNECT on a database and
//! resolve pg limited to its own transactions, a reconcile query refused; a second
//! server whose role is no pg_monitor and may not read an inbox's column; a decision
//! source's server that did not answer; a SASL_SSL cluster whose principal may neither
//! write abort markers, describe transactional ids nor read one listed topic; a MariaDB
//! user without PROCESS; and a reference that names no target.

use super::checks::Also;
use super::*;
use crate::commands::mysql_xa::golden as xa_golden;
use crate::kafka::access::{
    Access, ApiOffer, Operation, Operations, TopicAccess, TransactionalIdProbe,
};
use crate::mysql::session::Flavor;
use crate::pg::privileges::{DatabaseAccess, PreparedOwnership, RolePrivileges, TableAccess};
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::settings::config_check::{KafkaPlan, MysqlPlan, PgPlan, PgUse};

const CONFIG: &str = "\
postgres:
  prod-orders:
    conninfo: postgres://monitor@db-orders-1.prod.example:5432/orders
  prod-orders-audit:
    conninfo: postgres://monitor@db-orders-1.prod.example:5432/audit
  prod-payments:
    conninfo: host=db-payments-1.prod.example port=5433 user=monitor dbname=payments
kafka:
  prod-events:
    bootstrap_servers: kafka-1.prod.example:9093,kafka-2.prod.example:9093
    properties:
      security.protocol: SASL_SSL
      sasl.mechanism: SCRAM-SHA-512
      sasl.username: indoubt
      sasl.password: hunter2
    check_topic_regex: '^(orders|payments)\\.'
mysql:
  prod-billing:
    url: mysql://monitor@db-billing-1.prod.example:3306/
reconcile:
  orders-to-events:
    postgres: prod-orders
    query: SELECT id::text, created_at FROM orders WHERE created_at >= $1 AND created_at < $2
    kafka: prod-events
    topic: orders.order-events.v1
    id_from: json:/payload/after/id
    since: 1h
outbox:
  orders-outbox:
    postgres: prod-orders
    table: public.outbox_events
inbox:
  payments-inbox:
    postgres: prod-payments
    table: public.inbox_messages
resolve:
  decision_sources:
    - name: narayana-jdbc
      kind: narayana_jdbc_store
      target: postgres://monitor@db-tm-1.prod.example:5432/narayana
  participants: [prod-payments, prod-billing]
  citus_coordinator: prod-citus
";

fn settings() -> ConfigCheckSettings {
    match golden::settings(CONFIG, &["config", "show", "--check"]) {
        crate::settings::CommandSettings::ConfigCheck(s) => *s,
        _ => unreachable!("resolved as config show --check"),
    }
}

fn pg_plan<'a>(s: &'a ConfigCheckSettings, name: &str) -> &'a PgPlan {
    match s.plans.pg.iter().find(|p| p.name == name) {
        Some(plan) => plan,
        None => panic!("no postgres plan {name}"),
    }
}

/// Where a plan connects, as its target's row names it.
fn address(plan: &PgPlan) -> String {
    match &plan.target {
        Ok(target) => target.params.describe(),
        Err(e) => panic!("{}: {e:#}", plan.name),
    }
}

/// The role `monitor` on a server, as `pg_grants::read` finds it.
fn role(member_of: &[&str], unexecutable_functions: &[&str]) -> RolePrivileges {
    RolePrivileges {
        role: "monitor".into(),
        superuser: false,
        server_version: "16.4".into(),
        server_version_num: 160_004,
        member_of: member_of.iter().map(|r| r.to_string()).collect(),
        unreadable_views: Vec::new(),
        unexecutable_functions: unexecutable_functions
            .iter()
            .map(|f| f.to_string())
            .collect(),
        hidden_settings: Vec::new(),
    }
}

fn database(name: &str, allows_connections: bool, connect: bool) -> DatabaseAccess {
    DatabaseAccess {
        name: name.into(),
        allows_connections,
        connect,
    }
}

/// What each section of `plan` reads, as the server answered: `ran` for a reconcile
/// query, `access` for a table.
fn uses(
    plan: &PgPlan,
    ran: &anyhow::Result<Result<(), String>>,
    access: &anyhow::Result<TableAccess>,
) -> Vec<Check> {
    plan.uses
        .iter()
        .map(|using| match using {
            PgUse::Reconcile { job, .. } => pg_tables::reconcile_query(job, ran, "monitor"),
            PgUse::Table {
                section,
                table,
                columns,
            } => pg_tables::table_check(section, table, columns, access, "monitor"),
        })
        .collect()
}

/// prod-orders and prod-orders-audit: one server, one role, two databases. The role is
/// in pg_monitor, has no CONNECT on analytics, where two of the three transactions
/// prepared now are, none of them its own; the reconcile query's table is not granted,
/// the outbox's columns are.
fn orders(s: &ConfigCheckSettings) -> TargetChecks {
    let (orders, audit) = (pg_plan(s, "prod-orders"), pg_plan(s, "prod-orders-audit"));
    let read = pg_grants::RoleRead {
        role: role(
            &["pg_monitor", "pg_read_all_settings", "pg_read_all_stats"],
            &[],
        ),
        databases: Ok(vec![
            database("postgres", true, true),
            database("orders", true, true),
            database("audit", true, true),
            database("analytics", true, false),
            database("template0", false, true),
            database("template1", true, true),
        ]),
        ownership: Some(Ok(PreparedOwnership {
            total: 3,
            own: 0,
            in_databases_without_connect: vec!["analytics".into()],
        })),
    };
    let mut checks = pg_grants::checks(&read);
    checks[0].what = "connection to orders".into();
    checks.push(Check::ok("connection to audit", "connected as monitor"));
    let refused = Ok(Err(
        "db error: ERROR: permission denied for table orders".to_string()
    ));
    let columns = Ok(TableAccess {
        unusable_schema: None,
        exists: true,
        select: false,
        missing_columns: Vec::new(),
        unreadable_columns: Vec::new(),
    });
    checks.extend(uses(orders, &refused, &columns));
    let mut checked = TargetChecks::new(
        "postgres",
        &orders.name,
        Some(address(orders)),
        &union([&orders.used_by, &audit.used_by]),
        checks,
    );
    checked.also = vec![Also {
        name: audit.name.clone(),
        address: Some(address(audit)),
    }];
    checked
}

/// prod-payments: a role in no monitoring role (pg_ls_waldir not granted), the inbox
/// table's created_at column not readable.
fn payments(s: &ConfigCheckSettings) -> TargetChecks {
    let plan = pg_plan(s, "prod-payments");
    let read = pg_grants::RoleRead {
        role: role(&[], &["pg_catalog.pg_ls_waldir()"]),
        databases: Ok(vec![
            database("postgres", true, true),
            database("payments", true, true),
            database("template0", false, true),
            database("template1", true, true),
        ]),
        ownership: Some(Ok(PreparedOwnership {
            total: 0,
            own: 0,
            in_databases_without_connect: Vec::new(),
        })),
    };
    let mut checks = pg_grants::checks(&read);
    let unreadable = Ok(TableAccess {
        unusable_schema: None,
        exists: true,
        select: false,
        missing_columns: Vec::new(),
        unreadable_columns: vec!["created_at".into()],
    });
    checks.extend(uses(plan, &Ok(Ok(())), &unreadable));
    TargetChecks::new(
        "postgres",
        &plan.name,
        Some(address(plan)),
        &plan.used_by,
        checks,
    )
}

/// The decision source's server: nothing answered within --timeout (the error's
/// message and hint as the connection gives them).
fn narayana_jdbc(s: &ConfigCheckSettings) -> TargetChecks {
    let plan = pg_plan(s, "decision source narayana-jdbc's connection string");
    let timed_out = crate::error::hinted(
        "no answer within 10s from db-tm-1.prod.example:5432",
        "nothing answered within --timeout 10s: check the host, port and firewall; a busy server may need a longer --timeout",
    );
    TargetChecks::new(
        "postgres",
        &plan.name,
        Some(address(plan)),
        &plan.used_by,
        vec![Check::unreachable(&timed_out)],
    )
}

fn kafka_plan(s: &ConfigCheckSettings) -> &KafkaPlan {
    match s.plans.kafka.first() {
        Some(plan) => plan,
        None => panic!("no kafka plan"),
    }
}

fn offer(api: &str, min: i16, max: i16) -> ApiOffer {
    ApiOffer {
        api: api.into(),
        min: Some(min),
        max: Some(max),
    }
}

fn operations(ops: &[Operation]) -> Operations {
    Operations(ops.iter().fold(0, |bits, op| bits | 1 << *op as i32))
}

/// prod-events, as the SASL_SSL principal User:indoubt: Kafka 3.7's APIs; DESCRIBE on
/// the cluster only (no abort markers), DESCRIBE on transactional ids denied; the
/// payments topic listed without READ; the reconcile job's topic readable.
fn events(s: &ConfigCheckSettings) -> TargetChecks {
    let plan = kafka_plan(s);
    let target = match &plan.target {
        Ok(target) => target,
        Err(e) => panic!("{}: {e:#}", plan.name),
    };
    let readable = operations(&[
        Operation::Read,
        Operation::Describe,
        Operation::DescribeConfigs,
    ]);
    let access = Access {
        address: "kafka-1.prod.example:9093".into(),
        apis: vec![
            offer("Metadata", 0, 12),
            offer("ListOffsets", 1, 8),
            offer("Fetch", 4, 16),
            offer("DescribeConfigs", 1, 4),
            offer("FindCoordinator", 0, 4),
            offer("DescribeProducers", 0, 0),
            offer("ListTransactions", 0, 1),
            offer("DescribeTransactions", 0, 0),
            offer("WriteTxnMarkers", 1, 1),
            offer("DescribeCluster", 0, 1),
        ],
        brokers: 3,
        cluster_id: Some("Mk3OEYBSD34fcwNTJENDM2Qk".into()),
        cluster: Ok(operations(&[Operation::Describe])),
        topics: [(
            "orders.order-events.v1".to_string(),
            TopicAccess::Described {
                operations: readable,
                internal: false,
            },
        )]
        .into(),
        listed: [
            ("orders.order-events.v1".to_string(), (readable, false)),
            (
                "payments.ledger-events.v1".to_string(),
                (operations(&[Operation::Describe]), false),
            ),
            (
                "__consumer_offsets".to_string(),
                (operations(&[Operation::Describe]), true),
            ),
        ]
        .into(),
        topic_operations_reported: true,
        transactional_id: TransactionalIdProbe::Denied,
    };
    let regexes = [(plan.check_topic_regex.clone(), vec![plan.name.as_str()])];
    let checks = kafka::checks(
        &access,
        &plan.topics,
        &kafka_acls::principal(&target.security),
        target.security.protocol(),
        "indoubt-config-check-52113",
        &regexes,
    );
    TargetChecks::new(
        "kafka",
        &plan.name,
        Some(target.bootstrap.join(",")),
        &plan.used_by,
        checks,
    )
}

fn mysql_plan(s: &ConfigCheckSettings) -> &MysqlPlan {
    match s.plans.mysql.first() {
        Some(plan) => plan,
        None => panic!("no mysql plan"),
    }
}

/// prod-billing: MariaDB over TLS, its user without PROCESS (innodb_trx unreadable).
fn billing(s: &ConfigCheckSettings) -> TargetChecks {
    let plan = mysql_plan(s);
    let target = match &plan.target {
        Ok(target) => target,
        Err(e) => panic!("{}: {e}", plan.name),
    };
    let mut snapshot = xa_golden::snapshot();
    snapshot.innodb_trx_read = false;
    snapshot.unreadable = vec!["information_schema.innodb_trx could not be read (ERROR 1227 (42000): Access denied; you need (at least one of) the PROCESS privilege(s) for this operation; it needs the PROCESS privilege): ages, locks, blocked sessions and the oldest transaction are UNKNOWN".into()];
    let server = mysql::Server {
        flavor: Flavor::Mariadb,
        version: "10.11.6-MariaDB-0+deb12u1-log".into(),
        tls: true,
    };
    let checks = mysql::checks(&server, &Ok(snapshot), &target.params.user);
    TargetChecks::new(
        "mysql",
        &plan.name,
        Some(target.params.describe()),
        &plan.used_by,
        checks,
    )
}

#[test]
fn config_show_check() {
    let s = settings();
    // As run groups them: the two targets of one server and role are checked once.
    let grouped: Vec<Vec<&str>> = groups(&s.plans.pg, |p| {
        p.target.as_ref().ok().map(|t| t.params.server_key())
    })
    .iter()
    .map(|g| g.iter().map(|p| p.name.as_str()).collect())
    .collect();
    assert_eq!(
        grouped,
        [
            vec!["prod-orders", "prod-orders-audit"],
            vec!["prod-payments"],
            vec!["decision source narayana-jdbc's connection string"],
        ],
        "the fixture's groups are run's"
    );
    let targets = vec![
        orders(&s),
        payments(&s),
        narayana_jdbc(&s),
        events(&s),
        billing(&s),
    ];
    let mut report = report_of(&s, targets);
    report.generated_at = fixed_now();
    // Each GRANT and kafka-acls.sh line breaks between its words, never inside one.
    let words = golden::words(&golden::nexts(&report.findings));
    let mut whole = words.clone();
    whole.extend(["public.outbox_events".to_string(), "User:indoubt".into()]);
    let expect = Expect {
        whole,
        may_overflow: words.iter().map(String::as_str).collect(),
    };
    golden::pin("config_show_check", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
