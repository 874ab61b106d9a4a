//! libpq habits against the lab (issue 25): services of pg_service.conf named by
//! `service=`, PGSERVICE, PGSERVICEFILE, ~/.pg_service.conf and PGSYSCONFDIR.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

mod common;

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
