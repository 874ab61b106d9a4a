//! Ids: where a message carries one, and a compact list of them (numeric ids as u64, so
//! ten million fit in 80 MB; any other id as text), within a memory budget.

use super::json_pointer::Pointer;
use super::spill::{Budget, Item, Pile, Sorted};
use anyhow::Result;
use std::sync::Arc;

/// The longest id compared, in bytes (of UTF-8). An identifier is a few dozen bytes; one
/// past this is a payload or a document picked by mistake, and a few of them made
/// `--memory` meaningless (three 20 MB ids took 287 MiB under `--memory 1MiB`; now the
/// run stops at the first, at 26 MiB). Such an id, on either side, ends the run with an
/// error naming its row or message (exit 3).
pub const MAX_ID_BYTES: usize = 4096;

/// Refuses an id longer than [`MAX_ID_BYTES`]; `place` names the row or the message.
pub fn within_limit(id: &str, place: impl FnOnce() -> IdPlace) -> Result<()> {
    if id.len() <= MAX_ID_BYTES {
        return Ok(());
    }
    Err(IdTooLong {
        place: place(),
        bytes: id.len(),
    }
    .into())
}

/// Where an id too long to compare was found: what to check differs (the query's id
/// column, or where the topic's id is taken from), so the application says which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdPlace {
    /// A row of the database side: `which` as "row 17 (time …) of the reconcile query",
    /// and the query's id column.
    Row { which: String, column: String },
    /// A message of the topic: "the message at partition 2 offset 17".
    Message { which: String },
}

/// An id past [`MAX_ID_BYTES`], on either side.
#[derive(Debug)]
pub struct IdTooLong {
    pub place: IdPlace,
    pub bytes: usize,
}

impl std::fmt::Display for IdTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let which = match &self.place {
            IdPlace::Row { which, .. } | IdPlace::Message { which } => which,
        };
        write!(
            f,
            "{which} has an id of {} bytes: indoubt compares ids of at most {MAX_ID_BYTES} bytes",
            self.bytes
        )
    }
}

impl std::error::Error for IdTooLong {}

/// Where a message's id is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdFrom {
    Key,
    Header(String),
    /// An RFC 6901 JSON pointer into the value, e.g. `/order/id`.
    Json(Pointer),
}

impl IdFrom {
    /// `key`, `header:NAME` or `json:/pointer`; None for anything else (the application
    /// names the setting it came from).
    pub fn parse(text: &str) -> Option<IdFrom> {
        Some(match text.split_once(':') {
            None if text == "key" => IdFrom::Key,
            Some(("header", name)) if !name.is_empty() => IdFrom::Header(name.to_string()),
            Some(("json", pointer)) if pointer.starts_with('/') => {
                IdFrom::Json(Pointer::parse(pointer))
            }
            _ => return None,
        })
    }

    /// The id, or why there is none (the message is then counted as unparseable). Keys and
    /// headers are borrowed, not copied: this runs once per message.
    pub fn extract<'a>(
        &self,
        key: Option<&'a [u8]>,
        header: impl FnOnce(&str) -> Option<&'a [u8]>,
        value: Option<&'a [u8]>,
    ) -> Result<std::borrow::Cow<'a, str>, String> {
        let text = |bytes: &'a [u8], what: &str| {
            std::str::from_utf8(bytes)
                .map(|s| std::borrow::Cow::Borrowed(s.trim()))
                .map_err(|_| format!("{what} is not UTF-8"))
        };
        match self {
            IdFrom::Key => key
                .ok_or_else(|| "no key".to_string())
                .and_then(|k| text(k, "key")),
            IdFrom::Header(name) => header(name)
                .ok_or_else(|| format!("no header {name}"))
                .and_then(|v| text(v, "header")),
            IdFrom::Json(pointer) => pointer.find(value.ok_or_else(|| "no value".to_string())?),
        }
    }
}

/// A multiset of ids: those that print back as a number (no sign, no leading zero) as
/// u64, 8 bytes each, the others as text. A number and a text never name the same id, so
/// each kind is sorted and compared on its own (numbers first, then text) and no list
/// ever turns its numbers into text. Past its share of the budget the list spills.
pub struct IdList {
    numeric: Pile<u64>,
    text: Pile<Box<str>>,
    budget: Arc<Budget>,
    /// Bytes the ids in memory take, and the bytes taken from the budget for them.
    used: usize,
    reserved: usize,
}

impl IdList {
    pub fn new(budget: &Arc<Budget>) -> IdList {
        IdList {
            numeric: Pile::default(),
            text: Pile::default(),
            budget: budget.clone(),
            used: 0,
            reserved: 0,
        }
    }

    pub fn push(&mut self, id: &str) -> Result<()> {
        // Only the digits a number prints back as: "007" and "+7" stay text (parse
        // refuses every other non-digit).
        let canonical = !id.starts_with('+') && (id.len() == 1 || !id.starts_with('0'));
        match id.parse::<u64>() {
            Ok(n) if canonical => self.push_number(n),
            _ => {
                let id: Box<str> = id.into();
                self.account(id.cost())?;
                self.text.memory.push(id);
                Ok(())
            }
        }
    }

    /// An integer id (a database column), without a detour through text.
    pub fn push_integer(&mut self, id: i64) -> Result<()> {
        match u64::try_from(id) {
            Ok(n) => self.push_number(n),
            Err(_) => self.push(&id.to_string()),
        }
    }

    fn push_number(&mut self, n: u64) -> Result<()> {
        self.account(8)?;
        self.numeric.memory.push(n);
        Ok(())
    }

    /// Counts `cost` more bytes in memory: past the reservation the list takes another
    /// chunk of the budget, or, with the budget spent, spills what it holds.
    fn account(&mut self, cost: usize) -> Result<()> {
        self.used += cost;
        if self.used <= self.reserved {
            return Ok(());
        }
        let chunk = self.budget.chunk().max(cost);
        if self.reserved > 0 && self.budget.take(chunk) {
            self.reserved += chunk;
            return Ok(());
        }
        if self.reserved > 0 {
            self.numeric.spill(&self.budget)?;
            self.text.spill(&self.budget)?;
            self.budget.give(self.reserved);
            self.used = cost;
        }
        self.budget.take_anyway(chunk);
        self.reserved = chunk;
        Ok(())
    }

    /// Adds another list's ids (from another reader thread), and its share of the budget.
    pub fn append(&mut self, mut other: IdList) {
        self.numeric.append(std::mem::take(&mut other.numeric));
        self.text.append(std::mem::take(&mut other.text));
        self.used += other.used;
        self.reserved += std::mem::take(&mut other.reserved);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.numeric.len_in_memory() + self.text.len_in_memory()
    }

    /// The numbers in order, then the texts in order.
    pub fn into_sorted(mut self) -> Result<(Sorted<u64>, Sorted<Box<str>>)> {
        let numeric = std::mem::take(&mut self.numeric).into_sorted(&self.budget)?;
        let text = std::mem::take(&mut self.text).into_sorted(&self.budget)?;
        Ok((numeric, text))
    }
}

impl Drop for IdList {
    fn drop(&mut self) {
        self.budget.give(self.reserved);
    }
}

#[cfg(test)]
mod tests {
    use super::super::spill::Scratch;
    use super::*;

    /// The application's scratch directory (src/fsafe.rs's, as a run makes it), for the
    /// tests that spill.
    fn scratch(parent: &std::path::Path) -> Result<Box<dyn Scratch>> {
        Ok(Box::new(crate::fsafe::ScratchDir::create(
            parent,
            "indoubt-reconcile-",
        )?))
    }

    #[test]
    fn id_sources() {
        let none = |_: &str| None;
        let header = |name: &str| (name == "order_id").then_some(&b"42"[..]);
        assert_eq!(
            IdFrom::parse("key")
                .unwrap()
                .extract(Some(b"7"), none, None)
                .unwrap(),
            "7"
        );
        assert_eq!(
            IdFrom::parse("header:order_id")
                .unwrap()
                .extract(None, header, None)
                .unwrap(),
            "42"
        );
        let json = IdFrom::parse("json:/order/id").unwrap();
        assert_eq!(
            json.extract(None, none, Some(br#"{"order":{"id":4711}}"#))
                .unwrap(),
            "4711"
        );
        assert_eq!(
            json.extract(None, none, Some(br#"{"order":{"id":"A-1"}}"#))
                .unwrap(),
            "A-1"
        );
        assert!(json
            .extract(None, none, Some(b"not json"))
            .unwrap_err()
            .contains("not JSON"));
        assert!(json.extract(None, none, Some(br#"{"order":{}}"#)).is_err());
        assert!(IdFrom::parse("header:").is_none());
        assert!(IdFrom::parse("json:order").is_none());
    }

    fn all(list: IdList) -> (Vec<u64>, Vec<String>) {
        let (mut numbers, mut texts) = list.into_sorted().unwrap();
        let (mut n, mut t) = (Vec::new(), Vec::new());
        while let Some(x) = numbers.pop().unwrap() {
            n.push(x);
        }
        while let Some(x) = texts.pop().unwrap() {
            t.push(x.into());
        }
        (n, t)
    }

    fn unbounded() -> Arc<Budget> {
        Budget::new(u64::MAX, std::env::temp_dir(), scratch)
    }

    #[test]
    fn numbers_only_as_they_print_back() {
        let mut list = IdList::new(&unbounded());
        for id in ["3", "1", "3", "007", "+7", "x", "0"] {
            list.push(id).unwrap();
        }
        list.push_integer(7).unwrap();
        list.push_integer(-7).unwrap();
        assert_eq!(list.len(), 9);
        assert_eq!(
            all(list),
            (
                vec![0, 1, 3, 3, 7],
                vec!["+7".into(), "-7".into(), "007".into(), "x".into()]
            ),
            "007 keeps its zeros, +7 its sign: text, not the number 7"
        );
    }

    #[test]
    fn past_the_budget_runs_spill_and_merge_back_in_the_same_order() {
        let dir = tempfile::tempdir().unwrap();
        // 4 KiB: a chunk is the whole budget, so three lists over-reserve and spill often.
        let budget = Budget::new(4096, dir.path().to_path_buf(), scratch);
        let (mut a, mut b, mut c) = (
            IdList::new(&budget),
            IdList::new(&budget),
            IdList::new(&budget),
        );
        let mut expected = (Vec::new(), Vec::new());
        for i in 0..20_000u64 {
            let n = i.wrapping_mul(2_654_435_761) % 5_000; // shuffled, with repeats
            let list = match i % 3 {
                0 => &mut a,
                1 => &mut b,
                _ => &mut c,
            };
            if i % 7 == 0 {
                list.push(&format!("t-{n}")).unwrap();
                expected.1.push(format!("t-{n}"));
            } else {
                list.push(&n.to_string()).unwrap();
                expected.0.push(n);
            }
        }
        assert!(budget.spilled() > 0, "a 4 KiB budget spills");
        let scratch: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(scratch.len(), 1, "one scratch directory of the run's own");
        a.append(b);
        a.append(c);
        expected.0.sort_unstable();
        expected.1.sort_unstable();
        assert_eq!(all(a), expected);
        drop(budget);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the scratch directory goes with the comparison"
        );
    }

    #[test]
    fn more_runs_than_can_be_open_at_once_are_merged_in_steps() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(4096, dir.path().to_path_buf(), scratch);
        let (mut a, mut b) = (IdList::new(&budget), IdList::new(&budget));
        // b holds its chunk, so every chunk's worth a takes spills: ~250 runs.
        b.push("1").unwrap();
        for i in (0..128_000u64).rev() {
            a.push_integer(i as i64).unwrap();
        }
        // A byte a number at least (runs hold the differences, here all 1).
        assert!(budget.spilled() >= 128_000 - 4096);
        assert!(
            a.numeric.runs() <= 16,
            "merged as they come: {} files open",
            a.numeric.runs()
        );
        let (numbers, _) = all(a);
        assert_eq!(numbers, (0..128_000).collect::<Vec<_>>());
    }
}
