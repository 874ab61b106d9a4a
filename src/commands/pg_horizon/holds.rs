//! Where each holder's xmin stops vacuum, worked out as the server does it: per database
//! its tables and its catalogs, and the shared catalogs; who is in front in each place.
//!
//! The server keeps one horizon per place (procarray.c's ComputeXidHorizons): the oldest
//! xmin among the holders that count there. Only the holders at that xmin stop vacuum
//! there; holders with the same xmin stop it together (ending one alone frees nothing),
//! and a younger holder stops nothing until the older ones end.

use crate::pg::horizon::{Holder, HorizonSnapshot, Pins};
use crate::text::RawText;
use serde::Serialize;

/// One place vacuum cleans with its own horizon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place<'a> {
    /// Ordinary tables (and their TOAST and indexes) of one database.
    Tables(&'a RawText),
    /// The system catalogs of one database.
    Catalogs(&'a RawText),
    /// The catalogs all databases share (pg_database, pg_authid, …).
    Shared,
}

/// Whether `holder`'s xmin counts when vacuum computes the horizon of `place`.
fn counts_in(holder: &Holder, place: Place) -> bool {
    match (&holder.pins, place) {
        (Pins::Nothing, _) => false,
        (_, Place::Shared) => true,
        (Pins::AllDatabases, _) => true,
        (Pins::CatalogsOfAllDatabases, Place::Catalogs(_)) => true,
        (Pins::OwnDatabase, Place::Tables(db) | Place::Catalogs(db)) => {
            holder.database.as_ref() == Some(db)
        }
        _ => false,
    }
}

/// Where vacuum waits for one holder now: it holds the oldest xmin that counts there.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct HoldsBack {
    /// Databases whose tables vacuum cannot clean past its xmin.
    pub tables_of: Vec<RawText>,
    /// Databases whose system catalogs it holds back.
    pub catalogs_of: Vec<RawText>,
    /// The shared catalogs (it holds the oldest xmin of all).
    pub shared_catalogs: bool,
}

impl HoldsBack {
    /// Holds back something beyond the shared catalogs.
    pub fn databases(&self) -> bool {
        !self.tables_of.is_empty() || !self.catalogs_of.is_empty()
    }

    pub fn nothing(&self) -> bool {
        !self.databases() && !self.shared_catalogs
    }
}

/// What one holder stops, beside whom.
#[derive(Debug, Clone, Default)]
pub(crate) struct Assessment {
    pub holds_back: HoldsBack,
    /// Holders at the same xmin in a place it holds back: vacuum there moves only when
    /// all of them have ended. Indexes into the snapshot's holders.
    pub jointly_with: Vec<usize>,
    /// When it holds back nothing: the older holders in front of it where it counts.
    pub behind: Vec<usize>,
}

/// The horizon of one place: the oldest xmin that counts there and who holds it.
#[derive(Debug, Clone)]
pub(crate) struct Front {
    pub xid: Option<i64>,
    pub age_xids: Option<i32>,
    /// Indexes into the snapshot's holders, oldest-first order kept.
    pub holders: Vec<usize>,
}

/// Who stops vacuum in one database.
#[derive(Debug, Clone)]
pub(crate) struct DatabaseFronts {
    pub database: RawText,
    /// None: nothing holds an xmin that counts there.
    pub tables: Option<Front>,
    pub catalogs: Option<Front>,
}

/// Every holder's assessment (same order as the snapshot's holders) and every database's
/// fronts (databases that accept connections: nothing runs or is vacuumed in template0).
pub(crate) struct Holds {
    pub holders: Vec<Assessment>,
    pub databases: Vec<DatabaseFronts>,
}

/// The age that decides who is in front: ages are read in one statement, so equal ages
/// are the same xid.
fn age(holder: &Holder) -> i64 {
    holder.age_xids.map(i64::from).unwrap_or(-1)
}

fn front(snapshot: &HorizonSnapshot, place: Place) -> Option<Front> {
    let counting: Vec<usize> = (0..snapshot.holders.len())
        .filter(|&i| counts_in(&snapshot.holders[i], place))
        .collect();
    let oldest = counting.iter().map(|&i| age(&snapshot.holders[i])).max()?;
    let holders: Vec<usize> = counting
        .into_iter()
        .filter(|&i| age(&snapshot.holders[i]) == oldest)
        .collect();
    let first = &snapshot.holders[holders[0]];
    Some(Front {
        xid: first.held_xid,
        age_xids: first.age_xids,
        holders,
    })
}

pub(crate) fn assess(snapshot: &HorizonSnapshot) -> Holds {
    // Every place's front, once.
    let mut fronts: Vec<(Place, Front)> = Vec::new();
    let mut databases = Vec::new();
    for db in snapshot.databases.iter().filter(|d| d.allows_connections) {
        let tables = front(snapshot, Place::Tables(&db.database));
        let catalogs = front(snapshot, Place::Catalogs(&db.database));
        fronts.extend(tables.clone().map(|f| (Place::Tables(&db.database), f)));
        fronts.extend(catalogs.clone().map(|f| (Place::Catalogs(&db.database), f)));
        databases.push(DatabaseFronts {
            database: db.database.clone(),
            tables,
            catalogs,
        });
    }
    fronts.extend(front(snapshot, Place::Shared).map(|f| (Place::Shared, f)));

    let mut holders = vec![Assessment::default(); snapshot.holders.len()];
    for (place, front) in &fronts {
        for &i in &front.holders {
            let a = &mut holders[i];
            match place {
                Place::Tables(db) => a.holds_back.tables_of.push((*db).clone()),
                Place::Catalogs(db) => a.holds_back.catalogs_of.push((*db).clone()),
                Place::Shared => a.holds_back.shared_catalogs = true,
            }
            for &j in &front.holders {
                if j != i && !a.jointly_with.contains(&j) {
                    a.jointly_with.push(j);
                }
            }
        }
    }
    // A holder in front nowhere: who is in front where it counts, tables before
    // catalogs before the shared catalogs (the shared catalogs' front may be in any
    // database, and is not what stops this one's).
    for (i, holder) in snapshot.holders.iter().enumerate() {
        if !holders[i].holds_back.nothing() {
            continue;
        }
        let of_kind = |kind: fn(&Place) -> bool| {
            let mut behind = Vec::new();
            for (_, front) in fronts
                .iter()
                .filter(|(p, _)| kind(p) && counts_in(holder, *p))
            {
                for &j in &front.holders {
                    if !behind.contains(&j) {
                        behind.push(j);
                    }
                }
            }
            behind
        };
        let kinds: [fn(&Place) -> bool; 3] = [
            |p| matches!(p, Place::Tables(_)),
            |p| matches!(p, Place::Catalogs(_)),
            |p| matches!(p, Place::Shared),
        ];
        holders[i].behind = kinds
            .into_iter()
            .map(of_kind)
            .find(|behind| !behind.is_empty())
            .unwrap_or_default();
    }
    Holds { holders, databases }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::horizon::{DatabaseAge, Settings};

    fn holder(kind: &str, id: &str, database: Option<&str>, pins: Pins, age: i32) -> Holder {
        Holder {
            kind: kind.into(),
            id: id.into(),
            database: database.map(RawText::from),
            pins,
            user: None,
            application: None,
            client: None,
            state: None,
            backend_type: None,
            since: None,
            query_start: None,
            query: None,
            xid: None,
            xmin: Some(1000 - i64::from(age)),
            held_xid: Some(1000 - i64::from(age)),
            age_xids: Some(age),
            age_seconds: None,
        }
    }

    fn snapshot(holders: Vec<Holder>, databases: &[&str]) -> HorizonSnapshot {
        HorizonSnapshot {
            server_time: chrono::Utc::now(),
            in_recovery: false,
            settings: Settings {
                autovacuum_freeze_max_age: 200_000_000,
                autovacuum_multixact_freeze_max_age: 400_000_000,
                vacuum_failsafe_age: None,
                vacuum_multixact_failsafe_age: None,
                stop_margin_xids: 3_000_000,
                hot_standby_feedback: false,
            },
            holders,
            databases: databases
                .iter()
                .map(|d| DatabaseAge {
                    database: (*d).into(),
                    allows_connections: *d != "template0",
                    datfrozenxid_age: 1,
                    datminmxid_age: 1,
                    xids_left: 1,
                    percent_of_autovacuum_freeze_max_age: 0.0,
                    failsafe_reached: None,
                    dead_tuples: Vec::new(),
                })
                .collect(),
            visibility_gaps: Vec::new(),
        }
    }

    #[test]
    fn each_database_waits_only_for_its_own_sessions_and_what_counts_everywhere() {
        let s = snapshot(
            vec![
                holder("prepared", "p", Some("shop"), Pins::OwnDatabase, 50),
                holder(
                    "idle_in_transaction",
                    "7",
                    Some("shop"),
                    Pins::OwnDatabase,
                    50,
                ),
                holder(
                    "slot_catalog_xmin",
                    "cdc",
                    None,
                    Pins::CatalogsOfAllDatabases,
                    40,
                ),
                holder("session", "8", Some("app"), Pins::OwnDatabase, 30),
                holder("session", "9", Some("shop"), Pins::OwnDatabase, 20),
            ],
            &["app", "shop", "template0"],
        );
        let holds = assess(&s);
        let shop = &holds.databases[1];
        assert_eq!(shop.tables.as_ref().unwrap().holders, [0, 1]);
        assert_eq!(shop.catalogs.as_ref().unwrap().holders, [0, 1]);
        let app = &holds.databases[0];
        assert_eq!(app.tables.as_ref().unwrap().holders, [3]);
        assert_eq!(
            app.catalogs.as_ref().unwrap().holders,
            [2],
            "the slot's catalog_xmin is older"
        );
        assert_eq!(
            holds.databases.len(),
            2,
            "template0 is never vacuumed by anyone's session"
        );
        assert_eq!(holds.holders[0].jointly_with, [1]);
        assert_eq!(holds.holders[1].jointly_with, [0]);
        assert_eq!(holds.holders[2].holds_back.catalogs_of, ["app"]);
        assert!(holds.holders[2].holds_back.tables_of.is_empty());
        assert_eq!(
            holds.holders[4].behind,
            [0, 1],
            "behind the shop's older pair"
        );
        assert!(holds.holders[4].holds_back.nothing());
        assert!(holds.holders[0].holds_back.shared_catalogs);
    }

    #[test]
    fn a_slot_xmin_holds_every_database_and_a_backend_without_one_only_shared_catalogs() {
        let s = snapshot(
            vec![
                holder("session", "5", None, Pins::SharedCatalogs, 90),
                holder("slot_xmin", "replica", None, Pins::AllDatabases, 60),
                holder("session", "6", Some("shop"), Pins::OwnDatabase, 10),
            ],
            &["app", "shop"],
        );
        let holds = assess(&s);
        assert!(holds.holders[0].holds_back.shared_catalogs);
        assert!(!holds.holders[0].holds_back.databases());
        assert_eq!(holds.holders[1].holds_back.tables_of, ["app", "shop"]);
        assert_eq!(holds.holders[2].behind, [1]);
    }

    #[test]
    fn nothing_on_a_standby_without_feedback() {
        let s = snapshot(
            vec![holder("session", "5", Some("app"), Pins::Nothing, 90)],
            &["app"],
        );
        let holds = assess(&s);
        assert!(holds.holders[0].holds_back.nothing());
        assert!(holds.holders[0].behind.is_empty());
        assert!(holds.databases[0].tables.is_none());
    }
}
