//! SASL GSSAPI (Kerberos) against the lab's MIT KDC and the brokers' GSSAPI listener:
//! `kafka lso`, `kafka hanging`, `reconcile` and `resolve kafka` with a keytab (librdkafka's
//! properties and Java's Krb5LoginModule) and with a ticket cache kinit made; a principal
//! the KDC does not know, a missing ticket and a wrong service host refused clearly; and
//! a machine without the Kerberos library, where PLAIN still works.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::*;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// indoubt with the lab's krb5.conf and a ticket cache name of the test's own (`cache`):
/// never the developer's Kerberos settings.
pub(crate) fn indoubt_krb5(cache: &Path) -> assert_cmd::Command {
    let mut cmd = indoubt();
    cmd.env("KRB5_CONFIG", lab("INDOUBT_LAB_KRB5_CONFIG"))
        .env("KRB5CCNAME", format!("FILE:{}", cache.display()));
    cmd
}

/// indoubt's flags for the lab's GSSAPI listener.
pub(crate) fn gssapi() -> Vec<String> {
    [
        "-b".to_string(),
        lab("INDOUBT_LAB_KAFKA_GSSAPI_BOOTSTRAP"),
        "-X".into(),
        "security.protocol=SASL_PLAINTEXT".into(),
        "-X".into(),
        "sasl.mechanism=GSSAPI".into(),
    ]
    .to_vec()
}

/// librdkafka's keytab properties.
fn keytab_args(keytab: &str, principal: &str) -> Vec<String> {
    let mut args = gssapi();
    args.extend([
        "-X".into(),
        format!("sasl.kerberos.keytab={keytab}"),
        "-X".into(),
        format!("sasl.kerberos.principal={principal}"),
        "-X".into(),
        "sasl.kerberos.service.name=kafka".into(),
    ]);
    args
}

/// The Java client's form: a --command-config file with a Krb5LoginModule line.
fn java_args(dir: &Path) -> Vec<String> {
    let file = dir.join("client.properties");
    std::fs::write(
        &file,
        format!(
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\n\
             sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required \\\n  useKeyTab=true storeKey=true keyTab=\"{}\" principal=\"{}\";\n",
            lab("INDOUBT_LAB_KRB5_KEYTAB"),
            lab("INDOUBT_LAB_KRB5_PRINCIPAL")
        ),
    )
    .unwrap();
    vec![
        "-b".into(),
        lab("INDOUBT_LAB_KAFKA_GSSAPI_BOOTSTRAP"),
        "--command-config".into(),
        file.to_string_lossy().into_owned(),
    ]
}

/// A ticket cache filled by kinit from the lab's client keytab.
pub(crate) fn kinit(cache: &Path) {
    let out = Command::new("kinit")
        .env("KRB5_CONFIG", lab("INDOUBT_LAB_KRB5_CONFIG"))
        .args(["-k", "-t", &lab("INDOUBT_LAB_KRB5_KEYTAB"), "-c"])
        .arg(format!("FILE:{}", cache.display()))
        .arg(lab("INDOUBT_LAB_KRB5_PRINCIPAL"))
        .output()
        .expect("run kinit (krb5-user)");
    assert!(
        out.status.success(),
        "kinit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every way of giving Kerberos credentials, each with the ticket cache name indoubt is
/// run with: the keytab forms get a name where no cache exists, and must leave it so.
fn credential_forms(dir: &Path) -> Vec<(&'static str, Vec<String>, PathBuf)> {
    let kinit_cache = dir.join("kinit-cache");
    kinit(&kinit_cache);
    vec![
        (
            "librdkafka keytab",
            keytab_args(
                &lab("INDOUBT_LAB_KRB5_KEYTAB"),
                &lab("INDOUBT_LAB_KRB5_PRINCIPAL"),
            ),
            dir.join("untouched-1"),
        ),
        (
            "Java Krb5LoginModule keytab",
            java_args(dir),
            dir.join("untouched-2"),
        ),
        ("kinit ticket cache", gssapi(), kinit_cache),
    ]
}

fn json(cmd: &mut assert_cmd::Command) -> (Value, Outcome) {
    let out = run(cmd);
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

#[test]
fn lso_and_hanging_over_gssapi_with_a_keytab_and_with_a_ticket_cache() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "gssapi", 2);
    // A committed transaction first: on a fresh lab it makes the transaction log.
    committed_writes(&bootstrap, &topic, 0, 1);
    let (producer_id, _, _) = hanging_transaction(&bootstrap, &topic, 1);
    let dir = tempfile::tempdir().unwrap();
    for (form, args, cache) in credential_forms(dir.path()) {
        let (hanging, out) = json(
            indoubt_krb5(&cache)
                .args(["-o", "json", "kafka", "hanging"])
                .args(&args)
                .args(["--topic", &topic, "--max-transaction-timeout", "0s"]),
        );
        assert_eq!(out.code, 2, "{form}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(
            hanging["transactions"][0]["producer_id"], producer_id,
            "{form}: {hanging}"
        );
        let (lso, out) = json(
            indoubt_krb5(&cache)
                .args(["-o", "json", "kafka", "lso"])
                .args(&args)
                .args(["--topic", &topic]),
        );
        assert!(out.code < 3, "{form}: {}\n{}", out.stdout, out.stderr);
        assert!(
            lso.to_string().contains(&format!("{producer_id}")),
            "{form}: the gap's open transaction is named: {lso}"
        );
        if form != "kinit ticket cache" {
            assert!(
                !cache.exists(),
                "{form}: a keytab's tickets stay in a private in-memory cache, not in KRB5CCNAME"
            );
        }
    }
}

#[test]
fn reconcile_reads_the_topic_over_gssapi() {
    let db = orders_db("gssapi_shop", 12);
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "gssapi_orders", 2);
    // Order 7's event was lost.
    let events = (1..=12).filter(|id| *id != 7);
    publish(
        &bootstrap,
        &topic,
        events.map(|id| (id.to_string(), "{}".to_string())),
    );
    let dir = tempfile::tempdir().unwrap();
    for (form, args, cache) in credential_forms(dir.path()) {
        let (r, out) = json(
            indoubt_krb5(&cache)
                .args([
                    "-o",
                    "json",
                    "reconcile",
                    "--pg",
                    &db.url(),
                    "--query",
                    ORDERS_QUERY,
                ])
                .args(&args)
                .args(["--topic", &topic]),
        );
        assert_eq!(out.code, 2, "{form}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(
            (&r["topic_messages"], &r["matched"]),
            (&Value::from(11), &Value::from(11)),
            "{form}: {r}"
        );
        assert!(
            r.to_string().contains("\"7\""),
            "{form}: order 7 is missing: {r}"
        );
    }
}

#[test]
fn resolve_kafka_aborts_a_hanging_transaction_over_gssapi() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let topic = create_topic(&bootstrap, "gssapi_stuck", 1);
    // A committed transaction first (offsets 0 and 1, its marker): on a fresh lab it makes
    // the transaction log.
    committed_writes(&bootstrap, &topic, 0, 1);
    let (producer_id, _, _) = hanging_transaction(&bootstrap, &topic, 0);
    let cache = dir.path().join("untouched");
    let args = keytab_args(
        &lab("INDOUBT_LAB_KRB5_KEYTAB"),
        &lab("INDOUBT_LAB_KRB5_PRINCIPAL"),
    );
    let resolve = |extra: &[&str]| {
        json(
            indoubt_krb5(&cache)
                .args(["-o", "json", "resolve", "kafka"])
                .args(&args)
                .arg("--audit-log")
                .arg(&audit)
                .args(["--topic", &topic, "--partition", "0", "--start-offset", "2"])
                .args(extra),
        )
    };
    let (dry, out) = resolve(&["--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        dry["request"]
            .as_str()
            .is_some_and(|r| r.contains(&format!("producer {producer_id}"))),
        "{dry}"
    );
    let (done, out) = resolve(&["--yes", "--reason", "GSSAPI test"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["findings"][0]["code"], "resolved", "{done}");
    assert!(
        done["last_stable_offset_after"].as_i64() > done["last_stable_offset_before"].as_i64(),
        "{done}"
    );
}

#[test]
fn a_principal_the_kdc_does_not_know_a_missing_ticket_and_a_wrong_host_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let departed = run(indoubt_krb5(&dir.path().join("none"))
        .args(["kafka", "lso"])
        .args(keytab_args(
            &lab("INDOUBT_LAB_KRB5_DEPARTED_KEYTAB"),
            &lab("INDOUBT_LAB_KRB5_DEPARTED_PRINCIPAL"),
        )));
    assert_eq!(departed.code, 3, "{}", departed.stderr);
    assert!(
        departed
            .stderr
            .contains("not found in Kerberos database (major 0x70000")
            && departed.stderr.contains(&format!(
                "hint: the KDC does not know the client principal {}",
                lab("INDOUBT_LAB_KRB5_DEPARTED_PRINCIPAL")
            )),
        "{}",
        departed.stderr
    );

    let no_ticket = run(indoubt_krb5(&dir.path().join("no-such-cache"))
        .args(["kafka", "lso"])
        .args(gssapi()));
    assert_eq!(no_ticket.code, 3, "{}", no_ticket.stderr);
    assert!(
        no_ticket
            .stderr
            .contains("No Kerberos credentials available")
            && no_ticket
                .stderr
                .contains("hint: no valid ticket: run kinit"),
        "{}",
        no_ticket.stderr
    );

    // The listener's principal is kafka/localhost: dialled as 127.0.0.1, the client asks
    // the KDC for kafka/127.0.0.1, and the hint says what to set.
    let port = lab("INDOUBT_LAB_KAFKA_GSSAPI_BOOTSTRAP")
        .rsplit_once(':')
        .unwrap()
        .1
        .to_string();
    let mut args = keytab_args(
        &lab("INDOUBT_LAB_KRB5_KEYTAB"),
        &lab("INDOUBT_LAB_KRB5_PRINCIPAL"),
    );
    args[1] = format!("127.0.0.1:{port}");
    let wrong_host = run(indoubt_krb5(&dir.path().join("none"))
        .args(["kafka", "lso"])
        .args(args));
    assert_eq!(wrong_host.code, 3, "{}", wrong_host.stderr);
    assert!(
        wrong_host
            .stderr
            .contains("Server kafka/127.0.0.1@INDOUBT.LAB not found in Kerberos database")
            && wrong_host.stderr.contains(
                "hint: the KDC has no principal kafka/127.0.0.1: sasl.kerberos.service.name"
            ),
        "{}",
        wrong_host.stderr
    );

    let kinit_cmd = run(indoubt_krb5(&dir.path().join("none"))
        .args(["kafka", "lso"])
        .args(gssapi())
        .args(["-X", "sasl.kerberos.kinit.cmd=kinit -k"]));
    assert_eq!(kinit_cmd.code, 3, "{}", kinit_cmd.stderr);
    assert!(
        kinit_cmd
            .stderr
            .contains("indoubt runs no command to get tickets"),
        "{}",
        kinit_cmd.stderr
    );
}

#[test]
fn the_binary_links_no_kerberos_library() {
    let out = Command::new("ldd")
        .arg(assert_cmd::cargo::cargo_bin("indoubt"))
        .output()
        .expect("run ldd");
    let deps = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && deps.contains("libc.so"), "{deps}");
    assert!(
        !deps.contains("gssapi") && !deps.contains("krb5"),
        "the GSS-API library is loaded at run time, not linked: {deps}"
    );
}

/// The real file of the library the dynamic loader would find.
fn gssapi_library() -> PathBuf {
    let out = Command::new("ldconfig")
        .arg("-p")
        .output()
        .expect("ldconfig -p");
    let listing = String::from_utf8_lossy(&out.stdout);
    let path = listing
        .lines()
        .find(|l| l.trim_start().starts_with("libgssapi_krb5.so.2 "))
        .and_then(|l| l.rsplit_once("=> "))
        .map(|(_, p)| PathBuf::from(p.trim()))
        .expect("libgssapi_krb5.so.2 in the loader cache (libgssapi-krb5-2)");
    std::fs::canonicalize(path).unwrap()
}

#[test]
fn without_the_kerberos_library_plain_still_works_and_gssapi_says_what_to_install() {
    // In a mount namespace of its own (root), an empty file over the library: the
    // machine then has no usable libgssapi_krb5, for this process tree only.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.so");
    std::fs::write(&empty, b"").unwrap();
    let library = gssapi_library();
    let hidden = |args: &[String]| -> Outcome {
        let script = format!(
            "mount --bind '{}' '{}' && exec \"$@\"",
            empty.display(),
            library.display()
        );
        let mut cmd = Command::new("unshare");
        isolate(&mut cmd);
        cmd.args(["-m", "--propagation", "private", "sh", "-c", &script, "sh"])
            .arg(assert_cmd::cargo::cargo_bin("indoubt"))
            .args(args)
            .env("KRB5_CONFIG", lab("INDOUBT_LAB_KRB5_CONFIG"))
            .env(
                "KRB5CCNAME",
                format!("FILE:{}", dir.path().join("none").display()),
            );
        run(&mut assert_cmd::Command::from_std(cmd))
    };
    let password = lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD");
    let mut plain = vec!["kafka".to_string(), "lso".into()];
    plain.extend(sasl_args("PLAIN", &password, &lab("INDOUBT_LAB_KAFKA_CA")));
    let out = hidden(&plain);
    assert!(
        out.code < 3,
        "PLAIN needs no Kerberos: {}\n{}",
        out.stdout,
        out.stderr
    );

    let mut kerberos = vec!["kafka".to_string(), "lso".into()];
    kerberos.extend(keytab_args(
        &lab("INDOUBT_LAB_KRB5_KEYTAB"),
        &lab("INDOUBT_LAB_KRB5_PRINCIPAL"),
    ));
    let out = hidden(&kerberos);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("SASL GSSAPI needs the system's GSS-API library libgssapi_krb5.so.2")
            && out.stderr.contains("apt-get install libgssapi-krb5-2"),
        "{}",
        out.stderr
    );
    // Outside the namespace the library is still there.
    assert!(std::fs::metadata(&library).unwrap().len() > 0);
}
