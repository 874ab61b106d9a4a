//! What a principal may do on a Kafka cluster, as the broker itself says it: the APIs and
//! versions it offers (ApiVersions), the authorized-operations bitfields of the cluster
//! (DescribeCluster) and of topics (Metadata), and whether it may DESCRIBE a
//! transactional id (a DescribeTransactions of an id no producer uses).

use super::config::ClientConfig;
use super::conn::{check, BrokerError, Connection, Unsupported};
use anyhow::Result;
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
use kafka_protocol::messages::{
    ApiKey, DescribeClusterRequest, DescribeClusterResponse, DescribeTransactionsRequest,
    DescribeTransactionsResponse, MetadataRequest, MetadataResponse, TopicName, TransactionalId,
};
use kafka_protocol::protocol::{Message, StrBytes, VersionRange};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// An ACL operation, by its code in Kafka's AclOperation (the bit it sets in an
/// authorized-operations field), named as kafka-acls.sh's --operation takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Operation {
    Read = 3,
    Write = 4,
    Create = 5,
    Delete = 6,
    Alter = 7,
    Describe = 8,
    ClusterAction = 9,
    DescribeConfigs = 10,
    AlterConfigs = 11,
    IdempotentWrite = 12,
    CreateTokens = 13,
    DescribeTokens = 14,
    TwoPhaseCommit = 15,
}

const OPERATIONS: &[Operation] = &[
    Operation::Read,
    Operation::Write,
    Operation::Create,
    Operation::Delete,
    Operation::Alter,
    Operation::Describe,
    Operation::ClusterAction,
    Operation::DescribeConfigs,
    Operation::AlterConfigs,
    Operation::IdempotentWrite,
    Operation::CreateTokens,
    Operation::DescribeTokens,
    Operation::TwoPhaseCommit,
];

impl Operation {
    /// kafka-acls.sh's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Read => "Read",
            Operation::Write => "Write",
            Operation::Create => "Create",
            Operation::Delete => "Delete",
            Operation::Alter => "Alter",
            Operation::Describe => "Describe",
            Operation::ClusterAction => "ClusterAction",
            Operation::DescribeConfigs => "DescribeConfigs",
            Operation::AlterConfigs => "AlterConfigs",
            Operation::IdempotentWrite => "IdempotentWrite",
            Operation::CreateTokens => "CreateTokens",
            Operation::DescribeTokens => "DescribeTokens",
            Operation::TwoPhaseCommit => "TwoPhaseCommit",
        }
    }
}

/// An authorized-operations field as the broker sent it. i32::MIN is the schema's
/// default: the broker did not say (it was not asked, or the version cannot carry it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Operations(pub i32);

impl Operations {
    pub const NOT_REPORTED: Operations = Operations(i32::MIN);

    pub fn reported(self) -> bool {
        self != Self::NOT_REPORTED
    }

    pub fn allows(self, op: Operation) -> bool {
        self.reported() && self.0 & (1 << op as i32) != 0
    }

    /// The operations it names, in code order.
    pub fn list(self) -> Vec<Operation> {
        OPERATIONS
            .iter()
            .copied()
            .filter(|&op| self.allows(op))
            .collect()
    }
}

/// The versions the broker offers of one API indoubt uses; None when it lacks the API.
#[derive(Debug, Clone, Serialize)]
pub struct ApiOffer {
    pub api: String,
    pub min: Option<i16>,
    pub max: Option<i16>,
}

/// What the broker said of one topic asked about.
#[derive(Debug, Clone)]
pub enum TopicAccess {
    /// Described: its authorized operations, `internal` for Kafka's own topics.
    Described {
        operations: Operations,
        internal: bool,
    },
    /// Metadata gave this error for it (TOPIC_AUTHORIZATION_FAILED: no DESCRIBE;
    /// UNKNOWN_TOPIC_OR_PARTITION: it does not exist).
    Refused(BrokerError),
}

/// Whether the principal may DESCRIBE a transactional id that no ACL of its own names.
#[derive(Debug, Clone)]
pub enum TransactionalIdProbe {
    /// The broker answered this error code (0, TRANSACTIONAL_ID_NOT_FOUND, NOT_COORDINATOR…):
    /// it passed the DESCRIBE check, which comes first.
    Allowed { answer: String },
    /// TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
    Denied,
    /// The broker does not offer DescribeTransactions (before Kafka 3.0).
    Unsupported(String),
    /// The request failed otherwise.
    Failed(String),
}

/// What one bootstrap broker said about the principal's access.
#[derive(Debug, Clone)]
pub struct Access {
    /// The bootstrap server that answered.
    pub address: String,
    pub apis: Vec<ApiOffer>,
    pub brokers: usize,
    pub cluster_id: Option<String>,
    /// DescribeCluster's cluster authorized operations; 0 when DESCRIBE on the cluster
    /// is denied (the broker then reports none). Err: DescribeCluster failed or is not
    /// offered (before Kafka 2.8).
    pub cluster: Result<Operations, String>,
    /// The topics asked about, by name.
    pub topics: BTreeMap<String, TopicAccess>,
    /// Every topic the broker lists (it lists only those the principal may DESCRIBE):
    /// its authorized operations, and whether it is internal.
    pub listed: BTreeMap<String, (Operations, bool)>,
    /// Whether Metadata could carry topic authorized operations (v8+).
    pub topic_operations_reported: bool,
    pub transactional_id: TransactionalIdProbe,
}

/// The APIs indoubt's commands send.
const APIS: &[ApiKey] = &[
    ApiKey::Metadata,
    ApiKey::ListOffsets,
    ApiKey::Fetch,
    ApiKey::DescribeConfigs,
    ApiKey::FindCoordinator,
    ApiKey::DescribeProducers,
    ApiKey::ListTransactions,
    ApiKey::DescribeTransactions,
    ApiKey::WriteTxnMarkers,
    ApiKey::DescribeCluster,
];

/// Asks the first bootstrap server that answers, about `topics` and every topic it
/// lists. `probe_id`: a transactional id no producer uses.
pub async fn read(
    config: &ClientConfig,
    topics: &[String],
    probe_id: &str,
    timeout: Duration,
) -> Result<Access> {
    let conn = Connection::open_first(config, timeout).await?;
    ask(conn, topics, probe_id).await
}

async fn ask(mut conn: Connection, topics: &[String], probe_id: &str) -> Result<Access> {
    let apis = APIS
        .iter()
        .map(|&key| {
            let offered = conn.offered(key);
            ApiOffer {
                api: format!("{key:?}"),
                min: offered.map(|v| v.min),
                max: offered.map(|v| v.max),
            }
        })
        .collect();
    let (brokers, cluster_id, topic_operations_reported, topic_access) =
        metadata(&mut conn, Some(topics)).await?;
    let (_, _, _, listed) = metadata(&mut conn, None).await?;
    let listed = listed
        .into_iter()
        .filter_map(|(name, access)| match access {
            TopicAccess::Described {
                operations,
                internal,
            } => Some((name, (operations, internal))),
            TopicAccess::Refused(_) => None,
        })
        .collect();
    let cluster = describe_cluster(&mut conn)
        .await
        .map_err(|e| format!("{e:#}"));
    let transactional_id = probe(&mut conn, probe_id).await;
    Ok(Access {
        address: conn.address.clone(),
        apis,
        brokers,
        cluster_id,
        cluster,
        topics: topic_access,
        listed,
        topic_operations_reported,
        transactional_id,
    })
}

/// Metadata of `topics` (None: every topic the broker lists), with their authorized
/// operations where the version carries them (v8+): brokers, cluster id, whether the
/// operations were reported, and each topic's access.
async fn metadata(
    conn: &mut Connection,
    topics: Option<&[String]>,
) -> Result<(usize, Option<String>, bool, BTreeMap<String, TopicAccess>)> {
    // Metadata v4+ can be told not to create topics; v8+ carries authorized operations.
    let versions = VersionRange {
        min: 4,
        max: MetadataRequest::VERSIONS.max,
    };
    let version = conn.version(ApiKey::Metadata, versions)?;
    let request = MetadataRequest::default()
        .with_topics(topics.map(|names| {
            names
                .iter()
                .map(|n| {
                    MetadataRequestTopic::default()
                        .with_name(Some(TopicName(StrBytes::from_string(n.clone()))))
                })
                .collect()
        }))
        .with_allow_auto_topic_creation(false)
        .with_include_topic_authorized_operations(version >= 8);
    let response: MetadataResponse = conn.send(ApiKey::Metadata, &request, versions).await?;
    let reported = version >= 8;
    let mut access = BTreeMap::new();
    for t in &response.topics {
        let Some(name) = t.name.as_ref().map(|n| n.0.to_string()) else {
            continue;
        };
        let topic = match BrokerError::from_code(t.error_code, "Metadata") {
            Some(e) => TopicAccess::Refused(e),
            None => TopicAccess::Described {
                operations: match reported {
                    true => Operations(t.topic_authorized_operations),
                    false => Operations::NOT_REPORTED,
                },
                internal: t.is_internal,
            },
        };
        access.insert(name, topic);
    }
    Ok((
        response.brokers.len(),
        response.cluster_id.map(|c| c.to_string()),
        reported,
        access,
    ))
}

async fn describe_cluster(conn: &mut Connection) -> Result<Operations> {
    let request = DescribeClusterRequest::default()
        .with_include_cluster_authorized_operations(true)
        // 1: brokers (v1+; v0 has no endpoint type).
        .with_endpoint_type(1);
    let response: DescribeClusterResponse = conn
        .send(
            ApiKey::DescribeCluster,
            &request,
            DescribeClusterRequest::VERSIONS,
        )
        .await?;
    check(response.error_code, "DescribeCluster")?;
    Ok(Operations(response.cluster_authorized_operations))
}

/// The broker checks DESCRIBE on the id before it looks the id up, so any answer but
/// TRANSACTIONAL_ID_AUTHORIZATION_FAILED means the check passed.
async fn probe(conn: &mut Connection, probe_id: &str) -> TransactionalIdProbe {
    let request =
        DescribeTransactionsRequest::default().with_transactional_ids(vec![TransactionalId(
            StrBytes::from_string(probe_id.to_string()),
        )]);
    let sent: Result<DescribeTransactionsResponse> = conn
        .send(
            ApiKey::DescribeTransactions,
            &request,
            DescribeTransactionsRequest::VERSIONS,
        )
        .await;
    match sent {
        Ok(response) => match response.transaction_states.first() {
            Some(state) => match BrokerError::from_code(state.error_code, "DescribeTransactions") {
                Some(e) if e.error == ResponseError::TransactionalIdAuthorizationFailed => {
                    TransactionalIdProbe::Denied
                }
                Some(e) => TransactionalIdProbe::Allowed { answer: e.name() },
                None => TransactionalIdProbe::Allowed {
                    answer: "NONE (0)".to_string(),
                },
            },
            None => TransactionalIdProbe::Failed(
                "DescribeTransactions: the broker answered for no transactional id".to_string(),
            ),
        },
        Err(e) if Unsupported::of(&e).is_some() => {
            TransactionalIdProbe::Unsupported(format!("{e:#}"))
        }
        Err(e) => TransactionalIdProbe::Failed(format!("{e:#}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bitfield_names_operations_by_their_code() {
        // READ (3), DESCRIBE (8) and DESCRIBE_CONFIGS (10), as a broker sends them.
        let ops = Operations((1 << 3) | (1 << 8) | (1 << 10));
        assert_eq!(
            ops.list(),
            [
                Operation::Read,
                Operation::Describe,
                Operation::DescribeConfigs
            ]
        );
        assert!(!ops.allows(Operation::Write));
        assert!(!Operations::NOT_REPORTED.reported());
        assert!(Operations::NOT_REPORTED.list().is_empty());
        assert!(Operations(0).reported() && Operations(0).list().is_empty());
    }
}
