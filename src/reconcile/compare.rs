//! The set difference, exactly: a sorted merge of the two sides, no sampling.

use super::ids::{align, Aligned, IdList};
use std::collections::BTreeSet;

#[derive(Debug, Default)]
pub struct Classes {
    pub matched: u64,
    /// In the database (and old enough), not in the topic.
    pub missing: Vec<String>,
    /// In the database but younger than the settle window, not (yet) in the topic.
    pub pending: Vec<String>,
    /// In the topic (within the window), not in the database.
    pub extra: Vec<String>,
    /// In the topic more than once: (id, count).
    pub duplicated: Vec<(String, u32)>,
}

/// `db`: every database id in the window; `young`: those inside the settle window (not
/// yet expected in the topic); `topic_window`: ids of messages timestamped within the
/// window; `topic_all`: every id read (slack included), so an order published just
/// before the window's start still counts as published.
pub fn compare(
    db: IdList,
    young: &BTreeSet<String>,
    topic_window: IdList,
    topic_all: IdList,
) -> Classes {
    match align(vec![db, topic_window, topic_all]) {
        Aligned::Numeric(mut l) => merge(l.remove(0), young, l.remove(0), l.remove(0)),
        Aligned::Text(mut l) => merge(l.remove(0), young, l.remove(0), l.remove(0)),
    }
}

/// Two sorted merges: the database against everything read (matched, missing, pending),
/// and the window's messages against the database (extra, duplicated).
fn merge<T: Ord + std::fmt::Display>(
    db: Vec<(T, u32)>,
    young: &BTreeSet<String>,
    window: Vec<(T, u32)>,
    all: Vec<(T, u32)>,
) -> Classes {
    let mut classes = Classes::default();
    let mut j = 0;
    for (id, _) in &db {
        while j < all.len() && all[j].0 < *id {
            j += 1;
        }
        if j < all.len() && all[j].0 == *id {
            classes.matched += 1;
        } else {
            let text = id.to_string();
            if young.contains(&text) {
                classes.pending.push(text);
            } else {
                classes.missing.push(text);
            }
        }
    }
    let mut i = 0;
    for (id, count) in &window {
        if *count > 1 {
            classes.duplicated.push((id.to_string(), *count));
        }
        while i < db.len() && db[i].0 < *id {
            i += 1;
        }
        if !(i < db.len() && db[i].0 == *id) {
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
            list(&["1", "2", "2", "10", "77", "3"]),
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
            list(&["2"]),
        );
        assert_eq!((c.matched, c.missing.clone()), (1, vec!["A-1".to_string()]));
    }
}
