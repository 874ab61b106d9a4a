//! The set difference, exactly: a sorted merge of the two sides, no sampling.

use super::ids::{align, runs, Aligned, IdList};
use std::collections::BTreeSet;

#[derive(Debug, Default)]
pub struct Classes {
    pub matched: u64,
    /// In the database (and old enough), not in the topic.
    pub missing: Vec<String>,
    /// In the database but younger than the settle window, not (yet) in the topic.
    pub pending: Vec<String>,
    /// Not in what was read with read_committed, but named by a message past a
    /// partition's last stable offset (committed or not, it cannot be told until the LSO
    /// moves): neither missing nor matched.
    pub not_judged: Vec<String>,
    /// In the topic (within the window), not in the database.
    pub extra: Vec<String>,
    /// In the topic more than once: (id, count).
    pub duplicated: Vec<(String, u32)>,
}

/// `db`: every database id in the window; `young`: those inside the settle window (not
/// yet expected in the topic); `topic_window`: ids of messages timestamped within the
/// window; `topic_outside`: ids of the other messages read (the slack before the window,
/// and after it), so an order published just before the window's start still counts as
/// published; `past_lso`: ids of the messages past a last stable offset, of any time.
pub fn compare(
    db: IdList,
    young: &BTreeSet<String>,
    topic_window: IdList,
    topic_outside: IdList,
    past_lso: IdList,
) -> Classes {
    match align(vec![db, topic_window, topic_outside, past_lso]) {
        Aligned::Numeric(l) => merge(&l[0], young, &l[1], &l[2], &l[3]),
        Aligned::Text(l) => merge(&l[0], young, &l[1], &l[2], &l[3]),
    }
}

/// Two sorted merges: the database against every message read (matched, missing,
/// pending, not judged), and the window's messages against the database (extra,
/// duplicated).
fn merge<T: Ord + std::fmt::Display>(
    db: &[T],
    young: &BTreeSet<String>,
    window: &[T],
    outside: &[T],
    past_lso: &[T],
) -> Classes {
    let mut classes = Classes::default();
    let (mut w, mut o, mut p) = (0, 0, 0);
    for (id, _) in runs(db) {
        let read = |list: &[T], at: &mut usize| {
            while *at < list.len() && list[*at] < *id {
                *at += 1;
            }
            *at < list.len() && list[*at] == *id
        };
        let in_window = read(window, &mut w);
        if in_window || read(outside, &mut o) {
            classes.matched += 1;
        } else {
            let text = id.to_string();
            if young.contains(&text) {
                classes.pending.push(text);
            } else if read(past_lso, &mut p) {
                classes.not_judged.push(text);
            } else {
                classes.missing.push(text);
            }
        }
    }
    let mut i = 0;
    for (id, count) in runs(window) {
        if count > 1 {
            classes.duplicated.push((id.to_string(), count));
        }
        while i < db.len() && db[i] < *id {
            i += 1;
        }
        if !(i < db.len() && db[i] == *id) {
            classes.extra.push(id.to_string());
        }
    }
    classes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ids: &[&str]) -> IdList {
        let mut l = IdList::default();
        for id in ids {
            l.push(id);
        }
        l
    }

    #[test]
    fn every_class_exactly() {
        let young: BTreeSet<String> = ["9".to_string()].into();
        let c = compare(
            list(&["1", "2", "3", "4", "9", "10"]),
            &young,
            list(&["1", "2", "2", "10", "77"]),
            list(&["3"]),
            list(&[]),
        );
        assert_eq!(
            c.matched, 4,
            "1, 2, 10, and 3 (published before the window)"
        );
        assert_eq!(c.missing, ["4"]);
        assert_eq!(c.pending, ["9"]);
        assert_eq!(c.extra, ["77"]);
        assert_eq!(c.duplicated, [("2".to_string(), 2)]);
    }

    #[test]
    fn mixed_numeric_and_text_ids_compare_as_text() {
        let c = compare(
            list(&["A-1", "2"]),
            &BTreeSet::new(),
            list(&["2"]),
            list(&[]),
            list(&[]),
        );
        assert_eq!((c.matched, c.missing.clone()), (1, vec!["A-1".to_string()]));
    }

    #[test]
    fn ids_named_past_a_stuck_lso_are_not_judged_and_the_rest_still_are() {
        let c = compare(
            list(&["1", "2", "3", "4", "5"]),
            &["5".to_string()].into(),
            list(&["1"]),
            list(&[]),
            // 1 also past the LSO (a duplicate): matched wins; 5 is young.
            list(&["4", "1", "5", "3", "77"]),
        );
        assert_eq!(c.matched, 1);
        assert_eq!(c.missing, ["2"]);
        assert_eq!(c.not_judged, ["3", "4"]);
        assert_eq!(c.pending, ["5"]);
        assert!(
            c.extra.is_empty(),
            "ids past the LSO are not read: never extra"
        );
    }
}
