//! OAUTHBEARER tokens: where they come from (an unsecured JWT made here, OIDC client
//! credentials from a token endpoint, or a source the application supplies: a file, a
//! command) and the cache that hands one to every connection, fetching a new one once
//! 80% of the current one's life has passed (as the Java client's refresh window does),
//! so a long run never presents an expired token.

use super::oauthbearer;
use crate::http::{self, HttpTrust};
use anyhow::{anyhow, bail, Result};
use base64::Engine as _;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// The share of a token's life after which a new one is fetched.
const REFRESH_AT: f64 = 0.8;
/// A token whose life is unknown (no `exp`, no `expires_in`) is fetched again this often.
const UNKNOWN_LIFE: Duration = Duration::from_secs(60);

/// A bearer token and how long it had to live when it was obtained.
#[derive(Clone)]
pub struct Token {
    pub value: String,
    /// None: the source did not say (not a JWT, no `exp` claim, no `expires_in`).
    pub lifetime: Option<Duration>,
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token(<redacted>, {:?})", self.lifetime)
    }
}

impl Token {
    /// A token as a source produced it: checked to be sendable, its life read from its
    /// `exp` claim when it is a JWT and the source gave none.
    pub fn new(value: String, lifetime: Option<Duration>) -> Result<Token> {
        let value = value.trim().to_string();
        if !oauthbearer::valid_token(&value) {
            bail!("the OAUTHBEARER token is empty or holds characters a bearer token cannot (RFC 6750: letters, digits, -._~+/=)");
        }
        let lifetime = lifetime.or_else(|| jwt_lifetime(&value, SystemTime::now()));
        Ok(Token { value, lifetime })
    }
}

/// What is left of a JWT's life by its `exp` claim (not checked: the broker does that);
/// zero when it has passed.
pub fn jwt_lifetime(token: &str, now: SystemTime) -> Option<Duration> {
    let exp = jwt_claims(token)?.get("exp")?.as_f64()?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs_f64();
    Some(Duration::from_secs_f64((exp - now).max(0.0)))
}

/// The claims of a JWT, unverified.
pub fn jwt_claims(token: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// A JWT's audience, issuer, subject and expiry, as its (unverified) claims say; None
/// when it is no JWT. Never the token itself.
pub fn describe_claims(token: &str, now: SystemTime) -> Option<String> {
    let claims = jwt_claims(token)?;
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.chars().filter(|c| !c.is_control()).take(200).collect(),
        other => other.to_string().chars().take(200).collect::<String>(),
    };
    let mut parts = Vec::new();
    for name in ["aud", "iss", "sub", "scope"] {
        if let Some(v) = claims.get(name) {
            parts.push(format!("{name} {}", text(v)));
        }
    }
    if let (Some(exp), Ok(now)) = (
        claims.get("exp").and_then(|v| v.as_f64()),
        now.duration_since(UNIX_EPOCH),
    ) {
        let left = exp - now.as_secs_f64();
        parts.push(if left >= 0.0 {
            format!("expires in {}s", left.floor())
        } else {
            format!("expired {}s ago", (-left).ceil())
        });
    } else {
        parts.push("no exp claim".to_string());
    }
    Some(parts.join(", "))
}

pub type TokenFuture<'a> = Pin<Box<dyn Future<Output = Result<Token>> + Send + 'a>>;

/// Something that produces a token on demand. The application implements it for the
/// sources that read its files or run its commands.
pub trait TokenSource: Send + Sync {
    fn fetch(&self, timeout: Duration) -> TokenFuture<'_>;
}

/// An unsecured JWT (`alg: none`), made here: librdkafka's `sasl.oauthbearer.config` and
/// Java's unsecured login module. Only a broker with the unsecured validator takes it.
#[derive(Debug, Clone)]
pub struct Unsecured {
    /// The principal's claim name (`sub` unless renamed) and value.
    pub principal_claim: String,
    pub principal: String,
    pub scope_claim: String,
    pub scope: Vec<String>,
    /// Other claims as given (Java's unsecuredLoginStringClaim_/ListClaim_/NumberClaim_).
    pub claims: Vec<(String, serde_json::Value)>,
    pub lifetime: Duration,
}

impl Unsecured {
    pub fn make(&self, now: SystemTime) -> Result<Token> {
        let iat = now
            .duration_since(UNIX_EPOCH)
            .map_err(|_| anyhow!("the clock is before 1970"))?
            .as_secs_f64();
        let mut claims = serde_json::Map::new();
        for (name, value) in &self.claims {
            claims.insert(name.clone(), value.clone());
        }
        claims.insert(self.principal_claim.clone(), self.principal.clone().into());
        if !self.scope.is_empty() {
            claims.insert(self.scope_claim.clone(), self.scope.clone().into());
        }
        claims.insert("iat".into(), serde_json::json!(iat.floor() as u64));
        claims.insert(
            "exp".into(),
            serde_json::json!((iat + self.lifetime.as_secs_f64()).floor() as u64),
        );
        let b64 = |v: &serde_json::Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
        };
        let value = format!(
            "{}.{}.",
            b64(&serde_json::json!({"alg": "none"})),
            b64(&serde_json::Value::Object(claims))
        );
        Token::new(value, Some(self.lifetime))
    }
}

impl TokenSource for Unsecured {
    fn fetch(&self, _timeout: Duration) -> TokenFuture<'_> {
        Box::pin(async move { self.make(SystemTime::now()) })
    }
}

/// OAuth 2 client credentials (RFC 6749 §4.4) at a token endpoint: KIP-768's OIDC login
/// (Java's OAuthBearerLoginCallbackHandler) and librdkafka's `sasl.oauthbearer.method=oidc`.
#[derive(Clone)]
pub struct ClientCredentials {
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub scope: Option<String>,
    /// URL-encode the id and secret in the Basic header (RFC 6749 §2.3.1; Java's
    /// sasl.oauthbearer.header.urlencode, off by default there and here).
    pub urlencode_header: bool,
    pub trust: HttpTrust,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ClientCredentials({}, client {}, <redacted>, scope {:?})",
            self.token_url, self.client_id, self.scope
        )
    }
}

/// The token endpoint's refusal: its HTTP status and its OAuth error (RFC 6749 §5.2).
#[derive(Debug, Clone)]
pub struct EndpointRefusal {
    pub url: String,
    pub status: u16,
    pub error: Option<String>,
    pub description: Option<String>,
}

impl EndpointRefusal {
    pub fn what_to_check(&self) -> &'static str {
        match self.error.as_deref() {
            Some("invalid_client") | Some("unauthorized_client") => "the token endpoint did not accept the client: check sasl.oauthbearer.client.id and sasl.oauthbearer.client.secret (Java: clientId= and clientSecret= in the JAAS line)",
            Some("invalid_scope") => "check sasl.oauthbearer.scope (Java: scope= in the JAAS line): the identity provider does not grant that scope to this client",
            Some("unsupported_grant_type") => "the identity provider does not allow the client credentials grant for this client",
            _ => "check sasl.oauthbearer.token.endpoint.url and the client's settings at the identity provider",
        }
    }
}

impl fmt::Display for EndpointRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the token endpoint {} answered HTTP {}",
            self.url, self.status
        )?;
        if let Some(error) = &self.error {
            write!(f, ": {error}")?;
        }
        if let Some(description) = &self.description {
            write!(f, " ({description})")?;
        }
        Ok(())
    }
}

impl std::error::Error for EndpointRefusal {}

impl ClientCredentials {
    async fn request(&self, timeout: Duration) -> Result<Token> {
        let encode = |v: &str| {
            if self.urlencode_header {
                http::form_encode(v)
            } else {
                v.to_string()
            }
        };
        let basic = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            encode(&self.client_id),
            encode(&self.client_secret)
        ));
        let mut form = "grant_type=client_credentials".to_string();
        if let Some(scope) = &self.scope {
            form.push_str("&scope=");
            form.push_str(&http::form_encode(scope));
        }
        let response = http::post_form(
            &self.token_url,
            &[("authorization", format!("Basic {basic}"))],
            form,
            &self.trust,
            timeout,
        )
        .await?;
        let json: Option<serde_json::Value> = serde_json::from_slice(&response.body).ok();
        let text = |key: &str| {
            json.as_ref()
                .and_then(|j| j.get(key))
                .and_then(|v| v.as_str())
                .map(|s| {
                    s.chars()
                        .filter(|c| !c.is_control())
                        .take(300)
                        .collect::<String>()
                })
        };
        if !(200..300).contains(&response.status) {
            return Err(EndpointRefusal {
                url: self.token_url.clone(),
                status: response.status,
                error: text("error"),
                description: text("error_description"),
            }
            .into());
        }
        let Some(access_token) = json
            .as_ref()
            .and_then(|j| j.get("access_token"))
            .and_then(|v| v.as_str())
        else {
            bail!(
                "the token endpoint {} answered HTTP {} without an access_token",
                self.token_url,
                response.status
            );
        };
        let expires_in = json
            .as_ref()
            .and_then(|j| j.get("expires_in"))
            .and_then(|v| v.as_f64())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        Token::new(access_token.to_string(), expires_in)
    }
}

impl TokenSource for ClientCredentials {
    fn fetch(&self, timeout: Duration) -> TokenFuture<'_> {
        Box::pin(self.request(timeout))
    }
}

/// A token source and the token it last gave, shared by every connection of a run.
pub struct OAuthBearer {
    source: Box<dyn TokenSource>,
    /// SASL extensions sent with the token (KIP-342).
    pub extensions: Vec<(String, String)>,
    /// What the source is, for messages (never a secret).
    pub describe: String,
    cached: tokio::sync::Mutex<Option<Cached>>,
}

struct Cached {
    token: Token,
    refresh_at: Instant,
    expires_at: Option<Instant>,
}

impl fmt::Debug for OAuthBearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "OAuthBearer({}, {} extensions)",
            self.describe,
            self.extensions.len()
        )
    }
}

impl OAuthBearer {
    pub fn new(
        source: Box<dyn TokenSource>,
        extensions: Vec<(String, String)>,
        describe: String,
    ) -> Result<OAuthBearer> {
        for (key, value) in &extensions {
            if !oauthbearer::valid_extension_key(key) {
                bail!(
                    "the SASL extension name {key:?} is not letters only (or is the reserved auth)"
                );
            }
            if !oauthbearer::valid_extension_value(value) {
                bail!("the SASL extension {key} holds characters RFC 7628 does not allow");
            }
        }
        Ok(OAuthBearer {
            source,
            extensions,
            describe,
            cached: tokio::sync::Mutex::new(None),
        })
    }

    /// A token to present now: the cached one while less than 80% of its life has
    /// passed, else a new one. When fetching fails while the cached one still lives, the
    /// cached one is used (the Java client keeps its token the same way), and the next
    /// connection tries again.
    pub async fn token(&self, timeout: Duration) -> Result<Token> {
        let mut cached = self.cached.lock().await;
        let now = Instant::now();
        if let Some(c) = cached.as_ref() {
            if now < c.refresh_at {
                return Ok(c.token.clone());
            }
        }
        match self.source.fetch(timeout).await {
            Ok(token) => {
                let life = token.lifetime.unwrap_or(UNKNOWN_LIFE);
                let refresh_at = if token.lifetime.is_some() {
                    now + life.mul_f64(REFRESH_AT)
                } else {
                    now + life
                };
                *cached = Some(Cached {
                    token: token.clone(),
                    refresh_at,
                    expires_at: token.lifetime.map(|l| now + l),
                });
                Ok(token)
            }
            Err(e) => match cached.as_ref() {
                Some(c) if c.expires_at.is_some_and(|at| now < at) => Ok(c.token.clone()),
                _ => Err(e.context(format!("getting an OAUTHBEARER token ({})", self.describe))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Counting {
        fetches: Arc<AtomicUsize>,
        life: Duration,
        fail_after: usize,
    }

    impl TokenSource for Counting {
        fn fetch(&self, _timeout: Duration) -> TokenFuture<'_> {
            Box::pin(async move {
                let n = self.fetches.fetch_add(1, Ordering::SeqCst) + 1;
                if n > self.fail_after {
                    bail!("the identity provider is down");
                }
                Token::new(format!("token{n}"), Some(self.life))
            })
        }
    }

    fn counting(life: u64, fail_after: usize) -> (OAuthBearer, Arc<AtomicUsize>) {
        let fetches = Arc::new(AtomicUsize::new(0));
        let source = Counting {
            fetches: fetches.clone(),
            life: Duration::from_secs(life),
            fail_after,
        };
        (
            OAuthBearer::new(Box::new(source), vec![], "test".into()).unwrap(),
            fetches,
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_token_is_reused_until_80_percent_of_its_life_then_replaced() {
        let (bearer, fetches) = counting(100, usize::MAX);
        let t = Duration::from_secs(1);
        assert_eq!(bearer.token(t).await.unwrap().value, "token1");
        tokio::time::advance(Duration::from_secs(79)).await;
        assert_eq!(bearer.token(t).await.unwrap().value, "token1");
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(bearer.token(t).await.unwrap().value, "token2");
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_refresh_keeps_a_living_token_and_not_a_dead_one() {
        let (bearer, _) = counting(100, 1);
        let t = Duration::from_secs(1);
        bearer.token(t).await.unwrap();
        tokio::time::advance(Duration::from_secs(90)).await;
        assert_eq!(bearer.token(t).await.unwrap().value, "token1");
        tokio::time::advance(Duration::from_secs(11)).await;
        let err = bearer.token(t).await.unwrap_err();
        assert!(
            format!("{err:#}").contains("identity provider is down"),
            "{err:#}"
        );
    }

    #[test]
    fn an_unsecured_token_is_an_unsigned_jwt_with_the_claims() {
        let source = Unsecured {
            principal_claim: "sub".into(),
            principal: "alice".into(),
            scope_claim: "scope".into(),
            scope: vec!["kafka".into(), "admin".into()],
            claims: vec![("team".into(), "ops".into())],
            lifetime: Duration::from_secs(3600),
        };
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let token = source.make(now).unwrap();
        assert!(token.value.ends_with('.'), "no signature");
        let claims = jwt_claims(&token.value).unwrap();
        assert_eq!(claims["sub"], "alice");
        assert_eq!(claims["scope"], serde_json::json!(["kafka", "admin"]));
        assert_eq!(claims["team"], "ops");
        assert_eq!(claims["iat"], 1_800_000_000u64);
        assert_eq!(claims["exp"], 1_800_003_600u64);
        assert_eq!(
            jwt_lifetime(&token.value, now + Duration::from_secs(600)),
            Some(Duration::from_secs(3000))
        );
        assert!(!format!("{token:?}").contains(&token.value));
    }

    #[test]
    fn a_token_that_could_break_the_message_is_refused() {
        assert!(Token::new("ab\u{1}auth=x".into(), None).is_err());
        assert!(Token::new("  \n".into(), None).is_err());
        let t = Token::new(" abc.def.ghi\n".into(), None).unwrap();
        assert_eq!(t.value, "abc.def.ghi");
        assert_eq!(t.lifetime, None, "not a JWT: life unknown");
    }
}
