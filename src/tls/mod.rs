//! TLS client setup shared by the PostgreSQL and Kafka clients: the CAs to trust and the
//! client identity read from PEM (every private key form), PKCS#12 stores or inline PEM,
//! built into one native-tls connector; and a failed handshake or a TLS alert told apart
//! by cause. Knows nothing of the application: callers say which property each piece of
//! material came from (`Material::property`) and which properties fix what (`Names`).

pub mod failure;
pub mod stores;

pub use failure::{Alert, Diagnosis, Names, Refusal, TlsError};

use openssl::pkey::{PKey, Private};
use openssl::x509::X509;
use std::fmt;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Where a piece of TLS material is: a file, or the text of a property (inline PEM).
#[derive(Clone)]
pub enum Source {
    File(PathBuf),
    Inline(String),
}

/// A piece of TLS material and the property that named it, for every message about it.
#[derive(Clone)]
pub struct Material {
    /// "ssl.ca.location", "ssl.keystore.location", "ssl.key.pem", "sslrootcert".
    pub property: String,
    pub source: Source,
}

impl Material {
    pub fn file(property: &str, path: impl Into<PathBuf>) -> Material {
        Material {
            property: property.to_string(),
            source: Source::File(path.into()),
        }
    }

    pub fn inline(property: &str, text: impl Into<String>) -> Material {
        Material {
            property: property.to_string(),
            source: Source::Inline(text.into()),
        }
    }

    /// "ssl.ca.location /etc/kafka/ca.pem" or "ssl.ca.pem (inline)".
    pub fn origin(&self) -> String {
        match &self.source {
            Source::File(path) => format!("{} {}", self.property, path.display()),
            Source::Inline(_) => format!("{} (inline)", self.property),
        }
    }

    /// The path, when the material is a file.
    pub fn path(&self) -> Option<&std::path::Path> {
        match &self.source {
            Source::File(path) => Some(path),
            Source::Inline(_) => None,
        }
    }

    fn bytes(&self) -> Result<Vec<u8>, TlsError> {
        match &self.source {
            Source::Inline(text) => Ok(normalize_pem(text).into_bytes()),
            Source::File(path) => std::fs::read(path).map_err(|source| TlsError::Read {
                origin: self.origin(),
                source,
            }),
        }
    }
}

// Inline keys are secrets: never printed, not even in debug output.
impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin())
    }
}

/// The password of a key or a store: the property it comes from, and its value when
/// given. Printed as the property name only.
#[derive(Clone)]
pub struct Password {
    pub property: String,
    pub value: Option<String>,
}

impl Password {
    pub fn new(property: &str, value: impl Into<String>) -> Password {
        Password {
            property: property.to_string(),
            value: Some(value.into()),
        }
    }

    /// No password given; `property` is where one would come from.
    pub fn none(property: &str) -> Password {
        Password {
            property: property.to_string(),
            value: None,
        }
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            Some(_) => write!(f, "{}=<redacted>", self.property),
            None => write!(f, "{} unset", self.property),
        }
    }
}

/// The CAs a client trusts.
#[derive(Debug, Clone)]
pub enum Trust {
    /// The system's store.
    System,
    /// PEM certificates (a bundle: one or more).
    Pem(Material),
    /// A PKCS#12 store's certificates (a Java truststore: trusted-certificate entries only).
    Pkcs12 { store: Material, password: Password },
}

/// The certificate and key a client presents.
#[derive(Debug, Clone)]
pub enum ClientIdentity {
    /// A PEM certificate (chain) and a PEM key of any form, `password` for an encrypted
    /// one. The two may be one file (a PEM keystore).
    Pem {
        certificate: Material,
        key: Material,
        password: Password,
    },
    /// A PKCS#12 store with one private key and its certificate chain.
    Pkcs12 { store: Material, password: Password },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V1_2,
    V1_3,
}

/// Everything a TLS client connection is set up from.
#[derive(Debug, Clone)]
pub struct Config {
    pub trust: Trust,
    pub identity: Option<ClientIdentity>,
    pub verify_certificate: bool,
    pub verify_hostname: bool,
    pub min_version: Option<Version>,
    pub max_version: Option<Version>,
}

/// The material of a `Config`, read and checked.
pub struct Loaded {
    /// None: the system's store.
    pub roots: Option<Vec<X509>>,
    /// Leaf first, then its chain.
    pub certificates: Vec<X509>,
    pub key: Option<PKey<Private>>,
}

impl Config {
    /// Reads every file and store the configuration names; the errors name the property.
    pub fn load(&self) -> Result<Loaded, TlsError> {
        let roots = match &self.trust {
            Trust::System => None,
            Trust::Pem(material) => Some(stores::ca_certificates(material)?),
            Trust::Pkcs12 { store, password } => Some(stores::pkcs12_truststore(store, password)?),
        };
        let (certificates, key) = match &self.identity {
            None => (Vec::new(), None),
            Some(identity) => {
                let (certificates, key) = stores::client_identity(identity)?;
                (certificates, Some(key))
            }
        };
        Ok(Loaded {
            roots,
            certificates,
            key,
        })
    }

    /// A native-tls connector for this configuration, and what was loaded for it (the
    /// diagnosis of a failed handshake looks at it again).
    pub fn connector(&self) -> Result<(native_tls::TlsConnector, Loaded), TlsError> {
        let loaded = self.load()?;
        let connector = self.builder(&loaded, true)?;
        Ok((connector, loaded))
    }

    /// With `verify` false, a connector that presents the same identity and checks
    /// nothing: for looking at a refused server certificate only.
    fn builder(&self, loaded: &Loaded, verify: bool) -> Result<native_tls::TlsConnector, TlsError> {
        let mut builder = native_tls::TlsConnector::builder();
        if let Some(roots) = &loaded.roots {
            builder.disable_built_in_roots(true);
            for root in roots {
                builder.add_root_certificate(native_certificate(root)?);
            }
        }
        if let (Some(key), Some((leaf, chain))) = (&loaded.key, loaded.certificates.split_first()) {
            // native-tls takes an identity as PEM: the chain, and the key as PKCS#8 (it
            // stays in memory; whatever form it was read from).
            let mut pem = pem_of(leaf)?;
            for cert in chain {
                pem.extend(pem_of(cert)?);
            }
            let pkcs8 = key.private_key_to_pem_pkcs8().map_err(TlsError::Crypto)?;
            builder
                .identity(native_tls::Identity::from_pkcs8(&pem, &pkcs8).map_err(TlsError::Setup)?);
        }
        let version = |v: Option<Version>| {
            v.map(|v| match v {
                Version::V1_2 => native_tls::Protocol::Tlsv12,
                Version::V1_3 => native_tls::Protocol::Tlsv13,
            })
        };
        if self.min_version.is_some() {
            builder.min_protocol_version(version(self.min_version));
        }
        builder.max_protocol_version(version(self.max_version));
        builder.danger_accept_invalid_certs(!verify || !self.verify_certificate);
        builder.danger_accept_invalid_hostnames(!verify || !self.verify_hostname);
        builder.build().map_err(TlsError::Setup)
    }
}

/// A TLS client set up once from a `Config`: handshakes, and the diagnosis of a refused
/// one in terms of that configuration.
pub struct Client {
    connector: tokio_native_tls::TlsConnector,
    /// The same identity, verifying nothing: the second look at a refused certificate.
    look: tokio_native_tls::TlsConnector,
    loaded: Loaded,
    config: Config,
}

impl Client {
    pub fn new(config: &Config) -> Result<Client, TlsError> {
        let (connector, loaded) = config.connector()?;
        let look = config.builder(&loaded, false)?;
        Ok(Client {
            connector: tokio_native_tls::TlsConnector::from(connector),
            look: tokio_native_tls::TlsConnector::from(look),
            loaded,
            config: config.clone(),
        })
    }

    /// The handshake over `tcp` with `host` (the name or address dialled). A refusal whose
    /// cause is established comes back as a `Refusal` (an alert the server sent, or the
    /// server's certificate looked at again within `budget`); else the TLS library's error.
    pub async fn handshake<S>(
        &self,
        address: &str,
        host: &str,
        tcp: S,
        budget: Duration,
        names: &'static Names,
    ) -> anyhow::Result<Stream<S>>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let err = match self.connector.connect(host, tcp).await {
            Ok(inner) => {
                return Ok(Stream {
                    inner,
                    address: address.to_string(),
                    presented: self.presented(),
                    names,
                })
            }
            Err(err) => err,
        };
        let diagnosis = if let Some(alert) = Alert::received(&err) {
            Some(failure::of_alert(alert, &self.loaded))
        } else if failure::verification_failed(&err) {
            let look = async {
                let tcp = tokio::net::TcpStream::connect(address).await.ok()?;
                self.refused_certificate(host, tcp).await
            };
            tokio::time::timeout(budget, look).await.ok().flatten()
        } else {
            None
        };
        match diagnosis {
            Some(diagnosis) => Err(anyhow::Error::new(failure::Refusal {
                address: address.to_string(),
                diagnosis,
                names,
            })
            .context("TLS handshake")),
            None => Err(anyhow::Error::new(err).context("TLS handshake")),
        }
    }

    /// Why the server's certificate was refused (a handshake failed as
    /// [`failure::verification_failed`] tells), by a second handshake over `stream` that
    /// verifies nothing: the certificate is only read, nothing is sent, and the connection
    /// is dropped. `stream` is a new connection to the same server, made ready for TLS by
    /// the caller's protocol (PostgreSQL's SSLRequest, MySQL's SSL request packet); `host`
    /// is the name dialled. None when the certificate cannot be had, or none of the causes
    /// looked for is found.
    pub async fn refused_certificate<S>(&self, host: &str, stream: S) -> Option<Diagnosis>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let stream = self.look.connect(host, stream).await.ok()?;
        let der = stream.get_ref().peer_certificate().ok()??.to_der().ok()?;
        let leaf = X509::from_der(&der).ok()?;
        failure::of_server_certificate(
            &leaf,
            host,
            self.config.verify_hostname,
            &self.config.trust,
            &self.loaded,
        )
    }

    /// What the client presents, for the diagnosis of an alert after the handshake.
    fn presented(&self) -> Presented {
        Presented {
            certificates: self.loaded.certificates.clone(),
            key: self.loaded.key.is_some(),
        }
    }
}

/// What a client presented: enough to tell "none" from "this one was refused".
#[derive(Clone)]
struct Presented {
    certificates: Vec<X509>,
    key: bool,
}

/// A TLS stream whose read and write errors carry a `Refusal` when the server sent an
/// alert: TLS 1.3 servers refuse a client certificate (or its absence) only after the
/// client's handshake has finished, so the first request is what meets the alert.
pub struct Stream<S> {
    inner: tokio_native_tls::TlsStream<S>,
    address: String,
    presented: Presented,
    names: &'static Names,
}

impl<S> Stream<S> {
    fn diagnosed(&self, err: std::io::Error) -> std::io::Error {
        let Some(alert) = Alert::received(&err) else {
            return err;
        };
        let loaded = Loaded {
            roots: None,
            certificates: self.presented.certificates.clone(),
            key: None,
        };
        debug_assert!(self.presented.key != self.presented.certificates.is_empty());
        let diagnosis = failure::of_alert(alert, &loaded);
        std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            Refusal {
                address: self.address.clone(),
                diagnosis,
                names: self.names,
            },
        )
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Stream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(this.diagnosed(e))),
            other => other,
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Stream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(this.diagnosed(e))),
            other => other,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(this.diagnosed(e))),
            other => other,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

fn pem_of(cert: &X509) -> Result<Vec<u8>, TlsError> {
    cert.to_pem().map_err(TlsError::Crypto)
}

fn native_certificate(cert: &X509) -> Result<native_tls::Certificate, TlsError> {
    let der = cert.to_der().map_err(TlsError::Crypto)?;
    native_tls::Certificate::from_der(&der).map_err(TlsError::Setup)
}

/// Inline PEM as written in a properties file: Java reads a block on one line, or with
/// its line breaks lost (whitespace anywhere), as OpenSSL does not; each block is written
/// again in PEM's own form. A block with headers (legacy encryption) is kept as given.
pub fn normalize_pem(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("-----BEGIN ") {
        let after = &rest[at + 11..];
        let Some(label_end) = after.find("-----") else {
            break;
        };
        let label = &after[..label_end];
        let body_start = &after[label_end + 5..];
        let end_marker = format!("-----END {label}-----");
        let Some(body_end) = body_start.find(&end_marker) else {
            break;
        };
        let body = &body_start[..body_end];
        out.push_str(&format!("-----BEGIN {label}-----\n"));
        if body.contains(':') {
            out.push_str(body.trim_matches(|c: char| c == ' ' || c == '\t'));
            if !body.ends_with('\n') {
                out.push('\n');
            }
        } else {
            let base64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            for line in base64.as_bytes().chunks(64) {
                out.push_str(&String::from_utf8_lossy(line));
                out.push('\n');
            }
        }
        out.push_str(&end_marker);
        out.push('\n');
        rest = &body_start[body_end + end_marker.len()..];
    }
    out
}

/// A CA file may hold several certificates; native-tls takes them one at a time. Text
/// between them (comments, "Bag Attributes") is skipped, as OpenSSL skips it.
pub fn split_pem_certificates(pem: &[u8]) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(pem);
    let mut certs = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.starts_with("-----BEGIN CERTIFICATE-----") {
            current.clear();
        }
        current.push_str(line);
        current.push('\n');
        if line.starts_with("-----END CERTIFICATE-----") {
            certs.push(current.clone().into_bytes());
        }
    }
    certs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ca_bundles() {
        let pem = b"-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\njunk\n-----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----\n";
        let certs = split_pem_certificates(pem);
        assert_eq!(certs.len(), 2);
        assert!(String::from_utf8_lossy(&certs[1]).contains("BBB"));
    }

    #[test]
    fn inline_pem_on_one_line_is_made_pem_again() {
        let one_line = "-----BEGIN CERTIFICATE----- AAAA BBBB -----END CERTIFICATE----- -----BEGIN PRIVATE KEY-----CCCC-----END PRIVATE KEY-----";
        assert_eq!(
            normalize_pem(one_line),
            "-----BEGIN CERTIFICATE-----\nAAAABBBB\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nCCCC\n-----END PRIVATE KEY-----\n"
        );
    }

    #[test]
    fn inline_material_and_passwords_are_not_printed() {
        let key = Material::inline("ssl.key.pem", "-----BEGIN PRIVATE KEY-----\nSECRETKEY\n");
        let password = Password::new("ssl.key.password", "hunter2");
        let shown = format!("{key:?} {password:?}");
        assert!(
            !shown.contains("SECRETKEY") && !shown.contains("hunter2"),
            "{shown}"
        );
        assert!(shown.contains("ssl.key.pem (inline)") && shown.contains("ssl.key.password"));
    }
}
