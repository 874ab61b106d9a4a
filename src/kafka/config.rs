//! What the Kafka client needs to reach a cluster, typed: the bootstrap servers, the
//! client id every request carries, how connections are secured, and the bounds the
//! client properties set within the command's own. The application builds it once from
//! the client properties (src/settings/kafka_client); nothing here reads a property.

use super::security::Security;
use std::time::Duration;

/// The client id indoubt sends when none is configured (brokers' quotas, request logs and
/// ACL audit logs key on it).
pub const DEFAULT_CLIENT_ID: &str = "indoubt";

#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// host:port of each bootstrap server, tried in order.
    pub bootstrap: Vec<String>,
    /// The request header's client id.
    pub client_id: String,
    pub security: Security,
    /// Each connection's setup (TCP, TLS, ApiVersions, SASL) is bounded by this as well as
    /// by the command's timeout (socket.connection.setup.timeout.ms).
    pub connect_timeout: Option<Duration>,
    /// Each request's exchange is bounded by this as well as by the command's timeout
    /// (request.timeout.ms, librdkafka's socket.timeout.ms).
    pub request_timeout: Option<Duration>,
}

impl ClientConfig {
    /// A PLAINTEXT client of `bootstrap` with the defaults.
    pub fn plaintext(bootstrap: Vec<String>) -> ClientConfig {
        ClientConfig {
            bootstrap,
            client_id: DEFAULT_CLIENT_ID.to_string(),
            security: Security::default(),
            connect_timeout: None,
            request_timeout: None,
        }
    }

    /// The bound of a connection's setup within the command's `timeout`.
    pub fn connect_bound(&self, timeout: Duration) -> Duration {
        self.connect_timeout.map_or(timeout, |t| t.min(timeout))
    }

    /// The bound of one request within the command's `timeout`.
    pub fn request_bound(&self, timeout: Duration) -> Duration {
        self.request_timeout.map_or(timeout, |t| t.min(timeout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_bound_only_ever_shortens_the_commands_timeout() {
        let mut c = ClientConfig::plaintext(vec!["b:9092".into()]);
        let ten = Duration::from_secs(10);
        assert_eq!(c.connect_bound(ten), ten);
        c.connect_timeout = Some(Duration::from_secs(3));
        c.request_timeout = Some(Duration::from_secs(30));
        assert_eq!(c.connect_bound(ten), Duration::from_secs(3));
        assert_eq!(c.request_bound(ten), ten);
    }
}
