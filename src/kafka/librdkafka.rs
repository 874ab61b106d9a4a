//! The client configuration as librdkafka's properties: the same bootstrap servers,
//! client id, TLS material and SASL credentials indoubt's own client connects with, so
//! the producer connects wherever indoubt does. TLS material is read by indoubt (PEM of
//! every form, inline PEM, PKCS#12 stores) and handed over as PEM in memory: librdkafka
//! never reads a file or a password of its own. GSSAPI goes through Cyrus SASL with the
//! process's ticket cache, and librdkafka never runs kinit.

use super::config::ClientConfig;
use super::secure;
use super::security::{Credentials, Kerberos, Mechanism, Security};
use crate::tls::TlsError;
use anyhow::{anyhow, bail, Result};
use openssl::x509::X509;
use std::time::Duration;

/// What the producer is told besides the connection: its bounds and its transactions.
#[derive(Debug, Clone)]
pub struct ProducerSettings {
    /// How long a message may wait for its acknowledgement, retries included
    /// (message.timeout.ms): past it, its delivery report says it failed.
    pub message_timeout: Duration,
    /// transactional.id: every batch in a transaction, committed or aborted whole.
    pub transactional_id: Option<String>,
}

/// librdkafka's properties, in order; secrets among them (a password, a key) are only
/// ever handed to librdkafka, never shown.
pub struct Properties {
    pub entries: Vec<(&'static str, String)>,
    /// OAUTHBEARER: the token is handed over by the producer's context, not a property.
    pub oauthbearer: bool,
}

/// The properties of an idempotent producer (acks=all) connecting as `config` says.
pub fn producer(config: &ClientConfig, settings: &ProducerSettings) -> Result<Properties> {
    let mut entries: Vec<(&'static str, String)> = vec![
        ("bootstrap.servers", config.bootstrap.join(",")),
        ("client.id", config.client_id.clone()),
        ("enable.idempotence", "true".into()),
        ("acks", "all".into()),
        (
            "message.timeout.ms",
            millis(settings.message_timeout).to_string(),
        ),
        // Messages leave at once: a republish is a batch already, not a stream to coalesce.
        ("linger.ms", "5".into()),
    ];
    if let Some(t) = config.connect_timeout {
        entries.push(("socket.connection.setup.timeout.ms", millis(t).to_string()));
    }
    if let Some(t) = config.request_timeout {
        entries.push(("request.timeout.ms", millis(t).to_string()));
    }
    if let Some(id) = &settings.transactional_id {
        entries.push(("transactional.id", id.clone()));
    }
    let oauthbearer = security(&config.security, &mut entries)?;
    Ok(Properties {
        entries,
        oauthbearer,
    })
}

fn millis(d: Duration) -> u64 {
    d.as_millis().clamp(1, i32::MAX as u128) as u64
}

/// security.protocol and what it needs; true when the token comes by callback.
fn security(s: &Security, entries: &mut Vec<(&'static str, String)>) -> Result<bool> {
    entries.push(("security.protocol", s.protocol().to_string()));
    if let Some(tls) = &s.tls {
        if tls.min_version.is_some() || tls.max_version.is_some() {
            bail!("librdkafka cannot be held to the TLS versions ssl.enabled.protocols names: the producer would connect with whatever its OpenSSL negotiates");
        }
        let loaded = secure::config(tls).load().map_err(tls_error)?;
        if let Some(roots) = &loaded.roots {
            entries.push(("ssl.ca.pem", pem(roots)?));
        }
        if let Some(key) = &loaded.key {
            entries.push(("ssl.certificate.pem", pem(&loaded.certificates)?));
            let key = key.private_key_to_pem_pkcs8().map_err(|e| anyhow!("{e}"))?;
            entries.push(("ssl.key.pem", String::from_utf8(key)?));
        }
        entries.push((
            "enable.ssl.certificate.verification",
            tls.verify_certificate.to_string(),
        ));
        entries.push((
            "ssl.endpoint.identification.algorithm",
            if tls.verify_hostname { "https" } else { "none" }.into(),
        ));
    }
    let Some(sasl) = &s.sasl else {
        return Ok(false);
    };
    entries.push(("sasl.mechanisms", sasl.mechanism.name().into()));
    match sasl.mechanism {
        Mechanism::Plain | Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
            entries.push(("sasl.username", sasl.username.clone()));
            entries.push(("sasl.password", sasl.password.clone()));
            Ok(false)
        }
        Mechanism::OAuthBearer => {
            if sasl
                .oauthbearer
                .as_ref()
                .is_some_and(|b| !b.extensions.is_empty())
            {
                bail!("the producer cannot send SASL extensions with its OAUTHBEARER token (librdkafka's token callback takes none)");
            }
            Ok(true)
        }
        Mechanism::Gssapi => {
            let kerberos = sasl
                .kerberos
                .as_ref()
                .ok_or_else(|| anyhow!("GSSAPI without its Kerberos settings"))?;
            gssapi(kerberos, entries)?;
            Ok(false)
        }
    }
}

/// GSSAPI through Cyrus SASL: tickets from the process's ticket cache only (KRB5CCNAME,
/// or the library's default), the one cache Cyrus reads. librdkafka would run kinit to
/// refresh them (into that same cache, which may be the user's own): never, relogin is
/// off, as indoubt runs no command to get tickets. A keytab, which indoubt's own client
/// reads into a private in-memory cache, cannot be handed over without writing a cache.
fn gssapi(kerberos: &Kerberos, entries: &mut Vec<(&'static str, String)>) -> Result<()> {
    match &kerberos.credentials {
        Credentials::Keytab { keytab, principal } => bail!(
            "the producer cannot log in from a keytab: librdkafka's Kerberos (Cyrus SASL) takes tickets only from the process's ticket cache (KRB5CCNAME), which it would fill by running kinit; get tickets into a cache of your own (KRB5CCNAME=FILE:/path/of/yours kinit -k -t {} {principal}) and leave sasl.kerberos.keytab unset",
            keytab.display()
        ),
        Credentials::TicketCache {
            cache: Some(cache),
            ..
        } if std::env::var("KRB5CCNAME").ok().as_deref() != Some(cache.as_str()) => bail!(
            "the producer reads only the ticket cache KRB5CCNAME names (librdkafka's Cyrus SASL takes no other): set KRB5CCNAME={cache} rather than naming the cache in the config"
        ),
        Credentials::TicketCache { principal, .. } => {
            entries.push(("sasl.kerberos.service.name", kerberos.service_name.clone()));
            if let Some(principal) = principal {
                entries.push(("sasl.kerberos.principal", principal.clone()));
            }
            entries.push(("sasl.kerberos.min.time.before.relogin", "0".into()));
            Ok(())
        }
    }
}

fn tls_error(e: TlsError) -> anyhow::Error {
    anyhow!("{e}")
}

/// Certificates as one PEM text.
fn pem(certificates: &[X509]) -> Result<String> {
    let mut out = String::new();
    for c in certificates {
        out.push_str(std::str::from_utf8(
            &c.to_pem().map_err(|e| anyhow!("{e}"))?,
        )?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::security::Sasl;

    fn of(config: &ClientConfig) -> Vec<(&'static str, String)> {
        producer(
            config,
            &ProducerSettings {
                message_timeout: Duration::from_secs(30),
                transactional_id: None,
            },
        )
        .unwrap()
        .entries
    }

    fn get<'a>(entries: &'a [(&'static str, String)], key: &str) -> Option<&'a str> {
        entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn an_idempotent_producer_of_the_same_servers_and_client_id() {
        let mut c = ClientConfig::plaintext(vec!["b1:9092".into(), "b2:9092".into()]);
        c.client_id = "ops-42".into();
        c.request_timeout = Some(Duration::from_secs(7));
        let e = of(&c);
        assert_eq!(get(&e, "bootstrap.servers"), Some("b1:9092,b2:9092"));
        assert_eq!(get(&e, "client.id"), Some("ops-42"));
        assert_eq!(get(&e, "enable.idempotence"), Some("true"));
        assert_eq!(get(&e, "acks"), Some("all"));
        assert_eq!(get(&e, "message.timeout.ms"), Some("30000"));
        assert_eq!(get(&e, "request.timeout.ms"), Some("7000"));
        assert_eq!(get(&e, "security.protocol"), Some("PLAINTEXT"));
        assert_eq!(get(&e, "transactional.id"), None);
    }

    #[test]
    fn scram_credentials_go_over_as_librdkafka_names_them() {
        let mut c = ClientConfig::plaintext(vec!["b:9093".into()]);
        c.security.sasl = Some(Sasl {
            mechanism: Mechanism::ScramSha512,
            username: "alice".into(),
            password: "s3cret".into(),
            oauthbearer: None,
            kerberos: None,
        });
        let e = of(&c);
        assert_eq!(get(&e, "security.protocol"), Some("SASL_PLAINTEXT"));
        assert_eq!(get(&e, "sasl.mechanisms"), Some("SCRAM-SHA-512"));
        assert_eq!(get(&e, "sasl.username"), Some("alice"));
        assert_eq!(get(&e, "sasl.password"), Some("s3cret"));
    }
}
