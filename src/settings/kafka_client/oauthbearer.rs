//! SASL/OAUTHBEARER's client properties (librdkafka's and the Java client's names) into
//! one token source, and the two sources that belong to the application: a token file
//! (Java's `sasl.oauthbearer.token.endpoint.url=file:…`), read with indoubt's safe open,
//! and a token command (indoubt's own `sasl.oauthbearer.token.command`; neither client has
//! one), run bounded, its stderr never shown.

use super::jaas::LoginModule;
use crate::error::hinted;
use crate::http::HttpTrust;
use crate::kafka::token::{
    ClientCredentials, OAuthBearer, Token, TokenFuture, TokenSource, Unsecured,
};
use crate::tls::{Material, Password, Trust};
use anyhow::{anyhow, bail, Context, Result};
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Java's OIDC login handler, under its 3.x and 4.x packages.
const LOGIN_HANDLERS: &[&str] = &[
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
];
/// A token file or a command's output larger than this is no token.
const MAX_TOKEN: u64 = 64 << 10;

/// The token source the properties name, with its extensions. `get` reads a property
/// (config provider references resolved, an empty value as none); `jaas` is the parsed
/// sasl.jaas.config, when there is one.
pub fn from_properties(
    get: &dyn Fn(&str) -> Result<Option<String>>,
    jaas: Option<&[LoginModule]>,
) -> Result<Arc<OAuthBearer>> {
    let module = match jaas {
        None => None,
        Some(modules) => {
            let Some(module) = modules
                .iter()
                .find(|m| m.class.ends_with("OAuthBearerLoginModule"))
            else {
                return Err(hinted(
                    "sasl.mechanism OAUTHBEARER with a sasl.jaas.config that has no OAuthBearerLoginModule",
                    "use org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required …; (or leave sasl.jaas.config out with librdkafka's names)",
                ));
            };
            Some(module)
        }
    };
    let jaas = |key: &str| module.and_then(|m| m.option(key)).map(str::to_string);
    let either = |names: &[&str], jaas_key: Option<&str>| -> Result<Option<String>> {
        for name in names {
            if let Some(v) = get(name)? {
                return Ok(Some(v));
            }
        }
        Ok(jaas_key.and_then(&jaas).filter(|v| !v.is_empty()))
    };

    let method = get("sasl.oauthbearer.method")?.map(|m| m.to_ascii_lowercase());
    let oidc_method = match method.as_deref() {
        None | Some("default") => false,
        Some("oidc") => true,
        Some(other) => {
            return Err(hinted(
                format!("unknown sasl.oauthbearer.method {other:?}"),
                "use default (an unsecured JWT from sasl.oauthbearer.config) or oidc (client credentials at sasl.oauthbearer.token.endpoint.url)",
            ))
        }
    };
    let java_oidc = match get("sasl.login.callback.handler.class")? {
        None => false,
        Some(class) if LOGIN_HANDLERS.contains(&class.as_str()) => true,
        Some(class) => {
            return Err(hinted(
                format!("sasl.login.callback.handler.class {class} is a Java class indoubt cannot run"),
                "indoubt speaks Kafka's own OIDC login (OAuthBearerLoginCallbackHandler, client credentials); a signer that hands out tokens can run as sasl.oauthbearer.token.command",
            ))
        }
    };
    if let Some(grant) = get("sasl.oauthbearer.grant.type")? {
        if grant != "client_credentials" {
            return Err(hinted(
                format!("sasl.oauthbearer.grant.type {grant:?} is not supported"),
                "indoubt fetches tokens with the client credentials grant (client_credentials)",
            ));
        }
    }
    let endpoint = get("sasl.oauthbearer.token.endpoint.url")?;
    let command = get("sasl.oauthbearer.token.command")?;
    let extensions = extensions(get, module)?;

    let (source, describe): (Box<dyn TokenSource>, String) = match (&endpoint, &command) {
        (Some(_), Some(_)) => bail!(
            "sasl.oauthbearer.token.endpoint.url and sasl.oauthbearer.token.command both name a token source: give one"
        ),
        (Some(url), None) if url.starts_with("file:") => {
            let path = file_url_path(url)?;
            // Read again at each fetch with the same checks; looked at now too, so that a
            // file another user owns or can change is refused before anything connects.
            crate::fsafe::open_read(&path, "OAUTHBEARER token file")?;
            let describe = format!("token file {}", path.display());
            (Box::new(TokenFile { path }), describe)
        }
        (Some(url), None) => {
            let client_id = either(
                &["sasl.oauthbearer.client.id", "sasl.oauthbearer.client.credentials.client.id"],
                Some("clientId"),
            )?;
            let client_secret = either(
                &["sasl.oauthbearer.client.secret", "sasl.oauthbearer.client.credentials.client.secret"],
                Some("clientSecret"),
            )?;
            let (Some(client_id), Some(client_secret)) = (client_id, client_secret) else {
                return Err(hinted(
                    format!("OAUTHBEARER with the token endpoint {url} needs a client id and a client secret"),
                    "set sasl.oauthbearer.client.id and sasl.oauthbearer.client.secret (Java: clientId= and clientSecret= in the OAuthBearerLoginModule JAAS line); keep the secret out of the command line with a properties file or ${env:NAME}",
                ));
            };
            let scope = either(&["sasl.oauthbearer.scope"], Some("scope"))?;
            let source = ClientCredentials {
                token_url: url.clone(),
                client_id: client_id.clone(),
                client_secret,
                scope,
                urlencode_header: strict_bool(get, "sasl.oauthbearer.header.urlencode")?.unwrap_or(false),
                trust: http_trust(get, &jaas)?,
            };
            crate::http::check_url(url, &source.trust, crate::http::TOKEN_ENDPOINT)?;
            (Box::new(source), format!("client {client_id} at {url}"))
        }
        (None, Some(command)) => (
            Box::new(TokenCommand {
                command: command.clone(),
            }),
            "sasl.oauthbearer.token.command".to_string(),
        ),
        (None, None) if oidc_method || java_oidc => {
            return Err(hinted(
                "OIDC OAUTHBEARER without a token endpoint",
                "set sasl.oauthbearer.token.endpoint.url to the identity provider's token URL",
            ))
        }
        (None, None) => {
            let unsecured = unsecured(get, module)?;
            let describe = format!("unsecured JWT for {}", unsecured.principal);
            (Box::new(unsecured), describe)
        }
    };
    Ok(Arc::new(OAuthBearer::new(source, extensions, describe)?))
}

fn strict_bool(get: &dyn Fn(&str) -> Result<Option<String>>, name: &str) -> Result<Option<bool>> {
    match get(name)?.map(|v| v.to_ascii_lowercase()).as_deref() {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(hinted(format!("invalid {name}"), "use true or false")),
    }
}

/// How the token endpoint's server is verified: librdkafka's https.ca.location or
/// https.ca.pem, or the JAAS line's ssl.truststore.location (a PEM file with
/// ssl.truststore.type=PEM, else a PKCS#12 store with ssl.truststore.password: Java reads
/// the login's TLS settings there); else the system's store.
fn http_trust(
    get: &dyn Fn(&str) -> Result<Option<String>>,
    jaas: &dyn Fn(&str) -> Option<String>,
) -> Result<HttpTrust> {
    let mut given = Vec::new();
    if let Some(path) = get("https.ca.location")? {
        given.push(Trust::Pem(Material::file("https.ca.location", path)));
    }
    if let Some(pem) = get("https.ca.pem")? {
        given.push(Trust::Pem(Material::inline("https.ca.pem", pem)));
    }
    if let Some(location) = jaas("ssl.truststore.location") {
        const PROPERTY: &str = "sasl.jaas.config's ssl.truststore.location";
        let store = Material::file(PROPERTY, location);
        given.push(match jaas("ssl.truststore.type") {
            Some(kind) if kind.eq_ignore_ascii_case("PEM") => Trust::Pem(store),
            _ => Trust::Pkcs12 {
                store,
                password: match jaas("ssl.truststore.password") {
                    Some(value) => {
                        Password::new("sasl.jaas.config's ssl.truststore.password", value)
                    }
                    None => Password::none("sasl.jaas.config's ssl.truststore.password"),
                },
            },
        });
    }
    if given.len() > 1 {
        return Err(hinted(
            "the token endpoint's CAs are given twice (https.ca.location, https.ca.pem, the JAAS line's ssl.truststore.location)",
            "keep one of them",
        ));
    }
    let trust = given.pop().unwrap_or(Trust::System);
    if let Trust::Pem(m) | Trust::Pkcs12 { store: m, .. } = &trust {
        if let Some(path) = m.path().filter(|p| !p.exists()) {
            bail!(
                "the token endpoint's CA file {} ({}) does not exist",
                path.display(),
                m.property
            );
        }
    }
    Ok(HttpTrust {
        trust,
        allow_http: strict_bool(get, "sasl.oauthbearer.token.endpoint.allow.http")?
            .unwrap_or(false),
    })
}

/// librdkafka's `sasl.oauthbearer.extensions` (`k=v,k2=v2`), its `sasl.oauthbearer.config`'s
/// `extension_k=v`, and the JAAS line's `extension_k="v"` (Java, OIDC) or
/// `unsecuredLoginExtension_k="v"` (Java, unsecured).
fn extensions(
    get: &dyn Fn(&str) -> Result<Option<String>>,
    module: Option<&LoginModule>,
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    if let Some(list) = get("sasl.oauthbearer.extensions")? {
        for pair in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                anyhow!(
                    "sasl.oauthbearer.extensions: an entry without '=' (give key=value,key=value)"
                )
            })?;
            out.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    if let Some(config) = get("sasl.oauthbearer.config")? {
        for (k, v) in config_pairs(&config)? {
            if let Some(name) = k.strip_prefix("extension_") {
                out.push((name.to_string(), v));
            }
        }
    }
    for option in module.map(|m| m.options.as_slice()).unwrap_or_default() {
        let name = option
            .key
            .strip_prefix("extension_")
            .or_else(|| option.key.strip_prefix("unsecuredLoginExtension_"));
        if let Some(name) = name {
            out.push((name.to_string(), option.value.clone()));
        }
    }
    Ok(out)
}

/// librdkafka's `sasl.oauthbearer.config`: space-separated `name=value` pairs.
fn config_pairs(config: &str) -> Result<Vec<(String, String)>> {
    config
        .split_whitespace()
        .map(|pair| {
            pair.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| anyhow!("sasl.oauthbearer.config: an entry without '=' (give principal=NAME [scope=a,b] [lifeSeconds=N] [extension_NAME=value])"))
        })
        .collect()
}

/// The unsecured JWT: librdkafka's sasl.oauthbearer.config, or Java's
/// unsecuredLogin* JAAS options.
fn unsecured(
    get: &dyn Fn(&str) -> Result<Option<String>>,
    module: Option<&LoginModule>,
) -> Result<Unsecured> {
    if strict_bool(get, "enable.sasl.oauthbearer.unsecure.jwt")? == Some(false) {
        return Err(hinted(
            "OAUTHBEARER with enable.sasl.oauthbearer.unsecure.jwt=false and no other token source",
            "name a token source: sasl.oauthbearer.method=oidc with the token endpoint and client, a token file (sasl.oauthbearer.token.endpoint.url=file:///path) or sasl.oauthbearer.token.command",
        ));
    }
    let mut u = Unsecured {
        principal_claim: "sub".into(),
        principal: String::new(),
        scope_claim: "scope".into(),
        scope: Vec::new(),
        claims: Vec::new(),
        lifetime: Duration::from_secs(3600),
    };
    let lifetime = |v: &str, name: &str| -> Result<Duration> {
        v.parse::<u64>()
            .ok()
            .filter(|s| *s > 0)
            .map(Duration::from_secs)
            .ok_or_else(|| anyhow!("{name} {v:?} is not a positive number of seconds"))
    };
    if let Some(config) = get("sasl.oauthbearer.config")? {
        for (k, v) in config_pairs(&config)? {
            match k.as_str() {
                "principal" => u.principal = v,
                "principalClaimName" => u.principal_claim = v,
                "scopeClaimName" => u.scope_claim = v,
                "scope" => u.scope = v.split(',').filter(|s| !s.is_empty()).map(String::from).collect(),
                "lifeSeconds" => u.lifetime = lifetime(&v, "sasl.oauthbearer.config lifeSeconds")?,
                _ if k.starts_with("extension_") => {}
                _ => bail!("sasl.oauthbearer.config: unknown entry {k:?} (principal, principalClaimName, scope, scopeClaimName, lifeSeconds, extension_NAME)"),
            }
        }
    } else if let Some(m) = module {
        for option in &m.options {
            let (key, value) = (option.key.as_str(), option.value.as_str());
            if let Some(name) = key.strip_prefix("unsecuredLoginStringClaim_") {
                u.claims.push((name.to_string(), value.into()));
            } else if let Some(name) = key.strip_prefix("unsecuredLoginListClaim_") {
                // Java: the first character is the delimiter of the rest.
                let mut chars = value.chars();
                let items: Vec<serde_json::Value> = match chars.next() {
                    Some(d) => chars
                        .as_str()
                        .split(d)
                        .filter(|s| !s.is_empty())
                        .map(|s| s.into())
                        .collect(),
                    None => Vec::new(),
                };
                u.claims.push((name.to_string(), items.into()));
            } else if let Some(name) = key.strip_prefix("unsecuredLoginNumberClaim_") {
                let n: f64 = value
                    .parse()
                    .map_err(|_| anyhow!("{key} {value:?} is not a number"))?;
                u.claims.push((name.to_string(), serde_json::json!(n)));
            } else if key == "unsecuredLoginPrincipalClaimName" {
                u.principal_claim = value.to_string();
            } else if key == "unsecuredLoginScopeClaimName" {
                u.scope_claim = value.to_string();
            } else if key == "unsecuredLoginLifetimeSeconds" {
                u.lifetime = lifetime(value, key)?;
            }
        }
        // The principal and scope are claims like any other there.
        if let Some(at) = u.claims.iter().position(|(n, _)| *n == u.principal_claim) {
            let (_, value) = u.claims.remove(at);
            u.principal = value.as_str().unwrap_or_default().to_string();
        }
        if let Some(at) = u.claims.iter().position(|(n, _)| *n == u.scope_claim) {
            let (_, value) = u.claims.remove(at);
            u.scope = match value {
                serde_json::Value::Array(items) => items
                    .iter()
                    .filter_map(|i| i.as_str().map(String::from))
                    .collect(),
                serde_json::Value::String(s) => vec![s],
                _ => Vec::new(),
            };
        }
    }
    if u.principal.is_empty() {
        return Err(hinted(
            "OAUTHBEARER needs a token source",
            "for a test cluster's unsecured validator, sasl.oauthbearer.config=principal=NAME (Java: unsecuredLoginStringClaim_sub=\"NAME\" in the OAuthBearerLoginModule JAAS line); for an identity provider, sasl.oauthbearer.method=oidc with sasl.oauthbearer.token.endpoint.url, .client.id and .client.secret; or a token file (sasl.oauthbearer.token.endpoint.url=file:///path) or sasl.oauthbearer.token.command",
        ));
    }
    Ok(u)
}

/// `file:///path` (Java's FileJwtRetriever form) to the path.
fn file_url_path(url: &str) -> Result<PathBuf> {
    let rest = url.strip_prefix("file://").unwrap_or(&url["file:".len()..]);
    if !rest.starts_with('/') || rest.contains('%') {
        return Err(hinted(
            format!("sasl.oauthbearer.token.endpoint.url {url}: a token file is named by an absolute file:///path"),
            "give file:///path/to/token (no host, no %-escapes)",
        ));
    }
    Ok(PathBuf::from(rest))
}

/// A token file a signer or a sidecar keeps fresh: read again whenever the cached token is
/// due, through indoubt's safe open (no symbolic link; a file and directory only its
/// owner or root can change).
struct TokenFile {
    path: PathBuf,
}

impl TokenSource for TokenFile {
    fn fetch(&self, _timeout: Duration) -> TokenFuture<'_> {
        Box::pin(async move {
            let Some(file) = crate::fsafe::open_read(&self.path, "OAUTHBEARER token file")? else {
                bail!(
                    "the OAUTHBEARER token file {} does not exist",
                    self.path.display()
                );
            };
            let mut text = String::new();
            file.take(MAX_TOKEN + 1)
                .read_to_string(&mut text)
                .with_context(|| format!("reading the token file {}", self.path.display()))?;
            if text.len() as u64 > MAX_TOKEN {
                bail!(
                    "the token file {} is larger than a token",
                    self.path.display()
                );
            }
            token_of(&text).with_context(|| format!("the token file {}", self.path.display()))
        })
    }
}

/// A command that prints a token (a cloud signer's CLI): run with `sh -c`, bounded by the
/// connection timeout, killed when it overruns. Its stdout is the token, or a token
/// endpoint's JSON answer (`access_token`, `expires_in`); its stderr is never shown, for
/// it may hold secrets.
struct TokenCommand {
    command: String,
}

impl TokenSource for TokenCommand {
    fn fetch(&self, timeout: Duration) -> TokenFuture<'_> {
        Box::pin(async move {
            let child = tokio::process::Command::new("/bin/sh")
                .arg("-c")
                .arg(&self.command)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .context("starting sasl.oauthbearer.token.command")?;
            let output = match tokio::time::timeout(timeout, child.wait_with_output()).await {
                Ok(output) => output.context("running sasl.oauthbearer.token.command")?,
                Err(_) => bail!("sasl.oauthbearer.token.command did not finish within {timeout:?} (it was stopped)"),
            };
            if !output.status.success() {
                return Err(hinted(
                    format!(
                        "sasl.oauthbearer.token.command failed ({}); its stderr ({} bytes) is not shown, as it may hold secrets",
                        output.status,
                        output.stderr.len()
                    ),
                    "run the command yourself to see why",
                ));
            }
            if output.stdout.len() as u64 > MAX_TOKEN {
                bail!("sasl.oauthbearer.token.command printed more than a token");
            }
            let text = String::from_utf8(output.stdout).map_err(|_| {
                anyhow!("sasl.oauthbearer.token.command printed something that is not text")
            })?;
            token_of(&text).context("the output of sasl.oauthbearer.token.command")
        })
    }
}

/// A token as a file or command gives it: the token alone, or a token endpoint's JSON.
fn token_of(text: &str) -> Result<Token> {
    let trimmed = text.trim();
    if trimmed.starts_with('{') {
        let json: serde_json::Value =
            serde_json::from_str(trimmed).map_err(|_| anyhow!("JSON that does not parse"))?;
        let value = json
            .get("access_token")
            .and_then(|v| v.as_str())
            .ok_or_else(|| anyhow!("JSON without an access_token"))?;
        let life = json
            .get("expires_in")
            .and_then(|v| v.as_f64())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        return Token::new(value.to_string(), life);
    }
    Token::new(trimmed.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn source(pairs: &[(&str, &str)]) -> Result<Arc<OAuthBearer>> {
        let props: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let modules = match props.get("sasl.jaas.config") {
            Some(line) => Some(crate::settings::kafka_client::jaas::parse(line)?),
            None => None,
        };
        let get = |k: &str| Ok(props.get(k).cloned().filter(|v| !v.is_empty()));
        from_properties(&get, modules.as_deref())
    }

    #[tokio::test]
    async fn librdkafkas_and_javas_unsecured_tokens() {
        let b = source(&[(
            "sasl.oauthbearer.config",
            "principal=alice scope=kafka,admin lifeSeconds=60 extension_traceId=abc",
        )])
        .unwrap();
        assert_eq!(
            b.extensions,
            vec![("traceId".to_string(), "abc".to_string())]
        );
        let claims =
            crate::kafka::token::jwt_claims(&b.token(Duration::from_secs(1)).await.unwrap().value)
                .unwrap();
        assert_eq!(claims["sub"], "alice");
        assert_eq!(claims["scope"], serde_json::json!(["kafka", "admin"]));
        let b = source(&[(
            "sasl.jaas.config",
            r#"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="bob" unsecuredLoginListClaim_scope=",a,b" unsecuredLoginExtension_x="y";"#,
        )])
        .unwrap();
        let claims =
            crate::kafka::token::jwt_claims(&b.token(Duration::from_secs(1)).await.unwrap().value)
                .unwrap();
        assert_eq!(claims["sub"], "bob");
        assert_eq!(claims["scope"], serde_json::json!(["a", "b"]));
        assert_eq!(b.extensions, vec![("x".to_string(), "y".to_string())]);
    }

    #[test]
    fn oidc_by_either_clients_names_needs_the_client() {
        let b = source(&[
            ("sasl.oauthbearer.method", "oidc"),
            (
                "sasl.oauthbearer.token.endpoint.url",
                "https://idp.example.com/token",
            ),
            ("sasl.oauthbearer.client.id", "svc"),
            ("sasl.oauthbearer.client.secret", "hunter2"),
            (
                "sasl.oauthbearer.extensions",
                "logicalCluster=lkc-1,identityPoolId=pool-2",
            ),
        ])
        .unwrap();
        assert_eq!(b.extensions.len(), 2);
        assert!(!format!("{b:?}").contains("hunter2"));
        let java = source(&[
            ("sasl.login.callback.handler.class", LOGIN_HANDLERS[0]),
            (
                "sasl.oauthbearer.token.endpoint.url",
                "https://idp.example.com/token",
            ),
            (
                "sasl.jaas.config",
                r#"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="svc" clientSecret="hunter2" scope="kafka";"#,
            ),
        ]);
        assert!(java.is_ok(), "{java:?}");
        let err = source(&[
            ("sasl.oauthbearer.method", "oidc"),
            (
                "sasl.oauthbearer.token.endpoint.url",
                "https://idp.example.com/token",
            ),
        ])
        .unwrap_err();
        assert!(
            crate::error::hint_of(&err)
                .unwrap()
                .contains("client.secret"),
            "{err}"
        );
        assert!(source(&[("sasl.oauthbearer.method", "oidc")]).is_err());
        assert!(source(&[("sasl.login.callback.handler.class", "com.example.Other")]).is_err());
        let err = source(&[
            (
                "sasl.oauthbearer.token.endpoint.url",
                "http://idp.example.com/token",
            ),
            ("sasl.oauthbearer.client.id", "svc"),
            ("sasl.oauthbearer.client.secret", "s"),
        ])
        .unwrap_err();
        assert!(err.to_string().contains("allow.http"), "{err}");
    }

    #[test]
    fn no_source_is_refused_with_the_ways_to_give_one() {
        let err = source(&[]).unwrap_err();
        let hint = crate::error::hint_of(&err).unwrap();
        assert!(
            hint.contains("sasl.oauthbearer.config") && hint.contains("token.command"),
            "{hint}"
        );
        assert!(source(&[("sasl.oauthbearer.config", "principal=a bogus=1")]).is_err());
        assert!(source(&[("sasl.oauthbearer.config", "principal=a extension_auth=x")]).is_err());
        assert!(source(&[
            ("sasl.oauthbearer.token.endpoint.url", "file:///t"),
            ("sasl.oauthbearer.token.command", "echo x")
        ])
        .is_err());
        assert!(source(&[("sasl.oauthbearer.token.endpoint.url", "file:relative")]).is_err());
    }

    #[test]
    fn a_file_or_command_gives_a_token_alone_or_as_json() {
        let t = token_of("abc.def.ghi\n").unwrap();
        assert_eq!((t.value.as_str(), t.lifetime), ("abc.def.ghi", None));
        let t = token_of(r#"{"access_token":"xyz","expires_in":900}"#).unwrap();
        assert_eq!(
            (t.value.as_str(), t.lifetime),
            ("xyz", Some(Duration::from_secs(900)))
        );
        assert!(token_of("two\nlines").is_err());
    }

    #[tokio::test]
    async fn a_failing_command_does_not_show_its_stderr() {
        let b = source(&[(
            "sasl.oauthbearer.token.command",
            "echo 'secret=hunter2' >&2; exit 3",
        )])
        .unwrap();
        let err = b.token(Duration::from_secs(10)).await.unwrap_err();
        let text = format!("{err:#}");
        assert!(
            !text.contains("hunter2") && text.contains("not shown"),
            "{text}"
        );
        let b = source(&[("sasl.oauthbearer.token.command", "printf 'tok.en.x'")]).unwrap();
        assert_eq!(
            b.token(Duration::from_secs(10)).await.unwrap().value,
            "tok.en.x"
        );
    }
}
