//! Mutual TLS against the lab's MTLS listener (ssl.client.auth=required): every key and
//! store form a client may be given (PEM PKCS#8, PKCS#1, SEC1 EC and encrypted PKCS#8,
//! PKCS#12 key- and truststores made by openssl and keytool, inline PEM), the commands
//! over it, and each refused handshake named by its cause and the property that fixes it.
//! The keys and stores are made here, at test time, in a private temporary directory.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::*;
use common::*;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The store and key password of the fixtures (the tests check it is never printed).
const PASSWORD: &str = "s3cret-store-pw";

/// A certificate serial no other test's is: the clock's nanoseconds, the process, a count.
fn serial() -> String {
    static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let count = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("0x{nanos:016x}{:08x}{count:04x}", std::process::id())
}

fn sh(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The keys, certificates and stores of one test, in a private directory.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        let pki = Pki {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::copy(lab("INDOUBT_LAB_KAFKA_CLIENT_KEY"), pki.path("client.key")).unwrap();
        std::fs::copy(lab("INDOUBT_LAB_KAFKA_CLIENT_CERT"), pki.path("client.crt")).unwrap();
        std::fs::copy(lab("INDOUBT_LAB_KAFKA_CA"), pki.path("ca.crt")).unwrap();
        pki
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn p(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    /// A certificate for `key` signed by a CA of the lab, valid for `days` (negative:
    /// expired).
    fn sign(&self, key: &str, cn: &str, ca: &str, ca_key: &str, days: &str, out: &str) {
        let csr = self.p(&format!("{out}.csr"));
        sh(
            "openssl",
            &[
                "req",
                "-new",
                "-key",
                &self.p(key),
                "-subj",
                &format!("/CN={cn}"),
                "-out",
                &csr,
            ],
        );
        // A serial of its own: -CAcreateserial would write next to the lab's CA, a file
        // every test shares.
        let serial = serial();
        sh(
            "openssl",
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                ca,
                "-CAkey",
                ca_key,
                "-set_serial",
                &serial,
                "-days",
                days,
                "-out",
                &self.p(out),
            ],
        );
    }

    fn pkcs1(&self) -> String {
        sh(
            "openssl",
            &[
                "pkey",
                "-in",
                &self.p("client.key"),
                "-traditional",
                "-out",
                &self.p("pkcs1.key"),
            ],
        );
        let key = std::fs::read_to_string(self.path("pkcs1.key")).unwrap();
        assert!(key.contains("BEGIN RSA PRIVATE KEY"), "{key}");
        self.p("pkcs1.key")
    }

    fn encrypted_pkcs8(&self) -> String {
        sh(
            "openssl",
            &[
                "pkcs8",
                "-topk8",
                "-in",
                &self.p("client.key"),
                "-v2",
                "aes-256-cbc",
                "-passout",
                &format!("pass:{PASSWORD}"),
                "-out",
                &self.p("encrypted.key"),
            ],
        );
        let key = std::fs::read_to_string(self.path("encrypted.key")).unwrap();
        assert!(key.contains("BEGIN ENCRYPTED PRIVATE KEY"), "{key}");
        self.p("encrypted.key")
    }

    /// An EC key (SEC1, `BEGIN EC PRIVATE KEY`) and its certificate from the lab CA.
    fn ec(&self) -> (String, String) {
        sh(
            "openssl",
            &[
                "ecparam",
                "-name",
                "prime256v1",
                "-genkey",
                "-out",
                &self.p("ec.key"),
            ],
        );
        let key = std::fs::read_to_string(self.path("ec.key")).unwrap();
        assert!(
            key.contains("BEGIN EC PARAMETERS") && key.contains("BEGIN EC PRIVATE KEY"),
            "{key}"
        );
        self.sign(
            "ec.key",
            "indoubt-ec-client",
            &lab("INDOUBT_LAB_KAFKA_CA"),
            &lab("INDOUBT_LAB_KAFKA_CA_KEY"),
            "30",
            "ec.crt",
        );
        (self.p("ec.crt"), self.p("ec.key"))
    }

    /// A PKCS#12 keystore of the client key and certificate, as openssl writes it.
    fn keystore(&self) -> String {
        sh(
            "openssl",
            &[
                "pkcs12",
                "-export",
                "-in",
                &self.p("client.crt"),
                "-inkey",
                &self.p("client.key"),
                "-name",
                "client",
                "-passout",
                &format!("pass:{PASSWORD}"),
                "-out",
                &self.p("client.p12"),
            ],
        );
        self.p("client.p12")
    }

    /// A Java truststore as keytool writes it: PKCS#12, one trusted-certificate entry.
    fn truststore(&self) -> String {
        self.ca_store("PKCS12", "truststore.p12")
    }

    /// The lab CA as the one trusted-certificate entry of a keytool store of `kind`.
    fn ca_store(&self, kind: &str, name: &str) -> String {
        sh(
            "keytool",
            &[
                "-importcert",
                "-noprompt",
                "-alias",
                "lab-ca",
                "-file",
                &self.p("ca.crt"),
                "-keystore",
                &self.p(name),
                "-storetype",
                kind,
                "-storepass",
                PASSWORD,
            ],
        );
        self.p(name)
    }

    fn jks_keystore(&self) -> String {
        let p12 = self.keystore();
        sh(
            "keytool",
            &[
                "-importkeystore",
                "-noprompt",
                "-srckeystore",
                &p12,
                "-srcstoretype",
                "PKCS12",
                "-srcstorepass",
                PASSWORD,
                "-destkeystore",
                &self.p("client.jks"),
                "-deststoretype",
                "JKS",
                "-deststorepass",
                PASSWORD,
            ],
        );
        self.p("client.jks")
    }

    fn jks_truststore(&self) -> String {
        self.ca_store("JKS", "truststore.jks")
    }

    /// A properties file (`--command-config`) of `lines`.
    fn properties(&self, name: &str, lines: &[(&str, String)]) -> String {
        let text: String = lines.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        std::fs::write(self.path(name), text).unwrap();
        self.p(name)
    }
}

fn x(pairs: &[(&str, String)]) -> Vec<String> {
    pairs
        .iter()
        .flat_map(|(k, v)| ["-X".to_string(), format!("{k}={v}")])
        .collect()
}

fn mtls() -> String {
    lab("INDOUBT_LAB_KAFKA_MTLS_BOOTSTRAP")
}

/// `kafka lso` of `topic` at the MTLS listener with `args`.
fn lso(topic: &str, args: &[String]) -> Outcome {
    run(indoubt()
        .args([
            "kafka",
            "lso",
            "-b",
            &mtls(),
            "--topic",
            topic,
            "-X",
            "security.protocol=SSL",
        ])
        .args(args))
}

/// Java properties-file text of a PEM file: its line breaks as `\n` escapes.
fn escaped(path: &str) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .trim_end()
        .replace('\n', "\\n")
}

#[test]
fn every_key_and_store_form_is_accepted_by_the_mutual_tls_listener() {
    let pki = Pki::new();
    let topic = create_topic(&lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"), "mtls-forms", 1);
    let ca = ("ssl.ca.location", pki.p("ca.crt"));
    let cert = ("ssl.certificate.location", pki.p("client.crt"));
    let (ec_cert, ec_key) = pki.ec();
    let keystore = pki.keystore();
    let truststore = pki.truststore();
    // A Java PEM keystore: the key and its certificate in one file.
    let pem_keystore = pki.path("keystore.pem");
    std::fs::write(
        &pem_keystore,
        std::fs::read_to_string(pki.encrypted_pkcs8()).unwrap()
            + &std::fs::read_to_string(pki.path("client.crt")).unwrap(),
    )
    .unwrap();
    let forms: Vec<(&str, Vec<String>)> = vec![
        (
            "PEM PKCS#8",
            x(&[
                ca.clone(),
                cert.clone(),
                ("ssl.key.location", pki.p("client.key")),
            ]),
        ),
        (
            "PEM PKCS#1",
            x(&[ca.clone(), cert.clone(), ("ssl.key.location", pki.pkcs1())]),
        ),
        (
            "encrypted PKCS#8",
            vec![
                "--command-config".into(),
                pki.properties(
                    "encrypted.properties",
                    &[
                        ca.clone(),
                        cert.clone(),
                        ("ssl.key.location", pki.encrypted_pkcs8()),
                        ("ssl.key.password", PASSWORD.into()),
                    ],
                ),
            ],
        ),
        (
            "EC (SEC1)",
            x(&[
                ca.clone(),
                ("ssl.certificate.location", ec_cert),
                ("ssl.key.location", ec_key),
            ]),
        ),
        (
            "PKCS#12 keystore and keytool truststore (Java names)",
            vec![
                "--command-config".into(),
                pki.properties(
                    "java.properties",
                    &[
                        ("ssl.keystore.type", "PKCS12".into()),
                        ("ssl.keystore.location", keystore.clone()),
                        ("ssl.keystore.password", PASSWORD.into()),
                        ("ssl.truststore.type", "PKCS12".into()),
                        ("ssl.truststore.location", truststore.clone()),
                        ("ssl.truststore.password", PASSWORD.into()),
                    ],
                ),
            ],
        ),
        (
            "PKCS#12 keystore (librdkafka names)",
            vec![
                "--command-config".into(),
                pki.properties(
                    "librdkafka.properties",
                    &[
                        ca.clone(),
                        ("ssl.keystore.location", keystore.clone()),
                        ("ssl.keystore.password", PASSWORD.into()),
                    ],
                ),
            ],
        ),
        (
            "Java PEM keystore, encrypted key",
            vec![
                "--command-config".into(),
                pki.properties(
                    "pem-keystore.properties",
                    &[
                        ca.clone(),
                        ("ssl.keystore.type", "PEM".into()),
                        (
                            "ssl.keystore.location",
                            pem_keystore.to_string_lossy().into_owned(),
                        ),
                        ("ssl.key.password", PASSWORD.into()),
                    ],
                ),
            ],
        ),
        (
            "inline PEM (librdkafka names)",
            vec![
                "--command-config".into(),
                pki.properties(
                    "inline.properties",
                    &[
                        ("ssl.ca.pem", escaped(&pki.p("ca.crt"))),
                        ("ssl.certificate.pem", escaped(&pki.p("client.crt"))),
                        ("ssl.key.pem", escaped(&pki.p("client.key"))),
                    ],
                ),
            ],
        ),
        (
            "inline PEM (Java names, on one line as Java reads it)",
            vec![
                "--command-config".into(),
                pki.properties(
                    "inline-java.properties",
                    &[
                        ("ssl.truststore.type", "PEM".into()),
                        (
                            "ssl.truststore.certificates",
                            escaped(&pki.p("ca.crt")).replace("\\n", " "),
                        ),
                        ("ssl.keystore.type", "PEM".into()),
                        (
                            "ssl.keystore.certificate.chain",
                            escaped(&pki.p("client.crt")).replace("\\n", " "),
                        ),
                        (
                            "ssl.keystore.key",
                            escaped(&pki.encrypted_pkcs8()).replace("\\n", " "),
                        ),
                        ("ssl.key.password", PASSWORD.into()),
                    ],
                ),
            ],
        ),
    ];
    let key_text = std::fs::read_to_string(pki.path("client.key")).unwrap();
    let key_line = key_text.lines().nth(1).unwrap();
    for (form, args) in &forms {
        let out = lso(&topic, args);
        assert_eq!(out.code, 0, "{form}: {}{}", out.stdout, out.stderr);
        for said in [&out.stdout, &out.stderr] {
            assert!(
                !said.contains(PASSWORD) && !said.contains(key_line),
                "{form}: {said}"
            );
        }
    }
    // Without a client certificate the same listener refuses, and says what it wants.
    let out = lso(&topic, &x(&[ca]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "the broker at {} requires a client certificate",
            mtls()
        )) && out.stderr.contains("ssl.certificate.location")
            && out.stderr.contains("ssl.keystore.location"),
        "{}",
        out.stderr
    );
    // And the properties are shown with every secret masked.
    let config = pki.path("indoubt.yaml");
    let one_line_key = escaped(&pki.encrypted_pkcs8()).replace("\\n", " ");
    let one_line_chain = escaped(&pki.p("client.crt")).replace("\\n", " ");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  mtls:\n    bootstrap_servers: {}\n    properties:\n      security.protocol: SSL\n      ssl.keystore.type: PEM\n      ssl.keystore.key: \"{one_line_key}\"\n      ssl.keystore.certificate.chain: \"{one_line_chain}\"\n      ssl.key.password: {PASSWORD}\n      ssl.keystore.password: {PASSWORD}\n      ssl.truststore.password: {PASSWORD}\n",
            mtls()
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "config", "show"]));
    assert!(
        out.stdout.contains("<redacted>"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    for said in [&out.stdout, &out.stderr] {
        assert!(
            !said.contains(PASSWORD) && !said.contains("ENCRYPTED PRIVATE KEY"),
            "{said}"
        );
    }
}

/// The client's PKCS#12 stores, Java names, in a properties file.
fn java_stores(pki: &Pki) -> Vec<String> {
    let file = pki.properties(
        "client.properties",
        &[
            ("security.protocol", "SSL".into()),
            ("ssl.keystore.type", "PKCS12".into()),
            ("ssl.keystore.location", pki.keystore()),
            ("ssl.keystore.password", PASSWORD.into()),
            ("ssl.truststore.type", "PKCS12".into()),
            ("ssl.truststore.location", pki.truststore()),
            ("ssl.truststore.password", PASSWORD.into()),
        ],
    );
    vec!["-b".into(), mtls(), "--command-config".into(), file]
}

#[test]
fn lso_hanging_reconcile_and_resolve_work_over_mutual_tls() {
    let pki = Pki::new();
    let stores = java_stores(&pki);
    let plain = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&plain, "mtls-hanging", 1);
    committed_writes(&plain, &topic, 0, 1);
    let (pid, _, _) = hanging_transaction(&plain, &topic, 0);

    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "kafka",
            "hanging",
            "--topic",
            &topic,
            "--max-transaction-timeout",
            "0s",
        ])
        .args(&stores));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["transactions"][0]["producer_id"], pid, "{report}");

    let out = run(indoubt()
        .args(["-o", "json", "kafka", "lso", "--topic", &topic])
        .args(&stores));
    assert!(out.code < 3, "{}{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(report.to_string().contains(&topic), "{report}");

    let dir = tempfile::tempdir().unwrap();
    let out = run(indoubt()
        .args(["-o", "json", "resolve", "kafka", "--audit-log"])
        .arg(dir.path().join("audit.jsonl"))
        .args([
            "--topic",
            &topic,
            "--partition",
            "0",
            "--start-offset",
            "2",
            "--dry-run",
        ])
        .args(&stores));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let dry: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        dry["request"]
            .as_str()
            .is_some_and(|r| r.contains(&format!("producer {pid}"))),
        "{dry}"
    );

    // reconcile: five orders, their five events, read over mutual TLS.
    let db = orders_db("mtls_shop", 5);
    let events = create_topic(&plain, "mtls-orders", 1);
    let ids = (1..=5).map(|id| (id.to_string(), format!(r#"{{"id":{id}}}"#)));
    publish(&plain, &events, ids);
    let out = run(indoubt()
        .args(["-o", "json", "reconcile", "--pg", &db.url()])
        .args(["--query", ORDERS_QUERY, "--topic", &events])
        .args(&stores));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (&r["topic_messages"], &r["matched"]),
        (&Value::from(5), &Value::from(5)),
        "{r}"
    );
    for said in [&out.stdout, &out.stderr] {
        assert!(!said.contains(PASSWORD));
    }
}

fn refused(args: &[String], what: &[&str]) {
    let out = run(indoubt().args(["kafka", "lso"]).args(args));
    assert_eq!(out.code, 3, "{args:?}: {}{}", out.stdout, out.stderr);
    for said in what {
        assert!(
            out.stderr.contains(said),
            "{said:?} not in:\n{}",
            out.stderr
        );
    }
}

fn ssl_at(address: &str, pairs: &[(&str, String)]) -> Vec<String> {
    let mut args = vec![
        "-b".to_string(),
        address.to_string(),
        "-X".into(),
        "security.protocol=SSL".into(),
    ];
    args.extend(x(pairs));
    args
}

#[test]
fn a_refused_handshake_names_its_cause_and_the_property_that_fixes_it() {
    let pki = Pki::new();
    let ca = ("ssl.ca.location", pki.p("ca.crt"));
    let key = ("ssl.key.location", pki.p("client.key"));
    let mtls = mtls();
    // The listener wants a client certificate.
    refused(
        &ssl_at(&mtls, std::slice::from_ref(&ca)),
        &[
            &format!("the broker at {mtls} requires a client certificate"),
            "ssl.certificate.location",
            "ssl.keystore.location",
        ],
    );
    // A client certificate of a CA the broker does not trust.
    pki.sign(
        "client.key",
        "stranger",
        &lab("INDOUBT_LAB_KAFKA_OTHER_CA"),
        &lab("INDOUBT_LAB_KAFKA_OTHER_CA_KEY"),
        "30",
        "stranger.crt",
    );
    refused(
        &ssl_at(
            &mtls,
            &[
                ca.clone(),
                ("ssl.certificate.location", pki.p("stranger.crt")),
                key.clone(),
            ],
        ),
        &[
            "refused indoubt's client certificate (CN=stranger, issued by CN=stranger CA)",
            "TLS alert",
            "must trust its issuer",
        ],
    );
    // An expired client certificate.
    pki.sign(
        "client.key",
        "expired",
        &lab("INDOUBT_LAB_KAFKA_CA"),
        &lab("INDOUBT_LAB_KAFKA_CA_KEY"),
        "-1",
        "expired.crt",
    );
    refused(
        &ssl_at(
            &mtls,
            &[
                ca.clone(),
                ("ssl.certificate.location", pki.p("expired.crt")),
                key.clone(),
            ],
        ),
        &[
            "refused indoubt's client certificate (CN=expired",
            "that certificate expired on",
            "ssl.certificate.location",
        ],
    );
    // The broker's CA is not the one trusted.
    let other = lab("INDOUBT_LAB_KAFKA_OTHER_CA");
    refused(
        &ssl_at(&mtls, &[("ssl.ca.location", other.clone())]),
        &[&format!("is issued by CN=indoubt lab CA, which is not among the CAs of ssl.ca.location {other}"), "ssl.truststore.location"],
    );
    // The name dialled is not the certificate's: 127.1 is 127.0.0.1 (inet_aton's short
    // form), a name the broker's certificate (localhost, 127.0.0.1) does not hold.
    let port = mtls.rsplit_once(':').unwrap().1;
    refused(
        &ssl_at(&format!("127.1:{port}"), std::slice::from_ref(&ca)),
        &[
            "is for DNS:localhost, IP:127.0.0.1, not 127.1",
            "ssl.endpoint.identification.algorithm",
        ],
    );
    // A CA file that is not PEM: DER, and a JKS truststore.
    sh(
        "openssl",
        &[
            "x509",
            "-in",
            &pki.p("ca.crt"),
            "-outform",
            "DER",
            "-out",
            &pki.p("ca.der"),
        ],
    );
    refused(
        &ssl_at(&mtls, &[("ssl.ca.location", pki.p("ca.der"))]),
        &[
            &format!(
                "ssl.ca.location {} is a DER (binary) certificate, not a PEM file",
                pki.p("ca.der")
            ),
            "openssl x509 -inform DER",
        ],
    );
    let jks = pki.jks_truststore();
    refused(
        &ssl_at(&mtls, &[("ssl.ca.location", jks.clone())]),
        &[
            &format!("ssl.ca.location {jks} is a JKS keystore"),
            &format!(
                "keytool -importkeystore -srckeystore {jks} -destkeystore {} -deststoretype PKCS12",
                pki.p("truststore.p12")
            ),
        ],
    );
    // PLAINTEXT at the TLS listener (the broker answers with a TLS alert record), and SSL
    // at the plaintext one.
    refused(
        &["-b".to_string(), mtls.clone()],
        &[
            &format!("{mtls} looks like a TLS server, not a Kafka broker"),
            "security.protocol=SSL",
        ],
    );
    let plain = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    refused(
        &ssl_at(
            &plain,
            &[
                ca.clone(),
                ("ssl.certificate.location", pki.p("client.crt")),
                key,
            ],
        ),
        &[&format!(
            "{plain} looks like a plaintext Kafka listener, not a TLS one"
        )],
    );
}

#[test]
fn store_and_key_mistakes_are_named_with_their_property() {
    let pki = Pki::new();
    let mtls = mtls();
    let ca = ("ssl.ca.location", pki.p("ca.crt"));
    let cert = ("ssl.certificate.location", pki.p("client.crt"));
    let encrypted = pki.encrypted_pkcs8();
    let wrong = "not-the-key-password";
    let config = pki.properties(
        "wrong.properties",
        &[
            ("security.protocol", "SSL".into()),
            ca.clone(),
            cert.clone(),
            ("ssl.key.location", encrypted.clone()),
            ("ssl.key.password", wrong.into()),
        ],
    );
    let out = run(indoubt().args(["kafka", "lso", "-b", &mtls, "--command-config", &config]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "ssl.key.location {encrypted}: ssl.key.password does not decrypt the key"
        )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(wrong) && !out.stdout.contains(wrong));
    refused(
        &ssl_at(
            &mtls,
            &[
                ca.clone(),
                cert.clone(),
                ("ssl.key.location", encrypted.clone()),
            ],
        ),
        &["holds an encrypted key and ssl.key.password is not set"],
    );
    // A wrong store password, and a keystore given no password.
    let keystore = pki.keystore();
    let config = pki.properties(
        "wrong-store.properties",
        &[
            ("security.protocol", "SSL".into()),
            ca.clone(),
            ("ssl.keystore.location", keystore.clone()),
            ("ssl.keystore.password", wrong.into()),
        ],
    );
    let out = run(indoubt().args(["kafka", "lso", "-b", &mtls, "--command-config", &config]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("ssl.keystore.password does not open the store"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(wrong));
    refused(
        &ssl_at(&mtls, &[ca.clone(), ("ssl.keystore.location", keystore)]),
        &["is protected by a password and ssl.keystore.password is not set"],
    );
    // A JKS keystore, refused by its bytes whatever its type says, with the conversion.
    let jks = pki.jks_keystore();
    for kind in ["JKS", "PKCS12"] {
        refused(
            &ssl_at(&mtls, &[ca.clone(), ("ssl.keystore.type", kind.into()), ("ssl.keystore.location", jks.clone())]),
            &[
                &format!("ssl.keystore.location {jks} is a JKS keystore"),
                &format!("keytool -importkeystore -srckeystore {jks} -destkeystore {} -deststoretype PKCS12", pki.p("client.p12")),
            ],
        );
    }
    // A key that is not the certificate's is refused before any broker is contacted:
    // the listener here never sees a connection.
    let (_, ec_key) = pki.ec();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    silent.set_nonblocking(true).unwrap();
    let address = silent.local_addr().unwrap().to_string();
    refused(
        &ssl_at(&address, &[ca.clone(), cert.clone(), ("ssl.key.location", ec_key.clone())]),
        &[&format!(
            "the key of ssl.key.location {ec_key} does not belong to the certificate of ssl.certificate.location {}",
            pki.p("client.crt")
        )],
    );
    assert!(
        matches!(silent.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "indoubt connected before reading its key"
    );
    // A truststore given as the keystore holds no key.
    refused(
        &ssl_at(
            &mtls,
            &[
                ca,
                ("ssl.keystore.location", pki.truststore()),
                ("ssl.keystore.password", PASSWORD.into()),
            ],
        ),
        &["holds no private key"],
    );
}
