//! Kafka test support: topics, transactional producers that stay open, and a genuinely
//! hanging transaction made with raw protocol requests (the KAFKA-9144 class).

use super::{lab, unique};
use bytes::BytesMut;
use indoubt::kafka::config::ClientConfig as IndoubtClient;
use indoubt::kafka::conn::Connection;
use kafka_protocol::messages::{
    produce_request, ApiKey, InitProducerIdRequest, InitProducerIdResponse, ProduceRequest,
    ProduceResponse, TopicName, TransactionalId,
};
use kafka_protocol::protocol::{Message, StrBytes, VersionRange};
use kafka_protocol::records::{
    Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::ClientConfig;
use std::time::Duration;

pub const WAIT: Duration = Duration::from_secs(30);

/// The lab's protocol generations: on Kafka 4.x two brokers, transaction.version 2 (the
/// 4.x default) and 0 (classic); on 3.x one broker, which only has the classic one.
pub fn brokers() -> Vec<(&'static str, String)> {
    let (tv2, tv0) = (
        lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        lab("INDOUBT_LAB_KAFKA_TV0_BOOTSTRAP"),
    );
    if tv2 == tv0 {
        vec![("tv0", tv0)]
    } else {
        vec![("tv2", tv2), ("tv0", tv0)]
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

pub fn create_topic(bootstrap: &str, prefix: &str, partitions: i32) -> String {
    create_topic_with(
        bootstrap,
        prefix,
        partitions,
        TopicReplication::Fixed(1),
        &[],
    )
}

/// A topic with a replica layout and topic configs of its own.
// A test's progress note, not indoubt's output (clippy.toml bans the print macros there).
#[allow(clippy::disallowed_macros)]
pub fn create_topic_with(
    bootstrap: &str,
    prefix: &str,
    partitions: i32,
    replication: TopicReplication,
    configs: &[(&str, &str)],
) -> String {
    let topic = unique(prefix);
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .expect("admin client");
    let new_topic = configs.iter().fold(
        NewTopic::new(&topic, partitions, replication),
        |t, (k, v)| t.set(k, v),
    );
    // A broker busy starting (a private cluster, the whole suite at once) may time the
    // request out: asked again, a topic the first request made after all is fine.
    let deadline = std::time::Instant::now() + 2 * WAIT;
    for attempt in 0.. {
        match runtime().block_on(admin.create_topics(
            [&new_topic],
            &AdminOptions::new().operation_timeout(Some(WAIT)),
        )) {
            Ok(results) => {
                for result in results {
                    match result {
                        Ok(_) => {}
                        Err((_, RDKafkaErrorCode::TopicAlreadyExists)) if attempt > 0 => {}
                        Err((t, e)) => panic!("creating {t}: {e}"),
                    }
                }
                return topic;
            }
            Err(e) if std::time::Instant::now() < deadline => {
                eprintln!("creating {topic} (attempt {attempt}): {e}; asking again");
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
            Err(e) => panic!("lab not running: run tests/lab/up (creating a topic failed: {e})"),
        }
    }
    unreachable!()
}

/// Deletes each partition's messages before an offset (DeleteRecords, by Kafka's own
/// tool): retention, by hand.
pub fn delete_records(bootstrap: &str, topic: &str, before: &[(i32, i64)]) {
    let dir = tempfile::tempdir().unwrap();
    let offsets = dir.path().join("offsets.json");
    let partitions: Vec<String> = before
        .iter()
        .map(|(p, o)| format!(r#"{{"topic":"{topic}","partition":{p},"offset":{o}}}"#))
        .collect();
    std::fs::write(
        &offsets,
        format!(r#"{{"version":1,"partitions":[{}]}}"#, partitions.join(",")),
    )
    .unwrap();
    kafka_tool(
        bootstrap,
        "org.apache.kafka.tools.DeleteRecordsCommand",
        &["--offset-json-file", &offsets.to_string_lossy()],
    );
}

/// A transactional producer with the broker's maximum transaction timeout (1h in the lab).
pub fn transactional_producer(bootstrap: &str, id: &str) -> BaseProducer {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("transactional.id", id)
        .set("transaction.timeout.ms", "3600000")
        .create()
        .expect("producer");
    producer.init_transactions(WAIT).expect("init transactions");
    producer
}

/// Writes keyed events (no transaction) and waits until the broker has them all.
pub fn publish(bootstrap: &str, topic: &str, events: impl IntoIterator<Item = (String, String)>) {
    let producer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .expect("producer");
    for (key, payload) in events {
        producer
            .send(BaseRecord::to(topic).key(&key).payload(&payload))
            .map_err(|(e, _)| e)
            .expect("send");
    }
    producer.flush(WAIT).expect("flush");
}

pub fn send(producer: &BaseProducer, topic: &str, partition: i32, payload: &str) {
    producer
        .send(
            BaseRecord::to(topic)
                .partition(partition)
                .key(payload)
                .payload(payload),
        )
        .map_err(|(e, _)| e)
        .expect("send");
    producer.flush(WAIT).expect("flush");
}

/// Commits `n` messages to a partition in their own transactions, and returns once
/// their commit markers are in the partition. The coordinator answers EndTxn before it
/// writes the markers, so without the wait a write made next could land before the last
/// marker, at another offset than the test expects.
pub fn committed_writes(bootstrap: &str, topic: &str, partition: i32, n: usize) {
    let producer = transactional_producer(bootstrap, &unique("committer"));
    // read_uncommitted: the high watermark itself, not an LSO another test holds back.
    let reader = consumer(bootstrap, "read_uncommitted");
    let high_watermark = || {
        rdkafka::consumer::Consumer::fetch_watermarks(&reader, topic, partition, WAIT)
            .expect("watermarks")
            .1
    };
    let before = high_watermark();
    for i in 0..n {
        producer.begin_transaction().unwrap();
        send(&producer, topic, partition, &format!("committed-{i}"));
        producer.commit_transaction(WAIT).unwrap();
    }
    // Each transaction is one message and one marker.
    let expected = before + 2 * n as i64;
    let deadline = std::time::Instant::now() + WAIT;
    while high_watermark() < expected {
        assert!(
            std::time::Instant::now() < deadline,
            "the commit markers of {topic}-{partition} were not written"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An open transaction its coordinator knows and owns: begun, written, never ended.
/// Keep the producer alive; drop it (or abort) to end the test's transaction.
pub fn long_transaction(bootstrap: &str, topic: &str, partition: i32) -> (BaseProducer, String) {
    let id = unique("long-txn");
    let producer = transactional_producer(bootstrap, &id);
    producer.begin_transaction().unwrap();
    send(&producer, topic, partition, "never-committed");
    (producer, id)
}

/// A genuinely hanging transaction: a transactional batch written straight to the
/// partition with a producer id from InitProducerId, without AddPartitionsToTxn, so the
/// coordinator never hears of the partition (the lab broker disables KIP-890's
/// verification for this). Returns (producer id, epoch, transactional id).
pub fn hanging_transaction(bootstrap: &str, topic: &str, partition: i32) -> (i64, i16, String) {
    let id = unique("hanging-txn");
    runtime().block_on(async {
        let mut conn = Connection::open(
            bootstrap,
            &IndoubtClient::plaintext(vec![bootstrap.to_string()]),
            WAIT,
        )
        .await
        .expect("connect");
        let init = InitProducerIdRequest::default()
            .with_transactional_id(Some(TransactionalId(StrBytes::from_string(id.clone()))))
            .with_transaction_timeout_ms(60_000);
        // On a broker started a moment ago the transaction coordinator may still be coming
        // up (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR).
        let mut attempt = 0;
        let init: InitProducerIdResponse = loop {
            let response: InitProducerIdResponse = conn
                .send(
                    ApiKey::InitProducerId,
                    &init,
                    InitProducerIdRequest::VERSIONS,
                )
                .await
                .expect("InitProducerId");
            match response.error_code {
                14..=16 if attempt < 120 => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(250)).await
                }
                _ => break response,
            }
        };
        assert_eq!(init.error_code, 0, "InitProducerId error");
        let (pid, epoch) = (init.producer_id.0, init.producer_epoch);
        let records: Vec<Record> = (0..2)
            .map(|i| Record {
                transactional: true,
                control: false,
                delete_horizon: false,
                partition_leader_epoch: -1,
                producer_id: pid,
                producer_epoch: epoch,
                timestamp_type: TimestampType::Creation,
                offset: i,
                sequence: i as i32,
                timestamp: chrono::Utc::now().timestamp_millis(),
                key: None,
                value: Some(bytes::Bytes::from_static(b"orphaned write")),
                headers: Default::default(),
            })
            .collect();
        let mut batch = BytesMut::new();
        RecordBatchEncoder::encode(
            &mut batch,
            &records,
            &RecordEncodeOptions {
                version: 2,
                compression: Compression::None,
            },
        )
        .expect("encode batch");
        // The leader of this single-node lab is the bootstrap broker. Produce v12+ would let a
        // transaction.version=2 broker add the partition to the transaction by itself
        // (KIP-890 part 2); up to v11 it is the client's job, which we skip on purpose.
        let produce = ProduceRequest::default()
            .with_transactional_id(Some(TransactionalId(StrBytes::from_string(id.clone()))))
            .with_acks(-1)
            .with_timeout_ms(30_000)
            .with_topic_data(vec![produce_request::TopicProduceData::default()
                .with_name(TopicName(StrBytes::from_string(topic.to_string())))
                .with_partition_data(vec![
                    produce_request::PartitionProduceData::default()
                        .with_index(partition)
                        .with_records(Some(batch.freeze())),
                ])]);
        // A topic created a moment ago may have no leader yet: retry those answers.
        for attempt in 0.. {
            let response: ProduceResponse = conn
                .send(ApiKey::Produce, &produce, VersionRange { min: 3, max: 11 })
                .await
                .expect("Produce");
            let code = response
                .responses
                .iter()
                .flat_map(|t| t.partition_responses.iter())
                .map(|p| p.error_code)
                .find(|c| *c != 0);
            match code {
                None => break,
                Some(3 | 5 | 6) if attempt < 40 => {
                    tokio::time::sleep(Duration::from_millis(250)).await
                }
                Some(code) => panic!("raw transactional produce refused: error {code}"),
            }
        }
        (pid, epoch, id)
    })
}

/// `-b` and `-X` for the lab's SASL_SSL listener.
pub fn sasl_args(mechanism: &str, password: &str, ca: &str) -> Vec<String> {
    sasl_args_as(&lab("INDOUBT_LAB_KAFKA_SASL_USER"), mechanism, password, ca)
}

/// The same for another user (see `scram_user`).
pub fn sasl_args_as(user: &str, mechanism: &str, password: &str, ca: &str) -> Vec<String> {
    [
        "-b".to_string(),
        lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP"),
        "-X".into(),
        "security.protocol=SASL_SSL".into(),
        "-X".into(),
        format!("sasl.mechanism={mechanism}"),
        "-X".into(),
        format!("sasl.username={user}"),
        "-X".into(),
        format!("sasl.password={password}"),
        "-X".into(),
        format!("ssl.ca.location={ca}"),
    ]
    .to_vec()
}

pub fn consumer(bootstrap: &str, isolation: &str) -> rdkafka::consumer::BaseConsumer {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", unique("lab-test"))
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .set("isolation.level", isolation)
        .create()
        .expect("consumer")
}

/// Every payload readable at this isolation level, up to the end of the partition.
pub fn read_all(bootstrap: &str, topic: &str, partition: i32, isolation: &str) -> Vec<String> {
    use rdkafka::consumer::Consumer;
    use rdkafka::Message;
    let consumer = consumer(bootstrap, isolation);
    let mut tpl = rdkafka::TopicPartitionList::new();
    tpl.add_partition_offset(topic, partition, rdkafka::Offset::Beginning)
        .unwrap();
    consumer.assign(&tpl).unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    let mut seen = Vec::new();
    while std::time::Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(message)) => seen
                .push(String::from_utf8_lossy(message.payload().unwrap_or_default()).into_owned()),
            Some(Err(rdkafka::error::KafkaError::PartitionEOF(_))) => return seen,
            Some(Err(e)) => panic!("consume: {e}"),
            None => {}
        }
    }
    panic!("no end of partition within {WAIT:?}; read {seen:?}")
}

/// A KRaft cluster of the test's own with several brokers (tests/lab/kafka-cluster):
/// node 1 is broker and controller, the others brokers. Killed on drop.
pub struct KafkaCluster {
    dir: tempfile::TempDir,
    ports: Vec<u16>,
}

impl KafkaCluster {
    pub fn start(brokers: usize) -> KafkaCluster {
        Self::start_advertising(brokers, &[])
    }

    /// As `start`, with each (node, port) of `advertised` telling clients (and the other
    /// brokers) it is at that port of 127.0.0.1: a wrong advertised.listeners.
    pub fn start_advertising(brokers: usize, advertised: &[(usize, u16)]) -> KafkaCluster {
        let dir = tempfile::Builder::new()
            .prefix("indoubt-kafka-")
            .tempdir()
            .expect("tempdir");
        let controller = super::free_port().to_string();
        let ports: Vec<u16> = (0..brokers).map(|_| super::free_port()).collect();
        let path = dir.path().to_string_lossy().into_owned();
        let mut args = vec!["start", &path, &controller];
        let port_args: Vec<String> = ports.iter().map(u16::to_string).collect();
        args.extend(port_args.iter().map(String::as_str));
        let cluster = KafkaCluster { dir, ports };
        let env: Vec<(String, String)> = advertised
            .iter()
            .map(|(node, port)| (format!("KAFKA_CLUSTER_ADVERTISE_{node}"), port.to_string()))
            .collect();
        super::run_lab_script_with("kafka-cluster", &args, &env);
        cluster
    }

    /// Every broker, so a client still finds the cluster when one of them stops.
    pub fn bootstrap(&self) -> String {
        self.ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Broker `node` (1-based) crashes (SIGKILL): it is fenced within 3s, and its
    /// partitions are led by their other replicas.
    pub fn kill_node(&self, node: usize) {
        super::run_lab_script(
            "kafka-cluster",
            &[
                "kill",
                &self.dir.path().to_string_lossy(),
                &node.to_string(),
            ],
        );
    }

    /// A Kafka tool class (ConfigCommand, LeaderElectionCommand, …) run against this
    /// cluster, or against broker `only` alone; its stdout.
    pub fn tool(&self, only: Option<usize>, class: &str, args: &[&str]) -> String {
        let bootstrap = match only {
            Some(node) => format!("127.0.0.1:{}", self.ports[node - 1]),
            None => self.bootstrap(),
        };
        kafka_tool(&bootstrap, class, args)
    }
}

impl Drop for KafkaCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new(super::repo_root().join("tests/lab/kafka-cluster"))
            .args(["stop", &self.dir.path().to_string_lossy()])
            .status();
    }
}

/// A single broker of an older Kafka release (tests/lab/kafka-legacy): 2.8 on ZooKeeper,
/// 3.x on KRaft. Killed on drop.
pub struct LegacyBroker {
    dir: tempfile::TempDir,
    pub bootstrap: String,
}

impl LegacyBroker {
    pub fn start(version: &str) -> LegacyBroker {
        let dir = tempfile::Builder::new()
            .prefix("indoubt-kafka-legacy-")
            .tempdir()
            .expect("tempdir");
        // The broker's port and, next to it, ZooKeeper's or the controller's.
        let port = loop {
            let port = super::free_port();
            if port < u16::MAX && std::net::TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
                break port;
            }
        };
        let broker = LegacyBroker {
            bootstrap: format!("127.0.0.1:{port}"),
            dir,
        };
        super::run_lab_script(
            "kafka-legacy",
            &[
                "start",
                &broker.dir.path().to_string_lossy(),
                version,
                &port.to_string(),
            ],
        );
        broker
    }
}

impl Drop for LegacyBroker {
    fn drop(&mut self) {
        let _ = std::process::Command::new(super::repo_root().join("tests/lab/kafka-legacy"))
            .args(["stop", &self.dir.path().to_string_lossy()])
            .status();
    }
}

/// A Kafka tool class from the lab's jars, run against `bootstrap`; its stdout.
pub fn kafka_tool(bootstrap: &str, class: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(super::repo_root().join("tests/lab/kafka-cluster"))
        .args(["tool", class, "--bootstrap-server", bootstrap])
        .args(args)
        .output()
        .expect("run kafka-cluster tool");
    assert!(
        out.status.success(),
        "{class} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A SCRAM-SHA-256 user of the lab's SASL_SSL listener, made for one test: ACLs denying
/// it something touch no other test. Returns (user, password).
pub fn scram_user(prefix: &str) -> (String, String) {
    let (user, password) = (unique(prefix), unique("pw"));
    let _ = kafka_tool(
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        "kafka.admin.ConfigCommand",
        &[
            "--alter",
            "--entity-type",
            "users",
            "--entity-name",
            &user,
            "--add-config",
            &format!("SCRAM-SHA-256=[iterations=4096,password={password}]"),
        ],
    );
    (user, password)
}

/// An ACL for one test (kafka-acls.sh arguments after --add), removed when dropped (also
/// when the test fails). Any ACL on a resource ends the lab's "allow when no ACL is
/// found" for that resource, for every principal.
pub struct Acl {
    args: Vec<String>,
}

impl Acl {
    pub fn add(args: &[&str]) -> Acl {
        let acl = Acl {
            args: args.iter().map(|s| s.to_string()).collect(),
        };
        let out = acl.run("--add");
        assert!(
            out.status.success(),
            "kafka-acls --add {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        acl
    }

    fn run(&self, action: &str) -> std::process::Output {
        std::process::Command::new(super::repo_root().join("tests/lab/kafka-acls"))
            .args(["--bootstrap-server", &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP")])
            .arg(action)
            .args(&self.args)
            .arg("--force")
            .output()
            .expect("kafka-acls")
    }
}

impl Drop for Acl {
    fn drop(&mut self) {
        let _ = self.run("--remove");
    }
}

/// DESCRIBE on every transactional id denied to `principal` alone, until dropped: everyone
/// is allowed everything on them explicitly meanwhile, so that other tests' principals
/// keep what the lab's "allow when no ACL is found" gave them. The allow is added first
/// and removed last: with the deny alone on the resource, every principal is denied.
pub struct DescribeDenied {
    // Fields drop in declaration order: the deny goes first.
    _deny: Acl,
    _allow_everyone: Acl,
}

pub fn deny_describing_transactional_ids(principal: &str) -> DescribeDenied {
    let allow_everyone = Acl::add(&[
        "--allow-principal",
        "User:*",
        "--operation",
        "All",
        "--transactional-id",
        "*",
    ]);
    let deny = Acl::add(&[
        "--deny-principal",
        principal,
        "--operation",
        "Describe",
        "--transactional-id",
        "*",
    ]);
    DescribeDenied {
        _deny: deny,
        _allow_everyone: allow_everyone,
    }
}
