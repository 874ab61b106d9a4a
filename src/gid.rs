//! Global transaction id decoding: pgjdbc XA (Narayana, Atomikos, Seata and others), Citus and logical replication GIDs.

use crate::term::shown::Shown;
use crate::text::{RawText, Text};
use base64::Engine;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Narayana (JBoss/WildFly) JTA; 131072 and 131080 are its JTS forms.
const NARAYANA_FORMAT_IDS: [i32; 3] = [131077, 131072, 131080];
/// "ATOM" as a big-endian int.
const ATOMIKOS_FORMAT_ID: i32 = 1096044365;
/// Apache Seata's XA mode (rm-datasource XABranchXid): gtrid the global xid's text,
/// bqual `-` and the branch id.
const SEATA_FORMAT_ID: i32 = 9752;
/// Narayana's Uid: two int64 host words, int32 process, int32 seconds, int32 counter.
const NARAYANA_UID_LEN: usize = 28;

// One per prepared transaction: the size of the XA variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecodedGid {
    /// pgjdbc's XA encoding: `formatId_base64(gtrid)_base64(bqual)`.
    Xa(XaGid),
    /// Citus: `citus_<initiator group>_<initiator pid>_<transaction number>_<connection number>`.
    Citus {
        initiator_group_id: i64,
        initiator_pid: i64,
        transaction_number: i64,
        connection_number: i64,
    },
    /// Logical replication with two_phase (PG15+): `pg_gid_<subscription oid>_<remote xid>`.
    LogicalReplication {
        subscription_oid: u32,
        remote_xid: u64,
    },
    /// Not a format we know; the note says what it resembles, if anything.
    Opaque {
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct XaGid {
    pub format_id: i32,
    /// The transaction manager that uses this format id, when it is a well-known one.
    pub transaction_manager: Option<&'static str>,
    pub gtrid_hex: String,
    /// Printable ASCII as is, every other byte as `\xNN`.
    pub gtrid_text: String,
    pub bqual_hex: String,
    pub bqual_text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narayana: Option<NarayanaXid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomikos: Option<Box<AtomikosXid>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seata: Option<SeataXid>,
    /// The decoded bytes, for a person (escaped once where shown).
    #[serde(skip)]
    pub gtrid: RawText,
    #[serde(skip)]
    pub bqual: RawText,
}

/// What Atomikos packs into its XIDs: the tid `<tm_unique_name><begin, epoch ms><counter>`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtomikosXid {
    /// The transaction id, as Atomikos' log (tmlog*.log) writes it.
    pub tid: String,
    /// The coordinator's `com.atomikos.icatch.tm_unique_name`, when the tid splits one way
    /// only (a name ending in digits can make it ambiguous).
    pub tm_unique_name: Option<String>,
    /// When the transaction began, from the tid (the coordinator's clock).
    pub begun_at: Option<DateTime<Utc>>,
}

/// What Seata's XA branches carry: the global transaction's xid
/// (`coordinator address:port:transaction id`), which its coordinator's store is keyed by,
/// and the branch id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeataXid {
    pub xid: String,
    /// The coordinator that began it, `address:port`, as the xid names it.
    pub coordinator: String,
    pub transaction_id: Option<i64>,
    pub branch_id: Option<i64>,
}

/// What Narayana packs into its XIDs: the coordinator's Uid and node name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NarayanaXid {
    /// The transaction's Uid in Narayana's own notation (`0:ffff7f000001:8b3:6a01b2c3:2a`).
    pub transaction_uid: String,
    /// The Uid's seconds field: Narayana fixes it once per coordinator process (when the
    /// process made its first Uid), so it is about when the coordinator started, NOT when
    /// this transaction began.
    pub coordinator_started_at: Option<DateTime<Utc>>,
    /// `xaNodeName` of the coordinator that owns the decision and its transaction log.
    pub coordinator_node: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_uid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eis_name: Option<i32>,
    /// The node name's bytes, for a person (escaped once where shown).
    #[serde(skip)]
    pub node: RawText,
}

/// A GID as the server holds it: one that is not UTF-8 is none of the known formats.
pub fn decode_raw(gid: &RawText) -> DecodedGid {
    match gid.as_str() {
        Some(text) => decode(text),
        None => DecodedGid::Opaque {
            note: Some(
                "not UTF-8 text (a SQL_ASCII database): the bytes that are not are shown in hex"
                    .into(),
            ),
        },
    }
}

pub fn decode(gid: &str) -> DecodedGid {
    if let Some(rest) = gid.strip_prefix("citus_") {
        if let Some(decoded) = decode_citus(rest) {
            return decoded;
        }
    }
    if let Some(rest) = gid.strip_prefix("pg_gid_") {
        if let Some((sub, xid)) = rest.split_once('_') {
            if let (Ok(subscription_oid), Ok(remote_xid)) = (sub.parse(), xid.parse()) {
                return DecodedGid::LogicalReplication {
                    subscription_oid,
                    remote_xid,
                };
            }
        }
    }
    match decode_xa(gid) {
        Ok(xa) => DecodedGid::Xa(xa),
        Err(note) => DecodedGid::Opaque { note },
    }
}

fn decode_citus(rest: &str) -> Option<DecodedGid> {
    let parts: Vec<i64> = rest
        .split('_')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    match parts[..] {
        [initiator_group_id, initiator_pid, transaction_number, connection_number] => {
            Some(DecodedGid::Citus {
                initiator_group_id,
                initiator_pid,
                transaction_number,
                connection_number,
            })
        }
        _ => None,
    }
}

/// Err carries a note when the GID looks like an XA id of a known manager but is not pgjdbc's encoding.
fn decode_xa(gid: &str) -> Result<XaGid, Option<String>> {
    let (Some(first), Some(last)) = (gid.find('_'), gid.rfind('_')) else {
        return Err(None);
    };
    if first == last {
        return Err(None);
    }
    let format_id: i32 = gid[..first].parse().map_err(|_| None)?;
    let manager = transaction_manager(format_id);
    let b64 = base64::engine::general_purpose::STANDARD;
    let not_pgjdbc = || {
        manager.map(|m| {
            format!(
                "{m} XA format id {format_id}, but not pgjdbc's formatId_base64(gtrid)_base64(bqual) encoding"
            )
        })
    };
    let gtrid = b64
        .decode(&gid[first + 1..last])
        .map_err(|_| not_pgjdbc())?;
    let bqual = b64.decode(&gid[last + 1..]).map_err(|_| not_pgjdbc())?;
    // XA limits each part to 64 bytes; longer is not an XID whatever it decodes to.
    if gtrid.is_empty() || gtrid.len() > 64 || bqual.len() > 64 {
        return Err(not_pgjdbc());
    }
    Ok(decode_xid(format_id, gtrid, bqual))
}

/// An XID's parts, whichever wire form carried them (pgjdbc's GID text, MySQL's XA
/// RECOVER): the one decoder of Narayana's and Atomikos' ids.
pub fn decode_xid(format_id: i32, gtrid: Vec<u8>, bqual: Vec<u8>) -> XaGid {
    let manager = transaction_manager(format_id);
    let narayana = NARAYANA_FORMAT_IDS
        .contains(&format_id)
        .then(|| decode_narayana(&gtrid, &bqual))
        .flatten();
    let atomikos = (format_id == ATOMIKOS_FORMAT_ID)
        .then(|| decode_atomikos(&gtrid, &bqual, Utc::now()))
        .flatten()
        .map(Box::new);
    let seata = (format_id == SEATA_FORMAT_ID)
        .then(|| decode_seata(&gtrid, &bqual))
        .flatten();
    XaGid {
        format_id,
        transaction_manager: manager,
        gtrid_hex: hex(&gtrid),
        gtrid_text: printable(&gtrid),
        bqual_hex: hex(&bqual),
        bqual_text: printable(&bqual),
        narayana,
        atomikos,
        seata,
        gtrid: RawText::from(gtrid),
        bqual: RawText::from(bqual),
    }
}

/// The GID pgjdbc would give PostgreSQL for this XID: how a branch prepared elsewhere
/// (MySQL) is named when PostgreSQL's are searched for its siblings.
pub fn pgjdbc_gid(format_id: i32, gtrid: &[u8], bqual: &[u8]) -> RawText {
    let b64 = base64::engine::general_purpose::STANDARD;
    RawText::from(format!(
        "{format_id}_{}_{}",
        b64.encode(gtrid),
        b64.encode(bqual)
    ))
}

fn transaction_manager(format_id: i32) -> Option<&'static str> {
    if NARAYANA_FORMAT_IDS.contains(&format_id) {
        Some("Narayana")
    } else if format_id == ATOMIKOS_FORMAT_ID {
        Some("Atomikos")
    } else if format_id == SEATA_FORMAT_ID {
        Some("Seata")
    } else {
        None
    }
}

/// A Seata xid is printable `host:port:transaction id`; a gtrid of another shape under
/// the same format id is left undecoded.
fn decode_seata(gtrid: &[u8], bqual: &[u8]) -> Option<SeataXid> {
    let xid = std::str::from_utf8(gtrid).ok()?;
    if !xid.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return None;
    }
    let (coordinator, transaction) = xid.rsplit_once(':')?;
    if !coordinator.contains(':') {
        return None;
    }
    let branch = std::str::from_utf8(bqual)
        .ok()
        .and_then(|b| b.strip_prefix('-'))
        .and_then(|b| b.parse().ok());
    Some(SeataXid {
        xid: xid.to_string(),
        coordinator: coordinator.to_string(),
        transaction_id: transaction.parse().ok(),
        branch_id: branch,
    })
}

fn decode_narayana(gtrid: &[u8], bqual: &[u8]) -> Option<NarayanaXid> {
    if gtrid.len() < NARAYANA_UID_LEN {
        return None;
    }
    let (uid, node) = gtrid.split_at(NARAYANA_UID_LEN);
    let seconds = i32::from_be_bytes(uid[20..24].try_into().ok()?);
    let branch = (bqual.len() >= NARAYANA_UID_LEN + 4).then(|| {
        let eis = i32::from_be_bytes(bqual[28..32].try_into().unwrap_or_default());
        (narayana_uid(&bqual[..NARAYANA_UID_LEN]), eis)
    });
    Some(NarayanaXid {
        transaction_uid: narayana_uid(uid),
        coordinator_started_at: DateTime::from_timestamp(i64::from(seconds), 0),
        coordinator_node: printable(node),
        branch_uid: branch.as_ref().map(|(uid, _)| uid.clone()),
        eis_name: branch.map(|(_, eis)| eis),
        node: RawText::from(node.to_vec()),
    })
}

/// Atomikos' tid is printable text; the split into name, begin time and counter is kept
/// only when exactly one split fits: the bqual is the same name and a branch number, and
/// the 13-digit begin time lies between 2001 and a day from `now`.
fn decode_atomikos(gtrid: &[u8], bqual: &[u8], now: DateTime<Utc>) -> Option<AtomikosXid> {
    let tid = std::str::from_utf8(gtrid).ok()?;
    if !tid.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return None;
    }
    let bqual = std::str::from_utf8(bqual).unwrap_or("");
    let latest = now.timestamp_millis() + 86_400_000;
    let splits: Vec<(usize, i64)> = (1..tid.len())
        .filter_map(|cut| {
            let (name, rest) = tid.split_at(cut);
            let branch = bqual.strip_prefix(name)?;
            let branch_ok = !branch.is_empty()
                && !branch.starts_with('0')
                && branch.bytes().all(|b| b.is_ascii_digit());
            let digits_ok = rest.len() > 13 && rest.bytes().all(|b| b.is_ascii_digit());
            let millis: i64 = rest.get(..13)?.parse().ok()?;
            (branch_ok && digits_ok && (978_307_200_000..=latest).contains(&millis))
                .then_some((cut, millis))
        })
        .collect();
    let (tm_unique_name, begun_at) = match splits[..] {
        [(cut, millis)] => (
            Some(tid[..cut].to_string()),
            DateTime::from_timestamp_millis(millis),
        ),
        _ => (None, None),
    };
    Some(AtomikosXid {
        tid: tid.to_string(),
        tm_unique_name,
        begun_at,
    })
}

/// Narayana prints a Uid as its five fields in unpadded hex joined by colons.
fn narayana_uid(uid: &[u8]) -> String {
    let word = |range: std::ops::Range<usize>| -> String {
        let value = uid[range]
            .iter()
            .fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        format!("{value:x}")
    };
    [
        word(0..8),
        word(8..16),
        word(16..20),
        word(20..24),
        word(24..28),
    ]
    .join(":")
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn printable(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) && b != b'\\' {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect()
}

impl DecodedGid {
    /// One line for a table cell or a prompt, the decoded bytes escaped once.
    pub fn summary(&self) -> Shown {
        match self {
            DecodedGid::Xa(xa) => {
                let manager = xa.transaction_manager.unwrap_or("XA");
                match &xa.narayana {
                    Some(n) => crate::shown!(
                        "{} (format {}) coordinator node '{}', uid {}",
                        manager,
                        xa.format_id,
                        n.node,
                        n.transaction_uid
                    ),
                    None => crate::shown!(
                        "{} (format {}) gtrid '{}' bqual '{}'",
                        manager,
                        xa.format_id,
                        xa.gtrid,
                        xa.bqual
                    ),
                }
            }
            DecodedGid::Citus {
                initiator_group_id,
                initiator_pid,
                transaction_number,
                ..
            } => crate::shown!(
                "Citus: initiator group {}, pid {}, transaction {}",
                initiator_group_id,
                initiator_pid,
                transaction_number
            ),
            DecodedGid::LogicalReplication {
                subscription_oid,
                remote_xid,
            } => crate::shown!(
                "logical replication: subscription oid {}, remote xid {}",
                subscription_oid,
                remote_xid
            ),
            DecodedGid::Opaque { note: Some(note) } => crate::shown!("opaque: {}", note),
            DecodedGid::Opaque { note: None } => Shown::lit("opaque"),
        }
    }

    /// Where the decision for this transaction lives, for the operator.
    pub fn advice(&self) -> Text {
        const RULE: &str = "Resolve by the coordinator's decision; a heuristic commit or rollback is a human's call, to be recorded and communicated.";
        match self {
            DecodedGid::Xa(XaGid { narayana: Some(n), .. }) => crate::text![
                "The decision is in the transaction log (ObjectStore) of Narayana node '",
                n.node,
                "': recover that node, or look the uid ",
                n.transaction_uid,
                " up in its log and in the other participants. ",
                RULE
            ],
            DecodedGid::Xa(xa) => format!(
                "Look the gtrid up in the {} transaction log and in the other participants (same gtrid). {RULE}",
                xa.transaction_manager.unwrap_or("transaction manager's")
            )
            .into(),
            DecodedGid::Citus { initiator_group_id, .. } => format!(
                "Citus resolves its own: run SELECT recover_prepared_transactions() on the coordinator (initiator group {initiator_group_id}); its pg_dist_transaction holds the decision."
            )
            .into(),
            DecodedGid::LogicalReplication { subscription_oid, .. } => format!(
                "Created by the apply worker of subscription oid {subscription_oid}: check that subscription's worker and the publisher; the publisher's COMMIT PREPARED or ROLLBACK PREPARED finishes it."
            )
            .into(),
            DecodedGid::Opaque { note: Some(note) } => format!(
                "Not decodable, but it carries a known format id ({note}): look for the decision in that transaction manager's log. {RULE}"
            )
            .into(),
            DecodedGid::Opaque { note: None } => {
                format!("Find the application or transaction manager that issued this GID. {RULE}").into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn narayana_gid_names_the_coordinator_node() {
        let mut gtrid = Vec::new();
        gtrid.extend_from_slice(&0u64.to_be_bytes());
        gtrid.extend_from_slice(&0xffff_7f00_0001u64.to_be_bytes());
        gtrid.extend_from_slice(&0x8b3i32.to_be_bytes());
        gtrid.extend_from_slice(&1_778_454_847i32.to_be_bytes());
        gtrid.extend_from_slice(&42i32.to_be_bytes());
        gtrid.extend_from_slice(b"orders-node-1");
        let mut bqual = gtrid[..28].to_vec();
        bqual.extend_from_slice(&7i32.to_be_bytes());
        bqual.extend_from_slice(&0i32.to_be_bytes());
        let gid = format!("131077_{}_{}", b64(&gtrid), b64(&bqual));
        let DecodedGid::Xa(xa) = decode(&gid) else {
            panic!("not XA")
        };
        assert_eq!(xa.format_id, 131077);
        assert_eq!(xa.transaction_manager, Some("Narayana"));
        let n = xa.narayana.unwrap();
        assert_eq!(n.coordinator_node, "orders-node-1");
        assert_eq!(n.transaction_uid, "0:ffff7f000001:8b3:6a01113f:2a");
        assert_eq!(
            n.coordinator_started_at.unwrap().to_rfc3339(),
            "2026-05-10T23:14:07+00:00"
        );
        assert_eq!(n.eis_name, Some(7));
    }

    #[test]
    fn atomikos_gid_is_readable() {
        let gid = format!(
            "1096044365_{}_{}",
            b64(b"tm-orders0000100001"),
            b64(b"tm-orders0000100002")
        );
        let DecodedGid::Xa(xa) = decode(&gid) else {
            panic!("not XA")
        };
        assert_eq!(xa.transaction_manager, Some("Atomikos"));
        assert_eq!(xa.gtrid_text, "tm-orders0000100001");
        // Not a tid Atomikos 6 writes (no begin time): the text only.
        assert_eq!(xa.atomikos.as_ref().unwrap().tm_unique_name, None);
        assert_eq!(xa.bqual_hex, hex(b"tm-orders0000100002"));
    }

    #[test]
    fn atomikos_tid_splits_into_name_and_begin_time_only_when_unambiguous() {
        // As Atomikos 6.0.0 wrote them in the lab: tm_unique_name "lab2".
        let now = DateTime::from_timestamp(1_796_200_000, 0).unwrap();
        let a = decode_atomikos(b"lab2179611488839000001", b"lab21", now).unwrap();
        assert_eq!(a.tid, "lab2179611488839000001");
        assert_eq!(a.tm_unique_name.as_deref(), Some("lab2"));
        assert_eq!(a.begun_at.unwrap().timestamp_millis(), 1_796_114_888_390);
        // "lab" + a begin time in 2039 would fit too, were it not in the future.
        let later = DateTime::from_timestamp(2_200_000_000, 0).unwrap();
        let a = decode_atomikos(b"lab2179611488839000001", b"lab21", later).unwrap();
        assert_eq!((a.tm_unique_name, a.begun_at), (None, None));
        let a = decode_atomikos(b"orders-tm1796114888390000017", b"orders-tm12", now).unwrap();
        assert_eq!(a.tm_unique_name.as_deref(), Some("orders-tm"));
    }

    #[test]
    fn generic_xa_shows_binary_as_escapes() {
        let gid = format!("4660_{}_{}", b64(&[0, 1, b'a', 0xff]), b64(b""));
        let DecodedGid::Xa(xa) = decode(&gid) else {
            panic!("not XA")
        };
        assert_eq!(xa.gtrid_text, "\\x00\\x01a\\xff");
        assert_eq!(xa.gtrid_hex, "000161ff");
        assert_eq!(xa.transaction_manager, None);
    }

    #[test]
    fn seata_xa_branches_name_their_global_xid_and_branch() {
        // As Seata 2.0.0's XA mode prepared one in the lab (tests/lab/seata/README.md).
        let gid = format!(
            "9752_{}_{}",
            b64(b"192.0.2.2:18091:9858673316111908"),
            b64(b"-9858673316111910")
        );
        let DecodedGid::Xa(xa) = decode(&gid) else {
            panic!("{gid}")
        };
        assert_eq!(xa.transaction_manager, Some("Seata"));
        let seata = xa.seata.expect("decoded");
        assert_eq!(seata.xid, "192.0.2.2:18091:9858673316111908");
        assert_eq!(seata.coordinator, "192.0.2.2:18091");
        assert_eq!(seata.transaction_id, Some(9858673316111908));
        assert_eq!(seata.branch_id, Some(9858673316111910));
        // Another shape under Seata's format id is not taken for one.
        let other = decode_xid(9752, b"orders-4711".to_vec(), b"1".to_vec());
        assert_eq!(other.seata, None);
    }

    #[test]
    fn narayana_format_id_without_pgjdbc_encoding_is_opaque_with_a_note() {
        let DecodedGid::Opaque { note: Some(note) } = decode("131077_orders_4711") else {
            panic!("should be opaque with a note")
        };
        assert!(note.contains("Narayana"), "{note}");
        assert_eq!(decode("plain gid"), DecodedGid::Opaque { note: None });
        assert_eq!(decode("12_abc"), DecodedGid::Opaque { note: None });
    }

    #[test]
    fn citus_and_logical_replication() {
        assert_eq!(
            decode("citus_14_3301_42_1"),
            DecodedGid::Citus {
                initiator_group_id: 14,
                initiator_pid: 3301,
                transaction_number: 42,
                connection_number: 1
            }
        );
        assert_eq!(
            decode("pg_gid_16399_755"),
            DecodedGid::LogicalReplication {
                subscription_oid: 16399,
                remote_xid: 755
            }
        );
        assert!(matches!(decode("citus_1_2_x_4"), DecodedGid::Opaque { .. }));
        assert!(decode("citus_14_3301_42_1")
            .advice()
            .contains("recover_prepared_transactions()"));
    }
}
