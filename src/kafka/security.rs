//! How a connection to a Kafka broker is secured, as the client takes it: TLS and its
//! files, the SASL mechanism and its credentials. The application parses client
//! properties into it (src/settings/kafka_client); this layer reads no property names.

pub use crate::tls::{ClientIdentity, Material, Password, Trust};
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    Plain,
    ScramSha256,
    ScramSha512,
    /// RFC 7628 / KIP-255: a bearer token from `Sasl::oauthbearer`'s source.
    OAuthBearer,
    Gssapi,
}

impl Mechanism {
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
            Mechanism::OAuthBearer => "OAUTHBEARER",
            Mechanism::Gssapi => "GSSAPI",
        }
    }
}

#[derive(Clone)]
pub struct Sasl {
    pub mechanism: Mechanism,
    pub username: String,
    pub password: String,
    /// OAUTHBEARER's token source and cache, shared by every connection (username and
    /// password are then empty).
    pub oauthbearer: Option<std::sync::Arc<super::token::OAuthBearer>>,
    /// GSSAPI's service name and credentials (None for the password mechanisms).
    pub kerberos: Option<Kerberos>,
}

impl fmt::Debug for Sasl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.oauthbearer {
            Some(bearer) => write!(f, "Sasl({}, {bearer:?})", self.mechanism.name()),
            None => write!(
                f,
                "Sasl({}, {}, <redacted>)",
                self.mechanism.name(),
                self.username
            ),
        }
    }
}

/// How indoubt authenticates with Kerberos: the broker's service name and whose tickets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kerberos {
    /// The first part of the broker's principal (`sasl.kerberos.service.name`, `kafka`).
    pub service_name: String,
    pub credentials: Credentials,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// Tickets got from a keytab into a private in-memory cache: the user's own ticket
    /// cache is neither read nor written.
    Keytab { keytab: PathBuf, principal: String },
    /// Tickets the user got with kinit: `cache` (Java's ticketCache) or KRB5CCNAME or
    /// the library's default cache; `principal` when a particular one is asked for.
    TicketCache {
        cache: Option<String>,
        principal: Option<String>,
    },
}

impl Credentials {
    /// Whose tickets, for a message: `alice@REALM from keytab /k`, `the default ticket cache`.
    pub fn describe(&self) -> String {
        match self {
            Credentials::Keytab { keytab, principal } => {
                format!("{principal} from keytab {}", keytab.display())
            }
            Credentials::TicketCache { cache, principal } => {
                let cache = match cache {
                    Some(cache) => format!("the ticket cache {cache}"),
                    None => match std::env::var("KRB5CCNAME") {
                        Ok(name) if !name.is_empty() => {
                            format!("the ticket cache KRB5CCNAME={name}")
                        }
                        _ => "the default ticket cache".to_string(),
                    },
                };
                match principal {
                    Some(principal) => format!("{principal} from {cache}"),
                    None => cache,
                }
            }
        }
    }
}

/// The TLS versions indoubt speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    V1_2,
    V1_3,
}

#[derive(Debug, Clone)]
pub struct Tls {
    /// The CAs to trust: a PEM file or inline PEM, a PKCS#12 truststore, or the system's.
    pub trust: Trust,
    pub verify_certificate: bool,
    pub verify_hostname: bool,
    /// The client certificate and key (PEM files, inline PEM, a PKCS#12 keystore).
    pub identity: Option<ClientIdentity>,
    /// From ssl.enabled.protocols; None: the TLS library's range (TLS 1.2 or newer).
    pub min_version: Option<TlsVersion>,
    pub max_version: Option<TlsVersion>,
}

#[derive(Debug, Clone, Default)]
pub struct Security {
    pub tls: Option<Tls>,
    pub sasl: Option<Sasl>,
}

impl Security {
    pub fn protocol(&self) -> &'static str {
        match (&self.tls, &self.sasl) {
            (None, None) => "PLAINTEXT",
            (Some(_), None) => "SSL",
            (None, Some(_)) => "SASL_PLAINTEXT",
            (Some(_), Some(_)) => "SASL_SSL",
        }
    }
}
