//! How to reach a Kafka broker securely, from client properties (librdkafka names, plus the
//! Java names kafka tools' `--command-config` files use).

use crate::error::hinted;
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    Plain,
    ScramSha256,
    ScramSha512,
}

impl Mechanism {
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

#[derive(Clone)]
pub struct Sasl {
    pub mechanism: Mechanism,
    pub username: String,
    pub password: String,
}

impl fmt::Debug for Sasl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Sasl({}, {}, <redacted>)",
            self.mechanism.name(),
            self.username
        )
    }
}

#[derive(Debug, Clone, Default)]
pub struct Tls {
    /// PEM file of the CA(s) to trust; None: the system store.
    pub ca_location: Option<PathBuf>,
    pub verify_certificate: bool,
    pub verify_hostname: bool,
    pub certificate_location: Option<PathBuf>,
    pub key_location: Option<PathBuf>,
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

    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Security> {
        let get = |k: &str| {
            props
                .get(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let protocol = get("security.protocol")
            .unwrap_or_else(|| "PLAINTEXT".into())
            .to_ascii_uppercase();
        let (tls, sasl) = match protocol.as_str() {
            "PLAINTEXT" => (false, false),
            "SSL" => (true, false),
            "SASL_PLAINTEXT" => (false, true),
            "SASL_SSL" => (true, true),
            other => bail!("unsupported security.protocol {other:?}: use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"),
        };
        let tls = tls.then(|| {
            // librdkafka: ssl.ca.location; Java: ssl.truststore.location with ssl.truststore.type=PEM.
            let ca_location = get("ssl.ca.location")
                .or_else(|| {
                    (get("ssl.truststore.type").as_deref() == Some("PEM"))
                        .then(|| get("ssl.truststore.location"))
                        .flatten()
                })
                .map(PathBuf::from);
            // Java's way to switch the check off is an empty value, librdkafka's is "none".
            let algorithm = props
                .get("ssl.endpoint.identification.algorithm")
                .map(|v| v.trim().to_string())
                .unwrap_or_else(|| "https".into());
            Tls {
                ca_location,
                verify_certificate: get("enable.ssl.certificate.verification").as_deref()
                    != Some("false"),
                verify_hostname: algorithm.eq_ignore_ascii_case("https"),
                certificate_location: get("ssl.certificate.location").map(PathBuf::from),
                key_location: get("ssl.key.location").map(PathBuf::from),
            }
        });
        if let Some(t) = &tls {
            if let Some(ca) = &t.ca_location {
                if !ca.exists() {
                    bail!("ssl.ca.location {} does not exist", ca.display());
                }
            }
        }
        let sasl = if sasl {
            let mechanism = match get("sasl.mechanism")
                .or_else(|| get("sasl.mechanisms"))
                .unwrap_or_else(|| "PLAIN".into())
                .to_ascii_uppercase()
                .as_str()
            {
                "PLAIN" => Mechanism::Plain,
                "SCRAM-SHA-256" => Mechanism::ScramSha256,
                "SCRAM-SHA-512" => Mechanism::ScramSha512,
                other => {
                    return Err(hinted(
                        format!("unsupported sasl.mechanism {other:?}"),
                        "indoubt speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512",
                    ))
                }
            };
            let (jaas_user, jaas_password) = get("sasl.jaas.config")
                .map(|j| parse_jaas(&j))
                .unwrap_or_default();
            let username = get("sasl.username").or(jaas_user);
            let password = get("sasl.password").or(jaas_password);
            match (username, password) {
                (Some(username), Some(password)) => Some(Sasl {
                    mechanism,
                    username,
                    password,
                }),
                _ => {
                    return Err(hinted(
                        format!("{protocol} needs a user name and a password"),
                        "set sasl.username and sasl.password (-X, the config's properties, or sasl.jaas.config in a --command-config file)",
                    ))
                }
            }
        } else {
            None
        };
        Ok(Security { tls, sasl })
    }
}

/// `username="…" password="…"` out of a Java JAAS line.
fn parse_jaas(jaas: &str) -> (Option<String>, Option<String>) {
    let value = |key: &str| {
        let start = jaas.find(&format!("{key}=\""))? + key.len() + 2;
        let end = jaas[start..].find('"')? + start;
        Some(jaas[start..end].to_string())
    };
    (value("username"), value("password"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn librdkafka_and_java_names() {
        let s = Security::from_properties(&props(&[
            ("security.protocol", "sasl_ssl"),
            ("sasl.mechanism", "SCRAM-SHA-512"),
            ("sasl.username", "alice"),
            ("sasl.password", "secret"),
        ]))
        .unwrap();
        assert_eq!(s.protocol(), "SASL_SSL");
        assert_eq!(s.sasl.as_ref().unwrap().mechanism, Mechanism::ScramSha512);
        assert!(s.tls.as_ref().unwrap().verify_hostname);
        assert!(!format!("{s:?}").contains("secret"));

        let s = Security::from_properties(&props(&[
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanism", "PLAIN"),
            ("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"bob\" password=\"pw\";"),
        ]))
        .unwrap();
        let sasl = s.sasl.unwrap();
        assert_eq!(
            (sasl.username.as_str(), sasl.password.as_str()),
            ("bob", "pw")
        );
    }

    #[test]
    fn an_empty_identification_algorithm_switches_the_host_check_off() {
        let tls = |v: &str| {
            Security::from_properties(&props(&[
                ("security.protocol", "SSL"),
                ("ssl.endpoint.identification.algorithm", v),
            ]))
            .unwrap()
            .tls
            .unwrap()
            .verify_hostname
        };
        assert!(!tls(""), "Java's empty value");
        assert!(!tls("none"), "librdkafka's none");
        assert!(tls("https"));
    }

    #[test]
    fn refusals() {
        assert!(Security::from_properties(&props(&[("security.protocol", "KERBEROS")])).is_err());
        assert!(Security::from_properties(&props(&[("security.protocol", "SASL_SSL")])).is_err());
        assert!(Security::from_properties(&props(&[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "GSSAPI"),
            ("sasl.username", "u"),
            ("sasl.password", "p")
        ]))
        .is_err());
        assert_eq!(
            Security::from_properties(&props(&[])).unwrap().protocol(),
            "PLAINTEXT"
        );
    }
}
