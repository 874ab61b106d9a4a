//! SASL/OAUTHBEARER on the wire (RFC 7628, KIP-255): the client's first message (a GS2
//! header, the bearer token and the SASL extensions) and the broker's answer to a token
//! it refuses (a JSON error, answered with a lone separator, after which it fails).

use std::fmt;

/// RFC 7628's key/value separator (`kvsep`, %x01).
const SEP: char = '\u{1}';

/// The client's first (and, when the token is good, only) message: `n,,` (no
/// authorization identity), then `auth=Bearer <token>` and each extension, each followed
/// by the separator, and one more separator to end the list.
pub fn client_first(token: &str, extensions: &[(String, String)]) -> Vec<u8> {
    let mut message = format!("n,,{SEP}auth=Bearer {token}");
    for (key, value) in extensions {
        message.push(SEP);
        message.push_str(key);
        message.push('=');
        message.push_str(value);
    }
    message.push(SEP);
    message.push(SEP);
    message.into_bytes()
}

/// What the client sends after the broker's error JSON: the lone separator RFC 7628 §3.2.3
/// asks for; the broker then fails the authentication.
pub fn error_acknowledgement() -> Vec<u8> {
    vec![SEP as u8]
}

/// Whether a token may be sent at all: RFC 6750's b64token characters, which keeps a
/// separator or a line break in a file or a command's output from being sent as part of
/// the message.
pub fn valid_token(token: &str) -> bool {
    !token.is_empty()
        && token.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
        })
}

/// An extension's key: letters only (RFC 7628 §3.1), and `auth` is the token's own.
pub fn valid_extension_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphabetic()) && key != "auth"
}

/// An extension's value: visible ASCII, space, tab, CR and LF (RFC 7628 §3.1).
pub fn valid_extension_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| (0x21..=0x7e).contains(&b) || matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// The broker's refusal of a token: the error JSON of RFC 7628 §3.2.2 (Kafka sends
/// `status` and, when it has them, `scope` and `openid-configuration`), and the message
/// of the failed SaslAuthenticate that follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: String,
    pub scope: Option<String>,
    pub openid_configuration: Option<String>,
    pub broker_message: Option<String>,
    /// What the token presented says of itself (unverified claims), for the operator to
    /// compare with what the listener expects.
    pub token_claims: Option<String>,
}

impl Refusal {
    /// The broker's error JSON; None when the bytes are not one (a broker that answered
    /// with something else is named by the caller, never guessed at).
    pub fn from_server_message(bytes: &[u8]) -> Option<Refusal> {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(clean);
        Some(Refusal {
            status: text("status")?,
            scope: text("scope"),
            openid_configuration: text("openid-configuration"),
            broker_message: None,
            token_claims: None,
        })
    }

    /// What to check, by the status the broker gave (RFC 6750 §3.1's codes, as Kafka's
    /// validators use them).
    pub fn what_to_check(&self) -> &'static str {
        match self.status.as_str() {
            "invalid_token" => "the broker could not validate the token: check that the token is not expired, that its audience (aud) and issuer (iss) are the ones the listener expects (sasl.oauthbearer.expected.audience, .expected.issuer on the broker), that it is signed by a key of the broker's JWKS (sasl.oauthbearer.jwks.endpoint.url), and that it has the subject claim the broker reads (sasl.oauthbearer.sub.claim.name)",
            "insufficient_scope" => "the token lacks a scope the broker requires: ask for it with sasl.oauthbearer.scope (Java: scope= in the JAAS line)",
            _ => "check the token source (sasl.oauthbearer.method, .client.id, .token.endpoint.url, .scope) and the broker's OAUTHBEARER listener settings",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the broker refused the OAUTHBEARER token: status {}",
            self.status
        )?;
        if let Some(scope) = &self.scope {
            write!(f, ", scope {scope:?}")?;
        }
        if let Some(url) = &self.openid_configuration {
            write!(f, ", openid-configuration {url}")?;
        }
        if let Some(message) = &self.broker_message {
            write!(f, " ({message})")?;
        }
        if let Some(claims) = &self.token_claims {
            write!(f, "; the token says: {claims}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Refusal {}

/// Server text, shown to an operator: control characters dropped, length bounded.
fn clean(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(500).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_message_is_the_gs2_header_the_token_and_the_extensions() {
        assert_eq!(
            client_first("eyJ.x.y", &[]),
            b"n,,\x01auth=Bearer eyJ.x.y\x01\x01".to_vec()
        );
        assert_eq!(
            client_first(
                "t",
                &[
                    ("logicalCluster".into(), "lkc-1".into()),
                    ("identityPoolId".into(), "pool-2".into())
                ]
            ),
            b"n,,\x01auth=Bearer t\x01logicalCluster=lkc-1\x01identityPoolId=pool-2\x01\x01"
                .to_vec()
        );
    }

    #[test]
    fn a_token_with_a_separator_or_a_line_break_is_not_a_token() {
        assert!(valid_token("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0."));
        assert!(!valid_token("abc\x01auth=Bearer x"));
        assert!(!valid_token("abc\n"));
        assert!(!valid_token(""));
        assert!(!valid_token("a b"));
    }

    #[test]
    fn extension_keys_are_letters_and_not_auth() {
        assert!(valid_extension_key("logicalCluster"));
        assert!(!valid_extension_key("auth"));
        assert!(!valid_extension_key("x_1"));
        assert!(!valid_extension_key(""));
        assert!(valid_extension_value("lkc-1 a\tb"));
        assert!(!valid_extension_value("a\x01b"));
    }

    #[test]
    fn the_brokers_error_json_is_read_and_other_bytes_are_not() {
        let refusal = Refusal::from_server_message(
            br#"{"status":"insufficient_scope","scope":"kafka admin","openid-configuration":"https://idp/.well-known/openid-configuration"}"#,
        )
        .unwrap();
        assert_eq!(refusal.status, "insufficient_scope");
        assert_eq!(refusal.scope.as_deref(), Some("kafka admin"));
        assert!(refusal.what_to_check().contains("sasl.oauthbearer.scope"));
        let text = refusal.to_string();
        assert!(
            text.contains("insufficient_scope") && text.contains("kafka admin"),
            "{text}"
        );
        let plain = Refusal::from_server_message(br#"{"status":"invalid_token"}"#).unwrap();
        assert!(plain.what_to_check().contains("expected.audience"));
        assert_eq!(Refusal::from_server_message(b"not json"), None);
        assert_eq!(Refusal::from_server_message(br#"{"scope":"x"}"#), None);
        let hostile = Refusal::from_server_message(b"{\"status\":\"bad\\u001b[31m\"}").unwrap();
        assert_eq!(hostile.status, "bad[31m");
    }
}
