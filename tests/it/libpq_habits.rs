//! libpq habits against the lab (issue 25): services of pg_service.conf named by
//! `service=`, PGSERVICE, PGSERVICEFILE, ~/.pg_service.conf and PGSYSCONFDIR; and the
//! database a command connects to when nothing names one (`-h db1 -U monitor`): postgres
//! for the commands that read the whole server, libpq's default (the user name) for the
//! rest, and a hint when that database does not exist.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::*;
use serde_json::Value;
use std::path::Path;

fn host() -> String {
    lab("INDOUBT_LAB_PG_HOST")
}

fn port() -> String {
    lab("INDOUBT_LAB_PG_PORT")
}

/// A service section naming the lab's server for `role`, its password in the file.
fn section(name: &str, role: &TestRole, port: &str) -> String {
    format!(
        "# the lab\n[{name}]\nhost={}\nport={port}\nuser={}\npassword={}\ndbname=postgres\nsslmode=disable\n",
        host(),
        role.name,
        role.password
    )
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

/// `-o json pg prepared` with `env` and `args`: the report's target address.
fn prepared(env: &[(&str, &Path)], args: &[&str], role: &TestRole) -> (String, Outcome) {
    let mut cmd = indoubt();
    for (var, value) in env {
        cmd.env(var, value);
    }
    let out = run(cmd.args(["-o", "json", "pg", "prepared"]).args(args));
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !text.contains(&role.password),
            "the service file's password was shown:\n{text}"
        );
    }
    // What this role sees of other tests' transactions decides the status.
    assert!(matches!(out.code, 0..=2), "{args:?}: {}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", out.stdout, out.stderr));
    let address = report["target"]["address"].as_str().unwrap().to_string();
    (address, out)
}

#[test]
fn a_service_of_pg_service_conf_names_the_server_as_in_libpq() {
    let role = TestRole::create("svc", "");
    let lab_server = format!("{}@{}:{}/postgres", role.name, host(), port());
    let name = unique("svc");
    let home = tempfile::tempdir().unwrap();
    let user_file = home.path().join(".pg_service.conf");
    write(&user_file, &section(&name, &role, &port()));
    let home = home.path();

    // service= in a conninfo string, and in a URL's query, from ~/.pg_service.conf.
    let service = format!("service={name}");
    for pg in [service.clone(), format!("postgresql:///?service={name}")] {
        let (address, _) = prepared(&[("HOME", home)], &["--pg", &pg], &role);
        assert_eq!(address, lab_server, "{pg}");
    }
    // PGSERVICE alone: no "no PG* variable is set".
    let mut cmd = indoubt();
    let out = run(cmd
        .env("HOME", home)
        .env("PGSERVICE", &name)
        .args(["-o", "json", "pg", "prepared"]));
    assert!(matches!(out.code, 0..=2), "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["target"]["address"], lab_server.as_str());

    // The service's settings come before the PG* variables; the string's and psql's
    // options before the service's.
    let elsewhere = free_port().to_string();
    let mut cmd = indoubt();
    let out = run(cmd
        .env("HOME", home)
        .env("PGPORT", &elsewhere)
        .env("PGUSER", "nobody_at_all")
        .env("PGDATABASE", "template1")
        .args(["-o", "json", "pg", "prepared", "--pg", &service]));
    assert!(matches!(out.code, 0..=2), "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["target"]["address"], lab_server.as_str());
    for args in [
        vec![
            "--pg".to_string(),
            format!("service={name} port={elsewhere}"),
        ],
        vec![
            "--pg".to_string(),
            service.clone(),
            "-p".into(),
            elsewhere.clone(),
        ],
    ] {
        let out = run(indoubt()
            .env("HOME", home)
            .args(["pg", "prepared"])
            .args(&args));
        assert_eq!(out.code, 3, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains(&format!("connection refused at {}:{elsewhere}", host())),
            "{args:?}: {}",
            out.stderr
        );
    }

    // PGSERVICEFILE names the user's file (HOME's is then not read).
    let other = tempfile::tempdir().unwrap();
    let named_file = other.path().join("services");
    write(&named_file, &section(&name, &role, &port()));
    let empty_home = tempfile::tempdir().unwrap();
    let (address, _) = prepared(
        &[("HOME", empty_home.path()), ("PGSERVICEFILE", &named_file)],
        &["--pg", &service],
        &role,
    );
    assert_eq!(address, lab_server);

    // PGSYSCONFDIR/pg_service.conf, when the user's file has no such service; a service
    // the user's file has is taken from it alone.
    let sysconf = tempfile::tempdir().unwrap();
    write(
        &sysconf.path().join("pg_service.conf"),
        &section(&name, &role, &port()),
    );
    let (address, _) = prepared(
        &[
            ("HOME", empty_home.path()),
            ("PGSYSCONFDIR", sysconf.path()),
        ],
        &["--pg", &service],
        &role,
    );
    assert_eq!(address, lab_server);
    let wrong_user_file = tempfile::tempdir().unwrap();
    write(
        &wrong_user_file.path().join(".pg_service.conf"),
        &section(&name, &role, &elsewhere),
    );
    let out = run(indoubt()
        .env("HOME", wrong_user_file.path())
        .env("PGSYSCONFDIR", sysconf.path())
        .args(["pg", "prepared", "--pg", &service]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(":{elsewhere}")),
        "{}",
        out.stderr
    );

    // A service defined nowhere, and a nested one: a clear error, exit 3.
    let missing = unique("missing");
    let out = run(indoubt()
        .env("HOME", home)
        .env("PGSYSCONFDIR", empty_home.path())
        .args(["pg", "prepared", "--pg", &format!("service={missing}")]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("definition of service \"{missing}\" not found"))
            && out.stderr.contains(&user_file.display().to_string()),
        "{}",
        out.stderr
    );
    let out = run(indoubt()
        .env("HOME", empty_home.path())
        .env("PGSYSCONFDIR", empty_home.path())
        .env("PGSERVICE", &missing)
        .args(["pg", "prepared"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("definition of service \"{missing}\" not found")),
        "{}",
        out.stderr
    );
    let nested = other.path().join("nested");
    write(
        &nested,
        &format!("[outer]\nhost={}\nservice={name}\n", host()),
    );
    let out = run(indoubt().env("PGSERVICEFILE", &nested).args([
        "pg",
        "prepared",
        "--pg",
        "service=outer",
    ]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("nested service specifications not supported")
            && out.stderr.contains(", line 3"),
        "{}",
        out.stderr
    );

    // A wrong password in the service file: the hint names the service and its file,
    // never the password.
    let wrong = format!("Wr0ng-{}", unique("pw"));
    let wrong_file = other.path().join("wrong");
    write(
        &wrong_file,
        &section(&name, &role, &port()).replace(&role.password, &wrong),
    );
    let out = run(indoubt()
        .env("PGSERVICEFILE", &wrong_file)
        .env("PGPASSWORD", &role.password)
        .args(["pg", "prepared", "--pg", &service]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("28P01")
            && out.stderr.contains(&format!(
                "hint: the password sent is the one service \"{name}\" of {} gives",
                wrong_file.display()
            )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(&wrong) && !out.stdout.contains(&wrong));

    // config show: a target that names a service says which settings it gave, and where
    // from; never the password.
    let config = other.path().join("config.yaml");
    write(
        &config,
        &format!("postgres:\n  shop:\n    conninfo: service={name}\n"),
    );
    let out = run(indoubt()
        .env("HOME", home)
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "config", "show"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains(&role.password), "{}", out.stdout);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let target = &report["postgres_targets"][0];
    assert_eq!(target["address"], lab_server.as_str());
    assert_eq!(target["sslmode"], "disable");
    assert_eq!(target["service"]["name"], name.as_str());
    assert_eq!(
        target["service"]["file"],
        user_file.display().to_string().as_str()
    );
    assert!(target["service"]["keys"]
        .as_array()
        .unwrap()
        .contains(&Value::from("password")));
    let out = run(indoubt()
        .env("HOME", home)
        .env("COLUMNS", "200")
        .arg("--config")
        .arg(&config)
        .args(["config", "show"]));
    assert!(
        out.stdout.contains(&format!("from service {name} of")),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains(&role.password), "{}", out.stdout);
}

/// The lab's server for `role`, its password in a pgpass file of `home`.
fn home_with_pgpass(role: &TestRole) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    role.write_pgpass(&home.path().join(".pgpass"));
    home
}

#[test]
fn whole_server_commands_connect_to_postgres_when_no_database_is_named() {
    // A role whose name is no database's: libpq's default database would not exist.
    let role = TestRole::create("nodb", "");
    let home = home_with_pgpass(&role);
    let psql = ["-h", &host(), "-p", &port(), "-U", &role.name].map(str::to_string);
    let on_postgres = format!("{}@{}:{}/postgres", role.name, host(), port());
    let no_database = format!("database \"{}\" does not exist", role.name);

    // indoubt-pg(1)'s own example, and the other commands that read the whole server.
    for command in [["pg", "prepared"], ["pg", "slots"], ["pg", "horizon"]] {
        let out = run(indoubt()
            .env("HOME", home.path())
            .args(["-o", "json"])
            .args(command)
            .args(&psql));
        assert!(
            !out.stderr.contains(&no_database),
            "{command:?}: {}",
            out.stderr
        );
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{command:?}: not JSON ({e}): {}\n{}",
                out.stdout, out.stderr
            )
        });
        assert_eq!(
            report["target"]["address"],
            on_postgres.as_str(),
            "{command:?}"
        );
    }

    // resolve pg, which pg prepared's next commands name with the same options.
    let db = TestDb::create("nodb_resolve");
    let gid = unique("nodb_gid");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION {}",
            literal(&gid)
        ))
        .unwrap();
    let out = run(indoubt()
        .env("HOME", home.path())
        .args(["-o", "json", "resolve", "pg", &gid, "--dry-run"])
        .args(&psql));
    assert!(!out.stderr.contains(&no_database), "{}", out.stderr);
    assert!(
        out.stdout.contains(&on_postgres),
        "{}\n{}",
        out.stdout,
        out.stderr
    );

    // check, over a config target without a database; and config show --check connects
    // to it as check does.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    let conninfo = format!(
        "host={} port={} user={} sslmode=disable",
        host(),
        port(),
        role.name
    );
    write(
        &config,
        &format!("postgres:\n  shop:\n    conninfo: {conninfo}\n"),
    );
    let out = run(indoubt()
        .env("HOME", home.path())
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "check"]));
    assert!(!out.stdout.contains(&no_database), "{}", out.stdout);
    assert!(!out.stderr.contains(&no_database), "{}", out.stderr);
    assert!(out.stdout.contains(&on_postgres), "{}", out.stdout);
    let out = run(indoubt()
        .env("HOME", home.path())
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "config", "show", "--check"]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let shop = &report["targets"][0];
    assert_eq!(shop["address"], on_postgres.as_str());
    assert_eq!(shop["checks"][0]["what"], "connection");
    assert_eq!(shop["checks"][0]["status"], "OK", "{shop:#}");

    // A command that reads one database keeps libpq's default, the user name: here an
    // outbox of that target. Its error says why that database, and what to do.
    write(
        &config,
        &format!(
            "postgres:\n  shop:\n    conninfo: {conninfo}\noutbox:\n  orders:\n    postgres: shop\n    table: public.outbox\n"
        ),
    );
    let out = run(indoubt()
        .env("HOME", home.path())
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "config", "show", "--check"]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let connection = &report["targets"][0]["checks"][0];
    let detail = connection["detail"].as_str().unwrap();
    assert_eq!(connection["status"], "UNKNOWN", "{connection:#}");
    assert!(
        detail.contains(&no_database)
            && detail.contains(&format!(
                "no database was named, so libpq's default, the user name {}, was used",
                role.name
            ))
            && detail.contains("name one with -d/--dbname")
            && detail.contains("PGDATABASE")
            && detail.contains("cluster-wide commands")
            && detail.contains("use postgres when none is named"),
        "{detail}"
    );

    // A database that is named and not there: the hint, without the default's story.
    for (args, env) in [
        (vec!["-d", "no_such_db_here"], None),
        (vec![], Some("no_such_db_here")),
    ] {
        let mut cmd = indoubt();
        cmd.env("HOME", home.path());
        if let Some(db) = env {
            cmd.env("PGDATABASE", db);
        }
        let out = run(cmd.args(["pg", "prepared"]).args(&psql).args(&args));
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(
            out.stderr
                .contains("database \"no_such_db_here\" does not exist")
                && out.stderr.contains("hint: ")
                && out.stderr.contains("check the name (psql -l lists the databases), or name another with -d/--dbname")
                && !out.stderr.contains("no database was named"),
            "{}",
            out.stderr
        );
    }
}
