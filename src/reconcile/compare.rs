//! The set difference, exactly: a sorted merge of the two sides, no sampling.

use super::ids::{Counted, IdList};
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
    let mut classes = Classes::default();
    let (db, all) = IdList::aligned(db, topic_all);
    let (db_sorted, all_sorted) = (as_text(db), as_text(all));
    // Missing and matched: merge db against everything read.
    let (mut i, mut j) = (0, 0);
    while i < db_sorted.len() {
        let (id, _) = &db_sorted[i];
        while j < all_sorted.len() && key(&all_sorted[j].0) < key(id) {
            j += 1;
        }
        if j < all_sorted.len() && all_sorted[j].0 == *id {
            classes.matched += 1;
        } else if young.contains(id) {
            classes.pending.push(id.clone());
        } else {
            classes.missing.push(id.clone());
        }
        i += 1;
    }
    // Extra and duplicates: the window's messages against the database.
    let db_set: std::collections::HashSet<&str> =
        db_sorted.iter().map(|(s, _)| s.as_str()).collect();
    for (id, count) in as_text(topic_window.counted()) {
        if count > 1 {
            classes.duplicated.push((id.clone(), count));
        }
        if !db_set.contains(id.as_str()) {
            classes.extra.push(id);
        }
    }
    classes
}

/// Numeric ids order by value, text ids by text: this key keeps both merges right.
fn key(id: &str) -> (usize, &str) {
    if id.bytes().all(|b| b.is_ascii_digit()) && !id.is_empty() {
        (id.len(), id)
    } else {
        (usize::MAX, id)
    }
}

fn as_text(counted: Counted) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = match counted {
        Counted::Numeric(v) => v.into_iter().map(|(n, c)| (n.to_string(), c)).collect(),
        Counted::Text(v) => v.into_iter().map(|(s, c)| (s.into_string(), c)).collect(),
    };
    out.sort_by(|a, b| key(&a.0).cmp(&key(&b.0)));
    out
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
