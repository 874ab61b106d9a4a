//! Reading TLS material: PEM certificates and private keys in every form OpenSSL writes
//! (PKCS#8, encrypted PKCS#8, PKCS#1 RSA, SEC1 EC), PKCS#12 key- and truststores; a file
//! of another kind (DER, JKS, JCEKS) is recognised by its first bytes and named.

use super::failure::{Format, TlsError};
use super::{split_pem_certificates, ClientIdentity, Material, Password};
use openssl::pkcs12::Pkcs12;
use openssl::pkey::{PKey, Private};
use openssl::x509::X509;

/// What a file is, by its first bytes (and, for DER, by what parses).
pub fn sniff(bytes: &[u8]) -> Format {
    if bytes.starts_with(&[0xfe, 0xed, 0xfe, 0xed]) {
        return Format::Jks;
    }
    if bytes.starts_with(&[0xce, 0xce, 0xce, 0xce]) {
        return Format::Jceks;
    }
    if String::from_utf8_lossy(bytes).contains("-----BEGIN ") {
        return Format::Pem;
    }
    if bytes.first() == Some(&0x30) {
        if X509::from_der(bytes).is_ok() {
            return Format::DerCertificate;
        }
        if Pkcs12::from_der(bytes).is_ok() {
            return Format::Pkcs12;
        }
        if PKey::private_key_from_der(bytes).is_ok() {
            return Format::DerKey;
        }
    }
    if bytes.is_empty() {
        return Format::Empty;
    }
    Format::Unknown
}

/// The certificates of a PEM file (a CA bundle, a chain); a file that is not PEM is named
/// for what it is.
pub fn pem_certificates(material: &Material) -> Result<Vec<X509>, TlsError> {
    let bytes = material.bytes()?;
    let format = sniff(&bytes);
    if matches!(format, Format::Jks | Format::Jceks) {
        return Err(TlsError::JavaKeystore {
            origin: material.origin(),
            path: material.path().map(Into::into),
            found: format,
        });
    }
    if format != Format::Pem {
        return Err(TlsError::NotPem {
            origin: material.origin(),
            path: material.path().map(Into::into),
            found: format,
        });
    }
    let mut certs = Vec::new();
    for block in split_pem_certificates(&bytes) {
        certs.push(X509::from_pem(&block).map_err(|e| TlsError::BadPem {
            origin: material.origin(),
            what: "certificate",
            detail: e.to_string(),
        })?);
    }
    if certs.is_empty() {
        return Err(TlsError::NoCertificate {
            origin: material.origin(),
        });
    }
    Ok(certs)
}

/// The CAs of a PEM CA file or inline PEM.
pub fn ca_certificates(material: &Material) -> Result<Vec<X509>, TlsError> {
    pem_certificates(material)
}

/// The DER bytes of a PKCS#12 store; JKS and JCEKS are refused by their magic bytes.
fn pkcs12_bytes(store: &Material) -> Result<Pkcs12, TlsError> {
    let bytes = store.bytes()?;
    match sniff(&bytes) {
        Format::Pkcs12 => {}
        found @ (Format::Jks | Format::Jceks) => {
            return Err(TlsError::JavaKeystore {
                origin: store.origin(),
                path: store.path().map(Into::into),
                found,
            })
        }
        found => {
            return Err(TlsError::NotPkcs12 {
                origin: store.origin(),
                found,
            })
        }
    }
    Pkcs12::from_der(&bytes).map_err(|e| TlsError::BadStore {
        origin: store.origin(),
        detail: e.to_string(),
    })
}

/// A store's contents with its password (none: the empty one, which keytool never
/// writes but openssl can).
fn open_pkcs12(
    store: &Material,
    password: &Password,
) -> Result<openssl::pkcs12::ParsedPkcs12_2, TlsError> {
    let pkcs12 = pkcs12_bytes(store)?;
    let pass = password.value.as_deref().unwrap_or("");
    pkcs12.parse2(pass).map_err(|e| {
        // The MAC check fails first when the password is wrong (PKCS12_R_MAC_VERIFY_FAILURE).
        let mac = e.errors().iter().any(|e| {
            e.reason_code() == 113 || e.reason().is_some_and(|r| r.contains("mac verify"))
        });
        if mac {
            TlsError::StorePassword {
                origin: store.origin(),
                property: password.property.clone(),
                given: password.value.is_some(),
            }
        } else {
            TlsError::BadStore {
                origin: store.origin(),
                detail: e.to_string(),
            }
        }
    })
}

/// The certificates of a PKCS#12 truststore (keytool's: trusted-certificate entries, no
/// key), or of any PKCS#12 store.
pub fn pkcs12_truststore(store: &Material, password: &Password) -> Result<Vec<X509>, TlsError> {
    let parsed = open_pkcs12(store, password)?;
    let mut certs: Vec<X509> = parsed.cert.into_iter().collect();
    certs.extend(parsed.ca.into_iter().flatten());
    if certs.is_empty() {
        return Err(TlsError::NoCertificate {
            origin: store.origin(),
        });
    }
    Ok(certs)
}

/// The client's certificate chain (leaf first) and its private key, checked to belong
/// together.
pub fn client_identity(identity: &ClientIdentity) -> Result<(Vec<X509>, PKey<Private>), TlsError> {
    let (certs, key, cert_origin, key_origin) = match identity {
        ClientIdentity::Pem {
            certificate,
            key,
            password,
        } => {
            let certs = pem_certificates(certificate)?;
            let key_pem = key.bytes()?;
            let pkey = private_key(key, &key_pem, password)?;
            (certs, pkey, certificate.origin(), key.origin())
        }
        ClientIdentity::Pkcs12 { store, password } => {
            let parsed = open_pkcs12(store, password)?;
            let Some(pkey) = parsed.pkey else {
                return Err(TlsError::StoreWithoutKey {
                    origin: store.origin(),
                });
            };
            let mut certs: Vec<X509> = parsed.cert.into_iter().collect();
            certs.extend(parsed.ca.into_iter().flatten());
            (certs, pkey, store.origin(), store.origin())
        }
    };
    let Some(leaf) = certs.first() else {
        return Err(TlsError::NoCertificate {
            origin: cert_origin,
        });
    };
    let matches = leaf
        .public_key()
        .map(|public| public.public_eq(&key))
        .unwrap_or(false);
    if !matches {
        return Err(TlsError::KeyMismatch {
            certificate: cert_origin,
            key: key_origin,
        });
    }
    Ok((certs, key))
}

/// The first private key block of a PEM text, its headers included: `BEGIN PRIVATE KEY`
/// (PKCS#8), `ENCRYPTED PRIVATE KEY`, `RSA PRIVATE KEY` (PKCS#1, maybe with Proc-Type
/// encryption), `EC PRIVATE KEY` (SEC1). Text around it (Bag Attributes, certificates,
/// EC PARAMETERS) is left out, so the file's order does not matter.
fn key_block(text: &str) -> Option<&str> {
    let mut offset = 0;
    while let Some(at) = text[offset..].find("-----BEGIN ") {
        let start = offset + at;
        let label_end = text[start + 11..].find("-----")? + start + 11;
        let label = &text[start + 11..label_end];
        if label.ends_with("PRIVATE KEY") {
            let end_marker = format!("-----END {label}-----");
            let end = text[label_end..].find(&end_marker)? + label_end + end_marker.len();
            return Some(&text[start..end]);
        }
        offset = label_end;
    }
    None
}

/// A PEM private key of any form; an encrypted one with `password`. Never asks on the
/// terminal (OpenSSL's default when no password is given).
pub fn private_key(
    material: &Material,
    bytes: &[u8],
    password: &Password,
) -> Result<PKey<Private>, TlsError> {
    let text = String::from_utf8_lossy(bytes);
    let Some(block) = key_block(&text) else {
        return Err(TlsError::NoKey {
            origin: material.origin(),
            found: sniff(bytes),
        });
    };
    let encrypted = block.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        || block.contains("Proc-Type: 4,ENCRYPTED");
    if encrypted && password.value.is_none() {
        return Err(TlsError::KeyNeedsPassword {
            origin: material.origin(),
            property: password.property.clone(),
        });
    }
    let given = password.value.as_ref().map(|p| p.as_bytes().to_vec());
    let parsed = PKey::private_key_from_pem_callback(block.as_bytes(), |buf| {
        let Some(pass) = &given else {
            return Ok(0);
        };
        let n = pass.len().min(buf.len());
        buf[..n].copy_from_slice(&pass[..n]);
        Ok(n)
    });
    match parsed {
        Ok(key) => Ok(key),
        Err(_) if encrypted => Err(TlsError::KeyPassword {
            origin: material.origin(),
            property: password.property.clone(),
        }),
        Err(e) => Err(TlsError::BadPem {
            origin: material.origin(),
            what: "private key",
            detail: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds_are_told_by_their_first_bytes() {
        assert_eq!(sniff(&[0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]), Format::Jks);
        assert_eq!(sniff(&[0xce, 0xce, 0xce, 0xce]), Format::Jceks);
        assert_eq!(
            sniff(b"Bag Attributes\n-----BEGIN CERTIFICATE-----\n"),
            Format::Pem
        );
        assert_eq!(sniff(b""), Format::Empty);
        assert_eq!(sniff(b"\x30\x03\x02\x01\x00"), Format::Unknown);
    }

    #[test]
    fn the_key_block_is_found_among_other_blocks() {
        let text = "Bag Attributes\n-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n-----BEGIN EC PARAMETERS-----\nBggq\n-----END EC PARAMETERS-----\n-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n";
        assert_eq!(
            key_block(text),
            Some("-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----")
        );
        let rsa = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nX\n-----END RSA PRIVATE KEY-----";
        assert_eq!(key_block(rsa), Some(rsa));
        assert_eq!(
            key_block("-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----"),
            None
        );
    }

    #[test]
    fn an_encrypted_key_without_a_password_is_refused_without_asking() {
        let key = Material::inline(
            "ssl.key.pem",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
        );
        let bytes = key.bytes().unwrap();
        let err = private_key(&key, &bytes, &Password::none("ssl.key.password")).unwrap_err();
        assert!(matches!(err, TlsError::KeyNeedsPassword { .. }), "{err}");
        assert!(err.to_string().contains("ssl.key.password"), "{err}");
        let err = private_key(&key, &bytes, &Password::new("ssl.key.password", "x")).unwrap_err();
        assert!(err.to_string().contains("ssl.key.password"), "{err}");
    }
}
