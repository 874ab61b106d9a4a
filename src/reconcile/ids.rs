//! Ids: where a message carries one, and a compact list of them (numeric ids as u64, so
//! ten million fit in 80 MB; any other id as text).

use super::json_pointer::Pointer;
use anyhow::{bail, Result};

/// Where a message's id is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdFrom {
    Key,
    Header(String),
    /// An RFC 6901 JSON pointer into the value, e.g. `/order/id`.
    Json(Pointer),
}

impl IdFrom {
    pub fn parse(text: &str) -> Result<IdFrom> {
        Ok(match text.split_once(':') {
            None if text == "key" => IdFrom::Key,
            Some(("header", name)) if !name.is_empty() => IdFrom::Header(name.to_string()),
            Some(("json", pointer)) if pointer.starts_with('/') => {
                IdFrom::Json(Pointer::parse(pointer))
            }
            _ => bail!("invalid --id-from {text:?}: use key, header:NAME or json:/pointer"),
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

/// A multiset of ids, kept as u64 while every id is a plain number.
#[derive(Debug, Default)]
pub struct IdList {
    numeric: Vec<u64>,
    text: Vec<Box<str>>,
    all_numeric: bool,
    started: bool,
}

impl IdList {
    pub fn push(&mut self, id: &str) {
        if !self.started {
            self.started = true;
            self.all_numeric = true;
        }
        if self.all_numeric {
            // Only the digits a number prints back as: "007" and "+7" stay text (parse
            // refuses every other non-digit).
            let canonical = !id.starts_with('+') && (id.len() == 1 || !id.starts_with('0'));
            match id.parse::<u64>() {
                Ok(n) if canonical => {
                    self.numeric.push(n);
                    return;
                }
                _ => {
                    self.all_numeric = false;
                    self.text.extend(
                        self.numeric
                            .drain(..)
                            .map(|n| n.to_string().into_boxed_str()),
                    );
                }
            }
        }
        self.text.push(id.into());
    }

    /// An integer id (a database column), without a detour through text while the list
    /// is numeric.
    pub fn push_integer(&mut self, id: i64) {
        match u64::try_from(id) {
            Ok(n) if self.all_numeric || !self.started => {
                self.started = true;
                self.all_numeric = true;
                self.numeric.push(n);
            }
            _ => self.push(&id.to_string()),
        }
    }

    /// Adds another list's ids (from another reader thread).
    pub fn append(&mut self, other: IdList) {
        if !other.started {
            return;
        }
        if !self.started {
            *self = other;
            return;
        }
        if self.all_numeric && other.all_numeric {
            self.numeric.extend(other.numeric);
        } else {
            let mut text = std::mem::take(self).into_text();
            text.extend(other.into_text());
            *self = IdList {
                numeric: Vec::new(),
                text,
                all_numeric: false,
                started: true,
            };
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.numeric.len() + self.text.len()
    }

    /// The same ids as text (when another list turned out not to be numeric).
    fn into_text(self) -> Vec<Box<str>> {
        let mut text = self.text;
        text.extend(
            self.numeric
                .into_iter()
                .map(|n| n.to_string().into_boxed_str()),
        );
        text
    }

    fn numeric_or_empty(&self) -> bool {
        self.all_numeric || !self.started
    }
}

/// Several lists in one representation, each sorted (in place, one thread per list):
/// numeric while every list is, else all as text.
pub enum Aligned {
    Numeric(Vec<Vec<u64>>),
    Text(Vec<Vec<Box<str>>>),
}

pub fn align(lists: Vec<IdList>) -> Aligned {
    if lists.iter().all(IdList::numeric_or_empty) {
        Aligned::Numeric(sorted(lists.into_iter().map(|l| l.numeric).collect()))
    } else {
        Aligned::Text(sorted(lists.into_iter().map(IdList::into_text).collect()))
    }
}

fn sorted<T: Ord + Send>(mut lists: Vec<Vec<T>>) -> Vec<Vec<T>> {
    std::thread::scope(|scope| {
        for list in lists.iter_mut() {
            scope.spawn(|| list.sort_unstable());
        }
    });
    lists
}

/// (id, how many times) for each distinct id of a sorted list, without materialising them.
pub fn runs<T: PartialEq>(sorted: &[T]) -> impl Iterator<Item = (&T, u32)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let first = sorted.get(at)?;
        let n = sorted[at..].iter().take_while(|v| *v == first).count();
        at += n;
        Some((first, n as u32))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(IdFrom::parse("header:").is_err());
        assert!(IdFrom::parse("json:order").is_err());
    }

    #[test]
    fn numeric_until_proven_otherwise() {
        let mut a = IdList::default();
        for id in ["3", "1", "3", "2"] {
            a.push(id);
        }
        match align(vec![a]) {
            Aligned::Numeric(lists) => assert_eq!(
                runs(&lists[0]).collect::<Vec<_>>(),
                vec![(&1, 1), (&2, 1), (&3, 2)]
            ),
            Aligned::Text(_) => panic!("numeric ids"),
        }
        let (mut b, mut c) = (IdList::default(), IdList::default());
        for id in ["10", "007"] {
            b.push(id);
        }
        c.push("5");
        assert_eq!(b.len(), 2);
        let mut signed = IdList::default();
        signed.push("+7");
        signed.push_integer(7);
        match align(vec![signed]) {
            Aligned::Text(lists) => assert_eq!(
                lists[0].iter().map(|s| s.as_ref()).collect::<Vec<_>>(),
                ["+7", "7"]
            ),
            Aligned::Numeric(_) => panic!("+7 is not how 7 prints"),
        }
        let mut joined = IdList::default();
        let mut numbers = IdList::default();
        numbers.push("1");
        joined.append(numbers);
        let mut words = IdList::default();
        words.push("x");
        joined.append(words);
        assert_eq!(joined.len(), 2);
        match align(vec![joined]) {
            Aligned::Text(lists) => assert_eq!(
                lists[0].iter().map(|s| s.as_ref()).collect::<Vec<_>>(),
                ["1", "x"]
            ),
            Aligned::Numeric(_) => panic!("a text id makes the list text"),
        }
        match align(vec![b, c]) {
            Aligned::Text(lists) => {
                assert_eq!(
                    lists[0].iter().map(|s| s.as_ref()).collect::<Vec<_>>(),
                    ["007", "10"]
                );
                assert_eq!(
                    lists[1].iter().map(|s| s.as_ref()).collect::<Vec<_>>(),
                    ["5"],
                    "aligned to text too"
                );
            }
            Aligned::Numeric(_) => panic!("007 keeps its zeros"),
        }
    }
}
