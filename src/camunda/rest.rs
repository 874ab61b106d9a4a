//! The engine's REST API (`…/engine-rest`, Camunda 7's and Operaton's alike): setting a
//! job's or an external task's retries, which the engine does under its optimistic
//! locking and which resolves the incident its running out opened, and reading one back.

use crate::http::{self, Endpoint, HttpTrust, Request};
use crate::secret::Password;
use anyhow::{bail, Result};
use base64::Engine as _;
use serde::Serialize;
use std::time::Duration;

/// What errors about the API's URL call it.
const REST_API: Endpoint = Endpoint {
    what: "the engine's REST API",
    secrets: "its password and the calls",
    opt_in: "set rest_allow_http: true",
};

/// Where the API is and how to reach it.
#[derive(Debug, Clone)]
pub struct Api {
    /// Its base URL, without a trailing `/` (`http://host:8080/engine-rest`).
    pub url: String,
    pub trust: HttpTrust,
    /// HTTP basic authentication, when the API asks for it.
    pub basic: Option<(String, Password)>,
}

/// What the retries are set on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Job,
    ExternalTask,
}

impl Kind {
    /// The API's path segment.
    pub fn path(self) -> &'static str {
        match self {
            Kind::Job => "job",
            Kind::ExternalTask => "external-task",
        }
    }
}

/// The API's answer: accepted (with its JSON, if any) or refused (its status, and the
/// engine's exception type and message when it sent them).
#[derive(Debug, Clone)]
pub enum Answer {
    Done(Option<serde_json::Value>),
    Refused {
        status: u16,
        kind: Option<String>,
        message: Option<String>,
    },
}

impl Api {
    /// Checks the URL before anything is sent to it (https, or http to loopback).
    pub fn check(&self) -> Result<()> {
        http::check_url(&self.url, &self.trust, REST_API).map(|_| ())
    }

    /// A call of `what` whose URL is the base and `path` (already encoded).
    async fn call(
        &self,
        method: ::http::Method,
        path: &str,
        body: Option<String>,
        timeout: Duration,
    ) -> Result<Answer> {
        let url = format!("{}/{path}", self.url);
        let mut headers = Vec::new();
        if let Some((user, password)) = &self.basic {
            let pair = format!("{user}:{}", password.expose());
            headers.push((
                "authorization",
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ),
            ));
        }
        let request = Request {
            method,
            url: &url,
            headers: &headers,
            body: body.map(|b| ("application/json", b)),
        };
        let response = http::send(request, &self.trust, REST_API, timeout).await?;
        let json: Option<serde_json::Value> = serde_json::from_slice(&response.body).ok();
        if (200..300).contains(&response.status) {
            return Ok(Answer::Done(json));
        }
        let field = |key: &str| {
            json.as_ref()
                .and_then(|j| j.get(key))
                .and_then(|v| v.as_str())
                .map(|s| s.chars().take(1000).collect::<String>())
        };
        Ok(Answer::Refused {
            status: response.status,
            kind: field("type"),
            message: field("message"),
        })
    }

    /// `PUT /job/{id}/retries` or `PUT /external-task/{id}/retries`.
    pub async fn set_retries(
        &self,
        kind: Kind,
        id: &str,
        retries: u32,
        timeout: Duration,
    ) -> Result<Answer> {
        let path = format!("{}/{}/retries", kind.path(), segment(id));
        let body = serde_json::json!({ "retries": retries }).to_string();
        self.call(::http::Method::PUT, &path, Some(body), timeout)
            .await
    }

    /// `GET /job/{id}` or `GET /external-task/{id}`: the engine's own view of it.
    pub async fn get(&self, kind: Kind, id: &str, timeout: Duration) -> Result<Answer> {
        let path = format!("{}/{}", kind.path(), segment(id));
        self.call(::http::Method::GET, &path, None, timeout).await
    }

    /// `GET /incident?configuration=ID`: how many open incidents the engine has on this
    /// job or external task (its id is an incident's configuration).
    pub async fn open_incidents(&self, id: &str, timeout: Duration) -> Result<Option<usize>> {
        let path = format!("incident?configuration={}", segment(id));
        Ok(
            match self.call(::http::Method::GET, &path, None, timeout).await? {
                Answer::Done(Some(serde_json::Value::Array(list))) => Some(list.len()),
                _ => None,
            },
        )
    }

    /// `GET /version`: the engine's version, which also proves the URL is its API.
    pub async fn version(&self, timeout: Duration) -> Result<String> {
        match self
            .call(::http::Method::GET, "version", None, timeout)
            .await?
        {
            Answer::Done(Some(json)) => match json.get("version").and_then(|v| v.as_str()) {
                Some(v) => Ok(v.chars().filter(|c| !c.is_control()).take(100).collect()),
                None => bail!(
                    "{}/version answered without a version: is it the engine's REST API?",
                    self.url
                ),
            },
            Answer::Done(None) => bail!(
                "{}/version answered no JSON: is it the engine's REST API?",
                self.url
            ),
            Answer::Refused {
                status, message, ..
            } => bail!(
                "{}/version answered HTTP {status}{}",
                self.url,
                message.map(|m| format!(": {m}")).unwrap_or_default()
            ),
        }
    }
}

/// One path segment: letters, digits, `-`, `_` and `~` as they are, every other byte
/// (`.` too: `..` is a segment of its own) as %XX, so an id can never add a segment, climb
/// one or start a query.
pub fn segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::segment;

    #[test]
    fn an_id_stays_one_path_segment() {
        assert_eq!(segment("5b0c-1f"), "5b0c-1f");
        assert_eq!(
            segment("../deployment?cascade=true"),
            "%2E%2E%2Fdeployment%3Fcascade%3Dtrue"
        );
        assert_eq!(segment("a b/c"), "a%20b%2Fc");
    }
}
