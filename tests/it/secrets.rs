//! Secrets never leak and Kafka properties never silently weaken a connection, against
//! the lab's real servers: the audit trail of real resolutions with a password in every
//! spelling, mistyped URLs, config show, passwords from files and the environment (pgpass,
//! Kafka config providers on the SASL_SSL listener), and strict Kafka properties.

#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::*;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const FILE_PROVIDER: &str = "org.apache.kafka.common.config.provider.FileConfigProvider";
const ENV_PROVIDER: &str = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

/// Distinct markers, one per part of a secret: finding any of them means (part of) a
/// secret leaked, even when the secret was cut at a quote or a space.
fn markers(prefix: &str, n: usize) -> Vec<String> {
    let id = unique("m").replace('_', "");
    (0..n).map(|i| format!("{prefix}{i}x{id}")).collect()
}

fn assert_none_in(text: &str, secrets: &[String], what: &str) {
    for s in secrets {
        assert!(
            !text.contains(s.as_str()),
            "{what} holds secret part {s}:\n{text}"
        );
    }
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// conninfo's quoting: `'…'` with `\'` and `\\`.
fn conninfo_quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn audit_list(audit: &Path) -> (String, String) {
    let json = run(indoubt()
        .args(["-o", "json", "audit", "list", "--audit-log"])
        .arg(audit));
    assert_eq!(json.code, 0, "{}", json.stderr);
    let table = run(indoubt().args(["audit", "list", "--audit-log"]).arg(audit));
    (json.stdout, table.stdout)
}

#[test]
fn real_pg_resolutions_leave_no_password_in_the_audit_trail_in_any_spelling() {
    let parts = markers("pgsecret", 6);
    // Quotes, spaces, backslashes and every character a URL must escape.
    let password = format!(
        "{} '{}' \\{}@{}:/{}?&=%{}",
        parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]
    );
    let role = TestRole::with_password("auditpw", "SUPERUSER", &password);
    let db = TestDb::create("auditpw");
    db.admin()
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 20)",
        )
        .unwrap();
    let (host, port) = (lab("INDOUBT_LAB_PG_HOST"), lab("INDOUBT_LAB_PG_PORT"));
    let (user, dbname, enc) = (&role.name, &db.name, percent_encode(&password));
    let spellings = [
        vec![
            "--pg".to_string(),
            format!(
                "host={host} port = {port} user={user} password = {} dbname={dbname} sslmode=disable",
                conninfo_quote(&password)
            ),
        ],
        vec![format!("--pg=postgres://{user}:{enc}@{host}:{port}/{dbname}?sslmode=disable")],
        vec![
            "--pg".into(),
            format!("postgresql://{user}@{host}:{port}/{dbname}?sslmode=disable&password={enc}"),
        ],
        vec![
            "--pg".into(),
            format!("postgres://{user}@{host}:{port}/{dbname}?pass%77ord={enc}&sslmode=disable"),
        ],
        vec![
            "--pg".into(),
            format!(
                "host={host} port={port} user={user} dbname={dbname} sslmode=disable password={}",
                password.replace('\\', "\\\\").replace(' ', "\\ ").replace('\'', "\\'")
            ),
        ],
        // psql's -d takes the whole connection string too, in every spelling clap reads.
        vec![
            "-d".into(),
            format!("postgresql://{user}:{enc}@{host}:{port}/{dbname}?sslmode=disable"),
        ],
        vec![format!(
            "-dpostgres://{user}:{enc}@{host}:{port}/{dbname}?sslmode=disable"
        )],
        vec![format!(
            "--dbname=postgresql://{user}:{enc}@{host}:{port}/{dbname}?sslmode=disable"
        )],
        vec![
            "-d".into(),
            format!(
                "host={host} port={port} user={user} password={} dbname={dbname} sslmode=disable",
                conninfo_quote(&password)
            ),
        ],
        vec![
            "--dbname".into(),
            format!(
                "host={host} port={port} user={user} dbname={dbname} password={} sslmode=disable",
                conninfo_quote(&password)
            ),
        ],
    ];
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let reason = "INC-7 password = 'not a secret' kept as typed";
    for (i, spelling) in spellings.iter().enumerate() {
        let gid = format!("xa-audit-{i}");
        connect(&db.url())
            .batch_execute(&format!(
                "BEGIN; UPDATE t SET id = id + 100 WHERE id = {}; PREPARE TRANSACTION '{gid}'",
                i + 1
            ))
            .unwrap();
        let out = run(indoubt()
            .args(["-o", "json", "resolve", "pg", &gid, "--commit", "--yes"])
            .args(["--reason", reason, "--audit-log"])
            .arg(&audit)
            .args(spelling));
        assert_eq!(
            out.code, 0,
            "spelling {i} connects with the password and resolves: {}",
            out.stderr
        );
        assert_none_in(&out.stdout, &parts, "the report");
        assert_none_in(&out.stderr, &parts, "stderr");
    }
    let raw = std::fs::read_to_string(&audit).unwrap();
    assert_none_in(&raw, &parts, "the audit file");
    let (json, table) = audit_list(&audit);
    assert_none_in(&json, &parts, "audit list -o json");
    assert_none_in(&table, &parts, "audit list");
    let report: Value = serde_json::from_str(&json).unwrap();
    let records = report["records"].as_array().unwrap();
    assert_eq!(records.len(), 2 * spellings.len());
    for record in records {
        assert_eq!(record["reason"], reason, "the reason exactly as typed");
        let line: Vec<&str> = record["command_line"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let joined = line.join(" ");
        assert!(
            joined.contains("<redacted>")
                && joined.contains(user.as_str())
                && line.contains(&reason),
            "the rest of the command line stays: {joined}"
        );
    }
}

#[test]
fn a_real_kafka_resolution_leaves_no_secret_in_the_audit_trail_in_any_spelling() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "auditsecret", 1);
    committed_writes(&bootstrap, &topic, 0, 1);
    hanging_transaction(&bootstrap, &topic, 0);
    let s = markers("kafkasecret", 11);
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let file = dir.path().join("client.properties");
    std::fs::write(
        &file,
        format!("security.protocol=PLAINTEXT\nsasl.password={}\n", s[10]),
    )
    .unwrap();
    let jaas = format!(
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"ops\" password=\"{} \\\" {}\";",
        s[7], s[8]
    );
    let reason = "INC-8 sasl.password=notasecret as typed";
    // The secrets of every spelling reach the real command; on the PLAINTEXT listener
    // they take no part in the connection, so one resolution carries them all.
    let args: Vec<String> = [
        "-o",
        "json",
        "resolve",
        "kafka",
        "-b",
        &bootstrap,
        "--topic",
        &topic,
        "--partition",
        "0",
        "--start-offset",
        "2",
        "--yes",
        "--reason",
        reason,
        "--audit-log",
        &audit.to_string_lossy(),
        "--command-config",
        &file.to_string_lossy(),
        "-X",
        &format!("sasl.password={}", s[0]),
        &format!("-Xsasl.password={}", s[1]),
        "-X",
        &format!("sasl.password = {} {}", s[2], s[3]),
        &format!("-X=ssl.key.password={}", s[4]),
        &format!("-vXssl.keystore.password={}", s[5]),
        "-X",
        &format!("ssl.truststore.password={}", s[6]),
        "-X",
        &jaas,
        "-X",
        &format!("basic.auth.user.info={}", s[9]),
        "-X",
        "security.protocol=PLAINTEXT",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let out = run(indoubt().args(&args));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_none_in(&out.stdout, &s, "the report");
    assert_none_in(&out.stderr, &s, "stderr (-v names the ignored properties)");
    let raw = std::fs::read_to_string(&audit)
        .unwrap_or_else(|e| panic!("no audit file ({e}): {}\n{}", out.stdout, out.stderr));
    assert_none_in(&raw, &s, "the audit file");
    let (json, table) = audit_list(&audit);
    assert_none_in(&json, &s, "audit list -o json");
    assert_none_in(&table, &s, "audit list");
    let report: Value = serde_json::from_str(&json).unwrap();
    let intent = &report["records"][0];
    assert_eq!(intent["reason"], reason);
    let line: Vec<String> = intent["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    for kept in [
        file.to_string_lossy().to_string(),
        "-Xsasl.password=<redacted>".to_string(),
        "sasl.password =<redacted>".to_string(),
        "-X=ssl.key.password=<redacted>".to_string(),
        "-vXssl.keystore.password=<redacted>".to_string(),
        "security.protocol=PLAINTEXT".to_string(),
        reason.to_string(),
    ] {
        assert!(line.contains(&kept), "{kept} in {line:?}");
    }
    assert!(
        line.iter()
            .any(|a| a.contains("username=\"ops\"") && a.contains("password=\"<redacted>\"")),
        "the JAAS line keeps its user: {line:?}"
    );
    assert!(
        out.stderr.contains("basic.auth.user.info is ignored"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_mistyped_url_is_never_echoed_with_its_password() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "postgres:\n  alpha:\n    conninfo: host=db1 user=u\n  beta:\n    conninfo: host=db2 user=u\n",
    )
    .unwrap();
    let secret = markers("urlsecret", 1);
    for typo in [
        format!("postgres:/u:{}@h/db", secret[0]),
        format!("postgresql//u:{}@h/db", secret[0]),
        format!("http://u:{}@h/db", secret[0]),
        format!("postgres//u:{}@h:5432/db", secret[0]),
    ] {
        let audit = dir.path().join("audit.jsonl");
        let audit_arg = audit.to_string_lossy().to_string();
        for args in [
            vec!["pg", "prepared", "--pg", &typo],
            vec![
                "resolve",
                "pg",
                "gid",
                "--commit",
                "--yes",
                "--reason",
                "r",
                "--pg",
                &typo,
                "--audit-log",
                &audit_arg,
            ],
        ] {
            let out = run(indoubt().arg("--config").arg(&config).args(&args));
            assert_eq!(out.code, 3, "{typo}: {}", out.stderr);
            assert_none_in(&out.stderr, &secret, "the error");
            assert!(
                out.stderr.contains(
                    "neither a target name of the config nor a connection string indoubt accepts"
                ) && out.stderr.contains("alpha, beta")
                    && out.stderr.contains("postgres://USER@HOST"),
                "{}",
                out.stderr
            );
        }
        assert!(!audit.exists(), "nothing was recorded");
    }
    // A password cut off by an unencoded '/' or '@' is refused, not split into a host.
    for bad in [
        format!("postgres://u:{}/x@h/db", secret[0]),
        format!("postgres://u:12/{}@h/db", secret[0]),
    ] {
        let out = run(indoubt().args(["pg", "prepared", "--pg", &bad]));
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert_none_in(&out.stderr, &secret, "the error");
    }
    // A name that can be nothing but a name is shown, so a typo is easy to see.
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["pg", "prepared", "--pg", "alpah"]));
    assert!(out.stderr.contains("\"alpah\""), "{}", out.stderr);
}

#[cfg(unix)]
#[test]
fn pgpass_in_home_gives_config_targets_their_password() {
    let role = TestRole::create("homepgpass", "");
    let home = tempfile::tempdir().unwrap();
    let pgpass = home.path().join(".pgpass");
    role.write_pgpass(&pgpass);
    let config = home.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  db:\n    conninfo: host=127.0.0.1 port={} user={} dbname=postgres sslmode=disable\n",
            lab("INDOUBT_LAB_PG_PORT"),
            role.name
        ),
    )
    .unwrap();
    let prepared = |home: &Path| {
        run(indoubt()
            .env("HOME", home)
            .arg("--config")
            .arg(&config)
            .args(["pg", "prepared", "--database", "none"]))
    };
    let out = prepared(home.path());
    assert_eq!(
        out.code, 0,
        "~/.pgpass supplies the password: {}",
        out.stderr
    );
    // libpq's rule: a password file others can read is ignored, with a warning.
    std::fs::set_permissions(&pgpass, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = prepared(home.path());
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("group or world access"),
        "{}",
        out.stderr
    );
}

#[test]
fn config_show_never_prints_a_secret() {
    let s = markers("showsecret", 14);
    let dir = tempfile::tempdir().unwrap();
    let props = dir.path().join("client.properties");
    std::fs::write(
        &props,
        format!(
            "security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n  username=\"svc\" password=\"{} {}\";\nssl.truststore.password={}\n",
            s[0], s[1], s[2]
        ),
    )
    .unwrap();
    let yaml = format!(
        r#"postgres:
  quoted:
    conninfo: "host=db1 user=u password = '{} \\' {}'"
  url:
    conninfo: postgres://u:{}@db2/postgres
  query:
    conninfo: postgres://u@db3/postgres?password={}
  cut:
    conninfo: postgres://u:{}/x@db4/postgres
  unterminated:
    conninfo: "host=db5 password='{}"
kafka:
  file:
    bootstrap_servers: k1:9092
    properties_file: {}
    properties:
      sasl.password: {}
      sasl.oauthbearer.client.secret: {}
      ssl.key.password: {}
      ssl.keystore.password: {}
      config.providers: vault
      config.providers.vault.class: com.example.VaultProvider
      config.providers.vault.param.token: {}
  typo:
    bootstrap_servers: k1:9092
    properties:
      sasl.pasword: {}
  word:
    bootstrap_servers: k1:9092
    properties:
      "password={}": x
"#,
        s[3],
        s[4],
        s[5],
        s[6],
        s[7],
        s[8],
        props.display(),
        s[9],
        s[10],
        s[11],
        s[12],
        s[13],
        s[13],
        s[13]
    );
    let config = dir.path().join("c.yaml");
    std::fs::write(&config, yaml).unwrap();
    for format in ["table", "json", "yaml"] {
        let out = run(indoubt()
            .arg("--config")
            .arg(&config)
            .args(["-o", format, "config", "show"]));
        assert_eq!(out.code, 3, "some targets are unusable: {}", out.stderr);
        assert_none_in(&out.stdout, &s, &format!("config show -o {format}"));
        assert_none_in(&out.stderr, &s, "stderr");
        assert!(
            out.stdout.contains("sasl.pasword"),
            "the typo is named: {}",
            out.stdout
        );
    }
    // A usable target with every kind of secret shows all but the secrets.
    let usable = dir.path().join("usable.yaml");
    std::fs::write(
        &usable,
        format!(
            "kafka:\n  ok:\n    bootstrap_servers: k1:9092\n    properties_file: {}\n    properties:\n      sasl.oauthbearer.client.secret: {}\n      ssl.key.password: {}\n      ssl.truststore.password: {}\n",
            props.display(),
            s[10],
            s[11],
            s[12]
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .arg("--config")
        .arg(&usable)
        .args(["-o", "json", "config", "show"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_none_in(&out.stdout, &s, "config show");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let shown = &report["kafka_targets"][0]["properties"];
    assert_eq!(shown["ssl.key.password"], "<redacted>");
    assert!(shown["sasl.jaas.config"]
        .as_str()
        .unwrap()
        .contains("username=\"svc\""));
}

/// A listener that never answers: `accept` tells whether indoubt tried to connect.
fn silent_listener() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap().to_string();
    (listener, address)
}

fn assert_not_contacted(listener: &std::net::TcpListener) {
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("indoubt connected before refusing: {other:?}"),
    }
}

fn lso(args: &[&str]) -> Outcome {
    run(indoubt().args(["kafka", "lso"]).args(args))
}

#[test]
fn a_typo_in_the_identification_algorithm_never_turns_the_host_check_off() {
    let ca = lab("INDOUBT_LAB_KAFKA_CA");
    let password = lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD");
    let port = lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP")
        .rsplit_once(':')
        .unwrap()
        .1
        .to_string();
    // 127.1 is the lab broker, under a name its certificate does not carry.
    let unnamed = format!("127.1:{port}");
    let with = |algorithm: &str| {
        let mut args = sasl_args("PLAIN", &password, &ca);
        args[1] = unnamed.clone();
        args.extend([
            "-X".to_string(),
            format!("ssl.endpoint.identification.algorithm={algorithm}"),
        ]);
        run(indoubt().args(["kafka", "transactions"]).args(&args))
    };
    let checked = with("https");
    assert_eq!(checked.code, 3, "{}", checked.stderr);
    assert!(
        checked.stderr.contains("not 127.1"),
        "the refusal names the host the certificate does not hold: {}",
        checked.stderr
    );
    let unchecked = with("none");
    assert!(
        unchecked.code < 3,
        "none switches the check off: {}",
        unchecked.stderr
    );
    let empty = with("");
    assert!(
        empty.code < 3,
        "so does Java's empty value: {}",
        empty.stderr
    );
    for typo in ["htps", "HTTP", "yes"] {
        let out = with(typo);
        assert_eq!(out.code, 3, "{typo}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "invalid ssl.endpoint.identification.algorithm \"{typo}\""
            )) && out.stderr.contains("use https"),
            "{}",
            out.stderr
        );
    }
    let (listener, address) = silent_listener();
    let out = lso(&[
        "-b",
        &address,
        "-X",
        "security.protocol=SSL",
        "-X",
        "ssl.endpoint.identification.algorithm=htps",
    ]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert_not_contacted(&listener);
}

#[test]
fn a_misspelt_property_is_refused_with_the_name_meant() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    // The plain listener would answer: a dropped security.protocol would connect in clear.
    let out = lso(&[
        "-b",
        &bootstrap,
        "-X",
        "securty.protocol=SSL",
        "--topic",
        "x",
    ]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("unknown Kafka client property \"securty.protocol\"")
            && out.stderr.contains("hint: did you mean security.protocol?"),
        "{}",
        out.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("client.properties");
    std::fs::write(
        &file,
        "acks=all\nssl.endpoint.identification.algoritm=https\n",
    )
    .unwrap();
    let out = lso(&[
        "-b",
        &bootstrap,
        "--command-config",
        &file.to_string_lossy(),
    ]);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains(&format!("{}:2", file.display()))
            && out
                .stderr
                .contains("did you mean ssl.endpoint.identification.algorithm?"),
        "{}",
        out.stderr
    );
    let (listener, address) = silent_listener();
    let out = lso(&["-b", &address, "-X", "sasl.mechansim=SCRAM-SHA-512"]);
    assert!(
        out.stderr.contains("did you mean sasl.mechanism?"),
        "{}",
        out.stderr
    );
    assert_not_contacted(&listener);
}

/// A Java client's properties file, as kafka tools and applications keep them: security
/// settings with producer, consumer and librdkafka settings beside them.
fn java_client_file(dir: &Path, jaas_password: &str, extra: &str) -> PathBuf {
    let file = dir.join("client.properties");
    std::fs::write(
        &file,
        format!(
            "# written for the Java producer\n\
             bootstrap.servers={}\n\
             security.protocol=SASL_SSL\n\
             sasl.mechanism=SCRAM-SHA-512\n\
             sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n    \
             username=\"{}\" \\\n    password=\"{jaas_password}\";\n\
             ssl.truststore.type=PEM\n\
             ssl.truststore.location={}\n\
             ssl.endpoint.identification.algorithm=https\n\
             ssl.enabled.protocols=TLSv1.2,TLSv1.3\n\
             ssl.protocol=TLSv1.3\n\
             key.serializer=org.apache.kafka.common.serialization.StringSerializer\n\
             value.serializer=org.apache.kafka.common.serialization.ByteArraySerializer\n\
             acks=all\nenable.idempotence=true\nlinger.ms=5\ncompression.type=zstd\n\
             client.id=payments-producer\ndelivery.timeout.ms=120000\n\
             group.id=payments\nenable.auto.commit=false\nauto.offset.reset=earliest\n\
             key.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n\
             queue.buffering.max.ms=5\nsocket.keepalive.enable=true\n{extra}",
            lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP"),
            lab("INDOUBT_LAB_KAFKA_SASL_USER"),
            lab("INDOUBT_LAB_KAFKA_CA"),
        ),
    )
    .unwrap();
    file
}

/// Kafka's own TransactionsCommand with the same file: the oracle that Java reads it alike.
fn java_reads(file: &Path, env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(repo_root().join("tests/lab/kafka-transactions"))
        .args([
            "--bootstrap-server",
            &lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP"),
            "--command-config",
        ])
        .arg(file)
        .arg("list")
        .envs(env.iter().copied())
        .output()
        .expect("run TransactionsCommand")
}

#[test]
fn a_java_producer_properties_file_loads_and_kafka_lso_runs() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP");
    let topic = create_topic(&lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"), "javafile", 1);
    let dir = tempfile::tempdir().unwrap();
    let file = java_client_file(dir.path(), &lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD"), "");
    let out = lso(&[
        "-b",
        &bootstrap,
        "--command-config",
        &file.to_string_lossy(),
        "--topic",
        &topic,
        "-v",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("(SASL_SSL)"), "{}", out.stderr);
    for ignored in [
        "key.serializer is ignored",
        "group.id is ignored",
        "queue.buffering.max.ms is ignored",
    ] {
        assert!(out.stderr.contains(ignored), "-v names it: {}", out.stderr);
    }
    let java = java_reads(&file, &[]);
    assert!(
        java.status.success(),
        "Java reads the same file: {}",
        String::from_utf8_lossy(&java.stderr)
    );
}

#[test]
fn secrets_read_from_a_file_or_the_environment_authenticate_over_sasl_ssl() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP");
    let password = lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD");
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("kafka-secrets.properties");
    std::fs::write(
        &secrets,
        format!("# 0600, read by indoubt and Java alike\npassword={password}\n"),
    )
    .unwrap();
    let base = |extra: &[String]| -> Vec<String> {
        let mut args: Vec<String> = [
            "-b",
            &bootstrap,
            "-X",
            "security.protocol=SASL_SSL",
            "-X",
            "sasl.mechanism=SCRAM-SHA-256",
            "-X",
            &format!("sasl.username={}", lab("INDOUBT_LAB_KAFKA_SASL_USER")),
            "-X",
            &format!("ssl.ca.location={}", lab("INDOUBT_LAB_KAFKA_CA")),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().cloned());
        args
    };
    let from_file = base(&[
        "-X".into(),
        "config.providers=file".into(),
        "-X".into(),
        format!("config.providers.file.class={FILE_PROVIDER}"),
        "-X".into(),
        format!("sasl.password=${{file:{}:password}}", secrets.display()),
    ]);
    let from_env = base(&[
        "-X".into(),
        "config.providers=env".into(),
        "-X".into(),
        format!("config.providers.env.class={ENV_PROVIDER}"),
        "-X".into(),
        "sasl.password=${env:INDOUBT_TEST_KAFKA_PASSWORD}".into(),
    ]);
    for args in [&from_file, &from_env] {
        assert!(
            !args.iter().any(|a| a.contains(&password)),
            "no secret in argv"
        );
        let out = run(indoubt()
            .env("INDOUBT_TEST_KAFKA_PASSWORD", &password)
            .args(["kafka", "transactions"])
            .args(args));
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stdout.contains(&password) && !out.stderr.contains(&password));
    }
    // What the reference reads is what authenticates: the wrong one fails.
    let unset = run(indoubt().args(["kafka", "transactions"]).args(&from_env));
    assert_eq!(unset.code, 3);
    assert!(
        unset
            .stderr
            .contains("INDOUBT_TEST_KAFKA_PASSWORD is not set"),
        "{}",
        unset.stderr
    );
    let wrong = run(indoubt()
        .env("INDOUBT_TEST_KAFKA_PASSWORD", "not-the-password")
        .args(["kafka", "transactions"])
        .args(&from_env));
    assert_eq!(wrong.code, 3);
    assert!(
        wrong.stderr.contains("SASL authentication failed"),
        "{}",
        wrong.stderr
    );
    // Without the declaration Java would send the text itself as the password: refused.
    let undeclared = run(indoubt()
        .env("INDOUBT_TEST_KAFKA_PASSWORD", &password)
        .args(["kafka", "transactions"])
        .args(base(&[
            "-X".into(),
            "sasl.password=${env:INDOUBT_TEST_KAFKA_PASSWORD}".into(),
        ])));
    assert_eq!(undeclared.code, 3);
    assert!(
        undeclared.stderr.contains(&format!(
            "-X config.providers=env -X config.providers.env.class={ENV_PROVIDER}"
        )),
        "{}",
        undeclared.stderr
    );
    // A Java properties file whose JAAS line reads the password from the secrets file and
    // the user from the environment: indoubt and Kafka's own tool both authenticate with it.
    let file = java_client_file(
        dir.path(),
        &format!("${{file:{}:password}}", secrets.display()),
        &format!("config.providers=file,env\nconfig.providers.file.class={FILE_PROVIDER}\nconfig.providers.env.class={ENV_PROVIDER}\n"),
    );
    let text = std::fs::read_to_string(&file).unwrap().replace(
        &format!("username=\"{}\"", lab("INDOUBT_LAB_KAFKA_SASL_USER")),
        "username=\"${env:INDOUBT_TEST_KAFKA_USER}\"",
    );
    std::fs::write(&file, &text).unwrap();
    assert!(!text.contains(&password));
    let env = [(
        "INDOUBT_TEST_KAFKA_USER",
        lab("INDOUBT_LAB_KAFKA_SASL_USER"),
    )];
    let out = run(indoubt()
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
        .args([
            "kafka",
            "transactions",
            "-b",
            &bootstrap,
            "--command-config",
        ])
        .arg(&file));
    // Authenticated and answered: OK, or WARNING for another test's transaction past its
    // timeout on the shared broker (the integration tests run side by side).
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    assert!(out.stdout.contains("transaction"), "{}", out.stdout);
    let java = java_reads(&file, &[(env[0].0, env[0].1.as_str())]);
    assert!(
        java.status.success(),
        "Java: {}",
        String::from_utf8_lossy(&java.stderr)
    );
}

/// The `keytool …`/`openssl …` commands of a hint, run in `dir` with the store password
/// added (the advice leaves it to a prompt).
fn run_advised_commands(hint: &str, dir: &Path) {
    let commands = regex::Regex::new(r"(?:keytool|openssl) [^;()]*").unwrap();
    let mut ran = 0;
    for command in commands.find_iter(hint).map(|m| m.as_str().trim()) {
        let with_password = if command.starts_with("keytool") {
            format!("{command} -srcstorepass changeit -deststorepass changeit -noprompt")
        } else {
            format!("{command} -passin pass:changeit")
        };
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("umask 077; {with_password}")])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{with_password}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 1, "the hint gives the commands: {hint}");
}

fn hint_of(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("no hint: {stderr}"))
        .to_string()
}

#[test]
fn java_stores_are_refused_with_a_conversion_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let sh = |cmd: &str| {
        let out = std::process::Command::new("sh")
            .args(["-c", cmd])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ca = lab("INDOUBT_LAB_KAFKA_CA");
    sh(&format!("keytool -importcert -noprompt -alias ca -file {ca} -keystore truststore.jks -storetype JKS -storepass changeit"));
    sh("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=indoubt-client -keyout k.pem -out c.pem 2>/dev/null \
        && openssl pkcs12 -export -in c.pem -inkey k.pem -name client -out tmp.p12 -passout pass:changeit \
        && keytool -importkeystore -srckeystore tmp.p12 -srcstoretype PKCS12 -srcstorepass changeit -destkeystore client.jks -deststoretype JKS -deststorepass changeit -noprompt");
    let (listener, address) = silent_listener();
    let truststore = dir
        .path()
        .join("truststore.jks")
        .to_string_lossy()
        .to_string();
    let refused = lso(&[
        "-b",
        &address,
        "-X",
        "security.protocol=SSL",
        "-X",
        &format!("ssl.truststore.location={truststore}"),
        "-X",
        "ssl.truststore.password=changeit",
    ]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(&format!(
            "ssl.truststore.location {truststore} is a JKS keystore"
        )),
        "{}",
        refused.stderr
    );
    assert_not_contacted(&listener);
    let keystore = dir.path().join("client.jks").to_string_lossy().to_string();
    let refused_keystore = lso(&[
        "-b",
        &address,
        "-X",
        "security.protocol=SSL",
        "-X",
        &format!("ssl.ca.location={ca}"),
        "-X",
        &format!("ssl.keystore.location={keystore}"),
        "-X",
        "ssl.keystore.password=changeit",
    ]);
    assert_eq!(refused_keystore.code, 3, "{}", refused_keystore.stderr);
    assert_not_contacted(&listener);

    // The advised conversion gives stores indoubt reads: the truststore verifies the lab
    // broker, the keystore loads as a client identity.
    run_advised_commands(&hint_of(&refused.stderr), dir.path());
    run_advised_commands(&hint_of(&refused_keystore.stderr), dir.path());
    let store = |name: &str| dir.path().join(name).to_string_lossy().to_string();
    let mut args = sasl_args("PLAIN", &lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD"), &ca);
    // The PKCS#12 truststore in place of sasl_args' PEM CA.
    let at = args
        .iter()
        .position(|a| a.starts_with("ssl.ca.location="))
        .unwrap();
    args[at] = format!("ssl.truststore.location={}", store("truststore.p12"));
    args.extend([
        "-X".to_string(),
        "ssl.truststore.password=changeit".to_string(),
        "-X".to_string(),
        format!("ssl.keystore.location={}", store("client.p12")),
        "-X".to_string(),
        "ssl.keystore.password=changeit".to_string(),
    ]);
    let out = run(indoubt().args(["kafka", "transactions"]).args(&args));
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// Every property name Kafka's Java clients (4.1, from the lab's jars) and librdkafka
/// (2.12, linked into the tests) document is in indoubt's table, so their files load.
#[test]
fn every_property_of_the_java_client_and_librdkafka_is_known() {
    use indoubt::settings::kafka_client::properties::lookup;
    let libs = lab("INDOUBT_LAB_KAFKA_LIBS");
    let id = regex::Regex::new(r#"<h4><a id="([^"]+)"></a>"#).unwrap();
    let mut java = Vec::new();
    for class in [
        "org.apache.kafka.clients.producer.ProducerConfig",
        "org.apache.kafka.clients.consumer.ConsumerConfig",
        "org.apache.kafka.clients.admin.AdminClientConfig",
    ] {
        // Each prints its ConfigDef as the HTML of Kafka's documentation.
        let out = std::process::Command::new("java")
            .args(["-cp", &format!("{libs}/*"), class])
            .output()
            .expect("java");
        let html = String::from_utf8_lossy(&out.stdout).into_owned();
        java.extend(id.captures_iter(&html).map(|c| c[1].to_string()));
    }
    assert!(java.len() > 100, "{java:?}");
    let missing: Vec<&String> = java.iter().filter(|n| lookup(n).is_none()).collect();
    assert!(
        missing.is_empty(),
        "Java client properties not in the table: {missing:?}"
    );

    let librdkafka = librdkafka_properties();
    assert!(librdkafka.len() > 150, "{librdkafka:?}");
    let missing: Vec<&String> = librdkafka
        .iter()
        // Callbacks and pointers are set through the C API, never in a file.
        .filter(|n| {
            !n.ends_with("_cb")
                && ![
                    "opaque",
                    "default_topic_conf",
                    "ssl_engine_callback_data",
                    "enabled_events",
                    "ssl.certificate.verify_cb",
                    "ssl_ca",
                    "ssl_certificate",
                    "ssl_key",
                    "msg_order_cmp",
                ]
                .contains(&n.as_str())
        })
        .filter(|n| lookup(n).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "librdkafka properties not in the table: {missing:?}"
    );
}

/// librdkafka's own table of its global and topic properties, as
/// rd_kafka_conf_properties_show prints it (the source of its CONFIGURATION.md).
fn librdkafka_properties() -> Vec<String> {
    use std::ffi::{c_char, c_int, c_void, CString};
    extern "C" {
        fn fopen(path: *const c_char, mode: *const c_char) -> *mut c_void;
        fn fclose(file: *mut c_void) -> c_int;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("properties.md");
    let c_path = CString::new(path.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a FILE opened for writing here, handed to librdkafka, closed once.
    unsafe {
        let file = fopen(c_path.as_ptr(), c"w".as_ptr());
        assert!(!file.is_null(), "fopen");
        rdkafka::bindings::rd_kafka_conf_properties_show(file as *mut _);
        fclose(file);
    }
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_once('|'))
        .map(|(name, _)| name.trim().to_string())
        .filter(|name| !name.is_empty() && !name.starts_with('-') && name != "Property")
        .collect()
}

/// Makes `path` another user's (`nobody`, 65534) with `mode`.
fn owned_by_nobody(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn with_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The attack of issue 25: root runs `kafka lso` with a config that another user owns
/// and anyone can write, whose `sasl.password: ${file:/etc/shadow:root}` would send
/// root's shadow entry to that user's broker. A config, a properties file or a file a
/// config provider reads is refused (exit 3) when another user owns it or group or
/// others can write it, as OpenSSH refuses such a config, and nothing connects.
#[test]
fn settings_files_another_user_can_change_are_refused_before_anything_connects() {
    let dir = tempfile::tempdir().unwrap();
    let (listener, address) = silent_listener();
    let attack = dir.path().join("config.yaml");
    std::fs::write(
        &attack,
        format!(
            "kafka:\n  theirs:\n    bootstrap_servers: \"{address}\"\n    properties:\n      \
             security.protocol: SASL_PLAINTEXT\n      sasl.mechanism: PLAIN\n      \
             sasl.username: root\n      sasl.password: \"${{file:/etc/shadow:root}}\"\n      \
             config.providers: file\n      config.providers.file.class: {FILE_PROVIDER}\n"
        ),
    )
    .unwrap();
    let refused = |out: &Outcome, says: &[&str]| {
        assert_eq!(out.code, 3, "{}", out.stderr);
        for part in ["refused: ", "\nhint: "].iter().chain(says) {
            assert!(out.stderr.contains(part), "{part:?} not in: {}", out.stderr);
        }
        assert!(!out.stderr.contains("root:$"), "{}", out.stderr);
        assert_not_contacted(&listener);
    };
    let config_lso = |config: &Path| {
        run(indoubt()
            .args(["--timeout", "2s", "--config"])
            .arg(config)
            .args(["kafka", "lso"]))
    };

    owned_by_nobody(&attack, 0o666);
    refused(
        &config_lso(&attack),
        &[
            "the config file",
            "is owned by uid 65534, not by you or root",
        ],
    );
    owned_by_nobody(&attack, 0o644);
    refused(&config_lso(&attack), &["is owned by uid 65534"]);
    // Root's, but anyone may write it; through $INDOUBT_CONFIG alike.
    std::os::unix::fs::chown(&attack, Some(0), Some(0)).unwrap();
    with_mode(&attack, 0o646);
    let out =
        run(indoubt()
            .env("INDOUBT_CONFIG", &attack)
            .args(["--timeout", "2s", "kafka", "lso"]));
    refused(&out, &["is writable by others (mode 0646)"]);
    with_mode(&attack, 0o620);
    refused(
        &config_lso(&attack),
        &["is writable by its group (mode 0620)"],
    );

    // A properties file: --command-config, or a target's properties_file.
    let props = dir.path().join("client.properties");
    std::fs::write(&props, "security.protocol=PLAINTEXT\n").unwrap();
    owned_by_nobody(&props, 0o600);
    let out = lso(&["--timeout", "2s", "-b", &address, "--command-config"]
        .into_iter()
        .chain([props.to_str().unwrap()])
        .collect::<Vec<_>>());
    refused(&out, &["the properties file", "is owned by uid 65534"]);
    let config = dir.path().join("mine.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  k:\n    bootstrap_servers: \"{address}\"\n    properties_file: {}\n",
            props.display()
        ),
    )
    .unwrap();
    with_mode(&config, 0o600);
    refused(
        &config_lso(&config),
        &["the properties file", "is owned by uid 65534"],
    );

    // A file a config provider reads.
    let secrets = dir.path().join("secrets.properties");
    std::fs::write(&secrets, "password=theirs\n").unwrap();
    let provided = |secrets: &Path| {
        lso(&[
            "--timeout",
            "2s",
            "-b",
            &address,
            "-X",
            "security.protocol=SASL_PLAINTEXT",
            "-X",
            "sasl.mechanism=PLAIN",
            "-X",
            "sasl.username=u",
            "-X",
            "config.providers=file",
            "-X",
            &format!("config.providers.file.class={FILE_PROVIDER}"),
            "-X",
            &format!("sasl.password=${{file:{}:password}}", secrets.display()),
        ])
    };
    owned_by_nobody(&secrets, 0o600);
    refused(
        &provided(&secrets),
        &["the file of a config provider", "is owned by uid 65534"],
    );
    std::os::unix::fs::chown(&secrets, Some(0), Some(0)).unwrap();
    with_mode(&secrets, 0o666);
    refused(&provided(&secrets), &["is writable by group and others"]);
}

/// A file that writes a secret out (a password in the YAML, a properties file) and that
/// group or others can read is used, with a warning on stderr, once per file; one that
/// only names where its secrets are (`${file:…}`), or only its owner reads, is not warned of.
#[test]
fn a_readable_file_holding_a_secret_is_warned_of_once() {
    let dir = tempfile::tempdir().unwrap();
    let props = dir.path().join("client.properties");
    std::fs::write(
        &props,
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=u\nsasl.password=hunter2\n",
    )
    .unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  db:\n    conninfo: \"host=db1 user=u password=hunter2\"\n\
             kafka:\n  a:\n    bootstrap_servers: \"k1:9092\"\n    properties_file: {p}\n  \
             b:\n    bootstrap_servers: \"k2:9092\"\n    properties_file: {p}\n",
            p = props.display()
        ),
    )
    .unwrap();
    let show = || {
        run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&config)
            .args(["config", "show"]))
    };
    let warning = "holds a secret and is readable by";
    with_mode(&config, 0o644);
    with_mode(&props, 0o640);
    let out = show();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("hunter2"), "{}", out.stderr);
    let of = |file: &Path| {
        out.stderr
            .lines()
            .filter(|l| l.contains(warning) && l.contains(file.to_str().unwrap()))
            .count()
    };
    assert_eq!(of(&config), 1, "{}", out.stderr);
    assert!(out
        .stderr
        .contains("readable by group and others (mode 0644)"));
    assert_eq!(
        of(&props),
        1,
        "read for two targets, told once: {}",
        out.stderr
    );
    assert!(out.stderr.contains("readable by its group (mode 0640)"));

    with_mode(&config, 0o600);
    with_mode(&props, 0o600);
    let out = show();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains(warning), "{}", out.stderr);

    // Readable, but naming where the secret is rather than holding it: no warning.
    std::fs::write(
        &config,
        "postgres:\n  db:\n    conninfo: \"host=db1 user=u\"\nkafka:\n  a:\n    \
         bootstrap_servers: \"k1:9092\"\n    properties:\n      sasl.password: \"${env:PW}\"\n",
    )
    .unwrap();
    with_mode(&config, 0o644);
    let out = show();
    assert!(!out.stderr.contains(warning), "{}", out.stderr);
}

/// The other files indoubt reads that hold a secret, or decide where one goes: a MySQL
/// option file, a PostgreSQL client key (sslkey), root certificate (sslrootcert),
/// password file and service file, a Kafka client key and CA file, a Kerberos keytab and
/// an OAUTHBEARER token file. Each is refused (exit 3), before anything connects, when
/// another user (`nobody`) owns it or its group can write it, as the config is (and as
/// OpenSSH refuses such files): whoever can change one can have indoubt send a password
/// to their server, or trust their CA. Made right (root's, 0600), the MySQL option file
/// works against the lab again.
#[test]
fn files_that_hold_or_unlock_secrets_are_refused_when_another_user_can_change_them() {
    let dir = tempfile::tempdir().unwrap();
    let (listener, address) = silent_listener();
    let port = address.rsplit_once(':').unwrap().1.to_string();
    let file = |name: &str, from: Option<String>, text: &str| {
        let path = dir.path().join(name);
        match from {
            Some(from) => {
                std::fs::copy(from, &path).unwrap();
            }
            None => std::fs::write(&path, text).unwrap(),
        }
        path
    };
    let cnf = file("my.cnf", Some(mysql::cnf()), "");
    let key = file("client.key", Some(lab("INDOUBT_LAB_KAFKA_CLIENT_KEY")), "");
    let cert = file("client.crt", Some(lab("INDOUBT_LAB_KAFKA_CLIENT_CERT")), "");
    let ca = file("ca.crt", Some(lab("INDOUBT_LAB_KAFKA_CA")), "");
    let keytab = file("client.keytab", Some(lab("INDOUBT_LAB_KRB5_KEYTAB")), "");
    let token = file("token", None, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.\n");
    let pgpass = file("pgpass", None, "*:*:*:*:theirs\n");
    let service = file(
        "pg_service.conf",
        None,
        &format!("[lab]\nhost=127.0.0.1\nport={port}\nuser=u\n"),
    );
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let timeout = ["--timeout", "2s"];
    let pg = |conninfo: String| {
        run(indoubt()
            .args(timeout)
            .args(["pg", "prepared", "--pg", &conninfo]))
    };
    let kafka = |props: &[String]| {
        let mut cmd = indoubt();
        cmd.args(timeout).args(["kafka", "lso", "-b", &address]);
        for p in props {
            cmd.args(["-X", p]);
        }
        run(&mut cmd)
    };
    type Attempt<'a> = Box<dyn Fn() -> Outcome + 'a>;
    let cases: Vec<(&str, &Path, Attempt)> = vec![
        (
            "the option file",
            &cnf,
            Box::new(|| {
                run(indoubt()
                    .args(timeout)
                    .args(["mysql", "xa", "--mysql", &format!("mysql://u@{address}/")])
                    .arg("--defaults-file")
                    .arg(&cnf))
            }),
        ),
        (
            "the sslkey",
            &key,
            Box::new(|| {
                pg(format!(
                    "host=127.0.0.1 port={port} user=u sslmode=require sslcert={} sslkey={}",
                    s(&cert),
                    s(&key)
                ))
            }),
        ),
        (
            "the sslrootcert",
            &ca,
            Box::new(|| {
                pg(format!(
                    "host=127.0.0.1 port={port} user=u sslmode=verify-ca sslrootcert={}",
                    s(&ca)
                ))
            }),
        ),
        (
            "the password file",
            &pgpass,
            Box::new(|| {
                pg(format!(
                    "host=127.0.0.1 port={port} user=u passfile={}",
                    s(&pgpass)
                ))
            }),
        ),
        (
            "the service file",
            &service,
            Box::new(|| {
                run(indoubt()
                    .env("PGSERVICEFILE", &service)
                    .args(timeout)
                    .args(["pg", "prepared", "--pg", "service=lab"]))
            }),
        ),
        (
            "the ssl.key.location",
            &key,
            Box::new(|| {
                kafka(&[
                    "security.protocol=SSL".into(),
                    format!("ssl.certificate.location={}", s(&cert)),
                    format!("ssl.key.location={}", s(&key)),
                ])
            }),
        ),
        (
            "the ssl.ca.location",
            &ca,
            Box::new(|| {
                kafka(&[
                    "security.protocol=SSL".into(),
                    format!("ssl.ca.location={}", s(&ca)),
                ])
            }),
        ),
        (
            "the Kerberos keytab",
            &keytab,
            Box::new(|| {
                kafka(&[
                    "security.protocol=SASL_PLAINTEXT".into(),
                    "sasl.mechanism=GSSAPI".into(),
                    format!("sasl.kerberos.keytab={}", s(&keytab)),
                    format!(
                        "sasl.kerberos.principal={}",
                        lab("INDOUBT_LAB_KRB5_PRINCIPAL")
                    ),
                ])
            }),
        ),
        (
            "the OAUTHBEARER token file",
            &token,
            Box::new(|| {
                kafka(&[
                    "security.protocol=SASL_PLAINTEXT".into(),
                    "sasl.mechanism=OAUTHBEARER".into(),
                    format!("sasl.oauthbearer.token.endpoint.url=file://{}", s(&token)),
                ])
            }),
        ),
    ];
    for (what, path, attempt) in &cases {
        for (uid, mode, says) in [
            (
                65534,
                0o600,
                "is owned by uid 65534, not by you or root".to_string(),
            ),
            (0, 0o620, "is writable by its group (mode 0620)".to_string()),
        ] {
            std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
            with_mode(path, mode);
            let out = attempt();
            assert_eq!(out.code, 3, "{what} {uid} {mode:o}: {}", out.stderr);
            for part in [
                "refused: ".to_string(),
                format!("{what} {}", path.display()),
                says.clone(),
                "\nhint: ".to_string(),
            ] {
                assert!(
                    out.stderr.contains(&part),
                    "{what} {uid} {mode:o}: {part:?} not in: {}",
                    out.stderr
                );
            }
            assert_not_contacted(&listener);
        }
        std::os::unix::fs::chown(path, Some(0), Some(0)).unwrap();
        with_mode(path, 0o600);
    }
    // Made right, the option file is read as before: the lab's server answers.
    let out = run(indoubt()
        .args(["mysql", "xa", "--mysql", &mysql::url(), "--defaults-file"])
        .arg(&cnf));
    assert!(out.code < 3, "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

/// A private key, a keystore or a keytab that group or others can read: a PostgreSQL
/// client key (sslkey) is refused as libpq refuses it (exit 3, nothing connected); a
/// Kafka client key and a Kerberos keytab are used, as librdkafka and Kerberos use them,
/// with a warning, once; so is a MySQL option file that holds a password. The lab's
/// mTLS listener and MySQL server answer through them.
#[test]
fn a_private_key_others_can_read_is_refused_as_libpq_refuses_it_or_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("client.key");
    std::fs::copy(lab("INDOUBT_LAB_KAFKA_CLIENT_KEY"), &key).unwrap();
    let cert = lab("INDOUBT_LAB_KAFKA_CLIENT_CERT");
    let (listener, address) = silent_listener();
    let port = address.rsplit_once(':').unwrap().1;
    for mode in [0o644, 0o640] {
        with_mode(&key, mode);
        let out = run(indoubt()
            .args(["--timeout", "2s", "pg", "prepared", "--pg"])
            .arg(format!(
                "host=127.0.0.1 port={port} user=u sslmode=require sslcert={cert} sslkey={}",
                key.display()
            )));
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "refused: the sslkey {} has group or world access (mode {mode:04o})",
                key.display()
            )) && out.stderr.contains("hint: chmod go-rwx"),
            "{}",
            out.stderr
        );
        assert_not_contacted(&listener);
    }

    with_mode(&key, 0o644);
    let mtls = lab("INDOUBT_LAB_KAFKA_MTLS_BOOTSTRAP");
    let out = lso(&[
        "-b",
        &mtls,
        "-X",
        "security.protocol=SSL",
        "-X",
        &format!("ssl.ca.location={}", lab("INDOUBT_LAB_KAFKA_CA")),
        "-X",
        &format!("ssl.certificate.location={cert}"),
        "-X",
        &format!("ssl.key.location={}", key.display()),
    ]);
    assert!(out.code < 3, "the broker answers: {}", out.stderr);
    let warning = format!(
        "indoubt: warning: the ssl.key.location {} holds a secret and is readable by group and others (mode 0644)",
        key.display()
    );
    assert_eq!(
        out.stderr.matches(&warning).count(),
        1,
        "once: {}",
        out.stderr
    );

    let keytab = dir.path().join("client.keytab");
    std::fs::copy(lab("INDOUBT_LAB_KRB5_KEYTAB"), &keytab).unwrap();
    with_mode(&keytab, 0o644);
    let out = lso(&[
        "--timeout",
        "1s",
        "-b",
        &address,
        "-X",
        "security.protocol=SASL_PLAINTEXT",
        "-X",
        "sasl.mechanism=GSSAPI",
        "-X",
        &format!("sasl.kerberos.keytab={}", keytab.display()),
        "-X",
        &format!(
            "sasl.kerberos.principal={}",
            lab("INDOUBT_LAB_KRB5_PRINCIPAL")
        ),
    ]);
    assert!(
        out.stderr.contains(&format!(
            "indoubt: warning: the Kerberos keytab {} holds a secret and is readable by group and others (mode 0644)",
            keytab.display()
        )),
        "{}",
        out.stderr
    );

    let cnf = dir.path().join("my.cnf");
    std::fs::copy(mysql::cnf(), &cnf).unwrap();
    with_mode(&cnf, 0o640);
    let out = run(indoubt()
        .args(["mysql", "xa", "--mysql", &mysql::url(), "--defaults-file"])
        .arg(&cnf));
    assert!(out.code < 3, "the server answers: {}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "indoubt: warning: the option file {} holds a secret and is readable by its group (mode 0640): chmod 600 it",
            cnf.display()
        )),
        "{}",
        out.stderr
    );
}
