//! The security part of a Kafka target's client properties (librdkafka names, plus the
//! Java names kafka tools' `--command-config` files use), parsed into the client's typed
//! [`Security`]: every name known, every value that would weaken the connection refused
//! rather than read loosely.

use super::jaas;
use super::properties;
use super::Values;
use crate::error::hinted;
use crate::kafka::security::{Mechanism, Sasl, Security, Tls, TlsVersion};
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// From the client properties, `${env:…}` references read from the process environment.
pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Security> {
    from_properties_with_env(props, &|k| std::env::var(k).ok())
}

/// The same, `${env:…}` references read through `env`.
pub fn from_properties_with_env(
    props: &BTreeMap<String, String>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Security> {
    security(&Values::new(props, env)?)
}

/// The security the (checked, provider-resolved) values ask for.
pub(super) fn security(values: &Values) -> Result<Security> {
    let get = |k: &str| values.get(k);
    let protocol = get("security.protocol")?
        .unwrap_or_else(|| "PLAINTEXT".into())
        .to_ascii_uppercase();
    let (tls, sasl) = match protocol.as_str() {
        "PLAINTEXT" => (false, false),
        "SSL" => (true, false),
        "SASL_PLAINTEXT" => (false, true),
        "SASL_SSL" => (true, true),
        other => bail!("unsupported security.protocol {other:?}: use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"),
    };
    let tls = if tls {
        Some(tls_settings(values)?)
    } else {
        None
    };
    let sasl = if sasl {
        let mechanism = match get("sasl.mechanism")?
            .or(get("sasl.mechanisms")?)
            .unwrap_or_else(|| "PLAIN".into())
            .to_ascii_uppercase()
            .as_str()
        {
            "PLAIN" => Mechanism::Plain,
            "SCRAM-SHA-256" => Mechanism::ScramSha256,
            "SCRAM-SHA-512" => Mechanism::ScramSha512,
            "GSSAPI" => Mechanism::Gssapi,
            other => {
                return Err(hinted(
                    format!("unsupported sasl.mechanism {other:?}"),
                    "indoubt speaks PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and GSSAPI",
                ))
            }
        };
        let modules = get("sasl.jaas.config")?
            .map(|line| jaas::parse(&line))
            .transpose()?;
        let first = modules.as_ref().map(|m| &m[0]);
        if mechanism == Mechanism::Gssapi {
            return Ok(Security {
                tls,
                sasl: Some(Sasl {
                    mechanism,
                    username: String::new(),
                    password: String::new(),
                    kerberos: Some(super::kerberos::from_properties(&get, first)?),
                }),
            });
        }
        let username = get("sasl.username")?
            .or_else(|| first.and_then(|m| m.option("username")).map(str::to_string));
        let password = get("sasl.password")?
            .or_else(|| first.and_then(|m| m.option("password")).map(str::to_string));
        match (username, password) {
            (Some(username), Some(password)) => Some(Sasl {
                mechanism,
                username,
                password,
                kerberos: None,
            }),
            _ => {
                return Err(hinted(
                    format!("{protocol} needs a user name and a password"),
                    "set sasl.username and sasl.password (-X, the config's properties, or sasl.jaas.config in a --command-config file); keep the password out of the command line with a properties file or ${env:NAME} / ${file:PATH:KEY} (config.providers)",
                ))
            }
        }
    } else {
        None
    };
    Ok(Security { tls, sasl })
}

fn tls_settings(values: &Values) -> Result<Tls> {
    let get = |k: &str| values.get(k);
    // librdkafka: ssl.ca.location; Java: ssl.truststore.location, a PEM file only with
    // ssl.truststore.type=PEM (its default type is JKS).
    let truststore = match get("ssl.truststore.location")? {
        None => None,
        Some(location) => {
            let message = match get("ssl.truststore.type")? {
                Some(kind) if kind.eq_ignore_ascii_case("PEM") => None,
                Some(kind) => Some(format!("ssl.truststore.type {kind:?}: indoubt cannot read that truststore yet")),
                None => Some("ssl.truststore.location without ssl.truststore.type=PEM is a JKS truststore (Java's default type), which indoubt cannot read yet".to_string()),
            };
            if let Some(message) = message {
                return Err(hinted(message, properties::TRUSTSTORE_CONVERSION));
            }
            Some(PathBuf::from(location))
        }
    };
    let ca_location = get("ssl.ca.location")?.map(PathBuf::from).or(truststore);
    if let Some(ca) = &ca_location {
        if !ca.exists() {
            bail!("ssl.ca.location {} does not exist", ca.display());
        }
    }
    // Java switches the host check off with an empty value, librdkafka with "none"; a
    // value either refuses (a typo must not turn the check off).
    let algorithm = values.raw("ssl.endpoint.identification.algorithm")?;
    let verify_hostname = match algorithm.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("https") => true,
        Some("none") | Some("") => false,
        Some(_) => {
            let other = algorithm.unwrap_or_default();
            return Err(hinted(
                format!("invalid ssl.endpoint.identification.algorithm {other:?} (librdkafka and the Java client refuse it too)"),
                "use https (check the broker's host name, the default), none or an empty value (do not check)",
            ));
        }
    };
    let verification = get("enable.ssl.certificate.verification")?;
    let verify_certificate = match verification
        .as_deref()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("true") => true,
        Some("false") => false,
        Some(_) => {
            let other = verification.unwrap_or_default();
            return Err(hinted(
                format!("invalid enable.ssl.certificate.verification {other:?}"),
                "use true (the default) or false",
            ));
        }
    };
    let key_location = get("ssl.key.location")?.map(PathBuf::from);
    if let Some(key) = &key_location {
        refuse_encrypted_key(key)?;
    }
    let (min_version, max_version) = match get("ssl.enabled.protocols")? {
        None => (None, None),
        Some(list) => enabled_versions(&list)?,
    };
    Ok(Tls {
        ca_location,
        verify_certificate,
        verify_hostname,
        certificate_location: get("ssl.certificate.location")?.map(PathBuf::from),
        key_location,
        min_version,
        max_version,
    })
}

/// native-tls reads unencrypted PKCS#8 keys only: an encrypted one is refused before any
/// connection, with the way to decrypt it, rather than failing in the handshake.
fn refuse_encrypted_key(path: &std::path::Path) -> Result<()> {
    let Ok(pem) = std::fs::read(path) else {
        return Ok(()); // the connection names the unreadable file
    };
    let text = String::from_utf8_lossy(&pem);
    if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        || text.contains("Proc-Type: 4,ENCRYPTED")
    {
        return Err(hinted(
            format!("ssl.key.location {} holds an encrypted key, which indoubt cannot read yet", path.display()),
            "decrypt it into a file only you can read: (umask 077; openssl pkey -in encrypted-key.pem -out client-key.pem), then give -X ssl.key.location=client-key.pem without ssl.key.password",
        ));
    }
    Ok(())
}

/// Java's ssl.enabled.protocols (`TLSv1.2,TLSv1.3`): the lowest and highest of the versions
/// indoubt speaks; older ones listed are left out, never spoken.
fn enabled_versions(list: &str) -> Result<(Option<TlsVersion>, Option<TlsVersion>)> {
    let mut versions = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name.to_ascii_uppercase().as_str() {
            "TLSV1.3" => versions.push(TlsVersion::V1_3),
            "TLSV1.2" => versions.push(TlsVersion::V1_2),
            "TLSV1.1" | "TLSV1" | "SSLV3" | "SSLV2HELLO" => {}
            _ => {
                return Err(hinted(
                    format!("ssl.enabled.protocols: unknown TLS version {name:?}"),
                    "list TLSv1.2 and/or TLSv1.3",
                ))
            }
        }
    }
    match (versions.iter().min(), versions.iter().max()) {
        (Some(&min), Some(&max)) => Ok((Some(min), Some(max))),
        _ => Err(hinted(
            "ssl.enabled.protocols allows no TLS version indoubt speaks",
            "indoubt speaks TLSv1.2 and TLSv1.3",
        )),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures in private temporary directories
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
        let s = from_properties(&props(&[
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

        let s = from_properties(&props(&[
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

    fn tls(pairs: &[(&str, &str)]) -> Result<Tls> {
        let mut all = props(&[("security.protocol", "SSL")]);
        all.extend(props(pairs));
        Ok(from_properties_with_env(&all, &|_| None)?.tls.expect("SSL"))
    }

    #[test]
    fn the_identification_algorithm_is_https_none_or_empty_and_nothing_else() {
        let verify = |v: &str| {
            tls(&[("ssl.endpoint.identification.algorithm", v)]).map(|t| t.verify_hostname)
        };
        assert!(!verify("").unwrap(), "Java's empty value");
        assert!(!verify("none").unwrap(), "librdkafka's none");
        assert!(!verify(" NONE ").unwrap());
        assert!(verify("https").unwrap());
        assert!(verify("HTTPS").unwrap());
        assert!(tls(&[]).unwrap().verify_hostname, "the default checks");
        for typo in ["htps", "http", "true", "off", "https,none"] {
            let err = verify(typo).unwrap_err();
            assert!(
                crate::error::hint_of(&err).unwrap().contains("https"),
                "{typo}: {err}"
            );
        }
    }

    #[test]
    fn certificate_verification_is_a_strict_boolean() {
        let verify = |v: &str| {
            tls(&[("enable.ssl.certificate.verification", v)]).map(|t| t.verify_certificate)
        };
        assert!(verify("true").unwrap() && !verify("FALSE").unwrap());
        assert!(verify("flase").is_err() && verify("0").is_err());
    }

    #[test]
    fn a_misspelt_property_is_refused_not_dropped() {
        let err = from_properties(&props(&[("securty.protocol", "SSL")])).unwrap_err();
        assert_eq!(
            crate::error::hint_of(&err),
            Some("did you mean security.protocol?")
        );
        // Producer and consumer settings of a Java file are known, and change nothing.
        let s = from_properties(&props(&[
            (
                "key.serializer",
                "org.apache.kafka.common.serialization.StringSerializer",
            ),
            ("acks", "all"),
            ("group.id", "g"),
        ]))
        .unwrap();
        assert_eq!(s.protocol(), "PLAINTEXT");
    }

    #[test]
    fn stores_indoubt_cannot_read_are_refused_with_the_conversion() {
        let err = tls(&[("ssl.truststore.location", "/etc/kafka/truststore.jks")]).unwrap_err();
        let hint = crate::error::hint_of(&err).unwrap();
        assert!(
            hint.contains("keytool -importkeystore")
                && hint.contains("-deststoretype PKCS12")
                && hint.contains("openssl pkcs12")
                && hint.contains("ssl.ca.location"),
            "{hint}"
        );
        assert!(tls(&[
            ("ssl.truststore.location", "/x.p12"),
            ("ssl.truststore.type", "PKCS12")
        ])
        .is_err());
        let err = tls(&[("ssl.keystore.location", "/etc/kafka/client.p12")]).unwrap_err();
        assert!(crate::error::hint_of(&err)
            .unwrap()
            .contains("ssl.certificate.location"));
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "").unwrap();
        let t = tls(&[
            ("ssl.truststore.location", &ca.to_string_lossy()),
            ("ssl.truststore.type", "PEM"),
        ])
        .unwrap();
        assert_eq!(
            t.ca_location.as_deref(),
            Some(ca.as_path()),
            "a PEM truststore is a CA file"
        );
    }

    #[test]
    fn an_encrypted_key_is_refused_before_connecting() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.pem");
        std::fs::write(
            &key,
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
        )
        .unwrap();
        let err = tls(&[
            ("ssl.key.location", &key.to_string_lossy()),
            ("ssl.key.password", "hunter2"),
        ])
        .unwrap_err();
        assert!(
            crate::error::hint_of(&err)
                .unwrap()
                .contains("openssl pkey"),
            "{err}"
        );
        assert!(!format!("{err:#}").contains("hunter2"));
    }

    #[test]
    fn enabled_protocols_bound_the_tls_versions() {
        let range =
            |v: &str| tls(&[("ssl.enabled.protocols", v)]).map(|t| (t.min_version, t.max_version));
        assert_eq!(
            range("TLSv1.2,TLSv1.3").unwrap(),
            (Some(TlsVersion::V1_2), Some(TlsVersion::V1_3))
        );
        assert_eq!(
            range("TLSv1.3").unwrap(),
            (Some(TlsVersion::V1_3), Some(TlsVersion::V1_3))
        );
        assert_eq!(
            range("TLSv1.2, TLSv1.1, TLSv1").unwrap(),
            (Some(TlsVersion::V1_2), Some(TlsVersion::V1_2))
        );
        assert!(range("TLSv1.1").is_err() && range("TLS1.3").is_err());
    }

    #[test]
    fn secrets_come_from_config_providers() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secrets.properties");
        std::fs::write(&file, "password=from-file\n").unwrap();
        let env = |k: &str| (k == "KAFKA_USER").then(|| "svc".to_string());
        let s = from_properties_with_env(
            &props(&[
                ("security.protocol", "SASL_PLAINTEXT"),
                ("config.providers", "file,env"),
                (
                    "config.providers.file.class",
                    "org.apache.kafka.common.config.provider.FileConfigProvider",
                ),
                (
                    "config.providers.env.class",
                    "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                ),
                ("sasl.username", "${env:KAFKA_USER}"),
                (
                    "sasl.password",
                    &format!("${{file:{}:password}}", file.display()),
                ),
            ]),
            &env,
        )
        .unwrap();
        let sasl = s.sasl.unwrap();
        assert_eq!(
            (sasl.username.as_str(), sasl.password.as_str()),
            ("svc", "from-file")
        );
    }

    #[test]
    fn refusals() {
        assert!(from_properties(&props(&[("security.protocol", "KERBEROS")])).is_err());
        assert!(from_properties(&props(&[("security.protocol", "SASL_SSL")])).is_err());
        assert!(from_properties(&props(&[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "NTLM"),
            ("sasl.username", "u"),
            ("sasl.password", "p")
        ]))
        .is_err());
        assert_eq!(
            from_properties(&props(&[])).unwrap().protocol(),
            "PLAINTEXT"
        );
    }
}
