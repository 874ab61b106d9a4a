//! The hint of a Kerberos failure of the Kafka client (SASL GSSAPI), in the client
//! properties' names and the Kerberos tools' (the client itself knows neither).

use crate::kafka::gss::LIBRARY;
use crate::kafka::gssapi::{Credentials, KerberosError, Problem};

/// What to do about a Kerberos failure, from what it was and what was asked.
pub(super) fn hint(error: &KerberosError) -> Option<String> {
    let (service, credentials, problem) = match error {
        KerberosError::Library(_) => {
            return Some(format!(
                "install MIT Kerberos's GSS-API library ({LIBRARY}): apt-get install libgssapi-krb5-2 on Debian and Ubuntu, dnf install krb5-libs on Fedora and RHEL; PLAIN and SCRAM need no Kerberos library"
            ))
        }
        KerberosError::Layer { .. } => return None,
        KerberosError::Gss {
            service,
            credentials,
            problem,
            ..
        } => (service, credentials, *problem),
    };
    let (keytab, principal) = match credentials {
        Credentials::Keytab { keytab, principal } => {
            (Some(keytab.display().to_string()), Some(principal.as_str()))
        }
        Credentials::TicketCache { principal, .. } => (None, principal.as_deref()),
    };
    let list = match &keytab {
        Some(keytab) => format!("klist -k {keytab} lists the keytab's principals"),
        None => "klist shows the ticket cache's".to_string(),
    };
    Some(match problem {
        Problem::NoTicket => match keytab {
            None => format!(
                "no valid ticket: run kinit{} (klist shows the cache; KRB5CCNAME names it), or give a keytab with sasl.kerberos.keytab and sasl.kerberos.principal",
                principal.map(|p| format!(" {p}")).unwrap_or_default()
            ),
            Some(keytab) => format!(
                "no ticket could be had with the keytab {keytab}: check it with kinit -k -t {keytab} {}",
                principal.unwrap_or("PRINCIPAL")
            ),
        },
        Problem::UnknownClient => format!(
            "the KDC does not know the client principal{}: check sasl.kerberos.principal (or principal= of the Krb5LoginModule line) and its realm; {list}",
            principal.map(|p| format!(" {p}")).unwrap_or_default()
        ),
        Problem::UnknownServer => format!(
            "the KDC has no principal {service}: sasl.kerberos.service.name must be the first part of the brokers' principal, and each broker must be dialled by the host name in it (the bootstrap servers, and the host of the brokers' advertised.listeners), used as given with rdns = false and dns_canonicalize_hostname = false in krb5.conf"
        ),
        Problem::ClockSkew => "this machine's clock and the KDC's (or the broker's) differ by more than Kerberos allows (5 minutes by default): synchronise the clocks (chrony, systemd-timesyncd)".to_string(),
        Problem::WrongKey => format!(
            "the keytab's key is not the one the KDC has for that principal (re-keyed since the keytab was made?): export a fresh keytab; {list}"
        ),
        Problem::NotInKeytab => format!(
            "the keytab holds no key for {}: set sasl.kerberos.principal to one of its principals; {list}",
            principal.unwrap_or("that principal")
        ),
        Problem::KeytabUnreadable => "check sasl.kerberos.keytab (keyTab= in the Krb5LoginModule line): the file must exist and be readable by this user".to_string(),
        Problem::NoKdc => "no KDC of the realm could be reached: check the krb5.conf in use (KRB5_CONFIG names it; [realms] REALM = { kdc = host:port }) and that the KDC runs".to_string(),
        Problem::Other => "check the Kerberos setup: the krb5.conf in use (KRB5_CONFIG), the principal, and the keytab or ticket cache (klist)".to_string(),
    })
}
