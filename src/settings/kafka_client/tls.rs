//! The TLS material of Kafka client properties, in librdkafka's names (ssl.ca.location,
//! ssl.certificate.location, ssl.key.location, ssl.keystore.location as PKCS#12, the
//! inline ssl.*.pem) and Java's (ssl.truststore.*, ssl.keystore.* with their types, the
//! inline ssl.truststore.certificates / ssl.keystore.certificate.chain / ssl.keystore.key),
//! as src/tls takes it. Two sources of the same thing are refused, never one of them
//! silently preferred.

use crate::error::hinted;
use crate::tls::{ClientIdentity, Material, Password, Trust};
use anyhow::Result;

/// A property's value (provider references resolved; empty is none).
pub type Get<'a> = &'a dyn Fn(&str) -> Result<Option<String>>;

/// The CAs to trust and the client identity the properties name; a file named that does
/// not exist is refused before any connection, and so is one another user owns or can
/// change (crate::fsafe::check_secret_file): whoever can change a CA file or a key can
/// have indoubt talk to their broker as you. A key or keystore others can read is used
/// with a warning, as librdkafka uses it.
pub fn material(get: Get) -> Result<(Trust, Option<ClientIdentity>)> {
    use crate::fsafe::Readers;
    let trust = trust(get)?;
    let identity = identity(get)?;
    let mut files = Vec::new();
    match &trust {
        Trust::System => {}
        Trust::Pem(m) | Trust::Pkcs12 { store: m, .. } => files.push((m, None)),
    }
    match &identity {
        None => {}
        Some(ClientIdentity::Pem {
            certificate, key, ..
        }) => files.extend([(certificate, None), (key, Some(Readers::Warned))]),
        Some(ClientIdentity::Pkcs12 { store, .. }) => files.push((store, Some(Readers::Warned))),
    }
    for (material, readers) in files {
        if let Some(path) = material.path() {
            if !path.exists() {
                anyhow::bail!("{} {} does not exist", material.property, path.display());
            }
            crate::fsafe::check_secret_file(path, &material.property, readers)?;
        }
    }
    Ok((trust, identity))
}

/// One of several properties giving the same thing, or none; two are refused.
fn one_of<T>(what: &str, mut given: Vec<(String, T)>) -> Result<Option<(String, T)>> {
    if given.len() > 1 {
        let names: Vec<&str> = given.iter().map(|(n, _)| n.as_str()).collect();
        return Err(hinted(
            format!("{what} is given twice: {}", names.join(" and ")),
            "keep one of them (librdkafka's and the Java client's names for the same setting)",
        ));
    }
    Ok(given.pop())
}

/// A store type (ssl.keystore.type, ssl.truststore.type): PEM, PKCS12 or JKS (Java's
/// default: a JKS store is refused by its bytes, and Java reads PKCS#12 under that type
/// too); None when not given.
fn store_type(get: Get, property: &str) -> Result<Option<String>> {
    match get(property)? {
        None => Ok(None),
        Some(kind) => {
            let upper = kind.to_ascii_uppercase();
            match upper.as_str() {
                "PEM" | "PKCS12" | "JKS" => Ok(Some(upper)),
                _ => Err(hinted(
                    format!("{property} {kind:?} is not a store type indoubt reads"),
                    "use PKCS12 (a JKS store converts to it with keytool -importkeystore … -deststoretype PKCS12) or PEM",
                )),
            }
        }
    }
}

fn trust(get: Get) -> Result<Trust> {
    let kind = store_type(get, "ssl.truststore.type")?;
    let mut given = Vec::new();
    if let Some(path) = get("ssl.ca.location")? {
        given.push((
            "ssl.ca.location".to_string(),
            Trust::Pem(Material::file("ssl.ca.location", path)),
        ));
    }
    if let Some(pem) = get("ssl.ca.pem")? {
        given.push((
            "ssl.ca.pem".to_string(),
            Trust::Pem(Material::inline("ssl.ca.pem", pem)),
        ));
    }
    if let Some(path) = get("ssl.truststore.location")? {
        let store = Material::file("ssl.truststore.location", path);
        given.push((
            "ssl.truststore.location".to_string(),
            match kind.as_deref() {
                Some("PEM") => Trust::Pem(store),
                _ => Trust::Pkcs12 {
                    store,
                    password: password(get, "ssl.truststore.password")?,
                },
            },
        ));
    }
    if let Some(pem) = get("ssl.truststore.certificates")? {
        given.push((
            "ssl.truststore.certificates".to_string(),
            Trust::Pem(Material::inline("ssl.truststore.certificates", pem)),
        ));
    }
    Ok(one_of("the CAs to trust", given)?
        .map(|(_, t)| t)
        .unwrap_or(Trust::System))
}

fn password(get: Get, property: &str) -> Result<Password> {
    Ok(match get(property)? {
        Some(value) => Password::new(property, value),
        None => Password::none(property),
    })
}

fn identity(get: Get) -> Result<Option<ClientIdentity>> {
    let kind = store_type(get, "ssl.keystore.type")?;
    let key_password = || password(get, "ssl.key.password");
    let file = |p: &str| -> Result<Option<Material>> { Ok(get(p)?.map(|v| Material::file(p, v))) };
    let inline =
        |p: &str| -> Result<Option<Material>> { Ok(get(p)?.map(|v| Material::inline(p, v))) };
    let certificate = one_of(
        "the client certificate",
        [
            file("ssl.certificate.location")?,
            inline("ssl.certificate.pem")?,
            inline("ssl.keystore.certificate.chain")?,
        ]
        .into_iter()
        .flatten()
        .map(|m| (m.property.clone(), m))
        .collect(),
    )?;
    let key = one_of(
        "the client key",
        [
            file("ssl.key.location")?,
            inline("ssl.key.pem")?,
            inline("ssl.keystore.key")?,
        ]
        .into_iter()
        .flatten()
        .map(|m| (m.property.clone(), m))
        .collect(),
    )?;
    let store = get("ssl.keystore.location")?;
    match (store, certificate, key) {
        (None, None, None) => Ok(None),
        (Some(path), None, None) => {
            let store = Material::file("ssl.keystore.location", path);
            Ok(Some(match kind.as_deref() {
                // Java's PEM keystore: the key (ssl.key.password for an encrypted one) and
                // its certificate chain in one file.
                Some("PEM") => ClientIdentity::Pem {
                    certificate: store.clone(),
                    key: store,
                    password: key_password()?,
                },
                _ => ClientIdentity::Pkcs12 {
                    store,
                    password: password(get, "ssl.keystore.password")?,
                },
            }))
        }
        (None, Some((_, certificate)), Some((_, key))) => Ok(Some(ClientIdentity::Pem {
            certificate,
            key,
            password: key_password()?,
        })),
        (Some(_), Some((other, _)), _) | (Some(_), _, Some((other, _))) => Err(hinted(
            format!("the client certificate is given twice: ssl.keystore.location and {other}"),
            "keep either the keystore or the certificate and key",
        )),
        (None, Some((cert, _)), None) => Err(hinted(
            format!("{cert} is given without its key"),
            "give the key too: ssl.key.location (or ssl.key.pem; Java: ssl.keystore.key)",
        )),
        (None, None, Some((key, _))) => Err(hinted(
            format!("{key} is given without its certificate"),
            "give the certificate too: ssl.certificate.location (or ssl.certificate.pem; Java: ssl.keystore.certificate.chain)",
        )),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures in private temporary directories
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn with(pairs: &[(&str, &str)]) -> Result<(Trust, Option<ClientIdentity>)> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        // Every path names a file that exists (in a private temporary directory).
        let map: BTreeMap<String, String> = map
            .into_iter()
            .map(|(k, v)| {
                if v.starts_with('/') {
                    let path = dir.path().join(v.trim_start_matches('/'));
                    std::fs::write(&path, "").unwrap();
                    (k, path.to_string_lossy().into_owned())
                } else {
                    (k, v)
                }
            })
            .collect();
        material(&|k| Ok(map.get(k).cloned()))
    }

    #[test]
    fn each_name_gives_its_form() {
        assert!(matches!(with(&[]).unwrap(), (Trust::System, None)));
        let (trust, identity) = with(&[
            ("ssl.truststore.location", "/t.p12"),
            ("ssl.truststore.password", "pw"),
            ("ssl.keystore.location", "/k.p12"),
            ("ssl.keystore.password", "pw"),
        ])
        .unwrap();
        assert!(matches!(trust, Trust::Pkcs12 { .. }));
        assert!(matches!(identity, Some(ClientIdentity::Pkcs12 { .. })));
        let (trust, identity) = with(&[
            ("ssl.truststore.type", "pem"),
            ("ssl.truststore.location", "/ca.pem"),
            ("ssl.keystore.type", "PEM"),
            ("ssl.keystore.location", "/keystore.pem"),
        ])
        .unwrap();
        assert!(matches!(trust, Trust::Pem(_)));
        let Some(ClientIdentity::Pem {
            certificate,
            key,
            password,
        }) = identity
        else {
            panic!("a PEM keystore");
        };
        assert_eq!(
            (certificate.property.as_str(), key.property.as_str()),
            ("ssl.keystore.location", "ssl.keystore.location")
        );
        assert_eq!(password.property, "ssl.key.password");
        let (_, identity) = with(&[
            ("ssl.certificate.location", "/c.pem"),
            ("ssl.key.pem", "-----BEGIN PRIVATE KEY-----"),
        ])
        .unwrap();
        assert!(matches!(identity, Some(ClientIdentity::Pem { .. })));
    }

    #[test]
    fn two_sources_of_one_thing_and_halves_are_refused() {
        for pairs in [
            &[("ssl.ca.location", "/a"), ("ssl.truststore.location", "/b")][..],
            &[("ssl.ca.location", "/a"), ("ssl.ca.pem", "x")][..],
            &[
                ("ssl.keystore.location", "/k"),
                ("ssl.certificate.location", "/c"),
                ("ssl.key.location", "/k"),
            ][..],
            &[("ssl.certificate.location", "/c")][..],
            &[("ssl.keystore.key", "k")][..],
            &[
                ("ssl.keystore.type", "BCFKS"),
                ("ssl.keystore.location", "/k"),
            ][..],
        ] {
            assert!(with(pairs).is_err(), "{pairs:?}");
        }
    }
}
