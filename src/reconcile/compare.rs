//! The set difference, exactly: a sorted merge of the two sides, no sampling.

use super::ids::IdList;
use super::spill::{Item, Sorted};
use anyhow::{anyhow, Result};
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
/// An error only when spilled runs cannot be read back: never a partial answer.
pub fn compare(
    db: IdList,
    young: &BTreeSet<String>,
    topic_window: IdList,
    topic_outside: IdList,
    past_lso: IdList,
) -> Result<Classes> {
    // Each list sorted on a thread of its own.
    let lists = [db, topic_window, topic_outside, past_lso];
    let sorted: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = lists
            .into_iter()
            .map(|list| scope.spawn(move || list.into_sorted()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("sorting ids panicked")))
            })
            .collect()
    });
    let (mut numbers, mut texts) = (Vec::new(), Vec::new());
    for list in sorted {
        let (n, t) = list?;
        numbers.push(Peek::new(n)?);
        texts.push(Peek::new(t)?);
    }
    let mut classes = Classes::default();
    // Numbers first, then texts: no number is the same id as a text.
    merge(numbers, young, &mut classes)?;
    merge(texts, young, &mut classes)?;
    Ok(classes)
}

/// One sorted walk over the database and the window's messages together (matched,
/// missing, pending, not judged; extra, duplicated), the messages outside the window and
/// past the LSO looked up on the way.
fn merge<T: Item + std::fmt::Display>(
    lists: Vec<Peek<T>>,
    young: &BTreeSet<String>,
    classes: &mut Classes,
) -> Result<()> {
    let Ok([mut db, mut window, mut outside, mut past_lso]) = <[Peek<T>; 4]>::try_from(lists)
    else {
        unreachable!("compare passes four lists")
    };
    loop {
        let from_db = match (db.head(), window.head()) {
            (None, None) => return Ok(()),
            (Some(d), Some(w)) => d <= w,
            (d, _) => d.is_some(),
        };
        if !from_db {
            let (id, count) = window.take_run()?;
            if count > 1 {
                classes.duplicated.push((id.to_string(), count));
            }
            classes.extra.push(id.to_string());
            continue;
        }
        let (id, _) = db.take_run()?;
        let in_window = window.head() == Some(&id);
        if in_window {
            let (_, count) = window.take_run()?;
            if count > 1 {
                classes.duplicated.push((id.to_string(), count));
            }
        }
        if in_window || outside.skip_to(&id)? {
            classes.matched += 1;
            continue;
        }
        let text = id.to_string();
        if young.contains(&text) {
            classes.pending.push(text);
        } else if past_lso.skip_to(&id)? {
            classes.not_judged.push(text);
        } else {
            classes.missing.push(text);
        }
    }
}

/// A sorted list and its next item.
struct Peek<T: Item> {
    rest: Sorted<T>,
    head: Option<T>,
}

impl<T: Item> Peek<T> {
    fn new(mut rest: Sorted<T>) -> Result<Peek<T>> {
        let head = rest.pop()?;
        Ok(Peek { rest, head })
    }

    fn head(&self) -> Option<&T> {
        self.head.as_ref()
    }

    /// The next id and how many times it comes; the list must not be at its end.
    fn take_run(&mut self) -> Result<(T, u32)> {
        let id = self.head.take().expect("a head: the caller looked");
        let mut count = 1;
        loop {
            self.head = self.rest.pop()?;
            if self.head.as_ref() != Some(&id) {
                return Ok((id, count));
            }
            count += 1;
        }
    }

    /// Skips the ids below `id`; whether `id` comes next.
    fn skip_to(&mut self, id: &T) -> Result<bool> {
        while self.head.as_ref().is_some_and(|h| h < id) {
            self.head = self.rest.pop()?;
        }
        Ok(self.head.as_ref() == Some(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ids: &[&str]) -> IdList {
        let mut l = IdList::new(&crate::reconcile::spill::Budget::new(
            u64::MAX,
            std::env::temp_dir(),
            |_| unreachable!("an unbounded budget never spills"),
        ));
        for id in ids {
            l.push(id).unwrap();
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
        )
        .unwrap();
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
    fn numbers_and_texts_each_match_their_own_kind() {
        let c = compare(
            list(&["A-1", "2", "7", "10"]),
            &BTreeSet::new(),
            list(&["2", "007", "Z"]),
            list(&[]),
            list(&[]),
        )
        .unwrap();
        assert_eq!(c.matched, 1);
        assert_eq!(
            c.missing,
            ["7", "10", "A-1"],
            "numbers in order, then texts"
        );
        assert_eq!(c.extra, ["007", "Z"], "007 is not the id 7");
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
        )
        .unwrap();
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
