//! SASL/OAUTHBEARER against the lab's two listeners: OAUTH (the broker's unsecured
//! validator) and OAUTH_JWKS (signed JWTs from the lab's token issuer, oidc-provider,
//! checked against its JWKS for audience, issuer and expiry): every command over each,
//! with librdkafka's and the Java client's names; the refusals (a wrong client secret,
//! another audience, an expired or forged token) with the broker's words and what to
//! check; tokens from a file and a command; and a long run outliving its tokens.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::*;
use common::*;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde_json::Value;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

const JAAS: &str = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required";
const LOGIN_HANDLER: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

fn x(pairs: &[(&str, String)]) -> Vec<String> {
    pairs
        .iter()
        .flat_map(|(k, v)| ["-X".to_string(), format!("{k}={v}")])
        .collect()
}

fn listener(bootstrap_key: &str, mut rest: Vec<String>) -> Vec<String> {
    let mut args = vec!["-b".to_string(), lab(bootstrap_key)];
    args.extend(x(&[
        ("security.protocol", "SASL_PLAINTEXT".into()),
        ("sasl.mechanism", "OAUTHBEARER".into()),
    ]));
    args.append(&mut rest);
    args
}

/// librdkafka's unsecured JWT, on the OAUTH listener.
pub(crate) fn unsecured_librdkafka(principal: &str) -> Vec<String> {
    listener(
        "INDOUBT_LAB_KAFKA_OAUTH_BOOTSTRAP",
        x(&[(
            "sasl.oauthbearer.config",
            format!("principal={principal} scope=kafka lifeSeconds=600"),
        )]),
    )
}

/// The Java client's unsecured login module, on the OAUTH listener.
pub(crate) fn unsecured_java(principal: &str) -> Vec<String> {
    listener(
        "INDOUBT_LAB_KAFKA_OAUTH_BOOTSTRAP",
        x(&[(
            "sasl.jaas.config",
            format!(r#"{JAAS} unsecuredLoginStringClaim_sub="{principal}";"#),
        )]),
    )
}

/// librdkafka's OIDC client credentials, on the OAUTH_JWKS listener.
pub(crate) fn oidc_librdkafka(client: &str, secret: &str) -> Vec<String> {
    listener(
        "INDOUBT_LAB_KAFKA_OAUTH_JWKS_BOOTSTRAP",
        x(&[
            ("sasl.oauthbearer.method", "oidc".into()),
            (
                "sasl.oauthbearer.token.endpoint.url",
                lab("INDOUBT_LAB_OAUTH_TOKEN_URL"),
            ),
            ("sasl.oauthbearer.client.id", client.into()),
            ("sasl.oauthbearer.client.secret", secret.into()),
            ("sasl.oauthbearer.scope", "kafka".into()),
        ]),
    )
}

/// The Java client's OIDC login (KIP-768), on the OAUTH_JWKS listener.
pub(crate) fn oidc_java(client: &str, secret: &str) -> Vec<String> {
    listener(
        "INDOUBT_LAB_KAFKA_OAUTH_JWKS_BOOTSTRAP",
        x(&[
            ("sasl.login.callback.handler.class", LOGIN_HANDLER.into()),
            (
                "sasl.oauthbearer.token.endpoint.url",
                lab("INDOUBT_LAB_OAUTH_TOKEN_URL"),
            ),
            (
                "sasl.jaas.config",
                format!(r#"{JAAS} clientId="{client}" clientSecret="{secret}" scope="kafka";"#),
            ),
        ]),
    )
}

fn ways_in() -> Vec<(&'static str, Vec<String>)> {
    let secret = lab("INDOUBT_LAB_OAUTH_CLIENT_SECRET");
    vec![
        ("unsecured, librdkafka", unsecured_librdkafka("alice")),
        ("unsecured, Java", unsecured_java("bob")),
        ("oidc, librdkafka", oidc_librdkafka("indoubt", &secret)),
        ("oidc, Java", oidc_java("indoubt", &secret)),
    ]
}

fn json_of(args: &[String]) -> (Value, Outcome) {
    let out = run(indoubt().args(["-o", "json"]).args(args));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// A client credentials token straight from the lab's issuer (RFC 6749 §4.4 by hand).
fn issue_token(client: &str, secret: &str) -> String {
    let url = lab("INDOUBT_LAB_OAUTH_TOKEN_URL");
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_once('/').unwrap();
    use base64::Engine as _;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{client}:{secret}"));
    let body = "grant_type=client_credentials&scope=kafka";
    let mut tcp = std::net::TcpStream::connect(authority).unwrap();
    write!(
        tcp,
        "POST /{path} HTTP/1.1\r\nHost: {authority}\r\nAuthorization: Basic {basic}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    let json = &answer[answer.find('{').unwrap()..answer.rfind('}').unwrap() + 1];
    let v: Value = serde_json::from_str(json).unwrap();
    v["access_token"].as_str().unwrap().to_string()
}

/// A file only its owner may read, holding a token.
fn token_file(dir: &std::path::Path, name: &str, token: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("{token}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

#[test]
fn every_command_works_over_both_oauthbearer_listeners() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "oauth", 2);
    committed_writes(&bootstrap, &topic, 1, 1);
    let (pid, _, _) = hanging_transaction(&bootstrap, &topic, 1);
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let secret = lab("INDOUBT_LAB_OAUTH_CLIENT_SECRET");
    for (way, sasl) in ways_in() {
        let with = |cmd: &[&str]| -> Vec<String> {
            cmd.iter()
                .map(|s| s.to_string())
                .chain(sasl.iter().cloned())
                .collect()
        };
        let (report, out) = json_of(&with(&[
            "kafka",
            "hanging",
            "--topic",
            &topic,
            "--max-transaction-timeout",
            "0s",
        ]));
        assert_eq!(out.code, 2, "{way}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(
            report["transactions"][0]["producer_id"], pid,
            "{way}: {report}"
        );
        let (report, out) = json_of(&with(&["kafka", "lso", "--topic", &topic]));
        assert!(out.code < 3, "{way}: {}\n{}", out.stdout, out.stderr);
        assert!(report.is_object(), "{way}: {}", out.stdout);
        let (dry, out) = json_of(&with(&[
            "resolve",
            "kafka",
            "--topic",
            &topic,
            "--partition",
            "1",
            "--start-offset",
            "2",
            "--dry-run",
            "--audit-log",
            &audit.to_string_lossy(),
        ]));
        assert_eq!(out.code, 0, "{way}: {}\n{}", out.stdout, out.stderr);
        assert!(
            dry["request"]
                .as_str()
                .is_some_and(|r| r.contains(&format!("producer {pid}"))),
            "{way}: {dry}"
        );
        assert!(
            !out.stdout.contains(&secret) && !out.stderr.contains(&secret),
            "{way}: the client secret is never shown"
        );
    }
}

#[test]
fn reconcile_reads_the_topic_over_both_oauthbearer_listeners() {
    let db = orders_db("oauth_shop", 12);
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "oauth.orders", 2);
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()
        .unwrap();
    let now_ms = chrono::Utc::now().timestamp_millis();
    for id in 1..=11 {
        let value = format!(r#"{{"order":{{"id":{id}}}}}"#);
        producer
            .send(
                BaseRecord::to(&topic)
                    .key(&id.to_string())
                    .payload(&value)
                    .timestamp(now_ms - 1000),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }
    producer.flush(Duration::from_secs(30)).unwrap();
    for (way, sasl) in ways_in() {
        let mut args: Vec<String> = [
            "reconcile",
            "--pg",
            &db.url(),
            "--query",
            ORDERS_QUERY,
            "--topic",
            &topic,
            "--id-from",
            "json:/order/id",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(sasl);
        let (r, out) = json_of(&args);
        assert_eq!(
            out.code, 2,
            "{way}: order 12 is missing\n{}\n{}",
            out.stdout, out.stderr
        );
        assert_eq!(r["matched"], 11, "{way}: {r}");
        assert_eq!(r["topic_messages"], 11, "{way}: {r}");
    }
}

#[test]
fn a_wrong_client_secret_is_refused_by_the_token_endpoint_with_what_to_check() {
    for args in [
        oidc_librdkafka("indoubt", "not-the-secret"),
        oidc_java("indoubt", "not-the-secret"),
    ] {
        let out = run(indoubt().args(["kafka", "lso"]).args(&args));
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(
            out.stderr.contains("HTTP 401") && out.stderr.contains("invalid_client"),
            "the issuer's words: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains("hint:") && out.stderr.contains("sasl.oauthbearer.client.secret"),
            "what to check: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("not-the-secret"), "{}", out.stderr);
    }
}

#[test]
fn a_token_for_another_audience_is_refused_by_the_broker() {
    let out = run(indoubt().args(["kafka", "lso"]).args(oidc_librdkafka(
        "indoubt-elsewhere",
        &lab("INDOUBT_LAB_OAUTH_ELSEWHERE_CLIENT_SECRET"),
    )));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("refused the OAUTHBEARER token")
            && out.stderr.contains("invalid_token"),
        "the broker's words: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("aud other-service"),
        "what the token says, to compare: {}",
        out.stderr
    );
    assert!(out.stderr.contains("expected.audience"), "{}", out.stderr);
}

/// Tokens from a file (Java's file: token endpoint) and from a command are presented as
/// they are; the JWKS listener takes a good one and refuses an expired or a forged one.
#[test]
fn tokens_from_a_file_or_a_command_and_the_expired_and_forged_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = issue_token("indoubt", &lab("INDOUBT_LAB_OAUTH_CLIENT_SECRET"));
    let short = issue_token(
        "indoubt-short",
        &lab("INDOUBT_LAB_OAUTH_SHORT_CLIENT_SECRET"),
    );
    let jwks = |source: (&str, String)| {
        run(indoubt().args(["kafka", "lso"]).args(listener(
            "INDOUBT_LAB_KAFKA_OAUTH_JWKS_BOOTSTRAP",
            x(&[source]),
        )))
    };
    let file = token_file(dir.path(), "good.jwt", &good);
    let out = jwks((
        "sasl.oauthbearer.token.endpoint.url",
        format!("file://{}", file.display()),
    ));
    assert!(out.code < 3, "a token file: {}", out.stderr);
    let out = jwks((
        "sasl.oauthbearer.token.command",
        format!("cat {}", file.display()),
    ));
    assert!(out.code < 3, "a token command: {}", out.stderr);
    assert!(!out.stderr.contains(&good));

    // The signature's last characters changed: the broker must check it.
    let (head, _) = good.rsplit_once('.').unwrap();
    let forged = token_file(
        dir.path(),
        "forged.jwt",
        &format!("{head}.{}", "A".repeat(342)),
    );
    let out = jwks((
        "sasl.oauthbearer.token.endpoint.url",
        format!("file://{}", forged.display()),
    ));
    assert_eq!(out.code, 3, "a forged signature: {}", out.stderr);
    assert!(out.stderr.contains("invalid_token"), "{}", out.stderr);

    // A file others can write is not read at all.
    let loose = token_file(dir.path(), "loose.jwt", &good);
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = jwks((
        "sasl.oauthbearer.token.endpoint.url",
        format!("file://{}", loose.display()),
    ));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("loose.jwt"), "{}", out.stderr);

    // The short client's tokens live 20s; the listener allows no clock skew.
    let expired = token_file(dir.path(), "expired.jwt", &short);
    std::thread::sleep(Duration::from_secs(22));
    let out = jwks((
        "sasl.oauthbearer.token.endpoint.url",
        format!("file://{}", expired.display()),
    ));
    assert_eq!(out.code, 3, "an expired token: {}", out.stderr);
    assert!(
        out.stderr.contains("invalid_token") && out.stderr.contains("expired"),
        "the broker's words and the token's expiry: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("not expired"),
        "what to check: {}",
        out.stderr
    );
}

/// One connection used for longer than two tokens live (the short client's: 20s): the
/// broker bounds its session by the token (KIP-368), so the connection re-authenticates
/// with a fresh token before each session ends; connections opened later get a fresh
/// token from the cache, not the expired one. Without either, a request fails.
#[test]
fn a_long_run_outlives_its_tokens() {
    use indoubt::kafka::conn::Connection;
    use kafka_protocol::messages::{ApiKey, MetadataRequest};
    use kafka_protocol::protocol::Message;
    let props: std::collections::BTreeMap<String, String> = [
        ("security.protocol", "SASL_PLAINTEXT".to_string()),
        ("sasl.mechanism", "OAUTHBEARER".into()),
        ("sasl.oauthbearer.method", "oidc".into()),
        (
            "sasl.oauthbearer.token.endpoint.url",
            lab("INDOUBT_LAB_OAUTH_TOKEN_URL"),
        ),
        ("sasl.oauthbearer.client.id", "indoubt-short".into()),
        (
            "sasl.oauthbearer.client.secret",
            lab("INDOUBT_LAB_OAUTH_SHORT_CLIENT_SECRET"),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut config = indoubt::kafka::config::ClientConfig::plaintext(vec![]);
    config.security = indoubt::settings::kafka_client::security::from_properties(&props).unwrap();
    let address = lab("INDOUBT_LAB_KAFKA_OAUTH_JWKS_BOOTSTRAP");
    let timeout = Duration::from_secs(10);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let mut long = Connection::open(&address, &config, timeout).await.unwrap();
            let start = std::time::Instant::now();
            let mut round = 0;
            while start.elapsed() < Duration::from_secs(50) {
                round += 1;
                let request = MetadataRequest::default();
                long.send::<_, kafka_protocol::messages::MetadataResponse>(
                    ApiKey::Metadata,
                    &request,
                    MetadataRequest::VERSIONS,
                )
                .await
                .unwrap_or_else(|e| {
                    panic!(
                        "round {round} at {:?} on the long connection: {e:#}",
                        start.elapsed()
                    )
                });
                if round % 5 == 0 {
                    let mut fresh = Connection::open(&address, &config, timeout)
                        .await
                        .unwrap_or_else(|e| {
                            panic!("a new connection at {:?}: {e:#}", start.elapsed())
                        });
                    fresh
                        .send::<_, kafka_protocol::messages::MetadataResponse>(
                            ApiKey::Metadata,
                            &request,
                            MetadataRequest::VERSIONS,
                        )
                        .await
                        .unwrap();
                }
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
        });
}
