//! A hostile PostgreSQL server (a fake one on 127.0.0.1, speaking just enough of the
//! protocol) cannot make indoubt buffer what it declares or print what it sends: a
//! message declaring more than 16 MiB fails the read at its header, fast and in bounded
//! memory, with a clear error; a long error text is cut with how much was cut.
#![allow(clippy::disallowed_methods, clippy::disallowed_macros)] // fixtures made directly; measurements printed

use crate::common;

use common::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// A server that answers an SSLRequest with 'N' when one comes (indoubt's, or the probe
/// it sends to a port that did not answer as PostgreSQL does), reads the startup message,
/// then does `then`; each connection on a thread of its own.
fn fake_server(then: impl Fn(&mut TcpStream) + Send + Sync + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let then = std::sync::Arc::new(then);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else {
                continue;
            };
            let then = then.clone();
            std::thread::spawn(move || {
                loop {
                    let mut length = [0u8; 4];
                    if stream.read_exact(&mut length).is_err() {
                        return;
                    }
                    let length = (u32::from_be_bytes(length) as usize).clamp(4, 10_000);
                    let mut body = vec![0u8; length - 4];
                    if stream.read_exact(&mut body).is_err() {
                        return;
                    }
                    // SSLRequest: code 80877103.
                    if body == [0x04, 0xd2, 0x16, 0x2f] {
                        let _ = stream.write_all(b"N");
                        continue;
                    }
                    break;
                }
                then(&mut stream);
                // Hold the connection until the client is gone.
                let _ = stream.read_to_end(&mut Vec::new());
            });
        }
    });
    port
}

/// An ErrorResponse whose message is `message`.
fn error_response(message: &[u8]) -> Vec<u8> {
    let mut fields = Vec::new();
    fields.extend_from_slice(b"SFATAL\0VFATAL\0C28000\0M");
    fields.extend_from_slice(message);
    fields.extend_from_slice(b"\0\0");
    let mut out = vec![b'E'];
    out.extend_from_slice(&(fields.len() as u32 + 4).to_be_bytes());
    out.extend(fields);
    out
}

fn pg_prepared(port: u16, sslmode: &str) -> std::process::Command {
    let mut cmd = indoubt_process();
    cmd.args([
        "pg",
        "prepared",
        "--timeout",
        "30s",
        "--pg",
        &format!("postgres://u:p@127.0.0.1:{port}/db?sslmode={sslmode}"),
    ]);
    cmd
}

#[test]
fn a_50_mb_error_message_is_refused_at_its_header_in_bounded_memory() {
    let response = error_response(&vec![b'x'; 50 << 20]);
    let port = fake_server(move |stream| {
        let _ = stream.write_all(&response);
    });
    let out = run_measured(&mut pg_prepared(port, "disable"), Duration::from_secs(60));
    eprintln!(
        "50 MB ErrorResponse: exit {:?} in {:?}, peak RSS {} KiB, {} bytes of stderr",
        out.code,
        out.elapsed,
        out.peak_rss_kib,
        out.stderr.len()
    );
    assert_eq!(out.code, Some(3), "{:.2000}", out.stderr);
    assert!(
        out.stderr.contains(
            "the server sent an error (ErrorResponse) of 50.0 MiB (52428824 bytes), past the 16.0 MiB indoubt reads in one message"
        ),
        "{:.2000}",
        out.stderr
    );
    assert!(
        out.stderr.len() < 4096,
        "{} bytes of stderr",
        out.stderr.len()
    );
    assert!(
        out.peak_rss_kib < 40 << 10,
        "peak RSS {} KiB for a 50 MB message",
        out.peak_rss_kib
    );
    assert!(out.elapsed < Duration::from_secs(10), "{:?}", out.elapsed);
}

#[test]
fn a_header_declaring_2_gb_then_trickling_fails_at_once_not_at_the_timeout() {
    // After an SSLRequest answered 'N' (sslmode=prefer): the guard reads the one-byte
    // answer outside the framing, then the messages. A row as the first message is not
    // what a server sends first: the port is probed too (and answers as PostgreSQL).
    let port = fake_server(|stream| {
        let mut header = vec![b'D'];
        header.extend_from_slice(&0x7fff_ffffu32.to_be_bytes());
        if stream.write_all(&header).is_err() {
            return;
        }
        for _ in 0..600 {
            if stream.write_all(b"x").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let out = run_measured(&mut pg_prepared(port, "prefer"), Duration::from_secs(60));
    eprintln!(
        "2 GB header, trickled: exit {:?} in {:?}, peak RSS {} KiB",
        out.code, out.elapsed, out.peak_rss_kib
    );
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "the server sent a row (DataRow) of 2.0 GiB (2147483643 bytes), past the 16.0 MiB indoubt reads in one message"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.elapsed < Duration::from_secs(10),
        "took {:?} (--timeout 30s)",
        out.elapsed
    );
}

#[test]
fn a_2_gb_header_followed_by_300_mb_at_full_speed_costs_no_memory() {
    let port = fake_server(|stream| {
        let mut header = vec![b'E'];
        header.extend_from_slice(&0x7fff_ffffu32.to_be_bytes());
        if stream.write_all(&header).is_err() {
            return;
        }
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..300 {
            if stream.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let out = run_measured(&mut pg_prepared(port, "disable"), Duration::from_secs(60));
    eprintln!(
        "2 GB header, 300 MB sent: exit {:?} in {:?}, peak RSS {} KiB",
        out.code, out.elapsed, out.peak_rss_kib
    );
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(out.stderr.contains("past the 16.0 MiB"), "{}", out.stderr);
    assert!(
        out.peak_rss_kib < 40 << 10,
        "peak RSS {} KiB",
        out.peak_rss_kib
    );
}

#[test]
fn a_long_server_error_text_is_cut_with_how_much_was_cut() {
    // 1 MB: under the message bound, so the driver reads it; the operator sees 2000
    // characters of it.
    let response = error_response(&vec![b'y'; 1_000_000]);
    let port = fake_server(move |stream| {
        let _ = stream.write_all(&response);
    });
    let out = run_measured(&mut pg_prepared(port, "disable"), Duration::from_secs(60));
    assert_eq!(out.code, Some(3), "{:.3000}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "FATAL 28000: {}… [998000 more characters cut]",
            "y".repeat(2000)
        )),
        "{:.3000}",
        out.stderr
    );
    assert!(
        out.stderr.len() < 4096,
        "{} bytes of stderr",
        out.stderr.len()
    );
}
