//! The Java client's `sasl.jaas.config`: `LoginModule flag key=value …;`, tokenised the
//! way Kafka's JaasConfig does (java.io.StreamTokenizer: quotes, escapes, comments), so
//! the user and password are read, and masked, exactly where Java finds them.

use anyhow::{bail, Result};
use std::ops::Range;

/// One option of a login module line and where its value is written (quotes included).
#[derive(Debug, Clone)]
pub struct JaasOption {
    pub key: String,
    pub value: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone)]
pub struct LoginModule {
    pub class: String,
    pub options: Vec<JaasOption>,
}

impl LoginModule {
    pub fn option(&self, key: &str) -> Option<&str> {
        // Java keeps options in a map: a repeated key's last value wins.
        self.options
            .iter()
            .rev()
            .find(|o| o.key == key)
            .map(|o| o.value.as_str())
    }
}

#[derive(Debug, PartialEq)]
enum Kind {
    /// A word or a quoted string: StreamTokenizer's `sval`.
    Text(String),
    Equals,
    Semicolon,
    /// An ordinary character with no `sval` (bytes 129–159).
    Other,
}

struct Token {
    kind: Kind,
    span: Range<usize>,
}

/// Every login module of the value, in order. Messages never quote the text.
pub fn parse(text: &str) -> Result<Vec<LoginModule>> {
    let tokens = tokenize(text);
    let mut modules = Vec::new();
    let mut i = 0;
    let text_at = |i: usize| match tokens.get(i).map(|t| &t.kind) {
        Some(Kind::Text(s)) => Some(s.clone()),
        _ => None,
    };
    while i < tokens.len() {
        let Some(class) = text_at(i) else {
            bail!("invalid sasl.jaas.config: a login module class is missing");
        };
        i += 1;
        let Some(flag) = text_at(i) else {
            bail!("invalid sasl.jaas.config: the login module control flag is missing");
        };
        if !["REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL"]
            .contains(&flag.to_ascii_uppercase().as_str())
        {
            bail!("invalid sasl.jaas.config: the control flag is not required, requisite, sufficient or optional");
        }
        i += 1;
        let mut options = Vec::new();
        loop {
            match tokens.get(i).map(|t| &t.kind) {
                None => bail!("invalid sasl.jaas.config: the entry does not end with ';'"),
                Some(Kind::Semicolon) => {
                    i += 1;
                    break;
                }
                Some(_) => {}
            }
            let key = text_at(i).unwrap_or_default();
            if tokens.get(i + 1).map(|t| &t.kind) != Some(&Kind::Equals) {
                bail!("invalid sasl.jaas.config: an option without '=value'");
            }
            let Some(value) = text_at(i + 2) else {
                bail!("invalid sasl.jaas.config: an option without a value");
            };
            options.push(JaasOption {
                key,
                value,
                span: tokens[i + 2].span.clone(),
            });
            i += 3;
        }
        modules.push(LoginModule { class, options });
    }
    if modules.is_empty() {
        bail!("invalid sasl.jaas.config: no login module");
    }
    Ok(modules)
}

/// The value with every password or secret option masked; a value Java would not parse is
/// masked whole (where its password starts cannot be known). A whole `${…}` reference is
/// no secret and stays.
pub fn redact(text: &str) -> String {
    let Ok(modules) = parse(text) else {
        return "<redacted: not a JAAS line indoubt accepts>".to_string();
    };
    let mut spans: Vec<Range<usize>> = modules
        .iter()
        .flat_map(|m| &m.options)
        .filter(|o| is_secret_option(&o.key) && !super::syntax::is_reference(&o.value))
        .map(|o| o.span.clone())
        .collect();
    spans.sort_by_key(|s| s.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.push_str("\"<redacted>\"");
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// password (PLAIN, SCRAM), clientSecret (OAUTHBEARER), user_NAME (a broker's PLAIN users).
fn is_secret_option(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    lower.contains("password") || lower.contains("secret") || lower.starts_with("user_")
}

/// java.io.StreamTokenizer as Kafka's JaasConfig sets it up: bytes up to ' ' are space,
/// '/' starts a comment (`//`, `/* */`, or a lone '/' to the end of the line), `"` and `'`
/// quote (to the same quote or the end of the line, with C escapes), `=` and `;` stand
/// alone, every other character up to 128 and from 160 makes words.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |i: usize| chars.get(i).map(|&(b, _)| b).unwrap_or(text.len());
    let is_word = |c: char| {
        let n = c as u32;
        ((33..=128).contains(&n) || n >= 160) && !matches!(c, '/' | '"' | '\'' | ';' | '=')
    };
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if (c as u32) <= 32 {
            i += 1;
        } else if c == '/' {
            match chars.get(i + 1).map(|&(_, c)| c) {
                Some('*') => {
                    i += 2;
                    while i < chars.len()
                        && !(chars[i].1 == '*' && chars.get(i + 1).map(|&(_, c)| c) == Some('/'))
                    {
                        i += 1;
                    }
                    i += 2;
                }
                _ => {
                    while i < chars.len() && !matches!(chars[i].1, '\n' | '\r') {
                        i += 1;
                    }
                }
            }
        } else if c == '"' || c == '\'' {
            let quote = c;
            let mut value = String::new();
            i += 1;
            loop {
                match chars.get(i).map(|&(_, c)| c) {
                    None | Some('\n') | Some('\r') => break,
                    Some(q) if q == quote => {
                        i += 1;
                        break;
                    }
                    Some('\\') => {
                        i += 1;
                        match chars.get(i).map(|&(_, c)| c) {
                            None => break,
                            Some(d @ '0'..='7') => {
                                // Up to three octal digits (three only when the first is 0–3).
                                let max = if d <= '3' { 3 } else { 2 };
                                let mut n = 0u32;
                                let mut taken = 0;
                                while taken < max {
                                    match chars.get(i).map(|&(_, c)| c) {
                                        Some(o @ '0'..='7') => {
                                            n = n * 8 + (o as u32 - '0' as u32);
                                            i += 1;
                                            taken += 1;
                                        }
                                        _ => break,
                                    }
                                }
                                value.push(char::from_u32(n).unwrap_or('\u{fffd}'));
                            }
                            Some(e) => {
                                value.push(match e {
                                    'a' => '\u{7}',
                                    'b' => '\u{8}',
                                    'f' => '\u{c}',
                                    'n' => '\n',
                                    'r' => '\r',
                                    't' => '\t',
                                    'v' => '\u{b}',
                                    other => other,
                                });
                                i += 1;
                            }
                        }
                    }
                    Some(other) => {
                        value.push(other);
                        i += 1;
                    }
                }
            }
            tokens.push(Token {
                kind: Kind::Text(value),
                span: start..end_of(i),
            });
        } else if c == '=' || c == ';' {
            tokens.push(Token {
                kind: if c == '=' {
                    Kind::Equals
                } else {
                    Kind::Semicolon
                },
                span: start..end_of(i + 1),
            });
            i += 1;
        } else if is_word(c) {
            let mut word = String::new();
            while i < chars.len() && is_word(chars[i].1) {
                word.push(chars[i].1);
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Text(word),
                span: start..end_of(i),
            });
        } else {
            tokens.push(Token {
                kind: Kind::Other,
                span: start..end_of(i + 1),
            });
            i += 1;
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_scram_lines() {
        let m = &parse("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"s3 cr\\\"et\";").unwrap()[0];
        assert_eq!(
            m.class,
            "org.apache.kafka.common.security.plain.PlainLoginModule"
        );
        assert_eq!(m.option("username"), Some("alice"));
        assert_eq!(m.option("password"), Some("s3 cr\"et"));
        // Unquoted values, spaces round '=', single quotes and comments, as Java reads them.
        let m = &parse("ScramLoginModule REQUIRED /* c */ username = bob\n password='p w' // x\n;")
            .unwrap()[0];
        assert_eq!(
            (m.option("username"), m.option("password")),
            (Some("bob"), Some("p w"))
        );
    }

    #[test]
    fn what_java_refuses_is_refused() {
        for bad in [
            "",
            "Module",
            "Module required username=\"u\"",
            "Module maybe username=\"u\";",
            "Module required username;",
            "Module required username=;",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn passwords_and_secrets_are_masked_where_java_reads_them() {
        let line = "PlainLoginModule required username=\"alice\" password = 'hunter2 \\' x' clientSecret=s3cret;";
        let masked = redact(line);
        assert!(
            !masked.contains("hunter2") && !masked.contains("s3cret"),
            "{masked}"
        );
        assert!(masked.contains("username=\"alice\""), "{masked}");
        assert_eq!(
            redact("PlainLoginModule required password=\"hunter2"),
            "<redacted: not a JAAS line indoubt accepts>"
        );
        let reference =
            "PlainLoginModule required username=u password=\"${file:/etc/k.properties:pw}\";";
        assert_eq!(redact(reference), reference);
    }
}
