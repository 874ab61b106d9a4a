//! What went wrong with TLS, as facts: material that could not be read (typed, with the
//! file and the property), and a refused handshake told apart by cause — an alert the
//! server sent (certificate required, unknown CA, …) or a certificate the client could not
//! verify (expired, another host's name, an issuer it does not trust).

use super::{Loaded, Trust};
use openssl::asn1::Asn1Time;
use openssl::error::ErrorStack;
use openssl::x509::{X509NameRef, X509};
use std::fmt;
use std::path::PathBuf;

/// What a file is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pem,
    DerCertificate,
    DerKey,
    Pkcs12,
    Jks,
    Jceks,
    Empty,
    Unknown,
}

impl Format {
    pub fn describe(self) -> &'static str {
        match self {
            Format::Pem => "PEM",
            Format::DerCertificate => "a DER (binary) certificate",
            Format::DerKey => "a DER (binary) private key",
            Format::Pkcs12 => "a PKCS#12 store",
            Format::Jks => "a JKS keystore",
            Format::Jceks => "a JCEKS keystore",
            Format::Empty => "empty",
            Format::Unknown => "neither PEM, DER, PKCS#12 nor JKS",
        }
    }
}

/// TLS material that could not be read or used; every variant names the property.
#[derive(Debug)]
pub enum TlsError {
    Read {
        origin: String,
        source: std::io::Error,
    },
    /// PEM was expected (a CA file, a certificate) and the file is something else.
    NotPem {
        origin: String,
        path: Option<PathBuf>,
        found: Format,
    },
    BadPem {
        origin: String,
        what: &'static str,
        detail: String,
    },
    NoCertificate {
        origin: String,
    },
    /// A Java keystore (JKS, JCEKS): refused by its magic bytes.
    JavaKeystore {
        origin: String,
        path: Option<PathBuf>,
        found: Format,
    },
    NotPkcs12 {
        origin: String,
        found: Format,
    },
    BadStore {
        origin: String,
        detail: String,
    },
    /// The store's integrity check failed: a wrong (or missing) password.
    StorePassword {
        origin: String,
        property: String,
        given: bool,
    },
    StoreWithoutKey {
        origin: String,
    },
    KeyMismatch {
        certificate: String,
        key: String,
    },
    NoKey {
        origin: String,
        found: Format,
    },
    KeyNeedsPassword {
        origin: String,
        property: String,
    },
    KeyPassword {
        origin: String,
        property: String,
    },
    Crypto(ErrorStack),
    Setup(native_tls::Error),
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::Read { origin, source } => write!(f, "reading {origin}: {source}"),
            TlsError::NotPem { origin, found, .. } => {
                write!(f, "{origin} is {}, not a PEM file", found.describe())
            }
            TlsError::BadPem {
                origin,
                what,
                detail,
            } => write!(f, "{origin}: its PEM {what} does not parse: {detail}"),
            TlsError::NoCertificate { origin } => {
                write!(f, "{origin} holds no certificate (BEGIN CERTIFICATE)")
            }
            TlsError::JavaKeystore { origin, found, .. } => write!(
                f,
                "{origin} is {}, which indoubt does not read (librdkafka does not either)",
                found.describe()
            ),
            TlsError::NotPkcs12 { origin, found } => {
                write!(f, "{origin} is {}, not a PKCS#12 store", found.describe())
            }
            TlsError::BadStore { origin, detail } => {
                write!(f, "{origin}: the PKCS#12 store does not open: {detail}")
            }
            TlsError::StorePassword {
                origin,
                property,
                given: true,
            } => write!(
                f,
                "{origin}: {property} does not open the store (wrong password)"
            ),
            TlsError::StorePassword {
                origin, property, ..
            } => write!(
                f,
                "{origin} is protected by a password and {property} is not set"
            ),
            TlsError::StoreWithoutKey { origin } => write!(
                f,
                "{origin} holds no private key (a truststore given as a keystore?)"
            ),
            TlsError::KeyMismatch { certificate, key } => write!(
                f,
                "the key of {key} does not belong to the certificate of {certificate}"
            ),
            TlsError::NoKey { origin, found } => match found {
                Format::Pem | Format::Empty | Format::Unknown => {
                    write!(f, "{origin} holds no PEM private key (BEGIN … PRIVATE KEY)")
                }
                other => write!(f, "{origin} is {}, not a PEM private key", other.describe()),
            },
            TlsError::KeyNeedsPassword { origin, property } => {
                write!(
                    f,
                    "{origin} holds an encrypted key and {property} is not set"
                )
            }
            TlsError::KeyPassword { origin, property } => write!(
                f,
                "{origin}: {property} does not decrypt the key (wrong password?)"
            ),
            TlsError::Crypto(e) => write!(f, "TLS material: {e}"),
            TlsError::Setup(e) => write!(f, "setting up TLS: {e}"),
        }
    }
}

impl std::error::Error for TlsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TlsError::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl TlsError {
    /// The command that turns the file into one indoubt reads, when there is one.
    pub fn conversion(&self) -> Option<String> {
        match self {
            TlsError::JavaKeystore {
                path: Some(path),
                found,
                ..
            } => {
                let p12 = path.with_extension("p12");
                let kind = if *found == Format::Jceks {
                    " -srcstoretype JCEKS"
                } else {
                    ""
                };
                Some(format!(
                    "keytool -importkeystore -srckeystore {}{kind} -destkeystore {} -deststoretype PKCS12",
                    path.display(),
                    p12.display()
                ))
            }
            TlsError::NotPem {
                path: Some(path),
                found: Format::DerCertificate,
                ..
            } => Some(format!(
                "openssl x509 -inform DER -in {} -out {}",
                path.display(),
                path.with_extension("pem").display()
            )),
            _ => None,
        }
    }

    /// The error somewhere in `e`'s chain of causes.
    pub fn of(e: &anyhow::Error) -> Option<&TlsError> {
        e.chain().find_map(|c| c.downcast_ref::<TlsError>())
    }
}

/// A TLS alert (RFC 8446 §6), by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alert(pub u8);

impl Alert {
    pub const HANDSHAKE_FAILURE: Alert = Alert(40);
    pub const BAD_CERTIFICATE: Alert = Alert(42);
    pub const CERTIFICATE_EXPIRED: Alert = Alert(45);
    pub const CERTIFICATE_UNKNOWN: Alert = Alert(46);
    pub const UNKNOWN_CA: Alert = Alert(48);
    pub const CERTIFICATE_REQUIRED: Alert = Alert(116);

    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "close_notify",
            10 => "unexpected_message",
            20 => "bad_record_mac",
            22 => "record_overflow",
            40 => "handshake_failure",
            42 => "bad_certificate",
            43 => "unsupported_certificate",
            44 => "certificate_revoked",
            45 => "certificate_expired",
            46 => "certificate_unknown",
            47 => "illegal_parameter",
            48 => "unknown_ca",
            49 => "access_denied",
            50 => "decode_error",
            51 => "decrypt_error",
            70 => "protocol_version",
            71 => "insufficient_security",
            80 => "internal_error",
            86 => "inappropriate_fallback",
            90 => "user_canceled",
            109 => "missing_extension",
            110 => "unsupported_extension",
            112 => "unrecognized_name",
            113 => "bad_certificate_status_response",
            115 => "unknown_psk_identity",
            116 => "certificate_required",
            120 => "no_application_protocol",
            _ => "unknown",
        }
    }

    /// Whether the alert is about the client's certificate (or its absence).
    fn about_certificates(self) -> bool {
        matches!(self.0, 40 | 42..=46 | 48 | 49 | 116)
    }

    /// An alert the peer sent, somewhere in an error's chain: OpenSSL reports a received
    /// alert as reason 1000 + its number (SSL_AD_REASON_OFFSET), during the handshake (a
    /// native-tls error) or, in TLS 1.3, on the first read after it (an io::Error).
    pub fn received(err: &(dyn std::error::Error + 'static)) -> Option<Alert> {
        let mut cause = Some(err);
        while let Some(e) = cause {
            if let Some(stack) = e.downcast_ref::<ErrorStack>() {
                if let Some(alert) = alert_in(stack) {
                    return Some(alert);
                }
            }
            if let Some(ssl) = e.downcast_ref::<openssl::ssl::Error>() {
                if let Some(alert) = ssl.ssl_error().and_then(alert_in) {
                    return Some(alert);
                }
            }
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if let Some(inner) = io.get_ref() {
                    if let Some(alert) = Alert::received(inner) {
                        return Some(alert);
                    }
                }
            }
            cause = e.source();
        }
        None
    }
}

impl fmt::Display for Alert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.0)
    }
}

/// OpenSSL's library code of its SSL routines (ERR_LIB_SSL).
const LIB_SSL: i32 = 20;
/// SSL_R_CERTIFICATE_VERIFY_FAILED: the client refused the server's certificate.
const CERTIFICATE_VERIFY_FAILED: i32 = 134;

fn alert_in(stack: &ErrorStack) -> Option<Alert> {
    stack.errors().iter().find_map(|e| {
        let reason = e.reason_code();
        (e.library_code() == LIB_SSL && (1000..1256).contains(&reason))
            .then(|| Alert((reason - 1000) as u8))
    })
}

/// Whether the handshake failed because the client could not verify the server's
/// certificate.
pub fn verification_failed(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(err);
    while let Some(e) = cause {
        if let Some(stack) = e.downcast_ref::<ErrorStack>() {
            if stack.errors().iter().any(|e| {
                e.library_code() == LIB_SSL && e.reason_code() == CERTIFICATE_VERIFY_FAILED
            }) {
                return true;
            }
        }
        cause = e.source();
    }
    false
}

/// The properties (or options) that fix each cause, in the caller's terms.
#[derive(Debug)]
pub struct Names {
    /// "the broker", "the server".
    pub peer: &'static str,
    /// Where a client certificate is given.
    pub client_certificate: &'static str,
    /// Where the CAs to trust are given.
    pub trust: &'static str,
    /// What switches the host name check.
    pub hostname: &'static str,
    /// Where the server is told which client certificates to accept.
    pub peer_trust: &'static str,
    /// What connects over TLS without checking the server's certificate at all: it
    /// encrypts, and proves nothing of who answers.
    pub encrypt_only: &'static str,
}

/// Why a TLS connection was refused, established from the alert, the material and (for a
/// certificate the client refused) a second look at the server's certificate.
#[derive(Debug, Clone)]
pub enum Diagnosis {
    /// The server refused the handshake with a certificate alert and the client had
    /// presented none.
    CertificateRequired {
        alert: Alert,
    },
    /// The server refused the client's certificate.
    ClientCertificateRefused {
        alert: Alert,
        subject: String,
        issuer: String,
        /// When the certificate expired, if it has.
        expired: Option<String>,
    },
    /// Another alert from the server.
    Alert {
        alert: Alert,
    },
    ServerCertificateExpired {
        subject: String,
        not_after: String,
    },
    ServerCertificateNotYetValid {
        subject: String,
        not_before: String,
    },
    HostMismatch {
        dialled: String,
        names: Vec<String>,
    },
    UnknownIssuer {
        subject: String,
        issuer: String,
        /// "ssl.ca.location /etc/kafka/ca.pem", or None for the system's store.
        trust: Option<String>,
        /// The CAs that are trusted there (their subjects), when they were read.
        trusted: Vec<String>,
    },
}

/// A refused TLS connection with its cause: the error a caller returns.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub address: String,
    pub diagnosis: Diagnosis,
    pub names: &'static Names,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.names;
        let peer = n.peer;
        match &self.diagnosis {
            Diagnosis::CertificateRequired { alert } => write!(
                f,
                "{peer} at {} requires a client certificate: it ended the handshake with TLS alert {alert} and indoubt presented none; give one with {}",
                self.address, n.client_certificate
            ),
            Diagnosis::ClientCertificateRefused {
                alert,
                subject,
                issuer,
                expired,
            } => {
                write!(
                    f,
                    "{peer} at {} refused indoubt's client certificate ({subject}, issued by {issuer}) with TLS alert {alert}",
                    self.address
                )?;
                match expired {
                    Some(when) => write!(
                        f,
                        ": that certificate expired {when}; give a renewed one with {}",
                        n.client_certificate
                    ),
                    None => write!(
                        f,
                        ": {peer} must trust its issuer ({}), or give a certificate it trusts with {}",
                        n.peer_trust, n.client_certificate
                    ),
                }
            }
            Diagnosis::Alert { alert } => write!(
                f,
                "{peer} at {} ended the TLS handshake with alert {alert}",
                self.address
            ),
            Diagnosis::ServerCertificateExpired { subject, not_after } => write!(
                f,
                "the certificate of {peer} at {} ({subject}) expired {not_after}: {peer} must renew it",
                self.address
            ),
            Diagnosis::ServerCertificateNotYetValid {
                subject,
                not_before,
            } => write!(
                f,
                "the certificate of {peer} at {} ({subject}) is not valid before {not_before} (check this machine's clock)",
                self.address
            ),
            Diagnosis::HostMismatch { dialled, names } => write!(
                f,
                "the certificate of {peer} at {} is for {}, not {dialled}: dial a name it holds, or switch the host name check off with {}",
                self.address,
                if names.is_empty() { "no host name".to_string() } else { names.join(", ") },
                n.hostname
            ),
            // What fixes it (the CA to give, or what only encrypts) is the application's
            // hint: it names `n.trust` and `n.encrypt_only`.
            Diagnosis::UnknownIssuer {
                subject,
                issuer,
                trust,
                trusted,
            } => {
                write!(
                    f,
                    "the certificate of {peer} at {} ({subject}) is not signed by a CA indoubt trusts: it is issued by {issuer}, which is not among the CAs of {}",
                    self.address,
                    trust.as_deref().unwrap_or("the system's store"),
                )?;
                // Names hold commas (CN=…, O=…): the CAs are set apart by semicolons.
                match trusted.as_slice() {
                    [] => Ok(()),
                    few if few.len() <= 3 => write!(f, " ({})", few.join("; ")),
                    [first, second, rest @ ..] => {
                        write!(f, " ({first}; {second}; and {} more)", rest.len())
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// The refusal in `e`'s chain of causes, also as an io::Error's inner error (a
    /// `Stream` read or write).
    pub fn of(e: &anyhow::Error) -> Option<&Refusal> {
        e.chain().find_map(|c| {
            c.downcast_ref::<Refusal>().or_else(|| {
                c.downcast_ref::<std::io::Error>()
                    .and_then(|io| io.get_ref())
                    .and_then(|inner| inner.downcast_ref::<Refusal>())
            })
        })
    }
}

/// "CN=indoubt lab CA, O=…".
pub fn name_of(name: &X509NameRef) -> String {
    let parts: Vec<String> = name
        .entries()
        .map(|e| {
            let key = e.object().nid().short_name().unwrap_or("?");
            let value = e.data().to_string().unwrap_or_else(|_| "?".to_string());
            format!("{key}={value}")
        })
        .collect();
    if parts.is_empty() {
        "an empty name".to_string()
    } else {
        parts.join(", ")
    }
}

fn has_expired(cert: &X509) -> Option<String> {
    let now = Asn1Time::days_from_now(0).ok()?;
    (cert.not_after() < now).then(|| format!("on {}", cert.not_after()))
}

/// The diagnosis of an alert the server sent, from what the client presented.
pub fn of_alert(alert: Alert, loaded: &Loaded) -> Diagnosis {
    if !alert.about_certificates() {
        return Diagnosis::Alert { alert };
    }
    match loaded.certificates.first() {
        None if loaded.key.is_none() => Diagnosis::CertificateRequired { alert },
        Some(leaf) => Diagnosis::ClientCertificateRefused {
            alert,
            subject: name_of(leaf.subject_name()),
            issuer: name_of(leaf.issuer_name()),
            expired: has_expired(leaf),
        },
        None => Diagnosis::Alert { alert },
    }
}

/// The host names and addresses a certificate holds: "DNS:localhost", "IP:127.0.0.1";
/// the subject's CN when it holds no DNS name (as OpenSSL's host check falls back).
pub fn names_of(cert: &X509) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(alt) = cert.subject_alt_names() {
        for name in &alt {
            if let Some(dns) = name.dnsname() {
                names.push(format!("DNS:{dns}"));
            } else if let Some(ip) = name.ipaddress() {
                let ip = match ip.len() {
                    4 => <[u8; 4]>::try_from(ip)
                        .ok()
                        .map(|a| std::net::IpAddr::from(a).to_string()),
                    16 => <[u8; 16]>::try_from(ip)
                        .ok()
                        .map(|a| std::net::IpAddr::from(a).to_string()),
                    _ => None,
                };
                if let Some(ip) = ip {
                    names.push(format!("IP:{ip}"));
                }
            }
        }
    }
    if !names.iter().any(|n| n.starts_with("DNS:")) {
        for cn in cert
            .subject_name()
            .entries_by_nid(openssl::nid::Nid::COMMONNAME)
        {
            if let Ok(cn) = cn.data().to_string() {
                names.push(format!("CN:{cn}"));
            }
        }
    }
    names
}

/// Whether `host` (a name or an address, as dialled) is one of `names` (from `names_of`);
/// a leftmost `*` label matches one label.
pub fn host_matches(host: &str, names: &[String]) -> bool {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return names
            .iter()
            .any(|n| n.strip_prefix("IP:") == Some(&ip.to_string()));
    }
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    names.iter().any(|n| {
        let Some(name) = n.strip_prefix("DNS:").or_else(|| n.strip_prefix("CN:")) else {
            return false;
        };
        let name = name.to_ascii_lowercase();
        match name.strip_prefix("*.") {
            Some(rest) => host
                .split_once('.')
                .is_some_and(|(first, tail)| !first.is_empty() && tail == rest),
            None => name == host,
        }
    })
}

/// Why the client refused the server's certificate `leaf` (fetched by a second handshake
/// that does not verify), checked in OpenSSL's terms: its dates, the name dialled, its
/// issuer among the trusted CAs. None when none of these is the cause.
pub fn of_server_certificate(
    leaf: &X509,
    host: &str,
    verify_hostname: bool,
    trust: &Trust,
    loaded: &Loaded,
) -> Option<Diagnosis> {
    let subject = name_of(leaf.subject_name());
    if let Some(not_after) = has_expired(leaf) {
        return Some(Diagnosis::ServerCertificateExpired { subject, not_after });
    }
    if let Ok(now) = Asn1Time::days_from_now(0) {
        if leaf.not_before() > now {
            return Some(Diagnosis::ServerCertificateNotYetValid {
                subject,
                not_before: leaf.not_before().to_string(),
            });
        }
    }
    let issuer = leaf.issuer_name();
    let trusted_issuer = loaded.roots.as_ref().map(|roots| {
        roots
            .iter()
            .any(|root| root.subject_name().try_cmp(issuer).is_ok_and(|o| o.is_eq()))
    });
    if trusted_issuer == Some(false) {
        return Some(Diagnosis::UnknownIssuer {
            subject,
            issuer: name_of(issuer),
            trusted: loaded
                .roots
                .iter()
                .flatten()
                .map(|root| name_of(root.subject_name()))
                .collect(),
            trust: match trust {
                Trust::System => None,
                Trust::Pem(m) => Some(m.origin()),
                Trust::Pkcs12 { store, .. } => Some(store.origin()),
            },
        });
    }
    let names = names_of(leaf);
    if verify_hostname && !host_matches(host, &names) {
        return Some(Diagnosis::HostMismatch {
            dialled: host.to_string(),
            names,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_match_as_openssl_checks_them() {
        let names = vec!["DNS:localhost".to_string(), "IP:127.0.0.1".to_string()];
        assert!(host_matches("localhost", &names) && host_matches("LOCALHOST.", &names));
        assert!(host_matches("127.0.0.1", &names));
        assert!(!host_matches("127.1", &names) && !host_matches("::1", &names));
        let wild = vec!["DNS:*.kafka.example".to_string()];
        assert!(host_matches("b1.kafka.example", &wild));
        assert!(
            !host_matches("kafka.example", &wild) && !host_matches("a.b1.kafka.example", &wild)
        );
    }

    #[test]
    fn alerts_are_named_and_certificate_ones_told_apart() {
        assert_eq!(
            Alert::CERTIFICATE_REQUIRED.to_string(),
            "certificate_required (116)"
        );
        assert_eq!(Alert(46).name(), "certificate_unknown");
        let none = Loaded {
            roots: None,
            certificates: Vec::new(),
            key: None,
        };
        assert!(matches!(
            of_alert(Alert::BAD_CERTIFICATE, &none),
            Diagnosis::CertificateRequired { .. }
        ));
        assert!(matches!(
            of_alert(Alert(70), &none),
            Diagnosis::Alert { .. }
        ));
    }
}
