//! A Kafka cluster to talk to: bootstrap servers and client properties, from the config or
//! flags; Java properties files and `-X` arguments read, and shown with secrets masked.

use super::properties;
use super::syntax::{is_reference, parse_properties};
use crate::config::KafkaTargetConfig;
use crate::error::hinted;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct KafkaTarget {
    pub bootstrap: Vec<String>,
    /// Client properties (librdkafka names), the file's first and the explicit ones over them.
    pub properties: BTreeMap<String, String>,
}

impl KafkaTarget {
    pub fn from_config(name: &str, config: &KafkaTargetConfig) -> Result<KafkaTarget> {
        let context = || format!("kafka target {name:?}");
        let mut properties = match &config.properties_file {
            Some(path) => read_properties_file(path).with_context(context)?,
            None => BTreeMap::new(),
        };
        for (key, value) in &config.properties {
            properties::check(key, value)
                .with_context(|| format!("kafka target {name:?}: properties"))?;
            properties.insert(key.clone(), value.clone());
        }
        Ok(KafkaTarget {
            bootstrap: parse_bootstrap(&config.bootstrap_servers).with_context(context)?,
            properties,
        })
    }

    /// The properties with every secret masked (a JAAS line keeps all but its secrets),
    /// for display.
    pub fn redacted_properties(&self) -> BTreeMap<String, String> {
        self.properties
            .iter()
            .map(|(k, v)| (k.clone(), redact_value(k, v)))
            .collect()
    }
}

/// A property's value as it may be shown: a secret one masked, a JAAS line with its
/// passwords masked, a value that is one `${provider:…}` reference kept (it names where
/// the secret is, not the secret).
pub fn redact_value(key: &str, value: &str) -> String {
    if !properties::is_secret(key) || is_reference(value) {
        value.to_string()
    } else if key == "sasl.jaas.config" {
        super::jaas::redact(value)
    } else {
        "<redacted>".to_string()
    }
}

/// A `-X` argument, `key=value`: the key trimmed, the value as given (kcat's split at the
/// first '='). The error never quotes the argument: it may be a password.
pub fn parse_property_arg(arg: &str) -> Result<(String, String)> {
    let (key, value) = arg.split_once('=').ok_or_else(|| {
        hinted(
            "-X takes key=value, got a word without '='",
            "e.g. -X security.protocol=SASL_SSL",
        )
    })?;
    Ok((key.trim().to_string(), value.to_string()))
}

/// A `-X` argument as it may be shown: the key and '=' as typed, a secret value masked.
/// An argument that is not key=value is masked whole.
pub fn redact_property_arg(arg: &str) -> String {
    match arg.split_once('=') {
        Some((raw_key, value)) => format!("{raw_key}={}", redact_value(raw_key.trim(), value)),
        None => "<redacted: not key=value>".to_string(),
    }
}

/// Kafka tools' `host:port[,host:port…]`; a missing port is an error, not a guess.
pub fn parse_bootstrap(text: &str) -> Result<Vec<String>> {
    let servers: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if servers.is_empty() {
        bail!("bootstrap servers are empty: give host:port[,host:port…]");
    }
    for server in &servers {
        let port = server.rsplit_once(':').map(|(_, p)| p);
        if port.and_then(|p| p.parse::<u16>().ok()).is_none() {
            bail!("bootstrap server {server:?} is not host:port");
        }
    }
    Ok(servers)
}

/// A Java properties file as kafka tools read `--command-config`, every name checked
/// against the table of known properties (a bad one is named with its file and line).
pub fn read_properties_file(path: &Path) -> Result<BTreeMap<String, String>> {
    let file = crate::fsafe::read_settings(path, "properties file")
        .with_context(|| format!("reading properties file {}", path.display()))?;
    let mut properties = BTreeMap::new();
    let entries = parse_properties(&file.text)
        .with_context(|| format!("properties file {}", path.display()))?;
    if entries
        .iter()
        .any(|e| properties::holds_inline_secret(&e.key, &e.value))
    {
        file.warn_if_others_can_read();
    }
    for entry in entries {
        properties::check(&entry.key, &entry.value)
            .with_context(|| format!("{}:{}", path.display(), entry.line))?;
        properties.insert(entry.key, entry.value);
    }
    Ok(properties)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures in private temporary directories
mod tests {
    use super::*;

    #[test]
    fn bootstrap_needs_ports() {
        assert_eq!(
            parse_bootstrap("k1:9092, k2:9093").unwrap(),
            vec!["k1:9092", "k2:9093"]
        );
        assert!(parse_bootstrap("k1").is_err());
        assert!(parse_bootstrap(" , ").is_err());
    }

    #[test]
    fn a_file_with_an_unknown_property_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("client.properties");
        std::fs::write(&file, "acks=all\nkey.serializer=org.apache.kafka.common.serialization.StringSerializer\nsecurty.protocol=SSL\n").unwrap();
        let err = read_properties_file(&file).unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains(&format!("{}:3", file.display())), "{text}");
        assert!(text.contains("securty.protocol"), "{text}");
        assert_eq!(
            crate::error::hint_of(&err),
            Some("did you mean security.protocol?")
        );
    }

    #[test]
    fn property_arguments_and_their_masks() {
        assert_eq!(
            parse_property_arg("sasl.password = a=b").unwrap(),
            ("sasl.password".to_string(), " a=b".to_string())
        );
        assert!(parse_property_arg("hunter2").is_err());
        assert!(!format!("{:#}", parse_property_arg("hunter2").unwrap_err()).contains("hunter2"));
        assert_eq!(
            redact_property_arg("sasl.password = x"),
            "sasl.password =<redacted>"
        );
        assert_eq!(
            redact_property_arg("sasl.username=svc"),
            "sasl.username=svc"
        );
        assert_eq!(
            redact_property_arg("sasl.pasword=x"),
            "sasl.pasword=<redacted>"
        );
        assert_eq!(
            redact_property_arg("sasl.password=${env:KAFKA_PASSWORD}"),
            "sasl.password=${env:KAFKA_PASSWORD}"
        );
        assert_eq!(redact_property_arg("hunter2"), "<redacted: not key=value>");
    }

    #[test]
    fn secrets_are_redacted_for_display() {
        let target = KafkaTarget {
            bootstrap: vec!["k:9092".into()],
            properties: [
                ("sasl.password".to_string(), "hunter2".to_string()),
                ("ssl.key.password".to_string(), "hunter3".to_string()),
                ("sasl.username".to_string(), "svc".to_string()),
                (
                    "sasl.jaas.config".to_string(),
                    "PlainLoginModule required username=\"svc\" password=\"hunter4\";".to_string(),
                ),
                (
                    "sasl.oauthbearer.client.secret".to_string(),
                    "hunter5".to_string(),
                ),
            ]
            .into(),
        };
        let shown = format!("{:?}", target.redacted_properties());
        assert!(
            !shown.contains("hunter") && shown.contains("username=\\\"svc\\\""),
            "{shown}"
        );
    }
}
