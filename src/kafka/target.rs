//! A Kafka cluster to talk to: bootstrap servers and client properties, from the config or flags.

use crate::config::KafkaTargetConfig;
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
        let mut properties = match &config.properties_file {
            Some(path) => read_properties_file(path)?,
            None => BTreeMap::new(),
        };
        properties.extend(config.properties.clone());
        Ok(KafkaTarget {
            bootstrap: parse_bootstrap(&config.bootstrap_servers)
                .with_context(|| format!("kafka target {name:?}"))?,
            properties,
        })
    }

    /// The properties with every secret-bearing value replaced, for display.
    pub fn redacted_properties(&self) -> BTreeMap<String, String> {
        self.properties
            .iter()
            .map(|(k, v)| {
                let v = if is_secret(k) {
                    "<redacted>".to_string()
                } else {
                    v.clone()
                };
                (k.clone(), v)
            })
            .collect()
    }
}

fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "password",
        "secret",
        "jaas",
        "token",
        "key.pem",
        "keystore.key",
    ]
    .iter()
    .any(|s| key.contains(s))
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

/// A Java properties file as kafka tools read `--command-config`: `key=value` or
/// `key: value` lines, `#`/`!` comments, trailing `\` continuing a line.
pub fn read_properties_file(path: &Path) -> Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading properties file {}", path.display()))?;
    Ok(parse_properties(&text))
}

fn parse_properties(text: &str) -> BTreeMap<String, String> {
    let mut properties = BTreeMap::new();
    let mut pending = String::new();
    for raw in text.lines() {
        let line = raw.trim_start();
        if pending.is_empty() && (line.is_empty() || line.starts_with('#') || line.starts_with('!'))
        {
            continue;
        }
        if let Some(continued) = line.strip_suffix('\\') {
            pending.push_str(continued);
            continue;
        }
        pending.push_str(line);
        let entry = std::mem::take(&mut pending);
        let split = entry.find(['=', ':']).unwrap_or(entry.len());
        let key = entry[..split].trim().to_string();
        let value = entry.get(split + 1..).unwrap_or("").trim().to_string();
        if !key.is_empty() {
            properties.insert(key, value);
        }
    }
    properties
}

#[cfg(test)]
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
    fn java_properties_with_comments_and_continuations() {
        let p = parse_properties(
            "# comment\nsecurity.protocol=SASL_SSL\nsasl.mechanism: SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n  username=\"u\" password=\"p\";\n",
        );
        assert_eq!(p["security.protocol"], "SASL_SSL");
        assert_eq!(p["sasl.mechanism"], "SCRAM-SHA-512");
        assert!(p["sasl.jaas.config"].ends_with("password=\"p\";"));
    }

    #[test]
    fn secrets_are_redacted_for_display() {
        let target = KafkaTarget {
            bootstrap: vec!["k:9092".into()],
            properties: [
                ("sasl.password".to_string(), "hunter2".to_string()),
                ("ssl.key.password".to_string(), "hunter3".to_string()),
                ("sasl.username".to_string(), "svc".to_string()),
            ]
            .into(),
        };
        let shown = format!("{:?}", target.redacted_properties());
        assert!(
            !shown.contains("hunter") && shown.contains("svc"),
            "{shown}"
        );
    }
}
