//! A Kafka cluster to talk to: bootstrap servers and client properties, from the config or
//! flags; Java properties files and `-X` arguments read, and shown with secrets masked.

use super::properties;
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
    if !properties::is_secret(key) || super::providers::is_reference(value) {
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

/// One `key=value` of a properties file, with the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub line: usize,
    pub key: String,
    pub value: String,
}

/// java.util.Properties.load: a key ends at the first unescaped '=', ':' or blank, one
/// separator and the blanks round it are skipped, the value runs to the end of the
/// logical line (trailing blanks kept); `#`/`!` comment lines; a line ending in an odd
/// number of '\' continues on the next (its leading blanks dropped); escapes `\t \n \r
/// \f \uXXXX`, and '\' before any other character stands for that character.
pub fn parse_properties(text: &str) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let is_blank = |c: char| matches!(c, ' ' | '\t' | '\u{c}');
    let mut lines = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate();
    while let Some((index, raw)) = lines.next() {
        let line_no = index + 1;
        let first = raw.trim_start_matches(is_blank);
        if first.is_empty() || first.starts_with('#') || first.starts_with('!') {
            continue;
        }
        // Join continuation lines, keeping the escapes for the decoding below.
        let mut logical = String::new();
        let mut part = first;
        loop {
            let trailing = part.chars().rev().take_while(|&c| c == '\\').count();
            if trailing % 2 == 0 {
                logical.push_str(part);
                break;
            }
            logical.push_str(&part[..part.len() - 1]);
            match lines.next() {
                Some((_, next)) => part = next.trim_start_matches(is_blank),
                None => break,
            }
        }
        let chars: Vec<char> = logical.chars().collect();
        let mut key_end = chars.len();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '\\' => i += 2,
                c if c == '=' || c == ':' || is_blank(c) => {
                    key_end = i;
                    break;
                }
                _ => i += 1,
            }
        }
        let mut v = key_end;
        while v < chars.len() && is_blank(chars[v]) {
            v += 1;
        }
        if v < chars.len() && matches!(chars[v], '=' | ':') {
            v += 1;
            while v < chars.len() && is_blank(chars[v]) {
                v += 1;
            }
        }
        let key = unescape(&chars[..key_end]).with_context(|| format!("line {line_no}"))?;
        let value = unescape(&chars[v..]).with_context(|| format!("line {line_no}"))?;
        entries.push(Entry {
            line: line_no,
            key,
            value,
        });
    }
    Ok(entries)
}

fn unescape(chars: &[char]) -> Result<String> {
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '\\' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        match chars.get(i) {
            None => {}
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.get(i + 1..i + 5).unwrap_or(&[]).iter().collect();
                let code = u32::from_str_radix(&hex, 16)
                    .ok()
                    .filter(|_| hex.len() == 4)
                    .context("malformed \\uXXXX escape")?;
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                i += 4;
            }
            Some(&c) => out.push(c),
        }
        i += 1;
    }
    Ok(out)
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

    fn map(text: &str) -> BTreeMap<String, String> {
        parse_properties(text)
            .unwrap()
            .into_iter()
            .map(|e| (e.key, e.value))
            .collect()
    }

    #[test]
    fn java_properties_with_comments_and_continuations() {
        let p = map(
            "# comment\nsecurity.protocol=SASL_SSL\nsasl.mechanism: SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n  username=\"u\" password=\"p\";\n",
        );
        assert_eq!(p["security.protocol"], "SASL_SSL");
        assert_eq!(p["sasl.mechanism"], "SCRAM-SHA-512");
        assert!(p["sasl.jaas.config"].ends_with("required username=\"u\" password=\"p\";"));
    }

    #[test]
    fn java_properties_the_way_java_reads_them() {
        let p = map(concat!(
            "  ! a comment too\r\n",
            "sasl.mechanism PLAIN\n", // a blank separates too
            "ssl.ca.location = C:\\\\certs\\\\ca.pem\n", // '\\' is one backslash
            "sasl.password=p\\=w\\:d\\u0041 \n", // escapes; the trailing blank stays
            "sasl.username=a\\\\\n",  // an even number of '\': no continuation
            "client.id=x\n",
            "key\\ with\\ blanks=v\n",
        ));
        assert_eq!(p["sasl.mechanism"], "PLAIN");
        assert_eq!(p["ssl.ca.location"], "C:\\certs\\ca.pem");
        assert_eq!(p["sasl.password"], "p=w:dA ");
        assert_eq!(p["sasl.username"], "a\\");
        assert_eq!(p["client.id"], "x");
        assert_eq!(p["key with blanks"], "v");
        let lines: Vec<usize> = parse_properties("# c\n\na=1\nb=2 \\\n  3\nc=4\n")
            .unwrap()
            .iter()
            .map(|e| e.line)
            .collect();
        assert_eq!(lines, [3, 4, 6]);
        assert!(parse_properties("a=\\u12").is_err());
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
