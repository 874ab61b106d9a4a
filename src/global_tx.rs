//! Which global transaction a GID belongs to: the identity its sibling branches share (an
//! XA format id and gtrid, a Citus distributed transaction), a short stable key for it,
//! and the transaction manager and coordinator node the GID names.

use crate::gid::DecodedGid;
use crate::text::RawText;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// What the branches of one global transaction have in common.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GlobalId {
    /// XA: the same format id and global transaction id; the branch qualifier differs.
    Xa { format_id: i32, gtrid: Vec<u8> },
    /// Citus: one distributed transaction (initiator group, its backend pid, transaction
    /// number) prepares one GID per connection, which differ in the connection number.
    Citus {
        group: i64,
        pid: i64,
        transaction: i64,
    },
    /// Any other GID: its text is all there is to go by.
    Gid(Vec<u8>),
}

/// How a prepared transaction was recognised as a branch of the same global transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recognised {
    /// The same XA format id and gtrid.
    XaGtrid,
    /// The same Citus distributed transaction.
    CitusTransaction,
    /// The same GID text on another server, its format unknown: likely the same global
    /// transaction (some coordinators use one GID for every participant), not established.
    SameGid,
}

impl Recognised {
    /// Whether the GIDs' format establishes that both belong to one global transaction.
    pub fn established(self) -> bool {
        !matches!(self, Recognised::SameGid)
    }
}

impl GlobalId {
    pub fn of(gid: &RawText, decoded: &DecodedGid) -> GlobalId {
        match decoded {
            DecodedGid::Xa(xa) => GlobalId::Xa {
                format_id: xa.format_id,
                gtrid: xa.gtrid.as_bytes().to_vec(),
            },
            DecodedGid::Citus {
                initiator_group_id,
                initiator_pid,
                transaction_number,
                ..
            } => GlobalId::Citus {
                group: *initiator_group_id,
                pid: *initiator_pid,
                transaction: *transaction_number,
            },
            _ => GlobalId::Gid(gid.as_bytes().to_vec()),
        }
    }

    /// Whether `other` belongs to the same global transaction, and how that is known.
    /// Identical GIDs match too: telling a transaction from itself is the caller's part
    /// (only it knows which server and database each came from).
    pub fn sibling(&self, other: &GlobalId) -> Option<Recognised> {
        if self != other {
            return None;
        }
        Some(match self {
            GlobalId::Xa { .. } => Recognised::XaGtrid,
            GlobalId::Citus { .. } => Recognised::CitusTransaction,
            GlobalId::Gid(_) => Recognised::SameGid,
        })
    }

    /// A short key, the same for every branch, on every server, in every run: `xa-` and
    /// 12 hex digits of SHA-256 over the format id (4 bytes, big-endian) and the gtrid, or
    /// `citus-<group>-<pid>-<transaction>`. None for a GID of no known global form.
    pub fn key(&self) -> Option<String> {
        match self {
            GlobalId::Xa { format_id, gtrid } => {
                let mut hasher = Sha256::new();
                hasher.update(format_id.to_be_bytes());
                hasher.update(gtrid);
                Some(format!("xa-{}", crate::gid::hex(&hasher.finalize()[..6])))
            }
            GlobalId::Citus {
                group,
                pid,
                transaction,
            } => Some(format!("citus-{group}-{pid}-{transaction}")),
            GlobalId::Gid(_) => None,
        }
    }
}

/// The global transaction a prepared transaction is a branch of, as reports show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobalTransaction {
    /// [`GlobalId::key`]: shared by its branches. Branches are matched by the full format
    /// id and gtrid (or Citus id), never by this key alone.
    pub key: String,
    /// Narayana, Atomikos or Citus; null for an XA format id no known manager uses.
    pub transaction_manager: Option<&'static str>,
    /// The coordinator the GID names: Narayana's node identifier, Atomikos'
    /// `tm_unique_name` (the tid's prefix, when it splits only one way); else null.
    pub coordinator_node: Option<String>,
    /// How many prepared transactions of the report belong to it, this one included.
    pub branches: usize,
}

impl GlobalTransaction {
    /// For a GID of a known global form; None otherwise.
    pub fn of(gid: &RawText, decoded: &DecodedGid) -> Option<GlobalTransaction> {
        let key = GlobalId::of(gid, decoded).key()?;
        let (transaction_manager, coordinator_node) = match decoded {
            DecodedGid::Xa(xa) => (
                xa.transaction_manager,
                match (&xa.narayana, &xa.atomikos) {
                    (Some(n), _) => Some(n.coordinator_node.clone()),
                    (None, Some(a)) => a.tm_unique_name.clone(),
                    (None, None) => None,
                },
            ),
            DecodedGid::Citus { .. } => (Some("Citus"), None),
            _ => (None, None),
        };
        Some(GlobalTransaction {
            key,
            transaction_manager,
            coordinator_node,
            branches: 1,
        })
    }

    /// `Narayana, node 'orders-1'`, `unknown XA manager`, … for a table cell or a prompt.
    pub fn manager_and_node(&self) -> crate::term::shown::Shown {
        let manager = match self.transaction_manager {
            Some(m) => crate::term::shown::Shown::text(m),
            None => crate::term::shown::Shown::lit("unknown XA manager"),
        };
        match &self.coordinator_node {
            Some(node) => crate::shown!("{}, node '{}'", manager, node),
            None => manager,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gid::decode;
    use base64::Engine;

    fn xa(format_id: i32, gtrid: &[u8], bqual: &[u8]) -> RawText {
        let b64 = base64::engine::general_purpose::STANDARD;
        format!("{format_id}_{}_{}", b64.encode(gtrid), b64.encode(bqual)).into()
    }

    fn id(gid: &RawText) -> GlobalId {
        GlobalId::of(gid, &crate::gid::decode_raw(gid))
    }

    #[test]
    fn xa_branches_share_format_id_and_gtrid_and_nothing_else_matches() {
        let a = xa(4660, b"order-4711", b"branch-a");
        let b = xa(4660, b"order-4711", b"branch-b");
        assert_eq!(id(&a).sibling(&id(&b)), Some(Recognised::XaGtrid));
        assert_eq!(id(&a).key(), id(&b).key());
        let other_format = xa(4661, b"order-4711", b"branch-a");
        let other_gtrid = xa(4660, b"order-4712", b"branch-a");
        for other in [&other_format, &other_gtrid] {
            assert_eq!(id(&a).sibling(&id(other)), None);
            assert_ne!(id(&a).key(), id(other).key());
        }
        let key = id(&a).key().unwrap();
        assert!(key.starts_with("xa-") && key.len() == 15, "{key}");
    }

    #[test]
    fn citus_branches_differ_only_in_the_connection_number() {
        let a = RawText::from("citus_14_3301_42_1");
        let b = RawText::from("citus_14_3301_42_2");
        assert_eq!(id(&a).sibling(&id(&b)), Some(Recognised::CitusTransaction));
        assert_eq!(id(&a).key().as_deref(), Some("citus-14-3301-42"));
        assert_eq!(id(&a).sibling(&id(&"citus_14_3301_43_1".into())), None);
    }

    #[test]
    fn a_gid_of_unknown_form_matches_only_its_own_text_and_has_no_key() {
        let a = RawText::from("order-4711");
        assert_eq!(id(&a).sibling(&id(&a)), Some(Recognised::SameGid));
        assert!(!Recognised::SameGid.established());
        assert_eq!(id(&a).sibling(&id(&"order-4712".into())), None);
        assert_eq!(id(&a).key(), None);
        assert_eq!(GlobalTransaction::of(&a, &decode("order-4711")), None);
    }

    #[test]
    fn names_the_manager_and_the_coordinator_node() {
        // Begun in 2023: not in the future whatever the clock says.
        let g = xa(1096044365, b"lab21700000000000000001", b"lab21");
        let t = GlobalTransaction::of(&g, &crate::gid::decode_raw(&g)).unwrap();
        assert_eq!(
            (t.transaction_manager, t.coordinator_node.as_deref()),
            (Some("Atomikos"), Some("lab2"))
        );
        assert_eq!(t.manager_and_node().as_str(), "Atomikos, node 'lab2'");
        let g = xa(4660, b"x", b"y");
        let t = GlobalTransaction::of(&g, &crate::gid::decode_raw(&g)).unwrap();
        assert_eq!(t.manager_and_node().as_str(), "unknown XA manager");
    }
}
