//! SASL GSSAPI (Kerberos, RFC 4752) over Kafka's SaslAuthenticate: a Kerberos security
//! context with the broker's service principal `SERVICE/HOST`, then the security layer
//! negotiation (the broker offers "none", the only layer Kafka uses, and we take it).

use super::conn::Connection;
use super::gss::{self, Context, Failure, Missing};
// The settings are the security layer's (kafka::security holds every mechanism's); named
// here too, where the exchange uses them.
use super::security::Mechanism;
pub use super::security::{Credentials, Kerberos};
use anyhow::Result;
use bytes::Bytes;
use std::fmt;

/// What went wrong, as far as a hint can tell from Kerberos's status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// No usable tickets: no ticket cache, an empty one, or its tickets expired.
    NoTicket,
    /// The KDC does not know the client principal.
    UnknownClient,
    /// The KDC does not know the broker's service principal `SERVICE/HOST`.
    UnknownServer,
    /// The clocks of this machine and the KDC (or broker) differ too much.
    ClockSkew,
    /// The keytab's key is not the KDC's (an older key version, a wrong password).
    WrongKey,
    /// The keytab has no key for the principal.
    NotInKeytab,
    /// The keytab file cannot be read.
    KeytabUnreadable,
    /// No KDC of the realm could be found or reached (krb5.conf).
    NoKdc,
    Other,
}

// Kerberos's error codes (com_err table "krb5", MIT krb5_err.et), as minor statuses.
const KRB5_BASE: u32 = 0x96c7_3a00;
fn krb5(offset: u32) -> u32 {
    KRB5_BASE.wrapping_add(offset)
}

/// The call name of a keytab that could not be opened (no GSS-API status).
const OPEN_KEYTAB: &str = "opening the keytab";

fn classify(failure: &Failure, credentials: &Credentials) -> Problem {
    let minor = failure.minor;
    let keytab = matches!(credentials, Credentials::Keytab { .. });
    if failure.call == OPEN_KEYTAB {
        Problem::KeytabUnreadable
    } else if minor == krb5(6) {
        Problem::UnknownClient
    } else if minor == krb5(7) {
        Problem::UnknownServer
    } else if minor == krb5(37) || minor == krb5(148) {
        Problem::ClockSkew
    } else if minor == krb5(24) || minor == krb5(31) || minor == krb5(230) {
        Problem::WrongKey
    } else if minor == krb5(181)
        || minor == krb5(182)
        // MIT's answer when the keytab has no key for the name: it fell back to the
        // (private, empty) cache and found nothing there.
        || (keytab && minor == krb5(195))
    {
        Problem::NotInKeytab
    } else if minor == krb5(154) || minor == krb5(156) || minor == krb5(220) {
        Problem::NoKdc
    } else if minor == krb5(32)
        || minor == krb5(195)
        || minor == krb5(141)
        || failure.major & 0xffff_0000 == gss::S_NO_CRED
        || failure.major & 0xffff_0000 == gss::S_CREDENTIALS_EXPIRED
    {
        Problem::NoTicket
    } else {
        Problem::Other
    }
}

/// A Kerberos failure, with what was asked of whom: the application words its hint from
/// `problem` and the names.
#[derive(Debug, Clone)]
pub enum KerberosError {
    /// The system's GSS-API library is missing.
    Library(Missing),
    /// A GSS-API call failed.
    Gss {
        broker: String,
        /// The broker's service principal as asked of the KDC, `SERVICE/HOST`.
        service: String,
        /// The client's credentials, described (principal, keytab or ticket cache).
        client: String,
        credentials: Credentials,
        problem: Problem,
        failure: Failure,
    },
    /// The broker's security layer message was not what RFC 4752 says.
    Layer { broker: String, message: String },
}

impl fmt::Display for KerberosError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KerberosError::Library(missing) => missing.fmt(f),
            KerberosError::Gss {
                service,
                client,
                failure,
                ..
            } => {
                write!(
                    f,
                    "Kerberos authentication to {service} with {client} failed: {failure}"
                )?;
                if failure.major != 0 || failure.minor != 0 {
                    write!(
                        f,
                        " (major {:#x}, minor {:#x})",
                        failure.major, failure.minor
                    )?;
                }
                Ok(())
            }
            KerberosError::Layer { broker, message } => {
                write!(f, "SASL GSSAPI with {broker}: {message}")
            }
        }
    }
}

impl std::error::Error for KerberosError {}

/// The host part of `host:port` (an IPv6 address without its brackets).
fn host_of(address: &str) -> &str {
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

/// A private in-memory cache per process and credentials, so a keytab's tickets are got
/// once for every connection of the run and never land in the user's cache.
fn memory_cache(keytab: &std::path::Path, principal: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{}\0{principal}", keytab.display()).as_bytes());
    let tag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("MEMORY:indoubt-{}-{tag}", std::process::id())
}

/// The credentials and a fresh context for `SERVICE@HOST` (blocking: acquiring from a
/// keytab may ask the KDC for a ticket-granting ticket).
fn start(lib: &'static gss::Library, kerberos: &Kerberos, host: &str) -> Result<Context, Failure> {
    let target = lib.service_name(&kerberos.service_name, host)?;
    let cred = match &kerberos.credentials {
        Credentials::Keytab { keytab, principal } => {
            // MIT says only "no credentials cache found" of a keytab it cannot read.
            if let Err(e) = std::fs::File::open(keytab) {
                return Err(Failure {
                    call: OPEN_KEYTAB,
                    major: 0,
                    minor: 0,
                    text: format!("{}: {e}", keytab.display()),
                });
            }
            let name = lib.principal_name(principal)?;
            let keytab_text = keytab.to_string_lossy();
            let cache = memory_cache(keytab, principal);
            lib.acquire(
                Some(&name),
                &[("client_keytab", &keytab_text), ("ccache", &cache)],
            )?
        }
        Credentials::TicketCache { cache, principal } => {
            let name = principal
                .as_deref()
                .map(|p| lib.principal_name(p))
                .transpose()?;
            let store: Vec<(&str, &str)> = cache.iter().map(|c| ("ccache", c.as_str())).collect();
            lib.acquire(name.as_ref(), &store)?
        }
    };
    Ok(Context::new(
        cred,
        target,
        gss::C_MUTUAL_FLAG | gss::C_INTEG_FLAG,
    ))
}

/// One blocking GSS-API step off the runtime's thread: the context goes to a blocking
/// task and comes back, so the connection's deadline still bounds the wait.
async fn blocking<T: Send + 'static>(
    context: Context,
    f: impl FnOnce(&mut Context) -> Result<T, Failure> + Send + 'static,
) -> Result<(Context, T), Failure> {
    let joined = tokio::task::spawn_blocking(move || {
        let mut context = context;
        let out = f(&mut context);
        out.map(|t| (context, t))
    })
    .await;
    joined.unwrap_or_else(|e| {
        Err(Failure {
            call: "gss_init_sec_context",
            major: 0,
            minor: 0,
            text: format!("the GSS-API call did not finish: {e}"),
        })
    })
}

impl Connection {
    /// The GSSAPI exchange after SaslHandshake: context tokens until it is established
    /// (the broker proving itself too: mutual authentication), then RFC 4752 3.1's
    /// security layer message, answered with "no security layer" and no authorization id.
    pub(super) async fn authenticate_gssapi(
        &mut self,
        kerberos: &Kerberos,
        version: i16,
    ) -> Result<()> {
        let broker = self.address.clone();
        let host = host_of(&broker).to_string();
        let service = format!("{}/{host}", kerberos.service_name);
        let lib = gss::library().map_err(KerberosError::Library)?;
        let fail = |failure: Failure| -> anyhow::Error {
            KerberosError::Gss {
                broker: broker.clone(),
                service: service.clone(),
                client: kerberos.credentials.describe(),
                credentials: kerberos.credentials.clone(),
                problem: classify(&failure, &kerberos.credentials),
                failure,
            }
            .into()
        };
        let owned = kerberos.clone();
        let context = match tokio::task::spawn_blocking(move || start(lib, &owned, &host)).await {
            Ok(started) => started.map_err(fail)?,
            Err(e) => anyhow::bail!("starting Kerberos authentication: {e}"),
        };
        let mut context = context;
        let mut input: Option<Vec<u8>> = None;
        let challenge = loop {
            let (back, step) = blocking(context, move |c| c.step(input.as_deref()))
                .await
                .map_err(fail)?;
            context = back;
            let answer = self
                .sasl_step(Mechanism::Gssapi, Bytes::from(step.token), version)
                .await?;
            if step.complete {
                if step.flags & gss::C_MUTUAL_FLAG == 0 {
                    return Err(KerberosError::Layer {
                        broker: broker.clone(),
                        message: "the security context was established without mutual authentication: the broker did not prove its identity".to_string(),
                    }
                    .into());
                }
                break answer;
            }
            input = Some(answer.to_vec());
        };
        let offer = context.unwrap(&challenge).map_err(fail)?;
        let reply = layer_reply(&offer).map_err(|message| KerberosError::Layer {
            broker: broker.clone(),
            message,
        })?;
        let wrapped = context.wrap(&reply).map_err(fail)?;
        self.sasl_step(Mechanism::Gssapi, Bytes::from(wrapped), version)
            .await?;
        Ok(())
    }
}

/// RFC 4752 3.1: the server's offer is a bit-mask of security layers (1: none,
/// 2: integrity, 4: confidentiality) and a 3-byte maximum message size. Kafka protects
/// nothing with SASL layers, so we answer "none" with size 0 and no authorization id
/// (the broker then authorizes the authenticated principal itself).
pub fn layer_reply(offer: &[u8]) -> Result<Vec<u8>, String> {
    const NONE: u8 = 1;
    match offer {
        [layers, _, _, _] if layers & NONE != 0 => Ok(vec![NONE, 0, 0, 0]),
        [layers, _, _, _] => Err(format!(
            "the broker requires a SASL security layer (offered {layers:#04x}), which indoubt does not speak: Kafka's own listeners offer none"
        )),
        _ => Err(format!(
            "the broker's security layer message has {} bytes, not 4",
            offer.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_security_layer_is_chosen_when_offered() {
        assert_eq!(layer_reply(&[0x07, 0x01, 0x00, 0x00]), Ok(vec![1, 0, 0, 0]));
        assert_eq!(layer_reply(&[0x01, 0xff, 0xff, 0xff]), Ok(vec![1, 0, 0, 0]));
    }

    #[test]
    fn a_broker_requiring_a_layer_or_a_malformed_offer_is_refused() {
        assert!(layer_reply(&[0x06, 0, 0x10, 0])
            .unwrap_err()
            .contains("requires a SASL security layer"));
        assert!(layer_reply(&[1, 0, 0]).unwrap_err().contains("3 bytes"));
    }

    #[test]
    fn the_service_host_is_the_dialled_host() {
        assert_eq!(host_of("localhost:9092"), "localhost");
        assert_eq!(host_of("[::1]:9092"), "::1");
        assert_eq!(host_of("broker-1.example.com:9093"), "broker-1.example.com");
    }

    #[test]
    fn kerberos_status_codes_name_their_problem() {
        let failure = |major, minor| Failure {
            call: "gss_init_sec_context",
            major,
            minor,
            text: String::new(),
        };
        let cache = Credentials::TicketCache {
            cache: None,
            principal: None,
        };
        let keytab = Credentials::Keytab {
            keytab: "/k".into(),
            principal: "p@R".into(),
        };
        let of = |major, minor| classify(&failure(major, minor), &cache);
        assert_eq!(of(0xd0000, krb5(7)), Problem::UnknownServer);
        assert_eq!(of(gss::S_NO_CRED, krb5(6)), Problem::UnknownClient);
        assert_eq!(of(0xd0000, krb5(37)), Problem::ClockSkew);
        assert_eq!(of(gss::S_NO_CRED, 0), Problem::NoTicket);
        assert_eq!(of(gss::S_NO_CRED, krb5(195)), Problem::NoTicket);
        assert_eq!(
            classify(&failure(gss::S_NO_CRED, krb5(195)), &keytab),
            Problem::NotInKeytab
        );
        assert_eq!(of(0xd0000, 2), Problem::Other);
    }
}
