//! One bounded HTTP/1.1 POST of a form and its answer, over TCP or TLS that verifies the
//! server: the transport of OAUTHBEARER's token endpoint (OIDC client credentials).
//! Plain HTTP is allowed only to a loopback address, or when the caller was told to.

use crate::tls::{self, Trust};
use anyhow::{anyhow, bail, Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use std::net::IpAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// A token endpoint's answer is a small JSON document; more is not read.
const MAX_BODY: usize = 1 << 20;

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
pub fn check_url(url: &str, trust: &HttpTrust) -> Result<http::Uri> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e| anyhow!("the token endpoint URL {url:?} is not a URL: {e}"))?;
    let host = uri
        .host()
        .ok_or_else(|| anyhow!("the token endpoint URL {url:?} names no host"))?;
    match uri.scheme_str() {
        Some("https") => {}
        Some("http") if is_loopback(host) || trust.allow_http => {}
        Some("http") => bail!(
            "the token endpoint {url} is plain http to a host that is not loopback: the client secret and the token would cross the network in clear; use https, or set sasl.oauthbearer.token.endpoint.allow.http=true if that network is trusted"
        ),
        _ => bail!("the token endpoint URL {url:?} is neither https nor http"),
    }
    Ok(uri)
}

fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// POSTs `form` (application/x-www-form-urlencoded) to `url` with the given extra
/// headers; the whole exchange, connect to last byte, within `timeout`.
pub async fn post_form(
    url: &str,
    headers: &[(&str, String)],
    form: String,
    trust: &HttpTrust,
    timeout: Duration,
) -> Result<Response> {
    let uri = check_url(url, trust)?;
    match tokio::time::timeout(timeout, exchange(&uri, headers, form, trust)).await {
        Ok(result) => result.with_context(|| format!("POST {url}")),
        Err(_) => bail!("POST {url}: no answer within {timeout:?}"),
    }
}

async fn exchange(
    uri: &http::Uri,
    headers: &[(&str, String)],
    form: String,
    trust: &HttpTrust,
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
        // The token endpoint is verified as fully as a broker: chain and host name.
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
                .context("TLS handshake with the token endpoint")?,
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
    let mut request = http::Request::post(path)
        .header(http::header::HOST, authority)
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json")
        .header(
            http::header::USER_AGENT,
            concat!("indoubt/", env!("CARGO_PKG_VERSION")),
        );
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let request = request
        .body(Full::new(Bytes::from(form)))
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

    #[test]
    fn http_is_for_loopback_unless_allowed_by_name() {
        let strict = HttpTrust::default();
        assert!(check_url("https://idp.example.com/oauth2/token", &strict).is_ok());
        assert!(check_url("http://127.0.0.1:8080/token", &strict).is_ok());
        assert!(check_url("http://[::1]:8080/token", &strict).is_ok());
        assert!(check_url("http://localhost/token", &strict).is_ok());
        let err = check_url("http://idp.example.com/token", &strict).unwrap_err();
        assert!(err.to_string().contains("allow.http"), "{err}");
        let open = HttpTrust {
            allow_http: true,
            ..HttpTrust::default()
        };
        assert!(check_url("http://idp.example.com/token", &open).is_ok());
        assert!(check_url("ftp://idp.example.com/token", &open).is_err());
        assert!(check_url("not a url", &open).is_err());
    }

    #[test]
    fn forms_are_encoded() {
        assert_eq!(form_encode("kafka admin"), "kafka+admin");
        assert_eq!(form_encode("a&b=c/d"), "a%26b%3Dc%2Fd");
        assert_eq!(form_encode("AZaz09-._~"), "AZaz09-._~");
    }
}
