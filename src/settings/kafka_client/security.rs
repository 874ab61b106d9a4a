//! The security part of a Kafka target's client properties (librdkafka names, plus the
//! Java names kafka tools' `--command-config` files use), parsed into the client's typed
//! [`Security`]: every name known, every value that would weaken the connection refused
//! rather than read loosely.

use super::jaas;
use super::Values;
use crate::error::hinted;
#[cfg(test)]
use crate::kafka::security::{ClientIdentity, Trust};
use crate::kafka::security::{Mechanism, Sasl, Security, Tls, TlsVersion};
use anyhow::{bail, Result};
use std::collections::BTreeMap;

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
        let mechanism =
            match get("sasl.mechanism")?
                .or(get("sasl.mechanisms")?)
                .unwrap_or_else(|| "PLAIN".into())
                .to_ascii_uppercase()
                .as_str()
            {
                "PLAIN" => Mechanism::Plain,
                "SCRAM-SHA-256" => Mechanism::ScramSha256,
                "SCRAM-SHA-512" => Mechanism::ScramSha512,
                "OAUTHBEARER" => Mechanism::OAuthBearer,
                "GSSAPI" => Mechanism::Gssapi,
                other => return Err(hinted(
                    format!("unsupported sasl.mechanism {other:?}"),
                    "indoubt speaks PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER and GSSAPI",
                )),
            };
        let modules = get("sasl.jaas.config")?
            .map(|line| jaas::parse(&line))
            .transpose()?;
        let first = modules.as_ref().map(|m| &m[0]);
        // The token mechanisms carry their own credentials, not a user and password.
        let token = match mechanism {
            Mechanism::OAuthBearer => Some((
                Some(super::oauthbearer::from_properties(
                    &get,
                    modules.as_deref(),
                )?),
                None,
            )),
            Mechanism::Gssapi => Some((None, Some(super::kerberos::from_properties(&get, first)?))),
            _ => None,
        };
        if let Some((oauthbearer, kerberos)) = token {
            return Ok(Security {
                tls,
                sasl: Some(Sasl {
                    mechanism,
                    username: String::new(),
                    password: String::new(),
                    oauthbearer,
                    kerberos,
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
                oauthbearer: None,
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
    // The CAs and the client identity, from whichever names and forms are given.
    let (trust, identity) = super::tls::material(&get)?;
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
    let (min_version, max_version) = match get("ssl.enabled.protocols")? {
        None => (None, None),
        Some(list) => enabled_versions(&list)?,
    };
    Ok(Tls {
        trust,
        verify_certificate,
        verify_hostname,
        identity,
        min_version,
        max_version,
    })
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
    fn stores_and_keys_are_taken_in_the_form_their_names_and_types_say() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, "").unwrap();
            path.to_string_lossy().into_owned()
        };
        let (p12, ca, key) = (file("t.p12"), file("ca.pem"), file("key.pem"));
        let t = tls(&[
            ("ssl.truststore.location", &p12),
            ("ssl.truststore.password", "hunter2"),
            ("ssl.keystore.location", &p12),
            ("ssl.keystore.password", "hunter2"),
        ])
        .unwrap();
        assert!(matches!(t.trust, Trust::Pkcs12 { .. }), "{t:?}");
        assert!(
            matches!(t.identity, Some(ClientIdentity::Pkcs12 { .. })),
            "{t:?}"
        );
        assert!(!format!("{t:?}").contains("hunter2"));
        let t = tls(&[
            ("ssl.truststore.location", &ca),
            ("ssl.truststore.type", "PEM"),
        ])
        .unwrap();
        let Trust::Pem(material) = &t.trust else {
            panic!("a PEM truststore is a CA file: {t:?}");
        };
        assert_eq!(material.path(), Some(std::path::Path::new(&ca)));
        // An encrypted key is read with ssl.key.password now: no refusal before connecting.
        let t = tls(&[
            ("ssl.certificate.location", &ca),
            ("ssl.key.location", &key),
            ("ssl.key.password", "hunter2"),
        ])
        .unwrap();
        let Some(ClientIdentity::Pem { password, .. }) = &t.identity else {
            panic!("{t:?}");
        };
        assert_eq!(password.value.as_deref(), Some("hunter2"));
        let err = tls(&[("ssl.keystore.location", "/nowhere/client.p12")]).unwrap_err();
        assert!(
            err.to_string()
                .contains("ssl.keystore.location /nowhere/client.p12 does not exist"),
            "{err}"
        );
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
