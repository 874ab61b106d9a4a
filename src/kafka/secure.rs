//! The TLS layer of a broker connection: src/tls's client, set up from the connection's
//! `Tls`, with the client property names that fix each cause of a refused handshake.

use super::security::{Tls, TlsVersion};
use crate::tls::{self, Names};
use anyhow::Result;
use std::time::Duration;
use tokio::net::TcpStream;

/// The properties a diagnosis names (librdkafka's, then the Java client's).
pub static NAMES: Names = Names {
    peer: "the broker",
    client_certificate: "ssl.certificate.location and ssl.key.location (or ssl.keystore.location)",
    trust: "ssl.ca.location (or ssl.truststore.location)",
    hostname: "ssl.endpoint.identification.algorithm=none",
    peer_trust: "the listener's ssl.truststore.location",
    encrypt_only: "enable.ssl.certificate.verification=false",
};

/// The src/tls configuration of a connection's TLS settings.
pub fn config(tls: &Tls) -> tls::Config {
    let version = |v: Option<TlsVersion>| {
        v.map(|v| match v {
            TlsVersion::V1_2 => tls::Version::V1_2,
            TlsVersion::V1_3 => tls::Version::V1_3,
        })
    };
    tls::Config {
        trust: tls.trust.clone(),
        identity: tls.identity.clone(),
        verify_certificate: tls.verify_certificate,
        verify_hostname: tls.verify_hostname,
        min_version: version(tls.min_version),
        max_version: version(tls.max_version),
    }
}

/// Reads every file and store `settings` name, as a handshake would, without connecting.
pub fn check(settings: &Tls) -> Result<()> {
    tls::Client::new(&config(settings))?;
    Ok(())
}

/// The TLS handshake with the broker at `address` over `tcp`.
pub async fn handshake(
    address: &str,
    settings: &Tls,
    tcp: TcpStream,
    budget: Duration,
) -> Result<tls::Stream<TcpStream>> {
    let host = address.rsplit_once(':').map(|(h, _)| h).unwrap_or(address);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let client = tls::Client::new(&config(settings))?;
    client.handshake(address, host, tcp, budget, &NAMES).await
}
