//! The client side of SASL/SCRAM (RFC 5802) with SHA-256 or SHA-512, as Kafka brokers speak it.

use anyhow::{bail, Context, Result};
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};

#[derive(Debug, Clone, Copy)]
pub enum Hash {
    Sha256,
    Sha512,
}

impl Hash {
    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => {
                let mut mac =
                    <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
            Hash::Sha512 => {
                let mut mac =
                    <Hmac<Sha512> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
        }
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(data).to_vec(),
            Hash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    /// PBKDF2 with this HMAC, one block (the key length equals the hash length).
    fn salted_password(self, password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
        let mut block = salt.to_vec();
        block.extend_from_slice(&1u32.to_be_bytes());
        let mut u = self.hmac(password, &block);
        let mut result = u.clone();
        for _ in 1..iterations {
            u = self.hmac(password, &u);
            result.iter_mut().zip(&u).for_each(|(r, x)| *r ^= x);
        }
        result
    }
}

/// One SCRAM exchange: `first()`, then `respond(server_first)`, then `verify(server_final)`.
pub struct Scram {
    hash: Hash,
    password: String,
    client_first_bare: String,
    nonce: String,
    auth_message: String,
    salted_password: Vec<u8>,
}

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

impl Scram {
    pub fn new(hash: Hash, username: &str, password: &str, nonce: String) -> Scram {
        // RFC 5802 saslname: ',' and '=' are escaped.
        let name = username.replace('=', "=3D").replace(',', "=2C");
        Scram {
            hash,
            password: password.to_string(),
            client_first_bare: format!("n={name},r={nonce}"),
            nonce,
            auth_message: String::new(),
            salted_password: Vec::new(),
        }
    }

    pub fn first(&self) -> Vec<u8> {
        format!("n,,{}", self.client_first_bare).into_bytes()
    }

    pub fn respond(&mut self, server_first: &[u8]) -> Result<Vec<u8>> {
        let server_first =
            std::str::from_utf8(server_first).context("SCRAM server-first message is not UTF-8")?;
        let field = |name: &str| {
            server_first
                .split(',')
                .find_map(|part| part.strip_prefix(&format!("{name}=")))
                .with_context(|| format!("SCRAM server-first message lacks {name}="))
        };
        let nonce = field("r")?;
        if !nonce.starts_with(&self.nonce) || nonce.len() <= self.nonce.len() {
            bail!("SCRAM server nonce does not extend ours: refusing to continue");
        }
        let salt = B64
            .decode(field("s")?)
            .context("SCRAM salt is not base64")?;
        let iterations: u32 = field("i")?
            .parse()
            .context("SCRAM iteration count is not a number")?;
        if !(1..=1_000_000).contains(&iterations) {
            bail!("SCRAM iteration count {iterations} is out of range");
        }
        self.salted_password =
            self.hash
                .salted_password(self.password.as_bytes(), &salt, iterations);
        let client_key = self.hash.hmac(&self.salted_password, b"Client Key");
        let stored_key = self.hash.digest(&client_key);
        let without_proof = format!("c=biws,r={nonce}");
        self.auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let signature = self.hash.hmac(&stored_key, self.auth_message.as_bytes());
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&signature)
            .map(|(k, s)| k ^ s)
            .collect();
        Ok(format!("{without_proof},p={}", B64.encode(proof)).into_bytes())
    }

    /// Checks the server's signature: it proves the broker knows our password too.
    pub fn verify(&self, server_final: &[u8]) -> Result<()> {
        let text =
            std::str::from_utf8(server_final).context("SCRAM server-final message is not UTF-8")?;
        if let Some(error) = text.strip_prefix("e=") {
            bail!("SCRAM authentication failed: {error}");
        }
        let verifier = text
            .strip_prefix("v=")
            .context("SCRAM server-final message lacks v=")?;
        let server_key = self.hash.hmac(&self.salted_password, b"Server Key");
        let expected = self.hash.hmac(&server_key, self.auth_message.as_bytes());
        if B64.decode(verifier).ok().as_deref() != Some(&expected[..]) {
            bail!("SCRAM server signature does not match: the broker did not prove it knows the password");
        }
        Ok(())
    }
}

/// A fresh client nonce from the kernel's random source.
pub fn nonce() -> Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("reading /dev/urandom for a SCRAM nonce")?;
    Ok(B64.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's SCRAM-SHA-256 example exchange.
    #[test]
    fn rfc7677_test_vector() {
        let mut scram = Scram::new(
            Hash::Sha256,
            "user",
            "pencil",
            "rOprNGfwEbeRWgbNEkqO".into(),
        );
        assert_eq!(scram.first(), b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let reply = scram
            .respond(b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
            .unwrap();
        assert_eq!(
            String::from_utf8(reply).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        scram
            .verify(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap();
        assert!(scram.verify(b"v=AAAA").is_err());
    }

    #[test]
    fn refuses_a_nonce_that_is_not_ours() {
        let mut scram = Scram::new(Hash::Sha512, "u", "p", "abc".into());
        assert!(scram.respond(b"r=xyz,s=AAAA,i=4096").is_err());
    }
}
