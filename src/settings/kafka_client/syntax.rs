//! The syntax the client properties are written in, and nothing more: a Java properties
//! file's lines, and a config provider's reference (`${provider:[path:]key}`). Reading
//! the files and resolving the references is their callers' (target.rs, providers.rs).

use anyhow::{Context, Result};

/// Kafka's ConfigTransformer pattern: `${provider:[path:]key}`.
pub(super) fn reference_pattern() -> &'static regex::Regex {
    static PATTERN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| {
        regex::Regex::new(r"\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}").expect("static regex")
    })
}

/// Whether the whole value is one reference (shown as it is: it names where the secret
/// is, not the secret).
pub fn is_reference(value: &str) -> bool {
    let value = value.trim();
    reference_pattern()
        .find(value)
        .is_some_and(|m| m.start() == 0 && m.end() == value.len())
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
mod tests {
    use super::*;
    use std::collections::BTreeMap;

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
    fn whole_references_are_recognised() {
        assert!(is_reference("${env:X}"));
        assert!(is_reference(" ${file:/a/b:c} "));
        assert!(!is_reference("pw${env:X}"));
        assert!(!is_reference("hunter2"));
    }
}
