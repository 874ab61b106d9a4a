//! Every Kafka client property indoubt knows, in one table: the ones it uses, the ones
//! that do not apply to it (producer, consumer and client internals of librdkafka and the
//! Java client, so their files load), the ones it refuses until it supports them, and
//! which of them hold secrets. A name in no row is refused, with the nearest name.

use crate::error::hinted;
use anyhow::Result;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// indoubt reads it.
    Used,
    /// A Kafka client property with no bearing on what indoubt does; `-v` names it.
    Ignored,
    /// It would change how indoubt connects, and indoubt cannot honour it yet: a value
    /// is refused (an empty one is the same as none).
    Refused,
}

#[derive(Debug, Clone, Copy)]
pub struct Property {
    pub name: &'static str,
    pub role: Role,
    /// Its value is never shown: config show, the audit trail and messages mask it.
    pub secret: bool,
    /// What indoubt does with it; for a refused one, what to do instead.
    pub what: &'static str,
}

const fn used(name: &'static str, what: &'static str) -> Property {
    Property {
        name,
        role: Role::Used,
        secret: false,
        what,
    }
}

const fn ignored(name: &'static str, what: &'static str) -> Property {
    Property {
        name,
        role: Role::Ignored,
        secret: false,
        what,
    }
}

const fn refused(name: &'static str, what: &'static str) -> Property {
    Property {
        name,
        role: Role::Refused,
        secret: false,
        what,
    }
}

impl Property {
    const fn secret(self) -> Property {
        Property {
            secret: true,
            ..self
        }
    }
}

const PRODUCER: &str = "a producer setting: indoubt never produces";
const CONSUMER: &str =
    "a consumer setting: indoubt joins no group, commits nothing and fetches with its own reader";
const NETWORK: &str = "connection tuning: --timeout bounds every connect and request";
const CLIENT: &str =
    "a client internal (metadata refresh, buffers, metrics, logging) with no bearing on what indoubt reports";
const JAVA: &str = "Java client plumbing (classes, JSSE, JMX): indoubt is no JVM";
const JAVA_LOGIN: &str =
    "Java login plumbing: indoubt takes the user and password from sasl.username/sasl.password or sasl.jaas.config";
const OAUTH: &str =
    "a check of OAUTHBEARER tokens the broker makes (the Java client repeats some on the token it got): indoubt presents the token and leaves validation to the broker";
const OAUTH_ASSERTION: &str =
    "the jwt-bearer grant (KIP-1139's assertions) is not supported: use client credentials (sasl.oauthbearer.method=oidc) or a signer's sasl.oauthbearer.token.command";
const KERBEROS_RENEWAL: &str =
    "Java/librdkafka ticket renewal: the Kerberos library gets fresh tickets from the keytab itself when they expire; a ticket cache is renewed by whoever ran kinit";
const KINIT: &str =
    "indoubt runs no command to get tickets: it reads sasl.kerberos.keytab itself, into a private in-memory cache, or uses the ticket cache kinit filled (KRB5CCNAME); remove sasl.kerberos.kinit.cmd and set sasl.kerberos.keytab and sasl.kerberos.principal, or run kinit first";
const BOOTSTRAP: &str =
    "-b or the config's bootstrap_servers name the cluster (as --bootstrap-server does for kafka tools)";
const SERDE: &str =
    "a serializer setting (Confluent Schema Registry): indoubt reads ids as bytes, JSON or text";
const CIPHERS: &str = "indoubt cannot restrict cipher suites, curves or signature algorithms yet (it uses the platform TLS library's defaults, TLS 1.2 or newer): remove the property to accept them";
const ENGINE: &str = "OpenSSL engines, providers and certificate stores are not supported: give the CA, certificate and key as PEM files (ssl.ca.location, ssl.certificate.location, ssl.key.location)";

/// Sorted by name; a unit test keeps it so and keeps names unique.
pub const TABLE: &[Property] = &[
    ignored("acks", PRODUCER),
    ignored("allow.auto.create.topics", "indoubt never creates topics"),
    ignored("api.version.fallback.ms", "indoubt always asks ApiVersions (v3, Kafka 2.4 or newer)"),
    ignored("api.version.request", "indoubt always asks ApiVersions (v3, Kafka 2.4 or newer)"),
    ignored("api.version.request.timeout.ms", "ApiVersions is part of the connection's setup, bounded by socket.connection.setup.timeout.ms and --timeout"),
    ignored("auto.commit.enable", CONSUMER),
    ignored("auto.commit.interval.ms", CONSUMER),
    ignored("auto.offset.reset", CONSUMER),
    ignored("auto.register.schemas", SERDE),
    ignored("basic.auth.credentials.source", SERDE),
    ignored("basic.auth.user.info", SERDE).secret(),
    ignored("batch.num.messages", PRODUCER),
    ignored("batch.size", PRODUCER),
    ignored("bootstrap.controllers", BOOTSTRAP),
    ignored("bootstrap.servers", BOOTSTRAP),
    ignored("broker.address.family", CLIENT),
    ignored("broker.address.ttl", CLIENT),
    ignored("broker.version.fallback", "indoubt always asks ApiVersions (v3, Kafka 2.4 or newer)"),
    ignored("buffer.memory", PRODUCER),
    ignored("builtin.features", CLIENT),
    ignored("check.crcs", "indoubt always checks record batch CRCs"),
    ignored("client.dns.lookup", CLIENT),
    used("client.id", "the client id of every request (default indoubt): brokers' quotas, request logs and ACL audit logs key on it"),
    ignored("client.rack", "indoubt fetches from partition leaders"),
    ignored("compression.codec", PRODUCER),
    ignored("compression.gzip.level", PRODUCER),
    ignored("compression.level", PRODUCER),
    ignored("compression.lz4.level", PRODUCER),
    ignored("compression.type", PRODUCER),
    ignored("compression.zstd.level", PRODUCER),
    used("config.providers", "names the config providers that ${NAME:path:key} references use (FileConfigProvider, EnvVarConfigProvider; config.providers.NAME.class, .param.*)"),
    ignored("connections.max.idle.ms", NETWORK),
    ignored("consume.callback.max.messages", CONSUMER),
    ignored("coordinator.query.interval.ms", CONSUMER),
    ignored("debug", "librdkafka's debug contexts: indoubt's -v says what it does"),
    ignored("default.api.timeout.ms", "the Java admin client's bound of a whole call: --timeout bounds the whole command"),
    ignored("delivery.report.only.error", PRODUCER),
    ignored("delivery.timeout.ms", PRODUCER),
    ignored("enable.auto.commit", CONSUMER),
    ignored("enable.auto.offset.store", CONSUMER),
    ignored("enable.gapless.guarantee", PRODUCER),
    ignored("enable.idempotence", PRODUCER),
    ignored("enable.metrics.push", CLIENT),
    ignored("enable.partition.eof", CONSUMER),
    ignored("enable.random.seed", CLIENT),
    used("enable.sasl.oauthbearer.unsecure.jwt", "librdkafka's switch for its unsecured JWT: false refuses sasl.oauthbearer.config as the token source"),
    used("enable.ssl.certificate.verification", "true (the default) or false: whether the broker's certificate chain is checked"),
    ignored("exclude.internal.topics", CONSUMER),
    ignored("fetch.error.backoff.ms", CONSUMER),
    ignored("fetch.max.bytes", CONSUMER),
    ignored("fetch.max.wait.ms", CONSUMER),
    ignored("fetch.message.max.bytes", CONSUMER),
    ignored("fetch.min.bytes", CONSUMER),
    ignored("fetch.queue.backoff.ms", CONSUMER),
    ignored("fetch.wait.max.ms", CONSUMER),
    ignored("group.id", CONSUMER),
    ignored("group.instance.id", CONSUMER),
    ignored("group.protocol", CONSUMER),
    ignored("group.protocol.type", CONSUMER),
    ignored("group.remote.assignor", CONSUMER),
    ignored("heartbeat.interval.ms", CONSUMER),
    used("https.ca.location", "PEM CA file that verifies the OAUTHBEARER token endpoint (https); default: the system store"),
    used("https.ca.pem", "inline PEM CA that verifies the OAUTHBEARER token endpoint"),
    ignored("interceptor.classes", JAVA),
    ignored("interceptors", CLIENT),
    ignored("internal.leave.group.on.close", CONSUMER),
    ignored("internal.termination.signal", CLIENT),
    ignored("internal.throw.on.fetch.stable.offset.unsupported", CONSUMER),
    ignored("isolation.level", "indoubt reads both isolation levels itself"),
    ignored("key.deserializer", CONSUMER),
    ignored("key.serializer", PRODUCER),
    ignored("key.subject.name.strategy", SERDE),
    ignored("linger.ms", PRODUCER),
    ignored("log.connection.close", CLIENT),
    ignored("log.queue", CLIENT),
    ignored("log.thread.name", CLIENT),
    ignored("log_level", CLIENT),
    ignored("max.block.ms", PRODUCER),
    ignored("max.in.flight", CLIENT),
    ignored("max.in.flight.requests.per.connection", CLIENT),
    ignored("max.partition.fetch.bytes", CONSUMER),
    ignored("max.poll.interval.ms", CONSUMER),
    ignored("max.poll.records", CONSUMER),
    ignored("max.request.size", PRODUCER),
    ignored("message.copy.max.bytes", CLIENT),
    ignored("message.max.bytes", CLIENT),
    ignored("message.send.max.retries", PRODUCER),
    ignored("message.timeout.ms", PRODUCER),
    ignored("metadata.broker.list", BOOTSTRAP),
    ignored("metadata.max.age.ms", CLIENT),
    ignored("metadata.max.idle.ms", CLIENT),
    ignored("metadata.recovery.rebootstrap.trigger.ms", CLIENT),
    ignored("metadata.recovery.strategy", CLIENT),
    ignored("metric.reporters", JAVA),
    ignored("metrics.num.samples", CLIENT),
    ignored("metrics.recording.level", CLIENT),
    ignored("metrics.sample.window.ms", CLIENT),
    ignored("offset.store.method", CONSUMER),
    ignored("offset.store.path", CONSUMER),
    ignored("offset.store.sync.interval.ms", CONSUMER),
    ignored("partition.assignment.strategy", CONSUMER),
    ignored("partitioner", PRODUCER),
    ignored("partitioner.adaptive.partitioning.enable", PRODUCER),
    ignored("partitioner.availability.timeout.ms", PRODUCER),
    ignored("partitioner.class", PRODUCER),
    ignored("partitioner.ignore.keys", PRODUCER),
    ignored("plugin.library.paths", CLIENT),
    ignored("produce.offset.report", PRODUCER),
    ignored("queue.buffering.backpressure.threshold", PRODUCER),
    ignored("queue.buffering.max.kbytes", PRODUCER),
    ignored("queue.buffering.max.messages", PRODUCER),
    ignored("queue.buffering.max.ms", PRODUCER),
    ignored("queued.max.messages.kbytes", CONSUMER),
    ignored("queued.min.messages", CONSUMER),
    ignored("queuing.strategy", PRODUCER),
    ignored("receive.buffer.bytes", NETWORK),
    ignored("receive.message.max.bytes", CLIENT),
    ignored("reconnect.backoff.jitter.ms", NETWORK),
    ignored("reconnect.backoff.max.ms", NETWORK),
    ignored("reconnect.backoff.ms", NETWORK),
    ignored("request.required.acks", PRODUCER),
    used("request.timeout.ms", "bounds each request, when shorter than --timeout"),
    ignored("retries", NETWORK),
    ignored("retry.backoff.max.ms", NETWORK),
    ignored("retry.backoff.ms", NETWORK),
    ignored("sasl.client.callback.handler.class", JAVA_LOGIN),
    used("sasl.jaas.config", "username= and password= of a PlainLoginModule or ScramLoginModule line (sasl.username and sasl.password win)").secret(),
    used("sasl.kerberos.keytab", "GSSAPI: the client's keytab (its tickets go to a private in-memory cache); without it, the ticket cache"),
    refused("sasl.kerberos.kinit.cmd", KINIT),
    ignored("sasl.kerberos.min.time.before.relogin", KERBEROS_RENEWAL),
    used("sasl.kerberos.principal", "GSSAPI: the client principal (required with a keytab)"),
    used("sasl.kerberos.service.name", "GSSAPI: the first part of the brokers' principal SERVICE/HOST (default kafka)"),
    ignored("sasl.kerberos.ticket.renew.jitter", KERBEROS_RENEWAL),
    ignored("sasl.kerberos.ticket.renew.window.factor", KERBEROS_RENEWAL),
    used("sasl.login.callback.handler.class", "Kafka's OAuthBearerLoginCallbackHandler: OIDC client credentials at sasl.oauthbearer.token.endpoint.url; another class is refused"),
    ignored("sasl.login.class", JAVA_LOGIN),
    ignored("sasl.login.connect.timeout.ms", JAVA_LOGIN),
    ignored("sasl.login.read.timeout.ms", JAVA_LOGIN),
    ignored("sasl.login.refresh.buffer.seconds", JAVA_LOGIN),
    ignored("sasl.login.refresh.min.period.seconds", JAVA_LOGIN),
    ignored("sasl.login.refresh.window.factor", JAVA_LOGIN),
    ignored("sasl.login.refresh.window.jitter", JAVA_LOGIN),
    ignored("sasl.login.retry.backoff.max.ms", JAVA_LOGIN),
    ignored("sasl.login.retry.backoff.ms", JAVA_LOGIN),
    used("sasl.mechanism", "PLAIN (the default), SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or GSSAPI; any other is refused"),
    used("sasl.mechanisms", "librdkafka's name for sasl.mechanism"),
    refused("sasl.oauthbearer.assertion.algorithm", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.claim.aud", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.claim.exp.seconds", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.claim.iss", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.claim.jti.include", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.claim.nbf.seconds", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.claim.sub", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.file", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.jwt.template.file", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.private.key.file", OAUTH_ASSERTION),
    refused("sasl.oauthbearer.assertion.private.key.passphrase", OAUTH_ASSERTION).secret(),
    refused("sasl.oauthbearer.assertion.private.key.pem", OAUTH_ASSERTION).secret(),
    refused("sasl.oauthbearer.assertion.template.file", OAUTH_ASSERTION),
    used("sasl.oauthbearer.client.credentials.client.id", "Java 4.1's name for sasl.oauthbearer.client.id"),
    used("sasl.oauthbearer.client.credentials.client.secret", "Java 4.1's name for sasl.oauthbearer.client.secret").secret(),
    used("sasl.oauthbearer.client.id", "OIDC client credentials: the client id (Java: clientId= in the JAAS line)"),
    used("sasl.oauthbearer.client.secret", "OIDC client credentials: the client secret (Java: clientSecret= in the JAAS line)").secret(),
    ignored("sasl.oauthbearer.clock.skew.seconds", OAUTH),
    used("sasl.oauthbearer.config", "the unsecured JWT: principal=NAME [scope=a,b] [lifeSeconds=N] [principalClaimName=] [scopeClaimName=] [extension_NAME=value]").secret(),
    ignored("sasl.oauthbearer.expected.audience", OAUTH),
    ignored("sasl.oauthbearer.expected.issuer", OAUTH),
    used("sasl.oauthbearer.extensions", "SASL extensions sent with the token: key=value,key=value").secret(),
    used("sasl.oauthbearer.grant.type", "client_credentials only (the default); others are refused"),
    used("sasl.oauthbearer.header.urlencode", "URL-encode the client id and secret in the Basic header (default false, as in Java)"),
    ignored("sasl.oauthbearer.jwks.endpoint.refresh.ms", OAUTH),
    ignored("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", OAUTH),
    ignored("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", OAUTH),
    ignored("sasl.oauthbearer.jwks.endpoint.url", OAUTH),
    refused("sasl.oauthbearer.jwt.retriever.class", "a Java class indoubt cannot run: a signer that hands out tokens can run as sasl.oauthbearer.token.command"),
    ignored("sasl.oauthbearer.jwt.validator.class", OAUTH),
    refused("sasl.oauthbearer.metadata.authentication.type", "cloud metadata logins (azure_imds) are not supported: run the provider's token command as sasl.oauthbearer.token.command"),
    used("sasl.oauthbearer.method", "default (the unsecured JWT of sasl.oauthbearer.config) or oidc (client credentials at the token endpoint)"),
    used("sasl.oauthbearer.scope", "the scope asked of the token endpoint (Java: scope= in the JAAS line)"),
    ignored("sasl.oauthbearer.scope.claim.name", OAUTH),
    ignored("sasl.oauthbearer.sub.claim.name", OAUTH),
    used("sasl.oauthbearer.token.command", "indoubt's own (neither client has one): a command (run with sh -c) printing a token or a token endpoint's JSON, for signers that hand out OAUTHBEARER tokens; its stderr is never shown; masked like a secret, as a command line may carry one").secret(),
    used("sasl.oauthbearer.token.endpoint.allow.http", "indoubt's own: true allows plain http to a token endpoint that is not loopback (the secret then crosses the network in clear)"),
    used("sasl.oauthbearer.token.endpoint.url", "the identity provider's token URL (https; http only to loopback), or file:///path of a token file read again as the token nears its end"),
    used("sasl.password", "the SASL password (over sasl.jaas.config's)").secret(),
    used("sasl.username", "the SASL user name (over sasl.jaas.config's)"),
    ignored("schema.registry.basic.auth.credentials.source", SERDE),
    ignored("schema.registry.basic.auth.user.info", SERDE).secret(),
    ignored("schema.registry.url", SERDE),
    used("security.protocol", "PLAINTEXT (the default), SSL, SASL_PLAINTEXT or SASL_SSL"),
    ignored("security.providers", JAVA),
    ignored("send.buffer.bytes", NETWORK),
    ignored("session.timeout.ms", CONSUMER),
    ignored("share.acknowledgement.mode", CONSUMER),
    ignored("socket.blocking.max.ms", NETWORK),
    ignored("socket.connection.setup.timeout.max.ms", "the ceiling of the Java client's growing setup bound between retries: indoubt does not retry a connection"),
    used("socket.connection.setup.timeout.ms", "bounds each connection's setup (TCP, TLS, ApiVersions, SASL), when shorter than --timeout"),
    ignored("socket.keepalive.enable", NETWORK),
    ignored("socket.max.fails", NETWORK),
    ignored("socket.nagle.disable", NETWORK),
    ignored("socket.receive.buffer.bytes", NETWORK),
    ignored("socket.send.buffer.bytes", NETWORK),
    used("socket.timeout.ms", "librdkafka's request bound: bounds each request, when shorter than --timeout (request.timeout.ms wins when both are set)"),
    ignored("specific.avro.reader", SERDE),
    refused("ssl.ca.certificate.stores", ENGINE),
    used("ssl.ca.location", "the PEM file of the CAs to trust (else the system store); a DER file or a Java store is named as such"),
    used("ssl.ca.pem", "the CAs to trust as inline PEM (instead of ssl.ca.location)"),
    used("ssl.certificate.location", "the client certificate (PEM, its chain after it), with ssl.key.location or ssl.key.pem"),
    used("ssl.certificate.pem", "the client certificate as inline PEM (instead of ssl.certificate.location)"),
    refused("ssl.cipher.suites", CIPHERS),
    refused("ssl.crl.location", "indoubt does not check certificate revocation lists yet: remove ssl.crl.location to connect without that check"),
    refused("ssl.curves.list", CIPHERS),
    used("ssl.enabled.protocols", "the TLS versions allowed: TLSv1.2 and TLSv1.3 (older ones listed are never spoken)"),
    used("ssl.endpoint.identification.algorithm", "https (the default: the broker's host name is checked), none or empty (it is not); any other value is refused"),
    refused("ssl.engine.factory.class", "a Java SSLEngine factory cannot run in indoubt: give PEM files (ssl.ca.location, ssl.certificate.location, ssl.key.location)"),
    refused("ssl.engine.id", ENGINE),
    refused("ssl.engine.location", ENGINE),
    used("ssl.key.location", "the client certificate's key: PEM PKCS#8, PKCS#1 (RSA) or SEC1 (EC); encrypted with ssl.key.password"),
    used("ssl.key.password", "the password of an encrypted client key (ssl.key.location, ssl.key.pem, a PEM keystore, ssl.keystore.key)").secret(),
    used("ssl.key.pem", "the client key as inline PEM (instead of ssl.key.location)").secret(),
    ignored("ssl.keymanager.algorithm", JAVA),
    used("ssl.keystore.certificate.chain", "Java's inline PEM client certificate chain (ssl.keystore.type=PEM)"),
    used("ssl.keystore.key", "Java's inline PEM client key (ssl.keystore.type=PEM), encrypted with ssl.key.password").secret(),
    used("ssl.keystore.location", "the client keystore: PKCS#12 (librdkafka; Java's PKCS12 and JKS types), or with ssl.keystore.type=PEM the key and its certificate in one file; a JKS file is refused with its keytool conversion"),
    used("ssl.keystore.password", "the password of the PKCS#12 ssl.keystore.location").secret(),
    used("ssl.keystore.type", "PKCS12, JKS (read as PKCS#12, as Java does) or PEM"),
    ignored("ssl.protocol", "Java's SSLContext protocol: ssl.enabled.protocols sets the versions (TLS 1.2 or newer)"),
    ignored("ssl.provider", JAVA),
    refused("ssl.providers", ENGINE),
    ignored("ssl.secure.random.implementation", JAVA),
    refused("ssl.sigalgs.list", CIPHERS),
    ignored("ssl.trustmanager.algorithm", JAVA),
    used("ssl.truststore.certificates", "Java's inline PEM CAs to trust (ssl.truststore.type=PEM)"),
    used("ssl.truststore.location", "the truststore: PKCS#12 (as keytool writes it, trusted certificates only), or with ssl.truststore.type=PEM a CA file; a JKS file is refused with its keytool conversion"),
    used("ssl.truststore.password", "the password of the PKCS#12 ssl.truststore.location").secret(),
    used("ssl.truststore.type", "PKCS12, JKS (read as PKCS#12, as Java does) or PEM (ssl.truststore.location is then a CA file)"),
    ignored("statistics.interval.ms", CLIENT),
    ignored("sticky.partitioning.linger.ms", PRODUCER),
    ignored("topic.blacklist", CLIENT),
    ignored("topic.metadata.propagation.max.ms", CLIENT),
    ignored("topic.metadata.refresh.fast.cnt", CLIENT),
    ignored("topic.metadata.refresh.fast.interval.ms", CLIENT),
    ignored("topic.metadata.refresh.interval.ms", CLIENT),
    ignored("topic.metadata.refresh.sparse", CLIENT),
    ignored("transaction.timeout.ms", PRODUCER),
    ignored("transaction.two.phase.commit.enable", PRODUCER),
    ignored("transactional.id", PRODUCER),
    ignored("use.latest.version", SERDE),
    ignored("value.deserializer", CONSUMER),
    ignored("value.serializer", PRODUCER),
    ignored("value.subject.name.strategy", SERDE),
];

/// Where a config provider is set up: `config.providers.NAME.class` and `.param.KEY`.
const PROVIDER_CLASS: Property = used(
    "config.providers.NAME.class",
    "the class of a config provider config.providers lists",
);
/// A provider's parameters may be credentials (a vault token): never shown.
const PROVIDER_PARAM: Property = used(
    "config.providers.NAME.param.KEY",
    "a parameter of a config provider (allowed.paths, allowlist.pattern)",
)
.secret();

/// The row of a property name (names are case-sensitive, as in both clients).
pub fn lookup(name: &str) -> Option<Property> {
    if let Some(rest) = name.strip_prefix("config.providers.") {
        return match rest.split_once('.') {
            Some((provider, "class")) if !provider.is_empty() => Some(PROVIDER_CLASS),
            Some((provider, param)) if !provider.is_empty() && param.starts_with("param.") => {
                Some(PROVIDER_PARAM)
            }
            _ => None,
        };
    }
    TABLE
        .binary_search_by(|p| p.name.cmp(name))
        .ok()
        .map(|i| TABLE[i])
}

/// Whether a property's value must never be shown. A name in no row counts as one: its
/// value may be anything.
pub fn is_secret(name: &str) -> bool {
    lookup(name).is_none_or(|p| p.secret)
}

/// Whether `key = value` writes a secret out: a secret property whose value is not a
/// `${provider:…}` reference (a JAAS line only when it holds a password).
pub fn holds_inline_secret(key: &str, value: &str) -> bool {
    lookup(key).is_some_and(|p| p.secret)
        && !super::syntax::is_reference(value)
        && (key != "sasl.jaas.config" || super::jaas::redact(value) != value)
}

/// Refuses a name in no row (with the nearest known name) and a refused property given a
/// value; returns the row otherwise.
pub fn check(name: &str, value: &str) -> Result<Property> {
    let Some(property) = lookup(name) else {
        let shown = if looks_like_a_name(name) {
            format!("{name:?}")
        } else {
            // A word that is no property name may be a password that lost its key.
            "(not shown: it is no property name and may be part of a secret)".to_string()
        };
        let hint = match nearest(name) {
            Some(near) => format!("did you mean {near}?"),
            None => "indoubt takes librdkafka's and the Java client's property names and refuses any other, so a typo cannot go unnoticed".to_string(),
        };
        return Err(hinted(
            format!("unknown Kafka client property {shown}"),
            hint,
        ));
    };
    if property.role == Role::Refused && !value.trim().is_empty() {
        return Err(hinted(
            format!("{name} is not supported yet"),
            property.what,
        ));
    }
    Ok(property)
}

/// Every property of a map checked; the ignored ones returned, for `-v`.
pub fn check_all(properties: &BTreeMap<String, String>) -> Result<Vec<(String, Property)>> {
    let mut ignored = Vec::new();
    for (name, value) in properties {
        let property = check(name, value)?;
        if property.role == Role::Ignored {
            ignored.push((name.clone(), property));
        }
    }
    Ok(ignored)
}

fn looks_like_a_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 80
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The known name nearest to a misspelt one, if it is near enough to be what was meant.
fn nearest(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let (distance, best) = TABLE
        .iter()
        .map(|p| (edit_distance(&lower, p.name), p.name))
        .min_by_key(|(d, _)| *d)?;
    let allowed = (name.chars().count() / 5).max(2);
    (distance <= allowed).then_some(best)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbours (`mechansim`) each count one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::hint_of;

    /// indoubt-kafka(1)'s table of client properties is the user's reference: every
    /// property indoubt reads is in it, and every name it gives is one indoubt knows.
    #[test]
    fn the_manual_table_names_every_property_indoubt_reads() {
        let page = include_str!("../../../doc/man/indoubt-kafka.1.md");
        let table = page
            .split("## Kafka client properties")
            .nth(1)
            .and_then(|rest| rest.split("\nProperties are strict").next())
            .expect("indoubt-kafka(1) has the Kafka client properties table");
        for property in TABLE.iter().filter(|p| matches!(p.role, Role::Used)) {
            assert!(
                table.contains(&format!("`{}`", property.name))
                    || table.contains(&format!("`{}=", property.name))
                    || table.contains(&format!("`{} ", property.name)),
                "indoubt-kafka(1)'s Kafka client properties table lacks {}",
                property.name
            );
        }
        for quoted in table.split('`').skip(1).step_by(2) {
            let name = quoted.split(['=', ' ']).next().unwrap_or_default();
            let looks_like_a_property = name.contains('.')
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '.' || c.is_ascii_digit())
                && !name.ends_with('.');
            if looks_like_a_property {
                assert!(
                    TABLE.iter().any(|p| p.name == name),
                    "indoubt-kafka(1)'s Kafka client properties table names {name}, which indoubt does not know"
                );
            }
        }
    }

    #[test]
    fn the_table_is_sorted_and_names_are_unique() {
        for pair in TABLE.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} before {}",
                pair[0].name,
                pair[1].name
            );
        }
        for p in TABLE {
            assert!(looks_like_a_name(p.name), "{}", p.name);
            assert!(!p.what.is_empty(), "{}", p.name);
        }
    }

    #[test]
    fn misspelt_names_are_refused_with_the_nearest() {
        for (typo, meant) in [
            ("securty.protocol", "security.protocol"),
            ("sasl.mechansim", "sasl.mechanism"),
            ("ssl.ca.locaton", "ssl.ca.location"),
            ("Security.Protocol", "security.protocol"),
            ("sasl.pasword", "sasl.password"),
            (
                "ssl.endpoint.identification.algoritm",
                "ssl.endpoint.identification.algorithm",
            ),
        ] {
            let err = check(typo, "x").unwrap_err();
            assert!(err.to_string().contains(typo), "{err}");
            assert_eq!(
                hint_of(&err),
                Some(format!("did you mean {meant}?").as_str()),
                "{typo}"
            );
        }
        let err = check("completely.different.thing", "x").unwrap_err();
        assert!(!hint_of(&err).unwrap_or("").contains("did you mean"));
    }

    #[test]
    fn a_name_that_may_be_a_secret_is_not_echoed() {
        let err = check("username=\"u\" password=\"hunter2\";", "").unwrap_err();
        assert!(!format!("{err:#}").contains("hunter2"), "{err:#}");
    }

    #[test]
    fn producer_and_consumer_settings_are_known_and_ignored() {
        for name in [
            "key.serializer",
            "acks",
            "group.id",
            "enable.auto.commit",
            "linger.ms",
            "queue.buffering.max.ms",
        ] {
            assert_eq!(check(name, "x").unwrap().role, Role::Ignored, "{name}");
        }
    }

    #[test]
    fn refused_properties_are_refused_only_with_a_value() {
        let err = check("ssl.crl.location", "/etc/kafka/crl.pem").unwrap_err();
        let hint = hint_of(&err).unwrap();
        assert!(hint.contains("revocation"), "{hint}");
        assert!(check("ssl.crl.location", "").is_ok());
    }

    #[test]
    fn provider_settings_are_known_and_their_parameters_secret() {
        assert_eq!(
            lookup("config.providers.file.class").map(|p| p.role),
            Some(Role::Used)
        );
        assert!(is_secret("config.providers.vault.param.token"));
        assert!(lookup("config.providers.file").is_none());
        assert!(!is_secret("config.providers"));
    }

    #[test]
    fn secrets_and_unknown_names_are_secret() {
        for name in [
            "sasl.password",
            "sasl.jaas.config",
            "ssl.key.password",
            "ssl.keystore.password",
            "ssl.truststore.password",
            "sasl.oauthbearer.client.secret",
            "no.such.property",
        ] {
            assert!(is_secret(name), "{name}");
        }
        assert!(!is_secret("sasl.username") && !is_secret("security.protocol"));
    }
}
