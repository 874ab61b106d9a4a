//! One bounded HTTP/1.1 request and its answer, over TCP or TLS that verifies the server:
//! the transport of OAUTHBEARER's token endpoint (OIDC client credentials) and of a
//! workflow engine's REST API. Plain HTTP is allowed only to a loopback address, or when
//! the caller was told to.

use crate::tls::{self, Trust};
use anyhow::{anyhow, bail, Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use std::net::IpAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// The answers read are small JSON documents; more is not read.
const MAX_BODY: usize = 1 << 20;

/// What an endpoint is, in the words of errors about its URL: what it is ("the token
/// endpoint"), what crosses the network in clear over plain http, and how its user allows
/// plain http anyway.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    pub what: &'static str,
    pub secrets: &'static str,
    pub opt_in: &'static str,
}

/// OAUTHBEARER's token endpoint.
pub const TOKEN_ENDPOINT: Endpoint = Endpoint {
    what: "the token endpoint",
    secrets: "the client secret and the token",
    opt_in: "set sasl.oauthbearer.token.endpoint.allow.http=true",
};

/// How the server of an https URL is verified, and whether http is allowed elsewhere
/// than on loopback.
#[derive(Debug, Clone)]
pub struct HttpTrust {
    /// The CAs to trust (src/tls's forms: a PEM file or inline PEM, a PKCS#12 store, or
    /// the system's store).
    pub trust: Trust,
    /// Plain http to a host that is not loopback (the token and the client secret then
    /// cross the network in clear): only when asked for by name.
    pub allow_http: bool,
}

impl Default for HttpTrust {
    fn default() -> Self {
        HttpTrust {
            trust: Trust::System,
            allow_http: false,
        }
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub body: Bytes,
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// Whether a URL may be used at all: https, or http to loopback (or with the opt-in).
/// Checked before any connection, so a refused URL never receives the secret.
pub fn check_url(url: &str, trust: &HttpTrust, endpoint: Endpoint) -> Result<http::Uri> {
    let what = endpoint.what;
    let uri: http::Uri = url
        .parse()
        .map_err(|e| anyhow!("{what} URL {url:?} is not a URL: {e}"))?;
    let host = uri
        .host()
        .ok_or_else(|| anyhow!("{what} URL {url:?} names no host"))?;
    match uri.scheme_str() {
        Some("https") => {}
        Some("http") if is_loopback(host) || trust.allow_http => {}
        Some("http") => bail!(
            "{what} {url} is plain http to a host that is not loopback: {} would cross the network in clear; use https, or {} if that network is trusted",
            endpoint.secrets,
            endpoint.opt_in
        ),
        _ => bail!("{what} URL {url:?} is neither https nor http"),
    }
    Ok(uri)
}

fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// POSTs `form` (application/x-www-form-urlencoded) to the token endpoint `url` with the
/// given extra headers; the whole exchange, connect to last byte, within `timeout`.
pub async fn post_form(
    url: &str,
    headers: &[(&str, String)],
    form: String,
    trust: &HttpTrust,
    timeout: Duration,
) -> Result<Response> {
    let request = Request {
        method: http::Method::POST,
        url,
        headers,
        body: Some(("application/x-www-form-urlencoded", form)),
    };
    send(request, trust, TOKEN_ENDPOINT, timeout).await
}

/// One request: its method, URL, extra headers and body (with its content type).
pub struct Request<'a> {
    pub method: http::Method,
    pub url: &'a str,
    pub headers: &'a [(&'a str, String)],
    pub body: Option<(&'static str, String)>,
}

/// Sends `request` to `endpoint` and reads its answer; the whole exchange, connect to
/// last byte, within `timeout`.
pub async fn send(
    request: Request<'_>,
    trust: &HttpTrust,
    endpoint: Endpoint,
    timeout: Duration,
) -> Result<Response> {
    let uri = check_url(request.url, trust, endpoint)?;
    let (method, url) = (request.method.clone(), request.url);
    match tokio::time::timeout(timeout, exchange(&uri, request, trust, endpoint)).await {
        Ok(result) => result.with_context(|| format!("{method} {url}")),
        Err(_) => bail!("{method} {url}: no answer within {timeout:?}"),
    }
}

async fn exchange(
    uri: &http::Uri,
    request: Request<'_>,
    trust: &HttpTrust,
    endpoint: Endpoint,
) -> Result<Response> {
    let host = uri.host().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let tls = uri.scheme_str() == Some("https");
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let tcp = TcpStream::connect((bare, port))
        .await
        .with_context(|| format!("connecting to {host}:{port}"))?;
    let _ = tcp.set_nodelay(true);
    let stream: Box<dyn Stream> = if tls {
        // An endpoint is verified as fully as a broker: chain and host name.
        let config = tls::Config {
            trust: trust.trust.clone(),
            identity: None,
            verify_certificate: true,
            verify_hostname: true,
            min_version: None,
            max_version: None,
        };
        let (connector, _) = config.connector()?;
        let connector = tokio_native_tls::TlsConnector::from(connector);
        Box::new(
            connector
                .connect(bare, tcp)
                .await
                .with_context(|| format!("TLS handshake with {}", endpoint.what))?,
        )
    } else {
        Box::new(tcp)
    };
    let (mut sender, connection) = hyper::client::conn::http1::handshake::<_, Full<Bytes>>(
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .context("starting HTTP")?;
    // The connection is driven beside the request and ends with it.
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let authority = uri.authority().map(|a| a.as_str()).unwrap_or(host);
    let mut built = http::Request::builder()
        .method(request.method)
        .uri(path)
        .header(http::header::HOST, authority)
        .header(http::header::ACCEPT, "application/json")
        .header(
            http::header::USER_AGENT,
            concat!("indoubt/", env!("CARGO_PKG_VERSION")),
        );
    if let Some((content_type, _)) = &request.body {
        built = built.header(http::header::CONTENT_TYPE, *content_type);
    }
    for (name, value) in request.headers {
        built = built.header(*name, value.as_str());
    }
    let body = request.body.map(|(_, b)| b).unwrap_or_default();
    let request = built
        .body(Full::new(Bytes::from(body)))
        .context("building the HTTP request")?;
    let outcome = async {
        let response = sender
            .send_request(request)
            .await
            .context("sending the request")?;
        let status = response.status().as_u16();
        let body = Limited::new(response.into_body(), MAX_BODY)
            .collect()
            .await
            .map_err(|e| anyhow!("reading the answer: {e}"))?
            .to_bytes();
        Ok(Response { status, body })
    }
    .await;
    driver.abort();
    outcome
}

/// application/x-www-form-urlencoded: unreserved characters as they are, space as `+`,
/// every other byte as %XX.
pub fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_url_(url: &str, trust: &HttpTrust) -> Result<http::Uri> {
        check_url(url, trust, TOKEN_ENDPOINT)
    }

    #[test]
    fn http_is_for_loopback_unless_allowed_by_name() {
        let strict = HttpTrust::default();
        assert!(check_url_("https://idp.example.com/oauth2/token", &strict).is_ok());
        assert!(check_url_("http://127.0.0.1:8080/token", &strict).is_ok());
        assert!(check_url_("http://[::1]:8080/token", &strict).is_ok());
        assert!(check_url_("http://localhost/token", &strict).is_ok());
        let err = check_url_("http://idp.example.com/token", &strict).unwrap_err();
        assert!(err.to_string().contains("allow.http"), "{err}");
        let open = HttpTrust {
            allow_http: true,
            ..HttpTrust::default()
        };
        assert!(check_url_("http://idp.example.com/token", &open).is_ok());
        assert!(check_url_("ftp://idp.example.com/token", &open).is_err());
        assert!(check_url_("not a url", &open).is_err());
    }

    #[test]
    fn forms_are_encoded() {
        assert_eq!(form_encode("kafka admin"), "kafka+admin");
        assert_eq!(form_encode("a&b=c/d"), "a%26b%3Dc%2Fd");
        assert_eq!(form_encode("AZaz09-._~"), "AZaz09-._~");
    }
}
