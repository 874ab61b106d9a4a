//! What indoubt's Kafka client puts on the wire and how long it waits, seen from a TCP
//! proxy in front of the lab's real broker (as a proxy or the broker's request log sees
//! it): the client id of every request, and the bounds the Java and librdkafka timeout
//! properties set within --timeout.

use crate::common;

use common::kafka::create_topic;
use common::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the proxy saw: the API key and client id of each request, in order.
type Seen = Arc<Mutex<Vec<(i16, Option<String>)>>>;

/// The request header's API key and client id (a nullable non-compact string in every
/// header version) of one request frame.
fn header_of(frame: &[u8]) -> (i16, Option<String>) {
    let key = i16::from_be_bytes([frame[0], frame[1]]);
    let len = i16::from_be_bytes([frame[8], frame[9]]);
    let id = (len >= 0).then(|| String::from_utf8_lossy(&frame[10..10 + len as usize]).into());
    (key, id)
}

/// A proxy to `upstream` on a port of its own: it relays every request frame and the
/// broker's answer, recording each request's header; after `forward` requests it stops
/// relaying (a broker gone silent mid-conversation) and holds the connection.
fn proxy(upstream: &str, forward: usize) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let seen: Seen = Arc::default();
    let (upstream, record) = (upstream.to_string(), seen.clone());
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let (upstream, record) = (upstream.clone(), record.clone());
            std::thread::spawn(move || relay(client, &upstream, &record, forward));
        }
    });
    (address, seen)
}

fn relay(mut client: TcpStream, upstream: &str, seen: &Seen, forward: usize) {
    let mut broker = TcpStream::connect(upstream).unwrap();
    let read_frame = |from: &mut TcpStream| -> Option<Vec<u8>> {
        let mut len = [0u8; 4];
        from.read_exact(&mut len).ok()?;
        let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
        from.read_exact(&mut body).ok()?;
        Some([len.to_vec(), body].concat())
    };
    while let Some(request) = read_frame(&mut client) {
        seen.lock().unwrap().push(header_of(&request[4..]));
        if seen.lock().unwrap().len() > forward {
            std::thread::sleep(Duration::from_secs(600));
            return;
        }
        broker.write_all(&request).unwrap();
        let Some(response) = read_frame(&mut broker) else {
            return;
        };
        if client.write_all(&response).is_err() {
            return;
        }
    }
}

#[test]
fn every_request_carries_the_configured_client_id_and_indoubt_by_default() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "client-id", 1);
    let id = unique("ops-monitor");
    for (args, expected) in [
        (
            vec!["-X".to_string(), format!("client.id={id}")],
            id.as_str(),
        ),
        (vec![], "indoubt"),
    ] {
        let (address, seen) = proxy(&bootstrap, usize::MAX);
        let out = run(indoubt()
            .args(["kafka", "lso", "-b", &address, "--topic", &topic])
            .args(&args));
        assert!(out.code < 3, "{}", out.stderr);
        let seen = seen.lock().unwrap().clone();
        // ApiVersions (18) and Metadata (3) at least went through the proxy.
        assert!(
            seen.iter().any(|(key, _)| *key == 18) && seen.iter().any(|(key, _)| *key == 3),
            "{seen:?}"
        );
        assert!(
            seen.iter()
                .all(|(_, sent)| sent.as_deref() == Some(expected)),
            "{expected}: {seen:?}"
        );
    }
    let out = run(indoubt().args(["kafka", "lso", "-b", &bootstrap, "-X", "client.id=a\nb"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("client.id holds a control character"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_timeout_properties_bound_connects_and_requests_within_the_commands_timeout() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    // Setup stalls at once: nothing relayed, not even ApiVersions.
    let (silent, _) = proxy(&bootstrap, 0);
    let out = run(indoubt().args([
        "--timeout",
        "10m",
        "kafka",
        "lso",
        "-b",
        &silent,
        "-X",
        "socket.connection.setup.timeout.ms=1500",
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains(&format!(
            "connecting to Kafka broker {silent}: no answer within 1.5s"
        )) && out
            .stderr
            .contains("socket.connection.setup.timeout.ms, when set"),
        "{}",
        out.stderr
    );
    // Setup done (ApiVersions answered), then the Metadata request is never answered.
    for property in ["request.timeout.ms", "socket.timeout.ms"] {
        let (stalling, seen) = proxy(&bootstrap, 1);
        let out = run(indoubt().args([
            "--timeout",
            "10m",
            "kafka",
            "lso",
            "-b",
            &stalling,
            "-X",
            &format!("{property}=1200"),
        ]));
        assert_eq!(out.code, 3, "{property}");
        assert!(
            out.stderr.contains(&format!(
                "Kafka broker {stalling} did not answer Metadata within 1.2s"
            )) && out
                .stderr
                .contains("request.timeout.ms / socket.timeout.ms"),
            "{property}: {}",
            out.stderr
        );
        assert_eq!(seen.lock().unwrap().len(), 2, "{property}");
    }
    // The command's own bound still holds when a property's is longer.
    let (silent, _) = proxy(&bootstrap, 0);
    let out = run(indoubt().args([
        "--timeout",
        "2s",
        "kafka",
        "lso",
        "-b",
        &silent,
        "-X",
        "socket.connection.setup.timeout.ms=600000",
    ]));
    assert_eq!(out.code, 3);
    assert!(out.stderr.contains("no answer within 2s"), "{}", out.stderr);
    let out = run(indoubt().args([
        "kafka",
        "lso",
        "-b",
        &bootstrap,
        "-X",
        "request.timeout.ms=soon",
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("invalid request.timeout.ms \"soon\""),
        "{}",
        out.stderr
    );
}
