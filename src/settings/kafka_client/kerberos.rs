//! The Kerberos (SASL GSSAPI) client properties, librdkafka's (`sasl.kerberos.*`) and the
//! Java client's (`sasl.jaas.config` with Krb5LoginModule), into the typed settings the
//! Kafka client takes.

use super::jaas::LoginModule;
use crate::error::hinted;
use crate::kafka::gssapi::{Credentials, Kerberos};
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
