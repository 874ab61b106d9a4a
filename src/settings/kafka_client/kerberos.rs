//! The Kerberos (SASL GSSAPI) client properties, librdkafka's (`sasl.kerberos.*`) and the
//! Java client's (`sasl.jaas.config` with Krb5LoginModule), into the typed settings the
//! Kafka client takes.

use super::jaas::LoginModule;
use crate::error::hinted;
use crate::kafka::gss::LIBRARY;
use crate::kafka::gssapi::{Credentials, Kerberos, KerberosError, Problem};
use anyhow::Result;
use std::path::PathBuf;

/// The service name both clients default to: brokers run as `kafka/HOST@REALM`.
pub const DEFAULT_SERVICE_NAME: &str = "kafka";

const KRB5_LOGIN_MODULES: [&str; 2] = [
    "com.sun.security.auth.module.Krb5LoginModule",
    "com.ibm.security.auth.module.Krb5LoginModule",
];

/// librdkafka's keytab and principal win over the JAAS line's (as sasl.username does over
/// a PlainLoginModule's); with neither a keytab nor a JAAS line, the ticket cache.
pub fn from_properties(
    get: &dyn Fn(&str) -> Result<Option<String>>,
    jaas: Option<&LoginModule>,
) -> Result<Kerberos> {
    if let Some(module) = jaas {
        if !KRB5_LOGIN_MODULES.contains(&module.class.as_str()) {
            return Err(hinted(
                format!(
                    "sasl.mechanism GSSAPI with a sasl.jaas.config of {}",
                    module.class
                ),
                "GSSAPI takes com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"…\" principal=\"…\"; (or useTicketCache=true), or librdkafka's sasl.kerberos.keytab and sasl.kerberos.principal",
            ));
        }
    }
    let service_name = get("sasl.kerberos.service.name")?
        .or_else(|| {
            jaas.and_then(|m| m.option("serviceName"))
                .map(str::to_string)
        })
        .unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_string());
    if service_name.contains(['/', '@']) {
        return Err(hinted(
            format!("sasl.kerberos.service.name {service_name:?} is a principal, not a service name"),
            "give the first part of the brokers' principal only (kafka for kafka/broker1.example.com@REALM): the host part is the host indoubt dials",
        ));
    }
    let flag = |key: &str| {
        jaas.and_then(|m| m.option(key))
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    };
    let jaas_principal = jaas.and_then(|m| m.option("principal")).map(str::to_string);
    let principal = get("sasl.kerberos.principal")?.or(jaas_principal);
    let keytab = match get("sasl.kerberos.keytab")? {
        Some(keytab) => Some(keytab),
        None if flag("useKeyTab") => Some(
            jaas.and_then(|m| m.option("keyTab"))
                .map(str::to_string)
                .ok_or_else(|| {
                    hinted(
                        "sasl.jaas.config has useKeyTab=true but no keyTab",
                        "add keyTab=\"/path/to/client.keytab\" (and principal=\"name@REALM\") to the Krb5LoginModule line",
                    )
                })?,
        ),
        None => None,
    };
    let credentials = match keytab {
        Some(keytab) => {
            let Some(principal) = principal else {
                return Err(hinted(
                    "a Kerberos keytab without a principal",
                    "set sasl.kerberos.principal (or principal=\"…\" in the Krb5LoginModule line) to the keytab's client principal; klist -k KEYTAB lists them",
                ));
            };
            // MIT Kerberos reads it; checked here, before anything connects: another
            // user's, or one they can change, is refused; one others can read (its keys
            // are a password's equal) is used with a warning, as Kerberos uses it.
            let keytab = PathBuf::from(keytab);
            crate::fsafe::check_secret_file(
                &keytab,
                "Kerberos keytab",
                Some(crate::fsafe::Readers::Warned),
            )?;
            Credentials::Keytab { keytab, principal }
        }
        None if jaas.is_some() && !flag("useTicketCache") => {
            return Err(hinted(
                "sasl.jaas.config's Krb5LoginModule has neither useKeyTab=true nor useTicketCache=true",
                "indoubt takes Kerberos credentials from a keytab (useKeyTab=true keyTab=\"…\" principal=\"…\") or from the ticket cache kinit fills (useTicketCache=true); it never prompts for a password",
            ))
        }
        None => Credentials::TicketCache {
            cache: jaas
                .and_then(|m| m.option("ticketCache"))
                .map(str::to_string),
            principal,
        },
    };
    Ok(Kerberos {
        service_name,
        credentials,
    })
}

/// What to do about a Kerberos failure, from what it was and what was asked.
pub fn hint(error: &KerberosError) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::super::jaas;
    use super::*;
    use std::collections::BTreeMap;

    fn parse(props: &[(&str, &str)], jaas_line: Option<&str>) -> Result<Kerberos> {
        let props: BTreeMap<String, String> = props
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let modules = jaas_line.map(|l| jaas::parse(l).unwrap());
        let module = modules.as_ref().map(|m| &m[0]);
        from_properties(&|k| Ok(props.get(k).cloned()), module)
    }

    #[test]
    fn librdkafka_keytab_and_principal() {
        let k = parse(
            &[
                ("sasl.kerberos.keytab", "/etc/indoubt.keytab"),
                ("sasl.kerberos.principal", "ops@EXAMPLE.COM"),
            ],
            None,
        )
        .unwrap();
        assert_eq!(k.service_name, "kafka");
        assert_eq!(
            k.credentials,
            Credentials::Keytab {
                keytab: "/etc/indoubt.keytab".into(),
                principal: "ops@EXAMPLE.COM".into()
            }
        );
    }

    #[test]
    fn java_krb5_login_module_keytab_and_ticket_cache() {
        let k = parse(&[("sasl.kerberos.service.name", "kafka-prod")], Some(
            r#"com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="/k/a.keytab" principal="a@R";"#,
        ))
        .unwrap();
        assert_eq!(k.service_name, "kafka-prod");
        assert_eq!(
            k.credentials,
            Credentials::Keytab {
                keytab: "/k/a.keytab".into(),
                principal: "a@R".into()
            }
        );
        let k = parse(&[], Some(
            r#"com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true ticketCache="FILE:/tmp/cc";"#,
        ))
        .unwrap();
        assert_eq!(
            k.credentials,
            Credentials::TicketCache {
                cache: Some("FILE:/tmp/cc".into()),
                principal: None
            }
        );
    }

    #[test]
    fn no_keytab_means_the_ticket_cache() {
        let k = parse(&[], None).unwrap();
        assert_eq!(
            k.credentials,
            Credentials::TicketCache {
                cache: None,
                principal: None
            }
        );
    }

    #[test]
    fn incomplete_or_foreign_settings_are_refused() {
        let e = parse(&[("sasl.kerberos.keytab", "/k")], None).unwrap_err();
        assert!(e.to_string().contains("without a principal"), "{e}");
        let e = parse(
            &[],
            Some("com.sun.security.auth.module.Krb5LoginModule required;"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("neither useKeyTab"), "{e}");
        let e = parse(
            &[],
            Some(r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";"#),
        )
        .unwrap_err();
        assert!(e.to_string().contains("PlainLoginModule"), "{e}");
        let e = parse(&[("sasl.kerberos.service.name", "kafka/host@R")], None).unwrap_err();
        assert!(e.to_string().contains("is a principal"), "{e}");
    }
}
