//! What main prints under an error: the first hint in its chain, from the application's
//! [`Hinted`] or from a typed failure of a library, which names no flag and gives no
//! advice (what to do is the application's to say, as jj's command_error.rs says it).

use crate::error::Hinted;
use crate::mysql::params::OptionFileRefused;
use crate::peer::{Expected, Peer, WrongServer};
use crate::pg::conninfo::{Endpoint, Origin, PasswordFrom, UnnamedDb};
use crate::pg::session::{ConnectError, Failure, Refused};
use crate::pg::wire::ServerError;

mod kerberos;
mod reconcile;

/// What main prints under an error: the first hint in its chain, from a [`Hinted`] or
/// from a typed failure of a library (which names no flag and gives no advice: what to
/// do is the application's to say, often from what the library found: a refused
/// connection, a password, a server of another kind on the port).
pub fn hint_for(err: &anyhow::Error) -> Option<String> {
    err.chain().find_map(|e| {
        if let Some(hinted) = e.downcast_ref::<Hinted>() {
            return Some(hinted.hint.clone());
        }
        if let Some(failure) = e.downcast_ref::<ConnectError>() {
            return Some(postgres_connect_hint(failure));
        }
        if let Some(server) = e.downcast_ref::<ServerError>() {
            return Some(server.hint.clone());
        }
        if let Some(refused) = e.downcast_ref::<Refused>() {
            return Some(postgres_refused_hint(refused));
        }
        if let Some(refused) = e.downcast_ref::<OptionFileRefused>() {
            return Some(option_file_hint(refused));
        }
        if let Some(hint) = reconcile::hint(e) {
            return Some(hint);
        }
        if let Some(hint) = kafka_hint(e) {
            return Some(hint);
        }
        if let Some(refused) = e.downcast_ref::<crate::kafka::conn::Refused>() {
            if let Some(broker) = crate::kafka::cluster::AdvertisedBroker::of(err) {
                return Some(advertised_refused_hint(broker));
            }
            return Some(format!(
                "is the broker running on {}? Nothing accepted a connection there: check the host and port of -b (or of the config's bootstrap servers)",
                refused.address
            ));
        }
        if let Some(hint) = e.downcast_ref::<crate::tls::TlsError>().and_then(tls_hint) {
            return Some(hint);
        }
        if let Some(hint) = refusal_in(e).and_then(refusal_hint) {
            return Some(hint);
        }
        if let Some(refusal) = e.downcast_ref::<crate::kafka::oauthbearer::Refusal>() {
            return Some(refusal.what_to_check().to_string());
        }
        if let Some(refusal) = e.downcast_ref::<crate::kafka::token::EndpointRefusal>() {
            return Some(refusal.what_to_check().to_string());
        }
        e.downcast_ref::<WrongServer>().map(wrong_server_hint)
    })
}

/// A broker the cluster's metadata named refused the connection: the bootstrap server
/// answered, so `-b` is right; the address is the broker's own word for itself.
fn advertised_refused_hint(broker: &crate::kafka::cluster::AdvertisedBroker) -> String {
    format!(
        "the cluster's metadata says broker {} is at {}, and nothing accepted a connection there: is that broker running, and does its advertised.listeners name an address this machine can reach (for the listener -b connects to)?",
        broker.id, broker.address
    )
}

/// What to run or set for TLS material indoubt could not use.
fn tls_hint(e: &crate::tls::TlsError) -> Option<String> {
    use crate::tls::TlsError as E;
    let conversion = e.conversion();
    match e {
        E::JavaKeystore { .. } => conversion.map(|c| format!(
            "convert it to PKCS#12: {c}; then give the .p12 file (Kafka: ssl.keystore.location or ssl.truststore.location, with its password)"
        )),
        E::NotPem { .. } => conversion.map(|c| format!("convert it to PEM: {c}")),
        E::KeyNeedsPassword { property, .. } => Some(format!(
            "give its password with {property} (keep it out of the command line: a properties file, or ${{env:NAME}} / ${{file:PATH:KEY}}), or decrypt it into a file only you can read: (umask 077; openssl pkey -in encrypted-key.pem -out client-key.pem)"
        )),
        E::KeyPassword { property, .. } | E::StorePassword { property, .. } => {
            Some(format!("check {property}: the password the key or store was written with"))
        }
        E::KeyMismatch { .. } => Some("give the key the certificate was issued for (openssl x509 -noout -pubkey -in CERT and openssl pkey -pubout -in KEY print the same key when they belong together)".to_string()),
        _ => None,
    }
}

/// What to do about a server or settings refused before a session is used.
fn postgres_refused_hint(refused: &Refused) -> String {
    match refused {
        Refused::NoRootCertificate(_) => "set sslrootcert=/path/to/ca.pem (or sslrootcert=system), or put it in ~/.postgresql/root.crt".to_string(),
        Refused::Version(_) => "indoubt needs PostgreSQL 13 or newer".to_string(),
    }
}

/// What to do about a MySQL option file that is not read.
fn option_file_hint(refused: &OptionFileRefused) -> String {
    match refused {
        OptionFileRefused::NotAFile(_) => {
            "give the file whose [client] group holds password= (or /dev/null for none)".to_string()
        }
    }
}

/// A refused TLS handshake, also as an io::Error's inner error (a Kafka `Stream`'s read).
fn refusal_in<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e crate::tls::Refusal> {
    e.downcast_ref::<crate::tls::Refusal>().or_else(|| {
        e.downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<crate::tls::Refusal>())
    })
}

/// What to do about a server certificate signed by a CA that is not trusted: give the
/// right CA file; what connects without that check is named for what it is, an
/// encryption that proves nothing of who answers.
fn refusal_hint(r: &crate::tls::Refusal) -> Option<String> {
    match &r.diagnosis {
        crate::tls::Diagnosis::UnknownIssuer { issuer, .. } => Some(format!(
            "point {} at the file of the CA that issued the server's certificate ({issuer}); {} would connect without this check, but it only encrypts: it would not prove that the server is the one you mean",
            r.names.trust, r.names.encrypt_only
        )),
        _ => None,
    }
}

/// The ways to name a PostgreSQL server, for a hint.
const NAME_THE_SERVER: &str = "--pg postgres://USER@HOST:PORT/DB (or a config target name), -h HOST -p PORT -U USER -d DB as in psql, the PG* variables, or a postgres target in the config file";

fn postgres_connect_hint(e: &ConnectError) -> String {
    let places = e.places();
    let from_env = if e.from_environment.is_empty() {
        String::new()
    } else {
        format!(" (set by {})", e.from_environment.join(", "))
    };
    let local = e.endpoints.iter().all(|p| matches!(p, Endpoint::Socket(_)));
    match &e.failure {
        Failure::Refused | Failure::NoSocket if matches!(e.origin, Origin::Defaults(_)) => format!(
            "is PostgreSQL running on this machine, with its socket at {places}? If the server is elsewhere, name it: {NAME_THE_SERVER}"
        ),
        Failure::NoSocket => format!(
            "is the server running on this machine, with its socket at {places}? A socket directory is a host starting with /{from_env}"
        ),
        Failure::Refused if local => format!(
            "is the server running on this machine and accepting connections on {places}?"
        ),
        Failure::Refused => format!(
            "is the server running on {places}? Nothing accepted a connection there: check the host and port{from_env}"
        ),
        Failure::TimedOut {
            after,
            connect_timeout: true,
            ..
        } => format!(
            "connect_timeout={} in the connection settings bounds each host's TCP connect: check the host, port and firewall{from_env}",
            after.as_secs()
        ),
        Failure::TimedOut { after, .. } => format!(
            "nothing answered within --timeout {}: check the host, port and firewall{from_env}; a busy server may need a longer --timeout",
            crate::units::format_duration(*after)
        ),
        Failure::PasswordRefused => match &e.password_from {
            Some(PasswordFrom::Environment) => "the password sent is PGPASSWORD's (it comes before the password file): correct or unset PGPASSWORD".to_string(),
            Some(PasswordFrom::Service(service)) => format!(
                "the password sent is the one {} gives (a service's settings come before PGPASSWORD and the password file): correct it there, or take it out and keep it in ~/.pgpass or PGPASSWORD",
                service.describe()
            ),
            Some(PasswordFrom::File(path)) => format!(
                "the password sent is the one {} gives for this server, database and user (a line host:port:database:user:password): correct that line",
                path.display()
            ),
            Some(PasswordFrom::ConnectionString) => match &e.origin {
                Origin::Given(origin) => format!(
                    "the password sent is the one in {origin}: correct it there, or take it out and keep it in ~/.pgpass or PGPASSWORD"
                ),
                _ => "the password sent is the one in the connection string: correct it there, or take it out and keep it in ~/.pgpass or PGPASSWORD".to_string(),
            },
            None => format!("check the password of {} on the server", e.user),
        },
        Failure::NoPassword => {
            let searched = match &e.passfile {
                Some(path) => format!(
                    "the password file {} has no line for this server, database {} and user {} (or cannot be used)",
                    path.display(),
                    e.dbname,
                    e.user
                ),
                None => "there is no password file to search (no HOME, no PGPASSFILE)".to_string(),
            };
            format!(
                "none was in the connection string or PGPASSWORD, and {searched}; add a line host:port:database:user:password to ~/.pgpass (chmod 0600) or the file PGPASSFILE names, or set PGPASSWORD; keep it off the command line"
            )
        }
        Failure::NoDatabase => {
            let (why, name) = match e.dbname_default {
                Some(UnnamedDb::UserName) => (
                    format!(
                        "no database was named, so libpq's default, the user name {}, was used; ",
                        e.user
                    ),
                    "name one",
                ),
                Some(UnnamedDb::Postgres) => (
                    "no database was named, so postgres was used, and this server has none; "
                        .to_string(),
                    "name one",
                ),
                None if e.from_environment.contains(&"PGDATABASE") => (
                    "PGDATABASE named it; check the name (psql -l lists the databases), or "
                        .to_string(),
                    "name another",
                ),
                None => (
                    "check the name (psql -l lists the databases), or ".to_string(),
                    "name another",
                ),
            };
            format!(
                "{why}{name} with -d/--dbname (dbname= in a connection string or a config target's conninfo), or PGDATABASE; cluster-wide commands (pg prepared, pg slots, pg horizon, resolve pg, check) use postgres when none is named"
            )
        }
    }
}

/// The hint of a typed failure of the Kafka client, in the client properties' names (the
/// client itself knows none).
fn kafka_hint(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use crate::kafka::conn::{AuthenticationFailed, NoAnswer, Waiting};
    if let Some(no_answer) = e.downcast_ref::<NoAnswer>() {
        return Some(match no_answer.waiting {
            Waiting::Connect => "check the address and listener (PLAINTEXT vs SSL/SASL: -X security.protocol=…); a busy broker may need a longer --timeout (or socket.connection.setup.timeout.ms, when set, bounds each connection's setup)".to_string(),
            Waiting::Request(_) => "a busy broker may need a longer --timeout (or request.timeout.ms / socket.timeout.ms, when set, bounds each request)".to_string(),
        });
    }
    if let Some(kerberos) = e.downcast_ref::<crate::kafka::gssapi::KerberosError>() {
        return kerberos::hint(kerberos);
    }
    if let Some(failed) = e.downcast_ref::<AuthenticationFailed>() {
        if failed.mechanism == crate::kafka::security::Mechanism::OAuthBearer {
            return Some("check the OAUTHBEARER token source (sasl.oauthbearer.*) and that the broker's listener accepts OAUTHBEARER".to_string());
        }
        if failed.mechanism == crate::kafka::security::Mechanism::Gssapi {
            return Some("the broker refused the Kerberos principal after authenticating it: check its principal mapping (sasl.kerberos.principal.to.local.rules) and its log".to_string());
        }
        return Some(format!(
            "check sasl.username and sasl.password (or sasl.jaas.config), and that the broker has this user for sasl.mechanism {}",
            failed.mechanism.name()
        ));
    }
    None
}

fn wrong_server_hint(w: &WrongServer) -> String {
    match (w.expected, &w.found) {
        (Expected::Postgres, Peer::Kafka) => "that is a Kafka port: the kafka commands take it with -b HOST:PORT; --pg (or -h/-p) needs the PostgreSQL server's host and port (5432 by default)".to_string(),
        (Expected::Postgres, Peer::Tls) => "a TLS server listens there (a TLS proxy?): indoubt speaks PostgreSQL's own negotiation (SSLRequest), as libpq does by default; name the PostgreSQL server's port".to_string(),
        (Expected::Postgres, Peer::Http) => "a web server listens there (an HTTP API, a UI, an exporter?): name the PostgreSQL server's port (5432 by default)".to_string(),
        (Expected::Postgres, _) => "check the port: --pg (or -h/-p) needs the PostgreSQL server's host and port (5432 by default)".to_string(),
        (Expected::Kafka | Expected::KafkaTls, Peer::Postgres) => "that is a PostgreSQL port: the pg commands take it with --pg or -h/-p; -b needs a Kafka broker's listener (9092 by default)".to_string(),
        (Expected::Kafka, Peer::Tls) => "the listener speaks TLS: if it is a broker's SSL or SASL_SSL listener, add -X security.protocol=SSL (or SASL_SSL with the SASL settings); otherwise check the port".to_string(),
        (Expected::Kafka | Expected::KafkaTls, Peer::Http) => "a web server listens there (a REST proxy, a schema registry, a UI?): -b needs a Kafka broker's listener (9092 by default)".to_string(),
        (Expected::KafkaTls, Peer::Kafka) => "the listener is plaintext: drop security.protocol=SSL/SASL_SSL for it (PLAINTEXT or SASL_PLAINTEXT), or give the broker's TLS listener".to_string(),
        (Expected::Kafka | Expected::KafkaTls, _) => "check the port: -b needs a Kafka broker's listener, and -X security.protocol must match it (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)".to_string(),
    }
}
