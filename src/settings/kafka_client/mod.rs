//! Kafka client properties — librdkafka's names and the Java client's, from the config,
//! a properties file or `-X` — read once, at the application's edge, into the client's
//! typed [`ClientConfig`]: every name known, secrets masked wherever they are shown.

pub mod jaas;
pub mod kerberos;
pub mod oauthbearer;
pub mod properties;
pub mod providers;
pub mod security;
pub mod syntax;
pub mod target;
pub mod tls;

pub use target::KafkaTarget;

use crate::error::hinted;
use crate::kafka::config::{ClientConfig, DEFAULT_CLIENT_ID};
use anyhow::Result;
use providers::Providers;
use std::collections::BTreeMap;
use std::time::Duration;

/// The client configuration `target` asks for, `${env:…}` references read from the
/// process environment.
pub fn client_config(target: &KafkaTarget) -> Result<ClientConfig> {
    client_config_with_env(target, &|k| std::env::var(k).ok())
}

/// The same, `${env:…}` references read through `env`.
pub fn client_config_with_env(
    target: &KafkaTarget,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ClientConfig> {
    let values = Values::new(&target.properties, env)?;
    let request_timeout = match millis(&values, "request.timeout.ms")? {
        Some(bound) => Some(bound),
        None => millis(&values, "socket.timeout.ms")?,
    };
    Ok(ClientConfig {
        bootstrap: target.bootstrap.clone(),
        client_id: client_id(&values)?,
        security: security::security(&values)?,
        connect_timeout: millis(&values, "socket.connection.setup.timeout.ms")?,
        request_timeout,
    })
}

/// client.id as configured (default `indoubt`): printable text, as brokers write it into
/// their request and audit logs.
fn client_id(values: &Values) -> Result<String> {
    let Some(id) = values.get("client.id")? else {
        return Ok(DEFAULT_CLIENT_ID.to_string());
    };
    if id.chars().any(char::is_control) || id.len() > i16::MAX as usize {
        return Err(hinted(
            "client.id holds a control character or is too long",
            "brokers write the client id into their request and audit logs: use printable text (Kafka's own ids are like ops-monitor-42)",
        ));
    }
    Ok(id)
}

/// A positive number of milliseconds (Kafka's `*.ms` properties).
fn millis(values: &Values, key: &str) -> Result<Option<Duration>> {
    let Some(text) = values.get(key)? else {
        return Ok(None);
    };
    match text.parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms))),
        _ => Err(hinted(
            format!("invalid {key} {text:?}"),
            "a positive number of milliseconds; it can only shorten --timeout, which bounds every connect and request",
        )),
    }
}

/// Property values with their config provider references resolved, trimmed.
pub(crate) struct Values<'a> {
    props: &'a BTreeMap<String, String>,
    providers: Providers,
    env: &'a dyn Fn(&str) -> Option<String>,
}

impl<'a> Values<'a> {
    /// Every property name is checked against the table of known ones first, so a typo
    /// cannot silently leave a connection weaker than asked for; a value is read only
    /// after its config provider references are resolved.
    pub(crate) fn new(
        props: &'a BTreeMap<String, String>,
        env: &'a dyn Fn(&str) -> Option<String>,
    ) -> Result<Values<'a>> {
        properties::check_all(props)?;
        Ok(Values {
            props,
            providers: Providers::from_properties(props)?,
            env,
        })
    }

    /// The value as given, empty or not.
    pub(crate) fn raw(&self, key: &str) -> Result<Option<String>> {
        match self.props.get(key) {
            None => Ok(None),
            Some(v) => Ok(Some(
                self.providers.resolve(key, v, self.env)?.trim().to_string(),
            )),
        }
    }

    /// The value; an empty one is the same as none.
    pub(crate) fn get(&self, key: &str) -> Result<Option<String>> {
        Ok(self.raw(key)?.filter(|v| !v.is_empty()))
    }
}
